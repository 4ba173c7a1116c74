// The elementwise functors: each NumPy ufunc once, for every backend.
//
// A functor is a struct with `operator()` templated on the element type; the
// loop table of its row (kernels/op_list.h) decides which dtypes reach it, so a
// functor only needs overloads where types behave differently (bool, ints,
// floats, complex). The CPU backend instantiates these templates; the CUDA
// backend pastes this header into NVRTC sources. No standard library here.
//
// To add a ufunc: a functor below and its row in kernels/op_list.h (name,
// loop table, identity, doc); the registry, both backends, Capabilities and
// both clients follow from the row.
#ifndef ARRAYD_KERNELS_FUNCTORS_H_
#define ARRAYD_KERNELS_FUNCTORS_H_

#include "kernels/special.h"
#include "kernels/types.h"

#if !defined(__CUDACC_RTC__)
#include <math.h>  // host compilers; NVRTC has the math functions built in
#endif

namespace arrayd {
namespace kernels {

// ---- minimal type traits -------------------------------------------------
template <typename T> struct IsSigned { static const bool value = false; };
template <> struct IsSigned<i8> { static const bool value = true; };
template <> struct IsSigned<i16> { static const bool value = true; };
template <> struct IsSigned<i32> { static const bool value = true; };
template <> struct IsSigned<i64> { static const bool value = true; };
template <typename T> struct IntMin { static const T value = 0; };
template <> struct IntMin<i8> { static const i8 value = -128; };
template <> struct IntMin<i16> { static const i16 value = -32768; };
template <> struct IntMin<i32> { static const i32 value = (-2147483647 - 1); };
template <> struct IntMin<i64> { static const i64 value = (-9223372036854775807LL - 1); };

// ---- math wrappers: one name for float and double ------------------------
ARRAYD_HD float Floor(float x) { return floorf(x); }
ARRAYD_HD double Floor(double x) { return floor(x); }
ARRAYD_HD float Fmod(float a, float b) { return fmodf(a, b); }
ARRAYD_HD double Fmod(double a, double b) { return fmod(a, b); }
// A square is a product, exactly rounded (CUDA's pow may miss by an ulp;
// the host's is exact for it too, and NumPy squares x ** 2).
ARRAYD_HD float Pow(float a, float b) { return b == 2 ? a * a : powf(a, b); }
ARRAYD_HD double Pow(double a, double b) { return b == 2 ? a * a : pow(a, b); }
ARRAYD_HD float Exp(float x) { return expf(x); }
ARRAYD_HD double Exp(double x) { return exp(x); }
ARRAYD_HD float Log(float x) { return logf(x); }
ARRAYD_HD double Log(double x) { return log(x); }
ARRAYD_HD float Hypot(float a, float b) { return hypotf(a, b); }
ARRAYD_HD double Hypot(double a, double b) { return hypot(a, b); }
ARRAYD_HD float Atan2(float a, float b) { return atan2f(a, b); }
ARRAYD_HD double Atan2(double a, double b) { return atan2(a, b); }
ARRAYD_HD float Sin(float x) { return sinf(x); }
ARRAYD_HD double Sin(double x) { return sin(x); }
ARRAYD_HD float Cos(float x) { return cosf(x); }
ARRAYD_HD double Cos(double x) { return cos(x); }
ARRAYD_HD float CopySign(float a, float b) { return copysignf(a, b); }
ARRAYD_HD double CopySign(double a, double b) { return copysign(a, b); }
template <typename T> ARRAYD_HD bool IsNan(T x) { return x != x; }
ARRAYD_HD bool IsNan(Half x) { return IsNan(static_cast<float>(x)); }
template <typename T> ARRAYD_HD bool IsNan(Complex<T> x) { return IsNan(x.re) || IsNan(x.im); }

template <typename T>
ARRAYD_HD Complex<T> CExp(Complex<T> z) {
  T e = Exp(z.re);
  if (z.im == 0) return Complex<T>(e, z.im);
  return Complex<T>(e * Cos(z.im), e * Sin(z.im));
}
template <typename T>
ARRAYD_HD Complex<T> CLog(Complex<T> z) {
  return Complex<T>(Log(Hypot(z.re, z.im)), Atan2(z.im, z.re));
}

// ---- floor division and remainder with Python's signs (NumPy's npy_divmod)
template <typename T>
ARRAYD_HD T FloorDivInt(T a, T b) {
  if (b == 0) return 0;
  if (IsSigned<T>::value) {
    if (b == T(-1)) return a == IntMin<T>::value ? a : T(-a);
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
  return a / b;
}
template <typename T>
ARRAYD_HD T RemainderInt(T a, T b) {
  if (b == 0) return 0;
  if (IsSigned<T>::value) {
    if (b == T(-1)) return 0;
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
  return a % b;
}
template <typename F>
ARRAYD_HD F RemainderFloat(F a, F b) {
  if (b == 0) return Fmod(a, b);  // nan
  F mod = Fmod(a, b);
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = CopySign(F(0), b);
  }
  return mod;
}
template <typename F>
ARRAYD_HD F FloorDivFloat(F a, F b) {
  if (b == 0) return a / b;
  F mod = Fmod(a, b);
  F div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= F(1);
  F floordiv;
  if (div != 0) {
    floordiv = Floor(div);
    if (div - floordiv > F(0.5)) floordiv += F(1);
  } else {
    floordiv = CopySign(F(0), a / b);
  }
  return floordiv;
}

template <typename T>
ARRAYD_HD T PowInt(T base, T exp) {
  // Negative exponents are refused by NumPy; here they give 0 except for |base| == 1.
  if (exp < 0) {
    if (base == 1) return 1;
    if (IsSigned<T>::value && base == T(-1)) return (exp & 1) ? T(-1) : T(1);
    return 0;
  }
  T result = 1;
  while (exp != 0) {
    if (exp & 1) result = static_cast<T>(result * base);
    exp = static_cast<T>(exp >> 1);
    base = static_cast<T>(base * base);
  }
  return result;
}

// ---- unary functors -------------------------------------------------------
struct NegativeOp {
  template <typename T> ARRAYD_HD T operator()(T a) const { return static_cast<T>(T(0) - a); }
  ARRAYD_HD Half operator()(Half a) const { return Half(-static_cast<float>(a)); }
  template <typename T> ARRAYD_HD Complex<T> operator()(Complex<T> a) const { return -a; }
};
struct PositiveOp {
  template <typename T> ARRAYD_HD T operator()(T a) const { return a; }
};
struct AbsoluteOp {  // complex -> real, registered with a real output
  template <typename T> ARRAYD_HD T operator()(T a) const {
    return IsSigned<T>::value && a < T(0) ? static_cast<T>(T(0) - a) : a;
  }
  ARRAYD_HD float operator()(float a) const { return fabsf(a); }
  ARRAYD_HD double operator()(double a) const { return fabs(a); }
  ARRAYD_HD Half operator()(Half a) const { Half r; r.bits = a.bits & 0x7fff; return r; }
  ARRAYD_HD bool operator()(bool a) const { return a; }
  template <typename T> ARRAYD_HD T operator()(Complex<T> a) const { return Hypot(a.re, a.im); }
};
struct LogicalNotOp {
  template <typename T> ARRAYD_HD bool operator()(T a) const { return !Cast<bool>(a); }
};
struct InvertOp {
  template <typename T> ARRAYD_HD T operator()(T a) const { return static_cast<T>(~a); }
  ARRAYD_HD bool operator()(bool a) const { return !a; }
};

// ---- binary functors ------------------------------------------------------
struct AddOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const { return static_cast<T>(a + b); }
  ARRAYD_HD bool operator()(bool a, bool b) const { return a || b; }
};
struct SubtractOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const { return static_cast<T>(a - b); }
};
struct MultiplyOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const { return static_cast<T>(a * b); }
  ARRAYD_HD bool operator()(bool a, bool b) const { return a && b; }
};
struct TrueDivideOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const { return static_cast<T>(a / b); }
  // The integer loops (bb->d ... LL->d): float64 division, as NumPy.
