"""Calculus, signals and binning: gradient interp trapezoid convolve
correlate unwrap cov corrcoef digitize histogram2d histogramdd
histogram_bin_edges logspace geomspace.

Each follows the formulas of NumPy's own implementation
(lib/_function_base_impl.py, _core/numeric.py, lib/_histograms_impl.py,
lib/_twodim_base_impl.py, _core/function_base.py) so that dtypes, edge
cases and errors match; the data work is server ops. NumPy's checks of
shapes, dtypes and modes run on one-element stand-ins.

convolve and correlate are direct: a Toeplitz gather (``take`` of the
zero-padded signal at i + j) times the kernel on the server's matmul,
exact for integers as NumPy's loop is, in row blocks for long signals; a
floating product of more than _FFT_WORK multiply-adds goes through
arrayd.fft instead.

Functions whose result size or a parameter depends on the data sync
once: histogram edges from the data's range (as numpy.histogram),
digitize's monotonicity, cov's weight checks, geomspace's zero check.

Layer: functions (imports the core, _composite, _math, _reduction,
_manipulation, _statistics, _sorting, _linalg, _mathfuncs and arrayd.fft).
"""
from __future__ import annotations

import builtins
import operator
import warnings
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from arrayd import _composite as _c
from arrayd import _mathfuncs
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd import _statistics as _st
from arrayd import fft as _fft
from arrayd._linalg import matmul
from arrayd._manipulation import moveaxis
from arrayd._ndarray import ndarray, session_of, shape_dummy
from arrayd._sorting import bsearch

_I64 = np.dtype(np.int64)
_F64 = np.dtype(np.float64)
_C128 = np.dtype(np.complex128)
_BOOL = np.dtype(np.bool_)

# Elements of one Toeplitz block of a direct convolution (rows x kernel).
_BLOCK = 1 << 22
# Multiply-adds above which a floating convolution uses the FFT.
_FFT_WORK = 1 << 26










def _at(axis: int, key: Any, nd: int) -> tuple[Any, ...]:
    return (slice(None),) * axis + (key,) + (slice(None),) * (nd - axis - 1)


# -- convolve / correlate ----------------------------------------------------

# The modes NumPy accepts (its probe has refused anything else).
_MODES = {"valid": "valid", "same": "same", "full": "full", 0: "valid",
          1: "same", 2: "full"}


