"""Indexing and index functions: ``x[key]`` and ``x[key] = value`` (basic
and advanced), take, take_along_axis, put, compress, nonzero, argwhere,
flatnonzero, diagonal.

Layer: functions (imports the core, _math and _reduction). Attaches
ndarray's __getitem__, __setitem__, __iter__, fill, take, put, nonzero,
compress and diagonal.

A basic key (integers, slices, None, Ellipsis) is one ``slice`` or
``setitem`` op with the OPS.md ``index`` encoding.

Server ops used: ``take``, ``take_along_axis``, ``put``, ``flatnonzero``,
``where`` and arithmetic; the server checks index ranges (NumPy's
IndexError). Result shapes of valid keys come from _shapes in O(ndim);
NumPy's errors from indexing a data-less dummy with the same key, which
runs only for keys _shapes refuses (it walks the result's size). A boolean
mask that lives on the server costs one sync (its true-count decides the
result's shape), as in CuPy.

Advanced getitem: the basic part of the key (slices, None, ...) first
makes a view ``y``; each advanced item then covers a group of axes of
``y`` (an integer array one axis, a k-d mask k axes) and gives flat
indices within its group. One group is a ``take`` along its (merged)
axis; several groups become flat C-order positions in ``y`` (per-group
offsets plus per-axis ramps, arranged in NumPy's result layout) and one
flat ``take``. setitem uses the same positions with ``put`` on ``y``.
"""
from __future__ import annotations

import operator
from typing import Any, Iterator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from arrayd import _composite as _c
from arrayd import _dtypes, _math, _reduction, _shapes
from arrayd._ndarray import (asarray_in, attach, ndarray, scalar, session_of,
                             shape_dummy, warn_complex_to_real)

_INT64_MIN = -(1 << 63)


def _encode_slice(enc: list[int], start: int, stop: int, step: int) -> tuple[int, int]:
    """Appends the wire form of a normalized slice (slice.indices) to
    ``enc``: an empty one as 0:0:1, else a stop just past the last index
    (_INT64_MIN for "through index 0" going backwards). Returns its length
    and the step encoded."""
    length = len(range(start, stop, step))
    if length == 0:
        start, stop, step = 0, 0, 1
    else:
        last = start + (length - 1) * step
        stop = last + (1 if step > 0 else -1)
        if stop < 0:
            stop = _INT64_MIN
    enc += (1, start, stop, step)
    return length, step
_INT64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
_INDEX_TYPE_ERROR = ("arrays used as indices must be of integer (or "
                     "boolean) type")


