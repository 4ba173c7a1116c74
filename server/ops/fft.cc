// numpy.fft's one-dimensional transforms (fft/ifft, rfft, irfft) along any
// axis: the op moves the axis last, pads or truncates it to n in a
// C-contiguous copy of the compute dtype, runs the backend's unnormalized
// transform over the batch, scales for NumPy's norm modes and moves the axis
// back (the result is a view). Clients build fftn and friends from these.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

enum class FftKind { kC2c, kR2c, kC2r };

// Single precision for float16/float32/complex64 inputs, double otherwise
// (NumPy 2 keeps single precision).
bool SinglePrecision(DType d) {
  return d == DType::kFloat16 || d == DType::kFloat32 || d == DType::kComplex64;
}

absl::Status RunFft(OpContext &ctx, FftKind kind) {
  const View &x = ctx.input(0);
  int64_t axis = -1;
  if (ctx.attrs().Has("axis")) {
    ARRAYD_ASSIGN_OR_RETURN(axis, ctx.attrs().Int("axis"));
  }
  ARRAYD_ASSIGN_OR_RETURN(auto axes, NormalizeAxes({axis}, x.ndim()));
  const int ax = axes[0], nd = x.ndim();
  std::string norm = "backward";
  if (ctx.attrs().Has("norm")) {
    ARRAYD_ASSIGN_OR_RETURN(norm, ctx.attrs().String("norm"));
  }
  if (norm.empty()) norm = "backward";
  if (norm != "backward" && norm != "ortho" && norm != "forward") {
    return ValueError(absl::StrCat("Invalid norm value ", norm,
                                   "; should be \"backward\", \"ortho\" or \"forward\"."));
  }
  bool inverse = kind == FftKind::kC2r;
  if (kind == FftKind::kC2c) {
    ARRAYD_ASSIGN_OR_RETURN(inverse, ctx.attrs().Bool("inverse", false));
  }
  if (kind == FftKind::kR2c && IsComplex(x.dtype)) {
    return TypeError("rfft: complex input is not supported (NumPy's rfft takes real input)");
  }
  const bool single = SinglePrecision(x.dtype);
  const DType complex_dtype = single ? DType::kComplex64 : DType::kComplex128;
  const DType real_dtype = single ? DType::kFloat32 : DType::kFloat64;

  const int64_t len = x.shape[ax];
  int64_t n = kind == FftKind::kC2r ? 2 * (len - 1) : len;
  if (ctx.attrs().Has("n")) {
    ARRAYD_ASSIGN_OR_RETURN(n, ctx.attrs().Int("n"));
  }
  if (n < 1)
    return ValueError(absl::StrCat("Invalid number of FFT data points (", n, ") specified."));
  // Input length of the transform, its dtype, and the output's.
  const int64_t in_len = kind == FftKind::kC2r ? n / 2 + 1 : n;
  const int64_t out_len = kind == FftKind::kR2c ? n / 2 + 1 : n;
  const DType in_dtype = kind == FftKind::kR2c ? real_dtype : complex_dtype;
  const DType out_dtype = kind == FftKind::kC2r ? real_dtype : complex_dtype;

  std::vector<int64_t> perm;
  for (int d = 0; d < nd; ++d) {
    if (d != ax) perm.push_back(d);
  }
  perm.push_back(ax);
  ARRAYD_ASSIGN_OR_RETURN(View xt, Transpose(x, perm));
  Shape in_shape = xt.shape;
  in_shape.back() = in_len;
  View in;
  if (xt.dtype == in_dtype && len == in_len && xt.IsCContiguous() && kind != FftKind::kC2r) {
    in = xt;  // the transforms read their input without writing it (except c2r's)
  } else {
    ARRAYD_ASSIGN_OR_RETURN(in, ctx.NewArray(in_dtype, in_shape));
    const int64_t keep = std::min(len, in_len);
    if (keep < in_len) ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(in, Scalar::Int(0)));
    if (keep > 0) {
      View src = xt, dst = in;
      src.shape.back() = keep;
      dst.shape.back() = keep;
      ARRAYD_RETURN_IF_ERROR(ctx.stream().Copy(src, dst));
    }
  }
  Shape out_shape = in_shape;
  out_shape.back() = out_len;
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(out_dtype, out_shape));
  const int64_t batch = ShapeSize(Shape(in_shape.begin(), in_shape.end() - 1));
  View in2, out2;
  TryReshapeView(in, {batch, in_len}, &in2);
  TryReshapeView(out, {batch, out_len}, &out2);
  switch (kind) {
    case FftKind::kC2c:
      ARRAYD_RETURN_IF_ERROR(ctx.stream().Fft(in2, out2, inverse));
      break;
    case FftKind::kR2c:
      ARRAYD_RETURN_IF_ERROR(ctx.stream().Rfft(in2, out2));
      break;
    case FftKind::kC2r:
      ARRAYD_RETURN_IF_ERROR(ctx.stream().Irfft(in2, out2));
      break;
  }
  double scale = 1;
  if (norm == "ortho") {
    scale = 1 / std::sqrt(static_cast<double>(n));
  } else if ((norm == "backward") == inverse) {
    scale = 1 / static_cast<double>(n);
  }
  if (scale != 1 && out.size() > 0) {
    ARRAYD_ASSIGN_OR_RETURN(View factor, ctx.NewArray(out_dtype, {}));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(factor, Scalar::Float(scale)));
    ARRAYD_ASSIGN_OR_RETURN(View fb, BroadcastTo(factor, out.shape));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Binary(kernels::BinaryOp::kMultiply, out, fb, out));
  }
  std::vector<int64_t> back(nd);
  for (int d = 0; d < nd; ++d) back[perm[d]] = d;
  ARRAYD_ASSIGN_OR_RETURN(View result, Transpose(out, back));
  ctx.SetResult(0, result);
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
}

}  // namespace arrayd
