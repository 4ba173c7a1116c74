// The elementwise functors: each NumPy ufunc once, for every backend.
//
// A functor is a struct with `operator()` templated on the element type; the
// op registry (ops/elementwise.cc) decides which dtypes reach it, so a
// functor only needs overloads where types behave differently (bool, ints,
// floats, complex). The CPU backend instantiates these templates; the CUDA
// backend pastes this header into NVRTC sources. No standard library here.
//
// To add a ufunc: a functor below, a row in ARRAYD_UNARY_OPS/ARRAYD_BINARY_OPS
// (kernels/op_list.h) and a row in the registry table of ops/elementwise.cc.
#ifndef ARRAYD_KERNELS_FUNCTORS_H_
#define ARRAYD_KERNELS_FUNCTORS_H_

#include "kernels/types.h"

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
ARRAYD_HD float Pow(float a, float b) { return powf(a, b); }
ARRAYD_HD double Pow(double a, double b) { return pow(a, b); }
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

struct FloorOp {
  template <typename T> ARRAYD_HD T operator()(T a) const { return Floor(a); }
  ARRAYD_HD Half operator()(Half a) const { return Half(Floor(static_cast<float>(a))); }
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
struct TrueDivideOp {  // registered for inexact types only
  template <typename T> ARRAYD_HD T operator()(T a, T b) const { return static_cast<T>(a / b); }
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

}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_KERNELS_FUNCTORS_H_
