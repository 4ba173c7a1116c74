// The Backend interface: everything the server asks of a device. A Backend
// owns a device (memory, properties); each session gets its own Stream, on
// which its ops run in order. Implementations: backend/cpu (the reference,
// used by CI), backend/cuda. No vendor API is called outside backend/.
//
// Kernel contracts: views passed to one call have the same shape unless the
// call says otherwise (broadcasting is done by the caller with zero strides);
// sizes may be zero; output views never overlap inputs except exactly.
#ifndef ARRAYD_BACKEND_BACKEND_H_
#define ARRAYD_BACKEND_BACKEND_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "array/view.h"
#include "kernels/boundary.h"
#include "kernels/interp.h"
#include "kernels/op_list.h"

namespace arrayd {

// A host value of any dtype, as sent in op attributes.
struct Scalar {
  enum Kind { kBool, kInt, kUInt, kFloat, kComplex } kind = kInt;
  int64_t i = 0;
  uint64_t u = 0;
  double re = 0, im = 0;

  static Scalar Int(int64_t v) { Scalar s; s.kind = kInt; s.i = v; return s; }
  static Scalar UInt(uint64_t v) { Scalar s; s.kind = kUInt; s.u = v; return s; }
  static Scalar Float(double v) { Scalar s; s.kind = kFloat; s.re = v; return s; }
  static Scalar Complex(double re, double im) {
    Scalar s; s.kind = kComplex; s.re = re; s.im = im; return s;
  }
  static Scalar Bool(bool v) { Scalar s; s.kind = kBool; s.i = v; return s; }
};

// The distributions of Stream::Random.
enum class RandomDist { kUniform, kNormal };

struct DeviceDescription {
  std::string backend;
  int index = 0;
  std::string name;
  uint64_t total_memory = 0;
  // What CUDA's device properties say (0 or empty on the CPU backend).
  int compute_major = 0, compute_minor = 0;
  int multiprocessor_count = 0;
  int max_threads_per_block = 0;
  int warp_size = 0;
  uint64_t shared_memory_per_block = 0;
  uint64_t l2_cache_bytes = 0;
  int clock_rate_khz = 0;
  std::string pci_bus_id;
};

// How an event is made (CuPy's Event(block=, disable_timing=)).
struct EventOptions {
  bool timing = true;     // false: ElapsedSince is refused (cheaper on CUDA)
  bool blocking = false;  // Synchronize blocks the thread instead of spinning
};

// A point in a stream's work (cudaEvent_t): Stream::Record marks it,
// Stream::Wait orders another stream's later work after it, and the host
// may wait for it. Made by Stream::CreateEvent, usable with every stream of
// the device. Not thread-safe (one session's executor uses it).
class Event {
 public:
  virtual ~Event() = default;
  // Whether the work before its last record is done (true when it was
  // never recorded, as CUDA's).
  virtual absl::StatusOr<bool> Query() = 0;
  // Waits for the work before its last record.
  virtual absl::Status Synchronize() = 0;
  // Device time in milliseconds from `start`'s last record to this one's;
  // both recorded, done and made with timing (FAILED_PRECONDITION otherwise).
  virtual absl::StatusOr<double> ElapsedSince(Event& start) = 0;
};

// User code for the device (RawModule, RawKernel, and the kernels the
// client generates for ElementwiseKernel, ReductionKernel and fuse).
// Either CUDA C++ `source` to compile, or a compiled `image` (CUBIN, PTX or
// fatbin, as RawModule(path=) reads it) to load as it is.
struct KernelModuleSpec {
  std::string source;                         // CUDA C++
  std::vector<std::string> options;           // the compiler's, as NVRTC takes them
  std::vector<std::string> name_expressions;  // e.g. "f<float>", for templates
  std::string image;                          // a compiled module instead of source
};

// A module compiled and loaded for the device; shared (one per spec for
// the whole server) and never unloaded while referenced.
class KernelModule {
 public:
  explicit KernelModule(std::string log = "") : log_(std::move(log)) {}
  virtual ~KernelModule() = default;
  // The compiler's messages (warnings) from compiling it; "" when none.
  const std::string& log() const { return log_; }

