// Matrix products: matmul with NumPy's rules (1-D operands promoted and
// squeezed, batch dimensions broadcast), on the backend's batched Matmul;
// numpy.linalg's decompositions and solvers on the backend's LAPACK-like
// Stream calls, batched over leading dimensions; and the composites pinv,
// matrix_rank, lstsq and norm, written once here from those ops
// (ops/compose.h) for every client and backend, with matrix_power. Singular and
// non-positive-definite matrices are found by reading LAPACK's info back
// (a sync of the stream, as NumPy must raise LinAlgError).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "ops/compose.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

absl::Status RunMatmul(OpContext& ctx) {
  View a = ctx.input(0), b = ctx.input(1);
  for (int i = 0; i < 2; ++i) {
    if (ctx.input(i).ndim() == 0) {
      return ValueError(absl::StrCat("matmul: Input operand ", i,
                                     " does not have enough dimensions (has 0, gufunc core with "
                                     "signature (n?,k),(k,m?)->(n?,m?) requires 1)"));
    }
  }
  const bool a_vec = a.ndim() == 1, b_vec = b.ndim() == 1;
  if (a_vec) TryReshapeView(a, {1, a.shape[0]}, &a);
  if (b_vec) TryReshapeView(b, {b.shape[0], 1}, &b);
  const int64_t m = a.shape[a.ndim() - 2], k = a.shape[a.ndim() - 1];
  const int64_t k2 = b.shape[b.ndim() - 2], n = b.shape[b.ndim() - 1];
  if (k != k2) {
    return ValueError(absl::StrCat("matmul: Input operand 1 has a mismatch in its core dimension 0, "
                                   "with gufunc signature (n?,k),(k,m?)->(n?,m?) (size ",
                                   k2, " is different from ", k, ")"));
  }
  Shape a_batch(a.shape.begin(), a.shape.end() - 2), b_batch(b.shape.begin(), b.shape.end() - 2);
  ARRAYD_ASSIGN_OR_RETURN(Shape batch, BroadcastShapes({a_batch, b_batch}));
  DType dtype = Promote(a.dtype, b.dtype);
  // Contiguous (B, m, k) and (B, k, n) operands for the backend.
  Shape a_full = batch, b_full = batch;
  a_full.insert(a_full.end(), {m, k});
  b_full.insert(b_full.end(), {k, n});
  ARRAYD_ASSIGN_OR_RETURN(View ab, BroadcastTo(a, a_full));
  ARRAYD_ASSIGN_OR_RETURN(View bb, BroadcastTo(b, b_full));
  const int64_t nbatch = ShapeSize(batch);
  View a3, b3;
  if (ab.dtype != dtype || !ab.IsCContiguous()) {
    ARRAYD_ASSIGN_OR_RETURN(ab, ctx.ContiguousCopy(ab, dtype));
  }
  if (bb.dtype != dtype || !bb.IsCContiguous()) {
    ARRAYD_ASSIGN_OR_RETURN(bb, ctx.ContiguousCopy(bb, dtype));
  }
  TryReshapeView(ab, {nbatch, m, k}, &a3);
  TryReshapeView(bb, {nbatch, k, n}, &b3);
  Shape out_full = batch;
  out_full.insert(out_full.end(), {m, n});
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(dtype, out_full));
  View out3;
  TryReshapeView(out, {nbatch, m, n}, &out3);
  if (k == 0) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(out, Scalar::Int(0)));
  } else {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Matmul(a3, b3, out3));
  }
  // Squeeze the dimensions that 1-D operands added.
  Shape result = batch;
  if (!a_vec) result.push_back(m);
  if (!b_vec) result.push_back(n);
  View squeezed;
  TryReshapeView(out, result, &squeezed);
  ctx.SetResult(0, squeezed);
  return absl::OkStatus();
}

// ---- numpy.linalg

// NumPy's _commonType: float32/64 and complex64/128 stay; bool and integers
// compute in float64; float16 is refused.
absl::StatusOr<DType> LinalgDType(DType d) {
  if (d == DType::kFloat16) return TypeError("array type float16 is unsupported in linalg");
  if (IsInexact(d)) return d;
  return DType::kFloat64;
}