#define ARRAYD_INT_TRUE_DIVIDE(T) \
  ARRAYD_HD double operator()(T a, T b) const { return static_cast<double>(a) / static_cast<double>(b); }
  ARRAYD_INT_TRUE_DIVIDE(i8) ARRAYD_INT_TRUE_DIVIDE(i16) ARRAYD_INT_TRUE_DIVIDE(i32)
  ARRAYD_INT_TRUE_DIVIDE(i64) ARRAYD_INT_TRUE_DIVIDE(u8) ARRAYD_INT_TRUE_DIVIDE(u16)
  ARRAYD_INT_TRUE_DIVIDE(u32) ARRAYD_INT_TRUE_DIVIDE(u64)
#undef ARRAYD_INT_TRUE_DIVIDE
};
struct FloorDivideOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const { return FloorDivInt(a, b); }
  ARRAYD_HD float operator()(float a, float b) const { return FloorDivFloat(a, b); }
  ARRAYD_HD double operator()(double a, double b) const { return FloorDivFloat(a, b); }
  ARRAYD_HD Half operator()(Half a, Half b) const {
    return Half(FloorDivFloat(static_cast<float>(a), static_cast<float>(b)));
  }
};
struct RemainderOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const { return RemainderInt(a, b); }
  ARRAYD_HD float operator()(float a, float b) const { return RemainderFloat(a, b); }
  ARRAYD_HD double operator()(double a, double b) const { return RemainderFloat(a, b); }
  ARRAYD_HD Half operator()(Half a, Half b) const {
    return Half(RemainderFloat(static_cast<float>(a), static_cast<float>(b)));
  }
};
struct PowerOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const { return PowInt(a, b); }
  ARRAYD_HD float operator()(float a, float b) const { return Pow(a, b); }
  ARRAYD_HD double operator()(double a, double b) const { return Pow(a, b); }
  ARRAYD_HD Half operator()(Half a, Half b) const {
    return Half(Pow(static_cast<float>(a), static_cast<float>(b)));
  }
  template <typename T>
  ARRAYD_HD Complex<T> operator()(Complex<T> a, Complex<T> b) const {
    if (b.re == 0 && b.im == 0) return Complex<T>(1, 0);
    if (a.re == 0 && a.im == 0) {
      if (b.re > 0) return Complex<T>(0, 0);
      T nan = T(0) / T(0);
      return Complex<T>(nan, nan);
    }
    if (b.im == 0 && b.re == Floor(b.re) && b.re >= -100 && b.re <= 100) {
      // Small integer powers by repeated multiplication, as NumPy does.
      long long n = static_cast<long long>(b.re);
      bool invert = n < 0;
      if (invert) n = -n;
      Complex<T> result(1, 0), x = a;
      while (n) {
        if (n & 1) result = result * x;
        x = x * x;
        n >>= 1;
      }
      return invert ? Complex<T>(1, 0) / result : result;
    }
    return CExp(b * CLog(a));
  }
};
struct EqualOp {
  template <typename T> ARRAYD_HD bool operator()(T a, T b) const { return a == b; }
  ARRAYD_HD bool operator()(Half a, Half b) const { return static_cast<float>(a) == static_cast<float>(b); }
};
struct NotEqualOp {
  template <typename T> ARRAYD_HD bool operator()(T a, T b) const { return a != b; }
  ARRAYD_HD bool operator()(Half a, Half b) const { return static_cast<float>(a) != static_cast<float>(b); }
};
struct LessOp {
  template <typename T> ARRAYD_HD bool operator()(T a, T b) const { return a < b; }
  ARRAYD_HD bool operator()(Half a, Half b) const { return static_cast<float>(a) < static_cast<float>(b); }
};
// NumPy's sort order: NaNs (complex numbers with a NaN part) after
// everything else, equal among themselves.
template <typename T>
ARRAYD_HD bool SortLess(T a, T b) {
  const bool na = IsNan(a), nb = IsNan(b);
  if (na || nb) return !na && nb;
  return LessOp()(a, b);
}
// numpy.searchsorted: where v goes in a[0..n) (sorted in that order,
// elements `stride` bytes apart): before the first element not less than v
// (left), or after the last not greater (right).
template <typename T>
ARRAYD_HD long long SearchSorted(const char* a, long long n, long long stride, bool right, T v) {
  long long lo = 0, hi = n;
  while (lo < hi) {
    const long long mid = lo + ((hi - lo) >> 1);
    const T m = *reinterpret_cast<const T*>(a + mid * stride);
    if (right ? !SortLess(v, m) : SortLess(m, v)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
// numpy.histogram's bin of v by `n` sorted edges (bin i is [e[i], e[i+1]),
// the last one closed): -1 for v outside them or NaN.
template <typename T>
ARRAYD_HD long long HistogramBin(const char* edges, long long n, long long stride, T v) {
  long long b = SearchSorted(edges, n, stride, true, v) - 1;
  if (b == n - 1 && !SortLess(*reinterpret_cast<const T*>(edges + (n - 1) * stride), v)) --b;
  return b >= 0 && b < n - 1 ? b : -1;
}
// The same bin, found from a guess: `scale` is (n - 1) / (last - first
// edge) (HistogramScale), exact for evenly spaced edges as NumPy's own
// fast path; the guess and its two neighbours are checked against the
// edges, and a binary search decides when none holds (uneven edges, v
// outside them, NaN). So the result is HistogramBin's for any edges.
template <typename T>
ARRAYD_HD long long HistogramBinGuessed(const char* edges, long long n, long long stride,
                                        double scale, T v) {
  const double first = Cast<double>(*reinterpret_cast<const T*>(edges));
  const double g = (Cast<double>(v) - first) * scale;
  if (g >= 0 && g < static_cast<double>(n)) {
    const long long guess = static_cast<long long>(g);
    for (long long b = guess > 0 ? guess - 1 : 0; b <= guess + 1 && b < n - 1; ++b) {
      const T lo = *reinterpret_cast<const T*>(edges + b * stride);
      const T hi = *reinterpret_cast<const T*>(edges + (b + 1) * stride);
      if (SortLess(v, lo)) break;  // below every later bin too
      if (SortLess(v, hi) || (b == n - 2 && !SortLess(hi, v))) return b;
    }
  }
  return HistogramBin<T>(edges, n, stride, v);
}
// HistogramBinGuessed's scale for `n` sorted edges (0: no guess).
template <typename T>
ARRAYD_HD double HistogramScale(const char* edges, long long n, long long stride) {
  if (n < 2) return 0;
  const double span = Cast<double>(*reinterpret_cast<const T*>(edges + (n - 1) * stride)) -
                      Cast<double>(*reinterpret_cast<const T*>(edges));
  return span > 0 ? static_cast<double>(n - 1) / span : 0;
}
struct LessEqualOp {
  template <typename T> ARRAYD_HD bool operator()(T a, T b) const { return a <= b; }
  ARRAYD_HD bool operator()(Half a, Half b) const { return static_cast<float>(a) <= static_cast<float>(b); }
};
struct GreaterOp {
  template <typename T> ARRAYD_HD bool operator()(T a, T b) const { return a > b; }
  ARRAYD_HD bool operator()(Half a, Half b) const { return static_cast<float>(a) > static_cast<float>(b); }
};
struct GreaterEqualOp {
  template <typename T> ARRAYD_HD bool operator()(T a, T b) const { return a >= b; }
  ARRAYD_HD bool operator()(Half a, Half b) const { return static_cast<float>(a) >= static_cast<float>(b); }
};
struct LogicalAndOp {
  template <typename T> ARRAYD_HD bool operator()(T a, T b) const { return Cast<bool>(a) && Cast<bool>(b); }
};
struct LogicalOrOp {
  template <typename T> ARRAYD_HD bool operator()(T a, T b) const { return Cast<bool>(a) || Cast<bool>(b); }
};
struct LogicalXorOp {
  template <typename T> ARRAYD_HD bool operator()(T a, T b) const { return Cast<bool>(a) != Cast<bool>(b); }
};
struct BitwiseAndOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const { return static_cast<T>(a & b); }
};
struct BitwiseOrOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const { return static_cast<T>(a | b); }
};
struct BitwiseXorOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const { return static_cast<T>(a ^ b); }
};
// Shifts by the width or more give 0 (or -1 for negative signed), as NumPy.
struct LeftShiftOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const {
    if (b < T(0) || static_cast<u64>(b) >= sizeof(T) * 8) return 0;
    return static_cast<T>(a << b);
  }
};
struct RightShiftOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const {
    if (b < T(0) || static_cast<u64>(b) >= sizeof(T) * 8) return a < T(0) ? T(-1) : T(0);
    return static_cast<T>(a >> b);
  }
};
// maximum/minimum propagate NaNs, as NumPy's do.
struct MaximumOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return a >= b ? a : b;
  }
  ARRAYD_HD Half operator()(Half a, Half b) const {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return static_cast<float>(a) >= static_cast<float>(b) ? a : b;
  }
  ARRAYD_HD bool operator()(bool a, bool b) const { return a || b; }
};
struct MinimumOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return a <= b ? a : b;
  }
  ARRAYD_HD Half operator()(Half a, Half b) const {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return static_cast<float>(a) <= static_cast<float>(b) ? a : b;
  }
  ARRAYD_HD bool operator()(bool a, bool b) const { return a && b; }
};

