// Radix sort of rows with CUB (see cub_algorithms.h). A sort of values
// alone in one row uses the key types CUB orders natively (unsigned and
// signed integers, float32 and float64: read from the input, written to
// the output, no mapping passes; floats' NaNs then moved last). Otherwise
// every element type is sorted as unsigned keys of its width: the bits are
// mapped in place to keys whose unsigned order is NumPy's order (signed
// integers: the sign bit flipped; floats: negatives inverted, positives
// with the sign bit set, every NaN the largest key), sorted, and mapped
// back, for one row (DeviceRadixSort) and for many (DeviceSegmentedSort),
// keys alone (sort) or with 32-bit positions (argsort, widened to int64 as
// the last pass writes them; 64-bit ones only for one row of 2^32 or more).
#include <algorithm>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <type_traits>

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
__device__ __forceinline__ U ToKey(U b, bool zero_is_positive) {
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
  return b;
}

// ToKey's inverse (a NaN comes back as the all-ones pattern's NaN).
template <typename U, KeyMap M>
__device__ __forceinline__ U FromKey(U k) {
  if constexpr (M == KeyMap::kSigned) {
    k ^= SignBit<U>();
  } else if constexpr (M == KeyMap::kFloat) {
    k = (k & SignBit<U>()) ? static_cast<U>(k ^ SignBit<U>()) : static_cast<U>(~k);
  }
  return k;
}

template <typename U, KeyMap M>
__global__ void ToKeys(const U* src, U* data, int64_t n, bool zero_is_positive) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    data[i] = ToKey<U, M>(src[i], zero_is_positive);
  }
}

template <typename U, KeyMap M>
__global__ void FromKeys(const U* keys, U* data, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    data[i] = FromKey<U, M>(keys[i]);
  }
}

// After an argsort of items in rows of n: indices[i] = pos[i] (widened to
// int64), and, where `data` is not null, the sorted values: the input's
// bits at those positions when `src` is not null (a -0.0 stays -0.0, a NaN
// its payload), else the keys mapped back.
template <typename U, KeyMap M, typename P>
__global__ void FinishArgsort(const U* src, const U* keys, const P* pos, U* data, int64_t* indices,
                              int64_t items, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < items;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t p = static_cast<int64_t>(pos[i]);
    indices[i] = p;
    if (data == nullptr) continue;
    data[i] = src != nullptr ? src[(n == items ? 0 : i / n * n) + p] : FromKey<U, M>(keys[i]);
  }
}

// Each element's position in its row of n.
template <typename P>
__global__ void RowPositions(P* out, int64_t total, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{blockDim.x} * gridDim.x) {
    out[i] = static_cast<P>(n == total ? i : i % n);
  }
}

__global__ void RowOffsets(int64_t* out, int64_t rows, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i <= rows;
       i += int64_t{blockDim.x} * gridDim.x) {
    out[i] = i * n;
  }
}

// The scratch of one sort: the second key buffer, the keys themselves when
// the caller wants no sorted values, the two position buffers (argsort),
// the row offsets (many rows) and CUB's own.
struct Layout {
  size_t keys = 0, own_keys = 0, positions = 0, offsets = 0, cub = 0;
  size_t total() const { return keys + own_keys + 2 * positions + offsets + cub; }
};

// CUB's scratch bytes for one call on `items` items in `segments` rows
// (1: DeviceRadixSort), or its run when `temp` is not null. Positions of
// 64 bits only for rows of 2^32 or more, which are sorted one at a time
// (DeviceSegmentedSort counts in int), so only the 32-bit positions are
// instantiated for the segmented sort.
template <typename U, typename P>
cudaError_t Cub(void* temp, size_t& bytes, cub::DoubleBuffer<U>& keys,
                cub::DoubleBuffer<P>* positions, int64_t items, int64_t segments,
                const int64_t* offsets, cudaStream_t stream) {
  if (segments == 1) {
    if (positions == nullptr) {
      return cub::DeviceRadixSort::SortKeys(temp, bytes, keys, items, 0, sizeof(U) * 8, stream);
    }
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, *positions, items, 0, sizeof(U) * 8,
                                           stream);
  }
  if constexpr (sizeof(P) == 8) {
    return cudaErrorInvalidValue;
  } else {
    const int num = static_cast<int>(items);
    const int count = static_cast<int>(segments);
    if (positions == nullptr) {
      return cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, keys, num, count, offsets,
                                                      offsets + 1, stream);
    }
    return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, keys, *positions, num, count,
                                                     offsets, offsets + 1, stream);
  }
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

