// The prelude of every kernel that arrayd's ElementwiseKernel,
// ReductionKernel and fuse generate (client-python/arrayd/_userkernel.py
// pastes it in front of the generated source; the server's NVRTC has no
// include path). It gives user code CuPy's kernel vocabulary:
//
//   float16                 IEEE binary16; arithmetic happens in float
//   complex<T>              thrust's complex API (also thrust::complex<T>):
//                           real(), imag(), arithmetic, abs, arg, exp, ...
//   CArray<T, ndim, c, i32> an array view: data pointer, shape and byte
//                           strides; a[i] is the i-th element in C order,
//                           a[idx] the element at the index array idx
//   CIndexer<ndim, i32>     a C-order index space: size(), set(i), get()
//   CUPY_FOR(i, n)          a grid-stride loop over [0, n)
//   CUDART_INF, CUDART_NAN, ... (math_constants.h's names)
//
// NVRTC has no standard library: nothing here includes a header.
#ifndef ARRAYD_USERKERNEL_CUH_
#define ARRAYD_USERKERNEL_CUH_

#define ARRAYD_DEVICE __device__ __forceinline__

namespace arrayd_traits {
template <bool B, typename T = void> struct enable_if {};
template <typename T> struct enable_if<true, T> { typedef T type; };
template <bool B, typename T, typename F> struct conditional { typedef T type; };
template <typename T, typename F> struct conditional<false, T, F> { typedef F type; };
template <typename T, typename U> struct is_same { static const bool value = false; };
template <typename T> struct is_same<T, T> { static const bool value = true; };
}  // namespace arrayd_traits

// CuPy's helper namespace holds the same traits (user code may name them).
namespace cupy {
namespace type_traits = arrayd_traits;
}

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef CUDART_INF_F
#define CUDART_INF_F __int_as_float(0x7f800000)
#define CUDART_NAN_F __int_as_float(0x7fffffff)
#define CUDART_INF __longlong_as_double(0x7ff0000000000000ULL)
#define CUDART_NAN __longlong_as_double(0xfff8000000000000ULL)
#define CUDART_PI_F 3.141592654f
#define CUDART_PI 3.1415926535897931e+0
#endif

#define CUPY_FOR(i, n)                                                        \
  for (ptrdiff_t i = static_cast<ptrdiff_t>(blockIdx.x) * blockDim.x +       \
                     threadIdx.x;                                             \
       i < (n); i += static_cast<ptrdiff_t>(blockDim.x) * gridDim.x)

// ---- float16 ----------------------------------------------------------
// Stored as bits and converted with the hardware's round-to-nearest-even
// (cvt), as NumPy rounds; no cuda_fp16.h, which NVRTC finds only with an
// include path. Implicitly a float both ways, so `h * 2 + x` computes in
// float and assigning the result to a float16 rounds once, as in CuPy.
class float16 {
 private:
  unsigned short bits_;

