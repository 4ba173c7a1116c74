// Tests of the CUDA backend. KernelSourceTest runs everywhere (NVRTC needs
// no GPU): every generated kernel of every op and dtype must compile. The
// CudaVsCpu tests compare every Stream method with the CPU backend on all
// dtypes and layouts; they skip when no GPU is visible (CI).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cuda/caching_allocator.h"
#include "backend/cuda/cublas_status.h"
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/kernel_cache.h"
#include "backend/cuda/kernel_source.h"
#include "backend/cuda/solver_fft_status.h"
#include "common/status.h"
#include "gtest/gtest.h"
#include "kernels/functors.h"
#include "kernels/host_dispatch.h"

namespace arrayd {
namespace cuda {
namespace {

using kernels::DispatchDType;
using kernels::DTypeBit;

std::vector<DType> AllDTypes() {
  std::vector<DType> out;
  for (int i = 1; i <= kNumDTypes; ++i) out.push_back(static_cast<DType>(i));
  return out;
}

std::string DTypeParamName(const testing::TestParamInfo<DType>& info) {
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
  return DispatchDType(in, [&](auto tag) -> DType {
    using T = typename decltype(tag)::type;
    if constexpr ((DTypeBit<T>() & kMask) == 0) {
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

std::vector<OpRow> AllOps() {
  std::vector<OpRow> rows;
#define ARRAYD_UNARY_ROW(e, f, n, loops, id, doc)                                              \
  rows.push_back({OpCase{n, #f, 1, static_cast<int>(kernels::UnaryOp::e)},           \
                  [](DType d) { return ResultDType<kernels::f, kernels::LoopInputMask(loops), 1>(d); }});
  ARRAYD_UNARY_OPS(ARRAYD_UNARY_ROW)
#undef ARRAYD_UNARY_ROW
#define ARRAYD_BINARY_ROW(e, f, n, loops, id, doc)                                             \
  rows.push_back({OpCase{n, #f, 2, static_cast<int>(kernels::BinaryOp::e)},          \
                  [](DType d) { return ResultDType<kernels::f, kernels::LoopInputMask(loops), 2>(d); }});
  ARRAYD_BINARY_OPS(ARRAYD_BINARY_ROW)
#undef ARRAYD_BINARY_ROW
  return rows;
}

// =========================================================================
// Host only: the generated sources compile with NVRTC.
// =========================================================================
constexpr char kTestArch[] = "sm_90";

void ExpectCompiles(const std::vector<std::string>& bodies, const std::string& what) {
  absl::StatusOr<std::string> cubin = CompileToCubin(BuildSource(bodies), kTestArch);
  ASSERT_TRUE(cubin.ok()) << what << ": " << cubin.status();
  EXPECT_GT(cubin->size(), 100u) << what;
}

class KernelSourceTest : public testing::TestWithParam<DType> {};

// Every unary and binary ufunc the dtype supports, in both layouts.
TEST_P(KernelSourceTest, UfuncKernelsCompile) {
  const DType t = GetParam();
  std::vector<std::string> bodies;
  for (const OpRow& row : AllOps()) {
    const DType r = row.result(t);
    if (r == DType::kInvalid) continue;
    ElementwiseSpec spec;
    spec.dtypes = {r, t};
    if (row.c.arity == 2) spec.dtypes.push_back(t);
    spec.expr = row.c.functor + (row.c.arity == 1 ? "()(v1)" : "()(v1, v2)");
    // Every op in the vectorized layout; the strided one wraps the same
    // Apply, so a few ops suffice there (keeps CI's compile time down).
    for (int nd : {-1, 3}) {
      if (nd > 0 && bodies.size() > 4) continue;
      spec.ndim = nd;
      bodies.push_back(ElementwiseBody(spec, absl::StrCat("k_", row.c.name, nd < 0 ? "_c" : "_s")));
    }
  }
  ExpectCompiles(bodies, absl::StrCat("ufuncs of ", DTypeName(t)));
}

// Casts from the dtype to every dtype, fill and iota of the dtype.
TEST_P(KernelSourceTest, CopyFillIotaKernelsCompile) {
  const DType t = GetParam();
  std::vector<std::string> bodies;
  for (DType to : AllDTypes()) {
    ElementwiseSpec spec{{to, t}, "v1", "", "", -1};
    bodies.push_back(ElementwiseBody(spec, absl::StrCat("copy_c_", DTypeName(to))));
    spec.ndim = 8;
    bodies.push_back(ElementwiseBody(spec, absl::StrCat("copy_s_", DTypeName(to))));
  }
  bodies.push_back(ElementwiseBody({{t}, "value", "T0", "value", -1}, "fill_c"));
  bodies.push_back(ElementwiseBody({{t}, "value", "T0", "value", 2}, "fill_s"));
  bodies.push_back(ElementwiseBody(
      {{t}, "c128(ip.re0 + static_cast<double>(i) * ip.dre, ip.im0)", "IotaParams", "ip", -1},
      "iota_c"));
  bodies.push_back(ElementwiseBody(
      {{t}, "static_cast<u64>(ip.u0 + static_cast<u64>(i) * ip.du)", "IotaParams", "ip", 1},
      "iota_s"));
  ExpectCompiles(bodies, absl::StrCat("copy/fill/iota of ", DTypeName(t)));
}

TEST_P(KernelSourceTest, ReduceKernelsCompile) {
  const DType t = GetParam();
  std::vector<std::string> bodies;
  for (const char* kind : {"sum", "prod", "min", "max", "all", "any", "argmin", "argmax"}) {
    const std::string k = kind;
    const DType out = k == "all" || k == "any" ? DType::kBool
                      : k.rfind("arg", 0) == 0 ? DType::kInt64
                                               : t;
    bodies.push_back(ReduceBody({k, t, out, 2, 3}, absl::StrCat("r_", kind)));
  }
  ExpectCompiles(bodies, absl::StrCat("reductions of ", DTypeName(t)));
}

// Where, gather, scatter (from this dtype to several), sort and the tiled
// matmul of the dtype.
TEST_P(KernelSourceTest, IndexingSortMatmulKernelsCompile) {
  const DType t = GetParam();
  std::vector<std::string> bodies;
  ElementwiseSpec where{{t, DType::kBool, t, t}, "v1 ? v2 : v3", "", "", -1};
  bodies.push_back(ElementwiseBody(where, "where_c"));
  where.ndim = 3;
  bodies.push_back(ElementwiseBody(where, "where_s"));
  ElementwiseSpec gather{{t, DType::kInt64},
                         "*reinterpret_cast<const T0*>(fl.base + FlatOffset(fl, v1))",
                         "FlatLayout", "fl", -1};
  bodies.push_back(ElementwiseBody(gather, "gather_c"));
  gather.ndim = 2;
  bodies.push_back(ElementwiseBody(gather, "gather_s"));
  for (DType to : {DType::kBool, DType::kInt64, DType::kFloat16, DType::kFloat64,
                   DType::kComplex128}) {
    bodies.push_back(ScatterBody(t, to, 2, absl::StrCat("scatter_to_", DTypeName(to))));
  }
  bodies.push_back(ScatterBody(t, t, 8, "scatter_same_8"));
  bodies.push_back(SortBody(t, 1, "sort_1"));
  bodies.push_back(SortBody(t, 3, "sort_3"));
  bodies.push_back(MatmulBody(t, "matmul"));
  ExpectCompiles(bodies, absl::StrCat("where/gather/scatter/sort/matmul of ", DTypeName(t)));
}

TEST(KernelSourceCompileTest, NonzeroKernelsCompile) {
  std::vector<std::string> bodies;
  for (int nd = 1; nd <= kMaxKernelDims; ++nd) {
    bodies.push_back(NonzeroBody(nd, absl::StrCat("nonzero_", nd)));
  }
  ExpectCompiles(bodies, "nonzero");
}

// The kernels that launch groups of small ops (ElementwiseGroupBody).
TEST(KernelSourceCompileTest, GroupKernelsCompile) {
  std::vector<std::string> bodies;
  bodies.push_back(ElementwiseGroupBody(
      {{DType::kFloat32, DType::kFloat32, DType::kFloat32}, "AddOp()(v1, v2)", "", "", -1}, "add_g"));
  bodies.push_back(ElementwiseGroupBody(
      {{DType::kFloat64, DType::kInt8}, "v1", "", "", -1}, "copy_g"));
  bodies.push_back(ElementwiseGroupBody(
      {{DType::kComplex128, DType::kComplex128}, "NegativeOp()(v1)", "", "", -1}, "neg_g"));
  ExpectCompiles(bodies, "group kernels");
}

TEST(CublasStatusTest, NamesAndKinds) {
  EXPECT_STREQ(CublasStatusName(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED");
  EXPECT_STREQ(CublasStatusName(static_cast<cublasStatus_t>(12345)), "CUBLAS_STATUS_UNKNOWN");
  EXPECT_TRUE(CublasStatus(CUBLAS_STATUS_SUCCESS, "f()", "x.cc", 1).ok());
  absl::Status s = CublasStatus(CUBLAS_STATUS_INVALID_VALUE, "cublasSgemm(h)", "x.cc", 7);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("cublasSgemm(h)"), std::string::npos) << s;
  EXPECT_NE(s.message().find("CUBLAS_STATUS_INVALID_VALUE"), std::string::npos) << s;
  absl::Status oom = CublasStatus(CUBLAS_STATUS_ALLOC_FAILED, "cublasCreate(&h)", "x.cc", 9);
  EXPECT_EQ(oom.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(ErrorKind(oom), "MemoryError");
}

TEST(SolverFftStatusTest, NamesAndKinds) {
  EXPECT_STREQ(CusolverStatusName(CUSOLVER_STATUS_INVALID_VALUE), "CUSOLVER_STATUS_INVALID_VALUE");
  EXPECT_STREQ(CusolverStatusName(static_cast<cusolverStatus_t>(12345)), "CUSOLVER_STATUS_UNKNOWN");
  EXPECT_STREQ(CufftResultName(CUFFT_INVALID_SIZE), "CUFFT_INVALID_SIZE");
  EXPECT_STREQ(CufftResultName(static_cast<cufftResult>(12345)), "CUFFT_UNKNOWN");
  EXPECT_TRUE(CusolverStatus(CUSOLVER_STATUS_SUCCESS, "f()", "x.cc", 1).ok());
  EXPECT_TRUE(CufftStatus(CUFFT_SUCCESS, "f()", "x.cc", 1).ok());
  absl::Status s =
      CusolverStatus(CUSOLVER_STATUS_EXECUTION_FAILED, "cusolverDnXgetrf(h)", "x.cc", 7);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("cusolverDnXgetrf(h)"), std::string::npos) << s;
  EXPECT_NE(s.message().find("CUSOLVER_STATUS_EXECUTION_FAILED"), std::string::npos) << s;
  EXPECT_NE(s.message().find("x.cc:7"), std::string::npos) << s;
  absl::Status f = CufftStatus(CUFFT_INVALID_PLAN, "cufftExecC2C(p)", "y.cc", 3);
  EXPECT_EQ(f.code(), absl::StatusCode::kInternal);
  EXPECT_NE(f.message().find("cufftExecC2C(p)"), std::string::npos) << f;
  EXPECT_NE(f.message().find("CUFFT_INVALID_PLAN"), std::string::npos) << f;
  absl::Status oom =
      CusolverStatus(CUSOLVER_STATUS_ALLOC_FAILED, "cusolverDnCreate(&h)", "x.cc", 9);
  EXPECT_EQ(oom.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(ErrorKind(oom), "MemoryError");
  absl::Status foom = CufftStatus(CUFFT_ALLOC_FAILED, "cufftMakePlanMany64(p)", "x.cc", 9);
  EXPECT_EQ(ErrorKind(foom), "MemoryError");
}

// The helper kernels of the linalg and FFT methods: triangle masks,
// identity, conjugate, the inverse real FFT's half-spectrum copy, and the
// int32 <-> int64 pivot casts, in the layouts the methods use.
TEST(KernelSourceCompileTest, LinalgFftHelperKernelsCompile) {
  std::vector<std::string> bodies;
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128}) {
    const std::string tn(DTypeName(t));
    for (int nd : {-1, 3}) {
      const std::string suffix = absl::StrCat(tn, nd < 0 ? "_c" : "_s");
      ElementwiseSpec spec{
          {t, t}, MatrixExpr(MatrixExprKind::kKeepUpper), "MatrixParams", "mp", nd};
      bodies.push_back(ElementwiseBody(spec, "upper_" + suffix));
      spec.expr = MatrixExpr(MatrixExprKind::kKeepLower);
      bodies.push_back(ElementwiseBody(spec, "lower_" + suffix));
      bodies.push_back(ElementwiseBody(
          {{t}, MatrixExpr(MatrixExprKind::kIdentity), "MatrixParams", "mp", nd}, "eye_" + suffix));
      bodies.push_back(ElementwiseBody({{t, t}, MatrixExpr(MatrixExprKind::kConjugate), "", "", nd},
                                       "conj_" + suffix));
      bodies.push_back(ElementwiseBody({{t, t}, "v1", "", "", nd}, "copy_" + suffix));
      if (IsComplex(t)) {
        bodies.push_back(ElementwiseBody(
            {{t, t}, MatrixExpr(MatrixExprKind::kHalfSpectrumEnds), "MatrixParams", "mp", nd},
            "ends_" + suffix));
      }
    }
  }
  bodies.push_back(ElementwiseBody({{DType::kInt32, DType::kInt64}, "v1", "", "", -1}, "piv32"));
  bodies.push_back(ElementwiseBody({{DType::kInt64, DType::kInt32}, "v1", "", "", 2}, "piv64"));
  ExpectCompiles(bodies, "linalg/fft helpers");
}

TEST(MatrixExprTest, ReadTheMatrixShape) {
  // Every expression but the conjugate reads the matrix shape.
  for (MatrixExprKind k : {MatrixExprKind::kKeepUpper, MatrixExprKind::kKeepLower,
                           MatrixExprKind::kIdentity, MatrixExprKind::kHalfSpectrumEnds}) {
    EXPECT_NE(std::string(MatrixExpr(k)).find("mp.cols"), std::string::npos) << MatrixExpr(k);
  }
  EXPECT_EQ(std::string(MatrixExpr(MatrixExprKind::kConjugate)).find("mp."), std::string::npos);
  EXPECT_NE(std::string(MatrixExpr(MatrixExprKind::kKeepUpper)).find("<="), std::string::npos);
  EXPECT_NE(std::string(MatrixExpr(MatrixExprKind::kKeepLower)).find(">="), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, KernelSourceTest, testing::ValuesIn(AllDTypes()),
                         DTypeParamName);

TEST(KernelSourceCompileTest, RandomKernelsCompile) {
  std::vector<std::string> bodies;
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    for (bool normal : {false, true}) {
      bodies.push_back(RandomBody(t, normal, absl::StrCat("rng_", DTypeName(t), normal ? "_n" : "_u")));
    }
  }
  ExpectCompiles(bodies, "random streams");
}

TEST(KernelSourceCompileTest, BadSourceReportsTheLog) {
  absl::StatusOr<std::string> cubin =
      CompileToCubin(BuildSource({"extern \"C\" __global__ void k() { undefined_thing(); }"}),
                     kTestArch);
  ASSERT_FALSE(cubin.ok());
  EXPECT_NE(cubin.status().message().find("undefined_thing"), std::string::npos)
      << cubin.status();
}

TEST(CachingAllocatorTest, RoundsToBins) {
  EXPECT_EQ(CachingAllocator::RoundSize(0), 512u);
  EXPECT_EQ(CachingAllocator::RoundSize(1), 512u);
  EXPECT_EQ(CachingAllocator::RoundSize(513), 1024u);
  EXPECT_EQ(CachingAllocator::RoundSize(1 << 20), 1u << 20);
  EXPECT_EQ(CachingAllocator::RoundSize((1 << 20) + 1), 2u << 20);
  EXPECT_EQ(CachingAllocator::RoundSize((5u << 20) + 3), 6u << 20);
}

TEST(VisibleGpuCountTest, NeverCrashes) {
  std::string reason;
  int n = VisibleGpuCount(&reason);
  EXPECT_GE(n, 0);
  if (n == 0) {
    EXPECT_FALSE(reason.empty());
  }
}

// =========================================================================
// On a GPU: every Stream method against the CPU backend.
// =========================================================================

// The backends, made once for the whole test binary.
struct Backends {
  std::unique_ptr<Backend> cpu, gpu;
  std::unique_ptr<Stream> cs, gs;
  std::string why_not;
};
Backends& GetBackends() {
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
Pair Derive(const Pair& p, const std::function<View(const View&)>& f) { return {f(p.c), f(p.g)}; }

View TransposeView(const View& v) { return *Transpose(v, {}); }
View ReverseStep2(const View& v) {  // v[::-2] along the first axis
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
      DispatchDType(dtype, [&](auto tag) {
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
      rtol = t == DType::kFloat16 ? 2e-3 : (t == DType::kFloat32 || t == DType::kComplex64) ? 2e-5 : 1e-12;
    }
    for (int64_t i = 0; i < n; ++i) {
      kernels::c128 a, b;
      DispatchDType(t, [&](auto tag) {
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

class CudaVsCpuDType : public CudaVsCpu, public testing::WithParamInterface<DType> {};

// Input layouts of elementwise tests: each yields an input of shape `shape`.
struct Layout {
  std::string name;
  Shape base;  // shape of the uploaded array
  std::function<View(const View&)> view;
};
std::vector<Layout> Layouts() {
  auto id = [](const View& v) { return v; };
  return {
      {"contiguous_tail", {1003}, id},
      {"vector_exact", {4096}, id},
      {"zero_d", {}, id},
      {"empty", {0, 5}, id},
      {"transposed", {29, 37}, TransposeView},
      {"reversed_step2", {61, 3, 5}, ReverseStep2},
      {"broadcast", {1, 37},
       [](const View& v) { return *BroadcastTo(v, Shape{29, 37}); }},
  };
}

TEST_P(CudaVsCpuDType, CopyToEveryDType) {
  const DType from = GetParam();
  for (const Layout& l : Layouts()) {
    Pair src = Derive(Random(from, l.base, -100, 100), l.view);
    for (DType to : AllDTypes()) {
      Pair dst = Output(to, src.c.shape);
      Both([&](Stream* s, const View*) {
        return s == cs_ ? s->Copy(src.c, dst.c) : s->Copy(src.g, dst.g);
      }, "copy");
      ExpectSame(dst, absl::StrCat("copy ", l.name, " to ", DTypeName(to)));
    }
  }
  // Strided destination.
  Pair src = Random(from, {37, 29}, -100, 100);
  Pair dst = Derive(Output(from, {29, 37}), TransposeView);
  Both([&](Stream* s, const View*) { return s == cs_ ? s->Copy(src.c, dst.c) : s->Copy(src.g, dst.g); },
       "copy");
  ExpectSame(dst, "copy into a transposed view");
}

TEST_P(CudaVsCpuDType, Fill) {
  const DType t = GetParam();
  const Scalar values[] = {Scalar::Int(-3),        Scalar::UInt(250),      Scalar::Float(2.5),
                           Scalar::Float(-1e10),  Scalar::Float(NAN),     Scalar::Complex(1.5, -2),
                           Scalar::Bool(true),    Scalar::Int(INT64_MIN)};
  for (const Scalar& v : values) {
    for (bool strided : {false, true}) {
      Pair out = strided ? Derive(Output(t, {31, 17}), TransposeView) : Output(t, {1001});
      Both([&](Stream* s, const View*) { return s->Fill(s == cs_ ? out.c : out.g, v); }, "fill");
      ExpectSame(out, absl::StrCat("fill kind ", v.kind, strided ? " strided" : ""));
    }
  }
}

TEST_P(CudaVsCpuDType, Iota) {
  const DType t = GetParam();
  const std::pair<Scalar, Scalar> ranges[] = {
      {Scalar::Int(-5), Scalar::Int(3)},
      {Scalar::UInt(2), Scalar::UInt(3)},
      {Scalar::Float(0.5), Scalar::Float(0.1)},
      {Scalar::Complex(1, 2), Scalar::Complex(0.5, -1)},
  };
  for (const auto& [start, step] : ranges) {
    for (bool strided : {false, true}) {
      Pair out = strided ? Derive(Output(t, {2001}), ReverseStep2) : Output(t, {1001});
      Both([&](Stream* s, const View*) { return s->Iota(s == cs_ ? out.c : out.g, start, step); },
           "iota");
      ExpectSame(out, absl::StrCat("iota kind ", start.kind, strided ? " strided" : ""));
    }
  }
}

TEST_P(CudaVsCpuDType, EveryUfunc) {
  const DType t = GetParam();
  for (const OpRow& row : AllOps()) {
    const DType r = row.result(t);
    if (r == DType::kInvalid) continue;
    for (const Layout& l : Layouts()) {
      Pair a = Derive(Random(t, l.base, -9, 9, 1), l.view);
      Pair b = Derive(Random(t, l.base, -9, 9, 2), l.view);
      if (l.name == "broadcast") b = Random(t, a.c.shape, -9, 9, 3);  // one broadcast operand
      Pair out = Output(r, a.c.shape);
      const std::string what = absl::StrCat(row.c.name, " ", l.name);
      Both([&](Stream* s, const View*) {
        const bool cpu = s == cs_;
        if (row.c.arity == 1) {
          return s->Unary(static_cast<kernels::UnaryOp>(row.c.op), cpu ? a.c : a.g, cpu ? out.c : out.g);
        }
        return s->Binary(static_cast<kernels::BinaryOp>(row.c.op), cpu ? a.c : a.g, cpu ? b.c : b.g,
                         cpu ? out.c : out.g);
      }, what);
      // Complex power uses exp/log/sin/cos, whose GPU versions differ by
      // an ulp or two, magnified by the exponent.
      const double rtol = row.c.name != "power" || !IsComplex(t) ? 0
                          : t == DType::kComplex64                ? 2e-4
                                                                  : 1e-10;
      ExpectSame(out, what, rtol);
    }
  }
}

TEST_P(CudaVsCpuDType, UnsupportedDTypeIsTypeErrorOnBoth) {
  const DType t = GetParam();
  for (const OpRow& row : AllOps()) {
    if (row.result(t) != DType::kInvalid || row.c.arity != 2) continue;
    Pair a = Random(t, {4}, 0, 3);
    Pair out = Output(t, {4});
    absl::Status g = gs_->Binary(static_cast<kernels::BinaryOp>(row.c.op), a.g, a.g, out.g);
    absl::Status c = cs_->Binary(static_cast<kernels::BinaryOp>(row.c.op), a.c, a.c, out.c);
    EXPECT_EQ(g.code(), c.code()) << row.c.name;
    EXPECT_EQ(ErrorKind(g), "TypeError") << row.c.name << ": " << g;
  }
}

struct ReduceCase {
  Shape shape;
  std::vector<int> axes;
  bool transpose = false;
};

TEST_P(CudaVsCpuDType, Reduce) {
  const DType t = GetParam();
  const std::vector<ReduceCase> cases = {
      {{6, 7, 130}, {}},        {{6, 7, 130}, {0}},      {{6, 7, 130}, {1}},
      {{6, 7, 130}, {2}},       {{6, 7, 130}, {0, 2}},   {{6, 7, 130}, {0, 1, 2}},
      {{6, 7, 130}, {1}, true}, {{6, 7, 130}, {0, 2}, true},
      {{0, 4}, {0}},            {{4, 0}, {1}},           {{}, {}},
      {{(1 << 20) + 3}, {0}},   {{3, 100003}, {1}},      {{50, 20000}, {0}},
      {{20000, 50}, {0}},       {{2000, 40}, {1}},
  };
  const char* names[] = {"sum", "prod", "min", "max", "all", "any"};
  for (int op = 0; op < 6; ++op) {
    for (const ReduceCase& rc : cases) {
      const bool big = ShapeSize(rc.shape) > 100000;
      if (op == 1 && big) continue;  // products of a million values only overflow
      // Products near 1; sums of non-negative values (no cancellation).
      const double lo = op == 1 ? 0.5 : IsInexact(t) ? 0 : -9, hi = op == 1 ? 1.5 : 9;
      Pair in = Random(t, rc.shape, lo, hi, 7, op >= 2 && op <= 3 && !big ? 97 : 0);
      if (rc.transpose) in = Derive(in, TransposeView);
      Shape out_shape;
      for (int d = 0; d < in.c.ndim(); ++d) {
        if (std::find(rc.axes.begin(), rc.axes.end(), d) == rc.axes.end()) {
          out_shape.push_back(in.c.shape[d]);
        }
      }
      const DType out_t = op >= 4 ? DType::kBool : t;
      Pair out = Output(out_t, out_shape);
      const std::string what =
          absl::StrCat(names[op], " ", ShapeString(rc.shape), " axes ", rc.axes.size(),
                       rc.axes.empty() ? "" : absl::StrCat(" first ", rc.axes[0]),
                       rc.transpose ? " transposed" : "");
      Both([&](Stream* s, const View*) {
        const bool cpu = s == cs_;
        return s->Reduce(static_cast<kernels::ReduceOp>(op), cpu ? in.c : in.g, rc.axes,
                         cpu ? out.c : out.g);
      }, what);
      // Float sums differ in order (tree vs. sequential in double).
      ExpectSame(out, what, t == DType::kFloat32 || t == DType::kComplex64 ? 2e-4 : 0);
    }
  }
}

TEST_P(CudaVsCpuDType, ArgReduce) {
  const DType t = GetParam();
  struct Case {
    Shape shape;
    int axis;
    int nan_every;
  };
  const Case cases[] = {{{6, 7, 130}, 0, 0}, {{6, 7, 130}, 1, 0}, {{6, 7, 130}, 2, 0},
                        {{6, 7, 130}, 2, 53}, {{1 << 20}, 0, 0}, {{1 << 20}, 0, 300001},
                        {{50, 20000}, 0, 0}, {{3, 100003}, 1, 0}, {{5}, 0, 0}};
  for (const Case& c : cases) {
    // Few distinct values: many ties, so "first occurrence" is tested.
    Pair in = Random(t, c.shape, -3, 3, 11, c.nan_every);
    Shape out_shape = in.c.shape;
    out_shape.erase(out_shape.begin() + c.axis);
    for (auto op : {kernels::ArgReduceOp::kArgMin, kernels::ArgReduceOp::kArgMax}) {
      Pair out = Output(DType::kInt64, out_shape);
      const std::string what = absl::StrCat(op == kernels::ArgReduceOp::kArgMax ? "argmax " : "argmin ",
                                            ShapeString(c.shape), " axis ", c.axis, " nan ", c.nan_every);
      Both([&](Stream* s, const View*) {
        const bool cpu = s == cs_;
        return s->ArgReduce(op, cpu ? in.c : in.g, c.axis, cpu ? out.c : out.g);
      }, what);
      ExpectSame(out, what);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, CudaVsCpuDType, testing::ValuesIn(AllDTypes()),
                         DTypeParamName);

// ---- where, gather, scatter, nonzero, sort, matmul -----------------------

// An int64 array of `shape` holding `values` on both backends.
Pair UploadInt64(CudaVsCpu* t, const Shape& shape, const std::vector<int64_t>& values);

TEST_P(CudaVsCpuDType, Where) {
  const DType t = GetParam();
  for (const Layout& l : Layouts()) {
    Pair cond = Derive(Random(DType::kBool, l.base, 0, 1, 5), l.view);
    Pair x = Derive(Random(t, l.base, -9, 9, 1), l.view);
    Pair y = Random(t, cond.c.shape, -9, 9, 2);
    Pair out = Output(t, cond.c.shape);
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->Where(cpu ? cond.c : cond.g, cpu ? x.c : x.g, cpu ? y.c : y.g, cpu ? out.c : out.g);
    }, "where");
    ExpectSame(out, absl::StrCat("where ", l.name));
  }
}

// Random in-range flat positions (with repeats) into an array of `size`.
std::vector<int64_t> RandomPositions(int64_t count, int64_t size, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> out(static_cast<size_t>(count));
  for (int64_t& v : out) v = std::uniform_int_distribution<int64_t>(0, size - 1)(rng);
  return out;
}

TEST_P(CudaVsCpuDType, Gather) {
  const DType t = GetParam();
  for (const Layout& l : Layouts()) {
    if (l.name == "empty") continue;
    Pair in = Derive(Random(t, l.base, -100, 100, 3), l.view);
    const int64_t size = in.c.size();
    for (const Shape& ishape : {Shape{3, 50}, Shape{}, Shape{0}, Shape{1001}}) {
      Pair index = UploadInt64(this, ishape, RandomPositions(ShapeSize(ishape), size, 9));
      Pair out = Output(t, ishape);
      const std::string what = absl::StrCat("gather from ", l.name, " index ", ShapeString(ishape));
      Both([&](Stream* s, const View*) {
        const bool cpu = s == cs_;
        return s->Gather(cpu ? in.c : in.g, cpu ? index.c : index.g, cpu ? out.c : out.g);
      }, what);
      ExpectSame(out, what);
    }
    // A strided index.
    Pair index = Derive(UploadInt64(this, {20, 30}, RandomPositions(600, size, 4)), TransposeView);
    Pair out = Output(t, index.c.shape);
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->Gather(cpu ? in.c : in.g, cpu ? index.c : index.g, cpu ? out.c : out.g);
    }, "gather strided index");
    ExpectSame(out, absl::StrCat("gather from ", l.name, " with a transposed index"));
  }
}

TEST_P(CudaVsCpuDType, Scatter) {
  const DType t = GetParam();
  struct Target {
    std::string name;
    Shape base;
    std::function<View(const View&)> view;
  };
  auto id = [](const View& v) { return v; };
  const Target targets[] = {{"contiguous", {1003}, id},
                            {"transposed", {29, 37}, TransposeView},
                            {"reversed_step2", {61, 3, 5}, ReverseStep2},
                            {"zero_d", {}, id}};
  // Casts are Copy's (tested above): a few source dtypes suffice here.
  std::vector<DType> froms = {t};
  for (DType d : {DType::kFloat64, DType::kBool}) {
    if (d != t) froms.push_back(d);
  }
  for (DType from : froms) {
    for (const Target& tg : targets) {
      // The same garbage on both sides, then the scatter.
      Pair target = Derive(Random(t, tg.base, -50, 50, 21), tg.view);
      const int64_t size = target.c.size();
      // Many repeats: the last write must win.
      for (const Shape& ishape : {Shape{500}, Shape{7, 11}, Shape{}, Shape{0}}) {
        Pair index = UploadInt64(this, ishape, RandomPositions(ShapeSize(ishape), size, 13));
        Pair values = Random(from, ishape, -100, 100, 17);
        const std::string what = absl::StrCat("scatter ", DTypeName(from), " into ", tg.name,
                                              " index ", ShapeString(ishape));
        Both([&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Scatter(cpu ? values.c : values.g, cpu ? index.c : index.g,
                            cpu ? target.c : target.g);
        }, what);
        ExpectSame(target, what);
      }
      // Strided index and values.
      Pair index = Derive(UploadInt64(this, {13, 17}, RandomPositions(221, size, 6)), TransposeView);
      Pair values = Derive(Random(from, {13, 17}, -100, 100, 7), TransposeView);
      Both([&](Stream* s, const View*) {
        const bool cpu = s == cs_;
        return s->Scatter(cpu ? values.c : values.g, cpu ? index.c : index.g,
                          cpu ? target.c : target.g);
      }, "scatter strided");
      ExpectSame(target, absl::StrCat("scatter ", DTypeName(from), " into ", tg.name,
                                      " with transposed index/values"));
    }
  }
}

TEST_F(CudaVsCpu, Nonzero) {
  struct Case {
    std::string name;
    Shape base;
    std::function<View(const View&)> view;
    double density;  // of true values
  };
  auto id = [](const View& v) { return v; };
  const Case cases[] = {
      {"small", {37}, id, 0.5},
      {"all_false", {1000}, id, 0},
      {"all_true", {5000}, id, 1},
      {"zero_d_true", {}, id, 1},
      {"zero_d_false", {}, id, 0},
      {"empty", {0, 3}, id, 0.5},
      {"transposed", {129, 257}, TransposeView, 0.3},
      {"reversed_step2", {61, 3, 5}, ReverseStep2, 0.5},
      {"broadcast", {1, 37}, [](const View& v) { return *BroadcastTo(v, Shape{29, 37}); }, 0.5},
      {"large_sparse", {(1 << 22) + 7}, id, 0.001},
      {"large_dense", {3, (1 << 20) + 5}, id, 0.9},
  };
  for (const Case& c : cases) {
    const int64_t n = ShapeSize(c.base);
    std::mt19937_64 rng(42);
    std::vector<char> bytes(static_cast<size_t>(n));
    for (char& b : bytes) b = std::uniform_real_distribution<double>(0, 1)(rng) < c.density;
    Pair mask = Derive(Upload(DType::kBool, c.base, bytes), c.view);
    // The count, from the CPU's view of the mask.
    std::vector<char> host = Download(cs_, mask.c);
    int64_t count = 0;
    for (char b : host) count += b != 0;
    Pair out = Output(DType::kInt64, {count});
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->Nonzero(cpu ? mask.c : mask.g, cpu ? out.c : out.g);
    }, c.name);
    ExpectSame(out, absl::StrCat("nonzero ", c.name));
  }
}

TEST_P(CudaVsCpuDType, Sort) {
  const DType t = GetParam();
  struct Case {
    Shape shape;
    bool transpose;
    int nan_every;
    double range;  // small ranges: many ties (stability)
  };
  const Case cases[] = {
      {{7, 130}, false, 0, 100},  {{7, 130}, false, 0, 3},   {{3, 1000}, false, 7, 50},
      {{130, 7}, true, 0, 3},     {{1}, false, 0, 10},       {{}, false, 0, 10},
      {{0, 5}, false, 0, 10},     {{5, 0}, false, 0, 10},    {{2, 3, 17}, false, 5, 4},
      {{(1 << 16) + 3}, false, 11, 1000}, {{20000, 3}, false, 0, 2}, {{4, 33}, true, 3, 5},
  };
  for (const Case& c : cases) {
    Pair in = Random(t, c.shape, -c.range, c.range, 31, c.nan_every);
    if (c.transpose) in = Derive(in, TransposeView);
    for (bool with_indices : {false, true}) {
      Pair out = Output(t, in.c.shape);
      Pair ind = Output(DType::kInt64, in.c.shape);
      const std::string what = absl::StrCat("sort ", ShapeString(c.shape), c.transpose ? " transposed" : "",
                                            " nan ", c.nan_every, " range ", c.range,
                                            with_indices ? " with indices" : "");
      Both([&](Stream* s, const View*) {
        const bool cpu = s == cs_;
        return s->Sort(cpu ? in.c : in.g, cpu ? out.c : out.g,
                       with_indices ? (cpu ? &ind.c : &ind.g) : nullptr);
      }, what);
      ExpectSame(out, what);
      if (with_indices) ExpectSame(ind, what + " (indices)");
    }
  }
}

// The same Philox blocks on both backends: uniform bit for bit, normal up
// to the last bits of the two platforms' log/sin/cos. Lengths that end in
// a partial block, counters past 2^32 and keys past 2^63.
TEST_F(CudaVsCpu, RandomStreams) {
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    for (RandomDist dist : {RandomDist::kUniform, RandomDist::kNormal}) {
      for (int64_t n : {int64_t{1}, int64_t{1003}, int64_t{1} << 20}) {
        Pair out = Output(t, {n});
        const uint64_t key = 0x9e3779b97f4a7c15ull, counter = (uint64_t{1} << 32) - 7;
        Both([&](Stream* s, const View*) {
          return s->Random(dist, key, counter, s == cs_ ? out.c : out.g);
        }, "random");
        const bool uniform = dist == RandomDist::kUniform;
        // float32 normals: the GPU's hardware log2 moves radii under ~0.01
        // by up to ~3e-4 (BoxMullerRadius in kernels/functors.h).
        const double atol = !uniform && t == DType::kFloat32 ? 1e-3 : 0;
        ExpectSame(out, absl::StrCat(uniform ? "uniform " : "normal ", DTypeName(t), " n=", n),
                   uniform ? 1e-300 : 0, atol);
      }
    }
  }
}

TEST_F(CudaVsCpu, SortSignedZerosAreEqualAndStable) {
  const double vals[] = {0.0, -0.0, 1.0, -0.0, 0.0, NAN, -1.0, -0.0};
  for (DType t : {DType::kFloat16, DType::kFloat32, DType::kFloat64, DType::kComplex64}) {
    std::vector<char> bytes(8 * ItemSize(t));
    for (int i = 0; i < 8; ++i) {
      DispatchDType(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T v = kernels::Cast<T>(vals[i]);
        std::memcpy(&bytes[i * ItemSize(t)], &v, ItemSize(t));
        return 0;
      });
    }
    Pair in = Upload(t, {8}, bytes);
    Pair out = Output(t, {8});
    Pair ind = Output(DType::kInt64, {8});
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->Sort(cpu ? in.c : in.g, cpu ? out.c : out.g, cpu ? &ind.c : &ind.g);
    }, "sort zeros");
    ExpectSame(ind, absl::StrCat("argsort of signed zeros ", DTypeName(t)));
    // Bytes too: -0.0 and 0.0 keep their order.
    std::vector<char> c = Download(cs_, out.c), g = Download(gs_, out.g);
    EXPECT_TRUE(c == g) << DTypeName(t);
  }
}

TEST_P(CudaVsCpuDType, Matmul) {
  const DType t = GetParam();
  struct Case {
    int64_t batch, m, k, n;
  };
  std::vector<Case> cases = {{1, 1, 1, 1},   {2, 3, 4, 5},  {3, 33, 17, 45}, {1, 64, 0, 7},
                             {0, 2, 3, 4},   {2, 0, 3, 4},  {2, 3, 4, 0},    {1, 130, 257, 66},
                             {5, 16, 16, 16}, {1, 1, 300, 1}};
  if (t == DType::kInt32) cases.push_back({70000, 2, 3, 2});  // over the grid's y limit
  for (const Case& c : cases) {
    // Multiples of 1/8 in [-1, 1]: float sums are exact, so every order agrees.
    const double lo = IsInexact(t) ? -1 : -3, hi = IsInexact(t) ? 1 : 3;
    Pair a = Random(t, {c.batch, c.m, c.k}, lo, hi, 51);
    Pair b = Random(t, {c.batch, c.k, c.n}, lo, hi, 52);
    Pair out = Output(t, {c.batch, c.m, c.n});
    const std::string what = absl::StrCat("matmul ", c.batch, "x", c.m, "x", c.k, "x", c.n);
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->Matmul(cpu ? a.c : a.g, cpu ? b.c : b.g, cpu ? out.c : out.g);
    }, what);
    ExpectSame(out, what);
  }
}

TEST_F(CudaVsCpu, MatmulFloat32IsNotTf32) {
  // 1 + 2**-20 loses its low bits in TF32 (10-bit mantissa) but not in fp32.
  const float x = 1.0f + std::ldexp(1.0f, -20);
  std::vector<char> bytes(sizeof(float));
  std::memcpy(bytes.data(), &x, sizeof(float));
  Pair a = Upload(DType::kFloat32, {1, 1, 1}, bytes);
  Pair out = Output(DType::kFloat32, {1, 1, 1});
  ASSERT_TRUE(gs_->Matmul(a.g, a.g, out.g).ok());
  std::vector<char> g = Download(gs_, out.g);
  float r;
  std::memcpy(&r, g.data(), sizeof(float));
  EXPECT_EQ(r, x * x);
}

Pair UploadInt64(CudaVsCpu* t, const Shape& shape, const std::vector<int64_t>& values) {
  std::vector<char> bytes(values.size() * sizeof(int64_t));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return t->UploadBytes(DType::kInt64, shape, bytes);
}

// Small contiguous ops are launched in groups (kernel_source.h,
// ElementwiseGroupBody). Independent, dependent, in-place and mixed-kernel
// ops, with outputs dropped (back to the pool) between them, must still give
// what the CPU backend gives.
TEST_F(CudaVsCpu, GroupedSmallOpsKeepTheirOrder) {
  const Shape shape{1000};
  Pair a = Random(DType::kFloat32, shape, -4, 4, 1);
  Pair b = Random(DType::kFloat32, shape, -4, 4, 2);
  auto fresh = [&](DType t, const Shape& s) {
    const size_t n = static_cast<size_t>(ShapeSize(s) * ItemSize(t));
    return Pair{MakeContiguousView(*cs_->Allocate(n), t, s), MakeContiguousView(*gs_->Allocate(n), t, s)};
  };
  auto binary = [&](kernels::BinaryOp op, const Pair& x, const Pair& y, const Pair& out) {
    Both([&](Stream* s, const View*) {
      return s == cs_ ? s->Binary(op, x.c, y.c, out.c) : s->Binary(op, x.g, y.g, out.g);
    }, "binary");
  };
  Pair acc = fresh(DType::kFloat32, shape);
  binary(kernels::BinaryOp::kAdd, a, b, acc);
  Pair prev = acc;
  std::vector<Pair> kept;
  for (int i = 0; i < 300; ++i) {
    Pair t = fresh(DType::kFloat32, shape);
    switch (i % 5) {
      case 0:  // independent of every held op
        binary(kernels::BinaryOp::kMultiply, a, b, t);
        break;
      case 1:  // reads the previous result
        binary(kernels::BinaryOp::kSubtract, prev, a, t);
        break;
      case 2:  // writes, in place, what held ops read
        binary(kernels::BinaryOp::kAdd, acc, prev, acc);
        t = acc;
        break;
      case 3:  // another kernel between
        Both([&](Stream* s, const View*) {
          return s == cs_ ? s->Unary(kernels::UnaryOp::kNegative, prev.c, t.c)
                          : s->Unary(kernels::UnaryOp::kNegative, prev.g, t.g);
        }, "negative");
        break;
      case 4:  // an unaligned cast copy
        t = fresh(DType::kFloat64, {999});
        Both([&](Stream* s, const View*) {
          View src = s == cs_ ? prev.c : prev.g;
          src.offset += 4;
          src.shape = {999};
          return s->Copy(src, s == cs_ ? t.c : t.g);
        }, "copy");
        break;
    }
    if (i % 7 == 0) kept.push_back(t);
    if (i % 5 != 4) prev = t;
  }
  ExpectSame(acc, "accumulated in place");
  for (size_t k = 0; k < kept.size(); ++k) ExpectSame(kept[k], absl::StrCat("result ", k * 7));
}

TEST_F(CudaVsCpu, LargeHostCopiesRoundTrip) {
  // Over two staging buffers, not a multiple of their size.
  const size_t n = (size_t{21} << 20) + 123;
  std::vector<char> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<char>(i * 7 + (i >> 13));
  View v = MakeContiguousView(*gs_->Allocate(n), DType::kUInt8, {static_cast<int64_t>(n)});
  ASSERT_TRUE(gs_->CopyFromHost(host.data(), v).ok());
  std::vector<char> back(n);
  ASSERT_TRUE(gs_->CopyToHost(v, back.data()).ok());
  EXPECT_TRUE(back == host);
}

TEST_F(CudaVsCpu, FreedBlocksAreReusedOnTheirStream) {
  void* first;
  {
    auto b = gs_->Allocate(12345);
    ASSERT_TRUE(b.ok());
    first = (*b)->data();
  }
  auto again = gs_->Allocate(12300);  // same 512-byte bin
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->data(), first);
}

TEST_F(CudaVsCpu, HugeAllocationIsMemoryError) {
  auto b = gs_->Allocate(size_t{1} << 50);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(ErrorKind(b.status()), "MemoryError");
  EXPECT_TRUE(GetBackends().gpu->Health().ok());
  // Still usable afterwards.
  auto small = gs_->Allocate(1000);
  EXPECT_TRUE(small.ok()) << small.status();
}

TEST_F(CudaVsCpu, TooManyDimsIsUnimplemented) {
  Shape shape(9, 2);
  Pair a = Random(DType::kInt32, shape, 0, 5);
  View t = TransposeView(a.g);  // reversed axes: nothing merges
  Pair out = Output(DType::kInt32, shape);
  absl::Status s = gs_->Unary(kernels::UnaryOp::kNegative, t, out.g);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
}

TEST_F(CudaVsCpu, ConcurrentStreamsOnThreads) {
  Backends& b = GetBackends();
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto stream = b.gpu->CreateStream();
      if (!stream.ok()) { failures[t] = 1; return; }
      Stream* s = stream->get();
      const int64_t n = 100000 + t;
      View x = MakeContiguousView(*s->Allocate(n * 8), DType::kInt64, {n});
      View y = MakeContiguousView(*s->Allocate(n * 8), DType::kInt64, {n});
      for (int it = 0; it < 20; ++it) {
        if (!s->Iota(x, Scalar::Int(t), Scalar::Int(1)).ok() ||
            !s->Binary(kernels::BinaryOp::kAdd, x, x, y).ok()) {
          failures[t] = 1;
        }
      }
      std::vector<int64_t> host(n);
      if (!s->CopyToHost(y, host.data()).ok()) failures[t] = 1;
      for (int64_t i = 0; i < n; ++i) {
        if (host[i] != 2 * (t + i)) { failures[t] = 1; break; }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}


// =========================================================================
// Linear algebra and FFTs: GPU vs CPU where the result is unique, and the
// defining properties (A = QR, A = U S V^H, ...) checked on the host.
// =========================================================================
using Cd = std::complex<double>;

// Row-major (m x k) @ (k x n) of one matrix.
std::vector<Cd> HostMatmul(const Cd* a, const Cd* b, int64_t m, int64_t k, int64_t n) {
  std::vector<Cd> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = 0; p < k; ++p) {
      const Cd x = a[i * k + p];
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += x * b[p * n + j];
    }
  }
  return c;
}

// The conjugate transpose (n x m) of a row-major m x n matrix.
std::vector<Cd> HostAdjoint(const Cd* a, int64_t m, int64_t n) {
  std::vector<Cd> t(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) t[j * m + i] = std::conj(a[i * n + j]);
  }
  return t;
}

std::vector<Cd> HostIdentity(int64_t n) {
  std::vector<Cd> e(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i) e[i * n + i] = 1;
  return e;
}

class CudaVsCpuLinalg : public CudaVsCpu, public testing::WithParamInterface<DType> {
 protected:
  // Values converted to `dtype` (imaginary parts dropped for real dtypes).
  Pair UploadValues(DType dtype, const Shape& shape, const std::vector<Cd>& values) {
    const int item = ItemSize(dtype);
    std::vector<char> bytes(values.size() * static_cast<size_t>(item));
    for (size_t i = 0; i < values.size(); ++i) {
      DispatchDType(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T v = kernels::Cast<T>(kernels::c128(values[i].real(), values[i].imag()));
        std::memcpy(&bytes[i * item], &v, item);
        return 0;
      });
    }
    return Upload(dtype, shape, bytes);
  }

