// CPU elementwise kernels: fill, iota, casting copy, unary and binary ufuncs.
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_loops.h"
#include "backend/scalar_cast.h"
#include "common/status.h"
#include "kernels/host_dispatch.h"
#include "kernels/loop_check.h"
#include "kernels/functors.h"

namespace arrayd {
namespace cpu {

namespace {

using kernels::Cast;
using kernels::DispatchDType;
using kernels::DTypeBit;

template <typename T>
T Load(const char* p) { return *reinterpret_cast<const T*>(p); }
template <typename T>
void Store(char* p, T v) { *reinterpret_cast<T*>(p) = v; }

template <typename F, unsigned kMask>
absl::Status UnaryKernel(const View& in, const View& out) {
  ARRAYD_RETURN_IF_ERROR((kernels::CheckUnaryLoop<F, kMask>(in, out)));
  return DispatchDType(in.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr ((DTypeBit<T>() & kMask) != 0) {  // others are refused above
      using R = decltype(F()(T()));
      ForEachElement<2>(
          {&in, &out}, [](const std::array<char*, 2>& p) { Store<R>(p[1], F()(Load<T>(p[0]))); },
          [](int64_t n, const std::array<char*, 2>& p) {
            const T* a = reinterpret_cast<const T*>(p[0]);
            R* o = reinterpret_cast<R*>(p[1]);
            for (int64_t i = 0; i < n; ++i) o[i] = F()(a[i]);
          });
    }
    return absl::OkStatus();
  });
}

template <typename F, unsigned kMask>
absl::Status BinaryKernel(const View& a, const View& b, const View& out) {
  ARRAYD_RETURN_IF_ERROR((kernels::CheckBinaryLoop<F, kMask>(a, b, out)));
  return DispatchDType(a.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr ((DTypeBit<T>() & kMask) != 0) {  // others are refused above
      using R = decltype(F()(T(), T()));
      ForEachElement<3>(
          {&a, &b, &out},
          [](const std::array<char*, 3>& p) {
            Store<R>(p[2], F()(Load<T>(p[0]), Load<T>(p[1])));
          },
          [](int64_t n, const std::array<char*, 3>& p) {
            const T* x = reinterpret_cast<const T*>(p[0]);
            const T* y = reinterpret_cast<const T*>(p[1]);
            R* o = reinterpret_cast<R*>(p[2]);
            for (int64_t i = 0; i < n; ++i) o[i] = F()(x[i], y[i]);
          });
    }
    return absl::OkStatus();
  });
}

}  // namespace

absl::Status CpuFill(const View& out, const Scalar& value) {
  return DispatchDType(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = ScalarAs<T>(value);
    ForEachElement<1>(
        {&out}, [v](const std::array<char*, 1>& p) { Store<T>(p[0], v); },
        [v](int64_t n, const std::array<char*, 1>& p) {
          T* o = reinterpret_cast<T*>(p[0]);
          for (int64_t i = 0; i < n; ++i) o[i] = v;
        });
    return absl::OkStatus();
  });
}

absl::Status CpuRandom(RandomDist dist, uint64_t key, uint64_t counter, const View& out) {
  ARRAYD_RETURN_IF_ERROR(kernels::CheckRandomOutput(out));
  auto fill = [&](auto* data) {
    if (dist == RandomDist::kUniform) {
      kernels::PhiloxFillRange(kernels::PhiloxUniform(), counter, key, data, out.size());
    } else {
      kernels::PhiloxFillRange(kernels::PhiloxNormal(), counter, key, data, out.size());
    }
  };
  if (out.dtype == DType::kFloat32) {
    fill(reinterpret_cast<float*>(out.data()));
  } else {
    fill(reinterpret_cast<double*>(out.data()));
  }
  return absl::OkStatus();
}

absl::Status CpuIota(const View& out, const Scalar& start, const Scalar& step) {
  if (out.ndim() != 1) return absl::InternalError("iota needs a 1-D output");
  return DispatchDType(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    char* base = out.data();
    const int64_t n = out.shape[0], stride = out.strides[0];
    for (int64_t i = 0; i < n; ++i) {
      T v;
      switch (start.kind) {
        case Scalar::kFloat: v = Cast<T>(start.re + static_cast<double>(i) * step.re); break;
        case Scalar::kComplex:
          v = Cast<T>(kernels::c128(start.re + i * step.re, start.im + i * step.im));
          break;
        case Scalar::kUInt: v = Cast<T>(start.u + static_cast<uint64_t>(i) * step.u); break;
        default:
          v = Cast<T>(static_cast<kernels::i64>(static_cast<uint64_t>(start.i) +
                                                 static_cast<uint64_t>(i) * static_cast<uint64_t>(step.i)));
      }
      Store<T>(base + i * stride, v);
    }
    return absl::OkStatus();
  });
}

absl::Status CpuCopy(const View& src, const View& dst) {
  return DispatchDType(src.dtype, [&](auto src_tag) {
    using S = typename decltype(src_tag)::type;
    return DispatchDType(dst.dtype, [&](auto dst_tag) {
      using D = typename decltype(dst_tag)::type;
      ForEachElement<2>(
          {&src, &dst},
          [](const std::array<char*, 2>& p) { Store<D>(p[1], Cast<D>(Load<S>(p[0]))); },
          [](int64_t n, const std::array<char*, 2>& p) {
            const S* s = reinterpret_cast<const S*>(p[0]);
            D* d = reinterpret_cast<D*>(p[1]);
            for (int64_t i = 0; i < n; ++i) d[i] = Cast<D>(s[i]);
          });
      return absl::OkStatus();
    });
  });
}

absl::Status CpuUnary(kernels::UnaryOp op, const View& in, const View& out) {
  switch (op) {
#define ARRAYD_UNARY_CASE(e, f, n, loops, id, doc) \
  case kernels::UnaryOp::e:                        \
    return UnaryKernel<kernels::f, kernels::LoopInputMask(loops)>(in, out);
    ARRAYD_UNARY_OPS(ARRAYD_UNARY_CASE)
#undef ARRAYD_UNARY_CASE
    default:
      return absl::UnimplementedError("unknown unary op");
  }
}

absl::Status CpuBinary(kernels::BinaryOp op, const View& a, const View& b, const View& out) {
  switch (op) {
#define ARRAYD_BINARY_CASE(e, f, n, loops, id, doc) \
  case kernels::BinaryOp::e:                        \
    return BinaryKernel<kernels::f, kernels::LoopInputMask(loops)>(a, b, out);
    ARRAYD_BINARY_OPS(ARRAYD_BINARY_CASE)
#undef ARRAYD_BINARY_CASE
    default:
      return absl::UnimplementedError("unknown binary op");
  }
}

}  // namespace cpu
}  // namespace arrayd
