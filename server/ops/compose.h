// Building blocks for composite ops: ops whose run function is a sequence
// of other registered ops (pinv is svd, max, greater, where, multiply,
// matmul), so that a composite is written once, here on the server, for
// every client and every backend.
//
//   compose::AttrList reduced = {{"full_matrices", compose::Bool(false)}};
//   ARRAYD_ASSIGN_OR_RETURN(std::vector<View> usv, compose::RunMany(ctx, "svd", {a}, reduced));
//   ARRAYD_ASSIGN_OR_RETURN(View smax, compose::Run(ctx, "max", {usv[1]}));
//
// A called op has its full NumPy semantics (loop tables and promotion,
// broadcasting, its checks and error messages); it runs on the stream of
// `ctx` and allocates through it (the session's quota applies). Nothing
// here waits for the device unless the called op does (svd reads LAPACK's
// info back, as NumPy must raise LinAlgError).
#ifndef ARRAYD_OPS_COMPOSE_H_
#define ARRAYD_OPS_COMPOSE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/registry.h"

namespace arrayd {
namespace compose {

using AttrList = std::vector<std::pair<std::string, v1::AttrValue>>;

v1::AttrValue Int(int64_t v);
v1::AttrValue Ints(std::vector<int64_t> v);
v1::AttrValue Bool(bool v);
v1::AttrValue Float(double v);
v1::AttrValue Str(std::string v);

// Runs the registered op `name` on `inputs` with `attrs` as part of the op
// of `ctx`; its results in order. NOT_FOUND for an unknown op (a bug here).
absl::StatusOr<std::vector<View>> RunMany(OpContext& ctx, const std::string& name,
                                          std::vector<View> inputs, const AttrList& attrs = {});
// The first result of RunMany.
absl::StatusOr<View> Run(OpContext& ctx, const std::string& name, std::vector<View> inputs,
                         const AttrList& attrs = {});

// A new 0-d array of `dtype` holding `value` (a strong operand: it takes
// part in the called ops' type promotion with its dtype).
absl::StatusOr<View> Constant(OpContext& ctx, DType dtype, Scalar value);
// A new C-contiguous array of `dtype` and `shape` filled with `value`.
absl::StatusOr<View> Filled(OpContext& ctx, DType dtype, Shape shape, Scalar value);

// `v` seen with `shape` (a view; `v` must allow it, as a C-contiguous array does).
absl::StatusOr<View> Reshape(OpContext& ctx, const View& v, const Shape& shape);
// `v` with its last two axes swapped (a view).
absl::StatusOr<View> SwapLastAxes(const View& v);
// v[..., None] (a view).
View AppendAxis(const View& v);

// A float attribute (an integer one is accepted too); `fallback` when absent.
absl::StatusOr<double> FloatAttr(const Attrs& attrs, const std::string& name, double fallback);

// A boundary mode by its numpy.pad name (constant, edge, symmetric,
// reflect, wrap; "" is kPadded); ValueError naming `op` for another.
absl::StatusOr<kernels::Boundary> BoundaryByName(const std::string& name, const char* op);

}  // namespace compose
}  // namespace arrayd

#endif  // ARRAYD_OPS_COMPOSE_H_