  std::vector<Cd> Values(Stream* s, const View& v) {
    EXPECT_TRUE(s->Synchronize().ok());
    std::vector<char> bytes = Download(s, v);
    const int item = ItemSize(v.dtype);
    std::vector<Cd> out(static_cast<size_t>(v.size()));
    for (size_t i = 0; i < out.size(); ++i) {
      DispatchDType(v.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T x;
        std::memcpy(&x, &bytes[i * item], item);
        kernels::c128 c = kernels::Cast<kernels::c128>(x);
        out[i] = Cd(c.re, c.im);
        return 0;
      });
    }
    return out;
  }

  // Uniform in [-1, 1) (both parts for complex dtypes); continuous values,
  // so that LU's pivots have no ties.
  static std::vector<Cd> RandomValues(DType dtype, int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<Cd> v(static_cast<size_t>(n));
    for (Cd& x : v) {
      const double re = u(rng), im = u(rng);
      x = IsComplex(dtype) ? Cd(re, im) : Cd(re, 0);
    }
    return v;
  }

  // A random Hermitian positive definite batch: B B^H + n I.
  static std::vector<Cd> RandomHpd(DType dtype, int64_t batch, int64_t n, uint64_t seed) {
    std::vector<Cd> b = RandomValues(dtype, batch * n * n, seed), out;
    for (int64_t k = 0; k < batch; ++k) {
      const Cd* bk = &b[k * n * n];
      std::vector<Cd> a = HostMatmul(bk, HostAdjoint(bk, n, n).data(), n, n, n);
      for (int64_t i = 0; i < n; ++i) a[i * n + i] += static_cast<double>(n);
      out.insert(out.end(), a.begin(), a.end());
    }
    return out;
  }

