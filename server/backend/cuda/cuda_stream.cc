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
  }
  ARRAYD_CUDA_LOG_IF_ERROR(cudaStreamDestroy(stream_));
}

absl::Status CudaStream::Synchronize() {
  ARRAYD_RETURN_IF_ERROR(Enter());
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  return absl::OkStatus();
}

absl::Status CudaStream::Flush() { return Enter(); }

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
