// The server's own numbers for Prometheus (rpc/metrics.cc renders them at
// each scrape): lock-free counters and histograms that any part of the
// server bumps on its hot path at the cost of a relaxed atomic add.
// Per-op counts live in each session (no cache line shared by sessions'
// threads) and are summed at a scrape.
#ifndef ARRAYD_COMMON_METRICS_H_
#define ARRAYD_COMMON_METRICS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace arrayd {

// Seconds in fixed buckets (10 us .. 10 s), as a Prometheus histogram.
class LatencyHistogram {
 public:
  static constexpr std::array<double, 13> kBounds = {1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2,
                                                     3e-2, 0.1,  0.3,  1.0,  3.0,  10.0};
  void Observe(double seconds) {
    size_t b = 0;
    while (b < kBounds.size() && seconds > kBounds[b]) ++b;
    counts_[b].fetch_add(1, std::memory_order_relaxed);
    sum_ns_.fetch_add(static_cast<uint64_t>(seconds * 1e9), std::memory_order_relaxed);
  }
  // Count in bucket b (b == kBounds.size(): above the last bound).
  uint64_t count(size_t b) const { return counts_[b].load(std::memory_order_relaxed); }
  double sum_seconds() const { return sum_ns_.load(std::memory_order_relaxed) * 1e-9; }

 private:
  std::array<std::atomic<uint64_t>, kBounds.size() + 1> counts_{};
  std::atomic<uint64_t> sum_ns_{0};
};

// How bytes moved between a client and the server.
enum class Transport { kInline = 0, kSharedMemory = 1, kGrpcStream = 2 };
inline constexpr int kNumTransports = 3;

struct ServerMetrics {
  std::atomic<uint64_t> uploaded[kNumTransports] = {};    // bytes, client to server
  std::atomic<uint64_t> downloaded[kNumTransports] = {};  // bytes, server to client
  std::atomic<uint64_t> deferred_errors[17] = {};         // by google.rpc.Code
  std::atomic<uint64_t> kernel_compiles{0};
  std::atomic<uint64_t> kernel_compile_ns{0};
  std::atomic<uint64_t> kernel_memory_hits{0};
  std::atomic<uint64_t> kernel_disk_hits{0};
  LatencyHistogram sync_seconds;   // a sync's work on the server, fetches included
  LatencyHistogram batch_seconds;  // one message's ops, queued on the device

  void Uploaded(Transport t, uint64_t n) {
    uploaded[static_cast<int>(t)].fetch_add(n, std::memory_order_relaxed);
  }
  void Downloaded(Transport t, uint64_t n) {
    downloaded[static_cast<int>(t)].fetch_add(n, std::memory_order_relaxed);
  }
};

// The process's metrics.
ServerMetrics& Metrics();

}  // namespace arrayd

#endif  // ARRAYD_COMMON_METRICS_H_
