"""Index helpers: c_ r_ s_ index_exp mgrid ogrid ix_ indices ndindex,
diag/tril/triu/mask indices, ravel_multi_index, unravel_index,
fill_diagonal.

Index arrays are built on the server from arange, comparisons and integer
arithmetic; the host only does arithmetic on shapes and scalars (sizes of
grids, the number of elements of a triangle). NumPy's own functions run on
empty or one-element probes for dtypes and errors. Checking index ranges
(mode='raise' of ravel_multi_index, unravel_index) reads the extreme values
once, the one sync these functions make, so that NumPy's ValueError is
raised at the call.

s_, index_exp and ndindex hold no array data: they are NumPy's own.

Layer: functions (imports the core, _composite, _creation, _math,
_reduction, _indexing and _manipulation).
"""
from __future__ import annotations

import math
import operator
from typing import Any, Callable

import numpy as np

from arrayd import _composite as _c
from arrayd import _creation, _dtypes, _indexing, _manipulation
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd._ndarray import asarray_in, ndarray, session_of, shape_dummy

__all__ = [
    "c_", "diag_indices", "diag_indices_from", "fill_diagonal", "index_exp",
    "indices", "ix_", "mask_indices", "mgrid", "ndindex", "ogrid", "r_",
    "ravel_multi_index", "s_", "tril_indices", "tril_indices_from",
    "triu_indices", "triu_indices_from", "unravel_index",
]

_INT64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)

# Pure index-expression helpers (no data): NumPy's objects.
s_ = np.s_
index_exp = np.index_exp
ndindex = np.ndindex






def _along(v: ndarray, k: int, nd: int) -> ndarray:
    """1-D v as an nd-dimensional array along axis k."""
    return v.reshape((1,) * k + (v.size,) + (1,) * (nd - k - 1))




# -- grids -------------------------------------------------------------------

def indices(dimensions: Any, dtype: Any = int,
            sparse: bool = False) -> Any:
    """numpy.indices: the index of each position along each axis."""
    dims = tuple(operator.index(d) for d in dimensions)
    dt = _dtypes.normalize(dtype)
    nd = len(dims)
    full = shape_dummy((nd,) + dims).shape  # NumPy's errors for bad dims
    if dt == _BOOL and dims:
        np.arange(min(max(dims), 3), dtype=dt)  # NumPy's TypeError past 2
    vecs = [_creation.arange(d, dtype=_INT64) for d in dims]
    if sparse:
        return tuple(_along(v if v.dtype == dt else v.astype(dt), k, nd)
                     for k, v in enumerate(vecs))
    res = _creation.empty(full, dt)
    if res.size:
        for k, v in enumerate(vecs):
            res[k] = _along(v, k, nd)
    return res


def ix_(*args: Any) -> tuple[ndarray, ...]:
    """numpy.ix_: open-mesh index arrays from 1-D sequences (a boolean
    sequence stands for its nonzero positions: one sync)."""
    s = session_of(*args)
    nd = len(args)
    out = []
    for k, a in enumerate(args):
        if isinstance(a, ndarray):
            x = a
        else:
            arr = np.asarray(a)
            if not isinstance(a, np.ndarray) and arr.size == 0:
                arr = arr.astype(np.intp)
            x = asarray_in(s, arr)
        if x.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if x.dtype == _BOOL:
            (x,) = _indexing.nonzero(x)
        out.append(_along(x, k, nd))
    return tuple(out)


_COMPLEX_STEP = (complex, np.complexfloating)
_ONLY_0D = "only 0-dimensional arrays can be converted to Python scalars"


def _grid_dtype_key(v: Any) -> Any:
    """A grid bound as NumPy's result_type sees it (arrays by dtype)."""
    return v.dtype if isinstance(v, ndarray) else v


def _grid_shape(v: Any) -> tuple[int, ...]:
    return tuple(v.shape) if isinstance(v, (ndarray, np.ndarray)) else ()


def _grid_operand(s: Any, v: Any) -> Any:
    """A bound or step for the server's arithmetic: NumPy arrays uploaded,
    scalars kept (weak or typed, as NumPy has them)."""
    return asarray_in(s, v) if isinstance(v, np.ndarray) else v


def _grid_host(*vals: Any) -> list[Any]:
    """vals with arrays as NumPy scalars, as NumPy's scalar conversion does
    (0-d only: TypeError otherwise); one sync for the arrayd ones."""
    for v in vals:
        if isinstance(v, (ndarray, np.ndarray)) and v.ndim:
            raise TypeError(_ONLY_0D)
    dev = [v for v in vals if isinstance(v, ndarray)]
    got = iter(session_of(*dev).fetch([v._handle for v in dev])
               if dev else ())
    return [next(got)[()] if isinstance(v, ndarray)
            else v[()] if isinstance(v, np.ndarray) else v for v in vals]


