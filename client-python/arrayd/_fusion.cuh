// NumPy's ufuncs as device functions, for the kernels that arrayd.fuse
// generates (client-python/arrayd/_fusion.py pastes this after the
// prelude, _userkernel.cuh). One function per ufunc, overloaded for the
// types of its loops: bool, the integers, float, double and complex<T>;
// float16 loops compute in float (the caller converts), as the server's do.
// The results follow NumPy's rules, as the server's kernels
// (server/kernels/functors.h) do: integer division by zero gives 0,
// floor_divide/remainder take Python's signs, maximum/minimum propagate
// NaN, complex numbers order lexicographically.
#ifndef ARRAYD_FUSION_CUH_
#define ARRAYD_FUSION_CUH_

namespace arrayd_fuse {

template <typename T> struct is_signed_int { static const bool value = false; };
template <> struct is_signed_int<signed char> { static const bool value = true; };
template <> struct is_signed_int<short> { static const bool value = true; };
template <> struct is_signed_int<int> { static const bool value = true; };
template <> struct is_signed_int<long long> { static const bool value = true; };
template <typename T> struct is_cplx { static const bool value = false; };
template <typename T> struct is_cplx<complex<T> > { static const bool value = true; };
template <typename T> struct is_flt { static const bool value = false; };
template <> struct is_flt<float> { static const bool value = true; };
template <> struct is_flt<double> { static const bool value = true; };
template <typename T> struct is_int {
  static const bool value = !is_flt<T>::value && !is_cplx<T>::value &&
                            !arrayd_traits::is_same<T, bool>::value;
};
#define ARRAYD_IF(cond, R) typename arrayd_traits::enable_if<(cond), R>::type

template <typename T> ARRAYD_DEVICE bool nonzero(const T& a) { return a != T(0); }
template <typename T> ARRAYD_DEVICE bool nonzero(const complex<T>& a) {
  return a.real() != T(0) || a.imag() != T(0);
}
template <typename T> ARRAYD_DEVICE bool nan_(const T&) { return false; }
ARRAYD_DEVICE bool nan_(const float& a) { return a != a; }
ARRAYD_DEVICE bool nan_(const double& a) { return a != a; }
template <typename T> ARRAYD_DEVICE bool nan_(const complex<T>& a) {
  return nan_(a.real()) || nan_(a.imag());
}

// ---- arithmetic ----------------------------------------------------------
template <typename T> ARRAYD_DEVICE T add(T a, T b) { return static_cast<T>(a + b); }
ARRAYD_DEVICE bool add(bool a, bool b) { return a || b; }
template <typename T> ARRAYD_DEVICE T subtract(T a, T b) { return static_cast<T>(a - b); }
template <typename T> ARRAYD_DEVICE T multiply(T a, T b) { return static_cast<T>(a * b); }
ARRAYD_DEVICE bool multiply(bool a, bool b) { return a && b; }
template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, double) true_divide(T a, T b) {
  return static_cast<double>(a) / static_cast<double>(b);
}
template <typename T> ARRAYD_DEVICE ARRAYD_IF(!is_int<T>::value, T) true_divide(T a, T b) {
  return a / b;
}
template <typename T> ARRAYD_DEVICE T negative(T a) { return static_cast<T>(T(0) - a); }
template <typename T> ARRAYD_DEVICE complex<T> negative(complex<T> a) { return -a; }
template <typename T> ARRAYD_DEVICE T positive(T a) { return a; }
template <typename T> ARRAYD_DEVICE T square(T a) { return static_cast<T>(a * a); }
template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, T) reciprocal(T a) {
  return a == T(0) ? T(0) : static_cast<T>(T(1) / a);
}
template <typename T> ARRAYD_DEVICE ARRAYD_IF(!is_int<T>::value, T) reciprocal(T a) {
  return T(1) / a;
}
template <typename T> ARRAYD_DEVICE T conjugate(T a) { return a; }
template <typename T> ARRAYD_DEVICE complex<T> conjugate(complex<T> a) { return conj(a); }

template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, T) absolute(T a) {
  return is_signed_int<T>::value && a < T(0) ? static_cast<T>(T(0) - a) : a;
}
ARRAYD_DEVICE bool absolute(bool a) { return a; }
ARRAYD_DEVICE float absolute(float a) { return fabsf(a); }
ARRAYD_DEVICE double absolute(double a) { return fabs(a); }
template <typename T> ARRAYD_DEVICE T absolute(complex<T> a) { return abs(a); }

