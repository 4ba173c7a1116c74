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
import warnings
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from arrayd import _composite as _c
from arrayd import _dtypes, _mathfuncs
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd._ndarray import attach, ndarray, session_of


_axes = _r.axes_of


def _count(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    n = 1
    for ax in axes:
        n *= shape[ax]
    return n


def _finish(r: ndarray, out: Any, name: str) -> ndarray:
    return r if out is None else _c.assign(out, r, name)


# -- var / std / ptp -------------------------------------------------------

_VAR_DTYPES: dict[tuple[np.dtype, np.dtype | None], np.dtype] = {}


def _var_dtype(dt: np.dtype, dtype: np.dtype | None) -> np.dtype:
    """np.var's result dtype for an input of ``dt`` and dtype=``dtype``."""
    key = (dt, dtype)
    r = _VAR_DTYPES.get(key)
    if r is None:
        r = _VAR_DTYPES[key] = np.var(np.zeros(2, dt), dtype=dtype).dtype
    return r


def var(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
        ddof: float = 0, keepdims: bool = False, *,
        mean: Any = None, correction: Any = None) -> ndarray:
    """numpy.var: mean(|x - x.mean()|**2) * n / (n - ddof)."""
    if _r.on_host(a, out):
        kw = {k: v for k, v in (("mean", mean), ("correction", correction))
              if v is not None}
        return np.var(a, axis, dtype, out, ddof, keepdims, **kw)
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
    rdt = _var_dtype(a._dtype, dt)
    if ret._dtype != rdt:
        ret = ret.astype(rdt)
    return _finish(ret, out, "var")


def std(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
        ddof: float = 0, keepdims: bool = False, *,
        mean: Any = None, correction: Any = None) -> ndarray:
    """numpy.std: sqrt(var)."""
    if _r.on_host(a, out):
        kw = {k: v for k, v in (("mean", mean), ("correction", correction))
              if v is not None}
        return np.std(a, axis, dtype, out, ddof, keepdims, **kw)
    v = var(a, axis, dtype, None, ddof, keepdims, mean=mean,
            correction=correction)
    return _m.sqrt(v, out=out) if v.size else _finish(
        _m.sqrt(v), out, "std")


def ptp(a: Any, axis: Any = None, out: Any = None,
        keepdims: bool = False) -> ndarray:
    """numpy.ptp: max - min."""
    if _r.on_host(a, out):
        return np.ptp(a, axis, out, keepdims)
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


# NumPy's quantile methods (H&F 1996 and the older ones). Continuous ones:
# the virtual index n*q + alpha + q*(1 - alpha - beta) - 1.
_CONTINUOUS = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5),
               "weibull": (0.0, 0.0), "median_unbiased": (1 / 3.0, 1 / 3.0),
               "normal_unbiased": (3 / 8.0, 3 / 8.0)}
_DISCRETE = ("inverted_cdf", "closest_observation", "lower", "higher",
             "nearest")
_METHODS = (("linear", "averaged_inverted_cdf", "midpoint") + _DISCRETE
            + tuple(_CONTINUOUS))


class _Host:
    """Index arithmetic on the host (the slice length is a Python int)."""

    floor = staticmethod(np.floor)
    ceil = staticmethod(np.ceil)
    rint = staticmethod(np.rint)
    where = staticmethod(np.where)


class _Server:
    """The same arithmetic on the server (per-slice lengths)."""

    floor = staticmethod(_m.floor)
    ceil = staticmethod(_m.ceil)
    rint = staticmethod(_m.rint)

    @staticmethod
    def where(c: Any, x: Any, y: Any) -> Any:
        return _c.where(c, x, y)


def _virtual_index(xp: Any, method: str, n: Any, q: Any) -> Any:
    """NumPy's virtual index of each quantile, and whether the method takes
    one element (an integer index) instead of interpolating."""
    if method == "linear":
        return (n - 1) * q
    if method == "averaged_inverted_cdf":
        return n * q - 1
    if method == "midpoint":
        return 0.5 * (xp.floor((n - 1) * q) + xp.ceil((n - 1) * q))
    if method in _CONTINUOUS:
        alpha, beta = _CONTINUOUS[method]
        return n * q + (alpha + q * (1 - alpha - beta)) - 1
    if method == "lower":
        return xp.floor((n - 1) * q)
    if method == "higher":
        return xp.ceil((n - 1) * q)
    if method == "nearest":
        return xp.rint((n - 1) * q)
    # inverted_cdf, closest_observation: to the lower or upper neighbour.
    idx = n * q - 1 if method == "inverted_cdf" else n * q - 1 - 0.5
    prev = xp.floor(idx)
    gamma = idx - prev
    if method == "inverted_cdf":
        low = gamma == 0
    else:
        low = (gamma == 0) & (prev % 2 == 1)
    return xp.where(low, prev, prev + 1)


