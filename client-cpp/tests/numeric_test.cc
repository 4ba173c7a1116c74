// Matmul, linalg, fft and random of the C++ client against a real in-process
// server (CPU backend). Expected values are NumPy 2's (computed with NumPy
// and written here); the random streams' are the Python client's for the
// same seed (ad.random.default_rng(42).random(5) and so on).
#include "arrayd/numeric.h"

#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "client_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

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

TEST_F(NumericTest, NormOfVectorsAndMatrices) {
  Array x = Matrix({1, -2, 3, 4, 5, -6}, 2, 3);
  const double inf = std::numeric_limits<double>::infinity();
  auto norm = [&](const linalg::NormOrder& ord, std::optional<std::vector<int64_t>> axis = std::nullopt) {
    return Values<double>(linalg::Norm(x, ord, axis));
  };
  // Matrix norms (NumPy's values).
  EXPECT_THAT(norm({}), ElementsAre(DoubleNear(9.539392014169456, 1e-12)));
  EXPECT_THAT(norm("fro"), ElementsAre(DoubleNear(9.539392014169456, 1e-12)));
  EXPECT_THAT(norm("nuc"), ElementsAre(DoubleNear(11.653785350898488, 1e-12)));
  EXPECT_THAT(norm(inf), ElementsAre(DoubleNear(15, 1e-12)));
  EXPECT_THAT(norm(-inf), ElementsAre(DoubleNear(6, 1e-12)));
  EXPECT_THAT(norm(1), ElementsAre(DoubleNear(9, 1e-12)));
  EXPECT_THAT(norm(-1), ElementsAre(DoubleNear(5, 1e-12)));
  EXPECT_THAT(norm(2), ElementsAre(DoubleNear(9.225027715260929, 1e-12)));
  EXPECT_THAT(norm(-2), ElementsAre(DoubleNear(2.4287576356375586, 1e-12)));
  // Axes in the other order swap the roles of rows and columns.
  EXPECT_THAT(norm(1, std::vector<int64_t>{1, 0}), ElementsAre(DoubleNear(15, 1e-12)));
  EXPECT_THAT(norm(inf, std::vector<int64_t>{1, 0}), ElementsAre(DoubleNear(9, 1e-12)));
  // Vector norms along an axis.
  const std::vector<int64_t> rows{1};
  EXPECT_THAT(norm({}, rows),
              Pointwise(DoubleNear(1e-12), std::vector<double>{3.7416573867739413, 8.774964387392123}));
  EXPECT_THAT(norm(0, rows), ElementsAre(3, 3));
  EXPECT_THAT(norm(1, rows), ElementsAre(6, 15));
  EXPECT_THAT(norm(inf, rows), ElementsAre(3, 6));
  EXPECT_THAT(norm(-inf, rows), ElementsAre(1, 4));
  EXPECT_THAT(norm(3, rows),
              Pointwise(DoubleNear(1e-12), std::vector<double>{3.3019272488946263, 7.398636222991409}));
  EXPECT_THAT(norm(0.5, rows),
              Pointwise(DoubleNear(1e-11), std::vector<double>{17.191508225450303, 44.69668203123519}));
  EXPECT_THAT(norm(1, std::vector<int64_t>{0}), ElementsAre(5, 7, 9));
  EXPECT_EQ(linalg::Norm(x, 3, rows, /*keepdims=*/true).shape(), (Shape{2, 1}));
  EXPECT_EQ(linalg::Norm(x, "nuc", std::vector<int64_t>{0, 1}, true).shape(), (Shape{1, 1}));
  EXPECT_EQ(linalg::Norm(x, {}, std::nullopt, true).shape(), (Shape{1, 1}));
  // Complex input gives a real norm; integers compute in float64.
  Array z = client_->FromVector(std::vector<std::complex<float>>{{3, 4}, {1, -1}});
  EXPECT_EQ(linalg::Norm(z).dtype(), DType::kFloat32);
  EXPECT_THAT(Values<float>(linalg::Norm(z)), ElementsAre(::testing::FloatNear(5.196152422706632f, 1e-5f)));
  EXPECT_THAT(Values<double>(linalg::Norm(client_->Arange(4))),
              ElementsAre(DoubleNear(3.7416573867739413, 1e-12)));
  // Orders that do not suit the axes.
  EXPECT_EQ(Kind(linalg::Norm(x, "fro", rows).status()), "ValueError");
  EXPECT_EQ(Kind(linalg::Norm(x, 3).status()), "ValueError");
  EXPECT_EQ(Kind(linalg::Norm(client_->Ones({2, 2, 2}), 2).status()), "ValueError");
  EXPECT_EQ(Kind(linalg::Norm(x, {}, std::vector<int64_t>{0, 0}).status()), "ValueError");
  EXPECT_EQ(Kind(linalg::Norm(x, {}, std::vector<int64_t>{2}).status()), "AxisError");
  EXPECT_FALSE(client_->Synchronize().ok());
  EXPECT_TRUE(client_->Synchronize().ok());
}

