// cuComplex.h's API on the prelude's complex<T> (RawModule's
// translate_cucomplex=True, as CuPy's): cuFloatComplex is complex<float>,
// cuDoubleComplex complex<double>, so that kernels written for cuComplex.h
// take arrayd's complex64 and complex128 arrays and use complex<T>'s
// arithmetic. Needs _userkernel.cuh before it.
#ifndef ARRAYD_CUCOMPLEX_CUH_
#define ARRAYD_CUCOMPLEX_CUH_

typedef complex<float> cuFloatComplex;
typedef complex<double> cuDoubleComplex;
typedef cuFloatComplex cuComplex;

// Products and sums that are never contracted into fused multiply-adds: the
// server compiles its own kernels with --fmad=false (NumPy's results), and
// cuCdiv with them gives arrayd's a / b bit for bit.
ARRAYD_DEVICE float arrayd_mul_rn(float a, float b) { return __fmul_rn(a, b); }
ARRAYD_DEVICE double arrayd_mul_rn(double a, double b) { return __dmul_rn(a, b); }
ARRAYD_DEVICE float arrayd_add_rn(float a, float b) { return __fadd_rn(a, b); }
ARRAYD_DEVICE double arrayd_add_rn(double a, double b) { return __dadd_rn(a, b); }

// Smith's division, as the server's (and NumPy's) complex a / b.
template <typename T>
ARRAYD_DEVICE complex<T> arrayd_cudiv(const complex<T>& a, const complex<T>& b) {
  const T br = b.real(), bi = b.imag(), ar = a.real(), ai = a.imag();
  const T abr = br < T(0) ? -br : br;
  const T abi = bi < T(0) ? -bi : bi;
  if (abr >= abi) {
    if (abr == T(0) && abi == T(0)) return complex<T>(ar / abr, ai / abi);
    const T rat = bi / br;
    const T scl = T(1) / arrayd_add_rn(br, arrayd_mul_rn(bi, rat));
    return complex<T>(arrayd_mul_rn(arrayd_add_rn(ar, arrayd_mul_rn(ai, rat)), scl),
                      arrayd_mul_rn(arrayd_add_rn(ai, -arrayd_mul_rn(ar, rat)), scl));
  }
  const T rat = br / bi;
  const T scl = T(1) / arrayd_add_rn(bi, arrayd_mul_rn(br, rat));
  return complex<T>(arrayd_mul_rn(arrayd_add_rn(arrayd_mul_rn(ar, rat), ai), scl),
                    arrayd_mul_rn(arrayd_add_rn(arrayd_mul_rn(ai, rat), -ar), scl));
}

#define ARRAYD_CUCOMPLEX_API(T, C, S)                                                    \
  ARRAYD_DEVICE T cuCreal##S(C z) { return z.real(); }                                  \
  ARRAYD_DEVICE T cuCimag##S(C z) { return z.imag(); }                                  \
  ARRAYD_DEVICE C cuConj##S(C z) { return conj(z); }                                    \
  ARRAYD_DEVICE C cuCadd##S(C x, C y) { return x + y; }                                 \
  ARRAYD_DEVICE C cuCsub##S(C x, C y) { return x - y; }                                 \
  ARRAYD_DEVICE C cuCmul##S(C x, C y) { return x * y; }                                 \
  ARRAYD_DEVICE C cuCdiv##S(C x, C y) { return arrayd_cudiv(x, y); }                   \
  ARRAYD_DEVICE T cuCabs##S(C z) { return abs(z); }                                     \
  /* x * y + d, as cuComplex.h computes it (two fused multiply-adds each) */            \
  ARRAYD_DEVICE C cuCfma##S(C x, C y, C d) {                                            \
    T re = x.real() * y.real() + d.real();                                              \
    T im = x.real() * y.imag() + d.imag();                                              \
    re = -(x.imag() * y.imag()) + re;                                                   \
    im = x.imag() * y.real() + im;                                                      \
    return C(re, im);                                                                   \
  }
ARRAYD_CUCOMPLEX_API(float, cuFloatComplex, f)
ARRAYD_CUCOMPLEX_API(double, cuDoubleComplex, )
#undef ARRAYD_CUCOMPLEX_API

ARRAYD_DEVICE cuFloatComplex make_cuFloatComplex(float r, float i) { return cuFloatComplex(r, i); }
ARRAYD_DEVICE cuDoubleComplex make_cuDoubleComplex(double r, double i) {
  return cuDoubleComplex(r, i);
}
ARRAYD_DEVICE cuComplex make_cuComplex(float r, float i) { return cuComplex(r, i); }
ARRAYD_DEVICE cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex z) {
  return cuDoubleComplex(z.real(), z.imag());
}
ARRAYD_DEVICE cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex z) {
  return cuFloatComplex(static_cast<float>(z.real()), static_cast<float>(z.imag()));
}

#endif  // ARRAYD_CUCOMPLEX_CUH_
