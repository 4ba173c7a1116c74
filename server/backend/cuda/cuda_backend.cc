#include "backend/cuda/cuda_backend.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <cusolverDn.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cuda/caching_allocator.h"
#include "backend/cuda/cublas_status.h"
#include "backend/cuda/cuda_status.h"
#include "backend/cuda/driver_api.h"
#include "backend/cuda/kernel_cache.h"
#include "backend/cuda/kernel_source.h"
#include "backend/cuda/solver_fft_status.h"
#include "backend/scalar_cast.h"
#include "common/status.h"
#include "kernels/functors.h"
#include "kernels/host_dispatch.h"
#include "kernels/loop_check.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace cuda {
namespace {

using kernels::DispatchDType;

// Pinned staging for host <-> device copies of pageable memory: two buffers
// per stream, so the host memcpy of one chunk overlaps the DMA of the other.
constexpr size_t kStagingBytes = size_t{8} << 20;
// Below this, an upload goes directly (cudaMemcpyAsync + synchronize).
// Downloads of any size go through staging: a pageable device-to-host copy
// is staged by the driver anyway, and float() of one value cost 15 us more
// on a CUDA server than on a CPU server with direct copies (RESULTS.md).
constexpr size_t kDirectCopyBytes = size_t{64} << 10;
// Cap of grid-stride grids (blocks).
constexpr long long kMaxBlocks = 1 << 20;
constexpr char kKernelName[] = "arrayd_kernel";
constexpr char kGroupKernelName[] = "arrayd_group";
// Contiguous ops of at most this many elements are grouped (kernel_source.h,
// ElementwiseGroupBody): for them a launch costs more host time than the
// kernel takes on the device.
constexpr long long kMaxGroupElements = 1 << 18;

// A cuFFT plan of one (type, length, batch), shared by every stream of the
// device. A plan may not be used by two threads at once, and its stream and
// work area are plan state: a user holds `mu` from cufftSetStream until its
// exec call has returned (the transform is then queued on the user's stream,
// with a work area from that stream's pool, so plans run on several streams).
struct FftPlan {
  int device = 0;
  cufftHandle handle = 0;
  bool made = false;
  size_t work_bytes = 0;
  absl::Mutex mu;

  ~FftPlan() {
    if (!made || cudaSetDevice(device) != cudaSuccess) return;
    // Transforms of this plan queued on other streams may still run.
    if (FatalDeviceError().ok()) ARRAYD_CUDA_LOG_IF_ERROR(cudaDeviceSynchronize());
    absl::Status s = ARRAYD_CUDA_STATUS_(CufftStatus, cufftDestroy(handle));
    if (!s.ok()) SPDLOG_WARN("{}", s.ToString());
  }
};

// Plans kept per device; past this many, the cache starts over (plans in use
// live on through their shared_ptr).
constexpr size_t kMaxFftPlans = 256;

// What every stream of one device shares.
struct DeviceState {
  int device = 0;
  cudaDeviceProp props{};
  int sm_count = 1;
  std::shared_ptr<CachingAllocator> allocator;
  std::unique_ptr<KernelCache> kernels;
  // The hot path of every launch: functions by (name, body), a few hundred
  // bytes, so that a hit never builds and hashes the ~40 KB NVRTC source.
  absl::Mutex body_mu;
  absl::flat_hash_map<std::string, CUfunction> by_body ABSL_GUARDED_BY(body_mu);
  absl::Mutex fft_mu;
  // (cufftType, n, batch) -> plan.
  absl::flat_hash_map<std::tuple<int, long long, long long>, std::shared_ptr<FftPlan>> fft_plans
      ABSL_GUARDED_BY(fft_mu);
};

// ---- linear algebra and FFT helpers ----------------------------------------

// The cuSOLVER data types of a linalg dtype and of its real counterpart.
absl::Status SolverTypes(DType t, cudaDataType* type, cudaDataType* real) {
  switch (t) {
    case DType::kFloat32: *type = CUDA_R_32F; *real = CUDA_R_32F; return absl::OkStatus();
    case DType::kFloat64: *type = CUDA_R_64F; *real = CUDA_R_64F; return absl::OkStatus();
    case DType::kComplex64: *type = CUDA_C_32F; *real = CUDA_R_32F; return absl::OkStatus();
    case DType::kComplex128: *type = CUDA_C_64F; *real = CUDA_R_64F; return absl::OkStatus();
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
    return absl::InternalError(
        absl::StrCat(what, ": needs a C-contiguous batch of matrices, got shape ",
                     ShapeString(v.shape)));
  }
  const int64_t rows = v.shape[v.ndim() - 2], cols = v.shape[v.ndim() - 1];
  int64_t batch = 1;
  for (int d = 0; d < v.ndim() - 2; ++d) batch *= v.shape[d];
  *out = v;
  out->shape = {batch, rows, cols};
  out->strides = CStrides(out->shape, ItemSize(v.dtype));
  return absl::OkStatus();
}

// A (batch, rows, cols) view of `buf` from byte `offset`, with strides in
// elements: [b][i][j] is element b * sb + i * si + j * sj.
View MatrixView(const std::shared_ptr<Buffer>& buf, DType t, int64_t batch, int64_t rows,
                int64_t cols, int64_t sb, int64_t si, int64_t sj, int64_t offset = 0) {
  View v;
  v.buffer = buf;
  v.dtype = t;
  v.shape = {batch, rows, cols};
  const int64_t item = ItemSize(t);
  v.strides = {sb * item, si * item, sj * item};
  v.offset = offset;
  return v;
}

// Column-major matrices (leading dimension `ld`, `sb` elements apart) seen
// as (batch, rows, cols) row-major indices.
View ColumnMajorView(const std::shared_ptr<Buffer>& buf, DType t, int64_t batch, int64_t rows,
                     int64_t cols, int64_t ld, int64_t sb) {
  return MatrixView(buf, t, batch, rows, cols, sb, 1, ld);
}

// `info` must be C-contiguous int32 with one entry per matrix.
absl::Status CheckInfo(const View& info, int64_t batch, const char* what) {
  if (info.dtype != DType::kInt32 || !info.IsCContiguous() || info.size() != batch) {
    return absl::InternalError(
        absl::StrCat(what, ": info must be C-contiguous int32 with ", batch, " entries"));
  }
  return absl::OkStatus();
}

// cuSOLVER's legacy routines (orgqr/ungqr) take int sizes.
constexpr int64_t kLegacyIntMax = 2147483647LL;

// Checks a C-contiguous FFT operand: dtype and last-axis length; returns
// the number of transforms.
absl::Status FftOperand(const View& v, DType dtype, int64_t n, const char* what, int64_t* batch) {
  if (v.ndim() < 1 || !v.IsCContiguous() || v.dtype != dtype || v.shape.back() != n) {
    return absl::InternalError(absl::StrCat(what, ": needs a C-contiguous ", DTypeName(dtype),
                                            " array of last dimension ", n, ", got ",
                                            DTypeName(v.dtype), " ", ShapeString(v.shape)));
  }
  *batch = n == 0 ? 0 : v.size() / n;
  return absl::OkStatus();
}

absl::Status CheckUnaryOp(kernels::UnaryOp op, const View& in, const View& out,
                          const char** functor) {
  switch (op) {
#define ARRAYD_UNARY_CASE(e, f, n, loops, id, doc) \
  case kernels::UnaryOp::e:                        \
    *functor = #f;                                 \
    return kernels::CheckUnaryLoop<kernels::f, kernels::LoopInputMask(loops)>(in, out);
    ARRAYD_UNARY_OPS(ARRAYD_UNARY_CASE)
#undef ARRAYD_UNARY_CASE
    default:
      return absl::UnimplementedError("unknown unary op");
  }
}

absl::Status CheckBinaryOp(kernels::BinaryOp op, const View& a, const View& b, const View& out,
                           const char** functor) {
  switch (op) {
#define ARRAYD_BINARY_CASE(e, f, n, loops, id, doc) \
  case kernels::BinaryOp::e:                        \
    *functor = #f;                                  \
    return kernels::CheckBinaryLoop<kernels::f, kernels::LoopInputMask(loops)>(a, b, out);
    ARRAYD_BINARY_OPS(ARRAYD_BINARY_CASE)
#undef ARRAYD_BINARY_CASE
    default:
      return absl::UnimplementedError("unknown binary op");
  }
}

long long CeilDiv(long long a, long long b) { return (a + b - 1) / b; }

absl::Status TooManyDims(int nd) {
  return absl::UnimplementedError(absl::StrCat(
      "the CUDA backend handles arrays of up to ", kMaxKernelDims,
      " dimensions after merging contiguous ones; this operation has ", nd,
      " (make the operands contiguous, e.g. with ascontiguousarray, first)"));
}

// Adds a word (8 bytes) to a by-value kernel struct.
template <typename T>
void PushWord(std::vector<long long>* words, T v) {
  static_assert(sizeof(T) == 8, "kernel structs hold 8-byte fields only");
  long long w;
  std::memcpy(&w, &v, 8);
  words->push_back(w);
}

class CudaStream : public Stream {
 public:
  CudaStream(std::shared_ptr<DeviceState> dev, cudaStream_t stream, uint64_t id)
      : dev_(std::move(dev)), stream_(stream), id_(id) {}

