// Creation ops: empty, zeros, ones, full, arange, linspace, eye, upload.
#include "absl/strings/str_cat.h"
#include "common/metrics.h"
#include "common/status.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

absl::Status RunFilled(OpContext& ctx, const Scalar* value) {
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ctx.attrs().GetShape("shape"));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, ctx.attrs().GetDType("dtype"));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(dtype, std::move(shape)));
  if (value != nullptr) ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(out, *value));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::Status RunFull(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(Scalar value, ctx.attrs().GetScalar("value"));
  return RunFilled(ctx, &value);
}

absl::Status RunArange(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(int64_t num, ctx.attrs().Int("num"));
  ARRAYD_ASSIGN_OR_RETURN(Scalar start, ctx.attrs().GetScalar("start"));
  ARRAYD_ASSIGN_OR_RETURN(Scalar step, ctx.attrs().GetScalar("step"));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, ctx.attrs().GetDType("dtype"));
  if (num < 0) return ValueError("arange: negative length");
  if (start.kind == Scalar::kBool) start.kind = Scalar::kInt;
  if (step.kind != start.kind) {
    // Compute in the wider of the two kinds.
    auto as_float = [](Scalar s) {
      if (s.kind == Scalar::kInt || s.kind == Scalar::kBool) return Scalar::Float(static_cast<double>(s.i));
      if (s.kind == Scalar::kUInt) return Scalar::Float(static_cast<double>(s.u));
      return s;
    };
    if (start.kind == Scalar::kUInt && step.kind == Scalar::kInt) {
      step = Scalar::UInt(static_cast<uint64_t>(step.i));
    } else {
      start = as_float(start);
      step = as_float(step);
      if (start.kind != step.kind) {  // one complex
        start = Scalar::Complex(start.re, start.im);
        step = Scalar::Complex(step.re, step.im);
      }
    }
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(dtype, Shape{num}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Iota(out, start, step));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// NumPy's linspace: start + i * step in float64 (or complex128), the last
// value set to stop, floored for integer dtypes, then cast.
absl::Status RunLinspace(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(int64_t num, ctx.attrs().Int("num"));
  ARRAYD_ASSIGN_OR_RETURN(Scalar start, ctx.attrs().GetScalar("start"));
  ARRAYD_ASSIGN_OR_RETURN(Scalar stop, ctx.attrs().GetScalar("stop"));
  ARRAYD_ASSIGN_OR_RETURN(bool endpoint, ctx.attrs().Bool("endpoint", true));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, ctx.attrs().GetDType("dtype"));
  if (num < 0) return ValueError(absl::StrCat("Number of samples, ", num, ", must be non-negative."));
  auto to_complex = [](Scalar s) {
    if (s.kind == Scalar::kInt || s.kind == Scalar::kBool) return Scalar::Complex(static_cast<double>(s.i), 0);
    if (s.kind == Scalar::kUInt) return Scalar::Complex(static_cast<double>(s.u), 0);
    return Scalar::Complex(s.re, s.im);
  };
  start = to_complex(start);
  stop = to_complex(stop);
  const bool is_complex = IsComplex(dtype) || start.im != 0 || stop.im != 0;
  const double div = endpoint ? static_cast<double>(num - 1) : static_cast<double>(num);
  Scalar step = Scalar::Complex(div > 0 ? (stop.re - start.re) / div : 0.0,
                                div > 0 ? (stop.im - start.im) / div : 0.0);
  DType work_dtype = is_complex ? DType::kComplex128 : DType::kFloat64;
  if (!is_complex) {
    start = Scalar::Float(start.re);
    step = Scalar::Float(step.re);
  }
  ARRAYD_ASSIGN_OR_RETURN(View work, ctx.NewArray(work_dtype, Shape{num}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Iota(work, start, step));
  if (endpoint && num > 1) {
    View last = work;
    last.offset += (num - 1) * ItemSize(work_dtype);
    last.shape = {1};
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(last, is_complex ? stop : Scalar::Float(stop.re)));
  }
  if (IsInteger(dtype)) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Unary(kernels::UnaryOp::kFloor, work, work));
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.CastTo(work, dtype));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::Status RunEye(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(int64_t n, ctx.attrs().Int("n"));
  ARRAYD_ASSIGN_OR_RETURN(int64_t m, ctx.attrs().Int("m"));
  ARRAYD_ASSIGN_OR_RETURN(int64_t k, ctx.attrs().Int("k"));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, ctx.attrs().GetDType("dtype"));
  if (n < 0 || m < 0) return ValueError("negative dimensions are not allowed");
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(dtype, Shape{n, m}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(out, Scalar::Int(0)));
  int64_t row = k >= 0 ? 0 : -k, col = k >= 0 ? k : 0;
  int64_t len = std::max<int64_t>(0, std::min(n - row, m - col));
  if (len > 0) {
    View diag = out;
    diag.offset = (row * m + col) * ItemSize(dtype);
    diag.shape = {len};
    diag.strides = {(m + 1) * ItemSize(dtype)};
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(diag, Scalar::Int(1)));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::Status RunUpload(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ctx.attrs().GetShape("shape"));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, ctx.attrs().GetDType("dtype"));
  ARRAYD_ASSIGN_OR_RETURN(const std::string* data, ctx.attrs().Data("data"));
  int64_t nbytes = ShapeSize(shape) * ItemSize(dtype);
  if (static_cast<int64_t>(data->size()) != nbytes) {
    return ValueError(absl::StrCat("upload: ", data->size(), " bytes of data for an array of ",
                                   nbytes, " bytes"));
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(dtype, std::move(shape)));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(data->data(), out));
  Metrics().Uploaded(Transport::kInline, data->size());
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

}  // namespace

void RegisterCreationOps(OpRegistry* r) {
  const OpFamily f = OpFamily::kCreation;
  r->Register(f, "empty(*, shape: shape, dtype: dtype) -> out", "Uninitialized array.",
              [](OpContext& ctx) { return RunFilled(ctx, nullptr); });
  r->Register(f, "zeros(*, shape: shape, dtype: dtype) -> out", "Array of zeros.",
              [](OpContext& ctx) {
                Scalar zero = Scalar::Int(0);
                return RunFilled(ctx, &zero);
              });
  r->Register(f, "ones(*, shape: shape, dtype: dtype) -> out", "Array of ones.",
              [](OpContext& ctx) {
                Scalar one = Scalar::Int(1);
                return RunFilled(ctx, &one);
              });
  r->Register(f, "full(*, shape: shape, dtype: dtype, value: scalar) -> out",
              "Array filled with a value.", RunFull);
  r->Register(f, "arange(*, start: scalar, step: scalar, num: int, dtype: dtype) -> out",
              "Evenly spaced values: start + i * step.", RunArange);
  r->Register(f,
              "linspace(*, start: scalar, stop: scalar, num: int, endpoint: bool = True, "
              "dtype: dtype) -> out",
              "Evenly spaced numbers over an interval.", RunLinspace);
  r->Register(f, "eye(*, n: int, m: int, k: int, dtype: dtype) -> out",
              "Ones on a diagonal.", RunEye);
  r->Register(f, "upload(*, shape: shape, dtype: dtype, data: data) -> out",
              "Array from inline C-order bytes.", RunUpload);
}

}  // namespace arrayd
