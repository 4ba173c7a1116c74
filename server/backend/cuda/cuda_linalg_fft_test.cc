// Tests of the CUDA backend's linear algebra (cuSOLVER; eig on the host)
// and FFTs (cuFFT) against the CPU backend where the result is unique, and
// of the defining properties (A = LU, A = QR, A = U S V^H, A V = V W, the
// DFT's definition) checked on the host. They skip when no GPU is visible
// (CudaVsCpu, cuda_vs_cpu_testing.h).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend/cuda/cuda_vs_cpu_testing.h"
#include "common/status.h"
#include "gtest/gtest.h"
#include "kernels/functors.h"
#include "kernels/host_dispatch.h"

namespace arrayd {
namespace cuda {
namespace {

using kernels::DispatchDType;

// =========================================================================
// Linear algebra and FFTs: GPU vs CPU where the result is unique, and the
// defining properties (A = QR, A = U S V^H, ...) checked on the host.
// =========================================================================
using Cd = std::complex<double>;

// Row-major (m x k) @ (k x n) of one matrix.
std::vector<Cd> HostMatmul(const Cd* a, const Cd* b, int64_t m, int64_t k, int64_t n) {
  std::vector<Cd> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = 0; p < k; ++p) {
      const Cd x = a[i * k + p];
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += x * b[p * n + j];
    }
  }
  return c;
}

// The conjugate transpose (n x m) of a row-major m x n matrix.
std::vector<Cd> HostAdjoint(const Cd* a, int64_t m, int64_t n) {
  std::vector<Cd> t(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) t[j * m + i] = std::conj(a[i * n + j]);
  }
  return t;
}

std::vector<Cd> HostIdentity(int64_t n) {
  std::vector<Cd> e(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i) e[i * n + i] = 1;
  return e;
}

class CudaVsCpuLinalg : public CudaVsCpu, public testing::WithParamInterface<DType> {
 protected:
  // Values converted to `dtype` (imaginary parts dropped for real dtypes).
  Pair UploadValues(DType dtype, const Shape& shape, const std::vector<Cd>& values) {
    const int item = ItemSize(dtype);
    std::vector<char> bytes(values.size() * static_cast<size_t>(item));
    for (size_t i = 0; i < values.size(); ++i) {
      DispatchDType(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T v = kernels::Cast<T>(kernels::c128(values[i].real(), values[i].imag()));
        std::memcpy(&bytes[i * item], &v, item);
        return 0;
      });
    }
    return Upload(dtype, shape, bytes);
  }

  std::vector<Cd> Values(Stream* s, const View& v) {
    EXPECT_TRUE(s->Synchronize().ok());
    std::vector<char> bytes = Download(s, v);
    const int item = ItemSize(v.dtype);
    std::vector<Cd> out(static_cast<size_t>(v.size()));
    for (size_t i = 0; i < out.size(); ++i) {
      DispatchDType(v.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T x;
        std::memcpy(&x, &bytes[i * item], item);
        kernels::c128 c = kernels::Cast<kernels::c128>(x);
        out[i] = Cd(c.re, c.im);
        return 0;
      });
    }
    return out;
  }

  // Uniform in [-1, 1) (both parts for complex dtypes); continuous values,
  // so that LU's pivots have no ties.
  static std::vector<Cd> RandomValues(DType dtype, int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<Cd> v(static_cast<size_t>(n));
    for (Cd& x : v) {
      const double re = u(rng), im = u(rng);
      x = IsComplex(dtype) ? Cd(re, im) : Cd(re, 0);
    }
    return v;
  }

  // A random Hermitian positive definite batch: B B^H + n I.
  static std::vector<Cd> RandomHpd(DType dtype, int64_t batch, int64_t n, uint64_t seed) {
    std::vector<Cd> b = RandomValues(dtype, batch * n * n, seed), out;
    for (int64_t k = 0; k < batch; ++k) {
      const Cd* bk = &b[k * n * n];
      std::vector<Cd> a = HostMatmul(bk, HostAdjoint(bk, n, n).data(), n, n, n);
      for (int64_t i = 0; i < n; ++i) a[i * n + i] += static_cast<double>(n);
      out.insert(out.end(), a.begin(), a.end());
    }
    return out;
  }

  // A random Hermitian batch: (B + B^H) / 2.
  static std::vector<Cd> RandomHermitian(DType dtype, int64_t batch, int64_t n, uint64_t seed) {
    std::vector<Cd> b = RandomValues(dtype, batch * n * n, seed), out(b.size());
    for (int64_t k = 0; k < batch; ++k) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          out[k * n * n + i * n + j] =
              (b[k * n * n + i * n + j] + std::conj(b[k * n * n + j * n + i])) / 2.0;
        }
      }
    }
    return out;
  }

  // Relative tolerance of the dtype's precision for small factorizations.
  static double Tol(DType t) {
    return (t == DType::kFloat32 || t == DType::kComplex64) ? 1e-3 : 1e-9;
  }

  // max |want - got| <= tol * max(1, max |want|).
  static void ExpectClose(const std::vector<Cd>& want, const std::vector<Cd>& got, double tol,
                          const std::string& what) {
    ASSERT_EQ(want.size(), got.size()) << what;
    double scale = 1, worst = 0;
    size_t at = 0;
    for (const Cd& w : want) scale = std::max(scale, std::abs(w));
    for (size_t i = 0; i < want.size(); ++i) {
      const double d = std::abs(want[i] - got[i]);
      if (!(d <= worst)) {  // NaN counts as worst
        worst = d;
        at = i;
      }
    }
    EXPECT_TRUE(worst <= tol * scale)
        << what << ": element " << at << " want " << want[at] << " got " << got[at]
        << " (max error " << worst << ", allowed " << tol * scale << ")";
  }

  void ExpectPairClose(const Pair& p, double tol, const std::string& what) {
    ExpectClose(Values(cs_, p.c), Values(gs_, p.g), tol, what);
  }

  // A matrix of a batch (row-major rows x cols) out of host values.
  static const Cd* Mat(const std::vector<Cd>& v, int64_t b, int64_t rows, int64_t cols) {
    return v.data() + b * rows * cols;
  }
};

