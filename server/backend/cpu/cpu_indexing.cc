// CPU kernels of selection and reordering: where, gather, scatter, nonzero
// and sort.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/strings/str_cat.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_loops.h"
#include "common/status.h"
#include "kernels/functors.h"
#include "kernels/host_dispatch.h"

namespace arrayd {
namespace cpu {
namespace {

using kernels::DispatchDType;

// Byte offset of C-order flat position `flat` in view `v`.
int64_t OffsetOf(const View& v, int64_t flat) {
  if (v.ndim() == 1) return flat * v.strides[0];  // the common case, no division
  int64_t offset = 0;
  for (int d = v.ndim() - 1; d >= 0; --d) {
    int64_t n = v.shape[d];
    offset += (flat % n) * v.strides[d];
    flat /= n;
  }
  return offset;
}

using kernels::SortLess;

// fn(std::integral_constant<int, B>) for the item size B of a dtype (1, 2,
// 4, 8 or 16 bytes): copies of a compile-time size.
template <typename Fn>
absl::Status ByItemSize(int item, const Fn& fn) {
  switch (item) {
    case 1: fn(std::integral_constant<int, 1>{}); break;
    case 2: fn(std::integral_constant<int, 2>{}); break;
    case 4: fn(std::integral_constant<int, 4>{}); break;
    case 8: fn(std::integral_constant<int, 8>{}); break;
    case 16: fn(std::integral_constant<int, 16>{}); break;
    default: return absl::InternalError("unexpected item size");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CpuWhere(const View& cond, const View& x, const View& y, const View& out) {
  return DispatchDType(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    ForEachRun<4>({&cond, &x, &y, &out}, [](int64_t n, const std::array<char*, 4>& p,
                                            const std::array<int64_t, 4>& step) {
      const bool* c = reinterpret_cast<const bool*>(p[0]);
      T* o = reinterpret_cast<T*>(p[3]);
      constexpr int64_t t = sizeof(T);
      // Contiguous operands, or a broadcast value for x or y (where(c, x, 0)).
      if (step[0] == 1 && step[3] == t && (step[1] == t || step[1] == 0) &&
          (step[2] == t || step[2] == 0)) {
        const T* x = reinterpret_cast<const T*>(p[1]);
        const T* y = reinterpret_cast<const T*>(p[2]);
        const int64_t dx = step[1] / t, dy = step[2] / t;
        for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? x[i * dx] : y[i * dy];
        return;
      }
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<T*>(p[3] + i * step[3]) =
            *reinterpret_cast<const bool*>(p[0] + i * step[0])
                ? *reinterpret_cast<const T*>(p[1] + i * step[1])
                : *reinterpret_cast<const T*>(p[2] + i * step[2]);
      }
    });
    return absl::OkStatus();
  });
}

namespace {

// Gather with a compile-time item size B (one load and one store each).
template <int B>
void GatherItems(const View& in, const View& index, const View& out) {
  const char* base = in.data();
  if (in.IsCContiguous()) {  // a flat position is an offset: no division
    ForEachRun<2>({&index, &out}, [&](int64_t n, const std::array<char*, 2>& p,
                                      const std::array<int64_t, 2>& step) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t flat = *reinterpret_cast<const int64_t*>(p[0] + i * step[0]);
        std::memcpy(p[1] + i * step[1], base + flat * B, B);
      }
    });
    return;
  }
  ForEachElement<2>({&index, &out}, [&](const std::array<char*, 2>& p) {
    int64_t flat = *reinterpret_cast<const int64_t*>(p[0]);
    std::memcpy(p[1], base + OffsetOf(in, flat), B);
  });
}

}  // namespace

absl::Status CpuGather(const View& in, const View& index, const View& out) {
  return ByItemSize(ItemSize(in.dtype), [&](auto b) { GatherItems<decltype(b)::value>(in, index, out); });
}

namespace {

// take's copy with a compile-time item size B, so that each element is one
// load and one store (a memcpy of a runtime size is a call per element).
// The indices are checked as the first row is copied (one pass); returns
// the position of the first one out of [-n, n), or -1.
template <int B>
int64_t TakeItems(const View& x, const int64_t* idx, int64_t m, char* dst) {
  const int64_t outer = x.shape[0], n = x.shape[1], inner = x.shape[2];
  const int64_t s0 = x.strides[0], s1 = x.strides[1], s2 = x.strides[2];
  for (int64_t j = 0; outer > 0 && inner != 1 && j < m; ++j) {
    if (idx[j] < -n || idx[j] >= n) return j;
  }
  for (int64_t o = 0; o < outer; ++o) {
    const char* row = x.data() + o * s0;
    if (inner == 1) {
      for (int64_t j = 0; j < m; ++j, dst += B) {
        const int64_t raw = idx[j];
        if (o == 0 && (raw < -n || raw >= n)) return j;
        const int64_t v = raw < 0 ? raw + n : raw;
        std::memcpy(dst, row + v * s1, B);
      }
      continue;
    }
    for (int64_t j = 0; j < m; ++j) {
      const int64_t v = idx[j] < 0 ? idx[j] + n : idx[j];
      const char* src = row + v * s1;
      for (int64_t i = 0; i < inner; ++i, dst += B) std::memcpy(dst, src + i * s2, B);
    }
  }
  return -1;
}

}  // namespace

absl::Status CpuTakeChecked(const View& x, const View& index, int axis, const View& out) {
  const int64_t n = x.shape[1];
  const int64_t m = index.size();
  const int64_t* idx = reinterpret_cast<const int64_t*>(index.data());
  int64_t bad = -1;
  ARRAYD_RETURN_IF_ERROR(ByItemSize(ItemSize(x.dtype), [&](auto b) {
    bad = TakeItems<decltype(b)::value>(x, idx, m, out.data());
  }));
  if (bad >= 0) {
    return IndexError(absl::StrCat("index ", idx[bad], " is out of bounds for axis ", axis,
                                   " with size ", n));
  }
  return absl::OkStatus();
}

absl::Status CpuWrapIndex(const View& index, int64_t n, int axis, const View& out) {
  const int64_t* idx = reinterpret_cast<const int64_t*>(index.data());
  int64_t* o = reinterpret_cast<int64_t*>(out.data());
  const int64_t m = index.size();
  for (int64_t k = 0; k < m; ++k) {
    if (idx[k] < -n || idx[k] >= n) {
      return IndexError(absl::StrCat("index ", idx[k], " is out of bounds for axis ", axis,
                                     " with size ", n));
    }
  }
  for (int64_t k = 0; k < m; ++k) o[k] = idx[k] < 0 ? idx[k] + n : idx[k];
  return absl::OkStatus();
}

absl::Status CpuScatter(const View& values, const View& index, const View& target) {
  const int64_t size = target.size();
  // Every index is checked before anything is written.
  absl::Status bad = absl::OkStatus();
  ForEachElement<1>({&index}, [&](const std::array<char*, 1>& p) {
    const int64_t v = *reinterpret_cast<const int64_t*>(p[0]);
    if ((v < -size || v >= size) && bad.ok()) {
      bad = IndexError(
          absl::StrCat("index ", v, " is out of bounds for axis 0 with size ", size));
    }
  });
  ARRAYD_RETURN_IF_ERROR(bad);
  // 1-D contiguous indices and values into a C-contiguous target of the
  // values' dtype (x[idx] = v): one load and one store an element.
  if (values.dtype == target.dtype && index.ndim() == 1 && values.ndim() == 1 &&
      index.strides[0] == 8 && target.IsCContiguous()) {
    const int64_t* idx = reinterpret_cast<const int64_t*>(index.data());
    const int64_t m = index.size(), vs = values.strides[0];
    return ByItemSize(ItemSize(values.dtype), [&](auto b) {
      constexpr int B = decltype(b)::value;
      const char* src = values.data();
      char* base = target.data();
      for (int64_t k = 0; k < m; ++k, src += vs) {
        const int64_t v = idx[k] < 0 ? idx[k] + size : idx[k];
        std::memcpy(base + v * B, src, B);
      }
    });
  }
  return DispatchDType(values.dtype, [&](auto src_tag) {
    using S = typename decltype(src_tag)::type;
    return DispatchDType(target.dtype, [&](auto dst_tag) {
      using D = typename decltype(dst_tag)::type;
      char* base = target.data();
      ForEachElement<2>({&index, &values}, [&](const std::array<char*, 2>& p) {
        int64_t flat = *reinterpret_cast<const int64_t*>(p[0]);
        if (flat < 0) flat += size;
        *reinterpret_cast<D*>(base + OffsetOf(target, flat)) =
            kernels::Cast<D>(*reinterpret_cast<const S*>(p[1]));
      });
      return absl::OkStatus();
    });
  });
}

absl::Status CpuScan(kernels::BinaryOp op, const View& a) {
  if (!a.IsCContiguous() || (op != kernels::BinaryOp::kAdd && op != kernels::BinaryOp::kMultiply)) {
    return absl::UnimplementedError("scan: a C-contiguous sum or product only");
  }
  const int64_t n = a.ndim() == 0 ? 1 : a.shape.back();
  if (n == 0) return absl::OkStatus();
  const int64_t rows = a.size() / n;
  return DispatchDType(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* row = reinterpret_cast<T*>(a.data());
    for (int64_t r = 0; r < rows; ++r, row += n) {
      // NumPy's order: one running value per row, element after element.
      for (int64_t j = 1; j < n; ++j) {
        row[j] = op == kernels::BinaryOp::kAdd ? kernels::AddOp()(row[j - 1], row[j])
                                               : kernels::MultiplyOp()(row[j - 1], row[j]);
      }
    }
    return absl::OkStatus();
  });
}

