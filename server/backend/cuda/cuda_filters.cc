// The CUDA stream's filter kernels (device/filters.cuh): stencils, the
// lfilter recursion by chunks, label's union-find and resampling along an
// axis. The CPU reference is backend/cpu/cpu_filters.cc; ops/filters.cc
// checks the arguments.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "backend/cuda/cuda_stream.h"
#include "backend/cuda/driver_api.h"
#include "backend/cuda/kernel_source.h"
#include "common/status.h"

namespace arrayd {
namespace cuda {
namespace {

// The kernels' by-value argument structs (gen::StencilGeometry,
// gen::LabelNeighbors; gen::StencilTaps<CAP> is built as words).
struct StencilGeometryArgs {
  const char* base;
  long long nd;
  long long shape[kMaxKernelDims];
  long long stride[kMaxKernelDims];
  long long lo[kMaxKernelDims];
  long long hi[kMaxKernelDims];
  double cval;
  long long mode;
};
struct LabelNeighborsArgs {
  long long off[256];
  long long flat[Stream::kMaxLabelNeighbors];
  long long shape[kMaxKernelDims];
};

long long Blocks(long long n) {
  return std::max(1LL, std::min(CeilDiv(n, kBlockSize), kMaxBlocks));
}

// The smallest of the compiled capacities that holds `k`.
int Bucket(int64_t k, std::initializer_list<int> sizes) {
  for (int s : sizes) {
    if (k <= s) return s;
  }
  return *(sizes.end() - 1);
}

}  // namespace

absl::Status CudaStream::Stencil(const View& in, absl::Span<const int64_t> taps,
                                 const View* weights, int64_t rank, const View& out,
                                 const StencilBoundary* boundary) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  const int64_t k = static_cast<int64_t>(taps.size());
  const int nd = out.ndim();
  if (k < 1 || k > kMaxStencilTaps || out.dtype != in.dtype || !out.IsCContiguous() ||
      in.shape != out.shape || nd == 0 ||
      (weights != nullptr && (weights->dtype != out.dtype || weights->size() != k ||
                              !weights->IsCContiguous() || !FilterDType(out.dtype)))) {
    return absl::InternalError("stencil: unexpected dtypes or shapes");
  }
  if (out.size() == 0) return absl::OkStatus();
  if (nd > kMaxKernelDims) return TooManyDims(nd);
  // Without a boundary (the input padded by the op layer) every tap is
  // inside: no reach, no border path.
  StencilGeometryArgs g{};
  g.base = in.data();
  g.nd = nd;
  for (int d = 0; d < nd; ++d) {
    g.shape[d] = in.shape[d];
    g.stride[d] = in.strides[d];
    g.lo[d] = boundary != nullptr ? boundary->lo[d] : 0;
    g.hi[d] = boundary != nullptr ? boundary->hi[d] : 0;
  }
  g.cval = boundary != nullptr ? boundary->cval : 0.0;
  g.mode =
      static_cast<long long>(boundary != nullptr ? boundary->mode : kernels::Boundary::kPadded);
  const int cap = weights != nullptr ? Bucket(k, {32, kMaxStencilTaps})
                                     : Bucket(k, {9, 16, 25, 32, 64, kMaxStencilTaps});
  // gen::StencilTaps<cap>: off[cap], then dims[cap] (offset + lo, a byte a
  // dimension). At cap 256 that is 4 KB of parameters: CUDA 12.1's larger
  // limit (32 KB from sm_70; this project needs CUDA 13).
  std::vector<long long> words(2 * cap, 0);
  std::copy(taps.begin(), taps.end(), words.begin());
  for (int64_t t = 0; boundary != nullptr && t < k; ++t) {
    unsigned long long packed = 0;
    for (int d = 0; d < nd; ++d) {
      const auto q = static_cast<unsigned long long>(boundary->offsets[t * nd + d] + g.lo[d]);
      packed |= (q & 255) << (8 * d);
    }
    words[cap + t] = static_cast<long long>(packed);
  }
  // Rows of a block or more: about eight columns a thread, rows over grid y
  // (at most 65,535); shorter rows: a flat grid (gen::ForEachStencilElement).
  const long long inner = out.shape[nd - 1], rows = out.size() / inner;
  const bool flat = inner < kBlockSize;
  const long long gx = flat ? Blocks(out.size())
                            : std::max(1LL, std::min(CeilDiv(inner, 8LL * kBlockSize), kMaxBlocks));
  const long long gy = flat ? 1 : std::min(rows, 65535LL);
  // Rank kernels up to 32 taps have the rank compiled in (one kernel a
  // rank: its sorted registers are then read at a constant index).
  const int static_rank = weights == nullptr && cap <= 32 ? static_cast<int>(rank) : -1;
  const std::string name = weights != nullptr ? absl::StrCat("arrayd_stencil_sum", cap)
                           : static_rank >= 0
                               ? absl::StrCat("arrayd_stencil_rank", cap, "_", static_rank)
                               : absl::StrCat("arrayd_stencil_rank", cap);
  const std::string body = StencilBody(out.dtype, cap, weights != nullptr, name, static_rank);
  const char* wp = weights != nullptr ? weights->data() : nullptr;
  char* op = out.data();
  int kk = static_cast<int>(k), r = static_cast<int>(rank);
  void* sum_args[] = {&g, words.data(), &kk, &wp, &op};
  void* rank_args[] = {&g, words.data(), &kk, &r, &op};
  return LaunchBody(body, name, gx, gy, weights != nullptr ? sum_args : rank_args);
}

absl::Status CudaStream::Pad(const View& in, absl::Span<const int64_t> lo, kernels::Boundary mode,
                             double cval, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  const int nd = in.ndim();
  if (nd == 0 || out.ndim() != nd || !out.IsCContiguous() || out.dtype != in.dtype ||
      in.size() == 0 || static_cast<int>(lo.size()) != nd) {
    return absl::InternalError("pad: unexpected shapes or dtypes");
  }
  if (out.size() == 0) return absl::OkStatus();
  if (nd > kMaxKernelDims) return TooManyDims(nd);
  StencilGeometryArgs g{};
  long long out_shape[kMaxKernelDims] = {};
  g.base = in.data();
  g.nd = nd;
  for (int d = 0; d < nd; ++d) {
    g.shape[d] = in.shape[d];
    g.stride[d] = in.strides[d];
    g.lo[d] = lo[d];
    out_shape[d] = out.shape[d];
  }
  g.cval = cval;
  g.mode = static_cast<long long>(mode);
  const long long inner = out.shape[nd - 1], rows = out.size() / inner;
  const long long gx = std::max(1LL, std::min(CeilDiv(inner, 4LL * kBlockSize), kMaxBlocks));
  const long long gy = std::min(rows, 65535LL);
  const std::string name = "arrayd_pad";
  char* op = out.data();
  void* args[] = {&g, out_shape, &op};
  return LaunchBody(PadBody(out.dtype, name), name, gx, gy, args);
}

absl::Status CudaStream::Resample(const View& x, const View& index, const View& w,
                                  const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (x.ndim() != 3 || out.ndim() != 3 || index.ndim() != 2 || w.shape != index.shape ||
      out.dtype != x.dtype || w.dtype != x.dtype || index.dtype != DType::kInt64 ||
      !FilterDType(x.dtype) || !x.IsCContiguous() || !out.IsCContiguous() ||
      !index.IsCContiguous() || !w.IsCContiguous() || out.shape[1] != index.shape[0] ||
      index.shape[1] < 1) {
    return absl::InternalError("resample: unexpected dtypes or shapes");
  }
  if (out.size() == 0) return absl::OkStatus();
  // gen::ResampleShape; rows shorter than a warp run on a flat grid.
  const long long inner = x.shape[2];
  const bool flat = inner < 32;
  struct {
    long long outer, n, m, inner, k, flat_inner;
  } s{x.shape[0], x.shape[1], out.shape[1], inner, index.shape[1], flat ? 1 : 0};
  const long long gx =
      flat ? Blocks(out.size()) : std::max(1LL, std::min(CeilDiv(inner, kBlockSize), kMaxBlocks));
  const long long gy = flat ? 1 : std::min(s.outer * s.m, 65535LL);
  // The flat grid reads its tables tap-major: (k, m) copies of (m, k).
  View it = index, wt = w;
  if (flat) {
    const Shape km = {index.shape[1], index.shape[0]};
    ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> ib, Temp(index.size() * sizeof(int64_t)));
    ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> wb, Temp(w.size() * ItemSize(w.dtype)));
    it = MakeContiguousView(ib, index.dtype, km);
    wt = MakeContiguousView(wb, w.dtype, km);
    const auto transposed = [&](View v) {
      v.strides = {v.strides[1], v.strides[0]};
      v.shape = km;
      return v;
    };
    ARRAYD_RETURN_IF_ERROR(Copy(transposed(index), it));
    ARRAYD_RETURN_IF_ERROR(Copy(transposed(w), wt));
    // The copies may have joined the stream's group: launch it first.
    ARRAYD_RETURN_IF_ERROR(FlushGroup());
  }
  // Up to 6 taps (order 5) compiled in.
  const int k = s.k <= 6 ? static_cast<int>(s.k) : 0;
  const std::string name = absl::StrCat("arrayd_resample_", k);
  const char* xp = x.data();
  const char* ip = it.data();
  const char* wp = wt.data();
  char* op = out.data();
  void* args[] = {&s, &xp, &ip, &wp, &op};
  return LaunchBody(ResampleBody(out.dtype, k, name), name, gx, gy, args);
}

