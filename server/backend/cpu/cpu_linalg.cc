// CPU linear algebra: LAPACKE (row-major) on each matrix of a batch, for
// float32, float64, complex64 and complex128.
#include <cmath>
#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>

#include "absl/strings/str_cat.h"
#include "backend/cpu/cpu_backend.h"
#include "common/status.h"

namespace arrayd {
namespace cpu {
namespace {

using C64 = std::complex<float>;
using C128 = std::complex<double>;

// One overload set per LAPACK routine, so that the templates below name
// the routine once.
lapack_int Getrf(lapack_int n, float *a, lapack_int *p) {
  return LAPACKE_sgetrf(LAPACK_ROW_MAJOR, n, n, a, n, p);
}
lapack_int Getrf(lapack_int n, double *a, lapack_int *p) {
  return LAPACKE_dgetrf(LAPACK_ROW_MAJOR, n, n, a, n, p);
}
lapack_int Getrf(lapack_int n, C64 *a, lapack_int *p) {
  return LAPACKE_cgetrf(LAPACK_ROW_MAJOR, n, n, a, n, p);
}
lapack_int Getrf(lapack_int n, C128 *a, lapack_int *p) {
  return LAPACKE_zgetrf(LAPACK_ROW_MAJOR, n, n, a, n, p);
}

lapack_int Getrs(lapack_int n, lapack_int k, const float *a, const lapack_int *p, float *b) {
  return LAPACKE_sgetrs(LAPACK_ROW_MAJOR, 'N', n, k, a, n, p, b, k);
}
lapack_int Getrs(lapack_int n, lapack_int k, const double *a, const lapack_int *p, double *b) {
  return LAPACKE_dgetrs(LAPACK_ROW_MAJOR, 'N', n, k, a, n, p, b, k);
}
lapack_int Getrs(lapack_int n, lapack_int k, const C64 *a, const lapack_int *p, C64 *b) {
  return LAPACKE_cgetrs(LAPACK_ROW_MAJOR, 'N', n, k, a, n, p, b, k);
}
lapack_int Getrs(lapack_int n, lapack_int k, const C128 *a, const lapack_int *p, C128 *b) {
  return LAPACKE_zgetrs(LAPACK_ROW_MAJOR, 'N', n, k, a, n, p, b, k);
}

lapack_int Potrf(lapack_int n, float *a) { return LAPACKE_spotrf(LAPACK_ROW_MAJOR, 'L', n, a, n); }
lapack_int Potrf(lapack_int n, double *a) { return LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, a, n); }
lapack_int Potrf(lapack_int n, C64 *a) { return LAPACKE_cpotrf(LAPACK_ROW_MAJOR, 'L', n, a, n); }
lapack_int Potrf(lapack_int n, C128 *a) { return LAPACKE_zpotrf(LAPACK_ROW_MAJOR, 'L', n, a, n); }

lapack_int Geqrf(lapack_int m, lapack_int n, float *a, float *tau) {
  return LAPACKE_sgeqrf(LAPACK_ROW_MAJOR, m, n, a, n, tau);
}
lapack_int Geqrf(lapack_int m, lapack_int n, double *a, double *tau) {
  return LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, m, n, a, n, tau);
}
lapack_int Geqrf(lapack_int m, lapack_int n, C64 *a, C64 *tau) {
  return LAPACKE_cgeqrf(LAPACK_ROW_MAJOR, m, n, a, n, tau);
}
lapack_int Geqrf(lapack_int m, lapack_int n, C128 *a, C128 *tau) {
  return LAPACKE_zgeqrf(LAPACK_ROW_MAJOR, m, n, a, n, tau);
}

// Q (m, n) from k reflectors.
lapack_int Orgqr(lapack_int m, lapack_int n, lapack_int k, float *q, const float *tau) {
  return LAPACKE_sorgqr(LAPACK_ROW_MAJOR, m, n, k, q, n, tau);
}
lapack_int Orgqr(lapack_int m, lapack_int n, lapack_int k, double *q, const double *tau) {
  return LAPACKE_dorgqr(LAPACK_ROW_MAJOR, m, n, k, q, n, tau);
}
lapack_int Orgqr(lapack_int m, lapack_int n, lapack_int k, C64 *q, const C64 *tau) {
  return LAPACKE_cungqr(LAPACK_ROW_MAJOR, m, n, k, q, n, tau);
}
lapack_int Orgqr(lapack_int m, lapack_int n, lapack_int k, C128 *q, const C128 *tau) {
  return LAPACKE_zungqr(LAPACK_ROW_MAJOR, m, n, k, q, n, tau);
}

lapack_int Gesdd(char jobz, lapack_int m, lapack_int n, float *a, float *s, float *u,
                 lapack_int ldu, float *vt, lapack_int ldvt) {
  return LAPACKE_sgesdd(LAPACK_ROW_MAJOR, jobz, m, n, a, n, s, u, ldu, vt, ldvt);
}
lapack_int Gesdd(char jobz, lapack_int m, lapack_int n, double *a, double *s, double *u,
                 lapack_int ldu, double *vt, lapack_int ldvt) {
  return LAPACKE_dgesdd(LAPACK_ROW_MAJOR, jobz, m, n, a, n, s, u, ldu, vt, ldvt);
}
lapack_int Gesdd(char jobz, lapack_int m, lapack_int n, C64 *a, float *s, C64 *u, lapack_int ldu,
                 C64 *vt, lapack_int ldvt) {
  return LAPACKE_cgesdd(LAPACK_ROW_MAJOR, jobz, m, n, a, n, s, u, ldu, vt, ldvt);
}
lapack_int Gesdd(char jobz, lapack_int m, lapack_int n, C128 *a, double *s, C128 *u, lapack_int ldu,
                 C128 *vt, lapack_int ldvt) {
  return LAPACKE_zgesdd(LAPACK_ROW_MAJOR, jobz, m, n, a, n, s, u, ldu, vt, ldvt);
}

lapack_int Syevd(char jobz, lapack_int n, float *a, float *w) {
  return LAPACKE_ssyevd(LAPACK_ROW_MAJOR, jobz, 'L', n, a, n, w);
}
lapack_int Syevd(char jobz, lapack_int n, double *a, double *w) {
  return LAPACKE_dsyevd(LAPACK_ROW_MAJOR, jobz, 'L', n, a, n, w);
}
lapack_int Syevd(char jobz, lapack_int n, C64 *a, float *w) {
  return LAPACKE_cheevd(LAPACK_ROW_MAJOR, jobz, 'L', n, a, n, w);
}
lapack_int Syevd(char jobz, lapack_int n, C128 *a, double *w) {
  return LAPACKE_zheevd(LAPACK_ROW_MAJOR, jobz, 'L', n, a, n, w);
}

// Right eigenvectors only (jobvl 'N'); real input gives wr, wi and real vr.
lapack_int Geev(char jobvr, lapack_int n, float *a, float *wr, float *wi, float *vr) {
  return LAPACKE_sgeev(LAPACK_ROW_MAJOR, 'N', jobvr, n, a, n, wr, wi, nullptr, 1, vr, n);
}
lapack_int Geev(char jobvr, lapack_int n, double *a, double *wr, double *wi, double *vr) {
  return LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', jobvr, n, a, n, wr, wi, nullptr, 1, vr, n);
}
lapack_int Geev(char jobvr, lapack_int n, C64 *a, C64 *w, C64 *vr) {
  return LAPACKE_cgeev(LAPACK_ROW_MAJOR, 'N', jobvr, n, a, n, w, nullptr, 1, vr, n);
}
lapack_int Geev(char jobvr, lapack_int n, C128 *a, C128 *w, C128 *vr) {
  return LAPACKE_zgeev(LAPACK_ROW_MAJOR, 'N', jobvr, n, a, n, w, nullptr, 1, vr, n);
}

template <typename T>
struct RealOf {
  using type = T;
};
template <typename T>
struct RealOf<std::complex<T>> {
  using type = T;
};

// Calls fn(T{}) with T the C++ type of a LAPACK dtype.
template <typename Fn>
absl::Status DispatchLapack(DType dtype, const char *what, Fn &&fn) {
  switch (dtype) {
    case DType::kFloat32:
      return fn(float{});
    case DType::kFloat64:
      return fn(double{});
    case DType::kComplex64:
      return fn(C64{});
    case DType::kComplex128:
      return fn(C128{});
    default:
      return TypeError(absl::StrCat(what, ": unsupported dtype ", DTypeName(dtype)));
  }
}

absl::Status CheckSize(int64_t v, const char *what) {
  if (v > INT32_MAX) return ValueError(absl::StrCat(what, ": matrix too large for LAPACK"));
  return absl::OkStatus();
}

// LAPACKE returns negative codes for bad arguments and out of memory: bugs
// or exhaustion, not properties of the matrix.
absl::Status ArgumentError(lapack_int info, const char *what) {
  if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR) {
    return OutOfMemoryError(absl::StrCat(what, ": out of memory for LAPACK workspace"));
  }
  return absl::InternalError(absl::StrCat(what, ": LAPACK argument error ", info));
}