  static ARRAYD_DEVICE unsigned short from_float(float v) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return h;
  }
  static ARRAYD_DEVICE unsigned short from_double(double v) {
    unsigned short h;  // one rounding (through float would round twice)
    asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(v));
    return h;
  }

 public:
  float16() = default;
  ARRAYD_DEVICE float16(float v) : bits_(from_float(v)) {}
  explicit ARRAYD_DEVICE float16(double v) : bits_(from_double(v)) {}
  explicit ARRAYD_DEVICE float16(bool v) : bits_(from_float(v ? 1.0f : 0.0f)) {}
  explicit ARRAYD_DEVICE float16(int v) : bits_(from_float(static_cast<float>(v))) {}
  explicit ARRAYD_DEVICE float16(unsigned int v) : bits_(from_float(static_cast<float>(v))) {}
  explicit ARRAYD_DEVICE float16(long long v) : bits_(from_float(static_cast<float>(v))) {}
  explicit ARRAYD_DEVICE float16(unsigned long long v)
      : bits_(from_float(static_cast<float>(v))) {}

  ARRAYD_DEVICE operator float() const {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits_));
    return f;
  }

  static ARRAYD_DEVICE float16 from_bits(unsigned short bits) {
    float16 h;
    h.bits_ = bits;
    return h;
  }
  ARRAYD_DEVICE unsigned short to_bits() const { return bits_; }
  ARRAYD_DEVICE int iszero() const { return (bits_ & 0x7fffu) == 0; }
  ARRAYD_DEVICE int isnan() const {
    return (bits_ & 0x7c00u) == 0x7c00u && (bits_ & 0x03ffu) != 0;
  }
  ARRAYD_DEVICE int isinf() const { return (bits_ & 0x7fffu) == 0x7c00u; }
  ARRAYD_DEVICE int isfinite() const { return (bits_ & 0x7c00u) != 0x7c00u; }
  ARRAYD_DEVICE int signbit() const { return (bits_ & 0x8000u) != 0; }

  template <typename T> ARRAYD_DEVICE float16& operator+=(const T& v) {
    return *this = float16(static_cast<float>(*this) + v);
  }
  template <typename T> ARRAYD_DEVICE float16& operator-=(const T& v) {
    return *this = float16(static_cast<float>(*this) - v);
  }
  template <typename T> ARRAYD_DEVICE float16& operator*=(const T& v) {
    return *this = float16(static_cast<float>(*this) * v);
  }
  template <typename T> ARRAYD_DEVICE float16& operator/=(const T& v) {
    return *this = float16(static_cast<float>(*this) / v);
  }
};

ARRAYD_DEVICE bool isnan(float16 x) { return x.isnan(); }
ARRAYD_DEVICE bool isinf(float16 x) { return x.isinf(); }
ARRAYD_DEVICE bool isfinite(float16 x) { return x.isfinite(); }
ARRAYD_DEVICE bool signbit(float16 x) { return x.signbit(); }

// ---- complex<T> --------------------------------------------------------
// thrust::complex's interface (CuPy's kernels are written against it),
// with NumPy's formulas where NumPy and the C library differ (division).
namespace thrust {

template <typename T>
struct alignas(2 * sizeof(T)) complex {
 private:
  T re_, im_;

 public:
  typedef T value_type;
  complex() = default;
  ARRAYD_DEVICE complex(const T& re) : re_(re), im_(T()) {}
  ARRAYD_DEVICE complex(const T& re, const T& im) : re_(re), im_(im) {}
  template <typename U>
  ARRAYD_DEVICE complex(const complex<U>& z)
      : re_(static_cast<T>(z.real())), im_(static_cast<T>(z.imag())) {}

  ARRAYD_DEVICE T real() const { return re_; }
  ARRAYD_DEVICE T imag() const { return im_; }
  ARRAYD_DEVICE void real(T v) { re_ = v; }
  ARRAYD_DEVICE void imag(T v) { im_ = v; }

  ARRAYD_DEVICE complex& operator+=(const complex& z) {
    re_ += z.re_;
    im_ += z.im_;
    return *this;
  }
  ARRAYD_DEVICE complex& operator-=(const complex& z) {
    re_ -= z.re_;
    im_ -= z.im_;
    return *this;
  }
  ARRAYD_DEVICE complex& operator*=(const complex& z) { return *this = *this * z; }
  ARRAYD_DEVICE complex& operator/=(const complex& z) { return *this = *this / z; }
  ARRAYD_DEVICE complex& operator+=(const T& v) {
    re_ += v;
    return *this;
  }
  ARRAYD_DEVICE complex& operator-=(const T& v) {
    re_ -= v;
    return *this;
  }
  ARRAYD_DEVICE complex& operator*=(const T& v) {
    re_ *= v;
    im_ *= v;
    return *this;
  }
  ARRAYD_DEVICE complex& operator/=(const T& v) {
    re_ /= v;
    im_ /= v;
    return *this;
  }

