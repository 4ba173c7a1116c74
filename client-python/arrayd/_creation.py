"""Array creation: array asarray empty zeros ones full arange linspace eye,
the *_like variants, and asnumpy.

Layer: functions (imports the core, _math, _reduction and _ufunc).
Attaches ``ndarray(shape, dtype)``, which is empty(shape, dtype), as in
NumPy.
"""
from __future__ import annotations

import math
import operator
import weakref
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from arrayd import _composite as _c
from arrayd import _connect, _dtypes, _layout, _math, _reduction, _ufunc
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
    """The order of a *_like result (NumPy: A is F for an F-ordered ``a``;
    K keeps ``a``'s axis order, unless a new shape has another number of
    dimensions)."""
    order = _order(order, "CFAK")
    if order not in "AK":
        return order
    if not isinstance(a, (ndarray, np.ndarray)):
        return "C"
    if order == "K" and shape is not None and len(_shape(shape)) != a.ndim:
        return "C"
    if a.flags.f_contiguous and not a.flags.c_contiguous:
        return "F"
    if order == "K" and isinstance(a, ndarray) and not a.flags.c_contiguous:
        return "K"
    return "C"


def _like(op: str, a: Any, dtype: Any, order: Any, shape: Any,
          extra: dict[str, Any] | None = None) -> ndarray:
    dt = _dtypes.normalize(a.dtype if dtype is None else dtype)
    o = _like_order(a, order, shape)
    if o == "K":  # keep a's axis order: a permuted C-ordered array
        strides = a.strides
        shp = a.shape if shape is None else _shape(shape)
        outer = sorted(range(a.ndim), key=lambda i: -abs(strides[i]))
        inv = [outer.index(i) for i in range(a.ndim)]
        made = _create(op, tuple(shp[i] for i in outer), dt, extra)
        return permuted(made, inv)
    return _create(op, a.shape if shape is None else shape, dt, extra, o)


def empty_like(a: Any, dtype: Any = None, order: str = "K",
               subok: bool = True, shape: Any = None, *,
               device: Any = None) -> ndarray:
    """A new array of a's shape with unspecified contents (numpy.empty_like);
    order='K' keeps a's layout."""
    _device(device)
    return _like("empty", a, dtype, order, shape)


def zeros_like(a: Any, dtype: Any = None, order: str = "K",
               subok: bool = True, shape: Any = None, *,
               device: Any = None) -> ndarray:
    """A new array of zeros of a's shape (numpy.zeros_like); order='K' keeps
    a's layout."""
    _device(device)
    return _like("zeros", a, dtype, order, shape)


def ones_like(a: Any, dtype: Any = None, order: str = "K",
              subok: bool = True, shape: Any = None, *,
              device: Any = None) -> ndarray:
    """A new array of ones of a's shape (numpy.ones_like); order='K' keeps a's
    layout."""
    _device(device)
    return _like("ones", a, dtype, order, shape)


def full_like(a: Any, fill_value: Any, dtype: Any = None, order: str = "K",
              subok: bool = True, shape: Any = None, *,
              device: Any = None) -> ndarray:
    """A new array of a's shape filled with fill_value (numpy.full_like);
    fill_value may be an array that broadcasts to it."""
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
          device: Any = None, blocking: bool = False) -> ndarray:
    """An arrayd array from an arrayd array, numpy array, list or scalar.
    (``blocking``, CuPy's: uploads are ordered with the session's ops either
    way.)"""
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
            device: Any = None, copy: bool | None = None,
            blocking: bool = False) -> ndarray:
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
               device: Any = None, copy: bool | None = None,
               blocking: bool = False) -> ndarray:
    """obj as an arrayd array (numpy.asanyarray: arrayd has no subclasses, so
    this is asarray)."""
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
    if dt.kind == "b" and n > 2:
        raise TypeError("arange() is only supported for booleans when the "
                        "result has at most length 2.")
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




