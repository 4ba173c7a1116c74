// Device code of the filter kernels (cuda_filters.cc; the CPU reference is
// backend/cpu/cpu_filters.cc): stencils with boundary modes, the lfilter
// recursion by chunks, and label's union-find.
//
// Embedded into every NVRTC source at build time (embed_kernel_headers.cmake).
#ifndef ARRAYD_BACKEND_CUDA_DEVICE_FILTERS_CUH_
#define ARRAYD_BACKEND_CUDA_DEVICE_FILTERS_CUH_

#include "backend/cuda/device/layout.cuh"
#include "kernels/boundary.h"
#include "kernels/interp.h"
#include "kernels/networks.h"
#include "kernels/types.h"

namespace arrayd {
namespace kernels {
namespace gen {

// ---- stencils ----
// One thread per output element of a (row, column) grid: blockIdx.y walks
// the rows (every dimension but the last), the x threads the columns, so
// that no thread divides per element. An element whose footprint lies
// inside `in` reads each tap at its byte offset; one near an edge maps each
// tap's coordinates through the boundary mode (kernels/boundary.h).

// The input of a stencil: in's shape and strides (the output's shape), how
// far the taps reach before (lo) and after (hi) an element along each
// dimension, the mode (kernels::Boundary) and its constant.
struct StencilGeometry {
  const char* base;
  long long nd;
  long long shape[8];
  long long stride[8];
  long long lo[8];
  long long hi[8];
  double cval;
  long long mode;
};

// A stencil's taps, by value: byte offsets from the element, and each
// tap's per-dimension offsets + lo (one byte a dimension) for the border.
template <int CAP>
struct StencilTaps {
  long long off[CAP];
  unsigned long long dims[CAP];
};

// The value tap `packed` reads for the element at row coordinates c and
// column j, near an edge.
template <typename T>
__device__ __forceinline__ T StencilBorderValue(const StencilGeometry& g, unsigned long long packed,
                                                const long long* c, long long j) {
  const int nd = (int)g.nd;
  long long off = 0;
  for (int d = 0; d < nd; ++d) {
    const long long pos =
        (d == nd - 1 ? j : c[d]) + (long long)((packed >> (8 * d)) & 255) - g.lo[d];
    const long long m = BoundaryIndex(pos, g.shape[d], (Boundary)g.mode);
    if (m < 0) return Cast<T>(g.cval);
    off += m * g.stride[d];
  }
  return *reinterpret_cast<const T*>(g.base + off);
}

// The coordinates c of row r (every dimension but the last), whether the
// footprint stays inside `in` along them, and the row's address.
__device__ __forceinline__ const char* StencilRow(const StencilGeometry& g, long long r,
                                                  long long* c, bool* inside) {
  long long rem = r, off = 0;
  bool in = true;
  for (int d = (int)g.nd - 2; d >= 0; --d) {
    const long long q = d == 0 ? 0 : rem / g.shape[d];
    c[d] = rem - q * g.shape[d];
    rem = q;
    off += c[d] * g.stride[d];
    in = in && c[d] >= g.lo[d] && c[d] < g.shape[d] - g.hi[d];
  }
  *inside = in;
  return g.base + off;
}

// Calls out[e] = fn(p, inside, c, j) for every element e: p its address in
// `in`, inside whether every tap stays in `in`, c its row coordinates, j
// its column. Rows of at least a block: grid y over rows, the x threads
// over columns (no division per element); shorter rows: one flat loop.
template <typename T, typename Fn>
__device__ __forceinline__ void ForEachStencilElement(const StencilGeometry& g, T* out, Fn fn) {
  const int nd = (int)g.nd;
  const long long inner = g.shape[nd - 1], s_last = g.stride[nd - 1];
  long long rows = 1;
  for (int d = 0; d < nd - 1; ++d) rows *= g.shape[d];
  const long long j_lo = g.lo[nd - 1], j_hi = inner - g.hi[nd - 1];
  long long c[8];
  bool row_inside;
  if (inner < blockDim.x) {
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < rows * inner;
         e += (long long)gridDim.x * blockDim.x) {
      const long long r = e / inner, j = e - r * inner;
      const char* row = StencilRow(g, r, c, &row_inside);
      out[e] = fn(row + j * s_last, row_inside && j >= j_lo && j < j_hi, c, j);
    }
    return;
  }
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
    const char* row = StencilRow(g, r, c, &row_inside);
    T* orow = out + r * inner;
    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < inner;
         j += (long long)gridDim.x * blockDim.x) {
      orow[j] = fn(row + j * s_last, row_inside && j >= j_lo && j < j_hi, c, j);
    }
  }
}