 private:
  const std::string log_;
};

// Where a module came from, for logs and tests: the cache is shared by
// every session and kept on disk across restarts.
enum class ModuleOrigin { kCompiled = 0, kMemoryCache = 1, kDiskCache = 2 };

// A kernel's attributes (cudaFuncAttributes; CuPy's RawKernel.attributes).
struct KernelAttributes {
  int max_threads_per_block = 0;
  int num_regs = 0;
  int shared_size_bytes = 0;
  int const_size_bytes = 0;
  int local_size_bytes = 0;
  int ptx_version = 0;
  int binary_version = 0;
  int max_dynamic_shared_size_bytes = 0;
  int preferred_shared_memory_carveout = 0;
  int cache_mode_ca = 0;
};

struct LaunchDims {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned shared_mem = 0;
};

// One ufunc application of a fused elementwise chain (Stream::Fused):
// op(Cast<in[0]>(arg 0)[, Cast<in[1]>(arg 1)]) stored as `out`, as the
// unfused op would store it. An argument below the number of leaves is that
// leaf; above, the result of step (arg - leaves), an earlier one.
struct FusedStep {
  bool unary = false;
  int op = 0;  // kernels::UnaryOp or kernels::BinaryOp
  int args[2] = {0, 0};
  DType in[2] = {DType::kInvalid, DType::kInvalid};  // the loop's input dtypes
  DType out = DType::kInvalid;                        // and its output dtype
};

// A session's ordered queue of work on one device. Not thread-safe: one
// session's executor uses it. Calls may return before the work is done;
// Synchronize() waits, and CopyToHost is synchronous.
class Stream {
 public:
  virtual ~Stream() = default;

  // Memory for `nbytes` bytes, usable by work on this stream.
  // RESOURCE_EXHAUSTED when the device is out of memory.
  virtual absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t nbytes) = 0;

  // Host <-> device copies of a C-contiguous view.
  virtual absl::Status CopyFromHost(const void* src, const View& dst) = 0;
  virtual absl::Status CopyToHost(const View& src, void* dst) = 0;

  // out[...] = value, cast to out's dtype.
  virtual absl::Status Fill(const View& out, const Scalar& value) = 0;
  // out[i] = start + i * step for a 1-D `out`, computed in start's kind
  // (int64, uint64, float64 or complex128), then cast.
  virtual absl::Status Iota(const View& out, const Scalar& start, const Scalar& step) = 0;
  // dst[...] = src[...] with casting; same shape (src may have zero strides).
  virtual absl::Status Copy(const View& src, const View& dst) = 0;

  // out = op(in); `in` has the compute dtype, `out` the op's result dtype.
  virtual absl::Status Unary(kernels::UnaryOp op, const View& in, const View& out) = 0;
  // out = op(a, b); a and b share the compute dtype.
  virtual absl::Status Binary(kernels::BinaryOp op, const View& a, const View& b,
                              const View& out) = 0;
  // Reduces `in` over `axes` (sorted, unique) into `out`, whose shape is
  // in's without those axes. Sum/prod/min/max: in and out share a dtype;
  // all/any: out is bool.
  virtual absl::Status Reduce(kernels::ReduceOp op, const View& in,
                              absl::Span<const int> axes, const View& out) = 0;
  // Reduce(op, in cast to `as`, axes, out) without the cast's copy: each
  // element is cast as it is read (a bool mask's sum in int64, an int32
  // array's mean in float64). UNIMPLEMENTED where the backend has no such
  // kernel: the op layer casts first.
  virtual absl::Status ReduceAs(kernels::ReduceOp /*op*/, const View& /*in*/, DType /*as*/,
                                absl::Span<const int> /*axes*/, const View& /*out*/) {
    return absl::UnimplementedError("reduce: no casting kernel on this backend");
  }
  // Index (int64) of the min/max along `axis`; `out` has in's shape without it.
  virtual absl::Status ArgReduce(kernels::ArgReduceOp op, const View& in, int axis,
                                 const View& out) = 0;

