// CudaStream's linear algebra: LU (factor, solve), Cholesky, QR, SVD and
// eigh with cuSOLVER on the stream's own handle (made on first use), each
// matrix of a batch in turn with one shared workspace; eig with the CPU
// backend's LAPACK on a host copy.
//
// Assumes: float32/64 or complex64/128 C-contiguous batches of matrices;
// info outputs report singular or not-positive-definite matrices, as
// LAPACK's do, and are checked by the caller (ops/linalg.cc).
// Thread-safety: as CudaStream (one thread at a time).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cuda/cublas_status.h"
#include "backend/cuda/cuda_status.h"
#include "backend/cuda/cuda_stream.h"
#include "backend/cuda/kernel_source.h"
#include "backend/cuda/solver_fft_status.h"
#include "common/status.h"

namespace arrayd {
namespace cuda {

namespace {

// The cuSOLVER data types of a linalg dtype and of its real counterpart.
absl::Status SolverTypes(DType t, cudaDataType* type, cudaDataType* real) {
  switch (t) {
    case DType::kFloat32:
      *type = CUDA_R_32F;
      *real = CUDA_R_32F;
      return absl::OkStatus();
    case DType::kFloat64:
      *type = CUDA_R_64F;
      *real = CUDA_R_64F;
      return absl::OkStatus();
    case DType::kComplex64:
      *type = CUDA_C_32F;
      *real = CUDA_R_32F;
      return absl::OkStatus();
    case DType::kComplex128:
      *type = CUDA_C_64F;
      *real = CUDA_R_64F;
      return absl::OkStatus();
    default:
      return TypeError(absl::StrCat("linear algebra of ", DTypeName(t),
                                    " arrays is not supported (float32, float64, complex64, "
                                    "complex128 are)"));
  }
}

// Checks that `v` is a C-contiguous batch of (rows, cols) matrices (any
// number of leading batch dimensions) and returns it as a 3-D view.
absl::Status AsMatrixBatch(const View& v, const char* what, View* out) {
  if (v.ndim() < 2 || !v.IsCContiguous()) {
    return absl::InternalError(absl::StrCat(
        what, ": needs a C-contiguous batch of matrices, got shape ", ShapeString(v.shape)));
  }
  const int64_t rows = v.shape[v.ndim() - 2], cols = v.shape[v.ndim() - 1];
  int64_t batch = 1;
  for (int d = 0; d < v.ndim() - 2; ++d) batch *= v.shape[d];
  *out = v;
  out->shape = {batch, rows, cols};
  out->strides = CStrides(out->shape, ItemSize(v.dtype));
  return absl::OkStatus();
}

// Column-major matrices (leading dimension `ld`, `sb` elements apart) seen
// as (batch, rows, cols) row-major indices.
View ColumnMajorView(const std::shared_ptr<Buffer>& buf, DType t, int64_t batch, int64_t rows,
                     int64_t cols, int64_t ld, int64_t sb) {
  return MatrixView(buf, t, batch, rows, cols, sb, 1, ld);
}

// `info` must be C-contiguous int32 with one entry per matrix.
absl::Status CheckInfoLayout(const View& info, int64_t batch, const char* what) {
  if (info.dtype != DType::kInt32 || !info.IsCContiguous() || info.size() != batch) {
    return absl::InternalError(
        absl::StrCat(what, ": info must be C-contiguous int32 with ", batch, " entries"));
  }
  return absl::OkStatus();
}

// cuSOLVER's legacy routines (orgqr/ungqr) take int sizes.
constexpr int64_t kLegacyIntMax = 2147483647LL;

// Batches of matrices up to this size are factored and solved by cuBLAS's
// batched LU (one launch for the batch, as CuPy does), larger ones one by
// one by cuSOLVER (whose per-matrix kernels win there).
constexpr int64_t kMaxBatchedLuSize = 128;
// cuBLAS's matinvBatched takes matrices up to 32 x 32.
constexpr int64_t kMaxMatinvSize = 32;

// Real dtypes only: for complex matrices cuBLAS's batched LU picks other
// pivots than LAPACK's (|re| + |im|) and cuSOLVER's, so the factors would
// differ from the CPU backend's (seen on the H200).
bool UseBatchedLu(DType t, int64_t batch, int64_t n) {
  return !IsComplex(t) && batch > 1 && n <= kMaxBatchedLuSize && batch <= kLegacyIntMax;
}

// cublas<t>getrfBatched on column-major matrices at `ptrs` (device array).
cublasStatus_t GetrfBatched(cublasHandle_t h, DType t, int n, void* ptrs, int* piv, int* info,
                            int batch) {
  switch (t) {
    case DType::kFloat32:
      return cublasSgetrfBatched(h, n, static_cast<float**>(ptrs), n, piv, info, batch);
    case DType::kFloat64:
      return cublasDgetrfBatched(h, n, static_cast<double**>(ptrs), n, piv, info, batch);
    case DType::kComplex64:
      return cublasCgetrfBatched(h, n, static_cast<cuComplex**>(ptrs), n, piv, info, batch);
    default:
      return cublasZgetrfBatched(h, n, static_cast<cuDoubleComplex**>(ptrs), n, piv, info, batch);
  }
}

// cublas<t>getrsBatched: B <- A^-1 B from getrfBatched's factors.
cublasStatus_t GetrsBatched(cublasHandle_t h, DType t, int n, int k, void* a, const int* piv,
                            void* b, int* host_info, int batch) {
  switch (t) {
    case DType::kFloat32:
      return cublasSgetrsBatched(h, CUBLAS_OP_N, n, k, static_cast<float* const*>(a), n, piv,
                                 static_cast<float* const*>(b), n, host_info, batch);
    case DType::kFloat64:
      return cublasDgetrsBatched(h, CUBLAS_OP_N, n, k, static_cast<double* const*>(a), n, piv,
                                 static_cast<double* const*>(b), n, host_info, batch);
    case DType::kComplex64:
      return cublasCgetrsBatched(h, CUBLAS_OP_N, n, k, static_cast<cuComplex* const*>(a), n, piv,
                                 static_cast<cuComplex* const*>(b), n, host_info, batch);
    default:
      return cublasZgetrsBatched(h, CUBLAS_OP_N, n, k, static_cast<cuDoubleComplex* const*>(a), n,
                                 piv, static_cast<cuDoubleComplex* const*>(b), n, host_info, batch);
  }
}

}  // namespace

// A (batch, rows, cols) view of `buf` from byte `offset`, with strides in
// elements: [b][i][j] is element b * sb + i * si + j * sj.
View MatrixView(const std::shared_ptr<Buffer>& buf, DType t, int64_t batch, int64_t rows,
                int64_t cols, int64_t sb, int64_t si, int64_t sj, int64_t offset) {
  View v;
  v.buffer = buf;
  v.dtype = t;
  v.shape = {batch, rows, cols};
  const int64_t item = ItemSize(t);
  v.strides = {sb * item, si * item, sj * item};
  v.offset = offset;
  return v;
}

// ---- linear algebra (cuSOLVER) ----------------------------------------------
//
// The arrays are row-major; cuSOLVER is column-major. A row-major matrix read
// as column-major is its transpose, so each routine either runs on that
// transpose when the algebra allows it (Cholesky, eigh, wide SVD) or first
// copies the matrix into a column-major scratch buffer with a strided copy
// kernel, and copies results back the same way. Batches loop over the
// matrices on this stream, sharing one workspace.

absl::StatusOr<cusolverDnHandle_t> CudaStream::Cusolver() {
  if (cusolver_ != nullptr) return cusolver_;
  cusolverDnHandle_t h = nullptr;
  ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnCreate(&h));
  absl::Status s = ARRAYD_CUDA_STATUS_(CusolverStatus, cusolverDnSetStream(h, stream_));
  cusolverDnParams_t params = nullptr;
  if (s.ok()) s = ARRAYD_CUDA_STATUS_(CusolverStatus, cusolverDnCreateParams(&params));
  if (!s.ok()) {
    cusolverDnDestroy(h);
    return s;
  }
  cusolver_ = h;
  solver_params_ = params;
  return cusolver_;
}

absl::Status CudaStream::ZeroInfo(const View& info) {
  if (info.size() == 0) return absl::OkStatus();
  ARRAYD_CUDA_RETURN_IF_ERROR(
      cudaMemsetAsync(info.data(), 0, static_cast<size_t>(info.nbytes()), stream_));
  return absl::OkStatus();
}

void* CudaStream::HostWork(size_t bytes) {
  if (bytes == 0) return nullptr;
  if (host_work_.size() < bytes) host_work_.resize(bytes);
  return host_work_.data();
}

absl::Status CudaStream::AfterSolverCall(size_t host_bytes) {
  if (host_bytes > 0) ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Buffer>> CudaStream::PointerArray(char* base, int64_t stride,
                                                                 int64_t count) {
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> buf,
                          Temp(static_cast<size_t>(count) * sizeof(void*)));
  const View ptrs = MakeContiguousView(buf, DType::kUInt64, {count});
  ARRAYD_RETURN_IF_ERROR(Iota(ptrs, Scalar::UInt(reinterpret_cast<uintptr_t>(base)),
                              Scalar::UInt(static_cast<uint64_t>(stride))));
  return buf;
}

absl::Status CudaStream::LuFactor(const View& a_in, const View& pivots_in, const View& info) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  View a, pivots;
  ARRAYD_RETURN_IF_ERROR(AsMatrixBatch(a_in, "LU factorization", &a));
  cudaDataType type, real;
  ARRAYD_RETURN_IF_ERROR(SolverTypes(a.dtype, &type, &real));
  const int64_t batch = a.shape[0], n = a.shape[1];
  if (a.shape[2] != n || pivots_in.dtype != DType::kInt32 || !pivots_in.IsCContiguous() ||
      pivots_in.size() != batch * n) {
    return absl::InternalError(
        "LU factorization: needs square matrices and int32 pivots (batch, n)");
  }
  ARRAYD_RETURN_IF_ERROR(CheckInfoLayout(info, batch, "LU factorization"));
  if (batch == 0) return absl::OkStatus();
  ARRAYD_RETURN_IF_ERROR(ZeroInfo(info));
  if (n == 0) return absl::OkStatus();
  ARRAYD_ASSIGN_OR_RETURN(cusolverDnHandle_t h, Cusolver());
  const DType t = a.dtype;
  const int64_t item = ItemSize(t), nn = n * n;

  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> scratch,
                          Temp(static_cast<size_t>(batch * nn * item)));
  const View col = ColumnMajorView(scratch, t, batch, n, n, n, nn);
  ARRAYD_RETURN_IF_ERROR(Elementwise({&col, &a}, "v1"));
  char* base = static_cast<char*>(scratch->data());
  int* info_p = reinterpret_cast<int*>(info.data());
  if (UseBatchedLu(t, batch, n)) {
    // cuBLAS writes its int32 pivots and infos straight into the outputs.
    ARRAYD_ASSIGN_OR_RETURN(cublasHandle_t blas, Cublas());
    ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> ptrs, PointerArray(base, nn * item, batch));
    ARRAYD_CUBLAS_RETURN_IF_ERROR(GetrfBatched(blas, t, static_cast<int>(n), ptrs->data(),
                                               reinterpret_cast<int*>(pivots_in.data()), info_p,
                                               static_cast<int>(batch)));
    return Elementwise({&a, &col}, "v1");
  }
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> ipiv_buf,
                          Temp(static_cast<size_t>(batch * n) * sizeof(int64_t)));
  int64_t* ipiv = static_cast<int64_t*>(ipiv_buf->data());
  size_t dev_bytes = 0, host_bytes = 0;
  ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgetrf_bufferSize(h, solver_params_, n, n, type, base,
                                                              n, type, &dev_bytes, &host_bytes));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> work, Temp(std::max<size_t>(dev_bytes, 1)));
  for (int64_t b = 0; b < batch; ++b) {
    ARRAYD_CUSOLVER_RETURN_IF_ERROR(
        cusolverDnXgetrf(h, solver_params_, n, n, type, base + b * nn * item, n, ipiv + b * n, type,
                         work->data(), dev_bytes, HostWork(host_bytes), host_bytes, info_p + b));
    ARRAYD_RETURN_IF_ERROR(AfterSolverCall(host_bytes));
  }
  // int64 pivots -> the int32 output; the factors back to row-major.
  View piv64 = MakeContiguousView(ipiv_buf, DType::kInt64, {batch, n});
  pivots = pivots_in;
  pivots.shape = {batch, n};
  pivots.strides = CStrides(pivots.shape, 4);
  ARRAYD_RETURN_IF_ERROR(Elementwise({&pivots, &piv64}, "v1"));
  return Elementwise({&a, &col}, "v1");
}

