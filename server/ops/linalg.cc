// Matrix products: matmul with NumPy's rules (1-D operands promoted and
// squeezed, batch dimensions broadcast), on the backend's batched Matmul;
// numpy.linalg's decompositions and solvers on the backend's LAPACK-like
// Stream calls, batched over leading dimensions (the composites built from
// them are in linalg_composite.cc). Singular and non-positive-definite
// matrices are found by reading LAPACK's info back (a sync of the stream, as
// NumPy must raise LinAlgError).
#include <algorithm>
#include <cmath>
#include <complex>
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

// `v` (C-contiguous) seen with `shape`.
View Reshaped(const View& v, const Shape& shape) {
  View out;
  TryReshapeView(v, shape, &out);
  return out;
}

// LinAlgError(message) when any of LAPACK's info codes is positive.
// LinAlgError(message) when `a` holds an inf or a NaN, as NumPy raises:
// LAPACK and cuSOLVER would return garbage, fail with another error or,
// for some drivers, not converge at all on such input.
absl::Status CheckFinite(OpContext& ctx, const View& a, absl::string_view message) {
  ARRAYD_ASSIGN_OR_RETURN(View finite, compose::Run(ctx, "isfinite", {a}));
  ARRAYD_ASSIGN_OR_RETURN(View all, compose::Run(ctx, "all", {finite}));
  uint8_t host = 0;
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyToHost(all, &host));
  return host != 0 ? absl::OkStatus() : LinAlgError(message);
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
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CheckInfo(f.info, "solve", "Singular matrix"));
  ARRAYD_ASSIGN_OR_RETURN(View x, Batched(ctx, bb, dtype));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().LuSolve(f.lu, f.pivots, x));
  ctx.SetResult(0, Reshaped(x, vector ? Concat(batch, {n}) : Concat(batch, {n, k})));
  return absl::OkStatus();
}

// lu_factor(a): scipy.linalg.lu_factor of a stack of square matrices: lu
// (L's strict lower part, with its unit diagonal implied, and U) and piv,
// LAPACK's row interchanges counted from 0 (int32). A singular matrix is
// factored as LAPACK leaves it (a zero on U's diagonal), as SciPy does.
absl::Status RunLuFactor(OpContext& ctx) {
  const View& a = ctx.input(0);
  ARRAYD_RETURN_IF_ERROR(CheckStackedSquare(a));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a.dtype));
  ARRAYD_ASSIGN_OR_RETURN(Lu f, Factor(ctx, a, dtype));
  ARRAYD_ASSIGN_OR_RETURN(View one, compose::Constant(ctx, DType::kInt32, Scalar::Int(1)));
  ARRAYD_ASSIGN_OR_RETURN(View piv, compose::Run(ctx, "subtract", {f.pivots, one}));
  const Shape& shape = a.shape;
  ctx.SetResult(0, Reshaped(f.lu, shape));
  ctx.SetResult(1, Reshaped(piv, Shape(shape.begin(), shape.end() - 1)));
  return absl::OkStatus();
}

// lu_solve(lu, piv, b): x with a x = b for a's factors from lu_factor (piv
// from 0); b (..., n, k), the batch dimensions of lu's.
absl::Status RunLuSolve(OpContext& ctx) {
  const View& lu = ctx.input(0);
  const View& piv = ctx.input(1);
  const View& b = ctx.input(2);
  ARRAYD_RETURN_IF_ERROR(CheckStackedSquare(lu));
  const int64_t n = lu.shape[lu.ndim() - 1];
  if (b.ndim() != lu.ndim() || b.shape[b.ndim() - 2] != n ||
      Shape(b.shape.begin(), b.shape.end() - 2) != BatchShape(lu) ||
      piv.shape != Shape(lu.shape.begin(), lu.shape.end() - 1)) {
    return ValueError("lu_solve: incompatible dimensions of lu, piv and b");
  }
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(lu.dtype, b.dtype));
  ARRAYD_ASSIGN_OR_RETURN(View factors, Batched(ctx, lu, dtype));
  ARRAYD_ASSIGN_OR_RETURN(View piv32, ctx.CastTo(piv, DType::kInt32));
  ARRAYD_ASSIGN_OR_RETURN(View one, compose::Constant(ctx, DType::kInt32, Scalar::Int(1)));
  ARRAYD_ASSIGN_OR_RETURN(View pivots, compose::Run(ctx, "add", {piv32, one}));
  ARRAYD_ASSIGN_OR_RETURN(pivots, compose::Reshape(ctx, pivots, {factors.shape[0], n}));
  ARRAYD_ASSIGN_OR_RETURN(View x, Batched(ctx, b, dtype));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().LuSolve(factors, pivots, x));
  ctx.SetResult(0, Reshaped(x, b.shape));
  return absl::OkStatus();
}

