// CudaStream's elementwise kernels: Fill, Iota, Copy (casting), Unary and
// Binary ufuncs, Where, and the matrix helpers of linalg and FFT. Each op
// is an expression over the shared functors (kernels/functors.h) compiled
// into one generated kernel per (expression, dtypes, layout): vectorized
// when every operand is contiguous, strided over collapsed dims otherwise.
// Small contiguous ops of one kernel are held and launched in groups (one
// launch of up to kMaxGroupOps ops) by the next method that queues work.
//
// Assumes: the views of one call have the output's shape (broadcasting is
// done by zero strides); dtypes and loops are checked here against the op
// table (kernels/loop_check.h) before any launch.
// Thread-safety: as CudaStream (one thread at a time; the group is the
// stream's own).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend/cuda/cuda_stream.h"
#include "backend/cuda/kernel_source.h"
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

constexpr char kKernelName[] = "arrayd_kernel";
constexpr char kGroupKernelName[] = "arrayd_group";
// Contiguous ops of at most this many elements are grouped (kernel_source.h,
// ElementwiseGroupBody): for them a launch costs more host time than the
// kernel takes on the device.
constexpr long long kMaxGroupElements = 1 << 18;

absl::Status CheckUnaryOp(kernels::UnaryOp op, const View& in, const View& out,
                          const char** functor) {
  switch (op) {
#define ARRAYD_UNARY_CASE(e, f, n, loops, id, doc) \
  case kernels::UnaryOp::e:                        \
    *functor = #f;                                 \
    return kernels::CheckUnaryLoop<kernels::f, kernels::LoopInputMask(loops)>(in, out);
    ARRAYD_UNARY_OPS(ARRAYD_UNARY_CASE)
#undef ARRAYD_UNARY_CASE
    default: return absl::UnimplementedError("unknown unary op");
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
    default: return absl::UnimplementedError("unknown binary op");
  }
}

}  // namespace

absl::Status CudaStream::Fill(const View& out, const Scalar& value) {
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

absl::Status CudaStream::Iota(const View& out, const Scalar& start, const Scalar& step) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (out.ndim() != 1) return absl::InternalError("iota needs a 1-D output");
  IotaArgs args{start.i, step.i, start.u, step.u, start.re, step.re, start.im, step.im};
  // In start's kind, as CpuIota.
  const char* expr;
  switch (start.kind) {
    case Scalar::kFloat: expr = "ip.re0 + static_cast<double>(i) * ip.dre"; break;
    case Scalar::kComplex:
      expr =
          "c128(ip.re0 + static_cast<double>(i) * ip.dre, ip.im0 + static_cast<double>(i) * "
          "ip.dim)";
      break;
    case Scalar::kUInt: expr = "static_cast<u64>(ip.u0 + static_cast<u64>(i) * ip.du)"; break;
    default:
      expr =
          "static_cast<i64>(static_cast<u64>(ip.i0) + static_cast<u64>(i) * "
          "static_cast<u64>(ip.di))";
  }
  return Elementwise({&out}, expr, "IotaParams", "ip", &args);
}

// Copy, Unary and Binary may join the group of small ops launched
// together (Elementwise's may_group).

absl::Status CudaStream::Copy(const View& src, const View& dst) {
  ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
  return Elementwise({&dst, &src}, "v1", /*may_group=*/true);
}

absl::Status CudaStream::Unary(kernels::UnaryOp op, const View& in, const View& out) {
  ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
  const char* functor = nullptr;
  ARRAYD_RETURN_IF_ERROR(CheckUnaryOp(op, in, out, &functor));
  return Elementwise({&out, &in}, absl::StrCat(functor, "()(v1)"), /*may_group=*/true);
}

absl::Status CudaStream::Binary(kernels::BinaryOp op, const View& a, const View& b,
                                const View& out) {
  ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
  const char* functor = nullptr;
  ARRAYD_RETURN_IF_ERROR(CheckBinaryOp(op, a, b, out, &functor));
  return Elementwise({&out, &a, &b}, absl::StrCat(functor, "()(v1, v2)"), /*may_group=*/true);
}

absl::StatusOr<std::string> FusedExpression(absl::Span<const FusedStep> steps, int num_leaves) {
  auto operand = [&](int a) {
    return a < num_leaves ? absl::StrCat("v", a + 1) : absl::StrCat("s", a - num_leaves);
  };
  std::string expr = "[&]() {\n";
  for (size_t k = 0; k < steps.size(); ++k) {
    const FusedStep& st = steps[k];
    View in0, in1, res;
    in0.dtype = st.in[0];
    in1.dtype = st.in[1];
    res.dtype = st.out;
    const char* functor = nullptr;
    std::string call;
    if (st.unary) {
      ARRAYD_RETURN_IF_ERROR(
          CheckUnaryOp(static_cast<kernels::UnaryOp>(st.op), in0, res, &functor));
      call = absl::StrCat(functor, "()(Cast<", KernelTypeName(st.in[0]), ">(", operand(st.args[0]),
                          "))");
    } else {
      ARRAYD_RETURN_IF_ERROR(
          CheckBinaryOp(static_cast<kernels::BinaryOp>(st.op), in0, in1, res, &functor));
      call = absl::StrCat(functor, "()(Cast<", KernelTypeName(st.in[0]), ">(", operand(st.args[0]),
                          "), Cast<", KernelTypeName(st.in[1]), ">(", operand(st.args[1]), "))");
    }
    absl::StrAppend(&expr, "    const ", KernelTypeName(st.out), " s", k, " = Cast<",
                    KernelTypeName(st.out), ">(", call, ");\n");
  }
  absl::StrAppend(&expr, "    return s", steps.size() - 1, ";\n  }()");
  return expr;
}

