"""Sorting, searching and sets: sort argsort partition argpartition
searchsorted unique bincount histogram isin.

The server sorts (stable, NaN last: NumPy's order); searchsorted is a
binary search of log2(n) rounds of take + compare + where, all on the
server with no sync. Functions whose result size depends on the data
(unique, bincount, histogram with an automatic range) sync once for it.

Layer: functions (imports the core, _composite, _math, _reduction and
_statistics). Attaches ndarray's sort and partition (in place), argsort,
argpartition and searchsorted.
"""
from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from arrayd import _composite as _c
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd import _statistics as _st
from arrayd._ndarray import attach, ndarray, session_of

_INT64 = np.dtype(np.int64)


def _sort_op(op: str, a: Any, axis: Any, kth: Any = None) -> ndarray:
    a = _c.ensure(a)
    rdt = _INT64 if op.startswith("arg") else a._dtype
    attrs = {} if kth is None else {
        "kth": [int(k) for k in np.atleast_1d(np.asarray(kth)).ravel()]}
    if op == "argsort" and a.ndim == 0:
        # NumPy: a 0-d array argsorts as its 1-element flattening.
        if axis is not None:
            normalize_axis_index(operator.index(axis), 1)
        axis = None
    if axis is None:
        return _c.new(a._session, op, (a,), (a.size,), rdt, attrs or None)
    ax = normalize_axis_index(operator.index(axis), a.ndim)
    return _c.new(a._session, op, (a,), a._shape, rdt, {"axis": ax, **attrs})


def _check_order(order: Any) -> None:
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def _flip_order(a: ndarray) -> ndarray:
    """A key whose ascending order is a's descending one, NaN still last:
    -a for floats and complex, ~a (a bijection, no overflow) for integers
    and bools. Applying it twice gives a back."""
    return _m.negative(a) if a._dtype.kind in "fc" else _m.invert(a)


def sort(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *,
         stable: Any = None, descending: bool = False) -> ndarray:
    """numpy.sort (stable; NaN last; axis None sorts the flattened array;
    descending as NumPy 2.5: equal elements keep their order, NaN last)."""
    _check_order(order)
    if descending:
        return _flip_order(_sort_op("sort", _flip_order(_c.ensure(a)), axis))
    return _sort_op("sort", a, axis)


def argsort(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *,
            stable: Any = None, descending: bool = False) -> ndarray:
    """numpy.argsort (stable; int64 indices; descending as in sort)."""
    _check_order(order)
    if descending:
        return _sort_op("argsort", _flip_order(_c.ensure(a)), axis)
    return _sort_op("argsort", a, axis)


def _check_kth(a: ndarray, kth: Any, axis: Any) -> None:
    if axis is None:
        n = a.size
    else:
        if a.ndim == 0:
            normalize_axis_index(axis, 0)  # NumPy's AxisError
        n = a._shape[normalize_axis_index(operator.index(axis), a.ndim)]
    ks = np.atleast_1d(np.asarray(kth))
    if ks.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    for k in ks.tolist():
        if not -n <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")


def partition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
              order: Any = None) -> ndarray:
    """numpy.partition: the server's selection (the CPU backend's
    introselect; a full sort on a GPU, which satisfies the contract)."""
    _check_order(order)
    a = _c.ensure(a)
    _check_kth(a, kth, axis)
    return _sort_op("partition", a, axis, kth)


def argpartition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
                 order: Any = None) -> ndarray:
    """numpy.argpartition (as partition: introselect on the CPU backend,
    a full stable argsort on a GPU)."""
    _check_order(order)
    a = _c.ensure(a)
    _check_kth(a, kth, axis)
    return _sort_op("argpartition", a, axis, kth)


# -- searchsorted ----------------------------------------------------------

def bsearch(a: ndarray, v: ndarray, right: bool) -> ndarray:
    """Insertion points of v in the sorted 1-D a (left or right): the
    server's searchsorted (one binary search per element of v, in the
    common dtype of a and v, NaNs last as NumPy sorts them)."""
    return _c.new(a._session, "searchsorted", (a, v), v._shape, _INT64,
                  {"right": bool(right)})


