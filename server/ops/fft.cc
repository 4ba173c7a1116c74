// numpy.fft's transforms: fft/ifft, rfft, irfft along any axis, and
// fftn/ifftn/rfftn over up to three distinct axes, as one backend transform
// (Transform: the axes move last, are padded or truncated in a C-contiguous
// copy of the compute dtype, transformed unnormalized over the batch,
// scaled for NumPy's norm modes and moved back; the result is a view).
// irfftn and fftn of repeated or more axes run one axis at a time, as
// numpy.fft does; hfft/ihfft (conjugates and the opposite norm),
// fftfreq/rfftfreq and fftshift/ifftshift are composed here (ops/compose.h),
// once for every client.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "ops/compose.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

enum class FftKind { kC2c, kR2c, kC2r };

// Single precision for float16/float32/complex64 inputs, double otherwise
// (NumPy 2 keeps single precision).
bool SinglePrecision(DType d) {
  return d == DType::kFloat16 || d == DType::kFloat32 || d == DType::kComplex64;
}

// NumPy's norm modes; "" is the default.
absl::StatusOr<std::string> NormAttr(OpContext &ctx) {
  std::string norm = "backward";
  if (ctx.attrs().Has("norm")) {
    ARRAYD_ASSIGN_OR_RETURN(norm, ctx.attrs().String("norm"));
  }
  if (norm.empty()) norm = "backward";
  if (norm != "backward" && norm != "ortho" && norm != "forward") {
    return ValueError(absl::StrCat("Invalid norm value ", norm,
                                   "; should be \"backward\", \"ortho\" or \"forward\"."));
  }
  return norm;
}

// `v` restricted to [start, start + len) along axis (a view).
View AxisRange(View v, int axis, int64_t start, int64_t len) {
  v.offset += start * v.strides[axis];
  v.shape[axis] = len;
  return v;
}

