// The host-side check every backend makes before an elementwise kernel:
// that functor F, instantiated for the dtypes in kMask (LoopInputMask), accepts the loop
// dtype and yields the output's dtype. A kind F does not take is NumPy's
// TypeError; a mismatch of dtypes is a bug in the op layer (INTERNAL).
#ifndef ARRAYD_KERNELS_LOOP_CHECK_H_
#define ARRAYD_KERNELS_LOOP_CHECK_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "array/view.h"
#include "common/status.h"
#include "kernels/host_dispatch.h"

namespace arrayd {
namespace kernels {

template <typename F, unsigned kMask>
absl::Status CheckUnaryLoop(const View& in, const View& out) {
  return DispatchDType(in.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr ((DTypeBit<T>() & kMask) == 0) {
      return TypeError(absl::StrCat("ufunc not supported for dtype ", DTypeName(in.dtype)));
    } else {
      using R = decltype(F()(T()));
      if (DTypeOf<R>::value != out.dtype) {
        return absl::InternalError("unary kernel: unexpected output dtype");
      }
      return absl::OkStatus();
    }
  });
}

template <typename F, unsigned kMask>
absl::Status CheckBinaryLoop(const View& a, const View& b, const View& out) {
  return DispatchDType(a.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr ((DTypeBit<T>() & kMask) == 0) {
      return TypeError(absl::StrCat("ufunc not supported for dtype ", DTypeName(a.dtype)));
    } else {
      using R = decltype(F()(T(), T()));
      if (DTypeOf<R>::value != out.dtype || b.dtype != a.dtype) {
        return absl::InternalError("binary kernel: unexpected dtypes");
      }
      return absl::OkStatus();
    }
  });
}

// Stream::Random's output: a C-contiguous float32 or float64 array.
inline absl::Status CheckRandomOutput(const View& out) {
  if (out.dtype != DType::kFloat32 && out.dtype != DType::kFloat64) {
    return absl::InternalError(absl::StrCat("random: needs float32 or float64, got ",
                                            DTypeName(out.dtype)));
  }
  if (!out.IsCContiguous()) return absl::InternalError("random: needs a C-contiguous output");
  return absl::OkStatus();
}

}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_KERNELS_LOOP_CHECK_H_
