// Client-side dtypes: the 14 element types of arrayd, their C++ types, and
// NumPy 2's rules (promotion between array dtypes, NEP 50 weak Python
// scalars, the accumulator of sum) that the client applies to predict each
// result's dtype without asking the server.
#ifndef ARRAYD_CLIENT_DTYPE_H_
#define ARRAYD_CLIENT_DTYPE_H_

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace arrayd {
// The client's names live in an inline namespace: users write arrayd::DType,
// and the server's own arrayd::DType (a different type) can link beside them.
inline namespace client {

// Values match arrayd.v1.DType on the wire.
enum class DType : int {
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

using Shape = std::vector<int64_t>;

// NumPy's kinds, in promotion order.
enum class DTypeKind { kBool, kSigned, kUnsigned, kFloat, kComplex };

DTypeKind Kind(DType dtype);
// Bytes per element.
int ItemSize(DType dtype);
// NumPy's name: "bool", "int8", ..., "complex128".
absl::string_view DTypeName(DType dtype);
// The dtype named `name` (NumPy's names); INVALID_ARGUMENT when unknown.
absl::StatusOr<DType> ParseDType(absl::string_view name);

inline bool IsInteger(DType d) {
  return Kind(d) == DTypeKind::kSigned || Kind(d) == DTypeKind::kUnsigned;
}
inline bool IsInexact(DType d) {
  return Kind(d) == DTypeKind::kFloat || Kind(d) == DTypeKind::kComplex;
}

// NumPy's np.promote_types(a, b).
DType PromoteTypes(DType a, DType b);

// "(2, 3)", "(4,)", "()" as NumPy prints shapes.
std::string ShapeString(const Shape& shape);
// The product of the dimensions.
int64_t ShapeSize(const Shape& shape);

// The dtype of a C++ element type. float16 has no C++ type here: cast it with
// Array::Astype before ToVector.
template <typename T>
struct DTypeOf;
#define ARRAYD_CLIENT_DTYPE_OF_(type, value) \
  template <>                                \
  struct DTypeOf<type> {                     \
    static constexpr DType kValue = value;   \
  }
ARRAYD_CLIENT_DTYPE_OF_(bool, DType::kBool);
ARRAYD_CLIENT_DTYPE_OF_(int8_t, DType::kInt8);
ARRAYD_CLIENT_DTYPE_OF_(int16_t, DType::kInt16);
ARRAYD_CLIENT_DTYPE_OF_(int32_t, DType::kInt32);
ARRAYD_CLIENT_DTYPE_OF_(int64_t, DType::kInt64);
ARRAYD_CLIENT_DTYPE_OF_(uint8_t, DType::kUInt8);
ARRAYD_CLIENT_DTYPE_OF_(uint16_t, DType::kUInt16);
ARRAYD_CLIENT_DTYPE_OF_(uint32_t, DType::kUInt32);
ARRAYD_CLIENT_DTYPE_OF_(uint64_t, DType::kUInt64);
ARRAYD_CLIENT_DTYPE_OF_(float, DType::kFloat32);
ARRAYD_CLIENT_DTYPE_OF_(double, DType::kFloat64);
ARRAYD_CLIENT_DTYPE_OF_(std::complex<float>, DType::kComplex64);
ARRAYD_CLIENT_DTYPE_OF_(std::complex<double>, DType::kComplex128);
#undef ARRAYD_CLIENT_DTYPE_OF_

// A C++ scalar used as a Python scalar is in NumPy: weak (NEP 50). In
// `int8_array + 1` the 1 takes int8; in `int_array + 1.5` the 1.5 is
// float64; a value that does not fit the array's integer dtype is an error
// (NumPy's OverflowError), as in NumPy 2.
class Scalar {
 public:
  enum class ScalarKind { kBool, kInt, kFloat, kComplex };

  // Implicit on purpose: `a + 1`, `a * 0.5`, `Full(shape, 7)`.
  Scalar(bool v) : kind_(ScalarKind::kBool), i_(v ? 1 : 0) {}  // NOLINT
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(ScalarKind::kInt) {  // NOLINT
    if constexpr (std::is_unsigned_v<T>) {
      u_ = static_cast<uint64_t>(v);
      negative_ = false;
      i_ = static_cast<int64_t>(u_);
    } else {
      i_ = static_cast<int64_t>(v);
      negative_ = v < 0;
      u_ = static_cast<uint64_t>(i_);
    }
  }
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(ScalarKind::kFloat), re_(static_cast<double>(v)) {}  // NOLINT
  template <typename T>
  Scalar(std::complex<T> v)  // NOLINT
      : kind_(ScalarKind::kComplex), re_(static_cast<double>(v.real())),
        im_(static_cast<double>(v.imag())) {}

  ScalarKind kind() const { return kind_; }
  // kBool and kInt: the value; negative() tells int64 from uint64 range.
  bool negative() const { return negative_; }
  int64_t int_value() const { return i_; }
  uint64_t uint_value() const { return u_; }
  // kFloat and kComplex.
  double real() const { return re_; }
  double imag() const { return im_; }

  // The dtype NumPy gives this scalar on its own (np.asarray(value)):
  // bool, int64 (uint64 above INT64_MAX), float64, complex128.
  DType DefaultDType() const;
  // The dtype this weak scalar takes next to an array of `array_dtype`
  // (NEP 50), or OUT_OF_RANGE when an integer does not fit that dtype.
  absl::StatusOr<DType> WeakDType(DType array_dtype) const;

 private:
  ScalarKind kind_;
  bool negative_ = false;
  int64_t i_ = 0;
  uint64_t u_ = 0;
  double re_ = 0;
  double im_ = 0;
};

}  // namespace client
}  // namespace arrayd

#endif  // ARRAYD_CLIENT_DTYPE_H_
