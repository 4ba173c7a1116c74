"""Inserting, deleting, selecting and putting: append delete insert resize
trim_zeros select piecewise choose extract place putmask put_along_axis
copyto apply_along_axis apply_over_axes lexsort sort_complex packbits
unpackbits fix astype.

Data moves on the server (take, put, where, setitem, sort); the host
computes only index plans from shapes and from index arguments the caller
gave on the host (delete's and insert's obj, slices). Result sizes that
depend on data (extract, place, trim_zeros, delete with a server mask) are
read with one sync, as nonzero does. Where NumPy raises at the call for a
bad index held on the server (choose's mode='raise', delete's and insert's
obj), its extreme values are read once, in the same way. NumPy itself runs
on one-element or empty probes for dtypes, casting rules and errors.

numpy.msort is gone from NumPy 2, so arrayd has none.

Layer: functions (imports the core, _composite, _creation, _math,
_reduction, _indexing, _manipulation and _sorting). Attaches
ndarray.choose.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Callable

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from arrayd import _composite as _c
from arrayd import _dtypes, _indexing, _manipulation, _sorting
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd._ndarray import asarray_in, attach, ndarray, session_of

__all__ = [
    "append", "apply_along_axis", "apply_over_axes", "astype", "choose",
    "copyto", "delete", "extract", "fix", "insert", "lexsort", "packbits",
    "piecewise", "place", "put_along_axis", "putmask", "resize", "select",
    "sort_complex", "trim_zeros", "unpackbits",
]

_INT64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
_UINT8 = np.dtype(np.uint8)
_WEAK = (int, float, complex, bool)


def _at(axis: int, key: Any) -> tuple[Any, ...]:
    return (slice(None),) * axis + (key,)








def _probe(v: Any) -> Any:
    """What NumPy's dtype rules see of v, without its data: Python
    scalars (weak) and NumPy scalars as they are, arrays as 1 element."""
    if type(v) in _WEAK or isinstance(v, np.generic):
        return v
    dt = v.dtype if isinstance(v, ndarray) else np.asarray(v).dtype
    return np.zeros(1, dt)


def _cast_const(s: Any, value: Any, dt: np.dtype) -> ndarray:
    """A Python scalar cast to dt as NumPy's assignments do (unsafe:
    300 -> int8 wraps)."""
    return _c.const(s, np.asarray(value).astype(dt), dt)


def _require_array(a: Any, name: str) -> ndarray:
    if not isinstance(a, ndarray):
        raise TypeError(f"{name}() argument 1 must be arrayd.ndarray, not "
                        f"{type(a).__name__}")
    return a


def _in_place_where(dst: ndarray, mask: ndarray, value: ndarray) -> None:
    """dst = where(mask, value, dst), written into dst (views too)."""
    s = dst._session
    if mask._shape != dst._shape:
        mask = mask.view_as_broadcast(dst._shape)
    if value._shape != dst._shape:
        value = value.view_as_broadcast(dst._shape)
    s.record("where", (mask._handle, value._handle, dst._handle),
             (dst._handle,))


# -- appending, inserting, deleting, resizing --------------------------------

def append(arr: Any, values: Any, axis: Any = None) -> ndarray:
    """numpy.append: arr and values concatenated (flattened if axis None)."""
    s = session_of(arr, values)
    a = asarray_in(s, arr)
    v = asarray_in(s, values)
    if axis is None:
        a, v, axis = a.reshape(-1), v.reshape(-1), 0
    return _manipulation.concatenate([a, v], axis=axis)


def _axis_of(a: ndarray, axis: Any) -> tuple[ndarray, int]:
    if axis is None:
        return a.reshape(-1), 0
    return a, normalize_axis_index(axis, a.ndim)


def delete(arr: Any, obj: Any, axis: Any = None) -> ndarray:
    """numpy.delete: arr without the entries obj (ints, a slice, a mask)
    along axis (the flattened array if None)."""
    s = session_of(arr, obj)
    a, ax = _axis_of(asarray_in(s, arr), axis)
    n = a.shape[ax]
    if isinstance(obj, ndarray):
        keep = _server_keep(s, obj, n, ax)
        return _c.take(a, _c.flatnonzero(keep), axis=ax)
    keep_h = np.ones(n, dtype=bool)
    if isinstance(obj, slice):
        keep_h[obj] = False
    elif isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
        if not -n <= obj < n:
            raise IndexError(f"index {obj} is out of bounds for axis {ax} "
                             f"with size {n}")
        keep_h[obj] = False
    else:
        o = np.asarray(obj)
        if o.size == 0 and not isinstance(obj, np.ndarray):
            o = o.astype(np.intp)
        if o.dtype == bool:
            if o.shape != (n,):
                raise ValueError("boolean array argument obj to delete "
                                 "must be one dimensional and match the "
                                 f"axis length of {n}")
            keep_h = ~o
        else:
            keep_h[o,] = False  # NumPy's IndexError and dtype checks
    if keep_h.all():
        return a.copy()
    return _c.take(a, _c.upload(s, np.flatnonzero(keep_h)), axis=ax)


def _extremes(x: ndarray) -> tuple[Any, Any]:
    """x's min and max (one sync)."""
    lo, hi = _r.min(x), _r.max(x)  # held until fetched: no early free
    return tuple(v.item() for v in x._session.fetch([lo._handle,
                                                     hi._handle]))