def _xcorr(x: ndarray, y: ndarray, lo: int, length: int,
           dt: np.dtype) -> ndarray:
    """Elements lo .. lo+length-1 of the full cross-correlation
    full[k] = sum_i xpad[k + i] y[i] (xpad: x with len(y)-1 zeros on each
    side), in dtype dt."""
    s = x._session
    m = y._shape[0]
    if length <= 0:
        return _c.zeros(s, (0,), dt)
    x = x.astype(dt, copy=False)
    y = y.astype(dt, copy=False)
    if dt.kind in "fc" and length * m > _FFT_WORK and m > 1:
        return _xcorr_fft(x, y, lo, length, dt)
    pad = _c.zeros(s, (m - 1,), dt) if m > 1 else None
    xp = _c.concatenate([pad, x, pad]) if pad is not None else x
    cols = builtins.min(m, _BLOCK)
    rows = builtins.max(1, _BLOCK // cols)
    parts = []
    for r0 in range(0, length, rows):
        nr = builtins.min(rows, length - r0)
        acc = None
        for c0 in range(0, m, cols):
            nc = builtins.min(cols, m - c0)
            idx = _m.add(_c.arange(s, nr, start=lo + r0 + c0).reshape(nr, 1),
                         _c.arange(s, nc).reshape(1, nc))
            t = _c.take(xp, idx)
            part = matmul(t, y[c0:c0 + nc] if nc != m else y)
            acc = part if acc is None else _m.add(acc, part)
        parts.append(acc)
    return parts[0] if len(parts) == 1 else _c.concatenate(parts)


def _xcorr_fft(x: ndarray, y: ndarray, lo: int, length: int,
               dt: np.dtype) -> ndarray:
    n, m = x._shape[0], y._shape[0]
    total = n + m - 1
    nfft = 1 << (total - 1).bit_length()
    yr = y[::-1]
    if dt.kind == "f":
        wdt = np.dtype(np.float32) if dt.itemsize <= 4 else _F64
        fx = _fft.rfft(x.astype(wdt, copy=False), nfft)
        fy = _fft.rfft(yr.astype(wdt, copy=False), nfft)
        full = _fft.irfft(_m.multiply(fx, fy), nfft)
    else:
        full = _fft.ifft(_m.multiply(_fft.fft(x, nfft), _fft.fft(yr, nfft)))
    r = full[lo:lo + length]
    return r.astype(dt) if r._dtype != dt else r.copy()


def _correlation(name: str, a: Any, v: Any, mode: Any) -> ndarray:
    s = session_of(a, v)
    a, v = _c.ensure(a, s), _c.ensure(v, s)
    npf = np.convolve if name == "convolve" else np.correlate
    for x in (a, v):
        if x.ndim > 1:
            raise ValueError("object too deep for desired array")
        if x.ndim == 0 and name == "correlate":
            raise ValueError("object of too small depth for desired array")
    # NumPy's dtype and its errors (empty inputs, the mode) on stand-ins.
    if a.size == 0:
        raise ValueError("a cannot be empty")
    if v.size == 0:
        raise ValueError("v cannot be empty")
    dt = npf(np.zeros(1, a._dtype), np.zeros(1, v._dtype), mode).dtype
    md = _MODES[mode]
    a, v = a.reshape(-1), v.reshape(-1)
    if name == "convolve":
        if v._shape[0] > a._shape[0]:
            a, v = v, a
        x, y, swapped = a, v[::-1], False
    else:
        if v._dtype.kind == "c":
            v = _m.conjugate(v)
        swapped = v._shape[0] > a._shape[0]
        x, y = a, v
    n, m = builtins.max(a._shape[0], v._shape[0]), builtins.min(
        a._shape[0], v._shape[0])
    total = x._shape[0] + y._shape[0] - 1
    if md == "full":
        lo, length = 0, total
    elif md == "same":
        lo = m // 2 if swapped else (m - 1) - m // 2
        length = n
    else:
        lo, length = m - 1, n - m + 1
    return _xcorr(x, y, lo, length, dt)


def convolve(a: Any, v: Any, mode: str = "full") -> ndarray:
    """numpy.convolve: the discrete linear convolution of two 1-D arrays
    (modes 'full', 'same', 'valid')."""
    return _correlation("convolve", a, v, mode)


def correlate(a: Any, v: Any, mode: str = "valid") -> ndarray:
    """numpy.correlate: sum(a[n + k] * conj(v[n])) of two 1-D arrays."""
    return _correlation("correlate", a, v, mode)


# -- gradient ------------------------------------------------------------------

def _spacing(s: Any, d: Any, n: int) -> Any:
    """One axis's spacing: a scalar as given, or the differences of 1-D
    coordinates (with the uniform-spacing test kept on the server)."""
    if not isinstance(d, ndarray) and np.ndim(d) == 0:
        return d
    d = _c.ensure(d, s)
    if d.ndim == 0:
        return d
    if d.ndim != 1:
        raise ValueError("distances must be either scalars or 1d")
    if d._shape[0] != n:
        raise ValueError("when 1d, distances must match the length of the "
                         "corresponding dimension")
    if d._dtype.kind in "iub":
        d = d.astype(_F64)
    return _st.diff(d)


def _combine(a: Any, f1: ndarray, b: Any, f2: ndarray, c: Any,
             f3: ndarray) -> ndarray:
    return _m.add(_m.add(_m.multiply(a, f1), _m.multiply(b, f2)),
                  _m.multiply(c, f3))


def _gradient_axis(f: ndarray, axis: int, dx: Any, edge_order: int,
                   otype: np.dtype) -> ndarray:
    nd = f.ndim
    n = f._shape[axis]

    def sl(k: Any) -> ndarray:
        return f[_at(axis, k, nd)]

    def keep(k: int) -> ndarray:
        return f[_at(axis, slice(k, k + 1) if k != -1 else slice(-1, None),
                     nd)]

    coeff_shape = tuple(-1 if d == axis else 1 for d in range(nd))
    uniform = not isinstance(dx, ndarray) or dx.ndim == 0

    def pieces(h: Any) -> tuple[ndarray, ndarray, ndarray]:
        if not isinstance(h, ndarray) or h.ndim == 0:
            # A host spacing makes host coefficients, as in NumPy: a
            # Python float stays weak (the data's precision), a NumPy
            # scalar strong.
            def q(c: float) -> Any:
                return (_m.true_divide(c, h) if isinstance(h, ndarray)
                        else c / h)

            twice = _m.multiply(h, 2.0) if isinstance(h, ndarray) else 2.0 * h
            mid = _m.true_divide(_m.subtract(sl(slice(2, None)),
                                             sl(slice(None, -2))), twice)
            if edge_order == 1:
                e0 = _m.true_divide(_m.subtract(keep(1), keep(0)), h)
                e1 = _m.true_divide(_m.subtract(keep(-1), keep(-2)), h)
            else:
                e0 = _combine(q(-1.5), keep(0), q(2.0), keep(1), q(-0.5),
                              keep(2))
                e1 = _combine(q(0.5), keep(-3), q(-2.0), keep(-2), q(1.5),
                              keep(-1))
            return e0, mid, e1
        d1, d2 = h[:-1], h[1:]
        s12 = _m.add(d1, d2)
        ca = _m.true_divide(_m.negative(d2), _m.multiply(d1, s12))
        cb = _m.true_divide(_m.subtract(d2, d1), _m.multiply(d1, d2))
        cc = _m.true_divide(d1, _m.multiply(d2, s12))
        mid = _combine(ca.reshape(coeff_shape), sl(slice(None, -2)),
                       cb.reshape(coeff_shape), sl(slice(1, -1)),
                       cc.reshape(coeff_shape), sl(slice(2, None)))
        if edge_order == 1:
            e0 = _m.true_divide(_m.subtract(keep(1), keep(0)), h[0])
            e1 = _m.true_divide(_m.subtract(keep(-1), keep(-2)), h[-1])
        else:
            a1, a2 = h[0], h[1]
            sa = _m.add(a1, a2)
            e0 = _combine(
                _m.true_divide(_m.negative(_m.add(_m.multiply(a1, 2.0), a2)),
                               _m.multiply(a1, sa)), keep(0),
                _m.true_divide(sa, _m.multiply(a1, a2)), keep(1),
                _m.true_divide(_m.negative(a1), _m.multiply(a2, sa)),
                keep(2))
            b1, b2 = h[-2], h[-1]
            sb = _m.add(b1, b2)
            e1 = _combine(
                _m.true_divide(b2, _m.multiply(b1, sb)), keep(-3),
                _m.true_divide(_m.negative(sb), _m.multiply(b1, b2)),
                keep(-2),
                _m.true_divide(_m.add(_m.multiply(b2, 2.0), b1),
                               _m.multiply(b2, sb)), keep(-1))
        return e0, mid, e1

    if uniform:
        parts = pieces(dx)
    else:
        # NumPy takes the uniform formulas when all differences are equal.
        same = _r.all(_m.equal(dx, dx[0]))
        pu, pn = pieces(dx[0]), pieces(dx)
        parts = tuple(_c.where(same, u.astype(otype, copy=False),
                               v.astype(otype, copy=False))
                      for u, v in zip(pu, pn))
    parts = [p.astype(otype, copy=False) for p in parts]
    e0, mid, e1 = parts
    if n == 2:
        out = _c.concatenate([e0, e1], axis)
    else:
        out = _c.concatenate([e0, mid, e1], axis)
    return out


def gradient(f: Any, *varargs: Any, axis: Any = None,
             edge_order: int = 1) -> Any:
    """numpy.gradient: second-order central differences inside, first or
    second order one-sided differences at the boundaries; one array per
    axis (a tuple for several)."""
    f = _c.ensure(f, session_of(f, *varargs))
    s = f._session
    nd = f.ndim
    axes = (tuple(range(nd)) if axis is None
            else normalize_axis_tuple(axis, nd))
    k = len(axes)
    nv = len(varargs)
    if nv == 0:
        dx: list[Any] = [1.0] * k
    elif nv == 1 and np.ndim(varargs[0]) == 0:
        dx = [varargs[0]] * k
    elif nv == k:
        dx = [_spacing(s, d, f._shape[ax]) for d, ax in zip(varargs, axes)]
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    otype = f._dtype
    if otype.kind in "iu":
        f = f.astype(_F64)
        otype = _F64
    elif otype.kind not in "fc":
        otype = _F64
    outs = []
    for ax, h in zip(axes, dx):
        if f._shape[ax] < edge_order + 1:
            raise ValueError(
                "Shape of array too small to calculate a numerical "
                "gradient, at least (edge_order + 1) elements are "
                "required.")
        if f._dtype.kind == "b":
            np.subtract(np.zeros(1, bool), np.zeros(1, bool))  # TypeError
        outs.append(_gradient_axis(f, ax, h, edge_order, otype))
    return outs[0] if k == 1 else tuple(outs)


# -- trapezoid / interp / unwrap ---------------------------------------------

def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """numpy.trapezoid: integral along axis by the trapezoidal rule."""
    s = session_of(y, x, dx)
    y = _c.ensure(y, s)
    nd = y.ndim
    if nd == 0:
        raise np.exceptions.AxisError(axis, 0)
    ax = normalize_axis_index(axis, nd)
    if x is None:
        d: Any = dx
    else:
        x = _c.ensure(x, s)
        if x.ndim == 1:
            d = _st.diff(x)
            shape = [1] * nd
            shape[ax] = d._shape[0]
            d = d.reshape(tuple(shape))
        else:
            d = _st.diff(x, axis=ax)
    hi = y[_at(ax, slice(1, None), nd)]
    lo = y[_at(ax, slice(None, -1), nd)]
    return _r.sum(_m.true_divide(_m.multiply(d, _m.add(hi, lo)), 2.0), ax)


def _interp_real(x: ndarray, xp: ndarray, fp: ndarray, left: Any,
                 right: Any) -> ndarray:
    """numpy's compiled interp, elementwise on the server (fp real)."""
    n = xp._shape[0]
    j = _m.subtract(bsearch(xp, x, True), 1)      # xp[j] <= x < xp[j+1]
    jc = _m.minimum(_m.maximum(j, 0), builtins.max(n - 2, 0))
    x0, f0 = _c.take(xp, jc), _c.take(fp, jc)
    if n > 1:
        x1, f1 = _c.take(xp, _m.add(jc, 1)), _c.take(fp, _m.add(jc, 1))
        slope = _m.true_divide(_m.subtract(f1, f0), _m.subtract(x1, x0))
        r = _m.add(_m.multiply(slope, _m.subtract(x, x0)), f0)
        # NaN from inf slopes: from the right end instead, then f0 if flat.
        r2 = _m.add(_m.multiply(slope, _m.subtract(x, x1)), f1)
        r = _c.where(_m.isnan(r), r2, r)
        r = _c.where(_m.logical_and(_m.isnan(r), _m.equal(f0, f1)), f0, r)
        r = _c.where(_m.equal(x0, x), f0, r)
    else:
        r = f0
    last = fp[n - 1]
    r = _c.where(_m.greater_equal(j, n - 1), last, r)
    r = _c.where(_m.greater(x, xp[n - 1]),
                 last if right is None else right, r)
    r = _c.where(_m.less(j, 0), fp[0] if left is None else left, r)
    r = _c.where(_m.isnan(x), x, r)
    return r.astype(_F64, copy=False)


def _side_value(v: Any, dt: np.dtype, s: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, ndarray):
        if v.size != 1:
            raise TypeError("only length-1 arrays can be converted to "
                            "Python scalars")
        return v.reshape(()).astype(dt, copy=False)
    arr = np.asarray(v)
    if arr.size != 1:
        raise TypeError("only length-1 arrays can be converted to Python "
                        "scalars")
    val = arr.reshape(()).item()
    if dt.kind == "f":
        val = float(val)
    else:
        val = complex(val)
    return _c.const(s, val, dt)


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> ndarray:
    """numpy.interp: one-dimensional piecewise linear interpolation
    (float64 result, complex128 for complex fp)."""
    s = session_of(x, xp, fp)
    x, xp, fp = (_c.ensure(v, s) for v in (x, xp, fp))
    cplx = fp._dtype.kind == "c"
    fdt = _C128 if cplx else _F64
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = right = None
        if xp.ndim != 1 or fp.ndim != 1:
            raise ValueError("Data points must be 1-D sequences")
        if xp._shape[0] != fp._shape[0]:
            raise ValueError("fp and xp are not of the same length")
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("object too deep for desired array"
                         if builtins.max(xp.ndim, fp.ndim) > 1 else
                         "object of too small depth for desired array")
    if xp._shape[0] != fp._shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    if xp._shape[0] == 0:
        raise ValueError("array of sample points is empty")
    x = x.astype(_F64, copy=False)
    xp = xp.astype(_F64, copy=False)
    fp = fp.astype(fdt, copy=False)
    if period is not None:
        x = _m.remainder(x, float(period))
        xp = _m.remainder(xp, float(period))
        order = _c.new(s, "argsort", (xp,), xp._shape, _I64, {"axis": 0})
        xp, fp = _c.take(xp, order), _c.take(fp, order)
        xp = _c.concatenate([_m.subtract(xp[-1:], float(period)), xp,
                             _m.add(xp[:1], float(period))])
        fp = _c.concatenate([fp[-1:], fp, fp[:1]])
    lv = _side_value(left, fdt, s)
    rv = _side_value(right, fdt, s)
    if not cplx:
        return _interp_real(x, xp, fp, lv, rv)
    # Real and imaginary parts interpolated apart, as NumPy's complex loop.
    parts = [_interp_real(x, xp, part(fp),
                          None if lv is None else part(lv),
                          None if rv is None else part(rv))
             for part in (_mathfuncs.real, _mathfuncs.imag)]
    out = _c.zeros(s, x._shape, _C128)
    _mathfuncs.real(out)[...] = parts[0]
    _mathfuncs.imag(out)[...] = parts[1]
    return out


def unwrap(p: Any, discont: Any = None, axis: int = -1, *,
           period: Any = 2 * np.pi) -> ndarray:
    """numpy.unwrap: adds multiples of period where consecutive values
    jump by more than max(discont, period/2)."""
    p = _c.ensure(p)
    nd = p.ndim
    dd = _st.diff(p, axis=axis)
    ax = normalize_axis_index(axis, nd)
    if discont is None:
        discont = period / 2
    dtype = np.result_type(dd._dtype, period)
    if dtype.kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high = period / 2
        ambiguous = True
    low = -high
    ddmod = _m.add(_m.remainder(_m.subtract(dd, low), period), low)
    if ambiguous:
        ddmod = _c.where(_m.logical_and(_m.equal(ddmod, low),
                                        _m.greater(dd, 0)),
                         _c.const(p._session, high, ddmod._dtype), ddmod)
    correct = _m.subtract(ddmod, dd)
    correct = _c.where(_m.less(_m.absolute(dd), discont),
                       _c.const(p._session, 0, correct._dtype), correct)
    up = p.astype(dtype) if p._dtype != dtype else p.copy()
    if p._shape[ax] > 1:
        rest = _at(ax, slice(1, None), nd)
        up[rest] = _m.add(p[rest], _st.cumsum(correct, axis=ax))
    return up


# -- cov / corrcoef -----------------------------------------------------------

def _as_2d(a: ndarray, dt: np.dtype) -> ndarray:
    a = a.astype(dt, copy=False)
    return a.reshape((1,) * (2 - a.ndim) + a._shape) if a.ndim < 2 else a


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False,
        ddof: Any = None, fweights: Any = None, aweights: Any = None, *,
        dtype: Any = None) -> ndarray:
    """numpy.cov: the covariance matrix of the rows (variables) of m (and
    y), optionally with frequency and reliability weights."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    s = session_of(m, y, fweights, aweights)
    m = _c.ensure(m, s)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None:
        y = _c.ensure(y, s)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    if dtype is None:
        dtype = np.result_type(m._dtype, *(() if y is None else
                                           (y._dtype,)), np.float64)
    dt = np.dtype(dtype)
    X = _as_2d(m, dt)  # noqa: N806
    if not rowvar and m.ndim != 1:
        X = X.T  # noqa: N806
    if X._shape[0] == 0:
        return _c.zeros(s, (0, 0), _F64)
    if y is not None:
        yy = _as_2d(y, dt)
        if not rowvar and yy._shape[0] != 1:
            yy = yy.T
        if yy._shape[1] != X._shape[1]:
            raise ValueError("all the input array dimensions except for the "
                             "concatenation axis must match exactly")
        X = _c.concatenate([X, yy], 0)  # noqa: N806
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    nobs = X._shape[1]
    w = fw = aw = None
    checks: list[ndarray] = []
    if fweights is not None:
        fw = _c.ensure(fweights, s).astype(_F64, copy=False)
        checks.append(_r.all(_m.equal(fw, _mathfuncs.round(fw))))
        if fw.ndim > 1:
            raise RuntimeError("cannot handle multidimensional fweights")
        if fw._shape[0] != nobs:
            raise RuntimeError("incompatible numbers of samples and "
                               "fweights")
        checks.append(_r.any(_m.less(fw, 0)))
        w = fw
    if aweights is not None:
        aw = _c.ensure(aweights, s).astype(_F64, copy=False)
        if aw.ndim > 1:
            raise RuntimeError("cannot handle multidimensional aweights")
        if aw._shape[0] != nobs:
            raise RuntimeError("incompatible numbers of samples and "
                               "aweights")
        checks.append(_r.any(_m.less(aw, 0)))
        w = aw if w is None else _m.multiply(w, aw)
    if w is None:
        avg = _r.mean(X, 1)
        fact: Any = nobs - ddof
    else:
        w_sum = _r.sum(w)
        extra = [w_sum]
        if aw is not None and ddof != 0:
            extra.append(_r.sum(_m.multiply(w, aw)))
        vals = _c.fetch(*checks, *extra)  # one sync: the checks and sums
        k = 0
        if fw is not None:
            if not bool(vals[0]):
                raise TypeError("fweights must be integer")
            if bool(vals[1]):
                raise ValueError("fweights cannot be negative")
            k = 2
        if aw is not None:
            if bool(vals[k]):
                raise ValueError("aweights cannot be negative")
            k += 1
        wsum = vals[k]
        if wsum == 0:
            raise ZeroDivisionError("Weights sum to zero, can't be "
                                    "normalized")
        rdt = np.result_type(X._dtype, _F64)
        avg = _m.true_divide(_r.sum(_m.multiply(X.astype(rdt, copy=False),
                                                w), 1), wsum)
        if ddof == 0:
            fact = wsum
        elif aw is None:
            fact = wsum - ddof
        else:
            fact = wsum - ddof * vals[k + 1] / wsum
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning,
                      stacklevel=2)
        fact = 0.0
    # NumPy subtracts the (float) mean in place: its casting error for
    # an integer or bool dtype.
    np.subtract(np.zeros(1, X._dtype), np.zeros(1, np.result_type(X._dtype, _F64)),
                out=np.zeros(1, X._dtype))
    Xc = _m.subtract(X, avg.reshape(-1, 1)).astype(X._dtype,  # noqa: N806
                                                   copy=False)
    Xw = Xc if w is None else _m.multiply(Xc, w)  # noqa: N806
    if Xw._dtype.kind == "c":
        Xw = _m.conjugate(Xw)  # noqa: N806
    c = matmul(Xc, Xw.T)
    with np.errstate(divide="warn"):
        scale = np.true_divide(1, fact)
    c = _m.multiply(c, float(scale)).astype(c._dtype, copy=False)
    return c.squeeze()


def corrcoef(x: Any, y: Any = None, rowvar: bool = True,
             bias: Any = np._NoValue, ddof: Any = np._NoValue, *,
             dtype: Any = None) -> ndarray:
    """numpy.corrcoef: the correlation coefficients cov / outer(std, std),
    real and imaginary parts clipped to [-1, 1]."""
    if bias is not np._NoValue or ddof is not np._NoValue:
        warnings.warn("bias and ddof have no effect and are deprecated",
                      DeprecationWarning, stacklevel=2)
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim != 2:
        return _m.true_divide(c, c)
    d = _c.diagonal(c)
    std = _m.sqrt(_mathfuncs.real(d))
    c = _m.true_divide(_m.true_divide(c, std.reshape(-1, 1)),
                       std.reshape(1, -1)).astype(c._dtype, copy=False)
    if c._dtype.kind == "c":
        re = _mathfuncs.clip(_mathfuncs.real(c), -1, 1)
        im = _mathfuncs.clip(_mathfuncs.imag(c), -1, 1)
        out = _c.zeros(c._session, c._shape, c._dtype)
        _mathfuncs.real(out)[...] = re
        _mathfuncs.imag(out)[...] = im
        return out
    return _mathfuncs.clip(c, -1, 1)


# -- digitize / histograms -----------------------------------------------------

def _monotonicity(bins: ndarray) -> int:
    """NumPy's rule (on float64 values): the first element that differs
    from bins[0] gives the direction, and no later pair may go the other
    way (comparisons with NaN never do); all equal is increasing. 1, -1 or
    0, in one sync."""
    b = bins.astype(_F64, copy=False)
    ne = _m.not_equal(b, b[0])
    first = _c.take(b, _r.argmax(ne))
    lo, hi = b[:-1], b[1:]
    has, up, bad_up, bad_down = _c.fetch(
        _r.any(ne), _m.less(b[0], first), _r.any(_m.greater(lo, hi)),
        _r.any(_m.less(lo, hi)))
    if not has:
        return 1
    if up:
        return 0 if bad_up else 1
    return 0 if bad_down else -1


def digitize(x: Any, bins: Any, right: bool = False) -> ndarray:
    """numpy.digitize: the bin of each x (bins monotonic either way; one
    sync to learn which)."""
    s = session_of(x, bins)
    x, bins = _c.ensure(x, s), _c.ensure(bins, s)
    if x._dtype.kind == "c":
        raise TypeError("x may not be complex")
    if bins.ndim != 1:
        raise ValueError("object too deep for desired array" if bins.ndim > 1
                         else "object of too small depth for desired array")
    if bins._dtype.kind == "c":
        np.digitize(np.zeros(1), np.zeros(2, bins._dtype))  # NumPy's error
    n = bins._shape[0]
    mono = _monotonicity(bins) if n > 1 else 1
    if mono == 0:
        raise ValueError("bins must be monotonically increasing or "
                         "decreasing")
    if mono == -1:
        return _m.subtract(n, bsearch(bins[::-1], x, not right))
    return bsearch(bins, x, not right)


def _outer_edges(lo: Any, hi: Any, rng: Any, empty: bool) -> tuple[Any, Any]:
    """numpy.histogram's range: the given one (checked), or the data's
    min and max (lo, hi: numpy scalars, read in one sync), widened by 0.5
    on each side when equal."""
    if rng is not None:
        first, last = rng
        if first > last:
            raise ValueError("max must be larger than min in range "
                             "parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not "
                             f"finite")
    elif empty:
        first, last = 0, 1
    else:
        first, last = lo, hi
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"autodetected range of [{first}, {last}] is "
                             f"not finite")
    if first == last:
        first = first - 0.5
        last = last + 0.5
    return first, last


def _linspace_edges(s: Any, first: Any, last: Any, n: int,
                    dt: np.dtype) -> ndarray:
    """np.linspace(first, last, n + 1, dtype=dt) on the server."""
    return _linspace(s, first, last, n + 1, True, dt, 0)


def _unsigned_subtract(a: Any, b: Any) -> Any:
    """a - b for scalars; for signed integers in the unsigned type, as
    NumPy's histogram does (no overflow)."""
    dt = np.result_type(a, b)
    if dt.kind == "i":
        udt = np.dtype(dt.str.replace("i", "u"))
        return np.subtract(np.asarray(a, dtype=dt), np.asarray(b, dtype=dt),
                           casting="unsafe", dtype=udt)[()]
    return np.subtract(a, b)