template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, T) sign(T a) {
  return static_cast<T>((T(0) < a) - (a < T(0)));
}
template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_flt<T>::value, T) sign(T a) {
  return a != a ? a : static_cast<T>((T(0) < a) - (a < T(0)));
}
template <typename T> ARRAYD_DEVICE complex<T> sign(complex<T> z) {
  const T r = abs(z);
  if (r == T(0)) return complex<T>(T(0), T(0));
  return complex<T>(z.real() / r, z.imag() / r);
}

// Python's floor division and modulo (NumPy's npy_divmod).
template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, T) floor_divide(T a, T b) {
  if (b == T(0)) return T(0);
  if (is_signed_int<T>::value) {
    if (b == static_cast<T>(-1)) return static_cast<T>(T(0) - a);  // wraps at the minimum
    T q = static_cast<T>(a / b);
    if ((a % b != 0) && ((a < T(0)) != (b < T(0)))) q = static_cast<T>(q - 1);
    return q;
  }
  return static_cast<T>(a / b);
}
template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_flt<T>::value, T) floor_divide(T a, T b) {
  if (b == T(0)) return a / b;
  const T mod = fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
  if (div == T(0)) return copysign(T(0), a / b);
  T fl = floor(div);
  if (div - fl > T(0.5)) fl += T(1);
  return fl;
}
template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, T) remainder(T a, T b) {
  if (b == T(0)) return T(0);
  if (is_signed_int<T>::value) {
    if (b == static_cast<T>(-1)) return T(0);
    T r = static_cast<T>(a % b);
    if (r != T(0) && ((r < T(0)) != (b < T(0)))) r = static_cast<T>(r + b);
    return r;
  }
  return static_cast<T>(a % b);
}
template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_flt<T>::value, T) remainder(T a, T b) {
  if (b == T(0)) return fmod(a, b);
  T mod = fmod(a, b);
  if (mod != T(0)) {
    if ((b < T(0)) != (mod < T(0))) mod += b;
  } else {
    mod = copysign(T(0), b);
  }
  return mod;
}
template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, T) fmod(T a, T b) {
  if (b == T(0) || (is_signed_int<T>::value && b == static_cast<T>(-1))) return T(0);
  return static_cast<T>(a % b);
}
ARRAYD_DEVICE float fmod(float a, float b) { return fmodf(a, b); }
ARRAYD_DEVICE double fmod(double a, double b) { return ::fmod(a, b); }

template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, T) power(T base, T e) {
  if (e < T(0)) {
    if (base == T(1)) return T(1);
    if (is_signed_int<T>::value && base == static_cast<T>(-1)) {
      return (e & T(1)) ? static_cast<T>(-1) : T(1);
    }
    return T(0);
  }
  T r = T(1);
  while (e != T(0)) {
    if (e & T(1)) r = static_cast<T>(r * base);
    e = static_cast<T>(e >> 1);
    base = static_cast<T>(base * base);
  }
  return r;
}
ARRAYD_DEVICE float power(float a, float b) { return powf(a, b); }
ARRAYD_DEVICE double power(double a, double b) { return ::pow(a, b); }
template <typename T> ARRAYD_DEVICE complex<T> power(complex<T> a, complex<T> b) {
  // Small integer powers by multiplication, as NumPy does.
  if (b.imag() == T(0) && b.real() == floor(b.real()) && fabs(b.real()) <= T(100) &&
      !(a.real() == T(0) && a.imag() == T(0))) {
    long long n = static_cast<long long>(b.real());
    const bool invert = n < 0;
    if (invert) n = -n;
    complex<T> r(T(1), T(0)), x = a;
    while (n) {
      if (n & 1) r = r * x;
      x = x * x;
      n >>= 1;
    }
    return invert ? complex<T>(T(1), T(0)) / r : r;
  }
  return pow(a, b);
}

