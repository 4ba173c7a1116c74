// NumPy 2's dtype rules on the client side (see dtype.h).
#include "arrayd/dtype.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace arrayd {
inline namespace client {
namespace {

struct DTypeInfo {
  const char* name;
  DTypeKind kind;
  int size;
};

const DTypeInfo kInfo[kNumDTypes + 1] = {
    {"invalid", DTypeKind::kBool, 0},
    {"bool", DTypeKind::kBool, 1},
    {"int8", DTypeKind::kSigned, 1},
    {"int16", DTypeKind::kSigned, 2},
    {"int32", DTypeKind::kSigned, 4},
    {"int64", DTypeKind::kSigned, 8},
    {"uint8", DTypeKind::kUnsigned, 1},
    {"uint16", DTypeKind::kUnsigned, 2},
    {"uint32", DTypeKind::kUnsigned, 4},
    {"uint64", DTypeKind::kUnsigned, 8},
    {"float16", DTypeKind::kFloat, 2},
    {"float32", DTypeKind::kFloat, 4},
    {"float64", DTypeKind::kFloat, 8},
    {"complex64", DTypeKind::kComplex, 8},
    {"complex128", DTypeKind::kComplex, 16},
};

const DTypeInfo& Info(DType d) {
  int i = static_cast<int>(d);
  return kInfo[(i >= 1 && i <= kNumDTypes) ? i : 0];
}

DType Signed(int size) {
  switch (size) {
    case 1: return DType::kInt8;
    case 2: return DType::kInt16;
    case 4: return DType::kInt32;
    default: return DType::kInt64;
  }
}
DType Unsigned(int size) {
  switch (size) {
    case 1: return DType::kUInt8;
    case 2: return DType::kUInt16;
    case 4: return DType::kUInt32;
    default: return DType::kUInt64;
  }
}
DType Float(int size) {
  switch (size) {
    case 2: return DType::kFloat16;
    case 4: return DType::kFloat32;
    default: return DType::kFloat64;
  }
}
DType Complex(int real_size) { return real_size <= 4 ? DType::kComplex64 : DType::kComplex128; }

// Size of the smallest float that holds every value of `d` (bool and ints),
// or the real part's size (floats, complexes).
int RealSize(DType d) {
  const DTypeInfo& i = Info(d);
  switch (i.kind) {
    case DTypeKind::kBool: return 2;
    case DTypeKind::kSigned:
    case DTypeKind::kUnsigned: return i.size == 1 ? 2 : i.size == 2 ? 4 : 8;
    case DTypeKind::kFloat: return i.size;
    case DTypeKind::kComplex: return i.size / 2;
  }
  return 8;
}

}  // namespace

DTypeKind Kind(DType dtype) { return Info(dtype).kind; }
int ItemSize(DType dtype) { return Info(dtype).size; }
absl::string_view DTypeName(DType dtype) { return Info(dtype).name; }

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  for (int i = 1; i <= kNumDTypes; ++i) {
    if (name == kInfo[i].name) return static_cast<DType>(i);
  }
  return absl::InvalidArgumentError(absl::StrCat("data type '", name, "' not understood"));
}

DType PromoteTypes(DType a, DType b) {
  if (a == b) return a;
  DTypeKind ka = Kind(a), kb = Kind(b);
  if (ka > kb) {
    std::swap(a, b);
    std::swap(ka, kb);
  }
  if (ka == DTypeKind::kBool) return b;
  const int sa = ItemSize(a), sb = ItemSize(b);
  switch (kb) {
    case DTypeKind::kSigned:
      return Signed(std::max(sa, sb));
    case DTypeKind::kUnsigned:
      if (ka == DTypeKind::kUnsigned) return Unsigned(std::max(sa, sb));
      // a signed, b unsigned: a signed type wide enough for both, if any.
      if (sa > sb) return a;
      return sb == 8 ? DType::kFloat64 : Signed(2 * sb);
    case DTypeKind::kFloat:
      return Float(std::max(RealSize(a), sb));
    case DTypeKind::kComplex:
      return Complex(std::max(RealSize(a), sb / 2));
    case DTypeKind::kBool:
      break;
  }
  return b;
}

std::string ShapeString(const Shape& shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

int64_t ShapeSize(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

DType Scalar::DefaultDType() const {
  switch (kind_) {
    case ScalarKind::kBool: return DType::kBool;
    case ScalarKind::kInt:
      return (!negative_ && u_ > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
                 ? DType::kUInt64
                 : DType::kInt64;
    case ScalarKind::kFloat: return DType::kFloat64;
    case ScalarKind::kComplex: return DType::kComplex128;
  }
  return DType::kFloat64;
}

absl::StatusOr<DType> Scalar::WeakDType(DType array_dtype) const {
  const DTypeKind k = Kind(array_dtype);
  switch (kind_) {
    case ScalarKind::kBool:
      return array_dtype;
    case ScalarKind::kInt: {
      DType d = k == DTypeKind::kBool ? DType::kInt64 : array_dtype;
      if (IsInteger(d)) {
        const int bits = 8 * ItemSize(d);
        bool fits;
        if (Kind(d) == DTypeKind::kUnsigned) {
          fits = !negative_ && (bits == 64 || u_ < (uint64_t{1} << bits));
        } else if (negative_) {
          fits = bits == 64 || i_ >= -(int64_t{1} << (bits - 1));
        } else {
          fits = u_ <= (uint64_t{1} << (bits - 1)) - 1;
        }
        if (!fits) {
          return absl::OutOfRangeError(absl::StrCat(
              "Python integer ", negative_ ? absl::StrCat(i_) : absl::StrCat(u_),
              " out of bounds for ", DTypeName(d)));
        }
      }
      return d;
    }
    case ScalarKind::kFloat:
      return IsInexact(array_dtype) ? array_dtype : DType::kFloat64;
    case ScalarKind::kComplex:
      if (k == DTypeKind::kComplex) return array_dtype;
      if (k == DTypeKind::kFloat) return Complex(ItemSize(array_dtype));
      return DType::kComplex128;
  }
  return array_dtype;
}

}  // namespace client
}  // namespace arrayd
