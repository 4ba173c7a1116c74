"""Shape manipulation, joining, splitting, tiling, padding and friends.

Everything is built from the server's view ops (reshape, transpose, slice,
broadcast_to) and copies (empty + setitem, copy, astype); no op here needs
server code of its own. Result shapes, dtypes and errors come from NumPy
itself, run on data-less dummies (``shape_dummy``) or on 1-element arrays of
the real dtypes, so they are NumPy's exactly; for the copying functions
(concatenate, stack, repeat), whose dummies NumPy would walk element by
element, _shapes computes valid shapes and NumPy runs only to raise.

Layer: functions (imports the core, _creation, _math, _indexing,
_reduction and _statistics).
Attaches ndarray.repeat; the view methods (reshape, transpose, squeeze,
swapaxes, ravel) are the core's own.
"""
from __future__ import annotations

import itertools
import operator
import warnings
from typing import Any, Sequence

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from arrayd import _composite as _c
from arrayd import (_dtypes, _indexing, _math, _reduction, _shapes,
                    _statistics, _ufunc)
from arrayd._creation import arange, empty, linspace, zeros
from arrayd._ndarray import (asarray_in, attach, encode_scalar, fortran,
                             ndarray, session_of, shape_dummy)

_BOOL = np.dtype(np.bool_)


def _arr(a: Any, s: Any = None) -> ndarray:
    return asarray_in(session_of(a) if s is None else s, a)


def _arrs(seq: Any) -> list[ndarray]:
    if isinstance(seq, ndarray):
        seq = list(seq)  # NumPy iterates over the first axis too
    seq = list(seq)
    s = session_of(*seq)
    return [asarray_in(s, a) for a in seq]


def _at(axis: int, key: Any) -> tuple[Any, ...]:
    """The index that applies ``key`` along ``axis``."""
    return (slice(None),) * axis + (key,)


def _probe(dtype: np.dtype) -> np.ndarray:
    """A 1-element array of ``dtype`` to let NumPy decide dtypes and casts."""
    return np.zeros(1, dtype)


# -- shapes and axes --------------------------------------------------------

def reshape(a: Any, shape: Any = None, order: str = "C", *,
            newshape: Any = None, copy: bool | None = None) -> ndarray:
    """numpy.reshape (C order; a view when the layout allows)."""
    if shape is None:
        shape = newshape
    return _arr(a).reshape(shape, order=order, copy=copy)


def ravel(a: Any, order: str = "C") -> ndarray:
    """a flattened to 1-d in `order` (numpy.ravel): a view when the layout
    allows, else a copy."""
    return _arr(a).reshape(-1, order=order)


def transpose(a: Any, axes: Any = None) -> ndarray:
    """a with its axes reversed or permuted by `axes` (numpy.transpose), a
    view."""
    return _arr(a).transpose(axes)


def permute_dims(a: Any, axes: Any) -> ndarray:
    """a with its axes permuted by `axes` (the Array API's permute_dims), a
    view."""
    return _arr(a).transpose(axes)


def swapaxes(a: Any, axis1: int, axis2: int) -> ndarray:
    """a with axis1 and axis2 interchanged (numpy.swapaxes), a view."""
    return _arr(a).swapaxes(axis1, axis2)


def moveaxis(a: Any, source: Any, destination: Any) -> ndarray:
    """numpy.moveaxis: a view with the axes moved."""
    a = _arr(a)
    nd = a.ndim
    src = normalize_axis_tuple(source, nd, "source")
    dst = normalize_axis_tuple(destination, nd, "destination")
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have "
                         "the same number of elements")
    order = [n for n in range(nd) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return a.transpose(order)


def rollaxis(a: Any, axis: int, start: int = 0) -> ndarray:
    """a with `axis` moved to before `start` (numpy.rollaxis), a view."""
    a = _arr(a)
    np.rollaxis(shape_dummy(a.shape), axis, start)  # NumPy's errors
    nd = a.ndim
    axis = normalize_axis_index(axis, nd)
    if start < 0:
        start += nd
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(nd))
    axes.remove(axis)
    axes.insert(start, axis)
    return a.transpose(axes)


def squeeze(a: Any, axis: Any = None) -> ndarray:
    """a without its length-1 axes, or only those in `axis` (numpy.squeeze), a
    view."""
    return _arr(a).squeeze(axis)


def expand_dims(a: Any, axis: Any) -> ndarray:
    """numpy.expand_dims: a view with new length-1 axes."""
    a = _arr(a)
    return a.reshape(np.expand_dims(shape_dummy(a.shape), axis).shape)


def atleast_1d(*arys: Any) -> Any:
    """Each input as an array of at least one dimension (numpy.atleast_1d); one
    array for one input, else a tuple."""
    res = [a if a.ndim >= 1 else a.reshape(1) for a in _arrs(arys)]
    return res[0] if len(res) == 1 else tuple(res)


def atleast_2d(*arys: Any) -> Any:
    """Each input as an array of at least two dimensions (numpy.atleast_2d): a
    1-d array becomes one row."""
    res = []
    for a in _arrs(arys):
        if a.ndim == 0:
            a = a.reshape(1, 1)
        elif a.ndim == 1:
            a = a[None, :]
        res.append(a)
    return res[0] if len(res) == 1 else tuple(res)


