// The generic calls of ops.h: any server op from its exported signature.
// The loop choice is the server's (server/ops/signature.h FindLoop), applied
// here to the server's own tables so that dtype() needs no round trip.
#include "arrayd/ops.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "arrayd/v1/type_codes.h"
#include "internal.h"

namespace arrayd {
inline namespace client {
namespace internal {
namespace {

std::optional<DType> DTypeFromTypeChar(char c) {
  const int wire = wire::DTypeOfTypeCode(c);  // client DTypes are wire values
  if (wire == 0) return std::nullopt;
  return static_cast<DType>(wire);
}

// NumPy's can_cast(from, to, "safe"): promotion changes nothing.
bool CanCastSafely(DType from, DType to) { return PromoteTypes(from, to) == to; }

// NumPy's can_cast(from, to, "same_kind"): safe, or to a kind no lower in
// bool < unsigned < signed < float < complex.
bool CanCastSameKind(DType from, DType to) {
  auto order = [](DType d) {
    switch (Kind(d)) {
      case DTypeKind::kBool: return 0;
      case DTypeKind::kUnsigned: return 1;
      case DTypeKind::kSigned: return 2;
      case DTypeKind::kFloat: return 3;
      case DTypeKind::kComplex: return 4;
    }
    return 0;
  };
  return CanCastSafely(from, to) || order(from) <= order(to);
}

// A loop the server sent that this client cannot read is skipped (a newer
// server's type): the server still checks what runs.
std::vector<Loop> ParseLoops(const v1::OpSignature& sig) {
  std::vector<Loop> loops;
  for (const std::string& text : sig.loops()) {
    std::vector<absl::string_view> sides = absl::StrSplit(text, "->");
    if (sides.size() != 2) continue;
    Loop loop;
    loop.refused = sides[1] == "!";
    bool ok = true;
    for (char c : sides[0]) {
      std::optional<DType> d = DTypeFromTypeChar(c);
      ok = ok && d.has_value();
      if (d) loop.in.push_back(*d);
    }
    if (!loop.refused) {
      for (char c : sides[1]) {
        std::optional<DType> d = DTypeFromTypeChar(c);
        ok = ok && d.has_value();
        if (d) loop.out.push_back(*d);
      }
    }
    if (ok) loops.push_back(std::move(loop));
  }
  return loops;
}

absl::Status NotFound(const std::string& name) {
  return absl::NotFoundError(absl::StrCat("the arrayd server has no op '", name, "'"));
}

absl::Status NoLoop(const std::string& name) {
  return TypeError(absl::StrCat("ufunc '", name,
                                "' not supported for the input types, and the inputs could not be "
                                "safely coerced to any supported types according to the casting "
                                "rule ''safe''"));
}

}  // namespace

const v1::OpInfo* FindOp(Core& core, const std::string& name) {
  if (core.op_index.empty()) {
    for (const v1::OpInfo& op : core.capabilities.ops()) core.op_index[op.name()] = &op;
  }
  auto it = core.op_index.find(name);
  return it == core.op_index.end() ? nullptr : it->second;
}

const std::vector<Loop>& LoopsOf(Core& core, const v1::OpInfo& op) {
  auto it = core.loop_tables.find(op.name());
  if (it == core.loop_tables.end()) {
    it = core.loop_tables.emplace(op.name(), ParseLoops(op.signature())).first;
  }
  return it->second;
}

const Loop* FindLoop(const std::vector<Loop>& loops, const std::vector<DType>& in,
                     std::optional<DType> out) {
  for (const Loop& loop : loops) {
    if (loop.in.size() != in.size()) continue;
    if (loop.refused) {
      if (loop.in == in) return nullptr;
      continue;
    }
    if (out && loop.out[0] != *out) continue;
    bool fits = true;
    for (size_t i = 0; i < in.size() && fits; ++i) {
      fits = out ? CanCastSameKind(in[i], loop.in[i]) : CanCastSafely(in[i], loop.in[i]);
    }
    if (fits) return &loop;
  }
  return nullptr;
}

void ResolveMeta(ArrayState& x) {
  x.meta_pending = false;
  if (!x.status.ok() || !x.core) return;
  absl::StatusOr<v1::SyncReply> reply = x.core->Sync({x.handle});
  if (!reply.ok()) {
    x.status = reply.status();
    return;
  }
  for (const v1::Fetched& f : reply->fetched()) {
    if (f.handle() != x.handle) continue;
    if (f.has_error()) {
      x.status = StatusFromOpError(f.error());
      return;
    }
    x.dtype = static_cast<DType>(f.dtype());
    x.shape.assign(f.shape().begin(), f.shape().end());
  }
}

}  // namespace internal

Array ArrayOps::Ufunc(const std::shared_ptr<Core>& core, const std::string& name,
                      const std::vector<Operand>& operands) {
  const v1::OpInfo* info = internal::FindOp(*core, name);
  if (info == nullptr) return Refuse(core, name, internal::NotFound(name));
  const v1::OpSignature& sig = info->signature();
  if (sig.family() != v1::OP_FAMILY_ELEMENTWISE) {
    return Refuse(core, name, TypeError(absl::StrCat("'", name, "' is not a ufunc")));
  }
  if (static_cast<int>(operands.size()) != sig.inputs_size()) {
    return Refuse(core, name,
                  TypeError(absl::StrCat(name, "() takes ", sig.inputs_size(), " inputs, got ",
                                         operands.size())));
  }
  // NEP 50: arrays decide; each Python-like scalar then takes its weak dtype.
  std::optional<DType> strong;
  std::optional<Shape> shape = Shape{};
  for (const Operand& x : operands) {
    if (!x.is_array()) continue;
    if (auto bad = CheckInputs(name, {&x.array()})) return *bad;
    const ArrayState& a = *State(x.array());
    if (a.core != core)
      return Refuse(core, name, ValueError("arrays belong to different arrayd sessions"));
    strong = strong ? PromoteTypes(*strong, a.dtype) : a.dtype;
    std::optional<Shape> next = BroadcastShapes(*shape, a.shape);
    if (!next) return Refuse(core, name, BroadcastError(*shape, a.shape));
    shape = std::move(next);
  }
  std::vector<DType> dtypes;
  for (const Operand& x : operands) {
    if (x.is_array()) {
      dtypes.push_back(State(x.array())->dtype);
      continue;
    }
    absl::StatusOr<DType> d = strong ? x.scalar().WeakDType(*strong) : x.scalar().DefaultDType();
    if (!d.ok()) return Refuse(core, name, internal::WithKind(d.status(), "OverflowError"));
    dtypes.push_back(*d);
  }
  const internal::Loop* loop = internal::FindLoop(internal::LoopsOf(*core, *info), dtypes);
  if (loop == nullptr) return Refuse(core, name, internal::NoLoop(name));
  v1::Op op;
  op.set_name(name);
  std::vector<Array> scalars;  // alive until the op is recorded
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].is_array()) {
      op.add_inputs(State(operands[i].array())->handle);
    } else {
      scalars.push_back(Full(core, {}, operands[i].scalar(), loop->in[i]));
      op.add_inputs(State(scalars.back())->handle);
    }
  }
  return Emit(core, std::move(op), loop->out[0], std::move(*shape));
}

