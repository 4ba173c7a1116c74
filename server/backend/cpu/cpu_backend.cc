#include "backend/cpu/cpu_backend.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/status.h"

namespace arrayd {
namespace cpu {
namespace {

// Work on a CPU stream is done when its call returns, so an event is done
// when recorded; its time is the host's clock at the record.
class CpuEvent : public Event {
 public:
  explicit CpuEvent(EventOptions options) : options_(options) {}
  void Mark() {
    recorded_ = true;
    at_ = std::chrono::steady_clock::now();
  }
  absl::StatusOr<bool> Query() override { return true; }
  absl::Status Synchronize() override { return absl::OkStatus(); }
  absl::StatusOr<double> ElapsedSince(Event& start) override {
    auto& s = static_cast<CpuEvent&>(start);
    if (!options_.timing || !s.options_.timing) {
      return absl::FailedPreconditionError("an event made with disable_timing has no time");
    }
    if (!recorded_ || !s.recorded_) {
      return absl::FailedPreconditionError("an event that was never recorded has no time");
    }
    return std::chrono::duration<double, std::milli>(at_ - s.at_).count();
  }

 private:
  const EventOptions options_;
  bool recorded_ = false;
  std::chrono::steady_clock::time_point at_;
};

// Freed blocks of 1 MiB or more that a stream keeps for its next
// allocations of the same size class (sizes rounded up by at most 1/8):
// fresh pages cost a fault and a zeroing each, which took 40% of a 16 MiB
// concatenate's time, where NumPy's allocator reuses its heap. Per stream,
// that is per session, so that no session gets another's data; at most
// kMaxCachedBytes a stream and, over all streams, a sixteenth of the
// backend's memory limit (the cache is host memory beyond the limit: a
// thousand sessions that each once made a large array must not keep it
// all); thread-safe (buffers are freed on any thread).
class HostPool {
 public:
  static constexpr size_t kMinBytes = size_t{1} << 20;
  static constexpr uint64_t kMaxCachedBytes = uint64_t{1} << 30;

  HostPool(std::atomic<uint64_t>* backend_cached, uint64_t backend_cap)
      : backend_cached_(backend_cached), backend_cap_(backend_cap) {}
  ~HostPool() { Release(); }

  // The size allocated for a request of n bytes (n itself below kMinBytes).
  static size_t SizeClass(size_t n) {
    if (n < kMinBytes) return n == 0 ? 64 : n;
    size_t step = size_t{1} << (63 - __builtin_clzll(n) - 3);
    return (n + step - 1) / step * step;
  }
  // A cached block of `size` (a SizeClass), or null.
  void* Take(size_t size) {
    if (size < kMinBytes) return nullptr;
    absl::MutexLock lock(&mu_);
    auto it = free_.find(size);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    Uncount(size);
    return p;
  }
  // Keeps a block of `size` for later, or frees it when over the cap. The
  // newest block is the likeliest to be asked for again (a loop's
  // temporary): cached blocks of other sizes make room for it.
  void Give(void* p, size_t size) {
    std::vector<void*> evicted;
    if (size >= kMinBytes && size <= kMaxCachedBytes) {
      absl::MutexLock lock(&mu_);
      while (bytes_ + size > kMaxCachedBytes && EvictOne(&evicted)) {
      }
      // Counted first, so that streams freeing at once cannot pass the cap.
      if (backend_cached_->fetch_add(size) + size <= backend_cap_) {
        free_[size].push_back(p);
        bytes_ += size;
        p = nullptr;
      } else {
        backend_cached_->fetch_sub(size);
      }
    }
    for (void* q : evicted) std::free(q);  // (unmapping outside the lock)
    std::free(p);
  }
  void Release() {
    absl::MutexLock lock(&mu_);
    for (auto& [size, blocks] : free_) {
      for (void* p : blocks) std::free(p);
      Uncount(size * blocks.size());
    }
    free_.clear();
  }
  void Cached(uint64_t* blocks, uint64_t* bytes) {
    absl::MutexLock lock(&mu_);
    *blocks = 0;
    for (const auto& [size, list] : free_) *blocks += list.size();
    *bytes = bytes_;
  }

