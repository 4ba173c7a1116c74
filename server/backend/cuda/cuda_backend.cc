// The CUDA Backend: one device, its primary context, its caching pool and
// kernel cache (DeviceState), and CreateStream, which gives each session a
// non-blocking CUDA stream (CudaStream, cuda_stream.h). VisibleGpuCount and
// CreateCudaBackend never crash on a machine without a driver or GPU.
//
// Thread-safety: CudaBackend is thread-safe (CreateStream may run on any
// thread; the DeviceState it shares is); each stream is not.
#include "backend/cuda/cuda_backend.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend/cuda/caching_allocator.h"
#include "backend/cuda/cuda_status.h"
#include "backend/cuda/cuda_stream.h"
#include "backend/cuda/driver_api.h"
#include "backend/cuda/kernel_cache.h"
#include "common/status.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace cuda {

namespace {

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(std::shared_ptr<DeviceState> dev) : dev_(std::move(dev)) {}

  std::string name() const override { return "cuda"; }

  std::vector<DeviceDescription> Devices() const override {
    const cudaDeviceProp& p = dev_->props;
    DeviceDescription d;
    d.backend = "cuda";
    d.index = dev_->device;
    d.name = p.name;
    d.total_memory = static_cast<uint64_t>(p.totalGlobalMem);
    d.compute_major = p.major;
    d.compute_minor = p.minor;
    d.multiprocessor_count = p.multiProcessorCount;
    d.max_threads_per_block = p.maxThreadsPerBlock;
    d.warp_size = p.warpSize;
    d.shared_memory_per_block = static_cast<uint64_t>(p.sharedMemPerBlock);
    d.l2_cache_bytes = static_cast<uint64_t>(p.l2CacheSize);
    int clock = 0;
    if (cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, dev_->device) == cudaSuccess) {
      d.clock_rate_khz = clock;
    }
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof(bus), dev_->device) == cudaSuccess) d.pci_bus_id = bus;
    cudaGetLastError();
    return {d};
  }

  absl::StatusOr<std::unique_ptr<Stream>> CreateStream() override {
    ARRAYD_RETURN_IF_ERROR(FatalDeviceError());
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaSetDevice(dev_->device));
    cudaStream_t stream = nullptr;
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    return std::unique_ptr<Stream>(new CudaStream(dev_, stream, dev_->allocator->RegisterStream()));
  }

  absl::StatusOr<std::unique_ptr<Stream>> CreateStreamWithPriority(int priority) override {
    ARRAYD_RETURN_IF_ERROR(FatalDeviceError());
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaSetDevice(dev_->device));
    int least = 0, greatest = 0;  // greatest is the numerically lowest
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    priority = std::clamp(priority, greatest, least);
    cudaStream_t stream = nullptr;
    ARRAYD_CUDA_RETURN_IF_ERROR(
        cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, priority));
    return std::unique_ptr<Stream>(new CudaStream(dev_, stream, dev_->allocator->RegisterStream()));
  }

  absl::Status Health() const override { return FatalDeviceError(); }
  void PoolBytes(uint64_t* in_use, uint64_t* cached) const override {
    *in_use = dev_->allocator->bytes_in_use();
    *cached = dev_->allocator->bytes_cached();
  }

 private:
  std::shared_ptr<DeviceState> dev_;
};

}  // namespace

int VisibleGpuCount(std::string* reason) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (reason != nullptr) {
      *reason = absl::StrCat(cudaGetErrorName(err), ": ", cudaGetErrorString(err));
    }
    return 0;
  }
  if (count == 0 && reason != nullptr) *reason = "the CUDA driver reports no device";
  return count;
}

absl::StatusOr<std::unique_ptr<Backend>> CreateCudaBackend(int device) {
  auto dev = std::make_shared<DeviceState>();
  dev->device = device;
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaFree(nullptr));  // creates the primary context now
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&dev->props, device));
  dev->sm_count = std::max(1, dev->props.multiProcessorCount);
  ARRAYD_RETURN_IF_ERROR(GetDriverApi().status());
  const std::string arch = ArchName(dev->props.major, dev->props.minor);
  const std::string disk = DefaultDiskCacheDir();
  dev->allocator = CachingAllocator::Create(device);
  dev->kernels = std::make_unique<KernelCache>(arch, disk);
  spdlog::info("CUDA device {}: {} ({}, {} SMs, {} MiB), NVRTC {}, kernel cache {}", device,
               dev->props.name, arch, dev->sm_count, dev->props.totalGlobalMem >> 20,
               NvrtcVersion(), disk.empty() ? "in memory only" : disk);
  return std::unique_ptr<Backend>(new CudaBackend(std::move(dev)));
}

}  // namespace cuda
}  // namespace arrayd
