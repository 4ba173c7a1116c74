// CudaStream's lifetime, Synchronize and Flush, and the lookup of generated
// kernels by body (the launch helpers themselves are inline in
// cuda_stream.h: every op takes them).
//
// Assumes: the device state (dev_) outlives the stream; the destructor
// waits for the stream's queued work before its pool blocks and handles go.
// Thread-safety: as CudaStream (one thread at a time); FunctionForBody
// takes the device's body_mu.
#include "backend/cuda/cuda_stream.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include "absl/strings/str_cat.h"
#include "backend/cuda/cublas_status.h"
#include "backend/cuda/solver_fft_status.h"
#include "common/status.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace cuda {

absl::Status TooManyDims(int nd) {
  return absl::UnimplementedError(
      absl::StrCat("the CUDA backend handles arrays of up to ", kMaxKernelDims,
                   " dimensions after merging contiguous ones; this operation has ", nd,
                   " (make the operands contiguous, e.g. with ascontiguousarray, first)"));
}

CudaStream::~CudaStream() {
  group_ = PendingGroup();  // a closing session's unlaunched ops are dropped
  if (cudaSetDevice(dev_->device) != cudaSuccess) return;
  // The shared pool may only get blocks no queued work still uses.
  if (FatalDeviceError().ok()) ARRAYD_CUDA_LOG_IF_ERROR(cudaStreamSynchronize(stream_));
  if (cublas_ != nullptr) {
    absl::Status s = ARRAYD_CUDA_STATUS_(CublasStatus, cublasDestroy(cublas_));
    if (!s.ok()) SPDLOG_WARN("{}", s.ToString());
  }
  if (solver_params_ != nullptr) {
    absl::Status s = ARRAYD_CUDA_STATUS_(CusolverStatus, cusolverDnDestroyParams(solver_params_));
    if (!s.ok()) SPDLOG_WARN("{}", s.ToString());
  }
  if (cusolver_ != nullptr) {
    absl::Status s = ARRAYD_CUDA_STATUS_(CusolverStatus, cusolverDnDestroy(cusolver_));
    if (!s.ok()) SPDLOG_WARN("{}", s.ToString());
  }
  dev_->allocator->RetireStream(id_);
  for (int b = 0; b < 2; ++b) {
    if (staging_[b] != nullptr) ARRAYD_CUDA_LOG_IF_ERROR(cudaFreeHost(staging_[b]));
    if (staged_[b] != nullptr) ARRAYD_CUDA_LOG_IF_ERROR(cudaEventDestroy(staged_[b]));
    if (ring_free_[b] != nullptr) ARRAYD_CUDA_LOG_IF_ERROR(cudaEventDestroy(ring_free_[b]));
  }
  if (ring_ != nullptr) ARRAYD_CUDA_LOG_IF_ERROR(cudaFreeHost(ring_));
  ARRAYD_CUDA_LOG_IF_ERROR(cudaStreamDestroy(stream_));
}

absl::Status CudaStream::Synchronize() {
  ARRAYD_RETURN_IF_ERROR(Enter());
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  return absl::OkStatus();
}

absl::Status CudaStream::Flush() { return Enter(); }

absl::StatusOr<bool> CudaStream::Query() {
  ARRAYD_RETURN_IF_ERROR(Enter());
  cudaError_t err = cudaStreamQuery(stream_);
  if (err == cudaErrorNotReady) return false;
  ARRAYD_CUDA_RETURN_IF_ERROR(err);
  return true;
}

absl::StatusOr<std::unique_ptr<Event>> CudaStream::CreateEvent(EventOptions options) {
  ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
  unsigned flags = (options.timing ? 0u : cudaEventDisableTiming) |
                   (options.blocking ? cudaEventBlockingSync : 0u);
  cudaEvent_t event = nullptr;
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, flags));
  return std::unique_ptr<Event>(new CudaEvent(dev_->device, event, options));
}

absl::Status CudaStream::Record(Event& event) {
  ARRAYD_RETURN_IF_ERROR(Enter());  // the held group is work before the record
  auto& e = static_cast<CudaEvent&>(event);
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventRecord(e.get(), stream_));
  e.set_recorded();
  return absl::OkStatus();
}

absl::Status CudaStream::Wait(Event& event) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  ARRAYD_CUDA_RETURN_IF_ERROR(
      cudaStreamWaitEvent(stream_, static_cast<CudaEvent&>(event).get(), 0));
  return absl::OkStatus();
}

void CudaStream::CachedBlocks(uint64_t* blocks, uint64_t* bytes) {
  dev_->allocator->CachedBlocks(id_, blocks, bytes);
}

absl::Status CudaStream::FreeCachedBlocks() {
  // Work queued here may still use blocks freed to this stream's pool.
  ARRAYD_RETURN_IF_ERROR(Synchronize());
  dev_->allocator->FreeCached(id_);
  return absl::OkStatus();
}

CudaEvent::~CudaEvent() {
  if (cudaSetDevice(device_) == cudaSuccess) ARRAYD_CUDA_LOG_IF_ERROR(cudaEventDestroy(event_));
}

absl::StatusOr<bool> CudaEvent::Query() {
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  cudaError_t err = cudaEventQuery(event_);
  if (err == cudaErrorNotReady) return false;
  ARRAYD_CUDA_RETURN_IF_ERROR(err);
  return true;
}

absl::Status CudaEvent::Synchronize() {
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(event_));
  return absl::OkStatus();
}

absl::StatusOr<double> CudaEvent::ElapsedSince(Event& start) {
  auto& s = static_cast<CudaEvent&>(start);
  if (!options_.timing || !s.options_.timing) {
    return absl::FailedPreconditionError("an event made with disable_timing has no time");
  }
  if (!recorded_ || !s.recorded_) {
    return absl::FailedPreconditionError("an event that was never recorded has no time");
  }
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  float ms = 0;
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, s.event_, event_));
  return static_cast<double>(ms);
}

absl::StatusOr<CUfunction> CudaStream::FunctionForBody(const std::string& body,
                                                       const std::string& name) {
  std::string key = absl::StrCat(name, "\n", body);
  {
    absl::MutexLock lock(&dev_->body_mu);
    auto it = dev_->by_body.find(key);
    if (it != dev_->by_body.end()) return it->second;
  }
  ARRAYD_ASSIGN_OR_RETURN(CUfunction fn, dev_->kernels->Get(BuildSource({body}), name));
  absl::MutexLock lock(&dev_->body_mu);
  dev_->by_body.emplace(std::move(key), fn);
  return fn;
}

}  // namespace cuda
}  // namespace arrayd