TEST_F(NumericTest, PinvAndMatrixRank) {
  Array a = Matrix({1, 2, 3, 4, 5, 7}, 3, 2);
  Array p = linalg::Pinv(a);
  EXPECT_EQ(p.shape(), (Shape{2, 3}));
  EXPECT_THAT(Values<double>(p),
              Pointwise(DoubleNear(1e-12),
                        std::vector<double>{-2.0714285714285707, 0.7857142857142864, 0.14285714285714238,
                                            1.4999999999999996, -0.5000000000000006, 0}));
  Array p32 = linalg::Pinv(a.Astype(DType::kFloat32));
  EXPECT_EQ(p32.dtype(), DType::kFloat32);
  EXPECT_THAT(Values<float>(p32),
              Pointwise(::testing::FloatNear(1e-5f),
                        std::vector<float>{-2.0714285f, 0.78571427f, 0.14285715f, 1.5f, -0.5f, 0}));
  EXPECT_EQ(linalg::Pinv(client_->Zeros({0, 3})).shape(), (Shape{3, 0}));
  Array deficient = Matrix({1, 2, 2, 4, 3, 6}, 3, 2);
  EXPECT_THAT(Values<int64_t>(linalg::MatrixRank(deficient)), ElementsAre(1));
  EXPECT_THAT(Values<int64_t>(linalg::MatrixRank(a)), ElementsAre(2));
  Array nearly = Matrix({1, 0, 0, 0, 1e-10, 0, 0, 0, 1}, 3, 3);
  EXPECT_THAT(Values<int64_t>(linalg::MatrixRank(nearly)), ElementsAre(3));
  EXPECT_THAT(Values<int64_t>(linalg::MatrixRank(nearly, 1e-5)), ElementsAre(2));
  EXPECT_THAT(Values<int64_t>(linalg::MatrixRank(client_->Zeros({3}))), ElementsAre(0));
  EXPECT_THAT(Values<int64_t>(linalg::MatrixRank(client_->Arange(2))), ElementsAre(1));
  EXPECT_EQ(linalg::MatrixRank(client_->Ones({4, 2, 3})).shape(), (Shape{4}));
  EXPECT_EQ(Kind(linalg::Pinv(client_->Ones({3})).status()), "LinAlgError");
  EXPECT_EQ(Kind(linalg::Pinv(client_->Ones({2, 2}, DType::kFloat16)).status()), "TypeError");
  EXPECT_EQ(Kind(linalg::MatrixRank(client_->Ones({2, 2}, DType::kFloat16)).status()), "TypeError");
  EXPECT_EQ(Kind(linalg::Norm(client_->Ones({2, 2}, DType::kFloat16), "nuc").status()), "TypeError");
  EXPECT_FALSE(client_->Synchronize().ok());
}

