#include "array/view.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace arrayd {
namespace {

View Make(Shape shape, DType dtype = DType::kFloat64) {
  size_t n = static_cast<size_t>(ShapeSize(shape) * ItemSize(dtype));
  auto buffer = std::make_shared<Buffer>(std::malloc(n + 1), n, [](void* p, size_t) { std::free(p); });
  return MakeContiguousView(buffer, dtype, std::move(shape));
}

std::vector<IndexItem> Index(std::initializer_list<IndexItem> items) { return items; }
IndexItem Int(int64_t i) { return {IndexItem::kInt, i, 0, 0}; }
IndexItem Slice(int64_t a, int64_t b, int64_t c) { return {IndexItem::kSlice, a, b, c}; }

TEST(ViewTest, CStridesAreInBytes) {
  EXPECT_EQ(CStrides({2, 3, 4}, 8), (Strides{96, 32, 8}));
  EXPECT_EQ(CStrides({}, 4), Strides{});
}

TEST(ViewTest, ContiguousReshapeIsAView) {
  View x = Make({2, 6});
  View y;
  ASSERT_TRUE(TryReshapeView(x, {3, 4}, &y));
  EXPECT_EQ(y.buffer, x.buffer);
  EXPECT_EQ(y.strides, (Strides{32, 8}));
}

TEST(ViewTest, TransposedReshapeToFlatNeedsACopy) {
  View x = Make({3, 4});
  auto t = Transpose(x, {});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->shape, (Shape{4, 3}));
  EXPECT_EQ(t->strides, (Strides{8, 32}));
  View y;
  EXPECT_FALSE(TryReshapeView(*t, {12}, &y));
  // Splitting one axis of a transposed view is still a view.
  EXPECT_TRUE(TryReshapeView(*t, {2, 2, 3}, &y));
  EXPECT_EQ(y.strides, (Strides{16, 8, 32}));
}

TEST(ViewTest, ResolveReshapeFillsOneUnknown) {
  auto s = ResolveReshape(12, {-1, 3});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (Shape{4, 3}));
  EXPECT_FALSE(ResolveReshape(12, {5, -1}).ok());
  EXPECT_FALSE(ResolveReshape(12, {-1, -1}).ok());
  EXPECT_FALSE(ResolveReshape(12, {5}).ok());
}

TEST(ViewTest, NegativeStepSliceStartsAtTheEnd) {
  View x = Make({5});
  auto y = BasicIndex(x, Index({Slice(kNone, kNone, -1)}));
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->shape, (Shape{5}));
  EXPECT_EQ(y->strides, (Strides{-8}));
  EXPECT_EQ(y->offset, 32);
}

TEST(ViewTest, SlicesClampLikePython) {
  View x = Make({5});
  auto a = BasicIndex(x, Index({Slice(10, kNone, kNone)}));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->shape, (Shape{0}));
  auto b = BasicIndex(x, Index({Slice(-100, 3, 2)}));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->shape, (Shape{2}));
  auto c = BasicIndex(x, Index({Slice(3, 0, -2)}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->shape, (Shape{2}));  // 3, 1
  EXPECT_EQ(c->offset, 24);
}

TEST(ViewTest, IntegerIndexOutOfRangeIsIndexError) {
  View x = Make({2, 3});
  auto y = BasicIndex(x, Index({Int(0), Int(3)}));
  ASSERT_FALSE(y.ok());
  EXPECT_NE(std::string(y.status().message()).find("out of bounds for axis 1"), std::string::npos);
  auto neg = BasicIndex(x, Index({Int(-2)}));
  ASSERT_TRUE(neg.ok());
  EXPECT_EQ(neg->shape, (Shape{3}));
  EXPECT_EQ(neg->offset, 0);
}

TEST(ViewTest, TooManyIndicesIsRefused) {
  View x = Make({2});
  EXPECT_FALSE(BasicIndex(x, Index({Int(0), Int(0)})).ok());
}

TEST(ViewTest, EllipsisAndNewAxis) {
  View x = Make({2, 3, 4});
  auto y = BasicIndex(x, Index({{IndexItem::kNewAxis, 0, 0, 0},
                                {IndexItem::kEllipsis, 0, 0, 0},
                                Int(1)}));
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->shape, (Shape{1, 2, 3}));
  EXPECT_EQ(y->offset, 8);
}