absl::Status CudaStream::SplineFilter(const View& x, const kernels::SplinePoles& poles,
                                      const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (x.ndim() != 3 || out.shape != x.shape || out.dtype != x.dtype || !FilterDType(x.dtype) ||
      !x.IsCContiguous() || !out.IsCContiguous() || poles.count < 1 || poles.count > 2) {
    return absl::InternalError("spline_filter: unexpected dtypes or shapes");
  }
  for (long long p = 0; p < poles.count; ++p) {
    if (poles.warm[p] < 0 || poles.warm[p] > 64) {  // device/filters.cuh's kSplineMaxWarm
      return absl::InternalError("spline_filter: warm-up beyond the kernel's buffer");
    }
  }
  if (out.size() == 0) return absl::OkStatus();
  long long outer = x.shape[0], n = x.shape[1], inner = x.shape[2], mode = poles.mode;
  const long long threads = outer * CeilDiv(n, 64) * inner;  // kSplineChunk
  // Two poles: the first into a temporary, the second from it into out.
  std::shared_ptr<Buffer> tmp;
  char* mid = out.data();
  if (poles.count == 2) {
    ARRAYD_ASSIGN_OR_RETURN(tmp, Temp(out.size() * ItemSize(out.dtype)));
    mid = static_cast<char*>(tmp->data());
  }
  const std::string name = absl::StrCat("arrayd_spline_", DTypeName(x.dtype));
  const std::string body = SplineBody(x.dtype, name);
  for (long long p = 0; p < poles.count; ++p) {
    const char* in = p == 0 ? x.data() : mid;
    char* to = p + 1 == poles.count ? out.data() : mid;
    double z = poles.z[p];
    long long warm = poles.warm[p];
    void* args[] = {&in, &to, &outer, &n, &inner, &z, &warm, &mode};
    ARRAYD_RETURN_IF_ERROR(LaunchBody(body, name, Blocks(threads), 1, args));
  }
  return absl::OkStatus();
}

