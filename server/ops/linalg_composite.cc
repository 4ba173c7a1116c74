// numpy.linalg's composites, written once here for every client and
// backend from the registry's ops (ops/compose.h), so every step runs on the
// device: pinv, matrix_rank, lstsq, norm and matrix_power.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "ops/compose.h"
#include "ops/linalg_helpers.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

using linalg::Batched;
using linalg::BatchShape;
using linalg::CheckStacked2d;
using linalg::CheckStackedSquare;
using linalg::Concat;
using linalg::LinalgDType;

// ---- Composites, as numpy/linalg/_linalg.py writes them, from the ops of
// the registry (compose::Run): every step runs on the device.

using compose::Run;
using compose::RunMany;

// k times the machine epsilon of the real dtype `real`, computed in that
// precision (NumPy's max(m, n) * finfo(t).eps).
double ScaledEps(DType real, int64_t k) {
  if (real == DType::kFloat32) {
    return static_cast<float>(k) * std::numeric_limits<float>::epsilon();
  }
  return static_cast<double>(k) * std::numeric_limits<double>::epsilon();
}

// An op with one optional array input after `a` (a variadic `tol[]`).
absl::StatusOr<const View*> OptionalSecondInput(OpContext& ctx, const char* op) {
  if (ctx.num_inputs() < 1 || ctx.num_inputs() > 2) {
    return ValueError(absl::StrCat(op, " takes 1 or 2 inputs, got ", ctx.num_inputs()));
  }
  return ctx.num_inputs() == 2 ? &ctx.input(1) : nullptr;
}

// A float attribute, absent as nullopt.
absl::StatusOr<std::optional<double>> OptionalFloat(OpContext& ctx, const char* name) {
  if (!ctx.attrs().Has(name)) return std::optional<double>();
  ARRAYD_ASSIGN_OR_RETURN(double v, compose::FloatAttr(ctx.attrs(), name, 0));
  return std::optional<double>(v);
}

// The tolerance (..., 1) to compare singular values s (..., k) with: an
// array one (NumPy's array_like, float64, broadcast against the batch), a
// float attribute's (float64, as NumPy's asarray(tol)), or `fallback` in
// s's dtype. ValueError when it does not broadcast to s.
absl::StatusOr<View> Tolerance(OpContext& ctx, const View& s, const View* array,
                               std::optional<double> value, double fallback) {
  View tol;
  if (array != nullptr) {
    ARRAYD_ASSIGN_OR_RETURN(View t, ctx.CastTo(*array, DType::kFloat64));
    tol = compose::AppendAxis(t);
  } else if (value) {
    ARRAYD_ASSIGN_OR_RETURN(tol, compose::Constant(ctx, DType::kFloat64, Scalar::Float(*value)));
  } else {
    ARRAYD_ASSIGN_OR_RETURN(tol, compose::Constant(ctx, s.dtype, Scalar::Float(fallback)));
  }
  absl::StatusOr<Shape> shape = BroadcastShapes({s.shape, tol.shape});
  if (!shape.ok() || *shape != s.shape) {
    return ValueError(absl::StrCat("the tolerance of shape ", ShapeString(tol.shape),
                                   " does not broadcast to the batch shape ",
                                   ShapeString(Shape(s.shape.begin(), s.shape.end() - 1))));
  }
  return tol;
}

// tol * max(s, axis=-1, keepdims=True).
absl::StatusOr<View> RelativeCutoff(OpContext& ctx, const View& s, const View& tol) {
  ARRAYD_ASSIGN_OR_RETURN(
      View smax,
      Run(ctx, "max", {s}, {{"axes", compose::Ints({-1})}, {"keepdims", compose::Bool(true)}}));
  return Run(ctx, "multiply", {tol, smax});
}

