// The CPU backend's LAPACK and FFT calls through the Stream interface, on
// small matrices and signals with known answers.
#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "gtest/gtest.h"

namespace arrayd {
namespace {

class CpuLinalgTest : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = cpu::CreateCpuBackend(1 << 26);
    stream_ = *backend_->CreateStream();
  }

  // A C-contiguous array of `shape` holding `values`.
  template <typename T>
  View Make(DType dtype, Shape shape, const std::vector<T>& values) {
    View v = MakeContiguousView(*stream_->Allocate(values.size() * sizeof(T)), dtype, shape);
    EXPECT_TRUE(stream_->CopyFromHost(values.data(), v).ok());
    return v;
  }
  View Empty(DType dtype, Shape shape) {
    return MakeContiguousView(*stream_->Allocate(ShapeSize(shape) * ItemSize(dtype)), dtype,
                              shape);
  }
  template <typename T>
  std::vector<T> Read(const View& v) {
    std::vector<T> out(v.size());
    EXPECT_TRUE(stream_->CopyToHost(v, out.data()).ok());
    return out;
  }

  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Stream> stream_;
};

TEST_F(CpuLinalgTest, LuSolveSolvesEachMatrixOfTheBatch) {
  // [[2, 1], [1, 3]] x = [3, 5] -> x = [0.8, 1.4]; [[0, 1], [1, 0]] x = [1, 2] -> [2, 1].
  View a = Make<double>(DType::kFloat64, {2, 2, 2}, {2, 1, 1, 3, 0, 1, 1, 0});
  View b = Make<double>(DType::kFloat64, {2, 2, 1}, {3, 5, 1, 2});
  View piv = Empty(DType::kInt32, {2, 2}), info = Empty(DType::kInt32, {2});
  ASSERT_TRUE(stream_->LuFactor(a, piv, info).ok());
  EXPECT_EQ(Read<int32_t>(info), (std::vector<int32_t>{0, 0}));
  ASSERT_TRUE(stream_->LuSolve(a, piv, b).ok());
  std::vector<double> x = Read<double>(b);
  EXPECT_NEAR(x[0], 0.8, 1e-12);
  EXPECT_NEAR(x[1], 1.4, 1e-12);
  EXPECT_NEAR(x[2], 2, 1e-12);
  EXPECT_NEAR(x[3], 1, 1e-12);
}

TEST_F(CpuLinalgTest, LuFactorReportsSingularMatrices) {
  View a = Make<float>(DType::kFloat32, {1, 2, 2}, {1, 2, 2, 4});
  View piv = Empty(DType::kInt32, {1, 2}), info = Empty(DType::kInt32, {1});
  ASSERT_TRUE(stream_->LuFactor(a, piv, info).ok());
  EXPECT_GT(Read<int32_t>(info)[0], 0);
}

TEST_F(CpuLinalgTest, CholeskyGivesLowerFactorAndFlagsIndefinite) {
  using C = std::complex<double>;
  View a = Make<C>(DType::kComplex128, {2, 2, 2},
                   {C(4), C(2, -2), C(2, 2), C(6), C(1), C(2), C(2), C(1)});
  View info = Empty(DType::kInt32, {2});
  ASSERT_TRUE(stream_->Cholesky(a, info).ok());
  std::vector<int32_t> codes = Read<int32_t>(info);
  EXPECT_EQ(codes[0], 0);
  EXPECT_GT(codes[1], 0);  // [[1, 2], [2, 1]] is indefinite
  std::vector<C> l = Read<C>(a);
  EXPECT_NEAR(std::abs(l[0] - C(2)), 0, 1e-12);
  EXPECT_EQ(l[1], C(0));  // strict upper triangle zeroed
  EXPECT_NEAR(std::abs(l[2] - C(1, 1)), 0, 1e-12);
  EXPECT_NEAR(std::abs(l[3] - C(2)), 0, 1e-12);
}

