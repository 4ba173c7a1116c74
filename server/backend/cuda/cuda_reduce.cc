// CudaStream's reductions: sum, prod, min, max, all, any along axes (of an
// array, cast to the reduction's dtype as it is read, or of a fused chain's
// value computed in registers), and
// argmin/argmax along one axis, each one generated kernel (device/reduce.cuh)
// over the collapsed kept and reduced dims: a block, a warp or a thread per output,
// split over several blocks with a second (finish) kernel when the outputs
// are too few to fill the GPU.
//
// Assumes: the output has the kept dims in order (ops/ computes it) and the
// dtypes of backend.h's contract, checked here.
// Thread-safety: as CudaStream (one thread at a time).
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend/cuda/cuda_stream.h"
#include "backend/cuda/kernel_source.h"
#include "common/status.h"

namespace arrayd {
namespace cuda {

namespace {

// Adds a word (8 bytes) to a by-value kernel struct.
template <typename T>
void PushWord(std::vector<long long>* words, T v) {
  static_assert(sizeof(T) == 8, "kernel structs hold 8-byte fields only");
  long long w;
  std::memcpy(&w, &v, 8);
  words->push_back(w);
}

constexpr const char* kReduceKinds[] = {"sum", "prod", "min", "max", "all", "any"};

absl::Status CheckReduceOutput(kernels::ReduceOp op, DType in, DType out) {
  const bool logical = op == kernels::ReduceOp::kAll || op == kernels::ReduceOp::kAny;
  if (logical ? out != DType::kBool : out != in) {
    return absl::InternalError("reduce: unexpected output dtype");
  }
  return absl::OkStatus();
}

// Collapsed dims of a reduction: the kept dims over the `kept` views, the
// reduced ones over the `reduced` views; each at least one dim (the
// kernels index one), of extent 1 (or 0 for an empty reduction).
struct ReduceDims {
  Shape kshape, rshape;
  std::vector<Strides> kstrides, rstrides;
};

ReduceDims Collapse(absl::Span<const View* const> kept, absl::Span<const View* const> reduced,
                    long long k) {
  ReduceDims d;
  d.kshape = CollapseDims(kept, &d.kstrides);
  d.rshape = CollapseDims(reduced, &d.rstrides);
  // Rank 0 becomes rank 1 of extent 1: the kernels index at least one dim.
  if (d.kshape.empty()) {
    d.kshape.push_back(1);
    for (Strides& s : d.kstrides) s.push_back(0);
  }
  if (d.rshape.empty()) {
    d.rshape.push_back(k == 0 ? 0 : 1);
    for (Strides& s : d.rstrides) s.push_back(0);
  }
  return d;
}

}  // namespace

absl::Status CudaStream::Reduce(kernels::ReduceOp op, const View& in, absl::Span<const int> axes,
                                const View& out) {
  return ReduceAs(op, in, in.dtype, axes, out);
}

absl::Status CudaStream::ReduceAs(kernels::ReduceOp op, const View& in, DType as,
                                  absl::Span<const int> axes, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  ARRAYD_RETURN_IF_ERROR(CheckReduceOutput(op, as, out.dtype));
  const View* ins[1] = {&in};
  ReduceSpec spec(kReduceKinds[static_cast<int>(op)], in.dtype, out.dtype);
  spec.as = as;
  return RunReduce(std::move(spec), ins, nullptr, axes, out);
}

absl::Status CudaStream::ArgReduce(kernels::ArgReduceOp op, const View& in, int axis,
                                   const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (out.dtype != DType::kInt64) return absl::InternalError("argreduce: output must be int64");
  if (in.shape[axis] == 0) return ValueError("attempt to get argmax of an empty sequence");
  const int axes[1] = {axis};
  const View* ins[1] = {&in};
  return RunReduce({op == kernels::ArgReduceOp::kArgMax ? "argmax" : "argmin", in.dtype, out.dtype},
                   ins, nullptr, axes, out);
}

// The chain's element value is FusedExpression's lambda of the leaves; the
// kernel reads the leaves once and materializes nothing.
absl::Status CudaStream::FusedReduce(kernels::ReduceOp op, absl::Span<const FusedStep> steps,
                                     absl::Span<const View> leaves, const View& value, DType as,
                                     absl::Span<const int> axes, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  ARRAYD_RETURN_IF_ERROR(CheckReduceOutput(op, as, out.dtype));
  if (steps.empty() || leaves.empty() || steps.back().out != value.dtype) {
    return absl::InternalError("fused reduce: the value is not the last step's");
  }
  ReduceSpec spec(kReduceKinds[static_cast<int>(op)], value.dtype, out.dtype);
  spec.as = as;
  ARRAYD_ASSIGN_OR_RETURN(spec.value, FusedExpression(steps, static_cast<int>(leaves.size())));
  std::vector<const View*> ins;
  for (const View& l : leaves) {
    spec.leaves.push_back(l.dtype);
    ins.push_back(&l);
  }
  return RunReduce(std::move(spec), ins, &value, axes, out);
}

absl::Status CudaStream::RunReduce(ReduceSpec spec, absl::Span<const View* const> ins,
                                   const View* value, absl::Span<const int> axes, const View& out) {
  const bool fused = !spec.leaves.empty();
  if (value == nullptr) value = ins[0];
  View vkept, vreduced;
  SplitAxes(*value, axes, &vkept, &vreduced);
  if (out.ndim() != vkept.ndim()) return absl::InternalError("reduce: bad output rank");
  View out_as_kept = out;  // same element count and order as `kept`
  out_as_kept.shape = vkept.shape;
  const long long m = vkept.size(), k = vreduced.size();
  if (m == 0) return absl::OkStatus();

  // The value's own layout picks the strategy and the order (for a fused
  // chain: as the unfused reduction of the value would); the dims the
  // kernel indexes are collapsed over every array it reads.
  const View* value_only[1] = {&vreduced};
  std::vector<Strides> vstrides;
  const Shape vshape = CollapseDims(value_only, &vstrides);
  const bool inner_contiguous = !vshape.empty() && vstrides[0].back() == ItemSize(value->dtype);
  const bool vector = vshape.size() == 1 && inner_contiguous;  // gen::FusedReduceArgs::vector
  std::vector<View> kept(ins.size()), reduced(ins.size());
  std::vector<const View*> kviews, rviews;
  for (size_t i = 0; i < ins.size(); ++i) {
    SplitAxes(*ins[i], axes, &kept[i], &reduced[i]);
    kviews.push_back(&kept[i]);
    rviews.push_back(&reduced[i]);
  }
  kviews.push_back(&out_as_kept);
  if (fused) kviews.push_back(&vkept);
  const ReduceDims dims = Collapse(kviews, rviews, k);
  const int kd = static_cast<int>(dims.kshape.size()), rd = static_cast<int>(dims.rshape.size());
  if (kd > kMaxKernelDims) return TooManyDims(kd);
  if (rd > kMaxKernelDims) return TooManyDims(rd);
  spec.kd = kd;
  spec.rd = rd;

  // Strategy. Block mode: a block per output, threads along the reduced
  // elements (coalesced when those are contiguous). Thread mode: a thread per
  // output (coalesced when the kept dims are the inner ones, or when few
  // elements are reduced). When outputs are too few to fill the GPU, each
  // output is split over `splits` blocks, whose partial results a second
  // kernel combines.
  // 4 blocks per SM: 1% faster than 8 for a 1 GiB sum, as fast as CUB
  // (tests/bench/kernel_variants.cu, RESULTS.md).
  const long long target_blocks = 4LL * dev_->sm_count;
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
    // A thread per output reads one element per step: twice the blocks
    // (full occupancy) to keep enough loads in flight.
    block_mode = false;
    const long long bx = CeilDiv(m, kBlockSize);
    if (bx < 4 * dev_->sm_count) {
      splits = std::min(CeilDiv(2 * target_blocks, bx), CeilDiv(k, 16));
    }
  }
  splits = std::max(1LL, std::min(splits, 1024LL));
  // Many contiguous rows of up to 32K elements: a warp per row, when the
  // rows fill the GPU with at least 32 warps per SM: a block per row of a
  // few thousand elements spends much of its time in the block-wide
  // combine (8192 rows of 8192 float32 ran at 0.77x CuPy's speed so).
  const bool warp_mode =
      block_mode && splits == 1 && inner_contiguous && k <= 32768 && m >= 32LL * dev_->sm_count;