def atleast_3d(*arys: Any) -> Any:
    """Each input as an array of at least three dimensions (numpy.atleast_3d):
    (N,) becomes (1, N, 1), (M, N) becomes (M, N, 1)."""
    res = []
    for a in _arrs(arys):
        if a.ndim == 0:
            a = a.reshape(1, 1, 1)
        elif a.ndim == 1:
            a = a[None, :, None]
        elif a.ndim == 2:
            a = a[:, :, None]
        res.append(a)
    return res[0] if len(res) == 1 else tuple(res)


def broadcast_to(a: Any, shape: Any) -> ndarray:
    """numpy.broadcast_to: a read-only view."""
    a = _arr(a)
    shp = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return a.view_as_broadcast(shp)


def broadcast_arrays(*args: Any) -> tuple[ndarray, ...]:
    """numpy.broadcast_arrays: read-only views of one broadcast shape."""
    arrs = _arrs(args)
    shape = np.broadcast_shapes(*(a.shape for a in arrs))
    return tuple(a if a.shape == shape else a.view_as_broadcast(shape)
                 for a in arrs)


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """The shape that the given shapes broadcast to
    (numpy.broadcast_shapes)."""
    return np.broadcast_shapes(*shapes)


# -- joining -------------------------------------------------------------

def _join_dtype(arrs: Sequence[ndarray], dtype: Any,
                casting: str) -> np.dtype:
    """The result dtype of concatenate; NumPy's TypeError for bad casts."""
    key = (tuple(a._dtype for a in arrs), dtype, casting)
    try:
        dt = _JOIN_DTYPES.get(key)
    except TypeError:  # an unhashable dtype= (NumPy will say)
        key, dt = None, None
    if dt is None:
        probes = [_probe(a.dtype) for a in arrs]
        dt = _dtypes.normalize(np.concatenate(probes, dtype=dtype,
                                              casting=casting).dtype)
        if key is not None:
            if len(_JOIN_DTYPES) >= 256:
                _JOIN_DTYPES.clear()
            _JOIN_DTYPES[key] = dt
    return dt


# concatenate's result dtype by input dtypes, dtype= and casting=.
_JOIN_DTYPES: dict[Any, np.dtype] = {}


def _fill_out(out: Any, shape: tuple[int, ...], dt: np.dtype,
              casting: str, s: Any) -> ndarray:
    if out is None:
        return empty(shape, dt) if s is None else _c.empty(s, shape, dt)
    if not isinstance(out, ndarray):
        raise TypeError("out must be an arrayd.ndarray")
    if out.shape != shape:
        raise ValueError(f"Output array is the wrong shape: {out.shape}, "
                         f"expected {shape}")
    if not np.can_cast(dt, out.dtype, casting):
        raise TypeError(f"Cannot cast array data from {dt!r} to "
                        f"{out.dtype!r} according to the rule {casting!r}")
    return out




def concatenate(arrays: Any, axis: Any = 0, out: Any = None, *,
                dtype: Any = None, casting: str = "same_kind") -> ndarray:
    """numpy.concatenate: one new array, filled by setitem per input."""
    arrs = _arrs(arrays)
    if not arrs:
        raise ValueError("need at least one array to concatenate")
    s = arrs[0]._session
    if axis is None:
        arrs = [a.reshape(-1) for a in arrs]
        axis = 0
    if out is not None and dtype is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an "
                        "argument, but both were provided.")
    shape = _shapes.concatenate([a.shape for a in arrs], axis)
    if shape is None:  # NumPy's shape and axis errors, on data-less dummies
        shape = np.concatenate([shape_dummy(a.shape) for a in arrs],
                               axis=axis).shape
    if out is None:
        dt = _join_dtype(arrs, dtype, casting)
    else:
        dt = _dtypes.normalize(out.dtype)
        np.concatenate([_probe(a.dtype) for a in arrs],
                       out=np.empty(len(arrs), dt), casting=casting)
    res = _fill_out(out, shape, dt, casting, s)
    ax = normalize_axis_index(axis, len(shape))
    if res._dtype.kind != "c" and any(a._dtype.kind == "c" for a in arrs):
        with warnings.catch_warnings():
            # casting= decided the casts above: NumPy's concatenate does
            # not warn for complex parts dropped under casting='unsafe'.
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            _join_fill(res, arrs, ax)
    else:
        _join_fill(res, arrs, ax)
    return res


def _join_fill(res: ndarray, arrs: list[ndarray], ax: int) -> None:
    """Writes each of ``arrs`` into its block of ``res`` along ``ax``."""
    pos = 0
    lead = (slice(None),) * ax
    for a in arrs:
        n = a._shape[ax]
        if n and a.size:
            res[lead + (slice(pos, pos + n),)] = a
        pos += n


concat = concatenate


def stack(arrays: Any, axis: int = 0, out: Any = None, *,
          dtype: Any = None, casting: str = "same_kind") -> ndarray:
    """numpy.stack: join along a new axis."""
    arrs = _arrs(arrays)
    if not arrs:
        raise ValueError("need at least one array to stack")
    shape = _shapes.stack([a.shape for a in arrs], axis)
    if shape is None:  # NumPy's shape and axis errors, on data-less dummies
        shape = np.stack([shape_dummy(a.shape) for a in arrs],
                         axis=axis).shape
    ax = normalize_axis_index(axis, len(shape))
    return concatenate([a.reshape(a.shape[:ax] + (1,) + a.shape[ax:])
                        for a in arrs], axis=ax, out=out, dtype=dtype,
                       casting=casting)


