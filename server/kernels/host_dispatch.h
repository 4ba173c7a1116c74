// Host-side glue between runtime dtypes and the kernel element types: the
// C++ type of each DType, and DispatchDType, which calls a generic lambda
// with a tag of the right type. Used by the CPU backend and by host code of
// other backends.
#ifndef ARRAYD_KERNELS_HOST_DISPATCH_H_
#define ARRAYD_KERNELS_HOST_DISPATCH_H_

#include <math.h>

#include <type_traits>
#include <utility>

#include "array/dtype.h"
#include "kernels/op_list.h"
#include "kernels/types.h"

namespace arrayd {
namespace kernels {

template <typename T>
struct TypeTag {
  using type = T;
};

// X(DType enumerator, C++ type)
#define ARRAYD_DTYPE_TYPES(X) \
  X(kBool, bool)              \
  X(kInt8, i8)                \
  X(kInt16, i16)              \
  X(kInt32, i32)              \
  X(kInt64, i64)              \
  X(kUInt8, u8)               \
  X(kUInt16, u16)             \
  X(kUInt32, u32)             \
  X(kUInt64, u64)             \
  X(kFloat16, Half)           \
  X(kFloat32, float)          \
  X(kFloat64, double)         \
  X(kComplex64, c64)          \
  X(kComplex128, c128)

template <typename T>
struct DTypeOf;
#define ARRAYD_DTYPE_OF(e, t) \
  template <>                 \
  struct DTypeOf<t> {         \
    static constexpr DType value = DType::e; \
  };
ARRAYD_DTYPE_TYPES(ARRAYD_DTYPE_OF)
#undef ARRAYD_DTYPE_OF

// Calls fn(TypeTag<T>{}) for the C++ type T of `dtype`. `dtype` must be valid.
template <typename Fn>
decltype(auto) DispatchDType(DType dtype, Fn&& fn) {
  switch (dtype) {
#define ARRAYD_DISPATCH_CASE(e, t) \
  case DType::e:                   \
    return fn(TypeTag<t>{});
    ARRAYD_DTYPE_TYPES(ARRAYD_DISPATCH_CASE)
#undef ARRAYD_DISPATCH_CASE
    default:
      return fn(TypeTag<bool>{});  // unreachable for valid dtypes
  }
}

// The bit of element type T in a dtype mask (bit i: DType value i).
template <typename T>
constexpr unsigned DTypeBit() {
  return 1u << static_cast<int>(DTypeOf<T>::value);
}

// The dtype mask of a loop table's input types ("ff->f dd->d": float32 and
// float64), at compile time: the dtypes an elementwise functor is
// instantiated for. Characters are NumPy's type codes (kernels/op_list.h).
// Refusing loops ("?->!") have no kernel.
constexpr unsigned LoopInputMask(const char* loops) {
  unsigned mask = 0;
  const char* start = nullptr;  // of the current loop
  for (const char* p = loops;; ++p) {
    if (*p == ' ' || *p == 0) {
      if (start != nullptr && p[-1] != '!') mask |= 1u << static_cast<int>(DTypeFromTypeChar(*start));
      start = nullptr;
      if (*p == 0) break;
    } else if (start == nullptr) {
      start = p;
    }
  }
  return mask;
}

}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_KERNELS_HOST_DISPATCH_H_
