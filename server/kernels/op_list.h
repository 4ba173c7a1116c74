// The elementwise ops (NumPy ufuncs), one X-macro row each:
//
//   X(enum, functor, ufunc name, loops, identity, doc)
//
// `loops` is the op's dtype rule in NumPy's own form, its `ufunc.types`
// strings restricted to arrayd's dtypes (? b B h H i I l L e f d F D): the
// first loop, in order, that every input casts to safely is the one that runs
// (NumPy's linear search), and NEP 50's weak Python scalars are resolved
// before the search (ops/signature.h). One extension to NumPy's form: a loop
// whose output is `!` ("?\?->!") refuses exactly those input types with
// NumPy's TypeError, where NumPy's own type resolver does (bool subtract). The loops' input types are the dtypes
// the functor is instantiated for, and each loop's output must be what the
// functor returns for it (checked by ops/signature_test.cc). `identity` is
// what ufunc.reduce starts from, as a Python literal ("" none). The registry, both backends,
// Capabilities (OpSignature) and both clients are built from these rows:
// adding a ufunc is one row here and one functor in kernels/functors.h.
#ifndef ARRAYD_KERNELS_OP_LIST_H_
#define ARRAYD_KERNELS_OP_LIST_H_

// Common loop sets (string literals, concatenated into the rows).
#define ARRAYD_INT1 "b->b B->B h->h H->H i->i I->I l->l L->L "
#define ARRAYD_FLOAT1 "e->e f->f d->d "
#define ARRAYD_CPLX1 "F->F D->D "
#define ARRAYD_INT2 "bb->b BB->B hh->h HH->H ii->i II->I ll->l LL->L "
#define ARRAYD_FLOAT2 "ee->e ff->f dd->d "
#define ARRAYD_CPLX2 "FF->F DD->D "
#define ARRAYD_TO_BOOL1 "?->? b->? B->? h->? H->? i->? I->? l->? L->? e->? f->? d->? F->? D->? "
// Reductions' and scans' loop tables (the result dtype of each input dtype):
// sum/prod/cumsum/cumprod accumulate small integers in 64 bits; mean is
// inexact; argmin/argmax give int64 indices.
#define ARRAYD_SUM_LOOPS "?->l b->l B->L h->l H->L i->l I->L l->l L->L " ARRAYD_FLOAT1 ARRAYD_CPLX1
#define ARRAYD_SAME_LOOPS "?->? " ARRAYD_INT1 ARRAYD_FLOAT1 ARRAYD_CPLX1
#define ARRAYD_MEAN_LOOPS "?->d b->d B->d h->d H->d i->d I->d l->d L->d " ARRAYD_FLOAT1 ARRAYD_CPLX1
#define ARRAYD_INDEX_LOOPS "?->l b->l B->l h->l H->l i->l I->l l->l L->l e->l f->l d->l F->l D->l "
#define ARRAYD_TO_BOOL2 \
  "?\?->? bb->? BB->? hh->? HH->? ii->? II->? ll->? LL->? ee->? ff->? dd->? FF->? DD->? "

