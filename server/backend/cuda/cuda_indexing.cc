// CudaStream's selection and reordering: Gather (an elementwise kernel over
// a flat layout), Scatter (last write wins, as a sequential loop), Nonzero
// (CUB's select, cub_select.cu; for strided masks count per chunk, then
// write in order), TakeChecked (bounds checked on the device), Sort (CUB's radix sort of rows,
// cub_sort.cu; for complex numbers a stable segmented bitonic sort along
// the last axis, NumPy's order) and Scan (CUB's scans, cub_scan.cu), with
// the kernels of device/indexing.cuh and device/sort.cuh.
//
// Assumes: flat positions are in range (ops/ checks them); outputs of
// Nonzero and Sort are C-contiguous (checked here).
// Thread-safety: as CudaStream (one thread at a time).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend/cuda/cub_algorithms.h"
#include "backend/cuda/cuda_status.h"
#include "backend/cuda/cuda_stream.h"
#include "backend/cuda/kernel_source.h"
#include "common/status.h"

namespace arrayd {
namespace cuda {

namespace {

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

}  // namespace

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

absl::Status CudaStream::TakeChecked(const View& x, const View& index, int axis, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (x.ndim() != 3 || index.dtype != DType::kInt64 || index.ndim() != 1 ||
      !index.IsCContiguous() || !out.IsCContiguous() || out.dtype != x.dtype) {
    return absl::InternalError("take: unexpected shapes, dtypes or layouts");
  }
  long long total = out.size();
  if (total == 0) return absl::OkStatus();
  ARRAYD_ASSIGN_OR_RETURN(unsigned long long check, AddCheck({"take", axis, x.shape[1], "", ""}));
  const int item = static_cast<int>(ItemSize(x.dtype));
  const std::string name = absl::StrCat("arrayd_take_", item);
  ARRAYD_ASSIGN_OR_RETURN(CUfunction fn,
                          dev_->kernels->Get(BuildSource({TakeBody(item, name)}), name));
  const char* src = x.data();
  long long n = x.shape[1], inner = x.shape[2], m = index.size();
  long long s_outer = x.strides[0], s_axis = x.strides[1], s_inner = x.strides[2];
  const long long* idx = reinterpret_cast<const long long*>(index.data());
  char* dst = out.data();
  unsigned long long* error = static_cast<unsigned long long*>(check_word_->data());
  void* args[] = {&src,    &n,       &inner, &m,   &total, &s_outer,
                  &s_axis, &s_inner, &idx,   &dst, &error, &check};
  return LaunchFunction(fn, std::min(CeilDiv(total, kBlockSize), kMaxBlocks), 1, args);
}

absl::Status CudaStream::WrapIndex(const View& index, int64_t n, int axis, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (index.dtype != DType::kInt64 || out.dtype != DType::kInt64 || !index.IsCContiguous() ||
      !out.IsCContiguous() || out.shape != index.shape) {
    return absl::InternalError("wrap index: needs C-contiguous int64 index and out of one shape");
  }
  long long m = index.size(), size = n;
  if (m == 0) return absl::OkStatus();
  ARRAYD_ASSIGN_OR_RETURN(unsigned long long check,
                          AddCheck({"take_along_axis", axis, size, "", ""}));
  const std::string name = "arrayd_wrap_index";
  ARRAYD_ASSIGN_OR_RETURN(CUfunction fn,
                          dev_->kernels->Get(BuildSource({WrapIndexBody(name)}), name));
  const long long* idx = reinterpret_cast<const long long*>(index.data());
  long long* o = reinterpret_cast<long long*>(out.data());
  unsigned long long* error = static_cast<unsigned long long*>(check_word_->data());
  void* args[] = {&idx, &m, &size, &o, &error, &check};
  return LaunchFunction(fn, std::min(CeilDiv(m, kBlockSize), kMaxBlocks), 1, args);
}

absl::StatusOr<unsigned long long> CudaStream::AddCheck(Check check) {
  if (check_word_ == nullptr) {
    ARRAYD_ASSIGN_OR_RETURN(check_word_, Allocate(2 * sizeof(unsigned long long)));
    ARRAYD_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(check_word_->data(), 0, 2 * sizeof(unsigned long long), stream_));
  }
  checks_.push_back(std::move(check));
  return checks_.size();
}

absl::Status CudaStream::CheckInfo(const View& info, absl::string_view op,
                                   absl::string_view message) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (info.dtype != DType::kInt32 || !info.IsCContiguous()) {
    return absl::InternalError("check info: not a C-contiguous int32 array");
  }
  long long n = info.size();
  if (n == 0) return absl::OkStatus();
  ARRAYD_ASSIGN_OR_RETURN(unsigned long long check,
                          AddCheck({std::string(op), 0, 0, std::string(message), ""}));
  const std::string name = "arrayd_info_check";
  ARRAYD_ASSIGN_OR_RETURN(CUfunction fn,
                          dev_->kernels->Get(BuildSource({InfoCheckBody(name)}), name));
  const int* codes = reinterpret_cast<const int*>(info.data());
  unsigned long long* error = static_cast<unsigned long long*>(check_word_->data());
  void* args[] = {&codes, &n, &error, &check};
  return LaunchFunction(fn, std::min(CeilDiv(n, kBlockSize), kMaxBlocks), 1, args);
}

