#include "array/dtype.h"

#include <string>

#include "gtest/gtest.h"

namespace arrayd {
namespace {

constexpr int kN = kNumDTypes;

// np.promote_types(row, column) as printed by NumPy 2 for the dtypes in wire
// order (bool, int8, ..., complex128).
const char* const kNumpyPromotion[kN][kN] = {
    {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"},
    {"int8", "int8", "int16", "int32", "int64", "int16", "int32", "int64", "float64", "float16", "float32", "float64", "complex64", "complex128"},
    {"int16", "int16", "int16", "int32", "int64", "int16", "int32", "int64", "float64", "float32", "float32", "float64", "complex64", "complex128"},
    {"int32", "int32", "int32", "int32", "int64", "int32", "int32", "int64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
    {"int64", "int64", "int64", "int64", "int64", "int64", "int64", "int64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
    {"uint8", "int16", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"},
    {"uint16", "int32", "int32", "int32", "int64", "uint16", "uint16", "uint32", "uint64", "float32", "float32", "float64", "complex64", "complex128"},
    {"uint32", "int64", "int64", "int64", "int64", "uint32", "uint32", "uint32", "uint64", "float64", "float64", "float64", "complex128", "complex128"},
    {"uint64", "float64", "float64", "float64", "float64", "uint64", "uint64", "uint64", "uint64", "float64", "float64", "float64", "complex128", "complex128"},
    {"float16", "float16", "float32", "float64", "float64", "float16", "float32", "float64", "float64", "float16", "float32", "float64", "complex64", "complex128"},
    {"float32", "float32", "float32", "float64", "float64", "float32", "float32", "float64", "float64", "float32", "float32", "float64", "complex64", "complex128"},
    {"float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
    {"complex64", "complex64", "complex64", "complex128", "complex128", "complex64", "complex64", "complex128", "complex128", "complex64", "complex64", "complex128", "complex64", "complex128"},
    {"complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128"},
};

// np.can_cast(row, column, "same_kind") from NumPy 2.
const int kNumpySameKind[kN][kN] = {
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
};

DType D(int i) { return static_cast<DType>(i + 1); }

TEST(DTypeTest, PromotionMatchesNumpyForEveryPair) {
  for (int a = 0; a < kN; ++a) {
    for (int b = 0; b < kN; ++b) {
      EXPECT_EQ(DTypeName(Promote(D(a), D(b))), kNumpyPromotion[a][b])
          << DTypeName(D(a)) << " + " << DTypeName(D(b));
    }
  }
}

TEST(DTypeTest, SameKindCastingMatchesNumpy) {
  for (int a = 0; a < kN; ++a) {
    for (int b = 0; b < kN; ++b) {
      EXPECT_EQ(CanCastSameKind(D(a), D(b)), kNumpySameKind[a][b] != 0)
          << DTypeName(D(a)) << " -> " << DTypeName(D(b));
    }
  }
}

TEST(DTypeTest, NamesRoundTrip) {
  for (int i = 0; i < kN; ++i) {
    auto parsed = ParseDType(DTypeName(D(i)));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, D(i));
  }
}

TEST(DTypeTest, UnknownNameIsTypeError) {
  auto parsed = ParseDType("float128");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(parsed.status().message()).find("float128"), std::string::npos);
}

TEST(DTypeTest, BadWireValueIsRefused) {
  EXPECT_FALSE(DTypeFromWire(0).ok());
  EXPECT_FALSE(DTypeFromWire(15).ok());
  EXPECT_TRUE(DTypeFromWire(14).ok());
}

TEST(DTypeTest, ItemSizes) {
  EXPECT_EQ(ItemSize(DType::kBool), 1);
  EXPECT_EQ(ItemSize(DType::kFloat16), 2);
  EXPECT_EQ(ItemSize(DType::kUInt32), 4);
  EXPECT_EQ(ItemSize(DType::kComplex128), 16);
}

TEST(DTypeTest, AccumulatorDTypesFollowNumpy) {
  EXPECT_EQ(SumDType(DType::kBool), DType::kInt64);
  EXPECT_EQ(SumDType(DType::kInt8), DType::kInt64);
  EXPECT_EQ(SumDType(DType::kUInt16), DType::kUInt64);
  EXPECT_EQ(SumDType(DType::kFloat16), DType::kFloat16);
  EXPECT_EQ(InexactDType(DType::kInt32), DType::kFloat64);
  EXPECT_EQ(InexactDType(DType::kFloat32), DType::kFloat32);
  EXPECT_EQ(RealDType(DType::kComplex64), DType::kFloat32);
}

}  // namespace
}  // namespace arrayd
