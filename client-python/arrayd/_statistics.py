"""Statistics and scans: var std ptp median quantile percentile average
cumsum cumprod diff count_nonzero nansum nanmean nanmin nanmax trace.

Compositions of server reductions, sort and elementwise ops that follow
NumPy's own implementations (numpy/_core/_methods.py,
lib/_function_base_impl.py, lib/_nanfunctions_impl.py), so result dtypes
and NaN handling match. Zero-size inputs are answered by NumPy itself on a
data-less stand-in (no data, so nothing to compute on the server).

Layer: functions (imports the core, _composite, _math, _reduction and
_mathfuncs). Attaches ndarray's var, std, ptp, cumsum, cumprod and trace.
"""
from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from arrayd import _composite as _c
from arrayd import _dtypes, _mathfuncs
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd._ndarray import attach, ndarray, session_of


def _axes(axis: Any, nd: int) -> tuple[int, ...]:
    return tuple(range(nd)) if axis is None else normalize_axis_tuple(axis,
                                                                      nd)


def _count(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    n = 1
    for ax in axes:
        n *= shape[ax]
    return n


def _finish(r: ndarray, out: Any, name: str) -> ndarray:
    return r if out is None else _c.assign(out, r, name)


# -- var / std / ptp -------------------------------------------------------

def var(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
        ddof: float = 0, keepdims: bool = False, *,
        mean: Any = None, correction: Any = None) -> ndarray:
    """numpy.var: mean(|x - x.mean()|**2) * n / (n - ddof)."""
    a = _c.ensure(a, session_of(a, out))
    if correction is not None:
        ddof = correction
    axes = _axes(axis, a.ndim)
    if a.size == 0:
        return _finish(_c.zero_size_result(np.var, a, axis=axis, dtype=dtype,
                                           ddof=ddof, keepdims=keepdims),
                       out, "var")
    dt = None if dtype is None else _dtypes.normalize(dtype)
    if dt is None and a._dtype.kind in "biu":
        dt = np.dtype(np.float64)
    arrmean = (_r.mean(a, axes, dt, keepdims=True) if mean is None
               else _c.ensure(mean, a._session))
    x = _m.subtract(a, arrmean)
    if x._dtype.kind == "c":
        x = _m.add(_m.square(_mathfuncs.real(x)),
                   _m.square(_mathfuncs.imag(x)))
    else:
        x = _m.multiply(x, x)
    ret = _r.sum(x, axes, dt if dt is None or dt.kind != "c" else None,
                 keepdims=keepdims)
    rcount = builtins.max(_count(a._shape, axes) - ddof, 0)
    ret = _m.true_divide(ret, rcount if rcount else 0.0)
    rdt = np.var(np.zeros(2, a._dtype), dtype=dt).dtype
    if ret._dtype != rdt:
        ret = ret.astype(rdt)
    return _finish(ret, out, "var")


def std(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
        ddof: float = 0, keepdims: bool = False, *,
        mean: Any = None, correction: Any = None) -> ndarray:
    """numpy.std: sqrt(var)."""
    v = var(a, axis, dtype, None, ddof, keepdims, mean=mean,
            correction=correction)
    return _m.sqrt(v, out=out) if v.size else _finish(
        _m.sqrt(v), out, "std")


def ptp(a: Any, axis: Any = None, out: Any = None,
        keepdims: bool = False) -> ndarray:
    """numpy.ptp: max - min."""
    a = _c.ensure(a, session_of(a, out))
    if a._dtype.kind == "b":
        np.ptp(np.zeros(1, bool))  # NumPy's TypeError
    return _m.subtract(_r.max(a, axis, keepdims=keepdims),
                       _r.min(a, axis, keepdims=keepdims), out=out)


# -- median / quantile -----------------------------------------------------

def _sorted_last(a: ndarray, axis: Any) -> tuple[ndarray, tuple[int, ...]]:
    """a sorted along the (merged) reduced axes, now the last axis."""
    axes = _axes(axis, a.ndim)
    t = _c.merge_last(_c.moveaxes_last(a, axes), len(axes))
    if t.ndim == 0:
        t = t.reshape(1)
    s = _c.new(a._session, "sort", (t,), t._shape, t._dtype,
               {"axis": t.ndim - 1})
    return s, axes


def _keep(r: ndarray, shape: tuple[int, ...], axes: tuple[int, ...],
          lead: tuple[int, ...] = ()) -> ndarray:
    kept = tuple(1 if d in axes else n for d, n in enumerate(shape))
    return r.reshape(lead + kept)


def _nan_where_last(sorted_: ndarray, r: ndarray,
                    keep: bool = False) -> ndarray:
    # Sort puts NaN last: a slice with a NaN has NaN as its last element.
    if sorted_._dtype.kind not in "fc":
        return r
    last = sorted_[..., -1:] if keep else sorted_[..., -1]
    return _c.where(_m.isnan(last), _c.const(r._session, np.nan, r._dtype), r)


def median(a: Any, axis: Any = None, out: Any = None,
           overwrite_input: bool = False, keepdims: bool = False) -> ndarray:
    """numpy.median: mean of the middle element(s) of the sorted data."""
    a = _c.ensure(a, session_of(a, out))
    if a.size == 0:
        return _finish(_c.zero_size_result(np.median, a, axis=axis,
                                           keepdims=keepdims), out, "median")
    srt, axes = _sorted_last(a, axis)
    n = srt._shape[-1]
    lo, hi = (n - 1) // 2, n // 2
    r = _r.mean(srt[..., lo:hi + 1], -1)
    r = _nan_where_last(srt, r)
    if keepdims:
        r = _keep(r, a._shape, axes)
    return _finish(r, out, "median")


_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _quantile(a: Any, q: Any, axis: Any, out: Any, method: str,
              keepdims: bool, weights: Any, name: str,
              scale: float) -> ndarray:
    a = _c.ensure(a, session_of(a, out))
    if weights is not None:
        raise NotImplementedError(f"{name}: weights are not supported")
    if isinstance(q, ndarray):
        q = q.get()
    npfunc = np.quantile if scale == 1 else np.percentile
    # NumPy's own checks (range, complex input, method) and result dtype,
    # on a one-element stand-in.
    probe = npfunc(np.zeros(1, a._dtype), q, method=method)
    rdt = np.asarray(probe).dtype
    if method not in _METHODS:
        raise NotImplementedError(f"{name}: method {method!r} is not "
                                  f"supported (only {', '.join(_METHODS)})")
    if a.size == 0:
        return _finish(_c.zero_size_result(npfunc, a, q, axis=axis,
                                           method=method,
                                           keepdims=keepdims), out, name)
    qa = np.asarray(q, dtype=np.float64) / scale
    srt, axes = _sorted_last(a, axis)
    n = srt._shape[-1]
    virt = qa.ravel() * (n - 1)
    prev = np.floor(virt)
    nxt = np.minimum(prev + 1, n - 1)
    gamma = virt - prev
    if method == "lower":
        nxt, gamma = prev, gamma * 0
    elif method == "higher":
        prev = nxt = np.ceil(virt)
        gamma = gamma * 0
    elif method == "nearest":
        prev = nxt = np.around(virt)
        gamma = gamma * 0
    elif method == "midpoint":
        gamma = np.where(gamma > 0, 0.5, 0.0)
    prev = np.clip(prev, 0, n - 1).astype(np.int64)
    nxt = np.clip(nxt, 0, n - 1).astype(np.int64)
    s = a._session
    # (..., k) gathered along the last axis, then k moved to the front.
    lo = _c.take(srt, _c.upload(s, prev), axis=-1)
    hi = _c.take(srt, _c.upload(s, nxt), axis=-1)
    if method in ("lower", "higher", "nearest"):
        r = lo if lo._dtype == rdt else lo.astype(rdt)
    else:
        lo = lo.astype(rdt, copy=False)
        hi = hi.astype(rdt, copy=False)
        t = _c.upload(s, gamma.astype(rdt))
        diff = _m.subtract(hi, lo)
        below = _m.add(lo, _m.multiply(diff, t))
        above = _m.subtract(hi, _m.multiply(diff, _m.subtract(1, t)))
        r = _c.where(_c.upload(s, gamma >= 0.5), above, below)
    r = _nan_where_last(srt, r, keep=True)
    nd = r.ndim
    r = r.transpose([nd - 1] + list(range(nd - 1)))  # k first
    lead = qa.shape
    if keepdims:
        r = _keep(r, a._shape, axes, lead)
    else:
        r = r.reshape(lead + r._shape[1:])
    if r._dtype != rdt:
        r = r.astype(rdt)
    return _finish(r, out, name)


def quantile(a: Any, q: Any, axis: Any = None, out: Any = None,
             overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False, *, weights: Any = None) -> ndarray:
    """numpy.quantile (methods linear, lower, higher, nearest, midpoint)."""
    return _quantile(a, q, axis, out, method, keepdims, weights, "quantile",
                     1.0)


def percentile(a: Any, q: Any, axis: Any = None, out: Any = None,
               overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False, *, weights: Any = None) -> ndarray:
    """numpy.percentile (q in [0, 100])."""
    return _quantile(a, q, axis, out, method, keepdims, weights,
                     "percentile", 100.0)


# -- average ---------------------------------------------------------------

def average(a: Any, axis: Any = None, weights: Any = None,
            returned: bool = False, *, keepdims: bool = False) -> Any:
    """numpy.average: weighted mean; ``returned`` adds the sum of weights."""
    a = _c.ensure(a)
    s = a._session
    if weights is None:
        avg = _r.mean(a, axis, keepdims=keepdims)
        scl = avg._dtype.type(a.size / builtins.max(avg.size, 1))
        if returned:
            return avg, _c.new(s, "full", (), avg._shape, avg._dtype,
                               {"shape": list(avg._shape),
                                "dtype": avg._dtype, "value": scl.item()})
        return avg
    wgt = _c.ensure(weights, s)
    if a._dtype.kind in "biu":
        rdt = np.result_type(a._dtype, wgt._dtype, "f8")
    else:
        rdt = np.result_type(a._dtype, wgt._dtype)
    axes = None if axis is None else normalize_axis_tuple(axis, a.ndim)
    if a._shape != wgt._shape:
        if axes is None:
            raise TypeError("Axis must be specified when shapes of a and "
                            "weights differ.")
        if wgt._shape != tuple(a._shape[ax] for ax in axes):
            raise ValueError("Shape of weights must be consistent with "
                             "shape of a along specified axis.")
        wgt = wgt.transpose(list(np.argsort(axes)))
        wgt = wgt.reshape(tuple(n if d in axes else 1
                                for d, n in enumerate(a._shape)))
    scl = _r.sum(wgt, axes, rdt, keepdims=keepdims)
    if bool(_m.equal(scl, 0.0).any().get()):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    prod = _m.multiply(a.astype(rdt, copy=False), wgt.astype(rdt, copy=False))
    avg = _m.true_divide(_r.sum(prod, axes, keepdims=keepdims), scl)
    if returned:
        if scl._shape != avg._shape:
            scl = scl.view_as_broadcast(avg._shape).copy()
        return avg, scl
    return avg


# -- scans and differences -------------------------------------------------

def _scan(op: str, a: Any, axis: Any, dtype: Any, out: Any) -> ndarray:
    a = _c.ensure(a, session_of(a, out))
    dt = None if dtype is None else _dtypes.normalize(dtype)
    npf = np.cumsum if op == "cumsum" else np.cumprod
    rdt = npf(np.zeros(1, a._dtype), dtype=dt).dtype
    attrs: dict[str, Any] = {"dtype": rdt}
    if axis is None:
        shape: tuple[int, ...] = (a.size,)
    else:
        attrs["axis"] = normalize_axis_index(operator.index(axis), a.ndim)
        shape = a._shape
    r = _c.new(a._session, op, (a,), shape, rdt, attrs)
    return _finish(r, out, op)


def cumsum(a: Any, axis: Any = None, dtype: Any = None,
           out: Any = None) -> ndarray:
    """numpy.cumsum (axis None: over the flattened array)."""
    return _scan("cumsum", a, axis, dtype, out)


def cumprod(a: Any, axis: Any = None, dtype: Any = None,
            out: Any = None) -> ndarray:
    """numpy.cumprod (axis None: over the flattened array)."""
    return _scan("cumprod", a, axis, dtype, out)


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = np._NoValue,
         append: Any = np._NoValue) -> ndarray:
    """numpy.diff: a[1:] - a[:-1] (not_equal for bool), n times."""
    if n == 0:
        return _c.ensure(a)
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    a = _c.ensure(a)
    nd = a.ndim
    if nd == 0:
        raise ValueError("diff requires input that is at least one "
                         "dimensional")
    axis = normalize_axis_index(axis, nd)
    s = a._session
    parts = []
    for v in (prepend, append):
        if v is np._NoValue:
            parts.append(None)
            continue
        v = _c.ensure(v, s)
        if v.ndim == 0:
            shp = list(a._shape)
            shp[axis] = 1
            v = v.view_as_broadcast(tuple(shp))
        parts.append(v)
    if parts[0] is not None or parts[1] is not None:
        a = _c.concatenate([p for p in (parts[0], a, parts[1])
                            if p is not None], axis)
    lead = (slice(None),) * axis
    for _ in range(n):
        m = a._shape[axis]
        hi = a[lead + (slice(1, None),)]
        lo = a[lead + (slice(None, builtins.max(m - 1, 0)),)]
        a = (_m.not_equal(hi, lo) if a._dtype.kind == "b"
             else _m.subtract(hi, lo))
    return a