// The k <= CAP tap values of one element into v (unrolled for CAP <= 32).
template <typename T, int CAP>
__device__ __forceinline__ void StencilGather(const StencilGeometry& g,
                                              const StencilTaps<CAP>& taps, int k, const char* p,
                                              bool inside, const long long* c, long long j, T* v) {
  if constexpr (CAP <= 32) {
    if (inside) {
#pragma unroll
      for (int t = 0; t < CAP; ++t) {
        if (t < k) v[t] = *reinterpret_cast<const T*>(p + taps.off[t]);
      }
    } else {
#pragma unroll
      for (int t = 0; t < CAP; ++t) {
        if (t < k) v[t] = StencilBorderValue<T>(g, taps.dims[t], c, j);
      }
    }
  } else {
    for (int t = 0; t < k; ++t) {
      v[t] = inside ? *reinterpret_cast<const T*>(p + taps.off[t])
                    : StencilBorderValue<T>(g, taps.dims[t], c, j);
    }
  }
}

// out = sum over taps of w[t] * value, in the taps' order (as the CPU loop
// adds them).
template <typename T, int CAP>
__device__ __forceinline__ void StencilSum(const StencilGeometry& g, const StencilTaps<CAP>& taps,
                                           int k, const T* w, T* out) {
  ForEachStencilElement<T>(g, out,
                           [&](const char* p, bool inside, const long long* c, long long j) {
                             T acc = T(0);
                             if (inside && CAP <= 32) {
#pragma unroll
                               for (int t = 0; t < (CAP <= 32 ? CAP : 1); ++t) {
                                 if (t < k)
                                   acc = acc + w[t] * *reinterpret_cast<const T*>(p + taps.off[t]);
                               }
                             } else if (inside) {
                               for (int t = 0; t < k; ++t)
                                 acc = acc + w[t] * *reinterpret_cast<const T*>(p + taps.off[t]);
                             } else {
                               for (int t = 0; t < k; ++t)
                                 acc = acc + w[t] * StencilBorderValue<T>(g, taps.dims[t], c, j);
                             }
                             return acc;
                           });
}

// The rank-th smallest of v[0..k) (Hoare's selection, in place).
template <typename T>
__device__ __forceinline__ T SelectRank(T* v, int k, int rank) {
  int lo = 0, hi = k - 1;
  while (lo < hi) {
    const T pivot = v[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) ++i;
      while (pivot < v[j]) --j;
      if (i <= j) {
        const T t = v[i];
        v[i] = v[j];
        v[j] = t;
        ++i;
        --j;
      }
    }
    if (rank <= j) {
      hi = j;
    } else if (rank >= i) {
      lo = i;
    } else {
      break;
    }
  }
  return v[rank];
}