def _interp_points(xp: Any, method: str, n: Any, v: Any) -> tuple[Any, Any,
                                                                  Any]:
    """NumPy's neighbours of v (prev, next; -1 for the last element) and
    its interpolation weight gamma."""
    prev = xp.floor(v)
    nxt = prev + 1
    above = v >= n - 1
    below = v < 0
    prev = xp.where(above, -1, xp.where(below, 0, prev))
    nxt = xp.where(above, -1, xp.where(below, 0, nxt))
    gamma = v - prev
    if method == "averaged_inverted_cdf":
        gamma = xp.where(gamma == 0, 0.5, 1.0)
    elif method == "midpoint":
        gamma = xp.where(v % 1 == 0, 0.0, 0.5)
    return prev, nxt, gamma


def _index_array(s: Any, idx: Any, n: Any, size: int,
                 last_marker: bool) -> ndarray:
    """Indices as int64 server data, clipped to the slice so that gathers
    stay in range; with last_marker, -1 stands for the last valid element
    (n - 1), else negative indices are 0 (NumPy's discrete methods)."""
    if isinstance(idx, ndarray):
        if last_marker:
            idx = _c.where(_m.less(idx, 0), _m.subtract(n, 1), idx)
        idx = _m.minimum(_m.maximum(idx, 0), size - 1)
        return idx.astype(_c.INT64, copy=False)
    if last_marker:
        idx = np.where(idx < 0, n - 1, idx)
    return _c.upload(s, np.clip(idx, 0, size - 1).astype(np.int64))


def _gather(srt: ndarray, idx: ndarray) -> ndarray:
    """srt[..., idx] along the last axis: idx (k,) for every slice, or
    B + (k,) per slice."""
    if idx.ndim == 1:
        return _c.take(srt, idx, axis=-1)
    return _c.new(srt._session, "take_along_axis", (srt, idx), idx._shape,
                  srt._dtype, {"axis": srt.ndim - 1})


def _lerp(lo: ndarray, hi: ndarray, t: Any, rdt: np.dtype) -> ndarray:
    """NumPy's _lerp: lo + (hi-lo)*t, or hi - (hi-lo)*(1-t) for t >= 0.5
    (integer data is converted first, so differences cannot overflow)."""
    if lo._dtype.kind not in "fc":
        lo, hi = lo.astype(rdt), hi.astype(rdt)
    diff = _m.subtract(hi, lo)
    below = _m.add(lo, _m.multiply(diff, t))
    above = _m.subtract(hi, _m.multiply(diff, _m.subtract(1, t)))
    big = _m.greater_equal(t, 0.5) if isinstance(t, ndarray) else t >= 0.5
    if not isinstance(big, ndarray):
        return above if big else below
    return _c.where(big, above, below)


def _q_values(q: Any) -> tuple[np.ndarray, bool]:
    """q on the host (a parameter: an arrayd q is read, one sync) and
    whether it is a Python scalar (NumPy's weak promotion)."""
    weak = type(q) in (int, float)
    if isinstance(q, ndarray):
        q = q.get()
    return np.asarray(q), weak


def _weights_for(a: ndarray, weights: Any, axes: tuple[int, ...] | None
                 ) -> ndarray:
    """NumPy's _weights_are_valid: weights shaped as a (or as a's axes),
    broadcast against a."""
    w = _c.ensure(weights, a._session)
    if w._shape != a._shape:
        if axes is None:
            raise TypeError("Axis must be specified when shapes of a and "
                            "weights differ.")
        if w._shape != tuple(a._shape[ax] for ax in axes):
            raise ValueError("Shape of weights must be consistent with "
                             "shape of a along specified axis.")
        w = w.transpose(list(np.argsort(axes)))
        w = w.reshape(tuple(n if d in axes else 1
                            for d, n in enumerate(a._shape)))
        w = w.view_as_broadcast(a._shape).copy()
    return w


