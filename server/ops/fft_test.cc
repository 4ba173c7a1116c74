// The fft composites (fftn, rfftn, irfftn, hfft, ihfft, fftfreq, rfftfreq, fftshift, ifftshift)
// against NumPy's values, and NumPy's exception kinds for bad input.
#include <complex>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/op_testing.h"

namespace arrayd {
namespace {

using compose::Float;
using compose::Int;
using compose::Ints;
using compose::Str;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Pointwise;

using c128 = std::complex<double>;

class FftCompositeTest : public OpTest {
 protected:
  template <typename T>
  std::vector<T> Result(const std::string& op, std::vector<View> inputs,
                        const compose::AttrList& attrs) {
    absl::StatusOr<std::vector<View>> r = RunOp(op, std::move(inputs), attrs);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? Host<T>((*r)[0]) : std::vector<T>{};
  }
  View Range(Shape shape) {
    std::vector<double> v(ShapeSize(shape));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
    return Doubles(v, std::move(shape));
  }
};

TEST_F(FftCompositeTest, FrequenciesMatchNumpy) {
  EXPECT_THAT(Result<double>("fftfreq", {}, {{"n", Int(5)}, {"d", Float(0.1)}}),
              ElementsAre(0, 2, 4, -4, -2));
  EXPECT_THAT(Result<double>("fftfreq", {}, {{"n", Int(4)}}), ElementsAre(0, 0.25, -0.5, -0.25));
  EXPECT_THAT(Result<double>("rfftfreq", {}, {{"n", Int(6)}, {"d", Float(0.3)}}),
              ElementsAre(0, 0.5555555555555556, 1.1111111111111112, 1.6666666666666667));
  EXPECT_THAT(Result<double>("rfftfreq", {}, {{"n", Int(5)}}), ElementsAre(0, 0.2, 0.4));
  EXPECT_EQ(ErrorOf("fftfreq", {}, {{"n", Int(0)}}), "ZeroDivisionError");
  EXPECT_EQ(ErrorOf("rfftfreq", {}, {{"n", Int(4)}, {"d", Float(0)}}), "ZeroDivisionError");
  EXPECT_EQ(ErrorOf("fftfreq", {}, {{"n", Int(-1)}}), "ValueError");
}

TEST_F(FftCompositeTest, ShiftsMatchNumpy) {
  EXPECT_THAT(Result<double>("fftshift", {Range({5})}, {}), ElementsAre(3, 4, 0, 1, 2));
  EXPECT_THAT(Result<double>("ifftshift", {Range({5})}, {}), ElementsAre(2, 3, 4, 0, 1));
  EXPECT_THAT(Result<double>("fftshift", {Range({3, 4})}, {}),
              ElementsAre(10, 11, 8, 9, 2, 3, 0, 1, 6, 7, 4, 5));
  EXPECT_THAT(Result<double>("ifftshift", {Range({3, 4})}, {{"axes", Ints({0})}}),
              ElementsAre(4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3));
  EXPECT_THAT(Result<double>("fftshift", {Range({3, 4})}, {{"axes", Ints({-1})}}),
              ElementsAre(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9));
  // A repeated axis rolls twice, as numpy.roll: 3 + 3 = 6 = 1 (mod 5).
  EXPECT_THAT(Result<double>("fftshift", {Range({5})}, {{"axes", Ints({0, 0})}}),
              ElementsAre(1, 2, 3, 4, 0));
  // Nothing to roll: still a new array.
  View one = Doubles({1}, {1});
  absl::StatusOr<std::vector<View>> r = RunOp("fftshift", {one}, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NE((*r)[0].buffer, one.buffer);
  EXPECT_EQ(Result<double>("fftshift", {Zeros(DType::kFloat64, {0, 3})}, {}).size(), 0u);
  EXPECT_EQ(ErrorOf("fftshift", {Range({3, 4})}, {{"axes", Ints({2})}}), "AxisError");
}

TEST_F(FftCompositeTest, HermitianTransformsMatchNumpy) {
  View s = Array(std::vector<c128>{1, {2, 1}, {3, -2}, 4}, {4}, DType::kComplex128);
  EXPECT_THAT(Result<double>("hfft", {s}, {}),
              Pointwise(DoubleNear(1e-12),
                        std::vector<double>{15.0, -5.732050807568877, 5.196152422706632, -1.0,
                                            -5.196152422706632, -2.2679491924311224}));
  EXPECT_THAT(
      Result<double>("hfft", {s}, {{"n", Int(5)}}),
      Pointwise(DoubleNear(1e-12), std::vector<double>{11.0, -3.06706196532948, 4.597830558515455,
                                                       -5.3617625810156655, -2.1690060121703096}));
  EXPECT_THAT(Result<double>("hfft", {s}, {{"norm", Str("ortho")}})[0],
              DoubleNear(6.123724356957946, 1e-12));
  std::vector<c128> ih = Result<c128>("ihfft", {Doubles({1, 2, 3, 4, 5}, {5})}, {});
  const std::vector<c128> want{{3, 0}, {-0.5, -0.6881909602355867}, {-0.5, -0.1624598481164532}};
  ASSERT_EQ(ih.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(std::abs(ih[i] - want[i]), 0, 1e-12) << i;
  EXPECT_EQ(ErrorOf("hfft", {s}, {{"norm", Str("sideways")}}), "ValueError");
  EXPECT_EQ(ErrorOf("ihfft", {s}, {}), "TypeError");
}

TEST_F(FftCompositeTest, SeveralAxesMatchNumpy) {
  // numpy.fft.fftn(arange(6).reshape(2, 3)): [[15, -3+1.732j, -3-1.732j], [-9, 0, 0]].
  std::vector<c128> f = Result<c128>("fftn", {Range({2, 3})}, {});
  const std::vector<c128> want{15, {-3, 1.7320508075688772}, {-3, -1.7320508075688772}, -9, 0, 0};
  ASSERT_EQ(f.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(std::abs(f[i] - want[i]), 0, 1e-12) << i;
  // ifftn(fftn(x)) and irfftn(rfftn(x)) give x back; s pads and crops.
  absl::StatusOr<std::vector<View>> r = RunOp("fftn", {Range({2, 3})}, {});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<c128> back = Result<c128>("fftn", {(*r)[0]}, {{"inverse", compose::Bool(true)}});
  for (size_t i = 0; i < back.size(); ++i) EXPECT_NEAR(std::abs(back[i] - c128(i)), 0, 1e-12) << i;
  r = RunOp("rfftn", {Range({2, 4})}, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape, (Shape{2, 3}));
  EXPECT_THAT(Result<double>("irfftn", {(*r)[0]}, {}),
              Pointwise(DoubleNear(1e-12), std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7}));
  r = RunOp("rfftn", {Range({2, 4})}, {{"s", Ints({3, 6})}, {"axes", Ints({0, 1})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape, (Shape{3, 4}));
  r = RunOp("irfftn", {(*r)[0]}, {{"s", Ints({-1, 6})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape, (Shape{3, 6}));
  r = RunOp("fftn", {Range({2, 3})}, {{"axes", Ints({})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dtype, DType::kFloat64);
  EXPECT_EQ(ErrorOf("fftn", {Range({2, 3})}, {{"s", Ints({2})}}), "ValueError");
  EXPECT_EQ(ErrorOf("fftn", {Range({2, 3})}, {{"axes", Ints({2})}}), "AxisError");
  EXPECT_EQ(ErrorOf("rfftn", {Range({2, 3})}, {{"axes", Ints({})}}), "ValueError");
  EXPECT_EQ(ErrorOf("fftn", {Range({2, 3})}, {{"norm", Str("sideways")}}), "ValueError");
}

}  // namespace
}  // namespace arrayd
