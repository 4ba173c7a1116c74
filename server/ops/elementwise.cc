// Elementwise ops (NumPy ufuncs): the registry entries of the rows of
// kernels/op_list.h, loop choice from each row's loop table, broadcasting,
// and the call into the backend's unary/binary kernels.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "kernels/op_list.h"
#include "absl/container/flat_hash_map.h"
#include "ops/fusion.h"
#include "ops/registry.h"
#include "ops/signature.h"

namespace arrayd {
namespace {

using kernels::BinaryOp;
using kernels::UnaryOp;

// A row of kernels/op_list.h.
struct UfuncRow {
  const char* name;
  const char* loops;
  const char* identity;
  const char* doc;
  const char* module;  // "" for NumPy's ufuncs
};
#define ARRAYD_UFUNC_ROW(e, f, n, loops, id, doc) {n, loops, id, doc, ""},
#define ARRAYD_SPECIAL_ROW(e, f, n, loops, id, doc) {n, loops, id, doc, "scipy.special"},
constexpr UfuncRow kUnaryRows[] = {ARRAYD_NUMPY_UNARY_OPS(ARRAYD_UFUNC_ROW)
                                       ARRAYD_SPECIAL_UNARY_OPS(ARRAYD_SPECIAL_ROW)};
constexpr UfuncRow kBinaryRows[] = {ARRAYD_NUMPY_BINARY_OPS(ARRAYD_UFUNC_ROW)
                                        ARRAYD_SPECIAL_BINARY_OPS(ARRAYD_SPECIAL_ROW)};
#undef ARRAYD_UFUNC_ROW
#undef ARRAYD_SPECIAL_ROW

// The loop of ufunc `name` for inputs of dtypes `in` (NumPy's linear search
// over its loop table), or for the client's dtype= (the output's dtype);
// NumPy's TypeError when none fits.
absl::StatusOr<const Loop*> ResolveLoop(OpContext& ctx, const char* name,
                                        const std::vector<Loop>& loops,
                                        const std::vector<DType>& in) {
  DType forced = DType::kInvalid;
  if (ctx.attrs().Has("dtype")) {
    ARRAYD_ASSIGN_OR_RETURN(forced, ctx.attrs().GetDType("dtype"));
  }
  const Loop* loop = FindLoop(loops, in, forced);
  if (loop != nullptr) return loop;
  if (forced != DType::kInvalid) {
    return TypeError(absl::StrCat("No loop matching the specified signature and casting was found "
                                  "for ufunc ", name));
  }
  return TypeError(absl::StrCat("ufunc '", name,
                                "' not supported for the input types, and the inputs could not "
                                "be safely coerced to any supported types according to the "
                                "casting rule ''safe''"));
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

absl::Status RunUnary(OpContext& ctx, UnaryOp op, const std::vector<Loop>& loops) {
  const View& x = ctx.input(0);
  ARRAYD_ASSIGN_OR_RETURN(const Loop* loop,
                          ResolveLoop(ctx, kUnaryRows[static_cast<int>(op)].name, loops, {x.dtype}));
  ARRAYD_ASSIGN_OR_RETURN(View in, ctx.CastTo(x, loop->in[0]));
  ARRAYD_ASSIGN_OR_RETURN(
      View out, ctx.OutputFor(0, loop->out[0], x.shape, ResultStrides({&x}, x.shape, loop->out[0])));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Unary(op, in, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::Status RunBinary(OpContext& ctx, BinaryOp op, const std::vector<Loop>& loops) {
  const View& a = ctx.input(0);
  const View& b = ctx.input(1);
  ARRAYD_ASSIGN_OR_RETURN(
      const Loop* loop,
      ResolveLoop(ctx, kBinaryRows[static_cast<int>(op)].name, loops, {a.dtype, b.dtype}));
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes({a.shape, b.shape}));
  ARRAYD_ASSIGN_OR_RETURN(View ca, ctx.CastTo(a, loop->in[0]));
  ARRAYD_ASSIGN_OR_RETURN(View cb, ctx.CastTo(b, loop->in[1]));
  ARRAYD_ASSIGN_OR_RETURN(View ba, BroadcastTo(ca, shape));
  ARRAYD_ASSIGN_OR_RETURN(View bb, BroadcastTo(cb, shape));
  if (op == BinaryOp::kPower && Kind(loop->in[1]) == DTypeKind::kSigned && cb.size() > 0) {
    ARRAYD_RETURN_IF_ERROR(CheckNonNegativeExponent(ctx, cb));
  }
  ARRAYD_ASSIGN_OR_RETURN(View out,
                          ctx.OutputFor(0, loop->out[0], shape,
                                        ResultStrides({&a, &b}, shape, loop->out[0])));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Binary(op, ba, bb, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// The signature of a row: `name(x) -> out` or `name(x1, x2) -> out`, with
// the dtype= attribute, its loops and identity.
OpSignature UfuncSignature(const UfuncRow& row, int nin) {
  absl::StatusOr<OpSignature> sig = ParseSchema(
      OpFamily::kElementwise,
      absl::StrCat(row.name, nin == 1 ? "(x" : "(x1, x2", ", *, dtype: dtype? = None) -> out"),
      row.doc);
  sig->loops = SplitLoops(row.loops);
  sig->identity = row.identity;
  sig->module = row.module;
  return *std::move(sig);
}

std::vector<Loop> RowLoops(const UfuncRow& row) { return MustParseLoops(row.name, row.loops); }

}  // namespace

const UfuncInfo* FindUfunc(absl::string_view name) {
  static const auto* const table = [] {
    auto* t = new absl::flat_hash_map<std::string, UfuncInfo>();
    for (int i = 0; i < static_cast<int>(UnaryOp::kNumUnaryOps); ++i) {
      (*t)[kUnaryRows[i].name] = UfuncInfo{true, i, RowLoops(kUnaryRows[i])};
    }
    for (int i = 0; i < static_cast<int>(BinaryOp::kNumBinaryOps); ++i) {
      (*t)[kBinaryRows[i].name] = UfuncInfo{false, i, RowLoops(kBinaryRows[i])};
    }
    return t;
  }();
  auto it = table->find(name);
  return it == table->end() ? nullptr : &it->second;
}

void RegisterElementwiseOps(OpRegistry* r) {
  for (int i = 0; i < static_cast<int>(UnaryOp::kNumUnaryOps); ++i) {
    const UnaryOp op = static_cast<UnaryOp>(i);
    r->Register(UfuncSignature(kUnaryRows[i], 1),
                [op, loops = RowLoops(kUnaryRows[i])](OpContext& ctx) {
                  return RunUnary(ctx, op, loops);
                });
  }
  for (int i = 0; i < static_cast<int>(BinaryOp::kNumBinaryOps); ++i) {
    const BinaryOp op = static_cast<BinaryOp>(i);
    r->Register(UfuncSignature(kBinaryRows[i], 2),
                [op, loops = RowLoops(kBinaryRows[i])](OpContext& ctx) {
                  return RunBinary(ctx, op, loops);
                });
  }
}

}  // namespace arrayd