  ~CudaStream() override {
    group_ = PendingGroup();  // a closing session's unlaunched ops are dropped
    if (cudaSetDevice(dev_->device) != cudaSuccess) return;
    // The shared pool may only get blocks no queued work still uses.
    if (FatalDeviceError().ok()) ARRAYD_CUDA_LOG_IF_ERROR(cudaStreamSynchronize(stream_));
    if (cublas_ != nullptr) {
      absl::Status s = ARRAYD_CUDA_STATUS_(CublasStatus, cublasDestroy(cublas_));
      if (!s.ok()) SPDLOG_WARN("{}", s.ToString());
    }
    if (solver_params_ != nullptr) {
      absl::Status s =
          ARRAYD_CUDA_STATUS_(CusolverStatus, cusolverDnDestroyParams(solver_params_));
      if (!s.ok()) SPDLOG_WARN("{}", s.ToString());
    }
    if (cusolver_ != nullptr) {
      absl::Status s = ARRAYD_CUDA_STATUS_(CusolverStatus, cusolverDnDestroy(cusolver_));
      if (!s.ok()) SPDLOG_WARN("{}", s.ToString());
    }
    dev_->allocator->RetireStream(id_);
    for (int b = 0; b < 2; ++b) {
      if (staging_[b] != nullptr) ARRAYD_CUDA_LOG_IF_ERROR(cudaFreeHost(staging_[b]));
      if (staged_[b] != nullptr) ARRAYD_CUDA_LOG_IF_ERROR(cudaEventDestroy(staged_[b]));
    }
    ARRAYD_CUDA_LOG_IF_ERROR(cudaStreamDestroy(stream_));
  }

  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t nbytes) override {
    ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
    return dev_->allocator->Allocate(nbytes, id_);
  }

  absl::Status CopyFromHost(const void* src, const View& dst) override;
  absl::Status CopyToHost(const View& src, void* dst) override;

