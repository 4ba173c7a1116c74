// Selection and reordering ops: where, take, take_along_axis, put,
// flatnonzero, sort, argsort, cumsum, cumprod, real, imag. take's indices are
// checked by the backend's TakeChecked (on the device on CUDA, reported at
// the next sync); the others' here, once for every backend: a backend's
// Gather/Scatter get in-range, non-negative C-order flat positions.
#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "kernels/op_list.h"
#include "ops/compose.h"
#include "ops/reduction.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

using kernels::BinaryOp;
using kernels::ReduceOp;

absl::StatusOr<View> Scalar0D(OpContext& ctx, DType dtype, Scalar value) {
  ARRAYD_ASSIGN_OR_RETURN(View v, ctx.NewArray(dtype, {}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(v, value));
  return v;
}

// out = op(a, b) with broadcasting, into a new array of `dtype`.
absl::StatusOr<View> Apply(OpContext& ctx, BinaryOp op, const View& a, const View& b, DType dtype) {
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes({a.shape, b.shape}));
  ARRAYD_ASSIGN_OR_RETURN(View ba, BroadcastTo(a, shape));
  ARRAYD_ASSIGN_OR_RETURN(View bb, BroadcastTo(b, shape));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(dtype, shape));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Binary(op, ba, bb, out));
  return out;
}

// Reads one int64 reduction of `x` back to the host (a sync of this stream).
absl::StatusOr<int64_t> ReduceToHost(OpContext& ctx, ReduceOp op, const View& x) {
  ARRAYD_ASSIGN_OR_RETURN(View r, ctx.NewArray(DType::kInt64, {}));
  std::vector<int> axes(x.ndim());
  std::iota(axes.begin(), axes.end(), 0);
  ARRAYD_RETURN_IF_ERROR(ReduceArray(ctx, op, x, DType::kInt64, axes, r));
  int64_t value = 0;
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyToHost(r, &value));
  return value;
}

// `index` as int64 in [0, n): IndexError when some value is outside
// [-n, n), negative values wrapped, as NumPy.
absl::StatusOr<View> CheckedIndex(OpContext& ctx, const View& index, int64_t n, int axis) {
  if (!IsInteger(index.dtype)) {
    return IndexError("arrays used as indices must be of integer (or boolean) type");
  }
  ARRAYD_ASSIGN_OR_RETURN(View idx, ctx.CastTo(index, DType::kInt64));
  if (idx.size() == 0) return idx;
  // The backend's check (on a GPU on the device, reported at the next
  // sync), else the range read back to the host.
  ARRAYD_ASSIGN_OR_RETURN(View src, idx.IsCContiguous() ? absl::StatusOr<View>(idx)
                                                          : ctx.ContiguousCopy(idx));
  ARRAYD_ASSIGN_OR_RETURN(View in_range, ctx.NewArray(DType::kInt64, idx.shape));
  absl::Status checked = ctx.stream().WrapIndex(src, n, axis, in_range);
  if (!absl::IsUnimplemented(checked)) {
    ARRAYD_RETURN_IF_ERROR(checked);
    return in_range;
  }
  ARRAYD_ASSIGN_OR_RETURN(int64_t lo, ReduceToHost(ctx, ReduceOp::kMin, idx));
  ARRAYD_ASSIGN_OR_RETURN(int64_t hi, ReduceToHost(ctx, ReduceOp::kMax, idx));
  if (hi >= n || lo < -n) {
    int64_t bad = hi >= n ? hi : lo;
    return IndexError(absl::StrCat("index ", bad, " is out of bounds for axis ", axis,
                                   " with size ", n));
  }
  if (lo >= 0) return idx;
  ARRAYD_ASSIGN_OR_RETURN(View zero, Scalar0D(ctx, DType::kInt64, Scalar::Int(0)));
  ARRAYD_ASSIGN_OR_RETURN(View size, Scalar0D(ctx, DType::kInt64, Scalar::Int(n)));
  ARRAYD_ASSIGN_OR_RETURN(View negative, Apply(ctx, BinaryOp::kLess, idx, zero, DType::kBool));
  ARRAYD_ASSIGN_OR_RETURN(View wrapped, Apply(ctx, BinaryOp::kAdd, idx, size, DType::kInt64));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(DType::kInt64, idx.shape));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Where(negative, wrapped, idx, out));
  return out;
}

