// The random ops: the seed -> Philox key derivation (the streams both
// clients pin), the composites integers, poisson, permutation, exponential,
// shuffle and choice and the parameters of normal and uniform, and NumPy's
// exception kinds for bad input.
#include <algorithm>
#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/op_testing.h"

namespace arrayd {
namespace {

using compose::Bool;
using compose::Float;
using compose::Int;
using compose::Ints;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Pointwise;

class RandomOpTest : public OpTest {
 protected:
  // The attributes of a draw of `shape` from seed words `seed` at block `offset`.
  static compose::AttrList Stream(std::vector<int64_t> seed, int64_t offset, Shape shape) {
    return {{"seed", Ints(std::move(seed))},
            {"offset", Int(offset)},
            {"shape", Ints(std::vector<int64_t>(shape.begin(), shape.end()))}};
  }
  static v1::AttrValue Dt(DType d) {
    v1::AttrValue a;
    a.set_dtype(static_cast<v1::DType>(d));
    return a;
  }
  template <typename T>
  std::vector<T> Draw(const std::string& op, compose::AttrList attrs) {
    absl::StatusOr<std::vector<View>> r = RunOp(op, {}, attrs);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? Host<T>((*r)[0]) : std::vector<T>{};
  }
};

// Values are the Python client's (ad.random.default_rng(42).random(5)).
TEST_F(RandomOpTest, SeedWordsGiveTheClientsStreams) {
  compose::AttrList attrs = Stream({42}, 0, {5});
  attrs.push_back({"dtype", Dt(DType::kFloat64)});
  EXPECT_THAT(Draw<double>("random_uniform", attrs),
              ElementsAre(0.29289385418501734, 0.6368346197490192, 0.872175628175059,
                          0.7992602704452237, 0.39696554983399923));
  // Block 1 is values 2 and 3 of the stream.
  attrs = Stream({42}, 1, {2});
  attrs.push_back({"dtype", Dt(DType::kFloat64)});
  EXPECT_THAT(Draw<double>("random_uniform", attrs),
              ElementsAre(0.872175628175059, 0.7992602704452237));
  // No words is the seed 0; more words fold into another key.
  attrs = Stream({}, 0, {2});
  attrs.push_back({"dtype", Dt(DType::kFloat64)});
  compose::AttrList zero = Stream({0}, 0, {2});
  zero.push_back({"dtype", Dt(DType::kFloat64)});
  EXPECT_EQ(Draw<double>("random_uniform", attrs), Draw<double>("random_uniform", zero));
  compose::AttrList wide = Stream({5, 64}, 0, {2});  // 2^70 + 5
  wide.push_back({"dtype", Dt(DType::kFloat64)});
  compose::AttrList low = Stream({5}, 0, {2});
  low.push_back({"dtype", Dt(DType::kFloat64)});
  EXPECT_NE(Draw<double>("random_uniform", wide), Draw<double>("random_uniform", low));
}

TEST_F(RandomOpTest, IntegersMatchTheClientsStreams) {
  compose::AttrList attrs = Stream({42}, 0, {8});
  attrs.push_back({"low", Int(0)});
  attrs.push_back({"high", Int(10)});
  EXPECT_THAT(Draw<int64_t>("random_integers", attrs), ElementsAre(2, 6, 8, 7, 3, 7, 8, 5));
  // Ranges above 2^53 values take two draws' blocks: (8 + 1) / 2 = 4 blocks
  // after the 4 of the first call, as the client counts.
  attrs = Stream({42}, 4 + 3 + 3, {4});
  attrs.push_back({"low", Int(-(int64_t{1} << 62))});
  attrs.push_back({"high", Int(int64_t{1} << 62)});
  EXPECT_THAT(Draw<int64_t>("random_integers", attrs),
              ElementsAre(2210196139343348179, -3677418333311830604, 670182970607039052,
                          -1838959563543954271));
  attrs = Stream({1}, 0, {1000});
  attrs.push_back({"low", Int(-3)});
  attrs.push_back({"high", Int(3)});
  attrs.push_back({"endpoint", Bool(true)});
  attrs.push_back({"dtype", Dt(DType::kInt8)});
  std::vector<int8_t> small = Draw<int8_t>("random_integers", attrs);
  EXPECT_EQ(*std::min_element(small.begin(), small.end()), -3);
  EXPECT_EQ(*std::max_element(small.begin(), small.end()), 3);
}

TEST_F(RandomOpTest, IntegersBadInputIsNumpysError) {
  auto error = [&](int64_t low, int64_t high, DType dtype, bool endpoint = false) {
    compose::AttrList attrs = Stream({1}, 0, {2});
    attrs.push_back({"low", Int(low)});
    attrs.push_back({"high", Int(high)});
    attrs.push_back({"dtype", Dt(dtype)});
    attrs.push_back({"endpoint", Bool(endpoint)});
    return ErrorOf("random_integers", {}, attrs);
  };
  EXPECT_EQ(error(0, 3, DType::kInt64), "");
  EXPECT_EQ(error(5, 5, DType::kInt64), "ValueError");
  EXPECT_EQ(error(5, 4, DType::kInt64, true), "ValueError");
  EXPECT_EQ(error(0, 300, DType::kUInt8), "ValueError");
  EXPECT_EQ(error(-1, 3, DType::kUInt32), "ValueError");
  EXPECT_EQ(error(0, 3, DType::kFloat32), "TypeError");
  EXPECT_EQ(error(INT64_MIN, INT64_MIN, DType::kInt64), "ValueError");
}

TEST_F(RandomOpTest, PoissonMatchesTheClientsStreams) {
  compose::AttrList attrs = Stream({2024}, 0, {10});
  attrs.push_back({"lam", Float(3.5)});
  EXPECT_THAT(Draw<int64_t>("random_poisson", attrs), ElementsAre(3, 3, 5, 3, 6, 6, 2, 3, 5, 2));
  attrs = Stream({2024}, 6, {4});
  attrs.push_back({"lam", Float(1000)});
  EXPECT_THAT(Draw<int64_t>("random_poisson", attrs), ElementsAre(979, 1030, 1050, 993));
  attrs = Stream({2024}, 0, {2});
  attrs.push_back({"lam", Float(0)});
  EXPECT_THAT(Draw<int64_t>("random_poisson", attrs), ElementsAre(0, 0));
}

TEST_F(RandomOpTest, PoissonBadInputIsNumpysError) {
  for (double lam : {-1.0, std::nan("")}) {
    compose::AttrList attrs = Stream({1}, 0, {2});
    attrs.push_back({"lam", Float(lam)});
    EXPECT_EQ(ErrorOf("random_poisson", {}, attrs), "ValueError") << lam;
  }
  compose::AttrList attrs = Stream({1}, 0, {2});
  attrs.push_back({"lam", Float(1e9)});
  EXPECT_EQ(ErrorOf("random_poisson", {}, attrs), "NotImplementedError");
}

TEST_F(RandomOpTest, PermutationMatchesTheClientsStreams) {
  compose::AttrList attrs = {{"seed", Ints({11})}, {"offset", Int(0)}, {"n", Int(8)}};
  EXPECT_THAT(Draw<int64_t>("random_permutation", attrs), ElementsAre(2, 0, 6, 5, 3, 4, 1, 7));
  std::vector<double> values(12);
  for (int i = 0; i < 12; ++i) values[i] = i;
  absl::StatusOr<std::vector<View>> r = RunOp("random_permutation", {Doubles(values, {4, 3})},
                                              {{"seed", Ints({11})}, {"offset", Int(4)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Host<double>((*r)[0]), ElementsAre(3, 4, 5, 9, 10, 11, 6, 7, 8, 0, 1, 2));
  r = RunOp("random_permutation", {Doubles(values, {4, 3})},
            {{"seed", Ints({11})}, {"offset", Int(6)}, {"axis", Int(1)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Host<double>((*r)[0]), ElementsAre(1, 0, 2, 4, 3, 5, 7, 6, 8, 10, 9, 11));
  r = RunOp("random_permutation", {Zeros(DType::kFloat64, {0, 2})},
            {{"seed", Ints({1})}, {"offset", Int(0)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape, (Shape{0, 2}));
}

TEST_F(RandomOpTest, PermutationBadInputIsNumpysError) {
  compose::AttrList stream = {{"seed", Ints({1})}, {"offset", Int(0)}};
  compose::AttrList negative = stream;
  negative.push_back({"n", Int(-1)});
  EXPECT_EQ(ErrorOf("random_permutation", {}, negative), "ValueError");
  EXPECT_EQ(ErrorOf("random_permutation", {Doubles({1}, {})}, stream), "AxisError");
  compose::AttrList axis = stream;
  axis.push_back({"axis", Int(2)});
  EXPECT_EQ(ErrorOf("random_permutation", {Doubles({1, 2}, {2})}, axis), "AxisError");
  compose::AttrList both = stream;
  both.push_back({"n", Int(2)});
  EXPECT_EQ(ErrorOf("random_permutation", {Doubles({1, 2}, {2})}, both), "ValueError");
  EXPECT_EQ(ErrorOf("random_permutation", {}, stream), "ValueError");  // neither
}

// Values are the clients' (default_rng(7): exponential(2.0, 4),
// standard_exponential(3, float32), normal(1.0, 2.0, 3), uniform(-1.0, 3.0, 3)).
TEST_F(RandomOpTest, ScaledDrawsMatchTheClientsStreams) {
  compose::AttrList attrs = Stream({7}, 0, {4});
  attrs.push_back({"scale", Float(2.0)});
  EXPECT_THAT(Draw<double>("random_exponential", attrs),
              Pointwise(DoubleNear(1e-15), std::vector<double>{0.14164012371174023, 0.9029023945190848,
                                                               1.316490784327525, 0.7988177358928714}));
  attrs = Stream({7}, 2, {3});
  attrs.push_back({"dtype", Dt(DType::kFloat32)});
  EXPECT_THAT(Draw<float>("random_exponential", attrs),
              Pointwise(::testing::FloatNear(1e-6f),
                        std::vector<float>{1.935375690460205f, 0.2623674273490906f, 1.7345011234283447f}));
  attrs = Stream({7}, 3, {3});
  attrs.push_back({"dtype", Dt(DType::kFloat64)});
  attrs.push_back({"loc", Float(1.0)});
  attrs.push_back({"scale", Float(2.0)});
  EXPECT_THAT(Draw<double>("random_normal", attrs),
              Pointwise(DoubleNear(1e-14),
                        std::vector<double>{2.496095448564259, 1.0255929453611206, -0.8449500558175842}));
  attrs = Stream({7}, 5, {3});
  attrs.push_back({"dtype", Dt(DType::kFloat64)});
  attrs.push_back({"low", Float(-1.0)});
  attrs.push_back({"high", Float(3.0)});
  EXPECT_THAT(Draw<double>("random_uniform", attrs),
              Pointwise(DoubleNear(1e-15),
                        std::vector<double>{2.1588599208812282, 1.5908777353258543, -0.45796517623027055}));
  // Array parameters broadcast to the shape: loc [0, 100] and scale 0 give loc.
  attrs = Stream({7}, 0, {2, 2});
  attrs.push_back({"dtype", Dt(DType::kFloat64)});
  absl::StatusOr<std::vector<View>> r =
      RunOp("random_normal", {Doubles({0, 100}, {2}), Doubles({0}, {})}, attrs);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Host<double>((*r)[0]), ElementsAre(0, 100, 0, 100));
  r = RunOp("random_exponential", {Doubles({0, 1}, {2})}, attrs);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<double> e = Host<double>((*r)[0]);
  EXPECT_EQ(e[0], 0);
  EXPECT_GT(e[1], 0);
}

TEST_F(RandomOpTest, ScaledDrawsBadInputIsNumpysError) {
  compose::AttrList attrs = Stream({1}, 0, {2});
  attrs.push_back({"dtype", Dt(DType::kFloat64)});
  compose::AttrList scale = attrs;
  scale.push_back({"scale", Float(-1)});
  EXPECT_EQ(ErrorOf("random_normal", {}, scale), "ValueError");
  EXPECT_EQ(ErrorOf("random_exponential", {}, scale), "ValueError");
  compose::AttrList range = attrs;
  range.push_back({"low", Float(-1e308)});
  range.push_back({"high", Float(1e308)});
  EXPECT_EQ(ErrorOf("random_uniform", {}, range), "OverflowError");
  EXPECT_EQ(ErrorOf("random_normal", {Doubles({0, 1, 2}, {3}), Doubles({1}, {})}, attrs), "ValueError");
  EXPECT_EQ(ErrorOf("random_normal", {Doubles({0}, {})}, attrs), "ValueError");  // one of two
  compose::AttrList ints = Stream({1}, 0, {2});
  ints.push_back({"dtype", Dt(DType::kInt32)});
  EXPECT_EQ(ErrorOf("random_exponential", {}, ints), "TypeError");
}

// Values are the clients' (default_rng(11): permutation(8), of a (4, 3)
// array on both axes, then shuffle(arange(6)) at block 8).
TEST_F(RandomOpTest, ShuffleMatchesTheClientsStreams) {
  View y = Array(std::vector<int64_t>{0, 1, 2, 3, 4, 5}, {6}, DType::kInt64);
  absl::StatusOr<std::vector<View>> r = RunOp("random_shuffle", {y}, {{"seed", Ints({11})}, {"offset", Int(8)}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->empty());
  EXPECT_THAT(Host<int64_t>(y), ElementsAre(3, 4, 0, 1, 2, 5));
  compose::AttrList stream = {{"seed", Ints({1})}, {"offset", Int(0)}};
  EXPECT_EQ(ErrorOf("random_shuffle", {Doubles({1}, {})}, stream), "TypeError");
  View broadcast = *BroadcastTo(Doubles({1}, {}), {3});
  EXPECT_EQ(ErrorOf("random_shuffle", {broadcast}, stream), "ValueError");
}

// Values are the clients' (default_rng(5): choice(10, 6), choice(10, 4,
// replace=False), choice(5, 8, p=p), choice(5, 3, replace=False, p=p),
// choice of a (3, 2) array: blocks 0, 3, 8, 12, 15).
TEST_F(RandomOpTest, ChoiceMatchesTheClientsStreams) {
  const std::vector<double> p{0.1, 0.2, 0.3, 0.4, 0.0};
  const v1::AttrValue pa = [&] {
    v1::AttrValue a;
    a.set_data(std::string(reinterpret_cast<const char*>(p.data()), p.size() * sizeof(double)));
    return a;
  }();
  auto choice = [&](int64_t offset, Shape shape, compose::AttrList more, std::vector<View> a = {}) {
    compose::AttrList attrs = Stream({5}, offset, shape);
    attrs.insert(attrs.end(), more.begin(), more.end());
    absl::StatusOr<std::vector<View>> r = RunOp("random_choice", std::move(a), attrs);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? (*r)[0] : View();
  };
  EXPECT_THAT(Host<int64_t>(choice(0, {6}, {{"n", Int(10)}})), ElementsAre(1, 3, 0, 7, 1, 5));
  EXPECT_THAT(Host<int64_t>(choice(3, {4}, {{"n", Int(10)}, {"replace", Bool(false)}})),
              ElementsAre(9, 6, 7, 4));
  EXPECT_THAT(Host<int64_t>(choice(8, {8}, {{"n", Int(5)}, {"p", pa}})), ElementsAre(3, 2, 2, 0, 3, 3, 3, 2));
  EXPECT_THAT(Host<int64_t>(choice(12, {3}, {{"n", Int(5)}, {"p", pa}, {"replace", Bool(false)}})),
              ElementsAre(3, 1, 2));
  View pop = Doubles({1, 2, 3, 4, 5, 6}, {3, 2});
  View picked = choice(15, {2}, {}, {pop});
  EXPECT_EQ(picked.shape, (Shape{2, 2}));
  EXPECT_THAT(Host<double>(picked), ElementsAre(1, 2, 1, 2));
  EXPECT_EQ(choice(0, {2, 3}, {{"n", Int(10)}}).shape, (Shape{2, 3}));
  EXPECT_EQ(choice(0, {0}, {{"n", Int(0)}}).shape, (Shape{0}));
}

TEST_F(RandomOpTest, ChoiceBadInputIsNumpysError) {
  auto data = [](std::vector<double> p) {
    v1::AttrValue a;
    a.set_data(std::string(reinterpret_cast<const char*>(p.data()), p.size() * sizeof(double)));
    return a;
  };
  auto error = [&](compose::AttrList more, std::vector<View> a = {}) {
    compose::AttrList attrs = Stream({1}, 0, {2});
    attrs.insert(attrs.end(), more.begin(), more.end());
    return ErrorOf("random_choice", std::move(a), attrs);
  };
  EXPECT_EQ(error({{"n", Int(3)}}), "");
  EXPECT_EQ(error({{"n", Int(1)}, {"replace", Bool(false)}}), "ValueError");
  EXPECT_EQ(error({{"n", Int(3)}, {"p", data({0.5, 0.5})}}), "ValueError");
  EXPECT_EQ(error({{"n", Int(2)}, {"p", data({0.5, 0.6})}}), "ValueError");
  EXPECT_EQ(error({{"n", Int(2)}, {"p", data({1.5, -0.5})}}), "ValueError");
  EXPECT_EQ(error({{"n", Int(2)}, {"p", data({1, 0})}, {"replace", Bool(false)}}), "ValueError");
  EXPECT_EQ(error({{"n", Int(0)}}), "ValueError");
  EXPECT_EQ(error({{"n", Int(-1)}}), "ValueError");
  EXPECT_EQ(error({}, {Doubles({1}, {})}), "ValueError");
  EXPECT_EQ(error({{"axis", Int(1)}}, {Doubles({1, 2}, {2})}), "AxisError");
  EXPECT_EQ(error({}), "ValueError");  // neither a nor n
}

}  // namespace
}  // namespace arrayd
