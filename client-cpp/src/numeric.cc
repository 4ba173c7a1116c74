// Matmul, linalg, fft and random of the C++ client (arrayd/numeric.h): each
// function checks what NumPy would refuse, computes the result's dtype and
// shape with NumPy's rules, and records the server op (proto OPS.md).
#include "arrayd/numeric.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "internal.h"

namespace arrayd {
inline namespace client {
namespace {

using internal::Core;

absl::Status LinAlgError(absl::string_view m) {
  return internal::WithKind(absl::InvalidArgumentError(m), "LinAlgError");
}

v1::Op MakeOp(const std::string& name, std::initializer_list<const Array*> inputs) {
  v1::Op op;
  op.set_name(name);
  for (const Array* a : inputs) op.add_inputs(a->handle());
  return op;
}

Shape Head(const Shape& s, size_t drop) { return Shape(s.begin(), s.end() - drop); }
Shape Append(Shape s, std::initializer_list<int64_t> tail) {
  s.insert(s.end(), tail.begin(), tail.end());
  return s;
}

DType RealOf(DType d) {
  if (d == DType::kComplex64) return DType::kFloat32;
  if (d == DType::kComplex128) return DType::kFloat64;
  return d;
}

// numpy.linalg's computation dtype of one operand.
absl::StatusOr<DType> LinalgDType(DType d) {
  if (d == DType::kFloat16) {
    return internal::WithKind(absl::InvalidArgumentError("array type float16 is unsupported in linalg"),
                              "TypeError");
  }
  return IsInexact(d) ? d : DType::kFloat64;
}

// Checks a stacked (..., m, n) operand (square when `square`) and returns its
// computation dtype.
absl::StatusOr<DType> CheckMatrix(const Array& a, bool square) {
  if (a.ndim() < 2) {
    return LinAlgError(absl::StrCat(a.ndim(), "-dimensional array given. Array must be at least "
                                    "two-dimensional"));
  }
  if (square && a.shape()[a.ndim() - 1] != a.shape()[a.ndim() - 2]) {
    return LinAlgError("Last 2 dimensions of the array must be square");
  }
  return LinalgDType(a.dtype());
}

// Records `name` on one stacked matrix with outputs built from its batch
// shape, (m, n) and computation dtype by `outputs`.
template <typename Outputs>
std::vector<Array> MatrixOp(const std::string& name, const Array& a, bool square,
                            std::map<std::string, v1::AttrValue> attrs, const Outputs& outputs) {
  auto refused = [&](const absl::Status& why) {
    Array bad = Refuse(ArrayOps::State(a)->core, name, why);
    return std::vector<Array>(3, bad);
  };
  if (auto bad = ArrayOps::CheckInputs(name, {&a})) return std::vector<Array>(3, *bad);
  absl::StatusOr<DType> dtype = CheckMatrix(a, square);
  if (!dtype.ok()) return refused(dtype.status());
  const int nd = a.ndim();
  const int64_t m = a.shape()[nd - 2], n = a.shape()[nd - 1];
  v1::Op op = MakeOp(name, {&a});
  for (auto& [key, value] : attrs) (*op.mutable_attrs())[key] = std::move(value);
  return ArrayOps::EmitMany(ArrayOps::State(a)->core, std::move(op),
                            outputs(Head(a.shape(), 2), m, n, *dtype));
}

v1::AttrValue StringAttr(const std::string& s) {
  v1::AttrValue v;
  v.set_s(s);
  return v;
}

}  // namespace

Array Matmul(const Array& a, const Array& b) {
  if (auto bad = ArrayOps::CheckInputs("matmul", {&a, &b})) return *bad;
  const std::shared_ptr<Core>& core = ArrayOps::State(a)->core;
  if (a.ndim() == 0 || b.ndim() == 0) {
    return Refuse(core, "matmul",
                  ValueError(absl::StrCat("matmul: Input operand ", a.ndim() == 0 ? 0 : 1,
                                          " does not have enough dimensions (has 0, gufunc core "
                                          "with signature (n?,k),(k,m?)->(n?,m?) requires 1)")));
  }
  // 1-D operands become (1, k) and (k, 1); those dimensions are dropped.
  Shape sa = a.ndim() == 1 ? Shape{1, a.shape()[0]} : a.shape();
  Shape sb = b.ndim() == 1 ? Shape{b.shape()[0], 1} : b.shape();
  const int64_t k = sa.back(), kb = sb[sb.size() - 2];
  if (k != kb) {
    return Refuse(
        core, "matmul",
        ValueError(absl::StrCat(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            "signature (n?,k),(k,m?)->(n?,m?) (size ", kb, " is different from ", k, ")")));
  }
  std::optional<Shape> batch = BroadcastShapes(Head(sa, 2), Head(sb, 2));
  if (!batch) return Refuse(core, "matmul", BroadcastError(a.shape(), b.shape()));
  Shape shape = *batch;
  if (a.ndim() > 1) shape.push_back(sa[sa.size() - 2]);
  if (b.ndim() > 1) shape.push_back(sb.back());
  return ArrayOps::Emit(core, MakeOp("matmul", {&a, &b}), PromoteTypes(a.dtype(), b.dtype()),
                        std::move(shape));
}

namespace linalg {

Array Inv(const Array& a) {
  return MatrixOp("inv", a, true, {}, [&](const Shape&, int64_t, int64_t, DType t) {
    return std::vector<std::pair<DType, Shape>>{{t, a.shape()}};
  })[0];
}

Array Det(const Array& a) {
  return MatrixOp("det", a, true, {}, [](const Shape& batch, int64_t, int64_t, DType t) {
    return std::vector<std::pair<DType, Shape>>{{t, batch}};
  })[0];
}

SlogdetResult Slogdet(const Array& a) {
  std::vector<Array> r =
      MatrixOp("slogdet", a, true, {}, [](const Shape& batch, int64_t, int64_t, DType t) {
        return std::vector<std::pair<DType, Shape>>{{t, batch}, {RealOf(t), batch}};
      });
  return {r[0], r[1]};
}

Array Cholesky(const Array& a) {
  return MatrixOp("cholesky", a, true, {}, [&](const Shape&, int64_t, int64_t, DType t) {
    return std::vector<std::pair<DType, Shape>>{{t, a.shape()}};
  })[0];
}

QrResult Qr(const Array& a, const std::string& mode) {
  if (mode != "reduced" && mode != "complete") {
    if (auto bad = ArrayOps::CheckInputs("qr", {&a})) return {*bad, *bad};
    Array bad = Refuse(ArrayOps::State(a)->core, "qr",
                                 ValueError(absl::StrCat("Unrecognized mode '", mode, "'")));
    return {bad, bad};
  }
  std::vector<Array> r = MatrixOp(
      "qr", a, false, {{"mode", StringAttr(mode)}},
      [&](const Shape& batch, int64_t m, int64_t n, DType t) {
        const int64_t k = mode == "complete" ? m : std::min(m, n);
        return std::vector<std::pair<DType, Shape>>{{t, Append(batch, {m, k})},
                                                    {t, Append(batch, {k, n})}};
      });
  return {r[0], r[1]};
}

SvdResult Svd(const Array& a, bool full_matrices) {
  v1::AttrValue full;
  full.set_b(full_matrices);
  std::vector<Array> r = MatrixOp(
      "svd", a, false, {{"full_matrices", full}},
      [&](const Shape& batch, int64_t m, int64_t n, DType t) {
        const int64_t k = std::min(m, n);
        return std::vector<std::pair<DType, Shape>>{
            {t, Append(batch, {m, full_matrices ? m : k})},
            {RealOf(t), Append(batch, {k})},
            {t, Append(batch, {full_matrices ? n : k, n})}};
      });
  return {r[0], r[1], r[2]};
}

Array Svdvals(const Array& a) {
  return MatrixOp("svdvals", a, false, {}, [](const Shape& batch, int64_t m, int64_t n, DType t) {
    return std::vector<std::pair<DType, Shape>>{{RealOf(t), Append(batch, {std::min(m, n)})}};
  })[0];
}

namespace {
std::vector<Array> EighOp(const std::string& name, const Array& a, const std::string& uplo,
                          bool vectors) {
  if (uplo != "L" && uplo != "U") {
    if (auto bad = ArrayOps::CheckInputs(name, {&a})) return {*bad, *bad};
    Array bad = Refuse(ArrayOps::State(a)->core, name,
                                 ValueError("UPLO argument must be 'L' or 'U'"));
    return {bad, bad};
  }
  return MatrixOp(name, a, true, {{"UPLO", StringAttr(uplo)}},
                  [&](const Shape& batch, int64_t n, int64_t, DType t) {
                    std::vector<std::pair<DType, Shape>> out{{RealOf(t), Append(batch, {n})}};
                    if (vectors) out.push_back({t, a.shape()});
                    return out;
                  });
}
}  // namespace

EighResult Eigh(const Array& a, const std::string& uplo) {
  std::vector<Array> r = EighOp("eigh", a, uplo, true);
  return {r[0], r[1]};
}

Array Eigvalsh(const Array& a, const std::string& uplo) { return EighOp("eigvalsh", a, uplo, false)[0]; }

Array Solve(const Array& a, const Array& b) {
  if (auto bad = ArrayOps::CheckInputs("solve", {&a, &b})) return *bad;
  const std::shared_ptr<Core>& core = ArrayOps::State(a)->core;
  absl::StatusOr<DType> ta = CheckMatrix(a, true);
  if (!ta.ok()) return Refuse(core, "solve", ta.status());
  absl::StatusOr<DType> tb = LinalgDType(b.dtype());
  if (!tb.ok()) return Refuse(core, "solve", tb.status());
  // NumPy 2: b is a stack of vectors only when it is 1-D.
  if (b.ndim() == 1) return Solve(a, b.Reshape({b.shape()[0], 1})).Reshape({b.shape()[0]});
  if (b.ndim() == 0) {
    return Refuse(core, "solve", ValueError("solve: b must not be 0-d"));
  }
  const int64_t n = a.shape().back();
  if (b.shape()[b.ndim() - 2] != n) {
    return Refuse(
        core, "solve",
        ValueError(absl::StrCat(
            "solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
            "(m,m),(m,n)->(m,n) (size ", b.shape()[b.ndim() - 2], " is different from ", n, ")")));
  }
  std::optional<Shape> batch = BroadcastShapes(Head(a.shape(), 2), Head(b.shape(), 2));
  if (!batch) return Refuse(core, "solve", BroadcastError(a.shape(), b.shape()));
  // Single precision only when both are single; complex when either is.
  const bool single = RealOf(*ta) == DType::kFloat32 && RealOf(*tb) == DType::kFloat32;
  const bool complex = *ta != RealOf(*ta) || *tb != RealOf(*tb);
  const DType t = complex ? (single ? DType::kComplex64 : DType::kComplex128)
                          : (single ? DType::kFloat32 : DType::kFloat64);
  return ArrayOps::Emit(core, MakeOp("solve", {&a, &b}), t, Append(*batch, {n, b.shape().back()}));
}

}  // namespace linalg

namespace fft {
namespace {

enum class Kind { kC2c, kR2c, kC2r };

Array Transform(const char* name, Kind kind, bool inverse, const Array& a,
                std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  if (auto bad = ArrayOps::CheckInputs(name, {&a})) return *bad;
  const std::shared_ptr<Core>& core = ArrayOps::State(a)->core;
  const int nd = a.ndim();
  if (axis < -nd || axis >= nd || nd == 0) {
    return Refuse(core, name,
                            AxisError(absl::StrCat("axis ", axis,
                                                             " is out of bounds for array of dimension ", nd)));
  }
  if (axis < 0) axis += nd;
  if (norm != "backward" && norm != "ortho" && norm != "forward") {
    return Refuse(core, name,
                            ValueError(absl::StrCat(
                                "Invalid norm value ", norm,
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
    return Refuse(core, name,
                            ValueError(absl::StrCat("Invalid number of FFT data points (",
                                                              points, ") specified.")));
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

// The axes of an n-dimensional transform (default: all), or an error.
absl::StatusOr<std::vector<int64_t>> TransformAxes(const Array& a,
                                                   const std::optional<std::vector<int64_t>>& axes) {
  std::vector<int64_t> out;
  if (!axes) {
    for (int64_t d = 0; d < a.ndim(); ++d) out.push_back(d);
    return out;
  }
  for (int64_t ax : *axes) {
    if (ax < -a.ndim() || ax >= a.ndim()) {
      return AxisError(absl::StrCat("axis ", ax, " is out of bounds for array of dimension ",
                                    a.ndim()));
    }
    out.push_back(ax < 0 ? ax + a.ndim() : ax);
  }
  return out;
}

// Applies `one(x, axis)` over `axes`, last axis first (NumPy's order).
template <typename One>
Array OverAxes(const char* name, const Array& a, const std::optional<std::vector<int64_t>>& axes,
               const One& one) {
  if (auto bad = ArrayOps::CheckInputs(name, {&a})) return *bad;
  absl::StatusOr<std::vector<int64_t>> ax = TransformAxes(a, axes);
  if (!ax.ok()) return Refuse(ArrayOps::State(a)->core, name, ax.status());
  Array x = a;
  for (auto it = ax->rbegin(); it != ax->rend(); ++it) x = one(x, *it, it == ax->rbegin());
  return x;
}

}  // namespace

Array Fftn(const Array& a, std::optional<std::vector<int64_t>> axes, const std::string& norm) {
  return OverAxes("fftn", a, axes, [&](const Array& x, int64_t ax, bool) {
    return Fft(x, std::nullopt, ax, norm);
  });
}
Array Ifftn(const Array& a, std::optional<std::vector<int64_t>> axes, const std::string& norm) {
  return OverAxes("ifftn", a, axes, [&](const Array& x, int64_t ax, bool) {
    return Ifft(x, std::nullopt, ax, norm);
  });
}
Array Rfftn(const Array& a, std::optional<std::vector<int64_t>> axes, const std::string& norm) {
  // The real transform on the last axis given, then complex ones.
  return OverAxes("rfftn", a, axes, [&](const Array& x, int64_t ax, bool first) {
    return first ? Rfft(x, std::nullopt, ax, norm) : Fft(x, std::nullopt, ax, norm);
  });
}
Array Irfftn(const Array& a, std::optional<std::vector<int64_t>> axes, std::optional<int64_t> last_n,
             const std::string& norm) {
  if (auto bad = ArrayOps::CheckInputs("irfftn", {&a})) return *bad;
  absl::StatusOr<std::vector<int64_t>> ax = TransformAxes(a, axes);
  if (!ax.ok()) return Refuse(ArrayOps::State(a)->core, "irfftn", ax.status());
  if (ax->empty()) return a;
  // Complex inverses on every axis but the last given, then the real one.
  Array x = a;
  for (size_t i = 0; i + 1 < ax->size(); ++i) x = Ifft(x, std::nullopt, (*ax)[i], norm);
  return Irfft(x, last_n, ax->back(), norm);
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

}  // namespace fft

namespace random {
namespace {

uint64_t SplitMix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

// The Python client's _key_from_seed for a seed below 2^64.
Generator::Generator(Client* client, uint64_t seed) : client_(client), key_(SplitMix64(seed)) {}

Array Generator::Draw(const char* op_name, const Shape& shape, DType dtype) {
  const std::shared_ptr<Core>& core = ArrayOps::CoreOf(*client_);
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    return Refuse(core, op_name,
                            TypeError(absl::StrCat("Unsupported dtype \"",
                                                             DTypeName(dtype),
                                                             "\" for random; float32 and float64 "
                                                             "are supported")));
  }
  if (absl::Status s = CheckShape(shape); !s.ok()) {
    return Refuse(core, op_name, s);
  }
  v1::Op op;
  op.set_name(op_name);
  auto& attrs = *op.mutable_attrs();
  attrs["shape"] = IntsAttr(shape);
  attrs["dtype"] = DTypeAttr(dtype);
  // Above INT64_MAX an integer attribute travels as its decimal string (OPS.md).
  if (key_ > static_cast<uint64_t>(INT64_MAX)) {
    attrs["key"].set_s(absl::StrCat(key_));
  } else {
    attrs["key"].set_i(static_cast<int64_t>(key_));
  }
  attrs["offset"].set_i(static_cast<int64_t>(offset_));
  const int64_t per_block = 16 / ItemSize(dtype);  // values per Philox block
  offset_ += static_cast<uint64_t>((ShapeSize(shape) + per_block - 1) / per_block);
  return ArrayOps::Emit(core, std::move(op), dtype, shape);
}

Array Generator::Random(const Shape& shape, DType dtype) { return Draw("random_uniform", shape, dtype); }

Array Generator::StandardNormal(const Shape& shape, DType dtype) {
  return Draw("random_normal", shape, dtype);
}

Array Generator::Normal(double loc, double scale, const Shape& shape, DType dtype) {
  return StandardNormal(shape, dtype) * scale + loc;
}

Array Generator::Uniform(double low, double high, const Shape& shape, DType dtype) {
  return Random(shape, dtype) * (high - low) + low;
}

}  // namespace random

}  // namespace client
}  // namespace arrayd