absl::Status CudaStream::MapCoordinates(const View& coeffs, const View& coords,
                                        const kernels::InterpParams& p, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  const auto real_float = [](DType t) { return t == DType::kFloat32 || t == DType::kFloat64; };
  if (!real_float(coeffs.dtype) || !real_float(coords.dtype) || out.dtype != coeffs.dtype ||
      !coeffs.IsCContiguous() || !coords.IsCContiguous() || !out.IsCContiguous() ||
      coords.size() != p.d * p.points) {
    return absl::InternalError("map_coordinates: unexpected dtypes or shapes");
  }
  if (out.size() == 0) return absl::OkStatus();
  // Up to 3 dimensions the kernel is compiled for its d and order.
  const bool fixed = p.d <= 3;
  const int d = fixed ? static_cast<int>(p.d) : -1, order = fixed ? static_cast<int>(p.order) : -1;
  const std::string name = absl::StrCat("arrayd_map_coordinates_", DTypeName(coords.dtype), "_",
                                        fixed ? absl::StrCat(d, "_", order) : "any");
  kernels::InterpParams params = p;
  const char* cp = coeffs.data();
  const char* xp = coords.data();
  char* op = out.data();
  long long total = out.size();
  void* args[] = {&params, &cp, &xp, &op, &total};
  return LaunchBody(MapCoordinatesBody(out.dtype, coords.dtype, d, order, name), name,
                    Blocks(total), 1, args);
}

