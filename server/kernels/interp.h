// scipy.ndimage.map_coordinates' spline interpolation at arbitrary
// coordinates, shared by the CPU backend and the CUDA kernels (ARRAYD_HD,
// embedded for NVRTC): each output point folds its coordinate along every
// interpolated axis as SciPy's mode does, picks order + 1 taps a dimension
// and their B-spline weights, and sums the (order + 1)^d products of the
// spline coefficients it reads. Taps past the input's edges read it as
// extended by the mode's boundary (kernels/boundary.h), so the input is not
// padded first.
#ifndef ARRAYD_KERNELS_INTERP_H_
#define ARRAYD_KERNELS_INTERP_H_

#include "kernels/boundary.h"
#include "kernels/types.h"

#if !defined(__CUDACC_RTC__)
#include <math.h>
#endif

// Unrolls the next loop where a device compiler reads the pragma (the
// host compiler would warn of an unknown one).
#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__CUDACC_RTC__)
#define ARRAYD_UNROLL _Pragma("unroll")
#else
#define ARRAYD_UNROLL
#endif

namespace arrayd {
namespace kernels {

// How a mode folds a coordinate into the input before its taps are chosen
// (SciPy's mode names in the comments).
enum class InterpFold : int {
  kNone = 0,      // constant, nearest, grid-constant
  kMirror = 1,    // mirror: period 2 (n - 1) about the end samples
  kReflect = 2,   // reflect, grid-mirror: period 2 n about the edges
  kWrap = 3,      // wrap: period n - 1, points outside [0, n - 1] only
  kGridWrap = 4,  // grid-wrap: period n
};

// One map_coordinates call's parameters, by value (a kernel argument):
// d interpolated axes (the last d of the coefficients; the axes before them
// are a batch, `space` elements apart), `points` output points a batch
// entry, each axis' extent n and element stride.
struct InterpParams {
  long long d, order, fold, tap_mode, constant, round0, points, space;
  long long n[8];
  long long stride[8];
  double cval, shift;
};

// numpy.remainder(a, b) for b > 0: the result takes b's sign.
ARRAYD_HD double PyRemainder(double a, double b) {
  double m = fmod(a, b);
  if (m != 0.0) {
    if (m < 0.0) m += b;
  } else {
    m = 0.0;
  }
  return m;
}

ARRAYD_HD double FoldCoordinate(double c, long long n, InterpFold fold) {
  const double last = static_cast<double>(n - 1);
  switch (fold) {
    case InterpFold::kMirror: {
      if (n == 1) return c * 0.0;
      const double p = 2.0 * last;
      c = PyRemainder(fabs(c), p);
      return c > last ? p - c : c;
    }
    case InterpFold::kReflect: {
      const double p = 2.0 * static_cast<double>(n);
      c = PyRemainder(c + 0.5, p);
      return (c >= static_cast<double>(n) ? p - c : c) - 0.5;
    }
    case InterpFold::kWrap:
      if (n == 1) return c * 0.0;
      return c < 0.0 || c > last ? PyRemainder(c, last) : c;
    case InterpFold::kGridWrap: return PyRemainder(c, static_cast<double>(n));
    default: return c;
  }
}

// The centred B-spline of degree k at t, from its truncated power form
// (sum over i of (-1)^i C(k + 1, i) max(t + (k + 1) / 2 - i, 0)^k, over k!).
ARRAYD_HD double CentredBSpline(double t, int k) {
  double s = 0.0, binom = 1.0, fact = 1.0;
  for (int i = 1; i <= k; ++i) fact *= i;
  for (int i = 0; i <= k + 1; ++i) {
    const double u = t + 0.5 * (k + 1) - i;
    if (u > 0.0) {
      double p = 1.0;
      for (int e = 0; e < k; ++e) p *= u;
      s += (i & 1 ? -binom : binom) * p;
    }
    binom = binom * (k + 1 - i) / (i + 1);
  }
  return s / fact;
}

// The value at output point e (batch entry e / points) of coefficients
// `coeffs` (C order, the batch axes first) at coordinates coords (d rows of
// `points`). D and ORDER are the axes and the spline order when known at
// compile time (the CUDA kernels: every loop unrolls and every array stays
// in registers), -1 to take them from p (the CPU loops).
template <typename T, typename C, int D, int ORDER>
ARRAYD_HD T InterpolateAt(const InterpParams& p, const T* coeffs, const C* coords, long long e) {
  constexpr int kDims = D > 0 ? D : 8;
  constexpr int kTaps = ORDER >= 0 ? ORDER + 1 : 6;
  const int d = D > 0 ? D : static_cast<int>(p.d);
  const int order = ORDER >= 0 ? ORDER : static_cast<int>(p.order);
  const int taps = order + 1;
  const long long b = e / p.points, q = e - b * p.points;
  long long pos[kDims][kTaps];
  double w[kDims][kTaps];
  ARRAYD_UNROLL
  for (int a = 0; a < kDims; ++a) {
    if (a >= d) break;
    const long long n = p.n[a];
    double c = static_cast<double>(coords[a * p.points + q]) + p.shift;
    // Mode constant: a point outside [0, n - 1] along any axis is cval.
    if (p.constant != 0 && !(c >= 0.0 && c <= static_cast<double>(n - 1))) return Cast<T>(p.cval);
    // Order 0 under the mirroring modes rounds (halves away from zero)
    // before it folds, as SciPy does.
    if (p.round0 != 0) c = c < 0.0 ? -floor(0.5 - c) : floor(c + 0.5);
    c = FoldCoordinate(c, n, static_cast<InterpFold>(p.fold));
    const double base = order & 1 ? floor(c) : floor(c + 0.5);
    const double f = order & 1 ? c - base : c + 0.5 - base;
    // The first tap's position, clipped to the axis padded by order + 1
    // either side before it is made an integer: a coordinate past int64
    // reads the padding's end, NaN its start.
    const long long pad = order + 1, hi = n + pad - 1;
    double lead = base - static_cast<double>(order / 2);
    lead = lead > static_cast<double>(hi) ? static_cast<double>(hi) : lead;
    lead = lead >= static_cast<double>(-pad) ? lead : static_cast<double>(-pad);
    const long long first = static_cast<long long>(lead);
    const double shift = order & 1 ? 0.0 : -0.5;
    ARRAYD_UNROLL
    for (int j = 0; j < kTaps; ++j) {
      if (j >= taps) break;
      long long at = first + j;
      at = at < -pad ? -pad : (at > hi ? hi : at);
      pos[a][j] = BoundaryIndex(at, n, static_cast<Boundary>(p.tap_mode));
      w[a][j] = order > 0 ? CentredBSpline(f + shift + order / 2 - j, order) : 1.0;
    }
  }
  int total = 1;
  for (int a = 0; a < d; ++a) total *= taps;
  const T* in = coeffs + b * p.space;
  T acc = T(0);
  // Every combination of one tap an axis, the last axis fastest; the
  // weight is the product of the axes' weights in axis order.
  ARRAYD_UNROLL
  for (int combo = 0; combo < total; ++combo) {
    int pick[kDims];
    int rest = combo;
    ARRAYD_UNROLL
    for (int a = kDims - 1; a >= 0; --a) {
      if (a >= d) continue;
      pick[a] = rest % taps;
      rest /= taps;
    }
    long long off = 0;
    bool outside = false;
    double wt = 1.0;
    ARRAYD_UNROLL
    for (int a = 0; a < kDims; ++a) {
      if (a >= d) break;
      const long long at = pos[a][pick[a]];
      outside = outside || at < 0;
      off += at * p.stride[a];
      wt = a == 0 ? w[a][pick[a]] : wt * w[a][pick[a]];
    }
    T v = outside ? Cast<T>(p.cval) : in[outside ? 0 : off];
    if (order > 0) v = v * static_cast<T>(wt);
    acc = combo == 0 ? v : acc + v;
  }
  return acc;
}

// ---- the spline prefilter (scipy.ndimage.spline_filter1d) ----
// The B-spline coefficients of a line: per pole z of the order's (one for
// orders 2 and 3, two for 4 and 5), the symmetric filter (1 - z)^2 /
// ((1 - z q^-1)(1 - z q)) of the line extended by `mode` past its ends, by
// its two recursions (causal, then anticausal). A chunk [s, e) of the line
// starts each recursion `warm` samples outside itself from zero, which
// leaves z^warm of the true state out (warm is chosen so that is below
// 1e-17): chunks are independent, and the line's length does not bound the
// parallelism. A pole's filter is symmetric, so its output extends by the
// same mode: the next pole reads it folded as the input was.
struct SplinePoles {
  long long count;
  double z[2];
  long long warm[2];
  long long mode;  // kernels::Boundary: kReflect, kSymmetric or kWrap
};

// One pole over chunk [s, e) of a line of n: in(i) reads element i (in [0,
// n)), put(i, v) writes it; u holds e - s + warm values.
template <typename T, typename In, typename Put>
ARRAYD_HD void SplinePoleChunk(const In& in, long long n, Boundary mode, double z, long long warm,
                               long long s, long long e, T* u, const Put& put) {
  const T zt = T(z);
  T acc = T(0);
  for (long long p = s - warm; p < s; ++p) acc = in(BoundaryIndex(p, n, mode)) + acc * zt;
  const long long len = e - s + warm;
  for (long long j = 0; j < len; ++j) {
    acc = in(BoundaryIndex(s + j, n, mode)) + acc * zt;
    u[j] = acc;
  }
  const T gain = T((1.0 - z) * (1.0 - z));
  T v = T(0);
  for (long long j = len - 1; j >= 0; --j) {
    v = u[j] + v * zt;
    if (j < e - s) put(s + j, v * gain);
  }
}

}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_KERNELS_INTERP_H_