template <typename T>
T *Mat(const View &v, int64_t i, int64_t elems) {
  return reinterpret_cast<T *>(v.data()) + i * elems;
}

}  // namespace

absl::Status CpuLuFactor(const View &a, const View &pivots, const View &info) {
  const int64_t batch = a.shape[0], n = a.shape[1];
  ARRAYD_RETURN_IF_ERROR(CheckSize(n, "LU factorization"));
  return DispatchLapack(a.dtype, "LU factorization", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    for (int64_t i = 0; i < batch; ++i) {
      lapack_int r = 0;
      if (n > 0) {
        r = Getrf(static_cast<lapack_int>(n), Mat<T>(a, i, n * n), Mat<lapack_int>(pivots, i, n));
      }
      if (r < 0) return ArgumentError(r, "getrf");
      Mat<int32_t>(info, i, 1)[0] = r;
    }
    return absl::OkStatus();
  });
}

absl::Status CpuLuSolve(const View &lu, const View &pivots, const View &b) {
  const int64_t batch = lu.shape[0], n = lu.shape[1], k = b.shape[2];
  ARRAYD_RETURN_IF_ERROR(CheckSize(n * std::max<int64_t>(k, 1), "LU solve"));
  if (n == 0 || k == 0) return absl::OkStatus();
  return DispatchLapack(lu.dtype, "LU solve", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    for (int64_t i = 0; i < batch; ++i) {
      lapack_int r =
          Getrs(static_cast<lapack_int>(n), static_cast<lapack_int>(k), Mat<T>(lu, i, n * n),
                Mat<lapack_int>(pivots, i, n), Mat<T>(b, i, n * k));
      if (r < 0) return ArgumentError(r, "getrs");
    }
    return absl::OkStatus();
  });
}