def _grid_spacing(s: Any, start: Any, stop: Any, n: int) -> Any:
    """The spacing of n points from start to stop (1 for one point): on
    the server for array bounds, in Python for scalars, as NumPy."""
    if n == 1:
        return 1
    if isinstance(start, ndarray) or isinstance(stop, (ndarray, np.ndarray)):
        return _m.true_divide(_m.subtract(_grid_operand(s, stop), start),
                              float(n - 1))
    return (stop - start) / float(n - 1)


def _shape_text(shape: tuple[int, ...]) -> str:
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1
                                               else "") + ")"


def _grid_broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of a ufunc on shapes a and b, with NumPy's ValueError."""
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        raise ValueError(f"operands could not be broadcast together with "
                         f"shapes {_shape_text(a)} {_shape_text(b)} ") \
            from None


def _grid_axis(v: ndarray, step: Any, start: Any) -> ndarray:
    """v * step + start (skipping a unit step and a zero start)."""
    if isinstance(step, ndarray) or not (type(step) is int and step == 1):
        v = _m.multiply(v, step)
    if isinstance(start, ndarray) or not (type(start) is int and start == 0):
        v = _m.add(v, start)
    return v


class _Grid:
    """mgrid (dense) and ogrid (sparse): slices to coordinate arrays.

    As NumPy's: a complex step is a number of points with the stop
    included; start and stop (and the step) may be arrays, which broadcast
    against each axis's points (dense: against the whole grid, whose shape
    the result keeps; sparse: the array's axes follow the grid's). A key
    that is not a sequence of slices goes to the single-slice form, with
    NumPy's errors."""

    def __init__(self, sparse: bool):
        self._sparse = sparse

    def __len__(self) -> int:
        return 0

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return self._one(key)
        try:
            return self._grid(key)
        except (IndexError, TypeError):  # NumPy's fallback, errors and all
            return self._one(key)

    def _grid(self, key: Any) -> Any:
        sizes = []
        weak: list[Any] = [0]
        for k in range(len(key)):
            kk = key[k]
            start = 0 if kk.start is None else kk.start
            step = 1 if kk.step is None else kk.step
            if isinstance(step, _COMPLEX_STEP):
                step = abs(step)
                sizes.append(int(step))
            else:
                lo, hi, st = _grid_host(start, kk.stop, step)
                sizes.append(math.ceil((hi - lo) / st))
            weak += [_grid_dtype_key(v) for v in (start, kk.stop, step)]
        typ = _dtypes.normalize(np.result_type(*weak))
        s = session_of(*[v for kk in key for v in (kk.start, kk.stop,
                                                   kk.step)])
        parts = []
        for kk in key:
            start = 0 if kk.start is None else _grid_operand(s, kk.start)
            step = 1 if kk.step is None else kk.step
            if isinstance(step, _COMPLEX_STEP):
                step = _grid_spacing(s, start, kk.stop, int(abs(step)))
            parts.append((start, _grid_operand(s, step)))
        nd = len(parts)
        if self._sparse:
            return self._open(s, parts, [max(n, 0) for n in sizes], typ)
        shape = shape_dummy(tuple(sizes)).shape  # NumPy's negative sizes
        for start, step in parts:  # NumPy's broadcasting errors
            b = _grid_broadcast(_grid_broadcast(shape, _grid_shape(step)),
                                _grid_shape(start))
            if b != shape:
                raise ValueError(f"could not broadcast input array from "
                                 f"shape {_shape_text(b)} into shape "
                                 f"{_shape_text(shape)}")
        res = _creation.empty((nd,) + shape, typ)
        if res.size:
            for k, ((start, step), n) in enumerate(zip(parts, shape)):
                v = _along(_creation.arange(n, dtype=typ), k, nd)
                res[k] = _grid_axis(v, step, start)
        return res

    @staticmethod
    def _open(s: Any, parts: list[tuple[Any, Any]], sizes: list[int],
              typ: np.dtype) -> tuple[ndarray, ...]:
        nd = len(parts)
        out = []
        for k, ((start, step), n) in enumerate(zip(parts, sizes)):
            b = _grid_broadcast(_grid_broadcast((n,), _grid_shape(step)),
                                _grid_shape(start))
            v = _grid_axis(_creation.arange(n, dtype=typ), step, start)
            # NumPy indexes v with None on every axis but k: v's first
            # axis goes to k, its others come last.
            out.append(v.reshape((1,) * k + b[:1] + (1,) * (nd - k - 1) +
                                 b[1:]))
        return tuple(out)

    @staticmethod
    def _one(key: Any) -> ndarray:
        step, stop, start = key.step, key.stop, key.start
        if start is None:
            start = 0
        if isinstance(step, _COMPLEX_STEP):
            step_float = abs(step)
            n = int(step_float)
            typ = _dtypes.normalize(np.result_type(
                _grid_dtype_key(start), _grid_dtype_key(stop), step_float))
            s = session_of(start, stop)
            start = _grid_operand(s, start)
            delta = _grid_spacing(s, start, stop, n)
            return _grid_axis(_creation.arange(n, dtype=typ), delta, start)
        for v in (start, stop, step):
            if isinstance(v, (ndarray, np.ndarray)) and v.size != 1:
                np.arange(np.zeros(min(v.size, 2)))  # NumPy's ValueError
        start, stop, step = _grid_host(start, stop, step)
        return _creation.arange(start, stop, step)


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


