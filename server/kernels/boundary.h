// How scipy.ndimage's filters extend an input past its edges (the `mode`
// of its filters, by the numpy.pad name of each extension), shared by the
// CPU backend and the CUDA kernels (ARRAYD_HD, embedded for NVRTC).
#ifndef ARRAYD_KERNELS_BOUNDARY_H_
#define ARRAYD_KERNELS_BOUNDARY_H_

#include "kernels/types.h"

namespace arrayd {
namespace kernels {

// SciPy's names in the comments: constant is also grid-constant,
// symmetric reflect and grid-mirror, reflect mirror, wrap grid-wrap.
enum class Boundary : int {
  kPadded = 0,     // no extension: the input was padded by the caller
  kConstant = 1,   // cval
  kEdge = 2,       // nearest: a a a | a b c d | d d d
  kSymmetric = 3,  // reflect: c b a | a b c d | d c b
  kReflect = 4,    // mirror: d c b | a b c d | c b a
  kWrap = 5,       // wrap: b c d | a b c d | a b c
};

// The index inside [0, n) (n >= 1) that position j reads under `mode`, or
// -1 where it reads the constant.
ARRAYD_HD long long BoundaryIndex(long long j, long long n, Boundary mode) {
  if (j >= 0 && j < n) return j;
  switch (mode) {
    case Boundary::kEdge: return j < 0 ? 0 : n - 1;
    case Boundary::kWrap: {
      const long long m = j % n;
      return m < 0 ? m + n : m;
    }
    case Boundary::kSymmetric: {
      const long long p = 2 * n;
      long long m = j % p;
      if (m < 0) m += p;
      return m < n ? m : p - 1 - m;
    }
    case Boundary::kReflect: {
      if (n == 1) return 0;
      const long long p = 2 * n - 2;
      long long m = j % p;
      if (m < 0) m += p;
      return m < n ? m : p - m;
    }
    default: return -1;
  }
}

}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_KERNELS_BOUNDARY_H_
