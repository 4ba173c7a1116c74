"""NaN-ignoring reductions and scans: nanargmax nanargmin nancumsum
nancumprod nanprod nanvar nanstd nanmedian nanquantile nanpercentile
(nansum, nanmean, nanmin and nanmax are in _statistics).

Each follows numpy/lib/_nanfunctions_impl.py: NaNs are replaced by the
operation's neutral value (0 for sums, 1 for products, -inf/+inf for the
arg-extremes) and the plain reduction runs on the server; medians and
quantiles sort (NaN last) and use each slice's count of non-NaN values.
Integer and bool input has no NaN and takes the plain function. All-NaN
slices behave as in NumPy: nanargmax/nanargmin raise ValueError, the
others give NaN with NumPy's RuntimeWarning, which costs one sync (a
bool) to know whether to warn.

Layer: functions (imports the core, _composite, _math, _reduction and
_statistics).
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from arrayd import _composite as _c
from arrayd import _dtypes
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd import _statistics as _st
from arrayd._ndarray import ndarray, session_of

_NoValue = np._NoValue  # type: ignore[attr-defined]


def _inexact(a: ndarray) -> bool:
    return a._dtype.kind in "fc"


def _fill(a: ndarray, value: Any) -> ndarray:
    """a with NaNs replaced by value (a itself when it cannot hold NaN)."""
    if not _inexact(a):
        return a
    v = complex(value, 0) if a._dtype.kind == "c" else value
    return _c.where(_m.isnan(a), _c.const(a._session, v, a._dtype), a)


def _any(x: ndarray) -> bool:
    r = _r.any(x)  # held until the fetch returns
    return bool(r._session.fetch([r._handle])[0])


def _finish(r: ndarray, out: Any, name: str) -> ndarray:
    return r if out is None else _c.assign(out, r, name)


def _keepdims(keepdims: Any) -> bool:
    return False if keepdims is _NoValue else bool(keepdims)


# -- arg-extremes --------------------------------------------------------------

def _nan_arg(name: str, a: Any, axis: Any, out: Any, keepdims: bool) -> ndarray:
    a = _c.ensure(a, session_of(a, out))
    red = _r.argmax if name == "nanargmax" else _r.argmin
    if not _inexact(a) or a.size == 0:
        return red(a, axis, out, keepdims=keepdims)
    mask = _m.isnan(a)
    if _any(_r.all(mask, axis)):
        raise ValueError("All-NaN slice encountered")
    return red(_fill(a, -np.inf if name == "nanargmax" else np.inf), axis,
               out, keepdims=keepdims)


def nanargmax(a: Any, axis: Any = None, out: Any = None, *,
              keepdims: bool = False) -> ndarray:
    """numpy.nanargmax: index of the maximum ignoring NaNs (ValueError for
    an all-NaN slice; one sync to know)."""
    return _nan_arg("nanargmax", a, axis, out, keepdims)


def nanargmin(a: Any, axis: Any = None, out: Any = None, *,
              keepdims: bool = False) -> ndarray:
    """numpy.nanargmin: index of the minimum ignoring NaNs."""
    return _nan_arg("nanargmin", a, axis, out, keepdims)


# -- scans and products ----------------------------------------------------------

def nancumsum(a: Any, axis: Any = None, dtype: Any = None,
              out: Any = None) -> ndarray:
    """numpy.nancumsum: cumsum with NaNs counted as zero."""
    a = _c.ensure(a, session_of(a, out))
    return _st.cumsum(_fill(a, 0), axis, dtype, out)


def nancumprod(a: Any, axis: Any = None, dtype: Any = None,
               out: Any = None) -> ndarray:
    """numpy.nancumprod: cumprod with NaNs counted as one."""
    a = _c.ensure(a, session_of(a, out))
    return _st.cumprod(_fill(a, 1), axis, dtype, out)


def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: bool = False, initial: Any = _NoValue,
            where: Any = _NoValue) -> ndarray:
    """numpy.nanprod: the product with NaNs counted as one (initial and
    where as numpy.prod)."""
    a = _c.ensure(a, session_of(a, out, where))
    x = _fill(a, 1)
    if initial is _NoValue and where is _NoValue:
        return _r.prod(x, axis, dtype, out, keepdims)
    dt = None if dtype is None else _dtypes.normalize(dtype)
    kw = {} if initial is _NoValue else {"initial": initial}
    rdt = np.prod(np.ones(1, a._dtype), dtype=dt, **kw).dtype  # and errors
    if where is not _NoValue:
        w = _c.ensure(where, a._session)
        if w._dtype.kind != "b":
            w = w.astype(np.bool_)
        x = _c.where(w, x, _c.const(a._session, 1, x._dtype))
    r = _r.prod(x, axis, dt, keepdims=keepdims)
    if initial is not _NoValue:
        r = _m.multiply(r, _c.const(a._session, initial, rdt))
    if r._dtype != rdt:
        r = r.astype(rdt)
    return _finish(r, out, "nanprod")


# -- variance and standard deviation ----------------------------------------------

def nanvar(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
           ddof: Any = 0, keepdims: bool = False, *, where: Any = _NoValue,
           mean: Any = _NoValue, correction: Any = _NoValue) -> ndarray:
    """numpy.nanvar: the variance of the non-NaN elements; NaN with
    NumPy's RuntimeWarning where ddof leaves no degrees of freedom."""
    a = _c.ensure(a, session_of(a, out, mean))
    if not _inexact(a):
        if where is not _NoValue:
            raise NotImplementedError("var: where= is not supported for "
                                      "integer input")
        return _st.var(a, axis, dtype, out, ddof, keepdims,
                       mean=None if mean is _NoValue else mean,
                       correction=None if correction is _NoValue
                       else correction)
    dt = None if dtype is None else _dtypes.normalize(dtype)
    if dt is not None and dt.kind not in "fc":
        raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and out._dtype.kind not in "fc":
        raise TypeError("If a is inexact, then out must be inexact")
    if correction is not _NoValue:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided "
                             "simultaneously.")
        ddof = correction
    nd = a.ndim
    axes = tuple(range(nd)) if axis is None else normalize_axis_tuple(axis,
                                                                      nd)
    if a.size == 0:
        return _finish(_c.zero_size_result(np.nanvar, a, axis=axis,
                                           dtype=dt, ddof=ddof,
                                           keepdims=keepdims), out, "nanvar")
    s = a._session
    incl = _m.logical_not(_m.isnan(a))
    if where is not _NoValue:
        w = _c.ensure(where, s)
        incl = _m.logical_and(incl, w.astype(np.bool_, copy=False))
    arr = _c.where(incl, a, _c.const(s, 0, a._dtype))
    cnt = _r.sum(incl, axes, np.int64, keepdims=True)
    if mean is not _NoValue:
        avg = _c.ensure(mean, s)
    else:
        tot = _r.sum(arr, axes, dt, keepdims=True)
        avg = _m.true_divide(tot, cnt).astype(tot._dtype, copy=False)
    dev = _m.subtract(arr, avg).astype(a._dtype, copy=False)
    dev = _c.where(incl, dev, _c.const(s, 0, dev._dtype))
    if dev._dtype.kind == "c":
        sqr = _c.new(s, "real", (_m.multiply(dev, _m.conjugate(dev)),),
                     dev._shape, np.dtype(dev._dtype.char.lower()))
    else:
        sqr = _m.multiply(dev, dev)
    var = _r.sum(sqr, axes, dt, keepdims=keepdims)
    if not keepdims:
        cnt = cnt.reshape(var._shape)
    dof = _m.subtract(cnt, ddof)
    var = _m.true_divide(var, dof).astype(var._dtype, copy=False)
    bad = _m.less_equal(dof, 0)
    if _any(bad):
        warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning,
                      stacklevel=3)
        var = _c.where(bad, _c.const(s, np.nan, var._dtype), var)
    return _finish(var, out, "nanvar")