def _zero_stride(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """A zero-filled numpy array of ``shape`` that takes one element."""
    return np.lib.stride_tricks.as_strided(
        np.zeros(1, dtype), shape, (0,) * len(shape), writeable=False)


# In an index key: an integer index array of this shape (a server array, or
# a mask's positions), by its shape alone.
_IndexShape = _shapes.IndexShape


def _index_shape(shape: tuple[int, ...], key: list[Any]) -> tuple[int, ...]:
    """NumPy's result shape of x[key] for x of ``shape``, with NumPy's
    errors, where _IndexShape entries stand for integer arrays of zeros:
    _shapes.fancy_index's for a valid key, else _dummy_index_shape's."""
    fast = _shapes.fancy_index(shape, key)
    return fast if fast is not None else _dummy_index_shape(shape, key)


def _dummy_index_shape(shape: tuple[int, ...],
                       key: list[Any]) -> tuple[int, ...]:
    """NumPy's result shape of d[key] (d a shape_dummy of ``shape``), with
    NumPy's errors, where _IndexShape entries stand for integer arrays of
    zeros. Indexing with arrays of those shapes would walk every element
    (61 ms for 2^24 on the host, for each x[idx]); instead the key is
    indexed twice with stand-ins of shape (1, ..) and (2, ..), which place
    the broadcast block in the result, and the block is their broadcast
    shape (client arrays or empty ones among them: real zeros, a walk of
    the result's size; _index_shape comes here only for keys that
    _shapes.fancy_index refuses, mostly invalid ones)."""
    d = shape_dummy(shape)
    shapes = [k for k in key if isinstance(k, _IndexShape)]
    # Client arrays among them, or empty ones: index with real zeros; also
    # for shapes that do not broadcast (NumPy raises before any walk).
    real_zeros = not shapes or any(
        isinstance(k, np.ndarray) and k.dtype != _BOOL and k.ndim
        for k in key) or any(0 in k for k in shapes)
    if not real_zeros:
        try:
            block = np.broadcast_shapes(*shapes)
        except ValueError:
            real_zeros = True
    if real_zeros:
        real = [_zero_stride(k, np.intp) if isinstance(k, _IndexShape) else k
                for k in key]
        result = d[tuple(real)]
        return result.shape if isinstance(result, np.ndarray) else ()

    def run(c: int) -> tuple[int, ...]:
        stand_in = [_zero_stride((c,) * len(k), np.intp) if isinstance(k, _IndexShape) else k
                    for k in key]
        result = d[tuple(stand_in)]
        return result.shape if isinstance(result, np.ndarray) else ()

    ones, twos = run(1), run(2)
    at = next((i for i, (a, b) in enumerate(zip(ones, twos)) if a != b), None)
    if at is None:
        return ones
    return ones[:at] + block + ones[at + len(block):]


def _record1(s: Any, op: str, inputs: tuple[int, ...], shape: Any,
             dtype: np.dtype, attrs: dict[str, Any] | None = None) -> ndarray:
    h = s.new_handle()
    s.record(op, inputs, (h,), attrs)
    return ndarray._new(s, h, tuple(shape), dtype)


def _arange_in(s: Any, n: int, step: int = 1) -> ndarray:
    return _c.arange(s, n, _INT64, 0, step)


def count_true(a: ndarray) -> int:
    """The number of nonzero elements of a server array (one sync)."""
    b = a if a.dtype == _BOOL else a.astype(_BOOL)
    return int(_reduction.sum(b))


def _flatnonzero_in(a: ndarray, count: int) -> ndarray:
    s = a._session
    return _record1(s, "flatnonzero", (a._handle,), (count,), _INT64,
                    {"count": count})


# -- basic keys ----------------------------------------------------------

def assignable_shape(vshape: tuple[int, ...],
                     target: tuple[int, ...]) -> tuple[int, ...] | None:
    """The shape a value of shape vshape takes to be assigned into target
    (NumPy's setitem rule: leading ones dropped, then broadcasting), or None
    when it cannot be."""
    stripped = vshape
    while len(stripped) > len(target) and stripped[0] == 1:
        stripped = stripped[1:]
    try:
        ok = _shapes.broadcast(stripped, target) == target
    except ValueError:
        ok = False
    return stripped if ok else None


class _AdvancedKey(Exception):
    """_encode_index met an integer-array or boolean index item."""


_SLICE = slice
_INT = int
_NP_INTEGER = np.integer


def _encode_simple(shape: tuple[int, ...], key: tuple[Any, ...],
                   strides: tuple[int, ...] | None,
                   ) -> tuple[list[int], tuple[int, ...], tuple[int, ...]] | None:
    """_encode_index for a valid key of Python or NumPy integers, slices,
    None and at most one Ellipsis, computed directly (NumPy on a dummy
    costs about 1 us an item more); None for anything else (other items,
    out-of-range integers, too many indices, bad slices), which
    _encode_index then checks with NumPy for its exceptions."""
    nd = len(shape)
    n_real = 0
    ellipsis = False
    for k in key:
        if k is None:
            continue
        if k is Ellipsis:
            if ellipsis:
                return None
            ellipsis = True
        else:
            t = type(k)
            if t is not _SLICE and t is not _INT and not isinstance(
                    k, _NP_INTEGER):
                return None
            n_real += 1
    if n_real > nd:
        return None
    enc: list[int] = []
    out_shape: list[int] = []
    out: list[int] = []
    dim = 0
    for k in key:
        if k is None:
            enc += (3, 0, 0, 0)
            out_shape.append(1)
            out.append(0)
        elif k is Ellipsis:
            enc += (2, 0, 0, 0)
            fill = nd - n_real
            out_shape += shape[dim:dim + fill]
            if strides is not None:
                out += strides[dim:dim + fill]
            dim += fill
        elif type(k) is _SLICE:
            n = shape[dim]
            try:
                start, stop, step = k.indices(n)
            except (TypeError, ValueError):
                return None
            length, step = _encode_slice(enc, start, stop, step)
            out_shape.append(length)
            if strides is not None:
                out.append(strides[dim] * step)
            dim += 1
        else:
            i = int(k)
            n = shape[dim]
            if i < 0:
                i += n
                if i < 0:
                    return None
            elif i >= n:
                return None
            enc += (0, i, 0, 0)
            dim += 1
    out_shape += shape[dim:]
    if strides is None:
        return enc, tuple(out_shape), ()
    out += strides[dim:]
    return enc, tuple(out_shape), tuple(out)


def _encode_index(shape: tuple[int, ...], key: Any,
                  strides: tuple[int, ...] | None = None,
                  ) -> tuple[list[int], tuple[int, ...], tuple[int, ...]]:
    """OPS.md ``index`` encoding of a basic index, the result shape and,
    given the array's ``strides``, the result's (as the server's BasicIndex
    computes them; else ()).

    NumPy itself (on a data-less dummy) checks the key, so errors are
    NumPy's. Slices are sent as concrete in-range start/stop/step.
    """
    if not isinstance(key, tuple):
        key = (key,)
    fast = _encode_simple(shape, key, strides)
    if fast is not None:
        return fast
    for k in key:
        if isinstance(k, (ndarray, np.ndarray, list, tuple, bool, np.bool_)):
            raise _AdvancedKey  # integer arrays, masks: below
    result = shape_dummy(shape)[key]
    out_shape = result.shape if isinstance(result, np.ndarray) else ()
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    enc: list[int] = []
    out: list[int] = []
    dim = 0
    for k in key:
        if k is None:
            enc += (3, 0, 0, 0)
            out.append(0)
        elif k is Ellipsis:
            enc += (2, 0, 0, 0)
            fill = len(shape) - n_real
            if strides is not None:
                out.extend(strides[dim:dim + fill])
            dim += fill
        elif isinstance(k, slice):
            n = shape[dim]
            start, stop, step = k.indices(n)
            _, step = _encode_slice(enc, start, stop, step)
            if strides is not None:
                out.append(strides[dim] * step)
            dim += 1
        else:
            i = operator.index(k)
            enc += (0, i + shape[dim] if i < 0 else i, 0, 0)
            dim += 1
    if strides is None:
        return enc, out_shape, ()
    out.extend(strides[dim:])
    return enc, out_shape, tuple(out)


def _getitem(self: ndarray, key: Any) -> ndarray:
    try:
        index, shape, strides = _encode_index(self._shape, key,
                                              self._full_strides())
    except _AdvancedKey:
        return _getitem_advanced(self, key)
    return self._unary_view("slice", shape, {"index": index},
                            strides=strides)


def _setitem(self: ndarray, key: Any, value: Any) -> None:
    if self._readonly:
        raise ValueError("assignment destination is read-only")
    try:
        index, target, _ = _encode_index(self._shape, key)
    except _AdvancedKey:
        _setitem_advanced(self, key, value)
        return
    s = self._session
    if isinstance(value, ndarray):
        if value._session is not s:
            raise ValueError("arrays belong to different arrayd sessions")
    elif isinstance(value, (np.ndarray, list, tuple)):
        arr = np.asarray(value) if isinstance(value, np.ndarray) else (
            np.asarray(value, dtype=self._dtype))
        value = ndarray._new(s, s.upload(arr), arr.shape,
                             _dtypes.normalize(arr.dtype))
    else:
        v = np.array(value, dtype=self._dtype)  # NumPy's cast errors
        value = scalar(s, v.item(), self._dtype)
    if value._dtype.kind == "c" and self._dtype.kind != "c":
        warn_complex_to_real()
    vshape = value._shape
    if vshape != target:
        stripped = assignable_shape(vshape, target)
        if stripped is None:
            raise ValueError(f"could not broadcast input array from "
                             f"shape {vshape} into shape {target}")
        if stripped != vshape:
            value = value.reshape(stripped)
    s.record("setitem", (self._handle, value._handle), (),
             {"index": index})


def _iter(self: ndarray) -> Iterator[ndarray]:
    if not self._shape:
        raise TypeError("iteration over a 0-d array")
    return (self[i] for i in range(self._shape[0]))


def _fill(self: ndarray, value: Any) -> None:
    """Sets every element to the scalar `value` (numpy.ndarray.fill)."""
    if (value.ndim if isinstance(value, ndarray) else np.ndim(value)) != 0:
        raise ValueError("Input object to FillWithScalar is not a scalar")
    self[...] = value


# -- parsing a key -------------------------------------------------------

class _Item:
    """One advanced key item: where it is and its flat index."""

    __slots__ = ("pos", "ystart", "naxes", "index", "unchecked")

    def __init__(self, pos: int, ystart: int, naxes: int, index: Any,
                 unchecked: int = 0):
        self.pos = pos          # position in the key tuple (adjacency rule)
        self.ystart = ystart    # first axis of y = x[basic key] it covers
        self.naxes = naxes      # axes of y it covers
        self.index = index      # np.ndarray or ndarray: flat index in group
        # A server integer index as the client gave it (negative values,
        # bounds not checked): the size of its axis; 0 when normalized.
        self.unchecked = unchecked

    def normalized(self, s: Any) -> Any:
        """The index in [0, size): take() from a server arange, which wraps
        negative values and raises NumPy's IndexError, on the server."""
        if not self.unchecked or not self.index.size:
            return self.index
        rng = _arange_in(s, self.unchecked)
        # (The arange must outlive the recording of the take that names
        # its handle, or its free could be sent first.)
        idx = _record1(s, "take", (rng._handle, self.index._handle),
                       self.index.shape, _INT64)
        del rng
        return idx


def is_advanced(key: Any) -> bool:
    ks = key if isinstance(key, tuple) else (key,)
    for k in ks:
        if isinstance(k, (ndarray, np.ndarray, list, tuple, bool, np.bool_)):
            return True
    return False


def _classify(s: Any, k: Any) -> tuple[Any, ...]:
    if isinstance(k, ndarray):
        if k._session is not s:
            raise ValueError("arrays belong to different arrayd sessions")
        if k.dtype == _BOOL:
            return ("bool0", bool(k)) if k.ndim == 0 else ("mask_srv", k)
        if k.dtype.kind in "iu":
            return ("int_srv", k)
        raise IndexError(_INDEX_TYPE_ERROR)
    if isinstance(k, (bool, np.bool_)):
        return ("bool0", bool(k))
    if isinstance(k, (np.ndarray, list, tuple)):
        arr = np.asarray(k)
        if arr.dtype == object:  # e.g. a list of arrayd scalars
            arr = np.asarray([np.asarray(v) for v in k])
        if arr.dtype.kind not in "biu":
            if arr.size == 0 and not isinstance(k, np.ndarray):
                arr = arr.astype(np.intp)  # x[[]]
            else:
                raise IndexError(_INDEX_TYPE_ERROR)
        if arr.dtype == _BOOL:
            return ("bool0", bool(arr)) if arr.ndim == 0 else (
                "mask_cli", arr)
        return ("int_cli", arr)
    return ("basic", k)


def _plan(x: ndarray, key: Any) -> tuple[ndarray, list[_Item],
                                         tuple[int, ...], bool]:
    """(y = x[basic part of key], advanced items, NumPy's result shape,
    whether the advanced items are adjacent in the key)."""
    if not isinstance(key, tuple):
        key = (key,)
    s = x._session
    kinds = [_classify(s, k) for k in key]
    dkey: list[Any] = []
    for kind in kinds:
        t, k = kind[0], kind[1]
        if t == "mask_srv":
            dkey.append(_shapes.MaskShape(k.shape))
        elif t == "int_srv":
            dkey.append(_IndexShape(k.shape))
        else:
            dkey.append(k)
    if any(isinstance(k, _shapes.MaskShape) for k in dkey) and (
            _shapes.fancy_items(x.shape, dkey) is None):
        # NumPy's IndexError for mask sizes and the rest of the key before
        # the masks' counts are read, on all-false zero-stride masks (a
        # walk of their size; a valid key's counts decide the rest below).
        _dummy_index_shape(x.shape, [
            _zero_stride(tuple(k), _BOOL)
            if isinstance(k, _shapes.MaskShape) else k for k in dkey])
    # Server masks: their true-counts decide the shape (one sync each).
    dkey2: list[Any] = []
    for j, kind in enumerate(kinds):
        if kind[0] == "mask_srv":
            n = count_true(kind[1])
            kinds[j] = ("mask_srv", kind[1], n)
            dkey2.extend([_IndexShape((n,))] * kind[1].ndim)
        else:
            dkey2.append(dkey[j])
    rshape = _index_shape(x.shape, dkey2)
    # Axes of x named by the key (for the expansion of an Ellipsis).
    named = 0
    for kind in kinds:
        t, k = kind[0], kind[1]
        if t in ("int_srv", "int_cli"):
            named += 1
        elif t in ("mask_srv", "mask_cli"):
            named += k.ndim
        elif t == "basic" and k is not None and k is not Ellipsis:
            named += 1
    basic: list[Any] = []
    items: list[_Item] = []
    xdim = ydim = 0
    for i, kind in enumerate(kinds):
        t, k = kind[0], kind[1]
        if t == "basic" and (k is None or k is Ellipsis or
                             isinstance(k, slice)):
            basic.append(k)
            if k is Ellipsis:
                xdim += x.ndim - named
                ydim += x.ndim - named
            elif k is None:
                ydim += 1
            else:
                xdim += 1
                ydim += 1
            continue
        if t == "bool0":
            basic.append(None)
            items.append(_Item(i, ydim, 1,
                               np.zeros(1 if k else 0, _INT64)))
            ydim += 1
            continue
        n = x.shape[xdim]
        if t == "basic":  # an integer among arrays: a 0-d integer array
            v = operator.index(k)
            idx: Any = np.asarray(v + n if v < 0 else v, _INT64)
            naxes = 1
        elif t == "int_cli":
            idx = k.astype(_INT64, copy=False)
            if idx.size and idx.min() < 0:
                idx = np.where(idx < 0, idx + n, idx)
            naxes = 1
        elif t == "int_srv":
            # Checked and wrapped by the take that uses it (one item) or
            # by _Item.normalized (several).
            items.append(_Item(i, ydim, 1, k, n))
            basic.append(slice(None))
            xdim += 1
            ydim += 1
            continue
        else:  # masks: flat indices within the group of axes they cover
            idx = (np.flatnonzero(k) if t == "mask_cli"
                   else _flatnonzero_in(k, kind[2]))
            naxes = k.ndim
        items.append(_Item(i, ydim, naxes, idx))
        basic.extend([slice(None)] * naxes)
        xdim += naxes
        ydim += naxes
    y = x[tuple(basic)]
    pos = [it.pos for it in items]
    adjacent = pos == list(range(pos[0], pos[0] + len(pos)))
    return y, items, rshape, adjacent


def _group_view(y: ndarray, start: int, naxes: int) -> ndarray:
    """y with the ``naxes`` axes from ``start`` merged into one."""
    if naxes == 1:
        return y
    shp = y.shape
    n = 1
    for d in shp[start:start + naxes]:
        n *= d
    return y.reshape(shp[:start] + (n,) + shp[start + naxes:])


def _positions(y: ndarray, items: list[_Item],
               rshape: tuple[int, ...], adjacent: bool) -> ndarray:
    """Flat C-order positions in y of every element of the result."""
    s = y._session
    shp = y.shape
    cs = [1] * len(shp)
    for d in range(len(shp) - 2, -1, -1):
        cs[d] = cs[d + 1] * shp[d + 1]
    covered: set[int] = set()
    adv: Any = None
    all_client = all(isinstance(it.index, np.ndarray) for it in items)
    for it in items:
        start = it.ystart
        covered.update(range(start, start + it.naxes))
        stride = cs[start + it.naxes - 1]
        term: Any
        if isinstance(it.index, np.ndarray):
            term = it.index.astype(_INT64, copy=False) * stride
        else:
            index = it.normalized(s)
            term = _math.multiply(index, stride) if stride != 1 else index
        adv = term if adv is None else (adv + term if all_client
                                        else _math.add(adv, term))
    bshape = np.broadcast_shapes(*(it.index.shape for it in items))
    rest = [d for d in range(len(shp)) if d not in covered]
    first = items[0].ystart
    if adjacent:
        pre = [d for d in rest if d < first]
        post = [d for d in rest if d > first]
        layout = pre + [None] * len(bshape) + post
    else:
        layout = [None] * len(bshape) + rest
    nb = len(bshape)
    b_at = layout.index(None) if nb else (len(pre) if adjacent else 0)
    adv_shape = (1,) * b_at + bshape + (1,) * (len(layout) - b_at - nb)
    if all_client:
        pos = asarray_in(s, np.ascontiguousarray(
            np.broadcast_to(adv, bshape)).reshape(adv_shape))
    else:
        pos = adv
        if pos.shape != bshape:
            pos = pos.view_as_broadcast(bshape)
        pos = pos.reshape(adv_shape)
    for j, d in enumerate(layout):
        if d is None or shp[d] == 1:
            continue
        ramp = _arange_in(s, shp[d], cs[d])
        ramp = ramp.reshape((1,) * j + (shp[d],) + (1,) * (
            len(layout) - j - 1))
        pos = _math.add(pos, ramp)
    if pos.shape != rshape:
        pos = pos.view_as_broadcast(rshape)
    return pos


def _getitem_advanced(x: ndarray, key: Any) -> ndarray:
    """x[key] for a key with integer arrays or boolean masks."""
    ks = key if isinstance(key, tuple) else (key,)
    if (len(ks) == 1 and isinstance(ks[0], ndarray) and ks[0].dtype == _BOOL
            and ks[0].shape == x.shape and x.ndim):
        # x[mask]: the flat take of the mask's true positions.
        m = ks[0]
        if m._session is not x._session:
            raise ValueError("arrays belong to different arrayd sessions")
        idx = _flatnonzero_in(m, count_true(m))
        return _record1(x._session, "take", (x._handle, idx._handle),
                        idx.shape, x.dtype)
    k0 = ks[0]
    if (len(ks) == 1 and type(k0) is ndarray and k0._dtype.kind in "iu"
            and x._shape and k0._session is x._session):
        # x[idx], one server integer array: one take along axis 0, which
        # wraps negative values and raises NumPy's IndexError.
        return _record1(x._session, "take", (x._handle, k0._handle),
                        k0._shape + x._shape[1:], x._dtype, {"axis": 0})
    y, items, rshape, adjacent = _plan(x, key)
    s = x._session
    if len(items) == 1:
        it = items[0]
        start = it.ystart
        yg = _group_view(y, start, it.naxes)
        idx = it.index
        if isinstance(idx, np.ndarray):
            idx = asarray_in(s, idx.astype(_INT64, copy=False))
        out = _record1(s, "take", (yg._handle, idx._handle), rshape,
                       x.dtype, {"axis": start})
        return out
    if 0 in rshape:
        return _record1(s, "empty", (), rshape, x.dtype,
                        {"shape": list(rshape), "dtype": x.dtype})
    pos = _positions(y, items, rshape, adjacent)
    return _record1(s, "take", (y._handle, pos._handle), rshape, x.dtype)


def _value_in(s: Any, value: Any, dtype: np.dtype) -> ndarray:
    """value as a server array of ``dtype`` (NumPy's cast errors)."""
    if isinstance(value, ndarray):
        if value._session is not s:
            raise ValueError("arrays belong to different arrayd sessions")
        return value if value.dtype == dtype else value.astype(dtype)
    arr = np.asarray(value)
    if arr.ndim == 0:
        v = np.array(value, dtype=dtype)  # OverflowError etc. as NumPy
        return scalar(s, v.item(), dtype)
    return asarray_in(s, arr.astype(dtype))


def _setitem_advanced(x: ndarray, key: Any, value: Any) -> None:
    """x[key] = value for a key with integer arrays or boolean masks."""
    s = x._session
    ks = key if isinstance(key, tuple) else (key,)
    v = _value_in(s, value, x.dtype)
    if (len(ks) == 1 and isinstance(ks[0], ndarray) and ks[0].dtype == _BOOL
            and ks[0].shape == x.shape and x.ndim and v.size == 1):
        # x[mask] = scalar: an in-place where, no sync.
        m = ks[0]
        if m._session is not s:
            raise ValueError("arrays belong to different arrayd sessions")
        if v.ndim:
            v = v.reshape(())
        s.record("where", (m._handle, v._handle, x._handle), (x._handle,))
        return
    k0 = ks[0]
    if (len(ks) == 1 and type(k0) is ndarray and k0._dtype.kind in "iu"
            and len(x._shape) == 1 and k0._session is s):
        # x[idx] = v for 1-d x and one server integer array: x's flat
        # positions are idx itself, which put wraps and bounds-checks.
        rshape = k0._shape
    else:
        k0 = None
        y, items, rshape, adjacent = _plan(x, key)
    # NumPy's broadcasting rule and error for the value.
    vshape = v.shape
    stripped = assignable_shape(vshape, rshape)
    if stripped is None:
        raise ValueError(f"shape mismatch: value array of shape {vshape} "
                         f"could not be broadcast to indexing result of "
                         f"shape {rshape}")
    if 0 in rshape:
        return
    if stripped != vshape:
        v = v.reshape(stripped)
    if v.shape != rshape:
        v = v.view_as_broadcast(rshape)
    if k0 is not None:
        s.record("put", (x._handle, k0._handle, v._handle), ())
        return
    pos = _positions(y, items, rshape, adjacent)
    s.record("put", (y._handle, pos._handle, v._handle), ())


# -- functions ----------------------------------------------------------------

def _index_array(s: Any, indices: Any, n: int, mode: str) -> Any:
    """indices as an int64 server array after mode wrap/clip."""
    if isinstance(indices, ndarray):
        idx = indices
        if idx.dtype == _BOOL:
            idx = idx.astype(_INT64)
        elif idx.dtype.kind not in "iu":
            raise TypeError(f"Cannot cast array data from {idx.dtype!r} to "
                            f"dtype('int64') according to the rule 'safe'")
        if mode == "wrap":
            idx = _math.remainder(idx, n)
        elif mode == "clip":
            idx = _math.minimum(_math.maximum(idx, 0), n - 1)
        return idx
    arr = _client_index(indices)
    if mode == "wrap" and n:
        arr = np.mod(arr, n)
    elif mode == "clip" and n:
        arr = np.clip(arr, 0, n - 1)
    return asarray_in(s, arr.astype(_INT64))


def _client_index(indices: Any) -> np.ndarray:
    """Client-side indices as NumPy's take/put read them: sequences are
    converted to intp, arrays must cast same_kind (NumPy's TypeError)."""
    if isinstance(indices, np.ndarray):
        if indices.dtype.kind not in "biu":
            return indices.astype(np.intp, casting="same_kind")
        return indices
    return np.asarray(indices, dtype=np.intp)


def _check_mode(mode: str) -> None:
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or "
                         f"'wrap' (got {mode!r})")