def searchsorted(a: Any, v: Any, side: str = "left",
                 sorter: Any = None) -> ndarray:
    """numpy.searchsorted: insertion points of v in the sorted 1-D a."""
    s = session_of(a, v, sorter)
    a = _c.ensure(a, s)
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    if a.ndim != 1:
        raise ValueError("object too deep for desired array" if a.ndim > 1
                         else "object of too small depth for desired array")
    if sorter is not None:
        srt = _c.ensure(sorter, s)
        if srt._shape != a._shape:
            raise ValueError("sorter.size must equal a.size")
        a = _c.take(a, srt)
    vv = _c.ensure(v, s)
    return bsearch(a, vv, side == "right")


# -- unique ----------------------------------------------------------------

def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: Any = None, *,
           equal_nan: bool = True, sorted: bool = True) -> Any:
    """numpy.unique: the sorted unique values (axis=None: of the flattened
    array; axis=k: the unique sub-arrays along k, in lexicographic order),
    and optionally their first indices, the inverse and the counts, with
    NumPy 2's shapes (the inverse has ar's shape for axis=None and is 1-D
    along an axis). equal_nan merges NaNs for axis=None only, as NumPy.
    sorted=False gives the sorted order too. One sync: the number of unique
    values."""
    ar = _c.ensure(ar)
    if axis is not None:
        # NumPy's AxisError and TypeError for the axis, on a 1-element probe.
        np.unique(np.zeros((1,) * ar.ndim, ar._dtype), axis=axis)
        if ar.ndim != 1:
            ax = normalize_axis_index(operator.index(axis), ar.ndim)
            return _unique_axis(ar, ax, return_index, return_inverse,
                                return_counts)
    return _unique_flat(ar, return_index, return_inverse, return_counts,
                        equal_nan)


def _unique_flat(ar: ndarray, return_index: bool, return_inverse: bool,
                 return_counts: bool, equal_nan: bool) -> Any:
    s = ar._session
    flat = ar.reshape(-1)
    n = flat.size
    if n == 0:
        res: list[Any] = [flat.copy()]
        res += _unique_empty(s, return_index, return_inverse, return_counts,
                             ar._shape)
        return res[0] if len(res) == 1 else tuple(res)
    indices = return_index or return_inverse
    if flat._dtype.kind == "c" and (indices or return_counts
                                    or not equal_nan):
        # The server's sort ties every complex holding a NaN (in input
        # order), NumPy's sort does not: R+Rj < R+nanj < nan+Rj < nan+nanj.
        # For values alone with equal_nan NumPy keeps the first NaN of the
        # input, as the server's sort does.
        perm = _unique_lexsort(flat.reshape(n, 1))
        srt = _c.take(flat, perm)
    elif indices:
        perm = _c.new(s, "argsort", (flat,), (n,), _INT64)
        srt = _c.take(flat, perm)
    else:
        perm = None
        srt = _c.new(s, "sort", (flat,), (n,), flat._dtype)
    new_val = _m.not_equal(srt[1:], srt[:-1])
    if equal_nan and srt._dtype.kind in "fc":
        # NaNs sort last: only the first of them starts a value.
        new_val = _m.logical_and(new_val, _m.logical_not(_m.logical_and(
            _m.isnan(srt[1:]), _m.isnan(srt[:-1]))))
    mask = _c.concatenate([_unique_true(s), new_val])
    idx = _c.flatnonzero(mask)
    res = [_c.take(srt, idx)]
    res += _unique_extras(perm, mask, idx, return_index, return_inverse,
                          return_counts, ar._shape)
    return res[0] if len(res) == 1 else tuple(res)