// _commonType of two operands: single precision only when both are, complex
// when either is (int16 with float32 computes in float64, as in NumPy).
absl::StatusOr<DType> LinalgDType(DType a, DType b) {
  ARRAYD_ASSIGN_OR_RETURN(DType ta, LinalgDType(a));
  ARRAYD_ASSIGN_OR_RETURN(DType tb, LinalgDType(b));
  const bool single = RealDType(ta) == DType::kFloat32 && RealDType(tb) == DType::kFloat32;
  if (IsComplex(ta) || IsComplex(tb)) return single ? DType::kComplex64 : DType::kComplex128;
  return single ? DType::kFloat32 : DType::kFloat64;
}

absl::Status CheckStacked2d(const View& a) {
  if (a.ndim() < 2) {
    return LinAlgError(absl::StrCat(a.ndim(), "-dimensional array given. Array must be at least "
                                    "two-dimensional"));
  }
  return absl::OkStatus();
}

absl::Status CheckStackedSquare(const View& a) {
  ARRAYD_RETURN_IF_ERROR(CheckStacked2d(a));
  if (a.shape[a.ndim() - 1] != a.shape[a.ndim() - 2]) {
    return LinAlgError("Last 2 dimensions of the array must be square");
  }
  return absl::OkStatus();
}

Shape BatchShape(const View& a) { return Shape(a.shape.begin(), a.shape.end() - 2); }

Shape Concat(Shape a, std::initializer_list<int64_t> tail) {
  a.insert(a.end(), tail.begin(), tail.end());
  return a;
}

// A C-contiguous (batch, rows, cols) copy of `x` (..., rows, cols) in `dtype`,
// for the LAPACK-like calls, which overwrite their operands.
absl::StatusOr<View> Batched(OpContext& ctx, const View& x, DType dtype) {
  ARRAYD_ASSIGN_OR_RETURN(View c, ctx.ContiguousCopy(x, dtype));
  const int nd = x.ndim();
  View out;
  TryReshapeView(c, {ShapeSize(BatchShape(x)), x.shape[nd - 2], x.shape[nd - 1]}, &out);
  return out;
}

// `v` (C-contiguous) seen with `shape`.
View Reshaped(const View& v, const Shape& shape) {
  View out;
  TryReshapeView(v, shape, &out);
  return out;
}

// LinAlgError(message) when any of LAPACK's info codes is positive.
absl::Status CheckInfo(OpContext& ctx, const View& info, absl::string_view message) {
  std::vector<int32_t> host(static_cast<size_t>(info.size()));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyToHost(info, host.data()));
  for (int32_t i : host) {
    if (i > 0) return LinAlgError(message);
  }
  return absl::OkStatus();
}

// The main diagonals of a C-contiguous (batch, n, n) array, as a (batch, n) view.
View Diagonals(const View& a) {
  View d = a;
  const int64_t item = ItemSize(a.dtype), n = a.shape[1];
  d.shape = {a.shape[0], n};
  d.strides = {n * n * item, (n + 1) * item};
  return d;
}

// LU factors of a square (batch, n, n) copy: lu, pivots and info.
struct Lu {
  View lu, pivots, info;
};

