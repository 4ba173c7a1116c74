// Device code of the CUDA backend's generated kernels (NVRTC): a stable
// segmented bitonic sort of lines padded to a power of two, in NumPy's order
// (NaNs last). SortBody in kernel_source.h gives the kernels' parameters;
// cuda_indexing.cc the order of the launches.
#ifndef ARRAYD_BACKEND_CUDA_DEVICE_SORT_CUH_
#define ARRAYD_BACKEND_CUDA_DEVICE_SORT_CUH_

#include "backend/cuda/device/layout.cuh"
#include "kernels/functors.h"

namespace arrayd {
namespace kernels {
namespace gen {

// NumPy's sort order (NaNs last), ties broken by the original position, so
// that any sorting network gives the stable order. Positions >= n are
// padding and go after everything.
template <typename T>
__device__ __forceinline__ bool SortBefore(T a, long long ia, T b, long long ib, long long n) {
  if (ia >= n || ib >= n) return ia < ib;
  const bool na = IsNan(a), nb = IsNan(b);
  if (na || nb) {
    if (na != nb) return nb;
    return ia < ib;
  }
  if (LessOp()(a, b)) return true;
  if (LessOp()(b, a)) return false;
  return ia < ib;
}

// Lines of `n` elements padded to `p` (a power of two) in keys/idx.
template <typename T, int ND>
__device__ __forceinline__ void SortInit(const char* in, long long lines, long long n, long long p,
                                         const Strided<1, ND>& s, T* keys, long long* idx) {
  const long long total = lines * p;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const long long line = e / p, i = e - line * p;
    keys[e] = i < n
                  ? *reinterpret_cast<const T*>(in + Offset<ND>(line * n + i, s.shape, s.stride[0]))
                  : Cast<T>(0);
    idx[e] = i;
  }
}

// One compare-exchange step (k, j) of the bitonic sort of every line.
template <typename T>
__device__ __forceinline__ void SortStep(T* keys, long long* idx, long long total, long long n,
                                         long long p, long long k, long long j) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const long long partner = e ^ j;
    if (partner <= e) continue;
    const bool up = ((e & (p - 1)) & k) == 0;
    const T a = keys[e], b = keys[partner];
    const long long ia = idx[e], ib = idx[partner];
    const bool swap = up ? SortBefore(b, ib, a, ia, n) : SortBefore(a, ia, b, ib, n);
    if (swap) {
      keys[e] = b;
      keys[partner] = a;
      idx[e] = ib;
      idx[partner] = ia;
    }
  }
}

// The steps (k, j) with j < 1024 of the bitonic sort, in shared memory:
// k = k_first (from j = j_first down) .. k_last (from j = k / 2 down). Tiles
// of 1024 elements are aligned, so every partner is in the tile.
template <typename T>
__device__ __forceinline__ void SortLocal(T* keys, long long* idx, long long total, long long n,
                                          long long p, long long k_first, long long k_last,
                                          long long j_first) {
  const int kTile = 1024;
  __shared__ __align__(16) unsigned char raw_keys[kTile * sizeof(T)];
  __shared__ long long s_idx[kTile];
  T* s_keys = reinterpret_cast<T*>(raw_keys);
  for (long long base = blockIdx.x * (long long)kTile; base < total;
       base += (long long)gridDim.x * kTile) {
    const int count = total - base < kTile ? (int)(total - base) : kTile;
    for (int t = threadIdx.x; t < count; t += blockDim.x) {
      s_keys[t] = keys[base + t];
      s_idx[t] = idx[base + t];
    }
    __syncthreads();
    for (long long k = k_first; k <= k_last; k *= 2) {
      for (long long j = k == k_first ? j_first : k / 2; j >= 1; j /= 2) {
        for (int t = threadIdx.x; t < count; t += blockDim.x) {
          const int u = t ^ (int)j;
          if (u <= t || u >= count) continue;
          const bool up = (((base + t) & (p - 1)) & k) == 0;
          const T a = s_keys[t], b = s_keys[u];
          const long long ia = s_idx[t], ib = s_idx[u];
          const bool swap = up ? SortBefore(b, ib, a, ia, n) : SortBefore(a, ia, b, ib, n);
          if (swap) {
            s_keys[t] = b;
            s_keys[u] = a;
            s_idx[t] = ib;
            s_idx[u] = ia;
          }
        }
        __syncthreads();
      }
    }
    for (int t = threadIdx.x; t < count; t += blockDim.x) {
      keys[base + t] = s_keys[t];
      idx[base + t] = s_idx[t];
    }
    __syncthreads();
  }
}

template <typename T>
__device__ __forceinline__ void SortOut(const T* keys, const long long* idx, long long lines,
                                        long long n, long long p, T* out, long long* ind) {
  const long long total = lines * n;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const long long line = e / n, i = e - line * n;
    out[e] = keys[line * p + i];
    if (ind != nullptr) ind[e] = idx[line * p + i];
  }
}

}  // namespace gen
}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_DEVICE_SORT_CUH_