absl::Status CpuNonzero(const View& mask, const View& out) {
  int64_t flat = 0, k = 0;
  const int64_t n = out.size();
  int64_t* o = reinterpret_cast<int64_t*>(out.data());
  int64_t spare = 0;  // where positions past out's end go
  ForEachRun<1>({&mask}, [&](int64_t len, const std::array<char*, 1>& p,
                             const std::array<int64_t, 1>& step) {
    // Without branches: every position is stored, the count advances by
    // the flag (a select, not a jump).
    const char* m = p[0];
    for (int64_t i = 0; i < len; ++i, ++flat) {
      int64_t* dst = k < n ? o + k : &spare;
      *dst = flat;
      k += *reinterpret_cast<const bool*>(m + i * step[0]) ? 1 : 0;
    }
  });
  if (k != n) {
    return ValueError(absl::StrCat("flatnonzero: the mask has ", k,
                                   " true elements, the client expected ", n));
  }
  return absl::OkStatus();
}

// An element as an unsigned key whose order is NumPy's sort order (NaNs
// last, whatever their sign; -0.0 equal to 0.0), for the radix sort below; the dtypes of
// kernels/types.h but complex.
template <typename T>
constexpr bool kRadixSortable = true;
template <typename T>
constexpr bool kRadixSortable<kernels::Complex<T>> = false;

