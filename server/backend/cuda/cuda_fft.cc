// CudaStream's FFTs over the last one to three axes: complex (C2C/Z2Z), real forward
// (R2C/D2Z) and, along the last axis, inverse real (C2R/Z2D, on a scratch copy: cuFFT overwrites
// its input). Plans are shared by every stream of the device (DeviceState),
// their work areas come from the calling stream's pool.
//
// Assumes: C-contiguous operands of the dtypes and lengths checked here;
// unnormalized transforms (ops/fft.cc scales).
// Thread-safety: as CudaStream (one thread at a time); the plan cache takes
// the device's fft_mu, a plan's use its own mutex.
#include <cuda_runtime_api.h>
#include <cufft.h>

#include <memory>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "backend/cuda/cuda_status.h"
#include "backend/cuda/cuda_stream.h"
#include "backend/cuda/kernel_source.h"
#include "backend/cuda/solver_fft_status.h"
#include "common/status.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace cuda {

namespace {

// Plans kept per device; past this many, the cache starts over (plans in use
// live on through their shared_ptr).
constexpr size_t kMaxFftPlans = 256;

// Checks a C-contiguous FFT operand of at least rank + 1 dimensions: its
// dtype and the lengths of its last `rank` axes (`lengths`); returns the
// number of transforms.
absl::Status FftOperand(const View& v, DType dtype, absl::Span<const int64_t> lengths,
                        const char* what, int64_t* batch) {
  const int rank = static_cast<int>(lengths.size());
  bool ok = v.ndim() >= rank && v.IsCContiguous() && v.dtype == dtype;
  int64_t per = 1;
  for (int i = 0; ok && i < rank; ++i) {
    ok = v.shape[v.ndim() - rank + i] == lengths[i];
    per *= lengths[i];
  }
  if (!ok) {
    return absl::InternalError(
        absl::StrCat(what, ": needs a C-contiguous ", DTypeName(dtype), " array ending in ",
                     ShapeString(Shape(lengths.begin(), lengths.end())), ", got ",
                     DTypeName(v.dtype), " ", ShapeString(v.shape)));
  }
  *batch = per == 0 ? 0 : v.size() / per;
  return absl::OkStatus();
}

// The last `rank` (1 to 3, cuFFT's limit) lengths of `v`.
absl::StatusOr<std::vector<int64_t>> LastAxes(const View& v, int rank, const char* what) {
  if (rank < 1 || rank > 3 || v.ndim() < rank) {
    return absl::InternalError(absl::StrCat(what, ": transforms of 1 to 3 axes of an array of ",
                                            "as many dimensions, got ", rank, " of ",
                                            ShapeString(v.shape)));
  }
  return std::vector<int64_t>(v.shape.end() - rank, v.shape.end());
}

}  // namespace

FftPlan::~FftPlan() {
  if (!made || cudaSetDevice(device) != cudaSuccess) return;
  // Transforms of this plan queued on other streams may still run.
  if (FatalDeviceError().ok()) ARRAYD_CUDA_LOG_IF_ERROR(cudaDeviceSynchronize());
  absl::Status s = ARRAYD_CUDA_STATUS_(CufftStatus, cufftDestroy(handle));
  if (!s.ok()) SPDLOG_WARN("{}", s.ToString());
}