# -- r_ and c_ ---------------------------------------------------------------

class _Concatenator:
    """r_ and c_: index syntax that concatenates slices, scalars and
    arrays along an axis (NumPy's directives '0,2,0' as the first item)."""

    def __init__(self, axis: int, ndmin: int = 1, trans1d: int = -1):
        self._axis = axis
        self._ndmin = ndmin
        self._trans1d = trans1d

    def __len__(self) -> int:
        return 0

    def __getitem__(self, key: Any) -> ndarray:
        if isinstance(key, str):
            raise NotImplementedError("arrayd has no matrix class: "
                                      "r_/c_ matrix strings are not "
                                      "supported")
        if not isinstance(key, tuple):
            key = (key,)
        axis, ndmin, trans1d = self._axis, self._ndmin, self._trans1d
        s = session_of(*key)
        objs: list[Any] = []
        kinds: list[Any] = []  # dtypes, and the scalars themselves (weak)
        for k, item in enumerate(key):
            if isinstance(item, str):
                if k != 0:
                    raise ValueError("special directives must be the "
                                     "first entry.")
                axis, ndmin, trans1d = self._directive(item, axis, ndmin,
                                                       trans1d)
                continue
            if isinstance(item, slice):
                obj = self._range(item)
                if ndmin > 1:  # NumPy's array(obj, ndmin=ndmin)
                    obj = obj.reshape((1,) * (ndmin - obj.ndim) + obj.shape)
                    if trans1d != -1:
                        obj = obj.swapaxes(-1, trans1d)
                objs.append(obj)
                kinds.append(obj.dtype)
            elif type(item) in np.ScalarType:
                objs.append(item)
                kinds.append(item)
            else:
                obj = asarray_in(s, item)
                nd0 = obj.ndim
                if nd0 < ndmin:
                    obj = obj.reshape((1,) * (ndmin - nd0) + obj.shape)
                    if trans1d != -1:
                        lead = ndmin - nd0
                        k1 = trans1d + lead + 1 if trans1d < 0 else trans1d
                        order = list(range(ndmin))
                        obj = obj.transpose(order[:k1] + order[lead:] +
                                            order[k1:lead])
                objs.append(obj)
                kinds.append(obj.dtype)
        if not objs:
            raise ValueError("need at least one array to concatenate")
        dt = _dtypes.normalize(np.result_type(*kinds))
        arrs = []
        for obj in objs:
            if isinstance(obj, ndarray):
                arrs.append(obj if obj.dtype == dt else obj.astype(dt))
            else:  # a scalar: NumPy's cast (OverflowError) on the host
                v = np.array(obj, dtype=dt, ndmin=ndmin)
                arrs.append(asarray_in(s, v))
        return _manipulation.concatenate(arrs, axis=axis)

    @staticmethod
    def _directive(item: str, axis: int, ndmin: int,
                   trans1d: int) -> tuple[int, int, int]:
        if item in ("r", "c"):
            raise NotImplementedError("arrayd has no matrix class: the "
                                      f"{item!r} directive is not supported")
        if "," in item:
            parts = item.split(",")
            try:
                axis, ndmin = (int(p) for p in parts[:2])
                if len(parts) == 3:
                    trans1d = int(parts[2])
            except Exception as e:
                raise ValueError(f"unknown special directive {item!r}") \
                    from e
            return axis, ndmin, trans1d
        try:
            return int(item), ndmin, trans1d
        except (ValueError, TypeError) as e:
            raise ValueError("unknown special directive") from e

    @staticmethod
    def _range(item: slice) -> ndarray:
        start = 0 if item.start is None else item.start
        step = 1 if item.step is None else item.step
        if isinstance(step, (complex, np.complexfloating)):
            return _creation.linspace(start, item.stop, int(abs(step)))
        return _creation.arange(start, item.stop, step)