_ESTIMATORS = ("stone", "auto", "doane", "fd", "rice", "scott", "sqrt",
               "sturges")


def _bin_width(name: str, a: ndarray, rng: tuple[Any, Any]) -> Any:
    """numpy.histogram's bin width estimators: statistics of the data on
    the server, read in one sync, the formula on the scalars."""
    n = a.size
    mx, mn = _r.max(a), _r.min(a)
    wanted = [mx, mn]
    if name in ("scott", "doane"):
        wanted.append(_st.std(a))
    if name in ("fd", "auto"):
        wanted.append(_st.percentile(a, [75, 25]))
    if name == "doane":
        sd = _st.std(a)
        t = _m.true_divide(_m.subtract(a, _r.mean(a)), sd)
        wanted.append(_r.mean(_m.power(t, 3)))
    if name == "stone":
        return _stone_width(a, rng)
    with np.errstate(all="ignore"):
        vals = _c.fetch(*wanted)
        ptp = _unsigned_subtract(vals[0], vals[1])
        if name == "sqrt":
            return ptp / np.sqrt(n)
        if name == "sturges":
            return ptp / (np.log2(n) + 1.0)
        if name == "rice":
            return ptp / (2.0 * n ** (1.0 / 3))
        if name == "scott":
            return (24.0 * np.pi ** 0.5 / n) ** (1.0 / 3.0) * vals[2]
        if name == "doane":
            if n > 2:
                sg1 = np.sqrt(6.0 * (n - 2) / ((n + 1.0) * (n + 3)))
                if vals[2] > 0.0:
                    return ptp / (1.0 + np.log2(n) + np.log2(
                        1.0 + np.absolute(vals[3]) / sg1))
            return 0.0
        q = vals[2]
        fd = 2.0 * np.subtract(q[0], q[1]) * n ** (-1.0 / 3.0)
        if name == "fd":
            return fd
        sturges = ptp / (np.log2(n) + 1.0)
        return builtins.min(fd, sturges) if fd else sturges


