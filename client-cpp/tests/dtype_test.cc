// DType rules of the client against NumPy 2.
#include "arrayd/dtype.h"

#include "gtest/gtest.h"

namespace arrayd {
namespace {

using D = DType;

// np.promote_types(row, column) for the 14 dtypes in wire order,
//   np.promote_types(row, column), generated with NumPy 2.4.6
const DType kNumpyPromote[kNumDTypes][kNumDTypes] = {
    {D::kBool, D::kInt8, D::kInt16, D::kInt32, D::kInt64, D::kUInt8, D::kUInt16, D::kUInt32, D::kUInt64, D::kFloat16, D::kFloat32, D::kFloat64, D::kComplex64, D::kComplex128},
    {D::kInt8, D::kInt8, D::kInt16, D::kInt32, D::kInt64, D::kInt16, D::kInt32, D::kInt64, D::kFloat64, D::kFloat16, D::kFloat32, D::kFloat64, D::kComplex64, D::kComplex128},
    {D::kInt16, D::kInt16, D::kInt16, D::kInt32, D::kInt64, D::kInt16, D::kInt32, D::kInt64, D::kFloat64, D::kFloat32, D::kFloat32, D::kFloat64, D::kComplex64, D::kComplex128},
    {D::kInt32, D::kInt32, D::kInt32, D::kInt32, D::kInt64, D::kInt32, D::kInt32, D::kInt64, D::kFloat64, D::kFloat64, D::kFloat64, D::kFloat64, D::kComplex128, D::kComplex128},
    {D::kInt64, D::kInt64, D::kInt64, D::kInt64, D::kInt64, D::kInt64, D::kInt64, D::kInt64, D::kFloat64, D::kFloat64, D::kFloat64, D::kFloat64, D::kComplex128, D::kComplex128},
    {D::kUInt8, D::kInt16, D::kInt16, D::kInt32, D::kInt64, D::kUInt8, D::kUInt16, D::kUInt32, D::kUInt64, D::kFloat16, D::kFloat32, D::kFloat64, D::kComplex64, D::kComplex128},
    {D::kUInt16, D::kInt32, D::kInt32, D::kInt32, D::kInt64, D::kUInt16, D::kUInt16, D::kUInt32, D::kUInt64, D::kFloat32, D::kFloat32, D::kFloat64, D::kComplex64, D::kComplex128},
    {D::kUInt32, D::kInt64, D::kInt64, D::kInt64, D::kInt64, D::kUInt32, D::kUInt32, D::kUInt32, D::kUInt64, D::kFloat64, D::kFloat64, D::kFloat64, D::kComplex128, D::kComplex128},
    {D::kUInt64, D::kFloat64, D::kFloat64, D::kFloat64, D::kFloat64, D::kUInt64, D::kUInt64, D::kUInt64, D::kUInt64, D::kFloat64, D::kFloat64, D::kFloat64, D::kComplex128, D::kComplex128},
    {D::kFloat16, D::kFloat16, D::kFloat32, D::kFloat64, D::kFloat64, D::kFloat16, D::kFloat32, D::kFloat64, D::kFloat64, D::kFloat16, D::kFloat32, D::kFloat64, D::kComplex64, D::kComplex128},
    {D::kFloat32, D::kFloat32, D::kFloat32, D::kFloat64, D::kFloat64, D::kFloat32, D::kFloat32, D::kFloat64, D::kFloat64, D::kFloat32, D::kFloat32, D::kFloat64, D::kComplex64, D::kComplex128},
    {D::kFloat64, D::kFloat64, D::kFloat64, D::kFloat64, D::kFloat64, D::kFloat64, D::kFloat64, D::kFloat64, D::kFloat64, D::kFloat64, D::kFloat64, D::kFloat64, D::kComplex128, D::kComplex128},
    {D::kComplex64, D::kComplex64, D::kComplex64, D::kComplex128, D::kComplex128, D::kComplex64, D::kComplex64, D::kComplex128, D::kComplex128, D::kComplex64, D::kComplex64, D::kComplex128, D::kComplex64, D::kComplex128},
    {D::kComplex128, D::kComplex128, D::kComplex128, D::kComplex128, D::kComplex128, D::kComplex128, D::kComplex128, D::kComplex128, D::kComplex128, D::kComplex128, D::kComplex128, D::kComplex128, D::kComplex128, D::kComplex128},
};

TEST(ClientDTypeTest, PromoteTypesMatchesNumpy) {
  for (int a = 1; a <= kNumDTypes; ++a) {
    for (int b = 1; b <= kNumDTypes; ++b) {
      DType da = static_cast<DType>(a), db = static_cast<DType>(b);
      EXPECT_EQ(PromoteTypes(da, db), kNumpyPromote[a - 1][b - 1])
          << DTypeName(da) << " + " << DTypeName(db) << " gave "
          << DTypeName(PromoteTypes(da, db));
    }
  }
}

TEST(ClientDTypeTest, NamesRoundTrip) {
  for (int a = 1; a <= kNumDTypes; ++a) {
    DType d = static_cast<DType>(a);
    auto parsed = ParseDType(DTypeName(d));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, d);
  }
  EXPECT_EQ(ParseDType("float128").status().code(), absl::StatusCode::kInvalidArgument);
}

// Expected values from NumPy 2: (np.ones(3, dtype) + scalar).dtype.
TEST(ClientDTypeTest, WeakScalarsFollowNep50) {
  EXPECT_EQ(*Scalar(1).WeakDType(D::kInt8), D::kInt8);
  EXPECT_EQ(*Scalar(1).WeakDType(D::kBool), D::kInt64);
  EXPECT_EQ(*Scalar(true).WeakDType(D::kBool), D::kBool);
  EXPECT_EQ(*Scalar(true).WeakDType(D::kUInt16), D::kUInt16);
  EXPECT_EQ(*Scalar(1.5).WeakDType(D::kUInt8), D::kFloat64);
  EXPECT_EQ(*Scalar(1.5).WeakDType(D::kFloat16), D::kFloat16);
  EXPECT_EQ(*Scalar(1.5f).WeakDType(D::kComplex64), D::kComplex64);
  EXPECT_EQ(*Scalar(std::complex<double>(0, 1)).WeakDType(D::kFloat16), D::kComplex64);
  EXPECT_EQ(*Scalar(std::complex<double>(0, 1)).WeakDType(D::kFloat32), D::kComplex64);
  EXPECT_EQ(*Scalar(std::complex<double>(0, 1)).WeakDType(D::kFloat64), D::kComplex128);
  EXPECT_EQ(*Scalar(std::complex<double>(0, 1)).WeakDType(D::kInt8), D::kComplex128);
  EXPECT_EQ(*Scalar(100000).WeakDType(D::kFloat16), D::kFloat16);
  // NumPy 2: OverflowError "Python integer 1000 out of bounds for int8".
  auto overflow = Scalar(1000).WeakDType(D::kInt8);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().message(), "Python integer 1000 out of bounds for int8");
  EXPECT_FALSE(Scalar(-1).WeakDType(D::kUInt8).ok());
  EXPECT_TRUE(Scalar(255).WeakDType(D::kUInt8).ok());
  EXPECT_FALSE(Scalar(256).WeakDType(D::kUInt8).ok());
  EXPECT_TRUE(Scalar(-128).WeakDType(D::kInt8).ok());
  EXPECT_FALSE(Scalar(-129).WeakDType(D::kInt8).ok());
  EXPECT_TRUE(Scalar(uint64_t{1} << 63).WeakDType(D::kUInt64).ok());
  EXPECT_FALSE(Scalar(uint64_t{1} << 63).WeakDType(D::kInt64).ok());
}

TEST(ClientDTypeTest, ShapeStringIsNumpys) {
  EXPECT_EQ(ShapeString({}), "()");
  EXPECT_EQ(ShapeString({4}), "(4,)");
  EXPECT_EQ(ShapeString({2, 3}), "(2, 3)");
}

}  // namespace
}  // namespace arrayd
