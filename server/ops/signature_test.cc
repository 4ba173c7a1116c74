#include "ops/signature.h"

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "kernels/functors.h"
#include "kernels/host_dispatch.h"
#include "kernels/op_list.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

TEST(SignatureTest, ParsesInputsAttributesAndOutputs) {
  absl::StatusOr<OpSignature> sig =
      ParseSchema(OpFamily::kLibrary, "qr(a, *, mode: str = 'reduced', n: int?) -> (q, r)", "doc");
  ASSERT_TRUE(sig.ok()) << sig.status();
  EXPECT_EQ(sig->name, "qr");
  EXPECT_EQ(sig->inputs, std::vector<std::string>{"a"});
  EXPECT_EQ(sig->outputs, (std::vector<std::string>{"q", "r"}));
  ASSERT_EQ(sig->attrs.size(), 2u);
  EXPECT_EQ(sig->attrs[0].name, "mode");
  EXPECT_EQ(sig->attrs[0].type, "str");
  EXPECT_EQ(sig->attrs[0].default_value, "'reduced'");
  EXPECT_FALSE(sig->attrs[0].optional);
  EXPECT_TRUE(sig->attrs[1].optional);
  EXPECT_EQ(sig->attrs[1].default_value, "None");
  EXPECT_FALSE(sig->variadic);
}

TEST(SignatureTest, VariadicInputsAndNoOutputs) {
  absl::StatusOr<OpSignature> sig =
      ParseSchema(OpFamily::kShape, "stack(xs[], *, axis: int = 0) -> ()", "");
  ASSERT_TRUE(sig.ok()) << sig.status();
  EXPECT_TRUE(sig->variadic);
  EXPECT_EQ(sig->inputs, std::vector<std::string>{"xs"});
  EXPECT_TRUE(sig->outputs.empty());
}

TEST(SignatureTest, MalformedSchemasAreRefused) {
  for (const char* bad :
       {"noparens -> out", "f(a) out", "f(a, *, n) -> out", "f(a, *, n: integer) -> out",
        "f(xs[], b) -> out", "f(a, *, *, n: int) -> o", "1f(a) -> out", "f(a-b) -> out"}) {
    EXPECT_FALSE(ParseSchema(OpFamily::kIndex, bad, "").ok()) << bad;
  }
}

TEST(LoopTest, ParsesNumPyLoopStrings) {
  absl::StatusOr<std::vector<Loop>> loops = ParseLoops("?\?->? ff->f FF->f ");
  ASSERT_TRUE(loops.ok()) << loops.status();
  ASSERT_EQ(loops->size(), 3u);
  EXPECT_EQ((*loops)[2].in, (std::vector<DType>{DType::kComplex64, DType::kComplex64}));
  EXPECT_EQ((*loops)[2].out, std::vector<DType>{DType::kFloat32});
  EXPECT_FALSE(ParseLoops("ff-f").ok());
  EXPECT_FALSE(ParseLoops("gg->g").ok());       // long double: not an arrayd dtype
  EXPECT_FALSE(ParseLoops("ff->f f->f").ok());  // mixed arity
}

// NumPy's choices (np.<ufunc>.resolve_dtypes) for a few telling cases.
TEST(LoopTest, LinearSearchPicksNumPysLoop) {
  auto loops = [](const char* text) { return *ParseLoops(text); };
  const auto add = loops(ARRAYD_INT2 ARRAYD_FLOAT2 ARRAYD_CPLX2);
  EXPECT_EQ(FindLoop(add, {DType::kInt8, DType::kUInt8})->out[0], DType::kInt16);
  EXPECT_EQ(FindLoop(add, {DType::kInt64, DType::kUInt64})->out[0], DType::kFloat64);
  EXPECT_EQ(FindLoop(add, {DType::kInt16, DType::kFloat16})->out[0], DType::kFloat32);
  EXPECT_EQ(FindLoop(add, {DType::kBool, DType::kBool})->out[0], DType::kInt8);  // no ??->?
  EXPECT_EQ(FindLoop(add, {DType::kInt8, DType::kInt8}, DType::kFloat32)->out[0], DType::kFloat32);
  const auto hypot = loops(ARRAYD_FLOAT2);
  EXPECT_EQ(FindLoop(hypot, {DType::kInt8, DType::kInt8})->out[0], DType::kFloat16);
  EXPECT_EQ(FindLoop(hypot, {DType::kInt32, DType::kInt32})->out[0], DType::kFloat64);
  EXPECT_EQ(FindLoop(hypot, {DType::kComplex64, DType::kFloat32}), nullptr);
  const auto subtract = loops("?\?->! " ARRAYD_INT2 ARRAYD_FLOAT2);
  EXPECT_EQ(FindLoop(subtract, {DType::kBool, DType::kBool}), nullptr);  // NumPy's TypeError
  EXPECT_EQ(FindLoop(subtract, {DType::kBool, DType::kInt8})->out[0], DType::kInt8);
}

