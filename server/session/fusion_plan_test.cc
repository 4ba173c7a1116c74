#include "session/fusion_plan.h"

#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"

namespace arrayd {
namespace {

v1::Op MakeOp(const std::string& name, std::vector<uint64_t> in, std::vector<uint64_t> out,
              uint64_t stream = 0) {
  v1::Op op;
  op.set_name(name);
  for (uint64_t h : in) op.add_inputs(h);
  for (uint64_t h : out) op.add_outputs(h);
  op.set_stream(stream);
  return op;
}

// Handles 1..9 exist before the message; 10 and up are new.
FusionPlan Plan(std::vector<v1::Op> ops, std::vector<uint64_t> frees,
                std::vector<uint64_t> fetch = {}) {
  v1::ClientMessage m;
  for (auto& op : ops) *m.add_ops() = op;
  for (uint64_t h : frees) m.add_frees(h);
  for (uint64_t h : fetch) m.mutable_sync()->add_fetch(h);
  return PlanFusion(m, [](uint64_t h) { return h < 10; });
}

std::vector<int64_t> Args(const v1::Op& fused) {
  const auto& ints = fused.attrs().at("args").ints().values();
  return {ints.begin(), ints.end()};
}

// x = 1, constants 2, 3, 4 (= c2, c3, c1).
std::vector<v1::Op> Chain() {
  return {MakeOp("multiply", {2, 1}, {10}), MakeOp("multiply", {3, 1}, {11}),
          MakeOp("multiply", {11, 1}, {12}), MakeOp("add", {10, 12}, {13}),
          MakeOp("subtract", {13, 4}, {14})};
}

TEST(FusionPlanTest, AChainWhoseIntermediatesAreFreedIsOneOp) {
  FusionPlan plan = Plan(Chain(), {11, 10, 12, 13});
  ASSERT_EQ(plan.groups.size(), 1u);
  const FusedGroup& g = plan.groups[0];
  EXPECT_EQ(g.ops, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(g.fused.name(), "fused_elementwise");
  EXPECT_EQ(std::vector<uint64_t>(g.fused.inputs().begin(), g.fused.inputs().end()),
            (std::vector<uint64_t>{2, 1, 3, 4}));
  ASSERT_EQ(g.fused.outputs_size(), 1);
  EXPECT_EQ(g.fused.outputs(0), 14u);
  EXPECT_EQ(g.fused.attrs().at("ufuncs").s(), "multiply,multiply,multiply,add,subtract");
  // Leaves 0..3, steps from 4.
  EXPECT_EQ(Args(g.fused), (std::vector<int64_t>{0, 1, 2, 1, 5, 1, 4, 6, 7, 3}));
  EXPECT_EQ(plan.group_of, (std::vector<int>{0, 0, 0, 0, 0}));
}

TEST(FusionPlanTest, AHeldIntermediateEndsAGroup) {
  // 12 (3x * x) is kept: it is a result, and a leaf of the rest.
  FusionPlan plan = Plan(Chain(), {11, 10, 13});
  ASSERT_EQ(plan.groups.size(), 2u);
  std::vector<std::vector<int>> groups;
  for (const FusedGroup& g : plan.groups) groups.push_back(g.ops);
  std::sort(groups.begin(), groups.end());
  EXPECT_EQ(groups[0], (std::vector<int>{0, 3, 4}));
  EXPECT_EQ(groups[1], (std::vector<int>{1, 2}));
}

TEST(FusionPlanTest, FetchedOrUnfreedOrForeignReadIntermediatesAreKept) {
  EXPECT_TRUE(Plan(Chain(), {11, 10, 12, 13}, {13}).groups.size() == 1);
  EXPECT_EQ(Plan(Chain(), {11, 10, 12, 13}, {13}).groups[0].ops, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(Plan(Chain(), {}).groups.empty());
  std::vector<v1::Op> ops = {MakeOp("multiply", {1, 1}, {10}), MakeOp("sum", {10}, {11}),
                             MakeOp("add", {10, 1}, {12})};
  EXPECT_TRUE(Plan(ops, {10}).groups.empty());
}

TEST(FusionPlanTest, ExistingHandlesAndTwiceDefinedOnesAreNoIntermediates) {
  // 5 exists: multiply writes it in place (out=).
  std::vector<v1::Op> ops = {MakeOp("multiply", {1, 1}, {5}), MakeOp("add", {5, 1}, {10})};
  EXPECT_TRUE(Plan(ops, {5}).groups.empty());
  ops = {MakeOp("multiply", {1, 1}, {10}), MakeOp("add", {10, 1}, {11}),
         MakeOp("negative", {1}, {10})};
  EXPECT_TRUE(Plan(ops, {10}).groups.empty());
}

TEST(FusionPlanTest, AWriteToALeafAfterTheGroupReadItRefusesTheGroup) {
  // add(1, 2) -> 1 in place, between the group's reads of 1.
  std::vector<v1::Op> ops = {MakeOp("multiply", {1, 1}, {10}), MakeOp("add", {1, 2}, {1}),
                             MakeOp("add", {10, 3}, {11})};
  EXPECT_TRUE(Plan(ops, {10}).groups.empty());
  // A new leaf made between the reads is fine (a constant of the chain).
  ops = {MakeOp("multiply", {1, 1}, {10}), MakeOp("full", {}, {20}), MakeOp("add", {10, 20}, {11})};
  ASSERT_EQ(Plan(ops, {10}).groups.size(), 1u);
  EXPECT_EQ(Plan(ops, {10}).groups[0].ops, (std::vector<int>{0, 2}));
  // An op without outputs between them may write anything.
  ops = {MakeOp("multiply", {1, 1}, {10}), MakeOp("setitem", {2, 3}, {}),
         MakeOp("add", {10, 2}, {11})};
  EXPECT_TRUE(Plan(ops, {10}).groups.empty());
}

TEST(FusionPlanTest, AReductionOfAnIntermediateEndsItsChain) {
  // d = x - c2; q = d * d; m = q.mean(axes=[0], keepdims): one fused_reduction.
  v1::Op mean = MakeOp("mean", {11}, {12});
  (*mean.mutable_attrs())["axes"].mutable_ints()->add_values(0);
  (*mean.mutable_attrs())["keepdims"].set_b(true);
  std::vector<v1::Op> ops = {MakeOp("subtract", {1, 2}, {10}), MakeOp("multiply", {10, 10}, {11}),
                             mean};
  FusionPlan plan = Plan(ops, {10, 11});
  ASSERT_EQ(plan.groups.size(), 1u);
  const v1::Op& f = plan.groups[0].fused;
  EXPECT_EQ(plan.groups[0].ops, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(f.name(), "fused_reduction");
  EXPECT_EQ(f.attrs().at("reduce").s(), "mean");
  EXPECT_EQ(f.attrs().at("ufuncs").s(), "subtract,multiply");
  EXPECT_EQ(f.attrs().at("axes").ints().values_size(), 1);
  EXPECT_TRUE(f.attrs().at("keepdims").b());
  EXPECT_EQ(Args(f), (std::vector<int64_t>{0, 1, 2, 2}));
  EXPECT_EQ(f.outputs(0), 12u);
  // One ufunc and its sum fuse too; a held or fetched value does not.
  ops = {MakeOp("multiply", {1, 1}, {10}), MakeOp("sum", {10}, {11})};
  ASSERT_EQ(Plan(ops, {10}).groups.size(), 1u);
  EXPECT_TRUE(Plan(ops, {}).groups.empty());
  EXPECT_TRUE(Plan(ops, {10}, {10}).groups.empty());
  // A reduction's result is no intermediate: what reads it is not joined.
  ops = {MakeOp("multiply", {1, 1}, {10}), MakeOp("sum", {10}, {11}),
         MakeOp("add", {11, 1}, {12})};
  plan = Plan(ops, {10, 11});
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].ops, (std::vector<int>{0, 1}));
  // Two reductions of one value, or an unknown attribute: not fused.
  ops = {MakeOp("multiply", {1, 1}, {10}), MakeOp("sum", {10}, {11}), MakeOp("max", {10}, {12})};
  EXPECT_TRUE(Plan(ops, {10}).groups.empty());
  v1::Op odd = MakeOp("sum", {10}, {11});
  (*odd.mutable_attrs())["where"].set_b(true);
  EXPECT_TRUE(Plan({MakeOp("multiply", {1, 1}, {10}), odd}, {10}).groups.empty());
}

TEST(FusionPlanTest, StreamsAndAttributesAreRespected) {
  std::vector<v1::Op> ops = {MakeOp("multiply", {1, 1}, {10}), MakeOp("add", {10, 1}, {11}, 7)};
  EXPECT_TRUE(Plan(ops, {10}).groups.empty());
  v1::Op where = MakeOp("multiply", {1, 1}, {10});
  (*where.mutable_attrs())["where"].set_b(true);
  EXPECT_TRUE(Plan({where, MakeOp("add", {10, 1}, {11})}, {10}).groups.empty());
  v1::Op typed = MakeOp("multiply", {1, 1}, {10});
  (*typed.mutable_attrs())["dtype"].set_dtype(v1::DTYPE_FLOAT64);
  FusionPlan plan = Plan({typed, MakeOp("add", {10, 1}, {11})}, {10});
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].fused.attrs().at("dtypes").s(), "float64,");
}

}  // namespace
}  // namespace arrayd
