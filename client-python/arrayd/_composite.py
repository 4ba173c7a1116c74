"""Building blocks for functions composed of several server ops.

Layer: functions (imports the core only). Private helpers shared by
_mathfuncs, _statistics, _sorting, _linalg, _decompositions, fft and
random: record one op and wrap its result, where/take/concatenate/diagonal
without a public signature, and NumPy's out= assignment.
"""
from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from arrayd import _dtypes, _shapes
from arrayd import _session as _sess
from arrayd._ndarray import (asarray_in, elementwise_strides, ndarray,
                             scalar, session_of)

INT64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)
F64 = np.dtype(np.float64)


def new(s: _sess.Session, op: str, inputs: Sequence[ndarray],
        shape: tuple[int, ...], dtype: np.dtype,
        attrs: dict[str, Any] | None = None,
        strides: tuple[int, ...] | None = None) -> ndarray:
    """Records ``op`` on ``inputs`` and returns its (new) result (C-ordered
    unless ``strides`` says otherwise)."""
    h = s.new_handle()
    s.record(op, tuple(a._handle for a in inputs), (h,), attrs)
    return ndarray._new(s, h, shape, dtype, strides)


def empty(s: _sess.Session, shape: Sequence[int], dtype: Any) -> ndarray:
    """A new array of ``shape`` with unspecified contents."""
    dt = np.dtype(dtype)
    shape = tuple(shape)
    return new(s, "empty", (), shape, dt, {"shape": list(shape), "dtype": dt})


def zeros(s: _sess.Session, shape: Sequence[int], dtype: Any) -> ndarray:
    dt = np.dtype(dtype)
    shape = tuple(shape)
    return new(s, "zeros", (), shape, dt, {"shape": list(shape), "dtype": dt})


def full(s: _sess.Session, shape: Sequence[int], value: Any,
         dtype: Any) -> ndarray:
    dt = np.dtype(dtype)
    shape = tuple(shape)
    v = np.array(value, dtype=dt).item()
    if dt.kind == "b":
        v = int(v)
    return new(s, "full", (), shape, dt,
               {"shape": list(shape), "dtype": dt, "value": v})


def arange(s: _sess.Session, n: int, dtype: Any = INT64, start: Any = 0,
           step: Any = 1) -> ndarray:
    """start, start + step, ... (n values) of ``dtype``."""
    dt = np.dtype(dtype)
    if dt.kind in "biu":
        start, step = int(start), int(step)
    elif dt.kind == "f":
        start, step = float(start), float(step)
    return new(s, "arange", (), (n,), dt,
               {"start": start, "step": step, "num": n, "dtype": dt})


def fetch(*xs: ndarray) -> list[Any]:
    """The values of server arrays in one sync (0-d ones as NumPy
    scalars)."""
    vals = xs[0]._session.fetch([x._handle for x in xs])
    return [v[()] if v.ndim == 0 else v for v in vals]


def fetch_items(*xs: ndarray) -> list[Any]:
    """The values of 0-d server arrays as Python scalars, in one sync."""
    return [v.item() for v in xs[0]._session.fetch([x._handle for x in xs])]


def const(s: _sess.Session, value: Any, dtype: Any) -> ndarray:
    """A 0-d array holding ``value`` as ``dtype`` (cached per session)."""
    dt = _dtypes.normalize(dtype)
    return scalar(s, np.array(value, dtype=dt).item(), dt)


def upload(s: _sess.Session, arr: Any, dtype: Any = None) -> ndarray:
    return asarray_in(s, np.asarray(arr, dtype=dtype))


def dtype_key(x: Any) -> Any:
    """The operand as NumPy's result_type sees it (weak Python scalars)."""
    if isinstance(x, ndarray):
        return x._dtype
    if type(x) in (int, float, complex, bool):
        return x
    return np.asarray(x).dtype


def where(cond: ndarray, x: Any, y: Any) -> ndarray:
    """numpy.where(cond, x, y) with NumPy's promotion (NEP 50)."""
    s = session_of(cond, x, y)
    rdt = np.result_type(dtype_key(x), dtype_key(y))
    ops = []
    for v in (x, y):
        if isinstance(v, ndarray):
            ops.append(v)
        elif type(v) in (int, float, complex, bool):
            ops.append(const(s, v, rdt))
        else:
            ops.append(asarray_in(s, v))
    c = asarray_in(s, cond)
    shape = _shapes.broadcast(c._shape, ops[0]._shape, ops[1]._shape)
    return new(s, "where", (c, ops[0], ops[1]), shape, rdt,
               strides=elementwise_strides((c, *ops), shape, rdt))