def _unique_axis(ar: ndarray, ax: int, return_index: bool,
                 return_inverse: bool, return_counts: bool) -> Any:
    """unique along axis ax of an array of 2 or more dimensions: the
    sub-arrays as rows of an (n, m) matrix, lexsorted; a row starts a value
    where it differs (!=, so NaNs never match) from the previous one."""
    s = ar._session
    n = ar._shape[ax]
    rest = ar._shape[:ax] + ar._shape[ax + 1:]
    m = int(np.prod(rest, dtype=np.int64))
    order = [ax] + [d for d in range(ar.ndim) if d != ax]
    back = [order.index(d) for d in range(ar.ndim)]
    if n == 0:
        vals = _c.new(s, "empty", (), (0,) + rest, ar._dtype,
                      {"shape": [0, *rest], "dtype": ar._dtype})
        res = [vals.transpose(back)]
        res += _unique_empty(s, return_index, return_inverse, return_counts,
                             (0,))
        return res[0] if len(res) == 1 else tuple(res)
    rows = ar.transpose(order).reshape(n, m)
    if n == 1 or m == 0:
        perm = _unique_arange(s, n)
        srt = rows
    else:
        perm = _unique_lexsort(rows)
        srt = _c.take(rows, perm, axis=0)
    if n == 1 or m == 0:
        new_row = _c.new(s, "zeros", (), (n - 1,), _c.BOOL,
                         {"shape": [n - 1], "dtype": _c.BOOL})
    else:
        new_row = _r.any(_m.not_equal(srt[1:], srt[:-1]), axis=1)
    mask = _c.concatenate([_unique_true(s), new_row])
    idx = _c.flatnonzero(mask)
    u = idx.size
    vals = _c.take(srt, idx, axis=0).reshape((u,) + rest).transpose(back)
    res = [vals]
    res += _unique_extras(perm, mask, idx, return_index, return_inverse,
                          return_counts, (n,))
    return res[0] if len(res) == 1 else tuple(res)


def _unique_true(s: Any) -> ndarray:
    return _c.new(s, "full", (), (1,), _c.BOOL,
                  {"shape": [1], "dtype": _c.BOOL, "value": 1})


def _unique_arange(s: Any, n: int, step: int = 1) -> ndarray:
    return _c.new(s, "arange", (), (n,), _INT64,
                  {"start": 0, "step": step, "num": n, "dtype": _INT64})


def _unique_empty(s: Any, return_index: bool, return_inverse: bool,
                  return_counts: bool,
                  inverse_shape: tuple[int, ...]) -> list[ndarray]:
    """unique's extra results for an input of no elements."""
    empty = _c.new(s, "zeros", (), (0,), _INT64,
                   {"shape": [0], "dtype": _INT64})
    res = []
    if return_index:
        res.append(empty)
    if return_inverse:
        res.append(empty.reshape(inverse_shape))
    if return_counts:
        res.append(empty)
    return res


def _unique_extras(perm: ndarray | None, mask: ndarray, idx: ndarray,
                   return_index: bool, return_inverse: bool,
                   return_counts: bool,
                   inverse_shape: tuple[int, ...]) -> list[ndarray]:
    """First indices, inverse and counts from the sorting permutation, the
    mask of value starts (in sorted order) and its positions."""
    s = mask._session
    n = mask.size
    res = []
    if return_index:
        res.append(_c.take(perm, idx))
    if return_inverse:
        imask = _m.subtract(_st.cumsum(mask, dtype=np.int64), 1)
        inv = _c.new(s, "empty", (), (n,), _INT64,
                     {"shape": [n], "dtype": _INT64})
        s.record("put", (inv._handle, perm._handle, imask._handle), ())
        res.append(inv.reshape(inverse_shape))
    if return_counts:
        end = _c.new(s, "full", (), (1,), _INT64,
                     {"shape": [1], "dtype": _INT64, "value": n})
        res.append(_st.diff(_c.concatenate([idx, end])))
    return res


def _unique_lexsort(rows: ndarray) -> ndarray:
    """The stable argsort of the rows of the (n, m) rows, n and m >= 1, in
    lexicographic order of NumPy's element order (NaN last, NaNs tied;
    complex as NumPy sorts it; float16 NaN first, as NumPy's comparison of
    sub-arrays has it). The columns are ranked (tied elements share a
    rank), neighbouring columns paired into one key rank * n + rank and
    ranked again: log2(m) rounds of server sorts, no sync."""
    s = rows._session
    n, m = rows._shape
    if rows._dtype.kind == "c":
        keys = _unique_complex_keys(rows)
    else:
        keys = rows.T.reshape(m, n)
    if keys._shape[0] == 1 and keys._dtype != np.float16:
        return _c.new(s, "argsort", (keys.reshape(n),), (n,), _INT64)
    ranks = _unique_ranks(keys)
    while True:
        k = ranks._shape[0]
        if k == 1:
            return _c.new(s, "argsort", (ranks.reshape(n),), (n,), _INT64)
        h = k // 2
        key = _m.add(_m.multiply(ranks[0:2 * h:2], n), ranks[1:2 * h:2])
        if k % 2:
            key = _c.concatenate([key, ranks[k - 1:]])
        if key._shape[0] == 1:
            return _c.new(s, "argsort", (key.reshape(n),), (n,), _INT64)
        ranks = _unique_ranks(key)


