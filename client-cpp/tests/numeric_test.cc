// Matmul, linalg, fft and random of the C++ client against a real in-process
// server (CPU backend). Expected values are NumPy 2's (computed with NumPy
// and written here); the random streams' are the Python client's for the
// same seed (ad.random.default_rng(42).random(5) and so on).
#include "arrayd/numeric.h"

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "client_fixture.h"

namespace arrayd {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pointwise;

class NumericTest : public SessionTest {
 protected:
  Array Matrix(const std::vector<double>& v, int64_t rows, int64_t cols) {
    return client_->FromVector(v, Shape{rows, cols});
  }
};

std::string Kind(const absl::Status& s) {
  auto kind = s.GetPayload(kErrorKindPayload);
  return kind ? std::string(*kind) : "";
}

TEST_F(NumericTest, MatmulValuesAndShapes) {
  Array a = client_->Arange(6).Astype(DType::kFloat64).Reshape({2, 3});
  Array b = client_->Arange(6).Astype(DType::kFloat64).Reshape({3, 2});
  Array c = Matmul(a, b);
  EXPECT_EQ(c.shape(), (Shape{2, 2}));
  EXPECT_THAT(Values<double>(c), ElementsAre(10, 13, 28, 40));
  // A 1-D operand is a vector whose dimension is dropped.
  Array v = client_->Ones({3}, DType::kFloat32);
  EXPECT_EQ(Matmul(v, b).shape(), (Shape{2}));
  EXPECT_EQ(Matmul(v, b).dtype(), DType::kFloat64);
  EXPECT_EQ(Matmul(a, v).shape(), (Shape{2}));
  // Batch dimensions broadcast.
  EXPECT_EQ(Matmul(client_->Zeros({2, 1, 2, 3}), client_->Zeros({4, 3, 5})).shape(),
            (Shape{2, 4, 2, 5}));
  Array bad = Matmul(a, a);
  EXPECT_EQ(Kind(bad.status()), "ValueError");
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("mismatch in its core dimension"));
  EXPECT_EQ(Kind(Matmul(client_->Full({}, 2.0), a).status()), "ValueError");
  EXPECT_FALSE(client_->Synchronize().ok());  // the refused ops are reported once
  EXPECT_TRUE(client_->Synchronize().ok());
}

TEST_F(NumericTest, InvSolveDet) {
  Array a = Matrix({4, 7, 2, 6}, 2, 2);
  EXPECT_THAT(Values<double>(linalg::Inv(a)),
              Pointwise(DoubleNear(1e-12), std::vector<double>{0.6, -0.7, -0.2, 0.4}));
  Array x = linalg::Solve(a, client_->FromVector(std::vector<double>{1, 2}));
  EXPECT_EQ(x.shape(), (Shape{2}));
  EXPECT_THAT(Values<double>(x), Pointwise(DoubleNear(1e-12), std::vector<double>{-0.8, 0.6}));
  Array xk = linalg::Solve(a, Matrix({1, 0, 2, 1}, 2, 2));
  EXPECT_EQ(xk.shape(), (Shape{2, 2}));
  EXPECT_THAT(Values<double>(linalg::Det(a)), ElementsAre(DoubleNear(10, 1e-12)));
  linalg::SlogdetResult sl = linalg::Slogdet(a.Astype(DType::kFloat32));
  EXPECT_EQ(sl.sign.dtype(), DType::kFloat32);
  EXPECT_EQ(sl.logabsdet.dtype(), DType::kFloat32);
  EXPECT_THAT(Values<float>(sl.sign), ElementsAre(1.0f));
  EXPECT_THAT(Values<float>(sl.logabsdet), ElementsAre(::testing::FloatNear(std::log(10.0f), 1e-5f)));
  // Integers compute in float64; batches of matrices.
  Array batch = client_->Arange(8).Reshape({2, 2, 2});
  EXPECT_EQ(linalg::Det(batch).shape(), (Shape{2}));
  EXPECT_EQ(linalg::Det(batch).dtype(), DType::kFloat64);
}

TEST_F(NumericTest, LinalgErrors) {
  Array vec = client_->Ones({3});
  Array inv = linalg::Inv(vec);
  EXPECT_EQ(Kind(inv.status()), "LinAlgError");
  EXPECT_THAT(std::string(inv.status().message()), HasSubstr("1-dimensional array given"));
  EXPECT_EQ(Kind(linalg::Det(client_->Ones({2, 3})).status()), "LinAlgError");
  EXPECT_EQ(Kind(linalg::Inv(client_->Ones({2, 2}, DType::kFloat16)).status()), "TypeError");
  EXPECT_EQ(Kind(linalg::Qr(client_->Ones({2, 2}), "economic").q.status()), "ValueError");
  EXPECT_EQ(Kind(linalg::Eigh(client_->Ones({2, 2}), "X").eigenvalues.status()), "ValueError");
  EXPECT_FALSE(client_->Synchronize().ok());
  // A singular matrix is found by the server: deferred, on the result.
  Array singular = linalg::Inv(Matrix({1, 2, 2, 4}, 2, 2));
  EXPECT_TRUE(singular.ok());
  absl::StatusOr<std::vector<double>> got = singular.ToVector<double>();
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(Kind(got.status()), "LinAlgError");
  EXPECT_THAT(std::string(got.status().message()), HasSubstr("Singular matrix"));
  // The session keeps serving.
  EXPECT_THAT(Values<double>(linalg::Det(Matrix({2, 0, 0, 3}, 2, 2))),
              ElementsAre(DoubleNear(6, 1e-12)));
}