absl::Status CudaStream::CheckError(std::string* op) {
  if (checks_.empty()) return absl::OkStatus();
  ARRAYD_RETURN_IF_ERROR(Enter());
  unsigned long long word[2] = {0, 0};
  // On this stream (a plain cudaMemcpy would wait for other sessions' work).
  ARRAYD_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(word, check_word_->data(), sizeof(word), cudaMemcpyDeviceToHost, stream_));
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  std::vector<Check> checks;
  checks.swap(checks_);
  if (word[0] == 0) return absl::OkStatus();
  ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(check_word_->data(), 0, sizeof(word), stream_));
  if (word[0] > checks.size()) return absl::InternalError("device check: an unknown check id");
  const Check& c = checks[word[0] - 1];
  *op = c.op;
  if (!c.linalg.empty()) return LinAlgError(c.linalg);
  if (!c.count.empty()) {
    return ValueError(
        absl::StrCat(c.op, ": the mask has ", static_cast<long long>(word[1]), " ", c.count));
  }
  return IndexError(absl::StrCat("index ", static_cast<long long>(word[1]),
                                 " is out of bounds for axis ", c.axis, " with size ", c.n));
}

absl::Status CudaStream::Scatter(const View& values, const View& index, const View& target) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (index.dtype != DType::kInt64 || values.shape != index.shape) {
    return absl::InternalError("scatter: unexpected dtypes or shapes");
  }
  long long n = index.size();
  if (n == 0) return absl::OkStatus();
  if (target.size() == 0) {
    return IndexError(absl::StrCat("index ", 0, " is out of bounds for axis 0 with size 0"));
  }
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

  long long size = target.size();
  ARRAYD_ASSIGN_OR_RETURN(unsigned long long check, AddCheck({"put", 0, size, "", ""}));
  unsigned long long* error = static_cast<unsigned long long*>(check_word_->data());
  const char* idx = index.data();
  const char* vals = values.data();
  // Targets of at most 4 bytes not much larger than the positions: each
  // position's value rides with it in one 64-bit atomicMax, then one
  // coalesced pass over the target stores the winners (ScatterPacked):
  // the random accesses are the atomics alone.
  if (n > 1 && ItemSize(target.dtype) <= 4 && n < (1LL << 31) && size <= 4 * n) {
    const std::string name = "arrayd_scatter_packed";
    const std::string source =
        BuildSource({ScatterPackedBody(values.dtype, target.dtype, nd, name)});
    ARRAYD_ASSIGN_OR_RETURN(CUfunction fn, dev_->kernels->Get(source, name));
    const size_t bytes = static_cast<size_t>(size) * 8;
    ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> packed_buf, Temp(bytes));
    unsigned long long* packed = static_cast<unsigned long long*>(packed_buf->data());
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(packed, 0, bytes, stream_));
    for (int pass = 0; pass < 2; ++pass) {
      long long count = pass == 0 ? n : size;
      const long long blocks = std::min(CeilDiv(count, kBlockSize), kMaxBlocks);
      void* args[] = {&idx,  &vals,   &n,    strided.data(), &layout_value,
                      &size, &packed, &pass, &error,         &check};
      ARRAYD_RETURN_IF_ERROR(LaunchFunction(fn, blocks, 1, args));
    }
    return absl::OkStatus();
  }
  // With one position nothing repeats: write directly. Else first find the
  // last position writing each target element (int32 positions where they
  // fit: half the memset and the atomics' traffic).
  const bool wide = n >= (1LL << 31);
  const std::string name = "arrayd_scatter";
  const std::string source = BuildSource({ScatterBody(values.dtype, target.dtype, nd, wide, name)});
  ARRAYD_ASSIGN_OR_RETURN(CUfunction fn, dev_->kernels->Get(source, name));
  std::shared_ptr<Buffer> winner_buf;
  void* winner = nullptr;
  if (n > 1) {
    const size_t bytes = static_cast<size_t>(size) * (wide ? 8 : 4);
    ARRAYD_ASSIGN_OR_RETURN(winner_buf, Temp(bytes));
    winner = winner_buf->data();
    ARRAYD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(winner, 0xff, bytes, stream_));  // -1
  }
  const long long blocks = std::min(CeilDiv(n, kBlockSize), kMaxBlocks);
  for (int pass = winner == nullptr ? 1 : 0; pass < 2; ++pass) {
    void* args[] = {&idx,  &vals,   &n,    strided.data(), &layout_value,
                    &size, &winner, &pass, &error,         &check};
    ARRAYD_RETURN_IF_ERROR(LaunchFunction(fn, blocks, 1, args));
  }
  return absl::OkStatus();
}