  // A hint that [data, data + n) is host memory that CopyFromHost and
  // CopyToHost will use again and again (a client's shared memory); a GPU
  // backend may pin it so copies run at DMA speed. Call
  // UnregisterHostMemory(data) before unmapping it.
  virtual absl::Status RegisterHostMemory(void* /*data*/, size_t /*n*/) {
    return absl::OkStatus();
  }
  virtual void UnregisterHostMemory(void* /*data*/) {}

  // The device's memory now: bytes free and in all (cudaMemGetInfo; on the
  // CPU backend its limit less what is allocated). Device.mem_info.
  virtual absl::Status MemoryInfo(uint64_t* /*free*/, uint64_t* /*total*/) {
    return absl::UnimplementedError("memory info: not on this backend");
  }

  // out = the last step of `steps` applied elementwise, in registers: one
  // kernel for a chain of ufuncs (ops/fusion.cc) that reads the leaves
  // once and writes only `out`. Leaves have out's shape (zero strides where
  // broadcast) and any dtypes; `out` has the last step's output dtype.
  // Results are bit-identical to the steps run one by one. UNIMPLEMENTED
  // where there is no fused kernel: the op layer then runs the steps.
  virtual absl::Status Fused(absl::Span<const FusedStep> /*steps*/,
                             absl::Span<const View> /*leaves*/, const View& /*out*/) {
    return absl::UnimplementedError("fused elementwise: no kernel on this backend");
  }
  // ReduceAs(op, value, as, axes, out) of a chain's value computed in
  // registers (fused_reduction, ops/fusion.cc): one pass over the leaves,
  // nothing materialized. `value` says what the unfused ops would have
  // reduced: the last step's result, its dtype, shape and strides (its data
  // is not read); the leaves have its shape. Bit-identical to the unfused
  // ops. UNIMPLEMENTED as Fused.
  virtual absl::Status FusedReduce(kernels::ReduceOp /*op*/, absl::Span<const FusedStep> /*steps*/,
                                   absl::Span<const View> /*leaves*/, const View& /*value*/,
                                   DType /*as*/, absl::Span<const int> /*axes*/,
                                   const View& /*out*/) {
    return absl::UnimplementedError("fused reduction: no kernel on this backend");
  }
  // out = cond ? x : y elementwise; x, y and out share a dtype, cond is bool.
  virtual absl::Status Where(const View& /*cond*/, const View& /*x*/, const View& /*y*/,
                             const View& /*out*/) {
    return absl::UnimplementedError("where: no kernel on this backend");
  }
  // out[k] = in[unravel(index[k])]: `index` holds C-order flat positions
  // (int64, in range) into `in`, which may have any strides; out has
  // index's shape and in's dtype.
  virtual absl::Status Gather(const View& /*in*/, const View& /*index*/, const View& /*out*/) {
    return absl::UnimplementedError("gather: no kernel on this backend");
  }
  // target[unravel(index[k])] = values[k], values cast to target's dtype;
  // values has index's shape. With repeated indices the last write wins.
  // The int64 indices count from the end when negative and are checked:
  // IndexError("index i is out of bounds for axis 0 with size n") for one
  // outside [-n, n), at once (nothing written) here, from CheckError after
  // the next sync on a GPU (op "put"; nothing written by this scatter).
  virtual absl::Status Scatter(const View& /*values*/, const View& /*index*/,
                               const View& /*target*/) {
    return absl::UnimplementedError("scatter: no kernel on this backend");
  }
  // The C-order flat positions of the true elements of `mask` (any
  // strides), in increasing order, into the 1-D int64 `out` whose length is
  // their count as the caller expects it. Where the mask has another count,
  // no position past out's end is stored and ValueError("flatnonzero: ...")
  // comes: at once here, from CheckError after the next sync on a GPU.
  virtual absl::Status Nonzero(const View& /*mask*/, const View& /*out*/) {
    return absl::UnimplementedError("nonzero: no kernel on this backend");
  }
  // out[...] = numpy.searchsorted(a, v[...]): `a` 1-D (any stride), sorted
  // in NumPy's order (kernels::SortLess), v any shape of a's dtype, out
  // int64 of v's shape; `right` for side='right'.
  virtual absl::Status SearchSorted(const View& /*a*/, const View& /*v*/, bool /*right*/,
                                    const View& /*out*/) {
    return absl::UnimplementedError("searchsorted: no kernel on this backend");
  }
  // numpy.bincount: out[x[i]] += 1, or += weights[i]; x 1-D int64 (any
  // stride), out 1-D C-contiguous of the length, int64 (float64 with
  // float64 weights of x's shape), zeroed first. Values outside out are
  // skipped (the op layer checked them).
  virtual absl::Status Bincount(const View& /*x*/, const View* /*weights*/, const View& /*out*/) {
    return absl::UnimplementedError("bincount: no kernel on this backend");
  }
  // numpy.histogram's counts (float64 sums of weights) of the values of
  // the 1-D `a` in the bins of the sorted 1-D `edges` (a's dtype, any
  // strides): kernels::HistogramBin; out (edges - 1) C-contiguous int64
  // (float64 with weights of a's shape), zeroed first.
  virtual absl::Status Histogram(const View& /*a*/, const View& /*edges*/, const View* /*weights*/,
                                 const View& /*out*/) {
    return absl::UnimplementedError("histogram: no kernel on this backend");
  }
  // Stable sort of `in` along its last axis into `out` (same shape and
  // dtype, C-contiguous), NaNs last as in NumPy; when `indices` is not null
  // it receives the int64 argsort (C-contiguous), and `out` may be null
  // (an argsort that wants no sorted values).
  virtual absl::Status Sort(const View& /*in*/, const View* /*out*/, const View* /*indices*/) {
    return absl::UnimplementedError("sort: no kernel on this backend");
  }
  // numpy.partition/argpartition along the last axis, as Sort's operands:
  // each line's elements at the sorted, distinct positions `kth` are those
  // of the sorted line, smaller ones (NumPy's order, NaNs last) before
  // them, the others after. A full sort satisfies that (the default).
  virtual absl::Status Partition(const View& in, const View* out, const View* indices,
                                 absl::Span<const int64_t> /*kth*/) {
    return Sort(in, out, indices);
  }