namespace {

// The ufunc on `operands`, recorded on the session of its first Array.
Array UfuncOnArrays(const std::string& name, const std::vector<Operand>& operands) {
  for (const Operand& x : operands) {
    if (!x.is_array()) continue;
    if (auto bad = ArrayOps::CheckInputs(name, {&x.array()})) return *bad;
    return ArrayOps::Ufunc(ArrayOps::State(x.array())->core, name, operands);
  }
  return ArrayOps::Poisoned(
      nullptr,
      absl::FailedPreconditionError(absl::StrCat(
          "arrayd: ", name, " of scalars only: use arrayd::Ufunc(client, name, operands)")),
      0);
}

}  // namespace

Array Ufunc(const std::string& name, const Operand& x) { return UfuncOnArrays(name, {x}); }

Array Ufunc(const std::string& name, const Operand& x1, const Operand& x2) {
  return UfuncOnArrays(name, {x1, x2});
}

Array Ufunc(Client& client, const std::string& name, const std::vector<Operand>& operands) {
  return ArrayOps::Ufunc(ArrayOps::CoreOf(client), name, operands);
}

Array Reduce(const std::string& name, const Array& a, std::optional<std::vector<int64_t>> axes,
             bool keepdims, std::optional<DType> dtype) {
  if (auto bad = ArrayOps::CheckInputs(name, {&a})) return *bad;
  const std::shared_ptr<Core>& core = ArrayOps::State(a)->core;
  const v1::OpInfo* info = internal::FindOp(*core, name);
  if (info == nullptr) return Refuse(core, name, internal::NotFound(name));
  if (info->signature().family() != v1::OP_FAMILY_REDUCTION) {
    return Refuse(core, name, TypeError(absl::StrCat("'", name, "' is not a reduction")));
  }
  const internal::Loop* loop = internal::FindLoop(internal::LoopsOf(*core, *info), {a.dtype()});
  if (loop == nullptr) return Refuse(core, name, internal::NoLoop(name));
  // dtype= sets the accumulator; a logical reduction (all, any) stays bool.
  DType result = loop->out[0];
  if (dtype && result != DType::kBool) result = *dtype;
  return ArrayOps::Reduce(name.c_str(), a, axes, keepdims, result, dtype);
}