def take(a: Any, indices: Any, axis: Any = None, out: Any = None,
         mode: str = "raise") -> ndarray:
    """numpy.take: elements of a at indices (along axis, or flattened)."""
    _check_mode(mode)
    s = session_of(a, indices, out)
    a = asarray_in(s, a)
    if a.ndim == 0 and axis is not None:
        # NumPy takes from a 0-d array along axis 0 (or -1) as from its
        # flattened 1-element self.
        normalize_axis_index(axis, 1)
        axis = None
    if isinstance(indices, ndarray):
        ishape, bounds = indices.shape, (0, 0)  # the server checks values
    else:
        indices = _client_index(indices)
        ishape = indices.shape
        bounds = _shapes.index_bounds(indices) if mode == "raise" else (0, 0)
    rshape = _shapes.take(a.shape, ishape, axis, mode, bounds)
    if rshape is None:
        # AxisError and (for client indices) NumPy's IndexError.
        dummy_idx = (_zero_stride(indices.shape, np.intp)
                     if isinstance(indices, ndarray) else indices)
        res = np.take(shape_dummy(a.shape), dummy_idx, axis=axis, mode=mode)
        rshape = res.shape if isinstance(res, np.ndarray) else ()
    n = a.size if axis is None else a.shape[normalize_axis_index(axis,
                                                                 a.ndim)]
    idx = _index_array(s, indices, n, mode)
    attrs = None if axis is None else {
        "axis": normalize_axis_index(axis, a.ndim)}
    r = _record1(s, "take", (a._handle, idx._handle), rshape, a.dtype, attrs)
    if out is not None:
        if not isinstance(out, ndarray) or out.shape != rshape:
            raise ValueError("output array does not match result of "
                             "ndarray.take")
        if not np.can_cast(out.dtype, a.dtype, "safe"):
            raise TypeError(f"Cannot cast array data from {out.dtype!r} to "
                            f"{a.dtype!r} according to the rule 'safe'")
        out[...] = r
        return out
    return r


