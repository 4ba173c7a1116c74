// Error handling of the CUDA backend: every CUDA runtime, driver and NVRTC
// call goes through one of the macros below, which turn a failure into an
// absl::Status naming the call, the error and file:line.
//
// A sticky device error (illegal address, launch failure, ECC error, ...)
// corrupts the CUDA context for the whole process: it is recorded here
// (FatalDeviceError()), logged with spdlog::critical, and the process exits
// with code 70 about a second later so that a supervisor restarts it. Until
// then every backend reports UNAVAILABLE from Health().
#ifndef ARRAYD_BACKEND_CUDA_CUDA_STATUS_H_
#define ARRAYD_BACKEND_CUDA_CUDA_STATUS_H_

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <string>

#include "absl/status/status.h"
#include "common/status.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace cuda {

// Status for a failed runtime call `expr` (OK when `err` is cudaSuccess).
// Out-of-memory becomes RESOURCE_EXHAUSTED, sticky errors UNAVAILABLE (and
// trigger the fatal path above), everything else INTERNAL.
absl::Status RuntimeStatus(cudaError_t err, const char* expr, const char* file, int line);
// The same for a driver API call (CUresult) and an NVRTC call.
absl::Status DriverStatus(CUresult err, const char* expr, const char* file, int line);
absl::Status NvrtcStatus(nvrtcResult err, const char* expr, const char* file, int line);

// True for errors after which the CUDA context is unusable.
bool IsStickyError(int code);

// Records a fatal device error (first one wins), logs it and schedules the
// process exit. Safe to call from any thread, any number of times.
void ReportFatalDeviceError(const std::string& message);
// OK, or UNAVAILABLE with the message of the fatal error.
absl::Status FatalDeviceError();

}  // namespace cuda
}  // namespace arrayd

#define ARRAYD_CUDA_STATUS_(fn, expr) ::arrayd::cuda::fn((expr), #expr, __FILE__, __LINE__)

// Returns an error Status from the enclosing function when the CUDA runtime
// call `expr` fails.
#define ARRAYD_CUDA_RETURN_IF_ERROR(expr) \
  ARRAYD_RETURN_IF_ERROR(ARRAYD_CUDA_STATUS_(RuntimeStatus, expr))
// The same for a CUDA driver API call (through the DriverApi table).
#define ARRAYD_CU_RETURN_IF_ERROR(expr) \
  ARRAYD_RETURN_IF_ERROR(ARRAYD_CUDA_STATUS_(DriverStatus, expr))
#define ARRAYD_NVRTC_RETURN_IF_ERROR(expr) \
  ARRAYD_RETURN_IF_ERROR(ARRAYD_CUDA_STATUS_(NvrtcStatus, expr))
// For destructors and other places that cannot return: logs a failure.
#define ARRAYD_CUDA_LOG_IF_ERROR(expr)                                                \
  do {                                                                                \
    ::absl::Status _arrayd_cuda_status = ARRAYD_CUDA_STATUS_(RuntimeStatus, expr);    \
    if (!_arrayd_cuda_status.ok()) SPDLOG_WARN("{}", _arrayd_cuda_status.ToString()); \
  } while (0)

#endif  // ARRAYD_BACKEND_CUDA_CUDA_STATUS_H_
