#include "backend/cuda/caching_allocator.h"

#include <cuda_runtime_api.h>

#include "absl/strings/str_cat.h"
#include "backend/cuda/cuda_status.h"
#include "common/status.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace cuda {
namespace {

constexpr size_t kSmallGranule = 512;
constexpr size_t kSmallLimit = size_t{1} << 20;
constexpr size_t kLargeGranule = size_t{2} << 20;

}  // namespace

std::shared_ptr<CachingAllocator> CachingAllocator::Create(int device) {
  return std::shared_ptr<CachingAllocator>(new CachingAllocator(device));
}

CachingAllocator::~CachingAllocator() {
  // Buffers hold a reference to this allocator, so none is in use here.
  if (cudaSetDevice(device_) != cudaSuccess) return;  // e.g. at process exit
  for (auto& [stream, lists] : pools_) {
    for (auto& [bin, blocks] : lists) {
      for (void* p : blocks) cudaFree(p);
    }
  }
}

size_t CachingAllocator::RoundSize(size_t nbytes) {
  if (nbytes == 0) return kSmallGranule;
  if (nbytes <= kSmallLimit) return (nbytes + kSmallGranule - 1) / kSmallGranule * kSmallGranule;
  return (nbytes + kLargeGranule - 1) / kLargeGranule * kLargeGranule;
}

uint64_t CachingAllocator::RegisterStream() {
  absl::MutexLock lock(&mu_);
  uint64_t id = next_stream_id_++;
  live_streams_.insert(id);
  return id;
}

void CachingAllocator::RetireStream(uint64_t stream_id) {
  absl::MutexLock lock(&mu_);
  live_streams_.erase(stream_id);
  auto it = pools_.find(stream_id);
  if (it == pools_.end()) return;
  // Take the lists out before touching pools_ again: inserting the shared
  // pool may rehash the map and invalidate `it`.
  FreeLists retired = std::move(it->second);
  pools_.erase(it);
  FreeLists& shared = pools_[kSharedPool];
  for (auto& [bin, blocks] : retired) {
    std::vector<void*>& dst = shared[bin];
    dst.insert(dst.end(), blocks.begin(), blocks.end());
  }
}

void* CachingAllocator::TakeCached(size_t bin, uint64_t stream_id) {
  for (uint64_t pool : {stream_id, kSharedPool}) {
    auto it = pools_.find(pool);
    if (it == pools_.end()) continue;
    auto list = it->second.find(bin);
    if (list == it->second.end() || list->second.empty()) continue;
    void* p = list->second.back();
    list->second.pop_back();
    cached_ -= bin;
    return p;
  }
  return nullptr;
}

absl::StatusOr<std::shared_ptr<Buffer>> CachingAllocator::Allocate(size_t nbytes,
                                                                   uint64_t stream_id) {
  const size_t bin = RoundSize(nbytes);
  if (bin < nbytes)
    return OutOfMemoryError(absl::StrCat("Out of memory allocating ", nbytes, " bytes"));
  void* ptr = nullptr;
  {
    absl::MutexLock lock(&mu_);
    ptr = TakeCached(bin, stream_id);
    if (ptr != nullptr) in_use_ += bin;
  }
  if (ptr == nullptr) {
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
    cudaError_t err = cudaMalloc(&ptr, bin);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // not sticky: clear it
      FreeCached();
      err = cudaMalloc(&ptr, bin);
      if (err == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        absl::MutexLock lock(&mu_);
        return OutOfMemoryError(
            absl::StrCat("Out of memory allocating ", nbytes, " bytes on CUDA device ", device_,
                         " (in use by arrays: ", in_use_, " bytes, after freeing the cache)"));
      }
    }
    ARRAYD_RETURN_IF_ERROR(ARRAYD_CUDA_STATUS_(RuntimeStatus, err));
    absl::MutexLock lock(&mu_);
    in_use_ += bin;
  }
  std::shared_ptr<CachingAllocator> self = shared_from_this();
  return std::make_shared<Buffer>(
      ptr, nbytes, [self, bin, stream_id](void* p, size_t) { self->Release(p, bin, stream_id); });
}

void CachingAllocator::Release(void* ptr, size_t bin, uint64_t stream_id) {
  absl::MutexLock lock(&mu_);
  // A retired stream was synchronized: its blocks are free for any stream.
  const uint64_t pool = live_streams_.contains(stream_id) ? stream_id : kSharedPool;
  pools_[pool][bin].push_back(ptr);
  in_use_ -= bin;
  cached_ += bin;
}

void CachingAllocator::FreeCached() {
  absl::flat_hash_map<uint64_t, FreeLists> pools;
  {
    absl::MutexLock lock(&mu_);
    pools.swap(pools_);
    cached_ = 0;
  }
  if (cudaSetDevice(device_) != cudaSuccess) return;
  // Cached blocks of live streams may still be read by queued work.
  ARRAYD_CUDA_LOG_IF_ERROR(cudaDeviceSynchronize());
  size_t freed = 0;
  for (auto& [stream, lists] : pools) {
    for (auto& [bin, blocks] : lists) {
      for (void* p : blocks) {
        ARRAYD_CUDA_LOG_IF_ERROR(cudaFree(p));
        freed += bin;
      }
    }
  }
  SPDLOG_INFO("CUDA device {}: freed {} cached bytes", device_, freed);
}

void CachingAllocator::FreeCached(uint64_t stream_id) {
  FreeLists lists;
  {
    absl::MutexLock lock(&mu_);
    auto it = pools_.find(stream_id);
    if (it == pools_.end()) return;
    lists = std::move(it->second);
    pools_.erase(it);
    for (const auto& [bin, blocks] : lists) cached_ -= bin * blocks.size();
  }
  if (cudaSetDevice(device_) != cudaSuccess) return;
  for (auto& [bin, blocks] : lists) {
    for (void* p : blocks) ARRAYD_CUDA_LOG_IF_ERROR(cudaFree(p));
  }
}

void CachingAllocator::CachedBlocks(uint64_t stream_id, uint64_t* blocks, uint64_t* bytes) const {
  absl::MutexLock lock(&mu_);
  *blocks = 0;
  *bytes = 0;
  auto it = pools_.find(stream_id);
  if (it == pools_.end()) return;
  for (const auto& [bin, list] : it->second) {
    *blocks += list.size();
    *bytes += bin * list.size();
  }
}

uint64_t CachingAllocator::bytes_in_use() const {
  absl::MutexLock lock(&mu_);
  return in_use_;
}

uint64_t CachingAllocator::bytes_cached() const {
  absl::MutexLock lock(&mu_);
  return cached_;
}

}  // namespace cuda
}  // namespace arrayd