  friend ARRAYD_DEVICE complex operator+(const complex& a, const complex& b) {
    return complex(a.re_ + b.re_, a.im_ + b.im_);
  }
  friend ARRAYD_DEVICE complex operator-(const complex& a, const complex& b) {
    return complex(a.re_ - b.re_, a.im_ - b.im_);
  }
  friend ARRAYD_DEVICE complex operator*(const complex& a, const complex& b) {
    return complex(a.re_ * b.re_ - a.im_ * b.im_, a.re_ * b.im_ + a.im_ * b.re_);
  }
  // Smith's method (NumPy's): no overflow for large |b|.
  friend ARRAYD_DEVICE complex operator/(const complex& a, const complex& b) {
    const T abr = b.re_ < T(0) ? -b.re_ : b.re_;
    const T abi = b.im_ < T(0) ? -b.im_ : b.im_;
    if (abr >= abi) {
      if (abr == T(0) && abi == T(0)) return complex(a.re_ / abr, a.im_ / abi);
      const T rat = b.im_ / b.re_;
      const T scl = T(1) / (b.re_ + b.im_ * rat);
      return complex((a.re_ + a.im_ * rat) * scl, (a.im_ - a.re_ * rat) * scl);
    }
    const T rat = b.re_ / b.im_;
    const T scl = T(1) / (b.im_ + b.re_ * rat);
    return complex((a.re_ * rat + a.im_) * scl, (a.im_ * rat - a.re_) * scl);
  }
  friend ARRAYD_DEVICE complex operator-(const complex& a) { return complex(-a.re_, -a.im_); }
  friend ARRAYD_DEVICE complex operator+(const complex& a) { return a; }
  friend ARRAYD_DEVICE bool operator==(const complex& a, const complex& b) {
    return a.re_ == b.re_ && a.im_ == b.im_;
  }
  friend ARRAYD_DEVICE bool operator!=(const complex& a, const complex& b) {
    return !(a == b);
  }
};

// Mixed operands: a real of any arithmetic type, or a complex of another
// precision, promotes as thrust does (complex<float> * double is
// complex<double>).
template <typename T> struct is_real { static const bool value = false; };
#define ARRAYD_REAL(T) \
  template <> struct is_real<T> { static const bool value = true; };
ARRAYD_REAL(bool) ARRAYD_REAL(signed char) ARRAYD_REAL(unsigned char) ARRAYD_REAL(short)
ARRAYD_REAL(unsigned short) ARRAYD_REAL(int) ARRAYD_REAL(unsigned int) ARRAYD_REAL(long)
ARRAYD_REAL(unsigned long) ARRAYD_REAL(long long) ARRAYD_REAL(unsigned long long)
ARRAYD_REAL(float) ARRAYD_REAL(double) ARRAYD_REAL(float16)
#undef ARRAYD_REAL

template <typename T, typename U> struct promoted {
  typedef complex<decltype(T() + U())> type;
};
template <typename T> struct promoted<T, float16> { typedef complex<decltype(T() + 0.0f)> type; };

#define ARRAYD_COMPLEX_MIXED(op)                                                       \
  template <typename T, typename U>                                                    \
  ARRAYD_DEVICE typename arrayd_traits::enable_if<is_real<U>::value,                   \
                                                  typename promoted<T, U>::type>::type \
  operator op(const complex<T>& a, const U& b) {                                       \
    typedef typename promoted<T, U>::type R;                                           \
    return R(a) op R(static_cast<typename R::value_type>(b));                          \
  }                                                                                    \
  template <typename T, typename U>                                                    \
  ARRAYD_DEVICE typename arrayd_traits::enable_if<is_real<U>::value,                   \
                                                  typename promoted<T, U>::type>::type \
  operator op(const U& a, const complex<T>& b) {                                       \
    typedef typename promoted<T, U>::type R;                                           \
    return R(static_cast<typename R::value_type>(a)) op R(b);                          \
  }                                                                                    \
  template <typename T, typename U>                                                    \
  ARRAYD_DEVICE typename arrayd_traits::enable_if<!arrayd_traits::is_same<T, U>::value, \
                                                  complex<decltype(T() + U())> >::type \
  operator op(const complex<T>& a, const complex<U>& b) {                              \
    typedef complex<decltype(T() + U())> R;                                            \
    return R(a) op R(b);                                                               \
  }
ARRAYD_COMPLEX_MIXED(+)
ARRAYD_COMPLEX_MIXED(-)
ARRAYD_COMPLEX_MIXED(*)
ARRAYD_COMPLEX_MIXED(/)
#undef ARRAYD_COMPLEX_MIXED

template <typename T, typename U>
ARRAYD_DEVICE typename arrayd_traits::enable_if<is_real<U>::value, bool>::type operator==(
    const complex<T>& a, const U& b) {
  return a.real() == b && a.imag() == T(0);
}
template <typename T, typename U>
ARRAYD_DEVICE typename arrayd_traits::enable_if<is_real<U>::value, bool>::type operator==(
    const U& a, const complex<T>& b) {
  return b == a;
}
template <typename T, typename U>
ARRAYD_DEVICE typename arrayd_traits::enable_if<is_real<U>::value, bool>::type operator!=(
    const complex<T>& a, const U& b) {
  return !(a == b);
}
template <typename T, typename U>
ARRAYD_DEVICE typename arrayd_traits::enable_if<is_real<U>::value, bool>::type operator!=(
    const U& a, const complex<T>& b) {
  return !(b == a);
}

// ---- complex functions (found by argument-dependent lookup) ------------
template <typename T> ARRAYD_DEVICE T real(const complex<T>& z) { return z.real(); }
template <typename T> ARRAYD_DEVICE T imag(const complex<T>& z) { return z.imag(); }
template <typename T> ARRAYD_DEVICE T abs(const complex<T>& z) {
  return ::hypot(z.real(), z.imag());
}
template <typename T> ARRAYD_DEVICE T arg(const complex<T>& z) {
  return ::atan2(z.imag(), z.real());
}
template <typename T> ARRAYD_DEVICE T norm(const complex<T>& z) {
  return z.real() * z.real() + z.imag() * z.imag();
}
template <typename T> ARRAYD_DEVICE complex<T> conj(const complex<T>& z) {
  return complex<T>(z.real(), -z.imag());
}
template <typename T> ARRAYD_DEVICE complex<T> polar(const T& r, const T& theta = T()) {
  return complex<T>(r * ::cos(theta), r * ::sin(theta));
}
template <typename T> ARRAYD_DEVICE bool isnan(const complex<T>& z) {
  return ::isnan(z.real()) || ::isnan(z.imag());
}
template <typename T> ARRAYD_DEVICE bool isinf(const complex<T>& z) {
  return ::isinf(z.real()) || ::isinf(z.imag());
}
template <typename T> ARRAYD_DEVICE bool isfinite(const complex<T>& z) {
  return ::isfinite(z.real()) && ::isfinite(z.imag());
}
template <typename T> ARRAYD_DEVICE complex<T> proj(const complex<T>& z) {
  if (isinf(z)) return complex<T>(CUDART_INF, ::copysign(T(0), z.imag()));
  return z;
}
template <typename T> ARRAYD_DEVICE complex<T> exp(const complex<T>& z) {
  const T e = ::exp(z.real());
  if (z.imag() == T(0)) return complex<T>(e, z.imag());
  return complex<T>(e * ::cos(z.imag()), e * ::sin(z.imag()));
}
template <typename T> ARRAYD_DEVICE complex<T> log(const complex<T>& z) {
  return complex<T>(::log(abs(z)), arg(z));
}
template <typename T> ARRAYD_DEVICE complex<T> log10(const complex<T>& z) {
  return log(z) / T(2.302585092994045684);
}
template <typename T> ARRAYD_DEVICE complex<T> sqrt(const complex<T>& z) {
  const T x = z.real(), y = z.imag();
  if (x == T(0) && y == T(0)) return complex<T>(T(0), y);
  if (::isinf(y)) return complex<T>(CUDART_INF, y);
  const T t = ::sqrt((::fabs(x) + abs(z)) * T(0.5));
  if (x >= T(0)) return complex<T>(t, y / (T(2) * t));
  return complex<T>(::fabs(y) / (T(2) * t), ::copysign(t, y));
}
template <typename T> ARRAYD_DEVICE complex<T> pow(const complex<T>& a, const complex<T>& b) {
  if (b.real() == T(0) && b.imag() == T(0)) return complex<T>(T(1), T(0));
  if (a.real() == T(0) && a.imag() == T(0)) {
    if (b.real() > T(0) && b.imag() == T(0)) return complex<T>(T(0), T(0));
    return complex<T>(CUDART_NAN, CUDART_NAN);
  }
  return exp(b * log(a));
}
template <typename T, typename U>
ARRAYD_DEVICE typename arrayd_traits::enable_if<is_real<U>::value, complex<T> >::type pow(
    const complex<T>& a, const U& b) {
  return pow(a, complex<T>(static_cast<T>(b)));
}
template <typename T, typename U>
ARRAYD_DEVICE typename arrayd_traits::enable_if<is_real<U>::value, complex<T> >::type pow(
    const U& a, const complex<T>& b) {
  return pow(complex<T>(static_cast<T>(a)), b);
}
template <typename T> ARRAYD_DEVICE complex<T> sinh(const complex<T>& z) {
  return complex<T>(::sinh(z.real()) * ::cos(z.imag()), ::cosh(z.real()) * ::sin(z.imag()));
}
template <typename T> ARRAYD_DEVICE complex<T> cosh(const complex<T>& z) {
  return complex<T>(::cosh(z.real()) * ::cos(z.imag()), ::sinh(z.real()) * ::sin(z.imag()));
}
template <typename T> ARRAYD_DEVICE complex<T> tanh(const complex<T>& z) {
  // (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), with the limit for large x
  const T x = z.real(), y = z.imag();
  if (::fabs(x) > T(20)) return complex<T>(::copysign(T(1), x), T(0) * ::sin(T(2) * y));
  const T d = ::cosh(T(2) * x) + ::cos(T(2) * y);
  return complex<T>(::sinh(T(2) * x) / d, ::sin(T(2) * y) / d);
}
template <typename T> ARRAYD_DEVICE complex<T> sin(const complex<T>& z) {
  return complex<T>(::sin(z.real()) * ::cosh(z.imag()), ::cos(z.real()) * ::sinh(z.imag()));
}
template <typename T> ARRAYD_DEVICE complex<T> cos(const complex<T>& z) {
  return complex<T>(::cos(z.real()) * ::cosh(z.imag()), -::sin(z.real()) * ::sinh(z.imag()));
}
template <typename T> ARRAYD_DEVICE complex<T> tan(const complex<T>& z) {
  // tan z = -i tanh(iz)
  const complex<T> t = tanh(complex<T>(-z.imag(), z.real()));
  return complex<T>(t.imag(), -t.real());
}
template <typename T> ARRAYD_DEVICE complex<T> asinh(const complex<T>& z) {
  return log(z + sqrt(z * z + complex<T>(T(1))));
}
template <typename T> ARRAYD_DEVICE complex<T> acosh(const complex<T>& z) {
  return log(z + sqrt(z + complex<T>(T(1))) * sqrt(z - complex<T>(T(1))));
}
template <typename T> ARRAYD_DEVICE complex<T> atanh(const complex<T>& z) {
  const complex<T> one(T(1));
  return (log(one + z) - log(one - z)) * T(0.5);
}
template <typename T> ARRAYD_DEVICE complex<T> asin(const complex<T>& z) {
  // asin z = -i asinh(iz)
  const complex<T> t = asinh(complex<T>(-z.imag(), z.real()));
  return complex<T>(t.imag(), -t.real());
}
template <typename T> ARRAYD_DEVICE complex<T> acos(const complex<T>& z) {
  const complex<T> t = asin(z);
  return complex<T>(T(1.57079632679489661923) - t.real(), -t.imag());
}
template <typename T> ARRAYD_DEVICE complex<T> atan(const complex<T>& z) {
  // atan z = -i atanh(iz)
  const complex<T> t = atanh(complex<T>(-z.imag(), z.real()));
  return complex<T>(t.imag(), -t.real());
}

}  // namespace thrust