absl::Status CudaStream::LinearFilter(const View& b, const View& a, const View& x, const View* zi,
                                      const View& y, const View& zf) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (x.ndim() != 2 || !Stream::FilterDType(x.dtype) || b.dtype != x.dtype || a.dtype != x.dtype ||
      y.dtype != x.dtype || zf.dtype != x.dtype || !x.IsCContiguous() || !y.IsCContiguous() ||
      !b.IsCContiguous() || !a.IsCContiguous() || (zi != nullptr && !zi->IsCContiguous())) {
    return absl::InternalError("lfilter: unexpected dtypes or shapes");
  }
  long long nb = b.size(), na = a.size();
  int m = static_cast<int>(std::max(nb, na) - 1);
  if (m > kMaxLinearFilterOrder) return absl::InternalError("lfilter: order over the kernel's");
  long long rows = x.shape[0], n = x.shape[1];
  if (rows == 0) return absl::OkStatus();
  // Chunks: one per row when rows alone fill the GPU or rows are short;
  // else about 8,192 in all (pass 1's L steps a thread against pass 2's C
  // steps a row, both chains of a few multiply-adds).
  long long L = n;
  if (rows < 4096 && n > 2048 && m > 0) {
    const long long want = CeilDiv(n * rows, 8192);
    L = 256;
    while (L < want && L < (1LL << 20)) L *= 2;
    L = std::min(L, n);
  }
  long long C = n == 0 ? 1 : CeilDiv(n, L);
  long long last = n - (C - 1) * L;
  const bool complex = IsComplex(x.dtype);
  const size_t item = ItemSize(x.dtype), acc = complex ? 16 : 8;
  auto round = [](size_t v) { return (v + 255) / 256 * 256; };
  const size_t coef_bytes = round(2 * (m + 1) * item), coef_acc_bytes = round(2 * (m + 1) * acc);
  const size_t ctab_bytes = C > 1 ? round(L * m * acc) : 0,
               mat_bytes = C > 1 ? round(m * m * acc) : 0;
  const size_t s_bytes = C > 1 ? round(rows * C * m * acc) : 0;
  ARRAYD_ASSIGN_OR_RETURN(
      std::shared_ptr<Buffer> scratch,
      Temp(coef_bytes + coef_acc_bytes + ctab_bytes + 2 * mat_bytes + s_bytes + 256));
  char* base = static_cast<char*>(scratch->data());
  char* coef = base;
  char* coef_acc = coef + coef_bytes;
  char* ctab = coef_acc + coef_acc_bytes;
  char* mfull = ctab + ctab_bytes;
  char* mlast = mfull + mat_bytes;
  char* s = mlast + mat_bytes;
  const std::string type = QualifiedTypeName(x.dtype);
  const int cap = Bucket(m, {2, 8, 32, kMaxLinearFilterOrder});
  const std::string suffix = absl::StrCat(cap);
  const std::string acc_type = absl::StrCat("arrayd::kernels::gen::AccOf<", type, ">::type");
  const char* bp = b.data();
  const char* ap = a.data();
  int tables = C > 1 ? 1 : 0;
  {
    const std::string name = "arrayd_lfilter_setup" + suffix;
    const std::string body = absl::StrCat(
        "extern \"C\" __global__ void __launch_bounds__(256) ", name, "(const ", type,
        "* b, long long nb, const ", type,
        "* a, long long na, int m, long long L, long long last, ", type, "* coef, ", acc_type,
        "* coef_acc, ", acc_type, "* ctab, ", acc_type, "* mfull, ", acc_type,
        "* mlast, int tables) {\n  arrayd::kernels::gen::LfilterSetup<", type, ", ", cap,
        ">(b, nb, a, na, m, L, last, coef, coef_acc, ctab, mfull, mlast, tables);\n}\n");
    void* args[] = {&bp,   &nb,       &ap,   &na,    &m,     &L,     &last,
                    &coef, &coef_acc, &ctab, &mfull, &mlast, &tables};
    ARRAYD_RETURN_IF_ERROR(LaunchBody(body, name, 1, 1, args));
  }
  if (n == 0) {
    // No samples: zf is zi (or zeros).
    if (zi != nullptr) return Copy(*zi, zf);
    if (zf.nbytes() > 0) {
      ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(zf.data(), 0, zf.nbytes(), stream_));
    }
    return absl::OkStatus();
  }
  const char* xp = x.data();
  char* yp = y.data();
  const char* zip = zi != nullptr ? zi->data() : nullptr;
  char* zfp = zf.data();
  {
    const std::string name = "arrayd_lfilter_chunks" + suffix;
    const std::string body = absl::StrCat(
        "extern \"C\" __global__ void __launch_bounds__(256) ", name, "(const ", type, "* x, ",
        type, "* y, long long rows, long long n, long long L, long long C, int m, const ", type,
        "* coef, const ", type, "* zi, ", type, "* zf, ", acc_type,
        "* s) {\n  arrayd::kernels::gen::LfilterChunks<", type, ", ", cap,
        ">(x, y, rows, n, L, C, m, coef, zi, zf, s);\n}\n");
    void* args[] = {&xp, &yp, &rows, &n, &L, &C, &m, &coef, &zip, &zfp, &s};
    // Blocks of one warp: the few chunk threads spread over every
    // multiprocessor (each reads its own stretch of the signal).
    ARRAYD_ASSIGN_OR_RETURN(CUfunction fn, FunctionForBody(body, name));
    ARRAYD_ASSIGN_OR_RETURN(const DriverApi* api, GetDriverApi());
    const long long warps = std::min(CeilDiv(rows * C, 32), kMaxBlocks);
    ARRAYD_CU_RETURN_IF_ERROR(api->cuLaunchKernel(fn, static_cast<unsigned>(warps), 1, 1, 32, 1, 1,
                                                  0, stream_, args, nullptr));
  }
  if (C == 1) return absl::OkStatus();
  {
    const std::string name = "arrayd_lfilter_carry" + suffix;
    const std::string body = absl::StrCat(
        "extern \"C\" __global__ void __launch_bounds__(256) ", name,
        "(long long rows, long long C, int m, const ", acc_type, "* mfull, const ", acc_type,
        "* mlast, ", acc_type, "* s, ", type, "* zf) {\n  arrayd::kernels::gen::LfilterCarry<",
        type, ", ", cap, ">(rows, C, m, mfull, mlast, s, zf);\n}\n");
    void* args[] = {&rows, &C, &m, &mfull, &mlast, &s, &zfp};
    ARRAYD_RETURN_IF_ERROR(LaunchBody(body, name, Blocks(rows), 1, args));
  }
  const std::string name = "arrayd_lfilter_correct";
  const std::string body = absl::StrCat(
      "extern \"C\" __global__ void __launch_bounds__(256) ", name, "(", type,
      "* y, long long rows, long long n, long long L, long long C, int m, const ", acc_type,
      "* ctab, const ", acc_type, "* s) {\n  arrayd::kernels::gen::LfilterCorrect<", type,
      ">(y, rows, n, L, C, m, ctab, s);\n}\n");
  void* args[] = {&yp, &rows, &n, &L, &C, &m, &ctab, &s};
  return LaunchBody(body, name, Blocks(rows * n), 1, args);
}