// out = the rank-th smallest tap value (min and max by a scan; the median
// of 9 by kernels/networks.h's network; other ranks by an odd-even
// transposition sort in registers up to 32 taps, selection beyond). Up to
// 32 taps the rank is the template's RANK: the sorted values' element is
// then chosen by a constant index. (A runtime rank's select chain, t ==
// rank ? v[t] : r, is turned by the compiler into v[rank], which puts the
// whole array in local memory.)
template <typename T, int CAP, int RANK>
__device__ __forceinline__ void StencilRank(const StencilGeometry& g, const StencilTaps<CAP>& taps,
                                            int k, int runtime_rank, T* out) {
  static_assert((CAP <= 32) == (RANK >= 0), "a static rank up to 32 taps, a runtime one beyond");
  const int rank = RANK >= 0 ? RANK : runtime_rank;
  ForEachStencilElement<T>(g, out,
                           [&](const char* p, bool inside, const long long* c, long long j) {
                             if (rank == 0 || rank == k - 1) {
                               auto value = [&](int t) {
                                 return inside ? *reinterpret_cast<const T*>(p + taps.off[t])
                                               : StencilBorderValue<T>(g, taps.dims[t], c, j);
                               };
                               T r = value(0);
                               for (int t = 1; t < k; ++t) {
                                 const T x = value(t);
                                 r = rank == 0 ? (x < r ? x : r) : (r < x ? x : r);
                               }
                               return r;
                             }
                             T v[CAP];
                             StencilGather<T, CAP>(g, taps, k, p, inside, c, j, v);
                             if constexpr (CAP == 9) {
                               if (k == 9 && rank == 4) {  // a 3 x 3 median
                                 Median9Network([&](int a, int b) {
                                   const T x = v[a], y = v[b];
                                   const bool swap = y < x;
                                   v[a] = swap ? y : x;
                                   v[b] = swap ? x : y;
                                 });
                                 return v[4];
                               }
                             }
                             if constexpr (CAP <= 32) {
                               // The values padded with their maximum (which leaves the order
                               // statistics below k as they are), every index static.
                               T top = v[0];
#pragma unroll
                               for (int t = 1; t < CAP; ++t) {
                                 if (t < k) top = top < v[t] ? v[t] : top;
                               }
#pragma unroll
                               for (int t = 0; t < CAP; ++t) {
                                 if (t >= k) v[t] = top;
                               }
#pragma unroll
                               for (int round = 0; round < CAP; ++round) {
#pragma unroll
                                 for (int t = round & 1; t + 1 < CAP; t += 2) {
                                   const T a = v[t], b = v[t + 1];
                                   const bool swap = b < a;
                                   v[t] = swap ? b : a;
                                   v[t + 1] = swap ? a : b;
                                 }
                               }
                               return v[RANK < 0 ? 0 : RANK];
                             } else {
                               return SelectRank(v, k, rank);
                             }
                           });
}

// ---- numpy.pad's extending modes ----
// out (C order, out_shape) from in (g: its shape, strides, lo the widths
// before it, mode, cval): a (columns, rows) grid as the stencils'.
struct PadShape {
  long long out_shape[8];
};

template <typename T>
__device__ __forceinline__ void PadExtend(const StencilGeometry& g, const PadShape& ps, T* out) {
  const int nd = (int)g.nd;
  const long long inner = ps.out_shape[nd - 1], n_last = g.shape[nd - 1];
  const long long s_last = g.stride[nd - 1], lo_last = g.lo[nd - 1];
  long long rows = 1;
  for (int d = 0; d < nd - 1; ++d) rows *= ps.out_shape[d];
  const Boundary mode = (Boundary)g.mode;
  const T fill = Cast<T>(g.cval);
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
    long long rem = r, off = 0;
    bool constant = false;
    for (int d = nd - 2; d >= 0; --d) {
      const long long q = d == 0 ? 0 : rem / ps.out_shape[d];
      const long long m = BoundaryIndex(rem - q * ps.out_shape[d] - g.lo[d], g.shape[d], mode);
      rem = q;
      constant = constant || m < 0;
      off += m * g.stride[d];
    }
    const char* row = g.base + off;
    T* orow = out + r * inner;
    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < inner;
         j += (long long)gridDim.x * blockDim.x) {
      const long long m = constant ? -1 : BoundaryIndex(j - lo_last, n_last, mode);
      orow[j] = m < 0 ? fill : *reinterpret_cast<const T*>(row + m * s_last);
    }
  }
}

// ---- resampling along an axis ----
// out (outer, m, inner) from x (outer, n, inner), both C order: out[o, i, r]
// = sum_j w[i, j] * x[o, clamp(index[i, j]), r], taps in order. Rows
// (o, i) over grid y and r over grid x, so that a warp reads its taps'
// rows coalesced and shares their index and weight; a flat grid over the
// outputs when rows are shorter than a warp (flat_inner set), its tables
// then tap-major (index[j * m + i]: a warp's points read them coalesced).
// K: the taps a point, compiled in (0: s.k at run time).
struct ResampleShape {
  long long outer, n, m, inner, k, flat_inner;
};