def _check_server_indices(idx: ndarray, n: int, ax: int,
                          hi: int | None = None) -> None:
    """NumPy's IndexError for indices outside [-n, hi) (one sync)."""
    if idx.size == 0:
        return
    hi = n if hi is None else hi
    lo_v, hi_v = _extremes(idx)
    bad = lo_v if lo_v < -n else hi_v if hi_v >= hi else None
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for axis {ax} "
                         f"with size {n}")


def _server_keep(s: Any, obj: ndarray, n: int, ax: int) -> ndarray:
    """The keep-mask of delete for indices or a mask on the server."""
    if obj.dtype == _BOOL:
        if obj.shape != (n,):
            raise ValueError("boolean array argument obj to delete must be "
                             "one dimensional and match the axis length "
                             f"of {n}")
        return _m.logical_not(obj)
    if obj.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or "
                         "boolean) type")
    _check_server_indices(obj, n, ax)
    keep = _c.new(s, "full", (), (n,), _BOOL,
                  {"shape": [n], "dtype": _BOOL, "value": 1})
    if obj.size:
        keep[obj.reshape(-1)] = False
    return keep


def insert(arr: Any, obj: Any, values: Any, axis: Any = None) -> ndarray:
    """numpy.insert: values inserted before the indices obj along axis
    (the flattened array if None)."""
    s = session_of(arr, obj, values)
    a, ax = _axis_of(asarray_in(s, arr), axis)
    n = a.shape[ax]
    if isinstance(obj, ndarray):
        return _insert_server(a, obj, values, ax)
    if isinstance(obj, slice):
        idx = np.arange(*obj.indices(n), dtype=np.intp)
    else:
        idx = np.array(obj)
        if idx.dtype == bool:
            if idx.ndim != 1:
                raise ValueError("boolean array argument obj to insert must "
                                 "be one dimensional")
            idx = np.flatnonzero(idx)
        elif idx.ndim > 1:
            raise ValueError("index array argument obj to insert must be "
                             "one dimensional or scalar")
    if idx.size == 1:
        index = idx.item()
        if index < -n or index > n:
            raise IndexError(f"index {obj} is out of bounds for axis {ax} "
                             f"with size {n}")
        if index < 0:
            index += n
        v = _values_ndmin(s, values, a)
        if idx.ndim == 0:
            v = _manipulation.moveaxis(v, 0, ax)
        k = v.shape[ax]
        shape = a.shape[:ax] + (n + k,) + a.shape[ax + 1:]
        new = _c.empty(s, shape, a.dtype)
        if index:
            new[_at(ax, slice(None, index))] = a[_at(ax, slice(None, index))]
        if k:
            new[_at(ax, slice(index, index + k))] = v
        if n - index:
            new[_at(ax, slice(index + k, None))] = a[_at(ax, slice(index,
                                                                   None))]
        return new
    if idx.size == 0 and not isinstance(obj, np.ndarray):
        idx = idx.astype(np.intp)
    idx = np.where(idx < 0, idx + n, idx)  # NumPy's dtype errors below
    k = len(idx)
    order = np.argsort(idx, kind="stable")
    idx[order] += np.arange(k)
    old = np.ones(n + k, dtype=bool)
    old[idx] = False  # NumPy's IndexError
    shape = a.shape[:ax] + (n + k,) + a.shape[ax + 1:]
    new = _c.empty(s, shape, a.dtype)
    new[_at(ax, idx)] = values
    if n:
        new[_at(ax, np.flatnonzero(old))] = a
    return new


