// Fused elementwise chains: the op `fused_elementwise`, which runs a chain
// of ufuncs (kernels/op_list.h rows) as one kernel where the backend has
// one (Stream::Fused), and the lookup of the ufunc rows it is made of. The
// session fuses a client's batches into it (session/fusion_plan.h); a
// client may also send it itself.
//
//   fused_elementwise(xs[], *, ufuncs: str, args: ints, dtypes: str) -> out
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
