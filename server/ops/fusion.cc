// fused_elementwise and fused_reduction (ops/fusion.h): a chain of ufuncs
// resolved step by step as the unfused ops would be (loop, broadcast shape,
// result layout), then run as one backend kernel (Stream::Fused, or
// Stream::FusedReduce with the reduction), or step by step through the
// registered ops where the backend has no fused kernel.
#include "ops/fusion.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status.h"
#include "kernels/op_list.h"
#include "ops/compose.h"
#include "ops/reduction.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

// A step as the program gives it, with its ufunc row.
struct ProgramStep {
  std::string name;
  const UfuncInfo* ufunc = nullptr;
  int args[2] = {-1, -1};
  DType forced = DType::kInvalid;  // dtype=
};

absl::StatusOr<std::vector<ProgramStep>> ParseProgram(const OpContext& ctx) {
  const int leaves = ctx.num_inputs();
  ARRAYD_ASSIGN_OR_RETURN(std::string names, ctx.attrs().String("ufuncs"));
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> args, ctx.attrs().Ints("args"));
  std::vector<std::string> dtypes;
  if (ctx.attrs().Has("dtypes")) {
    ARRAYD_ASSIGN_OR_RETURN(std::string d, ctx.attrs().String("dtypes"));
    dtypes = absl::StrSplit(d, ',');
  }
  std::vector<ProgramStep> steps;
  for (absl::string_view name : absl::StrSplit(names, ',')) {
    ProgramStep s;
    s.name = std::string(name);
    s.ufunc = FindUfunc(name);
    if (s.ufunc == nullptr) {
      return ValueError(absl::StrCat("fused_elementwise: '", name, "' is not a ufunc"));
    }
    steps.push_back(std::move(s));
  }
  if (leaves < 1 || leaves > kMaxFusedLeaves || steps.size() > kMaxFusedSteps) {
    return ValueError(absl::StrCat("fused_elementwise takes 1 to ", kMaxFusedLeaves,
                                   " inputs and at most ", kMaxFusedSteps, " steps"));
  }
  if (args.size() != 2 * steps.size() || (!dtypes.empty() && dtypes.size() != steps.size())) {
    return ValueError("fused_elementwise: args needs two entries per step, dtypes one");
  }
  for (size_t k = 0; k < steps.size(); ++k) {
    ProgramStep& s = steps[k];
    const int nargs = s.ufunc->unary ? 1 : 2;
    for (int j = 0; j < 2; ++j) {
      const int64_t a = args[2 * k + j];
      if (j >= nargs) {
        if (a != -1) return ValueError("fused_elementwise: a unary step's second arg must be -1");
        continue;
      }
      // An operand is a leaf or an earlier step.
      if (a < 0 || a >= leaves + static_cast<int64_t>(k)) {
        return ValueError(absl::StrCat("fused_elementwise: step ", k, " has operand ", a,
                                       ", not a leaf or an earlier step"));
      }
      s.args[j] = static_cast<int>(a);
    }
    if (!dtypes.empty() && !dtypes[k].empty()) {
      ARRAYD_ASSIGN_OR_RETURN(s.forced, ParseDType(dtypes[k]));
    }
  }
  return steps;
}

// A chain resolved as the unfused ops would run it: the backend's steps,
// and each operand's value as the unfused op would see it (the leaves, then
// each step's result: dtype, shape and strides, order='K', with no data).
struct Chain {
  std::vector<ProgramStep> program;
  std::vector<FusedStep> steps;
  std::vector<View> values;
  std::vector<View> broadcast;  // the leaves broadcast to the result's shape
};

absl::StatusOr<Chain> ResolveChain(OpContext& ctx) {
  Chain c;
  ARRAYD_ASSIGN_OR_RETURN(c.program, ParseProgram(ctx));
  const int leaves = ctx.num_inputs();
  for (int i = 0; i < leaves; ++i) c.values.push_back(ctx.input(i));
  for (const ProgramStep& s : c.program) {
    const int nargs = s.ufunc->unary ? 1 : 2;
    std::vector<DType> in;
    std::vector<Shape> shapes;
    for (int j = 0; j < nargs; ++j) {
      in.push_back(c.values[s.args[j]].dtype);
      shapes.push_back(c.values[s.args[j]].shape);
    }
    const Loop* loop = FindLoop(s.ufunc->loops, in, s.forced);
    // Signed integer powers check their exponents on the host; run unfused.
    if (loop == nullptr ||
        (!s.ufunc->unary && s.ufunc->op == static_cast<int>(kernels::BinaryOp::kPower) &&
         Kind(loop->in[1]) == DTypeKind::kSigned)) {
      return absl::FailedPreconditionError(
          absl::StrCat("fused_elementwise: step '", s.name, "' cannot be fused for these dtypes"));
    }
    ARRAYD_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes(shapes));
    View result;
    result.dtype = loop->out[0];
    result.shape = shape;
    result.strides = nargs == 1 ? ResultStrides({&c.values[s.args[0]]}, shape, result.dtype)
                                : ResultStrides({&c.values[s.args[0]], &c.values[s.args[1]]},
                                                shape, result.dtype);
    FusedStep step;
    step.unary = s.ufunc->unary;
    step.op = s.ufunc->op;
    for (int j = 0; j < nargs; ++j) {
      step.args[j] = s.args[j];
      step.in[j] = loop->in[j];
    }
    step.out = result.dtype;
    c.steps.push_back(step);
    c.values.push_back(std::move(result));
  }
  for (int i = 0; i < leaves; ++i) {
    ARRAYD_ASSIGN_OR_RETURN(View b, BroadcastTo(ctx.input(i), c.values.back().shape));
    c.broadcast.push_back(std::move(b));
  }
  return c;
}