  // A random Hermitian batch: (B + B^H) / 2.
  static std::vector<Cd> RandomHermitian(DType dtype, int64_t batch, int64_t n, uint64_t seed) {
    std::vector<Cd> b = RandomValues(dtype, batch * n * n, seed), out(b.size());
    for (int64_t k = 0; k < batch; ++k) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          out[k * n * n + i * n + j] =
              (b[k * n * n + i * n + j] + std::conj(b[k * n * n + j * n + i])) / 2.0;
        }
      }
    }
    return out;
  }

  // Relative tolerance of the dtype's precision for small factorizations.
  static double Tol(DType t) {
    return (t == DType::kFloat32 || t == DType::kComplex64) ? 1e-3 : 1e-9;
  }

  // max |want - got| <= tol * max(1, max |want|).
  static void ExpectClose(const std::vector<Cd>& want, const std::vector<Cd>& got, double tol,
                          const std::string& what) {
    ASSERT_EQ(want.size(), got.size()) << what;
    double scale = 1, worst = 0;
    size_t at = 0;
    for (const Cd& w : want) scale = std::max(scale, std::abs(w));
    for (size_t i = 0; i < want.size(); ++i) {
      const double d = std::abs(want[i] - got[i]);
      if (!(d <= worst)) {  // NaN counts as worst
        worst = d;
        at = i;
      }
    }
    EXPECT_TRUE(worst <= tol * scale)
        << what << ": element " << at << " want " << want[at] << " got " << got[at]
        << " (max error " << worst << ", allowed " << tol * scale << ")";
  }

  void ExpectPairClose(const Pair& p, double tol, const std::string& what) {
    ExpectClose(Values(cs_, p.c), Values(gs_, p.g), tol, what);
  }

  // A matrix of a batch (row-major rows x cols) out of host values.
  static const Cd* Mat(const std::vector<Cd>& v, int64_t b, int64_t rows, int64_t cols) {
    return v.data() + b * rows * cols;
  }
};

