// Device code of the CUDA backend's generated kernels (NVRTC): the extra
// by-value parameters of elementwise kernels (ElementwiseSpec::extra_type in
// kernel_source.h; host mirrors IotaArgs and MatrixArgs) and the offsets
// of strided kernels (StridedOffsets). The kernels
// themselves, loops included, are generated per operand count and dtypes
// (ElementwiseBody, ElementwiseGroupBody in kernel_source.cc): written as
// templates here, the offset loop and the group search compiled to
// reordered PTX.
#ifndef ARRAYD_BACKEND_CUDA_DEVICE_ELEMENTWISE_CUH_
#define ARRAYD_BACKEND_CUDA_DEVICE_ELEMENTWISE_CUH_

#include "backend/cuda/device/layout.cuh"

namespace arrayd {
namespace kernels {
namespace gen {

struct IotaParams {
  long long i0, di;
  unsigned long long u0, du;
  double re0, dre, im0, dim;
};

// The matrix shape of an elementwise kernel over a batch of (rows, cols)
// C-order matrices (the linear algebra and FFT helpers).
struct MatrixParams {
  long long rows, cols;
  double scale;
};

// searchsorted's sorted array, for SearchSorted (kernels/functors.h).
struct SearchParams {
  const char* a;
  long long n, stride, right;
};

// The byte offsets in each of the N operands of element i (C order) of a
// strided kernel, and i's index in the innermost dim; I is the index
// arithmetic's type (32 bits when the elements are fewer than 2^31).
template <typename I, int N, int ND>
__device__ __forceinline__ void StridedOffsets(long long i, const Strided<N, ND>& s,
                                               long long (&off)[N], long long* inner) {
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
  I rest = static_cast<I>(i);
#pragma unroll
  for (int d = ND - 1; d >= 1; --d) {
    const I dim = static_cast<I>(s.shape[d]);
    const I q = rest / dim;
    const long long idx = rest - q * dim;
    if (d == ND - 1) *inner = idx;
    rest = q;
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] += idx * s.stride[k][d];
  }
  if (ND == 1) *inner = static_cast<long long>(rest);
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] += static_cast<long long>(rest) * s.stride[k][0];
}

}  // namespace gen
}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_DEVICE_ELEMENTWISE_CUH_