// The chain's result the slow way, where the backend has no fused kernel:
// the steps one by one through the registered ufuncs, as the client sent them.
absl::StatusOr<View> RunSteps(OpContext& ctx, const Chain& c) {
  std::vector<View> values(c.values.begin(), c.values.begin() + ctx.num_inputs());
  for (const ProgramStep& s : c.program) {
    std::vector<View> operands = {values[s.args[0]]};
    if (!s.ufunc->unary) operands.push_back(values[s.args[1]]);
    compose::AttrList attrs;
    if (s.forced != DType::kInvalid) {
      attrs.push_back({"dtype", compose::Str(std::string(DTypeName(s.forced)))});
    }
    ARRAYD_ASSIGN_OR_RETURN(View r, compose::Run(ctx, s.name, std::move(operands), attrs));
    values.push_back(std::move(r));
  }
  return values.back();
}

// The chain's result into `out` (its dtype, shape and strides) by the
// backend's fused kernel, else step by step (a new array).
absl::StatusOr<View> ChainValue(OpContext& ctx, const Chain& c, const View& out) {
  absl::Status fused = ctx.stream().Fused(c.steps, c.broadcast, out);
  if (!absl::IsUnimplemented(fused)) {
    ARRAYD_RETURN_IF_ERROR(fused);
    return out;
  }
  return RunSteps(ctx, c);
}

absl::Status RunFusedElementwise(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(Chain c, ResolveChain(ctx));
  const View& last = c.values.back();
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.OutputFor(0, last.dtype, last.shape, last.strides));
  ARRAYD_ASSIGN_OR_RETURN(View r, ChainValue(ctx, c, out));
  ctx.SetResult(0, r);
  return absl::OkStatus();
}

// The chain's value reduced as the reduction op `reduce` would reduce it,
// in one pass where the backend has the kernel (Stream::FusedReduce).
absl::Status RunFusedReduction(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(std::string reduce, ctx.attrs().String("reduce"));
  if (!IsReduction(reduce)) {
    return ValueError(absl::StrCat("fused_reduction: '", reduce, "' is not a reduction"));
  }
  ARRAYD_ASSIGN_OR_RETURN(Chain c, ResolveChain(ctx));
  const View& last = c.values.back();
  auto kernel = [&](kernels::ReduceOp op, DType in_dtype, absl::Span<const int> axes,
                    const View& out) -> absl::Status {
    // The unfused reduction reads the chain's result (`last`), cast to
    // the reduction's input dtype (ReduceArray).
    absl::Status fused =
        ctx.stream().FusedReduce(op, c.steps, c.broadcast, last, in_dtype, axes, out);
    if (!absl::IsUnimplemented(fused)) return fused;
    // No fused reduction here: the chain's value (in one fused pass where
    // the backend has the elementwise kernel and the value is
    // C-contiguous, as the reduction then reads it the unfused way), then
    // the reduction.
    View r;
    if (last.IsCContiguous()) {
      ARRAYD_ASSIGN_OR_RETURN(View value, ctx.NewArray(last.dtype, last.shape));
      ARRAYD_ASSIGN_OR_RETURN(r, ChainValue(ctx, c, value));
    } else {
      ARRAYD_ASSIGN_OR_RETURN(r, RunSteps(ctx, c));
    }
    return ReduceArray(ctx, op, r, in_dtype, axes, out);
  };
  return RunNamedReduction(ctx, reduce, last, kernel);
}

}  // namespace

void RegisterFusionOps(OpRegistry* r) {
  r->Register(OpFamily::kFused,
              "fused_elementwise(xs[], *, ufuncs: str, args: ints, dtypes: str = '') -> out",
              "A chain of ufuncs run as one kernel (ops/fusion.h).", RunFusedElementwise);
  r->Register(OpFamily::kFused,
              "fused_reduction(xs[], *, ufuncs: str, args: ints, dtypes: str = '', reduce: str, "
              "axes: ints? = None, keepdims: bool = False, dtype: dtype? = None) -> out",
              "A chain of ufuncs and a reduction of its result, run as one kernel "
              "(ops/fusion.h).",
              RunFusedReduction);
}

}  // namespace arrayd