TEST_P(CudaVsCpuLinalg, LuFactorAndSolve) {
  const DType t = GetParam();
  struct Case {
    int64_t batch, n, k;
  };
  for (const Case& c : std::vector<Case>{{1, 1, 1}, {2, 3, 2}, {3, 17, 5}, {2, 64, 3}, {0, 4, 2}}) {
    const std::string what = absl::StrCat(DTypeName(t), " batch ", c.batch, " n ", c.n);
    const std::vector<Cd> a_host = RandomValues(t, c.batch * c.n * c.n, 61 + c.n);
    Pair a = UploadValues(t, {c.batch, c.n, c.n}, a_host);
    Pair piv = Output(DType::kInt32, {c.batch, c.n});
    Pair info = Output(DType::kInt32, {c.batch});
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->LuFactor(cpu ? a.c : a.g, cpu ? piv.c : piv.g, cpu ? info.c : info.g);
    }, "LuFactor " + what);
    ExpectPairClose(a, Tol(t), "LU factors " + what);
    ExpectSame(piv, "LU pivots " + what);
    ExpectSame(info, "LU info " + what);
    for (const Cd& i : Values(gs_, info.g)) EXPECT_EQ(i, Cd(0)) << what;

    const std::vector<Cd> b_host = RandomValues(t, c.batch * c.n * c.k, 71 + c.n);
    Pair b = UploadValues(t, {c.batch, c.n, c.k}, b_host);
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->LuSolve(cpu ? a.c : a.g, cpu ? piv.c : piv.g, cpu ? b.c : b.g);
    }, "LuSolve " + what);
    ExpectPairClose(b, Tol(t) * c.n, "LU solve " + what);
    // A X = B, independently of the CPU backend.
    const std::vector<Cd> x = Values(gs_, b.g);
    for (int64_t k = 0; k < c.batch; ++k) {
      ExpectClose(std::vector<Cd>(Mat(b_host, k, c.n, c.k), Mat(b_host, k, c.n, c.k) + c.n * c.k),
                  HostMatmul(Mat(a_host, k, c.n, c.n), Mat(x, k, c.n, c.k), c.n, c.n, c.k),
                  Tol(t) * c.n * 10, "A X = B " + what);
    }
  }
}

