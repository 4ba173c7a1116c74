// Host-only tests of the CUDA backend's generated kernels (kernel_source.h):
// every generated kernel of every op and dtype must compile with NVRTC for
// sm_90. They need no GPU and run everywhere, CI included.
#include "backend/cuda/kernel_source.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "backend/cuda/cuda_stream.h"
#include "backend/cuda/cuda_vs_cpu_testing.h"
#include "backend/cuda/kernel_cache.h"
#include "gtest/gtest.h"

namespace arrayd {
namespace cuda {
namespace {

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
  // Read as another dtype (ReduceAs): a sum in int64 and in float64.
  for (DType as : {DType::kInt64, DType::kFloat64}) {
    ReduceSpec spec("sum", t, as, 1, 2);
    spec.as = as;
    bodies.push_back(ReduceBody(spec, absl::StrCat("r_as_", DTypeName(as))));
  }
  ExpectCompiles(bodies, absl::StrCat("reductions of ", DTypeName(t)));
}

// A fused chain's reduction: x * y + x of this dtype (the chain's loop) and
// its sum, all and max, read as the reduction reads it.
TEST_P(KernelSourceTest, FusedReduceKernelsCompile) {
  const DType t = GetParam();
  if (t == DType::kBool) GTEST_SKIP() << "bool has no multiply-add chain of its own";
  FusedStep mul, add;
  mul.op = static_cast<int>(kernels::BinaryOp::kMultiply);
  mul.args[0] = 0;
  mul.args[1] = 1;
  mul.in[0] = mul.in[1] = mul.out = t;
  add = mul;
  add.op = static_cast<int>(kernels::BinaryOp::kAdd);
  add.args[0] = 2;
  add.args[1] = 0;
  const FusedStep steps[] = {mul, add};
  absl::StatusOr<std::string> expr = FusedExpression(steps, 2);
  ASSERT_TRUE(expr.ok()) << expr.status();
  std::vector<std::string> bodies;
  for (const char* kind : {"sum", "all", "max"}) {
    const std::string k = kind;
    ReduceSpec spec{k, t, k == "all" ? DType::kBool : t, 2, 1};
    spec.leaves = {t, t};
    spec.value = *expr;
    bodies.push_back(ReduceBody(spec, absl::StrCat("f_", kind)));
  }
  ExpectCompiles(bodies, absl::StrCat("fused reductions of ", DTypeName(t)));
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
                         "FlatLayout",
                         "fl",
                         -1};
  bodies.push_back(ElementwiseBody(gather, "gather_c"));
  gather.ndim = 2;
  bodies.push_back(ElementwiseBody(gather, "gather_s"));
  for (DType to :
       {DType::kBool, DType::kInt64, DType::kFloat16, DType::kFloat64, DType::kComplex128}) {
    bodies.push_back(ScatterBody(t, to, 2, false, absl::StrCat("scatter_to_", DTypeName(to))));
  }
  bodies.push_back(ScatterBody(t, t, 8, true, "scatter_same_8"));
  if (ItemSize(t) <= 4) bodies.push_back(ScatterPackedBody(t, t, 2, "scatter_packed_2"));
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
TEST(KernelSourceCompileTest, InfoCheckKernelCompiles) {
  ExpectCompiles({InfoCheckBody("info_check")}, "the info check");
  ExpectCompiles({WrapIndexBody("wrap_index")}, "the index wrap");
}

TEST(KernelSourceCompileTest, GroupKernelsCompile) {
  std::vector<std::string> bodies;
  bodies.push_back(ElementwiseGroupBody(
      {{DType::kFloat32, DType::kFloat32, DType::kFloat32}, "AddOp()(v1, v2)", "", "", -1},
      "add_g"));
  bodies.push_back(
      ElementwiseGroupBody({{DType::kFloat64, DType::kInt8}, "v1", "", "", -1}, "copy_g"));
  bodies.push_back(ElementwiseGroupBody(
      {{DType::kComplex128, DType::kComplex128}, "NegativeOp()(v1)", "", "", -1}, "neg_g"));
  ExpectCompiles(bodies, "group kernels");
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

// The stencils of scipy.ndimage's filters (StencilBody): sums of the
// floating dtypes, rank selection of the real ones, the register networks
// and the widest capacity (whose taps need CUDA 12.1's larger parameters).
TEST(KernelSourceCompileTest, StencilKernelsCompile) {
  std::vector<std::string> bodies;
  for (int cap : {32, 256}) {
    bodies.push_back(StencilBody(DType::kFloat32, cap, true, absl::StrCat("sum_f32_", cap), -1));
  }
  bodies.push_back(StencilBody(DType::kComplex128, 32, true, "sum_c128", -1));
  for (int cap : {9, 25, 64, 256}) {
    const int rank = cap <= 32 ? cap / 2 : -1;
    bodies.push_back(
        StencilBody(DType::kFloat32, cap, false, absl::StrCat("rank_f32_", cap), rank));
  }
  bodies.push_back(StencilBody(DType::kFloat32, 9, false, "rank_f32_9_last", 8));
  bodies.push_back(StencilBody(DType::kUInt8, 9, false, "rank_u8", 4));
  bodies.push_back(StencilBody(DType::kInt64, 16, false, "rank_i64", 3));
  ExpectCompiles(bodies, "stencils");
  ExpectCompiles({PadBody(DType::kFloat32, "pad_f32"), PadBody(DType::kComplex128, "pad_c128"),
                  PadBody(DType::kBool, "pad_bool")},
                 "pads");
  ExpectCompiles({ResampleBody(DType::kFloat32, 0, "resample_f32"),
                  ResampleBody(DType::kFloat64, 4, "resample_f64"),
                  ResampleBody(DType::kComplex64, 6, "resample_c64")},
                 "resamples");
  // map_coordinates: d and order compiled in, and the runtime kernel.
  ExpectCompiles({MapCoordinatesBody(DType::kFloat64, DType::kFloat32, 2, 1, "interp_2_1"),
                  MapCoordinatesBody(DType::kFloat64, DType::kFloat64, 3, 5, "interp_3_5"),
                  MapCoordinatesBody(DType::kFloat32, DType::kFloat64, 1, 0, "interp_1_0"),
                  MapCoordinatesBody(DType::kFloat64, DType::kFloat64, -1, -1, "interp_any")},
                 "map_coordinates");
  ExpectCompiles({LabelBody(DType::kInt32, "label_i4"), LabelBody(DType::kInt64, "label_i8")},
                 "label");
  ExpectCompiles(
      {SplineBody(DType::kFloat64, "spline_f64"), SplineBody(DType::kFloat32, "spline_f32"),
       SplineBody(DType::kComplex128, "spline_c128")},
      "spline prefilter");
}

TEST(KernelSourceCompileTest, RandomKernelsCompile) {
  std::vector<std::string> bodies;
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    for (bool normal : {false, true}) {
      bodies.push_back(
          RandomBody(t, normal, absl::StrCat("rng_", DTypeName(t), normal ? "_n" : "_u")));
    }
  }
  ExpectCompiles(bodies, "random streams");
}

TEST(KernelSourceCompileTest, BadSourceReportsTheLog) {
  absl::StatusOr<std::string> cubin = CompileToCubin(
      BuildSource({"extern \"C\" __global__ void k() { undefined_thing(); }"}), kTestArch);
  ASSERT_FALSE(cubin.ok());
  EXPECT_NE(cubin.status().message().find("undefined_thing"), std::string::npos) << cubin.status();
}

}  // namespace
}  // namespace cuda
}  // namespace arrayd
