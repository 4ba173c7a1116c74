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
from arrayd._ndarray import (_order, attach, encode_scalar, fortran,
                             ndarray, permuted, session_of, shape_dummy,
                             upload)

_FLOAT64 = np.dtype(np.float64)


def _shape(shape: Any) -> tuple[int, ...]:
    """NumPy's normalization and errors for a shape argument."""
    return shape_dummy(shape).shape


def _device(device: Any) -> None:
    """The Array API's device= argument: arrayd arrays live on the session's
    device; None or that device are accepted."""
    if device is not None and device != "arrayd" and not (
            hasattr(device, "__class__")
            and type(device).__name__ == "Device"):
        raise ValueError(f"unsupported device {device!r}")


def _create(op: str, shape: Any, dtype: Any,
            extra: dict[str, Any] | None = None,
            order: Any = "C") -> ndarray:
    dt = _dtypes.normalize(dtype)
    shp = _shape(shape)
    order = _order(order, "CF")
    s = _connect.current()
    h = s.new_handle()
    rev = order == "F" and len(shp) > 1
    attrs: dict[str, Any] = {"shape": list(shp[::-1] if rev else shp),
                             "dtype": dt}
    if extra:
        attrs.update(extra)
    s.record(op, (), (h,), attrs)
    if rev:
        return fortran(ndarray._new(s, h, shp[::-1], dt))
    return ndarray._new(s, h, shp, dt)


def empty(shape: Any, dtype: Any = float, order: str = "C", *,
          device: Any = None) -> ndarray:
    """A new array with unspecified contents (numpy.empty)."""
    _device(device)
    return _create("empty", shape, dtype, order=order)


def zeros(shape: Any, dtype: Any = float, order: str = "C", *,
          device: Any = None) -> ndarray:
    """A new array of zeros (numpy.zeros)."""
    _device(device)
    return _create("zeros", shape, dtype, order=order)


def ones(shape: Any, dtype: Any = float, order: str = "C", *,
         device: Any = None) -> ndarray:
    """A new array of ones (numpy.ones)."""
    _device(device)
    return _create("ones", shape, dtype, order=order)


def full(shape: Any, fill_value: Any, dtype: Any = None,
         order: str = "C", *, device: Any = None) -> ndarray:
    """A new array filled with fill_value (numpy.full)."""
    _device(device)
    if isinstance(fill_value, ndarray):
        dt = fill_value.dtype if dtype is None else dtype
        a = empty(shape, dt, order)
        a[...] = fill_value
        return a
    v = np.array(fill_value, dtype=dtype)  # NumPy's dtype and cast errors
    if v.ndim != 0:
        a = empty(shape, v.dtype, order)
        a[...] = v
        return a
    dt = _dtypes.normalize(v.dtype)
    return _create("full", shape, dt, {"value": encode_scalar(v.item(), dt)},
                   order)


def _like_order(a: Any, order: Any, shape: Any) -> str:
    """The order of a *_like result (NumPy: K and A follow ``a``; with a
    new shape, K keeps C unless ``a`` is F-ordered)."""
    order = _order(order, "CFAK")
    if order in "AK":
        f = a.flags.f_contiguous and not a.flags.c_contiguous if isinstance(
            a, (ndarray, np.ndarray)) else False
        if order == "K" and shape is None and isinstance(a, ndarray) and \
                not f and not a.flags.c_contiguous:
            return "K"
        return "F" if f else "C"
    return order


def _like(op: str, a: Any, dtype: Any, order: Any, shape: Any,
          extra: dict[str, Any] | None = None) -> ndarray:
    dt = _dtypes.normalize(a.dtype if dtype is None else dtype)
    o = _like_order(a, order, shape)
    if o == "K":  # keep a's axis order: a permuted C-ordered array
        strides = a.strides
        outer = sorted(range(a.ndim), key=lambda i: -abs(strides[i]))
        inv = [outer.index(i) for i in range(a.ndim)]
        made = _create(op, tuple(a.shape[i] for i in outer), dt, extra)
        return permuted(made, inv)
    return _create(op, a.shape if shape is None else shape, dt, extra, o)


def empty_like(a: Any, dtype: Any = None, order: str = "K",
               subok: bool = True, shape: Any = None, *,
               device: Any = None) -> ndarray:
    _device(device)
    return _like("empty", a, dtype, order, shape)


def zeros_like(a: Any, dtype: Any = None, order: str = "K",
               subok: bool = True, shape: Any = None, *,
               device: Any = None) -> ndarray:
    _device(device)
    return _like("zeros", a, dtype, order, shape)