 private:
  // Moves one cached block (the largest class's) to `out`; false if none.
  bool EvictOne(std::vector<void*>* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto victim = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (!it->second.empty() && (victim == free_.end() || it->first > victim->first)) victim = it;
    }
    if (victim == free_.end()) return false;
    out->push_back(victim->second.back());
    victim->second.pop_back();
    Uncount(victim->first);
    return true;
  }
  void Uncount(uint64_t n) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    bytes_ -= n;
    backend_cached_->fetch_sub(n);
  }

  std::atomic<uint64_t>* const backend_cached_;
  const uint64_t backend_cap_;
  absl::Mutex mu_;
  absl::flat_hash_map<size_t, std::vector<void*>> free_ ABSL_GUARDED_BY(mu_);
  uint64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

constexpr size_t kHugePageBytes = size_t{2} << 20;
constexpr size_t kHugeBlockBytes = size_t{8} << 20;

class CpuStream : public Stream {
 public:
  CpuStream(std::atomic<uint64_t>* in_use, std::atomic<uint64_t>* cached, uint64_t limit)
      : in_use_(in_use), limit_(limit), pool_(std::make_shared<HostPool>(cached, limit / 16)) {}

  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t nbytes) override {
    uint64_t before = in_use_->fetch_add(nbytes);
    if (before + nbytes > limit_ || before + nbytes < before) {
      in_use_->fetch_sub(nbytes);
      return OutOfMemoryError(absl::StrCat("Out of memory allocating ", nbytes,
                                           " bytes (allocated so far: ", before, " bytes, limit ",
                                           limit_, " bytes)"));
    }
    const size_t size = HostPool::SizeClass(nbytes);
    void* p = pool_->Take(size);
    if (p == nullptr) {
      // Large blocks on transparent huge pages where the kernel has them
      // (madvise mode): a 256 MiB output's first touch faulted 65,536
      // times, over half of a large copy's time.
      const bool huge = size >= kHugeBlockBytes;
      if (posix_memalign(&p, huge ? kHugePageBytes : 64, size) != 0) {
        in_use_->fetch_sub(nbytes);
        return OutOfMemoryError(absl::StrCat("Out of memory allocating ", nbytes, " bytes"));
      }
      if (huge) (void)madvise(p, size, MADV_HUGEPAGE);
    }
    std::atomic<uint64_t>* in_use = in_use_;
    return std::make_shared<Buffer>(p, nbytes, [in_use, pool = pool_, size](void* data, size_t n) {
      pool->Give(data, size);
      in_use->fetch_sub(n);
    });
  }

  void CachedBlocks(uint64_t* blocks, uint64_t* bytes) override { pool_->Cached(blocks, bytes); }
  absl::Status FreeCachedBlocks() override {
    pool_->Release();
    return absl::OkStatus();
  }

  absl::Status MemoryInfo(uint64_t* free, uint64_t* total) override {
    const uint64_t used = in_use_->load();
    *total = limit_;
    *free = used < limit_ ? limit_ - used : 0;
    return absl::OkStatus();
  }