// Point i's taps at index[j * step], w[j * step].
template <typename T, int K>
__device__ __forceinline__ T ResampleTaps(const T* col, long long stride, long long n,
                                          const long long* index, const T* w, long long k,
                                          long long step) {
  const auto at = [&](long long j) {
    long long q = index[j * step];
    q = q < 0 ? 0 : (q >= n ? n - 1 : q);
    return col[q * stride];
  };
  T acc = w[0] * at(0);
  if constexpr (K > 0) {
#pragma unroll
    for (int j = 1; j < K; ++j) acc = acc + w[j * step] * at(j);
  } else {
    for (long long j = 1; j < k; ++j) acc = acc + w[j * step] * at(j);
  }
  return acc;
}

// The flat grid's loop, its index arithmetic in I (32 bits when the
// outputs are fewer than 2^31).
template <typename T, int K, typename I>
__device__ __forceinline__ void ResampleFlat(const ResampleShape& s, const T* x,
                                             const long long* index, const T* w, T* out) {
  const I total = (I)(s.outer * s.m * s.inner), inner = (I)s.inner, m = (I)s.m;
  for (I e = blockIdx.x * (I)blockDim.x + threadIdx.x; e < total; e += (I)gridDim.x * blockDim.x) {
    const I q = inner == 1 ? e : e / inner, r = e - q * inner;
    const I o = q / m, i = q - o * m;
    out[e] = ResampleTaps<T, K>(x + (long long)o * s.n * s.inner + r, s.inner, s.n, index + i,
                                w + i, s.k, s.m);
  }
}

template <typename T, int K>
__device__ __forceinline__ void ResampleAxis(const ResampleShape& s, const T* x,
                                             const long long* index, const T* w, T* out) {
  const long long rows = s.outer * s.m;
  if (s.flat_inner != 0) {
    if (rows * s.inner < (1LL << 31)) {
      ResampleFlat<T, K, unsigned>(s, x, index, w, out);
    } else {
      ResampleFlat<T, K, long long>(s, x, index, w, out);
    }
    return;
  }
  for (long long q = blockIdx.y; q < rows; q += gridDim.y) {
    const long long o = q / s.m, i = q - o * s.m;
    const T* xo = x + o * s.n * s.inner;
    for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < s.inner;
         r += (long long)gridDim.x * blockDim.x) {
      out[q * s.inner + r] =
          ResampleTaps<T, K>(xo + r, s.inner, s.n, index + i * s.k, w + i * s.k, s.k, 1);
    }
  }
}

// ---- the spline prefilter ----
// One pole of it (kernels/interp.h's SplinePoleChunk) along the middle axis
// of (outer, n, inner) `in` into `out`: a thread a chunk of kSplineChunk
// elements of a line, consecutive threads consecutive inner positions
// (coalesced) or, where inner is 1, consecutive chunks of a line.
constexpr int kSplineChunk = 64, kSplineMaxWarm = 64;

template <typename T>
__device__ __forceinline__ void SplinePoleAxis(const T* in, T* out, long long outer, long long n,
                                               long long inner, double z, long long warm,
                                               long long mode) {
  const long long chunks = (n + kSplineChunk - 1) / kSplineChunk;
  const long long total = outer * chunks * inner;
  T u[kSplineChunk + kSplineMaxWarm];
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const long long q = inner == 1 ? e : e / inner, r = e - q * inner;
    const long long o = q / chunks, c = q - o * chunks;
    const T* line = in + o * n * inner + r;
    T* oline = out + o * n * inner + r;
    const long long s = c * kSplineChunk;
    const long long end = s + kSplineChunk < n ? s + kSplineChunk : n;
    SplinePoleChunk<T>([&](long long i) { return line[i * inner]; }, n, (Boundary)mode, z, warm, s,
                       end, u, [&](long long i, T v) { oline[i * inner] = v; });
  }
}

// ---- interpolation at arbitrary points ----
// map_coordinates: one thread an output point (kernels/interp.h), D and
// ORDER compiled in up to 3 dimensions (-1 beyond: p's).
template <typename T, typename C, int D, int ORDER>
__device__ __forceinline__ void MapCoordinatesAll(const InterpParams& p, const T* coeffs,
                                                  const C* coords, T* out, long long total) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    out[e] = InterpolateAt<T, C, D, ORDER>(p, coeffs, coords, e);
  }
}

