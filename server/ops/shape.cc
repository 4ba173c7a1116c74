// Views and copies: reshape, transpose, broadcast_to, slice (basic
// indexing), setitem, astype, copy. Views share their input's buffer.
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
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

absl::Status RunAstype(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, ctx.attrs().GetDType("dtype"));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.ContiguousCopy(ctx.input(0), dtype));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::Status RunCopy(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.ContiguousCopy(ctx.input(0)));
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
  r->Register(f, "astype(a, *, dtype: dtype) -> out", "Copy cast to a dtype.", RunAstype);
  r->Register(f, "copy(a) -> out", "C-order copy.", RunCopy);
}

}  // namespace arrayd