// pinv(a, rconds[], *, rcond, hermitian): NumPy's pinv from svd(conj(a)) =
// u s vh as vh^T diag(1/s) u^T, or from eigh(conj(a)) = u diag(w) u^H as
// conj(u) diag(1/w) u^T when hermitian; singular values at most rcond
// times the largest count as zero.
absl::Status RunPinv(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(const View* rconds, OptionalSecondInput(ctx, "pinv"));
  const View& a = ctx.input(0);
  ARRAYD_RETURN_IF_ERROR(CheckStacked2d(a));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a.dtype));
  ARRAYD_ASSIGN_OR_RETURN(std::optional<double> rcond, OptionalFloat(ctx, "rcond"));
  ARRAYD_ASSIGN_OR_RETURN(bool hermitian, ctx.attrs().Bool("hermitian", false));
  if (rconds != nullptr && rcond)
    return ValueError("pinv: rcond given twice (array and attribute)");
  const int64_t m = a.shape[a.ndim() - 2], n = a.shape[a.ndim() - 1];
  if (m == 0 || n == 0) {
    ARRAYD_ASSIGN_OR_RETURN(
        View zeros, compose::Filled(ctx, dtype, Concat(BatchShape(a), {n, m}), Scalar::Int(0)));
    ctx.SetResult(0, zeros);
    return absl::OkStatus();
  }
  View conj = a;
  if (IsComplex(a.dtype)) {
    ARRAYD_ASSIGN_OR_RETURN(conj, Run(ctx, "conjugate", {a}));
  }
  View s, inverted, left, right;  // pinv = left @ (1/inverted masked by s)[..., None] * right
  if (hermitian) {
    ARRAYD_ASSIGN_OR_RETURN(std::vector<View> wv, RunMany(ctx, "eigh", {conj}));
    inverted = wv[0];
    ARRAYD_ASSIGN_OR_RETURN(s, Run(ctx, "absolute", {wv[0]}));
    left = wv[1];
    if (IsComplex(dtype)) {
      ARRAYD_ASSIGN_OR_RETURN(left, Run(ctx, "conjugate", {wv[1]}));
    }
    ARRAYD_ASSIGN_OR_RETURN(right, compose::SwapLastAxes(wv[1]));
  } else {
    ARRAYD_ASSIGN_OR_RETURN(std::vector<View> usv,
                            RunMany(ctx, "svd", {conj}, {{"full_matrices", compose::Bool(false)}}));
    s = inverted = usv[1];
    ARRAYD_ASSIGN_OR_RETURN(left, compose::SwapLastAxes(usv[2]));
    ARRAYD_ASSIGN_OR_RETURN(right, compose::SwapLastAxes(usv[0]));
  }
  ARRAYD_ASSIGN_OR_RETURN(View tol,
                          Tolerance(ctx, s, rconds, rcond, ScaledEps(s.dtype, std::max(m, n))));
  ARRAYD_ASSIGN_OR_RETURN(View cutoff, RelativeCutoff(ctx, s, tol));
  ARRAYD_ASSIGN_OR_RETURN(View large, Run(ctx, "greater", {s, cutoff}));
  ARRAYD_ASSIGN_OR_RETURN(View reciprocal, Run(ctx, "reciprocal", {inverted}));
  ARRAYD_ASSIGN_OR_RETURN(View zero, compose::Constant(ctx, s.dtype, Scalar::Int(0)));
  ARRAYD_ASSIGN_OR_RETURN(View sinv, Run(ctx, "where", {large, reciprocal, zero}));
  ARRAYD_ASSIGN_OR_RETURN(View scaled, Run(ctx, "multiply", {compose::AppendAxis(sinv), right}));
  ARRAYD_ASSIGN_OR_RETURN(View out, Run(ctx, "matmul", {left, scaled}));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// matrix_rank(a, tols[], *, tol, rtol, relative, hermitian): the number of
