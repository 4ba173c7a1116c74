"""Window functions: bartlett blackman hamming hanning kaiser, and the
elementwise helpers kaiser needs, i0 (modified Bessel function of the first
kind, order 0) and sinc.

A window of length M is built on the server from ``arange`` and ufuncs,
with numpy.lib's formulas (float64, as NumPy gives for any M). i0 is a
composition of server ufuncs: the power series sum((x/2)**(2k) / (k!)**2)
by Horner's rule for |x| <= 30, the asymptotic expansion
exp(x) / sqrt(2 pi x) * sum(((2k-1)!!)**2 / (k! (8x)**k)) above; the
coefficients are exact rationals computed here, and each part is accurate
to a few ulp of float64 on its side of the split (checked against
numpy.i0 in tests/python/test_windows.py).

Layer: functions (imports the core, _composite, _math and _creation).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from arrayd import _composite as _c
from arrayd import _connect
from arrayd import _math as _m
from arrayd._ndarray import ndarray

_F64 = np.dtype(np.float64)

# |x| at or below which i0 uses the power series (above: the asymptotic
# expansion). At 30 the series needs 48 terms and the expansion 16 for
# terms below 1e-17 of the sum.
_I0_SPLIT = 30.0
_I0_SERIES = tuple(float(Fraction(1, math.factorial(k) ** 2))
                   for k in range(48))


def _i0_asymptotic_coefficients(n: int) -> tuple[float, ...]:
    # ((2k-1)!!)**2 / (k! 8**k), k = 0 .. n-1.
    out, c = [], Fraction(1)
    for k in range(n):
        out.append(float(c))
        c *= Fraction((2 * k + 1) ** 2, 8 * (k + 1))
    return tuple(out)


_I0_ASYMPTOTIC = _i0_asymptotic_coefficients(16)


def _horner(t: ndarray, coeffs: tuple[float, ...]) -> ndarray:
    """sum(coeffs[k] * t**k) by Horner's rule (float64 t)."""
    r = _m.add(_m.multiply(t, coeffs[-1]), coeffs[-2])
    for c in reversed(coeffs[:-2]):
        r = _m.add(_m.multiply(r, t), c)
    return r


def i0(x: Any) -> ndarray:
    """numpy.i0: the modified Bessel function of the first kind, order 0,
    elementwise (float input keeps its dtype; others give float64)."""
    a = _c.ensure(x)
    if a._dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    rdt = a._dtype if a._dtype.kind == "f" else _F64
    v = _m.absolute(a.astype(_F64, copy=False))
    small = _m.minimum(v, _I0_SPLIT)
    series = _horner(_m.multiply(_m.square(small), 0.25), _I0_SERIES)
    big = _m.maximum(v, _I0_SPLIT)
    tail = _horner(_m.reciprocal(big), _I0_ASYMPTOTIC)
    asym = _m.true_divide(_m.multiply(_m.exp(big), tail),
                          _m.sqrt(_m.multiply(big, 2 * math.pi)))
    # NaN fails the comparison and takes the expansion: NaN, as in NumPy.
    r = _c.where(_m.less_equal(v, _I0_SPLIT), series, asym)
    return r if r._dtype == rdt else r.astype(rdt)


def sinc(x: Any) -> ndarray:
    """numpy.sinc: sin(pi x) / (pi x), 1 at x == 0."""
    a = _c.ensure(x)
    t = _m.multiply(a, math.pi)
    eps = float(np.finfo(t._dtype).eps) if t._dtype.kind == "f" else 1e-20
    y = _c.where(_m.not_equal(t, 0), t, eps)
    return _m.true_divide(_m.sin(y), y)


def _length(M: Any) -> float:  # noqa: N803
    # NumPy reads M through a float64 array (its TypeError for non-numbers).
    return float(np.array([0.0, M])[1])


def _trivial(m: float) -> ndarray | None:
    """The window of length < 1 (empty) or 1 (a one), else None."""
    s = _connect.current()
    if m < 1:
        return _c.new(s, "zeros", (), (0,), _F64,
                      {"shape": [0], "dtype": _F64})
    if m == 1:
        return _c.new(s, "ones", (), (1,), _F64,
                      {"shape": [1], "dtype": _F64})
    return None


def _symmetric_ramp(m: float) -> ndarray:
    """arange(1 - M, M, 2) as float64, on the server."""
    n = math.ceil((m - (1.0 - m)) / 2.0)
    return _c.new(_connect.current(), "arange", (), (n,), _F64,
                  {"start": 1.0 - m, "step": 2.0, "num": n, "dtype": _F64})


def bartlett(M: Any) -> ndarray:  # noqa: N803
    """numpy.bartlett: the triangular window of M points."""
    m = _length(M)
    r = _trivial(m)
    if r is not None:
        return r
    n = _symmetric_ramp(m)
    t = _m.true_divide(n, m - 1)
    return _c.where(_m.less_equal(n, 0), _m.add(t, 1.0),
                    _m.subtract(1.0, t))


def _cosine_window(M: Any, coeffs: tuple[float, ...]) -> ndarray:  # noqa: N803
    """coeffs[0] + sum(coeffs[k] cos(k pi n / (M-1))), n = 1-M, 3-M, ...,
    M-1 (NumPy's order of operations)."""
    m = _length(M)
    r = _trivial(m)
    if r is not None:
        return r
    n = _symmetric_ramp(m)
    out: Any = coeffs[0]
    for k, c in enumerate(coeffs[1:], 1):
        phase = _m.true_divide(_m.multiply(n, k * math.pi), m - 1)
        out = _m.add(out, _m.multiply(_m.cos(phase), c))
    return out


def blackman(M: Any) -> ndarray:  # noqa: N803
    """numpy.blackman: 0.42 + 0.5 cos(pi n/(M-1)) + 0.08 cos(2 pi n/(M-1))."""
    return _cosine_window(M, (0.42, 0.5, 0.08))


def hamming(M: Any) -> ndarray:  # noqa: N803
    """numpy.hamming: 0.54 + 0.46 cos(pi n / (M-1))."""
    return _cosine_window(M, (0.54, 0.46))


def hanning(M: Any) -> ndarray:  # noqa: N803
    """numpy.hanning: 0.5 + 0.5 cos(pi n / (M-1))."""
    return _cosine_window(M, (0.5, 0.5))


def kaiser(M: Any, beta: Any) -> ndarray:  # noqa: N803
    """numpy.kaiser: i0(beta sqrt(1 - ((n - a)/a)**2)) / i0(beta), a =
    (M-1)/2, n = 0 .. M-1."""
    vals = np.array([0.0, M, beta])
    m, b = float(vals[1]), float(vals[2])
    s = _connect.current()
    if m == 1:
        return _c.new(s, "ones", (), (1,), _F64,
                      {"shape": [1], "dtype": _F64})
    num = math.ceil(m) if m > 0 else 0
    n = _c.new(s, "arange", (), (num,), _F64,
               {"start": 0.0, "step": 1.0, "num": num, "dtype": _F64})
    alpha = (m - 1) / 2.0
    u = _m.true_divide(_m.subtract(n, alpha), alpha)
    arg = _m.multiply(_m.sqrt(_m.subtract(1.0, _m.square(u))), b)
    return _m.true_divide(i0(arg), i0(_c.const(s, b, _F64)))


__all__ = ["bartlett", "blackman", "hamming", "hanning", "i0", "kaiser",
           "sinc"]
