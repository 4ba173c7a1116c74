// Matmul, linalg, fft and random of the C++ client (arrayd/numeric.h): each
// function checks what NumPy would refuse, computes the result's dtype and
// shape with NumPy's rules, and records the server op (proto OPS.md).
#include "arrayd/numeric.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
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

// Checks that a is a stack of (..., m, n) matrices, square when `square`.
absl::Status CheckStacked(const Array& a, bool square) {
  if (a.ndim() < 2) {
    return LinAlgError(absl::StrCat(a.ndim(), "-dimensional array given. Array must be at least "
                                    "two-dimensional"));
  }
  if (square && a.shape()[a.ndim() - 1] != a.shape()[a.ndim() - 2]) {
    return LinAlgError("Last 2 dimensions of the array must be square");
  }
  return absl::OkStatus();
}

// Checks a stacked operand and returns its computation dtype.
absl::StatusOr<DType> CheckMatrix(const Array& a, bool square) {
  if (absl::Status s = CheckStacked(a, square); !s.ok()) return s;
  return LinalgDType(a.dtype());
}

// numpy.linalg's _commonType of two operands: single precision only when
// both are, complex when either is.
absl::StatusOr<DType> CommonType(const Array& a, const Array& b) {
  absl::StatusOr<DType> ta = LinalgDType(a.dtype());
  if (!ta.ok()) return ta;
  absl::StatusOr<DType> tb = LinalgDType(b.dtype());
  if (!tb.ok()) return tb;
  const bool single = RealOf(*ta) == DType::kFloat32 && RealOf(*tb) == DType::kFloat32;
  const bool complex = *ta != RealOf(*ta) || *tb != RealOf(*tb);
  return complex ? (single ? DType::kComplex64 : DType::kComplex128)
                 : (single ? DType::kFloat32 : DType::kFloat64);
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

v1::AttrValue IntAttr(int64_t i) {
  v1::AttrValue v;
  v.set_i(i);
  return v;
}

// -- Building blocks. Each propagates the error of an input that carries one.

using Attrs = std::map<std::string, v1::AttrValue>;

bool IsComplex(DType d) { return Kind(d) == DTypeKind::kComplex; }

const std::shared_ptr<Core>& CoreOf(const Array& a) { return ArrayOps::State(a)->core; }

// Records op `name` on `inputs` (at least one) with one result.
Array Apply(const char* name, std::initializer_list<const Array*> inputs, DType dtype, Shape shape,
            const Attrs& attrs = {}) {
  if (auto bad = ArrayOps::CheckInputs(name, inputs)) return *bad;
  v1::Op op = MakeOp(name, inputs);
  for (const auto& [key, value] : attrs) (*op.mutable_attrs())[key] = value;
  return ArrayOps::Emit(CoreOf(**inputs.begin()), std::move(op), dtype, std::move(shape));
}

std::vector<int64_t> AllAxes(const Array& a) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < a.ndim(); ++d) out.push_back(d);
  return out;
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
  if (absl::Status s = CheckStacked(a, true); !s.ok()) return Refuse(core, "solve", s);
  absl::StatusOr<DType> t = CommonType(a, b);
  if (!t.ok()) return Refuse(core, "solve", t.status());
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
  return ArrayOps::Emit(core, MakeOp("solve", {&a, &b}), *t, Append(*batch, {n, b.shape().back()}));
}

namespace {

DType ComplexOf(DType t) { return RealOf(t) == DType::kFloat32 ? DType::kComplex64 : DType::kComplex128; }

// The dtypes of eig's results for real input, which the server decides
// (ops/linalg.cc: real when every eigenvalue is real, NumPy's rule): read
// with one sync; an error found then poisons the results.
std::vector<Array> WithServerDTypes(const Array& a, std::vector<Array> r) {
  if (IsComplex(a.dtype()) || !r[0].ok()) return r;
  std::vector<uint64_t> handles;
  for (const Array& x : r) handles.push_back(x.handle());
  absl::StatusOr<v1::SyncReply> reply = CoreOf(a)->Sync(handles);
  absl::Status status = reply.status();
  if (reply.ok()) {
    for (const v1::Fetched& f : reply->fetched()) {
      if (f.has_error()) {
        status = internal::StatusFromOpError(f.error());
        break;
      }
      for (Array& x : r) {
        if (x.handle() == f.handle()) ArrayOps::State(x)->dtype = static_cast<DType>(f.dtype());
      }
    }
  }
  if (!status.ok()) return std::vector<Array>(r.size(), ArrayOps::Poisoned(CoreOf(a), status, 0));
  return r;
}

}  // namespace