def take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> ndarray:
    """numpy.take_along_axis."""
    s = session_of(arr, indices)
    a = asarray_in(s, arr)
    server = isinstance(indices, ndarray)
    if server:
        if indices._dtype.kind not in "iu":
            raise IndexError("`indices` must be an integer array")
        dummy = None  # made only for NumPy's errors below
        ishape = indices._shape
    else:
        dummy = np.asarray(indices)
        ishape = dummy.shape
    if axis is None:
        if len(ishape) != 1:
            raise ValueError("when axis=None, `indices` must have a single "
                             "dimension.")
        a = a.reshape(-1)
        axis = 0
    rshape = None
    if server:  # (the server checks the values)
        rshape = _shapes.take_along_axis(a._shape, ishape, axis, (0, 0))
    elif dummy.dtype.kind in "iu":
        rshape = _shapes.take_along_axis(a._shape, ishape, axis,
                                         _shapes.index_bounds(dummy))
    if rshape is None:  # NumPy's errors, on data-less dummies
        if dummy is None:
            dummy = _zero_stride(ishape, np.intp)
        rshape = np.take_along_axis(shape_dummy(a._shape), dummy, axis).shape
    ax = normalize_axis_index(axis, a.ndim)
    idx = indices if isinstance(indices, ndarray) else asarray_in(
        s, dummy.astype(_INT64))
    return _record1(s, "take_along_axis", (a._handle, idx._handle), rshape,
                    a.dtype, {"axis": ax})