def _values_ndmin(s: Any, values: Any, a: ndarray) -> ndarray:
    """values as a's dtype with at least a.ndim dimensions."""
    if isinstance(values, ndarray):
        v = values if values.dtype == a.dtype else values.astype(a.dtype)
    else:
        v = asarray_in(s, np.array(values, dtype=a.dtype))
    if v.ndim < a.ndim:
        v = v.reshape((1,) * (a.ndim - v.ndim) + v.shape)
    return v


def _insert_server(a: ndarray, obj: ndarray, values: Any,
                   ax: int) -> ndarray:
    """insert for indices (or a mask) that live on the server: NumPy's
    plan of sorted positions, built with server sort and put."""
    s = a._session
    n = a.shape[ax]
    if obj.dtype == _BOOL:
        if obj.ndim != 1:
            raise ValueError("boolean array argument obj to insert must be "
                             "one dimensional")
        idx = _c.flatnonzero(obj)
    elif obj.dtype.kind in "iu":
        if obj.ndim > 1:
            raise ValueError("index array argument obj to insert must be "
                             "one dimensional or scalar")
        idx = obj.astype(_INT64)
    else:
        raise IndexError("arrays used as indices must be of integer (or "
                         "boolean) type")
    _check_server_indices(idx, n, ax, n + 1)
    single = idx.size == 1
    if single:
        v = _values_ndmin(s, values, a)
        if idx.ndim == 0:
            v = _manipulation.moveaxis(v, 0, ax)
        values = v
        k = v.shape[ax]
        idx = idx.reshape(1).view_as_broadcast((k,))
    idx = idx.reshape(-1)
    k = idx.size
    idx = _c.where(_m.less(idx, 0), _m.add(idx, n), idx)
    order = _sorting.argsort(idx)
    pos = _c.empty(s, (k,), _INT64)
    if k:
        shifted = _m.add(_c.take(idx, order), _c.arange(s, k))
        s.record("put", (pos._handle, order._handle, shifted._handle), ())
    old = _c.new(s, "full", (), (n + k,), _BOOL,
                 {"shape": [n + k], "dtype": _BOOL, "value": 1})
    if k:
        old[pos] = False
    shape = a.shape[:ax] + (n + k,) + a.shape[ax + 1:]
    new = _c.empty(s, shape, a.dtype)
    if k:
        new[_at(ax, pos)] = values
    if n:
        rest = _c.new(s, "flatnonzero", (old,), (n,), _INT64, {"count": n})
        new[_at(ax, rest)] = a
    return new