#define ARRAYD_NUMPY_UNARY_OPS(X)                  \
  X(kNegative, NegativeOp, "negative", "?->! " ARRAYD_INT1 ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "-x, elementwise.") \
  X(kPositive, PositiveOp, "positive", "?->! " ARRAYD_INT1 ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "+x, elementwise (a copy).") \
  X(kAbsolute, AbsoluteOp, "absolute", "?->? " ARRAYD_INT1 ARRAYD_FLOAT1 "F->f D->d ", "", "|x|, elementwise (the modulus for complex x, as a real).") \
  X(kLogicalNot, LogicalNotOp, "logical_not", ARRAYD_TO_BOOL1, "", "not x, elementwise, as bool.") \
  X(kInvert, InvertOp, "invert", "?->? " ARRAYD_INT1, "", "Bitwise not (logical not for bool), elementwise.") \
  X(kExp, ExpOp, "exp", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "e**x, elementwise.") \
  X(kExp2, Exp2Op, "exp2", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "2**x, elementwise.") \
  X(kExpm1, Expm1Op, "expm1", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "exp(x) - 1, exact for small x.") \
  X(kLog, LogOp, "log", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Natural logarithm, elementwise.") \
  X(kLog2, Log2Op, "log2", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Base-2 logarithm, elementwise.") \
  X(kLog10, Log10Op, "log10", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Base-10 logarithm, elementwise.") \
  X(kLog1p, Log1pOp, "log1p", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "log(1 + x), exact for small x.") \
  X(kSqrt, SqrtOp, "sqrt", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Non-negative square root, elementwise.") \
  X(kCbrt, CbrtOp, "cbrt", ARRAYD_FLOAT1, "", "Cube root, elementwise.") \
  X(kSquare, SquareOp, "square", ARRAYD_INT1 ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "x*x, elementwise.") \
  X(kReciprocal, ReciprocalOp, "reciprocal", ARRAYD_INT1 ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "1/x, elementwise (integer division for integers).") \
  X(kSin, SinOp, "sin", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Sine, elementwise (radians).") \
  X(kCos, CosOp, "cos", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Cosine, elementwise (radians).") \
  X(kTan, TanOp, "tan", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Tangent, elementwise (radians).") \
  X(kArcsin, ArcsinOp, "arcsin", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Inverse sine, elementwise.") \
  X(kArccos, ArccosOp, "arccos", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Inverse cosine, elementwise.") \
  X(kArctan, ArctanOp, "arctan", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Inverse tangent, elementwise.") \
  X(kSinh, SinhOp, "sinh", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Hyperbolic sine, elementwise.") \
  X(kCosh, CoshOp, "cosh", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Hyperbolic cosine, elementwise.") \
  X(kTanh, TanhOp, "tanh", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Hyperbolic tangent, elementwise.") \
  X(kArcsinh, ArcsinhOp, "arcsinh", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Inverse hyperbolic sine, elementwise.") \
  X(kArccosh, ArccoshOp, "arccosh", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Inverse hyperbolic cosine, elementwise.") \
  X(kArctanh, ArctanhOp, "arctanh", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Inverse hyperbolic tangent, elementwise.") \
  X(kFloor, FloorOp, "floor", "?->? " ARRAYD_INT1 ARRAYD_FLOAT1, "", "Largest integer <= x, elementwise.") \
  X(kCeil, CeilOp, "ceil", "?->? " ARRAYD_INT1 ARRAYD_FLOAT1, "", "Smallest integer >= x, elementwise.") \
  X(kTrunc, TruncOp, "trunc", "?->? " ARRAYD_INT1 ARRAYD_FLOAT1, "", "x rounded toward zero, elementwise.") \
  X(kRint, RintOp, "rint", ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "x rounded to the nearest integer (half to even), elementwise.") \
  X(kSign, SignOp, "sign", "?->! " ARRAYD_INT1 ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "-1, 0 or 1 by the sign of x (x/|x| for complex), elementwise.") \
  X(kSignbit, SignbitOp, "signbit", "e->? f->? d->? ", "", "True where the sign bit of x is set, elementwise.") \
  X(kFabs, FabsOp, "fabs", ARRAYD_FLOAT1, "", "|x| of real x, elementwise.") \
  X(kDegrees, DegreesOp, "degrees", ARRAYD_FLOAT1, "", "Radians to degrees, elementwise.") \
  X(kRadians, RadiansOp, "radians", ARRAYD_FLOAT1, "", "Degrees to radians, elementwise.") \
  X(kIsNan, IsNanOp, "isnan", ARRAYD_TO_BOOL1, "", "True where x is NaN, elementwise.") \
  X(kIsInf, IsInfOp, "isinf", ARRAYD_TO_BOOL1, "", "True where x is +-inf, elementwise.") \
  X(kIsFinite, IsFiniteOp, "isfinite", ARRAYD_TO_BOOL1, "", "True where x is neither inf nor NaN, elementwise.") \
  X(kConjugate, ConjugateOp, "conjugate", ARRAYD_INT1 ARRAYD_FLOAT1 ARRAYD_CPLX1, "", "Complex conjugate, elementwise.") \
  X(kSpacing, SpacingOp, "spacing", ARRAYD_FLOAT1, "", "The gap from x to the next float away from zero, elementwise.")