TEST_F(NumericTest, Lstsq) {
  Array a = Matrix({1, 0, 1, 1, 1, 2, 1, 3}, 4, 2);
  absl::StatusOr<linalg::LstsqResult> r =
      linalg::Lstsq(a, client_->FromVector(std::vector<double>{1, 2, 2, 4}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->x.shape(), (Shape{2}));
  EXPECT_THAT(Values<double>(r->x), Pointwise(DoubleNear(1e-12), std::vector<double>{0.9, 0.9}));
  EXPECT_THAT(Values<double>(r->residuals), ElementsAre(DoubleNear(0.7, 1e-12)));
  EXPECT_EQ(r->rank, 2);
  EXPECT_THAT(Values<double>(r->s),
              Pointwise(DoubleNear(1e-12), std::vector<double>{4.10003044816824, 1.0907567666961069}));
  // Rank deficient: the minimum-norm solution and no residuals.
  r = linalg::Lstsq(Matrix({1, 2, 2, 4, 3, 6}, 3, 2), Matrix({1, 0, 2, 1, 3, 1}, 3, 2));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rank, 1);
  EXPECT_EQ(r->residuals.shape(), (Shape{0}));
  EXPECT_THAT(
      Values<double>(r->x),
      Pointwise(DoubleNear(1e-12), std::vector<double>{0.2, 0.07142857142857142, 0.4, 0.14285714285714288}));
  // Bad input is returned at once.
  r = linalg::Lstsq(client_->Ones({3}), client_->Ones({3}));
  EXPECT_EQ(Kind(r.status()), "LinAlgError");
  r = linalg::Lstsq(a, client_->Ones({3}));
  EXPECT_EQ(Kind(r.status()), "LinAlgError");
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("Incompatible dimensions"));
  r = linalg::Lstsq(client_->Ones({2, 2, 2}), client_->Ones({2, 2}));
  EXPECT_EQ(Kind(r.status()), "LinAlgError");
  r = linalg::Lstsq(client_->Ones({2, 2}, DType::kFloat16), client_->Ones({2}));
  EXPECT_EQ(Kind(r.status()), "TypeError");
  EXPECT_TRUE(client_->Synchronize().ok());
}

TEST_F(NumericTest, MatrixPower) {
  Array m = Matrix({2, 1, 1, 3}, 2, 2);
  EXPECT_THAT(Values<double>(linalg::MatrixPower(m, 3)), ElementsAre(15, 20, 20, 35));
  EXPECT_THAT(Values<double>(linalg::MatrixPower(m, 1)), ElementsAre(2, 1, 1, 3));
  EXPECT_THAT(Values<double>(linalg::MatrixPower(m, -2)),
              Pointwise(DoubleNear(1e-12), std::vector<double>{0.4, -0.2, -0.2, 0.2}));
  // Integers stay integers; the 0th power is a stack of identities.
  Array fib = client_->FromVector(std::vector<int64_t>{1, 1, 1, 0}, Shape{2, 2});
  EXPECT_THAT(Values<int64_t>(linalg::MatrixPower(fib, 5)), ElementsAre(8, 5, 5, 3));
  Array identities = linalg::MatrixPower(client_->Arange(8).Reshape({2, 2, 2}), 0);
  EXPECT_EQ(identities.dtype(), DType::kInt64);
  EXPECT_THAT(Values<int64_t>(identities), ElementsAre(1, 0, 0, 1, 1, 0, 0, 1));
  EXPECT_EQ(Kind(linalg::MatrixPower(client_->Ones({2, 3}), 2).status()), "LinAlgError");
  EXPECT_FALSE(client_->Synchronize().ok());
  // A singular matrix to a negative power: the server's LinAlgError.
  absl::StatusOr<std::vector<double>> singular =
      linalg::MatrixPower(Matrix({1, 2, 2, 4}, 2, 2), -1).ToVector<double>();
  EXPECT_EQ(Kind(singular.status()), "LinAlgError");
  EXPECT_TRUE(client_->Synchronize().ok());  // reported once, by the fetch
}

