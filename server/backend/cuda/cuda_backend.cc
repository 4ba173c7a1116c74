#include "backend/cuda/cuda_backend.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend/cuda/caching_allocator.h"
#include "backend/cuda/cublas_status.h"
#include "backend/cuda/cuda_status.h"
#include "backend/cuda/driver_api.h"
#include "backend/cuda/kernel_cache.h"
#include "backend/cuda/kernel_source.h"
#include "backend/scalar_cast.h"
#include "common/status.h"
#include "kernels/functors.h"
#include "kernels/host_dispatch.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace cuda {
namespace {

using kernels::DispatchDType;
using kernels::kAll;
using kernels::kB;
using kernels::kC;
using kernels::kF;
using kernels::kI;
using kernels::KindBit;

// Pinned staging for host <-> device copies of pageable memory: two buffers
// per stream, so the host memcpy of one chunk overlaps the DMA of the other.
constexpr size_t kStagingBytes = size_t{8} << 20;
// Below this, a copy goes directly (cudaMemcpyAsync + synchronize).
constexpr size_t kDirectCopyBytes = size_t{64} << 10;
// Cap of grid-stride grids (blocks).
constexpr long long kMaxBlocks = 1 << 20;
constexpr char kKernelName[] = "arrayd_kernel";

// What every stream of one device shares.
struct DeviceState {
  int device = 0;
  cudaDeviceProp props{};
  int sm_count = 1;
  std::shared_ptr<CachingAllocator> allocator;
  std::unique_ptr<KernelCache> kernels;
};

// ---- host-side checks of ufunc dtypes, as the CPU backend makes them ------
template <typename F, unsigned kMask>
absl::Status CheckUnary(const View& in, const View& out) {
  return DispatchDType(in.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr ((KindBit<T>() & kMask) == 0) {
      return TypeError(absl::StrCat("ufunc not supported for dtype ", DTypeName(in.dtype)));
    } else {
      using R = decltype(F()(T()));
      if (kernels::DTypeOf<R>::value != out.dtype) {
        return absl::InternalError("unary kernel: unexpected output dtype");
      }
      return absl::OkStatus();
    }
  });
}

template <typename F, unsigned kMask>
absl::Status CheckBinary(const View& a, const View& b, const View& out) {
  return DispatchDType(a.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr ((KindBit<T>() & kMask) == 0) {
      return TypeError(absl::StrCat("ufunc not supported for dtype ", DTypeName(a.dtype)));
    } else {
      using R = decltype(F()(T(), T()));
      if (kernels::DTypeOf<R>::value != out.dtype || b.dtype != a.dtype) {
        return absl::InternalError("binary kernel: unexpected dtypes");
      }
      return absl::OkStatus();
    }
  });
}

absl::Status CheckUnaryOp(kernels::UnaryOp op, const View& in, const View& out,
                          const char** functor) {
  switch (op) {
#define ARRAYD_UNARY_CASE(e, f, n, k) \
  case kernels::UnaryOp::e:           \
    *functor = #f;                    \
    return CheckUnary<kernels::f, k>(in, out);
    ARRAYD_UNARY_OPS(ARRAYD_UNARY_CASE)
#undef ARRAYD_UNARY_CASE
    default:
      return absl::UnimplementedError("unknown unary op");
  }
}

