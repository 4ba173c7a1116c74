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
  X(kInvert, InvertOp, "invert", kB | kI)            \
  X(kExp, ExpOp, "exp", kF | kC)                      \
  X(kExp2, Exp2Op, "exp2", kF | kC)                   \
  X(kExpm1, Expm1Op, "expm1", kF | kC)                \
  X(kLog, LogOp, "log", kF | kC)                      \
  X(kLog2, Log2Op, "log2", kF | kC)                   \
  X(kLog10, Log10Op, "log10", kF | kC)                \
  X(kLog1p, Log1pOp, "log1p", kF | kC)                \
  X(kSqrt, SqrtOp, "sqrt", kF | kC)                   \
  X(kCbrt, CbrtOp, "cbrt", kF)                        \
  X(kSquare, SquareOp, "square", kI | kF | kC)        \
  X(kReciprocal, ReciprocalOp, "reciprocal", kI | kF | kC) \
  X(kSin, SinOp, "sin", kF | kC)                      \
  X(kCos, CosOp, "cos", kF | kC)                      \
  X(kTan, TanOp, "tan", kF | kC)                      \
  X(kArcsin, ArcsinOp, "arcsin", kF | kC)             \
  X(kArccos, ArccosOp, "arccos", kF | kC)             \
  X(kArctan, ArctanOp, "arctan", kF | kC)             \
  X(kSinh, SinhOp, "sinh", kF | kC)                   \
  X(kCosh, CoshOp, "cosh", kF | kC)                   \
  X(kTanh, TanhOp, "tanh", kF | kC)                   \
  X(kArcsinh, ArcsinhOp, "arcsinh", kF | kC)          \
  X(kArccosh, ArccoshOp, "arccosh", kF | kC)          \
  X(kArctanh, ArctanhOp, "arctanh", kF | kC)          \
  X(kFloor, FloorOp, "floor", kB | kI | kF)           \
  X(kCeil, CeilOp, "ceil", kB | kI | kF)              \
  X(kTrunc, TruncOp, "trunc", kB | kI | kF)           \
  X(kRint, RintOp, "rint", kF | kC)                   \
  X(kSign, SignOp, "sign", kI | kF | kC)              \
  X(kSignbit, SignbitOp, "signbit", kF)               \
  X(kFabs, FabsOp, "fabs", kF)                        \
  X(kDegrees, DegreesOp, "degrees", kF)               \
  X(kRadians, RadiansOp, "radians", kF)               \
  X(kIsNan, IsNanOp, "isnan", kAll)                   \
  X(kIsInf, IsInfOp, "isinf", kAll)                   \
  X(kIsFinite, IsFiniteOp, "isfinite", kAll)          \
  X(kConjugate, ConjugateOp, "conjugate", kI | kF | kC)

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
  X(kMinimum, MinimumOp, "minimum", kAll)       \
  X(kArctan2, Arctan2Op, "arctan2", kF)         \
  X(kHypot, HypotOp, "hypot", kF)               \
  X(kCopysign, CopysignOp, "copysign", kF)      \
  X(kNextafter, NextafterOp, "nextafter", kF)   \
  X(kFmax, FmaxOp, "fmax", kAll)                \
  X(kFmin, FminOp, "fmin", kAll)                \
  X(kFmod, FmodOp, "fmod", kI | kF)             \
  X(kGcd, GcdOp, "gcd", kI)                     \
  X(kLcm, LcmOp, "lcm", kI)                     \
  X(kLogaddexp, LogaddexpOp, "logaddexp", kF)   \
  X(kLogaddexp2, Logaddexp2Op, "logaddexp2", kF) \
  X(kHeaviside, HeavisideOp, "heaviside", kF)

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