  // out[o, j, i] = x[o, index[j], i] for x of shape (outer, n, inner), any
  // strides, `index` 1-D int64 (negative values count from the end, as
  // NumPy's), out C-contiguous (outer, m, inner); `axis` names the axis in
  // the error. An index outside [-n, n) is NumPy's IndexError: returned
  // now by a backend that checks on the host, or checked on the device and
  // reported by CheckError after the stream's next Synchronize (no host
  // round trip on the op path; the element is written as zero meanwhile).
  virtual absl::Status TakeChecked(const View& /*x*/, const View& /*index*/, int /*axis*/,
                                   const View& /*out*/) {
    return absl::UnimplementedError("take: no checked kernel on this backend");
  }
  // out = index, negative values counted from the end (+ n), for the
  // C-contiguous int64 `index` and `out` of one shape; a value outside
  // [-n, n) is NumPy's IndexError ("index i is out of bounds for axis
  // `axis` with size n"): returned here, from CheckError after the next
  // sync on a GPU (op "take_along_axis"; out is 0 there meanwhile).
  virtual absl::Status WrapIndex(const View& /*index*/, int64_t /*n*/, int /*axis*/,
                                 const View& /*out*/) {
    return absl::UnimplementedError("wrap index: no kernel on this backend");
  }
  // LinAlgError(message) when an element of `info` (int32, C-contiguous:
  // a LAPACK-style status per matrix) is positive: a singular matrix, one
  // not positive definite, no convergence. Checked on the host here; a GPU
  // backend checks on the device and reports it, as op `op`'s error, from
  // CheckError after the next Synchronize (no host round trip in the op).
  virtual absl::Status CheckInfo(const View& info, absl::string_view op,
                                 absl::string_view message);
  // Whether ops with device-side checks were queued since the last
  // CheckError (then the next Synchronize should be followed by one).
  virtual bool HasPendingChecks() const { return false; }
  // After Synchronize: the first device-side check that failed since the
  // last call, as the op's error (`*op` its name); OK when none. Clears it.
  virtual absl::Status CheckError(std::string* /*op*/) { return absl::OkStatus(); }

