// CudaStream's user kernels (RawModule, RawKernel, and the kernels the
// Python client generates for ElementwiseKernel, ReductionKernel and fuse):
// modules come from the device's KernelCache (compiled once for the whole
// server, kept on disk), launches are checked against the kernel's limits
// first, so that a bad launch is a clear error and not a CUDA one.
//
// A kernel that faults (an illegal address) is a sticky error: the CUDA
// context is lost for every session, and cuda_status.cc's fatal path makes
// the server answer UNAVAILABLE and exit with code 70 for its supervisor.
// Thread-safety: as CudaStream (one thread at a time).
#include <string>

#include "absl/strings/str_cat.h"
#include "backend/cuda/cuda_stream.h"
#include "common/status.h"

namespace arrayd {
namespace cuda {

absl::StatusOr<std::shared_ptr<KernelModule>> CudaStream::LoadModule(const KernelModuleSpec& spec,
                                                                     ModuleOrigin* origin) {
  ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<CudaModule> module,
                          dev_->kernels->GetUserModule(spec, origin));
  return std::shared_ptr<KernelModule>(std::move(module));
}

absl::StatusOr<KernelAttributes> CudaStream::GetKernelAttributes(KernelModule& module,
                                                                 const std::string& name) {
  ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
  ARRAYD_ASSIGN_OR_RETURN(CUfunction fn, static_cast<CudaModule&>(module).Function(name));
  ARRAYD_ASSIGN_OR_RETURN(const DriverApi* api, GetDriverApi());
  KernelAttributes a;
  const std::pair<int*, CUfunction_attribute> fields[] = {
      {&a.max_threads_per_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
      {&a.num_regs, CU_FUNC_ATTRIBUTE_NUM_REGS},
      {&a.shared_size_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES},
      {&a.const_size_bytes, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES},
      {&a.local_size_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES},
      {&a.ptx_version, CU_FUNC_ATTRIBUTE_PTX_VERSION},
      {&a.binary_version, CU_FUNC_ATTRIBUTE_BINARY_VERSION},
      {&a.max_dynamic_shared_size_bytes, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES},
      {&a.preferred_shared_memory_carveout, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT},
      {&a.cache_mode_ca, CU_FUNC_ATTRIBUTE_CACHE_MODE_CA},
  };
  for (const auto& [field, attribute] : fields) {
    ARRAYD_CU_RETURN_IF_ERROR(api->cuFuncGetAttribute(field, attribute, fn));
  }
  return a;
}

absl::Status CudaStream::LaunchKernel(KernelModule& module, const std::string& name,
                                      const LaunchDims& dims, void** args) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  ARRAYD_ASSIGN_OR_RETURN(CUfunction fn, static_cast<CudaModule&>(module).Function(name));
  ARRAYD_ASSIGN_OR_RETURN(const DriverApi* api, GetDriverApi());
  const cudaDeviceProp& p = dev_->props;
  const long long threads = 1LL * dims.block[0] * dims.block[1] * dims.block[2];
  for (int d = 0; d < 3; ++d) {
    if (dims.grid[d] == 0 || dims.block[d] == 0) {
      return ValueError(absl::StrCat("kernel '", name,
                                     "': grid and block dimensions must be "
                                     "positive (got grid (",
                                     dims.grid[0], ", ", dims.grid[1], ", ", dims.grid[2],
                                     "), block (", dims.block[0], ", ", dims.block[1], ", ",
                                     dims.block[2], "))"));
    }
    if (dims.grid[d] > static_cast<unsigned>(p.maxGridSize[d]) ||
        dims.block[d] > static_cast<unsigned>(p.maxThreadsDim[d])) {
      return ValueError(absl::StrCat("kernel '", name, "': grid or block dimension ", d,
                                     " is larger than the device allows (grid ", p.maxGridSize[d],
                                     ", block ", p.maxThreadsDim[d], ")"));
    }
  }
  int max_threads = 0, static_shared = 0, max_dynamic = 0;
  ARRAYD_CU_RETURN_IF_ERROR(
      api->cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn));
  if (threads > max_threads) {
    return ValueError(absl::StrCat("kernel '", name, "': a block of ", threads,
                                   " threads is more than the kernel allows (", max_threads,
                                   ", its max_threads_per_block)"));
  }
  ARRAYD_CU_RETURN_IF_ERROR(
      api->cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn));
  ARRAYD_CU_RETURN_IF_ERROR(
      api->cuFuncGetAttribute(&max_dynamic, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fn));
  if (dims.shared_mem > static_cast<unsigned>(max_dynamic)) {
    // Up to the device's opt-in limit, raised for this kernel as CUDA asks.
    const long long optin = static_cast<long long>(p.sharedMemPerBlockOptin) - static_shared;
    if (static_cast<long long>(dims.shared_mem) > optin) {
      return ValueError(absl::StrCat("kernel '", name, "': shared_mem of ", dims.shared_mem,
                                     " bytes is more than the device gives a block (", optin,
                                     " beside the kernel's ", static_shared, " static bytes)"));
    }
    ARRAYD_CU_RETURN_IF_ERROR(api->cuFuncSetAttribute(
        fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(dims.shared_mem)));
  }
  ARRAYD_CU_RETURN_IF_ERROR(api->cuLaunchKernel(fn, dims.grid[0], dims.grid[1], dims.grid[2],
                                                dims.block[0], dims.block[1], dims.block[2],
                                                dims.shared_mem, stream_, args, nullptr));
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace arrayd