EigResult Eig(const Array& a) {
  std::vector<Array> r = MatrixOp("eig", a, true, {}, [&](const Shape& batch, int64_t n, int64_t, DType t) {
    return std::vector<std::pair<DType, Shape>>{{ComplexOf(t), Append(batch, {n})},
                                                {ComplexOf(t), a.shape()}};
  });
  r = WithServerDTypes(a, std::move(r));
  return {r[0], r[1]};
}

Array Eigvals(const Array& a) {
  std::vector<Array> r =
      MatrixOp("eigvals", a, true, {}, [](const Shape& batch, int64_t n, int64_t, DType t) {
        return std::vector<std::pair<DType, Shape>>{{ComplexOf(t), Append(batch, {n})}};
      });
  return WithServerDTypes(a, {r[0]})[0];
}

Array Norm(const Array& x, const NormOrder& ord, std::optional<std::vector<int64_t>> axis, bool keepdims) {
  if (auto bad = ArrayOps::CheckInputs("norm", {&x})) return *bad;
  const std::shared_ptr<Core>& core = CoreOf(x);
  const int nd = x.ndim();
  const std::string& name = ord.name();
  const bool fro = name == "fro" || name == "f";
  auto is = [&ord](double p) { return ord.number() && *ord.number() == p; };
  constexpr double kInf = std::numeric_limits<double>::infinity();
  v1::Op op = MakeOp("norm", {&x});
  auto& attrs = *op.mutable_attrs();
  if (ord.number()) attrs["ord"].set_f(*ord.number());
  if (!name.empty()) attrs["ord_name"].set_s(name);
  if (keepdims) attrs["keepdims"].set_b(true);
  // The server computes; here: NumPy's errors and the result's shape.
  Shape shape;
  if (!axis && (ord.is_none() || (fro && nd == 2) || (is(2) && nd == 1))) {
    if (keepdims) shape = Shape(nd, 1);
  } else {
    absl::StatusOr<std::vector<int64_t>> axes = NormalizeAxes(nd, axis ? *axis : AllAxes(x));
    if (!axes.ok()) return Refuse(core, "norm", axes.status());
    if (axis) attrs["axes"] = IntsAttr(*axes);
    if (axes->size() == 1) {
      if (!name.empty()) {
        return Refuse(core, "norm", ValueError(absl::StrCat("Invalid norm order '", name, "' for vectors")));
      }
    } else if (axes->size() == 2) {
      if ((*axes)[0] == (*axes)[1]) return Refuse(core, "norm", ValueError("Duplicate axes given."));
      if (is(2) || is(-2) || name == "nuc") {
        if (absl::StatusOr<DType> t = LinalgDType(x.dtype()); !t.ok())
          return Refuse(core, "norm", t.status());
      } else if (!(ord.is_none() || fro || is(1) || is(-1) || is(kInf) || is(-kInf))) {
        return Refuse(core, "norm", ValueError("Invalid norm order for matrices."));
      }
    } else {
      return Refuse(core, "norm", ValueError("Improper number of dimensions to norm."));
    }
    for (int64_t d = 0; d < nd; ++d) {
      if (std::find(axes->begin(), axes->end(), d) == axes->end()) {
        shape.push_back(x.shape()[d]);
      } else if (keepdims) {
        shape.push_back(1);
      }
    }
  }
  return ArrayOps::Emit(core, std::move(op), RealOf(IsInexact(x.dtype()) ? x.dtype() : DType::kFloat64),
                        std::move(shape));
}