TEST_P(CudaVsCpuLinalg, LuFactorOfSingularMatricesReportsInfo) {
  const DType t = GetParam();
  const int64_t n = 4;
  std::vector<Cd> a_host = RandomValues(t, 3 * n * n, 81);
  for (int64_t i = 0; i < n; ++i) a_host[n * n + i * n + 2] = 0;  // matrix 1: column 2 zero
  for (int64_t i = 0; i < n * n; ++i) a_host[2 * n * n + i] = 0;  // matrix 2: zero
  Pair a = UploadValues(t, {3, n, n}, a_host);
  Pair piv = Output(DType::kInt32, {3, n});
  Pair info = Output(DType::kInt32, {3});
  Both([&](Stream* s, const View*) {
    const bool cpu = s == cs_;
    return s->LuFactor(cpu ? a.c : a.g, cpu ? piv.c : piv.g, cpu ? info.c : info.g);
  }, "LuFactor singular");
  // LAPACK reports the first zero pivot (3 and 1 here); NumPy needs only
  // info > 0, which is what both backends must agree on.
  const std::vector<Cd> got = Values(gs_, info.g), want = Values(cs_, info.c);
  EXPECT_EQ(got[0], Cd(0)) << DTypeName(t);
  EXPECT_GT(got[1].real(), 0) << DTypeName(t);
  EXPECT_GT(got[2].real(), 0) << DTypeName(t);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(got[i] == Cd(0), want[i] == Cd(0)) << "matrix " << i;
  EXPECT_EQ(want[1], Cd(3)) << "CPU (LAPACK) info of a zero column 2";
}