// Small real matrices: cublas<t>matinvBatched, one call for the batch (LU
// and inverse in one kernel). Row-major A read as column-major is A^T, and
// (A^T)^-1 = (A^-1)^T: written column-major, that is A^-1 row-major, so no
// copies are needed.
absl::Status CudaStream::Inverse(const View& a, const View& out, const View& info) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  const DType t = a.dtype;
  if (a.ndim() != 3 || a.shape[1] != a.shape[2] || out.shape != a.shape || out.dtype != t ||
      !a.IsCContiguous() || !out.IsCContiguous()) {
    return absl::InternalError("inverse: needs C-contiguous (batch, n, n) a and out");
  }
  const int64_t batch = a.shape[0], n = a.shape[1];
  if ((t != DType::kFloat32 && t != DType::kFloat64) || n > kMaxMatinvSize ||
      batch > kLegacyIntMax) {
    return absl::UnimplementedError("inverse: only small real matrices are inverted directly");
  }
  ARRAYD_RETURN_IF_ERROR(CheckInfoLayout(info, batch, "inverse"));
  if (batch == 0) return absl::OkStatus();
  ARRAYD_RETURN_IF_ERROR(ZeroInfo(info));
  if (n == 0) return absl::OkStatus();
  ARRAYD_ASSIGN_OR_RETURN(cublasHandle_t blas, Cublas());
  const int64_t bytes = n * n * ItemSize(t);
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> a_ptrs,
                          PointerArray(const_cast<char*>(a.data()), bytes, batch));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out_ptrs, PointerArray(out.data(), bytes, batch));
  int* info_p = reinterpret_cast<int*>(info.data());
  const int ni = static_cast<int>(n), bi = static_cast<int>(batch);
  if (t == DType::kFloat32) {
    ARRAYD_CUBLAS_RETURN_IF_ERROR(
        cublasSmatinvBatched(blas, ni, static_cast<const float* const*>(a_ptrs->data()), ni,
                             static_cast<float* const*>(out_ptrs->data()), ni, info_p, bi));
  } else {
    ARRAYD_CUBLAS_RETURN_IF_ERROR(
        cublasDmatinvBatched(blas, ni, static_cast<const double* const*>(a_ptrs->data()), ni,
                             static_cast<double* const*>(out_ptrs->data()), ni, info_p, bi));
  }
  return absl::OkStatus();
}