  // Pins a client's shared memory once, so its copies skip the staging
  // buffers and run at DMA speed.
  absl::Status RegisterHostMemory(void* data, size_t n) override {
    ARRAYD_RETURN_IF_ERROR(Enter());
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaHostRegister(data, n, cudaHostRegisterDefault));
    registered_.push_back({static_cast<const char*>(data), n});
    return absl::OkStatus();
  }
  void UnregisterHostMemory(void* data) override {
    if (!Enter().ok()) return;
    for (size_t i = 0; i < registered_.size(); ++i) {
      if (registered_[i].first == data) {
        ARRAYD_CUDA_LOG_IF_ERROR(cudaHostUnregister(data));
        registered_.erase(registered_.begin() + static_cast<long>(i));
        return;
      }
    }
  }

  absl::Status Fill(const View& out, const Scalar& value) override {
    ARRAYD_RETURN_IF_ERROR(Enter());
    // The value is converted on the host, exactly as the CPU backend does.
    alignas(16) unsigned char bytes[16] = {};
    DispatchDType(out.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T v = ScalarAs<T>(value);
      std::memcpy(bytes, &v, sizeof(T));
      return 0;
    });
    return Elementwise({&out}, "value", "T0", "value", bytes);
  }

  absl::Status Iota(const View& out, const Scalar& start, const Scalar& step) override {
    ARRAYD_RETURN_IF_ERROR(Enter());
    if (out.ndim() != 1) return absl::InternalError("iota needs a 1-D output");
    IotaArgs args{start.i, step.i, start.u, step.u, start.re, step.re, start.im, step.im};
    // In start's kind, as CpuIota.
    const char* expr;
    switch (start.kind) {
      case Scalar::kFloat: expr = "ip.re0 + static_cast<double>(i) * ip.dre"; break;
      case Scalar::kComplex:
        expr = "c128(ip.re0 + static_cast<double>(i) * ip.dre, ip.im0 + static_cast<double>(i) * ip.dim)";
        break;
      case Scalar::kUInt: expr = "static_cast<u64>(ip.u0 + static_cast<u64>(i) * ip.du)"; break;
      default:
        expr = "static_cast<i64>(static_cast<u64>(ip.i0) + static_cast<u64>(i) * static_cast<u64>(ip.di))";
    }
    return Elementwise({&out}, expr, "IotaParams", "ip", &args);
  }

  absl::Status Random(RandomDist dist, uint64_t key, uint64_t counter, const View& out) override {
    ARRAYD_RETURN_IF_ERROR(Enter());
    ARRAYD_RETURN_IF_ERROR(kernels::CheckRandomOutput(out));
    long long n = out.size();
    if (n == 0) return absl::OkStatus();
    const bool normal = dist == RandomDist::kNormal;
    const std::string name = normal ? "arrayd_philox_normal" : "arrayd_philox_uniform";
    char* p = out.data();
    unsigned long long c = counter, k = key;
    void* args[] = {&p, &n, &c, &k};
    // Philox blocks, kPhiloxBlocksPerThread per thread and step: one step
    // per thread, as tests/bench/kernel_variants.cu measured it.
    const long long blocks = CeilDiv(n, 16 / ItemSize(out.dtype));
    return LaunchKeyed(absl::StrCat(name, "|", static_cast<int>(out.dtype)),
                       [&] { return RandomBody(out.dtype, normal, name); }, name,
                       std::min(CeilDiv(blocks, kPhiloxBlocksPerThread * kBlockSize), kMaxBlocks),
                       1, args);
  }

  // Copy, Unary and Binary may join the group of small ops launched
  // together (Elementwise's may_group).
  absl::Status Copy(const View& src, const View& dst) override {
    ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
    return Elementwise({&dst, &src}, "v1", /*may_group=*/true);
  }

  absl::Status Unary(kernels::UnaryOp op, const View& in, const View& out) override {
    ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
    const char* functor = nullptr;
    ARRAYD_RETURN_IF_ERROR(CheckUnaryOp(op, in, out, &functor));
    return Elementwise({&out, &in}, absl::StrCat(functor, "()(v1)"), /*may_group=*/true);
  }

  absl::Status Binary(kernels::BinaryOp op, const View& a, const View& b,
                      const View& out) override {
    ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
    const char* functor = nullptr;
    ARRAYD_RETURN_IF_ERROR(CheckBinaryOp(op, a, b, out, &functor));
    return Elementwise({&out, &a, &b}, absl::StrCat(functor, "()(v1, v2)"), /*may_group=*/true);
  }

  absl::Status Reduce(kernels::ReduceOp op, const View& in, absl::Span<const int> axes,
                      const View& out) override {
    ARRAYD_RETURN_IF_ERROR(Enter());
    const bool logical = op == kernels::ReduceOp::kAll || op == kernels::ReduceOp::kAny;
    if (logical ? out.dtype != DType::kBool : out.dtype != in.dtype) {
      return absl::InternalError("reduce: unexpected output dtype");
    }
    static constexpr const char* kKinds[] = {"sum", "prod", "min", "max", "all", "any"};
    return RunReduce(kKinds[static_cast<int>(op)], in, axes, out);
  }

  absl::Status ArgReduce(kernels::ArgReduceOp op, const View& in, int axis,
                         const View& out) override {
    ARRAYD_RETURN_IF_ERROR(Enter());
    if (out.dtype != DType::kInt64) return absl::InternalError("argreduce: output must be int64");
    if (in.shape[axis] == 0) return ValueError("attempt to get argmax of an empty sequence");
    const int axes[1] = {axis};
    return RunReduce(op == kernels::ArgReduceOp::kArgMax ? "argmax" : "argmin", in, axes, out);
  }

  absl::Status Where(const View& cond, const View& x, const View& y, const View& out) override {
    ARRAYD_RETURN_IF_ERROR(Enter());
    if (cond.dtype != DType::kBool || x.dtype != out.dtype || y.dtype != out.dtype) {
      return absl::InternalError("where: unexpected dtypes");
    }
    return Elementwise({&out, &cond, &x, &y}, "v1 ? v2 : v3");
  }

  absl::Status Gather(const View& in, const View& index, const View& out) override;
  absl::Status Scatter(const View& values, const View& index, const View& target) override;
  absl::Status Nonzero(const View& mask, const View& out) override;
  absl::Status Sort(const View& in, const View& out, const View* indices) override;
  absl::Status Matmul(const View& a, const View& b, const View& out) override;

  absl::Status LuFactor(const View& a, const View& pivots, const View& info) override;
  absl::Status LuSolve(const View& lu, const View& pivots, const View& b) override;
  absl::Status Cholesky(const View& a, const View& info) override;
  absl::Status Qr(const View& a, const View& q, const View& r) override;
  absl::Status Svd(const View& a, const View& s, const View* u, const View* vh,
                   const View& info) override;
  absl::Status Eigh(const View& a, const View& w, const View* v, const View& info) override;
  absl::Status Eig(const View& a, const View& w, const View* v, const View& info) override;
  absl::Status Fft(const View& in, const View& out, bool inverse) override;
  absl::Status Rfft(const View& in, const View& out) override;
  absl::Status Irfft(const View& in, const View& out) override;

  absl::Status Synchronize() override {
    ARRAYD_RETURN_IF_ERROR(Enter());
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    return absl::OkStatus();
  }

  absl::Status Flush() override { return Enter(); }

 private:
  // Small contiguous elementwise ops of one kernel held back to be
  // launched as one (ElementwiseGroupBody): a launch costs microseconds of
  // host time, and sessions' launches contend in the driver. Held ops
  // keep their buffers alive, so no buffer they use goes back to the pool
  // (to be reused or freed) before they are queued.
  struct GroupedOp {
    char* p[kMaxGroupOperands];
    long long n;
    int aligned;
  };
  struct PendingGroup {
    std::string key;  // the single kernel's LaunchKeyed key
    ElementwiseSpec spec;
    std::vector<GroupedOp> ops;
    std::vector<std::shared_ptr<Buffer>> hold;
    std::vector<std::pair<const char*, const char*>> reads, writes;  // byte ranges
  };

  // Called first by every method: refuses work after a fatal error, makes
  // the device current on this thread (executor threads differ per call)
  // and queues the held group, so that what the method queues comes after.
  absl::Status Enter() {
    ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
    return FlushGroup();
  }
  // Enter() for methods that queue nothing or may join the group.
  absl::Status EnterKeepingGroup() {
    ARRAYD_RETURN_IF_ERROR(FatalDeviceError());
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaSetDevice(dev_->device));
    return absl::OkStatus();
  }

  // Runs the elementwise kernel out = expr over views[0] (output) and
  // views[1..] (inputs), with an optional by-value extra parameter. With
  // may_group, a small contiguous op joins the held group (launched by the
  // next method that queues work, or by Flush()).
  absl::Status Elementwise(std::vector<const View*> views, const std::string& expr,
                           const std::string& extra_type = "", const std::string& extra_name = "",
                           const void* extra_value = nullptr, bool may_group = false);
  absl::Status Elementwise(std::vector<const View*> views, const std::string& expr,
                           bool may_group) {
    return Elementwise(std::move(views), expr, "", "", nullptr, may_group);
  }
  // Adds a contiguous op (pointers `ptrs` of views[0..]) to the group,
  // launching the held one first when this op cannot join it.
  absl::Status Group(const std::string& key, const ElementwiseSpec& spec,
                     const std::vector<const View*>& views, const std::vector<char*>& ptrs,
                     long long n, int aligned);
  absl::Status FlushGroup();
  absl::Status LaunchGroup();
  // The contiguous kernel of `spec` over n elements (ElementwiseBody).
  absl::Status LaunchContiguous(const std::string& key, const ElementwiseSpec& spec,
                                std::vector<char*> ptrs, long long n, int aligned,
                                const void* extra_value);

  absl::Status RunReduce(const char* kind, const View& in, absl::Span<const int> axes,
                         const View& out);

  absl::Status Launch(const std::string& source, const std::string& name, long long grid_x,
                      long long grid_y, void** args) {
    ARRAYD_ASSIGN_OR_RETURN(CUfunction fn, dev_->kernels->Get(source, name));
    return LaunchFunction(fn, grid_x, grid_y, args);
  }

  // Launch(BuildSource({body}), ...) for kernels launched op after op: the
  // full source is built only the first time (name, body) is seen.
  absl::Status LaunchBody(const std::string& body, const std::string& name, long long grid_x,
                          long long grid_y, void** args) {
    ARRAYD_ASSIGN_OR_RETURN(CUfunction fn, FunctionForBody(body, name));
    return LaunchFunction(fn, grid_x, grid_y, args);
  }

  absl::StatusOr<CUfunction> FunctionForBody(const std::string& body, const std::string& name) {
    std::string key = absl::StrCat(name, "\n", body);
    {
      absl::MutexLock lock(&dev_->body_mu);
      auto it = dev_->by_body.find(key);
      if (it != dev_->by_body.end()) return it->second;
    }
    ARRAYD_ASSIGN_OR_RETURN(CUfunction fn, dev_->kernels->Get(BuildSource({body}), name));
    absl::MutexLock lock(&dev_->body_mu);
    dev_->by_body.emplace(std::move(key), fn);
    return fn;
  }

  // LaunchBody for the kernels of every small op: `key` names the body in a
  // few bytes (the op's expression, dtypes and layout), so that launches
  // after a stream's first skip building the body and the device-wide
  // lock: this table is the stream's own (one thread at a time uses it).
  template <typename MakeBody>
  absl::Status LaunchKeyed(const std::string& key, const MakeBody& make_body,
                           const std::string& name, long long grid_x, long long grid_y,
                           void** args) {
    auto it = functions_.find(key);
    if (it == functions_.end()) {
      ARRAYD_ASSIGN_OR_RETURN(CUfunction fn, FunctionForBody(make_body(), name));
      it = functions_.emplace(key, fn).first;
    }
    return LaunchFunction(it->second, grid_x, grid_y, args);
  }

  // Launches a function already looked up (kernels launched many times).
  absl::Status LaunchFunction(CUfunction fn, long long grid_x, long long grid_y, void** args) {
    ARRAYD_ASSIGN_OR_RETURN(const DriverApi* api, GetDriverApi());
    ARRAYD_CU_RETURN_IF_ERROR(api->cuLaunchKernel(
        fn, static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y), 1, kBlockSize, 1, 1, 0,
        stream_, args, nullptr));
    return absl::OkStatus();
  }

  // Allocates the pinned staging buffers on first use; false when pinned
  // memory is not available (copies then go direct).
  // True when [p, p + n) lies in memory pinned by RegisterHostMemory.
  bool IsRegistered(const void* p, size_t n) const {
    const char* c = static_cast<const char*>(p);
    for (const auto& [base, size] : registered_) {
      if (c >= base && c + n <= base + size) return true;
    }
    return false;
  }

  bool EnsureStaging() {
    if (staging_[0] != nullptr) return true;
    if (staging_failed_) return false;
    for (int b = 0; b < 2; ++b) {
      absl::Status s = ARRAYD_CUDA_STATUS_(RuntimeStatus, cudaMallocHost(&staging_[b], kStagingBytes));
      if (s.ok()) {
        s = ARRAYD_CUDA_STATUS_(RuntimeStatus,
                                cudaEventCreateWithFlags(&staged_[b], cudaEventDisableTiming));
      }
      if (!s.ok()) {
        SPDLOG_WARN("no pinned staging memory, host copies go direct: {}", s.ToString());
        staging_failed_ = true;
        return false;
      }
    }
    return true;
  }

  // The cuBLAS handle of this stream, made on first use.
  absl::StatusOr<cublasHandle_t> Cublas();
  // The cuSOLVER handle of this stream (and solver_params_), made on first use.
  absl::StatusOr<cusolverDnHandle_t> Cusolver();

  // out = MatrixExpr(kind) over a batch of (rows, cols) matrices; `in` may
  // be null for expressions without input.
  absl::Status MatrixOp(const View& out, const View* in, MatrixExprKind kind, int64_t rows,
                        int64_t cols) {
    MatrixArgs args{rows, cols};
    if (in == nullptr) return Elementwise({&out}, MatrixExpr(kind), "MatrixParams", "mp", &args);
    return Elementwise({&out, in}, MatrixExpr(kind), "MatrixParams", "mp", &args);
  }

  // Zeroes `batch` int32 info entries.
  absl::Status ZeroInfo(const View& info) {
    if (info.size() == 0) return absl::OkStatus();
    ARRAYD_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(info.data(), 0, static_cast<size_t>(info.nbytes()), stream_));
    return absl::OkStatus();
  }

  // Host workspace of a cuSOLVER call, valid until the call's work is done:
  // AfterSolverCall waits for it when a routine used one (rare), so that
  // the next call of the batch may reuse it.
  void* HostWork(size_t bytes) {
    if (bytes == 0) return nullptr;
    if (host_work_.size() < bytes) host_work_.resize(bytes);
    return host_work_.data();
  }
  absl::Status AfterSolverCall(size_t host_bytes) {
    if (host_bytes > 0) ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    return absl::OkStatus();
  }

  // The shared cuFFT plan of (type, n, batch), made on first use.
  absl::StatusOr<std::shared_ptr<FftPlan>> GetFftPlan(cufftType type, long long n,
                                                      long long batch);
  // Runs `exec(handle)` with the plan bound to this stream and a work area
  // from its pool.
  template <typename Exec>
  absl::Status RunFft(FftPlan& plan, Exec exec) {
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

  // A temporary device buffer of this stream (back to its pool when freed;
  // later users are ordered after the work queued here).
  absl::StatusOr<std::shared_ptr<Buffer>> Temp(size_t nbytes) {
    return dev_->allocator->Allocate(nbytes, id_);
  }

  std::shared_ptr<DeviceState> dev_;
  cudaStream_t stream_;
  absl::flat_hash_map<std::string, CUfunction> functions_;  // LaunchKeyed's table
  PendingGroup group_;
  std::vector<long long> group_words_;  // LaunchGroup's kernel parameter
  cublasHandle_t cublas_ = nullptr;
  cusolverDnHandle_t cusolver_ = nullptr;
  cusolverDnParams_t solver_params_ = nullptr;
  std::vector<char> host_work_;  // cuSOLVER host workspace
  std::vector<std::pair<const char*, size_t>> registered_;  // pinned host ranges
  const uint64_t id_;
  void* staging_[2] = {nullptr, nullptr};
  cudaEvent_t staged_[2] = {nullptr, nullptr};  // recorded after each chunk's DMA
  bool staging_failed_ = false;
};

