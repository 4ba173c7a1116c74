"""Set routines: in1d intersect1d setdiff1d setxor1d union1d, the Array
API's unique_all unique_counts unique_inverse unique_values, ediff1d.

Built on the server's sort and argsort through arrayd's unique and isin
(_sorting): adjacent elements of a sorted array are compared on the
server, and the elements kept are selected with flatnonzero, so each
function syncs only to read how many elements its result has (unique's
count, a mask's count).

Layer: functions (imports the core, _composite, _math, _indexing,
_manipulation and _sorting).
"""
from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np

from arrayd import _composite as _c
from arrayd import _manipulation, _sorting
from arrayd import _math as _m
from arrayd._ndarray import asarray_in, ndarray, session_of

__all__ = [
    "ediff1d", "in1d", "intersect1d", "setdiff1d", "setxor1d", "union1d",
    "unique_all", "unique_counts", "unique_inverse", "unique_values",
]

_BOOL = np.dtype(np.bool_)


class UniqueAllResult(NamedTuple):
    values: ndarray
    indices: ndarray
    inverse_indices: ndarray
    counts: ndarray


class UniqueCountsResult(NamedTuple):
    values: ndarray
    counts: ndarray


class UniqueInverseResult(NamedTuple):
    values: ndarray
    inverse_indices: ndarray


def _flat(s: Any, a: Any) -> ndarray:
    return asarray_in(s, a).reshape(-1)


def _true_const(s: Any) -> ndarray:
    return _c.new(s, "full", (), (1,), _BOOL,
                  {"shape": [1], "dtype": _BOOL, "value": 1})


# -- the Array API's unique functions ----------------------------------------

def unique_all(x: Any) -> UniqueAllResult:
    """numpy.unique_all: sorted values, first indices, inverse (x's shape)
    and counts; NaNs are all distinct (equal_nan=False)."""
    return UniqueAllResult(*_sorting.unique(
        x, return_index=True, return_inverse=True, return_counts=True,
        equal_nan=False))


def unique_counts(x: Any) -> UniqueCountsResult:
    """numpy.unique_counts: sorted values and their counts."""
    return UniqueCountsResult(*_sorting.unique(x, return_counts=True,
                                               equal_nan=False))


def unique_inverse(x: Any) -> UniqueInverseResult:
    """numpy.unique_inverse: sorted values and the inverse (x's shape)."""
    return UniqueInverseResult(*_sorting.unique(x, return_inverse=True,
                                                equal_nan=False))


def unique_values(x: Any) -> ndarray:
    """numpy.unique_values: the distinct values (sorted here)."""
    return _sorting.unique(x, equal_nan=False)


# -- set operations --------------------------------------------------------