// ---- lfilter by chunks ----
// Each row of n samples is cut into C chunks of L. Pass 1 filters every
// chunk from a zero state (chunk 0 from zi) and keeps its end state s_k;
// pass 2 carries the states across chunks in order (S_1 = s_0, S_{k+1} =
// M S_k + s_k, M the zero-input transition over L samples); pass 3 adds
// each chunk's response to its start state S_k, y += Ctab[j] . S_k. The
// setup computes the normalized coefficients and, when C > 1, M, Ctab and
// Mlast (the transition over the last chunk's length) in A (double
// precision).

template <typename T>
struct AccOf {
  typedef double type;
};
template <>
struct AccOf<c64> {
  typedef c128 type;
};
template <>
struct AccOf<c128> {
  typedef c128 type;
};

// One block. coef: bT[m + 1], aT[m + 1] (T); bA, aA (A), likewise.
template <typename T, int MAXM>
__device__ __forceinline__ void LfilterSetup(const T* b, long long nb, const T* a, long long na,
                                             int m, long long L, long long last, T* coef,
                                             typename AccOf<T>::type* coef_acc,
                                             typename AccOf<T>::type* ctab,
                                             typename AccOf<T>::type* mfull,
                                             typename AccOf<T>::type* mlast, int tables) {
  typedef typename AccOf<T>::type A;
  const A a0 = A(a[0]);
  for (int i = threadIdx.x; i <= m; i += blockDim.x) {
    coef[i] = i < nb ? b[i] / a[0] : T(0);
    coef[m + 1 + i] = i > 0 && i < na ? a[i] / a[0] : T(0);
    coef_acc[i] = i < nb ? A(b[i]) / a0 : A(0);
    coef_acc[m + 1 + i] = i > 0 && i < na ? A(a[i]) / a0 : A(0);
  }
  __syncthreads();
  if (!tables) return;
  A an[MAXM + 1];
#pragma unroll
  for (int i = 0; i <= MAXM; ++i) an[i] = i <= m ? coef_acc[m + 1 + i] : A(0);
  for (int s = threadIdx.x; s < m; s += blockDim.x) {
    A z[MAXM];
#pragma unroll
    for (int i = 0; i < MAXM; ++i) z[i] = A(i == s ? 1.0 : 0.0);
    for (long long j = 0; j < L; ++j) {
      if (j == last) {
#pragma unroll
        for (int i = 0; i < MAXM; ++i) {
          if (i < m) mlast[i * m + s] = z[i];
        }
      }
      const A y = z[0];
      ctab[j * m + s] = y;
#pragma unroll
      for (int i = 0; i < MAXM; ++i) {
        if (i + 1 < m) {
          z[i] = z[i + 1] - an[i + 1] * y;
        } else if (i + 1 == m) {
          z[i] = A(0) - an[i + 1] * y;
        }
      }
    }
#pragma unroll
    for (int i = 0; i < MAXM; ++i) {
      if (i < m) {
        mfull[i * m + s] = z[i];
        if (last == L) mlast[i * m + s] = z[i];
      }
    }
  }
}

// Pass 1: one thread per (row, chunk). With C == 1 the end state goes to
// zf, else to s (A).
template <typename T, int MAXM>
__device__ __forceinline__ void LfilterChunks(const T* x, T* y, long long rows, long long n,
                                              long long L, long long C, int m, const T* coef,
                                              const T* zi, T* zf, typename AccOf<T>::type* s) {
  typedef typename AccOf<T>::type A;
  T bt[MAXM + 1], at[MAXM + 1];
#pragma unroll
  for (int i = 0; i <= MAXM; ++i) {
    bt[i] = i <= m ? coef[i] : T(0);
    at[i] = i <= m ? coef[m + 1 + i] : T(0);
  }
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < rows * C;
       g += (long long)gridDim.x * blockDim.x) {
    const long long r = g / C, k = g - r * C;
    T z[MAXM];
#pragma unroll
    for (int i = 0; i < MAXM; ++i) z[i] = k == 0 && zi != nullptr && i < m ? zi[r * m + i] : T(0);
    const long long t0 = k * L, t1 = t0 + L < n ? t0 + L : n;
    const T* xr = x + r * n;
    T* yr = y + r * n;
    for (long long t = t0; t < t1; ++t) {
      const T xt = xr[t];
      const T yt = m > 0 ? z[0] + bt[0] * xt : bt[0] * xt;
#pragma unroll
      for (int i = 0; i < MAXM; ++i) {
        if (i + 1 < m) {
          z[i] = z[i + 1] + bt[i + 1] * xt - at[i + 1] * yt;
        } else if (i + 1 == m) {
          z[i] = bt[i + 1] * xt - at[i + 1] * yt;
        }
      }
      yr[t] = yt;
    }
#pragma unroll
    for (int i = 0; i < MAXM; ++i) {
      if (i < m) {
        if (C == 1) {
          zf[r * m + i] = z[i];
        } else {
          s[g * m + i] = A(z[i]);
        }
      }
    }
  }
}

