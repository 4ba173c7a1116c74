// The CUDA backend's large kernels timed in-process, without the server or
// a client: N calls of a Stream method, then Synchronize(), best of 3. Beside
// tests/bench/kernel_variants.cu (hand-written kernels, cuRAND, CUB) it
// splits a benchmark row's gap into kernel time and transport time.
// Not a test; prints ms per call.
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>

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
  std::printf("sum 1000 f32: %.2f us/call\n", 1e3 * BestMsPerCall(*s, 10000, [&] {
                return s->Reduce(kernels::ReduceOp::kSum, a, axes, out);
              }));
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