def in1d(ar1: Any, ar2: Any, assume_unique: bool = False,
         invert: bool = False, *, kind: Any = None) -> ndarray:
    """numpy.in1d (deprecated by NumPy 2.0 and gone in 2.4, kept as in
    CuPy): isin of the flattened ar1."""
    warnings.warn("`in1d` is deprecated. Use `np.isin` instead.",
                  DeprecationWarning, stacklevel=2)
    s = session_of(ar1, ar2)
    return _sorting.isin(_flat(s, ar1), ar2, assume_unique, invert,
                         kind=kind)


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False,
                return_indices: bool = False) -> Any:
    """numpy.intersect1d: the sorted values in both arrays, and with
    ``return_indices`` where each first occurs in ar1 and in ar2."""
    s = session_of(ar1, ar2)
    a1 = asarray_in(s, ar1)
    a2 = asarray_in(s, ar2)
    if assume_unique:
        a1, a2 = a1.reshape(-1), a2.reshape(-1)
    elif return_indices:
        a1, ind1 = _sorting.unique(a1, return_index=True)
        a2, ind2 = _sorting.unique(a2, return_index=True)
    else:
        a1, a2 = _sorting.unique(a1), _sorting.unique(a2)
    aux = _manipulation.concatenate([a1, a2])
    n = aux.size
    if return_indices:
        perm = _sorting.argsort(aux)
        aux = _c.take(aux, perm)
    else:
        aux = _sorting.sort(aux)
    if n < 2:
        keep = _c.new(s, "zeros", (), (0,), _c.INT64,
                      {"shape": [0], "dtype": _c.INT64})
    else:
        keep = _c.flatnonzero(_m.equal(aux[1:], aux[:-1]))
    both = _c.take(aux, keep)
    if not return_indices:
        return both
    i1 = _c.take(perm, keep)
    i2 = _m.subtract(_c.take(perm, _m.add(keep, 1)), a1.size)
    if not assume_unique:
        i1 = _c.take(ind1, i1)
        i2 = _c.take(ind2, i2)
    return both, i1, i2


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> ndarray:
    """numpy.setdiff1d: the values of ar1 not in ar2 (sorted and unique
    unless assume_unique)."""
    s = session_of(ar1, ar2)
    if assume_unique:
        a1 = _flat(s, ar1)
        a2: Any = ar2
    else:
        a1 = _sorting.unique(asarray_in(s, ar1))
        a2 = _sorting.unique(asarray_in(s, ar2))
    keep = _sorting.isin(a1, a2, assume_unique=True, invert=True)
    return _c.take(a1, _c.flatnonzero(keep))


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> ndarray:
    """numpy.setxor1d: the sorted values in exactly one of the arrays."""
    s = session_of(ar1, ar2)
    a1, a2 = asarray_in(s, ar1), asarray_in(s, ar2)
    if not assume_unique:
        a1, a2 = _sorting.unique(a1), _sorting.unique(a2)
    aux = _manipulation.concatenate([a1, a2], axis=None)
    if aux.size == 0:
        return aux
    aux = _sorting.sort(aux)
    t = _true_const(s)
    flag = _c.concatenate([t, _m.not_equal(aux[1:], aux[:-1]), t])
    single = _m.logical_and(flag[1:], flag[:-1])
    return _c.take(aux, _c.flatnonzero(single))


def union1d(ar1: Any, ar2: Any) -> ndarray:
    """numpy.union1d: the sorted values in either array."""
    s = session_of(ar1, ar2)
    both = _manipulation.concatenate([asarray_in(s, ar1),
                                      asarray_in(s, ar2)], axis=None)
    return _sorting.unique(both)


# -- differences -------------------------------------------------------------

def _edge(s: Any, v: Any, dt: np.dtype, name: str) -> ndarray | None:
    if v is None:
        return None
    a = asarray_in(s, v)
    if not np.can_cast(a.dtype, dt, casting="same_kind"):
        raise TypeError(f"dtype of `{name}` must be compatible with input "
                        "`ary` under the `same_kind` rule.")
    a = a.reshape(-1)
    return a if a.dtype == dt else a.astype(dt)


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> ndarray:
    """numpy.ediff1d: differences of the flattened ary (in its dtype), with
    to_begin and to_end around them."""
    s = session_of(ary, to_end, to_begin)
    a = _flat(s, ary)
    dt = a.dtype
    begin = _edge(s, to_begin, dt, "to_begin")
    end = _edge(s, to_end, dt, "to_end")
    parts = []
    if begin is not None:
        parts.append(begin)
    d = _m.subtract(a[1:], a[:-1])  # NumPy's TypeError for bool, even empty
    if d.size:
        parts.append(d if d.dtype == dt else d.astype(dt))
    if end is not None:
        parts.append(end)
    if not parts:
        return _c.new(s, "empty", (), (0,), dt, {"shape": [0], "dtype": dt})
    if len(parts) == 1:
        return parts[0] if parts[0] is not begin and parts[0] is not end \
            else parts[0].copy()
    return _manipulation.concatenate(parts)