TEST_P(CudaVsCpuLinalg, Cholesky) {
  const DType t = GetParam();
  for (int64_t n : {1, 4, 33}) {
    const int64_t batch = 2;
    const std::string what = absl::StrCat(DTypeName(t), " n ", n);
    const std::vector<Cd> a_host = RandomHpd(t, batch, n, 91 + n);
    Pair a = UploadValues(t, {batch, n, n}, a_host);
    Pair info = Output(DType::kInt32, {batch});
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->Cholesky(cpu ? a.c : a.g, cpu ? info.c : info.g);
    }, "Cholesky " + what);
    ExpectPairClose(a, Tol(t), "Cholesky " + what);
    ExpectSame(info, "Cholesky info " + what);

    // Only the lower triangle is read: garbage above it changes nothing,
    // and L's strict upper triangle is exactly zero.
    std::vector<Cd> garbage = a_host;
    for (int64_t k = 0; k < batch; ++k) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i + 1; j < n; ++j) garbage[k * n * n + i * n + j] = Cd(1e3, -7);
      }
    }
    Pair g = UploadValues(t, {batch, n, n}, garbage);
    ASSERT_TRUE(gs_->Cholesky(g.g, info.g).ok());
    const std::vector<Cd> l = Values(gs_, g.g);
    for (int64_t k = 0; k < batch; ++k) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i + 1; j < n; ++j) {
          ASSERT_EQ(l[k * n * n + i * n + j], Cd(0)) << what << " L[" << i << "][" << j << "]";
        }
      }
      const Cd* lk = Mat(l, k, n, n);
      ExpectClose(std::vector<Cd>(Mat(a_host, k, n, n), Mat(a_host, k, n, n) + n * n),
                  HostMatmul(lk, HostAdjoint(lk, n, n).data(), n, n, n), Tol(t),
                  "L L^H = A " + what);
    }
  }
}

TEST_P(CudaVsCpuLinalg, CholeskyOfNotPositiveDefiniteReportsInfo) {
  const DType t = GetParam();
  const int64_t n = 4;
  std::vector<Cd> a_host = RandomHpd(t, 2, n, 101);
  for (int64_t i = 0; i < n * n; ++i) a_host[n * n + i] = 0;
  for (int64_t i = 0; i < n; ++i) a_host[n * n + i * n + i] = i == 1 ? -1 : 1;  // diag(1, -1, 1, 1)
  Pair a = UploadValues(t, {2, n, n}, a_host);
  Pair info = Output(DType::kInt32, {2});
  Both([&](Stream* s, const View*) {
    const bool cpu = s == cs_;
    return s->Cholesky(cpu ? a.c : a.g, cpu ? info.c : info.g);
  }, "Cholesky not PD");
  // LAPACK reports the order of the first leading minor that is not
  // positive definite (2); NumPy needs only info > 0.
  const std::vector<Cd> got = Values(gs_, info.g), want = Values(cs_, info.c);
  EXPECT_EQ(got[0], Cd(0)) << DTypeName(t);
  EXPECT_GT(got[1].real(), 0) << DTypeName(t);
  EXPECT_EQ(want[0], Cd(0));
  EXPECT_EQ(want[1], Cd(2)) << "CPU (LAPACK) info";
}

