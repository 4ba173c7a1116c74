"""arrayd.scipy.special: scipy.special on the server.

The functions are ufuncs of the server's op-signature table (one row and
one functor each: server/kernels/op_list.h, kernels/special.h), built here
from the generated table (arrayd._math.SPECIAL), with SciPy's loops: every
integer and float16 input computes in float32 or float64 as SciPy's own
ufuncs choose. ``scipy.special.erf(x)`` of an arrayd array runs this
module's ufunc as well (``__array_ufunc__``).

Functions of three or four real parameters (lpmv, sph_harm_y, betainc,
betaincinv, the F, binomial, negative binomial and gamma distributions,
wright_bessel) are binary rows over complex operands that carry two
parameters each (``_pack``: real part, imaginary part), one functor each;
functions of several results (sici, shichi, ellipj) are one row per result.

The rest are compositions of those ufuncs and arrayd's reductions, as
SciPy writes them: zeta (Riemann or Hurwitz), polygamma, ellipk,
logsumexp, softmax, log_softmax, multigammaln, the spherical Bessel
functions' derivatives, radian.

Layer: a public namespace (imports arrayd's function modules).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from arrayd import _creation, _manipulation, _math, _reduction
from arrayd._creation import asarray
from arrayd._ndarray import ndarray
from arrayd._ufunc import ufunc
from arrayd._windows import sinc  # noqa: F401 (scipy.special.sinc is NumPy's)

_U = _math.SPECIAL
_N = _math.BY_NAME
_math.sync_special_loops()  # the installed SciPy's dtypes


def _scipy_loops(name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """The installed scipy.special's loops of `name` in its order, else
    `default` (the loops of SciPy 1.17)."""
    theirs = _math.scipy_loops(name)
    return default if theirs is None else tuple(theirs)

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
gammaincinv, gammainccinv = _U["gammaincinv"], _U["gammainccinv"]
chdtr, chdtrc, chdtri = _U["chdtr"], _U["chdtrc"], _U["chdtri"]
pdtr, pdtrc = _U["pdtr"], _U["pdtrc"]
ellipkinc, ellipeinc = _U["ellipkinc"], _U["ellipeinc"]

_PY_SCALARS = (bool, int, float, complex)


def _loop_dtype(args: tuple[Any, ...], loops: tuple[str, ...]) -> np.dtype:
    """The output dtype of the first of SciPy's `loops` ("dld->d", ...)
    that takes `args`, as NumPy's ufunc type resolution picks it: an exact
    match of the arrays' dtypes first, else the first loop every array
    casts to safely; Python scalars are weak (an int fits any numeric loop,
    a float a float loop), or int64/float64/complex128 where every argument
    is one. TypeError where no loop fits."""
    strong = [None if type(a) in _PY_SCALARS else asarray(a).dtype
              for a in args]
    known = [d for d in strong if d is not None]
    # NEP 50: a weak scalar takes the arrays' dtype where its kind fits
    # (an int with int8 arrays), else its kind's default (an int with bool
    # arrays is int64, a float with int8 arrays float64).
    strong = [np.result_type(a, *known) if d is None and known else
              np.asarray(a).dtype if d is None else d
              for a, d in zip(args, strong)]
    ins = [lp.split("->")[0] for lp in loops]
    for exact in (True, False):
        for lp, chars in zip(loops, ins):
            fits = True
            for d, c in zip(strong, chars):
                if exact:
                    fits = d == np.dtype(c)
                else:
                    fits = np.can_cast(d, c, "safe")
                if not fits:
                    break
            if fits:
                return np.dtype(lp.split("->")[1])
    raise TypeError("ufunc did not contain a loop with signature matching "
                    f"types {tuple(d for d in strong)}")


def _pack(re: Any, im: Any, dtype: np.dtype) -> ndarray:
    """A complex array of `dtype` with real part `re` and imaginary part
    `im` (broadcast), exactly: no arithmetic touches infinities or NaNs."""
    re, im = asarray(re), asarray(im)
    shape = np.broadcast_shapes(re.shape, im.shape)
    z = _creation.empty(shape, dtype)
    z.real[...] = re
    z.imag[...] = im
    return z


def _packed3(row: ufunc, loops: tuple[str, ...], name: str, doc: str) -> Any:
    """The function of three real parameters that the packed binary `row`
    computes: f(a, b, x) = row(a + b j, x), in the precision of SciPy's
    `loops` for the arguments."""
    loops = _scipy_loops(name, loops)

    def f(a: Any, b: Any, x: Any, out: Any = None) -> Any:
        dt = _loop_dtype((a, b, x), loops)
        cdt = np.dtype(np.complex64 if dt == np.float32 else np.complex128)
        return row(_pack(a, b, cdt), asarray(x).astype(cdt), out=out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


_FF = ("fff->f", "ddd->d")
lpmv = _packed3(_U["_lpmv"], _FF, "lpmv", "The associated Legendre function "
                "P_v^m(x) of integer order m and real degree v.")
betainc = _packed3(_U["_betainc"], _FF, "betainc", "The regularized "
                   "incomplete beta function I_x(a, b).")
betaincinv = _packed3(_U["_betaincinv"], _FF, "betaincinv", "The inverse of "
                      "betainc in x: x with betainc(a, b, x) = y.")
fdtr = _packed3(_U["_fdtr"], _FF, "fdtr", "The F distribution function of "
                "(dfn, dfd) degrees of freedom at x.")
fdtrc = _packed3(_U["_fdtrc"], _FF, "fdtrc", "The F survival function of "
                 "(dfn, dfd) degrees of freedom at x.")
fdtri = _packed3(_U["_fdtri"], _FF, "fdtri", "The inverse of fdtr in x.")
gdtr = _packed3(_U["_gdtr"], _FF, "gdtr", "The gamma distribution function "
                "(rate a, shape b) at x.")
gdtrc = _packed3(_U["_gdtrc"], _FF, "gdtrc", "The gamma survival function "
                 "(rate a, shape b) at x.")
_BD = ("fff->f", "dld->d", "ddd->d")
bdtr = _packed3(_U["_bdtr"], _BD, "bdtr", "The binomial distribution "
                "function: P(K <= floor(k)) in n trials of probability p.")
bdtrc = _packed3(_U["_bdtrc"], _BD, "bdtrc", "The binomial survival "
                 "function: P(K > floor(k)) in n trials of probability p.")
bdtri = _packed3(_U["_bdtri"], _BD, "bdtri", "The inverse of bdtr in p.")
_NBD = ("lld->d", "fff->f", "ddd->d")
nbdtr = _packed3(_U["_nbdtr"], _NBD, "nbdtr", "The negative binomial "
                 "distribution function: P(at most k failures before the "
                 "n-th success).")
nbdtrc = _packed3(_U["_nbdtrc"], _NBD, "nbdtrc", "The negative binomial "
                  "survival function.")
nbdtri = _packed3(_U["_nbdtri"], _NBD, "nbdtri", "The inverse of nbdtr in p.")
wright_bessel = _packed3(_U["_wright_bessel"], ("ddd->d", "fff->f"),
                         "wright_bessel", "Wright's generalized Bessel "
                         "function, sum_k x**k / (k! gamma(a k + b)).")


_PDTRI_LOOPS = _scipy_loops("pdtri", ("ld->d", "ff->f", "dd->d"))


def pdtri(k: Any, y: Any, out: Any = None) -> Any:
    """The inverse of pdtr in m: the Poisson mean m with pdtr(k, m) = y."""
    if _loop_dtype((k, y), _PDTRI_LOOPS) == np.float64:
        k, y = asarray(k).astype(np.float64), asarray(y).astype(np.float64)
    return _U["_pdtri"](k, y, out=out)


def sph_harm_y(n: Any, m: Any, theta: Any, phi: Any, *,
               diff_n: int = 0) -> ndarray:
    """The spherical harmonic Y_n^m(theta, phi): theta the polar angle,
    phi the azimuth (complex128, as SciPy's)."""
    if diff_n != 0:
        raise NotImplementedError("sph_harm_y: diff_n > 0 is not supported")
    c = np.dtype(np.complex128)
    return _U["_sph_harm_y"](_pack(n, m, c), _pack(theta, phi, c))


def sph_harm(m: Any, n: Any, theta: Any, phi: Any) -> ndarray:
    """The spherical harmonic of order m and degree n, theta the azimuth
    and phi the polar angle (the argument order SciPy < 1.17 had)."""
    return sph_harm_y(n, m, phi, theta)


def lambertw(z: Any, k: Any = 0, tol: float = 1e-8) -> ndarray:
    """Branch k of the Lambert W function (w exp(w) = z), complex128."""
    z = asarray(z).astype(np.complex128)
    kk = asarray(k)
    if kk.dtype.kind not in "biu" and not (kk.dtype.kind == "f"):
        raise TypeError("lambertw: the branch k must be an integer")
    return _U["_lambertw"](z, kk.astype(np.complex128))


def sici(x: Any, out: Any = None) -> tuple[ndarray, ndarray]:
    """The sine and cosine integrals (Si(x), Ci(x))."""
    o = (None, None) if out is None else out
    return _U["_sici_si"](x, out=o[0]), _U["_sici_ci"](x, out=o[1])


def shichi(x: Any, out: Any = None) -> tuple[ndarray, ndarray]:
    """The hyperbolic sine and cosine integrals (Shi(x), Chi(x))."""
    o = (None, None) if out is None else out
    return _U["_shichi_shi"](x, out=o[0]), _U["_shichi_chi"](x, out=o[1])


def ellipj(u: Any, m: Any, out: Any = None) -> tuple[ndarray, ...]:
    """Jacobi's elliptic functions (sn, cn, dn, ph) of (u | m)."""
    o = (None,) * 4 if out is None else out
    return tuple(_U["_ellipj_" + n](u, m, out=oo)
                 for n, oo in zip(("sn", "cn", "dn", "ph"), o))


def _spherical(row: ufunc, n: Any, z: Any, derivative: bool) -> ndarray:
    n, z = asarray(n), asarray(z)
    if n.dtype.kind not in "biu":
        raise TypeError("spherical Bessel functions: n must be an integer")
    if z.dtype.kind == "c":
        raise NotImplementedError(
            "spherical Bessel functions of complex argument")
    z = z.astype(np.float64)
    nf = n.astype(np.float64)
    if not derivative:
        return row(nf, z)
    # f_n' = f_(n-1) - (n + 1) / z f_n; f_0' = -f_1; SciPy's values at
    # z = 0 (j_1' = 1/3, y_0' = inf) and z = +-inf (0).
    low = row(_math.maximum(nf - 1, 0.0), z) - (nf + 1) / z * row(nf, z)
    d = _manipulation.where(nf == 0, -row(1.0 + 0 * nf, z), low)
    d = _manipulation.where(_math.isinf(z), 0.0, d)
    if row is _U["_spherical_jn"]:
        at0 = _manipulation.where(nf == 1, 1 / 3, 0.0)
    else:
        at0 = _manipulation.where(nf == 0, math.inf, math.nan)
    return _manipulation.where(z == 0, at0, d)


def spherical_jn(n: Any, z: Any, derivative: bool = False) -> ndarray:
    """The spherical Bessel function of the first kind j_n(z), real z."""
    return _spherical(_U["_spherical_jn"], n, z, derivative)


def spherical_yn(n: Any, z: Any, derivative: bool = False) -> ndarray:
    """The spherical Bessel function of the second kind y_n(z), real z."""
    return _spherical(_U["_spherical_yn"], n, z, derivative)


def _scipy_float_loop(uf: ufunc) -> Any:
    """NumPy's ufunc `uf` with scipy.special's dtypes: bools, integers and
    float16 compute in the first of its float loops they cast to (SciPy
    1.17 lists float64 first)."""
    loops = _scipy_loops(uf.__name__, ("d->d", "f->f"))

    def f(x: Any, out: Any = None) -> Any:
        x = asarray(x)
        if x.dtype.kind in "biu" or x.dtype == np.float16:
            x = x.astype(_loop_dtype((x,), loops))
        return uf(x, out=out)
    f.__name__ = f.__qualname__ = uf.__name__
    f.__doc__ = uf.__doc__
    return f


# The NumPy ufuncs that scipy.special has too, with SciPy's dtypes.
exp2, expm1, log1p, cbrt = (_scipy_float_loop(_N[n]) for n in (
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
    dtype = _loop_dtype((m,), _scipy_loops("ellipk", ("f->f", "d->d")))
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


def _exp_dtype(dt: np.dtype) -> np.dtype:
    """The dtype of NumPy's exp of `dt` (SciPy's softmax takes it: int8 and
    bool to float16, int16 to float32)."""
    return np.exp(np.empty(0, dt)).dtype


def softmax(x: Any, axis: Any = None) -> ndarray:
    """exp(x) / sum(exp(x)) over `axis`, without overflow."""
    x = asarray(x)
    x = x.astype(_exp_dtype(x.dtype), copy=False)
    e = _math.exp(x - _reduction.max(x, axis=axis, keepdims=True))
    return e / _reduction.sum(e, axis=axis, keepdims=True)


def log_softmax(x: Any, axis: Any = None) -> ndarray:
    """log(softmax(x)) over `axis`, accurate where softmax underflows."""
    x = asarray(x)
    x = x.astype(_exp_dtype(x.dtype), copy=False)
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
    # SciPy adds a float64 scalar (not a Python float): float64 throughout.
    return (acc + total).astype(np.float64, copy=False)


def radian(d: Any, m: Any, s: Any) -> ndarray:
    """Degrees, arcminutes and arcseconds to radians."""
    d, m, s = (x.astype(np.float64) if x.dtype.kind in "biu"
               or x.dtype == np.float16 else x
               for x in (asarray(d), asarray(m), asarray(s)))
    return (d + m / 60.0 + s / 3600.0) * (math.pi / 180)


_UFUNC_NAMES = sorted(n for n in _U if not n.startswith("_"))
__all__ = sorted(set(_UFUNC_NAMES) | {
    "bdtr", "bdtrc", "bdtri", "betainc", "betaincinv", "binom", "cbrt",
    "digamma", "ellipj", "ellipk", "exp2", "expm1", "fdtr", "fdtrc", "fdtri",
    "gdtr", "gdtrc", "lambertw", "log1p", "log_softmax", "logsumexp", "lpmv",
    "multigammaln", "nbdtr", "nbdtrc", "nbdtri", "pdtri", "polygamma",
    "radian", "round", "shichi", "sici", "sinc", "softmax", "sph_harm",
    "sph_harm_y", "spherical_jn", "spherical_yn", "wright_bessel", "zeta"})
assert all(isinstance(globals()[n], ufunc) for n in _UFUNC_NAMES)