// singular values (|eigenvalues| when hermitian) above tol, or above rtol
// (default max(m, n) * eps) times the largest; int64 per matrix. An array
// tolerance is the input tols: tol, or rtol when `relative`. For 0-d and
// 1-D a: 1 unless every element is zero.
absl::Status RunMatrixRank(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(const View* tols, OptionalSecondInput(ctx, "matrix_rank"));
  const View& a = ctx.input(0);
  ARRAYD_ASSIGN_OR_RETURN(std::optional<double> tol, OptionalFloat(ctx, "tol"));
  ARRAYD_ASSIGN_OR_RETURN(std::optional<double> rtol, OptionalFloat(ctx, "rtol"));
  ARRAYD_ASSIGN_OR_RETURN(bool relative, ctx.attrs().Bool("relative", false));
  ARRAYD_ASSIGN_OR_RETURN(bool hermitian, ctx.attrs().Bool("hermitian", false));
  if (static_cast<int>(tol.has_value()) + static_cast<int>(rtol.has_value()) +
          static_cast<int>(tols != nullptr) >
      1) {
    return ValueError("`tol` and `rtol` can't be both set.");
  }
  if (a.ndim() < 2) {
    ARRAYD_ASSIGN_OR_RETURN(View any, Run(ctx, "any", {a}));
    ARRAYD_ASSIGN_OR_RETURN(View out, ctx.CastTo(any, DType::kInt64));
    ctx.SetResult(0, out);
    return absl::OkStatus();
  }
  View s;
  if (hermitian) {
    ARRAYD_ASSIGN_OR_RETURN(View w, Run(ctx, "eigvalsh", {a}));
    ARRAYD_ASSIGN_OR_RETURN(s, Run(ctx, "absolute", {w}));
  } else {
    ARRAYD_ASSIGN_OR_RETURN(s, Run(ctx, "svdvals", {a}));
  }
  const int64_t k = std::max(a.shape[a.ndim() - 2], a.shape[a.ndim() - 1]);
  View cutoff;
  if (tol || (tols != nullptr && !relative)) {
    ARRAYD_ASSIGN_OR_RETURN(cutoff, Tolerance(ctx, s, tols, tol, 0));
  } else {
    ARRAYD_ASSIGN_OR_RETURN(View r, Tolerance(ctx, s, tols, rtol, ScaledEps(s.dtype, k)));
    ARRAYD_ASSIGN_OR_RETURN(cutoff, RelativeCutoff(ctx, s, r));
  }
  ARRAYD_ASSIGN_OR_RETURN(View large, Run(ctx, "greater", {s, cutoff}));
  ARRAYD_ASSIGN_OR_RETURN(View out, Run(ctx, "sum", {large}, {{"axes", compose::Ints({-1})}}));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// lstsq(a (m, n), b (m,) or (m, k), *, rcond) -> (x, residuals, rank, s)
// from the SVD, as NumPy's gelsd: singular values at most rcond (default
// max(m, n) * eps) times the largest count as zero. residuals (the squared
// 2-norms of the columns of b - a x, (k,), (1,) for 1-D b) are reported
// only when rank == n < m, else they are empty: their shape is known once
// the rank is, which this op reads back (the clients read it too, NumPy's
// rank being a number).
absl::Status RunLstsq(OpContext& ctx) {
  const View& a_in = ctx.input(0);
  View b_in = ctx.input(1);
  const bool vector = b_in.ndim() == 1;
  if (vector) TryReshapeView(b_in, {b_in.shape[0], 1}, &b_in);
  for (const View* x : {&a_in, static_cast<const View*>(&b_in)}) {
    ARRAYD_RETURN_IF_ERROR(CheckStacked2d(*x));
    if (x->ndim() != 2) {
      return LinAlgError(absl::StrCat(std::max(a_in.ndim(), b_in.ndim()),
                                      "-dimensional array given. Array must be two-dimensional"));
    }
  }
  const int64_t m = a_in.shape[0], n = a_in.shape[1], nrhs = b_in.shape[1];
  if (b_in.shape[0] != m) return LinAlgError("Incompatible dimensions");
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a_in.dtype, b_in.dtype));
  const DType real = RealDType(dtype);
  ARRAYD_ASSIGN_OR_RETURN(
      double rcond, compose::FloatAttr(ctx.attrs(), "rcond", ScaledEps(real, std::max(m, n))));
  ARRAYD_ASSIGN_OR_RETURN(View a, ctx.CastTo(a_in, dtype));
  ARRAYD_ASSIGN_OR_RETURN(View b, ctx.CastTo(b_in, dtype));
  // |v|^2 summed over axis 0, in the real dtype.
  auto squared_norms = [&](const View& v) -> absl::StatusOr<View> {
    ARRAYD_ASSIGN_OR_RETURN(View abs, Run(ctx, "absolute", {v}));
    ARRAYD_ASSIGN_OR_RETURN(View sq, Run(ctx, "multiply", {abs, abs}));
    return Run(ctx, "sum", {sq}, {{"axes", compose::Ints({0})}});
  };
  View x, s, rank;
  int64_t host_rank = 0;
  std::optional<View> residuals;
  if (std::min(m, n) == 0) {
    ARRAYD_ASSIGN_OR_RETURN(x, compose::Filled(ctx, dtype, {n, nrhs}, Scalar::Int(0)));
    ARRAYD_ASSIGN_OR_RETURN(s, compose::Filled(ctx, real, {0}, Scalar::Int(0)));
    ARRAYD_ASSIGN_OR_RETURN(rank, compose::Constant(ctx, DType::kInt64, Scalar::Int(0)));
    if (m > n) {
      ARRAYD_ASSIGN_OR_RETURN(residuals, squared_norms(b));
    }
  } else {
    ARRAYD_ASSIGN_OR_RETURN(std::vector<View> usv,
                            RunMany(ctx, "svd", {a}, {{"full_matrices", compose::Bool(false)}}));
    s = usv[1];
    ARRAYD_ASSIGN_OR_RETURN(View smax, Run(ctx, "max", {s}));
    ARRAYD_ASSIGN_OR_RETURN(View rc, compose::Constant(ctx, real, Scalar::Float(rcond)));
    ARRAYD_ASSIGN_OR_RETURN(View cutoff, Run(ctx, "multiply", {smax, rc}));
    ARRAYD_ASSIGN_OR_RETURN(View large, Run(ctx, "greater", {s, cutoff}));
    ARRAYD_ASSIGN_OR_RETURN(rank, Run(ctx, "sum", {large}));
    ARRAYD_ASSIGN_OR_RETURN(View reciprocal, Run(ctx, "reciprocal", {s}));
    ARRAYD_ASSIGN_OR_RETURN(View zero, compose::Constant(ctx, real, Scalar::Int(0)));
    ARRAYD_ASSIGN_OR_RETURN(View sinv_real, Run(ctx, "where", {large, reciprocal, zero}));
    ARRAYD_ASSIGN_OR_RETURN(View sinv, ctx.CastTo(sinv_real, dtype));
    // x = vh^H diag(sinv) u^H b.
    auto conj_t = [&](const View& v) -> absl::StatusOr<View> {
      ARRAYD_ASSIGN_OR_RETURN(View t, compose::SwapLastAxes(v));
      return IsComplex(dtype) ? Run(ctx, "conjugate", {t}) : absl::StatusOr<View>(t);
    };
    ARRAYD_ASSIGN_OR_RETURN(View uh, conj_t(usv[0]));
    ARRAYD_ASSIGN_OR_RETURN(View uhb, Run(ctx, "matmul", {uh, b}));
    ARRAYD_ASSIGN_OR_RETURN(View scaled, Run(ctx, "multiply", {compose::AppendAxis(sinv), uhb}));
    ARRAYD_ASSIGN_OR_RETURN(View v, conj_t(usv[2]));
    ARRAYD_ASSIGN_OR_RETURN(x, Run(ctx, "matmul", {v, scaled}));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyToHost(rank, &host_rank));
    if (host_rank == n && m > n) {
      ARRAYD_ASSIGN_OR_RETURN(View ax, Run(ctx, "matmul", {a, x}));
      ARRAYD_ASSIGN_OR_RETURN(View r, Run(ctx, "subtract", {ax, b}));
      ARRAYD_ASSIGN_OR_RETURN(residuals, squared_norms(r));
    }
  }
  if (!residuals || host_rank != n || m <= n) {
    ARRAYD_ASSIGN_OR_RETURN(residuals, compose::Filled(ctx, real, {0}, Scalar::Int(0)));
  }
  if (vector) {
    ARRAYD_ASSIGN_OR_RETURN(x, compose::Reshape(ctx, x, {n}));
  }
  ctx.SetResult(0, x);
  ctx.SetResult(1, *residuals);
  ctx.SetResult(2, rank);
  ctx.SetResult(3, s);
  return absl::OkStatus();
}