absl::StatusOr<Lu> Factor(OpContext& ctx, const View& a, DType dtype) {
  Lu f;
  ARRAYD_ASSIGN_OR_RETURN(f.lu, Batched(ctx, a, dtype));
  ARRAYD_ASSIGN_OR_RETURN(f.pivots, ctx.NewArray(DType::kInt32, {f.lu.shape[0], f.lu.shape[1]}));
  ARRAYD_ASSIGN_OR_RETURN(f.info, ctx.NewArray(DType::kInt32, {f.lu.shape[0]}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().LuFactor(f.lu, f.pivots, f.info));
  return f;
}

// solve(a, b): a (..., n, n), b (..., n, k), batch dimensions broadcast.
// solve(a, b): b a stack of (n, k) matrices, or (NumPy 2) one vector (n,)
// when 1-D, solved as (n, 1) for every matrix of a: x (..., n).
absl::Status RunSolve(OpContext& ctx) {
  const View& a = ctx.input(0);
  View b = ctx.input(1);
  ARRAYD_RETURN_IF_ERROR(CheckStackedSquare(a));
  const bool vector = b.ndim() == 1;
  if (vector) {
    const int64_t n = a.shape[a.ndim() - 1];
    if (b.shape[0] != n) {
      return ValueError(absl::StrCat(
          "solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
          "(m,m),(m)->(m) (size ", b.shape[0], " is different from ", n, ")"));
    }
    b = compose::AppendAxis(b);
  }
  if (b.ndim() < 2) return ValueError("solve: b must not be 0-d");
  const int64_t n = a.shape[a.ndim() - 1], k = b.shape[b.ndim() - 1];
  if (b.shape[b.ndim() - 2] != n) {
    return ValueError(absl::StrCat(
        "solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
        "(m,m),(m,n)->(m,n) (size ", b.shape[b.ndim() - 2], " is different from ", n, ")"));
  }
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a.dtype, b.dtype));
  ARRAYD_ASSIGN_OR_RETURN(Shape batch, BroadcastShapes({BatchShape(a), BatchShape(b)}));
  ARRAYD_ASSIGN_OR_RETURN(View ab, BroadcastTo(a, Concat(batch, {n, n})));
  ARRAYD_ASSIGN_OR_RETURN(View bb, BroadcastTo(b, Concat(batch, {n, k})));
  ARRAYD_ASSIGN_OR_RETURN(Lu f, Factor(ctx, ab, dtype));
  ARRAYD_RETURN_IF_ERROR(CheckInfo(ctx, f.info, "Singular matrix"));
  ARRAYD_ASSIGN_OR_RETURN(View x, Batched(ctx, bb, dtype));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().LuSolve(f.lu, f.pivots, x));
  ctx.SetResult(0, Reshaped(x, vector ? Concat(batch, {n}) : Concat(batch, {n, k})));
  return absl::OkStatus();
}

absl::Status RunInv(OpContext& ctx) {
  const View& a = ctx.input(0);
  ARRAYD_RETURN_IF_ERROR(CheckStackedSquare(a));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a.dtype));
  ARRAYD_ASSIGN_OR_RETURN(Lu f, Factor(ctx, a, dtype));
  ARRAYD_RETURN_IF_ERROR(CheckInfo(ctx, f.info, "Singular matrix"));
  ARRAYD_ASSIGN_OR_RETURN(View x, ctx.NewArray(dtype, f.lu.shape));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(x, Scalar::Int(0)));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(Diagonals(x), Scalar::Int(1)));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().LuSolve(f.lu, f.pivots, x));
  ctx.SetResult(0, Reshaped(x, a.shape));
  return absl::OkStatus();
}

template <typename T> struct RealOf { using type = T; };
template <typename T> struct RealOf<std::complex<T>> { using type = T; };

// det and slogdet from the LU factors' diagonals and pivots, combined on the
// host in double precision (O(batch * n) values cross; the factorization
// stays on the device).
template <typename T>
absl::Status DetOnHost(OpContext& ctx, const Lu& f, DType dtype, const Shape& batch, bool log) {
  using C = std::complex<double>;
  using R = typename RealOf<T>::type;
  const int64_t nb = f.lu.shape[0], n = f.lu.shape[1];
  ARRAYD_ASSIGN_OR_RETURN(View diag, ctx.ContiguousCopy(Diagonals(f.lu)));
  std::vector<T> d(static_cast<size_t>(nb * n));
  std::vector<int32_t> piv(static_cast<size_t>(nb * n));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyToHost(diag, d.data()));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyToHost(f.pivots, piv.data()));
  std::vector<T> first(static_cast<size_t>(nb));
  std::vector<R> logabs(static_cast<size_t>(nb));
  for (int64_t i = 0; i < nb; ++i) {
    bool odd = false;
    C prod = 1, sign = 1;
    double acc = 0;
    for (int64_t j = 0; j < n; ++j) {
      odd ^= piv[i * n + j] != j + 1;
      C v = C(d[i * n + j]);
      prod *= v;
      double m = std::abs(v);
      if (m == 0) {
        sign = 0;
        acc = -INFINITY;
      } else if (sign != C(0)) {
        sign *= v / m;
        acc += std::log(m);
      }
    }
    if (odd) {
      prod = -prod;
      sign = -sign;
    }
    C value = log ? sign : prod;
    if constexpr (std::is_same<T, R>::value) {
      first[i] = static_cast<T>(value.real());
    } else {
      first[i] = T(static_cast<R>(value.real()), static_cast<R>(value.imag()));
    }
    logabs[i] = static_cast<R>(acc);
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(dtype, batch));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(first.data(), out));
  ctx.SetResult(0, out);
  if (log) {
    ARRAYD_ASSIGN_OR_RETURN(View la, ctx.NewArray(RealDType(dtype), batch));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(logabs.data(), la));
    ctx.SetResult(1, la);
  }
  return absl::OkStatus();
}