def quantile_of(a: Any, q: Any, axis: Any, out: Any, method: str,
                keepdims: bool, weights: Any, name: str, nan_aware: bool,
                overwrite_input: bool = False) -> ndarray:
    """quantile, percentile, nanquantile and nanpercentile (name is the
    NumPy function's; nan_aware ignores NaNs, as nanquantile). With
    overwrite_input, an arrayd input is left sorted along the reduced axes
    (NumPy leaves it partitioned)."""
    overwrite = overwrite_input and isinstance(a, ndarray) and a.ndim > 0
    a = _c.ensure(a, session_of(a, out, weights))
    s = a._session
    qh, weak = _q_values(q)
    npfunc = getattr(np, name)
    if a._dtype.kind == "c":
        npfunc(np.zeros(1, a._dtype), 0.5)  # NumPy's TypeError
    # NumPy's checks of q, method and weights, and its result dtype, on a
    # one-element stand-in.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        probe = npfunc(np.zeros(1, a._dtype), q if weak else qh,
                       method=method,
                       weights=None if weights is None else np.ones(1))
    rdt = np.asarray(probe).dtype
    if a._dtype.kind == "b" and weights is None and method not in _DISCRETE:
        np.subtract(np.zeros(1, bool), np.zeros(1, bool))  # NumPy's error
    if a.size == 0:
        kw = {} if weights is None else {
            "weights": np.zeros(a._shape)}
        return _finish(_c.zero_size_result(npfunc, a, qh, axis=axis,
                                           method=method, keepdims=keepdims,
                                           **kw), out, name)
    qa = np.true_divide(qh, 100) if "percentile" in name else qh
    if qa.dtype.kind != "f":
        qa = qa.astype(np.float64)
    axes = _axes(axis, a.ndim)
    t = _c.merge_last(_c.moveaxes_last(a, axes), len(axes))
    if t.ndim == 0:
        t = t.reshape(1)
    size = t._shape[-1]
    floats = a._dtype.kind == "f"
    if weights is not None:
        w = _weights_for(a, weights, None if axis is None else axes)
        w = _c.merge_last(_c.moveaxes_last(w, axes), len(axes))
        w = w.reshape(t._shape)
        perm = _c.new(s, "argsort", (t,), t._shape, _c.INT64,
                      {"axis": t.ndim - 1})
        srt = _gather(t, perm)
        ws = _gather(w, perm)
    else:
        srt = _c.new(s, "sort", (t,), t._shape, t._dtype,
                     {"axis": t.ndim - 1})
    if overwrite:
        view = _c.moveaxes_last(a, axes)
        view[...] = srt.reshape(view._shape)
    batch = srt._shape[:-1]
    k = qa.size
    qflat = qa.reshape(-1)
    counted = nan_aware and floats
    if counted:
        valid = _m.logical_not(_m.isnan(srt))
        n: Any = _r.sum(valid, -1, _c.INT64, keepdims=True)  # B + (1,)
    else:
        n = size
    if weights is not None:
        r = _weighted_inverted_cdf(srt, ws, qflat, n, counted, size)
    else:
        xp: Any = _Server if counted else _Host
        qq = (_c.upload(s, qflat).reshape((1,) * len(batch) + (k,))
              if counted else qflat)
        v = _virtual_index(xp, method, n, qq)
        if method in _DISCRETE:
            r = _gather(srt, _index_array(s, v, n, size, False))
            if r._dtype != rdt:
                r = r.astype(rdt)
        else:
            prev, nxt, gamma = _interp_points(xp, method, n, v)
            lo = _gather(srt, _index_array(s, prev, n, size, True))
            hi = _gather(srt, _index_array(s, nxt, n, size, True))
            if weak:
                g: Any = float(np.asarray(gamma).reshape(-1)[0]) \
                    if not counted else gamma.astype(
                        srt._dtype if floats else _c.F64)
            elif counted:
                g = gamma.astype(qflat.dtype, copy=False)
            else:
                g = _c.upload(s, np.asarray(gamma, qflat.dtype))
            r = _lerp(lo, hi, g, rdt)
    if r._dtype != rdt:
        r = r.astype(rdt)
    # NaN in a slice: the result is NaN (sorted, so NaN is last); for the
    # NaN-ignoring versions, only all-NaN slices (with NumPy's warning).
    if floats:
        if counted:
            empty = _m.equal(n, 0)
            if bool(_fetch_any(empty)):
                warnings.warn("All-NaN slice encountered", RuntimeWarning,
                              stacklevel=3)
            r = _c.where(empty, _c.const(s, np.nan, rdt), r)
        else:
            last = srt[..., -1:]
            r = _c.where(_m.isnan(last), last.astype(rdt, copy=False), r)
    nd = r.ndim
    r = r.transpose([nd - 1] + list(range(nd - 1)))  # k first
    lead = qa.shape
    if keepdims:
        r = _keep(r, a._shape, axes, lead)
    else:
        r = r.reshape(lead + r._shape[1:])
    if not r.flags.c_contiguous:
        r = r.copy()
    return _finish(r, out, name)


