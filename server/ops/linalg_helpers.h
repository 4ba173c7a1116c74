// Helpers shared by the numpy.linalg ops (linalg.cc) and the composites
// built from them (linalg_composite.cc): NumPy's computation dtype and its
// LinAlgErrors for operand shapes, and the batched layout LAPACK-like calls
// take.
#ifndef ARRAYD_OPS_LINALG_HELPERS_H_
#define ARRAYD_OPS_LINALG_HELPERS_H_

#include <initializer_list>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "ops/registry.h"

namespace arrayd {
namespace linalg {

// NumPy's _commonType: float32/64 and complex64/128 stay; bool and integers
// compute in float64; float16 is refused.
inline absl::StatusOr<DType> LinalgDType(DType d) {
  if (d == DType::kFloat16) return TypeError("array type float16 is unsupported in linalg");
  if (IsInexact(d)) return d;
  return DType::kFloat64;
}

// _commonType of two operands: single precision only when both are, complex
// when either is (int16 with float32 computes in float64, as in NumPy).
inline absl::StatusOr<DType> LinalgDType(DType a, DType b) {
  ARRAYD_ASSIGN_OR_RETURN(DType ta, LinalgDType(a));
  ARRAYD_ASSIGN_OR_RETURN(DType tb, LinalgDType(b));
  const bool single = RealDType(ta) == DType::kFloat32 && RealDType(tb) == DType::kFloat32;
  if (IsComplex(ta) || IsComplex(tb)) return single ? DType::kComplex64 : DType::kComplex128;
  return single ? DType::kFloat32 : DType::kFloat64;
}

inline absl::Status CheckStacked2d(const View& a) {
  if (a.ndim() < 2) {
    return LinAlgError(absl::StrCat(a.ndim(), "-dimensional array given. Array must be at least "
                                    "two-dimensional"));
  }
  return absl::OkStatus();
}

inline absl::Status CheckStackedSquare(const View& a) {
  ARRAYD_RETURN_IF_ERROR(CheckStacked2d(a));
  if (a.shape[a.ndim() - 1] != a.shape[a.ndim() - 2]) {
    return LinAlgError("Last 2 dimensions of the array must be square");
  }
  return absl::OkStatus();
}

inline Shape BatchShape(const View& a) { return Shape(a.shape.begin(), a.shape.end() - 2); }

inline Shape Concat(Shape a, std::initializer_list<int64_t> tail) {
  a.insert(a.end(), tail.begin(), tail.end());
  return a;
}

// A C-contiguous (batch, rows, cols) copy of `x` (..., rows, cols) in `dtype`,
// for the LAPACK-like calls, which overwrite their operands.
inline absl::StatusOr<View> Batched(OpContext& ctx, const View& x, DType dtype) {
  ARRAYD_ASSIGN_OR_RETURN(View c, ctx.ContiguousCopy(x, dtype));
  const int nd = x.ndim();
  View out;
  TryReshapeView(c, {ShapeSize(BatchShape(x)), x.shape[nd - 2], x.shape[nd - 1]}, &out);
  return out;
}

}  // namespace linalg
}  // namespace arrayd

#endif  // ARRAYD_OPS_LINALG_HELPERS_H_
