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

#define ARRAYD_CUCOMPLEX_API(T, C, S)                                                    \
  ARRAYD_DEVICE T cuCreal##S(C z) { return z.real(); }                                  \
  ARRAYD_DEVICE T cuCimag##S(C z) { return z.imag(); }                                  \
  ARRAYD_DEVICE C cuConj##S(C z) { return conj(z); }                                    \
  ARRAYD_DEVICE C cuCadd##S(C x, C y) { return x + y; }                                 \
  ARRAYD_DEVICE C cuCsub##S(C x, C y) { return x - y; }                                 \
  ARRAYD_DEVICE C cuCmul##S(C x, C y) { return x * y; }                                 \
  ARRAYD_DEVICE C cuCdiv##S(C x, C y) { return x / y; }                                 \
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