// One transform of x over `axes` (distinct, in [0, ndim)) of lengths `n`
// (each axis padded with zeros or truncated to its length): the axes move
// last in that order (a view), a C-contiguous copy of the compute dtype is
// made where the input is not one already, the backend transforms them all
// at once (c2r: one axis, the last), the result is scaled for the norm mode
// and the axes move back (the result is a view). For r2c the last axis is
// the real one.
absl::StatusOr<View> Transform(OpContext &ctx, const View &x, FftKind kind,
                               const std::vector<int> &axes, const std::vector<int64_t> &n,
                               const std::string &norm, bool inverse) {
  if (kind == FftKind::kR2c && IsComplex(x.dtype)) {
    return TypeError("rfft: complex input is not supported (NumPy's rfft takes real input)");
  }
  for (int64_t len : n) {
    if (len < 1)
      return ValueError(absl::StrCat("Invalid number of FFT data points (", len, ") specified."));
  }
  const bool single = SinglePrecision(x.dtype);
  const DType complex_dtype = single ? DType::kComplex64 : DType::kComplex128;
  const DType real_dtype = single ? DType::kFloat32 : DType::kFloat64;
  const DType in_dtype = kind == FftKind::kR2c ? real_dtype : complex_dtype;
  const DType out_dtype = kind == FftKind::kC2r ? real_dtype : complex_dtype;
  const int nd = x.ndim(), k = static_cast<int>(axes.size());

  std::vector<int64_t> perm;
  for (int d = 0; d < nd; ++d) {
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) perm.push_back(d);
  }
  perm.insert(perm.end(), axes.begin(), axes.end());
  ARRAYD_ASSIGN_OR_RETURN(View xt, Transpose(x, perm));
  // The transform's input lengths (c2r: the half spectrum's last) and output's.
  Shape in_shape = xt.shape, out_shape = xt.shape;
  for (int i = 0; i < k; ++i) in_shape[nd - k + i] = out_shape[nd - k + i] = n[i];
  if (kind == FftKind::kC2r) in_shape.back() = n.back() / 2 + 1;
  if (kind == FftKind::kR2c) out_shape.back() = n.back() / 2 + 1;
  View in;
  if (xt.dtype == in_dtype && xt.shape == in_shape && xt.IsCContiguous()) {
    in = xt;  // the backends' transforms leave their input as it was
  } else {
    ARRAYD_ASSIGN_OR_RETURN(in, ctx.NewArray(in_dtype, in_shape));
    View src = xt, dst = in;
    for (int d = nd - k; d < nd; ++d) {
      const int64_t keep = std::min(xt.shape[d], in_shape[d]);
      src.shape[d] = dst.shape[d] = keep;
      // The zeros past the input along d (the slabs may overlap).
      if (keep < in_shape[d]) {
        ARRAYD_RETURN_IF_ERROR(
            ctx.stream().Fill(AxisRange(in, d, keep, in_shape[d] - keep), Scalar::Int(0)));
      }
    }
    if (dst.size() > 0) ARRAYD_RETURN_IF_ERROR(ctx.stream().Copy(src, dst));
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(out_dtype, out_shape));
  // (batch, lengths of the k axes): the backend's layout.
  const int64_t batch = ShapeSize(Shape(in_shape.begin(), in_shape.end() - k));
  Shape in_rows = {batch}, out_rows = {batch};
  in_rows.insert(in_rows.end(), in_shape.end() - k, in_shape.end());
  out_rows.insert(out_rows.end(), out_shape.end() - k, out_shape.end());
  View in2, out2;
  TryReshapeView(in, in_rows, &in2);
  TryReshapeView(out, out_rows, &out2);
  double points = 1;
  for (int64_t len : n) points *= static_cast<double>(len);
  double scale = 1;
  if (norm == "ortho") {
    scale = 1 / std::sqrt(points);
  } else if ((norm == "backward") == inverse) {
    scale = 1 / points;
  }
  switch (kind) {
    case FftKind::kC2c:
      ARRAYD_RETURN_IF_ERROR(ctx.stream().Fft(in2, out2, k, inverse));
      break;
    case FftKind::kR2c:
      ARRAYD_RETURN_IF_ERROR(ctx.stream().Rfft(in2, out2, k));
      break;
    case FftKind::kC2r:
      if (k != 1) return absl::InternalError("irfft: one axis at a time");
      ARRAYD_RETURN_IF_ERROR(ctx.stream().Irfft(in2, out2, scale));
      scale = 1;  // applied by the transform
      break;
  }
  if (scale != 1 && out.size() > 0) {
    ARRAYD_ASSIGN_OR_RETURN(View factor, ctx.NewArray(out_dtype, {}));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(factor, Scalar::Float(scale)));
    ARRAYD_ASSIGN_OR_RETURN(View fb, BroadcastTo(factor, out.shape));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Binary(kernels::BinaryOp::kMultiply, out, fb, out));
  }
  std::vector<int64_t> back(nd);
  for (int d = 0; d < nd; ++d) back[perm[d]] = d;
  return Transpose(out, back);
}

// fft/ifft (inverse), rfft and irfft along `axis` (default -1) with length
// n (default: the axis's; irfft's 2 * (len - 1)).
absl::Status RunFft(OpContext &ctx, FftKind kind) {
  const View &x = ctx.input(0);
  int64_t axis = -1;
  if (ctx.attrs().Has("axis")) {
    ARRAYD_ASSIGN_OR_RETURN(axis, ctx.attrs().Int("axis"));
  }
  ARRAYD_ASSIGN_OR_RETURN(auto axes, NormalizeAxes({axis}, x.ndim()));
  ARRAYD_ASSIGN_OR_RETURN(const std::string norm, NormAttr(ctx));
  bool inverse = kind == FftKind::kC2r;
  if (kind == FftKind::kC2c) {
    ARRAYD_ASSIGN_OR_RETURN(inverse, ctx.attrs().Bool("inverse", false));
  }
  const int64_t len = x.shape[axes[0]];
  int64_t n = kind == FftKind::kC2r ? 2 * (len - 1) : len;
  if (ctx.attrs().Has("n")) {
    ARRAYD_ASSIGN_OR_RETURN(n, ctx.attrs().Int("n"));
  }
  ARRAYD_ASSIGN_OR_RETURN(View result,
                          Transform(ctx, x, kind, {static_cast<int>(axes[0])}, {n}, norm, inverse));
  ctx.SetResult(0, result);
  return absl::OkStatus();
}