absl::Status CpuCholesky(const View &a, const View &info) {
  const int64_t batch = a.shape[0], n = a.shape[1];
  ARRAYD_RETURN_IF_ERROR(CheckSize(n * n, "Cholesky"));
  return DispatchLapack(a.dtype, "Cholesky", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    for (int64_t i = 0; i < batch; ++i) {
      T *m = Mat<T>(a, i, n * n);
      lapack_int r = n > 0 ? Potrf(static_cast<lapack_int>(n), m) : 0;
      if (r < 0) return ArgumentError(r, "potrf");
      Mat<int32_t>(info, i, 1)[0] = r;
      for (int64_t row = 0; row < n; ++row) {
        for (int64_t col = row + 1; col < n; ++col) m[row * n + col] = T(0);
      }
    }
    return absl::OkStatus();
  });
}

absl::Status CpuQr(const View &a, const View &q, const View &r) {
  const int64_t batch = a.shape[0], m = a.shape[1], n = a.shape[2];
  const int64_t kq = q.shape[2], kr = r.shape[1], kmin = std::min(m, n);
  ARRAYD_RETURN_IF_ERROR(CheckSize(m * std::max(n, m), "QR"));
  return DispatchLapack(a.dtype, "QR", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    std::vector<T> work(static_cast<size_t>(m * n)),
        tau(static_cast<size_t>(std::max<int64_t>(kmin, 1)));
    for (int64_t i = 0; i < batch; ++i) {
      std::memcpy(work.data(), Mat<T>(a, i, m * n), sizeof(T) * m * n);
      if (kmin > 0) {
        lapack_int info =
            Geqrf(static_cast<lapack_int>(m), static_cast<lapack_int>(n), work.data(), tau.data());
        if (info < 0) return ArgumentError(info, "geqrf");
      }
      // r: the upper triangle of the first kr rows (rows past min(m, n) are
      // zero).
      T *pr = Mat<T>(r, i, kr * n);
      for (int64_t row = 0; row < kr; ++row) {
        for (int64_t col = 0; col < n; ++col) {
          pr[row * n + col] = (row < m && col >= row) ? work[row * n + col] : T(0);
        }
      }
      // q (m, kq): the reflectors below the diagonal, expanded.
      T *pq = Mat<T>(q, i, m * kq);
      for (int64_t row = 0; row < m; ++row) {
        for (int64_t col = 0; col < kq; ++col) {
          pq[row * kq + col] = col < kmin ? work[row * n + col] : T(0);
        }
      }
      if (m > 0 && kq > 0) {
        lapack_int info = Orgqr(static_cast<lapack_int>(m), static_cast<lapack_int>(kq),
                                static_cast<lapack_int>(kmin), pq, tau.data());
        if (info < 0) return ArgumentError(info, "orgqr");
      }
    }
    return absl::OkStatus();
  });
}

