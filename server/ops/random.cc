// Random streams: Philox4x32-10, counter-based. Element i of a stream with
// key k and offset o is philox(o + i, k), so a seed gives the same numbers on
// every backend and for any launch shape. Clients keep (key, offset) per
// generator and advance the offset by the number of values drawn.
#include <string>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

absl::StatusOr<uint64_t> U64Attr(const Attrs& attrs, const std::string& name) {
  ARRAYD_ASSIGN_OR_RETURN(Scalar s, attrs.GetScalar(name));
  if (s.kind == Scalar::kUInt) return s.u;
  if (s.kind == Scalar::kInt) return static_cast<uint64_t>(s.i);
  return TypeError(absl::StrCat("attribute '", name, "' must be an integer"));
}

absl::Status RunRandom(OpContext& ctx, kernels::BinaryOp op) {
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ctx.attrs().GetShape("shape"));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, ctx.attrs().GetDType("dtype"));
  ARRAYD_ASSIGN_OR_RETURN(uint64_t key, U64Attr(ctx.attrs(), "key"));
  ARRAYD_ASSIGN_OR_RETURN(uint64_t offset, U64Attr(ctx.attrs(), "offset"));
  if (!IsFloat(dtype) || dtype == DType::kFloat16) {
    return TypeError(absl::StrCat("Unsupported dtype dtype('", DTypeName(dtype),
                                  "') for random; float32 and float64 are supported"));
  }
  const int64_t n = ShapeSize(shape);
  ARRAYD_ASSIGN_OR_RETURN(View counters, ctx.NewArray(DType::kUInt64, {n}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Iota(counters, Scalar::UInt(offset), Scalar::UInt(1)));
  ARRAYD_ASSIGN_OR_RETURN(View k, ctx.NewArray(DType::kUInt64, {}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(k, Scalar::UInt(key)));
  ARRAYD_ASSIGN_OR_RETURN(View kb, BroadcastTo(k, {n}));
  ARRAYD_ASSIGN_OR_RETURN(View values, ctx.NewArray(DType::kFloat64, {n}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Binary(op, counters, kb, values));
  ARRAYD_ASSIGN_OR_RETURN(View cast, ctx.CastTo(values, dtype));
  if (dtype == DType::kFloat32 && op == kernels::BinaryOp::kPhiloxUniform) {
    // Rounding to float32 can give 1.0; NumPy's random() is in [0, 1).
    ARRAYD_ASSIGN_OR_RETURN(View below_one, ctx.NewArray(DType::kFloat32, {}));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(below_one, Scalar::Float(0.99999994039535522)));
    ARRAYD_ASSIGN_OR_RETURN(View bound, BroadcastTo(below_one, {n}));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Binary(kernels::BinaryOp::kMinimum, cast, bound, cast));
  }
  View out;
  TryReshapeView(cast, shape, &out);
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

}  // namespace

void RegisterRandomOps(OpRegistry* r) {
  const std::vector<std::string> attrs = {"shape", "dtype", "key", "offset"};
  r->Register({"random_uniform", 0, 1, attrs, "Uniform [0, 1) from Philox4x32-10 (key, offset).",
               [](OpContext& ctx) { return RunRandom(ctx, kernels::BinaryOp::kPhiloxUniform); }});
  r->Register({"random_normal", 0, 1, attrs, "Standard normal from Philox4x32-10 (key, offset).",
               [](OpContext& ctx) { return RunRandom(ctx, kernels::BinaryOp::kPhiloxNormal); }});
}

}  // namespace arrayd
