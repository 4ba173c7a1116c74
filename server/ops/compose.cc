#include "ops/compose.h"

#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace arrayd {
namespace compose {

v1::AttrValue Int(int64_t v) {
  v1::AttrValue a;
  a.set_i(v);
  return a;
}

v1::AttrValue Ints(std::vector<int64_t> v) {
  v1::AttrValue a;
  for (int64_t x : v) a.mutable_ints()->add_values(x);
  return a;
}

v1::AttrValue Bool(bool v) {
  v1::AttrValue a;
  a.set_b(v);
  return a;
}

v1::AttrValue Float(double v) {
  v1::AttrValue a;
  a.set_f(v);
  return a;
}

v1::AttrValue Str(std::string v) {
  v1::AttrValue a;
  a.set_s(std::move(v));
  return a;
}

absl::StatusOr<std::vector<View>> RunMany(OpContext& ctx, const std::string& name,
                                          std::vector<View> inputs, const AttrList& attrs) {
  const OpDef* def = DefaultRegistry().Find(name);
  if (def == nullptr) return absl::NotFoundError(absl::StrCat("unknown op '", name, "'"));
  v1::Op op;
  op.set_name(name);
  for (const auto& [key, value] : attrs) (*op.mutable_attrs())[key] = value;
  // The called op allocates through `ctx`, so the session's quota counts it.
  OpContext sub(
      &ctx.stream(), op, std::move(inputs),
      std::vector<std::optional<View>>(static_cast<size_t>(def->num_outputs)),
      [&ctx](size_t n) -> absl::StatusOr<std::shared_ptr<Buffer>> {
        ARRAYD_ASSIGN_OR_RETURN(View v, ctx.NewArray(DType::kUInt8, {static_cast<int64_t>(n)}));
        return v.buffer;
      },
      ctx.shared_memory());
  ARRAYD_RETURN_IF_ERROR(def->run(sub));
  return std::move(sub.results());
}

absl::StatusOr<View> Run(OpContext& ctx, const std::string& name, std::vector<View> inputs,
                         const AttrList& attrs) {
  ARRAYD_ASSIGN_OR_RETURN(std::vector<View> results, RunMany(ctx, name, std::move(inputs), attrs));
  return results.at(0);
}

absl::StatusOr<View> Filled(OpContext& ctx, DType dtype, Shape shape, Scalar value) {
  ARRAYD_ASSIGN_OR_RETURN(View v, ctx.NewArray(dtype, std::move(shape)));
  if (v.size() > 0) ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(v, value));
  return v;
}

absl::StatusOr<View> Constant(OpContext& ctx, DType dtype, Scalar value) {
  return Filled(ctx, dtype, {}, value);
}

absl::StatusOr<View> Reshape(OpContext& ctx, const View& v, const Shape& shape) {
  View out;
  if (TryReshapeView(v, shape, &out)) return out;
  ARRAYD_ASSIGN_OR_RETURN(View copy, ctx.ContiguousCopy(v));
  TryReshapeView(copy, shape, &out);
  return out;
}

absl::StatusOr<View> SwapLastAxes(const View& v) {
  std::vector<int64_t> perm;
  for (int d = 0; d < v.ndim(); ++d) perm.push_back(d);
  std::swap(perm[v.ndim() - 1], perm[v.ndim() - 2]);
  return Transpose(v, perm);
}

View AppendAxis(const View& v) {
  View out = v;
  out.shape.push_back(1);
  out.strides.push_back(ItemSize(v.dtype));
  return out;
}

absl::StatusOr<double> FloatAttr(const Attrs& attrs, const std::string& name, double fallback) {
  if (!attrs.Has(name)) return fallback;
  ARRAYD_ASSIGN_OR_RETURN(Scalar s, attrs.GetScalar(name));
  switch (s.kind) {
    case Scalar::kFloat: return s.re;
    case Scalar::kInt: return static_cast<double>(s.i);
    case Scalar::kUInt: return static_cast<double>(s.u);
    default: return TypeError(absl::StrCat("attribute '", name, "' must be a real number"));
  }
}

absl::StatusOr<kernels::Boundary> BoundaryByName(const std::string& name, const char* op) {
  using kernels::Boundary;
  if (name.empty()) return Boundary::kPadded;
  if (name == "constant") return Boundary::kConstant;
  if (name == "edge") return Boundary::kEdge;
  if (name == "symmetric") return Boundary::kSymmetric;
  if (name == "reflect") return Boundary::kReflect;
  if (name == "wrap") return Boundary::kWrap;
  return ValueErrorf(op, ": unknown mode '", name, "'");
}

}  // namespace compose
}  // namespace arrayd
