// Test helpers of the CUDA backend's tests (not a library header): the
// dtypes and ufunc rows every test iterates over, and the CudaVsCpu fixture
// that runs a Stream method on the CUDA and the CPU backend and compares
// the results. CudaVsCpu tests skip when no GPU is visible (CI).
#ifndef ARRAYD_BACKEND_CUDA_CUDA_VS_CPU_TESTING_H_
#define ARRAYD_BACKEND_CUDA_CUDA_VS_CPU_TESTING_H_

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "array/view.h"
#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cuda/cuda_backend.h"
#include "gtest/gtest.h"
#include "kernels/functors.h"
#include "kernels/host_dispatch.h"
#include "kernels/op_list.h"

namespace arrayd {
namespace cuda {

inline std::vector<DType> AllDTypes() {
  std::vector<DType> out;
  for (int i = 1; i <= kNumDTypes; ++i) out.push_back(static_cast<DType>(i));
  return out;
}

inline std::string DTypeParamName(const testing::TestParamInfo<DType>& info) {
  return std::string(DTypeName(info.param));
}

// ---- which dtypes each ufunc takes, and its result dtype -----------------
struct OpCase {
  std::string name, functor;
  int arity;
  int op;  // UnaryOp or BinaryOp value
};

template <typename F, unsigned kMask, int kArity>
DType ResultDType(DType in) {
  return kernels::DispatchDType(in, [&](auto tag) -> DType {
    using T = typename decltype(tag)::type;
    if constexpr ((kernels::DTypeBit<T>() & kMask) == 0) {
      return DType::kInvalid;
    } else if constexpr (kArity == 1) {
      return kernels::DTypeOf<decltype(F()(T()))>::value;
    } else {
      return kernels::DTypeOf<decltype(F()(T(), T()))>::value;
    }
  });
}

struct OpRow {
  OpCase c;
  std::function<DType(DType)> result;  // kInvalid: dtype not supported
};

inline std::vector<OpRow> AllOps() {
  std::vector<OpRow> rows;
#define ARRAYD_UNARY_ROW(e, f, n, loops, id, doc)                                        \
  rows.push_back({OpCase{n, #f, 1, static_cast<int>(kernels::UnaryOp::e)}, [](DType d) { \
                    return ResultDType<kernels::f, kernels::LoopInputMask(loops), 1>(d); \
                  }});
  ARRAYD_UNARY_OPS(ARRAYD_UNARY_ROW)
#undef ARRAYD_UNARY_ROW
#define ARRAYD_BINARY_ROW(e, f, n, loops, id, doc)                                        \
  rows.push_back({OpCase{n, #f, 2, static_cast<int>(kernels::BinaryOp::e)}, [](DType d) { \
                    return ResultDType<kernels::f, kernels::LoopInputMask(loops), 2>(d);  \
                  }});
  ARRAYD_BINARY_OPS(ARRAYD_BINARY_ROW)
#undef ARRAYD_BINARY_ROW
  return rows;
}

// The backends, made once for the whole test binary.
struct Backends {
  std::unique_ptr<Backend> cpu, gpu;
  std::unique_ptr<Stream> cs, gs;
  std::string why_not;
};
inline Backends& GetBackends() {
  static Backends* b = [] {
    auto* b = new Backends;
    b->cpu = cpu::CreateCpuBackend();
    b->cs = *b->cpu->CreateStream();
    if (VisibleGpuCount(&b->why_not) > 0) {
      absl::StatusOr<std::unique_ptr<Backend>> gpu = CreateCudaBackend(0);
      if (gpu.ok()) {
        b->gpu = std::move(*gpu);
        b->gs = *b->gpu->CreateStream();
      } else {
        b->why_not = gpu.status().ToString();
      }
    }
    return b;
  }();
  return *b;
}

// The same array on both backends.
struct Pair {
  View c, g;
};

// Applies one view transformation to both sides.
inline Pair Derive(const Pair& p, const std::function<View(const View&)>& f) {
  return {f(p.c), f(p.g)};
}

inline View TransposeView(const View& v) { return *Transpose(v, {}); }
inline View ReverseStep2(const View& v) {  // v[::-2] along the first axis
  return *BasicIndex(v, {IndexItem{IndexItem::kSlice, kNone, kNone, -2}});
}

class CudaVsCpu : public testing::Test {
 public:
  Pair UploadBytes(DType dtype, const Shape& shape, const std::vector<char>& bytes) {
    return Upload(dtype, shape, bytes);
  }

 protected:
  void SetUp() override {
    Backends& b = GetBackends();
    if (b.gpu == nullptr) GTEST_SKIP() << "no CUDA GPU: " << b.why_not;
    cs_ = b.cs.get();
    gs_ = b.gs.get();
  }

  // A C-contiguous array of `dtype` holding `bytes` on both backends.
  Pair Upload(DType dtype, const Shape& shape, const std::vector<char>& bytes) {
    const size_t n = static_cast<size_t>(ShapeSize(shape) * ItemSize(dtype));
    Pair p;
    p.c = MakeContiguousView(*cs_->Allocate(n), dtype, shape);
    p.g = MakeContiguousView(*gs_->Allocate(n), dtype, shape);
    EXPECT_TRUE(cs_->CopyFromHost(bytes.data(), p.c).ok());
    absl::Status s = gs_->CopyFromHost(bytes.data(), p.g);
    EXPECT_TRUE(s.ok()) << s;
    return p;
  }