absl::Status RunDet(OpContext& ctx, bool log) {
  const View& a = ctx.input(0);
  ARRAYD_RETURN_IF_ERROR(CheckStackedSquare(a));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a.dtype));
  ARRAYD_ASSIGN_OR_RETURN(Lu f, Factor(ctx, a, dtype));
  const Shape batch = BatchShape(a);
  switch (dtype) {
    case DType::kFloat32: return DetOnHost<float>(ctx, f, dtype, batch, log);
    case DType::kFloat64: return DetOnHost<double>(ctx, f, dtype, batch, log);
    case DType::kComplex64: return DetOnHost<std::complex<float>>(ctx, f, dtype, batch, log);
    default: return DetOnHost<std::complex<double>>(ctx, f, dtype, batch, log);
  }
}

absl::Status RunCholesky(OpContext& ctx) {
  const View& a = ctx.input(0);
  ARRAYD_RETURN_IF_ERROR(CheckStackedSquare(a));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a.dtype));
  ARRAYD_ASSIGN_OR_RETURN(View l, Batched(ctx, a, dtype));
  ARRAYD_ASSIGN_OR_RETURN(View info, ctx.NewArray(DType::kInt32, {l.shape[0]}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Cholesky(l, info));
  ARRAYD_RETURN_IF_ERROR(CheckInfo(ctx, info, "Matrix is not positive definite"));
  ctx.SetResult(0, Reshaped(l, a.shape));
  return absl::OkStatus();
}

// qr: attr mode "reduced" (default) or "complete"; outputs q and r.
absl::Status RunQr(OpContext& ctx) {
  const View& a = ctx.input(0);
  ARRAYD_RETURN_IF_ERROR(CheckStacked2d(a));
  std::string mode = "reduced";
  if (ctx.attrs().Has("mode")) { ARRAYD_ASSIGN_OR_RETURN(mode, ctx.attrs().String("mode")); }
  if (mode != "reduced" && mode != "complete") {
    return ValueError(absl::StrCat("Unrecognized mode '", mode, "'"));
  }
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a.dtype));
  ARRAYD_ASSIGN_OR_RETURN(View a3, Batched(ctx, a, dtype));
  const int64_t nb = a3.shape[0], m = a3.shape[1], n = a3.shape[2];
  const int64_t k = mode == "complete" ? m : std::min(m, n);
  ARRAYD_ASSIGN_OR_RETURN(View q, ctx.NewArray(dtype, {nb, m, k}));
  ARRAYD_ASSIGN_OR_RETURN(View r, ctx.NewArray(dtype, {nb, k, n}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Qr(a3, q, r));
  const Shape batch = BatchShape(a);
  ctx.SetResult(0, Reshaped(q, Concat(batch, {m, k})));
  ctx.SetResult(1, Reshaped(r, Concat(batch, {k, n})));
  return absl::OkStatus();
}