// |x|^2 elementwise in x's real dtype (the parts of a complex x squared).
absl::StatusOr<View> Abs2(OpContext& ctx, const View& x) {
  if (!IsComplex(x.dtype)) return Run(ctx, "multiply", {x, x});
  View re = x, im = x;
  re.dtype = im.dtype = RealDType(x.dtype);
  im.offset += ItemSize(re.dtype);
  ARRAYD_ASSIGN_OR_RETURN(View re2, Run(ctx, "square", {re}));
  ARRAYD_ASSIGN_OR_RETURN(View im2, Run(ctx, "square", {im}));
  return Run(ctx, "add", {re2, im2});
}

// norm(x, *, ord, ord_name, axes, keepdims): numpy.linalg.norm. ord is a
// number (ord) or a name (ord_name: "fro", "f", "nuc"), absent both None.
// axes absent: every axis (then ord must suit 1-D or 2-D x); one axis: a
// vector norm; two: a matrix norm. Integers compute in float64; the
// result is real.
absl::Status RunNorm(OpContext& ctx) {
  View x = ctx.input(0);
  if (!IsInexact(x.dtype)) {
    ARRAYD_ASSIGN_OR_RETURN(x, ctx.CastTo(x, DType::kFloat64));
  }
  const DType real = RealDType(x.dtype);
  const int nd = x.ndim();
  ARRAYD_ASSIGN_OR_RETURN(std::optional<double> ord, OptionalFloat(ctx, "ord"));
  std::string name;
  if (ctx.attrs().Has("ord_name")) {
    ARRAYD_ASSIGN_OR_RETURN(name, ctx.attrs().String("ord_name"));
  }
  if (ord && !name.empty()) return ValueError("norm: ord and ord_name are exclusive");
  ARRAYD_ASSIGN_OR_RETURN(bool keepdims, ctx.attrs().Bool("keepdims", false));
  const bool none = !ord && name.empty();
  const bool fro = name == "fro" || name == "f";
  auto is = [&ord](double p) { return ord && *ord == p; };
  auto reduce = [&](const char* op, const View& v, std::vector<int64_t> axes, bool keep) {
    return Run(ctx, op, {v},
               {{"axes", compose::Ints(std::move(axes))}, {"keepdims", compose::Bool(keep)}});
  };
  std::vector<int64_t> axes;
  if (ctx.attrs().Has("axes")) {
    ARRAYD_ASSIGN_OR_RETURN(axes, ctx.attrs().Ints("axes"));
    std::vector<int64_t> normalized;
    for (int64_t ax : axes) {
      if (ax < -nd || ax >= nd) {
        return AxisError(
            absl::StrCat("axis ", ax, " is out of bounds for array of dimension ", nd));
      }
      normalized.push_back(ax < 0 ? ax + nd : ax);
    }
    axes = normalized;
  } else {
    for (int64_t d = 0; d < nd; ++d) axes.push_back(d);
    if (none || (fro && nd == 2) || (is(2) && nd == 1)) {
      // sqrt(sum(|x|^2)) over everything, shaped (1,) * nd with keepdims.
      ARRAYD_ASSIGN_OR_RETURN(View sq, Abs2(ctx, x));
      ARRAYD_ASSIGN_OR_RETURN(View sum, reduce("sum", sq, axes, keepdims));
      ARRAYD_ASSIGN_OR_RETURN(View out, Run(ctx, "sqrt", {sum}));
      ctx.SetResult(0, out);
      return absl::OkStatus();
    }
  }
  View out;
  if (axes.size() == 1) {
    if (!name.empty())
      return ValueError(absl::StrCat("Invalid norm order '", name, "' for vectors"));
    const double inf = std::numeric_limits<double>::infinity();
    if (is(inf) || is(-inf)) {
      ARRAYD_ASSIGN_OR_RETURN(View abs, Run(ctx, "absolute", {x}));
      ARRAYD_ASSIGN_OR_RETURN(out, reduce(is(inf) ? "max" : "min", abs, axes, keepdims));
    } else if (is(0)) {
      ARRAYD_ASSIGN_OR_RETURN(View zero, compose::Constant(ctx, x.dtype, Scalar::Int(0)));
      ARRAYD_ASSIGN_OR_RETURN(View nonzero, Run(ctx, "not_equal", {x, zero}));
      ARRAYD_ASSIGN_OR_RETURN(View count, reduce("sum", nonzero, axes, keepdims));
      ARRAYD_ASSIGN_OR_RETURN(out, ctx.CastTo(count, real));
    } else if (is(1)) {
      ARRAYD_ASSIGN_OR_RETURN(View abs, Run(ctx, "absolute", {x}));
      ARRAYD_ASSIGN_OR_RETURN(out, reduce("sum", abs, axes, keepdims));
    } else if (none || is(2)) {
      ARRAYD_ASSIGN_OR_RETURN(View sq, Abs2(ctx, x));
      ARRAYD_ASSIGN_OR_RETURN(View sum, reduce("sum", sq, axes, keepdims));
      ARRAYD_ASSIGN_OR_RETURN(out, Run(ctx, "sqrt", {sum}));
    } else {
      // (sum |x|^p) ** (1 / p), p and 1 / p in the real dtype.
      ARRAYD_ASSIGN_OR_RETURN(View abs, Run(ctx, "absolute", {x}));
      ARRAYD_ASSIGN_OR_RETURN(View p, compose::Constant(ctx, real, Scalar::Float(*ord)));
      ARRAYD_ASSIGN_OR_RETURN(View powered, Run(ctx, "power", {abs, p}));
      ARRAYD_ASSIGN_OR_RETURN(View sum, reduce("sum", powered, axes, keepdims));
      ARRAYD_ASSIGN_OR_RETURN(View inv_p, compose::Constant(ctx, real, Scalar::Float(1.0 / *ord)));
      ARRAYD_ASSIGN_OR_RETURN(out, Run(ctx, "power", {sum, inv_p}));
    }
    ctx.SetResult(0, out);
    return absl::OkStatus();
  }
  if (axes.size() != 2) return ValueError("Improper number of dimensions to norm.");
  const int64_t row = axes[0], col = axes[1];
  if (row == col) return ValueError("Duplicate axes given.");
  const double inf = std::numeric_limits<double>::infinity();
  if (is(2) || is(-2) || name == "nuc") {
    // From the singular values of x with (row, col) moved last.
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < nd; ++d) {
      if (d != row && d != col) perm.push_back(d);
    }
    perm.push_back(row);
    perm.push_back(col);
    ARRAYD_ASSIGN_OR_RETURN(View moved, Transpose(x, perm));
    ARRAYD_ASSIGN_OR_RETURN(View s, Run(ctx, "svdvals", {moved}));
    ARRAYD_ASSIGN_OR_RETURN(out, reduce(name == "nuc" ? "sum"
                                        : is(2)       ? "max"
                                                      : "min",
                                        s, {-1}, false));
  } else if (none || fro) {
    ARRAYD_ASSIGN_OR_RETURN(View sq, Abs2(ctx, x));
    ARRAYD_ASSIGN_OR_RETURN(View sum, reduce("sum", sq, axes, false));
    ARRAYD_ASSIGN_OR_RETURN(out, Run(ctx, "sqrt", {sum}));
  } else if (is(1) || is(-1) || is(inf) || is(-inf)) {
    // ord 1: the largest column sum (sum over rows, then max over columns);
    // inf: the largest row sum.
    const bool columns = is(1) || is(-1);
    const int64_t first = columns ? row : col, second = columns ? col : row;
    ARRAYD_ASSIGN_OR_RETURN(View abs, Run(ctx, "absolute", {x}));
    ARRAYD_ASSIGN_OR_RETURN(View sums, reduce("sum", abs, {first}, false));
    ARRAYD_ASSIGN_OR_RETURN(out, reduce(is(1) || is(inf) ? "max" : "min", sums,
                                        {second > first ? second - 1 : second}, false));
  } else {
    return ValueError("Invalid norm order for matrices.");
  }
  if (keepdims) {
    Shape shape = x.shape;
    shape[row] = shape[col] = 1;
    ARRAYD_ASSIGN_OR_RETURN(out, compose::Reshape(ctx, out, shape));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// matrix_power(a, *, n): a to the integer power n by repeated squaring
// (matmul); n < 0 inverts a first; n == 0 gives identity matrices of a's
// dtype. Always a new array.
absl::Status RunMatrixPower(OpContext& ctx) {
  const View& a = ctx.input(0);
  ARRAYD_RETURN_IF_ERROR(CheckStackedSquare(a));
  ARRAYD_ASSIGN_OR_RETURN(int64_t n, ctx.attrs().Int("n"));
  if (n == 0) {
    ARRAYD_ASSIGN_OR_RETURN(View eye, compose::Filled(ctx, a.dtype, a.shape, Scalar::Int(0)));
    if (eye.size() > 0) {
      View diag = eye;  // [..., i, i]
      const int nd = a.ndim();
      diag.shape.pop_back();
      diag.strides.pop_back();
      diag.strides[nd - 2] = eye.strides[nd - 2] + eye.strides[nd - 1];
      ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(diag, Scalar::Int(1)));
    }
    ctx.SetResult(0, eye);
    return absl::OkStatus();
  }
  View z = a;
  if (n < 0) {
    ARRAYD_ASSIGN_OR_RETURN(z, compose::Run(ctx, "inv", {a}));
  }
  // The magnitude as unsigned: -INT64_MIN does not fit int64.
  uint64_t e = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  if (e == 1) {
    ARRAYD_ASSIGN_OR_RETURN(View copy, ctx.ContiguousCopy(z));
    ctx.SetResult(0, copy);
    return absl::OkStatus();
  }
  std::optional<View> result;
  while (true) {
    if (e & 1) {
      if (result) {
        ARRAYD_ASSIGN_OR_RETURN(result, compose::Run(ctx, "matmul", {*result, z}));
      } else {
        result = z;
      }
    }
    e >>= 1;
    if (e == 0) break;
    ARRAYD_ASSIGN_OR_RETURN(z, compose::Run(ctx, "matmul", {z, z}));
  }
  ctx.SetResult(0, *result);
  return absl::OkStatus();
}
}  // namespace