def resize(a: Any, new_shape: Any) -> ndarray:
    """numpy.resize: a's elements repeated (C order) to fill new_shape."""
    if isinstance(new_shape, (int, np.integer)):
        new_shape = (new_shape,)
    shape = tuple(operator.index(d) for d in new_shape)
    if any(d < 0 for d in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    x = asarray_in(session_of(a), a).reshape(-1)
    s = x._session
    size = math.prod(shape)
    if x.size == 0 or size == 0:
        return _c.zeros(s, shape, x.dtype)
    pos = _m.remainder(_c.arange(s, size), x.size)
    return _c.take(x, pos).reshape(shape)


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> ndarray:
    """numpy.trim_zeros: the smallest slice holding every nonzero element,
    trimmed in front ('f') and/or back ('b'), along axis (all if None).
    One sync reads the bounds."""
    a = asarray_in(session_of(filt), filt)
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    axes = (tuple(range(a.ndim)) if axis is None
            else normalize_axis_tuple(axis, a.ndim, argname="axis"))
    if not axes:  # no trimming asked: the input itself, as NumPy
        return a
    if a.size == 0:  # no nonzero element: empty along the trimmed axes
        return a[tuple(slice(0, 0) if d in axes else slice(None)
                       for d in range(a.ndim))]
    nz = _m.not_equal(a, 0)
    found, firsts, lasts = [], [], []
    for ax in axes:
        others = tuple(d for d in range(a.ndim) if d != ax)
        m = _r.any(nz, others) if others else nz
        found.append(_r.any(m))
        firsts.append(_r.argmax(m))
        lasts.append(_r.argmax(m[::-1]))
    vals = [v.item() for v in a._session.fetch(
        [x._handle for x in found + firsts + lasts])]
    k = len(axes)
    key: list[Any] = [slice(None)] * a.ndim
    for j, ax in enumerate(axes):
        if not vals[0]:
            key[ax] = slice(0, 0)  # all zero: empty along each trimmed axis
            continue
        start = vals[k + j] if "f" in trim else None
        stop = a.shape[ax] - vals[2 * k + j] if "b" in trim else None
        key[ax] = slice(start, stop)
    return a[tuple(key)]


# -- selecting -------------------------------------------------------------

def select(condlist: Any, choicelist: Any, default: Any = 0) -> ndarray:
    """numpy.select: per element, the choice of the first true condition
    (default where none is)."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of "
                         "conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not "
                         "possible")
    s = session_of(*condlist, *choicelist, default)
    choices = list(choicelist) + [default]
    try:
        dt = _dtypes.normalize(np.result_type(*[_probe(c) for c in choices]))
    except TypeError as e:
        raise TypeError("Choicelist and default value do not have a common "
                        f"dtype: {e}") from None
    conds = [asarray_in(s, c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != _BOOL:
            raise TypeError(f"invalid entry {i} in condlist: should be "
                            "boolean ndarray")
    vals = []
    for c in choices:
        if type(c) in _WEAK:
            vals.append(_cast_const(s, c, dt))
        else:
            v = asarray_in(s, c)
            vals.append(v if v.dtype == dt else v.astype(dt))
    cshape = np.broadcast_shapes(*(c.shape for c in conds))
    vshape = np.broadcast_shapes(*(v.shape for v in vals))
    shape = np.broadcast_shapes(cshape, vshape)
    res = vals[-1]
    for c, v in zip(conds[::-1], vals[-2::-1]):
        res = _c.where(c, v, res)  # a new array: at least one condition
    if res.shape != shape:
        res = res.view_as_broadcast(shape).copy()
    return res


def _cond_stack(s: Any, condlist: Any, x: ndarray) -> ndarray:
    """piecewise's condlist as one bool array (conditions first)."""
    if isinstance(condlist, ndarray):
        return condlist if condlist.dtype == _BOOL else condlist.astype(
            _BOOL)
    if isinstance(condlist, np.ndarray):
        return asarray_in(s, condlist.astype(bool))
    conds = [asarray_in(s, c) for c in condlist]
    conds = [c if c.dtype == _BOOL else c.astype(_BOOL) for c in conds]
    return _manipulation.stack(conds)


def piecewise(x: Any, condlist: Any, funclist: Any, *args: Any,
              **kw: Any) -> ndarray:
    """numpy.piecewise: funclist[i] (a value, or a function of the
    selected elements) where condlist[i] holds; 0 elsewhere."""
    s = session_of(x, *(condlist if isinstance(condlist, (list, tuple))
                        else [condlist]))
    xa = asarray_in(s, x)
    n2 = len(funclist)
    if np.isscalar(condlist) or (
            not isinstance(condlist[0], (list, np.ndarray, ndarray))
            and xa.ndim != 0):
        condlist = [condlist]
    conds = _cond_stack(s, condlist, xa)
    n = conds.shape[0] if conds.ndim else 1
    if n == n2 - 1:  # the "otherwise" condition
        other = _m.logical_not(_r.any(conds, 0, keepdims=True))
        conds = _manipulation.concatenate([conds, other], axis=0)
        n += 1
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} "
                         "functions are expected")
    y = _c.zeros(s, xa.shape, xa.dtype)
    for i, func in enumerate(funclist):
        cond = conds[i]
        if callable(func):
            vals = xa[cond]
            if vals.size > 0:
                y[cond] = func(vals, *args, **kw)
            continue
        if isinstance(func, ndarray):
            v = func if func.dtype == y.dtype else func.astype(y.dtype)
        else:
            v = asarray_in(s, np.array(func).astype(y.dtype))
        if v.size == 1 and cond.shape in ((), y.shape):
            y = _c.where(cond, v.reshape(()), y)
        else:
            y[cond] = v
    return y