TEST_P(CudaVsCpuLinalg, Qr) {
  const DType t = GetParam();
  struct Case {
    int64_t batch, m, n;
    bool complete;
  };
  for (const Case& c : std::vector<Case>{{2, 5, 3, true},
                                         {2, 5, 3, false},
                                         {2, 3, 5, true},
                                         {2, 3, 5, false},
                                         {1, 4, 4, false},
                                         {3, 1, 1, true},
                                         {1, 40, 17, true},
                                         {1, 17, 40, false},
                                         {2, 3, 0, true}}) {
    const int64_t mn = std::min(c.m, c.n), k = c.complete ? c.m : mn;
    const std::string what = absl::StrCat(DTypeName(t), " ", c.batch, "x", c.m, "x", c.n,
                                          c.complete ? " complete" : " reduced");
    const std::vector<Cd> a_host = RandomValues(t, c.batch * c.m * c.n, 111 + c.m);
    Pair a = UploadValues(t, {c.batch, c.m, c.n}, a_host);
    Pair q = Output(t, {c.batch, c.m, k});
    Pair r = Output(t, {c.batch, k, c.n});
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->Qr(cpu ? a.c : a.g, cpu ? q.c : q.g, cpu ? r.c : r.g);
    }, "Qr " + what);
    const std::vector<Cd> qg = Values(gs_, q.g), rg = Values(gs_, r.g);
    const std::vector<Cd> qc = Values(cs_, q.c), rc = Values(cs_, r.c);
    // Householder signs may differ between libraries: compare |R| and the
    // moduli of Q's first min(m, n) columns (the rest is any orthonormal
    // completion).
    std::vector<Cd> rg_abs, rc_abs, qg_abs, qc_abs;
    for (size_t i = 0; i < rg.size(); ++i) {
      rg_abs.push_back(std::abs(rg[i]));
      rc_abs.push_back(std::abs(rc[i]));
    }
    for (size_t i = 0; i < qg.size(); ++i) {
      if (static_cast<int64_t>(i) % k >= mn) continue;
      qg_abs.push_back(std::abs(qg[i]));
      qc_abs.push_back(std::abs(qc[i]));
    }
    ExpectClose(rc_abs, rg_abs, Tol(t), "|R| " + what);
    ExpectClose(qc_abs, qg_abs, Tol(t), "|Q| " + what);
    for (int64_t b = 0; b < c.batch; ++b) {
      const Cd* qb = Mat(qg, b, c.m, k);
      const Cd* rb = Mat(rg, b, k, c.n);
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t j = 0; j < std::min(i, c.n); ++j) {
          ASSERT_EQ(rb[i * c.n + j], Cd(0)) << what << " R[" << i << "][" << j << "]";
        }
      }
      ExpectClose(std::vector<Cd>(Mat(a_host, b, c.m, c.n), Mat(a_host, b, c.m, c.n) + c.m * c.n),
                  HostMatmul(qb, rb, c.m, k, c.n), Tol(t), "QR = A " + what);
      ExpectClose(HostIdentity(k), HostMatmul(HostAdjoint(qb, c.m, k).data(), qb, k, c.m, k),
                  Tol(t), "Q^H Q = I " + what);
    }
  }
}

TEST_P(CudaVsCpuLinalg, Svd) {
  const DType t = GetParam();
  const DType rt = RealDType(t);
  struct Case {
    int64_t batch, m, n;
    bool full, vectors;
  };
  for (const Case& c : std::vector<Case>{{2, 5, 3, false, true},
                                         {2, 5, 3, true, true},
                                         {2, 3, 5, false, true},
                                         {2, 3, 5, true, true},
                                         {1, 4, 4, true, true},
                                         {2, 6, 4, false, false},
                                         {2, 4, 6, false, false},
                                         {1, 1, 1, true, true},
                                         {1, 30, 20, false, true},
                                         {1, 20, 30, true, true},
                                         {2, 0, 3, true, true}}) {
    const int64_t mn = std::min(c.m, c.n);
    const int64_t ku = c.full ? c.m : mn, kv = c.full ? c.n : mn;
    const std::string what = absl::StrCat(DTypeName(t), " ", c.batch, "x", c.m, "x", c.n,
                                          c.full ? " full" : " reduced",
                                          c.vectors ? "" : " values only");
    const std::vector<Cd> a_host = RandomValues(t, c.batch * c.m * c.n, 121 + c.m * 7 + c.n);
    Pair a = UploadValues(t, {c.batch, c.m, c.n}, a_host);
    Pair sv = Output(rt, {c.batch, mn});
    Pair u = Output(t, {c.batch, c.m, ku});
    Pair vh = Output(t, {c.batch, kv, c.n});
    Pair info = Output(DType::kInt32, {c.batch});
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->Svd(cpu ? a.c : a.g, cpu ? sv.c : sv.g,
                    c.vectors ? (cpu ? &u.c : &u.g) : nullptr,
                    c.vectors ? (cpu ? &vh.c : &vh.g) : nullptr, cpu ? info.c : info.g);
    }, "Svd " + what);
    ExpectPairClose(sv, Tol(t), "singular values " + what);
    ExpectSame(info, "SVD info " + what);
    const std::vector<Cd> s = Values(gs_, sv.g);
    for (int64_t b = 0; b < c.batch; ++b) {
      for (int64_t i = 0; i < mn; ++i) {
        EXPECT_GE(s[b * mn + i].real(), 0) << what;
        if (i > 0) {
          EXPECT_LE(s[b * mn + i].real(), s[b * mn + i - 1].real()) << what;
        }
      }
    }
    if (!c.vectors) continue;
    const std::vector<Cd> ug = Values(gs_, u.g), vg = Values(gs_, vh.g);
    for (int64_t b = 0; b < c.batch; ++b) {
      const Cd* ub = Mat(ug, b, c.m, ku);
      const Cd* vb = Mat(vg, b, kv, c.n);
      // u[:, :mn] diag(s) vh[:mn, :] = A
      std::vector<Cd> us(static_cast<size_t>(c.m * mn)), vs(static_cast<size_t>(mn * c.n));
      for (int64_t i = 0; i < c.m; ++i) {
        for (int64_t j = 0; j < mn; ++j) us[i * mn + j] = ub[i * ku + j] * s[b * mn + j];
      }
      for (int64_t i = 0; i < mn * c.n; ++i) vs[i] = vb[i];
      ExpectClose(std::vector<Cd>(Mat(a_host, b, c.m, c.n), Mat(a_host, b, c.m, c.n) + c.m * c.n),
                  HostMatmul(us.data(), vs.data(), c.m, mn, c.n), Tol(t), "U S Vh = A " + what);
      ExpectClose(HostIdentity(ku), HostMatmul(HostAdjoint(ub, c.m, ku).data(), ub, ku, c.m, ku),
                  Tol(t), "U^H U = I " + what);
      ExpectClose(HostIdentity(kv), HostMatmul(vb, HostAdjoint(vb, kv, c.n).data(), kv, c.n, kv),
                  Tol(t), "Vh Vh^H = I " + what);
    }
  }
}

// The general eigenproblem: the CUDA backend runs the CPU's geev on a host
// copy, so both give the same values.
TEST_P(CudaVsCpuLinalg, Eig) {
  const DType t = GetParam();
  const DType ct = RealDType(t) == DType::kFloat32 ? DType::kComplex64 : DType::kComplex128;
  for (int64_t n : {1, 6}) {
    const int64_t batch = 2;
    const std::string what = absl::StrCat(DTypeName(t), " n ", n);
    const std::vector<Cd> a_host = RandomHermitian(t, batch, n, 151 + n);
    Pair a = UploadValues(t, {batch, n, n}, a_host);
    Pair w = Output(ct, {batch, n});
    Pair v = Output(ct, {batch, n, n});
    Pair info = Output(DType::kInt32, {batch});
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->Eig(cpu ? a.c : a.g, cpu ? w.c : w.g, cpu ? &v.c : &v.g, cpu ? info.c : info.g);
    }, "Eig " + what);
    ExpectPairClose(w, Tol(t), "eig values " + what);
    ExpectPairClose(v, Tol(t), "eig vectors " + what);
    ExpectSame(info, "eig info " + what);
  }
}

TEST_P(CudaVsCpuLinalg, Eigh) {
  const DType t = GetParam();
  const DType rt = RealDType(t);
  for (int64_t n : {1, 5, 32}) {
    for (bool vectors : {true, false}) {
      const int64_t batch = 2;
      const std::string what =
          absl::StrCat(DTypeName(t), " n ", n, vectors ? "" : " values only");
      const std::vector<Cd> a_host = RandomHermitian(t, batch, n, 131 + n);
      Pair a = UploadValues(t, {batch, n, n}, a_host);
      const std::vector<Cd> a_before = Values(gs_, a.g);  // rounded to the dtype
      Pair w = Output(rt, {batch, n});
      Pair v = Output(t, {batch, n, n});
      Pair info = Output(DType::kInt32, {batch});
      Both([&](Stream* s, const View*) {
        const bool cpu = s == cs_;
        return s->Eigh(cpu ? a.c : a.g, cpu ? w.c : w.g, vectors ? (cpu ? &v.c : &v.g) : nullptr,
                       cpu ? info.c : info.g);
      }, "Eigh " + what);
      ExpectPairClose(w, Tol(t), "eigenvalues " + what);
      ExpectSame(info, "eigh info " + what);
      const std::vector<Cd> wg = Values(gs_, w.g);
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t i = 1; i < n; ++i) {
          EXPECT_LE(wg[b * n + i - 1].real(), wg[b * n + i].real()) << what;
        }
      }
      // The input is not changed.
      ExpectClose(a_before, Values(gs_, a.g), 0, "eigh input " + what);
      // Only the lower triangle is read.
      std::vector<Cd> garbage = a_host;
      for (int64_t k = 0; k < batch; ++k) {
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = i + 1; j < n; ++j) garbage[k * n * n + i * n + j] = Cd(50, 3);
        }
      }
      Pair g = UploadValues(t, {batch, n, n}, garbage);
      Pair wg2 = Output(rt, {batch, n});
      ASSERT_TRUE(gs_->Eigh(g.g, wg2.g, nullptr, info.g).ok());
      ExpectClose(wg, Values(gs_, wg2.g), Tol(t), "eigenvalues from the lower triangle " + what);
      if (!vectors) continue;
      const std::vector<Cd> vg = Values(gs_, v.g);
      for (int64_t b = 0; b < batch; ++b) {
        const Cd* vb = Mat(vg, b, n, n);
        std::vector<Cd> vw(vb, vb + n * n);
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < n; ++j) vw[i * n + j] *= wg[b * n + j].real();
        }
        ExpectClose(vw, HostMatmul(Mat(a_host, b, n, n), vb, n, n, n), Tol(t),
                    "A v = v w " + what);
        ExpectClose(HostIdentity(n), HostMatmul(HostAdjoint(vb, n, n).data(), vb, n, n, n),
                    Tol(t), "V^H V = I " + what);
      }
    }
  }
}

