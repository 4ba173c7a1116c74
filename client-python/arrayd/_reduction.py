"""Reductions: sum prod mean min max all any argmin argmax.

Layer: functions (imports the core only). Attaches the ndarray methods of
the same names: the functions themselves, so ``x.sum()`` is one call.

The result dtype comes from NumPy on a 1-element array; the result shape
from axis arithmetic (NumPy's normalize_axis_tuple checks the axes). Empty
inputs are checked by NumPy itself on a zero-size array (cheap), so min/max
of nothing raise NumPy's ValueError. A NumPy array is reduced by NumPy, on
the host, as CuPy's functions do (they call the array's method).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from arrayd import _dtypes
from arrayd import _session as _sess
from arrayd._ndarray import asarray_in, attach, ndarray, session_of

_RESULT_DTYPE: dict[tuple[Any, ...], np.dtype] = {}
_NUMPY = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "min": np.min,
          "max": np.max, "all": np.all, "any": np.any,
          "argmin": np.argmin, "argmax": np.argmax}
_HAS_DTYPE = frozenset(("sum", "prod", "mean"))


def _result_dtype(op: str, dt: np.dtype, dtype: np.dtype | None) -> np.dtype:
    key = (op, dt, dtype)
    r = _RESULT_DTYPE.get(key)
    if r is None:
        one = np.zeros(1, dtype=dt)
        with np.errstate(all="ignore"):
            if op in _HAS_DTYPE:
                r = np.asarray(_NUMPY[op](one, dtype=dtype)).dtype
            else:
                r = np.asarray(_NUMPY[op](one)).dtype
        _RESULT_DTYPE[key] = r
    return r


def axes_of(axis: Any, nd: int) -> tuple[int, ...]:
    """normalize_axis_tuple(axis, nd) (every axis for None), its checks
    and AxisError, without its cost for a Python int or a tuple of valid
    non-negative ones."""
    if axis is None:
        return tuple(range(nd))
    t = type(axis)
    if t is int:
        if -nd <= axis < nd:
            return (axis + nd if axis < 0 else axis,)
    elif t is tuple:
        for ax in axis:
            if type(ax) is not int or not 0 <= ax < nd:
                break
        else:
            if len(axis) < 2 or len(set(axis)) == len(axis):
                return axis
    return normalize_axis_tuple(axis, nd)


def _finish(op: str, a: ndarray, shape: tuple[int, ...], dt: np.dtype,
            attrs: dict[str, Any], out: Any) -> ndarray:
    s = a._session
    if out is not None:
        if not isinstance(out, ndarray) or out._session is not s:
            raise TypeError("out must be an arrayd.ndarray of the same "
                            "session")
        if out._shape != shape:
            raise ValueError(f"output parameter for reduction operation {op} "
                             f"has the wrong shape {out._shape}, expected "
                             f"{shape}")
        if out._dtype != dt:
            # NumPy casts a reduction's result into out= unsafely.
            h = s.new_handle()
            s.record(op, (a._handle,), (h,), attrs,
                     small=_sess.is_small(a._shape))
            out[...] = ndarray._new(s, h, shape, dt)
            return out
        s.record(op, (a._handle,), (out._handle,), attrs, small=_sess.is_small(a._shape))
        return out
    h = s.new_handle()
    s.record(op, (a._handle,), (h,), attrs, small=_sess.is_small(a._shape))
    return ndarray._new(s, h, shape, dt)


def on_host(a: Any, out: Any) -> bool:
    """Whether a reduction computes on the host, with NumPy: CuPy's
    cupy.sum(a) and friends call ``a.sum()``, so a NumPy array gives
    NumPy's answer (and arrays of the server are computed there)."""
    return isinstance(a, np.ndarray) and not isinstance(out, ndarray)