def _check_mode(mode: str) -> None:
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or "
                         f"'wrap' (got {mode!r})")


def choose(a: Any, choices: Any, out: Any = None,
           mode: str = "raise") -> ndarray:
    """numpy.choose: choices[a[i]][i] for every i (a and the choices
    broadcast together)."""
    _check_mode(mode)
    if isinstance(choices, ndarray):
        choices = list(choices)
    choices = list(choices)
    s = session_of(a, out, *choices)
    idx = asarray_in(s, a)
    # NumPy's dtype rules and errors (index dtype, common choice dtype).
    probe = np.choose(np.zeros(1, idx.dtype), [_probe(c) for c in choices],
                      mode=mode)
    dt = _dtypes.normalize(probe.dtype)
    cs = []
    for c in choices:
        if type(c) in _WEAK:
            cs.append(_cast_const(s, c, dt))
        else:
            v = asarray_in(s, c)
            cs.append(v if v.dtype == dt else v.astype(dt))
    shape = np.broadcast_shapes(idx.shape, *(c.shape for c in cs))
    k = len(cs)
    if idx.dtype != _INT64:
        idx = idx.astype(_INT64)
    if mode == "raise":
        if idx.size and math.prod(shape):
            lo, hi = _extremes(idx)
            if lo < 0 or hi >= k:
                raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        idx = _m.remainder(idx, k)
    else:
        idx = _m.minimum(_m.maximum(idx, 0), k - 1)
    if out is not None:
        if not isinstance(out, ndarray) or out.shape != shape:
            raise ValueError("choose: invalid shape for output array.")
    if math.prod(shape) == 0:
        res = _c.empty(s, shape, dt)
    else:
        stacked = _c.empty(s, (k,) + shape, dt)
        for i, c in enumerate(cs):
            stacked[i] = c
        ib = idx if idx.shape == shape else idx.view_as_broadcast(shape)
        res = _c.new(s, "take_along_axis",
                     (stacked, ib.reshape((1,) + shape)), (1,) + shape, dt,
                     {"axis": 0}).reshape(shape)
    if out is not None:
        out[...] = res
        return out
    return res


def _choose_method(self: ndarray, choices: Any, out: Any = None,
                   mode: str = "raise") -> ndarray:
    """An array from `choices` picked by this index array
    (numpy.ndarray.choose)."""
    return choose(self, choices, out, mode)


def extract(condition: Any, arr: Any) -> ndarray:
    """numpy.extract: the elements of the flattened arr where the
    flattened condition is true (one sync)."""
    s = session_of(condition, arr)
    c = asarray_in(s, condition).reshape(-1)
    x = asarray_in(s, arr).reshape(-1)
    return _c.take(x, _c.flatnonzero(c))


# -- putting -----------------------------------------------------------------

def place(arr: Any, mask: Any, vals: Any) -> None:
    """numpy.place: arr's elements where mask is true take vals in turn
    (repeated as needed); in place. One sync (the number of them)."""
    a = _require_array(arr, "place")
    s = a._session
    m = asarray_in(s, mask)
    if m.size != a.size:
        raise ValueError("place: mask and data must be the same size")
    v = asarray_in(s, vals).reshape(-1)
    np.place(np.zeros(1, a.dtype), np.zeros(1, bool),
             np.zeros(1, v.dtype))  # NumPy's casting rule ('safe')
    pos = _c.flatnonzero(m.reshape(-1))
    if pos.size == 0:
        return
    if v.size == 0:
        raise ValueError("Cannot insert from an empty array!")
    if v.dtype != a.dtype:
        v = v.astype(a.dtype)
    s.record("put", (a._handle, pos._handle, v._handle), ())


