// DType: the 14 element types of arrayd and NumPy 2's promotion rules
// (NEP 50) between array dtypes. Python scalars are weak: clients resolve them
// before they reach the server.
#ifndef ARRAYD_ARRAY_DTYPE_H_
#define ARRAYD_ARRAY_DTYPE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "arrayd/v1/type_codes.h"

namespace arrayd {

// Values match arrayd.v1.DType on the wire.
enum class DType : int {
  kInvalid = 0,
  kBool = 1,
  kInt8 = 2,
  kInt16 = 3,
  kInt32 = 4,
  kInt64 = 5,
  kUInt8 = 6,
  kUInt16 = 7,
  kUInt32 = 8,
  kUInt64 = 9,
  kFloat16 = 10,
  kFloat32 = 11,
  kFloat64 = 12,
  kComplex64 = 13,
  kComplex128 = 14,
};

inline constexpr int kNumDTypes = 14;

enum class DTypeKind { kBool, kSigned, kUnsigned, kFloat, kComplex };

// NumPy's one-character type code of a dtype ('?', 'b', 'B', 'h', 'H', 'i',
// 'I', 'l', 'L', 'e', 'f', 'd', 'F', 'D'), as loop tables spell them
// (kernels/op_list.h); 'q'/'Q' are read as 'l'/'L' (both 64-bit here).
// DType values are the wire's (arrayd.v1.DType), as the reader expects.
constexpr DType DTypeFromTypeChar(char c) {
  return static_cast<DType>(wire::DTypeOfTypeCode(c));
}
// The inverse: the type code of a valid dtype ('\0' for kInvalid).
char TypeChar(DType dtype);

// Size of one element in bytes; 0 for kInvalid.
int ItemSize(DType dtype);
DTypeKind Kind(DType dtype);
// NumPy's name ("float32", "bool", ...).
absl::string_view DTypeName(DType dtype);
// Parses a NumPy name; INVALID_ARGUMENT (TypeError kind) when unknown.
absl::StatusOr<DType> ParseDType(absl::string_view name);
// DType from its wire value; TypeError when out of range.
absl::StatusOr<DType> DTypeFromWire(int value);

inline bool IsInteger(DType d) {
  return Kind(d) == DTypeKind::kSigned || Kind(d) == DTypeKind::kUnsigned;
}
inline bool IsFloat(DType d) { return Kind(d) == DTypeKind::kFloat; }
inline bool IsComplex(DType d) { return Kind(d) == DTypeKind::kComplex; }
inline bool IsInexact(DType d) { return IsFloat(d) || IsComplex(d); }

// NumPy's np.promote_types(a, b) for two array dtypes.
DType Promote(DType a, DType b);

// NumPy's np.can_cast(from, to, casting) for casting "safe" and "same_kind".
bool CanCastSafely(DType from, DType to);
bool CanCastSameKind(DType from, DType to);

// The real dtype of a complex dtype (complex64 -> float32); others unchanged.
DType RealDType(DType d);
// The float dtype NumPy uses for true division and mean of `d`.
DType InexactDType(DType d);
// NumPy's default accumulator of sum/prod for `d` (small ints -> int64/uint64).
DType SumDType(DType d);

}  // namespace arrayd

#endif  // ARRAYD_ARRAY_DTYPE_H_