TEST_P(CudaVsCpuLinalg, LuFactorAndSolve) {
  const DType t = GetParam();
  struct Case {
    int64_t batch, n, k;
  };
  for (const Case& c : std::vector<Case>{{1, 1, 1}, {2, 3, 2}, {3, 17, 5}, {2, 64, 3}, {0, 4, 2}}) {
    const std::string what = absl::StrCat(DTypeName(t), " batch ", c.batch, " n ", c.n);
    const std::vector<Cd> a_host = RandomValues(t, c.batch * c.n * c.n, 61 + c.n);
    Pair a = UploadValues(t, {c.batch, c.n, c.n}, a_host);
    Pair piv = Output(DType::kInt32, {c.batch, c.n});
    Pair info = Output(DType::kInt32, {c.batch});
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->LuFactor(cpu ? a.c : a.g, cpu ? piv.c : piv.g, cpu ? info.c : info.g);
        },
        "LuFactor " + what);
    ExpectPairClose(a, Tol(t), "LU factors " + what);
    ExpectSame(piv, "LU pivots " + what);
    ExpectSame(info, "LU info " + what);
    for (const Cd& i : Values(gs_, info.g)) EXPECT_EQ(i, Cd(0)) << what;

    const std::vector<Cd> b_host = RandomValues(t, c.batch * c.n * c.k, 71 + c.n);
    Pair b = UploadValues(t, {c.batch, c.n, c.k}, b_host);
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->LuSolve(cpu ? a.c : a.g, cpu ? piv.c : piv.g, cpu ? b.c : b.g);
        },
        "LuSolve " + what);
    ExpectPairClose(b, Tol(t) * c.n, "LU solve " + what);
    // A X = B, independently of the CPU backend.
    const std::vector<Cd> x = Values(gs_, b.g);
    for (int64_t k = 0; k < c.batch; ++k) {
      ExpectClose(std::vector<Cd>(Mat(b_host, k, c.n, c.k), Mat(b_host, k, c.n, c.k) + c.n * c.k),
                  HostMatmul(Mat(a_host, k, c.n, c.n), Mat(x, k, c.n, c.k), c.n, c.n, c.k),
                  Tol(t) * c.n * 10, "A X = B " + what);
    }
  }
}

TEST_P(CudaVsCpuLinalg, LuFactorOfSingularMatricesReportsInfo) {
  const DType t = GetParam();
  const int64_t n = 4;
  std::vector<Cd> a_host = RandomValues(t, 3 * n * n, 81);
  for (int64_t i = 0; i < n; ++i) a_host[n * n + i * n + 2] = 0;  // matrix 1: column 2 zero
  for (int64_t i = 0; i < n * n; ++i) a_host[2 * n * n + i] = 0;  // matrix 2: zero
  Pair a = UploadValues(t, {3, n, n}, a_host);
  Pair piv = Output(DType::kInt32, {3, n});
  Pair info = Output(DType::kInt32, {3});
  Both(
      [&](Stream* s, const View*) {
        const bool cpu = s == cs_;
        return s->LuFactor(cpu ? a.c : a.g, cpu ? piv.c : piv.g, cpu ? info.c : info.g);
      },
      "LuFactor singular");
  // LAPACK reports the first zero pivot (3 and 1 here); NumPy needs only
  // info > 0, which is what both backends must agree on.
  const std::vector<Cd> got = Values(gs_, info.g), want = Values(cs_, info.c);
  EXPECT_EQ(got[0], Cd(0)) << DTypeName(t);
  EXPECT_GT(got[1].real(), 0) << DTypeName(t);
  EXPECT_GT(got[2].real(), 0) << DTypeName(t);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(got[i] == Cd(0), want[i] == Cd(0)) << "matrix " << i;
  EXPECT_EQ(want[1], Cd(3)) << "CPU (LAPACK) info of a zero column 2";
}