// Positions of 32 bits for rows shorter than 2^32 (radix passes move 4
// bytes a position fewer), else 64.
constexpr int64_t kMaxNarrowRow = int64_t{0xffffffff};

template <typename U, typename P>
Layout LayoutOf(int64_t rows, int64_t n, bool with_indices, bool with_values) {
  Layout l;
  const int64_t chunk = RowsPerCall(rows, n);
  const int64_t items = chunk * n;
  l.keys = Aligned(sizeof(U) * static_cast<size_t>(items));
  if (!with_values) l.own_keys = Aligned(sizeof(U) * static_cast<size_t>(rows * n));
  if (with_indices) l.positions = Aligned(sizeof(P) * static_cast<size_t>(items));
  if (Segments(rows, chunk) > 1)
    l.offsets = Aligned(sizeof(int64_t) * static_cast<size_t>(chunk + 1));
  cub::DoubleBuffer<U> keys(nullptr, nullptr);
  cub::DoubleBuffer<P> positions(nullptr, nullptr);
  size_t bytes = 0;
  Cub<U, P>(nullptr, bytes, keys, with_indices ? &positions : nullptr, items, Segments(rows, chunk),
            nullptr, nullptr);
  l.cub = Aligned(bytes);
  return l;
}

template <typename U>
size_t ScratchBytes(int64_t rows, int64_t n, bool with_indices, bool with_values) {
  return n <= kMaxNarrowRow ? LayoutOf<U, uint32_t>(rows, n, with_indices, with_values).total()
                            : LayoutOf<U, int64_t>(rows, n, with_indices, with_values).total();
}

template <typename U, KeyMap M, typename P>
cudaError_t SortWith(const void* in, void* data, int64_t* indices, int64_t rows, int64_t n,
                     void* scratch, size_t scratch_bytes, cudaStream_t stream) {
  const Layout l = LayoutOf<U, P>(rows, n, indices != nullptr, data != nullptr);
  if (scratch_bytes < l.total()) return cudaErrorInvalidValue;
  char* s = static_cast<char*>(scratch);
  U* alt = reinterpret_cast<U*>(s);
  U* own = reinterpret_cast<U*>(s + l.keys);
  P* pos = reinterpret_cast<P*>(s + l.keys + l.own_keys);
  P* pos_alt = reinterpret_cast<P*>(s + l.keys + l.own_keys + l.positions);
  int64_t* offsets = reinterpret_cast<int64_t*>(s + l.keys + l.own_keys + 2 * l.positions);
  void* temp = s + l.keys + l.own_keys + 2 * l.positions + l.offsets;
  U* keys_in = data != nullptr ? static_cast<U*>(data) : own;
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
    cub::DoubleBuffer<P> positions(pos, pos_alt);
    if (indices != nullptr) RowPositions<P><<<Blocks(items), kThreads, 0, stream>>>(pos, items, n);
    size_t bytes = l.cub;
    cudaError_t err = Cub<U, P>(temp, bytes, keys, indices != nullptr ? &positions : nullptr, items,
                                Segments(rows, chunk) == 1 ? 1 : here, offsets, stream);
    if (err != cudaSuccess) return err;
    if (indices != nullptr) {
      const U* src = data != nullptr && in != data ? static_cast<const U*>(in) + r * n : nullptr;
      FinishArgsort<U, M, P><<<Blocks(items), kThreads, 0, stream>>>(
          src, keys.Current(), positions.Current(), data != nullptr ? row_keys : nullptr,
          indices + r * n, items, n);
    } else {
      FromKeys<U, M><<<Blocks(items), kThreads, 0, stream>>>(keys.Current(), row_keys, items);
    }
  }
  return cudaGetLastError();
}