// fftn/ifftn (inverse), rfftn and irfftn: the one-axis transforms over
// `axes` (default: all) with lengths `s` (default: the axes' lengths;
// irfftn's last 2 * (len - 1); -1: the axis's length), numpy.fft's order:
// fftn from the last axis given to the first; rfftn the real transform on
// the last axis, then complex ones from the next-to-last to the first;
// irfftn complex inverses on all but the last axis, first to last, then the
// real one on the last. No axes: a copy (fftn), a ValueError (rfftn, irfftn).
absl::Status RunFftn(OpContext& ctx, FftKind kind) {
  const View& x = ctx.input(0);
  std::vector<int64_t> axes;
  if (ctx.attrs().Has("axes")) {
    ARRAYD_ASSIGN_OR_RETURN(axes, ctx.attrs().Ints("axes"));
  } else {
    for (int d = 0; d < x.ndim(); ++d) axes.push_back(d);
  }
  std::vector<int64_t> lengths;
  for (int64_t a : axes) {
    int64_t one[1] = {a};
    ARRAYD_ASSIGN_OR_RETURN(auto ax, NormalizeAxes(one, x.ndim()));
    lengths.push_back(x.shape[ax[0]]);
  }
  std::vector<int64_t> s = lengths;
  if (ctx.attrs().Has("s")) {
    ARRAYD_ASSIGN_OR_RETURN(s, ctx.attrs().Ints("s"));
    if (s.size() != axes.size()) return ValueError("Shape and axes have different lengths.");
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == -1) s[i] = lengths[i];
    }
  } else if (kind == FftKind::kC2r && !s.empty()) {
    s.back() = 2 * (s.back() - 1);
  }
  if (axes.empty()) {
    if (kind != FftKind::kC2c) return ValueError("rfftn and irfftn need at least one axis");
    ARRAYD_ASSIGN_OR_RETURN(View copy, ctx.ContiguousCopy(x));
    ctx.SetResult(0, copy);
    return absl::OkStatus();
  }
  ARRAYD_ASSIGN_OR_RETURN(const std::string norm, NormAttr(ctx));
  ARRAYD_ASSIGN_OR_RETURN(bool inverse, ctx.attrs().Bool("inverse", false));
  // Distinct axes, at most three (cuFFT's most), of a forward real or a
  // complex transform: one multi-axis transform (one copy, one plan, as
  // CuPy's fftn). The per-axis order below gives the same values up to
  // rounding.
  std::vector<int> distinct;
  for (int64_t a : axes) {
    const int64_t ax = a < 0 ? a + x.ndim() : a;
    if (ax < 0 || ax >= x.ndim() ||
        std::find(distinct.begin(), distinct.end(), ax) != distinct.end()) {
      break;
    }
    distinct.push_back(static_cast<int>(ax));
  }
  if (kind != FftKind::kC2r && distinct.size() == axes.size() && axes.size() <= 3) {
    ARRAYD_ASSIGN_OR_RETURN(View r, Transform(ctx, x, kind, distinct, s, norm,
                                              kind == FftKind::kC2c && inverse));
    ctx.SetResult(0, r);
    return absl::OkStatus();
  }
  View r = x;
  auto one = [&](const char* op, size_t i, std::optional<bool> inv) -> absl::Status {
    compose::AttrList attrs = {
        {"n", compose::Int(s[i])}, {"axis", compose::Int(axes[i])}, {"norm", compose::Str(norm)}};
    if (inv) attrs.push_back({"inverse", compose::Bool(*inv)});
    ARRAYD_ASSIGN_OR_RETURN(r, compose::Run(ctx, op, {r}, attrs));
    return absl::OkStatus();
  };
  const size_t k = axes.size();
  switch (kind) {
    case FftKind::kC2c:
      for (size_t i = k; i-- > 0;) ARRAYD_RETURN_IF_ERROR(one("fft", i, inverse));
      break;
    case FftKind::kR2c:
      ARRAYD_RETURN_IF_ERROR(one("rfft", k - 1, std::nullopt));
      for (size_t i = k - 1; i-- > 0;) ARRAYD_RETURN_IF_ERROR(one("fft", i, false));
      break;
    case FftKind::kC2r:
      for (size_t i = 0; i + 1 < k; ++i) ARRAYD_RETURN_IF_ERROR(one("fft", i, true));
      ARRAYD_RETURN_IF_ERROR(one("irfft", k - 1, std::nullopt));
      break;
  }
  ctx.SetResult(0, r);
  return absl::OkStatus();
}