def _stone_width(a: ndarray, rng: tuple[Any, Any]) -> Any:
    """numpy's 'stone' estimator: the bin count in 1 .. max(100, sqrt(n))
    that minimizes the cross-validation risk; every histogram at once."""
    s = a._session
    n = a.size
    mx, mn = _c.fetch(_r.max(a), _r.min(a))
    ptp = _unsigned_subtract(mx, mn)
    if n <= 1 or ptp == 0:
        return 0
    upper = builtins.max(100, int(np.sqrt(n)))
    first, last = rng
    srt = _c.new(s, "sort", (a,), a._shape, a._dtype)
    ks = np.arange(1, upper + 1)
    # Edges of every candidate histogram, one group per bin count k.
    group = np.repeat(ks, ks + 1)
    j = np.concatenate([np.arange(k + 1) for k in ks])
    edt = np.result_type(first, last, a._dtype)
    if edt.kind in "iub":
        edt = _F64
    gk = _c.upload(s, group.astype(edt))
    jj = _c.upload(s, j.astype(edt))
    delta = np.subtract(last, first, dtype=edt)
    edges = _m.add(_m.multiply(_m.true_divide(jj, gk), delta),
                   _c.const(s, first, edt))
    is_last = _c.upload(s, j == group)
    edges = _c.where(is_last, _c.const(s, last, edt), edges)
    pos = bsearch(srt, edges, False)
    # A bin [e_i, e_i+1): the last one also holds e_k (searchsorted right).
    pos_r = bsearch(srt, edges, True)
    pos = _c.where(is_last, pos_r, pos)
    counts = _m.subtract(pos[1:], pos[:-1]).astype(_F64)
    valid = _c.upload(s, group[1:] == group[:-1])
    p = _m.true_divide(counts, float(n))
    sq = _c.where(valid, _m.square(p), 0.0)
    csum = _st.cumsum(sq)
    ends = _c.upload(s, np.cumsum(ks + 1)[:] - 2)  # last pair of each group
    starts = np.concatenate([[0], np.cumsum(ks + 1)[:-1]])
    before = _c.upload(s, starts - 1)
    tot = _m.subtract(_c.take(csum, ends),
                      _c.where(_c.upload(s, starts > 0),
                               _c.take(csum, _m.maximum(before, 0)), 0.0))
    hh = _c.upload(s, ptp / ks.astype(np.float64))
    risk = _m.true_divide(_m.subtract(2.0, _m.multiply(tot, n + 1.0)), hh)
    best = int(_c.fetch(_r.argmin(risk))[0]) + 1
    if best == upper:
        warnings.warn("The number of bins estimated may be suboptimal.",
                      RuntimeWarning, stacklevel=4)
    return ptp / best