absl::Status CudaStream::LuSolve(const View& lu_in, const View& pivots_in, const View& b_in) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  View lu, rhs;
  ARRAYD_RETURN_IF_ERROR(AsMatrixBatch(lu_in, "LU solve", &lu));
  ARRAYD_RETURN_IF_ERROR(AsMatrixBatch(b_in, "LU solve", &rhs));
  cudaDataType type, real;
  ARRAYD_RETURN_IF_ERROR(SolverTypes(lu.dtype, &type, &real));
  const int64_t batch = lu.shape[0], n = lu.shape[1], k = rhs.shape[2];
  if (lu.shape[2] != n || rhs.dtype != lu.dtype || rhs.shape[0] != batch || rhs.shape[1] != n ||
      pivots_in.dtype != DType::kInt32 || !pivots_in.IsCContiguous() ||
      pivots_in.size() != batch * n) {
    return absl::InternalError(
        "LU solve: needs lu (batch, n, n), int32 pivots (batch, n) and b (batch, n, k) of lu's "
        "dtype");
  }
  if (batch == 0 || n == 0 || k == 0) return absl::OkStatus();
  ARRAYD_ASSIGN_OR_RETURN(cusolverDnHandle_t h, Cusolver());
  const DType t = lu.dtype;
  const int64_t item = ItemSize(t), nn = n * n, nk = n * k;

  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> lu_buf,
                          Temp(static_cast<size_t>(batch * nn * item)));
  const View lu_col = ColumnMajorView(lu_buf, t, batch, n, n, n, nn);
  ARRAYD_RETURN_IF_ERROR(Elementwise({&lu_col, &lu}, "v1"));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> b_buf,
                          Temp(static_cast<size_t>(batch * nk * item)));
  const View b_col = ColumnMajorView(b_buf, t, batch, n, k, n, nk);
  ARRAYD_RETURN_IF_ERROR(Elementwise({&b_col, &rhs}, "v1"));
  if (UseBatchedLu(t, batch, n) && k <= kLegacyIntMax) {
    ARRAYD_ASSIGN_OR_RETURN(cublasHandle_t blas, Cublas());
    ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> a_ptrs,
                            PointerArray(static_cast<char*>(lu_buf->data()), nn * item, batch));
    ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> b_ptrs,
                            PointerArray(static_cast<char*>(b_buf->data()), nk * item, batch));
    int host_info = 0;  // argument errors only
    ARRAYD_CUBLAS_RETURN_IF_ERROR(
        GetrsBatched(blas, t, static_cast<int>(n), static_cast<int>(k), a_ptrs->data(),
                     reinterpret_cast<const int*>(pivots_in.data()), b_ptrs->data(), &host_info,
                     static_cast<int>(batch)));
    if (host_info != 0) {
      return absl::InternalError(absl::StrCat("LU solve: getrsBatched argument ", -host_info));
    }
    return Elementwise({&rhs, &b_col}, "v1");
  }
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> ipiv_buf,
                          Temp(static_cast<size_t>(batch * n) * sizeof(int64_t)));
  View piv64 = MakeContiguousView(ipiv_buf, DType::kInt64, {batch, n});
  View pivots = pivots_in;
  pivots.shape = {batch, n};
  pivots.strides = CStrides(pivots.shape, 4);
  ARRAYD_RETURN_IF_ERROR(Elementwise({&piv64, &pivots}, "v1"));
  // getrs reports only argument errors; they land here and are not read.
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> info_buf,
                          Temp(static_cast<size_t>(batch) * sizeof(int)));
  int* info_p = static_cast<int*>(info_buf->data());
  const int64_t* ipiv = static_cast<const int64_t*>(ipiv_buf->data());
  const char* lu_base = static_cast<const char*>(lu_buf->data());
  char* b_base = static_cast<char*>(b_buf->data());
  for (int64_t b = 0; b < batch; ++b) {
    ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgetrs(h, solver_params_, CUBLAS_OP_N, n, k, type,
                                                     lu_base + b * nn * item, n, ipiv + b * n, type,
                                                     b_base + b * nk * item, n, info_p + b));
  }
  return Elementwise({&rhs, &b_col}, "v1");
}

