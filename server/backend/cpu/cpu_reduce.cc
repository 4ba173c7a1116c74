// CPU reductions: sum, prod, min, max, all, any along axes, and argmin/argmax.
#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_loops.h"
#include "common/status.h"
#include "kernels/functors.h"
#include "kernels/host_dispatch.h"

namespace arrayd {
namespace cpu {
namespace {

using kernels::Cast;
using kernels::DispatchDType;
using kernels::ReduceOp;

// The accumulator of a reduction over contiguous values: half in float (as
// NumPy's pairwise sum), float in float; integers wrap in their own type,
// as NumPy's do. (The row by row fold over outer axes, ReduceRows,
// accumulates in the element type itself, as NumPy's does.)
template <typename T> struct Acc { using type = T; };
template <> struct Acc<kernels::Half> { using type = float; };
template <> struct Acc<kernels::c64> { using type = kernels::c128; };

// `v` with its data starting at `p`.
View At(const View& v, const char* p) {
  View out = v;
  out.offset = p - static_cast<const char*>(v.buffer->data());
  return out;
}

// Calls fn with the functor of a sum, prod, max or min (not all/any).
template <typename Fn>
void WithFoldOp(ReduceOp op, Fn&& fn) {
  switch (op) {
    case ReduceOp::kSum: fn(kernels::AddOp()); break;
    case ReduceOp::kProd: fn(kernels::MultiplyOp()); break;
    case ReduceOp::kMax: fn(kernels::MaximumOp()); break;
    default: fn(kernels::MinimumOp()); break;
  }
}

// NumPy's pairwise sum of n > 0 contiguous values, cast to A as they are
// read: blocks of at most 128 in eight interleaved sums (which vectorize),
// combined in a tree, larger runs split in halves (multiples of eight).
template <typename A, typename T>
A PairwiseSum(const T* p, int64_t n) {
  if (n < 8) {
    A r = Cast<A>(p[0]);
    for (int64_t i = 1; i < n; ++i) r = r + Cast<A>(p[i]);
    return r;
  }
  if (n <= 128) {
    A r[8];
    for (int j = 0; j < 8; ++j) r[j] = Cast<A>(p[j]);
    int64_t i = 8;
    for (; i + 8 <= n; i += 8) {
      for (int j = 0; j < 8; ++j) r[j] = r[j] + Cast<A>(p[i + j]);
    }
    A sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum = sum + Cast<A>(p[i]);
    return sum;
  }
  int64_t half = n / 2;
  half -= half % 8;
  return PairwiseSum<A>(p, half) + PairwiseSum<A>(p + half, n - half);
}

// op folded over n > 0 contiguous values, starting from the first ones (as
// NumPy's reduce does), in four independent chains once there are four: the
// CPU overlaps them (a float32 sum ran ~4x faster than one chain). Sums of
// inexact values are NumPy's pairwise sum.
template <typename A, typename T, typename Op>
A Fold(const T* p, int64_t n, Op op) {
  if constexpr (std::is_same_v<Op, kernels::AddOp> &&
                (std::is_floating_point_v<A> || std::is_same_v<A, kernels::c128> ||
                 std::is_same_v<A, kernels::c64>)) {
    return PairwiseSum<A>(p, n);
  }
  if (n < 4) {
    A r = Cast<A>(p[0]);
    for (int64_t i = 1; i < n; ++i) r = op(r, Cast<A>(p[i]));
    return r;
  }
  A r[4] = {Cast<A>(p[0]), Cast<A>(p[1]), Cast<A>(p[2]), Cast<A>(p[3])};
  int64_t i = 4;
  for (; i + 4 <= n; i += 4) {
    for (int j = 0; j < 4; ++j) r[j] = op(r[j], Cast<A>(p[i + j]));
  }
  for (; i < n; ++i) r[0] = op(r[0], Cast<A>(p[i]));
  return op(op(r[0], r[1]), op(r[2], r[3]));
}

template <typename T>
void ReduceOne(ReduceOp op, const View& sub, char* out) {
  if (op == ReduceOp::kAll || op == ReduceOp::kAny) {
    bool acc = op == ReduceOp::kAll;
    ForEachElement<1>({&sub}, [&](const std::array<char*, 1>& q) {
      bool v = Cast<bool>(*reinterpret_cast<const T*>(q[0]));
      acc = op == ReduceOp::kAll ? (acc && v) : (acc || v);
    });
    *reinterpret_cast<bool*>(out) = acc;
    return;
  }
  using A = typename Acc<T>::type;
  A acc = Cast<A>(op == ReduceOp::kProd ? 1 : 0);  // an empty sum or product
  if (sub.size() > 0) {
    WithFoldOp(op, [&](auto fn) {
      if (sub.IsCContiguous()) {
        acc = Fold<A>(reinterpret_cast<const T*>(sub.data()), sub.size(), fn);
        return;
      }
      bool first = true;
      ForEachElement<1>({&sub}, [&](const std::array<char*, 1>& q) {
        const A v = Cast<A>(*reinterpret_cast<const T*>(q[0]));
        acc = first ? v : fn(acc, v);
        first = false;
      });
    });
  }
  *reinterpret_cast<T*>(out) = Cast<T>(acc);
}

// Folds the k rows r[0..k) into acc, in row order: acc = fn(fn(acc, r0), r1)
// and so on, each element's additions in NumPy's order. Eight rows a pass
// load and store the accumulators an eighth as often as one row a pass, and
// keep the loads of a row clear of the store to acc (4 KiB aliasing: a
// row's stride of a multiple of 4 KiB put every row load behind the store
// of the same page offset: 8.8 against NumPy's 15 GB/s).
template <int K, typename T, typename Fn>
void FoldRows(T* __restrict acc, const T* const* r, int64_t m, Fn fn) {
  for (int64_t j = 0; j < m; ++j) {
    T a = acc[j];
    for (int k = 0; k < K; ++k) a = fn(a, r[k][j]);
    acc[j] = a;
  }
}

// Sum, prod, min or max over outer axes when the kept elements are
// contiguous in the input and the output (a C-order matrix summed over
// axis 0): one pass over the input in memory order, folding the reduced
// positions' rows into a row of accumulators eight at a time (NumPy's order
// of additions). False when the layout is not that one.
template <typename T>
bool ReduceRows(ReduceOp op, const View& kept, const View& reduced, const View& out) {
  if (op == ReduceOp::kAll || op == ReduceOp::kAny || reduced.size() == 0) return false;
  std::vector<Strides> strides;
  const View* views[2] = {&kept, &out};
  const Shape shape = CollapseDims(views, &strides);
  const int64_t item = sizeof(T);
  if (shape.size() != 1 || shape[0] < 2 || strides[0][0] != item || strides[1][0] != item) {
    return false;
  }
  // NumPy's row by row fold accumulates in the output's dtype: float16
  // and complex64 round at every step, as its add loop does.
  constexpr int kRows = 8;
  const int64_t m = shape[0];
  std::unique_ptr<T[]> acc(new T[static_cast<size_t>(m)]);  // not vector<bool>
  bool first = true;
  auto fold = [&](auto fn) {
    const T* rows[kRows];
    int held = 0;
    auto flush = [&] {
      if (held == kRows) {
        FoldRows<kRows>(acc.get(), rows, m, fn);
      } else {
        for (int k = 0; k < held; ++k) FoldRows<1>(acc.get(), rows + k, m, fn);
      }
      held = 0;
    };
    ForEachElement<1>({&reduced}, [&](const std::array<char*, 1>& p) {
      const T* row = reinterpret_cast<const T*>(p[0]);
      if (first) {
        std::copy(row, row + m, acc.get());
        first = false;
        return;
      }
      rows[held++] = row;
      if (held == kRows) flush();
    });
    flush();
  };
  WithFoldOp(op, fold);
  std::copy(acc.get(), acc.get() + m, reinterpret_cast<T*>(out.data()));
  return true;
}

}  // namespace

absl::Status CpuReduce(ReduceOp op, const View& in, absl::Span<const int> axes,
                       const View& out) {
  bool logical = op == ReduceOp::kAll || op == ReduceOp::kAny;
  if (logical ? out.dtype != DType::kBool : out.dtype != in.dtype) {
    return absl::InternalError("reduce: unexpected output dtype");
  }
  View kept, reduced;
  SplitAxes(in, axes, &kept, &reduced);
  View out_as_kept = out;  // same element count and order as `kept`
  out_as_kept.shape = kept.shape;
  if (out.ndim() != kept.ndim()) return absl::InternalError("reduce: bad output rank");
  if (out_as_kept.size() == 0) return absl::OkStatus();
  return DispatchDType(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (ReduceRows<T>(op, kept, reduced, out_as_kept)) return absl::OkStatus();
    ForEachElement<2>({&kept, &out_as_kept}, [&](const std::array<char*, 2>& p) {
      ReduceOne<T>(op, At(reduced, p[0]), p[1]);
    });
    return absl::OkStatus();
  });
}

absl::Status CpuReduceAs(ReduceOp op, const View& in, DType as, absl::Span<const int> axes,
                         const View& out) {
  // Integer accumulators of bool or integer values reduced over contiguous
  // runs (counting a mask, an int32 sum): the cast as each value is read
  // gives what the cast copy and Reduce give, integer sums and products
  // wrapping the same in any order. Others take that copy.
  const bool integer_in = in.dtype == DType::kBool || IsInteger(in.dtype);
  if ((as != DType::kInt64 && as != DType::kUInt64) || !integer_in || out.dtype != as ||
      op == ReduceOp::kAll || op == ReduceOp::kAny) {
    return absl::UnimplementedError("reduce: casting from integers to 64-bit integers only");
  }
  View kept, reduced;
  SplitAxes(in, axes, &kept, &reduced);
  if (!reduced.IsCContiguous() || reduced.size() == 0) {
    return absl::UnimplementedError("reduce: casting over contiguous runs only");
  }
  View out_as_kept = out;
  out_as_kept.shape = kept.shape;
  if (out.ndim() != kept.ndim()) return absl::InternalError("reduce: bad output rank");
  if (out_as_kept.size() == 0) return absl::OkStatus();
  const int64_t n = reduced.size();
  return DispatchDType(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto run = [&](auto acc_tag) {
      using A = decltype(acc_tag);
      ForEachElement<2>({&kept, &out_as_kept}, [&](const std::array<char*, 2>& p) {
        WithFoldOp(op, [&](auto fn) {
          *reinterpret_cast<A*>(p[1]) = Fold<A>(reinterpret_cast<const T*>(p[0]), n, fn);
        });
      });
    };
    if (as == DType::kInt64) {
      run(kernels::i64());
    } else {
      run(uint64_t());
    }
    return absl::OkStatus();
  });
}

