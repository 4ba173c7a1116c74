// Radix sort of rows with CUB (see cub_algorithms.h). Every element type
// is sorted as unsigned keys of its width: the bits are mapped in place to
// keys whose unsigned order is NumPy's order (signed integers: the sign bit
// flipped; floats: negatives inverted, positives with the sign bit set,
// every NaN the largest key), sorted, and mapped back. So only four key
// types are instantiated, for one row (DeviceRadixSort) and for many
// (DeviceSegmentedSort), keys alone (sort) or with int64 positions
// (argsort).
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "backend/cuda/cub_algorithms.h"

namespace arrayd {
namespace cuda {
namespace cub_algorithms {
namespace {

constexpr int kThreads = 256;
constexpr size_t kAlign = 256;
// DeviceSegmentedSort counts items in int: larger sorts go in chunks of rows.
constexpr int64_t kMaxSegmentedItems = int64_t{1} << 30;

size_t Aligned(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

unsigned Blocks(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535 * 16 ? b : 65535 * 16);
}

// How an element's bits (width of U) become an ordered key and back.
enum class KeyMap { kUnsigned, kSigned, kFloat };

template <typename U>
__device__ __forceinline__ U SignBit() {
  return static_cast<U>(U{1} << (sizeof(U) * 8 - 1));
}

// NaN: every exponent bit set and a mantissa. For the float widths 2, 4, 8.
template <typename U>
__device__ __forceinline__ bool IsNan(U bits) {
  if constexpr (sizeof(U) == 2) return (bits & 0x7c00u) == 0x7c00u && (bits & 0x03ffu) != 0;
  if constexpr (sizeof(U) == 4)
    return (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0;
  if constexpr (sizeof(U) == 8) {
    return (bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
           (bits & 0x000fffffffffffffull) != 0;
  }
  return false;
}

// `zero_is_positive`: -0.0 becomes +0.0 (for argsort: NumPy's order keeps
// them in input order, as equal).
template <typename U, KeyMap M>
__global__ void ToKeys(const U* src, U* data, int64_t n, bool zero_is_positive) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    U b = src[i];
    if constexpr (M == KeyMap::kSigned) {
      b ^= SignBit<U>();
    } else if constexpr (M == KeyMap::kFloat) {
      if (zero_is_positive && b == SignBit<U>()) b = 0;
      if (IsNan(b)) {
        b = static_cast<U>(~U{0});
      } else {
        b = (b & SignBit<U>()) ? static_cast<U>(~b) : static_cast<U>(b | SignBit<U>());
      }
    }
    data[i] = b;
  }
}

template <typename U, KeyMap M>
__global__ void FromKeys(const U* keys, U* data, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    U k = keys[i];
    if constexpr (M == KeyMap::kSigned) {
      k ^= SignBit<U>();
    } else if constexpr (M == KeyMap::kFloat) {
      k = (k & SignBit<U>()) ? static_cast<U>(k ^ SignBit<U>()) : static_cast<U>(~k);
    }
    data[i] = k;
  }
}

// dst[i] = src[the row of i, at position pos[i]]: the sorted values with
// their bits as they were (a -0.0 stays -0.0, a NaN its payload).
template <typename U>
__global__ void GatherRows(const U* src, const int64_t* pos, U* dst, int64_t items, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < items;
       i += int64_t{blockDim.x} * gridDim.x) {
    dst[i] = src[i / n * n + pos[i]];
  }
}

// Each element's position in its row of n.
__global__ void RowPositions(int64_t* out, int64_t total, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{blockDim.x} * gridDim.x) {
    out[i] = i % n;
  }
}

__global__ void RowOffsets(int64_t* out, int64_t rows, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i <= rows;
       i += int64_t{blockDim.x} * gridDim.x) {
    out[i] = i * n;
  }
}

// The scratch of one sort: the second key buffer, the two position buffers
// (argsort), the row offsets (many rows) and CUB's own.
struct Layout {
  size_t keys = 0, positions = 0, offsets = 0, cub = 0;
  size_t total() const { return keys + 2 * positions + offsets + cub; }
};