absl::Status CudaStream::Elementwise(std::vector<const View*> views, const std::string& expr,
                                     const std::string& extra_type, const std::string& extra_name,
                                     const void* extra_value, bool may_group) {
  const long long n = views[0]->size();
  if (n == 0) return absl::OkStatus();
  std::vector<Strides> strides;
  Shape shape = CollapseDims(absl::MakeConstSpan(views.data(), views.size()), &strides);
  const int nd = static_cast<int>(shape.size());
  bool contiguous = nd == 0;
  if (nd == 1) {
    contiguous = true;
    for (size_t v = 0; v < views.size(); ++v) {
      contiguous &= strides[v][0] == ItemSize(views[v]->dtype);
    }
  }
  if (!contiguous && nd > kMaxKernelDims) return TooManyDims(nd);

  ElementwiseSpec spec;
  for (const View* v : views) spec.dtypes.push_back(v->dtype);
  spec.expr = expr;
  spec.extra_type = extra_type;
  spec.extra_name = extra_name;
  spec.ndim = contiguous ? -1 : nd;
  std::string key = absl::StrCat("ew|", expr, "|", extra_type, "|", extra_name, "|", spec.ndim);
  for (DType t : spec.dtypes) absl::StrAppend(&key, "|", static_cast<int>(t));

  std::vector<char*> ptrs;
  for (const View* v : views) ptrs.push_back(v->data());
  if (contiguous) {
    int aligned = 1;
    for (char* p : ptrs) aligned &= reinterpret_cast<uintptr_t>(p) % 16 == 0;
    if (may_group && extra_value == nullptr && n <= kMaxGroupElements &&
        views.size() <= static_cast<size_t>(kMaxGroupOperands)) {
      return Group(key, spec, views, ptrs, n, aligned);
    }
    ARRAYD_RETURN_IF_ERROR(FlushGroup());
    return LaunchContiguous(key, spec, std::move(ptrs), n, aligned, extra_value);
  }
  ARRAYD_RETURN_IF_ERROR(FlushGroup());
  std::vector<void*> args;
  for (char*& p : ptrs) args.push_back(&p);
  long long count = n;
  args.push_back(&count);
  std::vector<long long> strided;
  for (int d = 0; d < nd; ++d) strided.push_back(shape[d]);
  for (size_t v = 0; v < views.size(); ++v) {
    for (int d = 0; d < nd; ++d) strided.push_back(strides[v][d]);
  }
  args.push_back(strided.data());
  if (extra_value != nullptr) args.push_back(const_cast<void*>(extra_value));
  const long long blocks = std::min(CeilDiv(n, kBlockSize), kMaxBlocks);
  return LaunchKeyed(key, [&] { return ElementwiseBody(spec, kKernelName); }, kKernelName, blocks,
                     1, args.data());
}

absl::Status CudaStream::LaunchContiguous(const std::string& key, const ElementwiseSpec& spec,
                                          std::vector<char*> ptrs, long long n, int aligned,
                                          const void* extra_value) {
  std::vector<void*> args;
  for (char*& p : ptrs) args.push_back(&p);
  args.push_back(&n);
  args.push_back(&aligned);
  if (extra_value != nullptr) args.push_back(const_cast<void*>(extra_value));
  const long long blocks = std::min(CeilDiv(CeilDiv(n, VectorWidth(spec.dtypes)), kBlockSize),
                                    kMaxBlocks);
  return LaunchKeyed(key, [&] { return ElementwiseBody(spec, kKernelName); }, kKernelName, blocks,
                     1, args.data());
}

absl::Status CudaStream::Group(const std::string& key, const ElementwiseSpec& spec,
                               const std::vector<const View*>& views,
                               const std::vector<char*>& ptrs, long long n, int aligned) {
  auto range = [&](size_t v) {
    return std::pair<const char*, const char*>(ptrs[v], ptrs[v] + n * ItemSize(views[v]->dtype));
  };
  auto overlaps = [](const std::pair<const char*, const char*>& r,
                     const std::vector<std::pair<const char*, const char*>>& ranges) {
    for (const auto& q : ranges) {
      if (r.first < q.second && q.first < r.second) return true;
    }
    return false;
  };
  // One launch runs its ops in no order: an op that reads what a held op
  // writes, or writes what one reads or writes, waits for the next launch.
  bool join = !group_.ops.empty() && group_.key == key &&
              group_.ops.size() < static_cast<size_t>(kMaxGroupOps);
  if (join) {
    const auto out = range(0);
    join = !overlaps(out, group_.reads) && !overlaps(out, group_.writes);
    for (size_t v = 1; join && v < views.size(); ++v) join = !overlaps(range(v), group_.writes);
  }
  if (!join) {
    ARRAYD_RETURN_IF_ERROR(FlushGroup());
    if (group_.key != key) {
      group_.key = key;
      group_.spec = spec;
    }
  }
  GroupedOp op{};
  for (size_t v = 0; v < ptrs.size(); ++v) op.p[v] = ptrs[v];
  op.n = n;
  op.aligned = aligned;
  group_.ops.push_back(op);
  group_.writes.push_back(range(0));
  for (size_t v = 0; v < views.size(); ++v) {
    if (v > 0) group_.reads.push_back(range(v));
    group_.hold.push_back(views[v]->buffer);
  }
  return absl::OkStatus();
}