// The index of the first maximum (IsMax) or minimum of the n > 0
// contiguous values at p, or of the first NaN, as NumPy's argmax/argmin: a
// pass over 16-byte vectors (GCC's vector extension: SSE2 or NEON) for the
// extreme and whether a NaN occurs, then a scan for its first position.
template <bool IsMax, typename T>
int64_t ContiguousArgExtreme(const T* p, int64_t n) {
  typedef T V __attribute__((vector_size(16)));
  using Mask = decltype(V{} != V{});
  constexpr int kLanes = 16 / sizeof(T), kVecs = 4, kBlock = kLanes * kVecs;
  constexpr bool kFloat = std::is_floating_point_v<T>;
  V m[kVecs];
  Mask nan[kVecs] = {};
  for (int u = 0; u < kVecs; ++u) {
    for (int l = 0; l < kLanes; ++l) m[u][l] = p[0];
  }
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (int u = 0; u < kVecs; ++u) {
      V v;
      std::memcpy(&v, p + i + u * kLanes, sizeof v);
      m[u] = IsMax ? (v > m[u] ? v : m[u]) : (v < m[u] ? v : m[u]);
      if constexpr (kFloat) nan[u] |= v != v;  // NOLINT: NaN test
    }
  }
  T best = p[0];
  bool any_nan = false;
  auto take = [&](T v) {
    best = (IsMax ? v > best : v < best) ? v : best;
    any_nan |= v != v;  // NOLINT: NaN test
  };
  for (int u = 0; u < kVecs; ++u) {
    for (int l = 0; l < kLanes; ++l) {
      take(m[u][l]);
      any_nan |= nan[u][l] != 0;
    }
  }
  for (; i < n; ++i) take(p[i]);
  // The first position: a vector test per block, then within the block.
  const V target = V{} + best;
  int64_t j = 0;
  for (; j + kBlock <= n; j += kBlock) {
    Mask hit = {};
    for (int u = 0; u < kVecs; ++u) {
      V v;
      std::memcpy(&v, p + j + u * kLanes, sizeof v);
      hit |= any_nan ? v != v : v == target;  // NOLINT: NaN test
    }
    bool found = false;
    for (int l = 0; l < kLanes; ++l) found |= hit[l] != 0;
    if (found) break;
  }
  for (; j < n; ++j) {
    if (any_nan ? p[j] != p[j] : p[j] == best) return j;  // NOLINT: NaN test
  }
  return 0;
}

