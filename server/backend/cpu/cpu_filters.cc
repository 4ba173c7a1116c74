// CPU kernels of scipy.ndimage's and scipy.signal's filters: stencils
// (weighted sums and rank selection over a footprint), the lfilter
// recursion and label's connected components (ops/filters.cc).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "common/status.h"
#include "kernels/boundary.h"
#include "kernels/host_dispatch.h"
#include "kernels/interp.h"
#include "kernels/networks.h"

namespace arrayd {
namespace cpu {
namespace {

using kernels::DispatchDType;

// Calls row(in_offset, out_offset) for each innermost row of out (C order):
// the byte offsets of the row's first element in `in` (its own strides)
// and in out (C-contiguous).
template <typename RowFn>
void ForEachRow(const View& in, const View& out, RowFn&& row) {
  const int nd = out.ndim();
  if (nd == 0) {
    row(int64_t{0}, int64_t{0});
    return;
  }
  const int64_t inner = out.shape[nd - 1];
  const int64_t rows = inner == 0 ? 0 : out.size() / inner;
  std::vector<int64_t> idx(nd, 0);
  const int64_t row_bytes = inner * ItemSize(out.dtype);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off = 0;
    for (int d = 0; d < nd - 1; ++d) off += idx[d] * in.strides[d];
    row(off, r * row_bytes);
    for (int d = nd - 2; d >= 0; --d) {
      if (++idx[d] < out.shape[d]) break;
      idx[d] = 0;
    }
  }
}

template <typename T>
void StencilSum(const View& in, absl::Span<const int64_t> taps, const T* w, const View& out) {
  const int64_t inner = out.ndim() == 0 ? 1 : out.shape[out.ndim() - 1];
  const int64_t s = out.ndim() == 0 ? 0 : in.strides[out.ndim() - 1];
  ForEachRow(in, out, [&](int64_t in_off, int64_t out_off) {
    T* o = reinterpret_cast<T*>(out.data() + out_off);
    std::fill(o, o + inner, T(0));
    // Tap by tap over the row: the same order of additions as the CUDA
    // kernel's, and a loop the compiler vectorizes for unit strides.
    for (size_t k = 0; k < taps.size(); ++k) {
      const char* p = in.data() + in_off + taps[k];
      const T wk = w[k];
      for (int64_t j = 0; j < inner; ++j) {
        o[j] = o[j] + wk * *reinterpret_cast<const T*>(p + j * s);
      }
    }
  });
}

// a[j], b[j] = the smaller, the larger of the two (by <, as the CUDA
// network) for j < m: 16-byte vectors (GCC's vector extension), then the
// tail.
template <typename T>
void CompareSwap(T* a, T* b, int64_t m) {
  int64_t j = 0;
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    typedef T V __attribute__((vector_size(16)));
    constexpr int64_t kLanes = 16 / sizeof(T);
    for (; j + kLanes <= m; j += kLanes) {
      V x, y;
      std::memcpy(&x, a + j, sizeof x);
      std::memcpy(&y, b + j, sizeof y);
      const auto swap = y < x;
      const V lo = swap ? y : x, hi = swap ? x : y;
      std::memcpy(a + j, &lo, sizeof lo);
      std::memcpy(b + j, &hi, sizeof hi);
    }
  }
  for (; j < m; ++j) {
    const T x = a[j], y = b[j];
    const bool swap = y < x;
    a[j] = swap ? y : x;
    b[j] = swap ? x : y;
  }
}

template <typename T>
void StencilRank(const View& in, absl::Span<const int64_t> taps, int64_t rank, const View& out) {
  const int64_t inner = out.ndim() == 0 ? 1 : out.shape[out.ndim() - 1];
  const int64_t s = out.ndim() == 0 ? 0 : in.strides[out.ndim() - 1];
  const int64_t k = static_cast<int64_t>(taps.size());
  const bool is_min = rank == 0, is_max = rank == k - 1;
  constexpr int64_t kNetworkTaps = 32, kChunk = 256;
  const int64_t nv = k <= kNetworkTaps ? k * kChunk : k;
  std::unique_ptr<T[]> v(new T[nv]);  // (not vector<T>: vector<bool> has no T*)
  ForEachRow(in, out, [&](int64_t in_off, int64_t out_off) {
    T* o = reinterpret_cast<T*>(out.data() + out_off);
    const char* base = in.data() + in_off;
    if (is_min || is_max) {
      for (int64_t j = 0; j < inner; ++j) o[j] = *reinterpret_cast<const T*>(base + taps[0] + j * s);
      for (int64_t t = 1; t < k; ++t) {
        const char* p = base + taps[t];
        for (int64_t j = 0; j < inner; ++j) {
          const T x = *reinterpret_cast<const T*>(p + j * s);
          o[j] = is_min ? (x < o[j] ? x : o[j]) : (o[j] < x ? x : o[j]);
        }
      }
      return;
    }
    if (k <= kNetworkTaps) {
      // Chunks of the row as k arrays, one a tap, sorted by an odd-even
      // transposition network of element-wise compare-and-swaps (vector
      // loops; the CUDA kernel's network, so the same order statistics).
      for (int64_t j0 = 0; j0 < inner; j0 += kChunk) {
        const int64_t m = std::min(kChunk, inner - j0);
        for (int64_t t = 0; t < k; ++t) {
          const char* p = base + taps[t] + j0 * s;
          T* r = &v[t * kChunk];
          for (int64_t j = 0; j < m; ++j) r[j] = *reinterpret_cast<const T*>(p + j * s);
        }
        if (k == 9 && rank == 4) {  // a 3 x 3 median: the CUDA kernel's network too
          kernels::Median9Network(
              [&](int a, int b) { CompareSwap(&v[a * kChunk], &v[b * kChunk], m); });
        } else {
          for (int64_t round = 0; round < k; ++round) {
            for (int64_t t = round & 1; t + 1 < k; t += 2) {
              CompareSwap(&v[t * kChunk], &v[(t + 1) * kChunk], m);
            }
          }
        }
        std::copy(&v[rank * kChunk], &v[rank * kChunk] + m, o + j0);
      }
      return;
    }
    for (int64_t j = 0; j < inner; ++j) {
      for (int64_t t = 0; t < k; ++t) v[t] = *reinterpret_cast<const T*>(base + taps[t] + j * s);
      std::nth_element(v.get(), v.get() + rank, v.get() + k);
      o[j] = v[rank];
    }
  });
}

// Transposed direct form II, in T (as scipy.signal.lfilter computes).
template <typename T>
void LinearFilterRows(const View& b, const View& a, const View& x, const View* zi, const View& y,
                      const View& zf) {
  const int64_t nb = b.shape[0], na = a.shape[0];
  const int64_t m = std::max(nb, na) - 1;
  const int64_t rows = x.shape[0], n = x.shape[1];
  const T* bp = reinterpret_cast<const T*>(b.data());
  const T* ap = reinterpret_cast<const T*>(a.data());
  std::vector<T> bn(m + 1, T(0)), an(m + 1, T(0)), z(m);
  for (int64_t i = 0; i < nb; ++i) bn[i] = bp[i] / ap[0];
  for (int64_t i = 1; i < na; ++i) an[i] = ap[i] / ap[0];
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = reinterpret_cast<const T*>(x.data()) + r * n;
    T* yr = reinterpret_cast<T*>(y.data()) + r * n;
    for (int64_t i = 0; i < m; ++i) {
      z[i] = zi != nullptr ? reinterpret_cast<const T*>(zi->data())[r * m + i] : T(0);
    }
    for (int64_t t = 0; t < n; ++t) {
      const T xt = xr[t];
      const T yt = m > 0 ? z[0] + bn[0] * xt : bn[0] * xt;
      for (int64_t i = 0; i + 1 < m; ++i) z[i] = z[i + 1] + bn[i + 1] * xt - an[i + 1] * yt;
      if (m > 0) z[m - 1] = bn[m] * xt - an[m] * yt;
      yr[t] = yt;
    }
    T* zr = reinterpret_cast<T*>(zf.data()) + r * m;
    std::copy(z.begin(), z.end(), zr);
  }
}

