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
// SciPy's order of the special cases: s < 1 first, then q at a pole
// (q = -inf among them), then NaN.
ARRAYD_HD double HurwitzZeta(double s, double q) {
  if (s == 1) return Inf();
  if (s < 1) return NaN();
  if (q <= 0) {
    if (IsInt(q)) return Inf();
    if (!IsInt(s)) return NaN();  // (q + k)^-s is complex
  }
  if (Nan(s) || Nan(q)) return s + q;
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
    if (big < 10 && small > 1e-100) return log(tgamma(a) * tgamma(b) / tgamma(a + b));
    if (big < 10) return GammaLn(a) + GammaLn(b) - GammaLn(a + b);
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

// B(a, b) where a is a non-positive integer (a pole of Gamma(a)): finite,
// (-1)^b B(1 - a - b, b), where b is an integer with a + b < 1, else the pole.
ARRAYD_HD bool BetaAtPole(double a, double b, double* log_abs, double* sign) {
  if (!(a <= 0 && IsInt(a))) return false;
  if (IsInt(b) && 1 - a - b > 0 && a > -1e15 && b > -1e15) {
    *sign = fmod(b, 2.0) == 0 ? 1.0 : -1.0;
    double s;
    *log_abs = LogAbsBeta(1 - a - b, b, &s);
    *sign *= s;
  } else {
    *sign = 1;
    *log_abs = Inf();
  }
  return true;
}

ARRAYD_HD double Beta(double a, double b) {
  double lb, sign;
  // The poles come first: SciPy answers them (inf) even for a NaN partner.
  if (BetaAtPole(a, b, &lb, &sign) || BetaAtPole(b, a, &lb, &sign)) return sign * exp(lb);
  if (Nan(a) || Nan(b)) return a + b;
  if ((a == Inf() && b > 0 && b < Inf()) || (b == Inf() && a > 0 && a < Inf())) return 0.0;
  if (a > 0 && b > 0 && a + b < 170 && a > 1e-200 && b > 1e-200) {
    return tgamma(a) * (tgamma(b) / tgamma(a + b));
  }
  double r = LogAbsBeta(a, b, &sign);
  return sign * exp(r);
}

ARRAYD_HD double BetaLn(double a, double b) {
  double lb, sign;
  if (BetaAtPole(a, b, &lb, &sign) || BetaAtPole(b, a, &lb, &sign)) return lb;
  if (Nan(a) || Nan(b)) return a + b;
  if ((a == Inf() && b > 0 && b < Inf()) || (b == Inf() && a > 0 && a < Inf())) return -Inf();
  return LogAbsBeta(a, b, &sign);
}

// log(1 + d) - d, without cancellation for small d.
ARRAYD_HD double Log1pmx(double d) {
  if (fabs(d) > 0.25) return log1p(d) - d;
  double term = d, sum = 0;  // sum_k>=2 (-1)^(k+1) d^k / k
  for (int k = 2; k < 200; ++k) {
    term *= -d;
    double t = term / k;
    sum += t;
    if (fabs(t) < kEps * fabs(sum)) break;
  }
  return sum;
}

// log(x^a e^-x / Gamma(a)); for large a in the form a (log1p(d) - d) +
// log(sqrt(a / (2 pi))) - (Stirling's correction), d = (x - a) / a, which
// keeps the cancellation of a log x against x and lgamma(a) exact.
ARRAYD_HD double LogGammaPrefix(double a, double x) {
  if (a < 10) {
    double sign;
    return a * log(x) - x - LogAbsGamma(a, &sign);
  }
  return a * Log1pmx((x - a) / a) + 0.5 * log(a) - kLogSqrt2Pi - StirlingCorrection(a);
}

// log Gamma(1 + a) for |a| <= 0.25: -gamma a + sum_k>=2 (-1)^k zeta(k) a^k / k,
// accurate relative to its small value.
ARRAYD_HD double LogGamma1pSmall(double a) {
  double term = -a, sum = kEulerGamma * term;  // term = (-a)^k
  for (int k = 2; k < 60; ++k) {
    term *= -a;
    double t = (1 + HurwitzZeta(k, 2)) * term / k;
    sum += t;
    if (fabs(t) < kEps * fabs(sum)) break;
  }
  return sum;
}

// Q(a, x) for a < 1, x < 2, where 1 - P would cancel:
// Q = -expm1(a log x - lgamma(1 + a)) - x^a / Gamma(a) sum_n>=1 (-x)^n / (n! (a + n)).
ARRAYD_HD double UpperGammaSmallA(double a, double x) {
  double lg1p = fabs(a) <= 0.25 ? LogGamma1pSmall(a) : GammaLn(1 + a);
  double head = -expm1(a * log(x) - lg1p);
  double term = 1, sum = 0;
  for (int n = 1; n < 200; ++n) {
    term *= -x / n;
    double t = term / (a + n);
    sum += t;
    if (fabs(t) < kEps * fabs(sum)) break;
  }
  // x^a / Gamma(a) = a x^a / Gamma(1 + a)
  return head - a * exp(a * log(x) - lg1p) * sum;
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
  if (a == Inf()) return x == Inf() ? NaN() : (upper ? 1.0 : 0.0);
  if (x == Inf()) return upper ? 0.0 : 1.0;
  if (upper && a < 1 && x < 2) return UpperGammaSmallA(a, x);
  const double log_prefix = LogGammaPrefix(a, x);
  if (x < a + 1) {
    double term = 1 / a, sum = term;
    for (int n = 1; n < 4000000; ++n) {  // about 8 sqrt(a) terms where x is near a
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
  for (int n = 1; n < 4000000; ++n) {
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
  if (n < 0 && IsInt(n)) return NaN();  // SciPy's answer (-inf among them)
  if (k == Inf()) return NaN();
  if (IsInt(k) && fabs(k) < 1e15) {
    if (k < 0) return 0.0;
    if (IsInt(n) && n >= 0 && k > n) return 0.0;
    double kk = (IsInt(n) && n >= 0 && k > n / 2) ? n - k : k;
    if (kk < 20) {  // SciPy's products (larger k: the beta function)
      double r = 1;
      for (int i = 1; i <= static_cast<int>(kk); ++i) r *= (n - kk + i) / i;
      return r;
    }
  }
  if (k > 1e8 * fabs(n) && k > 1e8) {
    // Gamma(n + 1) sin(pi (k - n)) Gamma(k - n) / (pi Gamma(k + 1)), with
    // Gamma(k - n) / Gamma(k + 1) = k^(-n-1) (1 + n (n + 1) / (2k) + ...)
    // and the sine from the fraction of k, exactly.
    double kf = floor(k), sgn = fmod(kf, 2.0) == 0 ? 1 : -1;
    double s = sgn * SinPi(k - kf - n);
    return tgamma(n + 1) * s * exp(-(n + 1) * log(k)) * (1 + n * (n + 1) / (2 * k)) / kPi;
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
// A negative order is reflected, J_-n = (-1)^n J_n and likewise for Y:
// CUDA's jn and yn answer NaN for n < 0, glibc's reflect.
ARRAYD_HD double BesselJn(double n, double x) {
  if (Nan(n) || Nan(x)) return n + x;
  if (!IsInt(n) || fabs(n) > 2147483647.0) return NaN();
  if (x == 0) return n == 0 ? 1.0 : 0.0;  // CUDA's jn: NaN there for n > 1
  const int k = static_cast<int>(fabs(n));
  const double r = jn(k, x);
  return n < 0 && (k & 1) ? -r : r;
}
ARRAYD_HD double BesselYn(double n, double x) {
  if (Nan(n) || Nan(x)) return n + x;
  if (fabs(n) > 2147483647.0) return NaN();
  if (x < 0) return NaN();
  const int k = static_cast<int>(fabs(n));
  const double r = yn(k, x);
  return n <= -1 && (k & 1) ? -r : r;
}
// SciPy answers NaN at infinity.
ARRAYD_HD double BesselJ0(double x) { return fabs(x) == Inf() ? NaN() : j0(x); }
ARRAYD_HD double BesselJ1(double x) { return fabs(x) == Inf() ? NaN() : j1(x); }
ARRAYD_HD double BesselY0(double x) { return x < 0 || x == Inf() ? NaN() : y0(x); }
ARRAYD_HD double BesselY1(double x) { return x < 0 || x == Inf() ? NaN() : y1(x); }

// ---- complex arithmetic for the complex loops ------------------------------

typedef Complex<double> Cx;

ARRAYD_HD Cx CxMake(double re, double im) { return Cx(re, im); }
ARRAYD_HD Cx CxScale(Cx z, double s) { return Cx(z.re * s, z.im * s); }
ARRAYD_HD Cx CxAdd(Cx z, double r) { return Cx(z.re + r, z.im); }
ARRAYD_HD double CxAbs(Cx z) { return hypot(z.re, z.im); }
ARRAYD_HD bool CxNan(Cx z) { return Nan(z.re) || Nan(z.im); }
ARRAYD_HD bool CxFinite(Cx z) { return fabs(z.re) < Inf() && fabs(z.im) < Inf(); }
ARRAYD_HD Cx CxNaN() { return Cx(NaN(), NaN()); }
ARRAYD_HD Cx CxExp(Cx z) {
  double e = exp(z.re);
  if (z.im == 0) return Cx(e, z.im);
  return Cx(e * cos(z.im), e * sin(z.im));
}
// The principal logarithm; a zero imaginary part counts as +0 (SciPy's cut).
ARRAYD_HD Cx CxLog(Cx z) { return Cx(log(CxAbs(z)), atan2(z.im + 0.0, z.re)); }
// log(1 + z), accurate for small z.
ARRAYD_HD Cx CxLog1p(Cx z) {
  if (CxAbs(z) < 0.5) {
    double re = 0.5 * log1p(z.re * (2 + z.re) + z.im * z.im);
    return Cx(re, atan2(z.im, 1 + z.re));
  }
  return CxLog(CxAdd(z, 1));
}
ARRAYD_HD Cx CxSqrt(Cx z) {
  if (z.re == 0 && z.im == 0) return Cx(0, z.im);
  double t = sqrt((fabs(z.re) + CxAbs(z)) / 2);
  if (z.re >= 0) return Cx(t, z.im / (2 * t));
  return Cx(fabs(z.im) / (2 * t), copysign(t, z.im));
}
ARRAYD_HD Cx CxSin(Cx z) { return Cx(sin(z.re) * cosh(z.im), cos(z.re) * sinh(z.im)); }
ARRAYD_HD Cx CxCos(Cx z) { return Cx(cos(z.re) * cosh(z.im), -sin(z.re) * sinh(z.im)); }
ARRAYD_HD Cx CxInv(Cx z) { return Cx(1.0) / z; }

// ---- complex gamma, log-gamma and digamma -----------------------------------

// log Gamma(w) by Stirling's series, for Re w >= 15.
ARRAYD_HD Cx CxStirlingLogGamma(Cx w) {
  Cx r = CxInv(w), r2 = r * r;
  // B_2k / (2k (2k - 1)), k = 1..8
  const double c[8] = {1.0 / 12,   -1.0 / 360,      1.0 / 1260, -1.0 / 1680,
                       1.0 / 1188, -691.0 / 360360, 1.0 / 156,  -3617.0 / 122400};
  Cx series(c[7]);
  for (int k = 6; k >= 0; --k) series = series * r2 + Cx(c[k]);
  series = series * r;
  return (CxAdd(w, -0.5) * CxLog(w)) - w + Cx(kLogSqrt2Pi) + series;
}

// scipy's complex loggamma: the branch continuous off the negative real axis
// (the principal log on the positive reals); NaN at the poles and for
// infinite or NaN input.
ARRAYD_HD Cx CxLogGamma(Cx z) {
  if (!CxFinite(z)) return CxNaN();
  if (z.im == 0 && z.re <= 0 && IsInt(z.re)) return CxNaN();
  if (z.im == 0 && z.re > 0) return Cx(GammaLn(z.re), 0.0);
  if (z.re < -200) {
    // Reflection, with the multiple of 2 pi i that keeps the branch.
    Cx s = CxSin(CxScale(z, kPi));
    double k = floor(0.5 * z.re + 0.25);
    Cx r = Cx(1.1447298858494002, copysign(2 * kPi, z.im) * k) - CxLog(s);
    return r - CxLogGamma(Cx(1 - z.re, -z.im));
  }
  // log Gamma(z) = log Gamma(z + n) - sum_k log(z + k): each log is principal,
  // so the sum keeps the branch.
  Cx shift(0.0), w = z;
  while (w.re < 15) {
    shift = shift + CxLog(w);
    w = CxAdd(w, 1);
  }
  return CxStirlingLogGamma(w) - shift;
}

ARRAYD_HD Cx CxGamma(Cx z) {
  if (z.im == 0) {
    if (z.re <= 0 && IsInt(z.re)) return CxNaN();  // the poles and -inf
    if (z.re < 171.6 && !Nan(z.re)) return Cx(tgamma(z.re), 0.0);
  }
  if (!CxFinite(z)) return CxNaN();
  return CxExp(CxLogGamma(z));
}

ARRAYD_HD Cx CxRGamma(Cx z) {
  if (z.im == 0 && z.re <= 0 && IsInt(z.re)) return Cx(0.0, 0.0);  // the poles and -inf
  if (!CxFinite(z)) return CxNaN();
  return CxExp(-CxLogGamma(z));
}

ARRAYD_HD Cx CxDigamma(Cx z) {
  if (z.im == 0) {
    if (z.re == Inf()) return Cx(Inf(), 0.0);
    if (z.re <= 0 && IsInt(z.re)) return CxNaN();
    return Cx(Digamma(z.re), 0.0);
  }
  if (!CxFinite(z)) return CxNaN();
  Cx result(0.0);
  if (z.re < 0.5) {
    // psi(z) = psi(1 - z) - pi cot(pi z)
    Cx w = CxScale(z, kPi), cot;
    if (fabs(w.im) > 20) {
      cot = Cx(0.0, w.im > 0 ? -1.0 : 1.0);
    } else {
      cot = CxCos(w) / CxSin(w);
    }
    result = -CxScale(cot, kPi);
    z = Cx(1 - z.re, -z.im);
  }
  while (z.re < 15) {
    result = result - CxInv(z);
    z = CxAdd(z, 1);
  }
  // log z - 1/(2z) - sum_k B_2k / (2k z^2k)
  Cx r = CxInv(z), r2 = r * r;
  const double c[7] = {1.0 / 12,  -1.0 / 120,     1.0 / 252, -1.0 / 240,
                       1.0 / 132, -691.0 / 32760, 1.0 / 12};
  Cx series(c[6]);
  for (int k = 5; k >= 0; --k) series = series * r2 + Cx(c[k]);
  series = series * r2;
  return result + CxLog(z) - CxScale(r, 0.5) - series;
}

ARRAYD_HD Cx CxXlogy(Cx x, Cx y) {
  if (x.re == 0 && x.im == 0 && !CxNan(y)) return Cx(0.0, 0.0);
  return x * CxLog(y);
}
ARRAYD_HD Cx CxXlog1py(Cx x, Cx y) {
  if (x.re == 0 && x.im == 0 && !CxNan(y)) return Cx(0.0, 0.0);
  return x * CxLog1p(y);
}

// ---- the incomplete beta function and its inverse -------------------------

// x^a (1 - x)^b / B(a, b), in logs.
ARRAYD_HD double BetaPrefixLog(double a, double b, double x) {
  double sign;
  return a * log(x) + b * log1p(-x) - LogAbsBeta(a, b, &sign);
}

// The continued fraction of I_x(a, b) (for x < (a + 1) / (a + b + 2)), by Lentz.
ARRAYD_HD double BetaContinuedFraction(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m < 10000; ++m) {
    double aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));  // even step
    d = 1 + aa * d;
    if (fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));  // odd step
    d = 1 + aa * d;
    if (fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (fabs(del - 1) < kEps) break;
  }
  return h;
}

// The regularized incomplete beta function I_x(a, b) (scipy's betainc).
ARRAYD_HD double IncBeta(double a, double b, double x) {
  if (Nan(a) || Nan(b) || Nan(x)) return NaN();
  if (a < 0 || b < 0 || x < 0 || x > 1) return NaN();
  if (a == 0 && b == 0) return NaN();
  if (a == Inf() && b == Inf()) return NaN();
  if (a == 0 || b == Inf()) return x > 0 ? 1.0 : 0.0;
  if (b == 0 || a == Inf()) return x < 1 ? 0.0 : 1.0;
  if (x == 0) return 0.0;
  if (x == 1) return 1.0;
  bool flip = x > (a + 1) / (a + b + 2);
  double aa = flip ? b : a, bb = flip ? a : b, xx = flip ? 1 - x : x;
  // 1 - x loses nothing where it matters: the flipped side has x > 1/2 mostly.
  double front = exp(BetaPrefixLog(aa, bb, xx)) / aa;
  double r = front * BetaContinuedFraction(aa, bb, xx);
  return flip ? 1 - r : r;
}

// The complement 1 - I_x(a, b), without cancellation.
ARRAYD_HD double IncBetaC(double a, double b, double x) {
  if (Nan(a) || Nan(b) || Nan(x)) return NaN();
  if (x < 0 || x > 1) return NaN();
  return IncBeta(b, a, 1 - x);
}

// x with I_x(a, b) = y (scipy's betaincinv): Newton's method on I_x - y,
// kept inside a bracket by bisection.
ARRAYD_HD double IncBetaInv(double a, double b, double y) {
  if (Nan(a) || Nan(b) || Nan(y)) return NaN();
  if (a < 0 || b < 0 || y < 0 || y > 1) return NaN();
  if (a == 0 || b == 0) return NaN();
  if (y == 0) return 0.0;
  if (y == 1) return 1.0;
  // SciPy's answers at infinite a or b: the limits where the other is 1.
  if (a == Inf()) return b == 1 ? 1.0 : NaN();
  if (b == Inf()) return a == 1 ? 0.0 : NaN();
  double sign;
  const double lbeta = LogAbsBeta(a, b, &sign);
  double lo = 0, hi = 1;
  // Start from the small-x (x^a a B / ...) or the small-(1-x) asymptote.
  double x = exp((log(y) + log(a) + lbeta) / a);
  if (!(x > 0 && x < 1)) x = a / (a + b);
  for (int i = 0; i < 200; ++i) {
    double f = IncBeta(a, b, x) - y;
    if (f == 0) return x;
    if (f < 0) {
      lo = x;
    } else {
      hi = x;
    }
    double dens = exp((a - 1) * log(x) + (b - 1) * log1p(-x) - lbeta);
    double next = x - f / dens;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (fabs(next - x) <= 4 * kEps * x || hi - lo <= 4 * kEps * hi) return next;
    x = next;
  }
  return x;
}

// ---- distributions built on the incomplete beta and gamma functions ------

// F distribution: fdtr(dfn, dfd, x), its complement and its inverse.
ARRAYD_HD double Fdtr(double dfn, double dfd, double x) {
  if (Nan(dfn) || Nan(dfd) || Nan(x) || dfn <= 0 || dfd <= 0 || x < 0) return NaN();
  if (x == Inf()) return 1.0;
  double w = dfn * x;
  return IncBeta(0.5 * dfn, 0.5 * dfd, w / (dfd + w));
}
ARRAYD_HD double Fdtrc(double dfn, double dfd, double x) {
  if (Nan(dfn) || Nan(dfd) || Nan(x) || dfn <= 0 || dfd <= 0 || x < 0) return NaN();
  if (x == Inf()) return 0.0;
  double w = dfn * x;
  return IncBeta(0.5 * dfd, 0.5 * dfn, dfd / (dfd + w));
}
ARRAYD_HD double Fdtri(double dfn, double dfd, double p) {
  if (Nan(dfn) || Nan(dfd) || Nan(p) || dfn <= 0 || dfd <= 0 || p < 0 || p > 1) return NaN();
  if (p == 1) return Inf();
  double w = IncBetaInv(0.5 * dfn, 0.5 * dfd, p);
  return dfd * w / (dfn * (1 - w));
}

// Binomial distribution (k successes or fewer in n trials of probability p).
ARRAYD_HD double Bdtr(double k, double n, double p) {
  if (Nan(k) || Nan(n) || Nan(p) || p < 0 || p > 1) return NaN();
  k = floor(k);
  if (k < 0 || n < k) return NaN();
  if (k == n || p == 0) return 1.0;
  if (p == 1) return 0.0;
  return IncBeta(n - k, k + 1, 1 - p);
}
ARRAYD_HD double Bdtrc(double k, double n, double p) {
  if (Nan(k) || Nan(n) || Nan(p) || p < 0 || p > 1) return NaN();
  k = floor(k);
  if (k < 0) return 1.0;
  if (n < k) return NaN();
  if (k == n || p == 0) return 0.0;
  if (p == 1) return 1.0;
  return IncBeta(k + 1, n - k, p);
}
ARRAYD_HD double Bdtri(double k, double n, double y) {
  if (Nan(k) || Nan(n) || Nan(y) || y < 0 || y > 1) return NaN();
  k = floor(k);
  if (k < 0 || n <= k) return NaN();
  if (y == 0) return 1.0;
  if (y == 1) return 0.0;
  return 1 - IncBetaInv(n - k, k + 1, y);
}

// Negative binomial distribution (k failures or fewer before the n-th success).
ARRAYD_HD double Nbdtr(double k, double n, double p) {
  if (Nan(k) || Nan(n) || Nan(p) || p < 0 || p > 1) return NaN();
  k = floor(k);
  if (k < 0 || n <= 0) return NaN();
  if (p == 0) return 0.0;
  if (p == 1) return 1.0;
  return IncBeta(n, k + 1, p);
}
ARRAYD_HD double Nbdtrc(double k, double n, double p) {
  if (Nan(k) || Nan(n) || Nan(p) || p < 0 || p > 1) return NaN();
  k = floor(k);
  if (k < 0 || n <= 0) return NaN();
  if (p == 0) return 1.0;
  if (p == 1) return 0.0;
  return IncBeta(k + 1, n, 1 - p);
}
ARRAYD_HD double Nbdtri(double k, double n, double y) {
  if (Nan(k) || Nan(n) || Nan(y) || y < 0 || y > 1) return NaN();
  k = floor(k);
  if (k < 0) return NaN();
  if (y == 0 || y == 1) return y;
  if (n <= 0) return NaN();
  return IncBetaInv(n, k + 1, y);
}

// x with P(a, x) = y (upper false) or Q(a, x) = y (upper true): Newton's
// method in a bracket that grows until it holds the root, then bisects
// where a Newton step leaves it.
ARRAYD_HD double IncompleteGammaInv(double a, double y, bool upper) {
  if (Nan(a) || Nan(y) || a < 0 || y < 0 || y > 1) return NaN();
  if (y == 0) return upper ? Inf() : 0.0;
  if (y == 1) return upper ? 0.0 : Inf();
  if (a == 0 || a == Inf()) return NaN();
  double sign;
  const double lg = LogAbsGamma(a, &sign);
  // Wilson-Hilferty for the start, with the lower tail's own asymptote.
  double p = upper ? 1 - y : y;
  double z = Ndtri(upper ? 1 - y : y);
  if (upper && y < 0.5) z = -Ndtri(y);
  double t = 1 - 1 / (9 * a) + z / (3 * sqrt(a));
  double x = a * t * t * t;
  if (a < 1 || !(x > 0)) {
    double small = exp((log(p) + lg + log(a)) / a);  // P(a, x) ~ x^a / (a Gamma(a))
    if (small > 0 && small < Inf() && (!(x > 0) || p < 0.5)) x = small;
  }
  if (!(x > 0) || x == Inf()) x = a;
  double lo = 0, hi = Inf();
  for (int i = 0; i < 300; ++i) {
    double f = IncompleteGamma(a, x, upper) - y;  // decreasing in x when upper
    if (f == 0) return x;
    bool below = upper ? f > 0 : f < 0;  // the root lies above x
    if (below) {
      lo = x;
    } else {
      hi = x;
    }
    double dens = exp((a - 1) * log(x) - x - lg);
    double next = x - (upper ? -f : f) / dens;
    if (!(next > lo && next < hi)) next = hi == Inf() ? 2 * x + 1 : 0.5 * (lo + hi);
    if (fabs(next - x) <= 4 * kEps * x) return next;
    x = next;
  }
  return x;
}

ARRAYD_HD double Chdtr(double v, double x) { return IncompleteGamma(0.5 * v, 0.5 * x, false); }
ARRAYD_HD double Chdtrc(double v, double x) { return IncompleteGamma(0.5 * v, 0.5 * x, true); }
ARRAYD_HD double Chdtri(double v, double y) { return 2 * IncompleteGammaInv(0.5 * v, y, true); }
// The Poisson functions floor k, as SciPy's.
ARRAYD_HD double Pdtr(double k, double m) {
  if (Nan(k) || Nan(m) || k < 0 || m < 0) return NaN();
  k = floor(k);
  if (k == Inf()) return 1.0;
  return IncompleteGamma(k + 1, m, true);
}
ARRAYD_HD double Pdtrc(double k, double m) {
  if (Nan(k) || Nan(m) || k < 0 || m < 0) return NaN();
  k = floor(k);
  if (k == Inf()) return 0.0;
  return IncompleteGamma(k + 1, m, false);
}
ARRAYD_HD double Pdtri(double k, double y) {
  if (Nan(k) || Nan(y) || k < 0 || k == Inf() || y < 0 || y >= 1) return NaN();
  return IncompleteGammaInv(floor(k) + 1, y, true);
}
// The gamma distribution of rate a and shape b.
ARRAYD_HD double Gdtr(double a, double b, double x) {
  if (Nan(a) || Nan(b) || Nan(x) || b <= 0 || x < 0) return NaN();
  if (x == 0) return 0.0;  // before a's check, as SciPy
  if (a < 0) return NaN();
  return IncompleteGamma(b, a * x, false);
}
ARRAYD_HD double Gdtrc(double a, double b, double x) {
  if (Nan(a) || Nan(b) || Nan(x) || b < 0 || x < 0) return NaN();
  if (x == 0 && b > 0) return 1.0;
  if (a < 0) return NaN();
  return IncompleteGamma(b, a * x, true);
}

// ---- Legendre functions and spherical harmonics --------------------------

// P_v^m(x) of integer order m and real degree v (scipy's lpmv, with the
// Condon-Shortley phase): the three-term recurrence in the degree for
// integer v, the hypergeometric series in (1 - x) / 2 otherwise.
ARRAYD_HD double Lpmv(double m, double v, double x) {
  if (Nan(m) || Nan(v) || Nan(x) || !IsInt(m) || fabs(v) == Inf() || fabs(m) > 1e6) return NaN();
  if (v < 0) v = -v - 1;       // P_v = P_{-v-1}
  if (x == -1 && !IsInt(v)) {  // the log singularity of P_v at -1, SciPy's signs
    return m != 0 ? Inf() : -Inf();
  }
  if (m < 0) {
    // P_v^-m = (-1)^m Gamma(v - m + 1) / Gamma(v + m + 1) P_v^m
    double mm = -m;
    if (IsInt(v) && mm > v) return NaN();
    double sa, sb;
    double ratio = exp(LogAbsGamma(v - mm + 1, &sa) - LogAbsGamma(v + mm + 1, &sb)) * sa * sb;
    double phase = fmod(mm, 2.0) == 0 ? 1.0 : -1.0;
    return phase * ratio * Lpmv(mm, v, x);
  }
  if (fabs(x) > 1 && m > 0) return NaN();
  const int im = static_cast<int>(m);
  if (IsInt(v) && v < 1e6) {
    const int n = static_cast<int>(v);
    if (im > n) return 0.0;
    // P_m^m = (-1)^m (2m - 1)!! (1 - x^2)^(m/2)
    double s = sqrt(fabs((1 - x) * (1 + x))), pmm = 1;
    for (int i = 1; i <= im; ++i) pmm *= -(2 * i - 1) * s;
    if (n == im) return pmm;
    double p1 = x * (2 * im + 1) * pmm;  // P_{m+1}^m
    double p0 = pmm;
    for (int l = im + 2; l <= n; ++l) {
      double p2 = ((2 * l - 1) * x * p1 - (l + im - 1) * p0) / (l - im);
      p0 = p1;
      p1 = p2;
    }
    return p1;
  }
  // (-1)^m Gamma(v + m + 1) / (2^m m! Gamma(v - m + 1)) (1 - x^2)^(m/2)
  //   2F1(m - v, m + v + 1; m + 1; (1 - x) / 2)
  if (x == 1) return m == 0 ? 1.0 : 0.0;
  if (x == -1) {
    if (m > 0) return NaN();
    return SinPi(v) > 0 ? -Inf() : Inf();
  }
  if (fabs(x) > 1) return NaN();
  double t = 0.5 * (1 - x), term = 1, sum = 1;
  for (int k = 0; k < 100000; ++k) {
    term *= (m - v + k) * (m + v + 1 + k) / ((m + 1 + k) * (k + 1.0)) * t;
    sum += term;
    if (fabs(term) < kEps * fabs(sum)) break;
  }
  double sa, sb, sc;
  double lf = LogAbsGamma(v + m + 1, &sa) - LogAbsGamma(v - m + 1, &sb) - LogAbsGamma(m + 1, &sc) -
              m * 0.69314718055994531 + 0.5 * m * log((1 - x) * (1 + x));
  double sgn = sa * sb * ((im % 2) ? -1 : 1);
  return sgn * exp(lf) * sum;
}

// The spherical harmonic Y_n^m(theta, phi) (scipy's sph_harm_y: theta the
// polar angle), by the recurrence of the normalized associated Legendre
// functions, which neither overflows nor loses accuracy at high degree.
ARRAYD_HD Cx SphHarmY(double n, double m, double theta, double phi) {
  if (Nan(n) || Nan(m) || Nan(theta) || Nan(phi)) return CxNaN();
  n = trunc(n);
  m = trunc(m);
  if (n < 0 || fabs(m) > n) return Cx(0.0, 0.0);
  const int in = static_cast<int>(n), am = static_cast<int>(fabs(m));
  double x = cos(theta), s = fabs(sin(theta));
  double p = 1 / sqrt(4 * kPi);  // normalized P_0^0
  for (int k = 1; k <= am; ++k) p *= -sqrt((2 * k + 1.0) / (2 * k)) * s;
  double pl = p;
  if (in > am) {
    double p0 = p, p1 = sqrt(2 * am + 3.0) * x * p;
    for (int l = am + 2; l <= in; ++l) {
      double a = sqrt((4.0 * l * l - 1) / (static_cast<double>(l) * l - am * am));
      double b = sqrt(((l - 1.0) * (l - 1.0) - am * am) / (4.0 * (l - 1.0) * (l - 1.0) - 1));
      double p2 = a * (x * p1 - b * p0);
      p0 = p1;
      p1 = p2;
    }
    pl = p1;
  }
  if (m < 0 && (am % 2)) pl = -pl;  // Y_n^-m = (-1)^m conj(Y_n^m)
  return Cx(pl * cos(m * phi), pl * sin(m * phi));
}

// ---- exponential, sine and cosine integrals of complex argument -----------

// E1(z), principal branch: its power series near 0 and near the negative
// real axis, the continued fraction elsewhere (Lentz).
ARRAYD_HD Cx CxExp1(Cx z) {
  double az = CxAbs(z);
  if (az == 0) return Cx(Inf(), 0.0);
  bool series = az < 4 || (z.re < 0 && fabs(z.im) < 2 * -z.re && az < 60);
  if (series) {
    Cx term(1.0), sum(0.0), mz = -z;
    for (int k = 1; k < 500; ++k) {
      term = CxScale(term * mz, 1.0 / k);
      Cx t = CxScale(term, 1.0 / k);
      sum = sum + t;
      if (CxAbs(t) < kEps * CxAbs(sum)) break;
    }
    return Cx(-kEulerGamma) - CxLog(z) - sum;
  }
  const double tiny = 1e-300;
  Cx b = CxAdd(z, 1), c(1 / tiny), d = CxInv(b), h = d;
  for (int i = 1; i < 5000; ++i) {
    double an = -static_cast<double>(i) * i;
    b = CxAdd(b, 2);
    d = CxInv(CxScale(d, an) + b);
    c = b + CxScale(CxInv(c), an);
    Cx del = c * d;
    h = h * del;
    if (CxAbs(CxAdd(del, -1)) < kEps) break;
  }
  return h * CxExp(-z);
}

// Si(z) and Ci(z): their power series where it loses few digits, else
// from E1(+-iz) in the right half plane and the symmetries Si(-z) = -Si(z),
// Ci(-z) = Ci(z) + i pi sign(Im z).
ARRAYD_HD void CxSiCi(Cx z, Cx* si, Cx* ci) {
  if (z.re == 0 && z.im == 0) {
    *si = z;
    *ci = Cx(-Inf(), 0.0);
    return;
  }
  double az = CxAbs(z);
  if (az - fabs(z.im) < 8 || az < 4) {
    Cx z2 = -(z * z), term = z, s = z, c(0.0);
    for (int k = 1; k < 1000; ++k) {
      term = CxScale(term * z2, 1.0 / ((2.0 * k) * (2.0 * k + 1)));  // (-1)^k z^(2k+1) / (2k+1)!
      Cx ts = CxScale(term, 1.0 / (2 * k + 1));
      Cx tc = CxScale(term / z, (2 * k + 1.0) / (2 * k));  // (-1)^k z^(2k) / ((2k)! 2k)
      s = s + ts;
      c = c + tc;
      if (CxAbs(ts) < kEps * CxAbs(s) && CxAbs(tc) < kEps * (CxAbs(c) + 1)) break;
    }
    *si = s;
    *ci = Cx(kEulerGamma) + CxLog(z) + c;
    return;
  }
  bool neg = z.re < 0;
  Cx w = neg ? -z : z;
  Cx iz(-w.im, w.re), miz(w.im, -w.re);
  Cx e1 = CxExp1(iz), e2 = CxExp1(miz);
  Cx s = (e1 - e2) * Cx(0.0, -0.5);  // (E1(iz) - E1(-iz)) / (2i)
  s = CxAdd(s, kPi / 2);
  Cx c = CxScale(e1 + e2, -0.5);
  if (neg) {
    s = -s;
    c = c + Cx(0.0, z.im >= 0 ? kPi : -kPi);
  }
  *si = s;
  *ci = c;
}

// Shi(z) = -i Si(iz) and Chi(z): their power series where it loses few
// digits, else from Si and Ci of iz.
ARRAYD_HD void CxShiChi(Cx z, Cx* shi, Cx* chi) {
  if (z.re == 0 && z.im == 0) {
    *shi = z;
    *chi = Cx(-Inf(), 0.0);
    return;
  }
  double az = CxAbs(z);
  if (az - fabs(z.re) < 8 || az < 4) {
    Cx z2 = z * z, term = z, s = z, c(0.0);
    for (int k = 1; k < 1000; ++k) {
      term = CxScale(term * z2, 1.0 / ((2.0 * k) * (2.0 * k + 1)));
      Cx ts = CxScale(term, 1.0 / (2 * k + 1));
      Cx tc = CxScale(term / z, (2 * k + 1.0) / (2 * k));
      s = s + ts;
      c = c + tc;
      if (CxAbs(ts) < kEps * CxAbs(s) && CxAbs(tc) < kEps * (CxAbs(c) + 1)) break;
    }
    *shi = s;
    *chi = Cx(kEulerGamma) + CxLog(z) + c;
    return;
  }
  Cx si, ci;
  CxSiCi(Cx(-z.im, z.re), &si, &ci);
  *shi = si * Cx(0.0, -1.0);
  // Ci(iz) = Chi(z) + i pi/2, but for the second quadrant, where the cuts
  // of the two logarithms differ by 2 pi i.
  *chi = ci - Cx(0.0, (z.re < 0 && z.im >= 0 ? -3 : 1) * kPi / 2);
}

ARRAYD_HD Cx CxSi(Cx z) {
  Cx s, c;
  CxSiCi(z, &s, &c);
  return s;
}
ARRAYD_HD Cx CxCi(Cx z) {
  Cx s, c;
  CxSiCi(z, &s, &c);
  return c;
}
ARRAYD_HD Cx CxShi(Cx z) {
  Cx s, c;
  CxShiChi(z, &s, &c);
  return s;
}
ARRAYD_HD Cx CxChi(Cx z) {
  Cx s, c;
  CxShiChi(z, &s, &c);
  return c;
}
// The real ones, as SciPy's: Ci of x < 0 is Ci(|x|) (its real part), and
// Chi likewise.
ARRAYD_HD double Si(double x) {
  if (Nan(x)) return x;
  if (fabs(x) == Inf()) return copysign(kPi / 2, x);
  return CxSi(Cx(x, 0.0)).re;
}
ARRAYD_HD double Ci(double x) {
  if (Nan(x)) return x;
  if (fabs(x) == Inf()) return x > 0 ? 0.0 : NaN();
  return CxCi(Cx(fabs(x), 0.0)).re;
}
ARRAYD_HD double Shi(double x) {
  if (Nan(x) || fabs(x) == Inf()) return x;
  return CxShi(Cx(x, 0.0)).re;
}
ARRAYD_HD double Chi(double x) {
  if (Nan(x)) return x;
  if (fabs(x) == Inf()) return Inf();
  return CxChi(Cx(fabs(x), 0.0)).re;
}

// ---- spherical Bessel functions of real argument ------------------------

ARRAYD_HD double SphericalYn(double n, double x) {
  if (Nan(n) || Nan(x) || n < 0) return NaN();
  if (fabs(x) == Inf()) return 0.0;
  if (x == 0) return -Inf();
  const long long in = static_cast<long long>(n);
  if (x < 0) {
    double r = SphericalYn(n, -x);
    return (in % 2) ? r : -r;  // y_n(-x) = (-1)^(n+1) y_n(x)
  }
  double y0 = -cos(x) / x;
  if (in == 0) return y0;
  double y1 = (y0 - sin(x)) / x;
  for (long long k = 1; k < in && fabs(y1) < Inf(); ++k) {
    double y2 = (2 * k + 1) / x * y1 - y0;
    y0 = y1;
    y1 = y2;
  }
  return y1;
}

ARRAYD_HD double SphericalJn(double n, double x) {
  if (Nan(n) || Nan(x) || n < 0) return NaN();
  if (fabs(x) == Inf()) return 0.0;
  const long long in = static_cast<long long>(n);
  if (x == 0) return in == 0 ? 1.0 : 0.0;
  if (x < 0) {
    double r = SphericalJn(n, -x);
    return (in % 2) ? -r : r;
  }
  if (x > static_cast<double>(in)) {  // upward recurrence is stable here
    double j0 = sin(x) / x;
    if (in == 0) return j0;
    double j1 = (j0 - cos(x)) / x;
    for (long long k = 1; k < in; ++k) {
      double j2 = (2 * k + 1) / x * j1 - j0;
      j0 = j1;
      j1 = j2;
    }
    return j1;
  }
  // x^n / (2n+1)!! sum_k (-x^2/2)^k / (k! (2n+3)(2n+5)...(2n+2k+1))
  double lead = 0;
  for (long long k = 1; k <= in; ++k) lead += log(x / (2 * k + 1));
  double q = -0.5 * x * x, term = 1, sum = 1;
  for (int k = 1; k < 500; ++k) {
    term *= q / (k * (2.0 * in + 2 * k + 1));
    sum += term;
    if (fabs(term) < kEps * fabs(sum)) break;
  }
  return exp(lead) * sum;
}

// ---- Wright's generalized Bessel function --------------------------------

// sum_k x^k / (k! Gamma(a k + b)), a, b, x >= 0.
ARRAYD_HD double WrightBessel(double a, double b, double x) {
  if (Nan(a) || Nan(b) || Nan(x) || a < 0 || b < 0 || x < 0) return NaN();
  if (x == 0) return RGamma(b);
  double sum = 0, lx = log(x);
  for (int k = 0; k < 20000; ++k) {
    double arg = a * k + b, term;
    if (arg <= 0 && IsInt(arg)) {
      term = 0;
    } else {
      double sg;
      double lg = LogAbsGamma(arg, &sg);
      double sk;
      term = sg * exp(k * lx - LogAbsGamma(k + 1.0, &sk) - lg);
    }
    sum += term;
    if (k > 2 && fabs(term) < kEps * fabs(sum) && a * k + b > 1 && k > x) break;
  }
  return sum;
}

// ---- the Lambert W function ---------------------------------------------

// Branch k of W(z) (w e^w = z): Halley's iteration from the branch point
// expansion near -1/e, z or log(1 + z) near 0, else the logarithmic asymptote.
ARRAYD_HD Cx LambertW(Cx z, double kd) {
  if (CxNan(z) || Nan(kd)) return CxNaN();
  const double k = trunc(kd);
  if (z.re == Inf() && z.im == 0) return Cx(Inf(), 2 * kPi * k);
  if (z.re == -Inf() && z.im == 0) return Cx(Inf(), (2 * k + 1) * kPi);
  if (!CxFinite(z)) return Cx(Inf(), atan2(z.im, z.re) + 2 * kPi * k);
  if (z.re == 0 && z.im == 0) return k == 0 ? z : Cx(-Inf(), 0.0);
  if (k == 0 && z.re == -0.36787944117144233 && z.im == 0) return Cx(-1.0, 0.0);
  Cx w;
  const double e = 2.718281828459045;
  Cx p2 = CxScale(CxAdd(CxScale(z, e), 1.0), 2);  // 2 (e z + 1)
  bool near_branch = CxAbs(CxAdd(z, 0.36787944117144233)) < 0.3;
  if (k == 0 && near_branch) {
    Cx p = CxSqrt(p2);
    w = CxAdd(p - CxScale(p * p, 1.0 / 3) + CxScale(p * p * p, 11.0 / 72), -1);
  } else if (k == -1 && near_branch && z.im == 0 && z.re < 0) {
    Cx p = -CxSqrt(p2);
    w = CxAdd(p - CxScale(p * p, 1.0 / 3) + CxScale(p * p * p, 11.0 / 72), -1);
  } else if (k == 0 && CxAbs(z) < 1) {
    w = z;
  } else if (k == 0 && CxAbs(z) < 4) {
    w = CxLog1p(z);  // log z - log log z fails near z = 1
  } else {
    Cx l = CxLog(z) + Cx(0.0, 2 * kPi * k);
    w = l - CxLog(l);
  }
  for (int i = 0; i < 100; ++i) {
    Cx ew = CxExp(w);
    Cx f = w * ew - z;
    Cx wp1 = CxAdd(w, 1);
    // Halley: w -= f / (e^w (w + 1) - (w + 2) f / (2 w + 2))
    Cx denom = ew * wp1 - CxAdd(w, 2) * f / CxScale(wp1, 2);
    Cx dw = f / denom;
    w = w - dw;
    if (CxAbs(dw) <= 1e-15 * CxAbs(w)) break;
  }
  return w;
}

// ---- incomplete elliptic integrals and Jacobi's elliptic functions -------

// Carlson's symmetric integrals R_F and R_D by duplication (DLMF 19.36.i).
ARRAYD_HD double CarlsonRF(double x, double y, double z) {
  for (int i = 0; i < 100; ++i) {
    double a = (x + y + z) / 3;
    double dev = fmax(fabs(a - x), fmax(fabs(a - y), fabs(a - z))) / a;
    if (dev < 1e-3) {
      double X = 1 - x / a, Y = 1 - y / a, Z = -(X + Y);
      double e2 = X * Y - Z * Z, e3 = X * Y * Z;
      return (1 - e2 / 10 + e3 / 14 + e2 * e2 / 24 - 3 * e2 * e3 / 44) / sqrt(a);
    }
    double sx = sqrt(x), sy = sqrt(y), sz = sqrt(z);
    double l = sx * sy + sy * sz + sz * sx;
    x = (x + l) / 4;
    y = (y + l) / 4;
    z = (z + l) / 4;
  }
  return 1 / sqrt(x);
}
ARRAYD_HD double CarlsonRD(double x, double y, double z) {
  double sum = 0, fac = 1;
  for (int i = 0; i < 100; ++i) {
    double a = (x + y + 3 * z) / 5;
    double dev = fmax(fabs(a - x), fmax(fabs(a - y), fabs(a - z))) / a;
    if (dev < 1e-3) {
      double X = 1 - x / a, Y = 1 - y / a, Z = -(X + Y) / 3;
      double e2 = X * Y - 6 * Z * Z, e3 = (3 * X * Y - 8 * Z * Z) * Z;
      double e4 = 3 * (X * Y - Z * Z) * Z * Z, e5 = X * Y * Z * Z * Z;
      double s = 1 - 3 * e2 / 14 + e3 / 6 + 9 * e2 * e2 / 88 - 3 * e4 / 22 - 9 * e2 * e3 / 52 +
                 3 * e5 / 26;
      return 3 * sum + fac * s / (a * sqrt(a));
    }
    double sx = sqrt(x), sy = sqrt(y), sz = sqrt(z);
    double l = sx * sy + sy * sz + sz * sx;
    sum += fac / (sz * (z + l));
    fac /= 4;
    x = (x + l) / 4;
    y = (y + l) / 4;
    z = (z + l) / 4;
  }
  return NaN();
}

// F(phi | m) and E(phi | m): phi reduced to [-pi/2, pi/2] by its multiples
// of pi, which add 2 K(m) (2 E(m)) each.
ARRAYD_HD double EllipIncomplete(double phi, double m, bool second) {
  if (Nan(phi) || Nan(m) || m > 1) return NaN();
  if (fabs(phi) == Inf()) return phi;
  double n = floor(phi / kPi + 0.5);
  double r = phi - n * kPi;
  double s = sin(r), c = cos(r);
  if (m == 1) {
    if (second) return s + 2 * n;
    if (n != 0 || fabs(r) >= kPi / 2) return Inf();  // SciPy's sign
    return atanh(s);
  }
  double d = 1 - m * s * s;
  double part, whole;
  if (!second) {
    part = s * CarlsonRF(c * c, d, 1);
    whole = n != 0 ? 2 * CarlsonRF(0, 1 - m, 1) : 0.0;
  } else {
    part = s * CarlsonRF(c * c, d, 1) - m / 3 * s * s * s * CarlsonRD(c * c, d, 1);
    whole = n != 0 ? 2 * (CarlsonRF(0, 1 - m, 1) - m / 3 * CarlsonRD(0, 1 - m, 1)) : 0.0;
  }
  return part + n * whole;
}

// Jacobi's sn, cn, dn and the amplitude ph of (u, m), by the descending
// Landen (AGM) transformation; `which` 0..3 picks sn, cn, dn, ph.
ARRAYD_HD double Ellipj(double u, double m, int which) {
  if (Nan(u) || Nan(m) || m < 0 || m > 1) return NaN();
  if (m < 1e-9) {
    double s = sin(u), c = cos(u), t = 0.25 * m * (u - s * c);
    switch (which) {
      case 0: return s - t * c;
      case 1: return c + t * s;
      case 2: return 1 - 0.5 * m * s * s;
      default: return u - t;
    }
  }
  if (m >= 1 - 1e-9) {
    double ch = cosh(u), t = tanh(u);
    switch (which) {
      case 0: return t;
      case 1: return 1 / ch;
      case 2: return 1 / ch;
      default: return 2 * atan(exp(u)) - kPi / 2;
    }
  }
  double a[16], c[16];
  a[0] = 1;
  double b = sqrt(1 - m);
  c[0] = sqrt(m);
  int n = 0;
  while (fabs(c[n]) > kEps && n < 15) {
    double an = (a[n] + b) / 2;
    c[n + 1] = (a[n] - b) / 2;
    b = sqrt(a[n] * b);
    a[n + 1] = an;
    ++n;
  }
  double phi = ldexp(a[n] * u, n), prev = phi;
  for (int i = n; i > 0; --i) {
    prev = phi;
    phi = (phi + asin(c[i] * sin(phi) / a[i])) / 2;
  }
  switch (which) {
    case 0: return sin(phi);
    case 1: return cos(phi);
    case 2: return cos(phi) / cos(prev - phi);
    default: return phi;
  }
}

}  // namespace special
}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_KERNELS_SPECIAL_H_