template <typename T>
auto OrderedKey(T v) {
  using U = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t,
                         std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  constexpr U kSign = static_cast<U>(U{1} << (8 * sizeof(T) - 1));
  U bits;
  std::memcpy(&bits, &v, sizeof(T));
  if constexpr (std::is_same_v<T, kernels::Half> || std::is_floating_point_v<T>) {
    if (kernels::IsNan(v)) return static_cast<U>(~U{0});
    bool zero;  // -0.0 == 0.0: one key
    if constexpr (std::is_same_v<T, kernels::Half>) {
      zero = static_cast<float>(v) == 0.0f;
    } else {
      zero = v == T(0);
    }
    if (zero) return kSign;
    return static_cast<U>((bits & kSign) ? ~bits : (bits | kSign));
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<U>(bits ^ kSign);
  } else {
    return bits;
  }
}

// Whether v's OrderedKey gives v back (FromOrderedKey): all but NaNs and
// -0.0 (integers: all).
template <typename T>
bool KeyIsExact(T v) {
  if constexpr (std::is_same_v<T, kernels::Half> || std::is_floating_point_v<T>) {
    using U = decltype(OrderedKey(T()));
    constexpr U kSign = static_cast<U>(U{1} << (8 * sizeof(T) - 1));
    U bits;
    std::memcpy(&bits, &v, sizeof(T));
    return !kernels::IsNan(v) && bits != kSign;
  } else {
    return true;
  }
}
template <typename T, typename U>
T FromOrderedKey(U key) {  // OrderedKey's inverse where KeyIsExact
  constexpr U kSign = static_cast<U>(U{1} << (8 * sizeof(T) - 1));
  U bits;
  if constexpr (std::is_same_v<T, kernels::Half> || std::is_floating_point_v<T>) {
    // Branch-free: set sign bit (was positive) -> flip it, else flip all.
    bits = key ^ (static_cast<U>((key >> (8 * sizeof(T) - 1)) - U{1}) | kSign);
  } else if constexpr (std::is_signed_v<T>) {
    bits = static_cast<U>(key ^ kSign);
  } else {
    bits = key;
  }
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}

// No payload: RadixSortPairs moves the keys alone.
struct NoPayload {};

// The kBits-bit digit of key k less `low` (the smallest key of the line)
// at bit `shift`.
template <int kBits, typename U>
uint32_t DigitOf(U k, U low, int shift) {
  return static_cast<U>(k - low) >> shift & ((1u << kBits) - 1);
}

