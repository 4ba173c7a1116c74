// The linalg composites (pinv, matrix_rank, lstsq, norm, matrix_power) against NumPy's
// values, and NumPy's exception kinds for bad input.
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/op_testing.h"

namespace arrayd {
namespace {

using compose::Bool;
using compose::Float;
using compose::Ints;
using compose::Str;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Pointwise;

class LinalgCompositeTest : public OpTest {
 protected:
  View A32() { return Doubles({1, 2, 3, 4, 5, 7}, {3, 2}); }

  double NormOf(const View& x, const compose::AttrList& attrs) {
    absl::StatusOr<std::vector<View>> r = RunOp("norm", {x}, attrs);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? Host<double>((*r)[0]).at(0) : NAN;
  }
};

TEST_F(LinalgCompositeTest, PinvMatchesNumpy) {
  const std::vector<double> expected{-2.0714285714285707, 0.7857142857142864,  0.14285714285714238,
                                     1.4999999999999996,  -0.5000000000000006, 0};
  absl::StatusOr<std::vector<View>> p = RunOp("pinv", {A32()}, {{"rcond", Float(1e-15)}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)[0].shape, (Shape{2, 3}));
  EXPECT_THAT(Host<double>((*p)[0]), Pointwise(DoubleNear(1e-12), expected));
  // A symmetric matrix through eigh: pinv([[2, 1], [1, 2]]) = [[2, -1], [-1, 2]] / 3.
  View sym = Doubles({2, 1, 1, 2}, {2, 2});
  p = RunOp("pinv", {sym}, {{"hermitian", Bool(true)}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(Host<double>((*p)[0]),
              Pointwise(DoubleNear(1e-12), std::vector<double>{2. / 3, -1. / 3, -1. / 3, 2. / 3}));
  // A per-matrix rcond array: the second matrix's cutoff drops its small singular value.
  View stack = Doubles({1, 0, 0, 1e-3, 1, 0, 0, 1e-3}, {2, 2, 2});
  p = RunOp("pinv", {stack, Doubles({1e-15, 1e-2}, {2})});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(Host<double>((*p)[0]),
              Pointwise(DoubleNear(1e-9), std::vector<double>{1, 0, 0, 1000, 1, 0, 0, 0}));
  // Empty matrices give zeros of the transposed shape.
  p = RunOp("pinv", {Zeros(DType::kFloat64, {0, 3})});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)[0].shape, (Shape{3, 0}));
}

TEST_F(LinalgCompositeTest, PinvBadInputIsNumpysError) {
  EXPECT_EQ(ErrorOf("pinv", {Doubles({1, 2, 3}, {3})}), "LinAlgError");
  EXPECT_EQ(ErrorOf("pinv", {Zeros(DType::kFloat16, {2, 2})}), "TypeError");
  EXPECT_EQ(ErrorOf("pinv", {A32(), Doubles({1e-15}, {})}, {{"rcond", Float(1e-15)}}),
            "ValueError");
  EXPECT_EQ(ErrorOf("pinv", {A32(), Doubles({1, 2, 3}, {3})}), "ValueError");  // no broadcast
  EXPECT_EQ(ErrorOf("pinv", {Doubles({1, 2, 3, 4, 5, 6}, {2, 3})}, {{"hermitian", Bool(true)}}),
            "LinAlgError");  // eigh needs square matrices
}

TEST_F(LinalgCompositeTest, MatrixRankCountsSingularValuesAboveTheTolerance) {
  auto rank = [&](const View& a, const compose::AttrList& attrs = {}) {
    absl::StatusOr<std::vector<View>> r = RunOp("matrix_rank", {a}, attrs);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? Host<int64_t>((*r)[0]) : std::vector<int64_t>{};
  };
  EXPECT_THAT(rank(Doubles({1, 2, 2, 4, 3, 6}, {3, 2})), ElementsAre(1));
  EXPECT_THAT(rank(A32()), ElementsAre(2));
  View nearly = Doubles({1, 0, 0, 0, 1e-10, 0, 0, 0, 1}, {3, 3});
  EXPECT_THAT(rank(nearly), ElementsAre(3));
  EXPECT_THAT(rank(nearly, {{"tol", Float(1e-5)}}), ElementsAre(2));
  EXPECT_THAT(rank(nearly, {{"rtol", Float(1e-5)}}), ElementsAre(2));
  EXPECT_THAT(rank(nearly, {{"hermitian", Bool(true)}}), ElementsAre(3));
  EXPECT_THAT(rank(Zeros(DType::kFloat64, {3})), ElementsAre(0));
  EXPECT_THAT(rank(Doubles({0, 1}, {2})), ElementsAre(1));
  EXPECT_THAT(rank(Zeros(DType::kFloat64, {4, 2, 3})), ElementsAre(0, 0, 0, 0));
  // An array tolerance per matrix, absolute or relative.
  View two = Doubles({1, 0, 0, 1e-3, 1, 0, 0, 1e-3}, {2, 2, 2});
  absl::StatusOr<std::vector<View>> r = RunOp("matrix_rank", {two, Doubles({1e-4, 1e-2}, {2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Host<int64_t>((*r)[0]), ElementsAre(2, 1));
  r = RunOp("matrix_rank", {two, Doubles({1e-2, 1e-4}, {2})}, {{"relative", Bool(true)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Host<int64_t>((*r)[0]), ElementsAre(1, 2));
}

TEST_F(LinalgCompositeTest, MatrixRankBadInputIsNumpysError) {
  EXPECT_EQ(ErrorOf("matrix_rank", {A32()}, {{"tol", Float(1)}, {"rtol", Float(1)}}), "ValueError");
  EXPECT_EQ(ErrorOf("matrix_rank", {Zeros(DType::kFloat16, {2, 2})}), "TypeError");
  EXPECT_EQ(ErrorOf("matrix_rank", {A32()}, {{"tol", Str("big")}}), "TypeError");
}

TEST_F(LinalgCompositeTest, LstsqMatchesNumpy) {
  View a = Doubles({1, 0, 1, 1, 1, 2, 1, 3}, {4, 2});
  absl::StatusOr<std::vector<View>> r = RunOp("lstsq", {a, Doubles({1, 2, 2, 4}, {4})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape, (Shape{2}));
  EXPECT_THAT(Host<double>((*r)[0]), Pointwise(DoubleNear(1e-12), std::vector<double>{0.9, 0.9}));
  EXPECT_EQ((*r)[1].shape, (Shape{1}));
  EXPECT_THAT(Host<double>((*r)[1]), ElementsAre(DoubleNear(0.7, 1e-12)));
  EXPECT_THAT(Host<int64_t>((*r)[2]), ElementsAre(2));
  EXPECT_THAT(
      Host<double>((*r)[3]),
      Pointwise(DoubleNear(1e-12), std::vector<double>{4.10003044816824, 1.0907567666961069}));
  // Rank deficient: the minimum-norm solution and no residuals.
  r = RunOp("lstsq", {Doubles({1, 2, 2, 4, 3, 6}, {3, 2}), Doubles({1, 0, 2, 1, 3, 1}, {3, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Host<int64_t>((*r)[2]), ElementsAre(1));
  EXPECT_EQ((*r)[1].shape, (Shape{0}));
  EXPECT_THAT(Host<double>((*r)[0]),
              Pointwise(DoubleNear(1e-12),
                        std::vector<double>{0.2, 0.07142857142857142, 0.4, 0.14285714285714288}));
  // No columns: x is empty, the residuals are |b|^2.
  r = RunOp("lstsq", {Zeros(DType::kFloat64, {2, 0}), Doubles({3, 4}, {2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape, (Shape{0}));
  EXPECT_THAT(Host<double>((*r)[1]), ElementsAre(25));
}

TEST_F(LinalgCompositeTest, LstsqBadInputIsNumpysError) {
  View a = Doubles({1, 0, 1, 1, 1, 2, 1, 3}, {4, 2});
  EXPECT_EQ(ErrorOf("lstsq", {Doubles({1, 1, 1}, {3}), Doubles({1, 1, 1}, {3})}), "LinAlgError");
  EXPECT_EQ(ErrorOf("lstsq", {a, Doubles({1, 1, 1}, {3})}),
            "LinAlgError");  // Incompatible dimensions
  EXPECT_EQ(ErrorOf("lstsq", {Zeros(DType::kFloat64, {2, 2, 2}), Zeros(DType::kFloat64, {2, 2})}),
            "LinAlgError");
  EXPECT_EQ(ErrorOf("lstsq", {Zeros(DType::kFloat16, {2, 2}), Zeros(DType::kFloat64, {2})}),
            "TypeError");
}

TEST_F(LinalgCompositeTest, NormMatchesNumpy) {
  View x = Doubles({1, -2, 3, 4, 5, -6}, {2, 3});
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_NEAR(NormOf(x, {}), 9.539392014169456, 1e-12);
  EXPECT_NEAR(NormOf(x, {{"ord_name", Str("fro")}}), 9.539392014169456, 1e-12);
  EXPECT_NEAR(NormOf(x, {{"ord_name", Str("nuc")}}), 11.653785350898488, 1e-12);
  EXPECT_NEAR(NormOf(x, {{"ord", Float(inf)}}), 15, 1e-12);
  EXPECT_NEAR(NormOf(x, {{"ord", Float(-inf)}}), 6, 1e-12);
  EXPECT_NEAR(NormOf(x, {{"ord", Float(1)}}), 9, 1e-12);
  EXPECT_NEAR(NormOf(x, {{"ord", Float(-1)}}), 5, 1e-12);
  EXPECT_NEAR(NormOf(x, {{"ord", Float(2)}}), 9.225027715260929, 1e-12);
  EXPECT_NEAR(NormOf(x, {{"ord", Float(-2)}}), 2.4287576356375586, 1e-12);
  EXPECT_NEAR(NormOf(x, {{"ord", Float(1)}, {"axes", Ints({1, 0})}}), 15, 1e-12);
  absl::StatusOr<std::vector<View>> r =
      RunOp("norm", {x}, {{"ord", Float(3)}, {"axes", Ints({1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(
      Host<double>((*r)[0]),
      Pointwise(DoubleNear(1e-12), std::vector<double>{3.3019272488946263, 7.398636222991409}));
  r = RunOp("norm", {x}, {{"ord", Float(0)}, {"axes", Ints({-1})}, {"keepdims", Bool(true)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape, (Shape{2, 1}));
  EXPECT_THAT(Host<double>((*r)[0]), ElementsAre(3, 3));
  // Complex input gives a real norm; integers compute in float64.
  View z = Array(std::vector<std::complex<float>>{{3, 4}, {1, -1}}, {2}, DType::kComplex64);
  r = RunOp("norm", {z});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dtype, DType::kFloat32);
  EXPECT_NEAR(Host<float>((*r)[0])[0], 5.196152422706632, 1e-5);
  r = RunOp("norm", {Array(std::vector<int32_t>{0, 1, 2, 3}, {4}, DType::kInt32)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dtype, DType::kFloat64);
  EXPECT_NEAR(Host<double>((*r)[0])[0], 3.7416573867739413, 1e-12);
}

TEST_F(LinalgCompositeTest, NormBadInputIsNumpysError) {
  View x = Doubles({1, -2, 3, 4, 5, -6}, {2, 3});
  EXPECT_EQ(ErrorOf("norm", {x}, {{"ord_name", Str("fro")}, {"axes", Ints({1})}}), "ValueError");
  EXPECT_EQ(ErrorOf("norm", {x}, {{"ord", Float(3)}}), "ValueError");
  EXPECT_EQ(ErrorOf("norm", {x}, {{"ord_name", Str("max")}}), "ValueError");
  EXPECT_EQ(ErrorOf("norm", {Zeros(DType::kFloat64, {2, 2, 2})}, {{"ord", Float(2)}}),
            "ValueError");
  EXPECT_EQ(ErrorOf("norm", {x}, {{"axes", Ints({0, 0})}}), "ValueError");
  EXPECT_EQ(ErrorOf("norm", {x}, {{"axes", Ints({2})}}), "AxisError");
  EXPECT_EQ(ErrorOf("norm", {x}, {{"ord", Float(2)}, {"ord_name", Str("fro")}}), "ValueError");
  EXPECT_EQ(ErrorOf("norm", {Zeros(DType::kFloat16, {2, 2})}, {{"ord_name", Str("nuc")}}),
            "TypeError");
}

TEST_F(LinalgCompositeTest, MatrixPowerMatchesNumpy) {
  View fib = Doubles({1, 1, 1, 0}, {2, 2});
  auto power = [&](const View& a, int64_t n) {
    absl::StatusOr<std::vector<View>> r = RunOp("matrix_power", {a}, {{"n", compose::Int(n)}});
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? Host<double>((*r)[0]) : std::vector<double>{};
  };
  EXPECT_THAT(power(fib, 5), ElementsAre(8, 5, 5, 3));
  EXPECT_THAT(power(fib, 1), ElementsAre(1, 1, 1, 0));
  EXPECT_THAT(power(fib, -2), Pointwise(DoubleNear(1e-12), std::vector<double>{1, -1, -1, 2}));
  // n == 0: identity matrices of the stack's shape.
  absl::StatusOr<std::vector<View>> eye =
      RunOp("matrix_power", {Doubles({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2})}, {{"n", compose::Int(0)}});
  ASSERT_TRUE(eye.ok()) << eye.status();
  EXPECT_EQ((*eye)[0].shape, (Shape{2, 2, 2}));
  EXPECT_THAT(Host<double>((*eye)[0]), ElementsAre(1, 0, 0, 1, 1, 0, 0, 1));
  // Integers stay integers for n >= 0.
  absl::StatusOr<std::vector<View>> ints =
      RunOp("matrix_power", {Array(std::vector<int64_t>{2, 0, 0, 3}, {2, 2}, DType::kInt64)},
            {{"n", compose::Int(3)}});
  ASSERT_TRUE(ints.ok()) << ints.status();
  EXPECT_EQ((*ints)[0].dtype, DType::kInt64);
  EXPECT_THAT(Host<int64_t>((*ints)[0]), ElementsAre(8, 0, 0, 27));
}

TEST_F(LinalgCompositeTest, MatrixPowerBadInputIsNumpysError) {
  EXPECT_EQ(ErrorOf("matrix_power", {Doubles({1, 2, 3, 4, 5, 6}, {2, 3})}, {{"n", compose::Int(2)}}),
            "LinAlgError");
  EXPECT_EQ(ErrorOf("matrix_power", {Doubles({1, 2}, {2})}, {{"n", compose::Int(2)}}), "LinAlgError");
  EXPECT_EQ(ErrorOf("matrix_power", {Doubles({0, 0, 0, 0}, {2, 2})}, {{"n", compose::Int(-1)}}),
            "LinAlgError");
}

TEST_F(LinalgCompositeTest, EigIsRealWhenNumpysIs) {
  absl::StatusOr<std::vector<View>> r = RunOp("eig", {Doubles({2, 0, 0, 3}, {2, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dtype, DType::kFloat64);
  EXPECT_EQ((*r)[1].dtype, DType::kFloat64);
  EXPECT_THAT(Host<double>((*r)[0]), ElementsAre(2, 3));
  EXPECT_THAT(Host<double>((*r)[1]), ElementsAre(1, 0, 0, 1));
  // A rotation's eigenvalues are +-i: complex.
  r = RunOp("eigvals", {Doubles({0, -1, 1, 0}, {2, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dtype, DType::kComplex128);
  // Complex input stays complex; single precision stays single.
  r = RunOp("eigvals", {Array(std::vector<std::complex<double>>{2, 0, 0, 3}, {2, 2}, DType::kComplex128)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dtype, DType::kComplex128);
  r = RunOp("eigvals", {Array(std::vector<float>{2, 0, 0, 3}, {2, 2}, DType::kFloat32)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dtype, DType::kFloat32);
  EXPECT_EQ(ErrorOf("eigvals", {Doubles({1, 2, 3}, {3})}), "LinAlgError");
}

TEST_F(LinalgCompositeTest, SolveOfOneVectorIsNumpy2s) {
  // b (2,) against a stack of two matrices: x (2, 2), one solution each.
  View a = Doubles({2, 0, 0, 4, 1, 0, 0, 1}, {2, 2, 2});
  absl::StatusOr<std::vector<View>> r = RunOp("solve", {a, Doubles({2, 4}, {2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape, (Shape{2, 2}));
  EXPECT_THAT(Host<double>((*r)[0]), Pointwise(DoubleNear(1e-12), std::vector<double>{1, 1, 2, 4}));
  EXPECT_EQ(ErrorOf("solve", {a, Doubles({1, 2, 3}, {3})}), "ValueError");
  EXPECT_EQ(ErrorOf("solve", {a, Doubles({1}, {})}), "ValueError");
}

}  // namespace
}  // namespace arrayd