int64_t Find(std::vector<int64_t>& parent, int64_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

// Fills `out` (C order) with `in` extended by lo elements before each
// dimension (and out's shape after) as `mode` extends it: row by row of
// out, the source row (or none: a row of the constant), its middle in one
// copy where in's rows are contiguous, the ends by their mapped indices.
template <typename T>
void PadRows(const View& in, absl::Span<const int64_t> lo, kernels::Boundary mode, T fill,
             const View& out) {
  const int nd = in.ndim();
  const int64_t n = in.shape[nd - 1], row_len = out.shape[nd - 1];
  const int64_t rows = out.size() / row_len, mid = lo[nd - 1];
  const int64_t step = in.strides[nd - 1];
  const bool dense = step == static_cast<int64_t>(sizeof(T));
  std::vector<int64_t> idx(nd, 0);
  T* dst = reinterpret_cast<T*>(out.data());
  for (int64_t r = 0; r < rows; ++r, dst += row_len) {
    int64_t src = 0;
    bool constant = false;
    for (int d = 0; d < nd - 1; ++d) {
      const long long j = kernels::BoundaryIndex(idx[d] - lo[d], in.shape[d], mode);
      constant |= j < 0;
      src += j * in.strides[d];
    }
    if (constant) {
      std::fill(dst, dst + row_len, fill);
    } else {
      const char* row = in.data() + src;
      auto at = [&](int64_t e) {
        const long long j = kernels::BoundaryIndex(e - mid, n, mode);
        return j < 0 ? fill : *reinterpret_cast<const T*>(row + j * step);
      };
      for (int64_t e = 0; e < mid; ++e) dst[e] = at(e);
      if (dense) {
        std::memcpy(dst + mid, row, n * sizeof(T));
      } else {
        for (int64_t e = 0; e < n; ++e) dst[mid + e] = *reinterpret_cast<const T*>(row + e * step);
      }
      for (int64_t e = mid + n; e < row_len; ++e) dst[e] = at(e);
    }
    for (int d = nd - 2; d >= 0; --d) {
      if (++idx[d] < out.shape[d]) break;
      idx[d] = 0;
    }
  }
}

void PadInto(const View& in, absl::Span<const int64_t> lo, kernels::Boundary mode, double cval,
             const View& out) {
  DispatchDType(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    PadRows<T>(in, lo, mode, kernels::Cast<T>(cval), out);
    return 0;
  });
}