  std::shared_ptr<Buffer> partial;
  if (splits > 1) {
    ARRAYD_ASSIGN_OR_RETURN(
        partial, dev_->allocator->Allocate(static_cast<size_t>(m * splits * kMaxAccBytes), id_));
  }
  const std::string name = "arrayd_reduce";
  std::string key = absl::StrCat("reduce|", spec.kind, "|", static_cast<int>(spec.in), "|",
                                 static_cast<int>(spec.as), "|", static_cast<int>(spec.out), "|",
                                 kd, "|", rd, "|");
  if (fused) {
    for (DType t : spec.leaves) absl::StrAppend(&key, static_cast<int>(t), ",");
    absl::StrAppend(&key, "|", spec.value, "|");
  }
  auto body = [&] { return ReduceBody(spec, name); };

  // The args struct (gen::ReduceArgs or gen::FusedReduceArgs) as words.
  const size_t n = ins.size();
  auto make_args = [&](long long k_value) {
    std::vector<long long> w;
    for (const View* v : ins) PushWord(&w, static_cast<const char*>(v->data()));
    PushWord(&w, out.data());
    PushWord(&w, partial ? static_cast<char*>(partial->data()) : static_cast<char*>(nullptr));
    w.push_back(m);
    w.push_back(k_value);
    for (int d = 0; d < kd; ++d) w.push_back(dims.kshape[d]);
    for (size_t i = 0; i < n; ++i) {
      for (int d = 0; d < kd; ++d) w.push_back(dims.kstrides[i][d]);
    }
    for (int d = 0; d < kd; ++d) w.push_back(dims.kstrides[n][d]);  // out
    for (int d = 0; d < rd; ++d) w.push_back(dims.rshape[d]);
    for (size_t i = 0; i < n; ++i) {
      for (int d = 0; d < rd; ++d) w.push_back(dims.rstrides[i][d]);
    }
    if (fused) {
      for (int d = 0; d < kd; ++d) w.push_back(dims.kstrides[n + 1][d]);  // the value's
      w.push_back(vector ? 1 : 0);
    }
    return w;
  };
  std::vector<long long> words = make_args(k);
  void* args[] = {words.data()};
  if (warp_mode) {
    ARRAYD_RETURN_IF_ERROR(LaunchKeyed(key + "warp", body, name + "_warp",
                                       std::min(CeilDiv(m, kBlockSize / 32), kMaxBlocks), 1, args));
  } else if (block_mode) {
    ARRAYD_RETURN_IF_ERROR(
        LaunchKeyed(key + "block", body, name + "_block", std::min(m, kMaxBlocks), splits, args));
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

}  // namespace cuda
}  // namespace arrayd