absl::Status CudaStream::FlushGroup() {
  if (group_.ops.empty()) return absl::OkStatus();
  absl::Status launched = LaunchGroup();
  // The buffers go now: whoever reuses them is queued after. The vectors
  // keep their capacity, key and spec for the next group (an op that
  // conflicts with the one before it flushes a group of one).
  group_.ops.clear();
  group_.hold.clear();
  group_.reads.clear();
  group_.writes.clear();
  return launched;
}

absl::Status CudaStream::LaunchGroup() {
  const PendingGroup& g = group_;
  const int operands = static_cast<int>(g.spec.dtypes.size());
  auto one_by_one = [&]() -> absl::Status {
    for (const GroupedOp& op : g.ops) {
      ARRAYD_RETURN_IF_ERROR(LaunchContiguous(g.key, g.spec,
                                              std::vector<char*>(op.p, op.p + operands), op.n,
                                              op.aligned, nullptr));
    }
    return absl::OkStatus();
  };
  if (g.ops.size() == 1) return one_by_one();
  // gen Group: {count, then per op: p[operands], n, first_block, aligned};
  // the kernel reads only the first `count` ops.
  const long long per_op = operands + 3;
  group_words_.resize(1 + kMaxGroupOps * per_op);
  group_words_[0] = static_cast<long long>(g.ops.size());
  const long long width = VectorWidth(g.spec.dtypes);
  long long blocks = 0;
  for (size_t k = 0; k < g.ops.size(); ++k) {
    long long* w = &group_words_[1 + k * per_op];
    std::memcpy(w, g.ops[k].p, sizeof(char*) * operands);
    w[operands] = g.ops[k].n;
    w[operands + 1] = blocks;
    w[operands + 2] = g.ops[k].aligned;
    blocks += CeilDiv(CeilDiv(g.ops[k].n, width), kBlockSize);
  }
  const std::string key = absl::StrCat(g.key, "|group");
  auto it = functions_.find(key);
  if (it == functions_.end()) {
    absl::StatusOr<CUfunction> made =
        FunctionForBody(ElementwiseGroupBody(g.spec, kGroupKernelName), kGroupKernelName);
    if (!made.ok()) {
      // A device without the group kernel (__grid_constant__ needs sm_70)
      // launches the ops one by one; remembered as a null function.
      SPDLOG_WARN("grouped launches off for '{}': {}", g.spec.expr, made.status().ToString());
    }
    it = functions_.emplace(key, made.ok() ? *made : nullptr).first;
  }
  if (it->second == nullptr) return one_by_one();
  void* args[] = {group_words_.data()};
  return LaunchFunction(it->second, blocks, 1, args);
}

absl::Status CudaStream::RunReduce(const char* kind, const View& in, absl::Span<const int> axes,
                                   const View& out) {
  View kept, reduced;
  SplitAxes(in, axes, &kept, &reduced);
  if (out.ndim() != kept.ndim()) return absl::InternalError("reduce: bad output rank");
  View out_as_kept = out;  // same element count and order as `kept`
  out_as_kept.shape = kept.shape;
  const long long m = kept.size(), k = reduced.size();
  if (m == 0) return absl::OkStatus();

  std::vector<Strides> kstrides, rstrides;
  const View* kept_views[2] = {&kept, &out_as_kept};
  Shape kshape = CollapseDims(kept_views, &kstrides);
  const View* reduced_views[1] = {&reduced};
  Shape rshape = CollapseDims(reduced_views, &rstrides);
  // Rank 0 becomes rank 1 of extent 1: the kernels index at least one dim.
  if (kshape.empty()) {
    kshape.push_back(1);
    kstrides[0].push_back(0);
    kstrides[1].push_back(0);
  }
  if (rshape.empty()) {
    rshape.push_back(k == 0 ? 0 : 1);
    rstrides[0].push_back(0);
  }
  const int kd = static_cast<int>(kshape.size()), rd = static_cast<int>(rshape.size());
  if (kd > kMaxKernelDims) return TooManyDims(kd);
  if (rd > kMaxKernelDims) return TooManyDims(rd);

  // Strategy. Block mode: a block per output, threads along the reduced
  // elements (coalesced when those are contiguous). Thread mode: a thread per
  // output (coalesced when the kept dims are the inner ones, or when few
  // elements are reduced). When outputs are too few to fill the GPU, each
  // output is split over `splits` blocks, whose partial results a second
  // kernel combines.
  // 4 blocks per SM: 1% faster than 8 for a 1 GiB sum, as fast as CUB
  // (tests/bench/kernel_variants.cu, RESULTS.md).
  const long long target_blocks = 4LL * dev_->sm_count;
  const bool inner_contiguous = rstrides[0][rd - 1] == ItemSize(in.dtype);
  bool block_mode;
  long long splits = 1;
  if (m == 1) {
    block_mode = true;
    splits = std::min(target_blocks, CeilDiv(k, kBlockSize * 16LL));
  } else if (k <= 16) {
    block_mode = false;
  } else if (inner_contiguous || m < 64) {
    block_mode = true;
    if (m < 2 * dev_->sm_count) {
      splits = std::min(CeilDiv(target_blocks, m), CeilDiv(k, kBlockSize * 16LL));
    }
  } else {
    block_mode = false;
    const long long bx = CeilDiv(m, kBlockSize);
    if (bx < 2 * dev_->sm_count) splits = std::min(CeilDiv(target_blocks, bx), CeilDiv(k, 16));
  }
  splits = std::max(1LL, std::min(splits, 1024LL));

  std::shared_ptr<Buffer> partial;
  if (splits > 1) {
    ARRAYD_ASSIGN_OR_RETURN(partial, dev_->allocator->Allocate(
                                         static_cast<size_t>(m * splits * kMaxAccBytes), id_));
  }
  ReduceSpec spec{kind, in.dtype, out.dtype, kd, rd};
  const std::string name = "arrayd_reduce";
  const std::string key = absl::StrCat("reduce|", kind, "|", static_cast<int>(in.dtype), "|",
                                       static_cast<int>(out.dtype), "|", kd, "|", rd, "|");
  auto body = [&] { return ReduceBody(spec, name); };

  auto make_args = [&](long long k_value) {
    std::vector<long long> w;
    PushWord(&w, static_cast<const char*>(in.data()));
    PushWord(&w, out.data());
    PushWord(&w, partial ? static_cast<char*>(partial->data()) : static_cast<char*>(nullptr));
    w.push_back(m);
    w.push_back(k_value);
    for (int d = 0; d < kd; ++d) w.push_back(kshape[d]);
    for (int d = 0; d < kd; ++d) w.push_back(kstrides[0][d]);
    for (int d = 0; d < kd; ++d) w.push_back(kstrides[1][d]);
    for (int d = 0; d < rd; ++d) w.push_back(rshape[d]);
    for (int d = 0; d < rd; ++d) w.push_back(rstrides[0][d]);
    return w;
  };
  std::vector<long long> words = make_args(k);
  void* args[] = {words.data()};
  if (block_mode) {
    ARRAYD_RETURN_IF_ERROR(LaunchKeyed(key + "block", body, name + "_block",
                                       std::min(m, kMaxBlocks), splits, args));
  } else {
    ARRAYD_RETURN_IF_ERROR(LaunchKeyed(key + "thread", body, name + "_thread",
                                       std::min(CeilDiv(m, kBlockSize), kMaxBlocks), splits, args));
  }
  if (splits > 1) {
    std::vector<long long> finish_words = make_args(splits);
    void* finish_args[] = {finish_words.data()};
    ARRAYD_RETURN_IF_ERROR(LaunchKeyed(key + "finish", body, name + "_finish",
                                       std::min(m, kMaxBlocks), 1, finish_args));
  }
  // `partial` goes back to this stream's pool: later users are ordered after.
  return absl::OkStatus();
}

// ---- selection, sorting, products ------------------------------------------