// Helpers of the binary math ufuncs, as NumPy's npymath defines them.
#define ARRAYD_DEGREES_F(x) ((x) * 57.29577951308232f)
#define ARRAYD_DEGREES_D(x) ((x) * 57.29577951308232)
#define ARRAYD_RADIANS_F(x) ((x) * 0.017453292519943295f)
#define ARRAYD_RADIANS_D(x) ((x) * 0.017453292519943295)
template <typename F> ARRAYD_HD F LogAddExp(F x, F y) {
  if (x == y) return x + F(0.6931471805599453);  // also handles infinities
  F d = x - y;
  if (d > 0) return x + log1p(exp(-d));
  if (d <= 0) return y + log1p(exp(d));
  return d;  // nan
}
template <typename F> ARRAYD_HD F LogAddExp2(F x, F y) {
  if (x == y) return x + F(1);
  F d = x - y;
  if (d > 0) return x + log1p(exp2(-d)) * F(1.4426950408889634);
  if (d <= 0) return y + log1p(exp2(d)) * F(1.4426950408889634);
  return d;
}
template <typename F> ARRAYD_HD F Heaviside(F x, F h0) {
  if (IsNan(x)) return x;
  if (x == 0) return h0;
  return x < 0 ? F(0) : F(1);
}

// ---- NumPy's math ufuncs ---------------------------------------------------
// Real functions take float/double (Half computes in float); complex
// overloads follow the textbook formulas NumPy's npymath uses.
template <typename T> ARRAYD_HD Complex<T> CSqrt(Complex<T> z) {
  if (z.re == 0 && z.im == 0) return Complex<T>(0, z.im);
  T t = sqrt((fabs(z.re) + Hypot(z.re, z.im)) * T(0.5));
  if (z.re >= 0) return Complex<T>(t, z.im / (2 * t));
  return Complex<T>(fabs(z.im) / (2 * t), CopySign(t, z.im));
}
template <typename T> ARRAYD_HD Complex<T> CMulI(Complex<T> z) { return Complex<T>(-z.im, z.re); }
template <typename T> ARRAYD_HD Complex<T> CSin(Complex<T> z) {
  return Complex<T>(sin(z.re) * cosh(z.im), cos(z.re) * sinh(z.im));
}
template <typename T> ARRAYD_HD Complex<T> CCos(Complex<T> z) {
  return Complex<T>(cos(z.re) * cosh(z.im), -sin(z.re) * sinh(z.im));
}
template <typename T> ARRAYD_HD Complex<T> CSinh(Complex<T> z) {
  return Complex<T>(sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im));
}
template <typename T> ARRAYD_HD Complex<T> CCosh(Complex<T> z) {
  return Complex<T>(cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im));
}
template <typename T> ARRAYD_HD Complex<T> CTanh(Complex<T> z) {
  // (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), stable for large |x|.
  if (fabs(z.re) > T(20)) return Complex<T>(CopySign(T(1), z.re), T(0) * sin(2 * z.im));
  T d = cosh(2 * z.re) + cos(2 * z.im);
  return Complex<T>(sinh(2 * z.re) / d, sin(2 * z.im) / d);
}
template <typename T> ARRAYD_HD Complex<T> CTan(Complex<T> z) {
  // tan z = -i tanh(iz)
  Complex<T> t = CTanh(CMulI(z));
  return Complex<T>(t.im, -t.re);
}
// z + r and r - z for a real r, keeping the sign of a zero imaginary part
// (which picks the side of a branch cut, as C99 and NumPy do).
template <typename T> ARRAYD_HD Complex<T> AddReal(Complex<T> z, T r) {
  return Complex<T>(z.re + r, z.im);
}
template <typename T> ARRAYD_HD Complex<T> RealSub(T r, Complex<T> z) {
  return Complex<T>(r - z.re, -z.im);
}
template <typename T> ARRAYD_HD Complex<T> CAsinh(Complex<T> z) {
  return CLog(z + CSqrt(AddReal(z * z, T(1))));
}
template <typename T> ARRAYD_HD Complex<T> CAsin(Complex<T> z) {
  // asin z = -i asinh(iz)
  Complex<T> t = CAsinh(CMulI(z));
  return Complex<T>(t.im, -t.re);
}
template <typename T> ARRAYD_HD Complex<T> CAcos(Complex<T> z) {
  Complex<T> a = CAsin(z);
  return Complex<T>(T(1.5707963267948966) - a.re, -a.im);
}
template <typename T> ARRAYD_HD Complex<T> CAcosh(Complex<T> z) {
  return CLog(z + CSqrt(AddReal(z, T(1))) * CSqrt(AddReal(z, T(-1))));
}
template <typename T> ARRAYD_HD Complex<T> CAtanh(Complex<T> z) {
  Complex<T> r = CLog(AddReal(z, T(1))) - CLog(RealSub(T(1), z));
  return Complex<T>(r.re * T(0.5), r.im * T(0.5));
}
template <typename T> ARRAYD_HD Complex<T> CAtan(Complex<T> z) {
  // atan z = -i atanh(iz)
  Complex<T> t = CAtanh(CMulI(z));
  return Complex<T>(t.im, -t.re);
}
template <typename T> ARRAYD_HD Complex<T> CScale(Complex<T> z, T s) {
  return Complex<T>(z.re * s, z.im * s);
}

