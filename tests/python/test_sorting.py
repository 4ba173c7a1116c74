"""Sorting, searching and sets against NumPy: sort argsort partition
argpartition searchsorted unique bincount histogram isin."""
from __future__ import annotations

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, ids, sample

REAL = [d for d in ALL_DTYPES if d.kind != "c"]


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_sort_argsort(dt, axis):
    x = sample(dt, (4, 6))
    a = ad.asarray(x)
    check(ad.sort(a, axis=axis), np.sort(x, axis=axis))
    check(ad.argsort(a, axis=axis), np.argsort(x, axis=axis, stable=True))
    check(ad.sort(a[:, ::2], axis=axis), np.sort(x[:, ::2], axis=axis))


def test_sort_nan_last_and_method():
    x = np.array([3.0, np.nan, -1.0, np.inf, np.nan, 0.0])
    check(ad.sort(ad.asarray(x)), np.sort(x))
    check(ad.argsort(ad.asarray(x)), np.argsort(x, stable=True))
    a = ad.asarray(x)
    a.sort()
    check(a, np.sort(x))
    check(ad.asarray(x).argsort(), np.argsort(x, stable=True))
    check(ad.sort(ad.zeros((0, 3)), 0), np.sort(np.zeros((0, 3)), 0))


@pytest.mark.parametrize("x", [
    np.array([3.0, np.nan, -1.0, np.inf, 3.0, -0.0, 0.0, np.nan, -np.inf]),
    np.array([5, -128, 127, 5, 0, -1, 5], dtype=np.int8),
    np.array([0, 255, 7, 7, 1], dtype=np.uint8),
    np.array([np.iinfo(np.int64).min, 3, np.iinfo(np.int64).max, 3]),
    np.array([True, False, True, False]),
    np.array([1.5, -2.0, 1.5, 0.25], dtype=np.float16)], ids=lambda x: x.dtype.name)
def test_sort_descending(x):
    # NumPy 2.5's descending sorts: largest first, NaN still last, equal
    # elements in their original order. The reference is Python's stable
    # sort (NumPy < 2.5 has no descending).
    def key(i):
        v = x[i].item()
        return (v != v, -int(v) if isinstance(v, (bool, int)) else -v)
    order = sorted(range(x.size), key=key)
    a = ad.asarray(x)
    check(ad.argsort(a, descending=True), np.array(order, dtype=np.int64))
    check(ad.sort(a, descending=True), x[order])
    got = ad.asarray(x)
    got.sort(descending=True)
    check(got, x[order])
    check(ad.asarray(x).argsort(descending=True), np.array(order, dtype=np.int64))


def test_sort_descending_along_axes_as_numpy():
    x = sample("f4", (4, 6))
    x[1, 2] = np.nan
    a = ad.asarray(x)
    for axis in (None, 0, 1):
        try:
            exp_v = np.sort(x, axis=axis, descending=True)
            exp_i = np.argsort(x, axis=axis, descending=True, stable=True)
        except TypeError:  # NumPy < 2.5: reverse a stable sort of -x
            flat = x.reshape(-1) if axis is None else x
            exp_i = np.argsort(-flat, axis=-1 if axis is None else axis, stable=True)
            exp_v = np.take_along_axis(flat, exp_i, axis=-1 if axis is None else axis)
        check(ad.sort(a, axis=axis, descending=True), exp_v)
        check(ad.argsort(a, axis=axis, descending=True), exp_i)


def test_sort_errors():
    with pytest.raises(np.exceptions.AxisError):
        ad.sort(ad.asarray(np.float64(1.0)))
    with pytest.raises(np.exceptions.AxisError):
        ad.argsort(ad.ones(3), axis=1)
    with pytest.raises(ValueError):
        ad.sort(ad.ones(3), order="x")