// `v` collapsed alone (flat C order is kept); rank 0 becomes rank 1.
absl::Status CollapseOne(const View& v, Shape* shape, Strides* strides) {
  std::vector<Strides> s;
  const View* views[1] = {&v};
  *shape = CollapseDims(views, &s);
  *strides = s[0];
  if (shape->empty()) {
    shape->push_back(1);
    strides->push_back(0);
  }
  if (static_cast<int>(shape->size()) > kMaxKernelDims) {
    return TooManyDims(static_cast<int>(shape->size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<FlatLayoutArgs> MakeFlatLayout(const View& v) {
  Shape shape;
  Strides strides;
  ARRAYD_RETURN_IF_ERROR(CollapseOne(v, &shape, &strides));
  FlatLayoutArgs l{};
  l.base = v.data();
  l.nd = static_cast<long long>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    l.shape[d] = shape[d];
    l.stride[d] = strides[d];
  }
  return l;
}

absl::Status CudaStream::Gather(const View& in, const View& index, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (index.dtype != DType::kInt64 || out.dtype != in.dtype || out.shape != index.shape) {
    return absl::InternalError("gather: unexpected dtypes or shapes");
  }
  if (out.size() == 0) return absl::OkStatus();
  if (in.size() == 0) return IndexError("gather: index out of range of an empty array");
  ARRAYD_ASSIGN_OR_RETURN(FlatLayoutArgs layout, MakeFlatLayout(in));
  return Elementwise({&out, &index}, "*reinterpret_cast<const T0*>(fl.base + FlatOffset(fl, v1))",
                     "FlatLayout", "fl", &layout);
}

absl::Status CudaStream::Scatter(const View& values, const View& index, const View& target) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (index.dtype != DType::kInt64 || values.shape != index.shape) {
    return absl::InternalError("scatter: unexpected dtypes or shapes");
  }
  long long n = index.size();
  if (n == 0) return absl::OkStatus();
  if (target.size() == 0) return IndexError("scatter: index out of range of an empty array");
  ARRAYD_ASSIGN_OR_RETURN(FlatLayoutArgs layout_value, MakeFlatLayout(target));

  std::vector<Strides> strides;
  const View* views[2] = {&index, &values};
  Shape shape = CollapseDims(views, &strides);
  if (shape.empty()) {
    shape.push_back(1);
    strides[0].push_back(0);
    strides[1].push_back(0);
  }
  const int nd = static_cast<int>(shape.size());
  if (nd > kMaxKernelDims) return TooManyDims(nd);
  std::vector<long long> strided;
  for (int d = 0; d < nd; ++d) strided.push_back(shape[d]);
  for (int v = 0; v < 2; ++v) {
    for (int d = 0; d < nd; ++d) strided.push_back(strides[v][d]);
  }

  const std::string name = "arrayd_scatter";
  const std::string source = BuildSource({ScatterBody(values.dtype, target.dtype, nd, name)});
  ARRAYD_ASSIGN_OR_RETURN(CUfunction fn, dev_->kernels->Get(source, name));
  // With one position nothing repeats: write directly. Else first find the
  // last position writing each target element.
  std::shared_ptr<Buffer> winner_buf;
  long long* winner = nullptr;
  if (n > 1) {
    const size_t bytes = static_cast<size_t>(target.size()) * sizeof(long long);
    ARRAYD_ASSIGN_OR_RETURN(winner_buf, Temp(bytes));
    winner = static_cast<long long*>(winner_buf->data());
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(winner, 0xff, bytes, stream_));  // -1
  }
  const char* idx = index.data();
  const char* vals = values.data();
  const long long blocks = std::min(CeilDiv(n, kBlockSize), kMaxBlocks);
  for (int pass = winner == nullptr ? 1 : 0; pass < 2; ++pass) {
    void* args[] = {&idx, &vals, &n, strided.data(), &layout_value, &winner, &pass};
    ARRAYD_RETURN_IF_ERROR(LaunchFunction(fn, blocks, 1, args));
  }
  return absl::OkStatus();
}

absl::Status CudaStream::Nonzero(const View& mask, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (mask.dtype != DType::kBool || out.dtype != DType::kInt64 || out.ndim() != 1 ||
      !out.IsCContiguous()) {
    return absl::InternalError("nonzero: needs a bool mask and a contiguous 1-D int64 output");
  }
  long long out_n = out.size();
  long long n = mask.size();
  if (out_n == 0 || n == 0) return absl::OkStatus();
  Shape shape;
  Strides strides;
  ARRAYD_RETURN_IF_ERROR(CollapseOne(mask, &shape, &strides));
  const int nd = static_cast<int>(shape.size());
  std::vector<long long> strided(shape.begin(), shape.end());
  strided.insert(strided.end(), strides.begin(), strides.end());

  // Chunks of at least 4096 positions, at most 4096 chunks.
  long long chunk = std::max<long long>(kBlockSize * 16LL, CeilDiv(n, 4096));
  chunk = CeilDiv(chunk, kBlockSize) * kBlockSize;
  const long long blocks = CeilDiv(n, chunk);
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> counts_buf,
                          Temp(static_cast<size_t>(blocks) * sizeof(long long)));
  long long* counts = static_cast<long long*>(counts_buf->data());
  const char* m = mask.data();
  long long* o = reinterpret_cast<long long*>(out.data());
  const std::string name = "arrayd_nonzero";
  const std::string source = BuildSource({NonzeroBody(nd, name)});
  void* count_args[] = {&m, &n, &chunk, strided.data(), &counts};
  ARRAYD_RETURN_IF_ERROR(Launch(source, name + "_count", blocks, 1, count_args));
  void* write_args[] = {&m, &n, &chunk, strided.data(), &counts, &o, &out_n};
  return Launch(source, name + "_write", blocks, 1, write_args);
}