def put(a: Any, ind: Any, v: Any, mode: str = "raise") -> None:
    """numpy.put: a.flat[ind] = v (values repeat cyclically); in place."""
    _check_mode(mode)
    if not isinstance(a, ndarray):
        raise TypeError(f"put() argument 1 must be arrayd.ndarray, not "
                        f"{type(a).__name__}")
    s = a._session
    n = a.size
    if not isinstance(ind, ndarray):
        arr = _client_index(ind)
        if mode == "raise" and arr.size:
            if n == 0:
                raise IndexError("cannot replace elements of an empty array")
            bad = arr[(arr >= n) | (arr < -n)]
            if bad.size:
                raise IndexError(f"index {bad.flat[0]} is out of bounds for "
                                 f"axis 0 with size {n}")
        elif arr.size and n == 0:
            raise IndexError("cannot replace elements of an empty array")
    idx = _index_array(s, ind, n, mode)
    if idx.size == 0:
        return
    if mode == "raise" and isinstance(ind, ndarray):
        _check_bounds(idx, n)
    vals = _value_in(s, v, a.dtype)
    s.record("put", (a._handle, idx._handle, vals._handle), ())


def _check_bounds(idx: ndarray, n: int) -> None:
    """NumPy's IndexError at the call for a server index array out of
    [-n, n) (one sync for its extremes)."""
    if n == 0:
        raise IndexError("cannot replace elements of an empty array")
    extremes = (_reduction.min(idx), _reduction.max(idx))  # held: fetched
    lo, hi = (int(v) for v in idx._session.fetch(
        [e._handle for e in extremes]))
    bad = lo if lo < -n else hi if hi >= n else None
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for axis 0 with "
                         f"size {n}")


