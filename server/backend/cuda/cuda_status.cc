#include "backend/cuda/cuda_status.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "backend/cuda/driver_api.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace cuda {
namespace {

absl::Mutex g_fatal_mu;
std::string* g_fatal_message ABSL_GUARDED_BY(g_fatal_mu) = nullptr;
std::atomic<bool> g_fatal{false};

// Exit code of a process whose GPU context is lost (EX_SOFTWARE).
constexpr int kFatalExitCode = 70;

absl::Status Make(int code, const std::string& name, const std::string& text, const char* expr,
                  const char* file, int line, bool out_of_memory) {
  std::string message = absl::StrCat(expr, " failed: ", name, " (", text, ") at ", file, ":", line);
  if (IsStickyError(code)) {
    ReportFatalDeviceError(message);
    return absl::UnavailableError(message);
  }
  if (out_of_memory) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

}  // namespace

bool IsStickyError(int code) {
  // cudaError_t and CUresult share these numbers (700..720, 214).
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorECCUncorrectable:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorDevicesUnavailable: return true;
    default: return false;
  }
}

absl::Status RuntimeStatus(cudaError_t err, const char* expr, const char* file, int line) {
  if (err == cudaSuccess) return absl::OkStatus();
  if (!IsStickyError(err)) cudaGetLastError();  // clear a non-sticky error for the next call
  return Make(err, cudaGetErrorName(err), cudaGetErrorString(err), expr, file, line,
              err == cudaErrorMemoryAllocation);
}

absl::Status DriverStatus(CUresult err, const char* expr, const char* file, int line) {
  if (err == CUDA_SUCCESS) return absl::OkStatus();
  const char* name = "CUDA_ERROR_?";
  const char* text = "unknown driver error";
  absl::StatusOr<const DriverApi*> api = GetDriverApi();
  if (api.ok()) {
    (*api)->cuGetErrorName(err, &name);
    (*api)->cuGetErrorString(err, &text);
  }
  return Make(err, absl::StrCat(name ? name : "?", " ", static_cast<int>(err)), text ? text : "",
              expr, file, line, err == CUDA_ERROR_OUT_OF_MEMORY);
}

absl::Status NvrtcStatus(nvrtcResult err, const char* expr, const char* file, int line) {
  if (err == NVRTC_SUCCESS) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(expr, " failed: ", nvrtcGetErrorString(err), " at ", file, ":", line));
}

void ReportFatalDeviceError(const std::string& message) {
  {
    absl::MutexLock lock(&g_fatal_mu);
    if (g_fatal_message != nullptr) return;
    g_fatal_message = new std::string(message);  // never freed: read until exit
    g_fatal.store(true);
  }
  spdlog::critical(
      "fatal CUDA device error, the GPU context is lost: {}; exiting with code {} in 1 s", message,
      kFatalExitCode);
  // Let the RPC that saw the error answer, then exit without running static
  // destructors (they would call into the broken context and may hang).
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    spdlog::default_logger()->flush();
    std::_Exit(kFatalExitCode);
  }).detach();
}

absl::Status FatalDeviceError() {
  if (!g_fatal.load()) return absl::OkStatus();
  absl::MutexLock lock(&g_fatal_mu);
  return absl::UnavailableError(
      absl::StrCat("the CUDA device failed and the server is restarting: ", *g_fatal_message));
}

}  // namespace cuda
}  // namespace arrayd