def putmask(a: Any, mask: Any, values: Any) -> None:
    """numpy.putmask: a.flat[i] = values.flat[i % values.size] where mask
    is true; in place, no sync."""
    a = _require_array(a, "putmask")
    s = a._session
    m = asarray_in(s, mask)
    if m.size != a.size:
        raise ValueError("putmask: mask and data must be the same size")
    np.putmask(np.zeros(1, a.dtype), np.zeros(1, bool),
               _probe(values))  # NumPy's casting rule and error
    if type(values) in _WEAK:
        v = _c.const(s, values, a.dtype)
    else:
        v = asarray_in(s, values)
        if v.size == 0 or a.size == 0:
            return
        if v.dtype != a.dtype:
            v = v.astype(a.dtype)
        if v.size == 1:
            v = v.reshape(())
        elif v.shape != a.shape:
            pos = _m.remainder(_c.arange(s, a.size), v.size)
            v = _c.take(v.reshape(-1), pos).reshape(a.shape)
    if a.size == 0:
        return
    if m.dtype != _BOOL:
        m = m.astype(_BOOL)
    _in_place_where(a, m.reshape(a.shape), v)


def put_along_axis(arr: Any, indices: Any, values: Any, axis: Any) -> None:
    """numpy.put_along_axis: arr[..., indices, ...] = values along axis
    (flat positions if axis is None); in place."""
    a = _require_array(arr, "put_along_axis")
    # Host indices stay on the host: setitem checks them at once.
    idx = indices if isinstance(indices, ndarray) else np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if idx.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single "
                             "dimension.")
        _indexing.put(a, idx, values)
        return
    if not isinstance(idx, ndarray):
        idx = idx.astype(np.intp, copy=False)
    ax = normalize_axis_index(axis, a.ndim)
    if idx.ndim != a.ndim:
        raise ValueError("`indices` and `arr` must have the same number of "
                         "dimensions")
    key: list[Any] = []
    for d in range(a.ndim):
        if d == ax:
            key.append(idx)
        else:
            shp = [1] * a.ndim
            shp[d] = a.shape[d]
            key.append(np.arange(a.shape[d]).reshape(shp))
    a[tuple(key)] = values


def copyto(dst: Any, src: Any, casting: str = "same_kind",
           where: Any = True) -> None:
    """numpy.copyto: dst[...] = src (broadcast, cast by ``casting``),
    only where ``where`` holds; in place."""
    if not isinstance(dst, ndarray):
        raise TypeError(f"copyto() argument 1 must be arrayd.ndarray, not "
                        f"{type(dst).__name__}")
    s = dst._session
    # NumPy's casting rules (NEP 50 for Python scalars) and where's dtype.
    np.copyto(np.zeros(1, dst.dtype), _probe(src), casting=casting,
              where=_probe(where))
    if type(src) is int:  # out of dst's range: NumPy's OverflowError
        v = _c.const(s, src, dst.dtype)
    elif type(src) in _WEAK:
        v = _cast_const(s, src, dst.dtype)
    else:
        v = asarray_in(s, src)
        if isinstance(src, np.generic):
            v = v.reshape(())
        stripped = _indexing.assignable_shape(v.shape, dst.shape)
        if stripped is None:
            raise ValueError(f"could not broadcast input array from shape "
                             f"{v.shape} into shape {dst.shape}")
        if stripped != v.shape:
            v = v.reshape(stripped)
        if v.dtype != dst.dtype:
            v = v.astype(dst.dtype)
    if type(where) in _WEAK or isinstance(where, np.bool_):
        if where and dst.size:
            dst[...] = v
        return
    w = asarray_in(s, where)
    if w.dtype != _BOOL:
        w = w.astype(_BOOL)
    if np.broadcast_shapes(w.shape, dst.shape) != dst.shape:
        raise ValueError(f"could not broadcast where mask from shape "
                         f"{w.shape} into shape {dst.shape}")
    if dst.size:
        _in_place_where(dst, w, v)


