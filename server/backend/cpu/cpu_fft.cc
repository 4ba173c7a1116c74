// CPU FFTs: FFTW3 (double and single precision), one plan per call over the
// whole batch (fftw_plan_many_dft). FFTW_ESTIMATE plans are cheap and never
// touch the arrays; FFTW's planner is not thread-safe, so planning and plan
// destruction take a global mutex while execution runs unlocked.
#include <fftw3.h>

#include <climits>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "backend/cpu/cpu_backend.h"
#include "common/status.h"

namespace arrayd {
namespace cpu {
namespace {

absl::Mutex planner_mu;

// The number of values of one transform of lengths n; HalfProduct: of its
// half spectrum (the last length n / 2 + 1).
int Product(const std::vector<int> &n) {
  int p = 1;
  for (int d : n) p *= d;
  return p;
}
int HalfProduct(const std::vector<int> &n) {
  int p = n.back() / 2 + 1;
  for (size_t i = 0; i + 1 < n.size(); ++i) p *= n[i];
  return p;
}

// FFTW's plan types and calls for one precision.
struct Double {
  using Real = double;
  using Complex = fftw_complex;
  using Plan = fftw_plan;
  static Plan C2c(const std::vector<int> &n, int howmany, Complex *in, Complex *out, int sign) {
    const int size = Product(n);
    return fftw_plan_many_dft(static_cast<int>(n.size()), n.data(), howmany, in, nullptr, 1, size, out,
                              nullptr, 1, size, sign, FFTW_ESTIMATE);
  }
  static Plan R2c(const std::vector<int> &n, int howmany, Real *in, Complex *out) {
    return fftw_plan_many_dft_r2c(static_cast<int>(n.size()), n.data(), howmany, in, nullptr, 1,
                                  Product(n), out, nullptr, 1, HalfProduct(n), FFTW_ESTIMATE);
  }
  static Plan C2r(int n, int howmany, Complex *in, Real *out) {
    return fftw_plan_many_dft_c2r(1, &n, howmany, in, nullptr, 1, n / 2 + 1, out, nullptr, 1, n,
                                  FFTW_ESTIMATE);
  }
  static void Execute(Plan p) { fftw_execute(p); }
  static void Destroy(Plan p) { fftw_destroy_plan(p); }
};

struct Single {
  using Real = float;
  using Complex = fftwf_complex;
  using Plan = fftwf_plan;
  static Plan C2c(const std::vector<int> &n, int howmany, Complex *in, Complex *out, int sign) {
    const int size = Product(n);
    return fftwf_plan_many_dft(static_cast<int>(n.size()), n.data(), howmany, in, nullptr, 1, size, out,
                               nullptr, 1, size, sign, FFTW_ESTIMATE);
  }
  static Plan R2c(const std::vector<int> &n, int howmany, Real *in, Complex *out) {
    return fftwf_plan_many_dft_r2c(static_cast<int>(n.size()), n.data(), howmany, in, nullptr, 1,
                                   Product(n), out, nullptr, 1, HalfProduct(n), FFTW_ESTIMATE);
  }
  static Plan C2r(int n, int howmany, Complex *in, Real *out) {
    return fftwf_plan_many_dft_c2r(1, &n, howmany, in, nullptr, 1, n / 2 + 1, out, nullptr, 1, n,
                                   FFTW_ESTIMATE);
  }
  static void Execute(Plan p) { fftwf_execute(p); }
  static void Destroy(Plan p) { fftwf_destroy_plan(p); }
};

// Plans with `make` under the planner lock, runs the plan, destroys it.
template <typename P, typename Make>
absl::Status RunPlan(Make &&make) {
  typename P::Plan plan;
  {
    absl::MutexLock lock(&planner_mu);
    plan = make();
  }
  if (plan == nullptr) return absl::InternalError("FFTW could not plan the transform");
  P::Execute(plan);
  absl::MutexLock lock(&planner_mu);
  P::Destroy(plan);
  return absl::OkStatus();
}

// The batch size and length of a (..., n) array, checked against FFTW's int.
absl::Status BatchAndLength(const View &v, int64_t n, int *batch, int *len) {
  int64_t b = n == 0 ? 0 : v.size() / n;
  if (b > INT_MAX || n > INT_MAX) return ValueError("FFT: array too large for FFTW's plan");
  *batch = static_cast<int>(b);
  *len = static_cast<int>(n);
  return absl::OkStatus();
}

// The lengths of the last `rank` axes of `v` and the number of transforms,
// checked against FFTW's int.
absl::Status BatchAndLengths(const View &v, int rank, std::vector<int> *n, int *batch) {
  if (rank < 1 || v.ndim() < rank) {
    return absl::InternalError(absl::StrCat("FFT: a transform of ", rank, " axes of an array of ",
                                            v.ndim(), " dimensions"));
  }
  int64_t per = 1;
  n->clear();
  for (int i = v.ndim() - rank; i < v.ndim(); ++i) {
    per *= v.shape[i];
    n->push_back(static_cast<int>(v.shape[i]));
  }
  return BatchAndLength(v, per, batch, &rank);
}

}  // namespace

absl::Status CpuFft(const View &in, const View &out, int rank, bool inverse) {
  std::vector<int> n;
  int batch = 0;
  ARRAYD_RETURN_IF_ERROR(BatchAndLengths(in, rank, &n, &batch));
  if (batch == 0) return absl::OkStatus();
  const int sign = inverse ? FFTW_BACKWARD : FFTW_FORWARD;
  if (in.dtype == DType::kComplex128) {
    auto *pi = reinterpret_cast<fftw_complex *>(in.data());
    auto *po = reinterpret_cast<fftw_complex *>(out.data());
    return RunPlan<Double>([&] { return Double::C2c(n, batch, pi, po, sign); });
  }
  if (in.dtype == DType::kComplex64) {
    auto *pi = reinterpret_cast<fftwf_complex *>(in.data());
    auto *po = reinterpret_cast<fftwf_complex *>(out.data());
    return RunPlan<Single>([&] { return Single::C2c(n, batch, pi, po, sign); });
  }
  return TypeError(absl::StrCat("FFT: unsupported dtype ", DTypeName(in.dtype)));
}

absl::Status CpuRfft(const View &in, const View &out, int rank) {
  std::vector<int> n;
  int batch = 0;
  ARRAYD_RETURN_IF_ERROR(BatchAndLengths(in, rank, &n, &batch));
  if (batch == 0) return absl::OkStatus();
  // Out of place, FFTW's r2c preserves its input by default (c2r does not).
  if (in.dtype == DType::kFloat64) {
    auto *pi = reinterpret_cast<double *>(in.data());
    auto *po = reinterpret_cast<fftw_complex *>(out.data());
    return RunPlan<Double>([&] { return Double::R2c(n, batch, pi, po); });
  }
  if (in.dtype == DType::kFloat32) {
    auto *pi = reinterpret_cast<float *>(in.data());
    auto *po = reinterpret_cast<fftwf_complex *>(out.data());
    return RunPlan<Single>([&] { return Single::R2c(n, batch, pi, po); });
  }
  return TypeError(absl::StrCat("rfft: unsupported dtype ", DTypeName(in.dtype)));
}

// The c2r transform of a copy of `in` (c2r overwrites its input) into
// `po`, then times `scale` in T (as NumPy scales the unnormalized result).
template <typename Lib, typename C, typename T>
absl::Status C2rScaled(const View &in, int len, int batch, double scale, T *po) {
  std::vector<C> copy(static_cast<size_t>(in.size()));
  std::memcpy(copy.data(), in.data(), in.nbytes());
  ARRAYD_RETURN_IF_ERROR(RunPlan<Lib>([&] { return Lib::C2r(len, batch, copy.data(), po); }));
  if (scale != 1) {
    const T f = static_cast<T>(scale);
    const int64_t count = static_cast<int64_t>(len) * batch;
    for (int64_t i = 0; i < count; ++i) po[i] *= f;
  }
  return absl::OkStatus();
}

absl::Status CpuIrfft(const View &in, const View &out, double scale) {
  const int64_t n = out.shape.back();
  int batch = 0, len = 0;
  ARRAYD_RETURN_IF_ERROR(BatchAndLength(out, n, &batch, &len));
  if (batch == 0 || len == 0) return absl::OkStatus();
  if (in.dtype == DType::kComplex128) {
    return C2rScaled<Double, fftw_complex>(in, len, batch, scale,
                                           reinterpret_cast<double *>(out.data()));
  }
  if (in.dtype == DType::kComplex64) {
    return C2rScaled<Single, fftwf_complex>(in, len, batch, scale,
                                            reinterpret_cast<float *>(out.data()));
  }
  return TypeError(absl::StrCat("irfft: unsupported dtype ", DTypeName(in.dtype)));
}

}  // namespace cpu
}  // namespace arrayd
