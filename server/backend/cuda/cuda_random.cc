// CudaStream's random streams: Random fills a contiguous float32/float64
// array from a Philox counter stream (kernels/functors.h, device/random.cuh),
// the same values as the CPU backend for the same key and counter (uniform
// bit for bit, normal to the last bits of the two math libraries).
//
// Assumes: the output is checked by kernels::CheckRandomOutput here.
// Thread-safety: as CudaStream (one thread at a time).
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "backend/cuda/cuda_stream.h"
#include "backend/cuda/kernel_source.h"
#include "common/status.h"
#include "kernels/loop_check.h"

namespace arrayd {
namespace cuda {

absl::Status CudaStream::Random(RandomDist dist, uint64_t key, uint64_t counter, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  ARRAYD_RETURN_IF_ERROR(kernels::CheckRandomOutput(out));
  long long n = out.size();
  if (n == 0) return absl::OkStatus();
  const bool normal = dist == RandomDist::kNormal;
  const std::string name = normal ? "arrayd_philox_normal" : "arrayd_philox_uniform";
  char* p = out.data();
  unsigned long long c = counter, k = key;
  void* args[] = {&p, &n, &c, &k};
  // Philox blocks, kPhiloxBlocksPerThread per thread and step: one step
  // per thread, as tests/bench/kernel_variants.cu measured it.
  const long long blocks = CeilDiv(n, 16 / ItemSize(out.dtype));
  return LaunchKeyed(
      absl::StrCat(name, "|", static_cast<int>(out.dtype)),
      [&] { return RandomBody(out.dtype, normal, name); }, name,
      std::min(CeilDiv(blocks, kPhiloxBlocksPerThread * kBlockSize), kMaxBlocks), 1, args);
}

}  // namespace cuda
}  // namespace arrayd
