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

// FFTW's plan types and calls for one precision.
struct Double {
  using Real = double;
  using Complex = fftw_complex;
  using Plan = fftw_plan;
  static Plan C2c(int n, int howmany, Complex *in, Complex *out, int sign) {
    return fftw_plan_many_dft(1, &n, howmany, in, nullptr, 1, n, out, nullptr, 1, n, sign,
                              FFTW_ESTIMATE);
  }
  static Plan R2c(int n, int howmany, Real *in, Complex *out) {
    return fftw_plan_many_dft_r2c(1, &n, howmany, in, nullptr, 1, n, out, nullptr, 1, n / 2 + 1,
                                  FFTW_ESTIMATE);
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
  static Plan C2c(int n, int howmany, Complex *in, Complex *out, int sign) {
    return fftwf_plan_many_dft(1, &n, howmany, in, nullptr, 1, n, out, nullptr, 1, n, sign,
                               FFTW_ESTIMATE);
  }
  static Plan R2c(int n, int howmany, Real *in, Complex *out) {
    return fftwf_plan_many_dft_r2c(1, &n, howmany, in, nullptr, 1, n, out, nullptr, 1, n / 2 + 1,
                                   FFTW_ESTIMATE);
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

}  // namespace

absl::Status CpuFft(const View &in, const View &out, bool inverse) {
  const int64_t n = in.ndim() == 0 ? 1 : in.shape.back();
  int batch = 0, len = 0;
  ARRAYD_RETURN_IF_ERROR(BatchAndLength(in, n, &batch, &len));
  if (batch == 0 || len == 0) return absl::OkStatus();
  const int sign = inverse ? FFTW_BACKWARD : FFTW_FORWARD;
  if (in.dtype == DType::kComplex128) {
    auto *pi = reinterpret_cast<fftw_complex *>(in.data());
    auto *po = reinterpret_cast<fftw_complex *>(out.data());
    return RunPlan<Double>([&] { return Double::C2c(len, batch, pi, po, sign); });
  }
  if (in.dtype == DType::kComplex64) {
    auto *pi = reinterpret_cast<fftwf_complex *>(in.data());
    auto *po = reinterpret_cast<fftwf_complex *>(out.data());
    return RunPlan<Single>([&] { return Single::C2c(len, batch, pi, po, sign); });
  }
  return TypeError(absl::StrCat("FFT: unsupported dtype ", DTypeName(in.dtype)));
}

absl::Status CpuRfft(const View &in, const View &out) {
  const int64_t n = in.shape.back();
  int batch = 0, len = 0;
  ARRAYD_RETURN_IF_ERROR(BatchAndLength(in, n, &batch, &len));
  if (batch == 0 || len == 0) return absl::OkStatus();
  if (in.dtype == DType::kFloat64) {
    auto *pi = reinterpret_cast<double *>(in.data());
    auto *po = reinterpret_cast<fftw_complex *>(out.data());
    return RunPlan<Double>([&] { return Double::R2c(len, batch, pi, po); });
  }
  if (in.dtype == DType::kFloat32) {
    auto *pi = reinterpret_cast<float *>(in.data());
    auto *po = reinterpret_cast<fftwf_complex *>(out.data());
    return RunPlan<Single>([&] { return Single::R2c(len, batch, pi, po); });
  }
  return TypeError(absl::StrCat("rfft: unsupported dtype ", DTypeName(in.dtype)));
}

absl::Status CpuIrfft(const View &in, const View &out) {
  const int64_t n = out.shape.back();
  int batch = 0, len = 0;
  ARRAYD_RETURN_IF_ERROR(BatchAndLength(out, n, &batch, &len));
  if (batch == 0 || len == 0) return absl::OkStatus();
  // c2r overwrites its input: transform a copy.
  if (in.dtype == DType::kComplex128) {
    std::vector<fftw_complex> copy(static_cast<size_t>(in.size()));
    std::memcpy(copy.data(), in.data(), in.nbytes());
    auto *po = reinterpret_cast<double *>(out.data());
    return RunPlan<Double>([&] { return Double::C2r(len, batch, copy.data(), po); });
  }
  if (in.dtype == DType::kComplex64) {
    std::vector<fftwf_complex> copy(static_cast<size_t>(in.size()));
    std::memcpy(copy.data(), in.data(), in.nbytes());
    auto *po = reinterpret_cast<float *>(out.data());
    return RunPlan<Single>([&] { return Single::C2r(len, batch, copy.data(), po); });
  }
  return TypeError(absl::StrCat("irfft: unsupported dtype ", DTypeName(in.dtype)));
}

}  // namespace cpu
}  // namespace arrayd