  absl::Status CopyFromHost(const void* src, const View& dst) override {
    if (dst.nbytes() > 0) std::memcpy(dst.data(), src, dst.nbytes());
    return absl::OkStatus();
  }
  absl::Status CopyToHost(const View& src, void* dst) override {
    if (src.nbytes() > 0) std::memcpy(dst, src.data(), src.nbytes());
    return absl::OkStatus();
  }
  absl::Status Fill(const View& out, const Scalar& value) override { return CpuFill(out, value); }
  absl::Status Iota(const View& out, const Scalar& start, const Scalar& step) override {
    return CpuIota(out, start, step);
  }
  absl::Status Copy(const View& src, const View& dst) override { return CpuCopy(src, dst); }
  absl::Status Unary(kernels::UnaryOp op, const View& in, const View& out) override {
    return CpuUnary(op, in, out);
  }
  absl::Status Binary(kernels::BinaryOp op, const View& a, const View& b,
                      const View& out) override {
    return CpuBinary(op, a, b, out);
  }
  absl::Status Fused(absl::Span<const FusedStep> steps, absl::Span<const View> leaves,
                     const View& out) override {
    return CpuFused(steps, leaves, out);
  }
  absl::Status Reduce(kernels::ReduceOp op, const View& in, absl::Span<const int> axes,
                      const View& out) override {
    return CpuReduce(op, in, axes, out);
  }
  absl::Status ReduceAs(kernels::ReduceOp op, const View& in, DType as, absl::Span<const int> axes,
                        const View& out) override {
    return CpuReduceAs(op, in, as, axes, out);
  }
  absl::Status ArgReduce(kernels::ArgReduceOp op, const View& in, int axis,
                         const View& out) override {
    return CpuArgReduce(op, in, axis, out);
  }
  absl::Status Where(const View& cond, const View& x, const View& y, const View& out) override {
    return CpuWhere(cond, x, y, out);
  }
  absl::Status Gather(const View& in, const View& index, const View& out) override {
    return CpuGather(in, index, out);
  }
  absl::Status TakeChecked(const View& x, const View& index, int axis, const View& out) override {
    return CpuTakeChecked(x, index, axis, out);
  }
  absl::Status WrapIndex(const View& index, int64_t n, int axis, const View& out) override {
    return CpuWrapIndex(index, n, axis, out);
  }
  absl::Status Scatter(const View& values, const View& index, const View& target) override {
    return CpuScatter(values, index, target);
  }
  absl::Status Nonzero(const View& mask, const View& out) override { return CpuNonzero(mask, out); }
  absl::Status SearchSorted(const View& a, const View& v, bool right, const View& out) override {
    return CpuSearchSorted(a, v, right, out);
  }
  absl::Status Bincount(const View& x, const View* weights, const View& out) override {
    return CpuBincount(x, weights, out);
  }
  absl::Status Histogram(const View& a, const View& edges, const View* weights,
                         const View& out) override {
    return CpuHistogram(a, edges, weights, out);
  }
  absl::Status Sort(const View& in, const View* out, const View* indices) override {
    return CpuSort(in, out, indices, [this](size_t bytes) { return Allocate(bytes); });
  }
  absl::Status Partition(const View& in, const View* out, const View* indices,
                         absl::Span<const int64_t> kth) override {
    return CpuPartition(in, out, indices, kth);
  }
  absl::Status Scan(kernels::BinaryOp op, const View& a) override { return CpuScan(op, a); }
  absl::Status Stencil(const View& in, absl::Span<const int64_t> taps, const View* weights,
                       int64_t rank, const View& out,
                       const StencilBoundary* boundary) override {
    return CpuStencil(in, taps, weights, rank, out, boundary);
  }
  absl::Status SplineFilter(const View& x, const kernels::SplinePoles& poles,
                            const View& out) override {
    return CpuSplineFilter(x, poles, out);
  }
  absl::Status Resample(const View& x, const View& index, const View& w,
                        const View& out) override {
    return CpuResample(x, index, w, out);
  }
  absl::Status MapCoordinates(const View& coeffs, const View& coords,
                              const kernels::InterpParams& p, const View& out) override {
    return CpuMapCoordinates(coeffs, coords, p, out);
  }
  absl::Status Pad(const View& in, absl::Span<const int64_t> lo, kernels::Boundary mode,
                   double cval, const View& out) override {
    return CpuPad(in, lo, mode, cval, out);
  }
  absl::Status LinearFilter(const View& b, const View& a, const View& x, const View* zi,
                            const View& y, const View& zf) override {
    return CpuLinearFilter(b, a, x, zi, y, zf);
  }
  absl::Status Label(const View& mask, absl::Span<const int64_t> neighbors, const View& labels,
                     const View& count) override {
    return CpuLabel(mask, neighbors, labels, count);
  }
  absl::Status Matmul(const View& a, const View& b, const View& out) override {
    return CpuMatmul(a, b, out);
  }
  absl::Status LuFactor(const View& a, const View& pivots, const View& info) override {
    return CpuLuFactor(a, pivots, info);
  }
  absl::Status LuSolve(const View& lu, const View& pivots, const View& b) override {
    return CpuLuSolve(lu, pivots, b);
  }
  absl::Status Cholesky(const View& a, const View& info) override { return CpuCholesky(a, info); }
  absl::Status Qr(const View& a, const View& q, const View& r) override { return CpuQr(a, q, r); }
  absl::Status Svd(const View& a, const View& s, const View* u, const View* vh,
                   const View& info) override {
    return CpuSvd(a, s, u, vh, info);
  }
  absl::Status Eigh(const View& a, const View& w, const View* v, const View& info) override {
    return CpuEigh(a, w, v, info);
  }
  absl::Status Eig(const View& a, const View& w, const View* v, const View& info) override {
    return CpuEig(a, w, v, info);
  }
  absl::Status Fft(const View& in, const View& out, int rank, bool inverse) override {
    return CpuFft(in, out, rank, inverse);
  }
  absl::Status Rfft(const View& in, const View& out, int rank) override {
    return CpuRfft(in, out, rank);
  }
  absl::Status Irfft(const View& in, const View& out, double scale) override {
    return CpuIrfft(in, out, scale);
  }
  absl::Status Random(RandomDist dist, uint64_t key, uint64_t counter, const View& out) override {
    return CpuRandom(dist, key, counter, out);
  }
  absl::Status Synchronize() override { return absl::OkStatus(); }