using thrust::complex;

// ---- CArray and CIndexer -----------------------------------------------
// The generated kernels receive a pointer, shape and byte strides per
// array (by value) and build these views in the kernel.
template <typename T, int _ndim, bool _c_contiguous = false, bool _use_32bit_indexing = false>
class CArray {
 public:
  static const int ndim = _ndim;
  static const bool c_contiguous = _c_contiguous;
  typedef typename arrayd_traits::conditional<_use_32bit_indexing, int, ptrdiff_t>::type index_t;

 private:
  T* data_;
  ptrdiff_t size_;
  ptrdiff_t shape_[_ndim];
  ptrdiff_t strides_[_ndim];

 public:
  template <typename Int1, typename Int2>
  ARRAYD_DEVICE CArray(T* data, const Int1* shape, const Int2* strides) : data_(data), size_(1) {
    for (int d = 0; d < _ndim; ++d) {
      shape_[d] = shape[d];
      strides_[d] = strides[d];
      size_ *= shape[d];
    }
  }
  ARRAYD_DEVICE ptrdiff_t size() const { return size_; }
  ARRAYD_DEVICE const ptrdiff_t* shape() const { return shape_; }
  ARRAYD_DEVICE const ptrdiff_t* strides() const { return strides_; }
  ARRAYD_DEVICE T* data() const { return data_; }

