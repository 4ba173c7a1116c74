// Reductions: sum, prod, mean, min, max, all, any over axes with keepdims and
// dtype=; argmin and argmax over one axis or the flattened array.
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "kernels/op_list.h"
#include "ops/reduction.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

using kernels::ReduceOp;

struct ReducePlan {
  absl::InlinedVector<int, 6> axes;  // sorted
  Shape out_shape;                   // without the reduced axes
  Shape keep_shape;                  // with them as ones
  int64_t count = 1;                 // elements reduced into each output
};

absl::StatusOr<ReducePlan> PlanReduce(const OpContext& ctx, const View& x) {
  ReducePlan plan;
  if (ctx.attrs().Has("axes")) {
    ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.attrs().Ints("axes"));
    ARRAYD_ASSIGN_OR_RETURN(plan.axes, NormalizeAxes(axes, x.ndim()));
  } else {
    for (int d = 0; d < x.ndim(); ++d) plan.axes.push_back(d);
  }
  std::sort(plan.axes.begin(), plan.axes.end());
  for (int d = 0; d < x.ndim(); ++d) {
    bool reduced = std::binary_search(plan.axes.begin(), plan.axes.end(), d);
    if (reduced) {
      plan.count *= x.shape[d];
      plan.keep_shape.push_back(1);
    } else {
      plan.out_shape.push_back(x.shape[d]);
      plan.keep_shape.push_back(x.shape[d]);
    }
  }
  return plan;
}

// Sets the result, reshaped to keepdims' shape when asked.
absl::Status Finish(OpContext& ctx, const ReducePlan& plan, View out) {
  ARRAYD_ASSIGN_OR_RETURN(bool keepdims, ctx.attrs().Bool("keepdims", false));
  if (keepdims) {
    View kept;
    TryReshapeView(out, plan.keep_shape, &kept);  // always a view: out is contiguous
    out = kept;
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

const char* NumpyName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMin: return "minimum";
    case ReduceOp::kMax: return "maximum";
    default: return "";
  }
}

// The result dtype of a reduction of `x` by its loop table.
absl::StatusOr<DType> ResultDType(const char* name, const std::vector<Loop>& loops, DType x) {
  const Loop* loop = FindLoop(loops, {x});
  if (loop == nullptr) return TypeError(absl::StrCat(name, " not supported for ", DTypeName(x)));
  return loop->out[0];
}

absl::Status RunReduce(OpContext& ctx, const char* name, ReduceOp op, const std::vector<Loop>& loops,
                       const View& x, const ReduceKernel& kernel) {
  ARRAYD_ASSIGN_OR_RETURN(ReducePlan plan, PlanReduce(ctx, x));
  ARRAYD_ASSIGN_OR_RETURN(DType acc, ResultDType(name, loops, x.dtype));
  if (op == ReduceOp::kAll || op == ReduceOp::kAny) acc = x.dtype;  // read as is, result bool
  if ((op == ReduceOp::kMin || op == ReduceOp::kMax) && plan.count == 0 &&
      ShapeSize(plan.out_shape) != 0) {
    return ValueError(absl::StrCat("zero-size array to reduction operation ", NumpyName(op),
                                   " which has no identity"));
  }
  if (ctx.attrs().Has("dtype")) {
    ARRAYD_ASSIGN_OR_RETURN(acc, ctx.attrs().GetDType("dtype"));
  }
  DType out_dtype = (op == ReduceOp::kAll || op == ReduceOp::kAny) ? DType::kBool : acc;
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(out_dtype, plan.out_shape));
  ARRAYD_RETURN_IF_ERROR(kernel(op, acc, plan.axes, out));
  return Finish(ctx, plan, out);
}

// mean = sum in the inexact dtype / count (float16 sums in float32, as NumPy).
absl::Status RunMean(OpContext& ctx, const std::vector<Loop>& loops, const View& x,
                     const ReduceKernel& kernel) {
  ARRAYD_ASSIGN_OR_RETURN(ReducePlan plan, PlanReduce(ctx, x));
  ARRAYD_ASSIGN_OR_RETURN(DType result, ResultDType("mean", loops, x.dtype));
  if (ctx.attrs().Has("dtype")) {
    ARRAYD_ASSIGN_OR_RETURN(result, ctx.attrs().GetDType("dtype"));
  }
  DType acc = result == DType::kFloat16 ? DType::kFloat32 : result;
  if (!IsInexact(acc)) acc = DType::kFloat64;
  ARRAYD_ASSIGN_OR_RETURN(View sum, ctx.NewArray(acc, plan.out_shape));
  ARRAYD_RETURN_IF_ERROR(kernel(ReduceOp::kSum, acc, plan.axes, sum));
  ARRAYD_ASSIGN_OR_RETURN(View count, ctx.NewArray(acc, {}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(count, Scalar::Float(static_cast<double>(plan.count))));
  ARRAYD_ASSIGN_OR_RETURN(View count_b, BroadcastTo(count, plan.out_shape));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Binary(kernels::BinaryOp::kTrueDivide, sum, count_b, sum));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.CastTo(sum, result));
  return Finish(ctx, plan, out);
}