absl::Status CudaStream::Cholesky(const View& a_in, const View& info) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  View a;
  ARRAYD_RETURN_IF_ERROR(AsMatrixBatch(a_in, "Cholesky", &a));
  cudaDataType type, real;
  ARRAYD_RETURN_IF_ERROR(SolverTypes(a.dtype, &type, &real));
  const int64_t batch = a.shape[0], n = a.shape[1];
  if (a.shape[2] != n) return absl::InternalError("Cholesky: needs square matrices");
  ARRAYD_RETURN_IF_ERROR(CheckInfoLayout(info, batch, "Cholesky"));
  if (batch == 0) return absl::OkStatus();
  ARRAYD_RETURN_IF_ERROR(ZeroInfo(info));
  if (n == 0) return absl::OkStatus();
  ARRAYD_ASSIGN_OR_RETURN(cusolverDnHandle_t h, Cusolver());
  const int64_t item = ItemSize(a.dtype), nn = n * n;
  // The row-major Hermitian A read as column-major is conj(A), its upper
  // triangle our lower one. potrf(upper) gives conj(A) = U^H U, so
  // A = U^T conj(U) = L L^H with L = U^T: the row-major reading of U.
  char* base = a.data();
  int* info_p = reinterpret_cast<int*>(info.data());
  size_t dev_bytes = 0, host_bytes = 0;
  ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXpotrf_bufferSize(
      h, solver_params_, CUBLAS_FILL_MODE_UPPER, n, type, base, n, type, &dev_bytes, &host_bytes));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> work, Temp(std::max<size_t>(dev_bytes, 1)));
  for (int64_t b = 0; b < batch; ++b) {
    ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXpotrf(
        h, solver_params_, CUBLAS_FILL_MODE_UPPER, n, type, base + b * nn * item, n, type,
        work->data(), dev_bytes, HostWork(host_bytes), host_bytes, info_p + b));
    ARRAYD_RETURN_IF_ERROR(AfterSolverCall(host_bytes));
  }
  // potrf leaves the other triangle as it was: zero our strict upper one.
  return MatrixOp(a, &a, MatrixExprKind::kKeepLower, n, n);
}