def _reduce(op: str, a: Any, axis: Any, dtype: Any, out: Any,
            keepdims: bool) -> ndarray:
    if on_host(a, out):
        kw = {"dtype": dtype} if op in _HAS_DTYPE else {}
        return _NUMPY[op](a, axis=axis, out=out, keepdims=keepdims, **kw)
    if (type(a) is ndarray and axis is None and dtype is None and out is None
            and not keepdims and 0 not in a._shape):
        # The common case (x.sum()), with the server's defaults (every
        # axis, no keepdims) and so without attributes: a round trip's
        # client time is mostly steps like this one.
        return _finish(op, a, (), _result_dtype(op, a._dtype, None), {}, None)
    a = asarray_in(session_of(a, out), a)
    shape = a._shape
    nd = len(shape)
    axes = axes_of(axis, nd)  # NumPy's AxisError
    dt = None if dtype is None else _dtypes.normalize(dtype)
    rdt = _result_dtype(op, a._dtype, dt)
    if 0 in shape:  # zero-size: NumPy checks it (no data to allocate)
        kw = {"dtype": dt} if dt is not None else {}
        with np.errstate(all="ignore"):
            _NUMPY[op](np.zeros(shape, a._dtype), axis=axis,
                       keepdims=keepdims, **kw)
    if keepdims:
        rshape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        rshape = tuple(d for i, d in enumerate(shape) if i not in axes)
    attrs: dict[str, Any] = {"axes": list(axes), "keepdims": bool(keepdims)}
    if dt is not None:
        attrs["dtype"] = dt
    return _finish(op, a, rshape, rdt, attrs, out)


def _arg_reduce(op: str, a: Any, axis: Any, out: Any,
                keepdims: bool) -> ndarray:
    if on_host(a, out):
        return _NUMPY[op](a, axis=axis, out=out, keepdims=keepdims)
    a = asarray_in(session_of(a, out), a)
    shape = a._shape
    nd = len(shape)
    attrs: dict[str, Any] = {"keepdims": bool(keepdims)}
    if axis is None:
        rshape = (1,) * nd if keepdims else ()
    else:
        ax = normalize_axis_index(axis, nd)
        attrs["axis"] = ax
        rshape = (tuple(1 if i == ax else d for i, d in enumerate(shape))
                  if keepdims else shape[:ax] + shape[ax + 1:])
    if 0 in shape:
        _NUMPY[op](np.zeros(shape, a._dtype), axis=axis, keepdims=keepdims)
    return _finish(op, a, rshape, np.dtype(np.int64), attrs, out)


def sum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
        keepdims: bool = False) -> ndarray:
    """Sum of elements over the given axes (numpy.sum)."""
    return _reduce("sum", a, axis, dtype, out, keepdims)


def prod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: bool = False) -> ndarray:
    """Product of elements over the given axes (numpy.prod)."""
    return _reduce("prod", a, axis, dtype, out, keepdims)


def mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: bool = False) -> ndarray:
    """Arithmetic mean over the given axes (numpy.mean)."""
    return _reduce("mean", a, axis, dtype, out, keepdims)


def min(a: Any, axis: Any = None, out: Any = None,
        keepdims: bool = False) -> ndarray:
    """Minimum over the given axes (numpy.min)."""
    return _reduce("min", a, axis, None, out, keepdims)


def max(a: Any, axis: Any = None, out: Any = None,
        keepdims: bool = False) -> ndarray:
    """Maximum over the given axes (numpy.max)."""
    return _reduce("max", a, axis, None, out, keepdims)


def all(a: Any, axis: Any = None, out: Any = None,
        keepdims: bool = False) -> ndarray:
    """Whether all elements are true (numpy.all)."""
    return _reduce("all", a, axis, None, out, keepdims)


def any(a: Any, axis: Any = None, out: Any = None,
        keepdims: bool = False) -> ndarray:
    """Whether any element is true (numpy.any)."""
    return _reduce("any", a, axis, None, out, keepdims)


def argmin(a: Any, axis: Any = None, out: Any = None, *,
           keepdims: bool = False, dtype: Any = None) -> ndarray:
    """Indices of the minimum (numpy.argmin); int64, or ``dtype`` (an
    integer dtype, as CuPy allows)."""
    return _index_dtype(_arg_reduce("argmin", a, axis, out, keepdims), dtype)


def argmax(a: Any, axis: Any = None, out: Any = None, *,
           keepdims: bool = False, dtype: Any = None) -> ndarray:
    """Indices of the maximum (numpy.argmax); int64, or ``dtype``."""
    return _index_dtype(_arg_reduce("argmax", a, axis, out, keepdims), dtype)


def _index_dtype(r: ndarray, dtype: Any) -> ndarray:
    if dtype is None:
        return r
    dt = _dtypes.normalize(dtype)
    if dt.kind not in "iu":
        raise TypeError(f"dtype must be an integer type, not {dt}")
    return r.astype(dt, copy=False)


amin = min
amax = max

attach(sum=sum, prod=prod, mean=mean, min=min, max=max, all=all, any=any,
       argmin=argmin, argmax=argmax)