// A real unary ufunc `Name` from the C functions `ffn` (float) and `dfn`
// (double); `extra` adds overloads (complex, integers).
#define ARRAYD_REAL_UNARY(Name, ffn, dfn, extra)                                    \
  struct Name {                                                                      \
    ARRAYD_HD float operator()(float a) const { return ffn(a); }                     \
    ARRAYD_HD double operator()(double a) const { return dfn(a); }                   \
    ARRAYD_HD Half operator()(Half a) const { return Half(ffn(static_cast<float>(a))); } \
    extra                                                                            \
  };
#define ARRAYD_COMPLEX_VIA(cfn) \
  template <typename T> ARRAYD_HD Complex<T> operator()(Complex<T> z) const { return cfn(z); }

ARRAYD_REAL_UNARY(ExpOp, expf, exp, ARRAYD_COMPLEX_VIA(CExp))
ARRAYD_REAL_UNARY(Exp2Op, exp2f, exp2,
  template <typename T> ARRAYD_HD Complex<T> operator()(Complex<T> z) const {
    return CExp(CScale(z, T(0.6931471805599453)));
  })
ARRAYD_REAL_UNARY(Expm1Op, expm1f, expm1,
  template <typename T> ARRAYD_HD Complex<T> operator()(Complex<T> z) const {
    // exp(x)cos(y) - 1 + i exp(x) sin(y), with expm1 for the real part's accuracy
    T s = sin(z.im * T(0.5));
    return Complex<T>(expm1(z.re) * cos(z.im) - 2 * s * s, exp(z.re) * sin(z.im));
  })
ARRAYD_REAL_UNARY(LogOp, logf, log, ARRAYD_COMPLEX_VIA(CLog))
ARRAYD_REAL_UNARY(Log2Op, log2f, log2,
  template <typename T> ARRAYD_HD Complex<T> operator()(Complex<T> z) const {
    return CScale(CLog(z), T(1.4426950408889634));
  })
ARRAYD_REAL_UNARY(Log10Op, log10f, log10,
  template <typename T> ARRAYD_HD Complex<T> operator()(Complex<T> z) const {
    return CScale(CLog(z), T(0.4342944819032518));
  })
ARRAYD_REAL_UNARY(Log1pOp, log1pf, log1p,
  template <typename T> ARRAYD_HD Complex<T> operator()(Complex<T> z) const {
    return CLog(Complex<T>(z.re + T(1), z.im));
  })
ARRAYD_REAL_UNARY(SqrtOp, sqrtf, sqrt, ARRAYD_COMPLEX_VIA(CSqrt))
ARRAYD_REAL_UNARY(CbrtOp, cbrtf, cbrt, )
ARRAYD_REAL_UNARY(SinOp, sinf, sin, ARRAYD_COMPLEX_VIA(CSin))
ARRAYD_REAL_UNARY(CosOp, cosf, cos, ARRAYD_COMPLEX_VIA(CCos))
ARRAYD_REAL_UNARY(TanOp, tanf, tan, ARRAYD_COMPLEX_VIA(CTan))
ARRAYD_REAL_UNARY(ArcsinOp, asinf, asin, ARRAYD_COMPLEX_VIA(CAsin))
ARRAYD_REAL_UNARY(ArccosOp, acosf, acos, ARRAYD_COMPLEX_VIA(CAcos))
ARRAYD_REAL_UNARY(ArctanOp, atanf, atan, ARRAYD_COMPLEX_VIA(CAtan))
ARRAYD_REAL_UNARY(SinhOp, sinhf, sinh, ARRAYD_COMPLEX_VIA(CSinh))
ARRAYD_REAL_UNARY(CoshOp, coshf, cosh, ARRAYD_COMPLEX_VIA(CCosh))
ARRAYD_REAL_UNARY(TanhOp, tanhf, tanh, ARRAYD_COMPLEX_VIA(CTanh))
ARRAYD_REAL_UNARY(ArcsinhOp, asinhf, asinh, ARRAYD_COMPLEX_VIA(CAsinh))
ARRAYD_REAL_UNARY(ArccoshOp, acoshf, acosh, ARRAYD_COMPLEX_VIA(CAcosh))
ARRAYD_REAL_UNARY(ArctanhOp, atanhf, atanh, ARRAYD_COMPLEX_VIA(CAtanh))
ARRAYD_REAL_UNARY(FabsOp, fabsf, fabs, )
ARRAYD_REAL_UNARY(RintOp, rintf, rint,
  template <typename T> ARRAYD_HD Complex<T> operator()(Complex<T> z) const {
    return Complex<T>(rint(z.re), rint(z.im));
  })