// `in` extended by the boundary's lo and hi elements along each dimension
// into `storage`; the view of the padded array's interior (in's shape) and
// the taps' byte offsets in it.
View PadForStencil(const View& in, const Stream::StencilBoundary& b, std::vector<char>* storage,
                   std::vector<int64_t>* taps) {
  const int nd = in.ndim();
  const int64_t item = ItemSize(in.dtype);
  View padded;
  padded.dtype = in.dtype;
  padded.shape = Shape(nd);
  padded.strides = Strides(nd);
  int64_t size = 1;
  for (int d = nd - 1; d >= 0; --d) {
    padded.shape[d] = in.shape[d] + b.lo[d] + b.hi[d];
    padded.strides[d] = size * item;
    size *= padded.shape[d];
  }
  storage->assign(size * item, 0);
  padded.buffer = std::make_shared<Buffer>(storage->data(), storage->size(), nullptr);
  PadInto(in, b.lo, b.mode, b.cval, padded);
  const int64_t k = static_cast<int64_t>(b.offsets.size()) / nd;
  taps->assign(k, 0);
  for (int d = 0; d < nd; ++d) {
    padded.offset += b.lo[d] * padded.strides[d];
    for (int64_t t = 0; t < k; ++t) (*taps)[t] += b.offsets[t * nd + d] * padded.strides[d];
  }
  padded.shape = in.shape;
  return padded;
}

}  // namespace