absl::Status CudaStream::Qr(const View& a_in, const View& q_in, const View& r_in) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  View a, q, r;
  ARRAYD_RETURN_IF_ERROR(AsMatrixBatch(a_in, "QR", &a));
  ARRAYD_RETURN_IF_ERROR(AsMatrixBatch(q_in, "QR", &q));
  ARRAYD_RETURN_IF_ERROR(AsMatrixBatch(r_in, "QR", &r));
  cudaDataType type, real;
  ARRAYD_RETURN_IF_ERROR(SolverTypes(a.dtype, &type, &real));
  const int64_t batch = a.shape[0], m = a.shape[1], n = a.shape[2], mn = std::min(m, n);
  const int64_t k = q.shape[2];
  if (q.dtype != a.dtype || r.dtype != a.dtype || q.shape[0] != batch || r.shape[0] != batch ||
      q.shape[1] != m || r.shape[1] != k || r.shape[2] != n || (k != m && k != mn)) {
    return absl::InternalError("QR: needs q (batch, m, k) and r (batch, k, n), k = m or min(m, n)");
  }
  if (batch == 0) return absl::OkStatus();
  if (mn == 0) {  // no reflectors: q is the identity, r all zeros
    if (q.size() > 0) ARRAYD_RETURN_IF_ERROR(MatrixOp(q, nullptr, MatrixExprKind::kIdentity, m, k));
    if (r.size() > 0) {
      ARRAYD_CUDA_RETURN_IF_ERROR(
          cudaMemsetAsync(r.data(), 0, static_cast<size_t>(r.nbytes()), stream_));
    }
    return absl::OkStatus();
  }
  if (m > kLegacyIntMax || k > kLegacyIntMax || m * k > kLegacyIntMax) {
    return absl::UnimplementedError("QR: matrices over 2**31-1 elements on the CUDA backend");
  }
  ARRAYD_ASSIGN_OR_RETURN(cusolverDnHandle_t h, Cusolver());
  const DType t = a.dtype;
  const int64_t item = ItemSize(t);
  // Column-major m x max(n, k) per matrix: geqrf works on the first n
  // columns, orgqr then builds the k columns of Q in place.
  const int64_t cols = std::max(n, k), stride = m * cols;
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> scratch,
                          Temp(static_cast<size_t>(batch * stride * item)));
  const View a_col = ColumnMajorView(scratch, t, batch, m, n, m, stride);
  ARRAYD_RETURN_IF_ERROR(Elementwise({&a_col, &a}, "v1"));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> tau_buf,
                          Temp(static_cast<size_t>(batch * mn * item)));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> info_buf,
                          Temp(static_cast<size_t>(batch) * sizeof(int)));
  char* base = static_cast<char*>(scratch->data());
  char* tau = static_cast<char*>(tau_buf->data());
  int* info_p = static_cast<int*>(info_buf->data());  // argument errors only

  size_t dev_bytes = 0, host_bytes = 0;
  ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgeqrf_bufferSize(
      h, solver_params_, m, n, type, base, m, type, tau, type, &dev_bytes, &host_bytes));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> work, Temp(std::max<size_t>(dev_bytes, 1)));
  for (int64_t b = 0; b < batch; ++b) {
    ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgeqrf(
        h, solver_params_, m, n, type, base + b * stride * item, m, type, tau + b * mn * item, type,
        work->data(), dev_bytes, HostWork(host_bytes), host_bytes, info_p + b));
    ARRAYD_RETURN_IF_ERROR(AfterSolverCall(host_bytes));
  }
  // R: the upper triangle of the first k rows (rows past min(m, n) are zero).
  const View r_col = ColumnMajorView(scratch, t, batch, k, n, m, stride);
  ARRAYD_RETURN_IF_ERROR(MatrixOp(r, &r_col, MatrixExprKind::kKeepUpper, k, n));

  // Q from the reflectors (queued after R's copy, which reads the same buffer).
  const int im = static_cast<int>(m), ik = static_cast<int>(k), imn = static_cast<int>(mn);
  int lwork = 0;
  switch (t) {
    case DType::kFloat32:
      ARRAYD_CUSOLVER_RETURN_IF_ERROR(
          cusolverDnSorgqr_bufferSize(h, im, ik, imn, reinterpret_cast<float*>(base), im,
                                      reinterpret_cast<float*>(tau), &lwork));
      break;
    case DType::kFloat64:
      ARRAYD_CUSOLVER_RETURN_IF_ERROR(
          cusolverDnDorgqr_bufferSize(h, im, ik, imn, reinterpret_cast<double*>(base), im,
                                      reinterpret_cast<double*>(tau), &lwork));
      break;
    case DType::kComplex64:
      ARRAYD_CUSOLVER_RETURN_IF_ERROR(
          cusolverDnCungqr_bufferSize(h, im, ik, imn, reinterpret_cast<cuComplex*>(base), im,
                                      reinterpret_cast<cuComplex*>(tau), &lwork));
      break;
    default:
      ARRAYD_CUSOLVER_RETURN_IF_ERROR(
          cusolverDnZungqr_bufferSize(h, im, ik, imn, reinterpret_cast<cuDoubleComplex*>(base), im,
                                      reinterpret_cast<cuDoubleComplex*>(tau), &lwork));
      break;
  }
  ARRAYD_ASSIGN_OR_RETURN(
      std::shared_ptr<Buffer> qwork,
      Temp(static_cast<size_t>(std::max(lwork, 1)) * static_cast<size_t>(item)));
  for (int64_t b = 0; b < batch; ++b) {
    char* ab = base + b * stride * item;
    char* tb = tau + b * mn * item;
    switch (t) {
      case DType::kFloat32:
        ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnSorgqr(
            h, im, ik, imn, reinterpret_cast<float*>(ab), im, reinterpret_cast<const float*>(tb),
            static_cast<float*>(qwork->data()), lwork, info_p + b));
        break;
      case DType::kFloat64:
        ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnDorgqr(
            h, im, ik, imn, reinterpret_cast<double*>(ab), im, reinterpret_cast<const double*>(tb),
            static_cast<double*>(qwork->data()), lwork, info_p + b));
        break;
      case DType::kComplex64:
        ARRAYD_CUSOLVER_RETURN_IF_ERROR(
            cusolverDnCungqr(h, im, ik, imn, reinterpret_cast<cuComplex*>(ab), im,
                             reinterpret_cast<const cuComplex*>(tb),
                             static_cast<cuComplex*>(qwork->data()), lwork, info_p + b));
        break;
      default:
        ARRAYD_CUSOLVER_RETURN_IF_ERROR(
            cusolverDnZungqr(h, im, ik, imn, reinterpret_cast<cuDoubleComplex*>(ab), im,
                             reinterpret_cast<const cuDoubleComplex*>(tb),
                             static_cast<cuDoubleComplex*>(qwork->data()), lwork, info_p + b));
        break;
    }
  }
  const View q_col = ColumnMajorView(scratch, t, batch, m, k, m, stride);
  return Elementwise({&q, &q_col}, "v1");
}

