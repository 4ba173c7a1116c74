// The generic calls (arrayd/ops.h): any server op through its exported
// signature, with NumPy's result dtypes and errors.
#include "arrayd/ops.h"

#include <cmath>

#include "client_fixture.h"
#include "gtest/gtest.h"

namespace arrayd {
namespace {

class OpsTest : public SessionTest {};

std::string KindOf(const absl::Status& s) {
  auto kind = s.GetPayload(kErrorKindPayload);
  return kind ? std::string(*kind) : "";
}

TEST_F(OpsTest, UfuncTakesItsDtypeFromTheLoopTable) {
  Array a = client_->FromVector<int8_t>({3, 5, 8});
  Array b = client_->FromVector<int8_t>({4, 12, 15});
  Array h = Ufunc("hypot", a, b);  // int8 -> the e->e loop, as NumPy
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h.dtype(), DType::kFloat16);
  Array f = Ufunc("hypot", a.Astype(DType::kFloat64), b.Astype(DType::kFloat64));
  EXPECT_EQ(Values<double>(f), (std::vector<double>{5, 13, 17}));
  Array div = Ufunc("true_divide", a, b);  // integer loops give float64
  EXPECT_EQ(div.dtype(), DType::kFloat64);
  EXPECT_DOUBLE_EQ(Values<double>(div)[0], 0.75);
  EXPECT_EQ(Ufunc("less", a, b).dtype(), DType::kBool);
  EXPECT_EQ(Ufunc("sqrt", a.Astype(DType::kInt32)).dtype(), DType::kFloat64);
  EXPECT_EQ(Ufunc("add", a, client_->FromVector<uint8_t>({1, 2, 3})).dtype(), DType::kInt16);
}

TEST_F(OpsTest, WeakScalarsFollowNep50) {
  Array a = client_->FromVector<uint8_t>({1, 2, 250});
  Array s = Ufunc("add", a, 3);  // the 3 takes uint8: 250 + 3 wraps
  EXPECT_EQ(s.dtype(), DType::kUInt8);
  EXPECT_EQ(Values<uint8_t>(s), (std::vector<uint8_t>{4, 5, 253}));
  EXPECT_EQ(Ufunc("multiply", a, 1.5).dtype(), DType::kFloat64);
  EXPECT_EQ(Ufunc("maximum", a.Astype(DType::kFloat32), 0.5).dtype(), DType::kFloat32);
  Array big = Ufunc("add", a, 300);  // NumPy's OverflowError
  EXPECT_FALSE(big.ok());
  EXPECT_EQ(KindOf(big.status()), "OverflowError");
  Array both = Ufunc(*client_, "add", {2, 3.5});
  EXPECT_EQ(both.dtype(), DType::kFloat64);
  EXPECT_EQ(Values<double>(both), std::vector<double>{5.5});
  EXPECT_EQ(KindOf(client_->Synchronize()), "OverflowError");  // the refused op, once
  EXPECT_TRUE(client_->Synchronize().ok());
}

TEST_F(OpsTest, ReduceUsesTheReductionsLoopTable) {
  Array a = client_->FromVector<int8_t>({100, 100, 100, 100}, Shape{2, 2});
  Array s = Reduce("sum", a);  // int8 accumulates in int64
  EXPECT_EQ(s.dtype(), DType::kInt64);
  EXPECT_EQ(Values<int64_t>(s), std::vector<int64_t>{400});
  Array cols = Reduce("sum", a, {{0}}, true);
  EXPECT_EQ(cols.shape(), (Shape{1, 2}));
  EXPECT_EQ(Reduce("mean", a).dtype(), DType::kFloat64);
  EXPECT_EQ(Reduce("any", a).dtype(), DType::kBool);
  EXPECT_EQ(Reduce("max", a).dtype(), DType::kInt8);
  Array f = Reduce("sum", a, std::nullopt, false, DType::kFloat32);
  EXPECT_EQ(f.dtype(), DType::kFloat32);
  EXPECT_EQ(Values<float>(f), std::vector<float>{400});
}

TEST_F(OpsTest, CallRunsAnyOpAndLearnsItsResultsFromTheServer) {
  Array a = client_->FromVector<double>({4, 1, 2, 3}, Shape{2, 2});
  std::vector<Array> qr = Call(*client_, "qr", {a}, {{"mode", Attr("complete")}});
  ASSERT_EQ(qr.size(), 2u);
  EXPECT_EQ(qr[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(qr[1].dtype(), DType::kFloat64);
  std::vector<Array> sorted = Call(*client_, "sort", {a}, {{"axis", Attr(1)}});
  EXPECT_EQ(Values<double>(sorted[0]), (std::vector<double>{1, 4, 2, 3}));
  Array c = sorted[0] + 1;  // a Call result feeds the typed ops
  EXPECT_EQ(Values<double>(c), (std::vector<double>{2, 5, 3, 4}));
}

TEST_F(OpsTest, BadCallsGetNumpysErrors) {
  Array a = client_->FromVector<bool>({true, false});
  Array sub = Ufunc("subtract", a, a);  // NumPy refuses bool subtract
  EXPECT_FALSE(sub.ok());
  EXPECT_EQ(KindOf(sub.status()), "TypeError");
  Array bits = Ufunc("bitwise_and", a.Astype(DType::kFloat32), a.Astype(DType::kFloat32));
  EXPECT_EQ(KindOf(bits.status()), "TypeError");
  EXPECT_EQ(Ufunc("no_such_ufunc", a).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(KindOf(Ufunc("hypot", a).status()), "TypeError");  // arity
  EXPECT_EQ(KindOf(Ufunc("sum", a).status()), "TypeError");    // not a ufunc
  std::vector<Array> bad = Call(*client_, "sort", {a}, {{"axes", Attr(0)}});
  EXPECT_EQ(KindOf(bad[0].status()), "TypeError");  // sort has `axis`, not `axes`
  // A server-found error of a Call shows when its metadata is read, and the
  // session stays usable.
  std::vector<Array> singular = Call(*client_, "inv", {client_->Zeros({2, 2})});
  EXPECT_FALSE(singular[0].ToVector<double>().ok());
  EXPECT_EQ(Values<double>(Ufunc("add", client_->Ones({2}), 1)), (std::vector<double>{2, 2}));
  (void)client_->Synchronize();
}

}  // namespace
}  // namespace arrayd