absl::StatusOr<std::shared_ptr<FftPlan>> CudaStream::GetFftPlan(cufftType type,
                                                                absl::Span<const long long> dims,
                                                                long long batch) {
  std::vector<long long> key = {static_cast<long long>(type), batch};
  key.insert(key.end(), dims.begin(), dims.end());
  absl::MutexLock lock(&dev_->fft_mu);
  auto it = dev_->fft_plans.find(key);
  if (it != dev_->fft_plans.end()) return it->second;
  auto plan = std::make_shared<FftPlan>();
  plan->device = dev_->device;
  ARRAYD_CUFFT_RETURN_IF_ERROR(cufftCreate(&plan->handle));
  plan->made = true;
  // The work area comes from the caller's stream pool at each exec.
  ARRAYD_CUFFT_RETURN_IF_ERROR(cufftSetAutoAllocation(plan->handle, 0));
  size_t work = 0;
  const int rank = static_cast<int>(dims.size());
  long long values = batch;  // the widest side's (r2c/c2r: the real one's)
  for (long long d : dims) values *= d;
  // The 32-bit plan when every index fits (the common case, and the plan
  // CuPy makes); the 64-bit API only for transforms of 2^31 or more values.
  // Null embeds: packed layouts, one transform after another.
  if (values < (1LL << 31)) {
    int n[3];
    for (int i = 0; i < rank; ++i) n[i] = static_cast<int>(dims[i]);
    ARRAYD_CUFFT_RETURN_IF_ERROR(cufftMakePlanMany(plan->handle, rank, n, nullptr, 1, 0, nullptr, 1,
                                                   0, type, static_cast<int>(batch), &work));
  } else {
    long long n[3];
    for (int i = 0; i < rank; ++i) n[i] = dims[i];
    ARRAYD_CUFFT_RETURN_IF_ERROR(cufftMakePlanMany64(plan->handle, rank, n, nullptr, 1, 0, nullptr,
                                                     1, 0, type, batch, &work));
  }
  plan->work_bytes = work;
  if (dev_->fft_plans.size() >= kMaxFftPlans) dev_->fft_plans.clear();
  dev_->fft_plans.emplace(std::move(key), plan);
  return plan;
}

template <typename Exec>
absl::Status CudaStream::RunFft(FftPlan& plan, Exec exec) {
  std::shared_ptr<Buffer> work;
  if (plan.work_bytes > 0) {
    ARRAYD_ASSIGN_OR_RETURN(work, Temp(plan.work_bytes));
  }
  absl::MutexLock lock(&plan.mu);
  ARRAYD_CUFFT_RETURN_IF_ERROR(cufftSetStream(plan.handle, stream_));
  if (work != nullptr) ARRAYD_CUFFT_RETURN_IF_ERROR(cufftSetWorkArea(plan.handle, work->data()));
  return exec(plan.handle);
  // `work` goes back to this stream's pool: later users are ordered after.
}

absl::Status CudaStream::Fft(const View& in, const View& out, int rank, bool inverse) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (in.dtype != DType::kComplex64 && in.dtype != DType::kComplex128) {
    return absl::InternalError(
        absl::StrCat("FFT: needs complex64 or complex128, got ", DTypeName(in.dtype)));
  }
  ARRAYD_ASSIGN_OR_RETURN(const std::vector<int64_t> n, LastAxes(in, rank, "FFT"));
  int64_t batch = 0, out_batch = 0;
  ARRAYD_RETURN_IF_ERROR(FftOperand(in, in.dtype, n, "FFT", &batch));
  ARRAYD_RETURN_IF_ERROR(FftOperand(out, in.dtype, n, "FFT", &out_batch));
  if (out_batch != batch) return absl::InternalError("FFT: in and out differ in size");
  if (batch == 0) return absl::OkStatus();
  const bool single = in.dtype == DType::kComplex64;
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<FftPlan> plan,
                          GetFftPlan(single ? CUFFT_C2C : CUFFT_Z2Z,
                                     std::vector<long long>(n.begin(), n.end()), batch));
  const int direction = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  // Out of place, C2C leaves its input as it was.
  void* src = in.data();
  void* dst = out.data();
  return RunFft(*plan, [&](cufftHandle p) -> absl::Status {
    if (single) {
      ARRAYD_CUFFT_RETURN_IF_ERROR(cufftExecC2C(p, static_cast<cufftComplex*>(src),
                                                static_cast<cufftComplex*>(dst), direction));
    } else {
      ARRAYD_CUFFT_RETURN_IF_ERROR(cufftExecZ2Z(p, static_cast<cufftDoubleComplex*>(src),
                                                static_cast<cufftDoubleComplex*>(dst), direction));
    }
    return absl::OkStatus();
  });
}