// One LSD pass of a line too long for the caches (keys of many megabytes):
// each element goes to its digit's cache-line buffer, and a full line goes
// out at once by non-temporal stores (four 16-byte SSE2 stores, combined
// into one line write without first reading it). Stores to 256 or 2048
// destinations at once took ~3.7 ns an element where the core's line-fill
// buffers ran out; a line a store: ~1.8 ns, a 2^24 float32 sort 207 ->
// ~120 ms on the development machine. `at` holds each digit's first output
// position; the line buffers are `kbuf` and `pbuf`. The outputs are 64-byte
// aligned (the caller checks).
template <int kBits, typename U, typename P>
void ScatterByLines(size_t n, const U* keys, const P* payload, U* keys_out, P* payload_out,
                    U low, int shift, uint32_t* at, U* kbuf, P* pbuf) {
  constexpr bool kPayload = !std::is_same_v<P, NoPayload>;
  constexpr uint32_t kLine = 64 / sizeof(U);  // keys a line; payloads as many
  std::vector<uint32_t> start(at, at + (size_t{1} << kBits));
  // Streams a full line buffer out; its first elements may precede the
  // digit's start (those positions are rewritten below).
  auto store = [](const void* from, void* to, size_t bytes) {
#if defined(__SSE2__)
    const __m128i* f = static_cast<const __m128i*>(from);
    __m128i* t = static_cast<__m128i*>(to);
    for (size_t i = 0; i < bytes / 16; ++i) _mm_stream_si128(t + i, _mm_load_si128(f + i));
#else
    std::memcpy(to, from, bytes);
#endif
  };
  for (size_t i = 0; i < n; ++i) {
    const U k = keys[i];
    const uint32_t d = DigitOf<kBits>(k, low, shift);
    const uint32_t to = at[d]++;
    const uint32_t slot = to % kLine;
    kbuf[d * kLine + slot] = k;
    if constexpr (kPayload) pbuf[d * kLine + slot] = payload[i];
    if (slot == kLine - 1) {
      const uint32_t first = to - (kLine - 1);
      store(kbuf + d * kLine, keys_out + first, sizeof(U) * kLine);
      if constexpr (kPayload) store(pbuf + d * kLine, payload_out + first, sizeof(P) * kLine);
    }
  }
#if defined(__SSE2__)
  _mm_sfence();  // the streamed lines before the ordinary stores below
#endif
  // Each digit's last partial line, in ordinary stores after the streamed
  // ones: that rewrites the positions a later digit's first streamed line
  // covered before its start, whose buffer held no values for them.
  for (size_t d = 0; d < start.size(); ++d) {
    const uint32_t begin = start[d], end = at[d];
    const uint32_t tail = std::max(begin, end - end % kLine);
    for (uint32_t to = tail; to < end; ++to) {
      keys_out[to] = kbuf[d * kLine + to % kLine];
      if constexpr (kPayload) payload_out[to] = pbuf[d * kLine + to % kLine];
    }
  }
}

// The histograms of the `digits` lowest kBits-bit digits of keys less
// `low`, in one pass: the count of digits a compile-time constant (kD, the
// most there can be, down to `digits`), so that the loop over them unrolls.
template <int kBits, int kD, typename U, typename Counts>
void CountDigits(int digits, size_t n, const U* keys, U low, Counts& count) {
  if constexpr (kD > 1) {
    if (digits < kD) return CountDigits<kBits, kD - 1>(digits, n, keys, low, count);
  }
  for (size_t i = 0; i < n; ++i) {
    const U k = keys[i];
    for (int d = 0; d < kD; ++d) ++count[d][DigitOf<kBits>(k, low, kBits * d)];
  }
}

