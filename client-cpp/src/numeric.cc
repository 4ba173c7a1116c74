// Matmul of the C++ client (arrayd/numeric.h); its linalg, fft and random
// are linalg.cc, fft.cc and random.cc. Each function checks what NumPy would
// refuse, computes the result's dtype and shape with NumPy's rules, and
// records the server op (proto OPS.md): every composite is a server op,
// written once for both clients.
#include "arrayd/numeric.h"

#include <optional>
#include <utility>

#include "numeric_internal.h"

namespace arrayd {
inline namespace client {

using numeric_internal::Head;
using numeric_internal::MakeOp;

Array Matmul(const Array& a, const Array& b) {
  if (auto bad = ArrayOps::CheckInputs("matmul", {&a, &b})) return *bad;
  const std::shared_ptr<Core>& core = ArrayOps::State(a)->core;
  if (a.ndim() == 0 || b.ndim() == 0) {
    return Refuse(core, "matmul",
                  ValueError(absl::StrCat("matmul: Input operand ", a.ndim() == 0 ? 0 : 1,
                                          " does not have enough dimensions (has 0, gufunc core "
                                          "with signature (n?,k),(k,m?)->(n?,m?) requires 1)")));
  }
  // 1-D operands become (1, k) and (k, 1); those dimensions are dropped.
  Shape sa = a.ndim() == 1 ? Shape{1, a.shape()[0]} : a.shape();
  Shape sb = b.ndim() == 1 ? Shape{b.shape()[0], 1} : b.shape();
  const int64_t k = sa.back(), kb = sb[sb.size() - 2];
  if (k != kb) {
    return Refuse(core, "matmul",
                  ValueError(absl::StrCat(
                      "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                      "signature (n?,k),(k,m?)->(n?,m?) (size ",
                      kb, " is different from ", k, ")")));
  }
  std::optional<Shape> batch = BroadcastShapes(Head(sa, 2), Head(sb, 2));
  if (!batch) return Refuse(core, "matmul", BroadcastError(a.shape(), b.shape()));
  Shape shape = *batch;
  if (a.ndim() > 1) shape.push_back(sa[sa.size() - 2]);
  if (b.ndim() > 1) shape.push_back(sb.back());
  return ArrayOps::Emit(core, MakeOp("matmul", {&a, &b}), PromoteTypes(a.dtype(), b.dtype()),
                        std::move(shape));
}

}  // namespace client
}  // namespace arrayd
