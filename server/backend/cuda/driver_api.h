// The few CUDA driver API functions the backend needs (module loading and
// linking, kernel attributes and launch), fetched at run time through the runtime's
// cudaGetDriverEntryPointByVersion. Linking libcuda directly would stop the
// binary from starting on machines without an NVIDIA driver; this way only
// the CUDA backend fails there, with a Status.
#ifndef ARRAYD_BACKEND_CUDA_DRIVER_API_H_
#define ARRAYD_BACKEND_CUDA_DRIVER_API_H_

#include <cuda.h>

#include "absl/status/statusor.h"

namespace arrayd {
namespace cuda {

struct DriverApi {
  // decltype of the declarations in cuda.h: no symbol is referenced.
  decltype(&::cuGetErrorName) cuGetErrorName = nullptr;
  decltype(&::cuGetErrorString) cuGetErrorString = nullptr;
  decltype(&::cuModuleLoadData) cuModuleLoadData = nullptr;
  decltype(&::cuModuleGetFunction) cuModuleGetFunction = nullptr;
  decltype(&::cuLaunchKernel) cuLaunchKernel = nullptr;
  decltype(&::cuFuncGetAttribute) cuFuncGetAttribute = nullptr;
  decltype(&::cuFuncSetAttribute) cuFuncSetAttribute = nullptr;
  // Linking relocatable device code (dynamic parallelism) with libcudadevrt.
  decltype(&::cuLinkCreate) cuLinkCreate = nullptr;
  decltype(&::cuLinkAddData) cuLinkAddData = nullptr;
  decltype(&::cuLinkAddFile) cuLinkAddFile = nullptr;
  decltype(&::cuLinkComplete) cuLinkComplete = nullptr;
  decltype(&::cuLinkDestroy) cuLinkDestroy = nullptr;
};

// The table, loaded once (thread-safe); an error when the driver is absent
// or too old. The pointer stays valid for the life of the process.
absl::StatusOr<const DriverApi*> GetDriverApi();

}  // namespace cuda
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_DRIVER_API_H_