// Integers and bools are their own floor/ceil/trunc (NumPy 2).
#define ARRAYD_INT_IDENTITY template <typename T> ARRAYD_HD T operator()(T a) const { return a; }
ARRAYD_REAL_UNARY(CeilOp, ceilf, ceil, ARRAYD_INT_IDENTITY)
ARRAYD_REAL_UNARY(TruncOp, truncf, trunc, ARRAYD_INT_IDENTITY)
ARRAYD_REAL_UNARY(FloorOp, floorf, floor, ARRAYD_INT_IDENTITY)
#undef ARRAYD_INT_IDENTITY
ARRAYD_REAL_UNARY(DegreesOp, ARRAYD_DEGREES_F, ARRAYD_DEGREES_D, )
ARRAYD_REAL_UNARY(RadiansOp, ARRAYD_RADIANS_F, ARRAYD_RADIANS_D, )

struct SquareOp {
  template <typename T> ARRAYD_HD T operator()(T a) const { return static_cast<T>(a * a); }
  ARRAYD_HD Half operator()(Half a) const { float f = a; return Half(f * f); }
};
struct ReciprocalOp {  // integer 1/x truncates; 1/0 gives 0 as NumPy's loops do
  template <typename T> ARRAYD_HD T operator()(T a) const { return a == T(0) ? T(0) : static_cast<T>(T(1) / a); }
  ARRAYD_HD float operator()(float a) const { return 1.0f / a; }
  ARRAYD_HD double operator()(double a) const { return 1.0 / a; }
  ARRAYD_HD Half operator()(Half a) const { return Half(1.0f / static_cast<float>(a)); }
  template <typename T> ARRAYD_HD Complex<T> operator()(Complex<T> z) const { return Complex<T>(1) / z; }
};
struct SignOp {
  template <typename T> ARRAYD_HD T operator()(T a) const { return static_cast<T>((T(0) < a) - (a < T(0))); }
  ARRAYD_HD float operator()(float a) const { return IsNan(a) ? a : static_cast<float>((0.f < a) - (a < 0.f)); }
  ARRAYD_HD double operator()(double a) const { return IsNan(a) ? a : static_cast<double>((0. < a) - (a < 0.)); }
  ARRAYD_HD Half operator()(Half a) const { return Half((*this)(static_cast<float>(a))); }
  template <typename T> ARRAYD_HD Complex<T> operator()(Complex<T> z) const {
    T r = Hypot(z.re, z.im);
    if (r == 0) return Complex<T>(0, 0);
    return Complex<T>(z.re / r, z.im / r);
  }
};
struct SignbitOp {
  ARRAYD_HD bool operator()(float a) const { return copysignf(1.0f, a) < 0; }
  ARRAYD_HD bool operator()(double a) const { return copysign(1.0, a) < 0; }
  ARRAYD_HD bool operator()(Half a) const { return (a.bits & 0x8000u) != 0; }
};
struct ConjugateOp {
  template <typename T> ARRAYD_HD T operator()(T a) const { return a; }
  template <typename T> ARRAYD_HD Complex<T> operator()(Complex<T> z) const { return Complex<T>(z.re, -z.im); }
};
struct IsNanOp {
  template <typename T> ARRAYD_HD bool operator()(T a) const { return IsNan(a); }
};
struct IsInfOp {
  template <typename T> ARRAYD_HD bool operator()(T a) const { return false; }
  ARRAYD_HD bool operator()(float a) const { return !IsNan(a) && IsNan(a - a); }
  ARRAYD_HD bool operator()(double a) const { return !IsNan(a) && IsNan(a - a); }
  ARRAYD_HD bool operator()(Half a) const { return (a.bits & 0x7fffu) == 0x7c00u; }
  template <typename T> ARRAYD_HD bool operator()(Complex<T> z) const { return (*this)(z.re) || (*this)(z.im); }
};
struct IsFiniteOp {
  template <typename T> ARRAYD_HD bool operator()(T a) const { return true; }
  ARRAYD_HD bool operator()(float a) const { return !IsNan(a - a); }
  ARRAYD_HD bool operator()(double a) const { return !IsNan(a - a); }
  ARRAYD_HD bool operator()(Half a) const { return (a.bits & 0x7c00u) != 0x7c00u; }
  template <typename T> ARRAYD_HD bool operator()(Complex<T> z) const { return (*this)(z.re) && (*this)(z.im); }
};

// A real binary ufunc from float/double C functions.
#define ARRAYD_REAL_BINARY(Name, ffn, dfn, extra)                                  \
  struct Name {                                                                     \
    ARRAYD_HD float operator()(float a, float b) const { return ffn(a, b); }        \
    ARRAYD_HD double operator()(double a, double b) const { return dfn(a, b); }     \
    ARRAYD_HD Half operator()(Half a, Half b) const {                               \
      return Half(ffn(static_cast<float>(a), static_cast<float>(b)));               \
    }                                                                               \
    extra                                                                           \
  };
ARRAYD_REAL_BINARY(Arctan2Op, atan2f, atan2, )
ARRAYD_REAL_BINARY(HypotOp, hypotf, hypot, )
ARRAYD_REAL_BINARY(CopysignOp, copysignf, copysign, )
ARRAYD_REAL_BINARY(FmodOp, fmodf, fmod,
  // x % -1 is 0 (and INT_MIN % -1 would trap): NumPy's 0 for both.
  template <typename T> ARRAYD_HD T operator()(T a, T b) const {
    return b == T(0) || (IsSigned<T>::value && b == static_cast<T>(-1)) ? T(0)
                                                                         : static_cast<T>(a % b);
  })
