"""Array creation: array asarray empty zeros ones full arange linspace eye,
the *_like variants, and asnumpy.

Layer: functions (imports the core only). Attaches ``ndarray(shape,
dtype)``, which is empty(shape, dtype), as in NumPy.
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from arrayd import _connect, _dtypes
from arrayd._ndarray import (asarray_in, attach, encode_scalar, ndarray,
                             session_of, shape_dummy)

_FLOAT64 = np.dtype(np.float64)


def _shape(shape: Any) -> tuple[int, ...]:
    """NumPy's normalization and errors for a shape argument."""
    return shape_dummy(shape).shape


def _create(op: str, shape: Any, dtype: Any,
            extra: dict[str, Any] | None = None) -> ndarray:
    dt = _dtypes.normalize(dtype)
    shp = _shape(shape)
    s = _connect.current()
    h = s.new_handle()
    attrs: dict[str, Any] = {"shape": list(shp), "dtype": dt}
    if extra:
        attrs.update(extra)
    s.record(op, (), (h,), attrs)
    return ndarray._new(s, h, shp, dt)


def empty(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    """A new array with unspecified contents (numpy.empty)."""
    return _create("empty", shape, dtype)


def zeros(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    """A new array of zeros (numpy.zeros)."""
    return _create("zeros", shape, dtype)


def ones(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    """A new array of ones (numpy.ones)."""
    return _create("ones", shape, dtype)


def full(shape: Any, fill_value: Any, dtype: Any = None,
         order: str = "C") -> ndarray:
    """A new array filled with fill_value (numpy.full)."""
    if isinstance(fill_value, ndarray):
        dt = fill_value.dtype if dtype is None else dtype
        a = empty(shape, dt)
        a[...] = fill_value
        return a
    v = np.array(fill_value, dtype=dtype)  # NumPy's dtype and cast errors
    if v.ndim != 0:
        a = empty(shape, v.dtype)
        a[...] = v
        return a
    dt = _dtypes.normalize(v.dtype)
    return _create("full", shape, dt, {"value": encode_scalar(v.item(), dt)})


def empty_like(a: Any, dtype: Any = None, shape: Any = None) -> ndarray:
    return empty(a.shape if shape is None else shape,
                 a.dtype if dtype is None else dtype)


def zeros_like(a: Any, dtype: Any = None, shape: Any = None) -> ndarray:
    return zeros(a.shape if shape is None else shape,
                 a.dtype if dtype is None else dtype)


def ones_like(a: Any, dtype: Any = None, shape: Any = None) -> ndarray:
    return ones(a.shape if shape is None else shape,
                a.dtype if dtype is None else dtype)


def full_like(a: Any, fill_value: Any, dtype: Any = None,
              shape: Any = None) -> ndarray:
    dt = a.dtype if dtype is None else dtype
    v = np.array(fill_value).astype(dt) if not isinstance(
        fill_value, ndarray) else fill_value
    return full(a.shape if shape is None else shape, v, dt)


def array(obj: Any, dtype: Any = None, copy: bool | None = True,
          ndmin: int = 0) -> ndarray:
    """An arrayd array from an arrayd array, numpy array, list or scalar."""
    if isinstance(obj, ndarray):
        a = obj
        if dtype is not None and _dtypes.normalize(dtype) != a.dtype:
            a = a.astype(dtype)
        elif copy:
            a = a.copy()
    else:
        if dtype is not None:
            dtype = _dtypes.normalize(dtype)
        a = asarray_in(session_of(), np.asarray(obj, dtype=dtype))
    if a.ndim < ndmin:
        a = a.reshape((1,) * (ndmin - a.ndim) + a.shape)
    return a


def asarray(obj: Any, dtype: Any = None, copy: bool | None = None) -> ndarray:
    """obj as an arrayd array; arrayd arrays pass through unless converted."""
    if isinstance(obj, ndarray):
        if dtype is not None and _dtypes.normalize(dtype) != obj.dtype:
            return obj.astype(dtype)
        return obj.copy() if copy else obj
    if dtype is not None:
        dtype = _dtypes.normalize(dtype)
    return asarray_in(session_of(), np.asarray(obj, dtype=dtype))


def ascontiguousarray(a: Any, dtype: Any = None) -> ndarray:
    return asarray(a, dtype=dtype)


def asnumpy(a: Any) -> np.ndarray:
    """a as a numpy array (downloads arrayd arrays)."""
    return a.get() if isinstance(a, ndarray) else np.asarray(a)


def _py(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _arange_length(start: Any, stop: Any, step: Any) -> int:
    if step == 0:
        raise ZeroDivisionError("division by zero")
    if all(type(v) in (int, bool) for v in (start, stop, step)):
        n = -((start - stop) // step)  # exact ceil for ints
    elif any(type(v) is complex for v in (start, stop, step)):
        n = len(np.arange(start, stop, step))
    else:
        n = math.ceil((stop - start) / step)
    return n if n > 0 else 0


def arange(start: Any, stop: Any = None, step: Any = None,
           dtype: Any = None) -> ndarray:
    """Evenly spaced values in [start, stop) (numpy.arange)."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    start, stop, step = _py(start), _py(stop), _py(step)
    n = _arange_length(start, stop, step)
    if dtype is None:
        kinds = {type(v) for v in (start, stop, step)}
        dt = (np.dtype(np.complex128) if complex in kinds
              else _FLOAT64 if float in kinds else np.dtype(np.int64))
    else:
        dt = _dtypes.normalize(dtype)
    if dt.kind == "c":
        conv: Any = complex
    elif dt.kind == "f" or type(start) is float or type(step) is float:
        conv = float  # NumPy computes in the arguments' type, then casts
    else:
        conv = int
    extra = {"start": conv(start), "step": conv(step), "num": n}
    if conv is int:
        extra["start"] = encode_scalar(start, dt)
    s = _connect.current()
    h = s.new_handle()
    attrs = {"dtype": dt, **extra}
    s.record("arange", (), (h,), attrs)
    return ndarray._new(s, h, (n,), dt)


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: Any = None,
             axis: int = 0) -> Any:
    """num evenly spaced values over [start, stop] (numpy.linspace)."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if axis != 0:
        raise NotImplementedError("arrayd linspace supports axis=0 only")
    if isinstance(start, (ndarray, np.ndarray, list)) or isinstance(
            stop, (ndarray, np.ndarray, list)):
        raise NotImplementedError("arrayd linspace takes scalars only")
    calc = np.result_type(start, stop, float(num))
    dt = _dtypes.normalize(calc if dtype is None else dtype)
    start, stop = _py(start), _py(stop)
    as_c = calc.kind == "c"
    s = _connect.current()
    h = s.new_handle()
    s.record("linspace", (), (h,), {
        "start": complex(start) if as_c else float(start),
        "stop": complex(stop) if as_c else float(stop),
        "num": num, "endpoint": bool(endpoint), "dtype": dt})
    a = ndarray._new(s, h, (num,), dt)
    if retstep:
        div = (num - 1) if endpoint else num
        step = (stop - start) / div if div > 0 else float("nan")
        return a, step
    return a


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = float,
        order: str = "C") -> ndarray:
    """A 2-D array with ones on the k-th diagonal (numpy.eye)."""
    n = operator.index(N)
    m = n if M is None else operator.index(M)
    dt = _dtypes.normalize(dtype)
    shp = _shape((n, m))
    s = _connect.current()
    h = s.new_handle()
    s.record("eye", (), (h,), {"n": n, "m": m, "k": operator.index(k),
                               "dtype": dt})
    return ndarray._new(s, h, shp, dt)


def identity(n: int, dtype: Any = float) -> ndarray:
    return eye(n, dtype=dtype)


def _ndarray_new(cls: type, shape: Any = (), dtype: Any = float) -> ndarray:
    """ndarray(shape, dtype): a new array of unspecified contents."""
    return empty(shape, dtype)


attach(__new__=staticmethod(_ndarray_new))
