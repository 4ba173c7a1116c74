// fused_elementwise (ops/fusion.h): a chain of ufuncs resolved step by step
// as the unfused ops would be (loop, broadcast shape, result layout), then
// run as one backend kernel (Stream::Fused), or step by step through the
// registered ufuncs where the backend has no fused kernel.
#include "ops/fusion.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status.h"
#include "kernels/op_list.h"
#include "ops/compose.h"
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

absl::Status RunFusedElementwise(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(std::vector<ProgramStep> program, ParseProgram(ctx));
  const int leaves = ctx.num_inputs();
  // Each operand as the unfused op would see it: its dtype, shape and
  // strides (intermediates are laid out as their op would lay them out).
  std::vector<View> values;
  for (int i = 0; i < leaves; ++i) values.push_back(ctx.input(i));
  std::vector<FusedStep> steps;
  for (const ProgramStep& s : program) {
    const int nargs = s.ufunc->unary ? 1 : 2;
    std::vector<DType> in;
    std::vector<Shape> shapes;
    for (int j = 0; j < nargs; ++j) {
      in.push_back(values[s.args[j]].dtype);
      shapes.push_back(values[s.args[j]].shape);
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
    result.strides = nargs == 1 ? ResultStrides({&values[s.args[0]]}, shape, result.dtype)
                                : ResultStrides({&values[s.args[0]], &values[s.args[1]]}, shape,
                                                result.dtype);
    FusedStep step;
    step.unary = s.ufunc->unary;
    step.op = s.ufunc->op;
    for (int j = 0; j < nargs; ++j) {
      step.args[j] = s.args[j];
      step.in[j] = loop->in[j];
    }
    step.out = result.dtype;
    steps.push_back(step);
    values.push_back(std::move(result));
  }
  const View& last = values.back();
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.OutputFor(0, last.dtype, last.shape, last.strides));
  std::vector<View> broadcast;
  for (int i = 0; i < leaves; ++i) {
    ARRAYD_ASSIGN_OR_RETURN(View b, BroadcastTo(ctx.input(i), last.shape));
    broadcast.push_back(std::move(b));
  }
  absl::Status fused = ctx.stream().Fused(steps, broadcast, out);
  if (!absl::IsUnimplemented(fused)) {
    ARRAYD_RETURN_IF_ERROR(fused);
    ctx.SetResult(0, out);
    return absl::OkStatus();
  }
  // No fused kernel here: the steps one by one, as the client sent them.
  values.resize(leaves);
  for (const ProgramStep& s : program) {
    std::vector<View> operands = {values[s.args[0]]};
    if (!s.ufunc->unary) operands.push_back(values[s.args[1]]);
    compose::AttrList attrs;
    if (s.forced != DType::kInvalid) attrs.push_back({"dtype", compose::Str(std::string(DTypeName(s.forced)))});
    ARRAYD_ASSIGN_OR_RETURN(View r, compose::Run(ctx, s.name, std::move(operands), attrs));
    values.push_back(std::move(r));
  }
  ctx.SetResult(0, values.back());
  return absl::OkStatus();
}

}  // namespace

void RegisterFusionOps(OpRegistry* r) {
  r->Register(OpFamily::kFused,
              "fused_elementwise(xs[], *, ufuncs: str, args: ints, dtypes: str = '') -> out",
              "A chain of ufuncs run as one kernel (ops/fusion.h).", RunFusedElementwise);
}

}  // namespace arrayd