// Whether a sort takes CUB's native keys (SortNative): values alone, one
// row, and, for integers, from another array (in place they are mapped).
template <typename U, KeyMap M>
bool UsesNative(int64_t rows, const void* in, const void* data, const int64_t* indices) {
  return indices == nullptr && rows == 1 && (M == KeyMap::kFloat || in != data);
}

// The key type CUB itself orders as NumPy for a sort of values alone: the
// unsigned bits, the signed integers, the floats (NaNs put last after, see
// NanFixup); void: none (half floats take ToKeys and FromKeys).
template <typename U, KeyMap M>
struct NativeKey {
  using type = U;
};
template <typename U>
struct NativeKey<U, KeyMap::kSigned> {
  using type = std::make_signed_t<U>;
};
template <typename U>
struct NativeKey<U, KeyMap::kFloat> {
  using type = void;
};
template <>
struct NativeKey<uint32_t, KeyMap::kFloat> {
  using type = float;
};
template <>
struct NativeKey<uint64_t, KeyMap::kFloat> {
  using type = double;
};

// CUB sorts NaNs by their bits: those with the sign bit set before -inf.
// NumPy puts every NaN last: the sorted row's leading run of them (found by
// one thread's binary search) is rotated to its end.
template <typename U>
__device__ __forceinline__ bool IsNegativeNan(U bits) {
  return (bits & SignBit<U>()) && IsNan(bits);
}
template <typename U>
__global__ void CountLeadingNegativeNans(const U* data, int64_t n, int64_t* count) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (IsNegativeNan(data[mid])) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *count = lo;
}
template <typename U>
__global__ void RotateLeft(const U* src, U* dst, int64_t n, const int64_t* count) {
  const int64_t k = *count;
  if (k == 0) return;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    dst[i] = src[i + k < n ? i + k : i + k - n];
  }
}
template <typename U>
__global__ void CopyIfCounted(const U* src, U* dst, int64_t n, const int64_t* count) {
  if (*count == 0) return;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    dst[i] = src[i];
  }
}

// Scratch of a native sort of one row: CUB's own (with its second key
// buffer), and a count and a row for the NaN fix-up of floats.
template <typename K>
size_t NativeScratchBytes(int64_t n) {
  size_t bytes = 0;
  cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const K*>(nullptr),
                                 static_cast<K*>(nullptr), n, 0, static_cast<int>(sizeof(K) * 8),
                                 nullptr);
  size_t total = Aligned(bytes);
  if constexpr (std::is_floating_point_v<K>) total += kAlign + Aligned(sizeof(K) * n);
  return total;
}

// One row of values alone, in the key type CUB orders natively: read from
// `in`, written to `data` (no key mapping passes). In place (in == data:
// a strided input copied there first) it sorts a copy.
template <typename U, KeyMap M, typename K>
cudaError_t SortNative(const void* in, void* data, int64_t n, void* scratch, size_t scratch_bytes,
                       cudaStream_t stream) {
  size_t bytes = 0;
  cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const K*>(nullptr),
                                 static_cast<K*>(nullptr), n, 0, static_cast<int>(sizeof(K) * 8),
                                 stream);
  if (scratch_bytes < NativeScratchBytes<K>(n)) return cudaErrorInvalidValue;
  char* s = static_cast<char*>(scratch);
  char* extra = s + Aligned(bytes);
  const K* src = static_cast<const K*>(in);
  K* dst = static_cast<K*>(data);
  if (in == data) {
    // The fix-up's row serves as the copy: floats only come here with it;
    // integers in place take the mapped path (see Sort).
    if constexpr (!std::is_floating_point_v<K>) return cudaErrorInvalidValue;
    K* copy = reinterpret_cast<K*>(extra + kAlign);
    cudaError_t err = cudaMemcpyAsync(copy, in, sizeof(K) * n, cudaMemcpyDeviceToDevice, stream);
    if (err != cudaSuccess) return err;
    src = copy;
  }
  cudaError_t err = cub::DeviceRadixSort::SortKeys(s, bytes, src, dst, n, 0,
                                                   static_cast<int>(sizeof(K) * 8), stream);
  if (err != cudaSuccess) return err;
  if constexpr (std::is_floating_point_v<K>) {
    int64_t* count = reinterpret_cast<int64_t*>(extra);
    U* row = reinterpret_cast<U*>(extra + kAlign);
    U* bits = static_cast<U*>(data);
    CountLeadingNegativeNans<U><<<1, 1, 0, stream>>>(bits, n, count);
    RotateLeft<U><<<Blocks(n), kThreads, 0, stream>>>(bits, row, n, count);
    CopyIfCounted<U><<<Blocks(n), kThreads, 0, stream>>>(row, bits, n, count);
  }
  return cudaGetLastError();
}

