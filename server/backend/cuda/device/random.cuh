// Device code of the CUDA backend's generated kernels (NVRTC): Philox
// random streams into contiguous float32/float64 arrays (RandomBody in
// kernel_source.h). The Philox generator and the distributions themselves
// are kernels/functors.h's, shared with the CPU backend.
#ifndef ARRAYD_BACKEND_CUDA_DEVICE_RANDOM_CUH_
#define ARRAYD_BACKEND_CUDA_DEVICE_RANDOM_CUH_

#include "backend/cuda/device/layout.cuh"
#include "kernels/functors.h"

namespace arrayd {
namespace kernels {
namespace gen {

// Random streams: the values of Philox block counter + b go to
// out[b * K, b * K + K) (kernels/functors.h), one vector store when the
// block is whole. A thread makes J blocks a grid apart per step: J
// independent Philox chains in flight (kPhiloxBlocksPerThread).
template <typename T, int K>
__device__ __forceinline__ void PhiloxStore(T* out, long long n, long long b, const Vec<T, K>& r) {
  if ((b + 1) * K <= n) {
    *reinterpret_cast<Vec<T, K>*>(out + b * K) = r;
  } else {
    for (int j = 0; b * K + j < n; ++j) out[b * K + j] = r.v[j];
  }
}

template <typename Dist, int J, typename T>
__device__ __forceinline__ void PhiloxFill(T* out, long long n, unsigned long long counter,
                                           unsigned long long key) {
  const int K = PhiloxValues<T>::kCount;
  const long long blocks = (n + K - 1) / K;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < blocks;
       b += J * stride) {
    Vec<T, K> r[J];
    // All J are computed, even past the end: no branch between the chains.
#pragma unroll
    for (int j = 0; j < J; ++j) Dist()(counter + b + j * stride, key, r[j].v);
#pragma unroll
    for (int j = 0; j < J; ++j) {
      if (b + j * stride < blocks) PhiloxStore(out, n, b + j * stride, r[j]);
    }
  }
}

}  // namespace gen
}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_DEVICE_RANDOM_CUH_