def _unique_ranks(keys: ndarray) -> ndarray:
    """Dense ranks of each row of the (k, n) keys (int64; elements that the
    server's sort ties, NaNs among them, share one; float16 NaNs -1)."""
    s = keys._session
    k, n = keys._shape
    perm = _c.new(s, "argsort", (keys,), (k, n), _INT64, {"axis": 1})
    flat_perm = _m.add(perm, _unique_arange(s, k, n).reshape(k, 1))
    srt = _c.take(keys.reshape(-1), flat_perm)
    tie = _m.equal(srt[:, 1:], srt[:, :-1])
    if keys._dtype.kind == "f":
        tie = _m.logical_or(tie, _m.logical_and(_m.isnan(srt[:, 1:]),
                                                _m.isnan(srt[:, :-1])))
    first = _c.new(s, "zeros", (), (k, 1), _c.BOOL,
                   {"shape": [k, 1], "dtype": _c.BOOL})
    starts = _c.concatenate([first, _m.logical_not(tie)], axis=1)
    sorted_ranks = _st.cumsum(starts, axis=1, dtype=np.int64)
    ranks = _c.new(s, "empty", (), (k * n,), _INT64,
                   {"shape": [k * n], "dtype": _INT64})
    pos, vals = flat_perm.reshape(-1), sorted_ranks.reshape(-1)
    s.record("put", (ranks._handle, pos._handle, vals._handle), ())
    ranks = ranks.reshape(k, n)
    if keys._dtype == np.float16:
        # Below every other rank (0 .. n-2 when a NaN is there).
        ranks = _c.where(_m.isnan(keys), -1, ranks)
    return ranks


def _unique_complex_keys(rows: ndarray) -> ndarray:
    """NumPy's order of complex values as three real keys per column (the
    rows of the (3m, n) result): the NaN class (0: none, 1: R+nanj,
    2: nan+Rj, 3: nan+nanj), then the real and imaginary parts with NaN
    as 0 (each class sorts by its non-NaN parts)."""
    s = rows._session
    n, m = rows._shape
    fdt = np.dtype(rows._dtype.char.lower())
    rows = rows.reshape(n, m)
    re = _c.new(s, "real", (rows,), (n, m), fdt)
    im = _c.new(s, "imag", (rows,), (n, m), fdt)
    re_nan, im_nan = _m.isnan(re), _m.isnan(im)
    keys = _c.new(s, "empty", (), (m, 3, n), fdt,
                  {"shape": [m, 3, n], "dtype": fdt})
    keys[:, 0] = _m.add(_m.multiply(re_nan, 2), im_nan).T
    keys[:, 1] = _c.where(re_nan, 0, re).T
    keys[:, 2] = _c.where(im_nan, 0, im).T
    return keys.reshape(3 * m, n)


# -- counting --------------------------------------------------------------



def bincount(x: Any, weights: Any = None, minlength: int = 0) -> ndarray:
    """numpy.bincount: occurrences of each value in a non-negative integer
    array (sums of weights with ``weights``). One sync (max and min)."""
    x = _c.ensure(x)
    s = x._session
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if x.ndim != 1:
        raise ValueError("object too deep for desired array" if x.ndim > 1
                         else "object of too small depth for desired array")
    if not np.can_cast(x._dtype, np.intp, "safe"):
        raise TypeError(f"Cannot cast array data from {x._dtype!r} to "
                        f"dtype('int64') according to the rule 'safe'")
    w = None
    if weights is not None:
        w = _c.ensure(weights, s)
        if w._shape != x._shape:
            raise ValueError("The weights and list don't have the same "
                             "length.")
        w = w.astype(np.float64, copy=False)
    rdt = _INT64 if w is None else np.dtype(np.float64)
    if x.size == 0:
        return _c.new(s, "zeros", (), (minlength,), rdt,
                      {"shape": [minlength], "dtype": rdt})
    lo, hi = _c.fetch_items(_r.min(x), _r.max(x))
    if lo < 0:
        raise ValueError("'list' argument must have no negative elements")
    length = builtins.max(int(hi) + 1, minlength)
    return _counts(x, w, length)