def take(a: ndarray, idx: ndarray, axis: int | None = None) -> ndarray:
    """numpy.take(a, idx, axis) on the server (idx: an integer array)."""
    s = a._session
    if axis is None:
        return new(s, "take", (a, idx), idx._shape, a._dtype)
    ax = normalize_axis_index(axis, a.ndim)
    shape = a._shape[:ax] + idx._shape + a._shape[ax + 1:]
    return new(s, "take", (a, idx), shape, a._dtype, {"axis": ax})


def flatnonzero(mask: ndarray) -> ndarray:
    """Flat indices of the true elements (a sync: the count is needed)."""
    m = mask if mask._dtype == BOOL else mask.astype(BOOL)
    count = int(m.sum().get()) if m.size else 0
    return new(mask._session, "flatnonzero", (m,), (count,), INT64,
               {"count": count})


def concatenate(arrays: Sequence[ndarray], axis: int = 0) -> ndarray:
    """numpy.concatenate of same-session arrays (empty + setitem)."""
    s = arrays[0]._session
    nd = arrays[0].ndim
    ax = normalize_axis_index(axis, nd)
    dt = np.result_type(*[a._dtype for a in arrays])
    shape = list(arrays[0]._shape)
    shape[ax] = 0
    for a in arrays:
        if a.ndim != nd or any(a._shape[d] != arrays[0]._shape[d]
                               for d in range(nd) if d != ax):
            raise ValueError("all the input array dimensions except for the "
                             "concatenation axis must match exactly")
        shape[ax] += a._shape[ax]
    out = new(s, "empty", (), tuple(shape), dt,
              {"shape": list(shape), "dtype": dt})
    pos = 0
    for a in arrays:
        n = a._shape[ax]
        if n:
            key = (slice(None),) * ax + (slice(pos, pos + n),)
            out[key] = a
        pos += n
    return out


def moveaxes_last(a: ndarray, axes: tuple[int, ...]) -> ndarray:
    """a with ``axes`` (normalized) moved to the end, in that order."""
    rest = [d for d in range(a.ndim) if d not in axes]
    perm = rest + list(axes)
    if perm == list(range(a.ndim)):
        return a
    return a.transpose(perm)


def merge_last(a: ndarray, k: int) -> ndarray:
    """a with its last k axes merged into one."""
    n = 1
    for d in a._shape[a.ndim - k:]:
        n *= d
    return a.reshape(a._shape[:a.ndim - k] + (n,))


def diagonal(a: ndarray, offset: int = 0, axis1: int = 0,
             axis2: int = 1) -> ndarray:
    """numpy.diagonal (a copy): the diagonal becomes the last axis."""
    nd = a.ndim
    if nd < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1 = normalize_axis_index(axis1, nd)
    a2 = normalize_axis_index(axis2, nd)
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    t = moveaxes_last(a, (a1, a2))
    n, m = t._shape[-2], t._shape[-1]
    if offset >= 0:
        k = max(0, min(n, m - offset))
        pos = np.arange(k) * (m + 1) + offset
    else:
        k = max(0, min(n + offset, m))
        pos = np.arange(k) * (m + 1) - offset * m
    flat = merge_last(t, 2)
    return take(flat, upload(a._session, pos, np.int64), axis=-1)


def assign(out: Any, value: ndarray, name: str) -> ndarray:
    """Writes ``value`` into ``out`` (NumPy's out=: shape and same_kind)."""
    if type(out) is tuple:
        if len(out) != 1:
            raise ValueError(f"{name} has 1 output, got {len(out)}")
        out = out[0]
    if not isinstance(out, ndarray) or out._session is not value._session:
        raise TypeError("out must be an arrayd.ndarray of the same session")
    if out._shape != value._shape:
        try:
            ok = np.broadcast_shapes(out._shape, value._shape) == out._shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"non-broadcastable output operand with shape "
                             f"{out._shape} doesn't match the broadcast "
                             f"shape {value._shape}")
    if not np.can_cast(value._dtype, out._dtype, "same_kind"):
        raise TypeError(f"Cannot cast {name} output from {value._dtype!r} to "
                        f"{out._dtype!r} with casting rule 'same_kind'")
    out[...] = value
    return out


def ensure(x: Any, s: _sess.Session | None = None) -> ndarray:
    """x as an arrayd array (array-likes uploaded)."""
    return asarray_in(s if s is not None else session_of(x), x)


def zero_size_result(fn: Any, a: ndarray, *args: Any, **kw: Any) -> ndarray:
    """For a zero-size input: NumPy on a data-less stand-in, uploaded."""
    with np.errstate(all="ignore"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            r = fn(np.zeros(a._shape, a._dtype), *args, **kw)
    return asarray_in(a._session, np.asarray(r))
