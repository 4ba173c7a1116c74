// Views and copies: reshape, transpose, broadcast_to, slice (basic
// indexing), setitem, astype, copy, pad. Views share their input's buffer.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "ops/compose.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

absl::Status RunReshape(OpContext& ctx) {
  const View& x = ctx.input(0);
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.attrs().Ints("shape"));
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ResolveReshape(x.size(), dims));
  View out;
  if (!TryReshapeView(x, shape, &out)) {
    ARRAYD_ASSIGN_OR_RETURN(View copy, ctx.ContiguousCopy(x));
    TryReshapeView(copy, shape, &out);
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::Status RunTranspose(OpContext& ctx) {
  std::vector<int64_t> axes;
  if (ctx.attrs().Has("axes")) {
    ARRAYD_ASSIGN_OR_RETURN(axes, ctx.attrs().Ints("axes"));
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, Transpose(ctx.input(0), axes));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::Status RunBroadcastTo(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ctx.attrs().GetShape("shape"));
  ARRAYD_ASSIGN_OR_RETURN(View out, BroadcastTo(ctx.input(0), shape));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::StatusOr<View> Indexed(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> encoded, ctx.attrs().Ints("index"));
  ARRAYD_ASSIGN_OR_RETURN(std::vector<IndexItem> index, ParseIndex(encoded));
  return BasicIndex(ctx.input(0), index);
}

absl::Status RunSlice(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(View out, Indexed(ctx));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// x[index] = value, broadcasting value and casting it unsafely, as NumPy.
absl::Status RunSetItem(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(View target, Indexed(ctx));
  if (!target.writeable) return ValueError("assignment destination is read-only");
  View value = ctx.input(1);
  auto broadcast = BroadcastTo(value, target.shape);
  if (!broadcast.ok()) {
    return ValueError(absl::StrCat("could not broadcast input array from shape ",
                                   ShapeString(value.shape), " into shape ",
                                   ShapeString(target.shape)));
  }
  if (MayOverlap(value, target)) {
    ARRAYD_ASSIGN_OR_RETURN(View copy, ctx.ContiguousCopy(value));
    ARRAYD_ASSIGN_OR_RETURN(broadcast, BroadcastTo(copy, target.shape));
  }
  return ctx.stream().Copy(*broadcast, target);
}

// The order= attribute (NumPy's memory order of a copy).
absl::StatusOr<Order> OrderAttr(OpContext& ctx, Order fallback) {
  if (!ctx.attrs().Has("order")) return fallback;
  ARRAYD_ASSIGN_OR_RETURN(std::string order, ctx.attrs().String("order"));
  return ParseOrder(order);
}

absl::Status RunAstype(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, ctx.attrs().GetDType("dtype"));
  ARRAYD_ASSIGN_OR_RETURN(Order order, OrderAttr(ctx, Order::kK));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.CopyInOrder(ctx.input(0), dtype, order));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::Status RunCopy(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(Order order, OrderAttr(ctx, Order::kC));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.CopyInOrder(ctx.input(0), DType::kInvalid, order));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// pad(a, widths, mode, cval): numpy.pad's constant (one value, cast from
// a double), edge, symmetric, reflect and wrap modes (reflect_type 'even')
// in one pass, each element written once; widths (before, after) per axis.
absl::Status RunPad(OpContext& ctx) {
  const View& a = ctx.input(0);
  const int nd = a.ndim();
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> widths, ctx.attrs().Ints("widths"));
  ARRAYD_ASSIGN_OR_RETURN(std::string mode_name, ctx.attrs().String("mode"));
  ARRAYD_ASSIGN_OR_RETURN(kernels::Boundary mode, compose::BoundaryByName(mode_name, "pad"));
  ARRAYD_ASSIGN_OR_RETURN(double cval, compose::FloatAttr(ctx.attrs(), "cval", 0.0));
  if (mode == kernels::Boundary::kPadded) {
    return ValueErrorf("pad: mode '", mode_name,
                       "' is not one of constant, edge, symmetric, reflect, wrap");
  }
  if (nd == 0 || static_cast<int>(widths.size()) != 2 * nd) {
    return ValueError("pad: widths must be (before, after) for each of a's dimensions");
  }
  Shape shape(nd);
  std::vector<int64_t> lo(nd);
  for (int d = 0; d < nd; ++d) {
    lo[d] = widths[2 * d];
    const int64_t hi = widths[2 * d + 1];
    if (lo[d] < 0 || hi < 0) return ValueError("index can't contain negative values");
    if (a.shape[d] == 0 && (lo[d] > 0 || hi > 0) && mode != kernels::Boundary::kConstant) {
      return ValueErrorf("can't extend empty axis ", d, " using modes other than 'constant' or "
                         "'empty'");
    }
    if (lo[d] > (int64_t{1} << 40) || hi > (int64_t{1} << 40)) {
      return ValueError("pad: array is too big");
    }
    shape[d] = a.shape[d] + lo[d] + hi;
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(a.dtype, shape));
  // (An empty a has an empty axis, which only the constant grows.)
  if (a.size() == 0) {
    if (out.size() > 0) ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(out, Scalar::Float(cval)));
  } else if (out.size() > 0) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Pad(a, lo, mode, cval, out));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::Status RunView(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, ctx.attrs().GetDType("dtype"));
  ARRAYD_ASSIGN_OR_RETURN(View out, ViewAsDType(ctx.input(0), dtype));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// ndarray.flags.writeable = write: a view with the flag; making a read-only
