// CudaStream's reductions: sum, prod, min, max, all, any along axes, and
// argmin/argmax along one axis, each one generated kernel (device/reduce.cuh)
// over the collapsed kept and reduced dims: a block or a thread per output,
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

}  // namespace

absl::Status CudaStream::Reduce(kernels::ReduceOp op, const View& in, absl::Span<const int> axes,
                                const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  const bool logical = op == kernels::ReduceOp::kAll || op == kernels::ReduceOp::kAny;
  if (logical ? out.dtype != DType::kBool : out.dtype != in.dtype) {
    return absl::InternalError("reduce: unexpected output dtype");
  }
  static constexpr const char* kKinds[] = {"sum", "prod", "min", "max", "all", "any"};
  return RunReduce(kKinds[static_cast<int>(op)], in, axes, out);
}

absl::Status CudaStream::ArgReduce(kernels::ArgReduceOp op, const View& in, int axis,
                                   const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (out.dtype != DType::kInt64) return absl::InternalError("argreduce: output must be int64");
  if (in.shape[axis] == 0) return ValueError("attempt to get argmax of an empty sequence");
  const int axes[1] = {axis};
  return RunReduce(op == kernels::ArgReduceOp::kArgMax ? "argmax" : "argmin", in, axes, out);
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
    ARRAYD_ASSIGN_OR_RETURN(
        partial, dev_->allocator->Allocate(static_cast<size_t>(m * splits * kMaxAccBytes), id_));
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