absl::Status RunInv(OpContext& ctx) {
  const View& a = ctx.input(0);
  ARRAYD_RETURN_IF_ERROR(CheckStackedSquare(a));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a.dtype));
  {
    // One call where the backend inverts directly (small matrices).
    const int nd = a.ndim();
    View a3;
    const Shape shape3 = {ShapeSize(BatchShape(a)), a.shape[nd - 2], a.shape[nd - 1]};
    if (a.dtype != dtype || !TryReshapeView(a, shape3, &a3) || !a3.IsCContiguous()) {
      ARRAYD_ASSIGN_OR_RETURN(a3, Batched(ctx, a, dtype));
    }
    ARRAYD_ASSIGN_OR_RETURN(View x, ctx.NewArray(dtype, a3.shape));
    ARRAYD_ASSIGN_OR_RETURN(View info, ctx.NewArray(DType::kInt32, {a3.shape[0]}));
    absl::Status direct = ctx.stream().Inverse(a3, x, info);
    if (!absl::IsUnimplemented(direct)) {
      ARRAYD_RETURN_IF_ERROR(direct);
      ARRAYD_RETURN_IF_ERROR(ctx.stream().CheckInfo(info, "inv", "Singular matrix"));
      ctx.SetResult(0, Reshaped(x, a.shape));
      return absl::OkStatus();
    }
  }
  ARRAYD_ASSIGN_OR_RETURN(Lu f, Factor(ctx, a, dtype));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CheckInfo(f.info, "inv", "Singular matrix"));
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
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CheckInfo(info, "cholesky", "Matrix is not positive definite"));
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
  if (a3.size() > 0) ARRAYD_RETURN_IF_ERROR(CheckFinite(ctx, a3, "SVD did not converge"));
  const int64_t nb = a3.shape[0], m = a3.shape[1], n = a3.shape[2], k = std::min(m, n);
  ARRAYD_ASSIGN_OR_RETURN(View s, ctx.NewArray(RealDType(dtype), {nb, k}));
  ARRAYD_ASSIGN_OR_RETURN(View info, ctx.NewArray(DType::kInt32, {nb}));
  const Shape batch = BatchShape(a);
  if (!compute_uv) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Svd(a3, s, nullptr, nullptr, info));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().CheckInfo(info, "svd", "SVD did not converge"));
    ctx.SetResult(0, Reshaped(s, Concat(batch, {k})));
    return absl::OkStatus();
  }
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  ARRAYD_ASSIGN_OR_RETURN(View u, ctx.NewArray(dtype, {nb, m, ucols}));
  ARRAYD_ASSIGN_OR_RETURN(View vh, ctx.NewArray(dtype, {nb, vrows, n}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Svd(a3, s, &u, &vh, info));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CheckInfo(info, "svd", "SVD did not converge"));
  ctx.SetResult(0, Reshaped(u, Concat(batch, {m, ucols})));
  ctx.SetResult(1, Reshaped(s, Concat(batch, {k})));
  ctx.SetResult(2, Reshaped(vh, Concat(batch, {vrows, n})));
  return absl::OkStatus();
}