absl::Status CudaStream::Sort(const View& in, const View& out, const View* indices) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (out.dtype != in.dtype || out.shape != in.shape || !out.IsCContiguous()) {
    return absl::InternalError("sort: needs a C-contiguous output of the input's shape and dtype");
  }
  if (indices != nullptr &&
      (indices->dtype != DType::kInt64 || indices->shape != in.shape || !indices->IsCContiguous())) {
    return absl::InternalError("sort: indices must be C-contiguous int64 of the input's shape");
  }
  if (in.size() == 0) return absl::OkStatus();
  long long n = in.ndim() == 0 ? 1 : in.shape.back();
  long long lines = in.size() / n;
  long long p = 1;
  while (p < n) p *= 2;
  long long total = lines * p;
  Shape shape;
  Strides strides;
  ARRAYD_RETURN_IF_ERROR(CollapseOne(in, &shape, &strides));
  const int nd = static_cast<int>(shape.size());
  std::vector<long long> strided(shape.begin(), shape.end());
  strided.insert(strided.end(), strides.begin(), strides.end());

  const size_t item = static_cast<size_t>(ItemSize(in.dtype));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> keys_buf, Temp(static_cast<size_t>(total) * item));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> idx_buf,
                          Temp(static_cast<size_t>(total) * sizeof(long long)));
  char* keys = static_cast<char*>(keys_buf->data());
  long long* idx = static_cast<long long*>(idx_buf->data());
  const std::string name = "arrayd_sort";
  const std::string source = BuildSource({SortBody(in.dtype, nd, name)});
  ARRAYD_ASSIGN_OR_RETURN(CUfunction init_fn, dev_->kernels->Get(source, name + "_init"));
  ARRAYD_ASSIGN_OR_RETURN(CUfunction step_fn, dev_->kernels->Get(source, name + "_step"));
  ARRAYD_ASSIGN_OR_RETURN(CUfunction out_fn, dev_->kernels->Get(source, name + "_out"));
  ARRAYD_ASSIGN_OR_RETURN(CUfunction local_fn, dev_->kernels->Get(source, name + "_local"));

  const char* src = in.data();
  const long long grid = std::min(CeilDiv(total, kBlockSize), kMaxBlocks);
  void* init_args[] = {&src, &lines, &n, &p, strided.data(), &keys, &idx};
  ARRAYD_RETURN_IF_ERROR(LaunchFunction(init_fn, grid, 1, init_args));
  // Bitonic sort of every line: the steps (k, j) with j < kSortTile run in
  // shared memory (a block per tile of kSortTile elements, several steps per
  // launch); the others one launch each over global memory.
  const long long tiles = std::min(CeilDiv(total, kSortTile), kMaxBlocks);
  auto local = [&](long long k_first, long long k_last, long long j_first) {
    void* local_args[] = {&keys, &idx, &total, &n, &p, &k_first, &k_last, &j_first};
    return LaunchFunction(local_fn, tiles, 1, local_args);
  };
  if (p >= 2) ARRAYD_RETURN_IF_ERROR(local(2, std::min(p, kSortTile), 1));
  for (long long k = 2 * kSortTile; k <= p; k *= 2) {
    for (long long j = k / 2; j >= kSortTile; j /= 2) {
      void* step_args[] = {&keys, &idx, &total, &n, &p, &k, &j};
      ARRAYD_RETURN_IF_ERROR(LaunchFunction(step_fn, grid, 1, step_args));
    }
    ARRAYD_RETURN_IF_ERROR(local(k, k, kSortTile / 2));
  }
  const char* ckeys = keys;
  const long long* cidx = idx;
  char* dst = out.data();
  long long* ind = indices == nullptr ? nullptr : reinterpret_cast<long long*>(indices->data());
  void* out_args[] = {&ckeys, &cidx, &lines, &n, &p, &dst, &ind};
  const long long out_grid = std::min(CeilDiv(lines * n, kBlockSize), kMaxBlocks);
  return LaunchFunction(out_fn, out_grid, 1, out_args);
}

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
    return absl::InternalError("matmul: needs C-contiguous (batch, m, k) @ (batch, k, n) of one dtype");
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
        ARRAYD_CUBLAS_RETURN_IF_ERROR(cublasZgemmStridedBatched(
            h, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one,
            reinterpret_cast<const cuDoubleComplex*>(pb), in, sb,
            reinterpret_cast<const cuDoubleComplex*>(pa), ik, sa, &zero,
            reinterpret_cast<cuDoubleComplex*>(po), in, so, nb));
        break;
      }
      default: {  // float16: half storage, float32 accumulation
        const float one = 1, zero = 0;
        if (nb == 1) {  // one product: the plain GEMM, as CuPy calls it
          ARRAYD_CUBLAS_RETURN_IF_ERROR(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one,
                                                     pb, CUDA_R_16F, in, pa, CUDA_R_16F, ik, &zero,
                                                     po, CUDA_R_16F, in, CUBLAS_COMPUTE_32F,
                                                     CUBLAS_GEMM_DEFAULT));
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
  ARRAYD_RETURN_IF_ERROR(CheckInfo(info, batch, "LU factorization"));
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
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> ipiv_buf,
                          Temp(static_cast<size_t>(batch * n) * sizeof(int64_t)));
  int64_t* ipiv = static_cast<int64_t*>(ipiv_buf->data());
  char* base = static_cast<char*>(scratch->data());
  int* info_p = reinterpret_cast<int*>(info.data());

  size_t dev_bytes = 0, host_bytes = 0;
  ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgetrf_bufferSize(h, solver_params_, n, n, type, base,
                                                              n, type, &dev_bytes, &host_bytes));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> work, Temp(std::max<size_t>(dev_bytes, 1)));
  for (int64_t b = 0; b < batch; ++b) {
    ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgetrf(
        h, solver_params_, n, n, type, base + b * nn * item, n, ipiv + b * n, type, work->data(),
        dev_bytes, HostWork(host_bytes), host_bytes, info_p + b));
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
    ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgetrs(
        h, solver_params_, CUBLAS_OP_N, n, k, type, lu_base + b * nn * item, n, ipiv + b * n,
        type, b_base + b * nk * item, n, info_p + b));
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
  ARRAYD_RETURN_IF_ERROR(CheckInfo(info, batch, "Cholesky"));
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
      ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnDorgqr_bufferSize(
          h, im, ik, imn, reinterpret_cast<double*>(base), im, reinterpret_cast<double*>(tau),
          &lwork));
      break;
    case DType::kComplex64:
      ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnCungqr_bufferSize(
          h, im, ik, imn, reinterpret_cast<cuComplex*>(base), im, reinterpret_cast<cuComplex*>(tau),
          &lwork));
      break;
    default:
      ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnZungqr_bufferSize(
          h, im, ik, imn, reinterpret_cast<cuDoubleComplex*>(base), im,
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
        ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnCungqr(
            h, im, ik, imn, reinterpret_cast<cuComplex*>(ab), im,
            reinterpret_cast<const cuComplex*>(tb), static_cast<cuComplex*>(qwork->data()), lwork,
            info_p + b));
        break;
      default:
        ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnZungqr(
            h, im, ik, imn, reinterpret_cast<cuDoubleComplex*>(ab), im,
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
  ARRAYD_RETURN_IF_ERROR(CheckInfo(info, batch, "SVD"));
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

absl::Status CudaStream::Eigh(const View& a_in, const View& w, const View* v_in,
                              const View& info) {
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
  ARRAYD_RETURN_IF_ERROR(CheckInfo(info, batch, "eigh"));
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
  ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXsyevd_bufferSize(
      h, solver_params_, jobz, CUBLAS_FILL_MODE_UPPER, n, type, base, n, real, w_base, type,
      &dev_bytes, &host_bytes));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> work, Temp(std::max<size_t>(dev_bytes, 1)));
  for (int64_t b = 0; b < batch; ++b) {
    ARRAYD_CUSOLVER_RETURN_IF_ERROR(cusolverDnXsyevd(
        h, solver_params_, jobz, CUBLAS_FILL_MODE_UPPER, n, type, base + b * nn * item, n, real,
        w_base + b * n * ritem, type, work->data(), dev_bytes, HostWork(host_bytes), host_bytes,
        info_p + b));
    ARRAYD_RETURN_IF_ERROR(AfterSolverCall(host_bytes));
  }
  if (v_in == nullptr) return absl::OkStatus();
  const View z_col = ColumnMajorView(scratch, t, batch, n, n, n, nn);
  return Elementwise({&v, &z_col}, MatrixExpr(MatrixExprKind::kConjugate));
}

// ---- FFTs (cuFFT) ------------------------------------------------------------

// The general eigenproblem runs LAPACK's geev on a host copy, the CPU
// backend's routine: the Hessenberg QR iteration is sequential, and
// cuSOLVER's own geev (cusolverDnXgeev) also takes a host workspace for
// part of its work. The copies are synchronous, like the solvers' checks.
absl::Status CudaStream::Eig(const View& a, const View& w, const View* v, const View& info) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  auto host_like = [](const View& like) {
    const size_t n = static_cast<size_t>(std::max<int64_t>(like.nbytes(), 1));
    auto buffer = std::make_shared<Buffer>(std::malloc(n), n, [](void* p, size_t) { std::free(p); });
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

absl::StatusOr<std::shared_ptr<FftPlan>> CudaStream::GetFftPlan(cufftType type, long long n,
                                                                long long batch) {
  const auto key = std::make_tuple(static_cast<int>(type), n, batch);
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
  // The 32-bit plan when every index fits (the common case, and the plan
  // CuPy makes); the 64-bit API only for transforms of 2^31 or more values.
  if (n * batch < (1LL << 31)) {  // n: the widest side of r2c/c2r too
    int dims[1] = {static_cast<int>(n)};
    ARRAYD_CUFFT_RETURN_IF_ERROR(cufftMakePlanMany(plan->handle, 1, dims, nullptr, 1, 0, nullptr, 1,
                                                   0, type, static_cast<int>(batch), &work));
  } else {
    long long dims[1] = {n};
    ARRAYD_CUFFT_RETURN_IF_ERROR(cufftMakePlanMany64(plan->handle, 1, dims, nullptr, 1, 0, nullptr,
                                                     1, 0, type, batch, &work));
  }
  plan->work_bytes = work;
  if (dev_->fft_plans.size() >= kMaxFftPlans) dev_->fft_plans.clear();
  dev_->fft_plans.emplace(key, plan);
  return plan;
}

absl::Status CudaStream::Fft(const View& in, const View& out, bool inverse) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (in.dtype != DType::kComplex64 && in.dtype != DType::kComplex128) {
    return absl::InternalError(absl::StrCat("FFT: needs complex64 or complex128, got ",
                                            DTypeName(in.dtype)));
  }
  if (in.ndim() < 1) return absl::InternalError("FFT: needs at least one dimension");
  const int64_t n = in.shape.back();
  int64_t batch = 0, out_batch = 0;
  ARRAYD_RETURN_IF_ERROR(FftOperand(in, in.dtype, n, "FFT", &batch));
  ARRAYD_RETURN_IF_ERROR(FftOperand(out, in.dtype, n, "FFT", &out_batch));
  if (out_batch != batch) return absl::InternalError("FFT: in and out differ in size");
  if (batch == 0) return absl::OkStatus();
  const bool single = in.dtype == DType::kComplex64;
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<FftPlan> plan,
                          GetFftPlan(single ? CUFFT_C2C : CUFFT_Z2Z, n, batch));
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