absl::Status CudaStream::SearchSorted(const View& a, const View& v, bool right, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (a.ndim() != 1 || a.dtype != v.dtype || out.dtype != DType::kInt64 || out.shape != v.shape) {
    return absl::InternalError("searchsorted: unexpected dtypes or shapes");
  }
  const long long n = a.shape[0];
  SearchArgs args{n > 0 ? a.data() : nullptr, n, n > 1 ? a.strides[0] : 0, right ? 1 : 0};
  return Elementwise({&out, &v}, "SearchSorted<T1>(sp.a, sp.n, sp.stride, sp.right != 0, v1)",
                     "SearchParams", "sp", &args);
}

namespace {

// Shared counts (CountBins, device/indexing.cuh): each block adds its
// counts at its end, so fewer blocks, each over more elements, and fewer
// than 2^32 elements a block (its counters are 32-bit).
constexpr long long kSharedCountBlocks = 1024;
int SharedCounts(bool counts_only, long long bins, long long n) {
  return counts_only && bins <= kBincountSharedBins && n < kSharedCountBlocks * (1LL << 31) ? 1 : 0;
}

}  // namespace

absl::Status CudaStream::Bincount(const View& x, const View* weights, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  const DType want = weights != nullptr ? DType::kFloat64 : DType::kInt64;
  if (x.ndim() != 1 || x.dtype != DType::kInt64 || out.ndim() != 1 || out.dtype != want ||
      !out.IsCContiguous() ||
      (weights != nullptr && (weights->dtype != DType::kFloat64 || weights->shape != x.shape))) {
    return absl::InternalError("bincount: unexpected dtypes or shapes");
  }
  long long length = out.shape[0], n = x.shape[0];
  if (length == 0) return absl::OkStatus();
  ARRAYD_CUDA_RETURN_IF_ERROR(
      cudaMemsetAsync(out.data(), 0, static_cast<size_t>(length) * 8, stream_));
  if (n == 0) return absl::OkStatus();
  const std::string name = "arrayd_bincount";
  ARRAYD_ASSIGN_OR_RETURN(CUfunction fn,
                          dev_->kernels->Get(BuildSource({BincountBody(name)}), name));
  const long long* xp = reinterpret_cast<const long long*>(x.data());
  long long xs = x.strides[0] / 8, ws = weights != nullptr ? weights->strides[0] / 8 : 0;
  const double* wp =
      weights != nullptr ? reinterpret_cast<const double*>(weights->data()) : nullptr;
  char* op = out.data();
  int shared = SharedCounts(weights == nullptr, length, n);
  const long long blocks =
      std::min(CeilDiv(n, kBlockSize), shared ? kSharedCountBlocks : kMaxBlocks);
  void* args[] = {&xp, &xs, &wp, &ws, &n, &length, &op, &shared};
  return LaunchFunction(fn, blocks, 1, args);
}