template <typename U, KeyMap M>
cudaError_t Sort(const void* in, void* data, int64_t* indices, int64_t rows, int64_t n,
                 void* scratch, size_t scratch_bytes, cudaStream_t stream) {
  if (data == nullptr && indices == nullptr) return cudaErrorInvalidValue;
  using K = typename NativeKey<U, M>::type;
  if constexpr (!std::is_void_v<K>) {
    if (UsesNative<U, M>(rows, in, data, indices)) {
      return SortNative<U, M, K>(in, data, n, scratch, scratch_bytes, stream);
    }
  }
  if (n <= kMaxNarrowRow) {
    return SortWith<U, M, uint32_t>(in, data, indices, rows, n, scratch, scratch_bytes, stream);
  }
  return SortWith<U, M, int64_t>(in, data, indices, rows, n, scratch, scratch_bytes, stream);
}

// Scratch for either way a sort of (U, M) may go (Sort decides).
template <typename U, KeyMap M>
size_t Scratch(int64_t rows, int64_t n, bool with_indices, bool with_values) {
  size_t bytes = ScratchBytes<U>(rows, n, with_indices, with_values);
  using K = typename NativeKey<U, M>::type;
  if constexpr (!std::is_void_v<K>) {
    if (!with_indices && with_values && rows == 1)
      bytes = std::max(bytes, NativeScratchBytes<K>(n));
  }
  return bytes;
}

}  // namespace

size_t SortScratchBytes(SortType type, int64_t rows, int64_t n, bool with_indices,
                        bool with_values) {
  const bool i = with_indices, v = with_values;
  switch (type) {
    case SortType::kBool:
    case SortType::kUInt8: return Scratch<uint8_t, KeyMap::kUnsigned>(rows, n, i, v);
    case SortType::kInt8: return Scratch<uint8_t, KeyMap::kSigned>(rows, n, i, v);
    case SortType::kUInt16: return Scratch<uint16_t, KeyMap::kUnsigned>(rows, n, i, v);
    case SortType::kInt16: return Scratch<uint16_t, KeyMap::kSigned>(rows, n, i, v);
    case SortType::kFloat16: return Scratch<uint16_t, KeyMap::kFloat>(rows, n, i, v);
    case SortType::kUInt32: return Scratch<uint32_t, KeyMap::kUnsigned>(rows, n, i, v);
    case SortType::kInt32: return Scratch<uint32_t, KeyMap::kSigned>(rows, n, i, v);
    case SortType::kFloat32: return Scratch<uint32_t, KeyMap::kFloat>(rows, n, i, v);
    case SortType::kUInt64: return Scratch<uint64_t, KeyMap::kUnsigned>(rows, n, i, v);
    case SortType::kInt64: return Scratch<uint64_t, KeyMap::kSigned>(rows, n, i, v);
    case SortType::kFloat64: return Scratch<uint64_t, KeyMap::kFloat>(rows, n, i, v);
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
