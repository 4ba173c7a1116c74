// CudaStream's memory: Allocate (the device's caching pool, per stream) and
// the copies between host and device memory, through two pinned staging
// buffers per stream (made on first use) or directly for small copies and
// for host memory pinned by RegisterHostMemory.
//
// Assumes: copy views are C-contiguous (the callers make them so); the host
// side stays valid until the call returns, and both copies are complete
// then (CopyToHost waits for the data; CopyFromHost has either finished
// its DMA or copied the source into pinned memory that the DMA reads later,
// in stream order).
// Thread-safety: as CudaStream (one thread at a time).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

#include "backend/cuda/cuda_status.h"
#include "backend/cuda/cuda_stream.h"
#include "common/status.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace cuda {

namespace {

// Pinned staging for host <-> device copies of pageable memory: two buffers
// per stream, so the host memcpy of one chunk overlaps the DMA of the other.
constexpr size_t kStagingBytes = size_t{8} << 20;
// Below this, an upload goes directly (cudaMemcpyAsync + synchronize).
// Downloads of any size go through staging: a pageable device-to-host copy
// is staged by the driver anyway, and float() of one value cost 15 us more
// on a CUDA server than on a CPU server with direct copies (RESULTS.md).
constexpr size_t kDirectCopyBytes = size_t{64} << 10;
// Uploads up to kRingMaxHalf (the client's largest inline upload) are
// copied into a pinned ring of two halves and their DMA queued on the
// stream, with no sync: an upload between two kernels (a gather's indices,
// a filter's taps) does not wait for the kernels queued before it. A half
// is reused once the DMAs queued from it are done (its event, recorded when
// the ring leaves it). The ring starts small and grows to the largest
// upload seen, so a session that uploads little pins little.
constexpr size_t kRingMinHalf = size_t{64} << 10;
constexpr size_t kRingMaxHalf = size_t{1} << 20;
constexpr size_t kRingAlign = 256;

}  // namespace

absl::StatusOr<std::shared_ptr<Buffer>> CudaStream::Allocate(size_t nbytes) {
  ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
  return dev_->allocator->Allocate(nbytes, id_);
}

absl::Status CudaStream::MemoryInfo(uint64_t* free, uint64_t* total) {
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaSetDevice(dev_->device));
  size_t f = 0, t = 0;
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&f, &t));
  *free = f;
  *total = t;
  return absl::OkStatus();
}

absl::Status CudaStream::RegisterHostMemory(void* data, size_t n) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaHostRegister(data, n, cudaHostRegisterDefault));
  absl::MutexLock lock(&dev_->host_mu);
  dev_->registered.push_back({static_cast<const char*>(data), n});
  return absl::OkStatus();
}

void CudaStream::UnregisterHostMemory(void* data) {
  if (!Enter().ok()) return;
  absl::MutexLock lock(&dev_->host_mu);
  auto& ranges = dev_->registered;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i].first == data) {
      ARRAYD_CUDA_LOG_IF_ERROR(cudaHostUnregister(data));
      ranges.erase(ranges.begin() + static_cast<long>(i));
      return;
    }
  }
}

bool CudaStream::IsRegistered(const void* p, size_t n) const {
  const char* c = static_cast<const char*>(p);
  absl::MutexLock lock(&dev_->host_mu);
  for (const auto& [base, size] : dev_->registered) {
    if (c >= base && c + n <= base + size) return true;
  }
  return false;
}

bool CudaStream::EnsureStaging() {
  if (staging_[0] != nullptr) return true;
  if (staging_failed_) return false;
  for (int b = 0; b < 2; ++b) {
    absl::Status s =
        ARRAYD_CUDA_STATUS_(RuntimeStatus, cudaMallocHost(&staging_[b], kStagingBytes));
    if (s.ok()) {
      s = ARRAYD_CUDA_STATUS_(RuntimeStatus,
                              cudaEventCreateWithFlags(&staged_[b], cudaEventDisableTiming));
    }
    if (!s.ok()) {
      SPDLOG_WARN("no pinned staging memory, host copies go direct: {}", s.ToString());
      staging_failed_ = true;
      return false;
    }
  }
  return true;
}