// The norm of the opposite direction (an invalid one stays, for the
// transform to refuse).
std::string SwapDirection(const std::string& norm) {
  if (norm == "backward" || norm.empty()) return "forward";
  if (norm == "forward") return "backward";
  return norm;
}

// The attributes of this op for the transform it calls: n and axis as
// given, norm swapped.
absl::StatusOr<compose::AttrList> HermitianAttrs(OpContext& ctx) {
  compose::AttrList attrs;
  if (ctx.attrs().Has("n")) {
    ARRAYD_ASSIGN_OR_RETURN(int64_t n, ctx.attrs().Int("n"));
    attrs.push_back({"n", compose::Int(n)});
  }
  if (ctx.attrs().Has("axis")) {
    ARRAYD_ASSIGN_OR_RETURN(int64_t axis, ctx.attrs().Int("axis"));
    attrs.push_back({"axis", compose::Int(axis)});
  }
  std::string norm = "backward";
  if (ctx.attrs().Has("norm")) {
    ARRAYD_ASSIGN_OR_RETURN(norm, ctx.attrs().String("norm"));
  }
  attrs.push_back({"norm", compose::Str(SwapDirection(norm))});
  return attrs;
}

// hfft: the irfft of the conjugate (a real signal of length n); ihfft: the
// conjugate of the rfft; each with the opposite norm, as numpy.fft's.
absl::Status RunHfft(OpContext& ctx, bool inverse) {
  ARRAYD_ASSIGN_OR_RETURN(compose::AttrList attrs, HermitianAttrs(ctx));
  View x = ctx.input(0);
  if (inverse) {
    ARRAYD_ASSIGN_OR_RETURN(View r, compose::Run(ctx, "rfft", {x}, attrs));
    ARRAYD_ASSIGN_OR_RETURN(x, compose::Run(ctx, "conjugate", {r}));
  } else {
    if (IsComplex(x.dtype)) {
      ARRAYD_ASSIGN_OR_RETURN(x, compose::Run(ctx, "conjugate", {x}));
    }
    ARRAYD_ASSIGN_OR_RETURN(x, compose::Run(ctx, "irfft", {x}, attrs));
  }
  ctx.SetResult(0, x);
  return absl::OkStatus();
}

// fftfreq: [0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (n d); rfftfreq:
// [0, 1, ..., n / 2] / (n d); float64, each integer times 1 / (n d) as
// NumPy computes them. NumPy's ZeroDivisionError when n d == 0 (checked
// first, as NumPy's 1.0 / (n * d)), ValueError when n < 0.
absl::Status RunFftfreq(OpContext& ctx, bool real) {
  ARRAYD_ASSIGN_OR_RETURN(int64_t n, ctx.attrs().Int("n"));
  ARRAYD_ASSIGN_OR_RETURN(double d, compose::FloatAttr(ctx.attrs(), "d", 1.0));
  const double nd = static_cast<double>(n) * d;
  if (nd == 0) return ZeroDivisionError("float division by zero");
  if (n < 0) return ValueError("negative dimensions are not allowed");
  const double val = 1.0 / nd;
  std::vector<double> freq;
  const int64_t positive = real ? n / 2 + 1 : (n - 1) / 2 + 1;
  for (int64_t i = 0; i < positive; ++i) freq.push_back(static_cast<double>(i) * val);
  if (!real) {
    for (int64_t i = -(n / 2); i < 0; ++i) freq.push_back(static_cast<double>(i) * val);
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(DType::kFloat64, {static_cast<int64_t>(freq.size())}));
  if (!freq.empty()) ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(freq.data(), out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}


// fftshift/ifftshift(x, *, axes): x rolled by len / 2 (ifftshift: back) along
// each of axes (default: all; a repeated axis rolls again, as numpy.roll),
// two block copies an axis; always a new array.
absl::Status RunFftshift(OpContext& ctx, bool inverse) {
  const View& x = ctx.input(0);
  std::vector<int64_t> axes;
  if (ctx.attrs().Has("axes")) {
    ARRAYD_ASSIGN_OR_RETURN(axes, ctx.attrs().Ints("axes"));
  } else {
    for (int d = 0; d < x.ndim(); ++d) axes.push_back(d);
  }
  std::vector<int64_t> shift(x.ndim(), 0);
  for (int64_t a : axes) {
    int64_t one[1] = {a};
    ARRAYD_ASSIGN_OR_RETURN(auto ax, NormalizeAxes(one, x.ndim()));
    const int64_t len = x.shape[ax[0]];
    shift[ax[0]] += inverse ? -(len / 2) : len / 2;
  }
  View r = x;
  bool copied = false;
  for (int d = 0; d < x.ndim() && x.size() > 0; ++d) {
    const int64_t len = x.shape[d];
    const int64_t k = (shift[d] % len + len) % len;  // r[i] = x[i - k]
    if (k == 0) continue;
    ARRAYD_ASSIGN_OR_RETURN(View next, ctx.NewArray(x.dtype, x.shape));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Copy(AxisRange(r, d, 0, len - k), AxisRange(next, d, k, len - k)));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Copy(AxisRange(r, d, len - k, k), AxisRange(next, d, 0, k)));
    r = next;
    copied = true;
  }
  if (!copied) {
    ARRAYD_ASSIGN_OR_RETURN(r, ctx.ContiguousCopy(x));
  }
  ctx.SetResult(0, r);
  return absl::OkStatus();
}

}  // namespace