def vstack(tup: Any, *, dtype: Any = None,
           casting: str = "same_kind") -> ndarray:
    """The arrays stacked along the first axis, 1-d ones as rows
    (numpy.vstack)."""
    arrs = [atleast_2d(a) for a in _arrs(tup)]
    return concatenate(arrs, 0, dtype=dtype, casting=casting)


def row_stack(tup: Any, *, dtype: Any = None,
              casting: str = "same_kind") -> ndarray:
    """numpy.row_stack: vstack, deprecated in NumPy 2.0."""
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` "
                  "directly.", DeprecationWarning, stacklevel=2)
    return vstack(tup, dtype=dtype, casting=casting)


def hstack(tup: Any, *, dtype: Any = None,
           casting: str = "same_kind") -> ndarray:
    """The arrays stacked along the second axis, or joined along the first when
    1-d (numpy.hstack)."""
    arrs = [atleast_1d(a) for a in _arrs(tup)]
    if arrs and arrs[0].ndim == 1:
        return concatenate(arrs, 0, dtype=dtype, casting=casting)
    return concatenate(arrs, 1, dtype=dtype, casting=casting)


def dstack(tup: Any) -> ndarray:
    """The arrays stacked along the third axis, after atleast_3d
    (numpy.dstack)."""
    return concatenate([atleast_3d(a) for a in _arrs(tup)], 2)


def column_stack(tup: Any) -> ndarray:
    """1-d arrays as the columns of a 2-d array, 2-d ones joined along axis 1
    (numpy.column_stack)."""
    arrs = [a.reshape(-1, 1) if a.ndim < 2 else a for a in _arrs(tup)]
    return concatenate(arrs, 1)


# -- splitting ------------------------------------------------------------

def array_split(ary: Any, indices_or_sections: Any,
                axis: int = 0) -> list[ndarray]:
    """numpy.array_split: views of ary."""
    a = _arr(ary)
    ax = normalize_axis_index(axis, a.ndim) if a.ndim else axis
    n = a.shape[axis]  # NumPy's IndexError for a bad axis here too
    try:
        points = [0] + list(indices_or_sections) + [n]
    except TypeError:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.") \
                from None
        each, extras = divmod(n, sections)
        sizes = [0] + extras * [each + 1] + (sections - extras) * [each]
        points = list(itertools.accumulate(sizes))
    return [a[_at(ax, slice(points[i], points[i + 1]))]
            for i in range(len(points) - 1)]


def split(ary: Any, indices_or_sections: Any,
          axis: int = 0) -> list[ndarray]:
    """numpy.split: like array_split, but sections must divide evenly."""
    a = _arr(ary)
    try:
        len(indices_or_sections)
    except TypeError:
        sections = indices_or_sections
        if a.shape[axis] % sections:
            raise ValueError("array split does not result in an equal "
                             "division") from None
    return array_split(a, indices_or_sections, axis)


def _split_axis(ary: Any, ios: Any, axis: int, need: int,
                name: str) -> list[ndarray]:
    a = _arr(ary)
    if a.ndim < need:
        raise ValueError(f"{name} only works on arrays of {need} or more "
                         "dimensions")
    return split(a, ios, axis)


def hsplit(ary: Any, indices_or_sections: Any) -> list[ndarray]:
    """ary split into sub-arrays along the second axis, the first for 1-d
    (numpy.hsplit)."""
    a = _arr(ary)
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more "
                         "dimensions")
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


def vsplit(ary: Any, indices_or_sections: Any) -> list[ndarray]:
    """ary split into sub-arrays along the first axis (numpy.vsplit)."""
    return _split_axis(ary, indices_or_sections, 0, 2, "vsplit")


def dsplit(ary: Any, indices_or_sections: Any) -> list[ndarray]:
    """ary split into sub-arrays along the third axis (numpy.dsplit)."""
    return _split_axis(ary, indices_or_sections, 2, 3, "dsplit")


# -- repeating, flipping, rolling -------------------------------------------

def tile(A: Any, reps: Any) -> ndarray:
    """numpy.tile: a broadcast view of A, copied once."""
    try:
        tup = tuple(reps)
    except TypeError:
        tup = (reps,)
    tup = tuple(operator.index(r) for r in tup)
    a = _arr(A)
    d = len(tup)
    if a.ndim < d:
        a = a.reshape((1,) * (d - a.ndim) + a.shape)
    elif a.ndim > d:
        tup = (1,) * (a.ndim - d) + tup
    if any(r < 0 for r in tup):
        np.empty(tup)  # NumPy's ValueError for negative dimensions
    out_shape = tuple(s * r for s, r in zip(a.shape, tup))
    if all(r == 1 for r in tup):
        return a.copy()
    inter = tuple(x for s in a.shape for x in (1, s))
    full = tuple(x for s, r in zip(a.shape, tup) for x in (r, s))
    return a.reshape(inter).view_as_broadcast(full).copy().reshape(out_shape)


def repeat(a: Any, repeats: Any, axis: Any = None) -> ndarray:
    """numpy.repeat; per-element repeats are read by the client."""
    a = _arr(a)
    if isinstance(repeats, ndarray):
        repeats = repeats.get()  # like CuPy: the counts decide the shape
    reps = np.asarray(repeats)
    if axis is None:
        if a.ndim != 1:  # (the result is a copy: a 1-d a is used as is)
            a = a.reshape(-1)
        ax = 0
    else:
        ax = normalize_axis_index(axis, a.ndim)
    shape = _shapes.repeat(a.shape, reps, ax)
    if shape is None:  # NumPy's errors (negative counts, lengths, dtypes)
        shape = np.repeat(shape_dummy(a.shape), reps, axis=ax).shape
    n = a.shape[ax]
    if reps.size == 1:
        r = int(reps.reshape(-1)[0])
        inter = a.shape[:ax + 1] + (1,) + a.shape[ax + 1:]
        full = a.shape[:ax + 1] + (r,) + a.shape[ax + 1:]
        return a.reshape(inter).view_as_broadcast(full).copy().reshape(shape)
    idx = np.repeat(np.arange(n, dtype=np.int64), reps)
    return _indexing.take(a, idx, axis=ax)


def flip(m: Any, axis: Any = None) -> ndarray:
    """numpy.flip: a view with the axes reversed."""
    a = _arr(m)
    axes = (tuple(range(a.ndim)) if axis is None
            else normalize_axis_tuple(axis, a.ndim))
    key = tuple(slice(None, None, -1) if i in axes else slice(None)
                for i in range(a.ndim))
    return a[key]


def fliplr(m: Any) -> ndarray:
    """m with the order of its columns (axis 1) reversed (numpy.fliplr), a
    view."""
    a = _arr(m)
    if a.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return a[:, ::-1]


def flipud(m: Any) -> ndarray:
    """m with the order of its rows (axis 0) reversed (numpy.flipud), a
    view."""
    a = _arr(m)
    if a.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return a[::-1, ...]


def roll(a: Any, shift: Any, axis: Any = None) -> ndarray:
    """numpy.roll: a new array written block by block."""
    a = _arr(a)
    if axis is None:
        return roll(a.reshape(-1), shift, 0).reshape(a.shape)
    axes = normalize_axis_tuple(axis, a.ndim, allow_duplicate=True)
    b = np.broadcast(shift, axes)
    if b.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D "
                         "sequences")
    shifts = {ax: 0 for ax in range(a.ndim)}
    for sh, ax in b:
        shifts[ax] += int(sh)
    rolls: list[Any] = [((slice(None), slice(None)),)] * a.ndim
    for ax, off in shifts.items():
        n = a.shape[ax] or 1
        off %= n
        if off:
            rolls[ax] = ((slice(None, -off), slice(off, None)),
                         (slice(-off, None), slice(None, off)))
    res = _c.empty(a._session, a.shape, a.dtype)
    if a.size == 0:
        return res
    for indices in itertools.product(*rolls):
        src, dst = zip(*indices)
        res[dst] = a[src]
    return res


def rot90(m: Any, k: int = 1, axes: Any = (0, 1)) -> ndarray:
    """numpy.rot90: a view (flips and a transpose)."""
    a = _arr(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == a.ndim:
        raise ValueError("Axes must be different.")
    if (axes[0] >= a.ndim or axes[0] < -a.ndim or axes[1] >= a.ndim
            or axes[1] < -a.ndim):
        raise ValueError(f"Axes={axes} out of range for array of "
                         f"ndim={a.ndim}.")
    k %= 4
    if k == 0:
        return a[...]
    if k == 2:
        return flip(flip(a, axes[0]), axes[1])
    perm = list(range(a.ndim))
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    if k == 1:
        return flip(a, axes[1]).transpose(perm)
    return flip(a.transpose(perm), axes[1])


# -- padding -----------------------------------------------------------------

# Keywords each pad mode takes (NumPy's).
_PAD_KWARGS = {
    "empty": (), "edge": (), "wrap": (), "constant": ("constant_values",),
    "linear_ramp": ("end_values",), "maximum": ("stat_length",),
    "minimum": ("stat_length",), "mean": ("stat_length",),
    "median": ("stat_length",), "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",)}


def _pad_pairs(x: Any, nd: int, as_index: bool = False) -> list[Any]:
    """NumPy's broadcasting of a pad argument to one (before, after) pair
    per axis. One value, or one pair, serves every axis and stays a NumPy
    scalar; anything else broadcasts to (nd, 2) and becomes Python scalars
    (as in NumPy, which matters for casts and promotion). ``as_index``:
    rounded to intp and never negative. None gives (None, None) pairs.
    Pad arguments are parameters: an arrayd one is read to the host."""
    if x is None:
        return [(None, None)] * nd
    v = np.array(x.get() if isinstance(x, ndarray) else x)
    if as_index:
        v = np.round(v).astype(np.intp, copy=False)
    short = v.ndim < 3 and (v.size == 1 or (
        v.size == 2 and v.shape != (2, 1)))  # (2, 1): one value per axis
    if as_index and v.min() < 0:  # NumPy's ValueError when v is empty too
        raise ValueError("index can't contain negative values")
    if short:
        flat = v.ravel()
        return [(flat[0], flat[-1])] * nd
    return [tuple(p) for p in np.broadcast_to(v, (nd, 2)).tolist()]


def _pad_value(v: Any, dt: np.dtype) -> Any:
    """A constant as NumPy's setitem casts it into ``dt`` (its errors and
    warnings: out-of-range Python ints, complex into real, ...)."""
    t = np.empty((), dt)
    t[()] = v
    return t[()]


_PAD_ZEROS: dict[np.dtype, Any] = {}


def _pad_zero(dt: np.dtype) -> Any:
    """_pad_value(0, dt): the default constant, cached."""
    z = _PAD_ZEROS.get(dt)
    if z is None:
        z = _PAD_ZEROS[dt] = _pad_value(np.int64(0), dt)
    return z


def _pad_roi(padded: ndarray, orig: tuple[slice, ...], axis: int) -> ndarray:
    """The part of ``padded`` that axis ``axis`` pads from: axes before it
    in full (already padded), the axes after it only where the original
    values are."""
    return padded[(slice(None),) * (axis + 1) + orig[axis + 1:]]


def _pad_set(r: ndarray, axis: int, lo: int, hi: int, vlo: Any,
             vhi: Any) -> None:
    """Writes the before and after pad areas of ``r`` along ``axis``."""
    n = r.shape[axis]
    if lo:
        r[_at(axis, slice(None, lo))] = vlo
    if hi:
        r[_at(axis, slice(n - hi, None))] = vhi


def _pad_edges(r: ndarray, axis: int, lo: int,
               hi: int) -> tuple[ndarray, ndarray]:
    """The first and last original slices of ``r`` along ``axis``
    (length 1 there)."""
    n = r.shape[axis]
    return (r[_at(axis, slice(lo, lo + 1))],
            r[_at(axis, slice(n - hi - 1, n - hi))])


def _pad_ramps(r: ndarray, axis: int, lo: int, hi: int,
               ends: tuple[Any, Any]) -> tuple[Any, Any]:
    """linear_ramp: from each end value towards the edge, the edge itself
    left out (NumPy: linspace in the array's dtype, so floored for ints)."""
    edges = _pad_edges(r, axis, lo, hi)
    ramps = [linspace(end, edge.squeeze(axis), num=width, endpoint=False,
                      dtype=r.dtype, axis=axis) if width else None
             for end, edge, width in zip(ends, edges, (lo, hi))]
    if ramps[1] is not None:
        ramps[1] = ramps[1][_at(axis, slice(None, None, -1))]
    return ramps[0], ramps[1]


_PAD_STATS = {"maximum": _reduction.max, "minimum": _reduction.min,
              "mean": _reduction.mean, "median": _statistics.median}


def _pad_stats(r: ndarray, axis: int, lo: int, hi: int,
               lengths: tuple[Any, Any], mode: str) -> tuple[Any, Any]:
    """maximum/minimum/mean/median: the statistic of the first and last
    ``stat_length`` original values along ``axis`` (all of them for
    None or a longer length), rounded to even for integer arrays."""
    first, stop = lo, r.shape[axis] - hi
    avail = stop - first
    nlo, nhi = (avail if n is None or n > avail else int(n) for n in lengths)
    if (nlo == 0 or nhi == 0) and mode in ("maximum", "minimum"):
        raise ValueError("stat_length of 0 yields no value for padding")
    if not (lo or hi):
        return None, None  # nothing to pad: NumPy's checks only
    func = _PAD_STATS[mode]

    def stat(sl: slice) -> ndarray:
        v = func(r[_at(axis, sl)], axis=axis, keepdims=True)
        if r.dtype.kind in "iu" and v.dtype.kind not in "iu":
            v = _math.rint(v)  # NumPy rounds before the cast back
        return v

    vlo = stat(slice(first, first + nlo))
    if nlo == nhi == avail:
        return vlo, vlo
    return vlo, stat(slice(stop - nhi, stop))


def _pad_extend(a: ndarray, widths: Sequence[tuple[int, int]],
                shape: tuple[int, ...], mode: str, cval: float = 0.0) -> ndarray:
    """The constant (cval), edge, wrap, symmetric and (even) reflect modes
    as one server op (every element written once, read from its mapped
    index), F-ordered as _pad_alloc's result: the transposed view's pad,
    transposed back."""
    if len(shape) > 1 and a._is_f() and not a._is_c():
        return _pad_extend(a.T, widths[::-1], shape[::-1], mode, cval).T
    flat = [int(w) for pair in widths for w in pair]
    attrs: dict[str, Any] = {"widths": flat, "mode": mode}
    if mode == "constant":
        attrs["cval"] = cval
    return _c.new(a._session, "pad", (a,), shape, a._dtype, attrs)


def _pad_cval(fill: Any) -> float | None:
    """``fill`` (a NumPy scalar) as the double that the server's cast
    gives back bit for bit, or None where no double does (complex values,
    int64 past 2**53, NaN payloads)."""
    dt = fill.dtype
    if dt.kind == "c":
        if fill.imag != 0:
            return None
        fill = fill.real
    with np.errstate(all="ignore"):
        v = float(fill)
        back = np.array(v).astype(dt)
    return v if back.tobytes() == np.array(fill, dt).tobytes() else None


def _pad_alloc(a: ndarray, shape: tuple[int, ...], op: str,
               value: Any = None) -> ndarray:
    """The padded array (``op``: "empty", "zeros", or "full" of ``value``,
    a NumPy scalar of a's dtype), F-ordered where ``a`` is F- and not
    C-contiguous, as NumPy's."""
    s, dt = a._session, a._dtype
    fortran_order = len(shape) > 1 and a._is_f() and not a._is_c()
    if fortran_order:
        shape = shape[::-1]
    if op == "full":
        made = _c.new(s, "full", (), shape, dt, {
            "shape": list(shape), "dtype": dt,
            "value": encode_scalar(value.item(), dt)})
    else:
        made = (_c.empty if op == "empty" else _c.zeros)(s, shape, dt)
    return fortran(made) if fortran_order else made


def _pad_fill(widths: list[tuple[int, int]],
              values: list[tuple[Any, Any]]) -> tuple[bool, Any]:
    """(True, v) when every pad area that is written gets the same value v
    (equal bytes: -0.0 and 0.0, or NaNs of other payloads, are not equal),
    so one ``full`` makes them all; (True, None) when none is written."""
    fill = None
    for (lo, hi), (vlo, vhi) in zip(widths, values):
        for w, v in ((lo, vlo), (hi, vhi)):
            if not w:
                continue
            if fill is None:
                fill, key = v, v.tobytes()
            elif v.tobytes() != key:
                return False, None
    return True, fill


def _pad_widths(pad_width: Any, nd: int) -> list[tuple[int, int]]:
    """pad_width as one (before, after) pair of Python ints per axis, with
    NumPy's errors."""
    if type(pad_width) is int and 0 <= pad_width < (1 << 62):
        return [(pad_width, pad_width)] * nd  # the common pad(a, n)
    widths = np.asarray(pad_width.get() if isinstance(pad_width, ndarray)
                        else pad_width)
    if widths.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    return [(int(lo), int(hi))
            for lo, hi in _pad_pairs(widths, nd, as_index=True)]


def _pad_callable(a: ndarray, shape: tuple[int, ...], orig: Any,
                  pairs: list[Any], func: Any, kwargs: dict) -> ndarray:
    """pad with a function: zeros around the original, then
    ``func(lane, (before, after), axis, kwargs)`` on every 1-D lane of
    every axis, which writes the lane's pad areas in place (a view)."""
    padded = _pad_alloc(a, shape, "zeros")
    if a.size:
        padded[orig] = a
    for axis in range(padded.ndim):
        lanes = moveaxis(padded, axis, -1)
        for ind in np.ndindex(lanes.shape[:-1]):
            func(lanes[ind + (Ellipsis,)], pairs[axis], axis, kwargs)
    return padded


def pad(array: Any, pad_width: Any, mode: Any = "constant",
        **kwargs: Any) -> ndarray:
    """numpy.pad, every mode: constant, edge, linear_ramp, maximum, mean,
    median, minimum, reflect and symmetric (reflect_type even/odd), wrap,
    empty, and a function.

    NumPy's axis-by-axis algorithm: the padded array gets the original
    values, then each axis in turn writes its two pad areas from views of
    the part already filled (so corners come from the axes before), with
    server ops: setitem of constants, slices, reductions with keepdims and
    linspace ramps. Widths and the other per-axis arguments broadcast as
    NumPy's ((before, after), ...) and give NumPy's errors.
    """
    a = _arr(array)
    nd = a.ndim
    widths = _pad_widths(pad_width, nd)
    shape = tuple(lo + n + hi for (lo, hi), n in zip(widths, a._shape))
    orig = tuple(slice(lo, lo + n) for (lo, _), n in zip(widths, a._shape))
    if callable(mode):
        pairs = _pad_pairs(np.asarray(
            pad_width.get() if isinstance(pad_width, ndarray)
            else pad_width), nd, as_index=True)  # NumPy's types
        return _pad_callable(a, shape, orig, pairs, mode, kwargs)
    try:
        allowed = _PAD_KWARGS[mode]
    except KeyError:
        raise ValueError(f"mode '{mode}' is not supported") from None
    bad = set(kwargs) - set(allowed)
    if bad:
        raise ValueError(f"unsupported keyword arguments for mode "
                         f"'{mode}': {bad}")
    if mode == "constant":
        if "constant_values" in kwargs:
            cv = kwargs["constant_values"]
            if type(cv) in (int, float, complex, bool):
                # _pad_pairs's NumPy scalar, cast once.
                v = _pad_value(np.array(cv)[()], a._dtype)
                values = [(v, v)] * nd
            else:
                values = [(_pad_value(vlo, a._dtype),
                           _pad_value(vhi, a._dtype))
                          for vlo, vhi in _pad_pairs(cv, nd)]
        else:
            values = [(_pad_zero(a._dtype),) * 2] * nd
        same, fill = _pad_fill(widths, values)
        cval = _pad_cval(fill) if same and fill is not None else None
        if cval is not None and a.size:
            return _pad_extend(a, widths, shape, "constant", cval)
        if same:
            # One full (or empty) and the original: two ops, not two
            # views and setitems an axis.
            padded = (_pad_alloc(a, shape, "empty") if fill is None
                      else _pad_alloc(a, shape, "full", fill))
            if a.size:
                padded[orig] = a
            return padded
        padded = _pad_alloc(a, shape, "empty")
        if a.size:
            padded[orig] = a
        for axis, ((lo, hi), (vlo, vhi)) in enumerate(zip(widths, values)):
            # _pad_set on _pad_roi's view, each area one setitem.
            before, after = (slice(None),) * axis, orig[axis + 1:]
            if lo:
                padded[before + (slice(None, lo),) + after] = vlo
            if hi:
                padded[before + (slice(shape[axis] - hi, None),) + after] = vhi
        return padded
    if (mode in ("edge", "wrap", "symmetric", "reflect") and a.size and nd
            and kwargs.get("reflect_type", "even") != "odd"):
        return _pad_extend(a, widths, shape, mode)
    padded = _pad_alloc(a, shape, "empty")
    if a.size:
        padded[orig] = a
    if mode == "empty":
        return padded
    if a.size == 0:
        # The other modes take their values from the array.
        for axis, (lo, hi) in enumerate(widths):
            if a.shape[axis] == 0 and (lo or hi):
                raise ValueError(f"can't extend empty axis {axis} using "
                                 "modes other than 'constant' or 'empty'")
        return padded
    if mode == "edge":
        for axis, (lo, hi) in enumerate(widths):
            if lo or hi:
                r = _pad_roi(padded, orig, axis)
                _pad_set(r, axis, lo, hi, *_pad_edges(r, axis, lo, hi))
    elif mode == "linear_ramp":
        ends = _pad_pairs(kwargs.get("end_values", 0), nd)
        for axis, (lo, hi) in enumerate(widths):
            if lo or hi:
                r = _pad_roi(padded, orig, axis)
                _pad_set(r, axis, lo, hi, *_pad_ramps(r, axis, lo, hi,
                                                      ends[axis]))
    elif mode in _PAD_STATS:
        lengths = _pad_pairs(kwargs.get("stat_length"), nd, as_index=True)
        for axis, (lo, hi) in enumerate(widths):
            r = _pad_roi(padded, orig, axis)
            _pad_set(r, axis, lo, hi, *_pad_stats(r, axis, lo, hi,
                                                  lengths[axis], mode))
    elif mode in ("reflect", "symmetric"):
        # NumPy: any reflect_type but "odd" reflects evenly.
        method = kwargs.get("reflect_type", "even")
        for axis, (lo, hi) in enumerate(widths):
            if a.shape[axis] == 1 and (lo or hi):
                # NumPy's legacy rule: a length-1 axis repeats its value.
                _pad_set(padded, axis, lo, hi,
                         *_pad_edges(padded, axis, lo, hi))
                continue
            r = _pad_roi(padded, orig, axis)
            while lo > 0 or hi > 0:
                lo, hi = _reflect_both(r, axis, lo, hi, method, a.shape[axis],
                                       mode == "symmetric")
    else:  # wrap
        for axis, (lo, hi) in enumerate(widths):
            r = _pad_roi(padded, orig, axis)
            period0 = r.shape[axis] - lo - hi
            while lo > 0 or hi > 0:
                lo, hi = _wrap_both(r, axis, lo, hi, period0)
    return padded


def _reflect_both(r: ndarray, axis: int, lo: int, hi: int, method: str,
                  period: int, include_edge: bool) -> tuple[int, int]:
    """One round of NumPy's _set_reflect_both on an arrayd view."""
    n = r.shape[axis]
    old = n - hi - lo
    if include_edge:
        old = old // period * period
        edge = 1
    else:
        old = (old - 1) // (period - 1) * (period - 1) + 1
        edge = 0
        old -= 1
    if lo > 0:
        chunk = min(old, lo)
        stop = lo - edge
        start = stop + chunk
        src = r[_at(axis, slice(start, stop, -1))]
        if method == "odd":
            src = _math.subtract(_math.multiply(
                r[_at(axis, slice(lo, lo + 1))], 2), src)
        r[_at(axis, slice(lo - chunk, lo))] = src
        lo -= chunk
    if hi > 0:
        chunk = min(old, hi)
        start = -hi + edge - 2
        stop = start - chunk
        src = r[_at(axis, slice(start, stop, -1))]
        if method == "odd":
            src = _math.subtract(_math.multiply(
                r[_at(axis, slice(-hi - 1, -hi))], 2), src)
        s0 = n - hi
        r[_at(axis, slice(s0, s0 + chunk))] = src
        hi -= chunk
    return lo, hi


def _wrap_both(r: ndarray, axis: int, lo: int, hi: int,
               period0: int) -> tuple[int, int]:
    """One round of NumPy's _set_wrap_both on an arrayd view."""
    n = r.shape[axis]
    period = (n - hi - lo) // period0 * period0
    new_lo = new_hi = 0
    if lo > 0:
        end = lo + period
        src = r[_at(axis, slice(end - min(period, lo), end))]
        if lo > period:
            dst = slice(lo - period, lo)
            new_lo = lo - period
        else:
            dst = slice(None, lo)
        r[_at(axis, dst)] = src
    if hi > 0:
        start = n - hi - period
        src = r[_at(axis, slice(start, start + min(period, hi)))]
        if hi > period:
            dst = slice(n - hi, n - hi + period)
            new_hi = hi - period
        else:
            dst = slice(n - hi, None)
        r[_at(axis, dst)] = src
    return new_lo, new_hi


# -- where, triangles, diagonals, grids ----------------------------------

_WHERE_DTYPES: dict[tuple[np.dtype, np.dtype], np.dtype] = {}


def _where_dtype(x: Any, y: Any) -> np.dtype:
    if type(x) is ndarray and type(y) is ndarray:
        # Two arrays: the dtype depends on theirs only (cached).
        key = (x._dtype, y._dtype)
        dt = _WHERE_DTYPES.get(key)
        if dt is None:
            dt = _WHERE_DTYPES[key] = _dtypes.normalize(np.where(
                True, np.zeros((), x._dtype), np.zeros((), y._dtype)).dtype)
        return dt

    def probe(v: Any) -> Any:
        if isinstance(v, ndarray):
            return np.zeros((), v.dtype)
        if type(v) in (int, float, complex, bool):
            return v
        return np.zeros((), np.asarray(v).dtype)
    return _dtypes.normalize(np.where(True, probe(x), probe(y)).dtype)


def _operand_as(s: Any, v: Any, dt: np.dtype) -> ndarray:
    if isinstance(v, ndarray):
        return v
    if type(v) in (int, float, complex, bool):
        arr = np.asarray(v, dtype=dt)  # weak Python scalars take dt
    else:
        arr = np.asarray(v)
    return asarray_in(s, arr)


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """numpy.where: 3 arguments choose elementwise; 1 gives nonzero()."""
    if x is None and y is None:
        return _indexing.nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    s = session_of(condition, x, y)
    dt = _where_dtype(x, y)
    c = asarray_in(s, condition)
    xa = _operand_as(s, x, dt)
    ya = _operand_as(s, y, dt)
    shape = _shapes.broadcast(c._shape, xa._shape, ya._shape)
    if xa.dtype != dt:
        xa = xa.astype(dt)
    if ya.dtype != dt:
        ya = ya.astype(dt)
    del shape  # NumPy's broadcasting error above; where_op broadcasts too
    return _ufunc.where_op(s, c, xa, ya)


def tri(N: int, M: int | None = None, k: int = 0,
        dtype: Any = float) -> ndarray:
    """numpy.tri: ones at and below the k-th diagonal."""
    n = max(operator.index(N), 0)
    m = n if M is None else max(operator.index(M), 0)
    dt = _dtypes.normalize(dtype)
    rows = arange(n).reshape(n, 1)
    cols = arange(-operator.index(k), m - operator.index(k)).reshape(1, m)
    mask = _math.greater_equal(rows, cols)
    return mask if dt == _BOOL else mask.astype(dt)


def _tri_mask(a: ndarray, k: int, lower: bool) -> ndarray:
    if a.ndim == 0:
        raise TypeError("tri() missing 1 required positional argument: 'N'")
    n, m = a.shape[-2:] if a.ndim >= 2 else (a.shape[0], a.shape[0])
    if not lower:
        k -= 1  # NumPy's triu: where(tri(k - 1), 0, m)
    rows = arange(n).reshape(n, 1)
    cols = arange(-k, m - k).reshape(1, m)
    return _math.greater_equal(rows, cols)


def tril(m: Any, k: int = 0) -> ndarray:
    """numpy.tril: zeros above the k-th diagonal (last two axes)."""
    a = _arr(m)
    mask = _tri_mask(a, operator.index(k), True)
    return where(mask, a, zeros((), a.dtype))


def triu(m: Any, k: int = 0) -> ndarray:
    """numpy.triu: zeros below the k-th diagonal (last two axes)."""
    a = _arr(m)
    mask = _tri_mask(a, operator.index(k), False)
    return where(mask, zeros((), a.dtype), a)


def diag(v: Any, k: int = 0) -> ndarray:
    """numpy.diag: 1-D -> 2-D array with v on diagonal k; 2-D -> diagonal."""
    a = _arr(v)
    k = operator.index(k)
    if a.ndim == 1:
        n = a.shape[0]
        size = n + abs(k)
        res = _c.zeros(a._session, (size, size), a.dtype)
        if n:
            start = k if k >= 0 else -k * size
            _indexing.put(res, arange(start, start + n * (size + 1),
                                      size + 1), a)
        return res
    if a.ndim == 2:
        return _indexing.diagonal(a, k)
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v: Any, k: int = 0) -> ndarray:
    """A 2-d array with the flattened input on its k-th diagonal
    (numpy.diagflat)."""
    return diag(_arr(v).reshape(-1), k)




def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False,
             indexing: str = "xy") -> tuple[ndarray, ...]:
    """numpy.meshgrid (indexing 'xy' or 'ij', sparse, copy)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    arrs = _arrs(xi)
    ndim = len(arrs)
    s0 = (1,) * ndim
    out = [x.reshape(s0[:i] + (-1,) + s0[i + 1:]) for i, x in enumerate(arrs)]
    if indexing == "xy" and ndim > 1:
        out[0] = out[0].reshape((1, -1) + s0[2:])
        out[1] = out[1].reshape((-1, 1) + s0[2:])
    if not sparse:
        out = list(broadcast_arrays(*out))
    if copy:
        out = [x.copy() for x in out]
    return tuple(out)


attach(repeat=repeat)
