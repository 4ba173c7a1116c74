// Element types shared by every backend's kernels: a float16 and a complex
// type that compile with a host C++ compiler, nvcc/NVRTC and hipcc alike.
// No C++ standard library here: NVRTC has none. Host code includes
// kernels/host_prelude.h first, which brings <math.h>.
#ifndef ARRAYD_KERNELS_TYPES_H_
#define ARRAYD_KERNELS_TYPES_H_

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__CUDACC_RTC__)
#define ARRAYD_HD __host__ __device__ __forceinline__
#else
#define ARRAYD_HD inline
#endif

namespace arrayd {
namespace kernels {

typedef signed char i8;
typedef short i16;
typedef int i32;
typedef long long i64;
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

// IEEE binary16 stored as bits; arithmetic happens in float, as NumPy does.
struct Half {
  u16 bits;

  Half() = default;
  ARRAYD_HD Half(float f) : bits(FromFloat(f)) {}
  ARRAYD_HD Half(double d) : bits(FromDouble(d)) {}
  template <typename T>
  ARRAYD_HD explicit Half(T v) : bits(FromFloat(static_cast<float>(v))) {}
  ARRAYD_HD operator float() const { return ToFloat(bits); }

  static ARRAYD_HD float ToFloat(u16 h) {
    u32 sign = static_cast<u32>(h & 0x8000u) << 16;
    u32 exp = (h >> 10) & 0x1fu;
    u32 man = h & 0x3ffu;
    u32 out;
    if (exp == 0x1f) {
      out = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) {
      out = sign | ((exp + 112u) << 23) | (man << 13);
    } else if (man == 0) {
      out = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do {
        ++e;
        man <<= 1;
      } while ((man & 0x400u) == 0);
      out = sign | ((112u - e) << 23) | ((man & 0x3ffu) << 13);
    }
    union {
      u32 u;
      float f;
    } v;
    v.u = out;
    return v.f;
  }

  // Round to nearest even, as NumPy's npy_float_to_half.
  static ARRAYD_HD u16 FromFloat(float f) {
    union {
      float f;
      u32 u;
    } v;
    v.f = f;
    u32 x = v.u;
    u32 sign = (x >> 16) & 0x8000u;
    u32 absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) {  // inf or nan
      if (absx == 0x7f800000u) return static_cast<u16>(sign | 0x7c00u);
      u16 r = static_cast<u16>(sign | 0x7c00u | ((absx & 0x7fffffu) >> 13));
      if ((r & 0x3ffu) == 0) r |= 1;  // keep it a nan
      return r;
    }
    if (absx >= 0x477ff000u) return static_cast<u16>(sign | 0x7c00u);  // overflow
    if (absx < 0x38800000u) {  // subnormal or zero in half
      if (absx < 0x33000000u) return static_cast<u16>(sign);
      u32 e = absx >> 23;
      u32 m = (absx & 0x7fffffu) | 0x800000u;
      u32 shift = 126u - e;  // 14..24
      u32 half_m = m >> shift;
      u32 rem = m & ((1u << shift) - 1u);
      u32 halfway = 1u << (shift - 1u);
      if (rem > halfway || (rem == halfway && (half_m & 1u))) ++half_m;
      return static_cast<u16>(sign | half_m);
    }
    u32 e = ((absx >> 23) - 112u) << 10;
    u32 m = (absx >> 13) & 0x3ffu;
    u32 rem = absx & 0x1fffu;
    u32 h = e | m;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into exp
    return static_cast<u16>(sign | h);
  }