  // Random values in [lo, hi] (multiples of 1/8 for inexact dtypes, so that
  // half precision holds them exactly); `nan_every` > 0 puts NaNs in.
  Pair Random(DType dtype, const Shape& shape, double lo, double hi, uint64_t seed = 1,
              int nan_every = 0) {
    std::mt19937_64 rng(seed);
    const int64_t n = ShapeSize(shape);
    const int item = ItemSize(dtype);
    std::vector<char> bytes(static_cast<size_t>(n * item));
    if (!IsInexact(dtype) && lo < 0 && Kind(dtype) == DTypeKind::kUnsigned) lo = 0;
    for (int64_t i = 0; i < n; ++i) {
      double re, im;
      if (IsInexact(dtype)) {
        re = std::floor(std::uniform_real_distribution<double>(lo, hi)(rng) * 8) / 8;
        im = std::floor(std::uniform_real_distribution<double>(lo, hi)(rng) * 8) / 8;
        if (nan_every > 0 && i % nan_every == nan_every - 1) re = NAN;
      } else {
        re = static_cast<double>(std::uniform_int_distribution<int64_t>(
            static_cast<int64_t>(lo), static_cast<int64_t>(hi))(rng));
        im = 0;
      }
      kernels::DispatchDType(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T v = kernels::Cast<T>(kernels::c128(re, im));
        std::memcpy(&bytes[static_cast<size_t>(i * item)], &v, item);
        return 0;
      });
    }
    return Upload(dtype, shape, bytes);
  }

  // An output array, pre-filled with the same garbage on both sides.
  Pair Output(DType dtype, const Shape& shape) {
    std::vector<char> bytes(static_cast<size_t>(ShapeSize(shape) * ItemSize(dtype)), 0x5a);
    return Upload(dtype, shape, bytes);
  }

  std::vector<char> Download(Stream* s, const View& v) {
    View src = v;
    if (!v.IsCContiguous()) {
      auto buf = s->Allocate(static_cast<size_t>(v.nbytes()));
      src = MakeContiguousView(*buf, v.dtype, v.shape);
      EXPECT_TRUE(s->Copy(v, src).ok());
    }
    std::vector<char> out(static_cast<size_t>(v.nbytes()));
    absl::Status st = s->CopyToHost(src, out.data());
    EXPECT_TRUE(st.ok()) << st;
    return out;
  }

  // Expects equal contents: exact for bool and integers, within `rtol`
  // (scaled by the dtype's precision) for inexact dtypes, NaN equal to NaN.
  // Equal within atol + rtol * max(1, |cpu|) (rtol 0: the dtype's default).
  void ExpectSame(const Pair& p, const std::string& what, double rtol = 0, double atol = 0) {
    absl::Status s = gs_->Synchronize();
    ASSERT_TRUE(s.ok()) << what << ": " << s;
    std::vector<char> c = Download(cs_, p.c), g = Download(gs_, p.g);
    ASSERT_EQ(c.size(), g.size()) << what;
    const DType t = p.c.dtype;
    const int item = ItemSize(t);
    const int64_t n = p.c.size();
    if (!IsInexact(t)) {
      for (int64_t i = 0; i < n; ++i) {
        if (std::memcmp(&c[i * item], &g[i * item], item) != 0) {
          ADD_FAILURE() << what << ": element " << i << " differs (" << DTypeName(t) << ")";
          return;
        }
      }
      return;
    }
    if (rtol == 0) {
      rtol = t == DType::kFloat16                               ? 2e-3
             : (t == DType::kFloat32 || t == DType::kComplex64) ? 2e-5
                                                                : 1e-12;
    }
    for (int64_t i = 0; i < n; ++i) {
      kernels::c128 a, b;
      kernels::DispatchDType(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T x, y;
        std::memcpy(&x, &c[i * item], item);
        std::memcpy(&y, &g[i * item], item);
        a = kernels::Cast<kernels::c128>(x);
        b = kernels::Cast<kernels::c128>(y);
        return 0;
      });
      // Which NaN a complex min/max returns is unspecified: any NaN matches.
      const bool a_nan = std::isnan(a.re) || std::isnan(a.im);
      const bool b_nan = std::isnan(b.re) || std::isnan(b.im);
      if (IsComplex(t) && a_nan && b_nan) continue;
      for (int part = 0; part < 2; ++part) {
        const double x = part ? a.im : a.re, y = part ? b.im : b.re;
        if (std::isnan(x) && std::isnan(y)) continue;
        if (x == y) continue;  // also equal infinities
        if (std::isfinite(x) && std::isfinite(y) &&
            std::fabs(x - y) <= atol + rtol * std::max(1.0, std::fabs(x))) {
          continue;
        }
        ADD_FAILURE() << what << ": element " << i << (part ? " (imag)" : "") << " cpu " << x
                      << " gpu " << y << " (" << DTypeName(t) << ")";
        return;
      }
    }
  }

  // Runs `op` on both backends and checks both succeed.
  void Both(const std::function<absl::Status(Stream*, const View*)>& op, const std::string& what) {
    absl::Status c = op(cs_, nullptr);
    absl::Status g = op(gs_, nullptr);
    ASSERT_EQ(c.ok(), g.ok()) << what << ": cpu " << c << ", gpu " << g;
    ASSERT_TRUE(g.ok()) << what << ": " << g;
  }

  Stream* cs_ = nullptr;
  Stream* gs_ = nullptr;
};

}  // namespace cuda
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_CUDA_VS_CPU_TESTING_H_
