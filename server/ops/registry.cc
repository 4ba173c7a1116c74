#include "ops/registry.h"

#include <cstdio>
#include <cstdlib>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace arrayd {

absl::StatusOr<const v1::AttrValue*> Attrs::Get(const std::string& name) const {
  auto it = attrs_.find(name);
  if (it == attrs_.end()) return ValueError(absl::StrCat("missing attribute '", name, "'"));
  return &it->second;
}

absl::StatusOr<int64_t> Attrs::Int(const std::string& name) const {
  ARRAYD_ASSIGN_OR_RETURN(const v1::AttrValue* v, Get(name));
  if (v->value_case() != v1::AttrValue::kI) {
    return TypeError(absl::StrCat("attribute '", name, "' must be an integer"));
  }
  return v->i();
}

absl::StatusOr<bool> Attrs::Bool(const std::string& name, bool default_value) const {
  if (!Has(name)) return default_value;
  ARRAYD_ASSIGN_OR_RETURN(const v1::AttrValue* v, Get(name));
  if (v->value_case() == v1::AttrValue::kB) return v->b();
  if (v->value_case() == v1::AttrValue::kI) return v->i() != 0;
  return TypeError(absl::StrCat("attribute '", name, "' must be a bool"));
}

absl::StatusOr<std::vector<int64_t>> Attrs::Ints(const std::string& name) const {
  ARRAYD_ASSIGN_OR_RETURN(const v1::AttrValue* v, Get(name));
  if (v->value_case() == v1::AttrValue::kI) return std::vector<int64_t>{v->i()};
  if (v->value_case() != v1::AttrValue::kInts && v->value_case() != v1::AttrValue::VALUE_NOT_SET) {
    return TypeError(absl::StrCat("attribute '", name, "' must be a list of integers"));
  }
  return std::vector<int64_t>(v->ints().values().begin(), v->ints().values().end());
}

absl::StatusOr<DType> Attrs::GetDType(const std::string& name) const {
  ARRAYD_ASSIGN_OR_RETURN(const v1::AttrValue* v, Get(name));
  if (v->value_case() == v1::AttrValue::kDtype) return DTypeFromWire(v->dtype());
  if (v->value_case() == v1::AttrValue::kS) return ParseDType(v->s());
  return TypeError(absl::StrCat("attribute '", name, "' must be a dtype"));
}

absl::StatusOr<Scalar> Attrs::GetScalar(const std::string& name) const {
  ARRAYD_ASSIGN_OR_RETURN(const v1::AttrValue* v, Get(name));
  switch (v->value_case()) {
    case v1::AttrValue::kI: return Scalar::Int(v->i());
    case v1::AttrValue::kB: return Scalar::Bool(v->b());
    case v1::AttrValue::kF: return Scalar::Float(v->f());
    case v1::AttrValue::kC: return Scalar::Complex(v->c().real(), v->c().imag());
    case v1::AttrValue::kS: {
      // Unsigned values above INT64_MAX travel as decimal strings.
      const std::string& text = v->s();
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
        return TypeError(absl::StrCat("attribute '", name, "' must be a number"));
      }
      uint64_t u = 0;
      if (!absl::SimpleAtoi(text, &u)) {
        return OverflowError(absl::StrCat("attribute '", name, "' is larger than 2**64-1"));
      }
      return Scalar::UInt(u);
    }
    default:
      return TypeError(absl::StrCat("attribute '", name, "' must be a number"));
  }
}

absl::StatusOr<const std::string*> Attrs::Data(const std::string& name) const {
  ARRAYD_ASSIGN_OR_RETURN(const v1::AttrValue* v, Get(name));
  if (v->value_case() != v1::AttrValue::kData) {
    return TypeError(absl::StrCat("attribute '", name, "' must be bytes"));
  }
  return &v->data();
}

absl::StatusOr<std::string> Attrs::String(const std::string& name) const {
  ARRAYD_ASSIGN_OR_RETURN(const v1::AttrValue* v, Get(name));
  if (v->value_case() == v1::AttrValue::kS) return v->s();
  if (v->value_case() == v1::AttrValue::kData) return v->data();
  return TypeError(absl::StrCat("attribute '", name, "' must be a string"));
}

absl::StatusOr<Shape> Attrs::GetShape(const std::string& name) const {
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> dims, Ints(name));
  ARRAYD_RETURN_IF_ERROR(CheckedSize(dims).status());
  return Shape(dims.begin(), dims.end());
}

absl::StatusOr<View> OpContext::NewArray(DType dtype, Shape shape) {
  ARRAYD_ASSIGN_OR_RETURN(int64_t size, CheckedSize(shape, ItemSize(dtype)));
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> buffer,
                          allocate_(static_cast<size_t>(size * ItemSize(dtype))));
  return MakeContiguousView(std::move(buffer), dtype, std::move(shape));
}