  // In-place inclusive scan along the last axis of C-contiguous `a` (its
  // accumulator dtype): kAdd for cumsum, kMultiply for cumprod.
  // UNIMPLEMENTED where the backend has no scan for the dtype: the op layer
  // then scans with elementwise passes.
  virtual absl::Status Scan(kernels::BinaryOp /*op*/, const View& /*a*/) {
    return absl::UnimplementedError("scan: no kernel on this backend");
  }

  // The stencils of scipy.ndimage's filters (ops/filters.cc). `in` has out's
  // shape and its own strides: out[i] is a function of the values at byte
  // offsets `taps` from in's element i (at most kMaxStencilTaps). With
  // `weights` (one value per tap, out's dtype) their weighted sum in that
  // dtype, taps in order; else the rank-th smallest value (real dtypes). in
  // and out share a dtype; out is C-contiguous. Without `boundary` the taps
  // stay inside padding that the op layer made around `in`; with it they
  // may reach past in's edges, which `boundary` extends.
  static constexpr int kMaxStencilTaps = 256;
  // Each dimension's extent of a footprint with a boundary (offsets -
  // lo[d] in [0, kMaxStencilExtent), the kernels pack them in bytes).
  static constexpr int kMaxStencilExtent = 256;
  struct StencilBoundary {
    kernels::Boundary mode;
    double cval;                   // kConstant's value (cast to the dtype)
    std::vector<int64_t> offsets;  // each tap's per-dimension offsets, K x ndim
    std::vector<int64_t> lo, hi;   // per dimension: -(least offset), greatest (>= 0)
  };
  // numpy.pad's edge, symmetric, reflect and wrap modes (and the constant
  // `cval`): out (C-contiguous, in's shape plus lo and hi along each
  // dimension) with out[i] = in[BoundaryIndex(i - lo)] per dimension.
  virtual absl::Status Pad(const View& /*in*/, absl::Span<const int64_t> /*lo*/,
                           kernels::Boundary /*mode*/, double /*cval*/, const View& /*out*/) {
    return absl::UnimplementedError("pad: no kernel on this backend");
  }
  // The dtypes of weighted stencils and of LinearFilter.
  static bool FilterDType(DType d) { return IsInexact(d) && d != DType::kFloat16; }
  virtual absl::Status Stencil(const View& /*in*/, absl::Span<const int64_t> /*taps*/,
                               const View* /*weights*/, int64_t /*rank*/, const View& /*out*/,
                               const StencilBoundary* /*boundary*/) {
    return absl::UnimplementedError("stencil: no kernel on this backend");
  }

  // Resampling along an axis (scipy.ndimage's zoom and shift): x and out
  // C-contiguous, x (outer, n, inner) and out (outer, m, inner) as 3-D
  // views of their arrays, out[o, i, r] = sum over j of w[i, j] *
  // x[o, clamp(index[i, j], 0, n - 1), r], taps in order, in x's dtype
  // (FilterDType); index (int64) and w (x's dtype) C-contiguous (m, k).
  virtual absl::Status Resample(const View& /*x*/, const View& /*index*/, const View& /*w*/,
                                const View& /*out*/) {
    return absl::UnimplementedError("resample: no kernel on this backend");
  }

  // scipy.ndimage.spline_filter1d along the middle axis of the
  // C-contiguous (outer, n, inner) 3-D view x into out (the same shape and
  // dtype, FilterDType), pole by pole (kernels/interp.h's SplinePoles and
  // SplinePoleChunk).
  virtual absl::Status SplineFilter(const View& /*x*/, const kernels::SplinePoles& /*poles*/,
                                    const View& /*out*/) {
    return absl::UnimplementedError("spline_filter: no kernel on this backend");
  }

  // scipy.ndimage.map_coordinates' spline interpolation
  // (kernels/interp.h's InterpolateAt, p filled in by the op): coeffs
  // (float32 or float64, C-contiguous, its batch axes first) at coords
  // (float32 or float64, C-contiguous (p.d, p.points)); out (coeffs'
  // dtype, C-contiguous) holds a batch entry's p.points values after
  // another.
  virtual absl::Status MapCoordinates(const View& /*coeffs*/, const View& /*coords*/,
                                      const kernels::InterpParams& /*p*/, const View& /*out*/) {
    return absl::UnimplementedError("map_coordinates: no kernel on this backend");
  }