TEST_P(CudaVsCpuLinalg, Cholesky) {
  const DType t = GetParam();
  for (int64_t n : {1, 4, 33}) {
    const int64_t batch = 2;
    const std::string what = absl::StrCat(DTypeName(t), " n ", n);
    const std::vector<Cd> a_host = RandomHpd(t, batch, n, 91 + n);
    Pair a = UploadValues(t, {batch, n, n}, a_host);
    Pair info = Output(DType::kInt32, {batch});
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Cholesky(cpu ? a.c : a.g, cpu ? info.c : info.g);
        },
        "Cholesky " + what);
    ExpectPairClose(a, Tol(t), "Cholesky " + what);
    ExpectSame(info, "Cholesky info " + what);

    // Only the lower triangle is read: garbage above it changes nothing,
    // and L's strict upper triangle is exactly zero.
    std::vector<Cd> garbage = a_host;
    for (int64_t k = 0; k < batch; ++k) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i + 1; j < n; ++j) garbage[k * n * n + i * n + j] = Cd(1e3, -7);
      }
    }
    Pair g = UploadValues(t, {batch, n, n}, garbage);
    ASSERT_TRUE(gs_->Cholesky(g.g, info.g).ok());
    const std::vector<Cd> l = Values(gs_, g.g);
    for (int64_t k = 0; k < batch; ++k) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i + 1; j < n; ++j) {
          ASSERT_EQ(l[k * n * n + i * n + j], Cd(0)) << what << " L[" << i << "][" << j << "]";
        }
      }
      const Cd* lk = Mat(l, k, n, n);
      ExpectClose(std::vector<Cd>(Mat(a_host, k, n, n), Mat(a_host, k, n, n) + n * n),
                  HostMatmul(lk, HostAdjoint(lk, n, n).data(), n, n, n), Tol(t),
                  "L L^H = A " + what);
    }
  }
}

TEST_P(CudaVsCpuLinalg, CholeskyOfNotPositiveDefiniteReportsInfo) {
  const DType t = GetParam();
  const int64_t n = 4;
  std::vector<Cd> a_host = RandomHpd(t, 2, n, 101);
  for (int64_t i = 0; i < n * n; ++i) a_host[n * n + i] = 0;
  for (int64_t i = 0; i < n; ++i) a_host[n * n + i * n + i] = i == 1 ? -1 : 1;  // diag(1, -1, 1, 1)
  Pair a = UploadValues(t, {2, n, n}, a_host);
  Pair info = Output(DType::kInt32, {2});
  Both(
      [&](Stream* s, const View*) {
        const bool cpu = s == cs_;
        return s->Cholesky(cpu ? a.c : a.g, cpu ? info.c : info.g);
      },
      "Cholesky not PD");
  // LAPACK reports the order of the first leading minor that is not
  // positive definite (2); NumPy needs only info > 0.
  const std::vector<Cd> got = Values(gs_, info.g), want = Values(cs_, info.c);
  EXPECT_EQ(got[0], Cd(0)) << DTypeName(t);
  EXPECT_GT(got[1].real(), 0) << DTypeName(t);
  EXPECT_EQ(want[0], Cd(0));
  EXPECT_EQ(want[1], Cd(2)) << "CPU (LAPACK) info";
}