absl::Status CudaStream::Rfft(const View& in, const View& out, int rank) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (in.dtype != DType::kFloat32 && in.dtype != DType::kFloat64) {
    return absl::InternalError(
        absl::StrCat("real FFT: needs float32 or float64, got ", DTypeName(in.dtype)));
  }
  const bool single = in.dtype == DType::kFloat32;
  ARRAYD_ASSIGN_OR_RETURN(const std::vector<int64_t> n, LastAxes(in, rank, "real FFT"));
  std::vector<int64_t> half = n;
  half.back() = n.back() / 2 + 1;
  int64_t batch = 0, out_batch = 0;
  ARRAYD_RETURN_IF_ERROR(FftOperand(in, in.dtype, n, "real FFT", &batch));
  ARRAYD_RETURN_IF_ERROR(FftOperand(out, single ? DType::kComplex64 : DType::kComplex128, half,
                                    "real FFT", &out_batch));
  if (out_batch != batch && batch > 0)
    return absl::InternalError("real FFT: in and out differ in batch");
  if (batch == 0) return absl::OkStatus();
  // Out of place, R2C leaves its input as it was (as C2C; only C2R writes it).
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<FftPlan> plan,
                          GetFftPlan(single ? CUFFT_R2C : CUFFT_D2Z,
                                     std::vector<long long>(n.begin(), n.end()), batch));
  void* src = in.data();
  void* dst = out.data();
  return RunFft(*plan, [&](cufftHandle p) -> absl::Status {
    if (single) {
      ARRAYD_CUFFT_RETURN_IF_ERROR(
          cufftExecR2C(p, static_cast<cufftReal*>(src), static_cast<cufftComplex*>(dst)));
    } else {
      ARRAYD_CUFFT_RETURN_IF_ERROR(cufftExecD2Z(p, static_cast<cufftDoubleReal*>(src),
                                                static_cast<cufftDoubleComplex*>(dst)));
    }
    return absl::OkStatus();
  });
}

absl::Status CudaStream::Irfft(const View& in, const View& out, double scale) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (out.dtype != DType::kFloat32 && out.dtype != DType::kFloat64) {
    return absl::InternalError(absl::StrCat(
        "inverse real FFT: needs a float32 or float64 output, got ", DTypeName(out.dtype)));
  }
  if (out.ndim() < 1) return absl::InternalError("inverse real FFT: needs at least one dimension");
  const bool single = out.dtype == DType::kFloat32;
  const DType ct = single ? DType::kComplex64 : DType::kComplex128;
  const int64_t n = out.shape.back(), half = n / 2 + 1;
  int64_t batch = 0, in_batch = 0;
  ARRAYD_RETURN_IF_ERROR(FftOperand(out, out.dtype, {n}, "inverse real FFT", &batch));
  ARRAYD_RETURN_IF_ERROR(FftOperand(in, ct, {half}, "inverse real FFT", &in_batch));
  if (in_batch != batch && n > 0) {
    return absl::InternalError("inverse real FFT: in and out differ in batch");
  }
  if (batch == 0) return absl::OkStatus();
  // C2R overwrites its input: transform a scratch copy, in which the
  // imaginary parts that a real signal's spectrum cannot have (at 0 and at
  // n/2) are dropped, as FFTW and pocketfft ignore them, and the values are
  // scaled (the transform is linear: the factor costs no pass of its own).
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> scratch,
                          Temp(static_cast<size_t>(batch * half * ItemSize(ct))));
  const View in3 = MatrixView(in.buffer, ct, 1, batch, half, 0, half, 1, in.offset);
  const View copy = MatrixView(scratch, ct, 1, batch, half, 0, half, 1);
  ARRAYD_RETURN_IF_ERROR(MatrixOp(copy, &in3, MatrixExprKind::kHalfSpectrumEnds, n, half, scale));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<FftPlan> plan,
                          GetFftPlan(single ? CUFFT_C2R : CUFFT_Z2D, {n}, batch));
  void* src = scratch->data();
  void* dst = out.data();
  return RunFft(*plan, [&](cufftHandle p) -> absl::Status {
    if (single) {
      ARRAYD_CUFFT_RETURN_IF_ERROR(
          cufftExecC2R(p, static_cast<cufftComplex*>(src), static_cast<cufftReal*>(dst)));
    } else {
      ARRAYD_CUFFT_RETURN_IF_ERROR(cufftExecZ2D(p, static_cast<cufftDoubleComplex*>(src),
                                                static_cast<cufftDoubleReal*>(dst)));
    }
    return absl::OkStatus();
  });
}

}  // namespace cuda
}  // namespace arrayd