def _bin_edges(a: ndarray, bins: Any, rng: Any,
               weights: Any) -> tuple[ndarray, Any]:
    """numpy.histogram's _get_bin_edges: (edges, (first, last, n) for
    equal bins or None)."""
    s = a._session
    n_equal = None
    if isinstance(bins, str):
        name = bins
        if name not in _ESTIMATORS:
            raise ValueError(f"{name!r} is not a valid estimator for `bins`")
        if weights is not None:
            raise TypeError("Automated estimation of the number of bins is "
                            "not supported for weighted data")
        lo, hi = _data_range(a, rng)
        first, last = _outer_edges(lo, hi, rng, a.size == 0)
        if rng is not None and a.size:
            keep = _m.logical_and(_m.greater_equal(a, first),
                                  _m.less_equal(a, last))
            a = _c.take(a, _c.flatnonzero(keep))
        if a.size == 0:
            n_equal = 1
        else:
            width = _bin_width(name, a, (first, last))
            if width:
                if a._dtype.kind in "iu" and width < 1:
                    width = 1
                n_equal = int(np.ceil(_unsigned_subtract(last, first)
                                      / width))
            else:
                n_equal = 1
    elif isinstance(bins, ndarray) and bins.ndim == 1 or (
            not isinstance(bins, ndarray) and np.ndim(bins) == 1):
        e = _c.ensure(bins, s)
        if e._shape[0] > 1 and bool(_c.fetch(_r.any(_m.greater(e[:-1],
                                                              e[1:])))[0]):
            raise ValueError("`bins` must increase monotonically, when an "
                             "array")
        return e, None
    elif np.ndim(bins) == 0:
        if isinstance(bins, ndarray):
            bins = bins.item()
        try:
            n_equal = operator.index(bins)
        except TypeError as e:
            raise TypeError("`bins` must be an integer, a string, or an "
                            "array") from e
        if n_equal < 1:
            raise ValueError("`bins` must be positive, when an integer")
        lo, hi = _data_range(a, rng)
        first, last = _outer_edges(lo, hi, rng, a.size == 0)
    else:
        raise ValueError("`bins` must be 1d, when an array")
    bin_type = np.result_type(first, last, a._dtype)
    if bin_type.kind in "iu":
        bin_type = np.result_type(bin_type, float)
    edges = _linspace_edges(s, first, last, n_equal, bin_type)
    if n_equal > 1 and bool(_c.fetch(_r.any(_m.greater_equal(edges[:-1],
                                                             edges[1:])))[0]):
        raise ValueError(f"Too many bins for data range. Cannot create "
                         f"{n_equal} finite-sized bins.")
    return edges, (first, last, n_equal)


