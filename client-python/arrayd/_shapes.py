"""NumPy's result shapes for functions that copy, from the input shapes.

NumPy run on data-less dummies (``shape_dummy``: itemsize 0) gives exact
result shapes and NumPy's own exceptions, and for views (reshape,
expand_dims, broadcast_to, basic slicing, diagonal) it costs O(1). For
functions that copy, NumPy still walks every element of the dummy result:
80 ms to concatenate four 2^24-element dummies, 63 ms for a repeat of 2^24,
112 ms for take_along_axis of 4096x4096, which would be the whole cost of
these ops on a GPU. The helpers here compute the same shapes in O(ndim)
(O(n) in client-side index values, which the client reads anyway).

Contract of every helper: the result shape NumPy gives, or None. A shape
is answered only for arguments NumPy accepts; None is said for invalid
ones, for unusual ones (a bool axis, a dimension past intp, a boolean scalar
in a key) and for some empty results (whose walk reads nothing). The caller
then runs NumPy on dummies as before, which raises NumPy's exception and
message (or, for a valid case, gives the shape), so errors stay NumPy's
exactly; tests/python/test_shape_fast_paths.py checks both halves against
NumPy on random shapes and keys.

Layer: core (imports nothing of the package).
"""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

Shape = tuple[int, ...]

_INTP_MAX = int(np.iinfo(np.intp).max)
# NumPy 2 allows 64 dimensions; past 32 (NumPy 1's limit) NumPy decides.
_MAX_NDIM = 32


class IndexShape(tuple):
    """In a fancy key: an integer index array known by its shape alone (a
    server array; the server checks its values, the shape rules treat them
    as zeros)."""


class MaskShape(tuple):
    """In a fancy key: a boolean mask known by its shape alone (a server
    mask whose true-count is not known yet)."""


def broadcast(*shapes: Any) -> Shape:
    """np.broadcast_shapes(*shapes), computed directly for shape tuples
    (NumPy's costs about 2 us); NumPy itself for anything else and for
    shapes that do not broadcast (its ValueError)."""
    out: list[int] = []
    for sh in shapes:
        if type(sh) is not tuple:
            return np.broadcast_shapes(*shapes)
        if len(sh) > len(out):
            out[:0] = sh[:len(sh) - len(out)]
        for i, n in enumerate(sh, len(out) - len(sh)):
            m = out[i]
            if m != n and n != 1:
                if m != 1 or type(n) is not int or n < 0:
                    return np.broadcast_shapes(*shapes)
                out[i] = n
    return tuple(out)


def _is_int(v: Any) -> bool:
    """An integer NumPy takes as an index or axis (bools are left out: NumPy
    treats them apart, or refuses them)."""
    return type(v) is int or isinstance(v, np.integer)