// ---- comparisons and logic -----------------------------------------------
// Complex order: lexicographic, a NaN imaginary part fails the real test.
template <typename T> ARRAYD_DEVICE bool lt_(const T& a, const T& b) { return a < b; }
template <typename T> ARRAYD_DEVICE bool lt_(const complex<T>& a, const complex<T>& b) {
  return (a.real() < b.real() && a.imag() == a.imag() && b.imag() == b.imag()) ||
         (a.real() == b.real() && a.imag() < b.imag());
}
template <typename T> ARRAYD_DEVICE bool le_(const T& a, const T& b) { return a <= b; }
template <typename T> ARRAYD_DEVICE bool le_(const complex<T>& a, const complex<T>& b) {
  return (a.real() < b.real() && a.imag() == a.imag() && b.imag() == b.imag()) ||
         (a.real() == b.real() && a.imag() <= b.imag());
}
template <typename T> ARRAYD_DEVICE bool equal(T a, T b) { return a == b; }
template <typename T> ARRAYD_DEVICE bool not_equal(T a, T b) { return a != b; }
template <typename T> ARRAYD_DEVICE bool less(T a, T b) { return lt_(a, b); }
template <typename T> ARRAYD_DEVICE bool less_equal(T a, T b) { return le_(a, b); }
template <typename T> ARRAYD_DEVICE bool greater(T a, T b) { return lt_(b, a); }
template <typename T> ARRAYD_DEVICE bool greater_equal(T a, T b) { return le_(b, a); }
template <typename T> ARRAYD_DEVICE bool logical_and(T a, T b) { return nonzero(a) && nonzero(b); }
template <typename T> ARRAYD_DEVICE bool logical_or(T a, T b) { return nonzero(a) || nonzero(b); }
template <typename T> ARRAYD_DEVICE bool logical_xor(T a, T b) { return nonzero(a) != nonzero(b); }
template <typename T> ARRAYD_DEVICE bool logical_not(T a) { return !nonzero(a); }

template <typename T> ARRAYD_DEVICE T maximum(T a, T b) {
  if (nan_(a)) return a;
  if (nan_(b)) return b;
  return le_(b, a) ? a : b;
}
ARRAYD_DEVICE bool maximum(bool a, bool b) { return a || b; }
template <typename T> ARRAYD_DEVICE T minimum(T a, T b) {
  if (nan_(a)) return a;
  if (nan_(b)) return b;
  return le_(a, b) ? a : b;
}
ARRAYD_DEVICE bool minimum(bool a, bool b) { return a && b; }
template <typename T> ARRAYD_DEVICE T fmax(T a, T b) {
  if (nan_(b)) return a;
  if (nan_(a)) return b;
  return maximum(a, b);
}
template <typename T> ARRAYD_DEVICE T fmin(T a, T b) {
  if (nan_(b)) return a;
  if (nan_(a)) return b;
  return minimum(a, b);
}

template <typename T> ARRAYD_DEVICE T bitwise_and(T a, T b) { return static_cast<T>(a & b); }
template <typename T> ARRAYD_DEVICE T bitwise_or(T a, T b) { return static_cast<T>(a | b); }
template <typename T> ARRAYD_DEVICE T bitwise_xor(T a, T b) { return static_cast<T>(a ^ b); }
template <typename T> ARRAYD_DEVICE T invert(T a) { return static_cast<T>(~a); }
ARRAYD_DEVICE bool invert(bool a) { return !a; }
// Shifts by the width or more give 0 (or -1 for negative signed), as NumPy.
template <typename T> ARRAYD_DEVICE T left_shift(T a, T b) {
  if (b < T(0) || static_cast<unsigned long long>(b) >= sizeof(T) * 8) return T(0);
  return static_cast<T>(a << b);
}
template <typename T> ARRAYD_DEVICE T right_shift(T a, T b) {
  if (b < T(0) || static_cast<unsigned long long>(b) >= sizeof(T) * 8) {
    return a < T(0) ? static_cast<T>(-1) : T(0);
  }
  return static_cast<T>(a >> b);
}

template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, T) gcd(T a, T b) {
  while (b != T(0)) {
    const T t = is_signed_int<T>::value && b == static_cast<T>(-1) ? T(0) : static_cast<T>(a % b);
    a = b;
    b = t;
  }
  return is_signed_int<T>::value && a < T(0) ? static_cast<T>(T(0) - a) : a;
}
template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, T) lcm(T a, T b) {
  const T g = gcd(a, b);
  if (g == T(0)) return T(0);
  const T r = static_cast<T>(a / g * b);
  return is_signed_int<T>::value && r < T(0) ? static_cast<T>(T(0) - r) : r;
}

