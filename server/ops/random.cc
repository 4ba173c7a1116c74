// Random streams: Philox4x32-10, counter-based. The `offset` attribute is
// the counter of the first Philox block; a block gives four float32 or two
// float64 values, so element i of a draw is value i % K of block
// offset + i / K (K = 4 or 2) under `key`, on every backend and for any
// launch shape. Clients keep (key, offset) per generator and advance the
// offset by the blocks a draw used, ceil(n / K).
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

absl::Status RunRandom(OpContext& ctx, RandomDist dist) {
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ctx.attrs().GetShape("shape"));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, ctx.attrs().GetDType("dtype"));
  ARRAYD_ASSIGN_OR_RETURN(uint64_t key, U64Attr(ctx.attrs(), "key"));
  ARRAYD_ASSIGN_OR_RETURN(uint64_t offset, U64Attr(ctx.attrs(), "offset"));
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    return TypeError(absl::StrCat("Unsupported dtype dtype('", DTypeName(dtype),
                                  "') for random; float32 and float64 are supported"));
  }
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(dtype, shape));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Random(dist, key, offset, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

}  // namespace

void RegisterRandomOps(OpRegistry* r) {
  r->Register(OpFamily::kRandom,
              "random_uniform(*, shape: shape, dtype: dtype, key: scalar, offset: scalar) -> out",
              "Uniform [0, 1) from Philox4x32-10 (key, offset).",
              [](OpContext& ctx) { return RunRandom(ctx, RandomDist::kUniform); });
  r->Register(OpFamily::kRandom,
              "random_normal(*, shape: shape, dtype: dtype, key: scalar, offset: scalar) -> out",
              "Standard normal from Philox4x32-10 (key, offset).",
              [](OpContext& ctx) { return RunRandom(ctx, RandomDist::kNormal); });
}

}  // namespace arrayd