bool CudaStream::EnsureRing(size_t n) {
  if (ring_failed_ || n > kRingMaxHalf) return false;
  if (ring_ != nullptr && n <= ring_half_bytes_) return true;
  size_t half = std::max(kRingMinHalf, ring_half_bytes_);
  while (half < n) half *= 2;
  if (ring_ != nullptr) {
    // Growing: the DMAs of the old ring must be done before it is freed.
    if (!ARRAYD_CUDA_STATUS_(RuntimeStatus, cudaStreamSynchronize(stream_)).ok()) return false;
    ARRAYD_CUDA_LOG_IF_ERROR(cudaFreeHost(ring_));
    ring_ = nullptr;
  }
  absl::Status s = ARRAYD_CUDA_STATUS_(RuntimeStatus, cudaMallocHost(&ring_, 2 * half));
  for (int h = 0; h < 2 && s.ok(); ++h) {
    if (ring_free_[h] != nullptr) continue;
    s = ARRAYD_CUDA_STATUS_(RuntimeStatus,
                            cudaEventCreateWithFlags(&ring_free_[h], cudaEventDisableTiming));
  }
  if (!s.ok()) {
    SPDLOG_WARN("no pinned upload ring, small uploads synchronize: {}", s.ToString());
    if (ring_ != nullptr) ARRAYD_CUDA_LOG_IF_ERROR(cudaFreeHost(ring_));
    ring_ = nullptr;
    ring_failed_ = true;
    return false;
  }
  ring_half_bytes_ = half;
  ring_half_ = 0;
  ring_used_ = 0;
  return true;
}

absl::Status CudaStream::CopyThroughRing(const char* s, char* d, size_t n) {
  if (ring_used_ + n > ring_half_bytes_) {
    // Leave this half (its DMAs are all queued before the event) and wait
    // for the other half's last DMAs; an event never recorded is complete.
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventRecord(ring_free_[ring_half_], stream_));
    ring_half_ ^= 1;
    ring_used_ = 0;
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(ring_free_[ring_half_]));
  }
  char* slot = static_cast<char*>(ring_) + ring_half_ * ring_half_bytes_ + ring_used_;
  std::memcpy(slot, s, n);
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(d, slot, n, cudaMemcpyHostToDevice, stream_));
  ring_used_ += (n + kRingAlign - 1) / kRingAlign * kRingAlign;
  return absl::OkStatus();
}

absl::Status CudaStream::CopyFromHost(const void* src, const View& dst) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  const size_t n = static_cast<size_t>(dst.nbytes());
  if (n == 0) return absl::OkStatus();
  if (!dst.IsCContiguous()) return absl::InternalError("CopyFromHost needs a C-contiguous view");
  char* d = dst.data();
  const char* s = static_cast<const char*>(src);
  const bool registered = IsRegistered(s, n);
  if (!registered && EnsureRing(n)) return CopyThroughRing(s, d, n);
  if (n < kDirectCopyBytes || registered || !EnsureStaging()) {
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(d, s, n, cudaMemcpyHostToDevice, stream_));
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    return absl::OkStatus();
  }
  // Chunk c goes through staging_[c % 2]; before refilling a buffer, wait
  // for the DMA that last read it.
  for (size_t off = 0, c = 0; off < n; off += kStagingBytes, ++c) {
    const size_t len = std::min(kStagingBytes, n - off);
    const int b = static_cast<int>(c % 2);
    if (c >= 2) ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(staged_[b]));
    std::memcpy(staging_[b], s + off, len);
    ARRAYD_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(d + off, staging_[b], len, cudaMemcpyHostToDevice, stream_));
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventRecord(staged_[b], stream_));
  }
  // The caller may free `src` (and we may reuse staging) once this returns.
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  return absl::OkStatus();
}

absl::Status CudaStream::CopyToHost(const View& src, void* dst) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  const size_t n = static_cast<size_t>(src.nbytes());
  if (n == 0) return absl::OkStatus();
  if (!src.IsCContiguous()) return absl::InternalError("CopyToHost needs a C-contiguous view");
  const char* s = src.data();
  char* d = static_cast<char*>(dst);
  if (IsRegistered(d, n) || !EnsureStaging()) {
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(d, s, n, cudaMemcpyDeviceToHost, stream_));
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    return absl::OkStatus();
  }
  const size_t chunks = (n + kStagingBytes - 1) / kStagingBytes;
  auto issue = [&](size_t c) -> absl::Status {
    const size_t off = c * kStagingBytes, len = std::min(kStagingBytes, n - off);
    const int b = static_cast<int>(c % 2);
    ARRAYD_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(staging_[b], s + off, len, cudaMemcpyDeviceToHost, stream_));
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventRecord(staged_[b], stream_));
    return absl::OkStatus();
  };
  // The DMA of chunk c+1 runs while the host copies chunk c out.
  ARRAYD_RETURN_IF_ERROR(issue(0));
  for (size_t c = 0; c < chunks; ++c) {
    if (c + 1 < chunks) ARRAYD_RETURN_IF_ERROR(issue(c + 1));
    const int b = static_cast<int>(c % 2);
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(staged_[b]));
    const size_t off = c * kStagingBytes, len = std::min(kStagingBytes, n - off);
    std::memcpy(d + off, staging_[b], len);
  }
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace arrayd