ARRAYD_REAL_BINARY(LogaddexpOp, LogAddExp, LogAddExp, )
ARRAYD_REAL_BINARY(Logaddexp2Op, LogAddExp2, LogAddExp2, )
ARRAYD_REAL_BINARY(HeavisideOp, Heaviside, Heaviside, )
struct NextafterOp {
  ARRAYD_HD float operator()(float a, float b) const { return nextafterf(a, b); }
  ARRAYD_HD double operator()(double a, double b) const { return nextafter(a, b); }
  // Steps one float16 ulp, on the bits (as npy_nextafterf16).
  ARRAYD_HD Half operator()(Half a, Half b) const {
    float fa = a, fb = b;
    Half r;
    if (IsNan(a) || IsNan(b)) { r.bits = 0x7e00u; return r; }
    if (fa == fb) return b;
    if ((a.bits & 0x7fffu) == 0) { r.bits = static_cast<u16>((b.bits & 0x8000u) | 1u); return r; }
    bool up = (fa < fb) == ((a.bits & 0x8000u) == 0);
    r.bits = static_cast<u16>(up ? a.bits + 1u : a.bits - 1u);
    return r;
  }
};
// spacing(x) = nextafter(x, x < 0 ? -inf : inf) - x: the gap to the next
// float away from zero (negative for negative x, positive for -0); NaN for
// inf and NaN. float16 steps toward +inf whatever the sign, as NumPy's
// npy_spacingf16 does.
struct SpacingOp {
  template <typename T> ARRAYD_HD T operator()(T x) const {
    if (IsNan(x - x)) return x - x;  // inf - inf, or NaN
    Half inf;
    inf.bits = 0x7c00u;
    const T away = static_cast<T>(static_cast<float>(inf));
    return NextafterOp()(x, x < 0 ? -away : away) - x;
  }
  ARRAYD_HD Half operator()(Half x) const {
    Half r;
    if ((x.bits & 0x7c00u) == 0x7c00u) {  // inf or NaN
      r.bits = 0x7e00u;
      return r;
    }
    Half up;
    up.bits = 0x7c00u;
    return Half(static_cast<float>(NextafterOp()(x, up)) - static_cast<float>(x));
  }
};
// fmax/fmin ignore NaNs (return the other operand).
struct FmaxOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const {
    if (IsNan(b)) return a;
    if (IsNan(a)) return b;
    return MaximumOp()(a, b);
  }
};
struct FminOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const {
    if (IsNan(b)) return a;
    if (IsNan(a)) return b;
    return MinimumOp()(a, b);
  }
};
struct GcdOp {
  // Euclid on the signed values (negating INT_MIN first would overflow and
  // end at -1, whose quotient traps in lcm), the magnitude at the end:
  // gcd(INT_MIN, INT_MIN) stays INT_MIN, as NumPy's.
  template <typename T> ARRAYD_HD T operator()(T a, T b) const {
    while (b != T(0)) {
      T t = IsSigned<T>::value && b == static_cast<T>(-1) ? T(0) : static_cast<T>(a % b);
      a = b;
      b = t;
    }
    if (IsSigned<T>::value && a < T(0)) a = static_cast<T>(T(0) - a);
    return a;
  }
};
struct LcmOp {
  template <typename T> ARRAYD_HD T operator()(T a, T b) const {
    T g = GcdOp()(a, b);
    if (g == T(0)) return 0;
    T r = static_cast<T>(a / g * b);
    return IsSigned<T>::value && r < T(0) ? static_cast<T>(T(0) - r) : r;
  }
};


// ---- counter-based random numbers (Philox4x32-10) -------------------------
// Stateless: block c of a stream is a function of (counter c, key) alone, so
// a seed gives the same numbers on every backend and any launch shape. One
// block gives PhiloxValues<T>::kCount values: four float32 or two float64
// (the 128 random bits split as cuRAND's Philox generator splits them).
struct Philox4x32 {
  u32 v[4];
  ARRAYD_HD Philox4x32(u64 counter, u64 key) {
    u32 c[4] = {static_cast<u32>(counter), static_cast<u32>(counter >> 32), 0x6a09e667u, 0xbb67ae85u};
    u32 k[2] = {static_cast<u32>(key), static_cast<u32>(key >> 32)};
    for (int round = 0; round < 10; ++round) {
      u64 p0 = static_cast<u64>(0xD2511F53u) * c[0];
      u64 p1 = static_cast<u64>(0xCD9E8D57u) * c[2];
      u32 n0 = static_cast<u32>(p1 >> 32) ^ c[1] ^ k[0];
      u32 n2 = static_cast<u32>(p0 >> 32) ^ c[3] ^ k[1];
      c[0] = n0;
      c[1] = static_cast<u32>(p1);
      c[2] = n2;
      c[3] = static_cast<u32>(p0);
      k[0] += 0x9E3779B9u;
      k[1] += 0xBB67AE85u;
    }
    for (int i = 0; i < 4; ++i) v[i] = c[i];
  }
  // A float in [0, 1) from the top 24 bits of word i.
  ARRAYD_HD float Uniform24(int i) const {
    return static_cast<float>(v[i] >> 8) * (1.0f / 16777216.0f);
  }
  // A double in [0, 1) from 53 random bits of words i, i+1.
  ARRAYD_HD double Uniform53(int i) const {
    u64 bits = (static_cast<u64>(v[i]) << 32 | v[i + 1]) >> 11;
    return static_cast<double>(bits) * (1.0 / 9007199254740992.0);
  }
};

template <typename T> struct PhiloxValues { static const int kCount = 16 / sizeof(T); };

// Uniform [0, 1): 24 random bits per float32, 53 per float64.
struct PhiloxUniform {
  ARRAYD_HD void operator()(u64 counter, u64 key, float* out) const {
    Philox4x32 r(counter, key);
    for (int i = 0; i < 4; ++i) out[i] = r.Uniform24(i);
  }
  ARRAYD_HD void operator()(u64 counter, u64 key, double* out) const {
    Philox4x32 r(counter, key);
    out[0] = r.Uniform53(0);
    out[1] = r.Uniform53(2);
  }
};

// (sin, cos) of 2 pi t - pi, t in [0, 1): an angle in [-pi, pi), where
// the GPU's fast __sincosf is accurate to about 2^-21 (as cuRAND's
// Box-Muller uses it); the host computes it in double.
ARRAYD_HD void SinCosTwoPi(float t, float* s, float* c) {
#if defined(__CUDACC_RTC__)
  __sincosf(6.2831853071795865f * t - 3.1415926535897932f, s, c);
#else
  // The GPU's float argument; glibc's sincosf (within an ulp, a third of
  // double sin and cos's time: float32 normal 16 -> 11 ns on this VM).
  sincosf(6.2831853071795865f * t - 3.1415926535897932f, s, c);
#endif
}
ARRAYD_HD void SinCosTwoPi(double t, double* s, double* c) {
#if defined(__CUDACC_RTC__)
  sincospi(2.0 * t - 1.0, s, c);
#else
  *s = sin(6.283185307179586 * t - 3.141592653589793);
  *c = cos(6.283185307179586 * t - 3.141592653589793);
#endif
}

// sqrt(-2 log u), u in (0, 1]. The GPU uses its hardware log2 and rsqrt
// (a float32 normal costs a third less: tests/bench/kernel_variants.cu):
// log2's absolute error, ~2^-22, is about two steps of u's 24-bit lattice,
// so near u = 1 (radius under ~0.01) GPU and host values differ by up to
// ~3e-4; elsewhere by a few 1e-7 relative.
ARRAYD_HD float BoxMullerRadius(float u) {
#if defined(__CUDACC_RTC__)
  const float l = fmaxf(0.0f, -1.3862943611198906f * __log2f(u));  // -2 ln u
  return l > 0.0f ? l * rsqrtf(l) : 0.0f;
#else
  return sqrtf(-2.0f * logf(u));
#endif
}

// Standard normal by Box-Muller: each pair of uniforms (u, t), u in (0, 1],
// gives the pair sqrt(-2 log u) * (cos a, sin a), a = 2 pi t - pi.
struct PhiloxNormal {
  ARRAYD_HD void operator()(u64 counter, u64 key, float* out) const {
    Philox4x32 r(counter, key);
    for (int p = 0; p < 4; p += 2) {
      const float radius = BoxMullerRadius(1.0f - r.Uniform24(p));
      float s, c;
      SinCosTwoPi(r.Uniform24(p + 1), &s, &c);
      out[p] = radius * c;
      out[p + 1] = radius * s;
    }
  }
  ARRAYD_HD void operator()(u64 counter, u64 key, double* out) const {
    Philox4x32 r(counter, key);
    const double radius = sqrt(-2.0 * log(1.0 - r.Uniform53(0)));
    double s, c;
    SinCosTwoPi(r.Uniform53(2), &s, &c);
    out[0] = radius * c;
    out[1] = radius * s;
  }
};