  // scipy.signal.lfilter's recursion (transposed direct form II) along the
  // last axis of C-contiguous x (rows, n) into y (same shape): b (nb) and a
  // (na, a[0] != 0) of x's dtype (float32/64, complex64/128), the state zi
  // (rows, m), m = max(na, nb) - 1, or null for zeros; the final state into
  // zf (rows, m), m at most kMaxLinearFilterOrder. All C-contiguous.
  static constexpr int kMaxLinearFilterOrder = 128;
  virtual absl::Status LinearFilter(const View& /*b*/, const View& /*a*/, const View& /*x*/,
                                    const View* /*zi*/, const View& /*y*/, const View& /*zf*/) {
    return absl::UnimplementedError("lfilter: no kernel on this backend");
  }

  // scipy.ndimage.label: the connected components of the nonzero elements
  // of the C-contiguous bool `mask`, numbered from 1 in C order of their
  // first elements, 0 for zeros, into the C-contiguous `labels` (int32, or
  // int64 for 2^31 elements and more) of mask's shape; the number of
  // components into the 0-d int64 `count`. `neighbors`: per-dimension
  // offsets (K x ndim, at most kMaxLabelNeighbors) of the neighbors that
  // come before an element in C order (the structure's other half mirrors
  // them).
  static constexpr int kMaxLabelNeighbors = 64;
  virtual absl::Status Label(const View& /*mask*/, absl::Span<const int64_t> /*neighbors*/,
                             const View& /*labels*/, const View& /*count*/) {
    return absl::UnimplementedError("label: no kernel on this backend");
  }

  // Batched matrix product out[i] = a[i] @ b[i] of C-contiguous (batch, m,
  // k) and (batch, k, n) arrays into a C-contiguous (batch, m, n) one; all
  // three share a dtype. Integers wrap in their own type, as NumPy's.
  virtual absl::Status Matmul(const View& /*a*/, const View& /*b*/, const View& /*out*/) {
    return absl::UnimplementedError("matmul: no kernel on this backend");
  }

  // ---- Linear algebra, LAPACK semantics, on batches of C-contiguous
  // (row-major) matrices of float32, float64, complex64 or complex128. `info`
  // is a C-contiguous int32 array, one entry per matrix: 0 on success, else
  // LAPACK's positive code (singular for LU, not positive definite for
  // Cholesky, no convergence for SVD/eigh), which the op layer turns into
  // numpy.linalg.LinAlgError.

  // a (batch, n, n) is overwritten with its LU factors (unit lower L and U,
  // row-major); pivots (batch, n) int32 receive LAPACK's 1-based row swaps.
  virtual absl::Status LuFactor(const View& /*a*/, const View& /*pivots*/,
                                const View& /*info*/) {
    return absl::UnimplementedError("LU factorization: no kernel on this backend");
  }
  // out = the inverse of each matrix of `a` (batch, n, n), both
  // C-contiguous of a linalg dtype; info (int32, batch) > 0 where a matrix
  // is singular (then its inverse is not defined). UNIMPLEMENTED where the
  // backend has no direct inverse for these: the op layer factors and
  // solves (LuFactor, LuSolve).
  virtual absl::Status Inverse(const View& /*a*/, const View& /*out*/, const View& /*info*/) {
    return absl::UnimplementedError("inverse: no direct kernel on this backend");
  }
  // Solves A X = B from LuFactor's output; b (batch, n, k) is overwritten.
  virtual absl::Status LuSolve(const View& /*lu*/, const View& /*pivots*/, const View& /*b*/) {
    return absl::UnimplementedError("LU solve: no kernel on this backend");
  }
  // a (batch, n, n), Hermitian positive definite, is overwritten with L
  // (A = L L^H); its strict upper triangle is zeroed.
  virtual absl::Status Cholesky(const View& /*a*/, const View& /*info*/) {
    return absl::UnimplementedError("Cholesky: no kernel on this backend");
  }
  // a (batch, m, n) = q (batch, m, k) r (batch, k, n), with k = m (NumPy's
  // mode 'complete') or min(m, n) ('reduced'), as the shapes of q and r say.
  virtual absl::Status Qr(const View& /*a*/, const View& /*q*/, const View& /*r*/) {
    return absl::UnimplementedError("QR: no kernel on this backend");
  }
  // a (batch, m, n) = u diag(s) vh: s (batch, min(m, n)) real, descending;
  // u (batch, m, m or min) and vh (batch, n or min, n) when not null
  // (full_matrices as their shapes say).
  virtual absl::Status Svd(const View& /*a*/, const View& /*s*/, const View* /*u*/,
                           const View* /*vh*/, const View& /*info*/) {
    return absl::UnimplementedError("SVD: no kernel on this backend");
  }
  // Eigenvalues w (batch, n) real, ascending, of Hermitian a (batch, n, n)
  // (its lower triangle is read), and eigenvectors as the columns of v
  // (batch, n, n) when not null.
  virtual absl::Status Eigh(const View& /*a*/, const View& /*w*/, const View* /*v*/,
                            const View& /*info*/) {
    return absl::UnimplementedError("eigh: no kernel on this backend");
  }

