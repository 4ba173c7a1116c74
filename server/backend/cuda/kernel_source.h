// Generation of NVRTC sources for the CUDA backend's kernels. Pure string
// work, no CUDA calls: usable (and tested) on machines without a GPU.
//
// A source is the prelude (the device code: kernels/types.h,
// kernels/functors.h and this backend's device/*.cuh, embedded at build time
// in the order of ARRAYD_NVRTC_HEADERS in CMakeLists.txt) followed by one or
// more kernel bodies generated here. Each body defines one
// extern "C" __global__ function; its parameters are described next to each
// generator, and the host mirrors of the by-value structs are below.
#ifndef ARRAYD_BACKEND_CUDA_KERNEL_SOURCE_H_
#define ARRAYD_BACKEND_CUDA_KERNEL_SOURCE_H_

#include <string>
#include <utility>
#include <vector>

#include "array/dtype.h"
#include "kernels/op_list.h"

namespace arrayd {
namespace cuda {

// Collapsed dimensions a strided kernel handles.
inline constexpr int kMaxKernelDims = 8;
// Threads per block of every kernel.
inline constexpr int kBlockSize = 256;
// Upper bound of sizeof(accumulator) of any reduction, for partial buffers.
inline constexpr int kMaxAccBytes = 32;

// By-value structs of the kernels hold only 8-byte fields, so the host
// builds them as arrays of 8-byte words in field order:
//   gen::Strided<N, ND>     {shape[ND], stride[N][ND]}
//   gen::ReduceArgs<KD, RD> {in, out, partial, m, k, kshape[KD], kin[KD],
//                            kout[KD], rshape[RD], rin[RD]}

// Host mirror of gen::IotaParams: start/step in each Scalar kind.
struct IotaArgs {
  long long i0, di;
  unsigned long long u0, du;
  double re0, dre, im0, dim;
};

// Host mirror of gen::SearchParams.
struct SearchArgs {
  const char* a;
  long long n, stride, right;
};

// The C++ type name of `dtype` in generated sources (types.h's typedefs).
const char* KernelTypeName(DType dtype);
// KernelTypeName qualified for use outside arrayd::kernels.
std::string QualifiedTypeName(DType dtype);

// The part common to every source.
const std::string& KernelPrelude();

// A whole source: the prelude, then the bodies.
std::string BuildSource(const std::vector<std::string>& bodies);

// A stencil kernel of device/filters.cuh over `dtype` with room for `cap`
// taps: the weighted sum, (gen::StencilGeometry g, gen::StencilTaps<cap>
// taps, int k, const T* w, T* out), or the rank selection, (g, taps, int k,
// int rank, T* out), whose rank is compiled in as static_rank up to 32
// taps (gen::StencilRank; -1 beyond, and for sums). A grid of (columns,
// rows) blocks.
std::string StencilBody(DType dtype, int cap, bool weighted, const std::string& name,
                        int static_rank);
// numpy.pad's extending modes (device/filters.cuh's PadExtend) over
// `dtype`: (gen::StencilGeometry g, gen::PadShape ps, T* out), a grid of
// (columns, rows) blocks.
std::string PadBody(DType dtype, const std::string& name);
// Resampling along an axis (device/filters.cuh's ResampleAxis) of
// `dtype`, k taps a point compiled in (0: s.k): (gen::ResampleShape s,
// const T* x, const long long* index, const T* w, T* out).
std::string ResampleBody(DType dtype, int k, const std::string& name);
// One pole of the spline prefilter (device/filters.cuh's SplinePoleAxis)
// over `dtype`: (const T* in, T* out, long long outer, long long n, long
// long inner, double z, long long warm, long long mode).
std::string SplineBody(DType dtype, const std::string& name);
// label's kernels (device/filters.cuh), with parent links of `index`
// (int32 or int64, L): `name`_init(const bool* mask, L* p, long long n),
// _merge(mask, p, n, int nd, int k, gen::LabelNeighbors nb), _flatten(mask,
// p, n), _count(const L* p, n, long long chunk, long long* counts),
// _number(p, n, chunk, counts, L* num, long long* total) and _apply(L* p,
// n, const L* num).
std::string LabelBody(DType index, const std::string& name);
// map_coordinates (device/filters.cuh's MapCoordinatesAll) of coefficients
// of `dtype` at coordinates of `coords`, d dimensions and the spline order
// compiled in (-1 for both: taken from p): (kernels::InterpParams p,
// const T* coeffs, const C* coords, T* out, long long total).
std::string MapCoordinatesBody(DType dtype, DType coords, int d, int order,
                               const std::string& name);

// An elementwise kernel over operands [0] = output, [1..] = inputs.
// Elements per lane per step of strided elementwise kernels (ElementwiseBody).
inline constexpr int kStridedUnroll = 4;

struct ElementwiseSpec {
  std::vector<DType> dtypes;
  // The value stored in the output, a C++ expression of the inputs `v1`,
  // `v2`, ... (of their element types, T1, T2, ...), the linear index `i`
  // (C order) and the extra parameter, if any; converted to T0.
  std::string expr;
  // An optional extra kernel parameter passed by value, e.g. "T0 value" or
  // "IotaParams ip" (declared as its type and its name).
  std::string extra_type, extra_name;
  // -1: every operand contiguous (1-D, vectorized); 1..kMaxKernelDims:
  // strided with that many (collapsed) dimensions.
  int ndim = -1;
  // Contiguous kernels: the inputs (bit k for v_k) that are one element
  // broadcast (stride 0: a 0-d constant), read as one value.
  unsigned scalar_mask = 0;
  // Strided kernels of fewer than 2^31 elements: the index arithmetic (a
  // division per dimension per element) in 32 bits, several times faster
  // than 64-bit division on the GPU.
  bool index32 = false;
};

// The body of kernel `name` for `spec`. Parameters:
//   contiguous: (char* p0, const char* p1, ..., long long n, int aligned[, extra])
//     `aligned` != 0 when every pointer is 16-byte aligned (vector loads).
//   strided:    (char* p0, const char* p1, ..., long long n,
//                gen::Strided<N, ndim> s[, extra])
std::string ElementwiseBody(const ElementwiseSpec& spec, const std::string& name);

// Small contiguous ops of one kernel (the same `spec`, no extra parameter)
// launched together: at most kMaxGroupOps ops, each a run of blocks.
// Parameter: (const __grid_constant__ Group g), host mirror an array of
// 8-byte words {count, then per op: p[N], n, first_block, aligned}, with
// room for kMaxGroupOps ops (N = spec.dtypes.size(), at most 3: the struct
// stays under the 4 KiB of a launch's parameters).
inline constexpr int kMaxGroupOps = 64;
inline constexpr int kMaxGroupOperands = 3;
std::string ElementwiseGroupBody(const ElementwiseSpec& spec, const std::string& name);

// Elements per thread of the contiguous kernel (16 bytes of the widest type).
int VectorWidth(const std::vector<DType>& dtypes);

// Reductions. `kind` names the Op struct: "sum", "prod", "min", "max",
// "all", "any", "argmin", "argmax". Three kernels share the parameters
// (gen::ReduceArgs<kd, rd> a):
//   name + "_block":  grid (x: outputs, y: splits), a block reduces one
//                     output's slice; writes out, or partial when gridDim.y > 1.
//   name + "_thread": grid (x*blockDim: outputs, y: splits), a thread reduces
//                     one output's slice.
//   name + "_finish": one block per output reduces its `splits` partials
//                     (a.k is the number of splits) into out.
struct ReduceSpec {
  ReduceSpec(std::string kind, DType in, DType out, int kd = 1, int rd = 1)
      : kind(std::move(kind)), in(in), out(out), kd(kd), rd(rd) {}
  std::string kind;
  DType in, out;
  int kd = 1, rd = 1;  // collapsed kept / reduced dims, 1..kMaxKernelDims
  // The reduction's dtype, which each element read (of dtype `in`) is cast
  // to (sum, prod, min, max); kInvalid: `in`.
  DType as = DType::kInvalid;
  // A fused reduction (gen::FusedSource, args gen::FusedReduceArgs<leaves,
  // kd, rd>): the leaves' dtypes, and the element's value as an expression
  // of v1..vN (the leaves' elements), of dtype `in`. Empty: an array.
  std::vector<DType> leaves;
  std::string value;
};
std::string ReduceBody(const ReduceSpec& spec, const std::string& name);

// Host mirror of gen::FlatLayout: random access by C-order flat position
// to an array of at most kMaxKernelDims collapsed dims.
struct FlatLayoutArgs {
  char* base;
  long long nd;
  long long shape[8];
  long long stride[8];
};
static_assert(kMaxKernelDims == 8, "gen::FlatLayout holds 8 dims");

// Scatter of `values` (cast) into a target, the indices checked:
//   kernel `name`(const char* idx, const char* vals, long long n,
//   gen::Strided<2, nd> s /* idx, vals */, gen::FlatLayout target,
//   long long size, W* winner, int pass, unsigned long long* error,
//   unsigned long long check), W long long when `wide`, else int.
std::string ScatterBody(DType values, DType target, int nd, bool wide, const std::string& name);
// The packed scatter (targets of at most 4 bytes): the same parameters,
//   with unsigned long long* packed for the winner.
std::string ScatterPackedBody(DType values, DType target, int nd, const std::string& name);
// The checked take along an axis (TakeChecked of device/indexing.cuh) of
// elements of `item_bytes` bytes.
std::string TakeBody(int item_bytes, const std::string& name);

// The device side of CudaStream::CheckInfo: kernel `name`(const int* info,
// long long n, unsigned long long* error, unsigned long long check) sets
// the check word to (check, info value) at the first positive info.
std::string InfoCheckBody(const std::string& name);

// The device side of CudaStream::WrapIndex: kernel `name`(const long long*
// idx, long long m, long long n, long long* out, unsigned long long* error,
// unsigned long long check).
std::string WrapIndexBody(const std::string& name);

// Nonzero of a bool mask of `nd` collapsed dims: name + "_count"(mask, n,
// chunk, gen::Strided<1, nd> s, long long* counts) with one block per chunk,
// then name + "_write"(mask, n, chunk, s, counts, long long* out, out_n).
std::string NonzeroBody(int nd, const std::string& name);
// bincount: (const long long* x, long long x_stride, const double* w,
// long long w_stride, long long n, long long length, char* out, int shared),
// strides in elements, w null for counts; `shared` counts in the block's
// shared memory first (length <= kBincountSharedBins).
std::string BincountBody(const std::string& name);
inline constexpr long long kBincountSharedBins = 2048;
// histogram of values of `dtype`: (const char* x, long long x_stride_bytes,
// const char* edges, long long num_edges, long long edge_stride_bytes,
// const double* w, long long w_stride, long long n, char* out, int shared).
std::string HistogramBody(DType dtype, const std::string& name);

// Stable segmented bitonic sort, lines padded to a power of two p:
//   name + "_init"(in, lines, n, p, gen::Strided<1, nd> s, keys, idx)
//   name + "_step"(keys, idx, total, n, p, k, j)   one step (k, j) in global memory
//   name + "_local"(keys, idx, total, n, p, k_first, k_last, j_first): the
//       steps with j < kSortTile, in shared memory, one block per tile
//   name + "_out"(keys, idx, lines, n, p, out, ind /* may be null */)
std::string SortBody(DType dtype, int nd, const std::string& name);
// Elements per tile of the "_local" sort kernel (a power of two).
inline constexpr long long kSortTile = 1024;

// Tiled matrix product of C-contiguous operands: kernel `name`(a, b, out,
// batch, m, k, n); grid x: 16x16 output tiles, y: batches; 256 threads.
std::string MatmulBody(DType dtype, const std::string& name);

// Philox blocks a thread of the random kernels makes per step (four
// independent chains in flight; tests/bench/kernel_variants.cu).
constexpr int kPhiloxBlocksPerThread = 4;

// Kernel `name`(T* out, n, counter, key): a Philox random stream (uniform or
// standard normal) into a contiguous float32/float64 array.
std::string RandomBody(DType dtype, bool normal, const std::string& name);

// Expressions of elementwise kernels (ElementwiseSpec::expr) over a batch of
// C-order matrices, for the linear algebra and FFT helpers. Each takes the
// extra parameter "MatrixParams mp" (host mirror: MatrixArgs) giving the
// output's (rows, cols) and a factor; inputs are v1 (of type T1) where used.
struct MatrixArgs {
  long long rows, cols;
  double scale;
};
enum class MatrixExprKind {
  kKeepUpper,  // v1 on and above the diagonal, 0 below (R of QR)
  kKeepLower,  // v1 on and below the diagonal, 0 above (Cholesky's L)
  kIdentity,   // no input: 1 on the diagonal, else 0
  kConjugate,  // conj(v1) (mp unused), for eigenvectors
  // Complex v1 times mp.scale with its imaginary part dropped in columns 0
  // and n/2, where mp.rows = n is the length of the real signal and mp.cols
  // = n/2 + 1: the half spectrum an inverse real FFT reads, as FFTW and
  // pocketfft read it (the inverse's norm factor applied on the way).
  kHalfSpectrumEnds,
};
const char* MatrixExpr(MatrixExprKind kind);

}  // namespace cuda
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_KERNEL_SOURCE_H_
