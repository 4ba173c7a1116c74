// The lists of elementwise ops, as X-macros: X(enum name, functor, ufunc
// name, kinds of compute dtype the functor accepts). Backends expand them to dispatch tables; the op registry expands
// them to its names. Adding a ufunc adds one row here.
#ifndef ARRAYD_KERNELS_OP_LIST_H_
#define ARRAYD_KERNELS_OP_LIST_H_

#define ARRAYD_UNARY_OPS(X)                 \
  X(kNegative, NegativeOp, "negative", kI | kF | kC)      \
  X(kPositive, PositiveOp, "positive", kI | kF | kC)      \
  X(kAbsolute, AbsoluteOp, "absolute", kAll)      \
  X(kLogicalNot, LogicalNotOp, "logical_not", kAll) \
  X(kInvert, InvertOp, "invert", kB | kI)  \
  X(kFloor, FloorOp, "floor", kF)

#define ARRAYD_BINARY_OPS(X)                        \
  X(kAdd, AddOp, "add", kAll)                             \
  X(kSubtract, SubtractOp, "subtract", kI | kF | kC)              \
  X(kMultiply, MultiplyOp, "multiply", kAll)              \
  X(kTrueDivide, TrueDivideOp, "true_divide", kF | kC)       \
  X(kFloorDivide, FloorDivideOp, "floor_divide", kI | kF)    \
  X(kRemainder, RemainderOp, "remainder", kI | kF)           \
  X(kPower, PowerOp, "power", kI | kF | kC)                       \
  X(kEqual, EqualOp, "equal", kAll)                       \
  X(kNotEqual, NotEqualOp, "not_equal", kAll)             \
  X(kLess, LessOp, "less", kAll)                          \
  X(kLessEqual, LessEqualOp, "less_equal", kAll)          \
  X(kGreater, GreaterOp, "greater", kAll)                 \
  X(kGreaterEqual, GreaterEqualOp, "greater_equal", kAll) \
  X(kLogicalAnd, LogicalAndOp, "logical_and", kAll)       \
  X(kLogicalOr, LogicalOrOp, "logical_or", kAll)          \
  X(kLogicalXor, LogicalXorOp, "logical_xor", kAll)       \
  X(kBitwiseAnd, BitwiseAndOp, "bitwise_and", kB | kI)       \
  X(kBitwiseOr, BitwiseOrOp, "bitwise_or", kB | kI)          \
  X(kBitwiseXor, BitwiseXorOp, "bitwise_xor", kB | kI)       \
  X(kLeftShift, LeftShiftOp, "left_shift", kI)          \
  X(kRightShift, RightShiftOp, "right_shift", kI)       \
  X(kMaximum, MaximumOp, "maximum", kAll)                 \
  X(kMinimum, MinimumOp, "minimum", kAll)

namespace arrayd {
namespace kernels {

// Kinds of dtypes, as bits of a mask.
enum KindMask : unsigned { kB = 1, kI = 2, kF = 4, kC = 8, kAll = 15 };

#define ARRAYD_ENUM_ROW(e, f, n, k) e,
enum class UnaryOp { ARRAYD_UNARY_OPS(ARRAYD_ENUM_ROW) kNumUnaryOps };
enum class BinaryOp { ARRAYD_BINARY_OPS(ARRAYD_ENUM_ROW) kNumBinaryOps };
#undef ARRAYD_ENUM_ROW

// Reductions along axes: the accumulator is the output dtype.
enum class ReduceOp { kSum, kProd, kMin, kMax, kAll, kAny };
enum class ArgReduceOp { kArgMin, kArgMax };

}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_KERNELS_OP_LIST_H_