Array Pinv(const Array& a, double rcond) {
  v1::AttrValue rc;
  rc.set_f(rcond);
  return MatrixOp("pinv", a, false, {{"rcond", rc}}, [](const Shape& batch, int64_t m, int64_t n, DType t) {
    return std::vector<std::pair<DType, Shape>>{{t, Append(batch, {n, m})}};
  })[0];
}

absl::StatusOr<LstsqResult> Lstsq(const Array& a, const Array& b, std::optional<double> rcond) {
  if (auto bad = ArrayOps::CheckInputs("lstsq", {&a, &b})) return bad->status();
  const bool vector = b.ndim() == 1;
  const Shape b2 = vector ? Shape{b.shape()[0], 1} : b.shape();
  for (int64_t nd : {static_cast<int64_t>(a.ndim()), static_cast<int64_t>(b2.size())}) {
    if (nd < 2) {
      return LinAlgError(
          absl::StrCat(nd, "-dimensional array given. Array must be at least two-dimensional"));
    }
  }
  if (a.ndim() != 2 || b2.size() != 2) {
    return LinAlgError(absl::StrCat(std::max<int64_t>(a.ndim(), b2.size()),
                                    "-dimensional array given. Array must be two-dimensional"));
  }
  const int64_t m = a.shape()[0], n = a.shape()[1], nrhs = b2[1];
  if (b2[0] != m) return LinAlgError("Incompatible dimensions");
  absl::StatusOr<DType> t = CommonType(a, b);
  if (!t.ok()) return t.status();
  v1::Op op = MakeOp("lstsq", {&a, &b});
  if (rcond) (*op.mutable_attrs())["rcond"].set_f(*rcond);
  const DType rt = RealOf(*t);
  std::vector<Array> out = ArrayOps::EmitMany(
      CoreOf(a), std::move(op),
      {{*t, vector ? Shape{n} : Shape{n, nrhs}}, {rt, {0}}, {DType::kInt64, {}}, {rt, {std::min(m, n)}}});
  // The rank is a number (a sync); the residuals are reported only when it is n < m.
  absl::StatusOr<std::vector<int64_t>> rank = out[2].ToVector<int64_t>();
  if (!rank.ok()) return rank.status();
  LstsqResult r{out[0], out[1], (*rank)[0], out[3]};
  if (r.rank == n && m > n) ArrayOps::State(r.residuals)->shape = {nrhs};
  return r;
}

Array MatrixPower(const Array& a, int64_t n) {
  if (auto bad = ArrayOps::CheckInputs("matrix_power", {&a})) return *bad;
  const std::shared_ptr<Core>& core = CoreOf(a);
  if (absl::Status s = CheckStacked(a, true); !s.ok()) return Refuse(core, "matrix_power", s);
  DType dtype = a.dtype();
  if (n < 0) {  // of inv(a)
    absl::StatusOr<DType> t = LinalgDType(dtype);
    if (!t.ok()) return Refuse(core, "matrix_power", t.status());
    dtype = *t;
  }
  return Apply("matrix_power", {&a}, dtype, a.shape(), {{"n", IntAttr(n)}});
}

Array MatrixRank(const Array& a, std::optional<double> tol) {
  if (auto bad = ArrayOps::CheckInputs("matrix_rank", {&a})) return *bad;
  Attrs attrs;
  if (tol) attrs["tol"].set_f(*tol);
  if (a.ndim() < 2) return Apply("matrix_rank", {&a}, DType::kInt64, {}, attrs);
  return MatrixOp("matrix_rank", a, false, attrs, [](const Shape& batch, int64_t, int64_t, DType) {
    return std::vector<std::pair<DType, Shape>>{{DType::kInt64, batch}};
  })[0];
}

}  // namespace linalg