// Every row of kernels/op_list.h: its loops parse, and each loop's output is
// what the functor returns for the loop's input type, so that the registry's
// dtype rule and the kernels cannot disagree.
template <typename F, int kArity, unsigned kMask>
DType FunctorResult(DType in) {
  return kernels::DispatchDType(in, [](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr ((kernels::DTypeBit<T>() & kMask) == 0) {
      return DType::kInvalid;  // not a loop of the row
    } else if constexpr (kArity == 1) {
      return kernels::DTypeOf<decltype(F()(T()))>::value;
    } else {
      return kernels::DTypeOf<decltype(F()(T(), T()))>::value;
    }
  });
}

struct RowCheck {
  const char* name;
  const char* loops;
  DType (*result)(DType);
  int arity;
};

TEST(OpListTest, EveryLoopMatchesItsFunctor) {
  const RowCheck rows[] = {
#define ARRAYD_ROW1(e, f, n, loops, id, doc) \
  {n, loops, &FunctorResult<kernels::f, 1, kernels::LoopInputMask(loops)>, 1},
#define ARRAYD_ROW2(e, f, n, loops, id, doc) \
  {n, loops, &FunctorResult<kernels::f, 2, kernels::LoopInputMask(loops)>, 2},
      ARRAYD_UNARY_OPS(ARRAYD_ROW1) ARRAYD_BINARY_OPS(ARRAYD_ROW2)
#undef ARRAYD_ROW1
#undef ARRAYD_ROW2
  };
  for (const RowCheck& row : rows) {
    absl::StatusOr<std::vector<Loop>> loops = ParseLoops(row.loops);
    ASSERT_TRUE(loops.ok()) << row.name << ": " << loops.status();
    ASSERT_FALSE(loops->empty()) << row.name;
    for (const Loop& loop : *loops) {
      if (loop.refused) continue;
      ASSERT_EQ(static_cast<int>(loop.in.size()), row.arity) << row.name;
      for (DType d : loop.in)
        EXPECT_EQ(d, loop.in[0]) << row.name << ": kernels take one input dtype";
      EXPECT_EQ(row.result(loop.in[0]), loop.out[0])
          << row.name << " loop of " << DTypeName(loop.in[0]) << ": the functor returns "
          << DTypeName(row.result(loop.in[0])) << ", the table says " << DTypeName(loop.out[0]);
    }
  }
}

// Capabilities exports every op's signature: each registered op has one,
// consistent with its executor checks.
TEST(OpListTest, EveryRegisteredOpHasASignature) {
  for (const auto& [name, def] : DefaultRegistry().ops()) {
    const OpSignature& sig = def.sig;
    EXPECT_EQ(sig.name, name);
    EXPECT_FALSE(sig.schema.empty()) << name;
    EXPECT_FALSE(sig.doc.empty()) << name;
    EXPECT_EQ(def.num_inputs, sig.variadic ? -1 : static_cast<int>(sig.inputs.size())) << name;
    EXPECT_EQ(def.num_outputs, static_cast<int>(sig.outputs.size())) << name;
    // Ufuncs, reductions and scans carry their dtype rule as a loop table.
    const bool typed = sig.family == OpFamily::kElementwise || sig.family == OpFamily::kReduction ||
                       sig.family == OpFamily::kScan;
    EXPECT_EQ(!sig.loops.empty(), typed) << name;
    EXPECT_TRUE(ParseLoops(absl::StrJoin(sig.loops, " ")).ok()) << name;
  }
}

}  // namespace
}  // namespace arrayd