// CUB's scratch bytes for one call on `items` items in `rows` rows, or its
// run when `temp` is not null.
template <typename U>
cudaError_t Cub(void* temp, size_t& bytes, cub::DoubleBuffer<U>& keys,
                cub::DoubleBuffer<int64_t>* positions, int64_t items, int64_t rows,
                const int64_t* offsets, cudaStream_t stream) {
  if (rows == 1) {
    if (positions == nullptr) {
      return cub::DeviceRadixSort::SortKeys(temp, bytes, keys, items, 0, sizeof(U) * 8, stream);
    }
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, *positions, items, 0, sizeof(U) * 8,
                                           stream);
  }
  const int num = static_cast<int>(items);
  const int segments = static_cast<int>(rows);
  if (positions == nullptr) {
    return cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, keys, num, segments, offsets,
                                                    offsets + 1, stream);
  }
  return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, keys, *positions, num, segments,
                                                   offsets, offsets + 1, stream);
}

// Rows per CUB call: all of them, or chunks whose items fit DeviceSegmentedSort.
int64_t RowsPerCall(int64_t rows, int64_t n) {
  if (rows == 1) return 1;
  const int64_t per = kMaxSegmentedItems / (n > 0 ? n : 1);
  return per < 1 ? 1 : (per < rows ? per : rows);
}

// Rows sorted by one CUB call: 1 (DeviceRadixSort, one row at a time), or
// the chunk's (DeviceSegmentedSort).
int64_t Segments(int64_t rows, int64_t chunk) { return rows == 1 || chunk == 1 ? 1 : chunk; }

template <typename U>
Layout LayoutOf(int64_t rows, int64_t n, bool with_indices) {
  Layout l;
  const int64_t chunk = RowsPerCall(rows, n);
  const int64_t items = chunk * n;
  l.keys = Aligned(sizeof(U) * static_cast<size_t>(items));
  if (with_indices) l.positions = Aligned(sizeof(int64_t) * static_cast<size_t>(items));
  if (Segments(rows, chunk) > 1)
    l.offsets = Aligned(sizeof(int64_t) * static_cast<size_t>(chunk + 1));
  cub::DoubleBuffer<U> keys(nullptr, nullptr);
  cub::DoubleBuffer<int64_t> positions(nullptr, nullptr);
  size_t bytes = 0;
  Cub<U>(nullptr, bytes, keys, with_indices ? &positions : nullptr, items, Segments(rows, chunk),
         nullptr, nullptr);
  l.cub = Aligned(bytes);
  return l;
}

template <typename U, KeyMap M>
cudaError_t Sort(const void* in, void* data, int64_t* indices, int64_t rows, int64_t n,
                 void* scratch, size_t scratch_bytes, cudaStream_t stream) {
  const Layout l = LayoutOf<U>(rows, n, indices != nullptr);
  if (scratch_bytes < l.total()) return cudaErrorInvalidValue;
  char* s = static_cast<char*>(scratch);
  U* alt = reinterpret_cast<U*>(s);
  int64_t* pos = reinterpret_cast<int64_t*>(s + l.keys);
  int64_t* pos_alt = reinterpret_cast<int64_t*>(s + l.keys + l.positions);
  int64_t* offsets = reinterpret_cast<int64_t*>(s + l.keys + 2 * l.positions);
  void* temp = s + l.keys + 2 * l.positions + l.offsets;
  U* keys_in = static_cast<U*>(data);
  const int64_t total = rows * n;
  ToKeys<U, M><<<Blocks(total), kThreads, 0, stream>>>(static_cast<const U*>(in), keys_in, total,
                                                       indices != nullptr);
  const int64_t chunk = RowsPerCall(rows, n);
  if (Segments(rows, chunk) > 1) {
    RowOffsets<<<Blocks(chunk + 1), kThreads, 0, stream>>>(offsets, chunk, n);
  }
  for (int64_t r = 0; r < rows; r += chunk) {
    const int64_t here = rows - r < chunk ? rows - r : chunk;
    const int64_t items = here * n;
    U* row_keys = keys_in + r * n;
    cub::DoubleBuffer<U> keys(row_keys, alt);
    cub::DoubleBuffer<int64_t> positions(pos, pos_alt);
    if (indices != nullptr) RowPositions<<<Blocks(items), kThreads, 0, stream>>>(pos, items, n);
    size_t bytes = l.cub;
    cudaError_t err = Cub<U>(temp, bytes, keys, indices != nullptr ? &positions : nullptr, items,
                             Segments(rows, chunk) == 1 ? 1 : here, offsets, stream);
    if (err != cudaSuccess) return err;
    if (indices != nullptr && in != data) {
      GatherRows<U><<<Blocks(items), kThreads, 0, stream>>>(
          static_cast<const U*>(in) + r * n, positions.Current(), row_keys, items, n);
    } else {
      FromKeys<U, M><<<Blocks(items), kThreads, 0, stream>>>(keys.Current(), row_keys, items);
    }
    if (indices != nullptr) {
      err = cudaMemcpyAsync(indices + r * n, positions.Current(), sizeof(int64_t) * items,
                            cudaMemcpyDeviceToDevice, stream);
      if (err != cudaSuccess) return err;
    }
  }
  return cudaGetLastError();
}

}  // namespace