absl::Status CheckBinaryOp(kernels::BinaryOp op, const View& a, const View& b, const View& out,
                           const char** functor) {
  switch (op) {
#define ARRAYD_BINARY_CASE(e, f, n, k) \
  case kernels::BinaryOp::e:           \
    *functor = #f;                     \
    return CheckBinary<kernels::f, k>(a, b, out);
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
    if (cudaSetDevice(dev_->device) != cudaSuccess) return;
    // The shared pool may only get blocks no queued work still uses.
    if (FatalDeviceError().ok()) ARRAYD_CUDA_LOG_IF_ERROR(cudaStreamSynchronize(stream_));
    if (cublas_ != nullptr) {
      absl::Status s = ARRAYD_CUDA_STATUS_(CublasStatus, cublasDestroy(cublas_));
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
    ARRAYD_RETURN_IF_ERROR(Enter());
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

  absl::Status Copy(const View& src, const View& dst) override {
    ARRAYD_RETURN_IF_ERROR(Enter());
    return Elementwise({&dst, &src}, "v1");
  }

  absl::Status Unary(kernels::UnaryOp op, const View& in, const View& out) override {
    ARRAYD_RETURN_IF_ERROR(Enter());
    const char* functor = nullptr;
    ARRAYD_RETURN_IF_ERROR(CheckUnaryOp(op, in, out, &functor));
    return Elementwise({&out, &in}, absl::StrCat(functor, "()(v1)"));
  }

  absl::Status Binary(kernels::BinaryOp op, const View& a, const View& b,
                      const View& out) override {
    ARRAYD_RETURN_IF_ERROR(Enter());
    const char* functor = nullptr;
    ARRAYD_RETURN_IF_ERROR(CheckBinaryOp(op, a, b, out, &functor));
    return Elementwise({&out, &a, &b}, absl::StrCat(functor, "()(v1, v2)"));
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

  absl::Status Synchronize() override {
    ARRAYD_RETURN_IF_ERROR(Enter());
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    return absl::OkStatus();
  }

 private:
  // Called first by every method: refuses work after a fatal error and makes
  // the device current on this thread (executor threads differ per call).
  absl::Status Enter() {
    ARRAYD_RETURN_IF_ERROR(FatalDeviceError());
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaSetDevice(dev_->device));
    return absl::OkStatus();
  }

  // Runs the elementwise kernel out = expr over views[0] (output) and
  // views[1..] (inputs), with an optional by-value extra parameter.
  absl::Status Elementwise(std::vector<const View*> views, const std::string& expr,
                           const std::string& extra_type = "", const std::string& extra_name = "",
                           const void* extra_value = nullptr);

  absl::Status RunReduce(const char* kind, const View& in, absl::Span<const int> axes,
                         const View& out);

  absl::Status Launch(const std::string& source, const std::string& name, long long grid_x,
                      long long grid_y, void** args) {
    ARRAYD_ASSIGN_OR_RETURN(CUfunction fn, dev_->kernels->Get(source, name));
    return LaunchFunction(fn, grid_x, grid_y, args);
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

  // A temporary device buffer of this stream (back to its pool when freed;
  // later users are ordered after the work queued here).
  absl::StatusOr<std::shared_ptr<Buffer>> Temp(size_t nbytes) {
    return dev_->allocator->Allocate(nbytes, id_);
  }

  std::shared_ptr<DeviceState> dev_;
  cudaStream_t stream_;
  cublasHandle_t cublas_ = nullptr;
  std::vector<std::pair<const char*, size_t>> registered_;  // pinned host ranges
  const uint64_t id_;
  void* staging_[2] = {nullptr, nullptr};
  cudaEvent_t staged_[2] = {nullptr, nullptr};  // recorded after each chunk's DMA
  bool staging_failed_ = false;
};

absl::Status CudaStream::Elementwise(std::vector<const View*> views, const std::string& expr,
                                     const std::string& extra_type, const std::string& extra_name,
                                     const void* extra_value) {
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
  const std::string source = BuildSource({ElementwiseBody(spec, kKernelName)});

  std::vector<char*> ptrs;
  for (const View* v : views) ptrs.push_back(v->data());
  std::vector<void*> args;
  for (char*& p : ptrs) args.push_back(&p);
  long long count = n;
  args.push_back(&count);
  int aligned = 1;
  std::vector<long long> strided;
  long long work = n;
  if (contiguous) {
    for (char* p : ptrs) aligned &= reinterpret_cast<uintptr_t>(p) % 16 == 0;
    args.push_back(&aligned);
    work = CeilDiv(n, VectorWidth(spec.dtypes));
  } else {
    for (int d = 0; d < nd; ++d) strided.push_back(shape[d]);
    for (size_t v = 0; v < views.size(); ++v) {
      for (int d = 0; d < nd; ++d) strided.push_back(strides[v][d]);
    }
    args.push_back(strided.data());
  }
  if (extra_value != nullptr) args.push_back(const_cast<void*>(extra_value));
  const long long blocks = std::min(CeilDiv(work, kBlockSize), kMaxBlocks);
  return Launch(source, kKernelName, blocks, 1, args.data());
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
  const std::string source = BuildSource({ReduceBody(spec, name)});

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
    ARRAYD_RETURN_IF_ERROR(
        Launch(source, name + "_block", std::min(m, kMaxBlocks), splits, args));
  } else {
    ARRAYD_RETURN_IF_ERROR(Launch(source, name + "_thread",
                                  std::min(CeilDiv(m, kBlockSize), kMaxBlocks), splits, args));
  }
  if (splits > 1) {
    std::vector<long long> finish_words = make_args(splits);
    void* finish_args[] = {finish_words.data()};
    ARRAYD_RETURN_IF_ERROR(
        Launch(source, name + "_finish", std::min(m, kMaxBlocks), 1, finish_args));
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
        ARRAYD_CUBLAS_RETURN_IF_ERROR(cublasGemmStridedBatchedEx(
            h, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, pb, CUDA_R_16F, in, sb, pa, CUDA_R_16F,
            ik, sa, &zero, po, CUDA_R_16F, in, so, nb, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        break;
      }
    }
  }
  return absl::OkStatus();
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
  if (n < kDirectCopyBytes || IsRegistered(d, n) || !EnsureStaging()) {
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