absl::Status CudaStream::Svd(const View& a_in, const View& s_in, const View* u_in,
                             const View* vh_in, const View& info) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  View a, u, vh;
  ARRAYD_RETURN_IF_ERROR(AsMatrixBatch(a_in, "SVD", &a));
  cudaDataType type, real;
  ARRAYD_RETURN_IF_ERROR(SolverTypes(a.dtype, &type, &real));
  const DType t = a.dtype, rt = RealDType(t);
  const int64_t batch = a.shape[0], m = a.shape[1], n = a.shape[2], mn = std::min(m, n);
  if (s_in.dtype != rt || !s_in.IsCContiguous() || s_in.size() != batch * mn) {
    return absl::InternalError("SVD: s must be C-contiguous (batch, min(m, n)) of the real dtype");
  }
  int64_t ku = 0, kv = 0;  // columns of u, rows of vh
  if (u_in != nullptr) {
    ARRAYD_RETURN_IF_ERROR(AsMatrixBatch(*u_in, "SVD", &u));
    ku = u.shape[2];
    if (u.dtype != t || u.shape[0] != batch || u.shape[1] != m || (ku != m && ku != mn)) {
      return absl::InternalError("SVD: u must be (batch, m, m or min(m, n)) of a's dtype");
    }
  }
  if (vh_in != nullptr) {
    ARRAYD_RETURN_IF_ERROR(AsMatrixBatch(*vh_in, "SVD", &vh));
    kv = vh.shape[1];
    if (vh.dtype != t || vh.shape[0] != batch || vh.shape[2] != n || (kv != n && kv != mn)) {
      return absl::InternalError("SVD: vh must be (batch, n or min(m, n), n) of a's dtype");
    }
  }
  ARRAYD_RETURN_IF_ERROR(CheckInfoLayout(info, batch, "SVD"));
  if (batch == 0) return absl::OkStatus();
  ARRAYD_RETURN_IF_ERROR(ZeroInfo(info));
  if (mn == 0) {  // nothing to decompose: the singular vectors are the identity
    if (u_in != nullptr && u.size() > 0) {
      ARRAYD_RETURN_IF_ERROR(MatrixOp(u, nullptr, MatrixExprKind::kIdentity, m, ku));
    }
    if (vh_in != nullptr && vh.size() > 0) {
      ARRAYD_RETURN_IF_ERROR(MatrixOp(vh, nullptr, MatrixExprKind::kIdentity, kv, n));
    }
    return absl::OkStatus();
  }
  ARRAYD_ASSIGN_OR_RETURN(cusolverDnHandle_t h, Cusolver());
  const int64_t item = ItemSize(t), ritem = ItemSize(rt), mnn = m * n;
  // gesvd needs rows >= columns. Tall (m >= n): decompose the column-major
  // copy of A and transpose U and VT into u and vh. Wide (m < n): decompose
  // B = A^T (the row-major buffer read as column-major, n x m):
  // B = U_B S V_B^H gives A = conj(V_B) S U_B^T, and the column-major U_B
  // and V_B^H read row-major are exactly vh and u, so cuSOLVER writes them
  // in place.
  const bool tall = m >= n;
  const int64_t rows = tall ? m : n, cols = tall ? n : m;  // of the decomposed matrix
  View* left = tall ? (u_in != nullptr ? &u : nullptr) : (vh_in != nullptr ? &vh : nullptr);
  View* right = tall ? (vh_in != nullptr ? &vh : nullptr) : (u_in != nullptr ? &u : nullptr);
  const int64_t left_cols = tall ? ku : kv;  // columns of U of the decomposed matrix
  const signed char jobu = left == nullptr ? 'N' : (left_cols == rows ? 'A' : 'S');
  const signed char jobvt = right == nullptr ? 'N' : 'A';  // cols x cols

  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> scratch,
                          Temp(static_cast<size_t>(batch * mnn * item)));
  if (tall) {
    const View a_col = ColumnMajorView(scratch, t, batch, m, n, m, mnn);
    ARRAYD_RETURN_IF_ERROR(Elementwise({&a_col, &a}, "v1"));
  } else {
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(scratch->data(), a.data(),
                                                static_cast<size_t>(a.nbytes()),
                                                cudaMemcpyDeviceToDevice, stream_));
  }
  // Where U and VT go: straight into the outputs when wide, else scratch.
  std::shared_ptr<Buffer> u_scratch, vt_scratch;
  char* u_base = nullptr;
  char* vt_base = nullptr;
  const int64_t u_stride = rows * left_cols, vt_stride = cols * cols;
  if (left != nullptr) {
    if (tall) {
      ARRAYD_ASSIGN_OR_RETURN(u_scratch, Temp(static_cast<size_t>(batch * u_stride * item)));
      u_base = static_cast<char*>(u_scratch->data());
    } else {
      u_base = left->data();
    }
  }
  if (right != nullptr) {
    if (tall) {
      ARRAYD_ASSIGN_OR_RETURN(vt_scratch, Temp(static_cast<size_t>(batch * vt_stride * item)));
      vt_base = static_cast<char*>(vt_scratch->data());
    } else {
      vt_base = right->data();
    }
  }
  char* base = static_cast<char*>(scratch->data());
  char* s_base = s_in.data();
  int* info_p = reinterpret_cast<int*>(info.data());
  size_t dev_bytes = 0, host_bytes = 0;
  ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgesvd_bufferSize(
      h, solver_params_, jobu, jobvt, rows, cols, type, base, rows, real, s_base, type, u_base,
      rows, type, vt_base, cols, type, &dev_bytes, &host_bytes));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> work, Temp(std::max<size_t>(dev_bytes, 1)));
  for (int64_t b = 0; b < batch; ++b) {
    ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgesvd(
        h, solver_params_, jobu, jobvt, rows, cols, type, base + b * mnn * item, rows, real,
        s_base + b * mn * ritem, type, u_base == nullptr ? nullptr : u_base + b * u_stride * item,
        rows, type, vt_base == nullptr ? nullptr : vt_base + b * vt_stride * item, cols, type,
        work->data(), dev_bytes, HostWork(host_bytes), host_bytes, info_p + b));
    ARRAYD_RETURN_IF_ERROR(AfterSolverCall(host_bytes));
  }
  if (tall && left != nullptr) {
    const View u_col = ColumnMajorView(u_scratch, t, batch, m, ku, m, u_stride);
    ARRAYD_RETURN_IF_ERROR(Elementwise({&u, &u_col}, "v1"));
  }
  if (tall && right != nullptr) {
    const View vt_col = ColumnMajorView(vt_scratch, t, batch, n, n, n, vt_stride);
    ARRAYD_RETURN_IF_ERROR(Elementwise({&vh, &vt_col}, "v1"));
  }
  return absl::OkStatus();
}

