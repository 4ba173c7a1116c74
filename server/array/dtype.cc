#include "array/dtype.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace arrayd {
namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  int size;
  DTypeKind kind;
};

constexpr DTypeInfo kInfo[] = {
    {DType::kInvalid, "invalid", 0, DTypeKind::kBool},
    {DType::kBool, "bool", 1, DTypeKind::kBool},
    {DType::kInt8, "int8", 1, DTypeKind::kSigned},
    {DType::kInt16, "int16", 2, DTypeKind::kSigned},
    {DType::kInt32, "int32", 4, DTypeKind::kSigned},
    {DType::kInt64, "int64", 8, DTypeKind::kSigned},
    {DType::kUInt8, "uint8", 1, DTypeKind::kUnsigned},
    {DType::kUInt16, "uint16", 2, DTypeKind::kUnsigned},
    {DType::kUInt32, "uint32", 4, DTypeKind::kUnsigned},
    {DType::kUInt64, "uint64", 8, DTypeKind::kUnsigned},
    {DType::kFloat16, "float16", 2, DTypeKind::kFloat},
    {DType::kFloat32, "float32", 4, DTypeKind::kFloat},
    {DType::kFloat64, "float64", 8, DTypeKind::kFloat},
    {DType::kComplex64, "complex64", 8, DTypeKind::kComplex},
    {DType::kComplex128, "complex128", 16, DTypeKind::kComplex},
};

const DTypeInfo& Info(DType d) {
  int i = static_cast<int>(d);
  return kInfo[(i >= 0 && i <= kNumDTypes) ? i : 0];
}

DType SignedOfSize(int size) {
  switch (size) {
    case 1: return DType::kInt8;
    case 2: return DType::kInt16;
    case 4: return DType::kInt32;
    default: return DType::kInt64;
  }
}
DType UnsignedOfSize(int size) {
  switch (size) {
    case 1: return DType::kUInt8;
    case 2: return DType::kUInt16;
    case 4: return DType::kUInt32;
    default: return DType::kUInt64;
  }
}
DType FloatOfSize(int size) {
  switch (size) {
    case 2: return DType::kFloat16;
    case 4: return DType::kFloat32;
    default: return DType::kFloat64;
  }
}

// The smallest float that holds every value of integer dtype `d` as NumPy
// counts it: 8-bit -> float16, 16-bit -> float32, wider -> float64.
int FloatSizeForInt(DType d) {
  switch (ItemSize(d)) {
    case 1: return 2;
    case 2: return 4;
    default: return 8;
  }
}

}  // namespace

int ItemSize(DType d) { return Info(d).size; }
DTypeKind Kind(DType d) { return Info(d).kind; }
absl::string_view DTypeName(DType d) { return Info(d).name; }

char TypeChar(DType d) {
  static constexpr char kCodes[] = "?bhilBHILefdFD";
  for (const char* c = kCodes; *c != 0; ++c) {
    if (DTypeFromTypeChar(*c) == d) return *c;
  }
  return '\0';
}

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  for (int i = 1; i <= kNumDTypes; ++i) {
    if (name == kInfo[i].name) return kInfo[i].dtype;
  }
  return TypeError(absl::StrCat("data type '", name, "' not understood"));
}

absl::StatusOr<DType> DTypeFromWire(int value) {
  if (value < 1 || value > kNumDTypes) {
    return TypeError(absl::StrCat("invalid dtype value ", value));
  }
  return static_cast<DType>(value);
}

DType Promote(DType a, DType b) {
  if (a == b) return a;
  DTypeKind ka = Kind(a), kb = Kind(b);
  if (ka > kb || (ka == kb && ItemSize(a) < ItemSize(b))) {
    std::swap(a, b);
    std::swap(ka, kb);
  }
  // Now kind(a) <= kind(b); within a kind, a is the smaller.
  int sa = ItemSize(a), sb = ItemSize(b);
  switch (kb) {
    case DTypeKind::kBool:
      return a;
    case DTypeKind::kSigned:
      if (ka == DTypeKind::kBool) return b;
      return SignedOfSize(std::max(sa, sb));
    case DTypeKind::kUnsigned:
      if (ka == DTypeKind::kBool) return b;
      if (ka == DTypeKind::kUnsigned) return UnsignedOfSize(std::max(sa, sb));
      // signed a with unsigned b.
      if (sa > sb) return a;
      if (sb == 8) return DType::kFloat64;
      return SignedOfSize(2 * sb);
    case DTypeKind::kFloat:
      if (ka == DTypeKind::kBool) return b;
      if (ka == DTypeKind::kFloat) return FloatOfSize(std::max(sa, sb));
      return FloatOfSize(std::max(sb, FloatSizeForInt(a)));
    case DTypeKind::kComplex: {
      if (ka == DTypeKind::kBool) return b;
      int need = sb / 2;  // size of the complex's real part
      if (ka == DTypeKind::kFloat) need = std::max(need, sa);
      if (ka == DTypeKind::kSigned || ka == DTypeKind::kUnsigned) {
        need = std::max(need, FloatSizeForInt(a));
      }
      if (ka == DTypeKind::kComplex) need = std::max(need, sa / 2);
      return need <= 4 ? DType::kComplex64 : DType::kComplex128;
    }
  }
  return DType::kInvalid;
}

bool CanCastSafely(DType from, DType to) { return Promote(from, to) == to; }

bool CanCastSameKind(DType from, DType to) {
  if (CanCastSafely(from, to)) return true;
  DTypeKind kf = Kind(from), kt = Kind(to);
  if (kf == kt) return true;
  // signed <- unsigned is same_kind; so is any lower kind into a higher one.
  if (kf == DTypeKind::kUnsigned && kt == DTypeKind::kSigned) return true;
  return static_cast<int>(kf) < static_cast<int>(kt) &&
         !(kf == DTypeKind::kSigned && kt == DTypeKind::kUnsigned);
}

DType RealDType(DType d) {
  if (d == DType::kComplex64) return DType::kFloat32;
  if (d == DType::kComplex128) return DType::kFloat64;
  return d;
}

DType InexactDType(DType d) { return IsInexact(d) ? d : DType::kFloat64; }

DType SumDType(DType d) {
  switch (Kind(d)) {
    case DTypeKind::kBool:
    case DTypeKind::kSigned:
      return ItemSize(d) < 8 ? DType::kInt64 : d;
    case DTypeKind::kUnsigned:
      return ItemSize(d) < 8 ? DType::kUInt64 : d;
    default:
      return d;
  }
}

}  // namespace arrayd