#define ARRAYD_NUMPY_BINARY_OPS(X)                  \
  X(kAdd, AddOp, "add", "?\?->? " ARRAYD_INT2 ARRAYD_FLOAT2 ARRAYD_CPLX2, "0", "x1 + x2, elementwise.") \
  X(kSubtract, SubtractOp, "subtract", "?\?->! " ARRAYD_INT2 ARRAYD_FLOAT2 ARRAYD_CPLX2, "", "x1 - x2, elementwise.") \
  X(kMultiply, MultiplyOp, "multiply", "?\?->? " ARRAYD_INT2 ARRAYD_FLOAT2 ARRAYD_CPLX2, "1", "x1 * x2, elementwise.") \
  X(kTrueDivide, TrueDivideOp, "true_divide", "bb->d BB->d hh->d HH->d ii->d II->d ll->d LL->d " ARRAYD_FLOAT2 ARRAYD_CPLX2, "", "x1 / x2, elementwise (floating point result).") \
  X(kFloorDivide, FloorDivideOp, "floor_divide", ARRAYD_INT2 ARRAYD_FLOAT2, "", "floor(x1 / x2), elementwise.") \
  X(kRemainder, RemainderOp, "remainder", ARRAYD_INT2 ARRAYD_FLOAT2, "", "x1 - floor(x1 / x2) * x2 (the sign of x2), elementwise.") \
  X(kPower, PowerOp, "power", ARRAYD_INT2 ARRAYD_FLOAT2 ARRAYD_CPLX2, "", "x1 ** x2, elementwise.") \
  X(kEqual, EqualOp, "equal", ARRAYD_TO_BOOL2, "", "x1 == x2, elementwise.") \
  X(kNotEqual, NotEqualOp, "not_equal", ARRAYD_TO_BOOL2, "", "x1 != x2, elementwise.") \
  X(kLess, LessOp, "less", ARRAYD_TO_BOOL2, "", "x1 < x2, elementwise.") \
  X(kLessEqual, LessEqualOp, "less_equal", ARRAYD_TO_BOOL2, "", "x1 <= x2, elementwise.") \
  X(kGreater, GreaterOp, "greater", ARRAYD_TO_BOOL2, "", "x1 > x2, elementwise.") \
  X(kGreaterEqual, GreaterEqualOp, "greater_equal", ARRAYD_TO_BOOL2, "", "x1 >= x2, elementwise.") \
  X(kLogicalAnd, LogicalAndOp, "logical_and", ARRAYD_TO_BOOL2, "True", "x1 and x2, elementwise, as bool.") \
  X(kLogicalOr, LogicalOrOp, "logical_or", ARRAYD_TO_BOOL2, "False", "x1 or x2, elementwise, as bool.") \
  X(kLogicalXor, LogicalXorOp, "logical_xor", ARRAYD_TO_BOOL2, "False", "x1 xor x2, elementwise, as bool.") \
  X(kBitwiseAnd, BitwiseAndOp, "bitwise_and", "?\?->? " ARRAYD_INT2, "-1", "x1 & x2, elementwise.") \
  X(kBitwiseOr, BitwiseOrOp, "bitwise_or", "?\?->? " ARRAYD_INT2, "0", "x1 | x2, elementwise.") \
  X(kBitwiseXor, BitwiseXorOp, "bitwise_xor", "?\?->? " ARRAYD_INT2, "0", "x1 ^ x2, elementwise.") \
  X(kLeftShift, LeftShiftOp, "left_shift", ARRAYD_INT2, "", "x1 << x2, elementwise.") \
  X(kRightShift, RightShiftOp, "right_shift", ARRAYD_INT2, "", "x1 >> x2, elementwise.") \
  X(kMaximum, MaximumOp, "maximum", "?\?->? " ARRAYD_INT2 ARRAYD_FLOAT2 ARRAYD_CPLX2, "", "The larger of x1 and x2, elementwise (NaN if either is).") \
  X(kMinimum, MinimumOp, "minimum", "?\?->? " ARRAYD_INT2 ARRAYD_FLOAT2 ARRAYD_CPLX2, "", "The smaller of x1 and x2, elementwise (NaN if either is).") \
  X(kArctan2, Arctan2Op, "arctan2", ARRAYD_FLOAT2, "", "The angle of the point (x2, x1), elementwise.") \
  X(kHypot, HypotOp, "hypot", ARRAYD_FLOAT2, "0", "sqrt(x1**2 + x2**2), elementwise.") \
  X(kCopysign, CopysignOp, "copysign", ARRAYD_FLOAT2, "", "x1 with the sign of x2, elementwise.") \
  X(kNextafter, NextafterOp, "nextafter", ARRAYD_FLOAT2, "", "The next float after x1 toward x2, elementwise.") \
  X(kFmax, FmaxOp, "fmax", "?\?->? " ARRAYD_INT2 ARRAYD_FLOAT2 ARRAYD_CPLX2, "", "The larger of x1 and x2, elementwise (NaN only if both are).") \
  X(kFmin, FminOp, "fmin", "?\?->? " ARRAYD_INT2 ARRAYD_FLOAT2 ARRAYD_CPLX2, "", "The smaller of x1 and x2, elementwise (NaN only if both are).") \
  X(kFmod, FmodOp, "fmod", ARRAYD_INT2 ARRAYD_FLOAT2, "", "C's fmod: x1 - trunc(x1 / x2) * x2 (the sign of x1), elementwise.") \
  X(kGcd, GcdOp, "gcd", "?\?->! " ARRAYD_INT2, "0", "Greatest common divisor of |x1| and |x2|, elementwise.") \
  X(kLcm, LcmOp, "lcm", "?\?->! " ARRAYD_INT2, "", "Lowest common multiple of |x1| and |x2|, elementwise.") \
  X(kLogaddexp, LogaddexpOp, "logaddexp", ARRAYD_FLOAT2, "-inf", "log(exp(x1) + exp(x2)), without overflow.") \
  X(kLogaddexp2, Logaddexp2Op, "logaddexp2", ARRAYD_FLOAT2, "-inf", "log2(2**x1 + 2**x2), without overflow.") \
  X(kHeaviside, HeavisideOp, "heaviside", ARRAYD_FLOAT2, "", "Heaviside step: 0 below zero, x2 at zero, 1 above, elementwise.")

