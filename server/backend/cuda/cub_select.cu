// The positions of true flags with CUB's DeviceSelect::Flagged (see
// cub_algorithms.h): nonzero, flatnonzero, argwhere and boolean masks.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>

#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_select.cuh>

#include "backend/cuda/cub_algorithms.h"

namespace arrayd {
namespace cuda {
namespace cub_algorithms {

namespace {

// Stores the i-th selected position only where out has room for it.
struct BoundedStore {
  int64_t* out;
  int64_t capacity;
  __device__ void operator()(int64_t i, int64_t position) const {
    if (i < capacity) out[i] = position;
  }
};

cudaError_t Flagged(void* temp, size_t& bytes, const bool* flags, int64_t n, int64_t* out,
                    int64_t capacity, int64_t* count, cudaStream_t stream) {
  return cub::DeviceSelect::Flagged(
      temp, bytes, thrust::counting_iterator<int64_t>(0), flags,
      thrust::make_tabulate_output_iterator(BoundedStore{out, capacity}), count, n, stream);
}

constexpr int kCheckThreads = 256;

__global__ void __launch_bounds__(kCheckThreads)
    CheckCountKernel(const int64_t* counts, int64_t k, int64_t expected, unsigned long long* error,
                     unsigned long long check) {
  using Reduce = cub::BlockReduce<int64_t, kCheckThreads>;
  __shared__ typename Reduce::TempStorage storage;
  int64_t sum = 0;
  for (int64_t i = threadIdx.x; i < k; i += kCheckThreads) sum += counts[i];
  sum = Reduce(storage).Sum(sum);
  if (threadIdx.x == 0 && sum != expected && atomicCAS(error, 0ull, check) == 0ull) {
    error[1] = static_cast<unsigned long long>(sum);
  }
}

}  // namespace

cudaError_t CheckCount(const int64_t* counts, int64_t k, int64_t expected,
                       unsigned long long* error, unsigned long long check, cudaStream_t stream) {
  CheckCountKernel<<<1, kCheckThreads, 0, stream>>>(counts, k, expected, error, check);
  return cudaGetLastError();
}

size_t SelectScratchBytes(int64_t n) {
  size_t bytes = 0;
  if (Flagged(nullptr, bytes, nullptr, n, nullptr, 0, nullptr, nullptr) != cudaSuccess) return 0;
  return bytes;
}

cudaError_t SelectFlagged(const bool* flags, int64_t n, int64_t* out, int64_t capacity,
                          int64_t* count, void* scratch, size_t scratch_bytes,
                          cudaStream_t stream) {
  size_t bytes = scratch_bytes;
  return Flagged(scratch, bytes, flags, n, out, capacity, count, stream);
}

}  // namespace cub_algorithms
}  // namespace cuda
}  // namespace arrayd