namespace fft {
namespace {

enum class Kind { kC2c, kR2c, kC2r };

Array Transform(const char* name, Kind kind, bool inverse, const Array& a,
                std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  if (auto bad = ArrayOps::CheckInputs(name, {&a})) return *bad;
  const std::shared_ptr<Core>& core = ArrayOps::State(a)->core;
  absl::StatusOr<std::vector<int64_t>> axes = NormalizeAxes(a.ndim(), {axis});
  if (!axes.ok()) return Refuse(core, name, axes.status());
  axis = (*axes)[0];
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
  return axes ? NormalizeAxes(a.ndim(), *axes) : AllAxes(a);
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
    return Refuse(
        core, name,
        internal::WithKind(absl::InvalidArgumentError("float division by zero"), "ZeroDivisionError"));
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

Array Fftfreq(Client* client, int64_t n, double d) { return Frequencies(client, "fftfreq", n, d, false); }
Array Rfftfreq(Client* client, int64_t n, double d) { return Frequencies(client, "rfftfreq", n, d, true); }

Array Fftshift(const Array& x, std::optional<std::vector<int64_t>> axes) { return Shift("fftshift", x, axes); }
Array Ifftshift(const Array& x, std::optional<std::vector<int64_t>> axes) { return Shift("ifftshift", x, axes); }

}  // namespace fft

namespace random {

// The server derives the Philox key from the seed (ops/random.cc), as it
// does for the Python client's default_rng(seed).
Generator::Generator(Client* client, uint64_t seed) : client_(client), seed_(seed) {}

uint64_t Generator::Reserve(uint64_t blocks) {
  const uint64_t first = offset_;
  offset_ += blocks;
  return first;
}

namespace {

// Records random op `op` (its other attributes set) of `client` with the
// generator's seed (one word: its bits) and first block.
Array EmitRandom(Client* client, v1::Op op, uint64_t seed, uint64_t offset, DType dtype, const Shape& shape) {
  auto& attrs = *op.mutable_attrs();
  attrs["seed"] = IntsAttr({static_cast<int64_t>(seed)});
  attrs["offset"].set_i(static_cast<int64_t>(offset));
  return ArrayOps::Emit(ArrayOps::CoreOf(*client), std::move(op), dtype, shape);
}

// Philox blocks of a float64 draw of `n` values (two a block).
uint64_t Float64Blocks(int64_t n) { return static_cast<uint64_t>((n + 1) / 2); }

}  // namespace

Array Generator::Draw(const char* op_name, const Shape& shape, DType dtype,
                      std::initializer_list<std::pair<const char*, double>> params) {
  const std::shared_ptr<Core>& core = ArrayOps::CoreOf(*client_);
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    return Refuse(core, op_name,
                  TypeError(absl::StrCat("Unsupported dtype \"", DTypeName(dtype),
                                         "\" for random; float32 and float64 are supported")));
  }
  if (absl::Status s = CheckShape(shape); !s.ok()) return Refuse(core, op_name, s);
  v1::Op op;
  op.set_name(op_name);
  auto& attrs = *op.mutable_attrs();
  attrs["shape"] = IntsAttr(shape);
  attrs["dtype"] = DTypeAttr(dtype);
  for (const auto& [name, value] : params) attrs[name].set_f(value);
  const int64_t per_block = 16 / ItemSize(dtype);  // values per Philox block
  return EmitRandom(client_, std::move(op), seed_,
                    Reserve(static_cast<uint64_t>((ShapeSize(shape) + per_block - 1) / per_block)), dtype,
                    shape);
}

Array Generator::Random(const Shape& shape, DType dtype) { return Draw("random_uniform", shape, dtype); }

Array Generator::StandardNormal(const Shape& shape, DType dtype) {
  return Draw("random_normal", shape, dtype);
}

// The scaled and shifted draws are the server's (ops/random.cc); here:
// NumPy's errors.
Array Generator::Normal(double loc, double scale, const Shape& shape, DType dtype) {
  if (scale < 0) return Refuse(ArrayOps::CoreOf(*client_), "normal", ValueError("scale < 0"));
  return Draw("random_normal", shape, dtype, {{"loc", loc}, {"scale", scale}});
}

Array Generator::Uniform(double low, double high, const Shape& shape, DType dtype) {
  if (!std::isfinite(high - low)) {
    return Refuse(
        ArrayOps::CoreOf(*client_), "uniform",
        internal::WithKind(absl::OutOfRangeError("high - low range exceeds valid bounds"), "OverflowError"));
  }
  return Draw("random_uniform", shape, dtype, {{"low", low}, {"high", high}});
}

namespace {

// The range of integer (or bool) dtype d.
std::pair<int64_t, uint64_t> IntegerRange(DType d) {
  if (d == DType::kBool) return {0, 1};
  const int bits = 8 * ItemSize(d);
  if (Kind(d) == DTypeKind::kUnsigned) return {0, bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1};
  return {bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1)), (uint64_t{1} << (bits - 1)) - 1};
}

}  // namespace