absl::Status CpuArgReduce(kernels::ArgReduceOp op, const View& in, int axis, const View& out) {
  if (out.dtype != DType::kInt64) return absl::InternalError("argreduce: output must be int64");
  if (in.shape[axis] == 0) return ValueError("attempt to get argmax of an empty sequence");
  int axes[1] = {axis};
  View kept, along;
  SplitAxes(in, axes, &kept, &along);
  View out_as_kept = out;
  out_as_kept.shape = kept.shape;
  const bool is_max = op == kernels::ArgReduceOp::kArgMax;
  return DispatchDType(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t n = along.shape[0], stride = along.strides[0];
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      if (stride == static_cast<int64_t>(sizeof(T))) {
        ForEachElement<2>({&kept, &out_as_kept}, [&](const std::array<char*, 2>& p) {
          const T* row = reinterpret_cast<const T*>(p[0]);
          *reinterpret_cast<int64_t*>(p[1]) = is_max ? ContiguousArgExtreme<true>(row, n)
                                                     : ContiguousArgExtreme<false>(row, n);
        });
        return absl::OkStatus();
      }
    }
    ForEachElement<2>({&kept, &out_as_kept}, [&](const std::array<char*, 2>& p) {
      T best = *reinterpret_cast<const T*>(p[0]);
      int64_t best_i = 0;
      for (int64_t i = 1; i < n && !kernels::IsNan(best); ++i) {
        T v = *reinterpret_cast<const T*>(p[0] + i * stride);
        // MaximumOp picks a NaN first; NumPy's argmax stops at the first NaN.
        bool better = kernels::IsNan(v) ||
                      (is_max ? kernels::GreaterOp()(v, best) : kernels::LessOp()(v, best));
        if (better) {
          best = v;
          best_i = i;
        }
      }
      *reinterpret_cast<int64_t*>(p[1]) = best_i;
    });
    return absl::OkStatus();
  });
}

}  // namespace cpu
}  // namespace arrayd