def count_nonzero(a: Any, axis: Any = None, *,
                  keepdims: bool = False) -> ndarray:
    """numpy.count_nonzero (an int64 array, 0-d for axis=None)."""
    a = _c.ensure(a)
    return _r.sum(a.astype(np.bool_, copy=False), axis, np.int64,
                  keepdims=keepdims)


# -- NaN-ignoring reductions -----------------------------------------------

def _nan_replaced(a: ndarray, value: Any) -> ndarray:
    if a._dtype.kind not in "fc":
        return a
    return _c.where(_m.isnan(a), _c.const(a._session, value, a._dtype), a)


def nansum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
           keepdims: bool = False) -> ndarray:
    """numpy.nansum: NaNs count as zero."""
    a = _c.ensure(a, session_of(a, out))
    return _r.sum(_nan_replaced(a, 0), axis, dtype, out, keepdims)


def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: bool = False) -> ndarray:
    """numpy.nanmean: mean of the non-NaN elements (NaN where none)."""
    a = _c.ensure(a, session_of(a, out))
    if a._dtype.kind not in "fc":
        return _r.mean(a, axis, dtype, out, keepdims)
    if a.size == 0:
        return _finish(_c.zero_size_result(np.nanmean, a, axis=axis,
                                           dtype=dtype, keepdims=keepdims),
                       out, "nanmean")
    rdt = np.nanmean(np.zeros(1, a._dtype), dtype=dtype).dtype
    tot = _r.sum(_nan_replaced(a, 0), axis, rdt, keepdims=keepdims)
    cnt = _r.sum(_m.logical_not(_m.isnan(a)), axis, np.int64,
                 keepdims=keepdims)
    r = _m.true_divide(tot, cnt)
    if r._dtype != rdt:
        r = r.astype(rdt)
    return _finish(r, out, "nanmean")


