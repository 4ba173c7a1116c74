"""scipy.signal's B-spline tools on the server: cspline1d, qspline1d
(the B-spline coefficients of a 1-D signal with mirror-symmetric
boundaries), cspline1d_eval, qspline1d_eval, cspline2d, qspline2d,
spline_filter, sepfir2d and gauss_spline.

The coefficients are SciPy's recursive filters: a causal and an
anti-causal first-order pass of lfilter from the mirror-symmetric start
values (dot products of the signal with powers of the pole, on the
server), or, for a smoothing cspline1d (lamb != 0), a second-order
section each way. The 2-D forms run symiirorder1 along each axis.
sepfir2d is a separable convolution with half-sample symmetric
('reflect') edges, arrayd.scipy.ndimage.convolve1d along each axis.
Evaluation sums the four (cubic) or three (quadratic) B-spline basis
functions around each point, the points folded into [0, N-1] by mirror
symmetry first.

Not supported: cspline2d with lamb > 1/144 and spline_filter with
lmbda > 1/144 (SciPy runs symiirorder2 there, which arrayd lacks);
they raise NotImplementedError.

Layer: a module of the arrayd.scipy.signal namespace (imports arrayd's
public namespace and the package's helpers).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

import arrayd as ad
from arrayd.scipy import ndimage as _nd
from arrayd.scipy.signal import _arraytools as _at
from arrayd.scipy.signal import _signaltools as _st
from arrayd.scipy.signal._splines import symiirorder1


def gauss_spline(x: Any, n: int) -> ad.ndarray:
    """scipy.signal.gauss_spline: the Gaussian approximation of the
    n-th order B-spline basis function at x."""
    x = _at.asarray(x)
    var = (n + 1) / 12.0
    return 1 / math.sqrt(2 * math.pi * var) * ad.exp(-x ** 2 / 2 / var)


def _first_order_coeff(s: ad.ndarray, z: float, gain: float) -> ad.ndarray:
    """The B-spline coefficients of s for the pole z: the causal pass
    1/(1 - z/q) from sum_k z^k s[k], then the anti-causal -z/(1 - z q),
    times gain (SciPy's _cubic_coeff / _quadratic_coeff)."""
    K = s.shape[0]
    powers = ad.asarray(z ** np.arange(K, dtype=np.float64))
    total = ad.dot(powers, s)
    if K == 1:
        return ad.atleast_1d(z / (z - 1) * (s[0] + z * total))
    den = np.array([1.0, -z])
    yplus, _ = _st.lfilter(np.ones(1), den, s, zi=ad.reshape(z * total, (1,)))
    last = z / (z - 1) * yplus[K - 1]
    out, _ = _st.lfilter(np.array([-z]), den, yplus[-2::-1],
                         zi=ad.reshape(z * last, (1,)))
    return ad.concatenate((out[::-1], ad.reshape(last, (1,)))) * gain


def _smooth_roots(lam: float) -> tuple[float, float]:
    xi = 1 - 96 * lam + 24 * lam * math.sqrt(3 + 144 * lam)
    omega = math.atan2(math.sqrt(144 * lam - 1), math.sqrt(xi))
    rho = (24 * lam - 1 - math.sqrt(xi)) / (24 * lam)
    rho *= math.sqrt((48 * lam + 24 * lam * math.sqrt(3 + 144 * lam)) / xi)
    return rho, omega


def _cubic_smooth_coeff(s: ad.ndarray, lam: float) -> ad.ndarray:
    """cspline1d's smoothing coefficients: a second-order section forward
    and backward from mirror-symmetric start values."""
    rho, omega = _smooth_roots(lam)
    cs = 1 - 2 * rho * math.cos(omega) + rho * rho
    K = s.shape[0]
    k = np.arange(K, dtype=np.float64)

    def hc(j: Any) -> Any:
        j = np.asarray(j, dtype=np.float64)
        return (cs / math.sin(omega) * rho ** j * np.sin(omega * (j + 1))
                * (j > -1))

    def hs(j: Any) -> Any:
        c0 = (cs * cs * (1 + rho * rho) / (1 - rho * rho)
              / (1 - 2 * rho * rho * math.cos(2 * omega) + rho ** 4))
        gamma = (1 - rho * rho) / (1 + rho * rho) / math.tan(omega)
        aj = np.abs(np.asarray(j, dtype=np.float64))
        return c0 * rho ** aj * (np.cos(omega * aj) + gamma
                                 * np.sin(omega * aj))

    a1, a2 = -2 * rho * math.cos(omega), rho * rho
    sos = np.array([[cs, 0, 0, 1, a1, a2]])

    def state(y1: ad.ndarray, y2: ad.ndarray) -> ad.ndarray:
        # lfiltic(cs, [1, a1, a2], [y1, y2]): the state after outputs
        # y[-1] = y1, y[-2] = y2.
        return ad.stack((-a1 * y1 - a2 * y2, -a2 * y1)).reshape(1, 2)

    zi_2 = hc(0) * s[0] + ad.dot(ad.asarray(hc(k + 1)), s)
    zi_1 = (hc(0) * s[0] + hc(1) * s[1]
            + ad.dot(ad.asarray(hc(k + 2)), s))
    yp, _ = _st.sosfilt(sos, s[2:], zi=state(zi_1, zi_2))
    yp = ad.concatenate((ad.stack((zi_2, zi_1)), yp))
    rev = s[::-1]
    zi_2 = ad.dot(ad.asarray(hs(k) + hs(k + 1)), rev)
    zi_1 = ad.dot(ad.asarray(hs(k - 1) + hs(k + 2)), rev)
    y, _ = _st.sosfilt(sos, yp[-3::-1], zi=state(zi_1, zi_2))
    return ad.concatenate((y[::-1], ad.stack((zi_1, zi_2))))


def cspline1d(signal: Any, lamb: float = 0.0) -> ad.ndarray:
    """scipy.signal.cspline1d: the cubic B-spline coefficients of a rank-1
    signal with mirror-symmetric boundaries (smoothed when lamb != 0)."""
    s = _at.asarray(signal)
    if lamb != 0.0:
        return _cubic_smooth_coeff(s, lamb)
    return _first_order_coeff(s, -2 + math.sqrt(3), 6.0)


def qspline1d(signal: Any, lamb: float = 0.0) -> ad.ndarray:
    """scipy.signal.qspline1d: the quadratic B-spline coefficients of a
    rank-1 signal with mirror-symmetric boundaries (lamb must be 0)."""
    if lamb != 0.0:
        raise ValueError("Smoothing quadratic splines not supported yet.")
    return _first_order_coeff(_at.asarray(signal), -3 + 2 * math.sqrt(2.0),
                              8.0)


def _cubic_basis(t: ad.ndarray) -> ad.ndarray:
    a = ad.abs(t)
    inner = 2.0 / 3.0 - a * a + a ** 3 / 2
    outer = (2 - a) ** 3 / 6
    return ad.where(a < 1, inner, ad.where(a <= 2, outer, 0.0))


def _quadratic_basis(t: ad.ndarray) -> ad.ndarray:
    a = ad.abs(t)
    inner = 0.75 - a * a
    outer = (a - 1.5) ** 2 / 2
    return ad.where(a < 0.5, inner, ad.where(a <= 1.5, outer, 0.0))


def _spline_eval(cj: Any, newx: Any, dx: float, x0: Any, order: int,
                 dtype: Any) -> ad.ndarray:
    x = (_at.asarray(newx) - x0) / float(dx)
    cj = _at.asarray(cj)
    if cj.size == 0:
        raise ValueError("Spline coefficients 'cj' must not be empty.")
    if x.size == 0:
        return ad.zeros(x.shape, dtype if dtype is not None else x.dtype)
    N = cj.shape[0]
    top = N - 1
    # Fold every point into [0, N - 1] by mirror symmetry at both ends.
    for _ in range(64):
        x = ad.where(x < 0, -x, x)
        if top == 0:
            break
        x = ad.where(x > top, 2 * top - x, x)
        if not bool(ad.any((x < 0) | (x > top))):
            break
    basis = _cubic_basis if order == 3 else _quadratic_basis
    width = 4 if order == 3 else 3
    shift = 2.0 if order == 3 else 1.5
    lower = ad.floor(x - shift).astype(np.int64) + 1
    out = None
    for i in range(width):
        j = lower + i
        term = ad.take(cj, ad.clip(j, 0, top)) * basis(x - j)
        out = term if out is None else out + term
    rdt = dtype if dtype is not None else np.result_type(x.dtype, cj.dtype)
    return ad.ascontiguousarray(out.astype(rdt))


def cspline1d_eval(cj: Any, newx: Any, dx: float = 1.0,
                   x0: Any = 0) -> ad.ndarray:
    """scipy.signal.cspline1d_eval: the cubic spline of coefficients cj
    (knots x0 + k dx) at newx, mirror-symmetric beyond the ends."""
    cjd = _at.asarray(cj)
    return _spline_eval(cjd, newx, dx, x0, 3, cjd.dtype)


def qspline1d_eval(cj: Any, newx: Any, dx: float = 1.0,
                   x0: Any = 0) -> ad.ndarray:
    """scipy.signal.qspline1d_eval: the quadratic spline of coefficients
    cj at newx, mirror-symmetric beyond the ends."""
    x = _at.asarray(newx)
    return _spline_eval(cj, x, dx, x0, 2, None)


def _along(x: ad.ndarray, axis: int, c0: float, z1: float,
           precision: float) -> ad.ndarray:
    rows, lead = _at.to_rows(x, axis)
    out = symiirorder1(rows, c0, z1, precision)
    return ad.ascontiguousarray(_at.from_rows(out, lead, axis))


def _default_precision(dt: np.dtype, precision: float) -> float:
    if precision < 0.0 or precision >= 1.0:
        return 1e-3 if dt in (np.float32, np.complex64) else 1e-6
    return precision


def cspline2d(signal: Any, lamb: float = 0.0,
              precision: float = -1.0) -> ad.ndarray:
    """scipy.signal.cspline2d: the 2-D cubic B-spline coefficients (the
    first-order symmetric filter along the last axis, then axis 0)."""
    x = _at.asarray(signal)
    precision = _default_precision(x.dtype, precision)
    if lamb > 1 / 144.0:
        raise NotImplementedError("cspline2d with lamb > 1/144 (SciPy's "
                                  "symiirorder2 path)")
    r = -2 + math.sqrt(3.0)
    out = _along(x, -1, -r * 6.0, r, precision)
    return _along(out, 0, -r * 6.0, r, precision)


def qspline2d(signal: Any, lamb: float = 0.0,
              precision: float = -1.0) -> ad.ndarray:
    """scipy.signal.qspline2d: the 2-D quadratic B-spline coefficients."""
    x = _at.asarray(signal)
    precision = _default_precision(x.dtype, precision)
    if lamb > 0:
        raise ValueError("lambda must be negative or zero")
    r = -3 + 2 * math.sqrt(2.0)
    out = _along(x, -1, -r * 8.0, r, precision)
    return _along(out, 0, -r * 8.0, r, precision)


def sepfir2d(input: Any, hrow: Any, hcol: Any) -> ad.ndarray:
    """scipy.signal.sepfir2d: the separable 2-D convolution with hrow
    along rows and hcol along columns, mirror-symmetric ('reflect')
    edges; SciPy's dtypes (float32 for small integers, float64 for wider
    ones, complex as given)."""
    x = _at.asarray(input)
    if x.ndim != 2:
        raise ValueError("input must be 2-D")
    hr = np.atleast_1d(_at.host(hrow))
    hc = np.atleast_1d(_at.host(hcol))
    if x.dtype.kind == "c" or hr.dtype.kind == "c" or hc.dtype.kind == "c":
        dt = np.result_type(x.dtype, hr.dtype, hc.dtype, np.complex64)
    else:
        dt = np.result_type(x.dtype, np.float32)
    work = _at.work_dtype(dt)
    y = _nd.convolve1d(x.astype(work), ad.asarray(hr.astype(work)), axis=1,
                       mode="reflect")
    y = _nd.convolve1d(y, ad.asarray(hc.astype(work)), axis=0,
                       mode="reflect")
    return ad.ascontiguousarray(y.astype(dt))


def spline_filter(Iin: Any, lmbda: float = 5.0) -> ad.ndarray:
    """scipy.signal.spline_filter: the smoothing spline filter of a 2-D
    image (cspline2d, then the B-spline kernel [1, 4, 1] / 6 each way)."""
    x = _at.asarray(Iin)
    if x.dtype not in (np.float32, np.float64, np.complex64,
                       np.complex128):
        raise TypeError(f"Invalid data type for Iin: {x.dtype = }")
    intype = x.dtype
    if intype == np.complex128:
        x = x.astype(np.complex64)
    h = np.array([1.0, 4.0, 1.0], np.float32) / 6.0
    ck = cspline2d(x, lmbda)
    return sepfir2d(ck, h, h).astype(intype)