// One kernel for the chain: Apply's expression is FusedExpression's lambda.
absl::Status CudaStream::Fused(absl::Span<const FusedStep> steps, absl::Span<const View> leaves,
                               const View& out) {
  ARRAYD_RETURN_IF_ERROR(EnterKeepingGroup());
  if (steps.empty() || steps.back().out != out.dtype) {
    return absl::InternalError("fused: the output is not the last step's");
  }
  ARRAYD_ASSIGN_OR_RETURN(std::string expr,
                          FusedExpression(steps, static_cast<int>(leaves.size())));
  std::vector<const View*> views = {&out};
  for (const View& v : leaves) views.push_back(&v);
  return Elementwise(std::move(views), expr, /*may_group=*/true);
}

absl::Status CudaStream::Where(const View& cond, const View& x, const View& y, const View& out) {
  ARRAYD_RETURN_IF_ERROR(Enter());
  if (cond.dtype != DType::kBool || x.dtype != out.dtype || y.dtype != out.dtype) {
    return absl::InternalError("where: unexpected dtypes");
  }
  return Elementwise({&out, &cond, &x, &y}, "v1 ? v2 : v3");
}

absl::Status CudaStream::Elementwise(std::vector<const View*> views, const std::string& expr,
                                     const std::string& extra_type, const std::string& extra_name,
                                     const void* extra_value, bool may_group) {
  const long long n = views[0]->size();
  if (n == 0) return absl::OkStatus();
  std::vector<Strides> strides;
  Shape shape = CollapseDims(absl::MakeConstSpan(views.data(), views.size()), &strides);
  const int nd = static_cast<int>(shape.size());
  // Contiguous: every operand dense in one dimension, or (an input) one
  // element broadcast, read once (x + 1 with a 0-d constant).
  bool contiguous = nd == 0;
  unsigned scalar_mask = 0;
  if (nd == 1) {
    contiguous = true;
    for (size_t v = 0; v < views.size(); ++v) {
      if (v > 0 && strides[v][0] == 0) {
        scalar_mask |= 1u << v;
        continue;
      }
      contiguous &= strides[v][0] == ItemSize(views[v]->dtype);
    }
  }
  if (!contiguous) scalar_mask = 0;
  if (!contiguous && nd > kMaxKernelDims) return TooManyDims(nd);

  ElementwiseSpec spec;
  for (const View* v : views) spec.dtypes.push_back(v->dtype);
  spec.expr = expr;
  spec.extra_type = extra_type;
  spec.extra_name = extra_name;
  spec.ndim = contiguous ? -1 : nd;
  spec.scalar_mask = scalar_mask;
  spec.index32 = !contiguous && n < (1LL << 31);
  std::string key = absl::StrCat("ew|", expr, "|", extra_type, "|", extra_name, "|", spec.ndim, "|",
                                 scalar_mask, spec.index32 ? "|i32" : "");
  for (DType t : spec.dtypes) absl::StrAppend(&key, "|", static_cast<int>(t));

  std::vector<char*> ptrs;
  for (const View* v : views) ptrs.push_back(v->data());
  if (contiguous) {
    int aligned = 1;
    for (size_t v = 0; v < ptrs.size(); ++v) {
      if (!(scalar_mask & (1u << v))) aligned &= reinterpret_cast<uintptr_t>(ptrs[v]) % 16 == 0;
    }
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
  const long long blocks = std::min(CeilDiv(n, kBlockSize * kStridedUnroll), kMaxBlocks);
  return LaunchKeyed(
      key, [&] { return ElementwiseBody(spec, kKernelName); }, kKernelName, blocks, 1, args.data());
}

absl::Status CudaStream::LaunchContiguous(const std::string& key, const ElementwiseSpec& spec,
                                          std::vector<char*> ptrs, long long n, int aligned,
                                          const void* extra_value) {
  std::vector<void*> args;
  for (char*& p : ptrs) args.push_back(&p);
  args.push_back(&n);
  args.push_back(&aligned);
  if (extra_value != nullptr) args.push_back(const_cast<void*>(extra_value));
  const long long blocks =
      std::min(CeilDiv(CeilDiv(n, VectorWidth(spec.dtypes)), kBlockSize), kMaxBlocks);
  return LaunchKeyed(
      key, [&] { return ElementwiseBody(spec, kKernelName); }, kKernelName, blocks, 1, args.data());
}

absl::Status CudaStream::Group(const std::string& key, const ElementwiseSpec& spec,
                               const std::vector<const View*>& views,
                               const std::vector<char*>& ptrs, long long n, int aligned) {
  auto range = [&](size_t v) {
    const long long elements = spec.scalar_mask & (1u << v) ? 1 : n;
    return std::pair<const char*, const char*>(ptrs[v],
                                               ptrs[v] + elements * ItemSize(views[v]->dtype));
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

absl::Status CudaStream::LaunchGroup() {
  const PendingGroup& g = group_;
  const int operands = static_cast<int>(g.spec.dtypes.size());
  auto one_by_one = [&]() -> absl::Status {
    for (const GroupedOp& op : g.ops) {
      ARRAYD_RETURN_IF_ERROR(LaunchContiguous(
          g.key, g.spec, std::vector<char*>(op.p, op.p + operands), op.n, op.aligned, nullptr));
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

absl::Status CudaStream::MatrixOp(const View& out, const View* in, MatrixExprKind kind,
                                  int64_t rows, int64_t cols, double scale) {
  MatrixArgs args{rows, cols, scale};
  if (in == nullptr) return Elementwise({&out}, MatrixExpr(kind), "MatrixParams", "mp", &args);
  return Elementwise({&out, in}, MatrixExpr(kind), "MatrixParams", "mp", &args);
}

}  // namespace cuda
}  // namespace arrayd