def compress(condition: Any, a: Any, axis: Any = None,
             out: Any = None) -> ndarray:
    """numpy.compress: the slices of a where condition is true."""
    s = session_of(condition, a, out)
    x = asarray_in(s, a)
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    ax = normalize_axis_index(axis, x.ndim)
    if isinstance(condition, ndarray):
        c = condition if condition.ndim == 1 else condition.reshape(-1)
        if c.shape[0] > x.shape[ax]:
            c = c[:x.shape[ax]]  # NumPy ignores a false tail
        idx: Any = _flatnonzero_in(c, count_true(c))
    else:
        cond = np.asarray(condition)
        if cond.ndim != 1:
            raise ValueError("condition must be a 1-d array")
        idx = np.flatnonzero(cond)
        if idx.size and idx[-1] >= x.shape[ax]:
            np.compress(cond, shape_dummy(x.shape), axis=ax)  # IndexError
    return take(x, idx, axis=ax, out=out)


def flatnonzero(a: Any) -> ndarray:
    """numpy.flatnonzero (one sync: the count decides the shape)."""
    x = asarray_in(session_of(a), a)
    return _flatnonzero_in(x, count_true(x))


def _unravel(f: ndarray, shape: tuple[int, ...]) -> tuple[ndarray, ...]:
    cs = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        cs[d] = cs[d + 1] * shape[d + 1]
    out = []
    for d, n in enumerate(shape):
        c = f if cs[d] == 1 else _math.floor_divide(f, cs[d])
        if d > 0:
            c = _math.remainder(c, n)
        out.append(c)
    return tuple(out)