TEST_F(NumericTest, EigRealOrComplexAsNumPy) {
  linalg::EigResult sym = linalg::Eig(Matrix({2, 1, 1, 3}, 2, 2));
  EXPECT_EQ(sym.eigenvalues.dtype(), DType::kFloat64);
  EXPECT_EQ(sym.eigenvectors.dtype(), DType::kFloat64);
  EXPECT_THAT(Values<double>(sym.eigenvalues),
              Pointwise(DoubleNear(1e-12), std::vector<double>{1.381966011250105, 3.618033988749895}));
  Array upper = Matrix({2, 1, 0, 3}, 2, 2);
  std::vector<double> v = Values<double>(linalg::Eig(upper).eigenvectors);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_NEAR(std::abs(v[0]), 1, 1e-12);
  EXPECT_NEAR(std::abs(v[1]), std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(v[2], 0, 1e-12);
  // A rotation has complex eigenvalues: complex results.
  Array w = linalg::Eigvals(Matrix({0, -1, 1, 0}, 2, 2));
  EXPECT_EQ(w.dtype(), DType::kComplex128);
  std::vector<std::complex<double>> got = Values<std::complex<double>>(w);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_NEAR(std::abs(got[0] - std::complex<double>(0, 1)), 0, 1e-12);
  EXPECT_NEAR(std::abs(got[1] - std::complex<double>(0, -1)), 0, 1e-12);
  EXPECT_EQ(linalg::Eigvals(upper.Astype(DType::kComplex64)).dtype(), DType::kComplex64);
  EXPECT_EQ(linalg::Eigvals(upper.Astype(DType::kFloat32)).dtype(), DType::kFloat32);
  EXPECT_EQ(Kind(linalg::Eig(client_->Ones({2, 3})).eigenvalues.status()), "LinAlgError");
  EXPECT_FALSE(client_->Synchronize().ok());
  // NaNs: the server's LinAlgError, carried by the results.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Array bad = linalg::Eigvals(Matrix({nan, 0, 0, 1}, 2, 2));
  EXPECT_EQ(Kind(bad.ToVector<double>().status()), "LinAlgError");
  EXPECT_TRUE(client_->Synchronize().ok());  // reported once, by Eigvals' own read
}

TEST_F(NumericTest, HermitianFftsAndFrequencies) {
  using c128 = std::complex<double>;
  Array s = client_->FromVector(std::vector<c128>{1, {2, 1}, {3, -2}, 4});
  Array h = fft::Hfft(s);
  EXPECT_EQ(h.dtype(), DType::kFloat64);
  EXPECT_THAT(
      Values<double>(h),
      Pointwise(DoubleNear(1e-12), std::vector<double>{15.0, -5.732050807568877, 5.196152422706632, -1.0,
                                                       -5.196152422706632, -2.2679491924311224}));
  EXPECT_THAT(Values<double>(fft::Hfft(s, 5)),
              Pointwise(DoubleNear(1e-12), std::vector<double>{11.0, -3.06706196532948, 4.597830558515455,
                                                               -5.3617625810156655, -2.1690060121703096}));
  EXPECT_THAT(Values<double>(fft::Hfft(s, std::nullopt, -1, "ortho"))[0],
              DoubleNear(6.123724356957946, 1e-12));
  std::vector<c128> ih = Values<c128>(fft::Ihfft(client_->FromVector(std::vector<double>{1, 2, 3, 4, 5})));
  const std::vector<c128> want{{3, 0}, {-0.5, -0.6881909602355867}, {-0.5, -0.1624598481164532}};
  ASSERT_EQ(ih.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(std::abs(ih[i] - want[i]), 0, 1e-12) << i;
  EXPECT_EQ(Kind(fft::Hfft(s, std::nullopt, -1, "sideways").status()), "ValueError");
  EXPECT_EQ(Kind(fft::Ihfft(s).status()), "TypeError");

  EXPECT_THAT(Values<double>(fft::Fftfreq(client_.get(), 5, 0.1)), ElementsAre(0, 2, 4, -4, -2));
  EXPECT_THAT(Values<double>(fft::Fftfreq(client_.get(), 4)), ElementsAre(0, 0.25, -0.5, -0.25));
  EXPECT_THAT(Values<double>(fft::Rfftfreq(client_.get(), 6, 0.3)),
              ElementsAre(0, 0.5555555555555556, 1.1111111111111112, 1.6666666666666667));
  EXPECT_THAT(Values<double>(fft::Rfftfreq(client_.get(), 5)), ElementsAre(0, 0.2, 0.4));
  EXPECT_EQ(Kind(fft::Fftfreq(client_.get(), 0).status()), "ZeroDivisionError");
  EXPECT_EQ(Kind(fft::Rfftfreq(client_.get(), 4, 0.0).status()), "ZeroDivisionError");
  EXPECT_EQ(Kind(fft::Fftfreq(client_.get(), -1).status()), "ValueError");
  EXPECT_FALSE(client_->Synchronize().ok());
}

TEST_F(NumericTest, FftShift) {
  Array y = client_->Arange(5).Astype(DType::kFloat64);
  EXPECT_THAT(Values<double>(fft::Fftshift(y)), ElementsAre(3, 4, 0, 1, 2));
  EXPECT_THAT(Values<double>(fft::Ifftshift(y)), ElementsAre(2, 3, 4, 0, 1));
  EXPECT_THAT(Values<double>(fft::Ifftshift(fft::Fftshift(y))), ElementsAre(0, 1, 2, 3, 4));
  Array z = client_->Arange(12).Astype(DType::kFloat64).Reshape({3, 4});
  EXPECT_THAT(Values<double>(fft::Fftshift(z)), ElementsAre(10, 11, 8, 9, 2, 3, 0, 1, 6, 7, 4, 5));
  EXPECT_THAT(Values<double>(fft::Ifftshift(z, std::vector<int64_t>{0})),
              ElementsAre(4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3));
  EXPECT_THAT(Values<double>(fft::Fftshift(z, std::vector<int64_t>{-1})),
              ElementsAre(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9));
  // Nothing to roll: still a new array.
  Array one = client_->Ones({1});
  Array shifted = fft::Fftshift(one);
  EXPECT_NE(shifted.handle(), one.handle());
  EXPECT_THAT(Values<double>(shifted), ElementsAre(1));
  EXPECT_EQ(Kind(fft::Fftshift(z, std::vector<int64_t>{2}).status()), "AxisError");
  EXPECT_FALSE(client_->Synchronize().ok());
}

// Values are the Python client's for the same seeds and calls
// (ad.random.default_rng(42).integers(0, 10, 8) and so on, against a CPU
// server).
TEST_F(NumericTest, RandomIntegersMatchThePythonClient) {
  random::Generator g(client_.get(), 42);
  EXPECT_THAT(Values<int64_t>(g.Integers(0, 10, {8})), ElementsAre(2, 6, 8, 7, 3, 7, 8, 5));
  EXPECT_THAT(Values<int8_t>(g.Integers(-5, 5, {6}, DType::kInt8)), ElementsAre(2, 0, -4, 0, -5, 0));
  EXPECT_THAT(Values<int64_t>(g.Integers(1, 6, {5}, DType::kInt64, /*endpoint=*/true)),
              ElementsAre(1, 4, 6, 3, 1));
  const int64_t big = int64_t{1} << 62;
  EXPECT_THAT(
      Values<int64_t>(g.Integers(-big, big, {4})),
      ElementsAre(2210196139343348179, -3677418333311830604, 670182970607039052, -1838959563543954271));
  EXPECT_THAT(Values<uint64_t>(g.Integers(0, INT64_MAX, {3}, DType::kUInt64)),
              ElementsAre(757941409525594928u, 3233773188676684270u, 9137779579614278632u));
  EXPECT_THAT(Values<bool>(g.Integers(0, 2, {6}, DType::kBool)),
              ElementsAre(true, true, false, true, true, false));
  // Bad ranges and dtypes draw nothing.
  EXPECT_EQ(Kind(g.Integers(3, 3, {2}).status()), "ValueError");
  EXPECT_EQ(Kind(g.Integers(0, 300, {2}, DType::kUInt8).status()), "ValueError");
  EXPECT_EQ(Kind(g.Integers(-1, 3, {2}, DType::kUInt32).status()), "ValueError");
  EXPECT_EQ(Kind(g.Integers(0, 3, {2}, DType::kFloat64).status()), "TypeError");
  EXPECT_EQ(Kind(g.Integers(0, 3, {-2}).status()), "ValueError");
  EXPECT_FALSE(client_->Synchronize().ok());
}

TEST_F(NumericTest, RandomDistributionsMatchThePythonClient) {
  random::Generator g(client_.get(), 7);
  EXPECT_THAT(Values<double>(g.Exponential(2.0, {4})),
              Pointwise(DoubleNear(1e-15), std::vector<double>{0.14164012371174023, 0.9029023945190848,
                                                               1.316490784327525, 0.7988177358928714}));
  EXPECT_THAT(Values<float>(g.StandardExponential({3}, DType::kFloat32)),
              Pointwise(::testing::FloatNear(1e-6f),
                        std::vector<float>{1.935375690460205f, 0.2623674273490906f, 1.7345011234283447f}));
  EXPECT_THAT(Values<double>(g.Normal(1.0, 2.0, {3})),
              Pointwise(DoubleNear(1e-14),
                        std::vector<double>{2.496095448564259, 1.0255929453611206, -0.8449500558175842}));
  EXPECT_THAT(Values<double>(g.Uniform(-1.0, 3.0, {3})),
              Pointwise(DoubleNear(1e-15),
                        std::vector<double>{2.1588599208812282, 1.5908777353258543, -0.45796517623027055}));
  random::Generator p(client_.get(), 2024);
  EXPECT_THAT(Values<int64_t>(p.Poisson(3.5, {10})), ElementsAre(3, 3, 5, 3, 6, 6, 2, 3, 5, 2));
  EXPECT_THAT(Values<int64_t>(p.Poisson(0.0, {2})), ElementsAre(0, 0));
  EXPECT_THAT(Values<int64_t>(p.Poisson(1000.0, {4})), ElementsAre(979, 1030, 1050, 993));
  EXPECT_EQ(Kind(g.Normal(0, -1, {2}).status()), "ValueError");
  EXPECT_EQ(Kind(g.Exponential(-1, {2}).status()), "ValueError");
  EXPECT_EQ(Kind(g.Uniform(-1e308, 1e308, {2}).status()), "OverflowError");
  EXPECT_EQ(Kind(p.Poisson(-1, {2}).status()), "ValueError");
  EXPECT_EQ(Kind(p.Poisson(1e9, {2}).status()), "NotImplementedError");
  EXPECT_EQ(Kind(g.StandardExponential({2}, DType::kInt32).status()), "TypeError");
  EXPECT_FALSE(client_->Synchronize().ok());
}

TEST_F(NumericTest, RandomPermutationsMatchThePythonClient) {
  random::Generator g(client_.get(), 11);
  EXPECT_THAT(Values<int64_t>(g.Permutation(8)), ElementsAre(2, 0, 6, 5, 3, 4, 1, 7));
  Array x = client_->Arange(12).Astype(DType::kFloat64).Reshape({4, 3});
  EXPECT_THAT(Values<double>(g.Permutation(x)), ElementsAre(3, 4, 5, 9, 10, 11, 6, 7, 8, 0, 1, 2));
  EXPECT_THAT(Values<double>(g.Permutation(x, 1)), ElementsAre(1, 0, 2, 4, 3, 5, 7, 6, 8, 10, 9, 11));
  Array y = client_->Arange(6);
  g.Shuffle(y);
  EXPECT_THAT(Values<int64_t>(y), ElementsAre(3, 4, 0, 1, 2, 5));
  EXPECT_EQ(Kind(g.Permutation(-1).status()), "ValueError");
  EXPECT_EQ(Kind(g.Permutation(x, 2).status()), "AxisError");
  EXPECT_EQ(Kind(g.Permutation(client_->Full({}, 1.0)).status()), "AxisError");
  EXPECT_FALSE(client_->Synchronize().ok());
  g.Shuffle(client_->Full({}, 1.0));
  absl::Status shuffled = client_->Synchronize();
  EXPECT_EQ(Kind(shuffled), "TypeError");
}

TEST_F(NumericTest, RandomChoiceMatchesThePythonClient) {
  random::Generator g(client_.get(), 5);
  EXPECT_THAT(Values<int64_t>(g.Choice(10, {6})), ElementsAre(1, 3, 0, 7, 1, 5));
  EXPECT_THAT(Values<int64_t>(g.Choice(10, {4}, /*replace=*/false)), ElementsAre(9, 6, 7, 4));
  const std::vector<double> p{0.1, 0.2, 0.3, 0.4, 0.0};
  EXPECT_THAT(Values<int64_t>(g.Choice(5, {8}, true, p)), ElementsAre(3, 2, 2, 0, 3, 3, 3, 2));
  EXPECT_THAT(Values<int64_t>(g.Choice(5, {3}, false, p)), ElementsAre(3, 1, 2));
  Array pop = Matrix({1, 2, 3, 4, 5, 6}, 3, 2);
  EXPECT_THAT(Values<double>(g.Choice(pop, {2})), ElementsAre(1, 2, 1, 2));
  EXPECT_THAT(Values<double>(g.Choice(pop, {2}, true, std::nullopt, 1)), ElementsAre(2, 2, 4, 4, 6, 6));
  // The stream continues where the Python client's does.
  EXPECT_THAT(Values<double>(g.Random({2})), ElementsAre(0.4035097294821933, 0.41274314020978364));
  EXPECT_EQ(g.Choice(10, {2, 3}).shape(), (Shape{2, 3}));
  EXPECT_EQ(Kind(g.Choice(3, {4}, false).status()), "ValueError");
  EXPECT_EQ(Kind(g.Choice(5, {2}, true, std::vector<double>{0.5, 0.5}).status()), "ValueError");
  EXPECT_EQ(Kind(g.Choice(2, {2}, true, std::vector<double>{0.5, 0.6}).status()), "ValueError");
  EXPECT_EQ(Kind(g.Choice(2, {2}, true, std::vector<double>{1.5, -0.5}).status()), "ValueError");
  EXPECT_EQ(Kind(g.Choice(3, {3}, false, std::vector<double>{0.5, 0.5, 0}).status()), "ValueError");
  EXPECT_EQ(Kind(g.Choice(0, {1}).status()), "ValueError");
  EXPECT_EQ(Kind(g.Choice(client_->Full({}, 1.0), {1}).status()), "ValueError");
  EXPECT_FALSE(client_->Synchronize().ok());
}

TEST_F(NumericTest, LegacyRandomFunctionsMatchThePythonClient) {
  // ad.random.seed(3); ad.random.rand(3); ad.random.randint(0, 100, 5); ...
  random::Seed(3);
  EXPECT_THAT(Values<double>(random::Rand(client_.get(), {3})),
              ElementsAre(0.6612603145298255, 0.9446911191851634, 0.35822962135626335));
  EXPECT_THAT(Values<int64_t>(random::Randint(client_.get(), 0, 100, {5})), ElementsAre(88, 50, 49, 11, 2));
  EXPECT_THAT(Values<double>(random::Randn(client_.get(), {2})),
              Pointwise(DoubleNear(1e-15), std::vector<double>{-0.2713519534973819, 1.4497836263543686}));
  EXPECT_THAT(Values<double>(random::RandomSample(client_.get(), {2})),
              ElementsAre(0.671441969845617, 0.949366900857127));
  // The stream is shared by every Client.
  auto other = Client::Connect(server_->address(), "client_test");
  ASSERT_TRUE(other.ok()) << other.status();
  random::Seed(3);
  EXPECT_THAT(Values<double>(random::Rand(other->get(), {1})), ElementsAre(0.6612603145298255));
  // A draw takes whole Philox blocks (two float64 each): the next starts at value 2.
  EXPECT_THAT(Values<double>(random::Rand(client_.get(), {1})), ElementsAre(0.35822962135626335));
  EXPECT_EQ(Kind(random::Randint(client_.get(), 5, 5, {1}).status()), "ValueError");
  EXPECT_FALSE(client_->Synchronize().ok());
}

TEST_F(NumericTest, LegacyDistributionsAndSamplingMatchThePythonClient) {
  // ad.random.seed(3); normal(1, 2, 2); uniform(-1, 1, 2); permutation(5);
  // choice(10, 3); shuffle(arange(5)); choice(5, 3, False, p)
  random::Seed(3);
  Client* c = client_.get();
  EXPECT_THAT(Values<double>(random::Normal(c, 1.0, 2.0, {2})),
              Pointwise(DoubleNear(1e-14), std::vector<double>{-1.7669024674981237, 2.002216335797546}));
  EXPECT_THAT(Values<double>(random::Uniform(c, -1.0, 1.0, {2})),
              ElementsAre(-0.2835407572874733, 0.32690591989154094));
  EXPECT_THAT(Values<int64_t>(random::Permutation(c, 5)), ElementsAre(4, 3, 2, 1, 0));
  EXPECT_THAT(Values<int64_t>(random::Choice(c, 10, {3})), ElementsAre(6, 7, 6));
  Array x = c->Arange(5);
  random::Shuffle(c, x);
  EXPECT_THAT(Values<int64_t>(x), ElementsAre(2, 0, 3, 1, 4));
  EXPECT_THAT(Values<int64_t>(random::Choice(c, 5, {3}, false, std::vector<double>{0.1, 0.2, 0.3, 0.2, 0.2})),
              ElementsAre(3, 4, 0));
  EXPECT_EQ(Kind(random::Normal(c, 0.0, -1.0, {1}).status()), "ValueError");
  EXPECT_FALSE(client_->Synchronize().ok());
}

}  // namespace
}  // namespace arrayd
