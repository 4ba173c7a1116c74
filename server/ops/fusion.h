// Fused elementwise chains: the op `fused_elementwise`, which runs a chain
// of ufuncs (kernels/op_list.h rows) as one kernel where the backend has
// one (Stream::Fused); `fused_reduction`, the same chain with a reduction
// of its result (sum, prod, mean, min, max, all, any, with the reduction
// op's axes, keepdims and dtype=) in the same kernel (Stream::FusedReduce);
// and the lookup of the ufunc rows they are made of. The session fuses a
// client's batches into them (session/fusion_plan.h); a client may also
// send them itself.
//
//   fused_elementwise(xs[], *, ufuncs: str, args: ints, dtypes: str) -> out
//   fused_reduction(xs[], *, ufuncs, args, dtypes, reduce: str, axes, keepdims, dtype) -> out
//
// `ufuncs` names the steps ("multiply,multiply,add"); `args` holds two
// entries per step, its operands: below len(xs) a leaf, else the result of
// step (arg - len(xs)), an earlier one (a unary step's second entry is -1);
// `dtypes` is each step's dtype= ("float32,,", empty for none). The last
// step is the result. Every step has its ufunc's NumPy semantics: loop
// choice, broadcasting, the layout of its result (order='K').
#ifndef ARRAYD_OPS_FUSION_H_
#define ARRAYD_OPS_FUSION_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "ops/signature.h"

namespace arrayd {

// A ufunc row: kernels::UnaryOp or kernels::BinaryOp `op` and its loops.
struct UfuncInfo {
  bool unary = false;
  int op = 0;
  std::vector<Loop> loops;
};
// Null when `name` is no ufunc row (defined in ops/elementwise.cc).
const UfuncInfo* FindUfunc(absl::string_view name);

// The most leaves and steps one fused op takes (kernel parameter space).
inline constexpr int kMaxFusedLeaves = 12;
inline constexpr int kMaxFusedSteps = 64;

}  // namespace arrayd

#endif  // ARRAYD_OPS_FUSION_H_