r_ = _Concatenator(0)
c_ = _Concatenator(-1, ndmin=2, trans1d=0)


# -- diagonals and triangles -------------------------------------------------

def diag_indices(n: int, ndim: int = 2) -> tuple[ndarray, ...]:
    """numpy.diag_indices: ndim copies of arange(n)."""
    idx = _creation.arange(operator.index(n))
    return (idx,) * operator.index(ndim)


def diag_indices_from(arr: Any) -> tuple[ndarray, ...]:
    """numpy.diag_indices_from: the main diagonal of an n-cube."""
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if any(d != arr.shape[0] for d in arr.shape):
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def _lower_count(n: int, m: int, k: int) -> int:
    """The number of (i, j) in an n x m grid with j <= i + k: row i holds
    min(max(i + k + 1, 0), m) of them."""
    if n <= 0 or m <= 0:
        return 0
    lo = min(n, max(0, -k))          # rows before lo are empty
    full = min(n, max(lo, m - k - 1))  # rows from here on are full
    # Rows lo .. full-1 hold i + k + 1 each: an arithmetic series.
    part = (full - lo) * ((lo + k + 1) + (full - 1 + k + 1)) // 2
    return part + (n - full) * m


def _tri_indices(n: int, k: int, m: Any, lower: bool) -> tuple[ndarray,
                                                                ndarray]:
    n = operator.index(n)
    k = operator.index(k)
    m = n if m is None else operator.index(m)
    n, m = max(n, 0), max(m, 0)
    count = (_lower_count(n, m, k) if lower
             else n * m - _lower_count(n, m, k - 1))
    if count == 0 or m == 0:
        e = _creation.zeros(0, _INT64)
        return e, e.copy()
    mask = _manipulation.tri(n, m, k if lower else k - 1, dtype=bool)
    if not lower:
        mask = _m.logical_not(mask)
    flat = _c.new(mask._session, "flatnonzero", (mask.reshape(-1),),
                  (count,), _INT64, {"count": count})
    return _m.floor_divide(flat, m), _m.remainder(flat, m)


def tril_indices(n: int, k: int = 0, m: Any = None) -> tuple[ndarray,
                                                             ndarray]:
    """numpy.tril_indices: row and column indices of the lower triangle."""
    return _tri_indices(n, k, m, True)


def triu_indices(n: int, k: int = 0, m: Any = None) -> tuple[ndarray,
                                                             ndarray]:
    """numpy.triu_indices: row and column indices of the upper triangle."""
    return _tri_indices(n, k, m, False)


def tril_indices_from(arr: Any, k: int = 0) -> tuple[ndarray, ndarray]:
    """The indices of the lower triangle (k-th diagonal and below) of the 2-d
    array arr (numpy.tril_indices_from)."""
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return _tri_indices(arr.shape[-2], k, arr.shape[-1], True)


def triu_indices_from(arr: Any, k: int = 0) -> tuple[ndarray, ndarray]:
    """The indices of the upper triangle (k-th diagonal and above) of the 2-d
    array arr (numpy.triu_indices_from)."""
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return _tri_indices(arr.shape[-2], k, arr.shape[-1], False)


def mask_indices(n: int, mask_func: Callable[..., Any],
                 k: Any = 0) -> tuple[ndarray, ...]:
    """numpy.mask_indices: nonzero() of mask_func(ones((n, n)), k)."""
    m = _creation.ones((n, n), int)
    a = mask_func(m, k)
    return _indexing.nonzero(_m.not_equal(a, 0))


def fill_diagonal(a: Any, val: Any, wrap: bool = False) -> None:
    """numpy.fill_diagonal: writes val (repeated) on a's main diagonal, in
    place."""
    if not isinstance(a, ndarray):
        raise TypeError(f"fill_diagonal() argument 1 must be "
                        f"arrayd.ndarray, not {type(a).__name__}")
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    shape = a.shape
    if a.ndim == 2:
        step = shape[1] + 1
        end = a.size if wrap else min(a.size, shape[1] * shape[1])
    else:
        if any(d != shape[0] for d in shape):
            raise ValueError("All dimensions of input must be of equal "
                             "length")
        step = 1 + sum(math.prod(shape[:i + 1]) for i in range(a.ndim - 1))
        end = a.size
    n = len(range(0, end, step))
    if n == 0:
        return
    pos = _c.new(a._session, "arange", (), (n,), _INT64,
                 {"start": 0, "step": step, "num": n, "dtype": _INT64})
    _indexing.put(a, pos, val)


