// The device-wide algorithms of CUB (CCCL, shipped with the CUDA toolkit),
// compiled ahead of time by nvcc (cub_sort.cu, cub_scan.cu, cub_select.cu):
// radix sort of rows (sort, argsort), inclusive scans of rows (cumsum,
// cumprod) and the positions of true flags (nonzero, boolean masks, with
// a device-side check of their count). The
// rest of the backend is plain C++ and generates its kernels for NVRTC;
// these are the algorithms whose host-side orchestration (multi-pass radix
// sort, decoupled look-back scan) CUB already tunes for every GPU, so they
// are not generated. This header is the seam: plain types only, so that
// neither side sees the other's headers.
//
// Every function queues work on `stream` and returns at once (CUB's
// launches); `scratch` is device memory of at least the size the matching
// *ScratchBytes function gives, alive until the work is done (a stream-
// ordered temporary of the caller).
#ifndef ARRAYD_BACKEND_CUDA_CUB_ALGORITHMS_H_
#define ARRAYD_BACKEND_CUDA_CUB_ALGORITHMS_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace arrayd {
namespace cuda {
namespace cub_algorithms {

// The element types the radix sort orders (NumPy's order: false < true,
// signed integers, floats with -inf first and NaNs last).
enum class SortType : int {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kFloat32,
  kFloat64,
};

// Scratch bytes SortRows needs for `rows` rows of `n` elements, with
// indices (argsort) or not, with the sorted values (a non-null `data`) or
// not.
size_t SortScratchBytes(SortType type, int64_t rows, int64_t n, bool with_indices,
                        bool with_values);

// Sorts each of `rows` C-contiguous rows of `n` elements of `in` into
// `data` (the same memory or another C-contiguous array; null for an
// argsort that needs only `indices`), stably, NaNs last (as NumPy's
// kind='stable'); `indices`, when not null, receives each element's
// position in its row before the sort (int64, argsort). With indices and
// data == in, a -0.0 of the input is +0.0 in `data` (the order of the
// indices is NumPy's, which sorts them as equal).
cudaError_t SortRows(SortType type, const void* in, void* data, int64_t* indices, int64_t rows,
                     int64_t n, void* scratch, size_t scratch_bytes, cudaStream_t stream);

// The accumulator types of cumsum and cumprod that CUB scans.
enum class ScanType : int { kInt64, kUInt64, kFloat32, kFloat64 };

// Scratch bytes ScanRows needs.
size_t ScanScratchBytes(ScanType type, bool product, int64_t rows, int64_t n);

// Inclusive sum (or product) of each of `rows` C-contiguous rows of `n`
// elements of `data`, in place.
cudaError_t ScanRows(ScanType type, bool product, void* data, int64_t rows, int64_t n,
                     void* scratch, size_t scratch_bytes, cudaStream_t stream);

// Scratch bytes SelectFlagged needs for `n` flags.
size_t SelectScratchBytes(int64_t n);

// The positions of the true elements of the `n` C-contiguous bools `flags`,
// in increasing order, into `out`, the first `capacity` of them (the rest
// are not stored); their count into the device int64 `count`.
cudaError_t SelectFlagged(const bool* flags, int64_t n, int64_t* out, int64_t capacity,
                          int64_t* count, void* scratch, size_t scratch_bytes, cudaStream_t stream);

// A device-side check (CudaStream's check word, as the take kernel's):
// when the sum of the `k` device int64 `counts` is not `expected`, the
// first failing check writes error[0] = check and error[1] = the sum.
cudaError_t CheckCount(const int64_t* counts, int64_t k, int64_t expected,
                       unsigned long long* error, unsigned long long check, cudaStream_t stream);

}  // namespace cub_algorithms
}  // namespace cuda
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_CUB_ALGORITHMS_H_