def _size(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _fits(shape: Sequence[int]) -> Shape | None:
    """shape, if NumPy can hold it: every dimension fits intp (NumPy
    computes lengths in intp and raises on overflow), ndim <= _MAX_NDIM."""
    if len(shape) > _MAX_NDIM or any(not 0 <= d <= _INTP_MAX for d in shape):
        return None
    return tuple(int(d) for d in shape)


def _axis(axis: Any, ndim: int) -> int | None:
    """axis in [0, ndim) (an integer in [-ndim, ndim)), else None."""
    if not _is_int(axis):
        return None
    ax = int(axis)
    if not -ndim <= ax < ndim:
        return None
    return ax + ndim if ax < 0 else ax


def _in_range(bounds: tuple[int, int], n: int) -> bool:
    """Whether every index of an array whose (min, max) is bounds is in
    [-n, n)."""
    lo, hi = bounds
    return -n <= lo and hi < n


def index_bounds(idx: np.ndarray) -> tuple[int, int]:
    """(min, max) of a client index array; (0, 0) when it is empty."""
    if idx.size == 0:
        return 0, 0
    return int(idx.min()), int(idx.max())


def concatenate(shapes: Sequence[Shape], axis: Any) -> Shape | None:
    """np.concatenate(arrays, axis) for an axis that is not None."""
    # Rule: ndim >= 1, all alike; equal lengths off axis; lengths add on it.
    if not shapes:
        return None
    first = tuple(shapes[0])
    nd = len(first)
    ax = _axis(axis, nd)
    if nd == 0 or ax is None:
        return None
    total = 0
    for s in shapes:
        s = tuple(s)
        if len(s) != nd or s[:ax] != first[:ax] or s[ax + 1:] != first[ax + 1:]:
            return None
        total += s[ax]
    return _fits(first[:ax] + (total,) + first[ax + 1:])


def stack(shapes: Sequence[Shape], axis: Any) -> Shape | None:
    """np.stack(arrays, axis)."""
    # Rule: all shapes equal; a new axis of len(arrays) at axis, which counts
    # in the result's ndim.
    if not shapes:
        return None
    first = tuple(shapes[0])
    if any(tuple(s) != first for s in shapes):
        return None
    ax = _axis(axis, len(first) + 1)
    if ax is None:
        return None
    return _fits(first[:ax] + (len(shapes),) + first[ax:])


def repeat(shape: Shape, repeats: np.ndarray, axis: int) -> Shape | None:
    """np.repeat(a, repeats, axis) for an axis already in [0, a.ndim)."""
    # Rule: repeats (safe-castable to intp, at most 1-d, none negative) is one
    # count for every element along axis, or one count per element there;
    # that axis becomes the sum of the counts.
    if (repeats.ndim > 1 or not np.can_cast(repeats.dtype, np.intp, "safe")
            or not 0 <= axis < len(shape)):
        return None
    n = shape[axis]
    if repeats.size == 1:
        r = int(repeats.reshape(-1)[0])
        if r < 0:
            return None
        length = n * r
    elif repeats.shape[0] == n:
        if n == 0:
            length = 0
        else:
            lo, hi = index_bounds(repeats)
            if lo < 0 or hi * n > _INTP_MAX:  # the sum could overflow intp
                return None
            length = int(repeats.sum(dtype=np.int64))
    else:
        return None
    return _fits(shape[:axis] + (length,) + shape[axis + 1:])


def take(shape: Shape, index_shape: Shape, axis: Any, mode: str,
         bounds: tuple[int, int]) -> Shape | None:
    """np.take(a, indices, axis, mode) for a valid mode; bounds: the
    indices' (min, max) ((0, 0) for a server array: the server checks)."""
    # Rule: axis's length is replaced by indices.shape (for axis None the
    # result is indices.shape); mode 'raise' needs every index in [-n, n),
    # every mode needs n > 0 for a non-empty take.
    if axis is None:
        n = _size(shape)
        rshape = tuple(index_shape)
    else:
        ax = _axis(axis, len(shape))
        if ax is None:
            return None
        n = shape[ax]
        rshape = tuple(shape[:ax]) + tuple(index_shape) + tuple(shape[ax + 1:])
    if _size(rshape) == 0:
        return None  # NumPy's rules for empty takes (no bounds checked)
    if n == 0 or (mode == "raise" and not _in_range(bounds, n)):
        return None
    return _fits(rshape)


def take_along_axis(shape: Shape, index_shape: Shape, axis: Any,
                    bounds: tuple[int, int]) -> Shape | None:
    """np.take_along_axis(arr, indices, axis) for integer indices and an axis
    that is not None; bounds as for take."""
    # Rule: same ndim; indices.shape at axis, elsewhere indices broadcast
    # against arr (equal, or one of them 1); indices in [-n, n) at axis.
    nd = len(shape)
    ax = _axis(axis, nd)
    if ax is None or len(index_shape) != nd:
        return None
    out = []
    for d, (n, m) in enumerate(zip(shape, index_shape)):
        if d == ax or n == m or n == 1:
            out.append(m)
        elif m == 1:
            out.append(n)
        else:
            return None
    if _size(out) == 0 or not _in_range(bounds, shape[ax]):
        return None  # empty: NumPy checks no bounds; out of range: IndexError
    return _fits(out)


# -- fancy indexing ---------------------------------------------------------

def _slice_length(k: slice, n: int) -> int | None:
    """len(range(n)[k]), for a slice of integers or None with a nonzero
    step, else None."""
    for v in (k.start, k.stop, k.step):
        if v is not None and not _is_int(v):
            return None
    if k.step is not None and k.step == 0:
        return None
    return len(range(*k.indices(n)))


def fancy_items(shape: Shape, key: Sequence[Any]) -> list[Any] | None:
    """NumPy's checks of an index key that has integer or boolean arrays, as
    far as they need no array values: the list of the key's items, each
    ("basic", lengths) for a slice, None or Ellipsis or ("fancy", shape or
    None, bounds, n) for an integer, an integer array or a mask; None when
    NumPy would raise (or the key is unusual).

    Key items: None, Ellipsis, slices, integers, client numpy arrays
    (integer, or boolean of ndim >= 1), IndexShape (server integer arrays),
    MaskShape (server masks: fancy shape None, their count is not known).
    """
    # Rule (NumPy's prepare_index): one Ellipsis at most; the items name at
    # most ndim axes (a k-d mask names k); each mask's shape is that of the
    # axes it covers; integers are in [-n, n).
    if len(key) > _MAX_NDIM:
        return None
    used = 0
    ellipses = 0
    for k in key:
        if k is None:
            continue
        if k is Ellipsis:
            ellipses += 1
        elif isinstance(k, MaskShape):
            used += len(k)
        elif isinstance(k, np.ndarray):
            if k.dtype.kind == "b" and k.ndim:
                used += k.ndim
            elif k.dtype.kind in "iu":
                used += 1
            else:
                return None  # NumPy's IndexError (or a 0-d mask)
        elif isinstance(k, (slice, IndexShape)) or _is_int(k):
            used += 1
        else:
            return None  # bools, floats, other objects: NumPy decides
    nd = len(shape)
    if ellipses > 1 or used > nd:
        return None
    items: list[Any] = []
    dim = 0
    for k in key:
        if k is None:
            items.append(("basic", (1,)))
        elif k is Ellipsis:
            fill = nd - used
            items.append(("basic", tuple(shape[dim:dim + fill])))
            dim += fill
        elif isinstance(k, slice):
            length = _slice_length(k, shape[dim])
            if length is None:
                return None
            items.append(("basic", (length,)))
            dim += 1
        elif isinstance(k, MaskShape) or (isinstance(k, np.ndarray)
                                          and k.dtype.kind == "b"):
            kshape = tuple(k) if isinstance(k, MaskShape) else k.shape
            if kshape != tuple(shape[dim:dim + len(kshape)]):
                return None  # NumPy's IndexError: the mask's shape
            count = (None if isinstance(k, MaskShape)
                     else int(np.count_nonzero(k)))
            # A k-d mask is k index arrays of its true positions (in range).
            items.append(("fancy", None if count is None else (count,),
                          (0, 0), 1))
            dim += len(kshape)
        elif isinstance(k, IndexShape):
            items.append(("fancy", tuple(k), (0, 0), shape[dim]))
            dim += 1
        elif isinstance(k, np.ndarray):
            items.append(("fancy", k.shape, index_bounds(k), shape[dim]))
            dim += 1
        else:
            i = operator.index(k)
            if not _in_range((i, i), shape[dim]):
                return None
            items.append(("fancy", (), (i, i), shape[dim]))
            dim += 1
    items.append(("basic", tuple(shape[dim:])))  # the axes not named
    return items


def fancy_index(shape: Shape, key: Sequence[Any]) -> Shape | None:
    """The shape of x[key] (x of ``shape``) for a key that has integer or
    boolean arrays, as fancy_items describes it (no MaskShape), or None."""
    # Rule: the index arrays (a k-d mask: its true count) broadcast to one
    # block of dimensions, every index in range of its axis; the block
    # stands where the arrays are when nothing (not even an empty Ellipsis)
    # separates them in the key, else first; the other items keep their
    # order and lengths.
    items = fancy_items(shape, key)
    if items is None:
        return None
    fancy = [i for i, it in enumerate(items) if it[0] == "fancy"]
    if not fancy or any(items[i][1] is None for i in fancy):
        return None
    for i in fancy:
        _, _, bounds, n = items[i]
        if not _in_range(bounds, n):
            return None  # NumPy's IndexError (or no error if nothing is read)
    try:
        block = np.broadcast_shapes(*(items[i][1] for i in fancy))
    except ValueError:
        return None  # NumPy's IndexError: shape mismatch
    adjacent = fancy == list(range(fancy[0], fancy[-1] + 1))
    out: list[int] = [] if adjacent else list(block)
    for i, it in enumerate(items):
        if it[0] == "basic":
            out.extend(it[1])
        elif adjacent and i == fancy[0]:
            out.extend(block)
    return _fits(out)
