// Tests of the CUDA backend's Stream methods against the CPU backend on
// every dtype and layout: copies and casts, fill, iota, every ufunc,
// reductions, where, gather, scatter, nonzero, sort, random streams,
// matmul, grouped small ops, host copies, the pool and concurrent streams
// (CudaVsCpu, cuda_vs_cpu_testing.h: they skip when no GPU is visible).
// Also the host-only checks of the status wrappers and the allocator's bins.
// Linear algebra and FFTs: cuda_linalg_fft_test.cc; the generated sources
// alone: kernel_source_test.cc.
#include "backend/cuda/cuda_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend/cuda/caching_allocator.h"
#include "backend/cuda/cublas_status.h"
#include "backend/cuda/cuda_vs_cpu_testing.h"
#include "backend/cuda/solver_fft_status.h"
#include "common/status.h"
#include "gtest/gtest.h"
#include "kernels/functors.h"
#include "kernels/host_dispatch.h"

namespace arrayd {
namespace cuda {
namespace {

using kernels::DispatchDType;

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
      {"broadcast",
       {1, 37},
       [](const View& v) {
         return *BroadcastTo(v, Shape{29, 37});
       }},
  };
}

TEST_P(CudaVsCpuDType, CopyToEveryDType) {
  const DType from = GetParam();
  for (const Layout& l : Layouts()) {
    Pair src = Derive(Random(from, l.base, -100, 100), l.view);
    for (DType to : AllDTypes()) {
      Pair dst = Output(to, src.c.shape);
      Both([&](Stream* s,
               const View*) { return s == cs_ ? s->Copy(src.c, dst.c) : s->Copy(src.g, dst.g); },
           "copy");
      ExpectSame(dst, absl::StrCat("copy ", l.name, " to ", DTypeName(to)));
    }
  }
  // Strided destination.
  Pair src = Random(from, {37, 29}, -100, 100);
  Pair dst = Derive(Output(from, {29, 37}), TransposeView);
  Both([&](Stream* s,
           const View*) { return s == cs_ ? s->Copy(src.c, dst.c) : s->Copy(src.g, dst.g); },
       "copy");
  ExpectSame(dst, "copy into a transposed view");
}

TEST_P(CudaVsCpuDType, Fill) {
  const DType t = GetParam();
  const Scalar values[] = {Scalar::Int(-3),      Scalar::UInt(250),     Scalar::Float(2.5),
                           Scalar::Float(-1e10), Scalar::Float(NAN),    Scalar::Complex(1.5, -2),
                           Scalar::Bool(true),   Scalar::Int(INT64_MIN)};
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
      Both(
          [&](Stream* s, const View*) {
            const bool cpu = s == cs_;
            if (row.c.arity == 1) {
              return s->Unary(static_cast<kernels::UnaryOp>(row.c.op), cpu ? a.c : a.g,
                              cpu ? out.c : out.g);
            }
            return s->Binary(static_cast<kernels::BinaryOp>(row.c.op), cpu ? a.c : a.g,
                             cpu ? b.c : b.g, cpu ? out.c : out.g);
          },
          what);
      // Complex power uses exp/log/sin/cos, whose GPU versions differ by
      // an ulp or two, magnified by the exponent.
      const double rtol = row.c.name != "power" || !IsComplex(t) ? 0
                          : t == DType::kComplex64               ? 2e-4
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
      {{6, 7, 130}, {}},
      {{6, 7, 130}, {0}},
      {{6, 7, 130}, {1}},
      {{6, 7, 130}, {2}},
      {{6, 7, 130}, {0, 2}},
      {{6, 7, 130}, {0, 1, 2}},
      {{6, 7, 130}, {1}, true},
      {{6, 7, 130}, {0, 2}, true},
      {{0, 4}, {0}},
      {{4, 0}, {1}},
      {{}, {}},
      {{(1 << 20) + 3}, {0}},
      {{3, 100003}, {1}},
      {{50, 20000}, {0}},
      {{20000, 50}, {0}},
      {{2000, 40}, {1}},
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
      Both(
          [&](Stream* s, const View*) {
            const bool cpu = s == cs_;
            return s->Reduce(static_cast<kernels::ReduceOp>(op), cpu ? in.c : in.g, rc.axes,
                             cpu ? out.c : out.g);
          },
          what);
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
  const Case cases[] = {{{6, 7, 130}, 0, 0},  {{6, 7, 130}, 1, 0}, {{6, 7, 130}, 2, 0},
                        {{6, 7, 130}, 2, 53}, {{1 << 20}, 0, 0},   {{1 << 20}, 0, 300001},
                        {{50, 20000}, 0, 0},  {{3, 100003}, 1, 0}, {{5}, 0, 0}};
  for (const Case& c : cases) {
    // Few distinct values: many ties, so "first occurrence" is tested.
    Pair in = Random(t, c.shape, -3, 3, 11, c.nan_every);
    Shape out_shape = in.c.shape;
    out_shape.erase(out_shape.begin() + c.axis);
    for (auto op : {kernels::ArgReduceOp::kArgMin, kernels::ArgReduceOp::kArgMax}) {
      Pair out = Output(DType::kInt64, out_shape);
      const std::string what =
          absl::StrCat(op == kernels::ArgReduceOp::kArgMax ? "argmax " : "argmin ",
                       ShapeString(c.shape), " axis ", c.axis, " nan ", c.nan_every);
      Both(
          [&](Stream* s, const View*) {
            const bool cpu = s == cs_;
            return s->ArgReduce(op, cpu ? in.c : in.g, c.axis, cpu ? out.c : out.g);
          },
          what);
      ExpectSame(out, what);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, CudaVsCpuDType, testing::ValuesIn(AllDTypes()), DTypeParamName);

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
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Where(cpu ? cond.c : cond.g, cpu ? x.c : x.g, cpu ? y.c : y.g,
                          cpu ? out.c : out.g);
        },
        "where");
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
      Both(
          [&](Stream* s, const View*) {
            const bool cpu = s == cs_;
            return s->Gather(cpu ? in.c : in.g, cpu ? index.c : index.g, cpu ? out.c : out.g);
          },
          what);
      ExpectSame(out, what);
    }
    // A strided index.
    Pair index = Derive(UploadInt64(this, {20, 30}, RandomPositions(600, size, 4)), TransposeView);
    Pair out = Output(t, index.c.shape);
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Gather(cpu ? in.c : in.g, cpu ? index.c : index.g, cpu ? out.c : out.g);
        },
        "gather strided index");
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
        Both(
            [&](Stream* s, const View*) {
              const bool cpu = s == cs_;
              return s->Scatter(cpu ? values.c : values.g, cpu ? index.c : index.g,
                                cpu ? target.c : target.g);
            },
            what);
        ExpectSame(target, what);
      }
      // Strided index and values.
      Pair index =
          Derive(UploadInt64(this, {13, 17}, RandomPositions(221, size, 6)), TransposeView);
      Pair values = Derive(Random(from, {13, 17}, -100, 100, 7), TransposeView);
      Both(
          [&](Stream* s, const View*) {
            const bool cpu = s == cs_;
            return s->Scatter(cpu ? values.c : values.g, cpu ? index.c : index.g,
                              cpu ? target.c : target.g);
          },
          "scatter strided");
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
      {"broadcast",
       {1, 37},
       [](const View& v) {
         return *BroadcastTo(v, Shape{29, 37});
       },
       0.5},
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
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Nonzero(cpu ? mask.c : mask.g, cpu ? out.c : out.g);
        },
        c.name);
    ExpectSame(out, absl::StrCat("nonzero ", c.name));
  }
}