  // The element at the index array `idx` (one index per dimension).
  template <typename Int>
  ARRAYD_DEVICE const T& operator[](const Int (&idx)[_ndim]) const {
    if (_c_contiguous && _ndim == 1) return data_[idx[0]];
    index_t offset = 0;
    for (int d = 0; d < _ndim; ++d) {
      offset += static_cast<index_t>(strides_[d]) * static_cast<index_t>(idx[d]);
    }
    return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(data_) + offset);
  }
  template <typename Int>
  ARRAYD_DEVICE T& operator[](const Int (&idx)[_ndim]) {
    return const_cast<T&>(static_cast<const CArray&>(*this)[idx]);
  }
  // The i-th element in C order.
  ARRAYD_DEVICE const T& operator[](ptrdiff_t i) const {
    if (_c_contiguous) return data_[i];
    index_t offset = 0;
    index_t rest = static_cast<index_t>(i);
    for (int d = _ndim - 1; d > 0; --d) {
      const index_t n = static_cast<index_t>(shape_[d]);
      offset += static_cast<index_t>(strides_[d]) * (rest % n);
      rest /= n;
    }
    offset += static_cast<index_t>(strides_[0]) * rest;
    return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(data_) + offset);
  }
  ARRAYD_DEVICE T& operator[](ptrdiff_t i) {
    return const_cast<T&>(static_cast<const CArray&>(*this)[i]);
  }
};

