// The device memory pool of the CUDA backend, like CuPy's: blocks are
// rounded to size bins and cached after use instead of being cudaFree'd,
// in a free list per stream (a block freed goes back to the pool of the
// stream it was allocated on, so reusing it is ordered after the work that
// used it). When a stream is retired (synchronized and destroyed) its free
// blocks move to a shared pool usable by every stream. When cudaMalloc
// fails, every cached block is freed and the allocation retried once.
#ifndef ARRAYD_BACKEND_CUDA_CACHING_ALLOCATOR_H_
#define ARRAYD_BACKEND_CUDA_CACHING_ALLOCATOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "array/view.h"

namespace arrayd {
namespace cuda {

// Thread-safe. Held by shared_ptr: every Buffer it hands out keeps it alive,
// so a Buffer may be released from any thread, after its stream and even
// its backend are gone.
class CachingAllocator : public std::enable_shared_from_this<CachingAllocator> {
 public:
  static std::shared_ptr<CachingAllocator> Create(int device);
  ~CachingAllocator();  // cudaFree's every cached block

  // Bin size of a request: small sizes round up to 512 B, large ones
  // (over 1 MiB) to 2 MiB multiples. Zero bytes get a 512 B block.
  static size_t RoundSize(size_t nbytes);

  // A new stream id for the per-stream pools.
  uint64_t RegisterStream();
  // Moves the stream's free blocks to the shared pool. The caller has
  // synchronized the stream: nothing queued on it may still use them.
  void RetireStream(uint64_t stream_id);

  // `nbytes` of device memory for work on stream `stream_id`.
  // RESOURCE_EXHAUSTED (MemoryError kind) when even an empty cache does not help.
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t nbytes, uint64_t stream_id);

  // Frees every cached (unused) block after a device synchronize.
  void FreeCached();
  // Frees the blocks cached for `stream_id`; the caller has synchronized
  // that stream.
  void FreeCached(uint64_t stream_id);
  // The count and bytes of the blocks cached for `stream_id`.
  void CachedBlocks(uint64_t stream_id, uint64_t* blocks, uint64_t* bytes) const;

  uint64_t bytes_in_use() const;
  uint64_t bytes_cached() const;

 private:
  explicit CachingAllocator(int device) : device_(device) {}
  using FreeLists = std::map<size_t, std::vector<void*>>;  // bin size -> blocks
  static constexpr uint64_t kSharedPool = 0;

  void Release(void* ptr, size_t bin, uint64_t stream_id);
  // Takes a cached block of `bin` bytes for `stream_id`, or nullptr.
  void* TakeCached(size_t bin, uint64_t stream_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int device_;
  mutable absl::Mutex mu_;
  uint64_t next_stream_id_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_set<uint64_t> live_streams_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, FreeLists> pools_ ABSL_GUARDED_BY(mu_);
  uint64_t in_use_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t cached_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace cuda
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_CACHING_ALLOCATOR_H_
