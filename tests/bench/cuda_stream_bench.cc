// The CUDA backend's large kernels timed in-process, without the server or
// a client: N calls of a Stream method, then Synchronize(), best of 3. Beside
// tests/bench/kernel_variants.cu (hand-written kernels, cuRAND, CUB) it
// splits a benchmark row's gap into kernel time and transport time.
// Not a test; prints ms per call.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "backend/cuda/cuda_backend.h"
#include "common/status.h"
#include "kernels/op_list.h"

namespace arrayd {
namespace {

double BestMsPerCall(Stream& s, int n, const std::function<absl::Status()>& fn) {
  double best = 1e30;
  for (int rep = 0; rep < 4; ++rep) {  // the first one warms up
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
      absl::Status st = fn();
      if (!st.ok()) {
        std::printf("failed: %s\n", st.ToString().c_str());
        return -1;
      }
    }
    if (!s.Synchronize().ok()) return -1;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / n;
    if (rep > 0 && ms < best) best = ms;
  }
  return best;
}

int Main() {
  absl::StatusOr<std::unique_ptr<Backend>> backend = cuda::CreateCudaBackend(0);
  if (!backend.ok()) {
    std::printf("no CUDA backend: %s\n", backend.status().ToString().c_str());
    return 1;
  }
  std::unique_ptr<Stream> s = *(*backend)->CreateStream();
  const int64_t n = int64_t{1} << 28;
  View x = MakeContiguousView(*s->Allocate(n * 4), DType::kFloat32, {n});
  View out = MakeContiguousView(*s->Allocate(64), DType::kFloat32, {});
  const int axes[] = {0};
  if (!s->Fill(x, Scalar::Float(1.0)).ok()) return 1;
  for (int calls : {1, 20}) {
    std::printf("sum 2^28 f32, %2d calls: %.4f ms/call\n", calls,
                BestMsPerCall(*s, calls, [&] { return s->Reduce(kernels::ReduceOp::kSum, x, axes, out); }));
    std::printf("normal 2^28 f32, %2d calls: %.4f ms/call\n", calls,
                BestMsPerCall(*s, calls, [&] { return s->Random(RandomDist::kNormal, 1, 0, x); }));
    std::printf("normal 2^28 f32 + new output, %2d calls: %.4f ms/call\n", calls,
                BestMsPerCall(*s, calls, [&]() -> absl::Status {
                  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> b, s->Allocate(n * 4));
                  return s->Random(RandomDist::kNormal, 1, 0,
                                   MakeContiguousView(b, DType::kFloat32, {n}));
                }));
  }
  // cuFFT through the backend, as the benchmark's FFT row (2^24 complex64).
  {
    const int64_t m = int64_t{1} << 24;
    View z = MakeContiguousView(*s->Allocate(m * 8), DType::kComplex64, {1, m});
    View zf = MakeContiguousView(*s->Allocate(m * 8), DType::kComplex64, {1, m});
    if (!s->Fill(z, Scalar::Float(1.0)).ok()) return 1;
    for (int calls : {1, 10}) {
      std::printf("fft 2^24 c64, %2d calls: %.4f ms/call\n", calls,
                  BestMsPerCall(*s, calls, [&] { return s->Fft(z, zf, 1, false); }));
    }
  }
  // Host cost of small ops (the GPU keeps up): us per call, 10000 calls.
  const int64_t k = 1000;
  View a = MakeContiguousView(*s->Allocate(k * 4), DType::kFloat32, {k});
  View c = MakeContiguousView(*s->Allocate(k * 4), DType::kFloat32, {k});
  if (!s->Fill(a, Scalar::Float(1.0)).ok()) return 1;
  std::printf("add 1000 f32: %.2f us/call\n", 1e3 * BestMsPerCall(*s, 10000, [&] {
                return s->Binary(kernels::BinaryOp::kAdd, a, a, c);
              }));
  std::printf("add 1000 f32 + new output: %.2f us/call\n", 1e3 * BestMsPerCall(*s, 10000, [&]() -> absl::Status {
                ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> b, s->Allocate(k * 4));
                return s->Binary(kernels::BinaryOp::kAdd, a, a,
                                 MakeContiguousView(b, DType::kFloat32, {k}));
              }));
  // As a session runs them: a message of ops, then Flush(); small
  // elementwise ops are launched in groups.
  int in_message = 0;
  std::printf("add 1000 f32 + new output, Flush() every 64: %.2f us/call\n",
              1e3 * BestMsPerCall(*s, 10000, [&]() -> absl::Status {
                ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> b, s->Allocate(k * 4));
                ARRAYD_RETURN_IF_ERROR(s->Binary(kernels::BinaryOp::kAdd, a, a,
                                                 MakeContiguousView(b, DType::kFloat32, {k})));
                return ++in_message % 64 == 0 ? s->Flush() : absl::OkStatus();
              }));
  std::printf("sum 1000 f32: %.2f us/call\n", 1e3 * BestMsPerCall(*s, 10000, [&] {
                return s->Reduce(kernels::ReduceOp::kSum, a, axes, out);
              }));
  // Eight sessions' streams on eight threads (the 8-client row without
  // clients): aggregate small adds per second, a launch per op (Flush()
  // after each) and in groups (Flush() every 64).
  for (int group : {1, 64}) {
    constexpr int kThreads = 8, kOps = 20000;
    std::vector<std::unique_ptr<Stream>> streams;
    for (int t = 0; t < kThreads; ++t) streams.push_back(*(*backend)->CreateStream());
    std::atomic<int> failed{0};
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        Stream& st = *streams[t];
        for (int i = 0; i < kOps; ++i) {
          auto b = st.Allocate(k * 4);
          if (!b.ok() || !st.Binary(kernels::BinaryOp::kAdd, a, a,
                                    MakeContiguousView(*b, DType::kFloat32, {k})).ok() ||
              ((i + 1) % group == 0 && !st.Flush().ok())) {
            ++failed;
            return;
          }
        }
        if (!st.Synchronize().ok()) ++failed;
      });
    }
    for (std::thread& th : threads) th.join();
    const double s8 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("8 streams x %d adds 1000 f32, Flush() every %d: %.0f ops/s%s\n", kOps, group,
                kThreads * kOps / s8, failed ? " (FAILED)" : "");
  }
  float host = 0;
  std::printf("4-byte CopyToHost: %.2f us/call\n", 1e3 * BestMsPerCall(*s, 2000, [&] {
                return s->CopyToHost(out, &host);
              }));
  std::printf("Synchronize (idle): %.2f us/call\n",
              1e3 * BestMsPerCall(*s, 2000, [&] { return s->Synchronize(); }));
  return 0;
}

}  // namespace
}  // namespace arrayd

int main() { return arrayd::Main(); }