// The reduction rows: name, op, result dtypes by input dtype
// (kernels/op_list.h); mean is RunMean's.
struct ReductionRow {
  const char* name;
  ReduceOp op;
  const char* loops;
};
constexpr ReductionRow kReductions[] = {
    {"sum", ReduceOp::kSum, ARRAYD_SUM_LOOPS},  {"prod", ReduceOp::kProd, ARRAYD_SUM_LOOPS},
    {"min", ReduceOp::kMin, ARRAYD_SAME_LOOPS}, {"max", ReduceOp::kMax, ARRAYD_SAME_LOOPS},
    {"all", ReduceOp::kAll, ARRAYD_TO_BOOL1},   {"any", ReduceOp::kAny, ARRAYD_TO_BOOL1},
    {"mean", ReduceOp::kSum, ARRAYD_MEAN_LOOPS},
};

// Each row's parsed loops, in kReductions' order.
const std::vector<std::vector<Loop>>& ReductionLoops() {
  static const auto* loops = [] {
    auto* v = new std::vector<std::vector<Loop>>;
    for (const ReductionRow& row : kReductions) v->push_back(MustParseLoops(row.name, row.loops));
    return v;
  }();
  return *loops;
}

absl::Status RunRow(OpContext& ctx, int row, const View& x, const ReduceKernel& kernel) {
  const ReductionRow& r = kReductions[row];
  if (std::string(r.name) == "mean") return RunMean(ctx, ReductionLoops()[row], x, kernel);
  return RunReduce(ctx, r.name, r.op, ReductionLoops()[row], x, kernel);
}

// The kernel of the ops themselves: the input array, reduced as cast.
ReduceKernel ArrayKernel(OpContext& ctx, const View& x) {
  return [&ctx, &x](ReduceOp op, DType in_dtype, absl::Span<const int> axes, const View& out) {
    return ReduceArray(ctx, op, x, in_dtype, axes, out);
  };
}

absl::Status RunArgReduce(OpContext& ctx, kernels::ArgReduceOp op) {
  const View& x = ctx.input(0);
  const char* name = op == kernels::ArgReduceOp::kArgMax ? "argmax" : "argmin";
  View in = x;
  int axis = 0;
  ReducePlan plan;
  if (ctx.attrs().Has("axis")) {
    ARRAYD_ASSIGN_OR_RETURN(int64_t a, ctx.attrs().Int("axis"));
    int64_t one[1] = {a};
    ARRAYD_ASSIGN_OR_RETURN(auto axes, NormalizeAxes(one, x.ndim()));
    axis = axes[0];
    for (int d = 0; d < x.ndim(); ++d) {
      if (d != axis) plan.out_shape.push_back(x.shape[d]);
      plan.keep_shape.push_back(d == axis ? 1 : x.shape[d]);
    }
  } else {
    // Over the flattened array: a 1-D view (a copy when the strides need one).
    Shape flat{x.size()};
    if (!TryReshapeView(x, flat, &in)) {
      ARRAYD_ASSIGN_OR_RETURN(in, ctx.ContiguousCopy(x));
    }
    if (in.ndim() != 1) TryReshapeView(in, flat, &in);
    plan.keep_shape.assign(x.ndim(), 1);
  }
  if (in.shape[axis] == 0) {
    return ValueError(absl::StrCat("attempt to get ", name, " of an empty sequence"));
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(DType::kInt64, plan.out_shape));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().ArgReduce(op, in, axis, out));
  return Finish(ctx, plan, out);
}

}  // namespace

absl::Status ReduceArray(OpContext& ctx, ReduceOp op, const View& x, DType in,
                         absl::Span<const int> axes, const View& out) {
  if (x.dtype != in) {
    absl::Status direct = ctx.stream().ReduceAs(op, x, in, axes, out);
    if (!absl::IsUnimplemented(direct)) return direct;
  }
  ARRAYD_ASSIGN_OR_RETURN(View cast, ctx.CastTo(x, in));
  return ctx.stream().Reduce(op, cast, axes, out);
}

bool IsReduction(absl::string_view name) {
  for (const ReductionRow& row : kReductions) {
    if (name == row.name) return true;
  }
  return false;
}

absl::Status RunNamedReduction(OpContext& ctx, absl::string_view name, const View& x,
                               const ReduceKernel& kernel) {
  for (int row = 0; row < static_cast<int>(std::size(kReductions)); ++row) {
    if (name == kReductions[row].name) return RunRow(ctx, row, x, kernel);
  }
  return ValueError(absl::StrCat("'", name, "' is not a reduction"));
}

void RegisterReductionOps(OpRegistry* r) {
  const OpFamily f = OpFamily::kReduction;
  for (int row = 0; row < static_cast<int>(std::size(kReductions)); ++row) {
    const ReductionRow& rr = kReductions[row];
    r->Register(f,
                absl::StrCat(rr.name, "(a, *, axes: ints? = None, keepdims: bool = False, "
                                      "dtype: dtype? = None) -> out"),
                absl::StrCat("NumPy's ", rr.name, " over axes (None: all)."),
                [row](OpContext& ctx) {
                  const View& x = ctx.input(0);
                  return RunRow(ctx, row, x, ArrayKernel(ctx, x));
                },
                rr.loops);
  }
  r->Register(f, "argmin(a, *, axis: int? = None, keepdims: bool = False) -> out",
              "Index of the minimum (None: of the flattened array).",
              [](OpContext& ctx) { return RunArgReduce(ctx, kernels::ArgReduceOp::kArgMin); },
              ARRAYD_INDEX_LOOPS);
  r->Register(f, "argmax(a, *, axis: int? = None, keepdims: bool = False) -> out",
              "Index of the maximum (None: of the flattened array).",
              [](OpContext& ctx) { return RunArgReduce(ctx, kernels::ArgReduceOp::kArgMax); },
              ARRAYD_INDEX_LOOPS);
}

}  // namespace arrayd