  // General eigenproblem of square (batch, n, n) float32/64 or complex64/128
  // `a` (overwritten): eigenvalues w (batch, n) and, when v is given, right
  // eigenvectors v (batch, n, n, columns, unit norm), both complex of a's
  // precision; info (batch) int32 > 0 where the QR algorithm failed. Real
  // input gives exactly real eigenvalues where LAPACK's geev does.
  virtual absl::Status Eig(const View& /*a*/, const View& /*w*/, const View* /*v*/,
                           const View& /*info*/) {
    return absl::UnimplementedError("eig: no kernel on this backend");
  }

  // ---- FFTs over the last `rank` axes (1 to 3) of C-contiguous arrays,
  // any lengths, unnormalized (the op layer scales for NumPy's norm modes).

  // Complex to complex: in and out (batch, n_1, ..., n_rank) share a
  // complex dtype; a multi-axis transform is the one-axis ones over each.
  virtual absl::Status Fft(const View& /*in*/, const View& /*out*/, int /*rank*/,
                           bool /*inverse*/) {
    return absl::UnimplementedError("FFT: no kernel on this backend");
  }
  // Real (batch, n_1, ..., n_rank) float32/64 to its half spectrum
  // (batch, n_1, ..., n_rank/2 + 1) complex; in is left as it was.
  virtual absl::Status Rfft(const View& /*in*/, const View& /*out*/, int /*rank*/) {
    return absl::UnimplementedError("FFT: no kernel on this backend");
  }
  // Half spectrum (batch, n/2 + 1) to real (batch, n): the inverse real
  // transform times `scale` (1: unnormalized; the norm modes' factor folds
  // in here, saving a pass); n is out's last dimension; in is left as it was.
  virtual absl::Status Irfft(const View& /*in*/, const View& /*out*/, double /*scale*/) {
    return absl::UnimplementedError("FFT: no kernel on this backend");
  }

  // ---- random streams (kernels/functors.h, Philox4x32-10)

  // Fills the C-contiguous float32/float64 `out` from Philox blocks
  // counter, counter + 1, ... under `key`: element i is value i % K of block
  // counter + i / K, K = 4 for float32 and 2 for float64.
  virtual absl::Status Random(RandomDist /*dist*/, uint64_t /*key*/, uint64_t /*counter*/,
                              const View& /*out*/) {
    return absl::UnimplementedError("random: no kernel on this backend");
  }

  // Waits until all work queued on this stream is done; reports deferred
  // device errors.
  virtual absl::Status Synchronize() = 0;

  // Whether every view given to a kernel must be aligned to its element
  // type (a GPU's loads fault on a misaligned address, which loses the
  // context for every session; on a CPU such a load is undefined
  // behaviour). The session then hands such a backend aligned copies of
  // NumPy's misaligned views (Session::AlignedCopy).
  virtual bool RequiresAlignedViews() const { return false; }