// ---- scipy.special (the rows of ARRAYD_SPECIAL_*_OPS) ------------------
// Each computes in double (kernels/special.h) and rounds once for float.
#define ARRAYD_SPECIAL1(Name, expr)                                       \
  struct Name {                                                           \
    ARRAYD_HD double operator()(double x) const {                         \
      using namespace special; /* NOLINT(build/namespaces) */             \
      return expr;                                                        \
    }                                                                     \
    ARRAYD_HD float operator()(float a) const {                           \
      return static_cast<float>((*this)(static_cast<double>(a)));         \
    }                                                                     \
  };
#define ARRAYD_SPECIAL2(Name, expr)                                            \
  struct Name {                                                                \
    ARRAYD_HD double operator()(double x1, double x2) const {                  \
      using namespace special; /* NOLINT(build/namespaces) */                  \
      return expr;                                                             \
    }                                                                          \
    ARRAYD_HD float operator()(float a, float b) const {                       \
      return static_cast<float>((*this)(static_cast<double>(a), static_cast<double>(b))); \
    }                                                                          \
  };
// A function with complex loops too: `cexpr` of c128 z (z1, z2), computed
// in complex double and rounded once for complex64.
#define ARRAYD_SPECIAL1C(Name, expr, cexpr)                              \
  struct Name {                                                           \
    ARRAYD_HD double operator()(double x) const {                         \
      using namespace special; /* NOLINT(build/namespaces) */             \
      return expr;                                                        \
    }                                                                     \
    ARRAYD_HD float operator()(float a) const {                           \
      return static_cast<float>((*this)(static_cast<double>(a)));         \
    }                                                                     \
    ARRAYD_HD c128 operator()(c128 z) const {                             \
      using namespace special; /* NOLINT(build/namespaces) */             \
      return cexpr;                                                       \
    }                                                                     \
    ARRAYD_HD c64 operator()(c64 a) const { return c64((*this)(c128(a))); } \
  };
#define ARRAYD_SPECIAL2C(Name, expr, cexpr)                                    \
  struct Name {                                                                \
    ARRAYD_HD double operator()(double x1, double x2) const {                  \
      using namespace special; /* NOLINT(build/namespaces) */                  \
      return expr;                                                             \
    }                                                                          \
    ARRAYD_HD float operator()(float a, float b) const {                       \
      return static_cast<float>((*this)(static_cast<double>(a), static_cast<double>(b))); \
    }                                                                          \
    ARRAYD_HD c128 operator()(c128 z1, c128 z2) const {                        \
      using namespace special; /* NOLINT(build/namespaces) */                  \
      return cexpr;                                                            \
    }                                                                          \
    ARRAYD_HD c64 operator()(c64 a, c64 b) const {                             \
      return c64((*this)(c128(a), c128(b)));                                   \
    }                                                                          \
  };
// The packed rows (ARRAYD_PACKED in op_list.h): parameters p1, p2 from the
// first operand's real and imaginary parts, p3, p4 from the second's.
#define ARRAYD_SPECIAL_PACKED(Name, expr)                                      \
  struct Name {                                                                \
    ARRAYD_HD double operator()(c128 u, c128 w) const {                        \
      using namespace special; /* NOLINT(build/namespaces) */                  \
      const double p1 = u.re, p2 = u.im, p3 = w.re;                            \
      return expr;                                                             \
    }                                                                          \
    ARRAYD_HD float operator()(c64 u, c64 w) const {                           \
      return static_cast<float>((*this)(c128(u), c128(w)));                    \
    }                                                                          \
  };
#define ARRAYD_SPECIAL_PACKED_C(Name, expr)                                    \
  struct Name {                                                                \
    ARRAYD_HD c128 operator()(c128 u, c128 w) const {                          \
      using namespace special; /* NOLINT(build/namespaces) */                  \
      return expr;                                                             \
    }                                                                          \
  };
