// Conversion of an op attribute Scalar to a kernel element type, shared by
// every backend so that fill values round identically on CPU and GPU.
#ifndef ARRAYD_BACKEND_SCALAR_CAST_H_
#define ARRAYD_BACKEND_SCALAR_CAST_H_

#include "backend/backend.h"
#include "kernels/host_dispatch.h"

namespace arrayd {

// `s` converted to element type T with NumPy's casting rules (kernels::Cast):
// the value is first taken in its own kind (bool, int64, uint64, float64,
// complex128), then cast once.
template <typename T>
T ScalarAs(const Scalar& s) {
  switch (s.kind) {
    case Scalar::kBool: return kernels::Cast<T>(s.i != 0);
    case Scalar::kInt: return kernels::Cast<T>(static_cast<kernels::i64>(s.i));
    case Scalar::kUInt: return kernels::Cast<T>(static_cast<kernels::u64>(s.u));
    case Scalar::kFloat: return kernels::Cast<T>(s.re);
    case Scalar::kComplex: return kernels::Cast<T>(kernels::c128(s.re, s.im));
  }
  return T();
}

}  // namespace arrayd

#endif  // ARRAYD_BACKEND_SCALAR_CAST_H_