// ---- floating-point functions ---------------------------------------------
template <typename T> ARRAYD_DEVICE bool isnan(T a) { return nan_(a); }
template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, bool) isinf(T) { return false; }
ARRAYD_DEVICE bool isinf(bool) { return false; }
ARRAYD_DEVICE bool isinf(float a) { return ::isinf(a); }
ARRAYD_DEVICE bool isinf(double a) { return ::isinf(a); }
template <typename T> ARRAYD_DEVICE bool isinf(complex<T> a) {
  return ::isinf(a.real()) || ::isinf(a.imag());
}
template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, bool) isfinite(T) { return true; }
ARRAYD_DEVICE bool isfinite(bool) { return true; }
ARRAYD_DEVICE bool isfinite(float a) { return ::isfinite(a); }
ARRAYD_DEVICE bool isfinite(double a) { return ::isfinite(a); }
template <typename T> ARRAYD_DEVICE bool isfinite(complex<T> a) {
  return ::isfinite(a.real()) && ::isfinite(a.imag());
}
ARRAYD_DEVICE bool signbit(float a) { return ::signbit(a); }
ARRAYD_DEVICE bool signbit(double a) { return ::signbit(a); }

// Integers and bools are their own floor, ceil and trunc (NumPy 2).
#define ARRAYD_ROUNDING(name, ffn, dfn)                                      \
  template <typename T> ARRAYD_DEVICE ARRAYD_IF(is_int<T>::value, T) name(T a) { return a; } \
  ARRAYD_DEVICE bool name(bool a) { return a; }                              \
  ARRAYD_DEVICE float name(float a) { return ffn(a); }                       \
  ARRAYD_DEVICE double name(double a) { return dfn(a); }
ARRAYD_ROUNDING(floor, floorf, ::floor)
ARRAYD_ROUNDING(ceil, ceilf, ::ceil)
ARRAYD_ROUNDING(trunc, truncf, ::trunc)
#undef ARRAYD_ROUNDING

// Real functions of float and double; complex ones (for the ufuncs that
// have complex loops) from the prelude's complex functions.
#define ARRAYD_REAL_FN(name, ffn, dfn)                       \
  ARRAYD_DEVICE float name(float a) { return ffn(a); }       \
  ARRAYD_DEVICE double name(double a) { return dfn(a); }
#define ARRAYD_CPLX_FN(name, cfn)                                                   \
  template <typename T> ARRAYD_DEVICE complex<T> name(complex<T> z) { return cfn(z); }
