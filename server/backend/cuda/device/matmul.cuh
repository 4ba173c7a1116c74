// Device code of the CUDA backend's generated kernels (NVRTC): the tiled
// matrix product of the dtypes cuBLAS does not cover (integers and bool;
// MatmulBody in kernel_source.h).
#ifndef ARRAYD_BACKEND_CUDA_DEVICE_MATMUL_CUH_
#define ARRAYD_BACKEND_CUDA_DEVICE_MATMUL_CUH_

#include "kernels/functors.h"

namespace arrayd {
namespace kernels {
namespace gen {

// out[bt] = a[bt] @ b[bt], C-contiguous (m, k) @ (k, n), 16x16 tiles,
// accumulating in A like cpu_matmul.cc.
template <typename T, typename A>
__device__ __forceinline__ void TiledMatmul(const T* a, const T* b, T* out, long long batch,
                                            long long m, long long k, long long n) {
  __shared__ __align__(16) unsigned char raw_a[16 * 17 * sizeof(A)];
  __shared__ __align__(16) unsigned char raw_b[16 * 17 * sizeof(A)];
  A* ta = reinterpret_cast<A*>(raw_a);
  A* tb = reinterpret_cast<A*>(raw_b);
  const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  const long long tiles_n = (n + 15) / 16, tiles_m = (m + 15) / 16;
  for (long long bt = blockIdx.y; bt < batch; bt += gridDim.y) {
    const T* pa = a + bt * m * k;
    const T* pb = b + bt * k * n;
    for (long long tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
      const long long row = (tile / tiles_n) * 16 + ty, col = (tile % tiles_n) * 16 + tx;
      A acc = Cast<A>(0);
      for (long long p0 = 0; p0 < k; p0 += 16) {
        ta[ty * 17 + tx] = row < m && p0 + tx < k ? Cast<A>(pa[row * k + p0 + tx]) : Cast<A>(0);
        tb[ty * 17 + tx] = p0 + ty < k && col < n ? Cast<A>(pb[(p0 + ty) * n + col]) : Cast<A>(0);
        __syncthreads();
        const int q_end = k - p0 < 16 ? (int)(k - p0) : 16;
        for (int q = 0; q < q_end; ++q) {
          acc = AddOp()(acc, MultiplyOp()(ta[ty * 17 + q], tb[q * 17 + tx]));
        }
        __syncthreads();
      }
      if (row < m && col < n) out[bt * m * n + row * n + col] = Cast<T>(acc);
    }
  }
}

}  // namespace gen
}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_DEVICE_MATMUL_CUH_