TEST_F(CudaVsCpu, LinalgOfIntegersIsTypeError) {
  View a = MakeContiguousView(*gs_->Allocate(64), DType::kInt32, {1, 4, 4});
  View piv = MakeContiguousView(*gs_->Allocate(64), DType::kInt32, {1, 4});
  View info = MakeContiguousView(*gs_->Allocate(64), DType::kInt32, {1});
  absl::Status s = gs_->LuFactor(a, piv, info);
  EXPECT_EQ(ErrorKind(s), "TypeError") << s;
  EXPECT_EQ(ErrorKind(gs_->Cholesky(a, info)), "TypeError");
}

INSTANTIATE_TEST_SUITE_P(LinalgDTypes, CudaVsCpuLinalg,
                         testing::Values(DType::kFloat32, DType::kFloat64, DType::kComplex64,
                                         DType::kComplex128),
                         DTypeParamName);

// ---- FFTs -----------------------------------------------------------------

// Unnormalized DFT of one line: sign -1 forward, +1 inverse.
std::vector<Cd> HostDft(const Cd* x, int64_t n, int sign) {
  std::vector<Cd> y(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    Cd acc = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double ang =
          sign * 2 * M_PI * static_cast<double>((j * k) % n) / static_cast<double>(n);
      acc += x[j] * Cd(std::cos(ang), std::sin(ang));
    }
    y[k] = acc;
  }
  return y;
}

// Parameterized by the real dtype; complex transforms use its complex one.
class CudaVsCpuFft : public CudaVsCpuLinalg {
 protected:
  DType Real() const { return GetParam(); }
  DType Complex() const {
    return GetParam() == DType::kFloat32 ? DType::kComplex64 : DType::kComplex128;
  }
  double FftTol() const { return GetParam() == DType::kFloat32 ? 2e-5 : 1e-12; }
};

std::vector<int64_t> FftLengths() { return {1, 2, 3, 8, 12, 17, 97, 128, 1000, 1009, 4096}; }

TEST_P(CudaVsCpuFft, ComplexForwardAndInverse) {
  const DType ct = Complex();
  for (int64_t n : FftLengths()) {
    for (const Shape& lead : std::vector<Shape>{{3}, {2, 2}, {1}}) {
      Shape shape = lead;
      shape.push_back(n);
      const int64_t lines = ShapeSize(shape) / n;
      const std::vector<Cd> x = RandomValues(ct, ShapeSize(shape), 141 + n);
      Pair in = UploadValues(ct, shape, x);
      const std::vector<Cd> x_before = Values(gs_, in.g);  // rounded to the dtype
      for (bool inverse : {false, true}) {
        const std::string what = absl::StrCat(DTypeName(ct), " n ", n, " shape ",
                                              ShapeString(shape), inverse ? " inverse" : "");
        Pair out = Output(ct, shape);
        Both([&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Fft(cpu ? in.c : in.g, cpu ? out.c : out.g, inverse);
        }, "Fft " + what);
        ExpectPairClose(out, FftTol() * std::log2(2.0 * n), "FFT " + what);
        if (n <= 1009 && lead.size() == 1 && lead[0] == 3) {
          const std::vector<Cd> got = Values(gs_, out.g);
          for (int64_t b = 0; b < lines; ++b) {
            ExpectClose(HostDft(&x[b * n], n, inverse ? 1 : -1),
                        std::vector<Cd>(&got[b * n], &got[b * n] + n),
                        FftTol() * std::log2(2.0 * n) * 4, "naive DFT " + what);
          }
        }
        // Out of place: the input is unchanged.
        ExpectClose(x_before, Values(gs_, in.g), 0, "FFT input " + what);
      }
      // In place (in and out the same view).
      Pair inplace = UploadValues(ct, shape, x);
      Both([&](Stream* s, const View*) {
        const bool cpu = s == cs_;
        return s->Fft(cpu ? inplace.c : inplace.g, cpu ? inplace.c : inplace.g, false);
      }, "in-place Fft");
      ExpectPairClose(inplace, FftTol() * std::log2(2.0 * n), absl::StrCat("in-place FFT n ", n));
    }
  }
}

TEST_P(CudaVsCpuFft, RealForwardAndInverse) {
  const DType rt = Real(), ct = Complex();
  for (int64_t n : FftLengths()) {
    const int64_t half = n / 2 + 1, lines = 3;
    const std::string what = absl::StrCat(DTypeName(rt), " n ", n);
    const std::vector<Cd> x = RandomValues(rt, lines * n, 151 + n);
    Pair in = UploadValues(rt, {lines, n}, x);
    const std::vector<Cd> x_before = Values(gs_, in.g);  // rounded to the dtype
    Pair spec = Output(ct, {lines, half});
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->Rfft(cpu ? in.c : in.g, cpu ? spec.c : spec.g);
    }, "Rfft " + what);
    ExpectPairClose(spec, FftTol() * std::log2(2.0 * n), "rfft " + what);
    ExpectClose(x_before, Values(gs_, in.g), 0, "rfft input " + what);
    const std::vector<Cd> got = Values(gs_, spec.g);
    for (int64_t b = 0; b < lines && n <= 1009; ++b) {
      std::vector<Cd> full = HostDft(&x[b * n], n, -1);
      full.resize(static_cast<size_t>(half));
      ExpectClose(full, std::vector<Cd>(&got[b * half], &got[b * half] + half),
                  FftTol() * std::log2(2.0 * n) * 4, "naive rfft " + what);
    }

    // Inverse, from a random half spectrum whose imaginary parts at 0 and
    // n/2 must be ignored (as FFTW and pocketfft do).
    const std::vector<Cd> h = RandomValues(ct, lines * half, 161 + n);
    Pair hin = UploadValues(ct, {lines, half}, h);
    const std::vector<Cd> h_before = Values(gs_, hin.g);  // rounded to the dtype
    Pair back = Output(rt, {lines, n});
    Both([&](Stream* s, const View*) {
      const bool cpu = s == cs_;
      return s->Irfft(cpu ? hin.c : hin.g, cpu ? back.c : back.g);
    }, "Irfft " + what);
    ExpectPairClose(back, FftTol() * std::log2(2.0 * n) * 2, "irfft " + what);
    ExpectClose(h_before, Values(gs_, hin.g), 0, "irfft input " + what);
    const std::vector<Cd> xr = Values(gs_, back.g);
    for (int64_t b = 0; b < lines && n <= 1009; ++b) {
      std::vector<Cd> full(static_cast<size_t>(n));
      for (int64_t k = 0; k < half; ++k) {
        Cd v = h[b * half + k];
        if (k == 0 || 2 * k == n) v = v.real();
        full[k] = v;
        if (k > 0 && n - k != k && n - k < n) full[n - k] = std::conj(v);
      }
      std::vector<Cd> want = HostDft(full.data(), n, 1);
      ExpectClose(want, std::vector<Cd>(&xr[b * n], &xr[b * n] + n),
                  FftTol() * std::log2(2.0 * n) * 8, "naive irfft " + what);
    }
  }
}

TEST_P(CudaVsCpuFft, EmptyBatchIsANoOp) {
  const DType ct = Complex();
  Pair in = Output(ct, {0, 8});
  Pair out = Output(ct, {0, 8});
  EXPECT_TRUE(gs_->Fft(in.g, out.g, false).ok());
  Pair rin = Output(Real(), {0, 8});
  Pair rout = Output(ct, {0, 5});
  EXPECT_TRUE(gs_->Rfft(rin.g, rout.g).ok());
  EXPECT_TRUE(gs_->Irfft(rout.g, rin.g).ok());
}

INSTANTIATE_TEST_SUITE_P(FftDTypes, CudaVsCpuFft,
                         testing::Values(DType::kFloat32, DType::kFloat64), DTypeParamName);

// One shared plan, used from four streams on four threads at once.
TEST_F(CudaVsCpu, FftPlansSharedByConcurrentStreams) {
  Backends& b = GetBackends();
  const int64_t lines = 64, n = 1000;
  std::vector<kernels::c128> x(static_cast<size_t>(lines * n));
  for (size_t i = 0; i < x.size(); ++i) x[i] = kernels::c128(std::sin(0.1 * i), std::cos(0.37 * i));
  // The reference, on the test's stream.
  View in = MakeContiguousView(*gs_->Allocate(x.size() * 16), DType::kComplex128, {lines, n});
  View ref = MakeContiguousView(*gs_->Allocate(x.size() * 16), DType::kComplex128, {lines, n});
  ASSERT_TRUE(gs_->CopyFromHost(x.data(), in).ok());
  ASSERT_TRUE(gs_->Fft(in, ref, false).ok());
  std::vector<kernels::c128> want(x.size());
  ASSERT_TRUE(gs_->CopyToHost(ref, want.data()).ok());
  std::vector<int> failures(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto stream = b.gpu->CreateStream();
      if (!stream.ok()) { failures[t] = 1; return; }
      Stream* s = stream->get();
      View i = MakeContiguousView(*s->Allocate(x.size() * 16), DType::kComplex128, {lines, n});
      View o = MakeContiguousView(*s->Allocate(x.size() * 16), DType::kComplex128, {lines, n});
      if (!s->CopyFromHost(x.data(), i).ok()) failures[t] = 1;
      for (int it = 0; it < 20; ++it) {
        if (!s->Fft(i, o, false).ok()) failures[t] = 1;
      }
      std::vector<kernels::c128> got(x.size());
      if (!s->CopyToHost(o, got.data()).ok()) failures[t] = 1;
      for (size_t k = 0; k < got.size(); ++k) {
        if (std::abs(got[k].re - want[k].re) > 1e-9 || std::abs(got[k].im - want[k].im) > 1e-9) {
          failures[t] = 1;
          break;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace cuda
}  // namespace arrayd