// A stable LSD radix sort of n < 2^32 `keys` with a payload each
// (P = NoPayload: none) by kBits-bit digits of the key less the smallest,
// `low`, whose `bits` lowest bits are all that vary: the histograms of
// every digit are counted in one pass first, and digits all keys share are
// skipped. `keys_tmp` and `payload_tmp` are scratch of the same sizes;
// returns whether the results ended in the scratch (the buffers swap each
// pass). Lines beyond the caches whose buffers are 64-byte aligned are
// scattered by ScatterByLines.
template <int kBits, typename U, typename P>
bool RadixSortDigits(size_t n, U* keys, P* payload, U* keys_tmp, P* payload_tmp, U low,
                     int bits) {
  constexpr size_t kBuckets = size_t{1} << kBits;
  constexpr bool kPayload = !std::is_same_v<P, NoPayload>;
  const int digits = (bits + kBits - 1) / kBits;
  auto digit = [low](U k, int shift) { return DigitOf<kBits>(k, low, shift); };
  std::vector<std::array<uint32_t, kBuckets>> count(static_cast<size_t>(digits));
  CountDigits<kBits, (8 * sizeof(U) + kBits - 1) / kBits>(digits, n, keys, low, count);
  auto aligned = [](const void* p) { return p == nullptr || reinterpret_cast<uintptr_t>(p) % 64 == 0; };
  const bool by_lines = n >= (size_t{1} << 20) && aligned(keys) && aligned(keys_tmp) &&
                        (!kPayload || (aligned(payload) && aligned(payload_tmp)));
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<U, Free> kbuf;
  std::unique_ptr<P, Free> pbuf;
  if (by_lines) {
    constexpr size_t kLine = 64 / sizeof(U);
    kbuf.reset(static_cast<U*>(std::aligned_alloc(64, kBuckets * kLine * sizeof(U))));
    if constexpr (kPayload) {
      pbuf.reset(static_cast<P*>(std::aligned_alloc(64, kBuckets * kLine * sizeof(P))));
    }
  }
  bool swapped = false;
  for (int d = 0; d < digits; ++d) {
    auto& c = count[d];
    const int shift = kBits * d;
    if (c[digit(keys[0], shift)] == n) continue;  // one digit: nothing moves
    uint32_t at = 0;
    for (uint32_t& v : c) {
      const uint32_t here = v;
      v = at;
      at += here;
    }
    if (kbuf != nullptr && (!kPayload || pbuf != nullptr)) {
      ScatterByLines<kBits>(n, keys, payload, keys_tmp, payload_tmp, low, shift, c.data(),
                            kbuf.get(), pbuf.get());
    } else {
      for (size_t i = 0; i < n; ++i) {
        const uint32_t to = c[digit(keys[i], shift)]++;
        keys_tmp[to] = keys[i];
        if constexpr (kPayload) payload_tmp[to] = payload[i];
      }
    }
    std::swap(keys, keys_tmp);
    if constexpr (kPayload) std::swap(payload, payload_tmp);
    swapped = !swapped;
  }
  return swapped;
}

// RadixSortDigits over the range of the keys (the bits in which the
// smallest and the largest differ: keys within 2^41 of each other take 41
// bits, not 64). The range is found on lines that the caches hold (the
// keys were just written); on a long line that pass over memory cost a
// 2^24 float32 sort a third of its time, and the skipped digits serve it.
// 11-bit digits for long lines of wide keys (3 passes for 32-bit keys
// instead of 4), and for shorter lines where they save two passes or more
// (4 for a 41-bit range instead of 6: int64 rows of 4096, 252 -> 145 ms);
// else 8-bit ones (the histograms would outweigh the keys).
template <typename U, typename P>
bool RadixSortPairs(size_t n, U* keys, P* payload, U* keys_tmp, P* payload_tmp) {
  if (n < 2) return false;
  U low = 0;
  int bits = 8 * sizeof(U);
  if (n < (size_t{1} << 16)) {
    U high = keys[0];
    low = keys[0];
    for (size_t i = 1; i < n; ++i) {
      low = std::min(low, keys[i]);
      high = std::max(high, keys[i]);
    }
    if (low == high) return false;
    bits = 0;
    for (U span = static_cast<U>(high - low); span != 0; span >>= 1) ++bits;
  }
  const bool wide = sizeof(U) >= 4 && (n >= (size_t{1} << 16) ||
                                       (n >= 2048 && (bits + 10) / 11 + 2 <= (bits + 7) / 8));
  if (wide) return RadixSortDigits<11>(n, keys, payload, keys_tmp, payload_tmp, low, bits);
  return RadixSortDigits<8>(n, keys, payload, keys_tmp, payload_tmp, low, bits);
}

// OrderedKey's type (complex: none; a placeholder).
template <typename T, bool = kRadixSortable<T>>
struct RadixKey {
  using type = decltype(OrderedKey(T()));
};
template <typename T>
struct RadixKey<T, false> {
  using type = uint64_t;
};

// Scratch of RadixSortLine for lines of n elements, kept across the lines
// of one sort: each array allocated where a line first needs it.
template <typename U>
class RadixScratch {
 public:
  enum Slot { kKeys, kKeysTmp, kBits, kBitsTmp, kPos, kPosTmp, kSlots };
  RadixScratch(ScratchFn alloc, size_t n) : alloc_(alloc), n_(n) {}
  template <typename E>
  absl::StatusOr<E*> Get(Slot slot) {
    if (slots_[slot] == nullptr) {
      ARRAYD_ASSIGN_OR_RETURN(slots_[slot], alloc_(n_ * sizeof(E)));
    }
    return static_cast<E*>(slots_[slot]->data());
  }

 private:
  ScratchFn alloc_;
  const size_t n_;
  std::shared_ptr<Buffer> slots_[kSlots];
};

