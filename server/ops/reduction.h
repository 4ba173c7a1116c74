// The reduction ops' semantics (sum, prod, mean, min, max, all, any: the
// result dtype, dtype=, axes, keepdims, NumPy's errors), shared by the ops
// of ops/reduction.cc, which reduce their input array, and by
// fused_reduction (ops/fusion.cc), which reduces a fused chain's value
// without materializing it.
#ifndef ARRAYD_OPS_REDUCTION_H_
#define ARRAYD_OPS_REDUCTION_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "array/view.h"
#include "kernels/op_list.h"
#include "ops/registry.h"

namespace arrayd {

// Reduces the value being reduced, cast to `in` (the reduction's input
// dtype: the accumulator's, or the value's own for all/any), over `axes`
// (sorted) into `out`.
using ReduceKernel = std::function<absl::Status(kernels::ReduceOp op, DType in,
                                                absl::Span<const int> axes, const View& out)>;

// The kernel of an array: Reduce(op, x cast to `in`, axes, out), without
// the cast's copy where the backend reads and casts at once (ReduceAs).
absl::Status ReduceArray(OpContext& ctx, kernels::ReduceOp op, const View& x, DType in,
                         absl::Span<const int> axes, const View& out);

// Whether `name` is one of the reductions above.
bool IsReduction(absl::string_view name);

// Runs reduction `name` over a value of x's dtype and shape (x's data is
// not read: `kernel` reads the value) with the op's attrs, and sets the
// op's result.
absl::Status RunNamedReduction(OpContext& ctx, absl::string_view name, const View& x,
                               const ReduceKernel& kernel);

}  // namespace arrayd

#endif  // ARRAYD_OPS_REDUCTION_H_