absl::Status CudaStream::Histogram(const View& a, const View& edges, const View* weights,
                                   const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  const DType want = weights != nullptr ? DType::kFloat64 : DType::kInt64;
  if (a.ndim() != 1 || edges.ndim() != 1 || edges.dtype != a.dtype || edges.shape[0] < 2 ||
      out.ndim() != 1 || out.shape[0] != edges.shape[0] - 1 || out.dtype != want ||
      !out.IsCContiguous() ||
      (weights != nullptr && (weights->dtype != DType::kFloat64 || weights->shape != a.shape))) {
    return absl::InternalError("histogram: unexpected dtypes or shapes");
  }
  long long bins = out.shape[0], n = a.shape[0], ne = edges.shape[0];
  ARRAYD_CUDA_RETURN_IF_ERROR(
      cudaMemsetAsync(out.data(), 0, static_cast<size_t>(bins) * 8, stream_));
  if (n == 0) return absl::OkStatus();
  const std::string name = "arrayd_histogram";
  ARRAYD_ASSIGN_OR_RETURN(CUfunction fn,
                          dev_->kernels->Get(BuildSource({HistogramBody(a.dtype, name)}), name));
  const char* xp = a.data();
  const char* ep = edges.data();
  long long xs = a.strides[0], es = edges.strides[0];
  long long ws = weights != nullptr ? weights->strides[0] / 8 : 0;
  const double* wp =
      weights != nullptr ? reinterpret_cast<const double*>(weights->data()) : nullptr;
  char* op = out.data();
  int shared = SharedCounts(weights == nullptr, bins, n);
  const long long blocks =
      std::min(CeilDiv(n, kBlockSize), shared ? kSharedCountBlocks : kMaxBlocks);
  void* args[] = {&xp, &xs, &ep, &ne, &es, &wp, &ws, &n, &op, &shared};
  return LaunchFunction(fn, blocks, 1, args);
}

absl::Status CudaStream::Nonzero(const View& mask, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (mask.dtype != DType::kBool || out.dtype != DType::kInt64 || out.ndim() != 1 ||
      !out.IsCContiguous()) {
    return absl::InternalError("nonzero: needs a bool mask and a contiguous 1-D int64 output");
  }
  long long out_n = out.size();
  long long n = mask.size();
  if (n == 0) {
    if (out_n == 0) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("flatnonzero: 0 true elements, the client expected ", out_n));
  }
  // The count is checked on the device: positions past out's length are
  // not stored, and a count other than out's length is a ValueError at the
  // next sync (no host round trip for it).
  ARRAYD_ASSIGN_OR_RETURN(unsigned long long check,
                          AddCheck({"flatnonzero", 0, 0, "",
                                    absl::StrCat("true elements, the client expected ", out_n)}));
  unsigned long long* error = static_cast<unsigned long long*>(check_word_->data());
  if (mask.IsCContiguous()) {
    // CUB's select, then the check of its count.
    const size_t bytes = (cub_algorithms::SelectScratchBytes(n) + 255) / 256 * 256;
    ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> scratch, Temp(bytes + sizeof(int64_t)));
    char* s = static_cast<char*>(scratch->data());
    int64_t* count = reinterpret_cast<int64_t*>(s + bytes);
    ARRAYD_CUDA_RETURN_IF_ERROR(cub_algorithms::SelectFlagged(
        reinterpret_cast<const bool*>(mask.data()), n, reinterpret_cast<int64_t*>(out.data()),
        out_n, count, s, bytes, stream_));
    ARRAYD_CUDA_RETURN_IF_ERROR(cub_algorithms::CheckCount(count, 1, out_n, error, check, stream_));
    return absl::OkStatus();
  }
  Shape shape;
  Strides strides;
  ARRAYD_RETURN_IF_ERROR(CollapseOne(mask, &shape, &strides));
  const int nd = static_cast<int>(shape.size());
  std::vector<long long> strided(shape.begin(), shape.end());
  strided.insert(strided.end(), strides.begin(), strides.end());

  long long chunk = SelectionChunk(n, kBlockSize);
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
  ARRAYD_RETURN_IF_ERROR(Launch(source, name + "_write", blocks, 1, write_args));
  // The per-chunk counts, summed.
  ARRAYD_RETURN_IF_ERROR(FlushGroup());
  ARRAYD_CUDA_RETURN_IF_ERROR(cub_algorithms::CheckCount(reinterpret_cast<const int64_t*>(counts),
                                                         blocks, out_n, error, check, stream_));
  return absl::OkStatus();
}