TEST_F(CpuLinalgTest, QrSvdEighOfADiagonalMatrix) {
  View a = Make<double>(DType::kFloat64, {1, 2, 2}, {3, 0, 0, -4});
  View q = Empty(DType::kFloat64, {1, 2, 2}), r = Empty(DType::kFloat64, {1, 2, 2});
  ASSERT_TRUE(stream_->Qr(a, q, r).ok());
  std::vector<double> qv = Read<double>(q), rv = Read<double>(r);
  EXPECT_NEAR(std::abs(rv[0]), 3, 1e-12);
  EXPECT_NEAR(std::abs(rv[3]), 4, 1e-12);
  EXPECT_EQ(rv[2], 0);
  EXPECT_NEAR(qv[0] * rv[0], 3, 1e-12);  // a is unchanged and q r = a
  EXPECT_EQ(Read<double>(a), (std::vector<double>{3, 0, 0, -4}));

  View s = Empty(DType::kFloat64, {1, 2}), info = Empty(DType::kInt32, {1});
  ASSERT_TRUE(stream_->Svd(a, s, nullptr, nullptr, info).ok());
  EXPECT_EQ(Read<int32_t>(info)[0], 0);
  std::vector<double> sv = Read<double>(s);
  EXPECT_NEAR(sv[0], 4, 1e-12);  // descending
  EXPECT_NEAR(sv[1], 3, 1e-12);

  View w = Empty(DType::kFloat64, {1, 2}), v = Empty(DType::kFloat64, {1, 2, 2});
  ASSERT_TRUE(stream_->Eigh(a, w, &v, info).ok());
  std::vector<double> wv = Read<double>(w), vv = Read<double>(v);
  EXPECT_NEAR(wv[0], -4, 1e-12);  // ascending
  EXPECT_NEAR(wv[1], 3, 1e-12);
  EXPECT_NEAR(std::abs(vv[1]), 1, 1e-12);  // column 1, the eigenvector of 3, is e1
}

TEST_F(CpuLinalgTest, UnsupportedDTypeIsAnError) {
  View a = Make<int32_t>(DType::kInt32, {1, 1, 1}, {1});
  View piv = Empty(DType::kInt32, {1, 1}), info = Empty(DType::kInt32, {1});
  EXPECT_FALSE(stream_->LuFactor(a, piv, info).ok());
}

TEST_F(CpuLinalgTest, FftOfAnImpulseIsFlatAndRoundTrips) {
  using C = std::complex<float>;
  // Length 7 (prime), batch 2: an impulse, then a shifted impulse.
  std::vector<C> x(14, C(0));
  x[0] = 1;
  x[7 + 1] = 1;
  View in = Make<C>(DType::kComplex64, {2, 7}, x), out = Empty(DType::kComplex64, {2, 7});
  ASSERT_TRUE(stream_->Fft(in, out, 1, false).ok());
  std::vector<C> y = Read<C>(out);
  for (int k = 0; k < 7; ++k) {
    EXPECT_NEAR(std::abs(y[k] - C(1)), 0, 1e-6);
    float ang = -2 * static_cast<float>(M_PI) * k / 7;
    EXPECT_NEAR(std::abs(y[7 + k] - C(std::cos(ang), std::sin(ang))), 0, 1e-5);
  }
  View back = Empty(DType::kComplex64, {2, 7});
  ASSERT_TRUE(stream_->Fft(out, back, 1, true).ok());
  std::vector<C> z = Read<C>(back);
  for (int i = 0; i < 14; ++i) EXPECT_NEAR(std::abs(z[i] / 7.0f - x[i]), 0, 1e-6);
}

TEST_F(CpuLinalgTest, RfftAndIrfftKeepTheirInput) {
  using C = std::complex<double>;
  View in = Make<double>(DType::kFloat64, {1, 5}, {1, 2, 3, 4, 5});
  View half = Empty(DType::kComplex128, {1, 3});
  ASSERT_TRUE(stream_->Rfft(in, half, 1).ok());
  std::vector<C> h = Read<C>(half);
  EXPECT_NEAR(std::abs(h[0] - C(15)), 0, 1e-12);
  View real = Empty(DType::kFloat64, {1, 5});
  ASSERT_TRUE(stream_->Irfft(half, real, 1).ok());
  EXPECT_EQ(Read<C>(half), h);  // c2r ran on a copy
  std::vector<double> r = Read<double>(real);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(r[i] / 5, i + 1, 1e-12);
}

}  // namespace
}  // namespace arrayd