template <typename T, bool _c_contiguous, bool _use_32bit_indexing>
class CArray<T, 0, _c_contiguous, _use_32bit_indexing> {
 public:
  static const int ndim = 0;
  static const bool c_contiguous = true;

 private:
  T* data_;

 public:
  template <typename Int1, typename Int2>
  ARRAYD_DEVICE CArray(T* data, const Int1*, const Int2*) : data_(data) {}
  ARRAYD_DEVICE explicit CArray(T* data) : data_(data) {}
  ARRAYD_DEVICE ptrdiff_t size() const { return 1; }
  ARRAYD_DEVICE const ptrdiff_t* shape() const { return 0; }
  ARRAYD_DEVICE const ptrdiff_t* strides() const { return 0; }
  ARRAYD_DEVICE T* data() const { return data_; }
  template <typename U> ARRAYD_DEVICE const T& operator[](const U&) const { return *data_; }
  template <typename U> ARRAYD_DEVICE T& operator[](const U&) { return *data_; }
};

template <int _ndim, bool _use_32bit_indexing = false>
class CIndexer {
 public:
  static const int ndim = _ndim;
  typedef typename arrayd_traits::conditional<_use_32bit_indexing, unsigned int,
                                              ptrdiff_t>::type index_t;

 private:
  ptrdiff_t size_;
  ptrdiff_t shape_[_ndim];
  ptrdiff_t index_[_ndim];