namespace {

// The radix sort's element type for a dtype; none for complex numbers.
std::optional<cub_algorithms::SortType> CubSortType(DType d) {
  using cub_algorithms::SortType;
  switch (d) {
    case DType::kBool: return SortType::kBool;
    case DType::kInt8: return SortType::kInt8;
    case DType::kInt16: return SortType::kInt16;
    case DType::kInt32: return SortType::kInt32;
    case DType::kInt64: return SortType::kInt64;
    case DType::kUInt8: return SortType::kUInt8;
    case DType::kUInt16: return SortType::kUInt16;
    case DType::kUInt32: return SortType::kUInt32;
    case DType::kUInt64: return SortType::kUInt64;
    case DType::kFloat16: return SortType::kFloat16;
    case DType::kFloat32: return SortType::kFloat32;
    case DType::kFloat64: return SortType::kFloat64;
    default: return std::nullopt;
  }
}

std::optional<cub_algorithms::ScanType> CubScanType(DType d) {
  using cub_algorithms::ScanType;
  switch (d) {
    case DType::kInt64: return ScanType::kInt64;
    case DType::kUInt64: return ScanType::kUInt64;
    case DType::kFloat32: return ScanType::kFloat32;
    case DType::kFloat64: return ScanType::kFloat64;
    default: return std::nullopt;
  }
}

}  // namespace

absl::Status CudaStream::Scan(kernels::BinaryOp op, const View& a) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  const std::optional<cub_algorithms::ScanType> type = CubScanType(a.dtype);
  if (!type || !a.IsCContiguous() ||
      (op != kernels::BinaryOp::kAdd && op != kernels::BinaryOp::kMultiply)) {
    return absl::UnimplementedError(
        "scan: CUB scans int64, uint64, float32 and float64 sums and products");
  }
  const int64_t n = a.ndim() == 0 ? 1 : a.shape.back();
  if (a.size() == 0) return absl::OkStatus();
  const int64_t rows = a.size() / n;
  const bool product = op == kernels::BinaryOp::kMultiply;
  const size_t bytes = cub_algorithms::ScanScratchBytes(*type, product, rows, n);
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> scratch, Temp(bytes));
  ARRAYD_CUDA_RETURN_IF_ERROR(
      cub_algorithms::ScanRows(*type, product, a.data(), rows, n, scratch->data(), bytes, stream_));
  return absl::OkStatus();
}

absl::Status CudaStream::Sort(const View& in, const View* out_or_null, const View* indices) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (out_or_null != nullptr && (out_or_null->dtype != in.dtype || out_or_null->shape != in.shape ||
                                 !out_or_null->IsCContiguous())) {
    return absl::InternalError("sort: needs a C-contiguous output of the input's shape and dtype");
  }
  if (indices != nullptr && (indices->dtype != DType::kInt64 || indices->shape != in.shape ||
                             !indices->IsCContiguous())) {
    return absl::InternalError("sort: indices must be C-contiguous int64 of the input's shape");
  }
  if (out_or_null == nullptr && indices == nullptr) {
    return absl::InternalError("sort: wants the sorted values, the indices or both");
  }
  if (in.size() == 0) return absl::OkStatus();
  const std::optional<cub_algorithms::SortType> type = CubSortType(in.dtype);
  // A strided input is copied C-contiguous first: into `out`, or into a
  // temporary when the values are not wanted (the bitonic sort below reads
  // any strides but writes an output).
  std::shared_ptr<Buffer> values_buf;
  View values_tmp;
  if (out_or_null == nullptr && (!type || !in.IsCContiguous())) {
    ARRAYD_ASSIGN_OR_RETURN(values_buf, Temp(static_cast<size_t>(in.nbytes())));
    values_tmp = MakeContiguousView(values_buf, in.dtype, in.shape);
  }
  const View& out = out_or_null != nullptr ? *out_or_null : values_tmp;
  if (type) {
    // Read from `in` when it is C-contiguous, else from its copy (the copy
    // may wait in the group of small ops: flushed before CUB's launches,
    // which go to the stream directly).
    const char* src = in.data();
    char* data = out_or_null != nullptr ? out.data() : nullptr;
    if (!in.IsCContiguous()) {
      ARRAYD_RETURN_IF_ERROR(Copy(in, out));
      ARRAYD_RETURN_IF_ERROR(FlushGroup());
      src = data = out.data();
    }
    const int64_t n = in.ndim() == 0 ? 1 : in.shape.back();
    const int64_t rows = in.size() / n;
    const size_t bytes =
        cub_algorithms::SortScratchBytes(*type, rows, n, indices != nullptr, data != nullptr);
    ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> scratch, Temp(bytes));
    int64_t* positions = indices == nullptr ? nullptr : reinterpret_cast<int64_t*>(indices->data());
    ARRAYD_CUDA_RETURN_IF_ERROR(cub_algorithms::SortRows(*type, src, data, positions, rows, n,
                                                         scratch->data(), bytes, stream_));
    return absl::OkStatus();
  }
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
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> keys_buf,
                          Temp(static_cast<size_t>(total) * item));
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

}  // namespace cuda
}  // namespace arrayd