// svd (outputs u, s, vh; attr full_matrices) and svdvals (output s).
absl::Status RunSvd(OpContext& ctx, bool compute_uv) {
  const View& a = ctx.input(0);
  ARRAYD_RETURN_IF_ERROR(CheckStacked2d(a));
  ARRAYD_ASSIGN_OR_RETURN(bool full, ctx.attrs().Bool("full_matrices", true));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a.dtype));
  ARRAYD_ASSIGN_OR_RETURN(View a3, Batched(ctx, a, dtype));
  const int64_t nb = a3.shape[0], m = a3.shape[1], n = a3.shape[2], k = std::min(m, n);
  ARRAYD_ASSIGN_OR_RETURN(View s, ctx.NewArray(RealDType(dtype), {nb, k}));
  ARRAYD_ASSIGN_OR_RETURN(View info, ctx.NewArray(DType::kInt32, {nb}));
  const Shape batch = BatchShape(a);
  if (!compute_uv) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Svd(a3, s, nullptr, nullptr, info));
    ARRAYD_RETURN_IF_ERROR(CheckInfo(ctx, info, "SVD did not converge"));
    ctx.SetResult(0, Reshaped(s, Concat(batch, {k})));
    return absl::OkStatus();
  }
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  ARRAYD_ASSIGN_OR_RETURN(View u, ctx.NewArray(dtype, {nb, m, ucols}));
  ARRAYD_ASSIGN_OR_RETURN(View vh, ctx.NewArray(dtype, {nb, vrows, n}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Svd(a3, s, &u, &vh, info));
  ARRAYD_RETURN_IF_ERROR(CheckInfo(ctx, info, "SVD did not converge"));
  ctx.SetResult(0, Reshaped(u, Concat(batch, {m, ucols})));
  ctx.SetResult(1, Reshaped(s, Concat(batch, {k})));
  ctx.SetResult(2, Reshaped(vh, Concat(batch, {vrows, n})));
  return absl::OkStatus();
}

// The part eigh and eig share: eigenvalues w (w_dtype) and, with
// `vectors`, eigenvectors v (v_dtype) of the batched matrices a3 from
// solve(w, &v or nullptr, info), checked and shaped as a's batch.
template <typename Solve>
absl::Status EigenResults(OpContext& ctx, const View& a, const View& a3, DType w_dtype,
                          DType v_dtype, bool vectors, const Solve& solve) {
  const int64_t nb = a3.shape[0], n = a3.shape[1];
  ARRAYD_ASSIGN_OR_RETURN(View w, ctx.NewArray(w_dtype, {nb, n}));
  ARRAYD_ASSIGN_OR_RETURN(View info, ctx.NewArray(DType::kInt32, {nb}));
  View v;
  if (vectors) { ARRAYD_ASSIGN_OR_RETURN(v, ctx.NewArray(v_dtype, {nb, n, n})); }
  ARRAYD_RETURN_IF_ERROR(solve(w, vectors ? &v : nullptr, info));
  ARRAYD_RETURN_IF_ERROR(CheckInfo(ctx, info, "Eigenvalues did not converge"));
  ctx.SetResult(0, Reshaped(w, Concat(BatchShape(a), {n})));
  if (vectors) ctx.SetResult(1, Reshaped(v, a.shape));
  return absl::OkStatus();
}

// eigh (outputs w, v) and eigvalsh (output w); attr UPLO "L" (default) or "U".
absl::Status RunEigh(OpContext& ctx, bool vectors) {
  const View& a = ctx.input(0);
  ARRAYD_RETURN_IF_ERROR(CheckStackedSquare(a));
  std::string uplo = "L";
  if (ctx.attrs().Has("UPLO")) { ARRAYD_ASSIGN_OR_RETURN(uplo, ctx.attrs().String("UPLO")); }
  if (uplo != "L" && uplo != "U") return ValueError("UPLO argument must be 'L' or 'U'");
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a.dtype));
  View src = a;
  if (uplo == "U") {
    // The upper triangle of A is the lower one of conj(A^T).
    std::vector<int64_t> perm;
    for (int i = 0; i < a.ndim(); ++i) perm.push_back(i);
    std::swap(perm[a.ndim() - 1], perm[a.ndim() - 2]);
    ARRAYD_ASSIGN_OR_RETURN(src, Transpose(a, perm));
  }
  ARRAYD_ASSIGN_OR_RETURN(View a3, Batched(ctx, src, dtype));
  if (uplo == "U" && IsComplex(dtype)) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Unary(kernels::UnaryOp::kConjugate, a3, a3));
  }
  return EigenResults(ctx, a, a3, RealDType(dtype), dtype, vectors,
                      [&](const View& w, const View* v, const View& info) {
                        return ctx.stream().Eigh(a3, w, v, info);
                      });
}

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

}  // namespace