// Pass 2: one thread per row; s[r][k] becomes S_k (the start state of
// chunk k, zero for chunk 0), and zf = Mlast S_{C-1} + s_{C-1}.
template <typename T, int MAXM>
__device__ __forceinline__ void LfilterCarry(long long rows, long long C, int m,
                                             const typename AccOf<T>::type* mfull,
                                             const typename AccOf<T>::type* mlast,
                                             typename AccOf<T>::type* s, T* zf) {
  typedef typename AccOf<T>::type A;
  constexpr int R = MAXM <= 8 ? MAXM : 1;  // orders held in registers
  for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < rows;
       r += (long long)gridDim.x * blockDim.x) {
    A S[MAXM], nxt[MAXM];
    if constexpr (MAXM > R) {
      // Orders over 8: the state in local memory, a step at a time.
#pragma unroll
      for (int i = 0; i < MAXM; ++i) S[i] = A(0);
      for (long long k = 0; k < C; ++k) {
        A* sk = s + (r * C + k) * m;
        const A* mat = k + 1 < C ? mfull : mlast;
        for (int i = 0; i < m; ++i) {
          A acc = sk[i];
          for (int j = 0; j < m; ++j) acc = acc + mat[i * m + j] * S[j];
          nxt[i] = acc;
        }
        for (int i = 0; i < m; ++i) {
          sk[i] = S[i];
          S[i] = nxt[i];
        }
      }
      for (int i = 0; i < m; ++i) zf[r * m + i] = T(S[i]);
    } else {
      // The state, the transition and the next chunk's end state in
      // registers (static indices), the latter loaded a step ahead: the loop
      // is a chain of m multiply-adds a chunk, not of memory reads.
      A ahead[R], M[R * R];
#pragma unroll
      for (int i = 0; i < R; ++i) {
        S[i] = A(0);
        ahead[i] = i < m ? s[(r * C) * m + i] : A(0);
#pragma unroll
        for (int j = 0; j < R; ++j) M[i * R + j] = i < m && j < m ? mfull[i * m + j] : A(0);
      }
      for (long long k = 0; k < C; ++k) {
        A* sk = s + (r * C + k) * m;
        if (k + 1 == C) {
#pragma unroll
          for (int i = 0; i < R; ++i) {
#pragma unroll
            for (int j = 0; j < R; ++j) {
              M[i * R + j] = i < m && j < m ? mlast[i * m + j] : A(0);
            }
          }
        }
        A cur[R];
#pragma unroll
        for (int i = 0; i < R; ++i) {
          cur[i] = ahead[i];
          if (i < m && k + 1 < C) ahead[i] = sk[m + i];
        }
#pragma unroll
        for (int i = 0; i < R; ++i) {
          A acc = cur[i];
#pragma unroll
          for (int j = 0; j < R; ++j) acc = acc + M[i * R + j] * S[j];
          nxt[i] = acc;
        }
#pragma unroll
        for (int i = 0; i < R; ++i) {
          if (i < m) sk[i] = S[i];
          S[i] = nxt[i];
        }
      }
#pragma unroll
      for (int i = 0; i < MAXM; ++i) {
        if (i < m) zf[r * m + i] = T(S[i]);
      }
    }
  }
}

