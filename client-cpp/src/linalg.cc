// numpy.linalg of the C++ client (arrayd/numeric.h): NumPy's checks, the
// results' dtypes and shapes, and one server op each (ops/linalg.cc).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "arrayd/numeric.h"
#include "numeric_internal.h"

namespace arrayd {
inline namespace client {
namespace linalg {
namespace {

using numeric_internal::AllAxes;
using numeric_internal::Append;
using numeric_internal::Apply;
using numeric_internal::Attrs;
using numeric_internal::Core;
using numeric_internal::CoreOf;
using numeric_internal::Head;
using numeric_internal::IsComplex;
using numeric_internal::MakeOp;
using numeric_internal::RealOf;

absl::Status LinAlgError(absl::string_view m) {
  return internal::WithKind(absl::InvalidArgumentError(m), "LinAlgError");
}

// numpy.linalg's computation dtype of one operand.
absl::StatusOr<DType> LinalgDType(DType d) {
  if (d == DType::kFloat16) {
    return internal::WithKind(
        absl::InvalidArgumentError("array type float16 is unsupported in linalg"), "TypeError");
  }
  return IsInexact(d) ? d : DType::kFloat64;
}

// Checks that a is a stack of (..., m, n) matrices, square when `square`.
absl::Status CheckStacked(const Array& a, bool square) {
  if (a.ndim() < 2) {
    return LinAlgError(absl::StrCat(a.ndim(),
                                    "-dimensional array given. Array must be at least "
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

}  // namespace

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
  std::vector<Array> r = MatrixOp("qr", a, false, {{"mode", Attr(mode)}},
                                  [&](const Shape& batch, int64_t m, int64_t n, DType t) {
                                    const int64_t k = mode == "complete" ? m : std::min(m, n);
                                    return std::vector<std::pair<DType, Shape>>{
                                        {t, Append(batch, {m, k})}, {t, Append(batch, {k, n})}};
                                  });
  return {r[0], r[1]};
}

SvdResult Svd(const Array& a, bool full_matrices) {
  v1::AttrValue full;
  full.set_b(full_matrices);
  std::vector<Array> r = MatrixOp("svd", a, false, {{"full_matrices", full}},
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
    Array bad =
        Refuse(ArrayOps::State(a)->core, name, ValueError("UPLO argument must be 'L' or 'U'"));
    return {bad, bad};
  }
  return MatrixOp(name, a, true, {{"UPLO", Attr(uplo)}},
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

Array Eigvalsh(const Array& a, const std::string& uplo) {
  return EighOp("eigvalsh", a, uplo, false)[0];
}

Array Solve(const Array& a, const Array& b) {
  if (auto bad = ArrayOps::CheckInputs("solve", {&a, &b})) return *bad;
  const std::shared_ptr<Core>& core = ArrayOps::State(a)->core;
  if (absl::Status s = CheckStacked(a, true); !s.ok()) return Refuse(core, "solve", s);
  absl::StatusOr<DType> t = CommonType(a, b);
  if (!t.ok()) return Refuse(core, "solve", t.status());
  if (b.ndim() == 0) {
    return Refuse(core, "solve", ValueError("solve: b must not be 0-d"));
  }
  const int64_t n = a.shape().back();
  // NumPy 2: b is one vector only when it is 1-D (the server solves it for
  // every matrix of a).
  if (b.ndim() == 1) {
    if (b.shape()[0] != n) {
      return Refuse(
          core, "solve",
          ValueError(absl::StrCat(
              "solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
              "signature (m,m),(m)->(m) (size ",
              b.shape()[0], " is different from ", n, ")")));
    }
    return ArrayOps::Emit(core, MakeOp("solve", {&a, &b}), *t,
                          a.shape().size() == 2 ? Shape{n} : Append(Head(a.shape(), 2), {n}));
  }
  if (b.shape()[b.ndim() - 2] != n) {
    return Refuse(
        core, "solve",
        ValueError(absl::StrCat(
            "solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
            "(m,m),(m,n)->(m,n) (size ",
            b.shape()[b.ndim() - 2], " is different from ", n, ")")));
  }
  std::optional<Shape> batch = BroadcastShapes(Head(a.shape(), 2), Head(b.shape(), 2));
  if (!batch) return Refuse(core, "solve", BroadcastError(a.shape(), b.shape()));
  return ArrayOps::Emit(core, MakeOp("solve", {&a, &b}), *t, Append(*batch, {n, b.shape().back()}));
}

namespace {

DType ComplexOf(DType t) {
  return RealOf(t) == DType::kFloat32 ? DType::kComplex64 : DType::kComplex128;
}

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
  std::vector<Array> r =
      MatrixOp("eig", a, true, {}, [&](const Shape& batch, int64_t n, int64_t, DType t) {
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

Array Norm(const Array& x, const NormOrder& ord, std::optional<std::vector<int64_t>> axis,
           bool keepdims) {
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
        return Refuse(core, "norm",
                      ValueError(absl::StrCat("Invalid norm order '", name, "' for vectors")));
      }
    } else if (axes->size() == 2) {
      if ((*axes)[0] == (*axes)[1])
        return Refuse(core, "norm", ValueError("Duplicate axes given."));
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
  return ArrayOps::Emit(core, std::move(op),
                        RealOf(IsInexact(x.dtype()) ? x.dtype() : DType::kFloat64),
                        std::move(shape));
}

Array Pinv(const Array& a, double rcond) {
  v1::AttrValue rc;
  rc.set_f(rcond);
  return MatrixOp("pinv", a, false, {{"rcond", rc}},
                  [](const Shape& batch, int64_t m, int64_t n, DType t) {
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
  std::vector<Array> out = ArrayOps::EmitMany(CoreOf(a), std::move(op),
                                              {{*t, vector ? Shape{n} : Shape{n, nrhs}},
                                               {rt, {0}},
                                               {DType::kInt64, {}},
                                               {rt, {std::min(m, n)}}});
  // The rank is a number: one sync reads it and the residuals' shape, which
  // the server gives by NumPy's rule ((k,) when the rank is n < m, else (0,)).
  absl::StatusOr<v1::SyncReply> reply = CoreOf(a)->Sync({out[2].handle(), out[1].handle()});
  if (!reply.ok()) return reply.status();
  LstsqResult r{out[0], out[1], -1, out[3]};
  for (const v1::Fetched& f : reply->fetched()) {
    if (f.has_error() && (!f.error().kind().empty() || !f.error().message().empty())) {
      return internal::StatusFromOpError(f.error());
    }
    if (f.handle() == out[2].handle()) {
      if (!f.inline_() || f.data().size() != sizeof(int64_t)) {
        return absl::InternalError("lstsq: the server did not send the rank inline");
      }
      std::memcpy(&r.rank, f.data().data(), sizeof(int64_t));
    } else if (f.handle() == out[1].handle()) {
      ArrayOps::State(r.residuals)->shape.assign(f.shape().begin(), f.shape().end());
    }
  }
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
  return Apply("matrix_power", {&a}, dtype, a.shape(), {{"n", Attr(n)}});
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
}  // namespace client
}  // namespace arrayd