TEST_P(CudaVsCpuLinalg, Qr) {
  const DType t = GetParam();
  struct Case {
    int64_t batch, m, n;
    bool complete;
  };
  for (const Case& c : std::vector<Case>{{2, 5, 3, true},
                                         {2, 5, 3, false},
                                         {2, 3, 5, true},
                                         {2, 3, 5, false},
                                         {1, 4, 4, false},
                                         {3, 1, 1, true},
                                         {1, 40, 17, true},
                                         {1, 17, 40, false},
                                         {2, 3, 0, true}}) {
    const int64_t mn = std::min(c.m, c.n), k = c.complete ? c.m : mn;
    const std::string what = absl::StrCat(DTypeName(t), " ", c.batch, "x", c.m, "x", c.n,
                                          c.complete ? " complete" : " reduced");
    const std::vector<Cd> a_host = RandomValues(t, c.batch * c.m * c.n, 111 + c.m);
    Pair a = UploadValues(t, {c.batch, c.m, c.n}, a_host);
    Pair q = Output(t, {c.batch, c.m, k});
    Pair r = Output(t, {c.batch, k, c.n});
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Qr(cpu ? a.c : a.g, cpu ? q.c : q.g, cpu ? r.c : r.g);
        },
        "Qr " + what);
    const std::vector<Cd> qg = Values(gs_, q.g), rg = Values(gs_, r.g);
    const std::vector<Cd> qc = Values(cs_, q.c), rc = Values(cs_, r.c);
    // Householder signs may differ between libraries: compare |R| and the
    // moduli of Q's first min(m, n) columns (the rest is any orthonormal
    // completion).
    std::vector<Cd> rg_abs, rc_abs, qg_abs, qc_abs;
    for (size_t i = 0; i < rg.size(); ++i) {
      rg_abs.push_back(std::abs(rg[i]));
      rc_abs.push_back(std::abs(rc[i]));
    }
    for (size_t i = 0; i < qg.size(); ++i) {
      if (static_cast<int64_t>(i) % k >= mn) continue;
      qg_abs.push_back(std::abs(qg[i]));
      qc_abs.push_back(std::abs(qc[i]));
    }
    ExpectClose(rc_abs, rg_abs, Tol(t), "|R| " + what);
    ExpectClose(qc_abs, qg_abs, Tol(t), "|Q| " + what);
    for (int64_t b = 0; b < c.batch; ++b) {
      const Cd* qb = Mat(qg, b, c.m, k);
      const Cd* rb = Mat(rg, b, k, c.n);
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t j = 0; j < std::min(i, c.n); ++j) {
          ASSERT_EQ(rb[i * c.n + j], Cd(0)) << what << " R[" << i << "][" << j << "]";
        }
      }
      ExpectClose(std::vector<Cd>(Mat(a_host, b, c.m, c.n), Mat(a_host, b, c.m, c.n) + c.m * c.n),
                  HostMatmul(qb, rb, c.m, k, c.n), Tol(t), "QR = A " + what);
      ExpectClose(HostIdentity(k), HostMatmul(HostAdjoint(qb, c.m, k).data(), qb, k, c.m, k),
                  Tol(t), "Q^H Q = I " + what);
    }
  }
}

TEST_P(CudaVsCpuLinalg, Svd) {
  const DType t = GetParam();
  const DType rt = RealDType(t);
  struct Case {
    int64_t batch, m, n;
    bool full, vectors;
  };
  for (const Case& c : std::vector<Case>{{2, 5, 3, false, true},
                                         {2, 5, 3, true, true},
                                         {2, 3, 5, false, true},
                                         {2, 3, 5, true, true},
                                         {1, 4, 4, true, true},
                                         {2, 6, 4, false, false},
                                         {2, 4, 6, false, false},
                                         {1, 1, 1, true, true},
                                         {1, 30, 20, false, true},
                                         {1, 20, 30, true, true},
                                         {2, 0, 3, true, true}}) {
    const int64_t mn = std::min(c.m, c.n);
    const int64_t ku = c.full ? c.m : mn, kv = c.full ? c.n : mn;
    const std::string what =
        absl::StrCat(DTypeName(t), " ", c.batch, "x", c.m, "x", c.n, c.full ? " full" : " reduced",
                     c.vectors ? "" : " values only");
    const std::vector<Cd> a_host = RandomValues(t, c.batch * c.m * c.n, 121 + c.m * 7 + c.n);
    Pair a = UploadValues(t, {c.batch, c.m, c.n}, a_host);
    Pair sv = Output(rt, {c.batch, mn});
    Pair u = Output(t, {c.batch, c.m, ku});
    Pair vh = Output(t, {c.batch, kv, c.n});
    Pair info = Output(DType::kInt32, {c.batch});
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Svd(cpu ? a.c : a.g, cpu ? sv.c : sv.g,
                        c.vectors ? (cpu ? &u.c : &u.g) : nullptr,
                        c.vectors ? (cpu ? &vh.c : &vh.g) : nullptr, cpu ? info.c : info.g);
        },
        "Svd " + what);
    ExpectPairClose(sv, Tol(t), "singular values " + what);
    ExpectSame(info, "SVD info " + what);
    const std::vector<Cd> s = Values(gs_, sv.g);
    for (int64_t b = 0; b < c.batch; ++b) {
      for (int64_t i = 0; i < mn; ++i) {
        EXPECT_GE(s[b * mn + i].real(), 0) << what;
        if (i > 0) {
          EXPECT_LE(s[b * mn + i].real(), s[b * mn + i - 1].real()) << what;
        }
      }
    }
    if (!c.vectors) continue;
    const std::vector<Cd> ug = Values(gs_, u.g), vg = Values(gs_, vh.g);
    for (int64_t b = 0; b < c.batch; ++b) {
      const Cd* ub = Mat(ug, b, c.m, ku);
      const Cd* vb = Mat(vg, b, kv, c.n);
      // u[:, :mn] diag(s) vh[:mn, :] = A
      std::vector<Cd> us(static_cast<size_t>(c.m * mn)), vs(static_cast<size_t>(mn * c.n));
      for (int64_t i = 0; i < c.m; ++i) {
        for (int64_t j = 0; j < mn; ++j) us[i * mn + j] = ub[i * ku + j] * s[b * mn + j];
      }
      for (int64_t i = 0; i < mn * c.n; ++i) vs[i] = vb[i];
      ExpectClose(std::vector<Cd>(Mat(a_host, b, c.m, c.n), Mat(a_host, b, c.m, c.n) + c.m * c.n),
                  HostMatmul(us.data(), vs.data(), c.m, mn, c.n), Tol(t), "U S Vh = A " + what);
      ExpectClose(HostIdentity(ku), HostMatmul(HostAdjoint(ub, c.m, ku).data(), ub, ku, c.m, ku),
                  Tol(t), "U^H U = I " + what);
      ExpectClose(HostIdentity(kv), HostMatmul(vb, HostAdjoint(vb, kv, c.n).data(), kv, c.n, kv),
                  Tol(t), "Vh Vh^H = I " + what);
    }
  }
}