TEST_F(NumericTest, Decompositions) {
  Array spd = Matrix({4, 2, 2, 3}, 2, 2);
  EXPECT_THAT(Values<double>(linalg::Cholesky(spd)),
              Pointwise(DoubleNear(1e-12), std::vector<double>{2, 0, 1, std::sqrt(2.0)}));
  Array tall = client_->Arange(6).Astype(DType::kFloat64).Reshape({3, 2}) + 1.0;
  linalg::QrResult reduced = linalg::Qr(tall);
  EXPECT_EQ(reduced.q.shape(), (Shape{3, 2}));
  EXPECT_EQ(reduced.r.shape(), (Shape{2, 2}));
  linalg::QrResult complete = linalg::Qr(tall, "complete");
  EXPECT_EQ(complete.q.shape(), (Shape{3, 3}));
  EXPECT_EQ(complete.r.shape(), (Shape{3, 2}));
  EXPECT_THAT(Values<double>(Matmul(reduced.q, reduced.r)),
              Pointwise(DoubleNear(1e-12), std::vector<double>{1, 2, 3, 4, 5, 6}));
  Array m = Matrix({3, 0, 4, 5}, 2, 2);
  EXPECT_THAT(Values<double>(linalg::Svdvals(m)),
              Pointwise(DoubleNear(1e-12), std::vector<double>{6.70820393249937, 2.2360679774997894}));
  linalg::SvdResult usv = linalg::Svd(tall, /*full_matrices=*/false);
  EXPECT_EQ(usv.u.shape(), (Shape{3, 2}));
  EXPECT_EQ(usv.s.shape(), (Shape{2}));
  EXPECT_EQ(usv.vh.shape(), (Shape{2, 2}));
  EXPECT_EQ(linalg::Svd(tall).u.shape(), (Shape{3, 3}));
  linalg::EighResult eig = linalg::Eigh(Matrix({2, 1, 1, 2}, 2, 2).Astype(DType::kComplex64));
  EXPECT_EQ(eig.eigenvalues.dtype(), DType::kFloat32);
  EXPECT_EQ(eig.eigenvectors.dtype(), DType::kComplex64);
  EXPECT_THAT(Values<float>(eig.eigenvalues), Pointwise(::testing::FloatNear(1e-5f),
                                                        std::vector<float>{1, 3}));
  EXPECT_THAT(Values<double>(linalg::Eigvalsh(Matrix({2, 1, 1, 2}, 2, 2), "U")),
              Pointwise(DoubleNear(1e-12), std::vector<double>{1, 3}));
}

TEST_F(NumericTest, Fft) {
  using c128 = std::complex<double>;
  Array x = client_->FromVector(std::vector<double>{1, 2, 3, 4});
  Array f = fft::Fft(x);
  EXPECT_EQ(f.dtype(), DType::kComplex128);
  EXPECT_THAT(Values<c128>(f), ElementsAre(c128(10, 0), c128(-2, 2), c128(-2, 0), c128(-2, -2)));
  EXPECT_THAT(Values<c128>(fft::Fft(x, std::nullopt, -1, "ortho")),
              ElementsAre(c128(5, 0), c128(-1, 1), c128(-1, 0), c128(-1, -1)));
  Array r = fft::Rfft(x);
  EXPECT_EQ(r.shape(), (Shape{3}));
  EXPECT_THAT(Values<c128>(r), ElementsAre(c128(10, 0), c128(-2, 2), c128(-2, 0)));
  EXPECT_THAT(Values<double>(fft::Irfft(r)), Pointwise(DoubleNear(1e-12), std::vector<double>{1, 2, 3, 4}));
  std::vector<c128> back = Values<c128>(fft::Ifft(f));
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(std::abs(back[i] - c128(i + 1, 0)), 0, 1e-12);
  // n pads, single precision stays single, any axis.
  Array f32 = client_->Ones({2, 3}, DType::kFloat32);
  Array padded = fft::Fft(f32, 5, 0);
  EXPECT_EQ(padded.shape(), (Shape{5, 3}));
  EXPECT_EQ(padded.dtype(), DType::kComplex64);
  EXPECT_EQ(fft::Irfft(fft::Rfft(f32)).dtype(), DType::kFloat32);
  EXPECT_EQ(Kind(fft::Fft(x, std::nullopt, -1, "sideways").status()), "ValueError");
  EXPECT_EQ(Kind(fft::Fft(x, 0).status()), "ValueError");
  EXPECT_EQ(Kind(fft::Fft(x, std::nullopt, 1).status()), "AxisError");
  EXPECT_EQ(Kind(fft::Rfft(f).status()), "TypeError");
}