  // The same from double in one rounding (as NumPy's npy_double_to_half):
  // through float would round twice (1904.50002 would become 1904).
  static ARRAYD_HD u16 FromDouble(double d) {
    union {
      double d;
      u64 u;
    } v;
    v.d = d;
    u64 x = v.u;
    u16 sign = static_cast<u16>((x >> 48) & 0x8000u);
    u64 absx = x & 0x7fffffffffffffffull;
    if (absx >= 0x7ff0000000000000ull) {  // inf or nan
      if (absx == 0x7ff0000000000000ull) return static_cast<u16>(sign | 0x7c00u);
      u16 r = static_cast<u16>(sign | 0x7c00u | ((absx & 0xfffffffffffffull) >> 42));
      if ((r & 0x3ffu) == 0) r |= 1;  // keep it a nan
      return r;
    }
    if (absx >= 0x40effe0000000000ull) return static_cast<u16>(sign | 0x7c00u);  // >= 65520
    if (absx < 0x3f10000000000000ull) {  // subnormal or zero in half (< 2**-14)
      if (absx <= 0x3e60000000000000ull) return sign;  // <= 2**-25: ties to even zero
      u64 e = absx >> 52;
      u64 m = (absx & 0xfffffffffffffull) | 0x10000000000000ull;
      u64 shift = 1051u - e;  // 43..53
      u64 half_m = m >> shift;
      u64 rem = m & ((1ull << shift) - 1u);
      u64 halfway = 1ull << (shift - 1u);
      if (rem > halfway || (rem == halfway && (half_m & 1u))) ++half_m;
      return static_cast<u16>(sign | half_m);
    }
    u64 e = ((absx >> 52) - 1008u) << 10;
    u64 m = (absx >> 42) & 0x3ffu;
    u64 rem = absx & 0x3ffffffffffull;
    u64 h = e | m;
    if (rem > 0x20000000000ull || (rem == 0x20000000000ull && (h & 1u))) ++h;
    return static_cast<u16>(sign | h);
  }
};

template <typename T>
struct Complex {
  T re, im;
  Complex() = default;
  ARRAYD_HD Complex(T r) : re(r), im(0) {}
  ARRAYD_HD Complex(T r, T i) : re(r), im(i) {}
  template <typename U>
  ARRAYD_HD explicit Complex(const Complex<U>& o)
      : re(static_cast<T>(o.re)), im(static_cast<T>(o.im)) {}
};
typedef Complex<float> c64;
typedef Complex<double> c128;

template <typename T>
ARRAYD_HD Complex<T> operator+(Complex<T> a, Complex<T> b) {
  return Complex<T>(a.re + b.re, a.im + b.im);
}
template <typename T>
ARRAYD_HD Complex<T> operator-(Complex<T> a, Complex<T> b) {
  return Complex<T>(a.re - b.re, a.im - b.im);
}
template <typename T>
ARRAYD_HD Complex<T> operator-(Complex<T> a) {
  return Complex<T>(-a.re, -a.im);
}
template <typename T>
ARRAYD_HD Complex<T> operator*(Complex<T> a, Complex<T> b) {
  return Complex<T>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
// Smith's algorithm, as NumPy uses.
template <typename T>
ARRAYD_HD Complex<T> operator/(Complex<T> a, Complex<T> b) {
  T abs_br = b.re < 0 ? -b.re : b.re;
  T abs_bi = b.im < 0 ? -b.im : b.im;
  if (abs_br >= abs_bi) {
    if (abs_br == 0 && abs_bi == 0) {
      return Complex<T>(a.re / abs_br, a.im / abs_bi);
    }
    T rat = b.im / b.re;
    T scl = T(1) / (b.re + b.im * rat);
    return Complex<T>((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
  }
  T rat = b.re / b.im;
  T scl = T(1) / (b.im + b.re * rat);
  return Complex<T>((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
template <typename T>
ARRAYD_HD bool operator==(Complex<T> a, Complex<T> b) {
  return a.re == b.re && a.im == b.im;
}
template <typename T>
ARRAYD_HD bool operator!=(Complex<T> a, Complex<T> b) {
  return !(a == b);
}
// NumPy orders complex numbers lexicographically.
template <typename T>
ARRAYD_HD bool operator<(Complex<T> a, Complex<T> b) {
  // As NumPy's CLT: a NaN imaginary part makes the real-part test false.
  return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im);
}
template <typename T>
ARRAYD_HD bool operator>(Complex<T> a, Complex<T> b) {
  return b < a;
}
template <typename T>
ARRAYD_HD bool operator<=(Complex<T> a, Complex<T> b) {
  return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im);
}
template <typename T>
ARRAYD_HD bool operator>=(Complex<T> a, Complex<T> b) {
  return b <= a;
}

// Conversions between any two element types, with NumPy's rules: complex to
// real drops the imaginary part, anything to bool is "!= 0".
template <typename To, typename From>
struct Convert {
  static ARRAYD_HD To Do(From v) { return static_cast<To>(v); }
};
template <typename From>
struct Convert<bool, From> {
  static ARRAYD_HD bool Do(From v) { return v != From(0); }
};
template <>
struct Convert<bool, Half> {
  static ARRAYD_HD bool Do(Half v) { return static_cast<float>(v) != 0.0f; }
};
template <typename T>
struct Convert<bool, Complex<T>> {
  static ARRAYD_HD bool Do(Complex<T> v) { return v.re != 0 || v.im != 0; }
};
template <typename From>
struct Convert<Half, From> {
  static ARRAYD_HD Half Do(From v) { return Half(static_cast<float>(v)); }
};
template <>
struct Convert<Half, double> {  // one rounding, not two (through float)
  static ARRAYD_HD Half Do(double v) { return Half(v); }
};
template <>
struct Convert<Half, Half> {
  static ARRAYD_HD Half Do(Half v) { return v; }
};
template <typename T>
struct Convert<Half, Complex<T>> {
  static ARRAYD_HD Half Do(Complex<T> v) { return Half(static_cast<float>(v.re)); }
};
template <typename To>
struct Convert<To, Half> {
  static ARRAYD_HD To Do(Half v) { return Convert<To, float>::Do(static_cast<float>(v)); }
};
template <typename T, typename From>
struct Convert<Complex<T>, From> {
  static ARRAYD_HD Complex<T> Do(From v) { return Complex<T>(static_cast<T>(v), T(0)); }
};
template <typename T>
struct Convert<Complex<T>, Half> {
  static ARRAYD_HD Complex<T> Do(Half v) {
    return Complex<T>(static_cast<T>(static_cast<float>(v)), T(0));
  }
};
template <typename T, typename U>
struct Convert<Complex<T>, Complex<U>> {
  static ARRAYD_HD Complex<T> Do(Complex<U> v) { return Complex<T>(v); }
};
template <typename To, typename T>
struct Convert<To, Complex<T>> {
  static ARRAYD_HD To Do(Complex<T> v) { return Convert<To, T>::Do(v.re); }
};

// Float to integer. C++ leaves out-of-range values (and NaN) undefined, and
// CPUs and GPUs differ there (x86 wraps or gives INT_MIN, GPUs saturate), so
// every backend takes the x86-64 path NumPy takes on common machines: int8,
// int16, uint8, uint16 and int32 through int32, wider types through int64,
// with INT_MIN ("integer indefinite") for NaN and out-of-range values.
template <typename To, typename F>
ARRAYD_HD To FloatToInt(F v) {
  if (sizeof(To) < 4 || (sizeof(To) == 4 && To(-1) < To(0))) {
    if (v > F(-2147483648.0) && v < F(2147483648.0)) return static_cast<To>(static_cast<i32>(v));
    return static_cast<To>(static_cast<i32>(-2147483647 - 1));
  }
  const F two63 = F(9223372036854775808.0);
  if (v > -two63 && v < two63) return static_cast<To>(static_cast<i64>(v));
  if (To(-1) > To(0) && v >= two63) {
    // uint64 above int64's range: x86-64's conversion of v - 2**63 with the
    // top bit flipped, so 2**64 and more (inf too) give 0, as in NumPy.
    const F w = v - two63;
    const i64 low = w < two63 ? static_cast<i64>(w) : static_cast<i64>(0x8000000000000000ULL);
    return static_cast<To>(static_cast<u64>(low) ^ 0x8000000000000000ULL);
  }
  return static_cast<To>(0x8000000000000000ULL);
}
#define ARRAYD_FLOAT_TO_INT(To)                                                 \
  template <>                                                                   \
  struct Convert<To, float> {                                                   \
    static ARRAYD_HD To Do(float v) { return FloatToInt<To>(v); }               \
  };                                                                            \
  template <>                                                                   \
  struct Convert<To, double> {                                                  \
    static ARRAYD_HD To Do(double v) { return FloatToInt<To>(v); }              \
  };
ARRAYD_FLOAT_TO_INT(i8)
ARRAYD_FLOAT_TO_INT(i16)
ARRAYD_FLOAT_TO_INT(i32)
ARRAYD_FLOAT_TO_INT(i64)
ARRAYD_FLOAT_TO_INT(u8)
ARRAYD_FLOAT_TO_INT(u16)
ARRAYD_FLOAT_TO_INT(u32)
ARRAYD_FLOAT_TO_INT(u64)
#undef ARRAYD_FLOAT_TO_INT

template <typename To, typename From>
ARRAYD_HD To Cast(From v) {
  return Convert<To, From>::Do(v);
}

}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_KERNELS_TYPES_H_