def ones_like(a: Any, dtype: Any = None, order: str = "K",
              subok: bool = True, shape: Any = None, *,
              device: Any = None) -> ndarray:
    _device(device)
    return _like("ones", a, dtype, order, shape)


def full_like(a: Any, fill_value: Any, dtype: Any = None, order: str = "K",
              subok: bool = True, shape: Any = None, *,
              device: Any = None) -> ndarray:
    _device(device)
    dt = _dtypes.normalize(a.dtype if dtype is None else dtype)
    if isinstance(fill_value, ndarray) or np.ndim(fill_value) != 0:
        r = empty_like(a, dt, order, shape=shape)
        r[...] = fill_value
        return r
    v = np.array(fill_value).astype(dt)
    return _like("full", a, dt, order, shape,
                 {"value": encode_scalar(v.item(), dt)})


def _from_arrayd(a: ndarray, dtype: Any, copy: Any, order: str) -> ndarray:
    """array()/asarray() of an arrayd array: itself when nothing asks for
    a copy, else a copy in ``order``."""
    dt = a.dtype if dtype is None else _dtypes.normalize(dtype)
    fits = (order in "AK" or (order == "C" and a.flags.c_contiguous)
            or (order == "F" and a.flags.f_contiguous))
    if dt == a.dtype and fits and not copy:
        return a
    if copy is False:
        raise ValueError("Unable to avoid copy while creating an array as "
                         "requested.")
    if dt != a.dtype:
        return a.astype(dt, order=order)
    return a.copy(order)


def array(obj: Any, dtype: Any = None, copy: bool | None = True,
          order: str = "K", subok: bool = False, ndmin: int = 0, *,
          device: Any = None) -> ndarray:
    """An arrayd array from an arrayd array, numpy array, list or scalar."""
    _device(device)
    order = _order(order, "CFAK")
    if isinstance(obj, ndarray):
        a = _from_arrayd(obj, dtype, copy, order)
    else:
        if dtype is not None:
            dtype = _dtypes.normalize(dtype)
        if copy is False:
            raise ValueError("Unable to avoid copy while creating an arrayd "
                             "array from host data.")
        a = upload(session_of(), np.array(obj, dtype=dtype, order=order,
                                          copy=None))
    if a.ndim < ndmin:
        a = a.reshape((1,) * (ndmin - a.ndim) + a.shape)
    return a


def asarray(obj: Any, dtype: Any = None, order: str | None = None, *,
            device: Any = None, copy: bool | None = None) -> ndarray:
    """obj as an arrayd array; arrayd arrays pass through unless converted."""
    _device(device)
    order = _order(order, "CFAK")
    if isinstance(obj, ndarray):
        return _from_arrayd(obj, dtype, copy, order)
    if dtype is not None:
        dtype = _dtypes.normalize(dtype)
    if copy is False:
        raise ValueError("Unable to avoid copy while creating an arrayd "
                         "array from host data.")
    return upload(session_of(), np.asarray(obj, dtype=dtype, order=order))


def asanyarray(obj: Any, dtype: Any = None, order: str | None = None, *,
               device: Any = None, copy: bool | None = None) -> ndarray:
    return asarray(obj, dtype, order, device=device, copy=copy)


def ascontiguousarray(a: Any, dtype: Any = None) -> ndarray:
    """a as a C-contiguous array (itself when it already is one)."""
    r = asarray(a, dtype=dtype, order="C")
    return r.reshape(1) if r.ndim == 0 else r


def asfortranarray(a: Any, dtype: Any = None) -> ndarray:
    """a as an F-contiguous array (itself when it already is one)."""
    r = asarray(a, dtype=dtype, order="F")
    return r.reshape(1) if r.ndim == 0 else r


_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C",
                 "F": "F", "F_CONTIGUOUS": "F", "FORTRAN": "F",
                 "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W",
                 "O": "O", "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


def require(a: Any, dtype: Any = None, requirements: Any = None) -> ndarray:
    """numpy.require: a as an array that meets the flag requirements."""
    if requirements is None:
        reqs: set[str] = set()
    else:
        try:
            reqs = {_REQUIREMENTS[r.upper()] for r in requirements}
        except KeyError as e:
            raise KeyError(f"Unknown requirement {e.args[0]!r}") from None
    if "C" in reqs and "F" in reqs:
        raise ValueError("Cannot specify both \"C\" and \"F\" order")
    order = "C" if "C" in reqs else "F" if "F" in reqs else "A"
    r = asarray(a, dtype=dtype, order=order if order != "A" else None)
    if ("W" in reqs and not r.flags.writeable) or (
            "O" in reqs and not r.flags.owndata):
        r = r.copy(order if order != "A" else "K")
    return r


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