// The part eigh and eig share: eigenvalues w (w_dtype) and, with
// `vectors`, eigenvectors v (v_dtype) of the batched matrices a3 from
// solve(w, &v or nullptr, info), checked and shaped as a's batch.
template <typename Solve>
absl::Status EigenResults(OpContext& ctx, const char* op, const View& a, const View& a3, DType w_dtype,
                          DType v_dtype, bool vectors, const Solve& solve) {
  const int64_t nb = a3.shape[0], n = a3.shape[1];
  ARRAYD_ASSIGN_OR_RETURN(View w, ctx.NewArray(w_dtype, {nb, n}));
  ARRAYD_ASSIGN_OR_RETURN(View info, ctx.NewArray(DType::kInt32, {nb}));
  View v;
  if (vectors) { ARRAYD_ASSIGN_OR_RETURN(v, ctx.NewArray(v_dtype, {nb, n, n})); }
  ARRAYD_RETURN_IF_ERROR(solve(w, vectors ? &v : nullptr, info));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CheckInfo(info, op, "Eigenvalues did not converge"));
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
  if (a3.size() > 0) ARRAYD_RETURN_IF_ERROR(CheckFinite(ctx, a3, "Eigenvalues did not converge"));
  if (uplo == "U" && IsComplex(dtype)) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Unary(kernels::UnaryOp::kConjugate, a3, a3));
  }
  return EigenResults(ctx, "eigh", a, a3, RealDType(dtype), dtype, vectors,
                      [&](const View& w, const View* v, const View& info) {
                        return ctx.stream().Eigh(a3, w, v, info);
                      });
}

}  // namespace

// eig (outputs w, v) and eigvals (output w), with NumPy's rule for their
// dtype: complex for complex input; for real input, the real parts (new
// arrays) when every eigenvalue's imaginary part is 0, else complex. The
// rule reads one bool back (a sync of the stream).
absl::Status RunEig(OpContext& ctx, bool vectors) {
  const View& a = ctx.input(0);
  ARRAYD_RETURN_IF_ERROR(CheckStackedSquare(a));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, LinalgDType(a.dtype));
  ARRAYD_ASSIGN_OR_RETURN(View a3, Batched(ctx, a, dtype));
  const DType complex = RealDType(dtype) == DType::kFloat32 ? DType::kComplex64 : DType::kComplex128;
  ARRAYD_RETURN_IF_ERROR(EigenResults(ctx, "eig", a, a3, complex, complex, vectors,
                                      [&](const View& w, const View* v, const View& info) {
                                        return ctx.stream().Eig(a3, w, v, info);
                                      }));
  ARRAYD_ASSIGN_OR_RETURN(bool always_complex, ctx.attrs().Bool("always_complex", false));
  if (IsComplex(dtype) || always_complex) return absl::OkStatus();
  const View w = ctx.results()[0];
  if (w.size() > 0) {
    ARRAYD_ASSIGN_OR_RETURN(View imag, compose::Run(ctx, "imag", {w}));
    ARRAYD_ASSIGN_OR_RETURN(View zero, compose::Constant(ctx, dtype, Scalar::Float(0)));
    ARRAYD_ASSIGN_OR_RETURN(View nonzero, compose::Run(ctx, "not_equal", {imag, zero}));
    ARRAYD_ASSIGN_OR_RETURN(View any, compose::Run(ctx, "any", {nonzero}));
    bool complex_values = false;
    ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyToHost(any, &complex_values));
    if (complex_values) return absl::OkStatus();
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    ARRAYD_ASSIGN_OR_RETURN(View real, compose::Run(ctx, "real", {ctx.results()[i]}));
    ARRAYD_ASSIGN_OR_RETURN(View copy, ctx.ContiguousCopy(real));
    ctx.SetResult(i, copy);
  }
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
  r->Register(f, "lu_factor(a) -> (lu, piv)", "scipy.linalg.lu_factor (piv from 0).",
              RunLuFactor);
  r->Register(f, "lu_solve(lu, piv, b) -> x", "scipy.linalg.lu_solve (trans 0).", RunLuSolve);
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
  r->Register(f, "eig(a, *, always_complex: bool = False) -> (w, v)",
              "numpy.linalg.eig: complex results, or real ones for real input whose eigenvalues "
              "are all real (NumPy 2.4's rule; the op reads that back); always_complex: complex "
              "whatever the input, as newer NumPy.",
              [](OpContext& c) { return RunEig(c, true); });
  r->Register(f, "eigvals(a, *, always_complex: bool = False) -> w",
              "numpy.linalg.eigvals, its dtype as eig's.",
              [](OpContext& c) { return RunEig(c, false); });
}

}  // namespace arrayd
