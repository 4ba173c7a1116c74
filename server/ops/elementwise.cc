// Elementwise ops (NumPy ufuncs): dtype resolution, broadcasting, and the
// call into the backend's unary/binary kernels. One table row per ufunc.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

using kernels::BinaryOp;
using kernels::UnaryOp;
using kernels::kAll;
using kernels::kB;
using kernels::kC;
using kernels::kF;
using kernels::kI;

enum class OutRule { kSame, kBool, kReal, kFloat64 };
// Which loop integer (and bool) inputs get, when not their own dtype.
enum class IntLoop {
  kSame,           // integers run in their own dtype
  kFloat64,        // true_divide: always float64
  kSmallestFloat,  // math functions: the smallest float holding the ints
};

// How a ufunc picks its loop dtype from its promoted input dtype; the kinds
// of loop dtype it accepts are the KindMask of its kernels/op_list.h row.
struct DTypeRule {
  OutRule out = OutRule::kSame;
  DType bool_loop = DType::kInvalid;  // loop for bool inputs (kInvalid: bool itself)
  IntLoop int_loop = IntLoop::kSame;
  DType fixed_loop = DType::kInvalid;  // the only loop, whatever the inputs
};

constexpr DTypeRule kSame{};
constexpr DTypeRule kToBool{OutRule::kBool};
constexpr DTypeRule kBoolAsInt8{OutRule::kSame, DType::kInt8};
constexpr DTypeRule kFloatMath{OutRule::kSame, DType::kInvalid, IntLoop::kSmallestFloat};

// NumPy's loop choice per ufunc; ufuncs not listed use kSame.
const std::map<std::string, DTypeRule>& Rules() {
  static const auto* rules = new std::map<std::string, DTypeRule>{
      {"absolute", {OutRule::kReal}},
      {"logical_not", kToBool},
      {"true_divide", {OutRule::kSame, DType::kInvalid, IntLoop::kFloat64}},
      {"floor_divide", kBoolAsInt8},
      {"remainder", kBoolAsInt8},
      {"power", kBoolAsInt8},
      {"fmod", kBoolAsInt8},
      {"left_shift", kBoolAsInt8},
      {"right_shift", kBoolAsInt8},
      {"square", kBoolAsInt8},
      {"reciprocal", kBoolAsInt8},
      {"conjugate", kBoolAsInt8},
      {"equal", kToBool},
      {"not_equal", kToBool},
      {"less", kToBool},
      {"less_equal", kToBool},
      {"greater", kToBool},
      {"greater_equal", kToBool},
      {"logical_and", kToBool},
      {"logical_or", kToBool},
      {"logical_xor", kToBool},
      {"isnan", kToBool},
      {"isinf", kToBool},
      {"isfinite", kToBool},
      {"signbit", {OutRule::kBool, DType::kInvalid, IntLoop::kSmallestFloat}},
      {"exp", kFloatMath},      {"exp2", kFloatMath},   {"expm1", kFloatMath},
      {"log", kFloatMath},      {"log2", kFloatMath},   {"log10", kFloatMath},
      {"log1p", kFloatMath},    {"sqrt", kFloatMath},   {"cbrt", kFloatMath},
      {"sin", kFloatMath},      {"cos", kFloatMath},    {"tan", kFloatMath},
      {"arcsin", kFloatMath},   {"arccos", kFloatMath}, {"arctan", kFloatMath},
      {"sinh", kFloatMath},     {"cosh", kFloatMath},   {"tanh", kFloatMath},
      {"arcsinh", kFloatMath},  {"arccosh", kFloatMath}, {"arctanh", kFloatMath},
      {"rint", kFloatMath},     {"fabs", kFloatMath},   {"degrees", kFloatMath},
      {"radians", kFloatMath},  {"arctan2", kFloatMath}, {"hypot", kFloatMath},
      {"copysign", kFloatMath}, {"nextafter", kFloatMath}, {"logaddexp", kFloatMath},
      {"logaddexp2", kFloatMath}, {"heaviside", kFloatMath},
  };
  return *rules;
}

DTypeRule RuleFor(const std::string& name) {
  auto it = Rules().find(name);
  return it == Rules().end() ? kSame : it->second;
}

#define ARRAYD_NAME_ROW(e, f, n, k) n,
const char* const kUnaryNames[] = {ARRAYD_UNARY_OPS(ARRAYD_NAME_ROW)};
const char* const kBinaryNames[] = {ARRAYD_BINARY_OPS(ARRAYD_NAME_ROW)};
#undef ARRAYD_NAME_ROW
#define ARRAYD_KINDS_ROW(e, f, n, k) k,
const unsigned kUnaryKinds[] = {ARRAYD_UNARY_OPS(ARRAYD_KINDS_ROW)};
const unsigned kBinaryKinds[] = {ARRAYD_BINARY_OPS(ARRAYD_KINDS_ROW)};
#undef ARRAYD_KINDS_ROW

// The smallest float dtype that holds every value of integer dtype `d`.
DType SmallestFloatFor(DType d) {
  switch (ItemSize(d)) {
    case 1: return DType::kFloat16;
    case 2: return DType::kFloat32;
    default: return DType::kFloat64;
  }
}

unsigned KindBitOf(DType d) {
  switch (Kind(d)) {
    case DTypeKind::kBool: return kB;
    case DTypeKind::kSigned:
    case DTypeKind::kUnsigned: return kI;
    case DTypeKind::kFloat: return kF;
    case DTypeKind::kComplex: return kC;
  }
  return 0;
}