def nanstd(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
           ddof: Any = 0, keepdims: bool = False, *, where: Any = _NoValue,
           mean: Any = _NoValue, correction: Any = _NoValue) -> ndarray:
    """numpy.nanstd: sqrt(nanvar)."""
    v = nanvar(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean,
               correction=correction)
    return _finish(_m.sqrt(v), out, "nanstd")


# -- median and quantiles ------------------------------------------------------------

def nanmedian(a: Any, axis: Any = None, out: Any = None,
              overwrite_input: bool = False,
              keepdims: Any = _NoValue) -> ndarray:
    """numpy.nanmedian: the median of the non-NaN elements (the mean of the
    middle two for an even count); NaN with NumPy's RuntimeWarning for an
    all-NaN slice."""
    a = _c.ensure(a, session_of(a, out))
    kd = _keepdims(keepdims)
    if not _inexact(a):
        return _st.median(a, axis, out, overwrite_input, kd)
    if a.size == 0:
        return _finish(_c.zero_size_result(np.nanmedian, a, axis=axis,
                                           keepdims=kd), out, "nanmedian")
    s = a._session
    axes = tuple(range(a.ndim)) if axis is None else normalize_axis_tuple(
        axis, a.ndim)
    t = _c.merge_last(_c.moveaxes_last(a, axes), len(axes))
    if t.ndim == 0:
        t = t.reshape(1)
    srt = _c.new(s, "sort", (t,), t._shape, t._dtype, {"axis": t.ndim - 1})
    size = srt._shape[-1]
    cnt = _r.sum(_m.logical_not(_m.isnan(srt)), -1, np.int64,
                 keepdims=True)
    lo = _m.maximum(_m.floor_divide(_m.subtract(cnt, 1), 2), 0)
    hi = _m.minimum(_m.floor_divide(cnt, 2), size - 1)
    take = lambda i: _c.new(s, "take_along_axis", (srt, i),  # noqa: E731
                            i._shape, srt._dtype, {"axis": srt.ndim - 1})
    vlo, vhi = take(lo), take(hi)
    pair = _c.concatenate([vlo, vhi], vlo.ndim - 1)
    mid = _r.mean(pair, -1, keepdims=True)
    odd = _m.equal(_m.remainder(cnt, 2), 1)
    r = _c.where(odd, vlo.astype(mid._dtype, copy=False), mid)
    empty = _m.equal(cnt, 0)
    if _any(empty):
        warnings.warn("All-NaN slice encountered", RuntimeWarning,
                      stacklevel=2)
    r = _c.where(empty, _c.const(s, np.nan, r._dtype), r)
    r = r.reshape(r._shape[:-1])
    if kd:
        r = r.reshape(tuple(1 if d in axes else n
                            for d, n in enumerate(a._shape)))
    return _finish(r, out, "nanmedian")


def nanquantile(a: Any, q: Any, axis: Any = None, out: Any = None,
                overwrite_input: bool = False, method: str = "linear",
                keepdims: Any = _NoValue, *, weights: Any = None) -> ndarray:
    """numpy.nanquantile: quantile of the non-NaN elements (every method
    of quantile; weights with 'inverted_cdf')."""
    return _st.quantile_of(a, q, axis, out, method, _keepdims(keepdims),
                           weights, "nanquantile", True, overwrite_input)


def nanpercentile(a: Any, q: Any, axis: Any = None, out: Any = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: Any = _NoValue, *,
                  weights: Any = None) -> ndarray:
    """numpy.nanpercentile (q in [0, 100])."""
    return _st.quantile_of(a, q, axis, out, method, _keepdims(keepdims),
                           weights, "nanpercentile", True, overwrite_input)


__all__ = ["nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmedian",
           "nanpercentile", "nanprod", "nanquantile", "nanstd", "nanvar"]