# -- applying functions ------------------------------------------------------

def _as_result(s: Any, r: Any) -> ndarray:
    """A func1d result as an arrayd array (sequences of arrays stacked)."""
    if isinstance(r, ndarray):
        return r
    if isinstance(r, (list, tuple)) and any(isinstance(e, ndarray)
                                           for e in r):
        return _manipulation.stack([asarray_in(s, e) for e in r])
    return asarray_in(s, np.asarray(r))


def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: Any,
                     *args: Any, **kwargs: Any) -> ndarray:
    """numpy.apply_along_axis: func1d on every 1-D slice along axis, the
    results laid out where the axis was."""
    a = asarray_in(session_of(arr), arr)
    s = a._session
    nd = a.ndim
    ax = normalize_axis_index(axis, nd)
    rest = [d for d in range(nd) if d != ax]
    view = a.transpose(rest + [ax])
    outer = view.shape[:-1]
    it = iter(np.ndindex(*outer))
    try:
        first = next(it)
    except StopIteration:
        raise ValueError("Cannot apply_along_axis when any iteration "
                         "dimensions are 0") from None
    res = _as_result(s, func1d(view[first], *args, **kwargs))
    buff = _c.zeros(s, outer + res.shape, res.dtype)
    buff[first] = res
    for ind in it:
        buff[ind] = _as_result(s, func1d(view[ind], *args, **kwargs))
    dims = list(range(buff.ndim))
    k = res.ndim
    perm = dims[:ax] + dims[buff.ndim - k:] + dims[ax:buff.ndim - k]
    return buff.transpose(perm)


def apply_over_axes(func: Callable[..., Any], a: Any, axes: Any) -> ndarray:
    """numpy.apply_over_axes: func(a, axis) for each axis in turn, keeping
    the number of dimensions."""
    val = asarray_in(session_of(a), a)
    nd = val.ndim
    if np.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        if axis < 0:
            axis = nd + axis
        res = func(val, axis)
        if res.ndim != val.ndim:
            res = _manipulation.expand_dims(res, axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the "
                                 "correct shape")
        val = res
    return val


# -- sorting -----------------------------------------------------------------

def lexsort(keys: Any, axis: int = -1) -> ndarray:
    """numpy.lexsort: the stable order by the last key, then the one before
    it, ... (argsorts composed on the server)."""
    if isinstance(keys, ndarray):
        if keys.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        ks = list(keys)
    elif isinstance(keys, (list, tuple)):
        ks = list(keys)
    else:
        ks = list(np.asarray(keys))  # host keys: one row each
    if not ks:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    s = session_of(*ks)
    ks = [asarray_in(s, k) for k in ks]
    shape = ks[0].shape
    if any(k.shape != shape for k in ks):
        raise ValueError("all keys need to be the same shape")
    if not shape:
        np.lexsort([np.zeros((), k.dtype) for k in ks], axis=axis)
        return _c.zeros(s, (), _INT64)
    ax = normalize_axis_index(axis, len(shape))
    perm = _sorting.argsort(ks[0], axis=ax)
    for k in ks[1:]:
        o = _sorting.argsort(_indexing.take_along_axis(k, perm, ax), axis=ax)
        perm = _indexing.take_along_axis(perm, o, ax)
    return perm


def sort_complex(a: Any) -> ndarray:
    """numpy.sort_complex: sorted along the last axis, as complex (complex64
    for 8- and 16-bit integers, complex128 otherwise)."""
    b = _sorting.sort(asarray_in(session_of(a), a), axis=-1)
    if b.dtype.kind == "c":
        return b
    return b.astype(np.complex64 if b.dtype.char in "bhBH"
                    else np.complex128)


# -- bits ----------------------------------------------------------------------

