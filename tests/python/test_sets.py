"""Set routines against NumPy: in1d intersect1d setdiff1d setxor1d union1d
unique_all unique_counts unique_inverse unique_values ediff1d."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, ids, sample

NO_BOOL = [d for d in ALL_DTYPES if d.kind != "b"]


def check_tuple(got, expected):
    assert isinstance(got, tuple) and len(got) == len(expected)
    for g, e in zip(got, expected):
        check(g, e)


def pair(dt, shapes=((3, 4), (5, 2))):
    return sample(dt, shapes[0]), sample(dt, shapes[1], seed=1)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_intersect1d(dt):
    x, y = pair(dt)
    a, b = ad.asarray(x), ad.asarray(y)
    check(ad.intersect1d(a, b), np.intersect1d(x, y))
    check_tuple(ad.intersect1d(a, b, return_indices=True),
                np.intersect1d(x, y, return_indices=True))
    ux, uy = np.unique(x), np.unique(y)
    check_tuple(ad.intersect1d(ad.asarray(ux), ad.asarray(uy), True, True),
                np.intersect1d(ux, uy, True, True))
    check(ad.intersect1d(ad.asarray(ux), ad.asarray(uy), assume_unique=True),
          np.intersect1d(ux, uy, assume_unique=True))


def test_intersect1d_cases():
    a = np.array([2, 4, 5, 2, 1, 5])
    b = np.array([4, 6, 2, 5, 7, 6])
    check_tuple(ad.intersect1d(ad.asarray(a), ad.asarray(b), return_indices=True),
                np.intersect1d(a, b, return_indices=True))
    check(ad.intersect1d(ad.asarray(np.array([])), ad.asarray(np.array([]))),
          np.intersect1d([], []))
    e, z = np.array([], np.int8), np.array([0], np.int8)
    check_tuple(ad.intersect1d(ad.asarray(e), ad.asarray(z), return_indices=True),
                np.intersect1d(e, z, return_indices=True))
    check_tuple(ad.intersect1d(ad.asarray(z), ad.asarray(e), return_indices=True),
                np.intersect1d(z, e, return_indices=True))
    i, f = np.array([0]), np.array([], float)
    check(ad.intersect1d(ad.asarray(i), ad.asarray(f)), np.intersect1d(i, f))
    check(ad.intersect1d([1, 3, 4, 3], [3, 1, 2, 1]),
          np.intersect1d([1, 3, 4, 3], [3, 1, 2, 1]))
    n = np.array([np.nan, 1.0, np.nan])
    check(ad.intersect1d(ad.asarray(n), ad.asarray(n)), np.intersect1d(n, n))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_setdiff1d_setxor1d_union1d(dt):
    x, y = pair(dt, ((2, 3), (3, 5)))
    a, b = ad.asarray(x), ad.asarray(y)
    check(ad.setdiff1d(a, b), np.setdiff1d(x, y))
    check(ad.setxor1d(a, b), np.setxor1d(x, y))
    check(ad.union1d(a, b), np.union1d(x, y))
    ux, uy = np.unique(x), np.unique(y)
    check(ad.setdiff1d(ad.asarray(ux), ad.asarray(uy), True),
          np.setdiff1d(ux, uy, True))
    check(ad.setxor1d(ad.asarray(ux), ad.asarray(uy), True),
          np.setxor1d(ux, uy, True))


@pytest.mark.parametrize("fn", ["setdiff1d", "setxor1d", "union1d"])
def test_set_edge_cases(fn):
    np_f, ad_f = getattr(np, fn), getattr(ad, fn)
    cases = [([1, 2, 3, 2, 2, 6], [3, 4, 2, 1, 1, 9]),
             ([], []), ([1, 2], []), ([], [1.5]),
             ([True, False, True], [False]),
             ([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]),
             (np.arange(24).reshape(2, 3, 4), np.arange(8).reshape(4, 2))]
    for x, y in cases:
        x, y = np.asarray(x), np.asarray(y)
        check(ad_f(ad.asarray(x), ad.asarray(y)), np_f(x, y))
    check(ad_f([3, 1], (1, 5)), np_f([3, 1], (1, 5)))


def test_in1d():
    x = np.array([[0, 1, 2], [5, 0, 4]])
    a = ad.asarray(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check(ad.in1d(a, [0, 2]), np.isin(x, [0, 2]).ravel())
        check(ad.in1d(a, ad.asarray(np.array([0, 4])), invert=True),
              np.isin(x, [0, 4], invert=True).ravel())
        check(ad.in1d(a, []), np.isin(x, []).ravel())
    with pytest.warns(DeprecationWarning):
        ad.in1d(a, [0])


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_unique_array_api(dt):
    x = sample(dt, (10, 10))
    a = ad.asarray(x)
    for name in ("unique_all", "unique_counts", "unique_inverse"):
        got, exp = getattr(ad, name)(a), getattr(np, name)(x)
        assert type(got).__name__ == type(exp).__name__
        assert got._fields == exp._fields
        check_tuple(tuple(got), tuple(exp))
    check(ad.unique_values(a), np.sort(np.unique_values(x)))


def test_unique_array_api_nan_and_empty():
    x = np.array([[2.0, np.nan, 2.0], [np.nan, 1.0, np.nan]])
    a = ad.asarray(x)
    check_tuple(tuple(ad.unique_all(a)), tuple(np.unique_all(x)))
    check_tuple(tuple(ad.unique_counts(a)), tuple(np.unique_counts(x)))
    check(ad.unique_values(a), np.sort(np.unique_values(x)))
    e = np.empty((3, 0, 2))
    check_tuple(tuple(ad.unique_all(ad.asarray(e))), tuple(np.unique_all(e)))
    check_tuple(tuple(ad.unique_inverse(ad.asarray(e))),
                tuple(np.unique_inverse(e)))
    v = ad.unique_all([3, 1, 3])
    check(v.values, np.array([1, 3]))
    check(v.inverse_indices, np.array([1, 0, 1]))


@pytest.mark.parametrize("dt", NO_BOOL, ids=ids)
@pytest.mark.parametrize("shape", [(5,), (4, 5), (2, 3, 4), (1,), (0,)])
def test_ediff1d(dt, shape):
    x = sample(dt, shape)
    a = ad.asarray(x)
    check(ad.ediff1d(a), np.ediff1d(x))
    b = np.array([4, 4], dt)
    e = np.array([1, 2], dt)
    check(ad.ediff1d(a, to_begin=ad.asarray(b)), np.ediff1d(x, to_begin=b))
    check(ad.ediff1d(a, to_end=ad.asarray(e)), np.ediff1d(x, to_end=e))
    check(ad.ediff1d(a, to_end=ad.asarray(e), to_begin=ad.asarray(b)),
          np.ediff1d(x, to_end=e, to_begin=b))
    try:
        exp = np.ediff1d(x, to_begin=1, to_end=-1.5)
    except TypeError:  # Python int/float into unsigned or integer dtypes
        with pytest.raises(TypeError):
            ad.ediff1d(a, to_begin=1, to_end=-1.5)
    else:
        check(ad.ediff1d(a, to_begin=1, to_end=-1.5), exp)


def test_ediff1d_errors_and_no_alias():
    with pytest.raises(TypeError):
        ad.ediff1d(ad.asarray(np.arange(4, dtype=np.uint8)), to_begin=-1)
    with pytest.raises(TypeError):
        ad.ediff1d(ad.arange(4, dtype=np.int8), to_end=1.5)
    with pytest.raises(TypeError):
        ad.ediff1d(ad.asarray(np.array([True, False])))
    check(ad.ediff1d(ad.asarray(np.arange(6, dtype=np.uint8)[::-1])),
          np.ediff1d(np.arange(6, dtype=np.uint8)[::-1]))
    b = ad.asarray(np.array([1.0, 2.0]))
    r = ad.ediff1d(ad.asarray(np.array([3.0])), to_begin=b)
    r[0] = 9
    check(b, np.array([1.0, 2.0]))
