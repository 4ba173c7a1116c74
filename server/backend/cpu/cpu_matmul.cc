// CPU matrix products: OpenBLAS gemm for float32/64 and complex, a plain
// loop (accumulating like the reductions) for the other dtypes.
#include <cblas.h>

// OpenBLAS's (absent from other BLAS libraries: weak).
extern "C" void blas_thread_shutdown_(void) __attribute__((weak));

#include "backend/cpu/cpu_backend.h"
#include "common/status.h"
#include "kernels/functors.h"
#include "kernels/host_dispatch.h"

namespace arrayd {
namespace cpu {
namespace {

template <typename T>
struct MatmulAcc {
  using type = T;
};
template <>
struct MatmulAcc<kernels::Half> {
  using type = float;
};

template <typename T>
void NaiveMatmul(const T* a, const T* b, T* out, int64_t m, int64_t k, int64_t n) {
  using A = typename MatmulAcc<T>::type;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      A acc = kernels::Cast<A>(0);
      for (int64_t p = 0; p < k; ++p) {
        acc = kernels::AddOp()(acc, kernels::MultiplyOp()(kernels::Cast<A>(a[i * k + p]),
                                                          kernels::Cast<A>(b[p * n + j])));
      }
      out[i * n + j] = kernels::Cast<T>(acc);
    }
  }
}

}  // namespace

absl::Status CpuMatmul(const View& a, const View& b, const View& out) {
  const int64_t batch = a.shape[0], m = a.shape[1], k = a.shape[2], n = b.shape[2];
  if (out.size() == 0) return absl::OkStatus();
  for (int64_t i = 0; i < batch; ++i) {
    const char* pa = a.data() + i * m * k * ItemSize(a.dtype);
    const char* pb = b.data() + i * k * n * ItemSize(b.dtype);
    char* po = out.data() + i * m * n * ItemSize(out.dtype);
    const int im = static_cast<int>(m), ik = static_cast<int>(k), in = static_cast<int>(n);
    const int lda = std::max(ik, 1), ldb = std::max(in, 1), ldc = std::max(in, 1);
    switch (a.dtype) {
      case DType::kFloat32:
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, im, in, ik, 1.0f,
                    reinterpret_cast<const float*>(pa), lda, reinterpret_cast<const float*>(pb),
                    ldb, 0.0f, reinterpret_cast<float*>(po), ldc);
        break;
      case DType::kFloat64:
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, im, in, ik, 1.0,
                    reinterpret_cast<const double*>(pa), lda, reinterpret_cast<const double*>(pb),
                    ldb, 0.0, reinterpret_cast<double*>(po), ldc);
        break;
      case DType::kComplex64: {
        const float one[2] = {1, 0}, zero[2] = {0, 0};
        cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, im, in, ik, one, pa, lda, pb, ldb,
                    zero, po, ldc);
        break;
      }
      case DType::kComplex128: {
        const double one[2] = {1, 0}, zero[2] = {0, 0};
        cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, im, in, ik, one, pa, lda, pb, ldb,
                    zero, po, ldc);
        break;
      }
      default:
        kernels::DispatchDType(a.dtype, [&](auto tag) {
          using T = typename decltype(tag)::type;
          NaiveMatmul(reinterpret_cast<const T*>(pa), reinterpret_cast<const T*>(pb),
                      reinterpret_cast<T*>(po), m, k, n);
          return 0;
        });
    }
  }
  return absl::OkStatus();
}

void ParkHostBlasThreads() {
  if (blas_thread_shutdown_ != nullptr) blas_thread_shutdown_();
}

}  // namespace cpu
}  // namespace arrayd