absl::Status CpuSvd(const View &a, const View &s, const View *u, const View *vh, const View &info) {
  const int64_t batch = a.shape[0], m = a.shape[1], n = a.shape[2], k = std::min(m, n);
  ARRAYD_RETURN_IF_ERROR(CheckSize(std::max(m, n) * std::max(m, n), "SVD"));
  const bool uv = u != nullptr && vh != nullptr;
  const bool full = uv && u->shape[2] == m && m != k;
  const bool full_v = uv && vh->shape[1] == n && n != k;
  const char jobz = !uv ? 'N' : (full || full_v) ? 'A' : 'S';
  return DispatchLapack(a.dtype, "SVD", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    using R = typename RealOf<T>::type;
    std::vector<T> work(static_cast<size_t>(m * n));
    T dummy[1];
    for (int64_t i = 0; i < batch; ++i) {
      std::memcpy(work.data(), Mat<T>(a, i, m * n), sizeof(T) * m * n);
      const int64_t ucols = uv ? u->shape[2] : 1, vrows = uv ? vh->shape[1] : 1;
      lapack_int r = 0;
      if (k > 0) {
        r = Gesdd(jobz, static_cast<lapack_int>(m), static_cast<lapack_int>(n), work.data(),
                  Mat<R>(s, i, k), uv ? Mat<T>(*u, i, m * ucols) : dummy,
                  static_cast<lapack_int>(uv ? ucols : 1), uv ? Mat<T>(*vh, i, vrows * n) : dummy,
                  static_cast<lapack_int>(n));
        if (r < 0) return ArgumentError(r, "gesdd");
      } else if (uv) {
        // An empty matrix: identity factors, as NumPy gives.
        T *pu = Mat<T>(*u, i, m * ucols);
        for (int64_t x = 0; x < m * ucols; ++x) pu[x] = T(x / ucols == x % ucols ? 1 : 0);
        T *pv = Mat<T>(*vh, i, vrows * n);
        for (int64_t x = 0; x < vrows * n; ++x) pv[x] = T(x / n == x % n ? 1 : 0);
      }
      Mat<int32_t>(info, i, 1)[0] = r;
    }
    return absl::OkStatus();
  });
}