// One line of n elements (`stride` bytes apart) sorted by the radix sort:
// for a sort, the keys alone where they give the values back exactly (no
// NaN, no -0.0: the common case, half the traffic), else with the
// elements' bits as the payload (the values come out as they were: -0.0
// stays -0.0, a NaN keeps its payload); for an argsort with their
// positions (and the values gathered by them when wanted).
template <typename T, typename U>
absl::Status RadixSortLine(const char* line, int64_t stride, int64_t n, T* out,
                           int64_t* indices, RadixScratch<U>* s) {
  using Slot = typename RadixScratch<U>::Slot;
  const size_t m = static_cast<size_t>(n);
  ARRAYD_ASSIGN_OR_RETURN(U * keys, s->template Get<U>(Slot::kKeys));
  ARRAYD_ASSIGN_OR_RETURN(U * keys_tmp, s->template Get<U>(Slot::kKeysTmp));
  auto ordered_keys = [&] {
    bool exact = true;
    for (size_t i = 0; i < m; ++i) {
      const T v = *reinterpret_cast<const T*>(line + i * stride);
      keys[i] = OrderedKey(v);
      exact &= KeyIsExact(v);
    }
    return exact;
  };
  bool exact;
  if constexpr (std::is_floating_point_v<T>) {
    // Branch-free (it vectorizes): the sign-flipped bits, which are
    // OrderedKey's where there is no NaN and no -0.0; else OrderedKey's.
    constexpr U kSign = static_cast<U>(U{1} << (8 * sizeof(T) - 1));
    constexpr U kInf = static_cast<U>(std::is_same_v<T, float> ? 0x7f800000ull : 0x7ff0000000000000ull);
    U odd = 0;
    for (size_t i = 0; i < m; ++i) {
      U bits;
      std::memcpy(&bits, line + i * stride, sizeof(T));
      keys[i] = bits ^ (static_cast<U>(U{0} - (bits >> (8 * sizeof(T) - 1))) | kSign);
      odd |= static_cast<U>((bits & ~kSign) > kInf) | static_cast<U>(bits == kSign);
    }
    exact = odd == 0 || ordered_keys();
  } else {
    exact = ordered_keys();
  }
  if (indices == nullptr && exact) {
    NoPayload* none = nullptr;
    const U* sorted = RadixSortPairs(m, keys, none, keys_tmp, none) ? keys_tmp : keys;
    for (size_t i = 0; i < m; ++i) out[i] = FromOrderedKey<T>(sorted[i]);
    return absl::OkStatus();
  }
  if (indices == nullptr) {
    ARRAYD_ASSIGN_OR_RETURN(U * bits, s->template Get<U>(Slot::kBits));
    ARRAYD_ASSIGN_OR_RETURN(U * bits_tmp, s->template Get<U>(Slot::kBitsTmp));
    for (size_t i = 0; i < m; ++i) std::memcpy(&bits[i], line + i * stride, sizeof(T));
    const bool swapped = RadixSortPairs(m, keys, bits, keys_tmp, bits_tmp);
    std::memcpy(out, swapped ? bits_tmp : bits, m * sizeof(T));
    return absl::OkStatus();
  }
  ARRAYD_ASSIGN_OR_RETURN(uint32_t * pos, s->template Get<uint32_t>(Slot::kPos));
  ARRAYD_ASSIGN_OR_RETURN(uint32_t * pos_tmp, s->template Get<uint32_t>(Slot::kPosTmp));
  for (size_t i = 0; i < m; ++i) pos[i] = static_cast<uint32_t>(i);
  if (RadixSortPairs(m, keys, pos, keys_tmp, pos_tmp)) pos = pos_tmp;
  for (size_t i = 0; i < m; ++i) indices[i] = pos[i];
  if (out != nullptr) {
    for (size_t i = 0; i < m; ++i) out[i] = *reinterpret_cast<const T*>(line + pos[i] * stride);
  }
  return absl::OkStatus();
}