// scipy.special's ufuncs (arrayd.scipy.special; kernels/special.h): their
// Capabilities carry the module "scipy.special", and the Python client puts
// them there, not in the NumPy namespace. Real loops only, as SciPy's for
// these functions, in SciPy's order: most list float64 first (integers,
// bool and float16 compute in float64, float32 in float32: the exact loop
// is taken before the linear search, ops/signature.cc), a few float32 first
// (small integers and float16 compute in float32).
#define ARRAYD_REAL1 "f->f d->d "
#define ARRAYD_REAL2 "ff->f dd->d "
#define ARRAYD_SCIPY_D1 "d->d f->f "
#define ARRAYD_SCIPY_D2 "dd->d ff->f "
#define ARRAYD_SCIPY_DC1 "d->d D->D f->f F->F "
#define ARRAYD_SCIPY_DC2 "dd->d ff->f DD->D FF->F "
#define ARRAYD_SCIPY_FC1 "f->f d->d F->F D->D "
// Functions of three or four real parameters, as binary rows over complex
// operands that carry two parameters each (real part, imaginary part; the
// client packs them: arrayd.scipy.special): single precision in complex64,
// double in complex128, the result real (or complex for "DD->D" rows).
#define ARRAYD_PACKED "FF->f DD->d "
#define ARRAYD_SPECIAL_UNARY_OPS(X) \
  X(kErf, ErfOp, "erf", ARRAYD_SCIPY_D1, "", "The error function, 2/sqrt(pi) * integral of exp(-t**2) from 0 to x.") \
  X(kErfc, ErfcOp, "erfc", ARRAYD_SCIPY_D1, "", "The complementary error function, 1 - erf(x).") \
  X(kErfcx, ErfcxOp, "erfcx", ARRAYD_SCIPY_D1, "", "The scaled complementary error function, exp(x**2) * erfc(x).") \
  X(kErfinv, ErfinvOp, "erfinv", ARRAYD_REAL1, "", "The inverse of erf: y with erf(y) = x.") \
  X(kErfcinv, ErfcinvOp, "erfcinv", ARRAYD_REAL1, "", "The inverse of erfc: y with erfc(y) = x.") \
  X(kNdtr, NdtrOp, "ndtr", ARRAYD_SCIPY_D1, "", "The standard normal distribution function, P(Z <= x).") \
  X(kLogNdtr, LogNdtrOp, "log_ndtr", ARRAYD_SCIPY_D1, "", "log(ndtr(x)), accurate in both tails.") \
  X(kNdtri, NdtriOp, "ndtri", ARRAYD_REAL1, "", "The inverse of ndtr: y with ndtr(y) = x.") \
  X(kGamma, GammaOp, "gamma", ARRAYD_SCIPY_DC1, "", "The gamma function.") \
  X(kGammaln, GammaLnOp, "gammaln", ARRAYD_SCIPY_D1, "", "log(abs(gamma(x))).") \
  X(kLoggamma, LogGammaOp, "loggamma", ARRAYD_SCIPY_DC1, "", "log(gamma(x)), NaN where real gamma(x) < 0; complex: continuous off the negative axis.") \
  X(kRgamma, RGammaOp, "rgamma", ARRAYD_SCIPY_DC1, "", "1 / gamma(x) (0 at the poles of gamma).") \
  X(kGammasgn, GammaSgnOp, "gammasgn", ARRAYD_SCIPY_D1, "", "The sign of gamma(x).") \
  X(kPsi, PsiOp, "psi", ARRAYD_SCIPY_DC1, "", "The digamma function, the derivative of log(gamma(x)).") \
  X(kZetac, ZetacOp, "zetac", ARRAYD_SCIPY_D1, "", "The Riemann zeta function minus 1.") \
  X(kRiemannZeta, RiemannZetaOp, "_riemann_zeta", ARRAYD_SCIPY_D1, "", "The Riemann zeta function (scipy.special.zeta(x)).") \
  X(kExp1, Exp1Op, "exp1", ARRAYD_REAL1, "", "The exponential integral E1(x).") \
  X(kExpi, ExpiOp, "expi", ARRAYD_REAL1, "", "The exponential integral Ei(x).") \
  X(kI0, I0Op, "i0", ARRAYD_SCIPY_D1, "", "The modified Bessel function of the first kind, order 0.") \
  X(kI0e, I0eOp, "i0e", ARRAYD_SCIPY_D1, "", "exp(-abs(x)) * i0(x).") \
  X(kI1, I1Op, "i1", ARRAYD_SCIPY_D1, "", "The modified Bessel function of the first kind, order 1.") \
  X(kI1e, I1eOp, "i1e", ARRAYD_SCIPY_D1, "", "exp(-abs(x)) * i1(x).") \
  X(kK0, K0Op, "k0", ARRAYD_SCIPY_D1, "", "The modified Bessel function of the second kind, order 0.") \
  X(kK0e, K0eOp, "k0e", ARRAYD_SCIPY_D1, "", "exp(x) * k0(x).") \
  X(kK1, K1Op, "k1", ARRAYD_SCIPY_D1, "", "The modified Bessel function of the second kind, order 1.") \
  X(kK1e, K1eOp, "k1e", ARRAYD_SCIPY_D1, "", "exp(x) * k1(x).") \
  X(kJ0, J0Op, "j0", ARRAYD_SCIPY_D1, "", "The Bessel function of the first kind, order 0.") \
  X(kJ1, J1Op, "j1", ARRAYD_SCIPY_D1, "", "The Bessel function of the first kind, order 1.") \
  X(kY0, Y0Op, "y0", ARRAYD_SCIPY_D1, "", "The Bessel function of the second kind, order 0.") \
  X(kY1, Y1Op, "y1", ARRAYD_SCIPY_D1, "", "The Bessel function of the second kind, order 1.") \
  X(kEllipkm1, EllipKm1Op, "ellipkm1", ARRAYD_SCIPY_D1, "", "The complete elliptic integral of the first kind, K(1 - p).") \
  X(kExpit, ExpitOp, "expit", ARRAYD_SCIPY_D1, "", "The logistic sigmoid, 1 / (1 + exp(-x)).") \
  X(kLogExpit, LogExpitOp, "log_expit", ARRAYD_SCIPY_D1, "", "log(expit(x)), accurate for large abs(x).") \
  X(kLogit, LogitOp, "logit", ARRAYD_SCIPY_D1, "", "log(p / (1 - p)), the inverse of expit.") \
  X(kEntr, EntrOp, "entr", ARRAYD_REAL1, "", "-x * log(x) for x > 0, 0 at 0, -inf below.") \
  X(kExprel, ExprelOp, "exprel", ARRAYD_SCIPY_D1, "", "(exp(x) - 1) / x, 1 at 0.") \
  X(kCosm1, Cosm1Op, "cosm1", ARRAYD_SCIPY_D1, "", "cos(x) - 1, accurate near 0.") \
  X(kExp10, Exp10Op, "exp10", ARRAYD_SCIPY_D1, "", "10**x, elementwise.") \
  X(kSindg, SinDgOp, "sindg", ARRAYD_SCIPY_D1, "", "The sine of x degrees.") \
  X(kCosdg, CosDgOp, "cosdg", ARRAYD_SCIPY_D1, "", "The cosine of x degrees.") \
  X(kTandg, TanDgOp, "tandg", ARRAYD_SCIPY_D1, "", "The tangent of x degrees.") \
  X(kCotdg, CotDgOp, "cotdg", ARRAYD_SCIPY_D1, "", "The cotangent of x degrees.") \
  X(kSiciSi, SiOp, "_sici_si", ARRAYD_SCIPY_FC1, "", "The sine integral Si(x) (scipy.special.sici's first result).") \
  X(kSiciCi, CiOp, "_sici_ci", ARRAYD_SCIPY_FC1, "", "The cosine integral Ci(x) (scipy.special.sici's second result).") \
  X(kShichiShi, ShiOp, "_shichi_shi", ARRAYD_SCIPY_FC1, "", "The hyperbolic sine integral Shi(x) (scipy.special.shichi's first result).") \
  X(kShichiChi, ChiOp, "_shichi_chi", ARRAYD_SCIPY_FC1, "", "The hyperbolic cosine integral Chi(x) (scipy.special.shichi's second result).")

