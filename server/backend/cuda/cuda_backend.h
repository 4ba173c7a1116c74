// The CUDA backend: one GPU, its primary context, a caching memory pool and
// kernels generated from kernels/functors.h and compiled with NVRTC on first
// use (cached in memory and on disk). Each Stream is a non-blocking CUDA
// stream with its own cuBLAS (matmul) and cuSOLVER (linalg) handles, made on
// first use; cuFFT plans are shared by the streams of a device. The CUDA
// runtime is linked statically, NVRTC and the math libraries dynamically
// (none of them needs libcuda at load time); driver API entry points are
// fetched at run time, so the binary starts on machines without an NVIDIA
// driver.
#ifndef ARRAYD_BACKEND_CUDA_CUDA_BACKEND_H_
#define ARRAYD_BACKEND_CUDA_CUDA_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "backend/backend.h"

namespace arrayd {
namespace cuda {

// Number of CUDA devices visible to this process; 0 with `reason` set when
// there is none or the driver/runtime cannot be used. Never crashes.
int VisibleGpuCount(std::string* reason);

// The backend of CUDA device `device`. UNAVAILABLE (or INTERNAL) when the
// device cannot be initialized.
absl::StatusOr<std::unique_ptr<Backend>> CreateCudaBackend(int device);

}  // namespace cuda
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_CUDA_BACKEND_H_
