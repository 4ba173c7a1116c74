#include "ops/registry.h"

#include <set>

#include "gtest/gtest.h"

namespace arrayd {
namespace {

TEST(OpRegistryTest, EveryOpHasARunFunctionAndDoc) {
  const OpRegistry& r = DefaultRegistry();
  EXPECT_GT(r.ops().size(), 40u);
  for (const auto& [name, def] : r.ops()) {
    EXPECT_EQ(name, def.name);
    EXPECT_TRUE(static_cast<bool>(def.run)) << name;
    EXPECT_FALSE(def.doc.empty()) << name;
  }
}

TEST(OpRegistryTest, FoundationOpsAreRegistered) {
  const OpRegistry& r = DefaultRegistry();
  for (const char* name :
       {"empty", "zeros", "ones", "full", "arange", "linspace", "eye", "upload", "astype",
        "add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
        "negative", "absolute", "equal", "less", "logical_and", "bitwise_xor", "invert", "sum",
        "prod", "mean", "min", "max", "argmin", "argmax", "all", "any", "reshape", "transpose",
        "slice", "setitem", "copy", "broadcast_to"}) {
    EXPECT_NE(r.Find(name), nullptr) << name;
  }
}

TEST(OpRegistryTest, UnknownOpIsNull) { EXPECT_EQ(DefaultRegistry().Find("no_such_op"), nullptr); }

TEST(AttrsTest, TypedAccessReportsBadTypes) {
  google::protobuf::Map<std::string, v1::AttrValue> map;
  map["n"].set_i(3);
  map["x"].set_f(1.5);
  map["shape"].mutable_ints()->add_values(-1);
  Attrs attrs(map);
  EXPECT_EQ(*attrs.Int("n"), 3);
  EXPECT_FALSE(attrs.Int("x").ok());
  EXPECT_FALSE(attrs.Int("missing").ok());
  EXPECT_FALSE(attrs.GetShape("shape").ok());  // negative dimension
  EXPECT_EQ(attrs.GetScalar("x")->kind, Scalar::kFloat);
  EXPECT_EQ(*attrs.Bool("absent", true), true);
}

}  // namespace
}  // namespace arrayd