// view writeable again is refused where NumPy refuses it (broadcast views).
absl::Status RunSetFlags(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(bool write, ctx.attrs().Bool("write", true));
  View out = ctx.input(0);
  if (write && !out.writeable) {
    for (int d = 0; d < out.ndim(); ++d) {
      if (out.strides[d] == 0 && out.shape[d] > 1) {
        return ValueError("cannot set WRITEABLE flag to True of this array");
      }
    }
  }
  out.writeable = write;
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// A view of a's memory with the given shape, byte strides and byte offset
// from a's first element (np.lib.stride_tricks.as_strided; diagonal
// views). Every byte it can reach must lie in a's buffer: ValueError
// otherwise, and for lengths or strides whose products overflow.
absl::Status RunAsStrided(OpContext& ctx) {
  const View& x = ctx.input(0);
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ctx.attrs().GetShape("shape"));
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.attrs().Ints("strides"));
  int64_t offset = 0;
  if (ctx.attrs().Has("offset")) {
    ARRAYD_ASSIGN_OR_RETURN(offset, ctx.attrs().Int("offset"));
  }
  ARRAYD_ASSIGN_OR_RETURN(bool writeable, ctx.attrs().Bool("writeable", true));
  if (strides.size() != shape.size()) {
    return ValueError("as_strided: strides and shape must have the same length");
  }
  View out = x;
  out.shape = shape;
  out.strides.assign(strides.begin(), strides.end());
  out.writeable = x.writeable && writeable;
  const absl::Status outside =
      ValueError("as_strided: the view would reach outside the array's memory");
  int64_t lo = 0, hi = 0;
  if (__builtin_add_overflow(x.offset, offset, &lo)) return outside;
  out.offset = lo;
  hi = lo;
  if (ShapeSize(shape) > 0) {
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t span = 0;
      if (__builtin_mul_overflow(strides[d], shape[d] - 1, &span)) return outside;
      if (__builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) return outside;
    }
    if (__builtin_add_overflow(hi, static_cast<int64_t>(ItemSize(x.dtype)), &hi)) return outside;
    if (lo < 0 || hi > static_cast<int64_t>(x.buffer->nbytes())) return outside;
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// The byte strides of the server's view (int64, one per axis), for
// checking that a client's layout agrees with the server's.
absl::Status RunStrides(OpContext& ctx) {
  const View& x = ctx.input(0);
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(DType::kInt64, {x.ndim()}));
  if (x.ndim() > 0) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(x.strides.data(), out));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

}  // namespace

void RegisterShapeOps(OpRegistry* r) {
  const OpFamily f = OpFamily::kShape;
  r->Register(f, "reshape(a, *, shape: ints) -> out", "New shape (one -1); a view when the strides allow.",
              RunReshape);
  r->Register(f, "transpose(a, *, axes: ints? = None) -> out", "Permuted axes (a view).",
              RunTranspose);
  r->Register(f, "broadcast_to(a, *, shape: shape) -> out", "Read-only broadcast view.",
              RunBroadcastTo);
  r->Register(f, "slice(a, *, index: index) -> out", "Basic indexing (a view).", RunSlice);
  r->Register(f, "setitem(a, value, *, index: index) -> ()", "a[index] = value.", RunSetItem);
  r->Register(f, "astype(a, *, dtype: dtype, order: str = 'K') -> out",
              "Copy cast to a dtype, in NumPy's memory order.", RunAstype);
  r->Register(f, "copy(a, *, order: str = 'C') -> out", "Copy in NumPy's memory order.", RunCopy);
  r->Register(f, "pad(a, *, widths: ints, mode: str, cval: float = 0.0) -> out",
              "numpy.pad's constant (cval), edge, symmetric, reflect and wrap modes in one "
              "pass (widths: before, after per axis).",
              RunPad);
  r->Register(f, "view(a, *, dtype: dtype) -> out",
              "The same bytes as another dtype (ndarray.view).", RunView);
  r->Register(f, "setflags(a, *, write: bool) -> out",
              "A view that is read-only (write=False) or writeable again.", RunSetFlags);
  r->Register(f, "strides(a) -> out", "The byte strides of a's view (int64).", RunStrides);
  r->Register(f,
              "as_strided(a, *, shape: shape, strides: ints, offset: int = 0, "
              "writeable: bool = True) -> out",
              "A view of a's memory with byte strides and offset (bounds checked).",
              RunAsStrided);
}

}  // namespace arrayd
