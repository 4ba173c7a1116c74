#include "backend/cuda/solver_fft_status.h"

#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace arrayd {
namespace cuda {

const char* CusolverStatusName(cusolverStatus_t status) {
  // By number: the list grows between CUDA versions.
  switch (static_cast<int>(status)) {
    case 0: return "CUSOLVER_STATUS_SUCCESS";
    case 1: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case 2: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case 3: return "CUSOLVER_STATUS_INVALID_VALUE";
    case 4: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case 5: return "CUSOLVER_STATUS_MAPPING_ERROR";
    case 6: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case 7: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case 8: return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case 9: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case 10: return "CUSOLVER_STATUS_ZERO_PIVOT";
    case 11: return "CUSOLVER_STATUS_INVALID_LICENSE";
    case 31: return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default: return "CUSOLVER_STATUS_UNKNOWN";
  }
}

const char* CufftResultName(cufftResult result) {
  switch (static_cast<int>(result)) {
    case 0x0: return "CUFFT_SUCCESS";
    case 0x1: return "CUFFT_INVALID_PLAN";
    case 0x2: return "CUFFT_ALLOC_FAILED";
    case 0x3: return "CUFFT_INVALID_TYPE";
    case 0x4: return "CUFFT_INVALID_VALUE";
    case 0x5: return "CUFFT_INTERNAL_ERROR";
    case 0x6: return "CUFFT_EXEC_FAILED";
    case 0x7: return "CUFFT_SETUP_FAILED";
    case 0x8: return "CUFFT_INVALID_SIZE";
    case 0x9: return "CUFFT_UNALIGNED_DATA";
    case 0xB: return "CUFFT_INVALID_DEVICE";
    case 0xD: return "CUFFT_NO_WORKSPACE";
    case 0xE: return "CUFFT_NOT_IMPLEMENTED";
    case 0x10: return "CUFFT_NOT_SUPPORTED";
    case 0x11: return "CUFFT_MISSING_DEPENDENCY";
    case 0x12: return "CUFFT_NVRTC_FAILURE";
    case 0x13: return "CUFFT_NVJITLINK_FAILURE";
    case 0x14: return "CUFFT_NVSHMEM_FAILURE";
    default: return "CUFFT_UNKNOWN";
  }
}

namespace {

absl::Status Make(const char* name, int code, bool out_of_memory, const char* expr,
                  const char* file, int line) {
  const std::string message =
      absl::StrCat(expr, " failed: ", name, " (", code, ") at ", file, ":", line);
  if (out_of_memory) return OutOfMemoryError(message);
  return absl::InternalError(message);
}

}  // namespace

absl::Status CusolverStatus(cusolverStatus_t status, const char* expr, const char* file, int line) {
  if (status == CUSOLVER_STATUS_SUCCESS) return absl::OkStatus();
  return Make(CusolverStatusName(status), static_cast<int>(status),
              status == CUSOLVER_STATUS_ALLOC_FAILED, expr, file, line);
}

absl::Status CufftStatus(cufftResult result, const char* expr, const char* file, int line) {
  if (result == CUFFT_SUCCESS) return absl::OkStatus();
  return Make(CufftResultName(result), static_cast<int>(result), result == CUFFT_ALLOC_FAILED, expr,
              file, line);
}

}  // namespace cuda
}  // namespace arrayd