def _linspace_operand(s: Any, v: Any, dt: np.dtype) -> ndarray:
    """start or stop as an arrayd array of the computation dtype."""
    if isinstance(v, ndarray):
        return v if v.dtype == dt else v.astype(dt)
    return upload(s, np.asarray(v).astype(dt))


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: Any = None,
             axis: int = 0, *, device: Any = None) -> Any:
    """num evenly spaced values over [start, stop] (numpy.linspace).

    start and stop broadcast; the samples run along ``axis``. Real host
    scalars computed in float64 are the server's one linspace op; the rest
    follows NumPy's formula in server ops (arange * step + start, the last
    sample set to stop, floor for integer dtypes) in NumPy's computation
    dtype, so values, dtypes and the step are NumPy's.
    """
    _device(device)
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = (num - 1) if endpoint else num
    calc = _dtypes.normalize(np.result_type(
        _c.dtype_key(start), _c.dtype_key(stop), 1.0))
    dt = calc if dtype is None else _dtypes.normalize(dtype)
    integer = dtype is not None and dt.kind in "iu"
    if isinstance(start, ndarray) or isinstance(stop, ndarray) or (
            np.ndim(start) or np.ndim(stop)):
        y, step = _linspace_ops(start, stop, num, endpoint, div, calc, dt,
                                integer, axis, None)
        return (y, step) if retstep else y
    start, stop = _py(start), _py(stop)
    normalize_axis_tuple(axis, 1, "destination")  # NumPy's moveaxis error
    _linspace_floorable(integer, calc)
    # The step of host scalars, as NumPy computes it (in calc).
    with np.errstate(all="ignore"):
        delta = np.subtract(stop, start, dtype=calc)
        step = delta / div if div > 0 else float("nan")
    zero = div > 0 and step == 0
    # The server's op computes in float64 and matches NumPy there, but not
    # NumPy's float32/float16 or complex rounding, nor its dividing by div
    # first where the step underflows to 0 (gh-5437).
    if calc.char == "d" and not (zero and delta != 0):
        s = _connect.current()
        h = s.new_handle()
        s.record("linspace", (), (h,), {
            "start": float(start), "stop": float(stop),
            "num": num, "endpoint": bool(endpoint), "dtype": dt})
        a = ndarray._new(s, h, (num,), dt)
    else:
        a = _linspace_ops(start, stop, num, endpoint, div, calc, dt,
                          integer, 0, bool(zero))[0]
    return (a, step) if retstep else a


def _linspace_floorable(integer: bool, calc: np.dtype) -> None:
    if integer and calc.kind == "c":
        np.floor(np.zeros(1, calc))  # NumPy's TypeError: no complex floor


def _linspace_ops(start: Any, stop: Any, num: int, endpoint: bool,
                  div: int, calc: np.dtype, dt: np.dtype, integer: bool,
                  axis: int, zero: bool | None) -> tuple[ndarray, Any]:
    """NumPy's linspace formula in server ops, computed in ``calc`` and
    cast to ``dt``: (samples, step). ``zero``: whether some step is 0,
    when known on the host (None: decided on the server)."""
    s = session_of(start, stop)
    st = _linspace_operand(s, start, calc)
    sp = _linspace_operand(s, stop, calc)
    delta = _math.subtract(sp, st)
    nd = delta.ndim
    perm = None
    if axis != 0:
        ax = normalize_axis_tuple(axis, nd + 1, "destination")[0]
        perm = list(range(1, nd + 1))
        perm.insert(ax, 0)
    _linspace_floorable(integer, calc)
    y = arange(0, num, dtype=calc).reshape((num,) + (1,) * nd)
    step: Any = float("nan")
    if div > 0:
        step = _math.true_divide(delta, div)
        if zero is None:
            # NumPy: if any step is 0 (underflow, or start == stop), every
            # sample divides by div first; one server-side any, no sync.
            y = _ufunc.where_op(
                s, _reduction.any(_math.equal(step, 0)),
                _math.multiply(_math.true_divide(y, div), delta),
                _math.multiply(y, step))
        elif zero:
            y = _math.multiply(_math.true_divide(y, div), delta)
        else:
            y = _math.multiply(y, step)
    else:
        y = _math.multiply(y, delta)
    y = _math.add(y, st)
    if endpoint and num > 1:
        y[-1, ...] = sp
    if perm is not None:
        y = y.transpose(perm)
    if integer:
        y = _math.floor(y)
    if y.dtype != dt:
        y = y.astype(dt)
    return y, step


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
    """The n x n identity matrix (numpy.identity)."""
    return eye(n, dtype=dtype)


