// numpy.fft of the C++ client (arrayd/numeric.h): NumPy's checks, the
// results' dtypes and shapes, and one server op each (ops/fft.cc).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrayd/numeric.h"
#include "numeric_internal.h"

namespace arrayd {
inline namespace client {
namespace fft {

using numeric_internal::AllAxes;
using numeric_internal::Core;
using numeric_internal::CoreOf;
using numeric_internal::MakeOp;
using numeric_internal::RealOf;

namespace {

enum class Kind { kC2c, kR2c, kC2r };

Array Transform(const char* name, Kind kind, bool inverse, const Array& a, std::optional<int64_t> n,
                int64_t axis, const std::string& norm) {
  if (auto bad = ArrayOps::CheckInputs(name, {&a})) return *bad;
  const std::shared_ptr<Core>& core = ArrayOps::State(a)->core;
  absl::StatusOr<std::vector<int64_t>> axes = NormalizeAxes(a.ndim(), {axis});
  if (!axes.ok()) return Refuse(core, name, axes.status());
  axis = (*axes)[0];
  if (norm != "backward" && norm != "ortho" && norm != "forward") {
    return Refuse(core, name,
                  ValueError(absl::StrCat("Invalid norm value ", norm,
                                          "; should be \"backward\", \"ortho\" or \"forward\".")));
  }
  if (kind == Kind::kR2c && a.dtype() != RealOf(a.dtype())) {
    return Refuse(core, name,
                  TypeError("rfft: complex input is not supported (NumPy's "
                            "rfft takes real input)"));
  }
  const int64_t len = a.shape()[axis];
  const int64_t points = n ? *n : (kind == Kind::kC2r ? 2 * (len - 1) : len);
  if (points < 1) {
    return Refuse(
        core, name,
        ValueError(absl::StrCat("Invalid number of FFT data points (", points, ") specified.")));
  }
  const DType d = a.dtype();
  const bool single = d == DType::kFloat16 || d == DType::kFloat32 || d == DType::kComplex64;
  const DType out_dtype = kind == Kind::kC2r ? (single ? DType::kFloat32 : DType::kFloat64)
                                             : (single ? DType::kComplex64 : DType::kComplex128);
  Shape shape = a.shape();
  shape[axis] = kind == Kind::kR2c ? points / 2 + 1 : points;
  v1::Op op = MakeOp(name, {&a});
  auto& attrs = *op.mutable_attrs();
  attrs["n"].set_i(points);
  attrs["axis"].set_i(axis);
  attrs["norm"].set_s(norm);
  if (kind == Kind::kC2c) attrs["inverse"].set_b(inverse);
  return ArrayOps::Emit(core, std::move(op), out_dtype, std::move(shape));
}

}  // namespace

Array Fft(const Array& a, std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  return Transform("fft", Kind::kC2c, false, a, n, axis, norm);
}
Array Ifft(const Array& a, std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  return Transform("fft", Kind::kC2c, true, a, n, axis, norm);
}
Array Rfft(const Array& a, std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  return Transform("rfft", Kind::kR2c, false, a, n, axis, norm);
}
Array Irfft(const Array& a, std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  return Transform("irfft", Kind::kC2r, true, a, n, axis, norm);
}

namespace {

// The server's fftn (c2c), rfftn (r2c) or irfftn (c2r) over `axes`
// (default: all); `last_n` sets irfftn's last length. Here: NumPy's errors
// and the result's dtype and shape. No axes: `a` itself, as NumPy.
Array TransformN(const char* name, Kind kind, bool inverse, const Array& a,
                 const std::optional<std::vector<int64_t>>& axes, std::optional<int64_t> last_n,
                 const std::string& norm) {
  if (auto bad = ArrayOps::CheckInputs(name, {&a})) return *bad;
  const std::shared_ptr<Core>& core = CoreOf(a);
  absl::StatusOr<std::vector<int64_t>> ax = axes ? NormalizeAxes(a.ndim(), *axes) : AllAxes(a);
  if (!ax.ok()) return Refuse(core, name, ax.status());
  if (ax->empty()) return a;
  if (norm != "backward" && norm != "ortho" && norm != "forward") {
    return Refuse(core, name,
                  ValueError(absl::StrCat("Invalid norm value ", norm,
                                          "; should be \"backward\", \"ortho\" or \"forward\".")));
  }
  if (kind == Kind::kR2c && a.dtype() != RealOf(a.dtype())) {
    return Refuse(
        core, name,
        TypeError("rfft: complex input is not supported (NumPy's rfft takes real input)"));
  }
  Shape shape = a.shape();
  const int64_t last = ax->back();
  const int64_t last_len =
      kind == Kind::kC2r ? (last_n ? *last_n : 2 * (shape[last] - 1)) : shape[last];
  for (int64_t d : *ax) {
    const int64_t points = d == last ? last_len : shape[d];
    if (points < 1) {
      return Refuse(
          core, name,
          ValueError(absl::StrCat("Invalid number of FFT data points (", points, ") specified.")));
    }
  }
  shape[last] = kind == Kind::kR2c ? last_len / 2 + 1 : last_len;
  const DType d = a.dtype();
  const bool single = d == DType::kFloat16 || d == DType::kFloat32 || d == DType::kComplex64;
  const DType out_dtype = kind == Kind::kC2r ? (single ? DType::kFloat32 : DType::kFloat64)
                                             : (single ? DType::kComplex64 : DType::kComplex128);
  v1::Op op = MakeOp(name, {&a});
  auto& attrs = *op.mutable_attrs();
  attrs["axes"] = IntsAttr(*ax);
  attrs["norm"].set_s(norm);
  if (kind == Kind::kC2c) attrs["inverse"].set_b(inverse);
  if (kind == Kind::kC2r && last_n) {
    std::vector<int64_t> s(ax->size(), -1);
    s.back() = *last_n;
    attrs["s"] = IntsAttr(s);
  }
  return ArrayOps::Emit(core, std::move(op), out_dtype, std::move(shape));
}

}  // namespace

Array Fftn(const Array& a, std::optional<std::vector<int64_t>> axes, const std::string& norm) {
  return TransformN("fftn", Kind::kC2c, false, a, axes, std::nullopt, norm);
}
Array Ifftn(const Array& a, std::optional<std::vector<int64_t>> axes, const std::string& norm) {
  return TransformN("fftn", Kind::kC2c, true, a, axes, std::nullopt, norm);
}
Array Rfftn(const Array& a, std::optional<std::vector<int64_t>> axes, const std::string& norm) {
  return TransformN("rfftn", Kind::kR2c, false, a, axes, std::nullopt, norm);
}
Array Irfftn(const Array& a, std::optional<std::vector<int64_t>> axes,
             std::optional<int64_t> last_n, const std::string& norm) {
  return TransformN("irfftn", Kind::kC2r, true, a, axes, last_n, norm);
}
Array Fft2(const Array& a, const std::string& norm) {
  return Fftn(a, std::vector<int64_t>{-2, -1}, norm);
}
Array Ifft2(const Array& a, const std::string& norm) {
  return Ifftn(a, std::vector<int64_t>{-2, -1}, norm);
}
Array Rfft2(const Array& a, const std::string& norm) {
  return Rfftn(a, std::vector<int64_t>{-2, -1}, norm);
}
Array Irfft2(const Array& a, const std::string& norm) {
  return Irfftn(a, std::vector<int64_t>{-2, -1}, std::nullopt, norm);
}

// The composites below are server ops (ops/fft.cc); here: NumPy's errors
// and the results' dtype and shape.
Array Hfft(const Array& a, std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  return Transform("hfft", Kind::kC2r, true, a, n, axis, norm);
}
Array Ihfft(const Array& a, std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  return Transform("ihfft", Kind::kR2c, false, a, n, axis, norm);
}

namespace {

// The server's fftfreq (all) or rfftfreq (non-negative) sample frequencies.
Array Frequencies(Client* client, const char* name, int64_t n, double d, bool non_negative) {
  const std::shared_ptr<Core>& core = ArrayOps::CoreOf(*client);
  if (static_cast<double>(n) * d == 0) {  // NumPy's 1.0 / (n * d) comes first
    return Refuse(core, name,
                  internal::WithKind(absl::InvalidArgumentError("float division by zero"),
                                     "ZeroDivisionError"));
  }
  if (n < 0) return Refuse(core, name, ValueError("negative dimensions are not allowed"));
  v1::Op op;
  op.set_name(name);
  (*op.mutable_attrs())["n"].set_i(n);
  (*op.mutable_attrs())["d"].set_f(d);
  return ArrayOps::Emit(core, std::move(op), DType::kFloat64, {non_negative ? n / 2 + 1 : n});
}

// The server's fftshift or ifftshift of `axes` (checked here).
Array Shift(const char* name, const Array& x, const std::optional<std::vector<int64_t>>& axes) {
  if (auto bad = ArrayOps::CheckInputs(name, {&x})) return *bad;
  v1::Op op = MakeOp(name, {&x});
  if (axes) {
    for (int64_t a : *axes) {
      absl::StatusOr<std::vector<int64_t>> ax = NormalizeAxes(x.ndim(), {a});
      if (!ax.ok()) return Refuse(CoreOf(x), name, ax.status());
    }
    (*op.mutable_attrs())["axes"] = IntsAttr(*axes);
  }
  return ArrayOps::Emit(CoreOf(x), std::move(op), x.dtype(), x.shape());
}

}  // namespace

Array Fftfreq(Client* client, int64_t n, double d) {
  return Frequencies(client, "fftfreq", n, d, false);
}
Array Rfftfreq(Client* client, int64_t n, double d) {
  return Frequencies(client, "rfftfreq", n, d, true);
}

Array Fftshift(const Array& x, std::optional<std::vector<int64_t>> axes) {
  return Shift("fftshift", x, axes);
}
Array Ifftshift(const Array& x, std::optional<std::vector<int64_t>> axes) {
  return Shift("ifftshift", x, axes);
}

}  // namespace fft
}  // namespace client
}  // namespace arrayd