def _nan_extreme(op: str, a: Any, axis: Any, out: Any,
                 keepdims: bool) -> ndarray:
    a = _c.ensure(a, session_of(a, out))
    red = _r.min if op == "nanmin" else _r.max
    if a._dtype.kind not in "fc":
        return red(a, axis, out, keepdims)
    if a.size == 0:
        getattr(np, op)(np.zeros(a._shape, a._dtype), axis=axis)  # errors
    fill = np.inf if op == "nanmin" else -np.inf
    if a._dtype.kind == "c":
        fill = complex(fill, fill)
    r = red(_nan_replaced(a, fill), axis, keepdims=keepdims)
    allnan = _r.all(_m.isnan(a), axis, keepdims=keepdims)
    r = _c.where(allnan, _c.const(a._session, np.nan, r._dtype), r)
    return _finish(r, out, op)


def nanmin(a: Any, axis: Any = None, out: Any = None,
           keepdims: bool = False) -> ndarray:
    """numpy.nanmin: minimum ignoring NaNs (NaN where all are NaN)."""
    return _nan_extreme("nanmin", a, axis, out, keepdims)


def nanmax(a: Any, axis: Any = None, out: Any = None,
           keepdims: bool = False) -> ndarray:
    """numpy.nanmax: maximum ignoring NaNs (NaN where all are NaN)."""
    return _nan_extreme("nanmax", a, axis, out, keepdims)


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1,
          dtype: Any = None, out: Any = None) -> ndarray:
    """numpy.trace: sum of the diagonal (over the last axes for N-D)."""
    a = _c.ensure(a, session_of(a, out))
    d = _c.diagonal(a, offset, axis1, axis2)
    return _r.sum(d, -1, dtype, out)


attach(var=var, std=std, ptp=ptp, cumsum=cumsum, cumprod=cumprod,
       trace=trace)