def _ndarray_new(cls: type, shape: Any = (), dtype: Any = float,
                 memptr: Any = None, strides: Any = None,
                 order: str = "C") -> ndarray:
    """ndarray(shape, dtype, order=): a new array of unspecified contents.
    Strides may be given when they are C's or F's for the shape (a server
    array has no device pointer to lay arbitrary strides over). With
    ``memptr`` (a MemoryPointer of arrayd.cuda.memory), the array is a view
    of the block it points into (see _on_memptr)."""
    if shape is None:
        raise TypeError("'NoneType' object cannot be interpreted as an "
                        "integer")
    if memptr is not None:
        a = _on_memptr(shape, dtype, memptr, strides, order)
        if cls is not ndarray:
            a = a.view(cls)
        # The array keeps memptr (its block) while it lives, as CuPy's.
        weakref.finalize(a, _keep, memptr)
        return a
    if strides is not None:
        _order(order, "CFAK")  # NumPy's error for a bad order, even here
        dt = _dtypes.normalize(dtype)
        shp = _shape(shape)
        st = tuple(strides)
        for o in "CF":
            a = empty(shp, dt, o)
            if a.strides == st or (a.size and _dense(shp, st, dt) ==
                                   _dense(shp, a.strides, dt)):
                return a
        raise ValueError(f"ndarray() with strides {st} needs device memory "
                         f"laid out for them: only C or F strides can be "
                         f"allocated for shape {shp}")
    a = empty(shape, dtype, order)
    if cls is not ndarray:
        return a.view(cls)
    return a


def _on_memptr(shape: Any, dtype: Any, memptr: Any, strides: Any,
               order: str) -> ndarray:
    """ndarray(shape, dtype, memptr): a C or F (``order``, or ``strides``
    when given and C's or F's) view of the bytes at ``memptr`` in its
    block, which is a uint8 array of the session (``memptr.mem._array``:
    arrayd.cuda.memory's malloc, alloc, pools, UnownedMemory of one).
    ndarray() keeps ``memptr`` while the array lives, so that a pool does
    not reuse the block under it (a view taken of the array does not keep
    it: its base is the block's array). TypeError for any other pointer:
    arrays live on the server, a client has no device addresses to view.
    The offset must suit the dtype's alignment (a misaligned view would
    fault in a device kernel)."""
    mem = getattr(memptr, "mem", None)
    block = getattr(mem, "_array", None)
    if block is None or not isinstance(block, ndarray):
        raise TypeError(
            "arrayd arrays live on the server: ndarray(memptr=) takes a "
            "MemoryPointer into a block of arrayd.cuda.memory (malloc, "
            f"alloc, a MemoryPool's malloc), not {type(memptr).__name__} "
            f"of {type(mem).__name__}")
    dt = _dtypes.normalize(dtype)
    shp = _shape(shape)
    order = _order(order, "CFAK")
    nbytes = math.prod(shp) * dt.itemsize
    start = int(memptr.ptr) - int(mem.ptr)
    if start < 0 or start + nbytes > block.size:
        raise ValueError(f"ndarray(memptr=): {nbytes} bytes at offset "
                         f"{start} are outside the {block.size}-byte block")
    if start % dt.alignment:
        raise ValueError(f"ndarray(memptr=): offset {start} is not aligned "
                         f"for {dt} ({dt.alignment} bytes)")
    flat = block[start:start + nbytes].view(dt)
    if strides is None:
        fortran_order = order == "F"
    else:
        st = tuple(strides)
        c_st = _layout.c_strides(shp, dt.itemsize)
        f_st = _layout.c_strides(shp[::-1], dt.itemsize)[::-1]
        dense = _dense(shp, st, dt)
        if st == c_st or dense == _dense(shp, c_st, dt):
            fortran_order = False
        elif st == f_st or dense == _dense(shp, f_st, dt):
            fortran_order = True
        else:
            raise ValueError(
                f"ndarray(memptr=) with strides {st}: only C or F strides "
                f"can be laid over a block for shape {shp}")
    if fortran_order:
        return flat.reshape(shp[::-1]).transpose()  # a view for any shape
    return flat.reshape(shp)


def _keep(*objects: Any) -> None:
    """What weakref.finalize calls with the objects it kept alive."""


def _dense(shape: tuple[int, ...], strides: tuple[int, ...],
           dt: np.dtype) -> tuple[int, ...]:
    """strides with those of length-1 axes left out (they do not matter)."""
    return tuple(st for n, st in zip(shape, strides) if n != 1)


attach(__new__=staticmethod(_ndarray_new))
