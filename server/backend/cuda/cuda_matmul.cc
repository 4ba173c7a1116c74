// CudaStream's matrix products: cuBLAS GEMMs (strided batched) for float16
// (float32 accumulation), float32 (no TF32, as NumPy), float64 and complex;
// a tiled kernel (device/matmul.cuh) for integers and bool. The cuBLAS
// handle is the stream's own, made on first use.
//
// Assumes: C-contiguous (batch, m, k) @ (batch, k, n) of one dtype
// (checked here).
// Thread-safety: as CudaStream (one thread at a time).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

#include "backend/cuda/cublas_status.h"
#include "backend/cuda/cuda_status.h"
#include "backend/cuda/cuda_stream.h"
#include "backend/cuda/kernel_source.h"
#include "common/status.h"

namespace arrayd {
namespace cuda {

absl::StatusOr<cublasHandle_t> CudaStream::Cublas() {
  if (cublas_ != nullptr) return cublas_;
  cublasHandle_t h = nullptr;
  ARRAYD_CUBLAS_RETURN_IF_ERROR(cublasCreate(&h));
  absl::Status s = ARRAYD_CUDA_STATUS_(CublasStatus, cublasSetStream(h, stream_));
  // Full float32 precision (no TF32), as NumPy computes.
  if (s.ok()) s = ARRAYD_CUDA_STATUS_(CublasStatus, cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  if (!s.ok()) {
    cublasDestroy(h);
    return s;
  }
  cublas_ = h;
  return cublas_;
}

absl::Status CudaStream::Matmul(const View& a, const View& b, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (a.ndim() != 3 || b.ndim() != 3 || out.ndim() != 3 || a.dtype != out.dtype ||
      b.dtype != out.dtype || !a.IsCContiguous() || !b.IsCContiguous() || !out.IsCContiguous() ||
      b.shape[0] != a.shape[0] || out.shape[0] != a.shape[0] || b.shape[1] != a.shape[2] ||
      out.shape[1] != a.shape[1] || out.shape[2] != b.shape[2]) {
    return absl::InternalError(
        "matmul: needs C-contiguous (batch, m, k) @ (batch, k, n) of one dtype");
  }
  long long batch = a.shape[0], m = a.shape[1], k = a.shape[2], n = b.shape[2];
  if (out.size() == 0) return absl::OkStatus();
  if (k == 0) {
    ARRAYD_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(out.data(), 0, static_cast<size_t>(out.nbytes()), stream_));
    return absl::OkStatus();
  }
  const DType t = out.dtype;
  const bool blas = t == DType::kFloat16 || t == DType::kFloat32 || t == DType::kFloat64 ||
                    t == DType::kComplex64 || t == DType::kComplex128;
  if (!blas) {
    const std::string name = "arrayd_matmul";
    const std::string source = BuildSource({MatmulBody(t, name)});
    const char* pa = a.data();
    const char* pb = b.data();
    char* po = out.data();
    void* args[] = {&pa, &pb, &po, &batch, &m, &k, &n};
    const long long tiles = CeilDiv(m, 16) * CeilDiv(n, 16);
    return Launch(source, name, std::min(tiles, kMaxBlocks), std::min(batch, 65535LL), args);
  }

  constexpr long long kIntMax = 2147483647LL;
  if (m > kIntMax || n > kIntMax || k > kIntMax) {
    return absl::UnimplementedError("matmul: matrix dimensions over 2**31-1 on the CUDA backend");
  }
  ARRAYD_ASSIGN_OR_RETURN(cublasHandle_t h, Cublas());
  // Row-major out = a @ b is column-major out^T = b^T a^T: swap the operands.
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
  const long long sa = m * k, sb = k * n, so = m * n;
  // cuBLAS takes an int batch count: larger batches go in slices.
  for (long long b0 = 0; b0 < batch; b0 += kIntMax) {
    const int nb = static_cast<int>(std::min(batch - b0, kIntMax));
    const size_t item = static_cast<size_t>(ItemSize(t));
    const char* pa = a.data() + b0 * sa * item;
    const char* pb = b.data() + b0 * sb * item;
    char* po = out.data() + b0 * so * item;
    switch (t) {
      case DType::kFloat32: {
        const float one = 1, zero = 0;
        ARRAYD_CUBLAS_RETURN_IF_ERROR(cublasSgemmStridedBatched(
            h, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, reinterpret_cast<const float*>(pb), in,
            sb, reinterpret_cast<const float*>(pa), ik, sa, &zero, reinterpret_cast<float*>(po), in,
            so, nb));
        break;
      }
      case DType::kFloat64: {
        const double one = 1, zero = 0;
        ARRAYD_CUBLAS_RETURN_IF_ERROR(cublasDgemmStridedBatched(
            h, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, reinterpret_cast<const double*>(pb), in,
            sb, reinterpret_cast<const double*>(pa), ik, sa, &zero, reinterpret_cast<double*>(po),
            in, so, nb));
        break;
      }
      case DType::kComplex64: {
        const cuComplex one = make_cuComplex(1, 0), zero = make_cuComplex(0, 0);
        ARRAYD_CUBLAS_RETURN_IF_ERROR(cublasCgemmStridedBatched(
            h, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, reinterpret_cast<const cuComplex*>(pb),
            in, sb, reinterpret_cast<const cuComplex*>(pa), ik, sa, &zero,
            reinterpret_cast<cuComplex*>(po), in, so, nb));
        break;
      }
      case DType::kComplex128: {
        const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0);
        ARRAYD_CUBLAS_RETURN_IF_ERROR(
            cublasZgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one,
                                      reinterpret_cast<const cuDoubleComplex*>(pb), in, sb,
                                      reinterpret_cast<const cuDoubleComplex*>(pa), ik, sa, &zero,
                                      reinterpret_cast<cuDoubleComplex*>(po), in, so, nb));
        break;
      }
      default: {  // float16: half storage, float32 accumulation
        const float one = 1, zero = 0;
        if (nb == 1) {  // one product: the plain GEMM, as CuPy calls it
          ARRAYD_CUBLAS_RETURN_IF_ERROR(cublasGemmEx(
              h, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, pb, CUDA_R_16F, in, pa, CUDA_R_16F, ik,
              &zero, po, CUDA_R_16F, in, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
          break;
        }
        ARRAYD_CUBLAS_RETURN_IF_ERROR(cublasGemmStridedBatchedEx(
            h, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, pb, CUDA_R_16F, in, sb, pa, CUDA_R_16F,
            ik, sa, &zero, po, CUDA_R_16F, in, so, nb, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        break;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace arrayd
