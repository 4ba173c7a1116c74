// Device code of the CUDA backend's generated kernels (NVRTC): the extra
// by-value parameters of elementwise kernels (ElementwiseSpec::extra_type in
// kernel_source.h; host mirrors IotaArgs and MatrixArgs). The kernels
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
};

// searchsorted's sorted array, for SearchSorted (kernels/functors.h).
struct SearchParams {
  const char* a;
  long long n, stride, right;
};

}  // namespace gen
}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_DEVICE_ELEMENTWISE_CUH_