absl::Status CudaStream::Rfft(const View& in, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (in.dtype != DType::kFloat32 && in.dtype != DType::kFloat64) {
    return absl::InternalError(absl::StrCat("real FFT: needs float32 or float64, got ",
                                            DTypeName(in.dtype)));
  }
  if (in.ndim() < 1) return absl::InternalError("real FFT: needs at least one dimension");
  const bool single = in.dtype == DType::kFloat32;
  const int64_t n = in.shape.back();
  int64_t batch = 0, out_batch = 0;
  ARRAYD_RETURN_IF_ERROR(FftOperand(in, in.dtype, n, "real FFT", &batch));
  ARRAYD_RETURN_IF_ERROR(FftOperand(out, single ? DType::kComplex64 : DType::kComplex128, n / 2 + 1,
                                    "real FFT", &out_batch));
  if (out_batch != batch && n > 0)
    return absl::InternalError("real FFT: in and out differ in batch");
  if (batch == 0) return absl::OkStatus();
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<FftPlan> plan,
                          GetFftPlan(single ? CUFFT_R2C : CUFFT_D2Z, n, batch));
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

absl::Status CudaStream::Irfft(const View& in, const View& out) {
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
  ARRAYD_RETURN_IF_ERROR(FftOperand(out, out.dtype, n, "inverse real FFT", &batch));
  ARRAYD_RETURN_IF_ERROR(FftOperand(in, ct, half, "inverse real FFT", &in_batch));
  if (in_batch != batch && n > 0) {
    return absl::InternalError("inverse real FFT: in and out differ in batch");
  }
  if (batch == 0) return absl::OkStatus();
  // C2R overwrites its input: transform a scratch copy, in which the
  // imaginary parts that a real signal's spectrum cannot have (at 0 and at
  // n/2) are dropped, as FFTW and pocketfft ignore them.
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> scratch,
                          Temp(static_cast<size_t>(batch * half * ItemSize(ct))));
  const View in3 = MatrixView(in.buffer, ct, 1, batch, half, 0, half, 1, in.offset);
  const View copy = MatrixView(scratch, ct, 1, batch, half, 0, half, 1);
  ARRAYD_RETURN_IF_ERROR(MatrixOp(copy, &in3, MatrixExprKind::kHalfSpectrumEnds, n, half));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<FftPlan> plan,
                          GetFftPlan(single ? CUFFT_C2R : CUFFT_Z2D, n, batch));
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

absl::Status CudaStream::CopyFromHost(const void* src, const View& dst) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  const size_t n = static_cast<size_t>(dst.nbytes());
  if (n == 0) return absl::OkStatus();
  if (!dst.IsCContiguous()) return absl::InternalError("CopyFromHost needs a C-contiguous view");
  char* d = dst.data();
  const char* s = static_cast<const char*>(src);
  if (n < kDirectCopyBytes || IsRegistered(s, n) || !EnsureStaging()) {
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(d, s, n, cudaMemcpyHostToDevice, stream_));
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    return absl::OkStatus();
  }
  // Chunk c goes through staging_[c % 2]; before refilling a buffer, wait
  // for the DMA that last read it.
  for (size_t off = 0, c = 0; off < n; off += kStagingBytes, ++c) {
    const size_t len = std::min(kStagingBytes, n - off);
    const int b = static_cast<int>(c % 2);
    if (c >= 2) ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(staged_[b]));
    std::memcpy(staging_[b], s + off, len);
    ARRAYD_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(d + off, staging_[b], len, cudaMemcpyHostToDevice, stream_));
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventRecord(staged_[b], stream_));
  }
  // The caller may free `src` (and we may reuse staging) once this returns.
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  return absl::OkStatus();
}

absl::Status CudaStream::CopyToHost(const View& src, void* dst) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  const size_t n = static_cast<size_t>(src.nbytes());
  if (n == 0) return absl::OkStatus();
  if (!src.IsCContiguous()) return absl::InternalError("CopyToHost needs a C-contiguous view");
  const char* s = src.data();
  char* d = static_cast<char*>(dst);
  if (IsRegistered(d, n) || !EnsureStaging()) {
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(d, s, n, cudaMemcpyDeviceToHost, stream_));
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    return absl::OkStatus();
  }
  const size_t chunks = (n + kStagingBytes - 1) / kStagingBytes;
  auto issue = [&](size_t c) -> absl::Status {
    const size_t off = c * kStagingBytes, len = std::min(kStagingBytes, n - off);
    const int b = static_cast<int>(c % 2);
    ARRAYD_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(staging_[b], s + off, len, cudaMemcpyDeviceToHost, stream_));
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventRecord(staged_[b], stream_));
    return absl::OkStatus();
  };
  // The DMA of chunk c+1 runs while the host copies chunk c out.
  ARRAYD_RETURN_IF_ERROR(issue(0));
  for (size_t c = 0; c < chunks; ++c) {
    if (c + 1 < chunks) ARRAYD_RETURN_IF_ERROR(issue(c + 1));
    const int b = static_cast<int>(c % 2);
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(staged_[b]));
    const size_t off = c * kStagingBytes, len = std::min(kStagingBytes, n - off);
    std::memcpy(d + off, staging_[b], len);
  }
  return absl::OkStatus();
}

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(std::shared_ptr<DeviceState> dev) : dev_(std::move(dev)) {}

  std::string name() const override { return "cuda"; }

  std::vector<DeviceDescription> Devices() const override {
    return {DeviceDescription{"cuda", dev_->device, dev_->props.name,
                              static_cast<uint64_t>(dev_->props.totalGlobalMem)}};
  }

  absl::StatusOr<std::unique_ptr<Stream>> CreateStream() override {
    ARRAYD_RETURN_IF_ERROR(FatalDeviceError());
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaSetDevice(dev_->device));
    cudaStream_t stream = nullptr;
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    return std::unique_ptr<Stream>(
        new CudaStream(dev_, stream, dev_->allocator->RegisterStream()));
  }

  absl::Status Health() const override { return FatalDeviceError(); }

 private:
  std::shared_ptr<DeviceState> dev_;
};

}  // namespace

int VisibleGpuCount(std::string* reason) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (reason != nullptr) {
      *reason = absl::StrCat(cudaGetErrorName(err), ": ", cudaGetErrorString(err));
    }
    return 0;
  }
  if (count == 0 && reason != nullptr) *reason = "the CUDA driver reports no device";
  return count;
}

absl::StatusOr<std::unique_ptr<Backend>> CreateCudaBackend(int device) {
  auto dev = std::make_shared<DeviceState>();
  dev->device = device;
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaFree(nullptr));  // creates the primary context now
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&dev->props, device));
  dev->sm_count = std::max(1, dev->props.multiProcessorCount);
  ARRAYD_RETURN_IF_ERROR(GetDriverApi().status());
  const std::string arch = ArchName(dev->props.major, dev->props.minor);
  const std::string disk = DefaultDiskCacheDir();
  dev->allocator = CachingAllocator::Create(device);
  dev->kernels = std::make_unique<KernelCache>(arch, disk);
  spdlog::info("CUDA device {}: {} ({}, {} SMs, {} MiB), NVRTC {}, kernel cache {}", device,
               dev->props.name, arch, dev->sm_count, dev->props.totalGlobalMem >> 20,
               NvrtcVersion(), disk.empty() ? "in memory only" : disk);
  return std::unique_ptr<Backend>(new CudaBackend(std::move(dev)));
}

}  // namespace cuda
}  // namespace arrayd