 public:
  template <typename Int>
  ARRAYD_DEVICE explicit CIndexer(const Int* shape) : size_(1) {
    for (int d = 0; d < _ndim; ++d) {
      shape_[d] = shape[d];
      index_[d] = 0;
      size_ *= shape[d];
    }
  }
  ARRAYD_DEVICE ptrdiff_t size() const { return size_; }
  ARRAYD_DEVICE const ptrdiff_t* shape() const { return shape_; }
  // Makes get() the multi-index of the i-th element in C order.
  ARRAYD_DEVICE void set(ptrdiff_t i) {
    index_t rest = static_cast<index_t>(i);
    for (int d = _ndim - 1; d > 0; --d) {
      const index_t n = static_cast<index_t>(shape_[d]);
      index_[d] = static_cast<ptrdiff_t>(rest % n);
      rest /= n;
    }
    index_[0] = static_cast<ptrdiff_t>(rest);
  }
  ARRAYD_DEVICE const ptrdiff_t (&get() const)[_ndim] { return index_; }
};

template <bool _use_32bit_indexing>
class CIndexer<0, _use_32bit_indexing> {
 public:
  static const int ndim = 0;
  template <typename Int> ARRAYD_DEVICE explicit CIndexer(const Int*) {}
  ARRAYD_DEVICE CIndexer() {}
  ARRAYD_DEVICE ptrdiff_t size() const { return 1; }
  ARRAYD_DEVICE const ptrdiff_t* shape() const { return 0; }
  ARRAYD_DEVICE void set(ptrdiff_t) {}
  ARRAYD_DEVICE ptrdiff_t get() const { return 0; }
};

// ---- the body of a ReductionKernel ------------------------------------
// A block of kBlock threads computes block_stride outputs side by side
// (a power of two): thread t serves output lane t % block_stride and folds
// every (kBlock / block_stride)-th element of that output's reduction; the
// partial results are then folded pairwise in shared memory. The inputs'
// index space puts the reduced axes first, so element j belongs to output
// j % out_size and is the (j / out_size)-th of its reduction (_J). Grid-
// stride over output groups. map(j, J, i) is the mapped element j, fold
// the reduction, post(i, a) stores output i. Without an identity
// (kHasIdentity false) a part that saw no element is marked empty rather
// than taking part with R().
template <int kBlock, bool kHasIdentity, typename R, typename IndexT, typename InIndexer,
          typename OutIndexer, typename Map, typename Fold, typename Post>
ARRAYD_DEVICE void arrayd_reduce(const InIndexer& in_ind, const OutIndexer& out_ind,
                                 int block_stride, const R& identity, Map map, Fold fold,
                                 Post post) {
  __shared__ __align__(16) unsigned char sdata_raw[kBlock * sizeof(R)];
  R* const sdata = reinterpret_cast<R*>(sdata_raw);
  __shared__ bool shas[kHasIdentity ? 1 : kBlock];
  const unsigned int tid = threadIdx.x;
  const int shift = __popc(block_stride - 1);  // log2(block_stride)
  const ptrdiff_t lane = tid & (block_stride - 1);
  const IndexT part = static_cast<IndexT>(tid >> shift);
  const IndexT parts = static_cast<IndexT>(kBlock >> shift);
  const ptrdiff_t out_size = out_ind.size();
  const ptrdiff_t in_size = in_ind.size();
  for (ptrdiff_t base = static_cast<ptrdiff_t>(blockIdx.x) * block_stride; base < out_size;
       base += static_cast<ptrdiff_t>(gridDim.x) * block_stride) {
    const ptrdiff_t i = base + lane;
    R s = identity;
    bool has = false;
    if (i < out_size) {
      IndexT J = part;
      for (ptrdiff_t j = i + static_cast<ptrdiff_t>(part) * out_size; j < in_size;
           j += static_cast<ptrdiff_t>(parts) * out_size, J += parts) {
        const R a = map(j, J, i);
        s = (kHasIdentity || has) ? fold(s, a) : a;
        has = true;
      }
    }
    sdata[tid] = s;
    if (!kHasIdentity) shas[tid] = has;
    __syncthreads();
    for (unsigned int half = kBlock / 2; half >= static_cast<unsigned int>(block_stride);
         half >>= 1) {
      if (tid < half) {
        if (kHasIdentity) {
          sdata[tid] = fold(sdata[tid], sdata[tid + half]);
        } else if (shas[tid + half]) {
          sdata[tid] = shas[tid] ? fold(sdata[tid], sdata[tid + half]) : sdata[tid + half];
          shas[tid] = true;
        }
      }
      __syncthreads();
    }
    if (tid < static_cast<unsigned int>(block_stride) && i < out_size) post(i, sdata[tid]);
    __syncthreads();  // before the next group writes sdata
  }
}

