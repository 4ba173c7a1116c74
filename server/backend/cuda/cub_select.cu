// The positions of true flags with CUB's DeviceSelect::Flagged (see
// cub_algorithms.h): nonzero, flatnonzero, argwhere and boolean masks.
#include <thrust/iterator/counting_iterator.h>

#include <cstdint>
#include <cub/device/device_select.cuh>

#include "backend/cuda/cub_algorithms.h"

namespace arrayd {
namespace cuda {
namespace cub_algorithms {

namespace {

cudaError_t Flagged(void* temp, size_t& bytes, const bool* flags, int64_t n, int64_t* out,
                    int64_t* count, cudaStream_t stream) {
  return cub::DeviceSelect::Flagged(temp, bytes, thrust::counting_iterator<int64_t>(0), flags, out,
                                    count, n, stream);
}

}  // namespace

size_t SelectScratchBytes(int64_t n) {
  size_t bytes = 0;
  if (Flagged(nullptr, bytes, nullptr, n, nullptr, nullptr, nullptr) != cudaSuccess) return 0;
  return bytes;
}

cudaError_t SelectFlagged(const bool* flags, int64_t n, int64_t* out, int64_t* count, void* scratch,
                          size_t scratch_bytes, cudaStream_t stream) {
  size_t bytes = scratch_bytes;
  return Flagged(scratch, bytes, flags, n, out, count, stream);
}

}  // namespace cub_algorithms
}  // namespace cuda
}  // namespace arrayd