Array Generator::StandardExponential(const Shape& shape, DType dtype) {
  return Draw("random_exponential", shape, dtype);
}

Array Generator::Exponential(double scale, const Shape& shape) {
  if (scale < 0) return Refuse(ArrayOps::CoreOf(*client_), "exponential", ValueError("scale < 0"));
  return Draw("random_exponential", shape, DType::kFloat64, {{"scale", scale}});
}

Array Generator::Integers(int64_t low, int64_t high, const Shape& shape, DType dtype, bool endpoint) {
  const std::shared_ptr<Core>& core = ArrayOps::CoreOf(*client_);
  if (!IsInteger(dtype) && dtype != DType::kBool) {
    return Refuse(core, "integers",
                  TypeError(absl::StrCat("Unsupported dtype ", DTypeName(dtype), " for integers")));
  }
  const auto [lowest, highest] = IntegerRange(dtype);
  const char* empty = endpoint ? "low > high" : "low >= high";
  if (!endpoint && high == INT64_MIN) return Refuse(core, "integers", ValueError(empty));
  const int64_t high_incl = endpoint ? high : high - 1;
  if (low < lowest)
    return Refuse(core, "integers", ValueError(absl::StrCat("low is out of bounds for ", DTypeName(dtype))));
  if (high_incl > 0 && static_cast<uint64_t>(high_incl) > highest) {
    return Refuse(core, "integers", ValueError(absl::StrCat("high is out of bounds for ", DTypeName(dtype))));
  }
  if (low > high_incl) return Refuse(core, "integers", ValueError(empty));
  if (absl::Status s = CheckShape(shape); !s.ok()) return Refuse(core, "integers", s);
  v1::Op op;
  op.set_name("random_integers");
  auto& attrs = *op.mutable_attrs();
  attrs["shape"] = IntsAttr(shape);
  attrs["dtype"] = DTypeAttr(dtype);
  attrs["low"].set_i(low);
  attrs["high"].set_i(high);
  if (endpoint) attrs["endpoint"].set_b(true);
  // One float64 draw, or two when the range has more than 2^53 values (ops/random.cc).
  const uint64_t last = static_cast<uint64_t>(high_incl) - static_cast<uint64_t>(low);  // span - 1
  const uint64_t draws = last < (uint64_t{1} << 53) ? 1 : 2;
  return EmitRandom(client_, std::move(op), seed_, Reserve(draws * Float64Blocks(ShapeSize(shape))), dtype,
                    shape);
}

Array Generator::Poisson(double lam, const Shape& shape) {
  const std::shared_ptr<Core>& core = ArrayOps::CoreOf(*client_);
  if (!(lam >= 0)) return Refuse(core, "poisson", ValueError("lam < 0 or lam is NaN"));
  if (lam > 1e8) {
    return Refuse(core, "poisson",
                  internal::WithKind(absl::UnimplementedError("poisson: lam above 1e8 is not supported"),
                                     "NotImplementedError"));
  }
  if (absl::Status s = CheckShape(shape); !s.ok()) return Refuse(core, "poisson", s);
  v1::Op op;
  op.set_name("random_poisson");
  auto& attrs = *op.mutable_attrs();
  attrs["shape"] = IntsAttr(shape);
  attrs["lam"].set_f(lam);
  return EmitRandom(client_, std::move(op), seed_, Reserve(Float64Blocks(ShapeSize(shape))), DType::kInt64,
                    shape);
}

Array Generator::Permutation(int64_t n) {
  if (n < 0)
    return Refuse(ArrayOps::CoreOf(*client_), "permutation",
                  ValueError("negative dimensions are not allowed"));
  v1::Op op;
  op.set_name("random_permutation");
  (*op.mutable_attrs())["n"].set_i(n);
  return EmitRandom(client_, std::move(op), seed_, Reserve(Float64Blocks(n)), DType::kInt64, {n});
}