def _data_range(a: ndarray, rng: Any) -> tuple[Any, Any]:
    if rng is not None or a.size == 0:
        return None, None
    lo, hi = _c.fetch(_r.min(a), _r.max(a))
    return lo, hi


def _ravel_checked(a: Any, weights: Any) -> tuple[ndarray, Any]:
    s = session_of(a, weights)
    a = _c.ensure(a, s)
    if a._dtype == _BOOL:
        warnings.warn(f"Converting input from {a._dtype} to {np.uint8} for "
                      f"compatibility.", RuntimeWarning, stacklevel=3)
        a = a.astype(np.uint8)
    if weights is not None:
        weights = _c.ensure(weights, s)
        if weights._shape != a._shape:
            raise ValueError("weights should have the same shape as a.")
        weights = weights.reshape(-1)
    return a.reshape(-1), weights


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None,  # noqa: A002
                        weights: Any = None) -> ndarray:
    """numpy.histogram_bin_edges: the edges numpy.histogram would use (an
    int, the edges, or an estimator name: 'auto', 'fd', 'doane', 'scott',
    'stone', 'rice', 'sturges', 'sqrt')."""
    a, weights = _ravel_checked(a, weights)
    if a._dtype.kind == "c":
        np.histogram_bin_edges(np.zeros(1, a._dtype))  # NumPy's error
    return _bin_edges(a, bins, range, weights)[0]