def nonzero(a: Any) -> tuple[ndarray, ...]:
    """numpy.nonzero: one int64 index array per axis (one sync)."""
    x = asarray_in(session_of(a), a)
    if x.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead.")
    f = _flatnonzero_in(x, count_true(x))
    if x.ndim == 1:
        return (f,)
    return _unravel(f, x.shape)


def argwhere(a: Any) -> ndarray:
    """numpy.argwhere: (N, ndim) int64 indices of the nonzero elements."""
    x = asarray_in(session_of(a), a)
    if x.ndim == 0:
        return argwhere(x.reshape(1))[:, :0]
    f = _flatnonzero_in(x, count_true(x))
    if x.ndim == 1:
        return f.reshape(-1, 1)
    s = x._session
    shape = x.shape
    cs = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        cs[d] = cs[d + 1] * shape[d + 1]
    col = f.reshape(-1, 1)
    q = _math.floor_divide(col, asarray_in(s, np.asarray(cs, _INT64)))
    return _math.remainder(q, asarray_in(s, np.asarray(shape, _INT64)))


def diagonal(a: Any, offset: int = 0, axis1: int = 0,
             axis2: int = 1) -> ndarray:
    """numpy.diagonal: a read-only view (the server's as_strided), the
    diagonal's axis last."""
    x = asarray_in(session_of(a), a)
    offset = operator.index(offset)
    rshape = np.diagonal(shape_dummy(x.shape), offset, axis1, axis2).shape
    a1 = normalize_axis_index(axis1, x.ndim)
    a2 = normalize_axis_index(axis2, x.ndim)
    st = x._full_strides()
    others = [d for d in range(x.ndim) if d not in (a1, a2)]
    start = 0
    if rshape[-1]:
        start = offset * st[a2] if offset >= 0 else -offset * st[a1]
    strides = tuple(st[d] for d in others) + (st[a1] + st[a2],)
    return x._unary_view("as_strided", rshape, {
        "shape": list(rshape), "strides": list(strides), "offset": start,
        "writeable": False}, strides=strides, readonly=True)