// Pass 3: y += Ctab[t mod L] . S_k over every sample of chunks k >= 1.
template <typename T>
__device__ __forceinline__ void LfilterCorrect(T* y, long long rows, long long n, long long L,
                                               long long C, int m,
                                               const typename AccOf<T>::type* ctab,
                                               const typename AccOf<T>::type* s) {
  typedef typename AccOf<T>::type A;
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < rows * n;
       g += (long long)gridDim.x * blockDim.x) {
    const long long r = g / n, t = g - r * n, k = t / L;
    if (k == 0) continue;
    const A* sk = s + (r * C + k) * m;
    const A* c = ctab + (t - k * L) * m;
    A acc = A(y[g]);
    for (int i = 0; i < m; ++i) acc = acc + c[i] * sk[i];
    y[g] = T(acc);
  }
}

// ---- label: union-find over flat indices (links point to smaller ones) ----
// L: the index type of the parent links (int for under 2^31 elements,
// long long beyond): the links are all of label's memory traffic.

// Neighbor offsets of label (K x nd, K * nd <= 256) and their flat steps.
struct LabelNeighbors {
  long long off[256];
  long long flat[64];
  long long shape[8];
};

template <typename L>
__device__ __forceinline__ L LabelFind(const L* p, L i) {
  const volatile L* vp = p;
  L q = vp[i];
  while (q != i) {
    i = q;
    q = vp[i];
  }
  return i;
}

template <typename L>
__device__ __forceinline__ void LabelInit(const bool* mask, L* p, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    p[i] = mask[i] ? (L)i : (L)-1;
  }
}

template <typename L>
__device__ __forceinline__ void LabelMerge(const bool* mask, L* p, long long n, int nd, int k,
                                           const LabelNeighbors& nb) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    if (!mask[i]) continue;
    long long idx[8];
    long long rest = i;
    for (int d = nd - 1; d >= 0; --d) {
      const long long q = rest / nb.shape[d];
      idx[d] = rest - q * nb.shape[d];
      rest = q;
    }
    for (int t = 0; t < k; ++t) {
      bool inside = true;
      for (int d = 0; d < nd; ++d) {
        const long long c = idx[d] + nb.off[t * nd + d];
        inside = inside && c >= 0 && c < nb.shape[d];
      }
      const long long j = i + nb.flat[t];
      if (!inside || !mask[j]) continue;
      L a = LabelFind(p, (L)i), b = LabelFind(p, (L)j);
      while (a != b) {
        if (a < b) {
          const L t2 = a;
          a = b;
          b = t2;
        }
        // Link root a under b; when a is no root any more, retry from the
        // root it was linked to.
        const L old = atomicMin(&p[a], b);
        if (old == a) break;
        a = LabelFind(p, old);
        b = LabelFind(p, b);
      }
    }
  }
}

template <typename L>
__device__ __forceinline__ void LabelFlatten(const bool* mask, L* p, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    if (mask[i]) p[i] = LabelFind(p, (L)i);
  }
}

// The roots' numbers, as nonzero's positions (indexing.cuh's ChunkCount
// and ChunkRanks): each chunk's roots counted ...
template <typename L>
__device__ __forceinline__ void LabelCountRoots(const L* p, long long n, long long chunk,
                                                long long* counts) {
  ChunkCount(
      n, chunk, [&](long long i) { return p[i] == (L)i; }, counts);
}

// ... then numbered in order (num[root]: 1 + the roots before it); the
// last block writes the total.
template <typename L>
__device__ __forceinline__ void LabelNumberRoots(const L* p, long long n, long long chunk,
                                                 const long long* counts, L* num,
                                                 long long* total) {
  const long long upto = ChunkRanks(
      n, chunk, counts, [&](long long i) { return p[i] == (L)i; },
      [&](long long i, long long rank) { num[i] = (L)(rank + 1); });
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) *total = upto;
}

// Each element its root's number (in place: p becomes the labels).
template <typename L>
__device__ __forceinline__ void LabelApply(L* p, long long n, const L* num) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const L r = p[i];
    p[i] = r < 0 ? (L)0 : num[r];
  }
}

}  // namespace gen
}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_DEVICE_FILTERS_CUH_