Array Generator::Permutation(const Array& x, int64_t axis) {
  if (auto bad = ArrayOps::CheckInputs("permutation", {&x})) return *bad;
  if (x.ndim() == 0) {
    return Refuse(CoreOf(x), "permutation", AxisError("x must be an integer or at least 1-dimensional"));
  }
  absl::StatusOr<std::vector<int64_t>> ax = NormalizeAxes(x.ndim(), {axis});
  if (!ax.ok()) return Refuse(CoreOf(x), "permutation", ax.status());
  v1::Op op = MakeOp("random_permutation", {&x});
  (*op.mutable_attrs())["axis"].set_i((*ax)[0]);
  return EmitRandom(client_, std::move(op), seed_, Reserve(Float64Blocks(x.shape()[(*ax)[0]])), x.dtype(),
                    x.shape());
}

void Generator::Shuffle(const Array& x, int64_t axis) {
  if (ArrayOps::CheckInputs("shuffle", {&x})) return;  // x's own error is reported already
  if (x.ndim() == 0) {
    Refuse(CoreOf(x), "shuffle", TypeError("len() of unsized object"));
    return;
  }
  absl::StatusOr<std::vector<int64_t>> ax = NormalizeAxes(x.ndim(), {axis});
  if (!ax.ok()) {
    Refuse(CoreOf(x), "shuffle", ax.status());
    return;
  }
  v1::Op op = MakeOp("random_shuffle", {&x});
  auto& attrs = *op.mutable_attrs();
  attrs["axis"].set_i((*ax)[0]);
  attrs["seed"] = IntsAttr({static_cast<int64_t>(seed_)});
  attrs["offset"].set_i(static_cast<int64_t>(Reserve(Float64Blocks(x.shape()[(*ax)[0]]))));
  ArrayOps::EmitMany(CoreOf(x), std::move(op), {});
}

// The server's random_choice (ops/random.cc) of range(n), or of `a` along
// `axis` (normalized); here: NumPy's errors, the result's shape and the
// blocks it draws.
Array Generator::ChoiceOf(const Array* a, int64_t n, int64_t axis, const Shape& shape, bool replace,
                          const std::optional<std::vector<double>>& p) {
  const std::shared_ptr<Core>& core = ArrayOps::CoreOf(*client_);
  if (absl::Status s = CheckShape(shape); !s.ok()) return Refuse(core, "choice", s);
  const int64_t k = ShapeSize(shape);
  if (n == 0 && k > 0) return Refuse(core, "choice", ValueError("a cannot be empty unless no samples are taken"));
  if (p) {
    if (static_cast<int64_t>(p->size()) != n)
      return Refuse(core, "choice", ValueError("a and p must have same size"));
    double sum = 0;
    for (double v : *p) {
      if (v < 0) return Refuse(core, "choice", ValueError("probabilities are not non-negative"));
      sum += v;
    }
    if (!(std::abs(sum - 1.0) <= std::sqrt(std::numeric_limits<double>::epsilon()))) {
      return Refuse(core, "choice", ValueError("probabilities do not sum to 1"));
    }
  }
  if (!replace) {
    if (k > n) {
      return Refuse(core, "choice",
                    ValueError("Cannot take a larger sample than population when replace is False"));
    }
    if (p && std::count_if(p->begin(), p->end(), [](double v) { return v != 0; }) < k) {
      return Refuse(core, "choice", ValueError("Fewer non-zero entries in p than size"));
    }
  }
  v1::Op op = a ? MakeOp("random_choice", {a}) : MakeOp("random_choice", {});
  auto& attrs = *op.mutable_attrs();
  attrs["shape"] = IntsAttr(shape);
  if (a) {
    attrs["axis"].set_i(axis);
  } else {
    attrs["n"].set_i(n);
  }
  if (!replace) attrs["replace"].set_b(false);
  if (p) attrs["p"].set_data(std::string(reinterpret_cast<const char*>(p->data()), p->size() * sizeof(double)));
  const uint64_t blocks = !replace ? Float64Blocks(n) : (n == 0 && !p ? 0 : Float64Blocks(k));
  Shape out = shape;
  DType dtype = DType::kInt64;
  if (a) {
    out = Shape(a->shape().begin(), a->shape().begin() + axis);
    out.insert(out.end(), shape.begin(), shape.end());
    out.insert(out.end(), a->shape().begin() + axis + 1, a->shape().end());
    dtype = a->dtype();
  }
  return EmitRandom(client_, std::move(op), seed_, Reserve(blocks), dtype, out);
}