def _fetch_any(x: ndarray) -> Any:
    r = _r.any(x)  # held until the fetch returns
    return r._session.fetch([r._handle])[0]


def _weighted_inverted_cdf(srt: ndarray, ws: ndarray, qflat: np.ndarray,
                           n: Any, counted: bool, size: int) -> ndarray:
    """NumPy's weighted 'inverted_cdf': the first sorted element whose
    normalized cumulative weight reaches q (one sync for the checks)."""
    s = srt._session
    if counted:  # NaNs (sorted last) carry no weight
        ws = _c.where(_m.isnan(srt), 0, ws)
    neg = _r.any(_m.less(ws, 0))
    cdf = _scan("cumsum", ws, -1, np.float64, None)
    total = cdf[..., -1:]
    cdf = _m.true_divide(cdf, total)
    nan_total = _m.isnan(cdf[..., -1:])
    if counted:  # all-NaN slices give NaN, whatever their weights
        nan_total = _m.logical_and(nan_total, _m.greater(n, 0))
    bad = _r.any(nan_total)
    negv, badv = s.fetch([neg._handle, bad._handle])
    if bool(negv):
        raise ValueError("Weights must be non-negative.")
    if bool(badv):
        raise ValueError("Weights included NaN, inf or were all zero.")
    if qflat.dtype.kind == "f" and qflat.dtype != np.float64:
        cdf = cdf.astype(qflat.dtype)
    cdf = _c.where(_m.equal(cdf, 0), -1, cdf)
    k = qflat.size
    qs = _c.upload(s, qflat).reshape((1,) * cdf.ndim + (k,))
    # searchsorted(cdf, q, 'left') per slice: how many cdf values are < q.
    below = _m.less(cdf.reshape(cdf._shape + (1,)), qs)
    idx = _r.sum(below, cdf.ndim - 1, _c.INT64)  # B + (k,)
    hi = _m.subtract(n, 1) if counted else size - 1
    idx = _m.maximum(_m.minimum(idx, hi), 0)
    return _gather(srt, idx)


def quantile(a: Any, q: Any, axis: Any = None, out: Any = None,
             overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False, *, weights: Any = None) -> ndarray:
    """numpy.quantile: every NumPy method (H&F's nine and lower, higher,
    midpoint, nearest); weights with 'inverted_cdf'; overwrite_input
    leaves an arrayd input sorted along the axes."""
    return quantile_of(a, q, axis, out, method, keepdims, weights,
                       "quantile", False, overwrite_input)


def percentile(a: Any, q: Any, axis: Any = None, out: Any = None,
               overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False, *, weights: Any = None) -> ndarray:
    """numpy.percentile (q in [0, 100]; the methods of quantile)."""
    return quantile_of(a, q, axis, out, method, keepdims, weights,
                       "percentile", False, overwrite_input)


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
    if out is not None and dt is None and isinstance(out, ndarray) and (
            out._dtype != rdt):
        # NumPy accumulates in out's dtype (its casting check on a stand-in);
        # the wider scan cast into out gives the same values (wrapping
        # integers, bool's or/and).
        npf(np.zeros(1, a._dtype), out=np.zeros(1, out._dtype))
        if out._shape != r._shape:
            raise ValueError(f"provided out is the wrong size for the "
                             f"accumulation: {out._shape} vs {r._shape}")
        out[...] = r
        return out
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
        if out is None:
            return _r.mean(a, axis, dtype, None, keepdims)
        # numpy.mean: the float mean cast into out whatever its kind
        # (NumPy divides in place with casting='unsafe').
        out[...] = _r.mean(a, axis, dtype, None, keepdims)
        return out
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
    if bool(_fetch_any(_m.equal(cnt, 0))):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
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
    if bool(_fetch_any(allnan)):
        warnings.warn("All-NaN slice encountered", RuntimeWarning,
                      stacklevel=3)
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