// The general eigenproblem: the CUDA backend runs the CPU's geev on a host
// copy, so both give the same values.
TEST_P(CudaVsCpuLinalg, Eig) {
  const DType t = GetParam();
  const DType ct = RealDType(t) == DType::kFloat32 ? DType::kComplex64 : DType::kComplex128;
  for (int64_t n : {1, 6}) {
    const int64_t batch = 2;
    const std::string what = absl::StrCat(DTypeName(t), " n ", n);
    const std::vector<Cd> a_host = RandomHermitian(t, batch, n, 151 + n);
    Pair a = UploadValues(t, {batch, n, n}, a_host);
    Pair w = Output(ct, {batch, n});
    Pair v = Output(ct, {batch, n, n});
    Pair info = Output(DType::kInt32, {batch});
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Eig(cpu ? a.c : a.g, cpu ? w.c : w.g, cpu ? &v.c : &v.g, cpu ? info.c : info.g);
        },
        "Eig " + what);
    ExpectPairClose(w, Tol(t), "eig values " + what);
    ExpectPairClose(v, Tol(t), "eig vectors " + what);
    ExpectSame(info, "eig info " + what);
  }
}

TEST_P(CudaVsCpuLinalg, Eigh) {
  const DType t = GetParam();
  const DType rt = RealDType(t);
  for (int64_t n : {1, 5, 32}) {
    for (bool vectors : {true, false}) {
      const int64_t batch = 2;
      const std::string what = absl::StrCat(DTypeName(t), " n ", n, vectors ? "" : " values only");
      const std::vector<Cd> a_host = RandomHermitian(t, batch, n, 131 + n);
      Pair a = UploadValues(t, {batch, n, n}, a_host);
      const std::vector<Cd> a_before = Values(gs_, a.g);  // rounded to the dtype
      Pair w = Output(rt, {batch, n});
      Pair v = Output(t, {batch, n, n});
      Pair info = Output(DType::kInt32, {batch});
      Both(
          [&](Stream* s, const View*) {
            const bool cpu = s == cs_;
            return s->Eigh(cpu ? a.c : a.g, cpu ? w.c : w.g,
                           vectors ? (cpu ? &v.c : &v.g) : nullptr, cpu ? info.c : info.g);
          },
          "Eigh " + what);
      ExpectPairClose(w, Tol(t), "eigenvalues " + what);
      ExpectSame(info, "eigh info " + what);
      const std::vector<Cd> wg = Values(gs_, w.g);
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t i = 1; i < n; ++i) {
          EXPECT_LE(wg[b * n + i - 1].real(), wg[b * n + i].real()) << what;
        }
      }
      // The input is not changed.
      ExpectClose(a_before, Values(gs_, a.g), 0, "eigh input " + what);
      // Only the lower triangle is read.
      std::vector<Cd> garbage = a_host;
      for (int64_t k = 0; k < batch; ++k) {
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = i + 1; j < n; ++j) garbage[k * n * n + i * n + j] = Cd(50, 3);
        }
      }
      Pair g = UploadValues(t, {batch, n, n}, garbage);
      Pair wg2 = Output(rt, {batch, n});
      ASSERT_TRUE(gs_->Eigh(g.g, wg2.g, nullptr, info.g).ok());
      ExpectClose(wg, Values(gs_, wg2.g), Tol(t), "eigenvalues from the lower triangle " + what);
      if (!vectors) continue;
      const std::vector<Cd> vg = Values(gs_, v.g);
      for (int64_t b = 0; b < batch; ++b) {
        const Cd* vb = Mat(vg, b, n, n);
        std::vector<Cd> vw(vb, vb + n * n);
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < n; ++j) vw[i * n + j] *= wg[b * n + j].real();
        }
        ExpectClose(vw, HostMatmul(Mat(a_host, b, n, n), vb, n, n, n), Tol(t), "A v = v w " + what);
        ExpectClose(HostIdentity(n), HostMatmul(HostAdjoint(vb, n, n).data(), vb, n, n, n), Tol(t),
                    "V^H V = I " + what);
      }
    }
  }
}

