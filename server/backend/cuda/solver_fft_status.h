// Error handling of cuSOLVER and cuFFT calls, as cuda_status.h does for the
// runtime: ARRAYD_CUSOLVER_RETURN_IF_ERROR(expr) and
// ARRAYD_CUFFT_RETURN_IF_ERROR(expr) turn a failed status into an
// absl::Status naming the call, the status and file:line.
#ifndef ARRAYD_BACKEND_CUDA_SOLVER_FFT_STATUS_H_
#define ARRAYD_BACKEND_CUDA_SOLVER_FFT_STATUS_H_

#include <cufft.h>
#include <cusolverDn.h>

#include "absl/status/status.h"
#include "backend/cuda/cuda_status.h"

namespace arrayd {
namespace cuda {

// "CUSOLVER_STATUS_INVALID_VALUE" etc.; "CUSOLVER_STATUS_UNKNOWN" for values
// this build does not know.
const char* CusolverStatusName(cusolverStatus_t status);
// "CUFFT_INVALID_SIZE" etc.; "CUFFT_UNKNOWN" for unknown values.
const char* CufftResultName(cufftResult result);

// OK on success; MemoryError (RESOURCE_EXHAUSTED) for allocation failures;
// INTERNAL otherwise.
absl::Status CusolverStatus(cusolverStatus_t status, const char* expr, const char* file, int line);
absl::Status CufftStatus(cufftResult result, const char* expr, const char* file, int line);

}  // namespace cuda
}  // namespace arrayd

#define ARRAYD_CUSOLVER_RETURN_IF_ERROR(expr) \
  ARRAYD_RETURN_IF_ERROR(ARRAYD_CUDA_STATUS_(CusolverStatus, expr))
#define ARRAYD_CUFFT_RETURN_IF_ERROR(expr) \
  ARRAYD_RETURN_IF_ERROR(ARRAYD_CUDA_STATUS_(CufftStatus, expr))

#endif  // ARRAYD_BACKEND_CUDA_SOLVER_FFT_STATUS_H_