absl::Status CudaStream::Label(const View& mask, absl::Span<const int64_t> neighbors,
                               const View& labels, const View& count) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  int nd = mask.ndim();
  const bool wide = labels.dtype == DType::kInt64;
  if (mask.dtype != DType::kBool || (!wide && labels.dtype != DType::kInt32) ||
      count.dtype != DType::kInt64 || !mask.IsCContiguous() || !labels.IsCContiguous() ||
      labels.shape != mask.shape || nd == 0) {
    return absl::InternalError("label: unexpected dtypes or shapes");
  }
  if (nd > kMaxKernelDims || neighbors.size() > 256) {
    return absl::UnimplementedError("label: over 8 dimensions or 256 neighbor offsets");
  }
  long long n = mask.size();
  if (n == 0) return absl::OkStatus();
  LabelNeighborsArgs nb{};
  int k = static_cast<int>(neighbors.size()) / nd;
  std::copy(neighbors.begin(), neighbors.end(), nb.off);
  long long step = 1;
  for (int d = nd - 1; d >= 0; --d) {
    nb.shape[d] = mask.shape[d];
    for (int t = 0; t < k; ++t) nb.flat[t] += neighbors[t * nd + d] * step;
    step *= mask.shape[d];
  }
  // The roots numbered by chunks, as nonzero's positions.
  long long chunk = SelectionChunk(n, kBlockSize);
  const long long chunks = CeilDiv(n, chunk);
  const size_t width = wide ? sizeof(int64_t) : sizeof(int32_t);
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> scratch,
                          Temp(chunks * sizeof(int64_t) + n * width));
  char* counts = static_cast<char*>(scratch->data());
  char* num = counts + chunks * sizeof(int64_t);
  const char* mp = mask.data();
  char* p = labels.data();
  char* total = count.data();
  const std::string name = wide ? "arrayd_label_i8" : "arrayd_label_i4";
  const std::string body = LabelBody(labels.dtype, name);
  void* args3[] = {&mp, &p, &n};
  ARRAYD_RETURN_IF_ERROR(LaunchBody(body, name + "_init", Blocks(n), 1, args3));
  void* args6[] = {&mp, &p, &n, &nd, &k, &nb};
  ARRAYD_RETURN_IF_ERROR(LaunchBody(body, name + "_merge", Blocks(n), 1, args6));
  ARRAYD_RETURN_IF_ERROR(LaunchBody(body, name + "_flatten", Blocks(n), 1, args3));
  void* count_args[] = {&p, &n, &chunk, &counts};
  ARRAYD_RETURN_IF_ERROR(LaunchBody(body, name + "_count", chunks, 1, count_args));
  void* number_args[] = {&p, &n, &chunk, &counts, &num, &total};
  ARRAYD_RETURN_IF_ERROR(LaunchBody(body, name + "_number", chunks, 1, number_args));
  void* apply_args[] = {&p, &n, &num};
  return LaunchBody(body, name + "_apply", Blocks(n), 1, apply_args);
}

}  // namespace cuda
}  // namespace arrayd