def _counts(x: ndarray, w: ndarray | None, length: int) -> ndarray:
    """The server's bincount: occurrences (float64 sums of w) of the values
    of the 1-D integer x in [0, length); others are not counted."""
    inputs = (x,) if w is None else (x, w)
    return _c.new(x._session, "bincount", inputs, (length,),
                  _INT64 if w is None else np.dtype(np.float64),
                  {"length": int(length)})


def histogram(a: Any, bins: Any = 10, range: Any = None,  # noqa: A002
              density: Any = None, weights: Any = None) -> tuple[ndarray,
                                                                 ndarray]:
    """numpy.histogram: (counts, bin edges); bins an int or the edges.
    Without ``range``, one sync for the data's min and max."""
    a = _c.ensure(a)
    s = a._session
    flat = a.reshape(-1)
    if isinstance(bins, ndarray):
        bins = bins.get()
    if isinstance(bins, str):
        raise NotImplementedError("histogram: string bin estimators are "
                                  "not supported")
    if np.ndim(bins) == 0 and range is None and flat.size:
        if a._dtype.kind == "c":
            np.histogram(np.zeros(1, a._dtype))  # NumPy's error
        lo, hi = _c.fetch_items(_r.min(flat), _r.max(flat))
        edges = np.histogram_bin_edges(np.array([lo, hi], dtype=a._dtype),
                                       bins)
    else:
        edges = np.histogram_bin_edges(np.zeros(0, a._dtype), bins, range)
    w = None
    if weights is not None:
        w = _c.ensure(weights, s)
        if w._shape != a._shape:
            raise ValueError("weights should have the same shape as a.")
        w = w.reshape(-1)
    e = _c.upload(s, edges)
    # The server bins each value by the edges (NumPy's rule: [e[i], e[i+1]),
    # the last bin closed; values outside them and NaNs are not counted).
    nbins = edges.size - 1
    if w is None:
        counts = _c.new(s, "histogram", (flat, e), (nbins,), _INT64)
    elif w._dtype.kind == "c":
        re = _c.new(s, "histogram", (flat, e, w.real), (nbins,), np.dtype(np.float64))
        im = _c.new(s, "histogram", (flat, e, w.imag), (nbins,), np.dtype(np.float64))
        counts = _m.add(re, _m.multiply(im, 1j)).astype(w._dtype, copy=False)
    else:
        # NumPy sums the weights in float64 and returns their dtype.
        counts = _c.new(s, "histogram", (flat, e, w), (nbins,),
                        np.dtype(np.float64)).astype(w._dtype, copy=False)
    if density:
        db = _c.upload(s, np.diff(edges).astype(float))
        counts = _m.true_divide(_m.true_divide(counts, db), _r.sum(counts))
    return counts, e


def isin(element: Any, test_elements: Any, assume_unique: bool = False,
         invert: bool = False, *, kind: Any = None) -> ndarray:
    """numpy.isin: whether each element is in test_elements."""
    s = session_of(element, test_elements)
    el = _c.ensure(element, s)
    t = _c.ensure(test_elements, s).reshape(-1)
    if t.size == 0:
        r = _c.new(s, "full", (), el._shape, np.dtype(bool),
                   {"shape": list(el._shape), "dtype": np.dtype(bool),
                    "value": int(bool(invert))})
        return r
    srt = _c.new(s, "sort", (t,), t._shape, t._dtype)
    pos = _m.minimum(bsearch(srt, el, False), t.size - 1)
    found = _m.equal(_c.take(srt, pos), el)
    return _m.logical_not(found) if invert else found


def _sort_in_place(self: ndarray, axis: int = -1, kind: Any = None,
                   order: Any = None, *, stable: Any = None,
                   descending: bool = False) -> None:
    """Sorts in place (as numpy.ndarray.sort)."""
    self[...] = sort(self, axis, kind, order, descending=descending)


def _partition_in_place(self: ndarray, kth: Any, axis: int = -1,
                        kind: str = "introselect", order: Any = None) -> None:
    """Partitions in place (as numpy.ndarray.partition)."""
    self[...] = partition(self, kth, axis, kind, order)


attach(sort=_sort_in_place, partition=_partition_in_place, argsort=argsort,
       argpartition=argpartition, searchsorted=searchsorted)