size_t SortScratchBytes(SortType type, int64_t rows, int64_t n, bool with_indices) {
  switch (type) {
    case SortType::kBool:
    case SortType::kInt8:
    case SortType::kUInt8: return LayoutOf<uint8_t>(rows, n, with_indices).total();
    case SortType::kInt16:
    case SortType::kUInt16:
    case SortType::kFloat16: return LayoutOf<uint16_t>(rows, n, with_indices).total();
    case SortType::kInt32:
    case SortType::kUInt32:
    case SortType::kFloat32: return LayoutOf<uint32_t>(rows, n, with_indices).total();
    case SortType::kInt64:
    case SortType::kUInt64:
    case SortType::kFloat64: return LayoutOf<uint64_t>(rows, n, with_indices).total();
  }
  return 0;
}

cudaError_t SortRows(SortType type, const void* in, void* data, int64_t* indices, int64_t rows,
                     int64_t n, void* scratch, size_t scratch_bytes, cudaStream_t stream) {
  if (rows <= 0 || n <= 0) return cudaSuccess;
  switch (type) {
    case SortType::kBool:
    case SortType::kUInt8:
      return Sort<uint8_t, KeyMap::kUnsigned>(in, data, indices, rows, n, scratch, scratch_bytes,
                                              stream);
    case SortType::kInt8:
      return Sort<uint8_t, KeyMap::kSigned>(in, data, indices, rows, n, scratch, scratch_bytes,
                                            stream);
    case SortType::kUInt16:
      return Sort<uint16_t, KeyMap::kUnsigned>(in, data, indices, rows, n, scratch, scratch_bytes,
                                               stream);
    case SortType::kInt16:
      return Sort<uint16_t, KeyMap::kSigned>(in, data, indices, rows, n, scratch, scratch_bytes,
                                             stream);
    case SortType::kFloat16:
      return Sort<uint16_t, KeyMap::kFloat>(in, data, indices, rows, n, scratch, scratch_bytes,
                                            stream);
    case SortType::kUInt32:
      return Sort<uint32_t, KeyMap::kUnsigned>(in, data, indices, rows, n, scratch, scratch_bytes,
                                               stream);
    case SortType::kInt32:
      return Sort<uint32_t, KeyMap::kSigned>(in, data, indices, rows, n, scratch, scratch_bytes,
                                             stream);
    case SortType::kFloat32:
      return Sort<uint32_t, KeyMap::kFloat>(in, data, indices, rows, n, scratch, scratch_bytes,
                                            stream);
    case SortType::kUInt64:
      return Sort<uint64_t, KeyMap::kUnsigned>(in, data, indices, rows, n, scratch, scratch_bytes,
                                               stream);
    case SortType::kInt64:
      return Sort<uint64_t, KeyMap::kSigned>(in, data, indices, rows, n, scratch, scratch_bytes,
                                             stream);
    case SortType::kFloat64:
      return Sort<uint64_t, KeyMap::kFloat>(in, data, indices, rows, n, scratch, scratch_bytes,
                                            stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace cub_algorithms
}  // namespace cuda
}  // namespace arrayd
