// Error handling of cuBLAS calls, as cuda_status.h does for the runtime:
// ARRAYD_CUBLAS_RETURN_IF_ERROR(expr) turns a failed cublasStatus_t into an
// absl::Status naming the call, the status and file:line.
#ifndef ARRAYD_BACKEND_CUDA_CUBLAS_STATUS_H_
#define ARRAYD_BACKEND_CUDA_CUBLAS_STATUS_H_

#include <cublas_v2.h>

#include "absl/status/status.h"
#include "backend/cuda/cuda_status.h"

namespace arrayd {
namespace cuda {

// "CUBLAS_STATUS_NOT_SUPPORTED" etc. (cublasGetStatusName is missing from
// old cuBLAS versions).
const char* CublasStatusName(cublasStatus_t status);

// OK for CUBLAS_STATUS_SUCCESS; MemoryError (RESOURCE_EXHAUSTED) for
// allocation failures; INTERNAL otherwise.
absl::Status CublasStatus(cublasStatus_t status, const char* expr, const char* file, int line);

}  // namespace cuda
}  // namespace arrayd

#define ARRAYD_CUBLAS_RETURN_IF_ERROR(expr) \
  ARRAYD_RETURN_IF_ERROR(ARRAYD_CUDA_STATUS_(CublasStatus, expr))

#endif  // ARRAYD_BACKEND_CUDA_CUBLAS_STATUS_H_