  // A misaligned load is undefined behaviour in C++ too (x86 forgives it,
  // UBSan and other CPUs do not): the session hands over aligned copies.
  bool RequiresAlignedViews() const override { return true; }
  absl::StatusOr<std::unique_ptr<Event>> CreateEvent(EventOptions options) override {
    return std::unique_ptr<Event>(new CpuEvent(options));
  }
  // Every stream's work is done in order on its caller's thread: a record
  // is a time, a wait has nothing to wait for.
  absl::Status Record(Event& event) override {
    static_cast<CpuEvent&>(event).Mark();
    return absl::OkStatus();
  }
  absl::Status Wait(Event& /*event*/) override { return absl::OkStatus(); }

 private:
  std::atomic<uint64_t>* in_use_;
  uint64_t limit_;
  std::shared_ptr<HostPool> pool_;  // buffers hold it too: they may outlive the stream
};

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(uint64_t limit) : limit_(limit) {}
  std::string name() const override { return "cpu"; }
  std::vector<DeviceDescription> Devices() const override {
    DeviceDescription d;
    d.backend = "cpu";
    d.name = "host CPU";
    d.total_memory = limit_;
    return {d};
  }
  absl::StatusOr<std::unique_ptr<Stream>> CreateStream() override {
    return std::unique_ptr<Stream>(new CpuStream(&in_use_, &cached_, limit_));
  }
  void PoolBytes(uint64_t* in_use, uint64_t* cached) const override {
    *in_use = in_use_.load();
    *cached = cached_.load();  // the streams' HostPools
  }

 private:
  uint64_t limit_;
  std::atomic<uint64_t> in_use_{0};
  std::atomic<uint64_t> cached_{0};
};

}  // namespace

std::unique_ptr<Backend> CreateCpuBackend(uint64_t memory_limit) {
  if (memory_limit == 0) {
    uint64_t pages = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES));
    uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
    memory_limit = pages * page / 10 * 8;
  }
  return std::make_unique<CpuBackend>(memory_limit);
}

}  // namespace cpu
}  // namespace arrayd
