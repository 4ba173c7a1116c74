"""arrayd.scipy.special: scipy.special on the server.

The functions are ufuncs of the server's op-signature table (one row and
one functor each: server/kernels/op_list.h, kernels/special.h), built here
from the generated table (arrayd._math.SPECIAL), with SciPy's loops: every
integer and float16 input computes in float32 or float64 as SciPy's own
ufuncs choose. ``scipy.special.erf(x)`` of an arrayd array runs this
module's ufunc as well (``__array_ufunc__``).

The rest are compositions of those ufuncs and arrayd's reductions, as
SciPy writes them: zeta (Riemann or Hurwitz), polygamma, ellipk,
logsumexp, softmax, log_softmax, multigammaln, the gamma-based
distribution functions (chdtr, pdtr, gdtr and complements), radian.

Layer: a public namespace (imports arrayd's function modules).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from arrayd import _manipulation, _math, _reduction
from arrayd._creation import asarray
from arrayd._ndarray import ndarray
from arrayd._ufunc import ufunc
from arrayd._windows import sinc  # noqa: F401 (scipy.special.sinc is NumPy's)

_U = _math.SPECIAL
_N = _math.BY_NAME

erf, erfc, erfcx, erfinv, erfcinv = (_U["erf"], _U["erfc"], _U["erfcx"],
                                      _U["erfinv"], _U["erfcinv"])
ndtr, log_ndtr, ndtri = _U["ndtr"], _U["log_ndtr"], _U["ndtri"]
gamma, gammaln, loggamma, rgamma, gammasgn = (
    _U["gamma"], _U["gammaln"], _U["loggamma"], _U["rgamma"], _U["gammasgn"])
psi = digamma = _U["psi"]
beta, betaln, gammainc, gammaincc = (_U["beta"], _U["betaln"],
                                     _U["gammainc"], _U["gammaincc"])
zetac = _U["zetac"]
exp1, expi, expn = _U["exp1"], _U["expi"], _U["expn"]
i0, i0e, i1, i1e = _U["i0"], _U["i0e"], _U["i1"], _U["i1e"]
k0, k0e, k1, k1e = _U["k0"], _U["k0e"], _U["k1"], _U["k1e"]
j0, j1, jn, y0, y1, yn = (_U["j0"], _U["j1"], _U["jn"], _U["y0"], _U["y1"],
                          _U["yn"])
ellipkm1 = _U["ellipkm1"]
expit, log_expit, logit = _U["expit"], _U["log_expit"], _U["logit"]
xlogy, xlog1py = _U["xlogy"], _U["xlog1py"]
entr, rel_entr, kl_div = _U["entr"], _U["rel_entr"], _U["kl_div"]
exprel, cosm1, exp10 = _U["exprel"], _U["cosm1"], _U["exp10"]
sindg, cosdg, tandg, cotdg = (_U["sindg"], _U["cosdg"], _U["tandg"],
                              _U["cotdg"])
boxcox, boxcox1p, inv_boxcox, inv_boxcox1p = (
    _U["boxcox"], _U["boxcox1p"], _U["inv_boxcox"], _U["inv_boxcox1p"])
huber, pseudo_huber, binom = _U["huber"], _U["pseudo_huber"], _U["binom"]


def _float64_first(uf: ufunc) -> Any:
    """NumPy's ufunc `uf` with scipy.special's dtypes: its tables list
    float64 first, so bools, integers and float16 compute in float64."""
    def f(x: Any, out: Any = None) -> Any:
        x = asarray(x)
        if x.dtype.kind in "biu" or x.dtype == np.float16:
            x = x.astype(np.float64)
        return uf(x, out=out)
    f.__name__ = f.__qualname__ = uf.__name__
    f.__doc__ = uf.__doc__
    return f


# The NumPy ufuncs that scipy.special has too, with SciPy's dtypes.
exp2, expm1, log1p, cbrt = (_float64_first(_N[n]) for n in (
    "exp2", "expm1", "log1p", "cbrt"))
round = _N["rint"]  # noqa: A001 (SciPy's name; half to even, as SciPy's)

_riemann_zeta, _hurwitz_zeta = _U["_riemann_zeta"], _U["_hurwitz_zeta"]


def zeta(x: Any, q: Any = None, out: Any = None) -> Any:
    """The Riemann zeta function of x (q None), or the Hurwitz zeta
    function sum_k (k + q)**-x, elementwise."""
    if q is None:
        return _riemann_zeta(x, out=out)
    return _hurwitz_zeta(x, q, out=out)


def polygamma(n: Any, x: Any) -> ndarray:
    """The n-th derivative of the digamma function at x, elementwise:
    psi(x) for n = 0, else (-1)**(n+1) n! zeta(n+1, x)."""
    n, x = asarray(n), asarray(x)
    higher = (-1.0) ** (n + 1) * gamma(n + 1.0) * _hurwitz_zeta(n + 1.0, x)
    return _manipulation.where(n == 0, psi(x), higher)


def ellipk(m: Any, out: Any = None) -> Any:
    """The complete elliptic integral of the first kind, K(m)."""
    m = asarray(m)
    dtype = m.dtype if m.dtype.kind == "f" and m.dtype.itemsize >= 4 else (
        np.dtype(np.float32) if m.dtype.itemsize <= 2 else np.dtype(np.float64))
    return ellipkm1(1 - m.astype(dtype, copy=False), out=out)


def _float_dtype(dt: np.dtype) -> np.dtype:
    """The dtype SciPy's reductions compute in: floats and complexes keep
    theirs, integers and bools go to float64."""
    return dt if dt.kind in "fc" else np.dtype(np.float64)


def logsumexp(a: Any, axis: Any = None, b: Any = None,
              keepdims: bool = False, return_sign: bool = False) -> Any:
    """log(sum(b * exp(a))) over `axis`, without overflow; with
    ``return_sign`` the pair (log|sum|, sign of the sum)."""
    a = asarray(a)
    a = a.astype(_float_dtype(a.dtype), copy=False)
    if b is not None:
        b = asarray(b)
        a, b = _manipulation.broadcast_arrays(a, b)
        a = _manipulation.where(b != 0, a, -math.inf)
    amax = _reduction.max(a.real if a.dtype.kind == "c" else a, axis=axis,
                          keepdims=True)
    amax = _manipulation.where(_math.isfinite(amax), amax, 0)
    tmp = _math.exp(a - amax)
    if b is not None:
        tmp = tmp * b
    s = _reduction.sum(tmp, axis=axis, keepdims=True)
    if return_sign:
        sgn = _math.sign(s)
        s = _math.absolute(s)
    out = _math.log(s) + amax
    if not keepdims:
        out = out.reshape(()) if axis is None else out.squeeze(axis=axis)
        if return_sign:
            sgn = sgn.reshape(()) if axis is None else sgn.squeeze(axis=axis)
    return (out, sgn) if return_sign else out


def softmax(x: Any, axis: Any = None) -> ndarray:
    """exp(x) / sum(exp(x)) over `axis`, without overflow."""
    x = asarray(x)
    x = x.astype(_float_dtype(x.dtype), copy=False)
    e = _math.exp(x - _reduction.max(x, axis=axis, keepdims=True))
    return e / _reduction.sum(e, axis=axis, keepdims=True)


def log_softmax(x: Any, axis: Any = None) -> ndarray:
    """log(softmax(x)) over `axis`, accurate where softmax underflows."""
    x = asarray(x)
    x = x.astype(_float_dtype(x.dtype), copy=False)
    xmax = _reduction.max(x, axis=axis, keepdims=True)
    xmax = _manipulation.where(_math.isfinite(xmax), xmax, 0)
    shifted = x - xmax
    return shifted - _math.log(_reduction.sum(_math.exp(shifted), axis=axis,
                                              keepdims=True))


def multigammaln(a: Any, d: int) -> Any:
    """The log of the multivariate gamma function of dimension d."""
    if not np.isscalar(d) or int(d) != d:
        raise ValueError("d should be a positive integer (dimension)")
    d = int(d)
    a = asarray(a)
    if bool(_reduction.any(a <= 0.5 * (d - 1))):
        raise ValueError(f"condition a ({a}) > 0.5 * (d-1) ({0.5 * (d - 1)}) "
                         "not met")
    total = d * (d - 1) * 0.25 * math.log(math.pi)
    acc = gammaln(a.astype(_float_dtype(a.dtype), copy=False))
    for j in range(2, d + 1):
        acc = acc + gammaln(a - (j - 1) / 2)
    return acc + total


def chdtr(v: Any, x: Any) -> ndarray:
    """The chi-square distribution function with v degrees of freedom."""
    return gammainc(asarray(v) / 2, asarray(x) / 2)


def chdtrc(v: Any, x: Any) -> ndarray:
    """The chi-square survival function with v degrees of freedom."""
    return gammaincc(asarray(v) / 2, asarray(x) / 2)


def pdtr(k: Any, m: Any) -> ndarray:
    """The Poisson distribution function: P(N <= k) for mean m."""
    k = _math.floor(asarray(k) * 1.0)
    return _manipulation.where(k < 0, math.nan, gammaincc(k + 1, m))


def pdtrc(k: Any, m: Any) -> ndarray:
    """The Poisson survival function: P(N > k) for mean m."""
    k = _math.floor(asarray(k) * 1.0)
    return _manipulation.where(k < 0, math.nan, gammainc(k + 1, m))


def gdtr(a: Any, b: Any, x: Any) -> ndarray:
    """The gamma distribution function (rate a, shape b) at x."""
    return gammainc(b, asarray(a) * x)


def gdtrc(a: Any, b: Any, x: Any) -> ndarray:
    """The gamma survival function (rate a, shape b) at x."""
    return gammaincc(b, asarray(a) * x)


def radian(d: Any, m: Any, s: Any) -> ndarray:
    """Degrees, arcminutes and arcseconds to radians."""
    d, m, s = (x.astype(np.float64) if x.dtype.kind in "biu"
               or x.dtype == np.float16 else x
               for x in (asarray(d), asarray(m), asarray(s)))
    return (d + m / 60.0 + s / 3600.0) * (math.pi / 180)


_UFUNC_NAMES = sorted(n for n in _U if not n.startswith("_"))
__all__ = sorted(set(_UFUNC_NAMES) | {
    "binom", "cbrt", "chdtr", "chdtrc", "digamma", "ellipk", "exp2", "expm1",
    "gdtr", "gdtrc", "log1p", "log_softmax", "logsumexp", "multigammaln",
    "pdtr", "pdtrc", "polygamma", "radian", "round", "sinc", "softmax",
    "zeta"})
assert all(isinstance(globals()[n], ufunc) for n in _UFUNC_NAMES)