void RegisterFftOps(OpRegistry* r) {
  const OpFamily f = OpFamily::kLibrary;
  r->Register(f,
              "fft(a, *, n: int? = None, axis: int = -1, norm: str = 'backward', "
              "inverse: bool = False) -> out",
              "numpy.fft.fft / ifft (inverse) along one axis.",
              [](OpContext& c) { return RunFft(c, FftKind::kC2c); });
  r->Register(f, "rfft(a, *, n: int? = None, axis: int = -1, norm: str = 'backward') -> out",
              "numpy.fft.rfft along one axis.", [](OpContext& c) { return RunFft(c, FftKind::kR2c); });
  r->Register(f, "irfft(a, *, n: int? = None, axis: int = -1, norm: str = 'backward') -> out",
              "numpy.fft.irfft along one axis.", [](OpContext& c) { return RunFft(c, FftKind::kC2r); });
  r->Register(f,
              "fftn(a, *, s: ints? = None, axes: ints? = None, norm: str = 'backward', "
              "inverse: bool = False) -> out",
              "numpy.fft.fftn / ifftn (inverse): fft along each of axes, the last first.",
              [](OpContext& c) { return RunFftn(c, FftKind::kC2c); });
  r->Register(f, "rfftn(a, *, s: ints? = None, axes: ints? = None, norm: str = 'backward') -> out",
              "numpy.fft.rfftn: rfft along the last of axes, then fft along the others.",
              [](OpContext& c) { return RunFftn(c, FftKind::kR2c); });
  r->Register(f, "irfftn(a, *, s: ints? = None, axes: ints? = None, norm: str = 'backward') -> out",
              "numpy.fft.irfftn: inverse fft along all but the last of axes, then irfft.",
              [](OpContext& c) { return RunFftn(c, FftKind::kC2r); });
  r->Register(f, "hfft(a, *, n: int? = None, axis: int = -1, norm: str = 'backward') -> out",
              "numpy.fft.hfft: irfft of the conjugate, the opposite norm.",
              [](OpContext& c) { return RunHfft(c, false); });
  r->Register(f, "ihfft(a, *, n: int? = None, axis: int = -1, norm: str = 'backward') -> out",
              "numpy.fft.ihfft: conjugate of the rfft, the opposite norm.",
              [](OpContext& c) { return RunHfft(c, true); });
  r->Register(OpFamily::kCreation, "fftfreq(*, n: int, d: float = 1.0) -> out",
              "numpy.fft.fftfreq (float64).", [](OpContext& c) { return RunFftfreq(c, false); });
  r->Register(OpFamily::kCreation, "rfftfreq(*, n: int, d: float = 1.0) -> out",
              "numpy.fft.rfftfreq (float64).", [](OpContext& c) { return RunFftfreq(c, true); });
  r->Register(OpFamily::kShape, "fftshift(x, *, axes: ints? = None) -> out",
              "numpy.fft.fftshift (a new array).", [](OpContext& c) { return RunFftshift(c, false); });
  r->Register(OpFamily::kShape, "ifftshift(x, *, axes: ints? = None) -> out",
              "numpy.fft.ifftshift (a new array).", [](OpContext& c) { return RunFftshift(c, true); });
}

}  // namespace arrayd