TEST_F(CudaVsCpu, LinalgOfIntegersIsTypeError) {
  View a = MakeContiguousView(*gs_->Allocate(64), DType::kInt32, {1, 4, 4});
  View piv = MakeContiguousView(*gs_->Allocate(64), DType::kInt32, {1, 4});
  View info = MakeContiguousView(*gs_->Allocate(64), DType::kInt32, {1});
  absl::Status s = gs_->LuFactor(a, piv, info);
  EXPECT_EQ(ErrorKind(s), "TypeError") << s;
  EXPECT_EQ(ErrorKind(gs_->Cholesky(a, info)), "TypeError");
}

INSTANTIATE_TEST_SUITE_P(LinalgDTypes, CudaVsCpuLinalg,
                         testing::Values(DType::kFloat32, DType::kFloat64, DType::kComplex64,
                                         DType::kComplex128),
                         DTypeParamName);

// ---- FFTs -----------------------------------------------------------------

// Unnormalized DFT of one line: sign -1 forward, +1 inverse.
std::vector<Cd> HostDft(const Cd* x, int64_t n, int sign) {
  std::vector<Cd> y(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    Cd acc = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double ang =
          sign * 2 * M_PI * static_cast<double>((j * k) % n) / static_cast<double>(n);
      acc += x[j] * Cd(std::cos(ang), std::sin(ang));
    }
    y[k] = acc;
  }
  return y;
}

// Parameterized by the real dtype; complex transforms use its complex one.
class CudaVsCpuFft : public CudaVsCpuLinalg {
 protected:
  DType Real() const { return GetParam(); }
  DType Complex() const {
    return GetParam() == DType::kFloat32 ? DType::kComplex64 : DType::kComplex128;
  }
  double FftTol() const { return GetParam() == DType::kFloat32 ? 2e-5 : 1e-12; }
};

std::vector<int64_t> FftLengths() { return {1, 2, 3, 8, 12, 17, 97, 128, 1000, 1009, 4096}; }

TEST_P(CudaVsCpuFft, ComplexForwardAndInverse) {
  const DType ct = Complex();
  for (int64_t n : FftLengths()) {
    for (const Shape& lead : std::vector<Shape>{{3}, {2, 2}, {1}}) {
      Shape shape = lead;
      shape.push_back(n);
      const int64_t lines = ShapeSize(shape) / n;
      const std::vector<Cd> x = RandomValues(ct, ShapeSize(shape), 141 + n);
      Pair in = UploadValues(ct, shape, x);
      const std::vector<Cd> x_before = Values(gs_, in.g);  // rounded to the dtype
      for (bool inverse : {false, true}) {
        const std::string what = absl::StrCat(DTypeName(ct), " n ", n, " shape ",
                                              ShapeString(shape), inverse ? " inverse" : "");
        Pair out = Output(ct, shape);
        Both(
            [&](Stream* s, const View*) {
              const bool cpu = s == cs_;
              return s->Fft(cpu ? in.c : in.g, cpu ? out.c : out.g, 1, inverse);
            },
            "Fft " + what);
        ExpectPairClose(out, FftTol() * std::log2(2.0 * n), "FFT " + what);
        if (n <= 1009 && lead.size() == 1 && lead[0] == 3) {
          const std::vector<Cd> got = Values(gs_, out.g);
          for (int64_t b = 0; b < lines; ++b) {
            ExpectClose(HostDft(&x[b * n], n, inverse ? 1 : -1),
                        std::vector<Cd>(&got[b * n], &got[b * n] + n),
                        FftTol() * std::log2(2.0 * n) * 4, "naive DFT " + what);
          }
        }
        // Out of place: the input is unchanged.
        ExpectClose(x_before, Values(gs_, in.g), 0, "FFT input " + what);
      }
      // In place (in and out the same view).
      Pair inplace = UploadValues(ct, shape, x);
      Both(
          [&](Stream* s, const View*) {
            const bool cpu = s == cs_;
            return s->Fft(cpu ? inplace.c : inplace.g, cpu ? inplace.c : inplace.g, 1, false);
          },
          "in-place Fft");
      ExpectPairClose(inplace, FftTol() * std::log2(2.0 * n), absl::StrCat("in-place FFT n ", n));
    }
  }
}

