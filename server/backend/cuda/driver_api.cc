#include "backend/cuda/driver_api.h"

#include <cuda_runtime_api.h>

#include "absl/strings/str_cat.h"

namespace arrayd {
namespace cuda {
namespace {

// The driver ABI version we ask for: these entry points have not changed
// since CUDA 12.0, and a 12.x or 13.x driver provides them.
constexpr unsigned int kDriverAbiVersion = 12000;

template <typename Fn>
absl::Status Load(const char* symbol, Fn* out) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  cudaError_t err =
      cudaGetDriverEntryPointByVersion(symbol, &fn, kDriverAbiVersion, cudaEnableDefault, &found);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return absl::UnavailableError(absl::StrCat("cannot get CUDA driver entry point ", symbol, ": ",
                                               cudaGetErrorName(err), " (", cudaGetErrorString(err),
                                               ")"));
  }
  if (found != cudaDriverEntryPointSuccess || fn == nullptr) {
    return absl::UnavailableError(absl::StrCat(
        "CUDA driver entry point ", symbol, " not found (query result ", static_cast<int>(found),
        "): is the NVIDIA driver too old for CUDA ", kDriverAbiVersion / 1000, "?"));
  }
  *out = reinterpret_cast<Fn>(fn);
  return absl::OkStatus();
}

absl::StatusOr<DriverApi> LoadAll() {
  DriverApi api;
  absl::Status s;
  // cuGetProcAddress names are the base names, without _v2 suffixes.
  if (s = Load("cuGetErrorName", &api.cuGetErrorName); !s.ok()) return s;
  if (s = Load("cuGetErrorString", &api.cuGetErrorString); !s.ok()) return s;
  if (s = Load("cuModuleLoadData", &api.cuModuleLoadData); !s.ok()) return s;
  if (s = Load("cuModuleGetFunction", &api.cuModuleGetFunction); !s.ok()) return s;
  if (s = Load("cuLaunchKernel", &api.cuLaunchKernel); !s.ok()) return s;
  if (s = Load("cuFuncGetAttribute", &api.cuFuncGetAttribute); !s.ok()) return s;
  if (s = Load("cuFuncSetAttribute", &api.cuFuncSetAttribute); !s.ok()) return s;
  if (s = Load("cuLinkCreate", &api.cuLinkCreate); !s.ok()) return s;
  if (s = Load("cuLinkAddData", &api.cuLinkAddData); !s.ok()) return s;
  if (s = Load("cuLinkAddFile", &api.cuLinkAddFile); !s.ok()) return s;
  if (s = Load("cuLinkComplete", &api.cuLinkComplete); !s.ok()) return s;
  if (s = Load("cuLinkDestroy", &api.cuLinkDestroy); !s.ok()) return s;
  return api;
}

}  // namespace

absl::StatusOr<const DriverApi*> GetDriverApi() {
  // Function-local static: initialized once, thread-safe.
  static const absl::StatusOr<DriverApi>* const api = new absl::StatusOr<DriverApi>(LoadAll());
  if (!api->ok()) return api->status();
  return &**api;
}

}  // namespace cuda
}  // namespace arrayd
