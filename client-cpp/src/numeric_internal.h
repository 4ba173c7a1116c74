// Private to the C++ client: the building blocks that matmul, linalg, fft
// and random (numeric.cc, linalg.cc, fft.cc, random.cc) share. Each
// propagates the error of an input that carries one.
#ifndef ARRAYD_CLIENT_SRC_NUMERIC_INTERNAL_H_
#define ARRAYD_CLIENT_SRC_NUMERIC_INTERNAL_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arrayd/numeric.h"
#include "internal.h"

namespace arrayd {
inline namespace client {
namespace numeric_internal {

using internal::Core;
using Attrs = std::map<std::string, v1::AttrValue>;

inline v1::Op MakeOp(const std::string& name, std::initializer_list<const Array*> inputs) {
  v1::Op op;
  op.set_name(name);
  for (const Array* a : inputs) op.add_inputs(a->handle());
  return op;
}

inline Shape Head(const Shape& s, size_t drop) { return Shape(s.begin(), s.end() - drop); }
inline Shape Append(Shape s, std::initializer_list<int64_t> tail) {
  s.insert(s.end(), tail.begin(), tail.end());
  return s;
}

inline DType RealOf(DType d) {
  if (d == DType::kComplex64) return DType::kFloat32;
  if (d == DType::kComplex128) return DType::kFloat64;
  return d;
}

inline bool IsComplex(DType d) { return Kind(d) == DTypeKind::kComplex; }

inline const std::shared_ptr<Core>& CoreOf(const Array& a) { return ArrayOps::State(a)->core; }

// Records op `name` on `inputs` (at least one) with one result.
inline Array Apply(const char* name, std::initializer_list<const Array*> inputs, DType dtype,
                   Shape shape, const Attrs& attrs = {}) {
  if (auto bad = ArrayOps::CheckInputs(name, inputs)) return *bad;
  v1::Op op = MakeOp(name, inputs);
  for (const auto& [key, value] : attrs) (*op.mutable_attrs())[key] = value;
  return ArrayOps::Emit(CoreOf(**inputs.begin()), std::move(op), dtype, std::move(shape));
}

inline std::vector<int64_t> AllAxes(const Array& a) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < a.ndim(); ++d) out.push_back(d);
  return out;
}

}  // namespace numeric_internal
}  // namespace client
}  // namespace arrayd

#endif  // ARRAYD_CLIENT_SRC_NUMERIC_INTERNAL_H_