// eig (outputs w, v) and eigvals (output w), with NumPy's rule for their
// dtype: complex for complex input; for real input, the real parts (new
// arrays) when every eigenvalue's imaginary part is 0, else complex. The
// rule reads one bool back (a sync of the stream, as the info check is).
absl::Status RunEig(OpContext& ctx, bool vectors) {
  const View& a = ctx.input(0);
  ARRAYD_RETURN_IF_ERROR(CheckStackedSquare(a));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a.dtype));
  ARRAYD_ASSIGN_OR_RETURN(View a3, Batched(ctx, a, dtype));
  const DType complex = RealDType(dtype) == DType::kFloat32 ? DType::kComplex64 : DType::kComplex128;
  ARRAYD_RETURN_IF_ERROR(EigenResults(ctx, a, a3, complex, complex, vectors,
                                      [&](const View& w, const View* v, const View& info) {
                                        return ctx.stream().Eig(a3, w, v, info);
                                      }));
  if (IsComplex(dtype)) return absl::OkStatus();
  const View w = ctx.results()[0];
  if (w.size() > 0) {
    ARRAYD_ASSIGN_OR_RETURN(View imag, Run(ctx, "imag", {w}));
    ARRAYD_ASSIGN_OR_RETURN(View zero, compose::Constant(ctx, dtype, Scalar::Float(0)));
    ARRAYD_ASSIGN_OR_RETURN(View nonzero, Run(ctx, "not_equal", {imag, zero}));
    ARRAYD_ASSIGN_OR_RETURN(View any, Run(ctx, "any", {nonzero}));
    bool complex_values = false;
    ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyToHost(any, &complex_values));
    if (complex_values) return absl::OkStatus();
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    ARRAYD_ASSIGN_OR_RETURN(View real, Run(ctx, "real", {ctx.results()[i]}));
    ARRAYD_ASSIGN_OR_RETURN(View copy, ctx.ContiguousCopy(real));
    ctx.SetResult(i, copy);
  }
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

void RegisterLinalgOps(OpRegistry* r) {
  const OpFamily f = OpFamily::kLibrary;
  r->Register(f, "matmul(x1, x2) -> out", "NumPy's matmul (batched, broadcasting, 1-D cases).",
              RunMatmul);
  r->Register(f, "solve(a, b) -> x",
              "numpy.linalg.solve of a (..., n, n) and b (..., n, k), or b (n,) (NumPy 2: x (..., n)).",
              RunSolve);
  r->Register(f, "inv(a) -> ainv", "numpy.linalg.inv.", RunInv);
  r->Register(f, "det(a) -> det", "numpy.linalg.det.", [](OpContext& c) { return RunDet(c, false); });
  r->Register(f, "slogdet(a) -> (sign, logabsdet)", "numpy.linalg.slogdet.",
              [](OpContext& c) { return RunDet(c, true); });
  r->Register(f, "cholesky(a) -> l", "numpy.linalg.cholesky (lower).", RunCholesky);
  r->Register(f, "qr(a, *, mode: str = 'reduced') -> (q, r)",
              "numpy.linalg.qr; mode reduced|complete.", RunQr);
  r->Register(f, "svd(a, *, full_matrices: bool = True) -> (u, s, vh)", "numpy.linalg.svd.",
              [](OpContext& c) { return RunSvd(c, true); });
  r->Register(f, "svdvals(a) -> s", "numpy.linalg.svd(compute_uv=False).",
              [](OpContext& c) { return RunSvd(c, false); });
  r->Register(f, "eigh(a, *, UPLO: str = 'L') -> (w, v)", "numpy.linalg.eigh.",
              [](OpContext& c) { return RunEigh(c, true); });
  r->Register(f, "eigvalsh(a, *, UPLO: str = 'L') -> w", "numpy.linalg.eigvalsh.",
              [](OpContext& c) { return RunEigh(c, false); });
  r->Register(f, "eig(a) -> (w, v)",
              "numpy.linalg.eig: complex results, or real ones for real input whose eigenvalues "
              "are all real (NumPy's rule; the op reads that back).",
              [](OpContext& c) { return RunEig(c, true); });
  r->Register(f, "eigvals(a) -> w", "numpy.linalg.eigvals, its dtype as eig's.",
              [](OpContext& c) { return RunEig(c, false); });
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