absl::Status CpuStencil(const View& in, absl::Span<const int64_t> taps, const View* weights,
                        int64_t rank, const View& out, const Stream::StencilBoundary* boundary) {
  if (boundary != nullptr) {
    if (in.shape != out.shape || in.ndim() == 0) {
      return absl::InternalError("stencil: a boundary needs in of out's shape");
    }
    std::vector<char> storage;
    std::vector<int64_t> padded_taps;
    const View padded = PadForStencil(in, *boundary, &storage, &padded_taps);
    return CpuStencil(padded, padded_taps, weights, rank, out, nullptr);
  }
  if (taps.empty() || out.dtype != in.dtype || !out.IsCContiguous() ||
      (weights != nullptr && (weights->dtype != out.dtype || weights->size() !=
                                                                 static_cast<int64_t>(taps.size()) ||
                              !weights->IsCContiguous()))) {
    return absl::InternalError("stencil: unexpected dtypes or shapes");
  }
  if (out.size() == 0) return absl::OkStatus();
  return DispatchDType(out.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if (weights != nullptr) {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, kernels::c64> || std::is_same_v<T, kernels::c128>) {
        StencilSum<T>(in, taps, reinterpret_cast<const T*>(weights->data()), out);
        return absl::OkStatus();
      }
      return absl::InternalError("stencil: weighted sums of floating dtypes only");
    }
    if constexpr (std::is_same_v<T, kernels::Half> || std::is_same_v<T, kernels::c64> ||
                  std::is_same_v<T, kernels::c128>) {
      return absl::InternalError("stencil: rank selection of real dtypes only");
    } else {
      StencilRank<T>(in, taps, rank, out);
      return absl::OkStatus();
    }
  });
}

absl::Status CpuPad(const View& in, absl::Span<const int64_t> lo, kernels::Boundary mode,
                    double cval, const View& out) {
  if (in.ndim() == 0 || out.ndim() != in.ndim() || !out.IsCContiguous() ||
      out.dtype != in.dtype || in.size() == 0) {
    return absl::InternalError("pad: unexpected shapes or dtypes");
  }
  if (out.size() > 0) PadInto(in, lo, mode, cval, out);
  return absl::OkStatus();
}

namespace {

// Resample's loops: for each output row i, out[o, i, :] = sum_j w[i, j] *
// x[o, index[i, j], :], whole rows at a time (the inner loop runs along
// contiguous memory), or a dot product per output when inner is 1.
template <typename T>
void ResampleRows(const View& x, const int64_t* index, const T* w, int64_t k, const View& out) {
  const int64_t outer = x.shape[0], n = x.shape[1], inner = x.shape[2], m = out.shape[1];
  const auto clip = [n](int64_t j) { return j < 0 ? 0 : (j >= n ? n - 1 : j); };
  for (int64_t o = 0; o < outer; ++o) {
    const T* xo = reinterpret_cast<const T*>(x.data()) + o * n * inner;
    T* oo = reinterpret_cast<T*>(out.data()) + o * m * inner;
    for (int64_t i = 0; i < m; ++i) {
      const int64_t* ii = index + i * k;
      const T* ww = w + i * k;
      T* orow = oo + i * inner;
      if (inner == 1) {
        T acc = ww[0] * xo[clip(ii[0])];
        for (int64_t j = 1; j < k; ++j) acc = acc + ww[j] * xo[clip(ii[j])];
        *orow = acc;
        continue;
      }
      const T* src = xo + clip(ii[0]) * inner;
      const T w0 = ww[0];
      for (int64_t r = 0; r < inner; ++r) orow[r] = w0 * src[r];
      for (int64_t j = 1; j < k; ++j) {
        src = xo + clip(ii[j]) * inner;
        const T wj = ww[j];
        for (int64_t r = 0; r < inner; ++r) orow[r] = orow[r] + wj * src[r];
      }
    }
  }
}

}  // namespace