// The filter kernels (ops/filters.cc): a 3x3 median, a 5x5 weighted sum
// and a min over a cross, on a padded image; lfilter of short rows (one
// chunk) and of long ones (chunks, with zi); label of a random mask.
TEST_F(CudaVsCpu, FilterKernels) {
  const Shape padded = {67, 131};
  const Shape shape = {63, 127};
  Pair img = Random(DType::kFloat32, padded, -4, 4, 7);
  auto inner = [&](const View& v) {
    View w = v;
    w.shape = shape;
    return w;
  };
  Pair in = Derive(img, inner);
  auto inner_of = [](Shape sub) {
    return [sub](const View& v) {
      View w = v;
      w.shape = sub;
      return w;
    };
  };
  auto taps_of = [&](int rows, int cols, bool cross) {
    std::vector<int64_t> t;
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        if (cross && i != rows / 2 && j != cols / 2) continue;
        t.push_back(i * padded[1] * 4 + j * 4);
      }
    }
    return t;
  };
  const std::vector<int64_t> t3 = taps_of(3, 3, false), t5 = taps_of(5, 5, false),
                             tx = taps_of(5, 5, true);
  Pair median = Output(DType::kFloat32, shape), sum = Output(DType::kFloat32, shape),
       low = Output(DType::kFloat32, shape);
  Pair w = Random(DType::kFloat32, {25}, -1, 1, 3);
  Both(
      [&](Stream* s, const View*) {
        const bool c = s == cs_;
        return s->Stencil(c ? in.c : in.g, t3, nullptr, 4, c ? median.c : median.g, nullptr);
      },
      "median");
  ExpectSame(median, "stencil median");
  Both(
      [&](Stream* s, const View*) {
        const bool c = s == cs_;
        return s->Stencil(c ? in.c : in.g, t5, c ? &w.c : &w.g, -1, c ? sum.c : sum.g, nullptr);
      },
      "sum");
  ExpectSame(sum, "stencil sum", 1e-5, 1e-5);
  Both(
      [&](Stream* s, const View*) {
        const bool c = s == cs_;
        return s->Stencil(c ? in.c : in.g, tx, nullptr, 0, c ? low.c : low.g, nullptr);
      },
      "min");
  ExpectSame(low, "stencil min");

  // With a boundary: the unpadded image (a strided view), every mode, taps
  // reaching past its edges; the widest capacity (15 x 15 taps) too.
  Pair raw = Derive(Random(DType::kFloat32, {40, 70}, -4, 4, 9), inner_of({37, 61}));
  auto boundary_of = [&](kernels::Boundary mode, int rows, int cols, const View& v,
                         std::vector<int64_t>* taps) {
    Stream::StencilBoundary b{
        mode, 1.5, {}, {rows / 2, cols / 2}, {rows - 1 - rows / 2, cols - 1 - cols / 2}};
    taps->clear();
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        b.offsets.push_back(i - rows / 2);
        b.offsets.push_back(j - cols / 2);
        taps->push_back((i - rows / 2) * v.strides[0] + (j - cols / 2) * v.strides[1]);
      }
    }
    return b;
  };
  using kernels::Boundary;
  for (Boundary mode : {Boundary::kConstant, Boundary::kEdge, Boundary::kSymmetric,
                        Boundary::kReflect, Boundary::kWrap}) {
    for (auto [rows, cols, rank] : {std::tuple{3, 3, 4}, std::tuple{1, 7, 0}, std::tuple{5, 5, 24},
                                    std::tuple{15, 15, 100}, std::tuple{5, 5, -1}}) {
      std::vector<int64_t> tc, tg;
      Stream::StencilBoundary bc = boundary_of(mode, rows, cols, raw.c, &tc);
      Stream::StencilBoundary bg = boundary_of(mode, rows, cols, raw.g, &tg);
      Pair res = Output(DType::kFloat32, raw.c.shape);
      Pair wts = Random(DType::kFloat32, {rows * cols}, -1, 1, 5);
      const std::string what = absl::StrCat("stencil mode ", static_cast<int>(mode), " ", rows, "x",
                                            cols, " rank ", rank);
      Both(
          [&](Stream* s, const View*) {
            const bool c = s == cs_;
            return s->Stencil(c ? raw.c : raw.g, c ? tc : tg,
                              rank < 0 ? (c ? &wts.c : &wts.g) : nullptr, rank, c ? res.c : res.g,
                              c ? &bc : &bg);
          },
          what);
      ExpectSame(res, what, 1e-5, 1e-5);
    }
  }

  // lfilter: butter(4, 0.2)'s coefficients; rows of 300 and of 20,000.
  const std::vector<double> bb = {0.00482434, 0.01929737, 0.02894606, 0.01929737, 0.00482434};
  const std::vector<double> aa = {1.0, -2.36951301, 2.31398841, -1.05466541, 0.18737949};
  auto bytes_of = [](const std::vector<double>& v) {
    std::vector<char> b(v.size() * 8);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  Pair b = Upload(DType::kFloat64, {5}, bytes_of(bb)),
       a = Upload(DType::kFloat64, {5}, bytes_of(aa));
  for (const Shape& xs : {Shape{3, 300}, Shape{2, 20000}}) {
    Pair x = Random(DType::kFloat64, xs, -1, 1, 11);
    Pair zi = Random(DType::kFloat64, {xs[0], 4}, -1, 1, 12);
    Pair y = Output(DType::kFloat64, xs), zf = Output(DType::kFloat64, {xs[0], 4});
    Both(
        [&](Stream* s, const View*) {
          const bool c = s == cs_;
          return s->LinearFilter(c ? b.c : b.g, c ? a.c : a.g, c ? x.c : x.g, c ? &zi.c : &zi.g,
                                 c ? y.c : y.g, c ? zf.c : zf.g);
        },
        "lfilter");
    ExpectSame(y, absl::StrCat("lfilter y ", xs[1]), 1e-9, 1e-9);
    ExpectSame(zf, absl::StrCat("lfilter zf ", xs[1]), 1e-9, 1e-9);
  }

  // resample along the middle axis of (outer, n, inner): a flat grid
  // (inner 1 and 5) and rows (inner 300); indices past both ends clip.
  // 4 taps a point are compiled in, 7 are not; 1 tap (order 0): its
  // tap-major table is a contiguous copy, one the group of small ops takes.
  for (const Shape& xs :
       {Shape{7, 50, 1}, Shape{3, 40, 5}, Shape{2, 30, 300}, Shape{5, 20, 1}, Shape{4, 9, 3}}) {
    Pair x = Random(DType::kFloat64, xs, -1, 1, 13);
    const int64_t m = 2 * xs[1] + 3, k = xs[1] == 20 ? 7 : (xs[1] == 9 ? 1 : 4);
    std::vector<int64_t> idx(m * k);
    for (int64_t i = 0; i < m * k; ++i) idx[i] = (i * 7919) % (xs[1] + 6) - 3;
    Pair index = UploadInt64(this, {m, k}, idx);
    Pair wts = Random(DType::kFloat64, {m, k}, -1, 1, 14);
    Pair res = Output(DType::kFloat64, {xs[0], m, xs[2]});
    const std::string what = absl::StrCat("resample inner ", xs[2]);
    Both(
        [&](Stream* s, const View*) {
          const bool c = s == cs_;
          return s->Resample(c ? x.c : x.g, c ? index.c : index.g, c ? wts.c : wts.g,
                             c ? res.c : res.g);
        },
        what);
    ExpectSame(res, what, 1e-12, 1e-12);
  }

  // The spline prefilter: one pole (order 3) and two (order 5), each
  // extension, along a contiguous axis (inner 1, chunks of a line a warp)
  // and strided ones, lines shorter than a chunk and of many chunks.
  const kernels::Boundary spline_modes[] = {
      kernels::Boundary::kReflect, kernels::Boundary::kSymmetric, kernels::Boundary::kWrap};
  for (const Shape& xs : {Shape{6, 300, 1}, Shape{2, 70, 33}, Shape{1, 5, 3}, Shape{3, 1000, 2}}) {
    for (DType t : {DType::kFloat64, DType::kComplex128}) {
      for (int order : {3, 5}) {
        for (kernels::Boundary mode : spline_modes) {
          kernels::SplinePoles poles{};
          if (order == 3) {
            poles.count = 1;
            poles.z[0] = std::sqrt(3.0) - 2.0;
            poles.warm[0] = 30;
          } else {
            poles.count = 2;
            poles.z[0] = -0.4305753470999737;
            poles.z[1] = -0.04309628820326465;
            poles.warm[0] = 47;
            poles.warm[1] = 13;
          }
          poles.mode = static_cast<int64_t>(mode);
          Pair x = Random(t, xs, -1, 1, 16);
          Pair res = Output(t, xs);
          const std::string what =
              absl::StrCat("spline ", DTypeName(t), " order ", order, " mode ",
                           static_cast<int>(mode), " n ", xs[1], " inner ", xs[2]);
          Both(
              [&](Stream* s, const View*) {
                const bool c = s == cs_;
                return s->SplineFilter(c ? x.c : x.g, poles, c ? res.c : res.g);
              },
              what);
          ExpectSame(res, what, 1e-12, 1e-12);
        }
      }
    }
  }

  // map_coordinates: 1 to 4 dimensions (4: the kernel's runtime d and
  // order), every fold and tap extension, float32 and float64 coordinates
  // from 3 before the input to 3 past it.
  for (const Shape& cs : {Shape{40}, Shape{30, 20}, Shape{9, 8, 7}, Shape{4, 5, 3, 6}}) {
    const int64_t d = static_cast<int64_t>(cs.size()), points = 997;
    Pair coeffs = Random(DType::kFloat64, cs, -1, 1, 15);
    for (DType ct : {DType::kFloat32, DType::kFloat64}) {
      Pair coords = Random(ct, {d, points}, -3, 40, 16);
      for (int order : {0, 1, 3, 5}) {
        for (auto [fold, taps, constant] :
             {std::tuple{kernels::InterpFold::kNone, Boundary::kReflect, 1},
              std::tuple{kernels::InterpFold::kNone, Boundary::kEdge, 0},
              std::tuple{kernels::InterpFold::kMirror, Boundary::kReflect, 0},
              std::tuple{kernels::InterpFold::kReflect, Boundary::kSymmetric, 0},
              std::tuple{kernels::InterpFold::kWrap, Boundary::kReflect, 0},
              std::tuple{kernels::InterpFold::kGridWrap, Boundary::kWrap, 0}}) {
          kernels::InterpParams p{};
          p.d = d;
          p.order = order;
          p.fold = static_cast<long long>(fold);
          p.tap_mode = static_cast<long long>(taps);
          p.constant = constant;
          p.round0 = order == 0 && fold == kernels::InterpFold::kMirror;
          p.points = points;
          p.space = 1;
          for (int64_t a = d - 1; a >= 0; --a) {
            p.n[a] = cs[a];
            p.stride[a] = p.space;
            p.space *= cs[a];
          }
          p.cval = 0.5;
          p.shift = 0.25;
          Pair res = Output(DType::kFloat64, {points});
          const std::string what = absl::StrCat("map_coordinates d ", d, " order ", order, " fold ",
                                                static_cast<int>(fold), " coords ", DTypeName(ct));
          Both(
              [&](Stream* s, const View*) {
                const bool c = s == cs_;
                return s->MapCoordinates(c ? coeffs.c : coeffs.g, c ? coords.c : coords.g, p,
                                         c ? res.c : res.g);
              },
              what);
          ExpectSame(res, what, 1e-12, 1e-12);
        }
      }
    }
  }

  // label, 8-connectivity's half before the centre.
  std::mt19937_64 rng(5);
  const Shape ms = {300, 401};
  std::vector<char> bits(static_cast<size_t>(ShapeSize(ms)));
  for (char& v : bits) v = std::uniform_real_distribution<double>(0, 1)(rng) < 0.45;
  Pair mask = Upload(DType::kBool, ms, bits);
  const std::vector<int64_t> nb = {-1, -1, -1, 0, -1, 1, 0, -1};
  for (DType lt : {DType::kInt32, DType::kInt64}) {
    Pair labels = Output(lt, ms);
    Pair count = Output(DType::kInt64, {});
    Both(
        [&](Stream* s, const View*) {
          const bool c = s == cs_;
          return s->Label(c ? mask.c : mask.g, nb, c ? labels.c : labels.g, c ? count.c : count.g);
        },
        "label");
    ExpectSame(labels, "label's labels");
    ExpectSame(count, "label's count");
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
      {{7, 130}, false, 0, 100}, {{7, 130}, false, 0, 3},
      {{3, 1000}, false, 7, 50}, {{130, 7}, true, 0, 3},
      {{1}, false, 0, 10},       {{}, false, 0, 10},
      {{0, 5}, false, 0, 10},    {{5, 0}, false, 0, 10},
      {{2, 3, 17}, false, 5, 4}, {{(1 << 16) + 3}, false, 11, 1000},
      {{20000, 3}, false, 0, 2}, {{4, 33}, true, 3, 5},
  };
  for (const Case& c : cases) {
    Pair in = Random(t, c.shape, -c.range, c.range, 31, c.nan_every);
    if (c.transpose) in = Derive(in, TransposeView);
    for (bool with_indices : {false, true}) {
      Pair out = Output(t, in.c.shape);
      Pair ind = Output(DType::kInt64, in.c.shape);
      const std::string what =
          absl::StrCat("sort ", ShapeString(c.shape), c.transpose ? " transposed" : "", " nan ",
                       c.nan_every, " range ", c.range, with_indices ? " with indices" : "");
      Both(
          [&](Stream* s, const View*) {
            const bool cpu = s == cs_;
            return s->Sort(cpu ? in.c : in.g, cpu ? &out.c : &out.g,
                           with_indices ? (cpu ? &ind.c : &ind.g) : nullptr);
          },
          what);
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
        Both([&](Stream* s,
                 const View*) { return s->Random(dist, key, counter, s == cs_ ? out.c : out.g); },
             "random");
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
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Sort(cpu ? in.c : in.g, cpu ? &out.c : &out.g, cpu ? &ind.c : &ind.g);
        },
        "sort zeros");
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
  std::vector<Case> cases = {{1, 1, 1, 1},    {2, 3, 4, 5},  {3, 33, 17, 45}, {1, 64, 0, 7},
                             {0, 2, 3, 4},    {2, 0, 3, 4},  {2, 3, 4, 0},    {1, 130, 257, 66},
                             {5, 16, 16, 16}, {1, 1, 300, 1}};
  if (t == DType::kInt32) cases.push_back({70000, 2, 3, 2});  // over the grid's y limit
  for (const Case& c : cases) {
    // Multiples of 1/8 in [-1, 1]: float sums are exact, so every order agrees.
    const double lo = IsInexact(t) ? -1 : -3, hi = IsInexact(t) ? 1 : 3;
    Pair a = Random(t, {c.batch, c.m, c.k}, lo, hi, 51);
    Pair b = Random(t, {c.batch, c.k, c.n}, lo, hi, 52);
    Pair out = Output(t, {c.batch, c.m, c.n});
    const std::string what = absl::StrCat("matmul ", c.batch, "x", c.m, "x", c.k, "x", c.n);
    Both(
        [&](Stream* s, const View*) {
          const bool cpu = s == cs_;
          return s->Matmul(cpu ? a.c : a.g, cpu ? b.c : b.g, cpu ? out.c : out.g);
        },
        what);
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
    return Pair{MakeContiguousView(*cs_->Allocate(n), t, s),
                MakeContiguousView(*gs_->Allocate(n), t, s)};
  };
  auto binary = [&](kernels::BinaryOp op, const Pair& x, const Pair& y, const Pair& out) {
    Both(
        [&](Stream* s, const View*) {
          return s == cs_ ? s->Binary(op, x.c, y.c, out.c) : s->Binary(op, x.g, y.g, out.g);
        },
        "binary");
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
        Both(
            [&](Stream* s, const View*) {
              return s == cs_ ? s->Unary(kernels::UnaryOp::kNegative, prev.c, t.c)
                              : s->Unary(kernels::UnaryOp::kNegative, prev.g, t.g);
            },
            "negative");
        break;
      case 4:  // an unaligned cast copy
        t = fresh(DType::kFloat64, {999});
        Both(
            [&](Stream* s, const View*) {
              View src = s == cs_ ? prev.c : prev.g;
              src.offset += 4;
              src.shape = {999};
              return s->Copy(src, s == cs_ ? t.c : t.g);
            },
            "copy");
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

TEST_F(CudaVsCpu, SmallUploadsThroughTheRingKeepTheirData) {
  // Uploads up to 1 MiB are queued from a pinned ring without a sync: the
  // host source is reused at once, the ring wraps many times and grows
  // (64 KiB halves to 1 MiB), and every array still holds what was sent.
  const std::vector<size_t> sizes = {100, 4000, 70000, 65536, 300000, 1 << 20, 7, 500000};
  std::vector<char> host(size_t{1} << 20);
  std::vector<std::pair<View, size_t>> sent;
  std::vector<std::shared_ptr<Buffer>> keep;
  for (int round = 0; round < 12; ++round) {
    for (size_t k = 0; k < sizes.size(); ++k) {
      const size_t n = sizes[k];
      const size_t tag = sent.size();
      for (size_t i = 0; i < n; ++i) host[i] = static_cast<char>(i * 13 + tag * 7);
      auto b = gs_->Allocate(n);
      ASSERT_TRUE(b.ok());
      keep.push_back(*b);
      View v = MakeContiguousView(*b, DType::kUInt8, {static_cast<int64_t>(n)});
      ASSERT_TRUE(gs_->CopyFromHost(host.data(), v).ok());
      std::fill(host.begin(), host.begin() + static_cast<long>(n), char{0});
      sent.emplace_back(v, tag);
    }
  }
  for (const auto& [v, tag] : sent) {
    const size_t n = static_cast<size_t>(v.nbytes());
    std::vector<char> back(n);
    ASSERT_TRUE(gs_->CopyToHost(v, back.data()).ok());
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += back[i] != static_cast<char>(i * 13 + tag * 7);
    ASSERT_EQ(bad, 0u) << "upload " << tag << " of " << n << " bytes";
  }
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
      if (!stream.ok()) {
        failures[t] = 1;
        return;
      }
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
        if (host[i] != 2 * (t + i)) {
          failures[t] = 1;
          break;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

TEST_F(CudaVsCpu, EventsOrderStreamsAndTimeWork) {
  Backends& b = GetBackends();
  auto other = b.gpu->CreateStreamWithPriority(-100);  // clamped to the device's range
  ASSERT_TRUE(other.ok()) << other.status();
  Stream* s2 = other->get();
  const int64_t n = 1 << 22;
  View x = MakeContiguousView(*gs_->Allocate(n * 4), DType::kFloat32, {n});
  View y = MakeContiguousView(*s2->Allocate(n * 4), DType::kFloat32, {n});
  auto start = gs_->CreateEvent(EventOptions{});
  auto end = gs_->CreateEvent(EventOptions{});
  EventOptions untimed;
  untimed.timing = false;
  auto mark = gs_->CreateEvent(untimed);
  ASSERT_TRUE(start.ok() && end.ok() && mark.ok());
  EXPECT_TRUE(*(*start)->Query());  // never recorded: done
  ASSERT_TRUE(gs_->Record(**start).ok());
  ASSERT_TRUE(gs_->Fill(x, Scalar::Float(3)).ok());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(gs_->Binary(kernels::BinaryOp::kAdd, x, x, x).ok());
  ASSERT_TRUE(gs_->Record(**end).ok());
  ASSERT_TRUE(gs_->Record(**mark).ok());
  // y = x on the other stream, after the event: the wait orders it.
  ASSERT_TRUE(s2->Wait(**mark).ok());
  ASSERT_TRUE(s2->Copy(x, y).ok());
  std::vector<float> host(n);
  ASSERT_TRUE(s2->CopyToHost(y, host.data()).ok());
  EXPECT_EQ(host[0], 3.0f * (1 << 20));
  EXPECT_EQ(host[n - 1], 3.0f * (1 << 20));
  ASSERT_TRUE((*end)->Synchronize().ok());
  auto ms = (*end)->ElapsedSince(**start);
  ASSERT_TRUE(ms.ok()) << ms.status();
  EXPECT_GT(*ms, 0.0);
  EXPECT_FALSE((*end)->ElapsedSince(**mark).ok());  // no timing
  auto done = s2->Query();
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(*done);
}

TEST_F(CudaVsCpu, CachedBlocksArePerStreamAndFreed) {
  auto stream = GetBackends().gpu->CreateStream();
  ASSERT_TRUE(stream.ok());
  Stream* s = stream->get();
  {
    auto b = s->Allocate(3 << 20);
    ASSERT_TRUE(b.ok());
  }
  uint64_t blocks = 0, bytes = 0;
  s->CachedBlocks(&blocks, &bytes);
  EXPECT_EQ(blocks, 1u);
  EXPECT_EQ(bytes, uint64_t{4} << 20);  // 2 MiB bins
  ASSERT_TRUE(s->FreeCachedBlocks().ok());
  s->CachedBlocks(&blocks, &bytes);
  EXPECT_EQ(blocks, 0u);
  EXPECT_EQ(bytes, 0u);
}

TEST_F(CudaVsCpu, UserKernelsCompileOnceLaunchAndReportErrors) {
  KernelModuleSpec spec;
  spec.source = R"(
extern "C" __global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
template <typename T> __global__ void fill(T* x, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}
)";
  spec.options = {"-DUNUSED=1"};
  spec.name_expressions = {"fill<double>"};
  ModuleOrigin origin;
  auto module = gs_->LoadModule(spec, &origin);
  ASSERT_TRUE(module.ok()) << module.status();
  ModuleOrigin again;
  auto second = gs_->LoadModule(spec, &again);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(again, ModuleOrigin::kMemoryCache);
  EXPECT_EQ(module->get(), second->get());  // one module for the server

  const int n = 1000;
  View x = MakeContiguousView(*gs_->Allocate(n * 4), DType::kFloat32, {n});
  ASSERT_TRUE(gs_->Fill(x, Scalar::Float(2)).ok());
  void* ptr = x.data();
  float a = 1.5f;
  int count = n;
  void* args[] = {&ptr, &a, &count};
  LaunchDims dims;
  dims.grid[0] = 4;
  dims.block[0] = 256;
  ASSERT_TRUE(gs_->LaunchKernel(**module, "scale", dims, args).ok());
  std::vector<float> host(n);
  ASSERT_TRUE(gs_->CopyToHost(x, host.data()).ok());
  EXPECT_EQ(host[0], 3.0f);
  EXPECT_EQ(host[n - 1], 3.0f);

  View d = MakeContiguousView(*gs_->Allocate(n * 8), DType::kFloat64, {n});
  void* dptr = d.data();
  double v = 7.25;
  void* fill_args[] = {&dptr, &v, &count};
  ASSERT_TRUE(gs_->LaunchKernel(**module, "fill<double>", dims, fill_args).ok());
  std::vector<double> dh(n);
  ASSERT_TRUE(gs_->CopyToHost(d, dh.data()).ok());
  EXPECT_EQ(dh[n - 1], 7.25);

  auto attrs = gs_->GetKernelAttributes(**module, "scale");
  ASSERT_TRUE(attrs.ok()) << attrs.status();
  EXPECT_GT(attrs->max_threads_per_block, 0);
  EXPECT_GT(attrs->num_regs, 0);

  // Bad launches and names are clear errors; the stream stays usable.
  dims.block[0] = 4096;
  absl::Status big = gs_->LaunchKernel(**module, "scale", dims, args);
  EXPECT_EQ(ErrorKind(big), "ValueError") << big;
  EXPECT_NE(big.message().find("block"), std::string::npos) << big;
  dims.block[0] = 256;
  dims.shared_mem = 1u << 30;
  EXPECT_EQ(ErrorKind(gs_->LaunchKernel(**module, "scale", dims, args)), "ValueError");
  absl::Status missing = gs_->GetKernelAttributes(**module, "nope").status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound) << missing;

  KernelModuleSpec bad;
  bad.source = "extern \"C\" __global__ void broken(float* x) { x[0] = undefined_name; }";
  auto failed = gs_->LoadModule(bad, &origin);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(ErrorKind(failed.status()), "CompileException");
  EXPECT_NE(failed.status().message().find("undefined_name"), std::string::npos) << failed.status();
  EXPECT_TRUE(GetBackends().gpu->Health().ok());
  ASSERT_TRUE(gs_->Synchronize().ok());
}

}  // namespace
}  // namespace cuda
}  // namespace arrayd