void RegisterLinalgCompositeOps(OpRegistry* r) {
  const OpFamily f = OpFamily::kLibrary;
  r->Register(f, "pinv(a, rconds[], *, rcond: float? = None, hermitian: bool = False) -> out",
              "numpy.linalg.pinv from the SVD (eigh when hermitian): singular values at most "
              "rcond times the largest count as zero; rcond None: max(m, n) * eps (NumPy 2's "
              "rtol=None; numpy.linalg.pinv's own default is 1e-15); an array rcond, broadcast "
              "against the batch, is the optional input rconds.",
              RunPinv);
  r->Register(f,
              "matrix_rank(a, tols[], *, tol: float? = None, rtol: float? = None, "
              "relative: bool = False, hermitian: bool = False) -> out",
              "numpy.linalg.matrix_rank (int64 per matrix): singular values above tol, or above "
              "rtol (None: max(m, n) * eps) times the largest; an array tolerance, broadcast "
              "against the batch, is the optional input tols (tol, or rtol when relative).",
              RunMatrixRank);
  r->Register(f, "matrix_power(a, *, n: int) -> out",
              "numpy.linalg.matrix_power: repeated squaring on matmul (n < 0: of inv(a); n == 0: "
              "identity matrices of a's dtype).",
              RunMatrixPower);
  r->Register(f, "lstsq(a, b, *, rcond: float? = None) -> (x, residuals, rank, s)",
              "numpy.linalg.lstsq from the SVD; rcond None: max(m, n) * eps. residuals is empty "
              "unless rank == n < m (its shape follows the int64 rank, which the op reads back).",
              RunLstsq);
  r->Register(f,
              "norm(x, *, ord: float? = None, ord_name: str? = None, axes: ints? = None, "
              "keepdims: bool = False) -> out",
              "numpy.linalg.norm: ord a number, or ord_name 'fro', 'f' or 'nuc' (both absent: "
              "None); axes None (every axis), one (a vector norm) or two (a matrix norm).",
              RunNorm);
}

}  // namespace arrayd