Strides ResultStrides(std::initializer_list<const View*> operands, const Shape& shape,
                      DType dtype) {
  const int itemsize = ItemSize(dtype);
  bool all_c = true;
  for (const View* v : operands) all_c = all_c && v->IsCContiguous();
  if (all_c) return CStrides(shape, itemsize);
  absl::InlinedVector<View, 3> broadcast;
  absl::InlinedVector<const View*, 3> views;
  for (const View* v : operands) {
    absl::StatusOr<View> b = BroadcastTo(*v, shape);
    if (b.ok()) broadcast.push_back(*std::move(b));
  }
  for (const View& v : broadcast) views.push_back(&v);
  return KeepOrderStrides(views, shape, itemsize);
}

absl::StatusOr<View> OpContext::NewArray(DType dtype, Shape shape, Strides strides) {
  ARRAYD_ASSIGN_OR_RETURN(View out, NewArray(dtype, std::move(shape)));
  out.strides = std::move(strides);
  return out;
}

absl::StatusOr<View> OpContext::CopyInOrder(const View& x, DType dtype, Order order) {
  if (dtype == DType::kInvalid) dtype = x.dtype;
  ARRAYD_ASSIGN_OR_RETURN(View out, NewArray(dtype, x.shape, LikeStrides(x, order, ItemSize(dtype))));
  ARRAYD_RETURN_IF_ERROR(stream_->Copy(x, out));
  return out;
}

absl::StatusOr<View> OpContext::ContiguousCopy(const View& x, DType dtype) {
  ARRAYD_ASSIGN_OR_RETURN(View out, NewArray(dtype == DType::kInvalid ? x.dtype : dtype, x.shape));
  ARRAYD_RETURN_IF_ERROR(stream_->Copy(x, out));
  return out;
}

absl::StatusOr<View> OpContext::CastTo(const View& x, DType dtype) {
  if (x.dtype == dtype) return x;
  return CopyInOrder(x, dtype, Order::kK);  // keeps the operands' layouts alike
}

absl::StatusOr<View> OpContext::OutputFor(int i, DType dtype, const Shape& shape) {
  return OutputFor(i, dtype, shape, CStrides(shape, ItemSize(dtype)));
}

absl::StatusOr<View> OpContext::OutputFor(int i, DType dtype, const Shape& shape,
                                          Strides strides) {
  const std::optional<View>& out = existing_[i];
  if (out && out->dtype == dtype && out->shape == shape && out->writeable) {
    bool clash = false;
    for (const View& in : inputs_) {
      bool identical = in.buffer == out->buffer && in.offset == out->offset &&
                       in.strides == out->strides && in.shape == out->shape;
      clash |= !identical && MayOverlap(in, *out);
    }
    if (!clash) return *out;
  }
  return NewArray(dtype, shape, std::move(strides));
}

absl::StatusOr<View> OpContext::ContiguousOutputFor(int i, DType dtype, const Shape& shape) {
  ARRAYD_ASSIGN_OR_RETURN(View out, OutputFor(i, dtype, shape));
  if (out.IsCContiguous()) return out;
  return NewArray(dtype, shape);
}

void OpRegistry::Register(OpFamily family, absl::string_view schema, std::string doc,
                          OpRunFn run) {
  absl::StatusOr<OpSignature> sig = ParseSchema(family, schema, std::move(doc));
  if (!sig.ok()) {
    std::fprintf(stderr, "arrayd: %s\n", std::string(sig.status().message()).c_str());
    std::abort();
  }
  Register(*std::move(sig), std::move(run));
}

void OpRegistry::Register(OpFamily family, absl::string_view schema, std::string doc,
                          OpRunFn run, absl::string_view loops) {
  absl::StatusOr<OpSignature> sig = ParseSchema(family, schema, std::move(doc));
  if (!sig.ok()) {
    std::fprintf(stderr, "arrayd: %s\n", std::string(sig.status().message()).c_str());
    std::abort();
  }
  (void)MustParseLoops(sig->name, loops);
  sig->loops = SplitLoops(loops);
  Register(*std::move(sig), std::move(run));
}

void OpRegistry::Register(OpSignature sig, OpRunFn run) {
  OpDef def;
  def.name = sig.name;
  def.num_inputs = sig.variadic ? -1 : static_cast<int>(sig.inputs.size());
  def.num_outputs = static_cast<int>(sig.outputs.size());
  for (const AttrSpec& a : sig.attrs) def.attrs.push_back(a.name);
  def.doc = sig.doc;
  def.sig = std::move(sig);
  def.run = std::move(run);
  def.index = static_cast<int>(ops_.size());
  if (!ops_.emplace(def.name, def).second) {
    std::fprintf(stderr, "arrayd: op '%s' registered twice\n", def.name.c_str());
    std::abort();
  }
}

const OpDef* OpRegistry::Find(const std::string& name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : &it->second;
}

const OpRegistry& DefaultRegistry() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    RegisterCreationOps(r);
    RegisterElementwiseOps(r);
    RegisterFusionOps(r);
    RegisterReductionOps(r);
    RegisterShapeOps(r);
    RegisterIndexingOps(r);
    RegisterFilterOps(r);
    RegisterLinalgOps(r);
    RegisterLinalgCompositeOps(r);
    RegisterFftOps(r);
    RegisterRandomOps(r);
    RegisterTransferOps(r);
    RegisterDeviceOps(r);
    RegisterKernelOps(r);
    return r;
  }();
  return *registry;
}

}  // namespace arrayd