// Transforms over the last two and three axes (one cuFFT plan, one FFTW
// plan) against each other; out of place, the input stays as it was.
TEST_P(CudaVsCpuFft, MultiAxisComplexAndReal) {
  const DType rt = Real(), ct = Complex();
  for (const Shape& shape :
       std::vector<Shape>{{3, 8, 12}, {2, 17, 97}, {1, 64, 64}, {2, 4, 6, 10}, {5, 1, 7}}) {
    for (int rank : {2, 3}) {
      if (rank + 1 > static_cast<int>(shape.size())) continue;
      const std::string what = absl::StrCat(ShapeString(shape), " rank ", rank);
      int64_t points = 1;
      for (int i = 0; i < rank; ++i) points *= shape[shape.size() - 1 - i];
      const double tol = FftTol() * std::log2(2.0 * static_cast<double>(points));
      const std::vector<Cd> x = RandomValues(ct, ShapeSize(shape), 171 + rank);
      Pair in = UploadValues(ct, shape, x);
      const std::vector<Cd> x_before = Values(gs_, in.g);
      for (bool inverse : {false, true}) {
        Pair out = Output(ct, shape);
        Both(
            [&](Stream* s, const View*) {
              const bool cpu = s == cs_;
              return s->Fft(cpu ? in.c : in.g, cpu ? out.c : out.g, rank, inverse);
            },
            "Fft " + what);
        ExpectPairClose(out, tol, absl::StrCat("FFT ", what, inverse ? " inverse" : ""));
        ExpectClose(x_before, Values(gs_, in.g), 0, "FFT input " + what);
      }
      Shape half = shape;
      half.back() = shape.back() / 2 + 1;
      const std::vector<Cd> r = RandomValues(rt, ShapeSize(shape), 181 + rank);
      Pair rin = UploadValues(rt, shape, r);
      const std::vector<Cd> r_before = Values(gs_, rin.g);
      Pair spec = Output(ct, half);
      Both(
          [&](Stream* s, const View*) {
            const bool cpu = s == cs_;
            return s->Rfft(cpu ? rin.c : rin.g, cpu ? spec.c : spec.g, rank);
          },
          "Rfft " + what);
      ExpectPairClose(spec, tol, "rfft " + what);
      ExpectClose(r_before, Values(gs_, rin.g), 0, "rfft input " + what);
    }
  }
}