absl::Status CudaStream::Eigh(const View& a_in, const View& w, const View* v_in, const View& info) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  View a, v;
  ARRAYD_RETURN_IF_ERROR(AsMatrixBatch(a_in, "eigh", &a));
  cudaDataType type, real;
  ARRAYD_RETURN_IF_ERROR(SolverTypes(a.dtype, &type, &real));
  const DType t = a.dtype, rt = RealDType(t);
  const int64_t batch = a.shape[0], n = a.shape[1];
  if (a.shape[2] != n || w.dtype != rt || !w.IsCContiguous() || w.size() != batch * n) {
    return absl::InternalError("eigh: needs square matrices and w (batch, n) of the real dtype");
  }
  if (v_in != nullptr) {
    ARRAYD_RETURN_IF_ERROR(AsMatrixBatch(*v_in, "eigh", &v));
    if (v.dtype != t || v.shape != a.shape) {
      return absl::InternalError("eigh: v must have a's shape and dtype");
    }
  }
  ARRAYD_RETURN_IF_ERROR(CheckInfoLayout(info, batch, "eigh"));
  if (batch == 0) return absl::OkStatus();
  ARRAYD_RETURN_IF_ERROR(ZeroInfo(info));
  if (n == 0) return absl::OkStatus();
  ARRAYD_ASSIGN_OR_RETURN(cusolverDnHandle_t h, Cusolver());
  const int64_t item = ItemSize(t), ritem = ItemSize(rt), nn = n * n;
  // The row-major A read as column-major is M = A^T = conj(A), whose upper
  // triangle is our lower one; M Z = Z W gives A conj(Z) = conj(Z) W, so the
  // eigenvalues are A's and v = conj(Z) read row-major.
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> scratch,
                          Temp(static_cast<size_t>(batch * nn * item)));
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(scratch->data(), a.data(),
                                              static_cast<size_t>(a.nbytes()),
                                              cudaMemcpyDeviceToDevice, stream_));
  char* base = static_cast<char*>(scratch->data());
  char* w_base = w.data();
  int* info_p = reinterpret_cast<int*>(info.data());
  const cusolverEigMode_t jobz =
      v_in != nullptr ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  size_t dev_bytes = 0, host_bytes = 0;
  ARRAYD_CUSOLVER_RETURN_IF_ERROR(
      cusolverDnXsyevd_bufferSize(h, solver_params_, jobz, CUBLAS_FILL_MODE_UPPER, n, type, base, n,
                                  real, w_base, type, &dev_bytes, &host_bytes));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> work, Temp(std::max<size_t>(dev_bytes, 1)));
  for (int64_t b = 0; b < batch; ++b) {
    ARRAYD_CUSOLVER_RETURN_IF_ERROR(
        cusolverDnXsyevd(h, solver_params_, jobz, CUBLAS_FILL_MODE_UPPER, n, type,
                         base + b * nn * item, n, real, w_base + b * n * ritem, type, work->data(),
                         dev_bytes, HostWork(host_bytes), host_bytes, info_p + b));
    ARRAYD_RETURN_IF_ERROR(AfterSolverCall(host_bytes));
  }
  if (v_in == nullptr) return absl::OkStatus();
  const View z_col = ColumnMajorView(scratch, t, batch, n, n, n, nn);
  return Elementwise({&v, &z_col}, MatrixExpr(MatrixExprKind::kConjugate));
}