namespace {

// Each line of (outer, n, inner) x gathered, filtered pole by pole as one
// chunk, and written to out.
template <typename T>
void SplineLines(const View& x, const kernels::SplinePoles& poles, const View& out) {
  const int64_t outer = x.shape[0], n = x.shape[1], inner = x.shape[2];
  const auto mode = static_cast<kernels::Boundary>(poles.mode);
  std::vector<T> cur(n), next(n), u;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t r = 0; r < inner; ++r) {
      const T* src = reinterpret_cast<const T*>(x.data()) + o * n * inner + r;
      for (int64_t i = 0; i < n; ++i) cur[i] = src[i * inner];
      for (int64_t p = 0; p < poles.count; ++p) {
        u.resize(n + poles.warm[p]);
        kernels::SplinePoleChunk<T>([&](int64_t i) { return cur[i]; }, n, mode, poles.z[p],
                                    poles.warm[p], 0, n, u.data(),
                                    [&](int64_t i, T v) { next[i] = v; });
        cur.swap(next);
      }
      T* dst = reinterpret_cast<T*>(out.data()) + o * n * inner + r;
      for (int64_t i = 0; i < n; ++i) dst[i * inner] = cur[i];
    }
  }
}

}  // namespace

absl::Status CpuSplineFilter(const View& x, const kernels::SplinePoles& poles, const View& out) {
  if (x.ndim() != 3 || out.shape != x.shape || out.dtype != x.dtype || !x.IsCContiguous() ||
      !out.IsCContiguous() || poles.count < 1 || poles.count > 2) {
    return absl::InternalError("spline_filter: unexpected dtypes or shapes");
  }
  if (out.size() == 0) return absl::OkStatus();
  return DispatchDType(x.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, kernels::c64> || std::is_same_v<T, kernels::c128>) {
      SplineLines<T>(x, poles, out);
      return absl::OkStatus();
    }
    return absl::InternalError("spline_filter: floating dtypes only");
  });
}

absl::Status CpuResample(const View& x, const View& index, const View& w, const View& out) {
  if (x.ndim() != 3 || out.ndim() != 3 || index.ndim() != 2 || w.shape != index.shape ||
      out.dtype != x.dtype || w.dtype != x.dtype || index.dtype != DType::kInt64 ||
      !x.IsCContiguous() || !out.IsCContiguous() || !index.IsCContiguous() ||
      !w.IsCContiguous() || out.shape[1] != index.shape[0] || index.shape[1] < 1) {
    return absl::InternalError("resample: unexpected dtypes or shapes");
  }
  if (out.size() == 0) return absl::OkStatus();
  const auto* idx = reinterpret_cast<const int64_t*>(index.data());
  return DispatchDType(x.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, kernels::c64> || std::is_same_v<T, kernels::c128>) {
      ResampleRows<T>(x, idx, reinterpret_cast<const T*>(w.data()), index.shape[1], out);
      return absl::OkStatus();
    }
    return absl::InternalError("resample: floating dtypes only");
  });
}

namespace {

// Every output point of map_coordinates; the common 2-D orders 1 and 3
// with their loops unrolled, the others by p's runtime d and order.
template <typename T, typename C>
void InterpolateAll(const kernels::InterpParams& p, const T* coeffs, const C* coords, T* out,
                    int64_t total) {
  const auto run = [&](auto d, auto order) {
    for (int64_t e = 0; e < total; ++e) {
      out[e] = kernels::InterpolateAt<T, C, decltype(d)::value, decltype(order)::value>(p, coeffs,
                                                                                        coords, e);
    }
  };
  using Two = std::integral_constant<int, 2>;
  if (p.d == 2 && p.order == 1) {
    run(Two{}, std::integral_constant<int, 1>{});
  } else if (p.d == 2 && p.order == 3) {
    run(Two{}, std::integral_constant<int, 3>{});
  } else {
    run(std::integral_constant<int, -1>{}, std::integral_constant<int, -1>{});
  }
}

}  // namespace