Array Generator::Choice(int64_t n, const Shape& shape, bool replace,
                        const std::optional<std::vector<double>>& p) {
  if (n < 0) {
    return Refuse(ArrayOps::CoreOf(*client_), "choice",
                  ValueError("a must be a positive integer unless no samples are taken"));
  }
  return ChoiceOf(nullptr, n, 0, shape, replace, p);
}

Array Generator::Choice(const Array& a, const Shape& shape, bool replace,
                        const std::optional<std::vector<double>>& p, int64_t axis) {
  if (auto bad = ArrayOps::CheckInputs("choice", {&a})) return *bad;
  if (a.ndim() == 0) {
    return Refuse(CoreOf(a), "choice", ValueError("a must be a sequence or an integer, not a 0-d array"));
  }
  absl::StatusOr<std::vector<int64_t>> ax = NormalizeAxes(a.ndim(), {axis});
  if (!ax.ok()) return Refuse(CoreOf(a), "choice", ax.status());
  return ChoiceOf(&a, a.shape()[(*ax)[0]], (*ax)[0], shape, replace, p);
}

// The process-wide generator of the legacy functions: bound to the caller's
// Client for the duration of one call, under a mutex.
class GlobalGenerator {
 public:
  static void Seed(uint64_t seed) {
    absl::MutexLock lock(&mu_);
    *Get() = Generator(nullptr, seed);
  }

  template <typename Draw>
  static auto Run(Client* client, const Draw& draw) {
    absl::MutexLock lock(&mu_);
    Generator& g = *Get();
    g.client_ = client;
    struct Unbind {
      Generator& g;
      ~Unbind() { g.client_ = nullptr; }
    } unbind{g};
    return draw(g);
  }

 private:
  static Generator* Get() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    static Generator* const generator = [] {
      std::random_device entropy;
      return new Generator(nullptr, (uint64_t{entropy()} << 32) | entropy());
    }();
    return generator;
  }

  ABSL_CONST_INIT static absl::Mutex mu_;
};

ABSL_CONST_INIT absl::Mutex GlobalGenerator::mu_(absl::kConstInit);

void Seed(uint64_t seed) { GlobalGenerator::Seed(seed); }

Array Rand(Client* client, const Shape& shape) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Random(shape); });
}
Array RandomSample(Client* client, const Shape& shape) { return Rand(client, shape); }
Array Randn(Client* client, const Shape& shape) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.StandardNormal(shape); });
}
Array Randint(Client* client, int64_t low, int64_t high, const Shape& shape, DType dtype) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Integers(low, high, shape, dtype); });
}
Array Normal(Client* client, double loc, double scale, const Shape& shape) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Normal(loc, scale, shape); });
}
Array Uniform(Client* client, double low, double high, const Shape& shape) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Uniform(low, high, shape); });
}
Array Permutation(Client* client, int64_t n) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Permutation(n); });
}
Array Permutation(Client* client, const Array& x, int64_t axis) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Permutation(x, axis); });
}
void Shuffle(Client* client, const Array& x, int64_t axis) {
  GlobalGenerator::Run(client, [&](Generator& g) { g.Shuffle(x, axis); });
}
Array Choice(Client* client, int64_t n, const Shape& shape, bool replace,
             const std::optional<std::vector<double>>& p) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Choice(n, shape, replace, p); });
}
Array Choice(Client* client, const Array& a, const Shape& shape, bool replace,
             const std::optional<std::vector<double>>& p, int64_t axis) {
  return GlobalGenerator::Run(client,
                              [&](Generator& g) { return g.Choice(a, shape, replace, p, axis); });
}

}  // namespace random

}  // namespace client
}  // namespace arrayd
