// Device code of the filter kernels (cuda_filters.cc; the CPU reference is
// backend/cpu/cpu_filters.cc): stencils over a padded input, the lfilter
// recursion by chunks, and label's union-find.
//
// Embedded into every NVRTC source at build time (embed_kernel_headers.cmake).
#ifndef ARRAYD_BACKEND_CUDA_DEVICE_FILTERS_CUH_
#define ARRAYD_BACKEND_CUDA_DEVICE_FILTERS_CUH_

#include "backend/cuda/device/layout.cuh"
#include "kernels/types.h"

namespace arrayd {
namespace kernels {
namespace gen {

// Byte offsets of a stencil's taps (Stream::kMaxStencilTaps), by value.
struct StencilTaps {
  long long off[256];
};

// out[i] (C order, n elements) = sum over taps of w[t] * in[i + off[t]], in
// the taps' order (as the CPU loop adds them).
template <typename T>
__device__ __forceinline__ void StencilSum(const FlatLayout& in, const StencilTaps& taps, int k,
                                           const T* w, T* out, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const char* p = in.base + FlatOffset(in, i);
    T acc = T(0);
    for (int t = 0; t < k; ++t) acc = acc + w[t] * *reinterpret_cast<const T*>(p + taps.off[t]);
    out[i] = acc;
  }
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

// out[i] = the rank-th smallest of in[i + off[t]] (min and max by a scan;
// other ranks by selection among at most MAXK values).
template <typename T, int MAXK>
__device__ __forceinline__ void StencilRank(const FlatLayout& in, const StencilTaps& taps, int k,
                                            int rank, T* out, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const char* p = in.base + FlatOffset(in, i);
    if (rank == 0 || rank == k - 1) {
      T r = *reinterpret_cast<const T*>(p + taps.off[0]);
      for (int t = 1; t < k; ++t) {
        const T x = *reinterpret_cast<const T*>(p + taps.off[t]);
        r = rank == 0 ? (x < r ? x : r) : (r < x ? x : r);
      }
      out[i] = r;
      continue;
    }
    // (NK: the network's size; 1 where MAXK is over it, so that the
    // unrolled network is not compiled there.)
    constexpr int NK = MAXK <= 32 ? MAXK : 1;
    T v[MAXK];
    if constexpr (MAXK <= 32) {
      // Registers: the values padded with their maximum (which leaves the
      // order statistics below k as they are), then an odd-even
      // transposition sort, every index static.
      T top = *reinterpret_cast<const T*>(p + taps.off[0]);
#pragma unroll
      for (int t = 0; t < NK; ++t) {
        if (t < k) {
          v[t] = *reinterpret_cast<const T*>(p + taps.off[t]);
          top = top < v[t] ? v[t] : top;
        }
      }
#pragma unroll
      for (int t = 0; t < NK; ++t) {
        if (t >= k) v[t] = top;
      }
#pragma unroll
      for (int round = 0; round < NK; ++round) {
#pragma unroll
        for (int t = round & 1; t + 1 < NK; t += 2) {
          const T a = v[t], b = v[t + 1];
          const bool swap = b < a;
          v[t] = swap ? b : a;
          v[t + 1] = swap ? a : b;
        }
      }
      T r = v[0];
#pragma unroll
      for (int t = 1; t < NK; ++t) r = t == rank ? v[t] : r;
      out[i] = r;
    } else {
      for (int t = 0; t < k; ++t) v[t] = *reinterpret_cast<const T*>(p + taps.off[t]);
      out[i] = SelectRank(v, k, rank);
    }
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

// Neighbor offsets of label (K x nd, K * nd <= 256) and their flat steps.
struct LabelNeighbors {
  long long off[256];
  long long flat[64];
  long long shape[8];
};

__device__ __forceinline__ long long LabelFind(const long long* p, long long i) {
  const volatile long long* vp = p;
  long long q = vp[i];
  while (q != i) {
    i = q;
    q = vp[i];
  }
  return i;
}

__device__ __forceinline__ void LabelInit(const bool* mask, long long* p, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    p[i] = mask[i] ? i : -1;
  }
}

__device__ __forceinline__ void LabelMerge(const bool* mask, long long* p, long long n, int nd,
                                           int k, const LabelNeighbors& nb) {
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
      long long a = LabelFind(p, i), b = LabelFind(p, j);
      while (a != b) {
        if (a < b) {
          const long long t2 = a;
          a = b;
          b = t2;
        }
        // Link root a under b; when a is no root any more, retry from the
        // root it was linked to.
        const long long old = atomicMin(&p[a], b);
        if (old == a) break;
        a = LabelFind(p, old);
        b = LabelFind(p, b);
      }
    }
  }
}

__device__ __forceinline__ void LabelFlatten(const bool* mask, long long* p, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    if (mask[i]) p[i] = LabelFind(p, i);
  }
}

}  // namespace gen
}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_DEVICE_FILTERS_CUH_