absl::Status CpuMapCoordinates(const View& coeffs, const View& coords,
                               const kernels::InterpParams& p, const View& out) {
  const auto real_float = [](DType t) { return t == DType::kFloat32 || t == DType::kFloat64; };
  if (!real_float(coeffs.dtype) || !real_float(coords.dtype) || out.dtype != coeffs.dtype ||
      !coeffs.IsCContiguous() || !coords.IsCContiguous() || !out.IsCContiguous() ||
      coords.size() != p.d * p.points) {
    return absl::InternalError("map_coordinates: unexpected dtypes or shapes");
  }
  const auto with_coords = [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    const T* c = reinterpret_cast<const T*>(coeffs.data());
    T* o = reinterpret_cast<T*>(out.data());
    if (coords.dtype == DType::kFloat32) {
      InterpolateAll(p, c, reinterpret_cast<const float*>(coords.data()), o, out.size());
    } else {
      InterpolateAll(p, c, reinterpret_cast<const double*>(coords.data()), o, out.size());
    }
  };
  if (coeffs.dtype == DType::kFloat32) {
    with_coords(static_cast<float*>(nullptr));
  } else {
    with_coords(static_cast<double*>(nullptr));
  }
  return absl::OkStatus();
}

absl::Status CpuLinearFilter(const View& b, const View& a, const View& x, const View* zi,
                             const View& y, const View& zf) {
  return DispatchDType(x.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, kernels::c64> || std::is_same_v<T, kernels::c128>) {
      LinearFilterRows<T>(b, a, x, zi, y, zf);
      return absl::OkStatus();
    }
    return absl::InternalError("lfilter: floating dtypes only");
  });
}

// Union-find over the elements in C order (each root the smallest index
// of its set), then the roots numbered in that order.
template <typename L>
void LabelRows(const View& mask, absl::Span<const int64_t> neighbors, const View& labels,
               const View& count) {
  const int nd = mask.ndim();
  const int64_t n = mask.size();
  const bool* m = reinterpret_cast<const bool*>(mask.data());
  L* out = reinterpret_cast<L*>(labels.data());
  const int64_t k = nd == 0 ? 0 : static_cast<int64_t>(neighbors.size()) / nd;
  // C-order element strides, for the flat offset of each neighbor.
  std::vector<int64_t> step(nd, 1);
  for (int d = nd - 2; d >= 0; --d) step[d] = step[d + 1] * mask.shape[d + 1];
  std::vector<int64_t> flat(k, 0);
  for (int64_t t = 0; t < k; ++t) {
    for (int d = 0; d < nd; ++d) flat[t] += neighbors[t * nd + d] * step[d];
  }
  std::vector<int64_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<int64_t> idx(nd, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (m[i]) {
      for (int64_t t = 0; t < k; ++t) {
        bool inside = true;
        for (int d = 0; d < nd && inside; ++d) {
          const int64_t c = idx[d] + neighbors[t * nd + d];
          inside = c >= 0 && c < mask.shape[d];
        }
        if (!inside || !m[i + flat[t]]) continue;
        const int64_t ri = Find(parent, i), rj = Find(parent, i + flat[t]);
        if (ri != rj) parent[std::max(ri, rj)] = std::min(ri, rj);
      }
    }
    for (int d = nd - 1; d >= 0; --d) {
      if (++idx[d] < mask.shape[d]) break;
      idx[d] = 0;
    }
  }
  // A root comes before the rest of its set: its number is set first.
  int64_t components = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!m[i]) {
      out[i] = 0;
      continue;
    }
    const int64_t r = Find(parent, i);
    out[i] = r == i ? static_cast<L>(++components) : out[r];
  }
  *reinterpret_cast<int64_t*>(count.data()) = components;
}

absl::Status CpuLabel(const View& mask, absl::Span<const int64_t> neighbors, const View& labels,
                      const View& count) {
  if (labels.dtype == DType::kInt32) {
    LabelRows<int32_t>(mask, neighbors, labels, count);
  } else {
    LabelRows<int64_t>(mask, neighbors, labels, count);
  }
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace arrayd