// arange(n) * step as an int64 array of shape `shape` (ones except `dim`).
absl::StatusOr<View> AxisRamp(OpContext& ctx, int64_t n, int64_t step, int ndim, int dim) {
  ARRAYD_ASSIGN_OR_RETURN(View ramp, ctx.NewArray(DType::kInt64, {n}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Iota(ramp, Scalar::Int(0), Scalar::Int(step)));
  Shape shape(ndim, 1);
  shape[dim] = n;
  View out;
  TryReshapeView(ramp, shape, &out);
  return out;
}

absl::StatusOr<int> AxisAttr(OpContext& ctx, int ndim, const char* name = "axis") {
  ARRAYD_ASSIGN_OR_RETURN(int64_t a, ctx.attrs().Int(name));
  int64_t one[1] = {a};
  ARRAYD_ASSIGN_OR_RETURN(auto axes, NormalizeAxes(one, ndim));
  return axes[0];
}

absl::Status RunWhere(OpContext& ctx) {
  const View& cond = ctx.input(0);
  const View& x = ctx.input(1);
  const View& y = ctx.input(2);
  DType dtype = Promote(x.dtype, y.dtype);
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes({cond.shape, x.shape, y.shape}));
  ARRAYD_ASSIGN_OR_RETURN(View c, ctx.CastTo(cond, DType::kBool));
  ARRAYD_ASSIGN_OR_RETURN(View cx, ctx.CastTo(x, dtype));
  ARRAYD_ASSIGN_OR_RETURN(View cy, ctx.CastTo(y, dtype));
  ARRAYD_ASSIGN_OR_RETURN(View bc, BroadcastTo(c, shape));
  ARRAYD_ASSIGN_OR_RETURN(View bx, BroadcastTo(cx, shape));
  ARRAYD_ASSIGN_OR_RETURN(View by, BroadcastTo(cy, shape));
  ARRAYD_ASSIGN_OR_RETURN(View out,
                          ctx.OutputFor(0, dtype, shape, ResultStrides({&cond, &x, &y}, shape, dtype)));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Where(bc, bx, by, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// np.take by the backend's checked gather: one kernel, the bounds checked on
// the device (reported at the next sync) or by the CPU backend at once.
absl::Status TakeChecked(OpContext& ctx, const View& x, const View& index, bool has_axis,
                           int axis) {
  if (!IsInteger(index.dtype)) {
    return IndexError("arrays used as indices must be of integer (or boolean) type");
  }
  int64_t outer = 1, n = x.size(), inner = 1;
  Shape out_shape = index.shape;
  if (has_axis) {
    n = x.shape[axis];
    out_shape.clear();
    for (int d = 0; d < axis; ++d) {
      outer *= x.shape[d];
      out_shape.push_back(x.shape[d]);
    }
    out_shape.insert(out_shape.end(), index.shape.begin(), index.shape.end());
    for (int d = axis + 1; d < x.ndim(); ++d) {
      inner *= x.shape[d];
      out_shape.push_back(x.shape[d]);
    }
  }
  if (n == 0 && index.size() > 0) {
    return IndexError("cannot do a non-empty take from an empty axes.");
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(x.dtype, out_shape));
  if (out.size() > 0) {
    ARRAYD_ASSIGN_OR_RETURN(View idx, ctx.CastTo(index, DType::kInt64));
    ARRAYD_ASSIGN_OR_RETURN(View flat_idx, compose::Reshape(ctx, idx, {idx.size()}));
    if (!flat_idx.IsCContiguous()) {
      ARRAYD_ASSIGN_OR_RETURN(flat_idx, ctx.ContiguousCopy(flat_idx));
    }
    ARRAYD_ASSIGN_OR_RETURN(View x3, compose::Reshape(ctx, x, {outer, n, inner}));
    View out3;
    TryReshapeView(out, {outer, index.size(), inner}, &out3);
    ARRAYD_RETURN_IF_ERROR(ctx.stream().TakeChecked(x3, flat_idx, axis, out3));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// np.take: x.shape[:axis] + indices.shape + x.shape[axis+1:].
absl::Status RunTake(OpContext& ctx) {
  const View& x = ctx.input(0);
  int axis = 0;
  const bool has_axis = ctx.attrs().Has("axis");
  if (has_axis) {
    ARRAYD_ASSIGN_OR_RETURN(axis, AxisAttr(ctx, x.ndim()));
  }
  return TakeChecked(ctx, x, ctx.input(1), has_axis, axis);
}

absl::Status RunTakeAlongAxis(OpContext& ctx) {
  const View& x = ctx.input(0);
  const View& index = ctx.input(1);
  if (index.ndim() != x.ndim()) {
    return ValueError("`indices` and `arr` must have the same number of dimensions");
  }
  ARRAYD_ASSIGN_OR_RETURN(int axis, AxisAttr(ctx, x.ndim()));
  Shape x_other = x.shape, i_other = index.shape;
  x_other[axis] = 1;
  i_other[axis] = 1;
  ARRAYD_ASSIGN_OR_RETURN(Shape other, BroadcastShapes({x_other, i_other}));
  Shape out_shape = other, src_shape = other;
  out_shape[axis] = index.shape[axis];
  src_shape[axis] = x.shape[axis];
  ARRAYD_ASSIGN_OR_RETURN(View src, BroadcastTo(x, src_shape));
  ARRAYD_ASSIGN_OR_RETURN(View idx, CheckedIndex(ctx, index, x.shape[axis], axis));
  ARRAYD_ASSIGN_OR_RETURN(View idx_b, BroadcastTo(idx, out_shape));
  // Flat position in src: sum over dims of coordinate * C-stride (in elements).
  Strides cstride = CStrides(src_shape, 1);
  ARRAYD_ASSIGN_OR_RETURN(View step, Scalar0D(ctx, DType::kInt64, Scalar::Int(cstride[axis])));
  ARRAYD_ASSIGN_OR_RETURN(View flat, Apply(ctx, BinaryOp::kMultiply, idx_b, step, DType::kInt64));
  for (int d = 0; d < x.ndim(); ++d) {
    if (d == axis) continue;
    ARRAYD_ASSIGN_OR_RETURN(View ramp, AxisRamp(ctx, out_shape[d], cstride[d], x.ndim(), d));
    ARRAYD_ASSIGN_OR_RETURN(flat, Apply(ctx, BinaryOp::kAdd, flat, ramp, DType::kInt64));
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(x.dtype, out_shape));
  if (out.size() > 0) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Gather(src, flat, out));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// np.put(x, indices, values): flat (C-order) positions of x; values repeat.
absl::Status RunPut(OpContext& ctx) {
  const View& x = ctx.input(0);
  if (!x.writeable) return ValueError("assignment destination is read-only");
  const View& index = ctx.input(1);
  if (!IsInteger(index.dtype)) {
    return IndexError("arrays used as indices must be of integer (or boolean) type");
  }
  // The backend checks the indices as it scatters (on a GPU at the next
  // sync: no host round trip here).
  ARRAYD_ASSIGN_OR_RETURN(View idx, ctx.CastTo(index, DType::kInt64));
  if (idx.size() == 0) return absl::OkStatus();
  View values = ctx.input(2);
  if (values.size() == 0) return absl::OkStatus();
  View flat_values;
  if (!TryReshapeView(values, {values.size()}, &flat_values)) {
    ARRAYD_ASSIGN_OR_RETURN(View copy, ctx.ContiguousCopy(values));
    TryReshapeView(copy, {values.size()}, &flat_values);
  }
  View flat_idx;
  TryReshapeView(idx, {idx.size()}, &flat_idx);
  View v = flat_values;
  if (flat_values.size() != flat_idx.size()) {
    // NumPy repeats values cyclically: values[k % len(values)].
    ARRAYD_ASSIGN_OR_RETURN(View pos, ctx.NewArray(DType::kInt64, {flat_idx.size()}));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Iota(pos, Scalar::Int(0), Scalar::Int(1)));
    ARRAYD_ASSIGN_OR_RETURN(View len, Scalar0D(ctx, DType::kInt64, Scalar::Int(flat_values.size())));
    ARRAYD_ASSIGN_OR_RETURN(View mod, Apply(ctx, BinaryOp::kRemainder, pos, len, DType::kInt64));
    ARRAYD_ASSIGN_OR_RETURN(v, ctx.NewArray(values.dtype, {flat_idx.size()}));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Gather(flat_values, mod, v));
  } else if (MayOverlap(v, x)) {
    ARRAYD_ASSIGN_OR_RETURN(v, ctx.ContiguousCopy(v));
  }
  return ctx.stream().Scatter(v, flat_idx, x);
}

absl::Status RunFlatNonzero(OpContext& ctx) {
  const View& x = ctx.input(0);
  ARRAYD_ASSIGN_OR_RETURN(View mask, ctx.CastTo(x, DType::kBool));
  // The client's count sizes the output (it counted to know the result's
  // shape); the backend checks it as it selects (a ValueError where the
  // mask has another count; on a GPU at the next sync), so the mask is
  // read once here. Without one, the count is read back first.
  int64_t count = 0;
  if (ctx.attrs().Has("count")) {
    ARRAYD_ASSIGN_OR_RETURN(count, ctx.attrs().Int("count"));
    if (count < 0 || count > x.size()) {
      return ValueError(absl::StrCat("flatnonzero: a mask of ", x.size(),
                                     " elements cannot have ", count, " true ones"));
    }
  } else {
    ARRAYD_ASSIGN_OR_RETURN(count, ReduceToHost(ctx, ReduceOp::kSum, mask));
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(DType::kInt64, {count}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Nonzero(mask, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// sort/argsort, and partition/argpartition (kth: the positions to place).
absl::Status RunSort(OpContext& ctx, bool arg, bool partition = false) {
  View x = ctx.input(0);
  int axis;
  if (ctx.attrs().Has("axis")) {
    ARRAYD_ASSIGN_OR_RETURN(axis, AxisAttr(ctx, x.ndim()));
  } else {  // axis=None: the flattened array
    View flat;
    if (!TryReshapeView(x, {x.size()}, &flat)) {
      ARRAYD_ASSIGN_OR_RETURN(View copy, ctx.ContiguousCopy(x));
      TryReshapeView(copy, {x.size()}, &flat);
    }
    x = flat;
    axis = 0;
  }
  if (x.ndim() == 0) return AxisError("axis -1 is out of bounds for array of dimension 0");
  std::vector<int64_t> perm;
  for (int d = 0; d < x.ndim(); ++d) {
    if (d != axis) perm.push_back(d);
  }
  perm.push_back(axis);
  ARRAYD_ASSIGN_OR_RETURN(View xt, Transpose(x, perm));
  View sorted, indices;
  if (arg) {  // the sorted values are not wanted
    ARRAYD_ASSIGN_OR_RETURN(indices, ctx.NewArray(DType::kInt64, xt.shape));
  } else {
    ARRAYD_ASSIGN_OR_RETURN(sorted, ctx.NewArray(x.dtype, xt.shape));
  }
  if (partition) {
    ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> kth, ctx.attrs().Ints("kth"));
    const int64_t n = xt.shape.back();
    for (int64_t& k : kth) {
      if (k < -n || k >= n) {
        return ValueError(absl::StrCat("kth(=", k, ") out of bounds (", n, ")"));
      }
      if (k < 0) k += n;
    }
    std::sort(kth.begin(), kth.end());
    kth.erase(std::unique(kth.begin(), kth.end()), kth.end());
    ARRAYD_RETURN_IF_ERROR(
        ctx.stream().Partition(xt, arg ? nullptr : &sorted, arg ? &indices : nullptr, kth));
  } else {
    ARRAYD_RETURN_IF_ERROR(
        ctx.stream().Sort(xt, arg ? nullptr : &sorted, arg ? &indices : nullptr));
  }
  std::vector<int64_t> back(x.ndim());
  for (int d = 0; d < x.ndim(); ++d) back[perm[d]] = d;
  ARRAYD_ASSIGN_OR_RETURN(View out, Transpose(arg ? indices : sorted, back));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// The backend's scan of `out` along `axis` (a copy with the axis last when
// it is not, written back); UNIMPLEMENTED when the backend has none.
absl::Status BackendScan(OpContext& ctx, BinaryOp op, const View& out, int axis) {
  if (axis == out.ndim() - 1) return ctx.stream().Scan(op, out);
  std::vector<int64_t> perm;
  for (int d = 0; d < out.ndim(); ++d) {
    if (d != axis) perm.push_back(d);
  }
  perm.push_back(axis);
  ARRAYD_ASSIGN_OR_RETURN(View moved, Transpose(out, perm));
  ARRAYD_ASSIGN_OR_RETURN(View rows, ctx.ContiguousCopy(moved));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Scan(op, rows));
  return ctx.stream().Copy(rows, moved);
}

// cumsum/cumprod: the backend's scan (CUB on CUDA), else doubling steps
// (Hillis-Steele): log2(n) elementwise passes out[k:] = op(out[k:],
// out[:-k]), which every backend runs.
absl::Status RunScan(OpContext& ctx, BinaryOp op, const std::vector<Loop>& loops) {
  View x = ctx.input(0);
  const Loop* loop = FindLoop(loops, {x.dtype});
  if (loop == nullptr) return TypeError(absl::StrCat("cumulative op not supported for ", DTypeName(x.dtype)));
  DType acc = loop->out[0];
  if (ctx.attrs().Has("dtype")) {
    ARRAYD_ASSIGN_OR_RETURN(acc, ctx.attrs().GetDType("dtype"));
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.ContiguousCopy(x, acc));
  int axis = 0;
  if (ctx.attrs().Has("axis")) {
    ARRAYD_ASSIGN_OR_RETURN(axis, AxisAttr(ctx, x.ndim()));
  } else {
    TryReshapeView(out, {out.size()}, &out);
  }
  if (out.ndim() == 0) TryReshapeView(out, {1}, &out);
  const int64_t n = out.shape[axis];
  if (out.size() == 0) {
    ctx.SetResult(0, out);
    return absl::OkStatus();
  }
  absl::Status scanned = BackendScan(ctx, op, out, axis);
  if (scanned.ok() || !absl::IsUnimplemented(scanned)) {
    ARRAYD_RETURN_IF_ERROR(scanned);
    ctx.SetResult(0, out);
    return absl::OkStatus();
  }
  for (int64_t k = 1; k < n; k *= 2) {
    View head = out, tail = out;
    head.shape[axis] = n - k;  // out[:n-k]
    tail.shape[axis] = n - k;  // out[k:]
    tail.offset += k * out.strides[axis];
    ARRAYD_ASSIGN_OR_RETURN(View prev, ctx.ContiguousCopy(head));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Binary(op, tail, prev, tail));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// searchsorted(a, v): a and v in their common dtype, a 1-D (sorted in
// NumPy's order; not checked, as NumPy does not); int64 positions of v's shape.
absl::Status RunSearchSorted(OpContext& ctx) {
  const View& a = ctx.input(0);
  const View& v = ctx.input(1);
  if (a.ndim() != 1) return ValueError("searchsorted: a must be 1-D");
  ARRAYD_ASSIGN_OR_RETURN(bool right, ctx.attrs().Bool("right", false));
  const DType common = Promote(a.dtype, v.dtype);
  ARRAYD_ASSIGN_OR_RETURN(View ca, ctx.CastTo(a, common));
  ARRAYD_ASSIGN_OR_RETURN(View cv, ctx.CastTo(v, common));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.OutputFor(0, DType::kInt64, v.shape));
  if (out.size() > 0) ARRAYD_RETURN_IF_ERROR(ctx.stream().SearchSorted(ca, cv, right, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// The float64 weights of bincount and histogram: input `i` when given
// (of `shape`, else NumPy's ValueError `mismatch`), else none.
absl::StatusOr<std::optional<View>> OptionalWeights(OpContext& ctx, int i, const Shape& shape,
                                                    const char* mismatch) {
  if (ctx.num_inputs() <= i) return std::optional<View>();
  if (ctx.input(i).shape != shape) return ValueError(mismatch);
  ARRAYD_ASSIGN_OR_RETURN(View w, ctx.CastTo(ctx.input(i), DType::kFloat64));
  return std::optional<View>(std::move(w));
}

// bincount(x[, weights], length): the counts (sums of float64 weights) of
// the values of the 1-D integer x in [0, length); the client has checked
// that none is negative and found the length (one sync, as NumPy needs).
absl::Status RunBincount(OpContext& ctx) {
  if (ctx.num_inputs() < 1 || ctx.num_inputs() > 2) {
    return ValueError("bincount takes x and optionally weights");
  }
  const View& x = ctx.input(0);
  ARRAYD_ASSIGN_OR_RETURN(int64_t length, ctx.attrs().Int("length"));
  if (x.ndim() != 1 || !(IsInteger(x.dtype) || x.dtype == DType::kBool) || length < 0) {
    return ValueError("bincount: x must be a 1-D integer array and length >= 0");
  }
  ARRAYD_ASSIGN_OR_RETURN(
      std::optional<View> w,
      OptionalWeights(ctx, 1, x.shape, "The weights and list don't have the same length."));
  ARRAYD_ASSIGN_OR_RETURN(View xi, ctx.CastTo(x, DType::kInt64));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(w ? DType::kFloat64 : DType::kInt64, {length}));
  if (length > 0) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Bincount(xi, w ? &*w : nullptr, out));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// histogram(a, edges[, weights]): numpy.histogram's counts (float64 sums
// of the weights) of the 1-D a in the bins of the sorted edges, a and
// edges compared in their common dtype (NumPy casts a to the edges').
absl::Status RunHistogram(OpContext& ctx) {
  if (ctx.num_inputs() < 2 || ctx.num_inputs() > 3) {
    return ValueError("histogram takes a, edges and optionally weights");
  }
  const View& a = ctx.input(0);
  const View& edges = ctx.input(1);
  if (a.ndim() != 1 || edges.ndim() != 1 || edges.shape[0] < 2) {
    return ValueError("histogram: a must be 1-D and edges 1-D with at least two edges");
  }
  const DType common = Promote(a.dtype, edges.dtype);
  if (IsComplex(common)) return TypeError("histogram: complex values cannot be binned");
  ARRAYD_ASSIGN_OR_RETURN(
      std::optional<View> w,
      OptionalWeights(ctx, 2, a.shape, "weights should have the same shape as a."));
  ARRAYD_ASSIGN_OR_RETURN(View ca, ctx.CastTo(a, common));
  ARRAYD_ASSIGN_OR_RETURN(View ce, ctx.CastTo(edges, common));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(w ? DType::kFloat64 : DType::kInt64,
                                                 {edges.shape[0] - 1}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Histogram(ca, ce, w ? &*w : nullptr, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// x.real / x.imag: views of the parts of a complex array (NumPy's too).
absl::Status RunPart(OpContext& ctx, bool imag) {
  const View& x = ctx.input(0);
  if (!IsComplex(x.dtype)) {
    if (!imag) {
      ctx.SetResult(0, x);
      return absl::OkStatus();
    }
    ARRAYD_ASSIGN_OR_RETURN(View zeros, ctx.NewArray(x.dtype, x.shape));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(zeros, Scalar::Int(0)));
    zeros.writeable = false;
    ctx.SetResult(0, zeros);
    return absl::OkStatus();
  }
  View part = x;
  part.dtype = RealDType(x.dtype);
  if (imag) part.offset += ItemSize(part.dtype);
  ctx.SetResult(0, part);
  return absl::OkStatus();
}

}  // namespace

void RegisterIndexingOps(OpRegistry* r) {
  const OpFamily f = OpFamily::kIndex;
  r->Register(f, "where(condition, x, y) -> out", "condition ? x : y, with broadcasting.", RunWhere);
  r->Register(f, "take(a, indices, *, axis: int? = None) -> out",
              "np.take (integer indices, NumPy's IndexError).", RunTake);
  r->Register(f, "take_along_axis(a, indices, *, axis: int? = None) -> out", "np.take_along_axis.",
              RunTakeAlongAxis);
  r->Register(f, "put(a, indices, values) -> ()",
              "np.put: a.flat[indices] = values (cyclic values).", RunPut);
  r->Register(f, "flatnonzero(a, *, count: int? = None) -> out",
              "Flat indices of the true elements (count: the client's expected number).",
              RunFlatNonzero);
  r->Register(f, "sort(a, *, axis: int? = None) -> out",
              "Stable sort along an axis (None: flattened).",
              [](OpContext& ctx) { return RunSort(ctx, false); });
  r->Register(f, "argsort(a, *, axis: int? = None) -> out",
              "Stable argsort along an axis (None: flattened).",
              [](OpContext& ctx) { return RunSort(ctx, true); });
  r->Register(f, "partition(a, *, kth: ints, axis: int? = None) -> out",
              "np.partition along an axis (None: flattened): the elements at kth in sorted "
              "position, smaller ones before, the rest after.",
              [](OpContext& ctx) { return RunSort(ctx, false, true); });
  r->Register(f, "argpartition(a, *, kth: ints, axis: int? = None) -> out",
              "np.argpartition along an axis (None: flattened).",
              [](OpContext& ctx) { return RunSort(ctx, true, true); });
  r->Register(f, "searchsorted(a, v, *, right: bool = False) -> out",
              "np.searchsorted of v in the sorted 1-D a (right: side='right').", RunSearchSorted);
  r->Register(f, "bincount(xs[], *, length: int) -> out",
              "np.bincount of the 1-D x (xs[0]) into `length` bins, with weights xs[1] if given.",
              RunBincount);
  r->Register(f, "histogram(xs[]) -> out",
              "np.histogram's counts of the 1-D xs[0] by the sorted edges xs[1], with weights "
              "xs[2] (float64 sums) if given.",
              RunHistogram);
  r->Register(OpFamily::kScan, "cumsum(a, *, axis: int? = None, dtype: dtype? = None) -> out",
              "Cumulative sum (None: flattened).",
              [loops = MustParseLoops("cumsum", ARRAYD_SUM_LOOPS)](OpContext& ctx) {
                return RunScan(ctx, BinaryOp::kAdd, loops);
              },
              ARRAYD_SUM_LOOPS);
  r->Register(OpFamily::kScan, "cumprod(a, *, axis: int? = None, dtype: dtype? = None) -> out",
              "Cumulative product (None: flattened).",
              [loops = MustParseLoops("cumprod", ARRAYD_SUM_LOOPS)](OpContext& ctx) {
                return RunScan(ctx, BinaryOp::kMultiply, loops);
              },
              ARRAYD_SUM_LOOPS);
  r->Register(OpFamily::kShape, "real(a) -> out", "Real part (a view for complex arrays).",
              [](OpContext& ctx) { return RunPart(ctx, false); });
  r->Register(OpFamily::kShape, "imag(a) -> out", "Imaginary part (a view for complex arrays).",
              [](OpContext& ctx) { return RunPart(ctx, true); });
}

}  // namespace arrayd