  // ---- events (arrayd.cuda.Event; ordering between a session's streams)

  virtual absl::StatusOr<std::unique_ptr<Event>> CreateEvent(EventOptions /*options*/) {
    return absl::UnimplementedError("events: not on this backend");
  }
  // Marks `event` after the work queued so far (an event of this backend).
  virtual absl::Status Record(Event& /*event*/) {
    return absl::UnimplementedError("events: not on this backend");
  }
  // Work queued from now on waits for the work before `event`'s last record.
  virtual absl::Status Wait(Event& /*event*/) {
    return absl::UnimplementedError("events: not on this backend");
  }
  // Whether all work queued so far is done (Stream.done), without waiting.
  virtual absl::StatusOr<bool> Query() { return true; }

  // ---- user kernels (CUDA only; RawModule / RawKernel)

  // The module of `spec`, compiled on first use by any session (a
  // CompileError with the compiler's log when it does not compile).
  virtual absl::StatusOr<std::shared_ptr<KernelModule>> LoadModule(const KernelModuleSpec& /*spec*/,
                                                                   ModuleOrigin* /*origin*/) {
    return absl::UnimplementedError(
        "user kernels (RawKernel, RawModule, ElementwiseKernel, ReductionKernel, fuse) need a "
        "CUDA server; this one runs on the CPU backend");
  }
  // The attributes of kernel `name` (a symbol or one of the module's name
  // expressions); NOT_FOUND when the module has none of that name.
  virtual absl::StatusOr<KernelAttributes> GetKernelAttributes(KernelModule& /*module*/,
                                                               const std::string& /*name*/) {
    return absl::UnimplementedError("user kernels: not on this backend");
  }
  // Queues kernel `name` of `module` with `args` (cuLaunchKernel's: one
  // pointer to each parameter's value).
  virtual absl::Status LaunchKernel(KernelModule& /*module*/, const std::string& /*name*/,
                                    const LaunchDims& /*dims*/, void** /*args*/) {
    return absl::UnimplementedError("user kernels: not on this backend");
  }

  // ---- the device memory pool's blocks of this stream (MemoryPool)

  // Free blocks cached for this stream: their count and bytes.
  virtual void CachedBlocks(uint64_t* blocks, uint64_t* bytes) {
    *blocks = 0;
    *bytes = 0;
  }
  // Gives this stream's cached blocks back to the device, after its queued
  // work (MemoryPool.free_all_blocks).
  virtual absl::Status FreeCachedBlocks() { return absl::OkStatus(); }

  // Queues work that the stream holds back to launch together (the CUDA
  // backend groups small elementwise ops into one launch). Every other
  // method queues it first, so only the session, at the end of a message,
  // needs to call this: the device then has everything sent so far.
  virtual absl::Status Flush() { return absl::OkStatus(); }
};

// A device and its memory. Thread-safe.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual std::vector<DeviceDescription> Devices() const = 0;
  virtual absl::StatusOr<std::unique_ptr<Stream>> CreateStream() = 0;
  // A stream of CUDA's `priority` (lower runs first; clamped to the
  // device's range). Backends without priorities make a plain stream.
  virtual absl::StatusOr<std::unique_ptr<Stream>> CreateStreamWithPriority(int /*priority*/) {
    return CreateStream();
  }
  // OK while the device can serve; UNAVAILABLE after a fatal device error.
  virtual absl::Status Health() const { return absl::OkStatus(); }
  // The device memory pool: bytes held by arrays and bytes cached free.
  virtual void PoolBytes(uint64_t* in_use, uint64_t* cached) const {
    *in_use = 0;
    *cached = 0;
  }
};

// Backends compiled into this binary ("cpu", "cuda", ...).
std::vector<std::string> CompiledBackends();

// Makes the backend named `name` ("auto" picks CUDA when a GPU is visible,
// else CPU). `why` receives a sentence on the choice, for the log.
absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(const std::string& name, std::string* why);

}  // namespace arrayd

#endif  // ARRAYD_BACKEND_BACKEND_H_