absl::Status CpuSort(const View& in, const View* out, const View* indices, ScratchFn scratch) {
  if (in.size() == 0) return absl::OkStatus();
  const int64_t n = in.ndim() == 0 ? 1 : in.shape.back();
  const int64_t lines = in.size() / n;
  // Lines of a C-contiguous view, or of a C-contiguous copy of it.
  View src = in;
  if (!in.IsCContiguous()) {
    ARRAYD_ASSIGN_OR_RETURN(src.buffer, scratch(static_cast<size_t>(in.nbytes())));
    src.offset = 0;
    src.strides = CStrides(in.shape, ItemSize(in.dtype));
    ARRAYD_RETURN_IF_ERROR(CpuCopy(in, src));
  }
  return DispatchDType(in.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    const int64_t item = sizeof(T);
    RadixScratch<typename RadixKey<T>::type> radix(scratch, static_cast<size_t>(n));
    for (int64_t line = 0; line < lines; ++line) {
      const char* row = src.data() + line * n * item;
      T* o = out == nullptr ? nullptr : reinterpret_cast<T*>(out->data()) + line * n;
      int64_t* ind =
          indices == nullptr ? nullptr : reinterpret_cast<int64_t*>(indices->data()) + line * n;
      if constexpr (kRadixSortable<T>) {
        if (n <= int64_t{0xffffffff}) {
          ARRAYD_RETURN_IF_ERROR(RadixSortLine<T>(row, item, n, o, ind, &radix));
          continue;
        }
      }
      std::vector<int64_t> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      auto at = [&](int64_t i) { return *reinterpret_cast<const T*>(row + i * item); };
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return SortLess(at(a), at(b)); });
      if (o != nullptr) {
        for (int64_t i = 0; i < n; ++i) o[i] = at(order[i]);
      }
      if (ind != nullptr) std::copy(order.begin(), order.end(), ind);
    }
    return absl::OkStatus();
  });
}

// Puts the k-th smallest of a[0, n) (no NaN) at a[k], the smaller before
// it and the rest after, by quickselect on branch-free partitions (an
// unconditional swap a step, as "Lomuto's comeback": random data costs no
// mispredicted branch, where std::nth_element's Hoare loop pays one every
// other element); pivots the median of three, equal runs split off, and
// std::nth_element past a depth that random pivots do not reach.
template <typename T>
void SelectKth(T* a, int64_t n, int64_t k) {
  int64_t lo = 0, hi = n;
  for (int depth = 0; hi - lo > 64; ++depth) {
    if (depth > 64) {
      std::nth_element(a + lo, a + k, a + hi);
      return;
    }
    const int64_t mid = lo + (hi - lo) / 2;
    const T x = a[lo], y = a[mid], z = a[hi - 1];
    const T pivot = std::max(std::min(x, y), std::min(std::max(x, y), z));
    int64_t i = lo;  // [lo, i) < pivot
    for (int64_t j = lo; j < hi; ++j) {
      const T v = a[j];
      const bool less = v < pivot;
      a[j] = a[i];
      a[i] = v;
      i += less;
    }
    if (k < i) {
      hi = i;
      continue;
    }
    int64_t e = i;  // [i, e) == pivot (none of them is less)
    for (int64_t j = i; j < hi; ++j) {
      const T v = a[j];
      const bool same = !(pivot < v);
      a[j] = a[e];
      a[e] = v;
      e += same;
    }
    if (k < e) return;  // a[k] is the pivot, in place
    lo = e;
  }
  std::sort(a + lo, a + hi);
}

// out[0, n) = in[0, n) of a float type; whether one is a NaN, found on
// the bits (an integer compare that vectorizes, in the copy's pass).
template <typename T>
bool CopyFindingNaN(const T* in, int64_t n, T* out) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U kSign = U{1} << (8 * sizeof(T) - 1);
  constexpr U kInf = static_cast<U>(sizeof(T) == 4 ? 0x7f800000ull : 0x7ff0000000000000ull);
  U nan = 0;
  for (int64_t i = 0; i < n; ++i) {
    U bits;
    std::memcpy(&bits, in + i, sizeof(T));
    std::memcpy(out + i, &bits, sizeof(T));
    nan |= static_cast<U>((bits & ~kSign) > kInf);
  }
  return nan != 0;
}