// ---- conversions with NumPy's rules (astype) ----------------------------
// Anything to bool is "!= 0"; complex to real drops the imaginary part;
// real to complex has a zero imaginary part.
template <typename To, typename From> struct arrayd_convert {
  static ARRAYD_DEVICE To run(const From& v) { return static_cast<To>(v); }
};
template <typename From> struct arrayd_convert<bool, From> {
  static ARRAYD_DEVICE bool run(const From& v) { return v != From(0); }
};
template <> struct arrayd_convert<bool, bool> {
  static ARRAYD_DEVICE bool run(const bool& v) { return v; }
};
template <> struct arrayd_convert<bool, float16> {
  static ARRAYD_DEVICE bool run(const float16& v) { return static_cast<float>(v) != 0.0f; }
};
template <typename T> struct arrayd_convert<bool, complex<T> > {
  static ARRAYD_DEVICE bool run(const complex<T>& v) {
    return v.real() != T(0) || v.imag() != T(0);
  }
};
template <typename From> struct arrayd_convert<float16, From> {
  static ARRAYD_DEVICE float16 run(const From& v) { return float16(static_cast<float>(v)); }
};
template <> struct arrayd_convert<float16, double> {
  static ARRAYD_DEVICE float16 run(const double& v) { return float16(v); }
};
template <> struct arrayd_convert<float16, float16> {
  static ARRAYD_DEVICE float16 run(const float16& v) { return v; }
};
template <typename T> struct arrayd_convert<float16, complex<T> > {
  static ARRAYD_DEVICE float16 run(const complex<T>& v) {
    return arrayd_convert<float16, T>::run(v.real());
  }
};
template <typename To> struct arrayd_convert<To, float16> {
  static ARRAYD_DEVICE To run(const float16& v) {
    return arrayd_convert<To, float>::run(static_cast<float>(v));
  }
};
template <typename T, typename From> struct arrayd_convert<complex<T>, From> {
  static ARRAYD_DEVICE complex<T> run(const From& v) {
    return complex<T>(static_cast<T>(v), T(0));
  }
};
template <typename T> struct arrayd_convert<complex<T>, float16> {
  static ARRAYD_DEVICE complex<T> run(const float16& v) {
    return complex<T>(static_cast<T>(static_cast<float>(v)), T(0));
  }
};
template <typename T, typename U> struct arrayd_convert<complex<T>, complex<U> > {
  static ARRAYD_DEVICE complex<T> run(const complex<U>& v) { return complex<T>(v); }
};
template <typename To, typename T> struct arrayd_convert<To, complex<T> > {
  static ARRAYD_DEVICE To run(const complex<T>& v) { return static_cast<To>(v.real()); }
};
template <typename To, typename From> ARRAYD_DEVICE To arrayd_cast(const From& v) {
  return arrayd_convert<To, From>::run(v);
}

#endif  // ARRAYD_USERKERNEL_CUH_