ARRAYD_SPECIAL1(ErfOp, erf(x))
ARRAYD_SPECIAL1(ErfcOp, erfc(x))
ARRAYD_SPECIAL1(ErfcxOp, Erfcx(x))
ARRAYD_SPECIAL1(ErfinvOp, Erfinv(x))
ARRAYD_SPECIAL1(ErfcinvOp, Erfcinv(x))
ARRAYD_SPECIAL1(NdtrOp, Ndtr(x))
ARRAYD_SPECIAL1(LogNdtrOp, LogNdtr(x))
ARRAYD_SPECIAL1(NdtriOp, Ndtri(x))
ARRAYD_SPECIAL1C(GammaOp, Gamma(x), CxGamma(z))
// float32 on the GPU in single precision, as CuPy's gammaln (lgammaf: the
// double loop costs twice the time there); the host computes it in double.
struct GammaLnOp {
  ARRAYD_HD double operator()(double x) const { return special::GammaLn(x); }
  ARRAYD_HD float operator()(float x) const {
#if defined(__CUDACC_RTC__)
    return x == -special::Inf() ? x : lgammaf(x);
#else
    return static_cast<float>(special::GammaLn(x));
#endif
  }
};
ARRAYD_SPECIAL1C(LogGammaOp, LogGamma(x), CxLogGamma(z))
ARRAYD_SPECIAL1C(RGammaOp, RGamma(x), CxRGamma(z))
ARRAYD_SPECIAL1(GammaSgnOp, GammaSgn(x))
ARRAYD_SPECIAL1C(PsiOp, Digamma(x), CxDigamma(z))
ARRAYD_SPECIAL1(ZetacOp, Zetac(x))
ARRAYD_SPECIAL1(RiemannZetaOp, RiemannZeta(x))
ARRAYD_SPECIAL1(Exp1Op, Exp1(x))
ARRAYD_SPECIAL1(ExpiOp, ExpI(x))
ARRAYD_SPECIAL1(I0Op, BesselI(0, x, false))
ARRAYD_SPECIAL1(I0eOp, BesselI(0, x, true))
ARRAYD_SPECIAL1(I1Op, BesselI(1, x, false))
ARRAYD_SPECIAL1(I1eOp, BesselI(1, x, true))
ARRAYD_SPECIAL1(K0Op, BesselK(0, x, false))
ARRAYD_SPECIAL1(K0eOp, BesselK(0, x, true))
ARRAYD_SPECIAL1(K1Op, BesselK(1, x, false))
ARRAYD_SPECIAL1(K1eOp, BesselK(1, x, true))
ARRAYD_SPECIAL1(J0Op, BesselJ0(x))
ARRAYD_SPECIAL1(J1Op, BesselJ1(x))
ARRAYD_SPECIAL1(Y0Op, BesselY0(x))
ARRAYD_SPECIAL1(Y1Op, BesselY1(x))
ARRAYD_SPECIAL1(EllipKm1Op, EllipKm1(x))
ARRAYD_SPECIAL1(ExpitOp, Expit(x))
ARRAYD_SPECIAL1(LogExpitOp, LogExpit(x))
ARRAYD_SPECIAL1(LogitOp, Logit(x))
ARRAYD_SPECIAL1(EntrOp, Entr(x))
ARRAYD_SPECIAL1(ExprelOp, Exprel(x))
ARRAYD_SPECIAL1(Cosm1Op, Cosm1(x))
ARRAYD_SPECIAL1(Exp10Op, exp10(x))
ARRAYD_SPECIAL1(SinDgOp, SinDg(x))
ARRAYD_SPECIAL1(CosDgOp, CosDg(x))
ARRAYD_SPECIAL1(TanDgOp, TanDg(x))
ARRAYD_SPECIAL1(CotDgOp, CotDg(x))
ARRAYD_SPECIAL2C(XlogyOp, Xlogy(x1, x2), CxXlogy(z1, z2))
ARRAYD_SPECIAL2C(Xlog1pyOp, Xlog1py(x1, x2), CxXlog1py(z1, z2))
ARRAYD_SPECIAL2(RelEntrOp, RelEntr(x1, x2))
ARRAYD_SPECIAL2(KlDivOp, KlDiv(x1, x2))
ARRAYD_SPECIAL2(BetaOp, Beta(x1, x2))
ARRAYD_SPECIAL2(BetaLnOp, BetaLn(x1, x2))
ARRAYD_SPECIAL2(GammaincOp, IncompleteGamma(x1, x2, false))
ARRAYD_SPECIAL2(GammainccOp, IncompleteGamma(x1, x2, true))
ARRAYD_SPECIAL2(HurwitzZetaOp, HurwitzZeta(x1, x2))
ARRAYD_SPECIAL2(JnOp, BesselJn(x1, x2))
ARRAYD_SPECIAL2(YnOp, BesselYn(x1, x2))
ARRAYD_SPECIAL2(ExpnOp, ExpN(x1, x2))
ARRAYD_SPECIAL2(BoxCoxOp, BoxCox(x1, x2))
ARRAYD_SPECIAL2(BoxCox1pOp, BoxCox1p(x1, x2))
ARRAYD_SPECIAL2(InvBoxCoxOp, InvBoxCox(x1, x2))
ARRAYD_SPECIAL2(InvBoxCox1pOp, InvBoxCox1p(x1, x2))
ARRAYD_SPECIAL2(HuberOp, Huber(x1, x2))
ARRAYD_SPECIAL2(PseudoHuberOp, PseudoHuber(x1, x2))
ARRAYD_SPECIAL2(BinomOp, Binom(x1, x2))
ARRAYD_SPECIAL1C(SiOp, Si(x), CxSi(z))
ARRAYD_SPECIAL1C(CiOp, Ci(x), CxCi(z))
ARRAYD_SPECIAL1C(ShiOp, Shi(x), CxShi(z))
ARRAYD_SPECIAL1C(ChiOp, Chi(x), CxChi(z))
ARRAYD_SPECIAL2(GammaincinvOp, IncompleteGammaInv(x1, x2, false))
ARRAYD_SPECIAL2(GammainccinvOp, IncompleteGammaInv(x1, x2, true))
ARRAYD_SPECIAL2(ChdtrOp, Chdtr(x1, x2))
ARRAYD_SPECIAL2(ChdtrcOp, Chdtrc(x1, x2))
ARRAYD_SPECIAL2(ChdtriOp, Chdtri(x1, x2))
ARRAYD_SPECIAL2(PdtrOp, Pdtr(x1, x2))
ARRAYD_SPECIAL2(PdtrcOp, Pdtrc(x1, x2))
ARRAYD_SPECIAL2(PdtriOp, Pdtri(x1, x2))
ARRAYD_SPECIAL2(EllipkincOp, EllipIncomplete(x1, x2, false))
ARRAYD_SPECIAL2(EllipeincOp, EllipIncomplete(x1, x2, true))
ARRAYD_SPECIAL2(EllipjSnOp, Ellipj(x1, x2, 0))
ARRAYD_SPECIAL2(EllipjCnOp, Ellipj(x1, x2, 1))
ARRAYD_SPECIAL2(EllipjDnOp, Ellipj(x1, x2, 2))
ARRAYD_SPECIAL2(EllipjPhOp, Ellipj(x1, x2, 3))
ARRAYD_SPECIAL2(SphericalJnOp, SphericalJn(x1, x2))
ARRAYD_SPECIAL2(SphericalYnOp, SphericalYn(x1, x2))
ARRAYD_SPECIAL_PACKED(LpmvOp, Lpmv(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(BetaincOp, IncBeta(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(BetaincinvOp, IncBetaInv(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(FdtrOp, Fdtr(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(FdtrcOp, Fdtrc(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(FdtriOp, Fdtri(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(BdtrOp, Bdtr(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(BdtrcOp, Bdtrc(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(BdtriOp, Bdtri(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(NbdtrOp, Nbdtr(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(NbdtrcOp, Nbdtrc(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(NbdtriOp, Nbdtri(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(GdtrOp, Gdtr(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(GdtrcOp, Gdtrc(p1, p2, p3))
ARRAYD_SPECIAL_PACKED(WrightBesselOp, WrightBessel(p1, p2, p3))
ARRAYD_SPECIAL_PACKED_C(SphHarmYOp, SphHarmY(u.re, u.im, w.re, w.im))
ARRAYD_SPECIAL_PACKED_C(LambertwOp, LambertW(u, w.re))
#undef ARRAYD_SPECIAL1
#undef ARRAYD_SPECIAL2
#undef ARRAYD_SPECIAL1C
#undef ARRAYD_SPECIAL2C
#undef ARRAYD_SPECIAL_PACKED
#undef ARRAYD_SPECIAL_PACKED_C

// Fills out[0, n) from blocks counter, counter + 1, ... (the CPU loop; the
// CUDA backend runs one block per thread).
template <typename Dist, typename T>
ARRAYD_HD void PhiloxFillRange(Dist dist, u64 counter, u64 key, T* out, i64 n) {
  const int k = PhiloxValues<T>::kCount;
  const i64 full = n / k;
  for (i64 b = 0; b < full; ++b) dist(counter + static_cast<u64>(b), key, out + b * k);
  if (full * k < n) {  // a partial last block
    T block[PhiloxValues<T>::kCount];
    dist(counter + static_cast<u64>(full), key, block);
    for (i64 j = 0; full * k + j < n; ++j) out[full * k + j] = block[j];
  }
}

}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_KERNELS_FUNCTORS_H_