#define ARRAYD_SPECIAL_BINARY_OPS(X) \
  X(kXlogy, XlogyOp, "xlogy", ARRAYD_SCIPY_DC2, "", "x1 * log(x2), 0 where x1 is 0.") \
  X(kXlog1py, Xlog1pyOp, "xlog1py", ARRAYD_SCIPY_DC2, "", "x1 * log1p(x2), 0 where x1 is 0.") \
  X(kRelEntr, RelEntrOp, "rel_entr", ARRAYD_REAL2, "", "x1 * log(x1 / x2) (relative entropy), elementwise.") \
  X(kKlDiv, KlDivOp, "kl_div", ARRAYD_REAL2, "", "x1 * log(x1 / x2) - x1 + x2, elementwise.") \
  X(kBeta, BetaOp, "beta", ARRAYD_SCIPY_D2, "", "The beta function, gamma(a) gamma(b) / gamma(a + b).") \
  X(kBetaln, BetaLnOp, "betaln", ARRAYD_SCIPY_D2, "", "log(abs(beta(a, b))).") \
  X(kGammainc, GammaincOp, "gammainc", ARRAYD_SCIPY_D2, "", "The regularized lower incomplete gamma function P(a, x).") \
  X(kGammaincc, GammainccOp, "gammaincc", ARRAYD_SCIPY_D2, "", "The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).") \
  X(kHurwitzZeta, HurwitzZetaOp, "_hurwitz_zeta", ARRAYD_REAL2, "", "The Hurwitz zeta function (scipy.special.zeta(x, q)).") \
  X(kJn, JnOp, "jn", ARRAYD_REAL2, "", "The Bessel function of the first kind of integer order n.") \
  X(kYn, YnOp, "yn", ARRAYD_REAL2, "", "The Bessel function of the second kind of integer order n.") \
  X(kExpn, ExpnOp, "expn", ARRAYD_REAL2, "", "The generalized exponential integral E_n(x).") \
  X(kBoxcox, BoxCoxOp, "boxcox", ARRAYD_REAL2, "", "The Box-Cox transform, (x**lmbda - 1) / lmbda (log(x) at 0).") \
  X(kBoxcox1p, BoxCox1pOp, "boxcox1p", ARRAYD_REAL2, "", "The Box-Cox transform of 1 + x.") \
  X(kInvBoxcox, InvBoxCoxOp, "inv_boxcox", ARRAYD_REAL2, "", "The inverse of boxcox.") \
  X(kInvBoxcox1p, InvBoxCox1pOp, "inv_boxcox1p", ARRAYD_REAL2, "", "The inverse of boxcox1p.") \
  X(kHuber, HuberOp, "huber", ARRAYD_REAL2, "", "The Huber loss of r with threshold delta.") \
  X(kPseudoHuber, PseudoHuberOp, "pseudo_huber", ARRAYD_REAL2, "", "The pseudo-Huber loss of r with threshold delta.") \
  X(kBinom, BinomOp, "binom", ARRAYD_REAL2, "", "The binomial coefficient of real n and k.") \
  X(kGammaincinv, GammaincinvOp, "gammaincinv", ARRAYD_SCIPY_D2, "", "The inverse of gammainc in x: x with gammainc(a, x) = y.") \
  X(kGammainccinv, GammainccinvOp, "gammainccinv", ARRAYD_SCIPY_D2, "", "The inverse of gammaincc in x: x with gammaincc(a, x) = y.") \
  X(kChdtr, ChdtrOp, "chdtr", ARRAYD_REAL2, "", "The chi-square distribution function of v degrees of freedom at x.") \
  X(kChdtrc, ChdtrcOp, "chdtrc", ARRAYD_REAL2, "", "The chi-square survival function of v degrees of freedom at x.") \
  X(kChdtri, ChdtriOp, "chdtri", ARRAYD_REAL2, "", "The inverse of chdtrc in x.") \
  X(kPdtr, PdtrOp, "pdtr", ARRAYD_REAL2, "", "The Poisson distribution function: P(N <= k) for mean m.") \
  X(kPdtrc, PdtrcOp, "pdtrc", ARRAYD_REAL2, "", "The Poisson survival function: P(N > k) for mean m.") \
  X(kPdtri, PdtriOp, "_pdtri", ARRAYD_REAL2, "", "The inverse of pdtr in m (scipy.special.pdtri of float k).") \
  X(kEllipkinc, EllipkincOp, "ellipkinc", ARRAYD_SCIPY_D2, "", "The incomplete elliptic integral of the first kind, F(phi | m).") \
  X(kEllipeinc, EllipeincOp, "ellipeinc", ARRAYD_SCIPY_D2, "", "The incomplete elliptic integral of the second kind, E(phi | m).") \
  X(kEllipjSn, EllipjSnOp, "_ellipj_sn", ARRAYD_SCIPY_D2, "", "Jacobi's sn(u | m) (scipy.special.ellipj's first result).") \
  X(kEllipjCn, EllipjCnOp, "_ellipj_cn", ARRAYD_SCIPY_D2, "", "Jacobi's cn(u | m) (scipy.special.ellipj's second result).") \
  X(kEllipjDn, EllipjDnOp, "_ellipj_dn", ARRAYD_SCIPY_D2, "", "Jacobi's dn(u | m) (scipy.special.ellipj's third result).") \
  X(kEllipjPh, EllipjPhOp, "_ellipj_ph", ARRAYD_SCIPY_D2, "", "The amplitude of (u | m) (scipy.special.ellipj's fourth result).") \
  X(kSphericalJn, SphericalJnOp, "_spherical_jn", "dd->d ", "", "The spherical Bessel function j_n(x) of real x.") \
  X(kSphericalYn, SphericalYnOp, "_spherical_yn", "dd->d ", "", "The spherical Bessel function y_n(x) of real x.") \
  X(kLpmvPacked, LpmvOp, "_lpmv", ARRAYD_PACKED, "", "lpmv(m, v, x) of operands (m + v j, x).") \
  X(kBetaincPacked, BetaincOp, "_betainc", ARRAYD_PACKED, "", "betainc(a, b, x) of operands (a + b j, x).") \
  X(kBetaincinvPacked, BetaincinvOp, "_betaincinv", ARRAYD_PACKED, "", "betaincinv(a, b, y) of operands (a + b j, y).") \
  X(kFdtrPacked, FdtrOp, "_fdtr", ARRAYD_PACKED, "", "fdtr(dfn, dfd, x) of operands (dfn + dfd j, x).") \
  X(kFdtrcPacked, FdtrcOp, "_fdtrc", ARRAYD_PACKED, "", "fdtrc(dfn, dfd, x) of operands (dfn + dfd j, x).") \
  X(kFdtriPacked, FdtriOp, "_fdtri", ARRAYD_PACKED, "", "fdtri(dfn, dfd, p) of operands (dfn + dfd j, p).") \
  X(kBdtrPacked, BdtrOp, "_bdtr", ARRAYD_PACKED, "", "bdtr(k, n, p) of operands (k + n j, p).") \
  X(kBdtrcPacked, BdtrcOp, "_bdtrc", ARRAYD_PACKED, "", "bdtrc(k, n, p) of operands (k + n j, p).") \
  X(kBdtriPacked, BdtriOp, "_bdtri", ARRAYD_PACKED, "", "bdtri(k, n, y) of operands (k + n j, y).") \
  X(kNbdtrPacked, NbdtrOp, "_nbdtr", ARRAYD_PACKED, "", "nbdtr(k, n, p) of operands (k + n j, p).") \
  X(kNbdtrcPacked, NbdtrcOp, "_nbdtrc", ARRAYD_PACKED, "", "nbdtrc(k, n, p) of operands (k + n j, p).") \
  X(kNbdtriPacked, NbdtriOp, "_nbdtri", ARRAYD_PACKED, "", "nbdtri(k, n, y) of operands (k + n j, y).") \
  X(kGdtrPacked, GdtrOp, "_gdtr", ARRAYD_PACKED, "", "gdtr(a, b, x) of operands (a + b j, x).") \
  X(kGdtrcPacked, GdtrcOp, "_gdtrc", ARRAYD_PACKED, "", "gdtrc(a, b, x) of operands (a + b j, x).") \
  X(kWrightBesselPacked, WrightBesselOp, "_wright_bessel", ARRAYD_PACKED, "", "wright_bessel(a, b, x) of operands (a + b j, x).") \
  X(kSphHarmYPacked, SphHarmYOp, "_sph_harm_y", "DD->D ", "", "sph_harm_y(n, m, theta, phi) of operands (n + m j, theta + phi j).") \
  X(kLambertw, LambertwOp, "_lambertw", "DD->D ", "", "Branch k of the Lambert W function of z, of operands (z, k).")

// Every ufunc: NumPy's rows first, then SciPy's.
#define ARRAYD_UNARY_OPS(X) ARRAYD_NUMPY_UNARY_OPS(X) ARRAYD_SPECIAL_UNARY_OPS(X)
#define ARRAYD_BINARY_OPS(X) ARRAYD_NUMPY_BINARY_OPS(X) ARRAYD_SPECIAL_BINARY_OPS(X)

namespace arrayd {
namespace kernels {

#define ARRAYD_ENUM_ROW(e, f, n, loops, id, doc) e,
enum class UnaryOp { ARRAYD_UNARY_OPS(ARRAYD_ENUM_ROW) kNumUnaryOps };
enum class BinaryOp { ARRAYD_BINARY_OPS(ARRAYD_ENUM_ROW) kNumBinaryOps };
#undef ARRAYD_ENUM_ROW

// Reductions along axes: the accumulator is the output dtype.
enum class ReduceOp { kSum, kProd, kMin, kMax, kAll, kAny };
enum class ArgReduceOp { kArgMin, kArgMax };

}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_KERNELS_OP_LIST_H_
