// scipy.special's functions, for the ufunc functors (kernels/functors.h): one
// double-precision routine each, shared by the CPU backend (host compilers)
// and NVRTC, where CUDA's math library has the function (erfinv, erfcx) it
// is used instead. Float inputs are computed in double and rounded once.
//
// The methods are the textbook ones, chosen so that each is accurate to a
// few ulps over the whole domain without tables: power series where they
// converge without cancellation, asymptotic expansions where their smallest
// term is below double precision, Euler-Maclaurin for the Hurwitz zeta
// function, Newton iterations on the forward function for the inverses,
// continued fractions (modified Lentz) for the incomplete gamma and
// exponential integrals, the trapezoidal rule on K_nu's integral
// representation between its series and its expansion. Special values
// (poles, signed zeros, infinities, NaN) follow SciPy.
//
// No standard library here (this header is pasted into NVRTC sources).
#ifndef ARRAYD_KERNELS_SPECIAL_H_
#define ARRAYD_KERNELS_SPECIAL_H_

#include "kernels/types.h"

#if !defined(__CUDACC_RTC__)
#include <math.h>
#endif

namespace arrayd {
namespace kernels {
namespace special {

constexpr double kPi = 3.141592653589793;
constexpr double kEulerGamma = 0.5772156649015329;
constexpr double kSqrtPi = 1.7724538509055160;
constexpr double kLogSqrt2Pi = 0.91893853320467274;  // log(sqrt(2 pi))
constexpr double kEps = 1.1102230246251565e-16;      // 2^-53

ARRAYD_HD double Inf() {
  double zero = 0.0;
  return 1.0 / zero;
}
ARRAYD_HD double NaN() { return Inf() - Inf(); }
ARRAYD_HD bool Nan(double x) { return x != x; }
ARRAYD_HD bool IsInt(double x) { return x == floor(x); }

// sin(pi x), exact zeros at the integers.
ARRAYD_HD double SinPi(double x) {
  double r = x - 2 * floor(x / 2);  // [0, 2), exact
  double sign = 1;
  if (r >= 1) {
    r -= 1;
    sign = -1;
  }
  if (r == 0) return sign * 0.0;
  if (r > 0.5) r = 1 - r;
  return sign * sin(kPi * r);
}

// log|Gamma(x)|, with the sign of Gamma(x) (1 or -1) in *sign.
ARRAYD_HD double LogAbsGamma(double x, double* sign) {
#if defined(__CUDACC_RTC__)
  *sign = (x > 0 || Nan(x) || IsInt(x) || fmod(floor(x), 2.0) == 0) ? 1 : -1;
  return lgamma(x);
#else
  int s = 1;
  double r = lgamma_r(x, &s);  // lgamma's global signgam is not thread-safe
  *sign = s;
  return r;
#endif
}

// ---- error function and its inverses --------------------------------------

// exp(x^2) erfc(x).
ARRAYD_HD double Erfcx(double x) {
#if defined(__CUDACC_RTC__)
  return erfcx(x);
#else
  if (Nan(x)) return x;
  if (x < 0) {
    if (x < -26.7) return Inf();
    double hi = x * x, lo = fma(x, x, -hi);  // x^2 = hi + lo exactly
    return 2 * exp(hi) * (1 + lo) - Erfcx(-x);
  }
  if (x < 25) {
    double hi = x * x, lo = fma(x, x, -hi);
    return exp(hi) * (1 + lo) * erfc(x);
  }
  // 1/(x sqrt(pi)) * sum_k (-1)^k (2k-1)!! / (2x^2)^k, asymptotic.
  double t = 1 / (2 * x * x), term = 1, sum = 1;
  for (int k = 1; k < 12; ++k) {
    term *= -(2 * k - 1) * t;
    sum += term;
  }
  return sum / (x * kSqrtPi);
#endif
}

// An estimate of erfinv(y), 0 <= y < 1, to about 2e-3 (Winitzki's formula),
// from w = log(1 - y^2) given by the caller without cancellation.
ARRAYD_HD double ErfinvGuess(double w) {
  const double a = 0.147;
  double t = 2 / (kPi * a) + w / 2;
  double v = sqrt(t * t - w / a) - t;
  return v > 0 ? sqrt(v) : 0.0;
}

// erfcinv(z) for 0 < z <= 0.5: Newton on log(erfc(x)) = log(z), written with
// erfcx so that nothing underflows.
ARRAYD_HD double ErfcinvTail(double z) {
  double x = ErfinvGuess(log(z) + log(2 - z));
  const double lz = log(z);
  for (int i = 0; i < 8; ++i) {
    double ex = Erfcx(x);
    double dx = (log(ex) - x * x - lz) * ex * (-kSqrtPi / 2);
    x -= dx;
    if (fabs(dx) <= 1e-16 * x) break;
  }
  return x;
}

ARRAYD_HD double Erfinv(double y) {
#if defined(__CUDACC_RTC__)
  return erfinv(y);
#else
  if (Nan(y) || y < -1 || y > 1) return NaN();
  if (y == 1) return Inf();
  if (y == -1) return -Inf();
  if (fabs(y) > 0.5) return copysign(ErfcinvTail(1 - fabs(y)), y);  // 1 - |y| is exact
  if (y == 0) return y;
  double x = copysign(ErfinvGuess(log1p(-y) + log1p(y)), y);
  for (int i = 0; i < 8; ++i) {  // Newton on erf(x) = y: relative accuracy near 0
    double dx = (erf(x) - y) * exp(x * x) * (kSqrtPi / 2);
    x -= dx;
    if (fabs(dx) <= 1e-16 * fabs(x)) break;
  }
  return x;
#endif
}

ARRAYD_HD double Erfcinv(double z) {
#if defined(__CUDACC_RTC__)
  return erfcinv(z);
#else
  if (Nan(z) || z < 0 || z > 2) return NaN();
  if (z == 0) return Inf();
  if (z == 2) return -Inf();
  if (z < 0.5) return ErfcinvTail(z);
  if (z > 1.5) return -ErfcinvTail(2 - z);
  return Erfinv(1 - z);  // exact for z in [0.5, 1.5]
#endif
}

ARRAYD_HD double Ndtr(double x) { return 0.5 * erfc(-x * 0.70710678118654752); }

ARRAYD_HD double LogNdtr(double x) {
  if (x > 0) return log1p(-0.5 * erfc(x * 0.70710678118654752));
  if (x > -1) return log(Ndtr(x));
  double t = -x * 0.70710678118654752;  // log(erfc(t)/2) = log(erfcx(t)/2) - t^2
  return log(0.5 * Erfcx(t)) - t * t;
}

ARRAYD_HD double Ndtri(double p) { return -1.4142135623730951 * Erfcinv(2 * p); }

// ---- gamma and relatives --------------------------------------------------

ARRAYD_HD double Gamma(double x) { return tgamma(x); }

ARRAYD_HD double GammaLn(double x) {
  if (x == -Inf()) return x;  // SciPy's answer
  double sign;
  return LogAbsGamma(x, &sign);
}

// scipy's real loggamma: log(Gamma(x)), NaN where Gamma is negative.
ARRAYD_HD double LogGamma(double x) {
  if (x < 0) return NaN();
  return GammaLn(x);
}

ARRAYD_HD double GammaSgn(double x) {
  if (Nan(x)) return x;
  if (x > 0) return 1;
  if (x == 0) return copysign(1.0, x);
  if (IsInt(x)) return NaN();  // the poles, and -inf
  return fmod(floor(x), 2.0) == 0 ? 1 : -1;
}

ARRAYD_HD double RGamma(double x) {
  if (x <= 0 && IsInt(x)) return x == -Inf() ? 0.0 : 0.0 * copysign(1.0, x);
  if (x > 171.7) return 0.0;
  return 1 / tgamma(x);
}

ARRAYD_HD double Digamma(double x) {
  if (Nan(x)) return x;
  if (x == Inf()) return x;
  if (x == 0) return -copysign(Inf(), x);
  if (x < 0) {
    if (IsInt(x)) return NaN();
    // Reflection: psi(x) = psi(1 - x) - pi / tan(pi x), tan by its period 1.
    double r = x - floor(x);
    return Digamma(1 - x) - kPi * cos(kPi * r) / sin(kPi * r);
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  // log x - 1/(2x) - sum_k B_2k / (2k x^2k)
  double z = 1 / (x * x);
  double series =
      z * (1.0 / 12 - z * (1.0 / 120 -
                           z * (1.0 / 252 -
                                z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return result + log(x) - 0.5 / x - series;
}

// B_2j / (2j)!, j = 1..7 (the Euler-Maclaurin and Stirling coefficients).
ARRAYD_HD double BernoulliOverFactorial(int j) {
  switch (j) {
    case 1: return 1.0 / 12;
    case 2: return -1.0 / 720;
    case 3: return 1.0 / 30240;
    case 4: return -1.0 / 1209600;
    case 5: return 1.0 / 47900160;
    case 6: return -691.0 / 1307674368000.0;
    default: return 1.0 / 74724249600.0;
  }
}

// The Hurwitz zeta function sum_k (k + q)^-s, s > 1 (scipy's zeta(x, q)).
ARRAYD_HD double HurwitzZeta(double s, double q) {
  if (Nan(s) || Nan(q)) return s + q;
  if (s == 1) return Inf();
  if (s < 1) return NaN();
  if (q <= 0) {
    if (IsInt(q)) return Inf();
    if (!IsInt(s)) return NaN();  // (q + k)^-s is complex
  }
  if (s == Inf()) return q == 1 ? 1.0 : (q < 1 ? Inf() : 0.0);
  // Direct terms until a is large against s, then Euler-Maclaurin's tail.
  double a = q, sum = 0;
  for (int n = 0; (a < 10 || a < 0.5 * s) && n < 64; ++n) {
    sum += pow(a, -s);
    a += 1;
  }
  double tail = pow(a, 1 - s) / (s - 1) + 0.5 * pow(a, -s);
  double factor = s * pow(a, -s - 1);  // s (s+1) ... (s+2j-2) a^(-s-2j+1)
  for (int j = 1; j <= 7; ++j) {
    tail += BernoulliOverFactorial(j) * factor;
    factor *= (s + 2 * j - 1) * (s + 2 * j) / (a * a);
  }
  return sum + tail;
}

// The Riemann zeta function minus one, for every real s (scipy's zetac).
ARRAYD_HD double Zetac(double s) {
  if (Nan(s)) return s;
  if (s == 1) return Inf();
  if (s > 1) return HurwitzZeta(s, 2);  // sum_{k >= 2} k^-s: no cancellation
  if (s == -Inf()) return NaN();
  if (s >= 0) {
    // Borwein's alternating series for eta(s), zeta = eta / (1 - 2^(1-s)).
    const int n = 24;
    double d[n + 1];
    double term = 1.0 / n, acc = 0;  // the sum's i-th term, (n+i-1)! 4^i / ((n-i)! (2i)!)
    for (int i = 0; i <= n; ++i) {
      if (i > 0) term *= 4.0 * (n + i - 1) * (n - i + 1) / ((2.0 * i - 1) * (2.0 * i));
      acc += term;
      d[i] = n * acc;
    }
    double eta = 0;
    for (int k = 0; k < n; ++k) {
      double t = (d[k] - d[n]) * pow(k + 1.0, -s);
      eta += (k % 2 == 0) ? t : -t;
    }
    eta = -eta / d[n];
    return eta / (1 - pow(2.0, 1 - s)) - 1;
  }
  // The functional equation: zeta(s) = 2^s pi^(s-1) sin(pi s/2) Gamma(1-s) zeta(1-s).
  double sine = SinPi(s / 2);
  if (sine == 0) return -1;  // the trivial zeros
  double z1 = 1 + HurwitzZeta(1 - s, 2);
  if (s > -50) return pow(2.0, s) * pow(kPi, s - 1) * sine * tgamma(1 - s) * z1 - 1;
  double sign;
  double lg = LogAbsGamma(1 - s, &sign);
  double mag = exp(s * 0.69314718055994531 + (s - 1) * 1.1447298858494002 + lg + log(fabs(sine)));
  return (sine < 0 ? -mag : mag) * z1 - 1;
}

ARRAYD_HD double RiemannZeta(double s) {
  if (s > 1) return HurwitzZeta(s, 1);
  return Zetac(s) + 1;
}

// lgamma(a) - lgamma(a + b) for a >= 10, b > 0, by Stirling's series, without
// the cancellation of the two large logarithms.
ARRAYD_HD double StirlingCorrection(double x) {  // lgamma(x) - Stirling's formula
  double z = 1 / (x * x);
  return (1.0 / 12 - z * (1.0 / 360 - z * (1.0 / 1260 - z * (1.0 / 1680 - z / 1188)))) / x;
}
ARRAYD_HD double LogGammaRatio(double a, double b) {
  return -(a - 0.5) * log1p(b / a) - b * log(a + b) + b + StirlingCorrection(a) -
         StirlingCorrection(a + b);
}

// log|B(a, b)|, with the sign of B in *sign.
ARRAYD_HD double LogAbsBeta(double a, double b, double* sign) {
  *sign = 1;
  if (a > 0 && b > 0) {
    double big = a > b ? a : b, small = a > b ? b : a;
    if (big < 10) return log(tgamma(a) * tgamma(b) / tgamma(a + b));
    if (small < 10) return GammaLn(small) + LogGammaRatio(big, small);
    // Both large: Stirling's formula for all three, in log1p form.
    return kLogSqrt2Pi - a * log1p(b / a) - b * log1p(a / b) +
           0.5 * (log(a + b) - log(a) - log(b)) + StirlingCorrection(a) + StirlingCorrection(b) -
           StirlingCorrection(a + b);
  }
  double sa, sb, sab;
  double r = LogAbsGamma(a, &sa) + LogAbsGamma(b, &sb) - LogAbsGamma(a + b, &sab);
  *sign = sa * sb * sab;
  return r;
}

ARRAYD_HD double Beta(double a, double b) {
  if (Nan(a) || Nan(b)) return a + b;
  if ((a <= 0 && IsInt(a)) || (b <= 0 && IsInt(b))) {
    // Gamma's poles; B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b) stays finite
    // only when a + b is a pole too, which SciPy answers as the pole.
    return Inf();
  }
  if (a > 0 && b > 0 && a + b < 170) return tgamma(a) * (tgamma(b) / tgamma(a + b));
  double sign;
  double r = LogAbsBeta(a, b, &sign);
  return sign * exp(r);
}

ARRAYD_HD double BetaLn(double a, double b) {
  if (Nan(a) || Nan(b)) return a + b;
  if ((a <= 0 && IsInt(a)) || (b <= 0 && IsInt(b))) return Inf();
  double sign;
  return LogAbsBeta(a, b, &sign);
}

// The regularized incomplete gamma functions P(a, x) (lower) and Q = 1 - P.
// The series of P where x < a + 1, else the continued fraction of Q.
ARRAYD_HD double IncompleteGamma(double a, double x, bool upper) {
  if (Nan(a) || Nan(x) || a < 0 || x < 0) return NaN();
  if (a == 0) {
    if (x == 0) return NaN();
    return upper ? 0.0 : 1.0;
  }
  if (x == 0) return upper ? 1.0 : 0.0;
  if (x == Inf()) return upper ? 0.0 : 1.0;
  if (a == Inf()) return upper ? 1.0 : 0.0;
  double sign;
  double log_prefix = a * log(x) - x - LogAbsGamma(a, &sign);  // x^a e^-x / Gamma(a)
  if (x < a + 1) {
    double term = 1 / a, sum = term;
    for (int n = 1; n < 10000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (term < sum * kEps) break;
    }
    double p = exp(log_prefix) * sum;
    return upper ? 1 - p : p;
  }
  // Q = prefix / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)), by Lentz.
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int n = 1; n < 10000; ++n) {
    double an = -n * (n - a);
    b += 2;
    d = an * d + b;
    if (fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (fabs(del - 1) < kEps) break;
  }
  double q = exp(log_prefix) * h;
  return upper ? q : 1 - q;
}

// ---- exponential integrals --------------------------------------------

// E_n(x) for integer n >= 0, x >= 0 (scipy's expn).
ARRAYD_HD double ExpN(double nd, double x) {
  if (Nan(nd) || Nan(x)) return nd + x;
  if (nd < 0 || x < 0) return NaN();
  if (x == Inf()) return 0.0;
  if (nd > 1e9) return exp(-x) / (x + nd);  // E_n(x) ~ e^-x / (x + n); no cast of a huge n
  const long long n = static_cast<long long>(nd);
  if (n == 0) return exp(-x) / x;
  if (x == 0) return n == 1 ? Inf() : 1.0 / (n - 1);
  if (x > 1) {  // continued fraction, by Lentz
    const double tiny = 1e-300;
    double b = x + n, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 10000; ++i) {
      double an = -static_cast<double>(i) * (n - 1 + i);
      b += 2;
      d = 1 / (an * d + b);
      c = b + an / c;
      double del = c * d;
      h *= del;
      if (fabs(del - 1) < kEps) break;
    }
    return h * exp(-x);
  }
  const long long m = n - 1;  // the power series, with its logarithmic term at i = n - 1
  double ans = m != 0 ? 1.0 / m : -log(x) - kEulerGamma;
  double fact = 1;
  for (long long i = 1; i < 10000; ++i) {
    fact *= -x / i;
    double del;
    if (i != m) {
      del = -fact / (i - m);
    } else {
      double psi = -kEulerGamma;
      for (long long k = 1; k <= m; ++k) psi += 1.0 / k;
      del = fact * (-log(x) + psi);
    }
    ans += del;
    if (fabs(del) < fabs(ans) * kEps) break;
  }
  return ans;
}

ARRAYD_HD double Exp1(double x) {
  if (x < 0) return NaN();
  return ExpN(1, x);
}

// Ei(x): its series up to 40, the asymptotic expansion above; -E1(-x) below 0.
ARRAYD_HD double ExpI(double x) {
  if (Nan(x)) return x;
  if (x < 0) return -Exp1(-x);
  if (x == 0) return -Inf();
  if (x == Inf()) return x;
  if (x < 40) {
    double term = 1, sum = 0;
    for (int k = 1; k < 500; ++k) {
      term *= x / k;
      double t = term / k;
      sum += t;
      if (t < sum * kEps) break;
    }
    return kEulerGamma + log(x) + sum;
  }
  double term = 1, sum = 1;
  for (int k = 1; k < 40; ++k) {
    term *= k / x;
    if (term < kEps * sum) break;
    sum += term;
  }
  return exp(x) / x * sum;
}

// ---- modified Bessel functions of order 0 and 1 ------------------------

// I_nu(x), nu = 0 or 1, x >= 0, by its power series (no cancellation).
ARRAYD_HD double BesselISeries(int nu, double x) {
  double q = x * x / 4, term = nu ? x / 2 : 1, sum = term;
  for (int k = 1; k < 500; ++k) {
    term *= q / (k * (k + nu));
    sum += term;
    if (term < sum * kEps) break;
  }
  return sum;
}

// sum_k (sign)^k a_k(nu) / x^k, a_k = prod_j (4 nu^2 - (2j-1)^2) / (8 j): the
// asymptotic series of I (sign -1) and K (sign 1), for x >= 20.
ARRAYD_HD double BesselAsymptotic(int nu, double x, double sign) {
  const double mu = 4.0 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k < 60; ++k) {
    term *= sign * (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (8.0 * k * x);
    if (fabs(term) < kEps * fabs(sum)) break;
    sum += term;
  }
  return sum;
}

// exp(-|x|) I_nu(x); `scaled` false gives I_nu(x) itself.
ARRAYD_HD double BesselI(int nu, double x, bool scaled) {
  if (Nan(x)) return x;
  if (!scaled && fabs(x) == Inf()) return NaN();  // SciPy's answer
  double ax = fabs(x), r;
  if (ax < 30) {
    r = BesselISeries(nu, ax);
    if (scaled) r *= exp(-ax);
  } else if (ax == Inf()) {
    r = scaled ? 0.0 : Inf();
  } else {
    double s = BesselAsymptotic(nu, ax, -1);
    r = scaled ? s / sqrt(2 * kPi * ax) : exp(ax - 0.5 * log(2 * kPi * ax)) * s;
  }
  return (nu == 1 && x < 0) ? -r : r;
}

// exp(x) K_nu(x), nu = 0 or 1: the series up to 2, the trapezoidal rule on
// exp(x) K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt up to 20 (its
// error falls as exp(-2 pi d / h) for an integrand analytic in |Im t| < d),
// the asymptotic series above.
ARRAYD_HD double BesselKScaled(int nu, double x) {
  if (x <= 2) {
    const double q = x * x / 4;
    double k;
    if (nu == 0) {
      double term = 1, h = 0, sum = 0;
      for (int j = 1; j < 100; ++j) {
        term *= q / (static_cast<double>(j) * j);
        h += 1.0 / j;
        sum += term * h;
        if (term * h < kEps * sum) break;
      }
      k = -(log(x / 2) + kEulerGamma) * BesselISeries(0, x) + sum;
    } else {
      double term = 1, psi1 = -kEulerGamma, psi2 = 1 - kEulerGamma, sum = psi1 + psi2;
      for (int j = 1; j < 100; ++j) {
        term *= q / (static_cast<double>(j) * (j + 1));
        psi1 += 1.0 / j;
        psi2 += 1.0 / (j + 1);
        double t = term * (psi1 + psi2);
        sum += t;
        if (fabs(t) < kEps * fabs(sum)) break;
      }
      k = 1 / x + log(x / 2) * BesselISeries(1, x) - x / 4 * sum;
    }
    return k * exp(x);
  }
  if (x < 20) {
    const double h = 0.07;
    double sum = 0.5;
    for (int j = 1; j < 2000; ++j) {
      double t = j * h;
      double f = exp(-x * (cosh(t) - 1)) * (nu ? cosh(t) : 1.0);
      sum += f;
      if (f < 1e-18 * sum) break;
    }
    return sum * h;
  }
  return BesselAsymptotic(nu, x, 1) * sqrt(kPi / (2 * x));
}

ARRAYD_HD double BesselK(int nu, double x, bool scaled) {
  if (Nan(x)) return x;
  if (x < 0) return NaN();
  if (x == 0) return Inf();
  if (x == Inf()) return 0.0;
  double r = BesselKScaled(nu, x);
  return scaled ? r : r * exp(-x);
}

// ---- elliptic integral of the first kind ------------------------------

// K(1 - p) = pi / (2 AGM(1, sqrt(p))): scipy's ellipkm1(p).
ARRAYD_HD double EllipKm1(double p) {
  if (Nan(p) || p < 0) return NaN();
  if (p == 0) return Inf();
  if (p == Inf()) return 0.0;
  double a = 1, b = sqrt(p);
  for (int i = 0; i < 64 && fabs(a - b) > 1e-16 * a; ++i) {
    double m = (a + b) / 2;
    b = sqrt(a * b);
    a = m;
  }
  return kPi / (a + b);
}

// ---- small compositions ---------------------------------------------------

ARRAYD_HD double Expit(double x) { return 1 / (1 + exp(-x)); }
ARRAYD_HD double LogExpit(double x) { return x < 0 ? x - log1p(exp(x)) : -log1p(exp(-x)); }
ARRAYD_HD double Logit(double p) {
  if (p >= 0.25 && p <= 0.75) return log1p((2 * p - 1) / (1 - p));
  return log(p) - log1p(-p);
}
ARRAYD_HD double Entr(double x) {
  if (Nan(x)) return x;
  if (x > 0) return -x * log(x);
  return x == 0 ? 0.0 : -Inf();
}
ARRAYD_HD double Xlogy(double x, double y) {
  if (x == 0 && !Nan(y)) return 0.0;
  return x * log(y);
}
ARRAYD_HD double Xlog1py(double x, double y) {
  if (x == 0 && !Nan(y)) return 0.0;
  return x * log1p(y);
}
ARRAYD_HD double RelEntr(double x, double y) {
  if (Nan(x) || Nan(y)) return x + y;
  if (x > 0 && y > 0) return x * log(x / y);
  return (x == 0 && y >= 0) ? 0.0 : Inf();
}
ARRAYD_HD double KlDiv(double x, double y) {
  if (Nan(x) || Nan(y)) return x + y;
  if (x > 0 && y > 0) return x * log(x / y) - x + y;
  return (x == 0 && y >= 0) ? y : Inf();
}
ARRAYD_HD double Exprel(double x) {
  if (fabs(x) < 1e-16) return 1 + x / 2;
  if (x > 717) return Inf();
  return expm1(x) / x;
}
ARRAYD_HD double Cosm1(double x) {
  double s = sin(x / 2);
  return -2 * s * s;
}
ARRAYD_HD double BoxCox(double x, double lmbda) {
  if (fabs(lmbda) < 1e-19) return log(x);
  return expm1(lmbda * log(x)) / lmbda;
}
ARRAYD_HD double BoxCox1p(double x, double lmbda) {
  double l = log1p(x);
  if (fabs(lmbda) < 1e-19) return l;
  return expm1(lmbda * l) / lmbda;
}
ARRAYD_HD double InvBoxCox(double y, double lmbda) {
  if (lmbda == 0) return exp(y);
  return exp(log1p(lmbda * y) / lmbda);
}
ARRAYD_HD double InvBoxCox1p(double y, double lmbda) {
  if (lmbda == 0) return expm1(y);
  return expm1(log1p(lmbda * y) / lmbda);
}
ARRAYD_HD double Huber(double delta, double r) {
  if (delta < 0) return Inf();
  if (fabs(r) <= delta) return 0.5 * r * r;
  return delta * (fabs(r) - 0.5 * delta);
}
ARRAYD_HD double PseudoHuber(double delta, double r) {
  if (delta < 0) return Inf();
  if (delta == 0 || r == 0) return 0.0;
  double q = r / delta;
  return delta * delta * (sqrt(1 + q * q) - 1);
}

// Binomial coefficients of real n: a product for small integer k, else
// 1 / ((n + 1) B(n - k + 1, k + 1)).
ARRAYD_HD double Binom(double n, double k) {
  if (Nan(n) || Nan(k)) return n + k;
  if (IsInt(k)) {
    if (k < 0) return 0.0;
    if (IsInt(n) && n >= 0 && k > n) return 0.0;
    double kk = (IsInt(n) && n >= 0 && k > n / 2) ? n - k : k;
    if (kk < 30) {
      double r = 1;
      for (int i = 1; i <= static_cast<int>(kk); ++i) r *= (n - kk + i) / i;
      return r;
    }
  }
  if (n > -1 && n - k > -1) return 1 / ((n + 1) * Beta(n - k + 1, k + 1));
  return tgamma(n + 1) / (tgamma(k + 1) * tgamma(n - k + 1));
}

// sin, cos, tan, cot of degrees, exact at the multiples of 90 degrees.
// SciPy answers 0 for infinite arguments and +inf at the poles.
ARRAYD_HD double SinDg(double x) { return fabs(x) == Inf() ? 0.0 : SinPi(x / 180); }
ARRAYD_HD double CosDg(double x) { return fabs(x) == Inf() ? 0.0 : SinPi(x / 180 + 0.5); }
ARRAYD_HD double TanDg(double x) {
  if (fabs(x) == Inf()) return 0.0;
  double c = CosDg(x);
  return c == 0 ? Inf() : SinDg(x) / c;
}
ARRAYD_HD double CotDg(double x) {
  if (fabs(x) == Inf()) return 0.0;
  double s = SinDg(x);
  return s == 0 ? Inf() : CosDg(x) / s;
}

// Bessel functions of the first and second kinds of integer order n (a
// non-integer n gives NaN for jn; yn truncates it, as SciPy's yn does).
ARRAYD_HD double BesselJn(double n, double x) {
  if (Nan(n) || Nan(x)) return n + x;
  if (!IsInt(n) || fabs(n) > 2147483647.0) return NaN();
  return jn(static_cast<int>(n), x);
}
ARRAYD_HD double BesselYn(double n, double x) {
  if (Nan(n) || Nan(x)) return n + x;
  if (fabs(n) > 2147483647.0) return NaN();
  if (x < 0) return NaN();
  return yn(static_cast<int>(n), x);
}
// SciPy answers NaN at infinity.
ARRAYD_HD double BesselJ0(double x) { return fabs(x) == Inf() ? NaN() : j0(x); }
ARRAYD_HD double BesselJ1(double x) { return fabs(x) == Inf() ? NaN() : j1(x); }
ARRAYD_HD double BesselY0(double x) { return x < 0 || x == Inf() ? NaN() : y0(x); }
ARRAYD_HD double BesselY1(double x) { return x < 0 || x == Inf() ? NaN() : y1(x); }

}  // namespace special
}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_KERNELS_SPECIAL_H_