absl::Status CpuEigh(const View &a, const View &w, const View *v, const View &info) {
  const int64_t batch = a.shape[0], n = a.shape[1];
  ARRAYD_RETURN_IF_ERROR(CheckSize(n * n, "eigh"));
  return DispatchLapack(a.dtype, "eigh", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    using R = typename RealOf<T>::type;
    std::vector<T> work(v == nullptr ? static_cast<size_t>(n * n) : 0);
    for (int64_t i = 0; i < batch; ++i) {
      T *m = v != nullptr ? Mat<T>(*v, i, n * n) : work.data();
      std::memcpy(m, Mat<T>(a, i, n * n), sizeof(T) * n * n);
      lapack_int r = 0;
      if (n > 0) {
        r = Syevd(v != nullptr ? 'V' : 'N', static_cast<lapack_int>(n), m, Mat<R>(w, i, n));
      }
      if (r < 0) return ArgumentError(r, "syevd");
      Mat<int32_t>(info, i, 1)[0] = r;
    }
    return absl::OkStatus();
  });
}

absl::Status CpuEig(const View &a, const View &w, const View *v, const View &info) {
  const int64_t batch = a.shape[0], n = a.shape[1];
  ARRAYD_RETURN_IF_ERROR(CheckSize(n * n, "eig"));
  const char jobvr = v != nullptr ? 'V' : 'N';
  const lapack_int ln = static_cast<lapack_int>(n);
  return DispatchLapack(a.dtype, "eig", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    using R = typename RealOf<T>::type;
    using C = std::complex<R>;
    for (int64_t i = 0; i < batch; ++i) {
      T *m = Mat<T>(a, i, n * n);
      for (int64_t k = 0; k < n * n; ++k) {  // as numpy.linalg.eig checks
        if (!std::isfinite(std::real(m[k])) || !std::isfinite(std::imag(m[k]))) {
          return LinAlgError("Array must not contain infs or NaNs");
        }
      }
      C *wi_out = Mat<C>(w, i, n);
      C *v_out = v != nullptr ? Mat<C>(*v, i, n * n) : nullptr;
      lapack_int r = 0;
      if constexpr (std::is_same_v<T, C>) {
        if (n > 0) r = Geev(jobvr, ln, m, wi_out, v_out != nullptr ? v_out : m);
      } else {
        // Real geev: complex pairs come as (wr, +wi), (wr, -wi) with their
        // vector's real and imaginary parts in columns j and j + 1.
        std::vector<R> wr(n), wim(n), vr(v != nullptr ? n * n : 1);
        if (n > 0) r = Geev(jobvr, ln, m, wr.data(), wim.data(), vr.data());
        for (int64_t j = 0; j < n; ++j) wi_out[j] = C(wr[j], wim[j]);
        if (v_out != nullptr && r == 0) {
          for (int64_t j = 0; j < n; ++j) {
            const bool pair = wim[j] != 0 && j + 1 < n;
            for (int64_t row = 0; row < n; ++row) {
              const R re = vr[row * n + j], im = pair ? vr[row * n + j + 1] : 0;
              v_out[row * n + j] = C(re, im);
              if (pair) v_out[row * n + j + 1] = C(re, -im);
            }
            if (pair) ++j;
          }
        }
      }
      if (r < 0) return ArgumentError(r, "geev");
      Mat<int32_t>(info, i, 1)[0] = r;
    }
    return absl::OkStatus();
  });
}

}  // namespace cpu
}  // namespace arrayd