// The general eigenproblem runs LAPACK's geev on a host copy, the CPU
// backend's routine: the Hessenberg QR iteration is sequential, and
// cuSOLVER's own geev (cusolverDnXgeev) also takes a host workspace for
// part of its work. The copies are synchronous, like the solvers' checks.
absl::Status CudaStream::Eig(const View& a, const View& w, const View* v, const View& info) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  auto host_like = [](const View& like) {
    const size_t n = static_cast<size_t>(std::max<int64_t>(like.nbytes(), 1));
    auto buffer =
        std::make_shared<Buffer>(std::malloc(n), n, [](void* p, size_t) { std::free(p); });
    return MakeContiguousView(std::move(buffer), like.dtype, like.shape);
  };
  View ha = host_like(a), hw = host_like(w), hinfo = host_like(info);
  std::optional<View> hv;
  if (v != nullptr) hv = host_like(*v);
  for (const View* h : {&ha, &hw, &hinfo}) {
    if (h->data() == nullptr) return OutOfMemoryError("eig: no host memory for the copy");
  }
  if (hv && hv->data() == nullptr) return OutOfMemoryError("eig: no host memory for the copy");
  ARRAYD_RETURN_IF_ERROR(CopyToHost(a, ha.data()));
  ARRAYD_RETURN_IF_ERROR(cpu::CpuEig(ha, hw, hv ? &*hv : nullptr, hinfo));
  ARRAYD_RETURN_IF_ERROR(CopyFromHost(hw.data(), w));
  ARRAYD_RETURN_IF_ERROR(CopyFromHost(hinfo.data(), info));
  if (hv) ARRAYD_RETURN_IF_ERROR(CopyFromHost(hv->data(), *v));
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace arrayd