std::vector<Array> Call(Client& client, const std::string& name, const std::vector<Array>& inputs,
                        const std::map<std::string, v1::AttrValue>& attrs) {
  const std::shared_ptr<Core>& core = ArrayOps::CoreOf(client);
  const v1::OpInfo* info = internal::FindOp(*core, name);
  if (info == nullptr) return {Refuse(core, name, internal::NotFound(name))};
  const v1::OpSignature& sig = info->signature();
  const int nin = static_cast<int>(inputs.size());
  if (sig.variadic() ? nin < sig.inputs_size() - 1 : nin != sig.inputs_size()) {
    return {
        Refuse(core, name,
               TypeError(absl::StrCat(name, " takes ", sig.inputs_size(), " inputs, got ", nin)))};
  }
  for (const auto& [key, value] : attrs) {
    const bool known = std::any_of(sig.attrs().begin(), sig.attrs().end(),
                                   [&key](const v1::AttrSignature& s) { return s.name() == key; });
    if (!known) {
      return {Refuse(core, name,
                     TypeError(absl::StrCat(name, " got an unexpected attribute '", key, "'")))};
    }
  }
  v1::Op op;
  op.set_name(name);
  for (const Array& a : inputs) {
    if (auto bad = ArrayOps::CheckInputs(name, {&a})) return {*bad};
    if (ArrayOps::State(a)->core != core) {
      return {Refuse(core, name, ValueError("arrays belong to different arrayd sessions"))};
    }
    op.add_inputs(ArrayOps::State(a)->handle);
  }
  for (const auto& [key, value] : attrs) (*op.mutable_attrs())[key] = value;
  std::vector<std::pair<DType, Shape>> outputs(sig.outputs_size(), {DType::kFloat64, Shape{}});
  std::vector<Array> results = ArrayOps::EmitMany(core, std::move(op), outputs);
  for (Array& r : results) {
    if (r.ok()) ArrayOps::State(r)->meta_pending = true;
  }
  return results;
}

v1::AttrValue Attr(int64_t v) {
  v1::AttrValue a;
  a.set_i(v);
  return a;
}
v1::AttrValue Attr(int v) { return Attr(static_cast<int64_t>(v)); }
v1::AttrValue Attr(double v) {
  v1::AttrValue a;
  a.set_f(v);
  return a;
}
v1::AttrValue Attr(bool v) {
  v1::AttrValue a;
  a.set_b(v);
  return a;
}
v1::AttrValue Attr(const char* v) { return Attr(std::string(v)); }
v1::AttrValue Attr(const std::string& v) {
  v1::AttrValue a;
  a.set_s(v);
  return a;
}
v1::AttrValue Attr(const std::vector<int64_t>& v) { return IntsAttr(v); }
v1::AttrValue Attr(DType v) { return DTypeAttr(v); }

const v1::OpSignature* FindSignature(const Client& client, const std::string& name) {
  const v1::OpInfo* info = internal::FindOp(*ArrayOps::CoreOf(client), name);
  return info == nullptr ? nullptr : &info->signature();
}

}  // namespace client
}  // namespace arrayd