// Selection for each kth in increasing order, each within what the
// previous one left to its right: values by SelectKth (NaNs moved last
// first), argpartition by std::nth_element (introselect, as NumPy's).
absl::Status CpuPartition(const View& in, const View* out, const View* indices,
                          absl::Span<const int64_t> kth) {
  if (in.size() == 0) return absl::OkStatus();
  const int64_t n = in.ndim() == 0 ? 1 : in.shape.back();
  const int64_t lines = in.size() / n;
  return DispatchDType(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto less = [](const T& a, const T& b) { return SortLess(a, b); };
    // The line's values (bool too: no std::vector<bool>).
    std::vector<char> scratch(out == nullptr ? static_cast<size_t>(n) * sizeof(T) : 0);
    for (int64_t line = 0; line < lines; ++line) {
      T* o = out == nullptr ? reinterpret_cast<T*>(scratch.data())
                            : reinterpret_cast<T*>(out->data()) + line * n;
      bool nan = std::is_floating_point_v<T>;  // whether the line may hold a NaN
      if (in.IsCContiguous()) {
        const char* from = in.data() + line * n * sizeof(T);
        if constexpr (std::is_floating_point_v<T>) {
          nan = CopyFindingNaN(reinterpret_cast<const T*>(from), n, o);
        } else {
          std::memcpy(static_cast<void*>(o), from, n * sizeof(T));
        }
      } else {
        for (int64_t i = 0; i < n; ++i) {
          o[i] = *reinterpret_cast<const T*>(in.data() + OffsetOf(in, line * n + i));
        }
      }
      if (indices == nullptr) {
        int64_t end = n;  // values before end are ordered by <
        if constexpr (std::is_floating_point_v<T>) {
          // NaNs last (NumPy's order): the rest select with a plain <.
          if (nan) end = std::partition(o, o + n, [](T v) { return v == v; }) - o;
        }
        int64_t from = 0;
        for (int64_t k : kth) {
          if constexpr (std::is_floating_point_v<T> || std::is_integral_v<T>) {
            if (k < end) SelectKth(o + from, end - from, k - from);
          } else {
            std::nth_element(o + from, o + k, o + n, less);
          }
          from = k + 1;
        }
        continue;
      }
      int64_t* ind = reinterpret_cast<int64_t*>(indices->data()) + line * n;
      std::iota(ind, ind + n, int64_t{0});
      auto by_value = [&](int64_t a, int64_t b) { return SortLess(o[a], o[b]); };
      int64_t from = 0;
      for (int64_t k : kth) {
        std::nth_element(ind + from, ind + k, ind + n, by_value);
        from = k + 1;
      }
      if (out != nullptr) {  // the values in the indices' order
        std::vector<char> copy(reinterpret_cast<const char*>(o),
                               reinterpret_cast<const char*>(o + n));
        const T* line_values = reinterpret_cast<const T*>(copy.data());
        for (int64_t i = 0; i < n; ++i) o[i] = line_values[ind[i]];
      }
    }
    return absl::OkStatus();
  });
}

absl::Status CpuSearchSorted(const View& a, const View& v, bool right, const View& out) {
  const int64_t n = a.shape[0];
  const int64_t stride = n > 1 ? a.strides[0] : 0;
  return DispatchDType(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    ForEachElement<2>({&v, &out}, [&](const std::array<char*, 2>& p) {
      *reinterpret_cast<int64_t*>(p[1]) = kernels::SearchSorted<T>(
          a.data(), n, stride, right, *reinterpret_cast<const T*>(p[0]));
    });
    return absl::OkStatus();
  });
}

absl::Status CpuBincount(const View& x, const View* weights, const View& out) {
  const uint64_t length = static_cast<uint64_t>(out.shape[0]);
  const int64_t n = x.shape[0];
  // Byte strides read once (the stores below might alias a View's).
  const int64_t xs = x.strides[0];
  const char* xp = x.data();
  auto value = [&](int64_t i) {
    int64_t v;
    std::memcpy(&v, xp + i * xs, 8);
    return static_cast<uint64_t>(v);
  };
  // In order, as NumPy adds the weights; a negative value (or one past
  // the end) is not counted: as unsigned it is past the end.
  if (weights == nullptr) {
    auto* counts = reinterpret_cast<int64_t*>(out.data());
    std::fill(counts, counts + length, 0);
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t b = value(i);
      if (b < length) ++counts[b];
    }
    return absl::OkStatus();
  }
  auto* sums = reinterpret_cast<double*>(out.data());
  std::fill(sums, sums + length, 0.0);
  const int64_t ws = weights->strides[0];
  const char* wp = weights->data();
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t b = value(i);
    if (b < length) sums[b] += *reinterpret_cast<const double*>(wp + i * ws);
  }
  return absl::OkStatus();
}

absl::Status CpuHistogram(const View& a, const View& edges, const View* weights,
                          const View& out) {
  const int64_t ne = edges.shape[0], n = a.shape[0], bins = out.shape[0];
  const int64_t es = ne > 1 ? edges.strides[0] : 0;
  std::memset(out.data(), 0, static_cast<size_t>(bins) * 8);
  return DispatchDType(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const double scale = kernels::HistogramScale<T>(edges.data(), ne, es);
    for (int64_t i = 0; i < n; ++i) {
      const T v = *reinterpret_cast<const T*>(a.data() + i * a.strides[0]);
      const int64_t b = kernels::HistogramBinGuessed<T>(edges.data(), ne, es, scale, v);
      if (b < 0) continue;
      if (weights == nullptr) {
        ++reinterpret_cast<int64_t*>(out.data())[b];
      } else {  // in order, as NumPy adds them
        reinterpret_cast<double*>(out.data())[b] +=
            *reinterpret_cast<const double*>(weights->data() + i * weights->strides[0]);
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace cpu
}  // namespace arrayd