ARRAYD_REAL_FN(exp, expf, ::exp) ARRAYD_CPLX_FN(exp, thrust::exp)
ARRAYD_REAL_FN(exp2, exp2f, ::exp2)
template <typename T> ARRAYD_DEVICE complex<T> exp2(complex<T> z) {
  return thrust::exp(z * T(0.693147180559945309417));
}
ARRAYD_REAL_FN(expm1, expm1f, ::expm1)
template <typename T> ARRAYD_DEVICE complex<T> expm1(complex<T> z) {
  const T s = ::sin(z.imag() * T(0.5));
  return complex<T>(::expm1(z.real()) * ::cos(z.imag()) - T(2) * s * s,
                    ::exp(z.real()) * ::sin(z.imag()));
}
ARRAYD_REAL_FN(log, logf, ::log) ARRAYD_CPLX_FN(log, thrust::log)
ARRAYD_REAL_FN(log2, log2f, ::log2)
template <typename T> ARRAYD_DEVICE complex<T> log2(complex<T> z) {
  return thrust::log(z) * T(1.44269504088896340736);
}
ARRAYD_REAL_FN(log10, log10f, ::log10) ARRAYD_CPLX_FN(log10, thrust::log10)
ARRAYD_REAL_FN(log1p, log1pf, ::log1p)
template <typename T> ARRAYD_DEVICE complex<T> log1p(complex<T> z) {
  return thrust::log(complex<T>(z.real() + T(1), z.imag()));
}
ARRAYD_REAL_FN(sqrt, sqrtf, ::sqrt) ARRAYD_CPLX_FN(sqrt, thrust::sqrt)
ARRAYD_REAL_FN(cbrt, cbrtf, ::cbrt)
ARRAYD_REAL_FN(sin, sinf, ::sin) ARRAYD_CPLX_FN(sin, thrust::sin)
ARRAYD_REAL_FN(cos, cosf, ::cos) ARRAYD_CPLX_FN(cos, thrust::cos)
ARRAYD_REAL_FN(tan, tanf, ::tan) ARRAYD_CPLX_FN(tan, thrust::tan)
ARRAYD_REAL_FN(arcsin, asinf, ::asin) ARRAYD_CPLX_FN(arcsin, thrust::asin)
ARRAYD_REAL_FN(arccos, acosf, ::acos) ARRAYD_CPLX_FN(arccos, thrust::acos)
ARRAYD_REAL_FN(arctan, atanf, ::atan) ARRAYD_CPLX_FN(arctan, thrust::atan)
ARRAYD_REAL_FN(sinh, sinhf, ::sinh) ARRAYD_CPLX_FN(sinh, thrust::sinh)
ARRAYD_REAL_FN(cosh, coshf, ::cosh) ARRAYD_CPLX_FN(cosh, thrust::cosh)
ARRAYD_REAL_FN(tanh, tanhf, ::tanh) ARRAYD_CPLX_FN(tanh, thrust::tanh)
ARRAYD_REAL_FN(arcsinh, asinhf, ::asinh) ARRAYD_CPLX_FN(arcsinh, thrust::asinh)
ARRAYD_REAL_FN(arccosh, acoshf, ::acosh) ARRAYD_CPLX_FN(arccosh, thrust::acosh)
ARRAYD_REAL_FN(arctanh, atanhf, ::atanh) ARRAYD_CPLX_FN(arctanh, thrust::atanh)
ARRAYD_REAL_FN(fabs, fabsf, ::fabs)
ARRAYD_REAL_FN(rint, rintf, ::rint)
template <typename T> ARRAYD_DEVICE complex<T> rint(complex<T> z) {
  return complex<T>(::rint(z.real()), ::rint(z.imag()));
}
ARRAYD_DEVICE float degrees(float a) { return a * 57.29577951308232f; }
ARRAYD_DEVICE double degrees(double a) { return a * 57.29577951308232; }
ARRAYD_DEVICE float radians(float a) { return a * 0.017453292519943295f; }
ARRAYD_DEVICE double radians(double a) { return a * 0.017453292519943295; }
#undef ARRAYD_REAL_FN
#undef ARRAYD_CPLX_FN

#define ARRAYD_REAL_FN2(name, ffn, dfn)                                \
  ARRAYD_DEVICE float name(float a, float b) { return ffn(a, b); }     \
  ARRAYD_DEVICE double name(double a, double b) { return dfn(a, b); }
ARRAYD_REAL_FN2(arctan2, atan2f, ::atan2)
ARRAYD_REAL_FN2(hypot, hypotf, ::hypot)
ARRAYD_REAL_FN2(copysign, copysignf, ::copysign)
ARRAYD_REAL_FN2(nextafter, nextafterf, ::nextafter)
#undef ARRAYD_REAL_FN2

template <typename T> ARRAYD_DEVICE T logaddexp(T x, T y) {
  if (x == y) return x + T(0.693147180559945309417);  // also infinities
  const T d = x - y;
  if (d > T(0)) return x + log1p(exp(-d));
  if (d <= T(0)) return y + log1p(exp(d));
  return d;  // nan
}
template <typename T> ARRAYD_DEVICE T logaddexp2(T x, T y) {
  if (x == y) return x + T(1);
  const T d = x - y;
  if (d > T(0)) return x + log1p(exp2(-d)) * T(1.44269504088896340736);
  if (d <= T(0)) return y + log1p(exp2(d)) * T(1.44269504088896340736);
  return d;
}
template <typename T> ARRAYD_DEVICE T heaviside(T x, T h0) {
  if (x != x) return x;
  if (x == T(0)) return h0;
  return x < T(0) ? T(0) : T(1);
}

// where(c, x, y) and the reductions' folds.
template <typename T> ARRAYD_DEVICE T where(bool c, T x, T y) { return c ? x : y; }
template <typename T> ARRAYD_DEVICE T max_fold(T a, T b) { return maximum(a, b); }
template <typename T> ARRAYD_DEVICE T min_fold(T a, T b) { return minimum(a, b); }

#undef ARRAYD_IF
}  // namespace arrayd_fuse

#endif  // ARRAYD_FUSION_CUH_