def _put_method(self: ndarray, indices: Any, values: Any,
                mode: str = "raise") -> None:
    """Sets a.flat[indices] = values (numpy.ndarray.put; mode 'raise', 'wrap'
    or 'clip')."""
    put(self, indices, values, mode)


def _compress_method(self: ndarray, condition: Any, axis: Any = None,
                     out: Any = None) -> ndarray:
    """The slices along `axis` where condition is true
    (numpy.ndarray.compress)."""
    return compress(condition, self, axis, out)


class flatiter:
    """ndarray.flat: the array as 1-D in C order, for iterating, reading
    (``a.flat[i]``, slices, index arrays, masks: copies) and assigning
    (``a.flat[k] = v`` writes a itself, repeating v as NumPy does)."""

    __slots__ = ("base", "_pos", "_host")

    def __init__(self, base: ndarray) -> None:
        self.base = base
        self._pos = 0
        self._host: Any = None  # the values, fetched once when iterating

    def __len__(self) -> int:
        return self.base.size

    def __iter__(self) -> "flatiter":
        return self

    def __next__(self) -> Any:
        if self._pos >= self.base.size:
            raise StopIteration
        if self._host is None:
            self._host = self.base.get().reshape(-1)
        v = self._host[self._pos]
        self._pos += 1
        return v

    @property
    def index(self) -> int:
        """The position of the next element the iterator yields."""
        return self._pos

    def _positions(self, key: Any) -> Any:
        if key is None:
            self[None]  # NumPy's IndexError
        if isinstance(key, tuple) and len(key) == 1:
            key = key[0]
        s = self.base._session
        if isinstance(key, (int, np.integer)):
            n = self.base.size
            k = operator.index(key)
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis 0 "
                                 f"with size {n}")
            return np.asarray([k % n if n else k], np.int64)
        return _arange_in(s, self.base.size)[key]

    def __getitem__(self, key: Any) -> Any:
        if key is None:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`) "
                             "and integer or boolean arrays are valid "
                             "indices")
        if isinstance(key, tuple) and len(key) == 1:
            key = key[0]
        flat = self.base.reshape(-1)
        if isinstance(key, (int, np.integer)):
            return flat[key]
        return flat[key].copy()

    def __setitem__(self, key: Any, value: Any) -> None:
        if self.base._readonly:
            raise ValueError("assignment destination is read-only")
        put(self.base, self._positions(key), value)

    def copy(self) -> ndarray:
        """A 1-d copy of the base array in C order."""
        return self.base.flatten()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.base.reshape(-1).__array__(dtype, copy)


def _flat(self: ndarray) -> flatiter:
    """A flatiter over the array in C order (a.flat[i] reads, a.flat[i] = v
    writes)."""
    return flatiter(self)


def _set_flat(self: ndarray, value: Any) -> None:
    flatiter(self)[...] = value


attach(__getitem__=_getitem, __setitem__=_setitem, __iter__=_iter,
       fill=_fill, take=take, put=_put_method, nonzero=nonzero,
       compress=_compress_method, diagonal=diagonal,
       flat=property(_flat, _set_flat))