TEST(ViewTest, BroadcastShapesFollowNumpy) {
  auto s = BroadcastShapes({Shape{2, 1, 3}, Shape{4, 1}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (Shape{2, 4, 3}));
  auto bad = BroadcastShapes({Shape{2, 3}, Shape{2}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("could not be broadcast"), std::string::npos);
}

TEST(ViewTest, BroadcastViewsAreReadOnlyWithZeroStrides) {
  View x = Make({3});
  auto b = BroadcastTo(x, {2, 3});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->strides, (Strides{0, 8}));
  EXPECT_FALSE(b->writeable);
  EXPECT_FALSE(BroadcastTo(x, {2, 4}).ok());
}

TEST(ViewTest, CollapseMergesContiguousDims) {
  View a = Make({2, 3, 4});
  View b = Make({2, 3, 4});
  std::vector<Strides> strides;
  std::vector<const View*> views = {&a, &b};
  Shape s = CollapseDims(views, &strides);
  EXPECT_EQ(s, (Shape{24}));
  auto t = Transpose(b, {1, 0, 2});
  ASSERT_TRUE(t.ok());
  View a2 = Make({3, 2, 4});
  views = {&a2, &*t};
  s = CollapseDims(views, &strides);
  EXPECT_EQ(s, (Shape{3, 2, 4}));
}

TEST(ViewTest, NormalizeAxesRejectsBadAxes) {
  auto ok = NormalizeAxes({-1, 0}, 3);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)[0], 2);
  EXPECT_FALSE(NormalizeAxes({3}, 3).ok());
  EXPECT_FALSE(NormalizeAxes({1, -2}, 3).ok());
}

TEST(ViewTest, OverlapDetection) {
  View x = Make({10});
  auto head = BasicIndex(x, Index({Slice(0, 5, 1)}));
  auto tail = BasicIndex(x, Index({Slice(5, 10, 1)}));
  auto mid = BasicIndex(x, Index({Slice(3, 7, 1)}));
  EXPECT_FALSE(MayOverlap(*head, *tail));
  EXPECT_TRUE(MayOverlap(*head, *mid));
  EXPECT_FALSE(MayOverlap(*head, Make({5})));
}

TEST(ViewTest, ContiguityFlagsIgnoreLengthOneAxes) {
  View c = Make({1, 5});
  EXPECT_TRUE(c.IsCContiguous());
  EXPECT_TRUE(c.IsFContiguous());
  auto t = Transpose(Make({3, 4}), {});
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->IsCContiguous());
  EXPECT_TRUE(t->IsFContiguous());
  EXPECT_TRUE(Make({0, 3}).IsFContiguous());
}

// NumPy: np.add(x, y) of an F-ordered x is F-ordered; C order wins a
// conflict between operands; a broadcast operand has no say.
TEST(ViewTest, KeepOrderStridesFollowTheOperands) {
  auto f = Transpose(Make({4, 3, 2}), {});  // shape (2, 3, 4), F-contiguous
  ASSERT_TRUE(f.ok());
  const Shape shape = {2, 3, 4};
  const View* one[] = {&*f};
  EXPECT_EQ(KeepOrderStrides(one, shape, 8), FStrides(shape, 8));
  View c = Make({2, 3, 4});
  const View* both[] = {&*f, &c};
  EXPECT_EQ(KeepOrderStrides(both, shape, 8), CStrides(shape, 8));
  const View* reversed[] = {&c, &*f};
  EXPECT_EQ(KeepOrderStrides(reversed, shape, 8), CStrides(shape, 8));
  auto row = BroadcastTo(Make({4}), shape);
  ASSERT_TRUE(row.ok());
  const View* with_row[] = {&*f, &*row};
  EXPECT_EQ(KeepOrderStrides(with_row, shape, 4), FStrides(shape, 4));
  // A permutation that is neither C nor F: (3, 2, 4) seen through (1, 0, 2).
  auto p = Transpose(Make({3, 2, 4}), {1, 0, 2});
  ASSERT_TRUE(p.ok());
  const View* perm[] = {&*p};
  EXPECT_EQ(KeepOrderStrides(perm, shape, 8), (Strides{32, 64, 8}));
}

TEST(ViewTest, LikeStridesFollowNumPysOrders) {
  auto f = Transpose(Make({4, 3}), {});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(LikeStrides(*f, Order::kK, 4), FStrides({3, 4}, 4));
  EXPECT_EQ(LikeStrides(*f, Order::kA, 4), FStrides({3, 4}, 4));
  EXPECT_EQ(LikeStrides(*f, Order::kC, 4), CStrides({3, 4}, 4));
  EXPECT_EQ(LikeStrides(Make({3, 4}), Order::kF, 2), FStrides({3, 4}, 2));
  EXPECT_TRUE(ParseOrder("k").ok());
  EXPECT_FALSE(ParseOrder("X").ok());
  EXPECT_FALSE(ParseOrder("CF").ok());
}

TEST(ViewTest, ViewAsDTypeRescalesTheLastAxis) {
  auto v = ViewAsDType(Make({3, 4}, DType::kFloat32), DType::kInt8);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->shape, (Shape{3, 16}));
  EXPECT_EQ(v->strides, (Strides{16, 1}));
  auto wide = ViewAsDType(Make({3, 4}, DType::kFloat32), DType::kFloat64);
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ(wide->shape, (Shape{3, 2}));
  auto t = Transpose(Make({3, 4}, DType::kFloat32), {});
  EXPECT_FALSE(ViewAsDType(*t, DType::kFloat64).ok());
  EXPECT_FALSE(ViewAsDType(Make({3}, DType::kInt8), DType::kInt16).ok());
  EXPECT_FALSE(ViewAsDType(Make({}, DType::kInt32), DType::kInt8).ok());
}

}  // namespace
}  // namespace arrayd
