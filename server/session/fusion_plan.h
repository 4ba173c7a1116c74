// Which ops of one client message run fused: chains of ufuncs whose
// intermediates nobody holds become one fused_elementwise op (ops/fusion.h)
// run where the chain's last op stood.
//
// An intermediate is a handle that one ufunc op of the message defines
// (new: no array had it before), that only ufunc ops of the same stream
// read, and that the message frees and does not fetch: the client let it
// go, so no one can see it. The ops joined by intermediates form a group;
// a group with one result (its last op, whose output the client keeps) is
// fused. A reduction (sum, mean, ...: ops/reduction.h) of an intermediate
// ends its group, which becomes one fused_reduction. Running the group at its last op reorders its reads, so a group
// is refused when an op between its first and last writes one of its
// inputs after the group read it, or has no outputs (setitem, events,
// kernel launches: their effects are not known here).
//
//   x2 = 2 * x; y = 3 * x; y2 = y * x; s = x2 + y2; r = s - 1   (frees x2, y, y2, s)
//   -> r = fused_elementwise(c2, x, c3, c1; multiply, multiply, multiply, add, subtract)
//   d = a - b; q = d * d; m = q.mean(axes=[0])   (frees d, q)
//   -> m = fused_reduction(a, b; subtract, multiply; reduce=mean, axes=[0])
#ifndef ARRAYD_SESSION_FUSION_PLAN_H_
#define ARRAYD_SESSION_FUSION_PLAN_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "arrayd/v1/arrayd.pb.h"

namespace arrayd {

struct FusedGroup {
  std::vector<int> ops;  // indices into the message's ops, in order; the last is the result
  v1::Op fused;          // the fused_elementwise op that replaces them
};

struct FusionPlan {
  std::vector<int> group_of;  // per op: its group in `groups`, or -1 (empty: none)
  std::vector<FusedGroup> groups;
};

// `exists(h)`: whether handle h is bound to an array before the message.
FusionPlan PlanFusion(const v1::ClientMessage& message,
                      const std::function<bool(uint64_t)>& exists);

}  // namespace arrayd

#endif  // ARRAYD_SESSION_FUSION_PLAN_H_
