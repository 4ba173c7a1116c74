// Inclusive scans of rows with CUB (see cub_algorithms.h): one row is
// DeviceScan's single pass (decoupled look-back); many rows are one
// InclusiveScanByKey over all of them, the key of an element its row.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <cub/device/device_scan.cuh>

#include "backend/cuda/cub_algorithms.h"

namespace arrayd {
namespace cuda {
namespace cub_algorithms {
namespace {

constexpr size_t kAlign = 256;

struct Sum {
  template <typename T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const {
    return a + b;
  }
};
struct Product {
  template <typename T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const {
    return a * b;
  }
};

// The row of flat element i.
struct RowOf {
  int64_t n;
  __host__ __device__ int64_t operator()(int64_t i) const { return i / n; }
};

template <typename T, typename Op>
cudaError_t Scan(void* temp, size_t& bytes, T* data, int64_t rows, int64_t n, cudaStream_t stream) {
  const int64_t total = rows * n;
  if (rows == 1)
    return cub::DeviceScan::InclusiveScan(temp, bytes, data, data, Op(), total, stream);
  auto keys = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), RowOf{n});
  return cub::DeviceScan::InclusiveScanByKey(temp, bytes, keys, data, data, Op(), total,
                                             ::cuda::std::equal_to<int64_t>(), stream);
}

template <typename T>
cudaError_t Dispatch(bool product, void* temp, size_t& bytes, void* data, int64_t rows, int64_t n,
                     cudaStream_t stream) {
  T* d = static_cast<T*>(data);
  return product ? Scan<T, Product>(temp, bytes, d, rows, n, stream)
                 : Scan<T, Sum>(temp, bytes, d, rows, n, stream);
}

cudaError_t Run(ScanType type, bool product, void* temp, size_t& bytes, void* data, int64_t rows,
                int64_t n, cudaStream_t stream) {
  switch (type) {
    case ScanType::kInt64: return Dispatch<int64_t>(product, temp, bytes, data, rows, n, stream);
    case ScanType::kUInt64: return Dispatch<uint64_t>(product, temp, bytes, data, rows, n, stream);
    case ScanType::kFloat32: return Dispatch<float>(product, temp, bytes, data, rows, n, stream);
    case ScanType::kFloat64: return Dispatch<double>(product, temp, bytes, data, rows, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

size_t ScanScratchBytes(ScanType type, bool product, int64_t rows, int64_t n) {
  size_t bytes = 0;
  if (Run(type, product, nullptr, bytes, nullptr, rows, n, nullptr) != cudaSuccess) return 0;
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

cudaError_t ScanRows(ScanType type, bool product, void* data, int64_t rows, int64_t n,
                     void* scratch, size_t scratch_bytes, cudaStream_t stream) {
  if (rows <= 0 || n <= 0) return cudaSuccess;
  size_t bytes = scratch_bytes;
  return Run(type, product, scratch, bytes, data, rows, n, stream);
}

}  // namespace cub_algorithms
}  // namespace cuda
}  // namespace arrayd