def _bin_counts(s: Any, idx: ndarray, total: int,
                weights: ndarray | None) -> ndarray:
    """bincount(idx, weights, minlength=total) for 0 <= idx < total, with
    no sync: a sort (argsort with weights) and a search per bin."""
    bounds = _c.arange(s, total + 1)
    if weights is None:
        srt = _c.new(s, "sort", (idx,), idx._shape, _I64, {"axis": 0})
        pos = bsearch(srt, bounds, False)
        return _m.subtract(pos[1:], pos[:-1])
    perm = _c.new(s, "argsort", (idx,), idx._shape, _I64, {"axis": 0})
    pos = bsearch(_c.take(idx, perm), bounds, False)
    w = _c.take(weights, perm)
    zero = _c.zeros(s, (1,), w._dtype)
    cw = _c.concatenate([zero, _st.cumsum(w)])
    return _m.subtract(_c.take(cw, pos[1:]), _c.take(cw, pos[:-1]))


def histogramdd(sample: Any, bins: Any = 10, range: Any = None,  # noqa: A002
                density: Any = None, weights: Any = None) -> tuple[
                    ndarray, list[ndarray]]:
    """numpy.histogramdd: (float64 counts of shape (nx, ny, ...), list of
    the edges per dimension). Data ranges of all dimensions are read in
    one sync."""
    if isinstance(sample, (ndarray, np.ndarray)):
        samp = _c.ensure(sample, session_of(sample, weights))
        if samp.ndim > 2:
            raise ValueError("too many values to unpack (expected 2)")
        if samp.ndim < 2:  # NumPy's atleast_2d(sample).T: one dimension
            samp = samp.reshape(-1, 1)
    elif builtins.any(isinstance(v, ndarray) for v in sample):
        # A sequence of D coordinate arrays: the columns of the sample.
        s = session_of(*sample, weights)
        cols = [_c.ensure(v, s) for v in sample]
        if builtins.any(c.ndim > 1 for c in cols):
            raise ValueError("too many values to unpack (expected 2)")
        dt = np.result_type(*[c._dtype for c in cols])
        cols = [c.astype(dt, copy=False).reshape(-1, 1) for c in cols]
        samp = _c.concatenate(cols, 1)
    else:
        host = np.atleast_2d(np.asarray(sample)).T
        if host.ndim != 2:
            raise ValueError("too many values to unpack (expected 2)")
        samp = _c.ensure(host, session_of(weights))
    s = samp._session
    N, D = samp._shape  # noqa: N806
    if weights is not None:
        weights = _c.ensure(weights, s)
    try:
        M = len(bins)  # noqa: N806
        if M != D:
            raise ValueError("The dimension of bins must be equal to the "
                             "dimension of the sample x.")
    except TypeError:
        bins = D * [bins]
    if range is None:
        range = (None,) * D  # noqa: A001
    elif len(range) != D:
        raise ValueError("range argument must have one entry per dimension")
    # One sync for the ranges the data decide.
    need = [i for i in builtins.range(D)
            if np.ndim(bins[i]) == 0 and range[i] is None and N]
    vals = _c.fetch(*[r for i in need for r in (_r.min(samp[:, i]),
                                              _r.max(samp[:, i]))]) \
        if need else []
    found = {i: (vals[2 * k], vals[2 * k + 1]) for k, i in enumerate(need)}
    edges: list[ndarray] = []
    nbin = []
    for i in builtins.range(D):
        b = bins[i]
        if isinstance(b, ndarray) and b.ndim == 0:
            b = b.item()
        if np.ndim(b) == 0:
            if b < 1:
                raise ValueError(f"`bins[{i}]` must be positive, when an "
                                 f"integer")
            lo, hi = found.get(i, (None, None))
            smin, smax = _outer_edges(lo, hi, range[i], N == 0)
            try:
                n = operator.index(b)
            except TypeError as e:
                raise TypeError(f"`bins[{i}]` must be an integer, when a "
                                f"scalar") from e
            e = _linspace(s, smin, smax, n + 1, True, None, 0)
        elif np.ndim(b) == 1:
            e = _c.ensure(b, s)
            if e._shape[0] > 1 and bool(_c.fetch(_r.any(
                    _m.greater(e[:-1], e[1:])))[0]):
                raise ValueError(f"`bins[{i}]` must be monotonically "
                                 f"increasing, when an array")
        else:
            raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
        edges.append(e)
        nbin.append(e._shape[0] + 1)
    flat = None
    for i in builtins.range(D):
        col = samp[:, i]
        e = edges[i]
        k = bsearch(e, col, True)
        on_edge = _m.equal(col, e[e._shape[0] - 1])
        k = _m.subtract(k, on_edge.astype(_I64))
        stride = int(np.prod(nbin[i + 1:], dtype=np.int64))
        term = _m.multiply(k, stride) if stride != 1 else k
        flat = term if flat is None else _m.add(flat, term)
    total = int(np.prod(nbin, dtype=np.int64))
    if weights is not None:
        weights = weights.reshape(-1)
        if weights._shape[0] != N:
            raise ValueError("The weights and list don't have the same "
                             "length.")
        if weights._dtype.kind == "c":
            raise TypeError(f"Cannot cast array data from "
                            f"{weights._dtype!r} to dtype('float64') "
                            f"according to the rule 'safe'")
        weights = weights.astype(_F64, copy=False)
    assert flat is not None
    hist = _bin_counts(s, flat, total, weights)
    hist = hist.astype(_F64, copy=False).reshape(tuple(nbin))
    hist = hist[(slice(1, -1),) * D]
    if density:
        tot = _r.sum(hist)
        for i in builtins.range(D):
            shape = [1] * D
            shape[i] = nbin[i] - 2
            hist = _m.true_divide(hist, _st.diff(edges[i]).reshape(
                tuple(shape)))
        hist = _m.true_divide(hist, tot)
    return hist, edges