TEST_P(CudaVsCpuFft, RealForwardAndInverse) {
  const DType rt = Real(), ct = Complex();
  for (int64_t n : FftLengths()) {
    const int64_t half = n / 2 + 1, lines = 3;
    const std::string what = absl::StrCat(DTypeName(rt), " n ", n);
    const std::vector<Cd> x = RandomValues(rt, lines * n, 151 + n);
    Pair in = UploadValues(rt, {lines, n}, x);
    const std::vector<Cd> x_before = Values(gs_, in.g);  // rounded to the dtype
    Pair spec = Output(ct, {lines, half});
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Rfft(cpu ? in.c : in.g, cpu ? spec.c : spec.g, 1);
        },
        "Rfft " + what);
    ExpectPairClose(spec, FftTol() * std::log2(2.0 * n), "rfft " + what);
    ExpectClose(x_before, Values(gs_, in.g), 0, "rfft input " + what);
    const std::vector<Cd> got = Values(gs_, spec.g);
    for (int64_t b = 0; b < lines && n <= 1009; ++b) {
      std::vector<Cd> full = HostDft(&x[b * n], n, -1);
      full.resize(static_cast<size_t>(half));
      ExpectClose(full, std::vector<Cd>(&got[b * half], &got[b * half] + half),
                  FftTol() * std::log2(2.0 * n) * 4, "naive rfft " + what);
    }

    // Inverse, from a random half spectrum whose imaginary parts at 0 and
    // n/2 must be ignored (as FFTW and pocketfft do), with a norm factor.
    constexpr double kIrfftScale = 0.25;
    const std::vector<Cd> h = RandomValues(ct, lines * half, 161 + n);
    Pair hin = UploadValues(ct, {lines, half}, h);
    const std::vector<Cd> h_before = Values(gs_, hin.g);  // rounded to the dtype
    Pair back = Output(rt, {lines, n});
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Irfft(cpu ? hin.c : hin.g, cpu ? back.c : back.g, kIrfftScale);
        },
        "Irfft " + what);
    ExpectPairClose(back, FftTol() * std::log2(2.0 * n) * 2, "irfft " + what);
    ExpectClose(h_before, Values(gs_, hin.g), 0, "irfft input " + what);
    const std::vector<Cd> xr = Values(gs_, back.g);
    for (int64_t b = 0; b < lines && n <= 1009; ++b) {
      std::vector<Cd> full(static_cast<size_t>(n));
      for (int64_t k = 0; k < half; ++k) {
        Cd v = h[b * half + k];
        if (k == 0 || 2 * k == n) v = v.real();
        full[k] = v;
        if (k > 0 && n - k != k && n - k < n) full[n - k] = std::conj(v);
      }
      std::vector<Cd> want = HostDft(full.data(), n, 1);
      for (Cd& w : want) w *= kIrfftScale;
      ExpectClose(want, std::vector<Cd>(&xr[b * n], &xr[b * n] + n),
                  FftTol() * std::log2(2.0 * n) * 8, "naive irfft " + what);
    }
  }
}

TEST_P(CudaVsCpuFft, EmptyBatchIsANoOp) {
  const DType ct = Complex();
  Pair in = Output(ct, {0, 8});
  Pair out = Output(ct, {0, 8});
  EXPECT_TRUE(gs_->Fft(in.g, out.g, 1, false).ok());
  Pair rin = Output(Real(), {0, 8});
  Pair rout = Output(ct, {0, 5});
  EXPECT_TRUE(gs_->Rfft(rin.g, rout.g, 1).ok());
  EXPECT_TRUE(gs_->Irfft(rout.g, rin.g, 1).ok());
}

INSTANTIATE_TEST_SUITE_P(FftDTypes, CudaVsCpuFft, testing::Values(DType::kFloat32, DType::kFloat64),
                         DTypeParamName);

// One shared plan, used from four streams on four threads at once.
TEST_F(CudaVsCpu, FftPlansSharedByConcurrentStreams) {
  Backends& b = GetBackends();
  const int64_t lines = 64, n = 1000;
  std::vector<kernels::c128> x(static_cast<size_t>(lines * n));
  for (size_t i = 0; i < x.size(); ++i) x[i] = kernels::c128(std::sin(0.1 * i), std::cos(0.37 * i));
  // The reference, on the test's stream.
  View in = MakeContiguousView(*gs_->Allocate(x.size() * 16), DType::kComplex128, {lines, n});
  View ref = MakeContiguousView(*gs_->Allocate(x.size() * 16), DType::kComplex128, {lines, n});
  ASSERT_TRUE(gs_->CopyFromHost(x.data(), in).ok());
  ASSERT_TRUE(gs_->Fft(in, ref, 1, false).ok());
  std::vector<kernels::c128> want(x.size());
  ASSERT_TRUE(gs_->CopyToHost(ref, want.data()).ok());
  std::vector<int> failures(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto stream = b.gpu->CreateStream();
      if (!stream.ok()) {
        failures[t] = 1;
        return;
      }
      Stream* s = stream->get();
      View i = MakeContiguousView(*s->Allocate(x.size() * 16), DType::kComplex128, {lines, n});
      View o = MakeContiguousView(*s->Allocate(x.size() * 16), DType::kComplex128, {lines, n});
      if (!s->CopyFromHost(x.data(), i).ok()) failures[t] = 1;
      for (int it = 0; it < 20; ++it) {
        if (!s->Fft(i, o, 1, false).ok()) failures[t] = 1;
      }
      std::vector<kernels::c128> got(x.size());
      if (!s->CopyToHost(o, got.data()).ok()) failures[t] = 1;
      for (size_t k = 0; k < got.size(); ++k) {
        if (std::abs(got[k].re - want[k].re) > 1e-9 || std::abs(got[k].im - want[k].im) > 1e-9) {
          failures[t] = 1;
          break;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace cuda
}  // namespace arrayd