def _bit_weights(s: Any, little: bool) -> ndarray:
    """[128, 64, ..., 1] (big) or [1, 2, ..., 128] (little) as uint8."""
    shifts = _c.arange(s, 8)
    if not little:
        shifts = _m.subtract(7, shifts)
    return _m.left_shift(_c.const(s, 1, _UINT8), shifts.astype(_UINT8))


def packbits(a: Any, axis: Any = None, bitorder: str = "big") -> ndarray:
    """numpy.packbits: the truth of a's elements packed 8 to a uint8 along
    axis (the flattened array if None), zero-padded at the end."""
    x = asarray_in(session_of(a), a)
    s = x._session
    np.packbits(np.zeros((1,) * x.ndim, x.dtype), axis=axis,
                bitorder=bitorder)  # NumPy's errors
    if axis is None:
        x, ax = x.reshape(-1), 0
    else:
        ax = normalize_axis_index(axis, x.ndim)
    t = _manipulation.moveaxis(x, ax, -1)
    n = t.shape[-1]
    m = -(-n // 8)
    bits = _m.not_equal(t, 0).astype(_UINT8)
    if 8 * m != n:
        pad = _c.zeros(s, t.shape[:-1] + (8 * m - n,), _UINT8)
        bits = _manipulation.concatenate([bits, pad], axis=-1)
    if bits.size == 0:
        packed = _c.zeros(s, t.shape[:-1] + (m,), _UINT8)
    else:
        bits = bits.reshape(t.shape[:-1] + (m, 8))
        w = _bit_weights(s, bitorder == "little")
        packed = _r.sum(_m.multiply(bits, w), -1, dtype=_UINT8)
    return _manipulation.moveaxis(packed, -1, ax)


def unpackbits(a: Any, axis: Any = None, count: Any = None,
               bitorder: str = "big") -> ndarray:
    """numpy.unpackbits: each uint8 of a as 8 bits (0 or 1) along axis (the
    flattened array if None); ``count`` keeps that many (negative: drops
    them from the end; more than there are: pads with zeros)."""
    x = asarray_in(session_of(a), a)
    s = x._session
    np.unpackbits(np.zeros((1,) * x.ndim, x.dtype), axis=axis,
                  bitorder=bitorder)  # NumPy's errors
    if axis is None:
        x, ax = x.reshape(-1), 0
    else:
        ax = normalize_axis_index(axis, x.ndim)
    t = _manipulation.moveaxis(x, ax, -1)
    n = 8 * t.shape[-1]
    if count is None:
        length = n
    else:
        count = operator.index(count)
        length = count if count >= 0 else n + count
        if length < 0:
            raise ValueError("-count larger than number of elements")
    if t.size == 0:
        bits = _c.zeros(s, t.shape[:-1] + (n,), _UINT8)
    else:
        w = _bit_weights(s, bitorder[0] == "l")  # NumPy reads 1 letter
        bits = _m.not_equal(_m.bitwise_and(t.reshape(t.shape + (1,)), w),
                            0).astype(_UINT8).reshape(t.shape[:-1] + (n,))
    if length < n:
        bits = bits[..., :length]
    elif length > n:
        pad = _c.zeros(s, t.shape[:-1] + (length - n,), _UINT8)
        bits = _manipulation.concatenate([bits, pad], axis=-1)
    return _manipulation.moveaxis(bits, -1, ax)


# -- elementwise -------------------------------------------------------------

def fix(x: Any, out: Any = None) -> ndarray:
    """numpy.fix: rounds toward zero (NumPy 2's fix is trunc)."""
    return _m.trunc(x, out=out)


def astype(x: Any, dtype: Any, /, *, copy: bool = True,
           device: Any = None) -> ndarray:
    """numpy.astype (Array API): x cast to dtype; copy=False returns x
    itself when its dtype already is dtype."""
    if isinstance(x, np.generic):
        x = asarray_in(session_of(), x)
    if not isinstance(x, ndarray):
        raise TypeError("Input should be an arrayd array or scalar. It is a "
                        f"{type(x)} instead.")
    if device is not None and device != getattr(x, "device", None):
        raise ValueError(f"Device not understood: {device!r} is not the "
                         "device of the array")
    return x.astype(dtype, copy=copy)


attach(choose=_choose_method)
