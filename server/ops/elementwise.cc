// Elementwise ops (NumPy ufuncs): dtype resolution, broadcasting, and the
// call into the backend's unary/binary kernels. One table row per ufunc.
#include <string>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

using kernels::BinaryOp;
using kernels::UnaryOp;

enum class OutRule { kSame, kBool, kReal };

// How a ufunc picks its loop from the promoted input dtype.
struct DTypeRule {
  unsigned kinds;  // KindMask of accepted loop dtypes
  OutRule out = OutRule::kSame;
  DType bool_loop = DType::kInvalid;  // loop for bool inputs, when not bool
  bool float_loop_for_ints = false;   // true_divide: ints and bools use float64
};

struct UfuncRow {
  const char* name;
  DTypeRule rule;
};

constexpr unsigned kB = kernels::kB, kI = kernels::kI, kF = kernels::kF, kC = kernels::kC,
                   kAll = kernels::kAll;

// Unary rows, in ARRAYD_UNARY_OPS order.
const DTypeRule kUnaryRules[] = {
    /* negative */ {kI | kF | kC},
    /* positive */ {kI | kF | kC},
    /* absolute */ {kAll, OutRule::kReal},
    /* logical_not */ {kAll, OutRule::kBool},
    /* invert */ {kB | kI},
    /* floor */ {kF, OutRule::kSame, DType::kInvalid, true},
};

// Binary rows, in ARRAYD_BINARY_OPS order.
const DTypeRule kBinaryRules[] = {
    /* add */ {kAll},
    /* subtract */ {kI | kF | kC},
    /* multiply */ {kAll},
    /* true_divide */ {kF | kC, OutRule::kSame, DType::kInvalid, true},
    /* floor_divide */ {kI | kF, OutRule::kSame, DType::kInt8},
    /* remainder */ {kI | kF, OutRule::kSame, DType::kInt8},
    /* power */ {kI | kF | kC, OutRule::kSame, DType::kInt8},
    /* equal */ {kAll, OutRule::kBool},
    /* not_equal */ {kAll, OutRule::kBool},
    /* less */ {kAll, OutRule::kBool},
    /* less_equal */ {kAll, OutRule::kBool},
    /* greater */ {kAll, OutRule::kBool},
    /* greater_equal */ {kAll, OutRule::kBool},
    /* logical_and */ {kAll, OutRule::kBool},
    /* logical_or */ {kAll, OutRule::kBool},
    /* logical_xor */ {kAll, OutRule::kBool},
    /* bitwise_and */ {kB | kI},
    /* bitwise_or */ {kB | kI},
    /* bitwise_xor */ {kB | kI},
    /* left_shift */ {kI, OutRule::kSame, DType::kInt8},
    /* right_shift */ {kI, OutRule::kSame, DType::kInt8},
    /* maximum */ {kAll},
    /* minimum */ {kAll},
};

#define ARRAYD_NAME_ROW(e, f, n, k) n,
const char* const kUnaryNames[] = {ARRAYD_UNARY_OPS(ARRAYD_NAME_ROW)};
const char* const kBinaryNames[] = {ARRAYD_BINARY_OPS(ARRAYD_NAME_ROW)};
#undef ARRAYD_NAME_ROW
static_assert(sizeof(kUnaryRules) / sizeof(kUnaryRules[0]) ==
              static_cast<size_t>(UnaryOp::kNumUnaryOps));
static_assert(sizeof(kBinaryRules) / sizeof(kBinaryRules[0]) ==
              static_cast<size_t>(BinaryOp::kNumBinaryOps));

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

// The loop dtype and result dtype of a ufunc for promoted input dtype `in`
// (or the client's dtype= override). TypeError as NumPy's when no loop fits.
absl::Status ResolveLoop(const char* name, const DTypeRule& rule, DType in, bool forced,
                         DType* loop, DType* out) {
  DType l = in;
  if (!forced) {
    if (l == DType::kBool && rule.bool_loop != DType::kInvalid) l = rule.bool_loop;
    if (rule.float_loop_for_ints && !IsInexact(l)) l = DType::kFloat64;
  }
  if ((KindBitOf(l) & rule.kinds) == 0) {
    return TypeError(absl::StrCat("ufunc '", name,
                                  "' not supported for the input types, and the inputs could not "
                                  "be safely coerced to any supported types according to the "
                                  "casting rule ''safe''"));
  }
  *loop = l;
  *out = rule.out == OutRule::kBool ? DType::kBool
         : rule.out == OutRule::kReal ? RealDType(l)
                                      : l;
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
  ARRAYD_RETURN_IF_ERROR(ResolveLoop(kUnaryNames[i], kUnaryRules[i], loop, forced, &loop, &out_dtype));
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
  ARRAYD_RETURN_IF_ERROR(ResolveLoop(kBinaryNames[i], kBinaryRules[i], loop, forced, &loop, &out_dtype));
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes({a.shape, b.shape}));
  ARRAYD_ASSIGN_OR_RETURN(View ca, ctx.CastTo(a, loop));
  ARRAYD_ASSIGN_OR_RETURN(View cb, ctx.CastTo(b, loop));
  ARRAYD_ASSIGN_OR_RETURN(View ba, BroadcastTo(ca, shape));
  ARRAYD_ASSIGN_OR_RETURN(View bb, BroadcastTo(cb, shape));
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