TEST_F(NumericTest, FftOverSeveralAxes) {
  using c128 = std::complex<double>;
  Array x = client_->Arange(6).Astype(DType::kFloat64).Reshape({2, 3});
  const double r3 = 1.7320508075688772;
  auto near = [](const std::vector<c128>& got, const std::vector<c128>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(std::abs(got[i] - want[i]), 0, 1e-12) << i;
  };
  Array f = fft::Fft2(x);
  EXPECT_EQ(f.shape(), (Shape{2, 3}));
  near(Values<c128>(f), {c128(15, 0), c128(-3, r3), c128(-3, -r3), c128(-9, 0), 0, 0});
  near(Values<c128>(fft::Fftn(x)), Values<c128>(f));
  Array r = fft::Rfft2(x);
  EXPECT_EQ(r.shape(), (Shape{2, 2}));
  near(Values<c128>(r), {c128(15, 0), c128(-3, r3), c128(-9, 0), 0});
  EXPECT_THAT(Values<double>(fft::Irfftn(r, std::nullopt, 3)),
              Pointwise(DoubleNear(1e-12), std::vector<double>{0, 1, 2, 3, 4, 5}));
  std::vector<c128> back = Values<c128>(fft::Ifft2(f));
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(std::abs(back[i] - c128(i, 0)), 0, 1e-12);
  // One axis only, and a bad axis.
  near(Values<c128>(fft::Fftn(x, std::vector<int64_t>{0})),
       {c128(3, 0), c128(5, 0), c128(7, 0), c128(-3, 0), c128(-3, 0), c128(-3, 0)});
  EXPECT_EQ(Kind(fft::Fftn(x, std::vector<int64_t>{2}).status()), "AxisError");
  EXPECT_EQ(Kind(fft::Fft2(client_->Ones({4})).status()), "AxisError");
  EXPECT_FALSE(client_->Synchronize().ok());
}

TEST_F(NumericTest, RandomStreamsMatchThePythonClient) {
  random::Generator g(client_.get(), 42);
  EXPECT_THAT(Values<double>(g.Random({5})),
              ElementsAre(0.29289385418501734, 0.6368346197490192, 0.872175628175059,
                          0.7992602704452237, 0.39696554983399923));
  random::Generator f(client_.get(), 42);
  EXPECT_THAT(Values<float>(f.Random({5}, DType::kFloat32)),
              ElementsAre(0.29289383f, 0.9240423f, 0.63683456f, 0.7826333f, 0.8721756f));
  // Draws advance the stream: never the same block twice.
  random::Generator n(client_.get(), 7);
  EXPECT_THAT(Values<double>(n.StandardNormal({3})),
              Pointwise(DoubleNear(1e-15), std::vector<double>{0.24584960232746408, -0.28495279740189955,
                                                               0.548225106573596}));
  EXPECT_THAT(Values<double>(n.StandardNormal({3})),
              Pointwise(DoubleNear(1e-15), std::vector<double>{-0.8767611842437267, 1.761261433537974,
                                                               0.7480477242821294}));
}

TEST_F(NumericTest, RandomDistributions) {
  random::Generator g(client_.get(), 3);
  const int64_t n = 200000;
  std::vector<double> u = Values<double>(g.Uniform(-2, 5, {n}));
  ASSERT_EQ(u.size(), static_cast<size_t>(n));
  double sum = 0, lo = 1e9, hi = -1e9;
  for (double v : u) {
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GE(lo, -2);
  EXPECT_LT(hi, 5);
  EXPECT_NEAR(sum / n, 1.5, 0.05);
  std::vector<float> z = Values<float>(g.Normal(2, 3, {n}, DType::kFloat32));
  double mean = 0, sq = 0;
  for (float v : z) mean += v;
  mean /= n;
  for (float v : z) sq += (v - mean) * (v - mean);
  EXPECT_NEAR(mean, 2, 0.05);
  EXPECT_NEAR(std::sqrt(sq / n), 3, 0.05);
  Array bad = g.Random({3}, DType::kInt32);
  EXPECT_EQ(Kind(bad.status()), "TypeError");
  EXPECT_EQ(Kind(g.StandardNormal({-1}).status()), "ValueError");
  EXPECT_FALSE(client_->Synchronize().ok());
  EXPECT_TRUE(client_->Synchronize().ok());
}

}  // namespace
}  // namespace arrayd