def histogram2d(x: Any, y: Any, bins: Any = 10,
                range: Any = None,  # noqa: A002
                density: Any = None, weights: Any = None) -> tuple[
                    ndarray, ndarray, ndarray]:
    """numpy.histogram2d: (counts, x edges, y edges)."""
    s = session_of(x, y, weights)
    x, y = _c.ensure(x, s), _c.ensure(y, s)
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n != 1 and n != 2:
        e = _c.ensure(bins, s)
        bins = [e, e]
    if x._shape != y._shape:
        raise ValueError("x and y must have the same length.")
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


# -- logspace / geomspace -------------------------------------------------------

def _operand(s: Any, v: Any) -> Any:
    """An array-like start/stop/base: arrayd array; Python scalars kept."""
    if isinstance(v, ndarray) or type(v) in (int, float, complex, bool):
        return v
    arr = np.asarray(v)
    return _c.upload(s, arr)


def _dtype_of(v: Any) -> Any:
    return v._dtype if isinstance(v, ndarray) else v


def _linspace(s: Any, start: Any, stop: Any, num: int, endpoint: bool,
              dtype: Any, axis: int) -> ndarray:
    """numpy.linspace with array start/stop, on the server (NumPy's
    formula: arange * step + start, the last element set to stop)."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = (num - 1) if endpoint else num
    start, stop = _operand(s, start), _operand(s, stop)
    keys = [_dtype_of(v) for v in (start, stop)]
    probe = [np.zeros((), k) if isinstance(k, np.dtype) else k for k in keys]
    dt = np.result_type(*probe, 1.0)
    out_dt = dt if dtype is None else np.dtype(dtype)
    bshape = np.broadcast_shapes(*[v._shape if isinstance(v, ndarray)
                                   else () for v in (start, stop)])
    st = start if isinstance(start, ndarray) else _c.const(s, start, dt)
    sp = stop if isinstance(stop, ndarray) else _c.const(s, stop, dt)
    st, sp = st.astype(dt, copy=False), sp.astype(dt, copy=False)
    delta = _m.subtract(sp, st)
    ramp = _c.arange(s, num, dt).reshape((num,) + (1,) * len(bshape))
    if div > 0:
        step = _m.true_divide(delta, div)
        y = _c.where(_m.equal(step, 0),
                     _m.multiply(_m.true_divide(ramp, div), delta),
                     _m.multiply(ramp, step))
    else:
        y = _m.multiply(ramp, delta)
    y = _m.add(y, st)
    if y._dtype != dt:
        y = y.astype(dt)
    if endpoint and num > 1:
        y = y.copy()
        y[-1, ...] = sp
    if axis != 0:
        y = moveaxis(y, 0, axis)
    if out_dt.kind in "iu":
        y = _m.floor(y)
    return y.astype(out_dt) if y._dtype != out_dt else y


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             base: Any = 10.0, dtype: Any = None, axis: int = 0) -> ndarray:
    """numpy.logspace: base ** linspace(start, stop, num)."""
    s = session_of(start, stop, base)
    if not isinstance(base, (float, int)) and np.ndim(base):
        # An array base broadcasts with start and stop (it may decide
        # what axis means).
        shapes = [v._shape if isinstance(v, ndarray) else np.shape(v)
                  for v in (start, stop, base)]
        ndmax = len(np.broadcast_shapes(*shapes))
        vals = []
        for v in (start, stop, base):
            a = _c.ensure(v, s)
            vals.append(a.reshape((1,) * (ndmax - a.ndim) + a._shape))
        start, stop, base = vals
        base = base.reshape(np.expand_dims(shape_dummy(base._shape),
                                           axis).shape)
    y = _linspace(s, start, stop, num, endpoint, None, axis)
    r = _m.power(base, y)
    if dtype is None:
        return r
    dt = np.dtype(dtype)
    return r.astype(dt) if r._dtype != dt else r


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
              dtype: Any = None, axis: int = 0) -> ndarray:
    """numpy.geomspace: a geometric progression from start to stop (the
    ends exact; negative and complex ends by rotation, as NumPy)."""
    s = session_of(start, stop)
    st, sp = _c.ensure(start, s), _c.ensure(stop, s)
    if bool(_c.fetch(_r.any(_m.logical_or(_r.any(_m.equal(st, 0)),
                                        _r.any(_m.equal(sp, 0)))))[0]):
        raise ValueError("Geometric sequence cannot include zero")
    dt = np.result_type(st._dtype, sp._dtype, float(num),
                        np.zeros((), dtype).dtype)
    out_dt = dt if dtype is None else np.dtype(dtype)
    st, sp = st.astype(dt), sp.astype(dt)
    sign = _m.sign(st)
    st = _m.true_divide(st, sign)
    sp = _m.true_divide(sp, sign)
    res = logspace(_m.log10(st), _m.log10(sp), num, endpoint, 10.0, dt)
    if res._dtype != dt:
        res = res.astype(dt)
    if num > 0:
        res = res.copy()
        res[0] = st
        if num > 1 and endpoint:
            res[-1] = sp
    res = _m.multiply(res, sign)
    if axis != 0:
        res = moveaxis(res, 0, axis)
    return res.astype(out_dt) if res._dtype != out_dt else res


__all__ = ["convolve", "corrcoef", "correlate", "cov", "digitize",
           "geomspace", "gradient", "histogram2d", "histogram_bin_edges",
           "histogramdd", "interp", "logspace", "trapezoid", "unwrap"]