def test_partition():
    x = sample("f4", (3, 8))
    for kth in (0, 3, -1, [1, 5]):
        p = ad.partition(ad.asarray(x), kth, axis=1).get()
        e = np.partition(x, kth, axis=1)
        ks = np.atleast_1d(kth)
        np.testing.assert_array_equal(p[:, ks], e[:, ks])
        idx = ad.argpartition(ad.asarray(x), kth, axis=1).get()
        np.testing.assert_array_equal(np.take_along_axis(x, idx, 1)[:, ks],
                                      e[:, ks])
    with pytest.raises(ValueError):
        ad.partition(ad.ones(3), 3)
    with pytest.raises(TypeError):
        ad.partition(ad.ones(3), 1.5)


def _check_partitioned(p, x, kth, axis):
    # NumPy's contract along the axis: the kth elements are the sorted
    # line's, none before is greater, none after is smaller (NaNs last).
    s = np.sort(x, axis=axis)
    p, s = np.moveaxis(p, axis, -1), np.moveaxis(s, axis, -1)
    np.testing.assert_array_equal(np.sort(p, axis=-1), s)
    for k in np.atleast_1d(kth) % p.shape[-1]:
        np.testing.assert_array_equal(p[..., k], s[..., k])
        v = p[..., k:k + 1]
        if p.dtype.kind == "f":
            assert not np.any(p[..., :k] > v)
            assert not np.any(np.where(np.isnan(v), False, p[..., k + 1:] < v))
        else:
            assert not np.any(p[..., :k] > v) and not np.any(p[..., k + 1:] < v)


@pytest.mark.parametrize("dt", ["f4", "f8", "i2", "u8", "?", "f2"])
def test_partition_contract(dt):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 301)) * 4
    if dt == "?":
        x = x > 0
    x = x.astype(dt)
    if np.dtype(dt).kind == "f":
        x[1, ::7] = np.nan
    for kth, axis in ((0, 1), (150, 1), (-1, 1), ([5, 1, 5, -2], 1), (2, 0), ([0, 4], 0)):
        _check_partitioned(ad.partition(ad.asarray(x), kth, axis=axis).get(), x, kth, axis)
        idx = ad.argpartition(ad.asarray(x), kth, axis=axis).get()
        np.testing.assert_array_equal(np.sort(idx, axis=axis),
                                      np.broadcast_to(np.arange(x.shape[axis]).reshape(
                                          (-1, 1) if axis == 0 else (1, -1)), x.shape))
        _check_partitioned(np.take_along_axis(x, idx, axis), x, kth, axis)
    flat = ad.partition(ad.asarray(x), [3, 40], axis=None).get()
    _check_partitioned(flat, x.ravel(), [3, 40], 0)


@pytest.mark.parametrize("dt", REAL, ids=ids)
def test_searchsorted(dt):
    a = np.sort(sample(dt, (9,)))
    v = sample(dt, (2, 5), seed=4)
    for side in ("left", "right"):
        check(ad.searchsorted(ad.asarray(a), ad.asarray(v), side),
              np.searchsorted(a, v, side))
    check(ad.asarray(a).searchsorted(ad.asarray(v[0])),
          a.searchsorted(v[0]))


def test_searchsorted_nan_sorter_scalar():
    a = np.array([1.0, 2.0, 2.0, 5.0, np.nan])
    v = np.array([np.nan, 2.0, 0.0, 6.0, 5.0])
    for side in ("left", "right"):
        check(ad.searchsorted(ad.asarray(a), ad.asarray(v), side),
              np.searchsorted(a, v, side))
    u = np.array([5.0, 1.0, 3.0])
    s = np.argsort(u)
    check(ad.searchsorted(ad.asarray(u), ad.asarray(v), sorter=ad.asarray(s)),
          np.searchsorted(u, v, sorter=s))
    check(ad.searchsorted(ad.asarray(a), 2.0), np.searchsorted(a, 2.0))
    check(ad.searchsorted(ad.zeros(0), ad.asarray(v)),
          np.searchsorted(np.zeros(0), v))
    with pytest.raises(ValueError):
        ad.searchsorted(ad.ones(3), 1.0, side="middle")
    with pytest.raises(ValueError):
        ad.searchsorted(ad.ones((2, 2)), 1.0)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_unique(dt):
    x = sample(dt, (4, 5))
    check(ad.unique(ad.asarray(x)), np.unique(x))
    got = ad.unique(ad.asarray(x), return_index=True, return_inverse=True,
                    return_counts=True)
    exp = np.unique(x, return_index=True, return_inverse=True,
                    return_counts=True)
    assert len(got) == 4
    for g, e in zip(got, exp):
        check(g, e)