# -- flat <-> multi-indices --------------------------------------------------

def _check_range(idx: list[ndarray], dims: list[int]) -> tuple[int, int]:
    """(min, max) over idx of idx - 0 and idx - dims + 1 (one sync)."""
    lo = hi = None
    for x, d in zip(idx, dims):
        xl = _r.min(x)
        xh = _m.subtract(_r.max(x), d - 1)
        lo = xl if lo is None else _m.minimum(lo, xl)
        hi = xh if hi is None else _m.maximum(hi, xh)
    vmin, vmax = _c.fetch_items(lo, hi)
    return vmin, vmax


def _as_index(s: Any, x: Any) -> ndarray:
    a = asarray_in(s, x)
    return a if a.dtype == _INT64 else a.astype(_INT64)


def ravel_multi_index(multi_index: Any, dims: Any, mode: Any = "raise",
                      order: str = "C") -> ndarray:
    """numpy.ravel_multi_index: flat indices of coordinate arrays (modes
    raise, wrap, clip, one per axis or for all; order C or F)."""
    if isinstance(multi_index, ndarray):
        multi_index = list(multi_index) if multi_index.ndim else [
            multi_index]
    seq = list(multi_index)
    s = session_of(*seq)
    arrs = [x if isinstance(x, ndarray) else np.asarray(x) for x in seq]
    # NumPy's errors (dims, dtypes, modes, order, lengths) on probes.
    nonempty = all(a.size for a in arrs) and bool(arrs)
    probes = tuple(np.zeros(1 if nonempty else 0, a.dtype) for a in arrs)
    np.ravel_multi_index(probes, dims, mode=mode, order=order)
    dims_t = tuple(operator.index(d) for d in np.atleast_1d(dims))
    shape = np.broadcast_shapes(*(a.shape for a in arrs))
    modes = [mode] * len(dims_t) if isinstance(mode, str) else list(mode)
    idx = [_as_index(s, a) for a in arrs]
    if math.prod(shape) == 0:
        return _c.empty(s, shape, _INT64)
    check = [(x, d) for x, d, md in zip(idx, dims_t, modes)
             if md == "raise"]
    if check:
        vmin, vmax = _check_range([x for x, _ in check],
                                  [d for _, d in check])
        if vmin < 0 or vmax > 0:
            raise ValueError("invalid entry in coordinates array")
    for i, (d, md) in enumerate(zip(dims_t, modes)):
        if md == "wrap":
            idx[i] = _m.remainder(idx[i], d)
        elif md == "clip":
            idx[i] = _m.minimum(_m.maximum(idx[i], 0), d - 1)
    axes = range(len(dims_t))
    axes = axes if order in ("F", "f") else reversed(axes)  # None: C
    flat: Any = None
    stride = 1
    for i in axes:
        term = idx[i] if stride == 1 else _m.multiply(idx[i], stride)
        flat = term if flat is None else _m.add(flat, term)
        stride *= dims_t[i]
    if flat.shape != shape:
        flat = flat.view_as_broadcast(shape).copy()
    elif flat is idx[0] and isinstance(seq[0], ndarray):
        flat = flat.copy()
    return flat


def unravel_index(indices: Any, shape: Any,
                  order: str = "C") -> tuple[ndarray, ...]:
    """numpy.unravel_index: coordinate arrays of flat indices."""
    s = session_of(indices)
    x = indices if isinstance(indices, ndarray) else np.asarray(indices)
    # NumPy's errors (dtype, shape, order) on an empty probe.
    np.unravel_index(np.zeros(0, x.dtype), shape, order=order)
    dims = tuple(operator.index(d) for d in np.atleast_1d(shape))
    size = math.prod(dims)
    idx = _as_index(s, x)
    if idx.size == 0:
        return tuple(_c.empty(s, idx.shape, _INT64) for _ in dims)
    vmin, vmax = _c.fetch_items(_r.min(idx), _r.max(idx))
    if vmin < 0 or vmax >= size:
        bad = vmin if vmin < 0 else vmax
        raise ValueError(f"index {bad} is out of bounds for array with "
                         f"size {size}")
    out: list[Any] = [None] * len(dims)
    axes = list(range(len(dims)))
    if order not in ("F", "f"):  # None: C
        axes.reverse()
    rest = idx
    for j, i in enumerate(axes):
        d = dims[i]
        if j == len(axes) - 1:
            out[i] = rest if rest is not idx else idx.copy()
        else:
            out[i] = _m.remainder(rest, d)
            rest = _m.floor_divide(rest, d)
    return tuple(out)
