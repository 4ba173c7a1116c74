// CPU elementwise kernels: fill, iota, casting copy, unary and binary ufuncs.
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_loops.h"
#include "backend/scalar_cast.h"
#include "common/status.h"
#include "kernels/functors.h"
#include "kernels/host_dispatch.h"
#include "kernels/loop_check.h"

namespace arrayd {
namespace cpu {

namespace {

using kernels::Cast;
using kernels::DispatchDType;
using kernels::DTypeBit;

template <typename T>
T Load(const char* p) {
  return *reinterpret_cast<const T*>(p);
}
template <typename T>
void Store(char* p, T v) {
  *reinterpret_cast<T*>(p) = v;
}

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

// A binary loop over a run of n (ForEachRun): contiguous operands, a
// scalar (broadcast) one on either side, else any strides, as NumPy's
// inner loops. The first three vectorize.
template <typename F, typename T, typename R>
void BinaryRun(int64_t n, const std::array<char*, 3>& p, const std::array<int64_t, 3>& step) {
  constexpr int64_t t = sizeof(T);
  const T* x = reinterpret_cast<const T*>(p[0]);
  const T* y = reinterpret_cast<const T*>(p[1]);
  R* o = reinterpret_cast<R*>(p[2]);
  if (step[2] == static_cast<int64_t>(sizeof(R))) {
    if (step[0] == t && step[1] == t) {
      for (int64_t i = 0; i < n; ++i) o[i] = F()(x[i], y[i]);
      return;
    }
    if (step[0] == 0 && step[1] == t) {
      const T a = *x;
      for (int64_t i = 0; i < n; ++i) o[i] = F()(a, y[i]);
      return;
    }
    if (step[0] == t && step[1] == 0) {
      const T b = *y;
      for (int64_t i = 0; i < n; ++i) o[i] = F()(x[i], b);
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    Store<R>(p[2] + i * step[2], F()(Load<T>(p[0] + i * step[0]), Load<T>(p[1] + i * step[1])));
  }
}

template <typename F, unsigned kMask>
absl::Status BinaryKernel(const View& a, const View& b, const View& out) {
  ARRAYD_RETURN_IF_ERROR((kernels::CheckBinaryLoop<F, kMask>(a, b, out)));
  return DispatchDType(a.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr ((DTypeBit<T>() & kMask) != 0) {  // others are refused above
      using R = decltype(F()(T(), T()));
      ForEachRun<3>({&a, &b, &out}, BinaryRun<F, T, R>);
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
          v = Cast<T>(
              static_cast<kernels::i64>(static_cast<uint64_t>(start.i) +
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
      // By blocks of runs: the special cases are chosen once a block, and
      // short runs (a repeat's broadcast of two) cost no call each.
      ForEachBlock<2>({&src, &dst}, [](int64_t rows, int64_t n, const std::array<char*, 2>& p,
                                       const std::array<int64_t, 2>& row_step,
                                       const std::array<int64_t, 2>& step) {
        const bool dst_dense = step[1] == static_cast<int64_t>(sizeof(D));
        // Each row one value, repeated a few times (repeat, a column's
        // broadcast): a loop of known length per row, unrolled.
        if (dst_dense && step[0] == 0 && n <= 4) {
          auto rows_of = [&](auto k) {
            constexpr int64_t kN = decltype(k)::value;
            for (int64_t r = 0; r < rows; ++r) {
              const D v = Cast<D>(Load<S>(p[0] + r * row_step[0]));
              D* d = reinterpret_cast<D*>(p[1] + r * row_step[1]);
              for (int64_t i = 0; i < kN; ++i) d[i] = v;
            }
          };
          switch (n) {
            case 1: return rows_of(std::integral_constant<int64_t, 1>{});
            case 2: return rows_of(std::integral_constant<int64_t, 2>{});
            case 3: return rows_of(std::integral_constant<int64_t, 3>{});
            default: return rows_of(std::integral_constant<int64_t, 4>{});
          }
        }
        for (int64_t r = 0; r < rows; ++r) {
          const char* sp = p[0] + r * row_step[0];
          char* dp = p[1] + r * row_step[1];
          D* d = reinterpret_cast<D*>(dp);
          if (dst_dense && step[0] == static_cast<int64_t>(sizeof(S))) {
            if constexpr (std::is_same_v<S, D>) {  // libc's copy (vector stores)
              std::memmove(dp, sp, static_cast<size_t>(n) * sizeof(D));
              continue;
            }
            const S* s = reinterpret_cast<const S*>(sp);
            for (int64_t i = 0; i < n; ++i) d[i] = Cast<D>(s[i]);
          } else if (dst_dense && step[0] == 0) {  // a broadcast value
            const D v = Cast<D>(Load<S>(sp));
            for (int64_t i = 0; i < n; ++i) d[i] = v;
          } else {
            for (int64_t i = 0; i < n; ++i) {
              Store<D>(dp + i * step[1], Cast<D>(Load<S>(sp + i * step[0])));
            }
          }
        }
      });
      return absl::OkStatus();
    });
  });
}

absl::Status CpuUnary(kernels::UnaryOp op, const View& in, const View& out) {
  switch (op) {
#define ARRAYD_UNARY_CASE(e, f, n, loops, id, doc) \
  case kernels::UnaryOp::e: return UnaryKernel<kernels::f, kernels::LoopInputMask(loops)>(in, out);
    ARRAYD_UNARY_OPS(ARRAYD_UNARY_CASE)
#undef ARRAYD_UNARY_CASE
    default: return absl::UnimplementedError("unknown unary op");
  }
}

absl::Status CpuBinary(kernels::BinaryOp op, const View& a, const View& b, const View& out) {
  switch (op) {
#define ARRAYD_BINARY_CASE(e, f, n, loops, id, doc) \
  case kernels::BinaryOp::e:                        \
    return BinaryKernel<kernels::f, kernels::LoopInputMask(loops)>(a, b, out);
    ARRAYD_BINARY_OPS(ARRAYD_BINARY_CASE)
#undef ARRAYD_BINARY_CASE
    default: return absl::UnimplementedError("unknown binary op");
  }
}

// Fused elementwise chains (Stream::Fused) a block of elements at a time:
// each step runs the unfused op's own loop (CpuBinary, CpuUnary, the casts
// of CpuCopy) over blocks that stay in the cache, so the values are the
// unfused ones and the intermediates never reach memory. For leaves that
// are C-contiguous or one broadcast value, and a C-contiguous output; the
// op layer runs other chains step by step.
absl::Status CpuFused(absl::Span<const FusedStep> steps, absl::Span<const View> leaves,
                      const View& out) {
  constexpr int64_t kBlock = 2048;
  if (steps.empty() || !out.IsCContiguous()) {
    return absl::UnimplementedError("fused elementwise: a C-contiguous output only");
  }
  std::vector<bool> scalar(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i) {
    const View& l = leaves[i];
    bool zero = true;
    for (int64_t st : l.strides) zero = zero && st == 0;
    scalar[i] = zero;
    if (!zero && !l.IsCContiguous()) {
      return absl::UnimplementedError("fused elementwise: strided leaves");
    }
  }
  const int64_t n = out.size();
  if (n == 0) return absl::OkStatus();
  // Block buffers: each step's result, and its operands cast to its loop's
  // input dtypes where they differ.
  const size_t slot = kBlock * 16;
  std::vector<char> arena(slot * 3 * steps.size());
  auto block_buffer = std::make_shared<Buffer>(arena.data(), arena.size(), nullptr);
  auto temp = [&](size_t k, int which, DType dtype, int64_t len) {
    View v;
    v.buffer = block_buffer;
    v.dtype = dtype;
    v.shape = {len};
    v.strides = {ItemSize(dtype)};
    v.offset = static_cast<int64_t>(slot * (3 * k + which));
    return v;
  };
  std::vector<View> values(leaves.size() + steps.size());
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    for (size_t i = 0; i < leaves.size(); ++i) {
      View& v = values[i];
      v = leaves[i];
      v.shape = {len};
      v.strides = {scalar[i] ? 0 : ItemSize(v.dtype)};
      if (!scalar[i]) v.offset += start * ItemSize(v.dtype);
    }
    for (size_t k = 0; k < steps.size(); ++k) {
      const FusedStep& st = steps[k];
      View args[2];
      for (int j = 0; j < (st.unary ? 1 : 2); ++j) {
        args[j] = values[st.args[j]];
        if (args[j].dtype != st.in[j]) {
          View cast = temp(k, 1 + j, st.in[j], len);
          if (args[j].strides[0] == 0) {  // a broadcast value stays one
            cast.shape = args[j].shape = {1};
            ARRAYD_RETURN_IF_ERROR(CpuCopy(args[j], cast));
            cast.shape = {len};
            cast.strides = {0};
          } else {
            ARRAYD_RETURN_IF_ERROR(CpuCopy(args[j], cast));
          }
          args[j] = cast;
        }
      }
      View result = temp(k, 0, st.out, len);
      if (k + 1 == steps.size()) {
        result = out;
        result.shape = {len};
        result.strides = {ItemSize(out.dtype)};
        result.offset += start * ItemSize(out.dtype);
      }
      if (st.unary) {
        ARRAYD_RETURN_IF_ERROR(CpuUnary(static_cast<kernels::UnaryOp>(st.op), args[0], result));
      } else {
        ARRAYD_RETURN_IF_ERROR(
            CpuBinary(static_cast<kernels::BinaryOp>(st.op), args[0], args[1], result));
      }
      values[leaves.size() + k] = result;
    }
  }
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace arrayd