// The loop dtype and result dtype of ufunc `name` for promoted input dtype
// `in` (or the client's dtype= override). NumPy's TypeError when no loop fits.
absl::Status ResolveLoop(const char* name, unsigned kinds, DType in, bool forced, DType* loop,
                         DType* out) {
  const DTypeRule rule = RuleFor(name);
  DType l = in;
  if (rule.fixed_loop != DType::kInvalid) l = rule.fixed_loop;
  if (!forced) {
    if (l == DType::kBool && rule.bool_loop != DType::kInvalid) l = rule.bool_loop;
    if (!IsInexact(l) && rule.int_loop == IntLoop::kFloat64) l = DType::kFloat64;
    if (!IsInexact(l) && rule.int_loop == IntLoop::kSmallestFloat) l = SmallestFloatFor(l);
  }
  if ((KindBitOf(l) & kinds) == 0) {
    return TypeError(absl::StrCat("ufunc '", name,
                                  "' not supported for the input types, and the inputs could not "
                                  "be safely coerced to any supported types according to the "
                                  "casting rule ''safe''"));
  }
  *loop = l;
  *out = rule.out == OutRule::kFloat64 ? DType::kFloat64
         : rule.out == OutRule::kBool ? DType::kBool
         : rule.out == OutRule::kReal ? RealDType(l)
                                      : l;
  return absl::OkStatus();
}

// NumPy refuses negative integer exponents; that needs the smallest
// exponent on the host (a sync, paid only by signed integer power).
absl::Status CheckNonNegativeExponent(OpContext& ctx, const View& exponent) {
  ARRAYD_ASSIGN_OR_RETURN(View as64, ctx.CastTo(exponent, DType::kInt64));
  ARRAYD_ASSIGN_OR_RETURN(View lowest, ctx.NewArray(DType::kInt64, {}));
  std::vector<int> axes(as64.ndim());
  for (int d = 0; d < as64.ndim(); ++d) axes[d] = d;
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Reduce(kernels::ReduceOp::kMin, as64, axes, lowest));
  int64_t value = 0;
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyToHost(lowest, &value));
  if (value < 0) return ValueError("Integers to negative integer powers are not allowed.");
  return absl::OkStatus();
}

absl::Status RunUnary(OpContext& ctx, UnaryOp op) {
  const int i = static_cast<int>(op);
  const View& x = ctx.input(0);
  bool forced = ctx.attrs().Has("dtype");
  DType loop = x.dtype, out_dtype;
  if (forced) {
    ARRAYD_ASSIGN_OR_RETURN(loop, ctx.attrs().GetDType("dtype"));
  }
  ARRAYD_RETURN_IF_ERROR(ResolveLoop(kUnaryNames[i], kUnaryKinds[i], loop, forced, &loop, &out_dtype));
  ARRAYD_ASSIGN_OR_RETURN(View in, ctx.CastTo(x, loop));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.OutputFor(0, out_dtype, x.shape));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Unary(op, in, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::Status RunBinary(OpContext& ctx, BinaryOp op) {
  const int i = static_cast<int>(op);
  const View& a = ctx.input(0);
  const View& b = ctx.input(1);
  bool forced = ctx.attrs().Has("dtype");
  DType loop = Promote(a.dtype, b.dtype), out_dtype;
  if (forced) {
    ARRAYD_ASSIGN_OR_RETURN(loop, ctx.attrs().GetDType("dtype"));
  }
  ARRAYD_RETURN_IF_ERROR(ResolveLoop(kBinaryNames[i], kBinaryKinds[i], loop, forced, &loop, &out_dtype));
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes({a.shape, b.shape}));
  ARRAYD_ASSIGN_OR_RETURN(View ca, ctx.CastTo(a, loop));
  ARRAYD_ASSIGN_OR_RETURN(View cb, ctx.CastTo(b, loop));
  ARRAYD_ASSIGN_OR_RETURN(View ba, BroadcastTo(ca, shape));
  ARRAYD_ASSIGN_OR_RETURN(View bb, BroadcastTo(cb, shape));
  if (op == BinaryOp::kPower && IsInteger(loop) && Kind(loop) == DTypeKind::kSigned &&
      cb.size() > 0) {
    ARRAYD_RETURN_IF_ERROR(CheckNonNegativeExponent(ctx, cb));
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.OutputFor(0, out_dtype, shape));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Binary(op, ba, bb, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

}  // namespace

void RegisterElementwiseOps(OpRegistry* r) {
  for (int i = 0; i < static_cast<int>(UnaryOp::kNumUnaryOps); ++i) {
    UnaryOp op = static_cast<UnaryOp>(i);
    r->Register({kUnaryNames[i], 1, 1, {"dtype"}, absl::StrCat("NumPy's ", kUnaryNames[i], "."),
                 [op](OpContext& ctx) { return RunUnary(ctx, op); }});
  }
  for (int i = 0; i < static_cast<int>(BinaryOp::kNumBinaryOps); ++i) {
    BinaryOp op = static_cast<BinaryOp>(i);
    r->Register({kBinaryNames[i], 2, 1, {"dtype"}, absl::StrCat("NumPy's ", kBinaryNames[i], "."),
                 [op](OpContext& ctx) { return RunBinary(ctx, op); }});
  }
}

}  // namespace arrayd