def test_unique_nan_and_empty():
    x = np.array([2.0, np.nan, 1.0, np.nan, 2.0])
    check(ad.unique(ad.asarray(x)), np.unique(x))
    check(ad.unique(ad.asarray(x), equal_nan=False),
          np.unique(x, equal_nan=False))
    u, c = ad.unique(ad.zeros(0), return_counts=True)
    eu, ec = np.unique(np.zeros(0), return_counts=True)
    check(u, eu)
    check(c, ec)
    m = np.array([[1, 2], [1, 2], [0, 5]])
    check(ad.unique(ad.asarray(m), axis=0), np.unique(m, axis=0))


@pytest.mark.parametrize("dt", [d for d in ALL_DTYPES if d.kind in "biu"
                                and d != np.dtype("u8")], ids=ids)
def test_bincount(dt):
    x = sample(dt, (20,))
    if dt.kind == "i":
        x = np.abs(x)
    check(ad.bincount(ad.asarray(x)), np.bincount(x))
    check(ad.bincount(ad.asarray(x), minlength=12),
          np.bincount(x, minlength=12))
    w = sample("f4", (20,), seed=5)
    check(ad.bincount(ad.asarray(x), ad.asarray(w)), np.bincount(x, w))


def test_bincount_errors():
    check(ad.bincount(ad.zeros(0, "i8"), minlength=3),
          np.bincount(np.zeros(0, "i8"), minlength=3))
    with pytest.raises(ValueError):
        ad.bincount(ad.asarray(np.array([1, -1])))
    with pytest.raises(TypeError):
        ad.bincount(ad.ones(3))
    with pytest.raises(ValueError):
        ad.bincount(ad.ones((2, 2), "i8"))
    with pytest.raises(ValueError):
        ad.bincount(ad.ones(2, "i8"), minlength=-1)


@pytest.mark.parametrize("dt", ["i1", "u2", "i8", "f2", "f4", "f8"])
def test_histogram(dt):
    x = sample(dt, (50,))
    for kw in ({}, {"bins": 4}, {"bins": 7, "range": (-2, 3)},
               {"bins": [-5, -1, 0, 2, 8]}, {"density": True}):
        h, e = ad.histogram(ad.asarray(x), **kw)
        eh, ee = np.histogram(x, **kw)
        check(h, eh, 1e-6 if eh.dtype.kind == "f" else None)
        check(e, ee, 2e-3 if ee.dtype.char == "e" else None)
    w = sample("f8", (50,), seed=2)
    h, e = ad.histogram(ad.asarray(x), 5, weights=ad.asarray(w))
    eh, ee = np.histogram(x, 5, weights=w)
    check(h, eh)


def test_histogram_errors():
    with pytest.raises(ValueError):
        ad.histogram(ad.asarray(np.array([1.0, np.nan])))
    with pytest.raises(ValueError):
        ad.histogram(ad.ones(3), bins=[3, 1, 2])
    with pytest.raises(ValueError):
        ad.histogram(ad.ones(3), bins=-1)
    h, e = ad.histogram(ad.zeros(0), 3)
    eh, ee = np.histogram(np.zeros(0), 3)
    check(h, eh)
    check(e, ee)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_isin(dt):
    x = sample(dt, (3, 4))
    t = sample(dt, (5,), seed=7)
    check(ad.isin(ad.asarray(x), ad.asarray(t)), np.isin(x, t))
    check(ad.isin(ad.asarray(x), ad.asarray(t), invert=True),
          np.isin(x, t, invert=True))
    check(ad.isin(ad.asarray(x), ad.zeros(0, dt)), np.isin(x, np.zeros(0, dt)))
