// The CPU backend: the reference implementation of every op, in plain C++
// over the shared functors. Memory is host memory with a byte limit so that
// an oversized request fails cleanly instead of waking the OOM killer.
#ifndef ARRAYD_BACKEND_CPU_CPU_BACKEND_H_
#define ARRAYD_BACKEND_CPU_CPU_BACKEND_H_

#include <atomic>
#include <memory>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "backend/backend.h"

namespace arrayd {
namespace cpu {

// Creates the CPU backend. `memory_limit` bytes may be allocated at once
// (0: 80% of physical memory).
std::unique_ptr<Backend> CreateCpuBackend(uint64_t memory_limit = 0);

// Stops the host BLAS's thread pool (OpenBLAS starts one thread per core
// when it loads); the next host BLAS call that wants threads starts it
// again. For a GPU server, whose host LAPACK runs rarely (eig): the
// threads would otherwise be a third of its threads, idle.
void ParkHostBlasThreads();

// Kernels of the CPU stream, one function per Stream method (cpu_*.cc).
absl::Status CpuFill(const View& out, const Scalar& value);
absl::Status CpuIota(const View& out, const Scalar& start, const Scalar& step);
absl::Status CpuRandom(RandomDist dist, uint64_t key, uint64_t counter, const View& out);
absl::Status CpuCopy(const View& src, const View& dst);
absl::Status CpuUnary(kernels::UnaryOp op, const View& in, const View& out);
absl::Status CpuBinary(kernels::BinaryOp op, const View& a, const View& b, const View& out);
absl::Status CpuFused(absl::Span<const FusedStep> steps, absl::Span<const View> leaves,
                      const View& out);
absl::Status CpuReduce(kernels::ReduceOp op, const View& in, absl::Span<const int> axes,
                       const View& out);
absl::Status CpuWhere(const View& cond, const View& x, const View& y, const View& out);
absl::Status CpuGather(const View& in, const View& index, const View& out);
absl::Status CpuTakeChecked(const View& x, const View& index, int axis, const View& out);
absl::Status CpuScatter(const View& values, const View& index, const View& target);
absl::Status CpuNonzero(const View& mask, const View& out);
// Scratch memory of a kernel from its stream's pool (counted against the
// quotas, reused across ops: fresh pages cost a fault and a zeroing
// each), `bytes` uninitialized; kept while the returned buffer lives.
using ScratchFn = absl::FunctionRef<absl::StatusOr<std::shared_ptr<Buffer>>(size_t bytes)>;

absl::Status CpuSort(const View& in, const View* out, const View* indices, ScratchFn scratch);
absl::Status CpuReduceAs(kernels::ReduceOp op, const View& in, DType as, absl::Span<const int> axes,
                         const View& out);
absl::Status CpuWrapIndex(const View& index, int64_t n, int axis, const View& out);
absl::Status CpuPartition(const View& in, const View* out, const View* indices,
                          absl::Span<const int64_t> kth);
absl::Status CpuSearchSorted(const View& a, const View& v, bool right, const View& out);
absl::Status CpuBincount(const View& x, const View* weights, const View& out);
absl::Status CpuHistogram(const View& a, const View& edges, const View* weights, const View& out);
absl::Status CpuScan(kernels::BinaryOp op, const View& a);
// cpu_filters.cc.
absl::Status CpuStencil(const View& in, absl::Span<const int64_t> taps, const View* weights,
                        int64_t rank, const View& out, const Stream::StencilBoundary* boundary);
absl::Status CpuPad(const View& in, absl::Span<const int64_t> lo, kernels::Boundary mode,
                    double cval, const View& out);
absl::Status CpuResample(const View& x, const View& index, const View& w, const View& out);
absl::Status CpuSplineFilter(const View& x, const kernels::SplinePoles& poles, const View& out);
absl::Status CpuMapCoordinates(const View& coeffs, const View& coords,
                               const kernels::InterpParams& p, const View& out);
absl::Status CpuLinearFilter(const View& b, const View& a, const View& x, const View* zi,
                             const View& y, const View& zf);
absl::Status CpuLabel(const View& mask, absl::Span<const int64_t> neighbors, const View& labels,
                      const View& count);
absl::Status CpuMatmul(const View& a, const View& b, const View& out);
absl::Status CpuArgReduce(kernels::ArgReduceOp op, const View& in, int axis, const View& out);
// cpu_linalg.cc (LAPACKE).
absl::Status CpuLuFactor(const View& a, const View& pivots, const View& info);
absl::Status CpuLuSolve(const View& lu, const View& pivots, const View& b);
absl::Status CpuCholesky(const View& a, const View& info);
absl::Status CpuQr(const View& a, const View& q, const View& r);
absl::Status CpuSvd(const View& a, const View& s, const View* u, const View* vh, const View& info);
absl::Status CpuEigh(const View& a, const View& w, const View* v, const View& info);
absl::Status CpuEig(const View& a, const View& w, const View* v, const View& info);
// cpu_fft.cc (FFTW3).
absl::Status CpuFft(const View& in, const View& out, int rank, bool inverse);
absl::Status CpuRfft(const View& in, const View& out, int rank);
absl::Status CpuIrfft(const View& in, const View& out, double scale);

}  // namespace cpu
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CPU_CPU_BACKEND_H_
