"""Indexing, views, setitem, reshape/transpose, astype and copies."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, sample

KEYS = [
    0, -1, 2, slice(None), slice(1, 3), slice(None, None, -1),
    slice(None, None, 2), slice(-2, None), slice(3, 0, -1), slice(5, 1, -2),
    slice(-10, 10), slice(10, 20), slice(None, None, -3), slice(0, 0),
    (1, 2), (slice(None), 0), (Ellipsis, 1), (0, Ellipsis), (None, 0),
    (slice(None), None, slice(1, None, 2)), Ellipsis, None,
    (Ellipsis, None), (-1, -1, -1), (slice(None, None, -1), Ellipsis, 0),
    (np.int64(1), slice(None)), (1, slice(None, None, -2), None),
]


def test_getitem_matches_numpy():
    x = sample("i4", (4, 5, 3), 1)
    a = ad.asarray(x)
    for key in KEYS:
        try:
            check(a[key], x[key])
        except AssertionError as e:
            raise AssertionError(f"key {key!r}: {e}") from None


def test_getitem_of_views_and_0d():
    x = sample("f8", (6, 7), 2)
    a = ad.asarray(x)
    check(a.T[1:, ::-2][2], x.T[1:, ::-2][2])
    check(a[::2][::-1, 3], x[::2][::-1, 3])
    check(a[2, 3], x[2, 3])  # 0-d array (CuPy's behavior)
    assert a[2, 3].shape == ()
    check(a[2, 3][...], np.asarray(x[2, 3]))
    check(a[2, 3][None], np.asarray(x[2, 3])[None])


def test_index_errors():
    a = ad.zeros((3, 4))
    with pytest.raises(IndexError):
        a[3]
    with pytest.raises(IndexError):
        a[0, -5]
    with pytest.raises(IndexError):
        a[0, 0, 0]
    with pytest.raises(IndexError):
        a[1.5]
    with pytest.raises(IndexError):
        a[..., ...]
    with pytest.raises(IndexError):
        ad.zeros(())[0]
    with pytest.raises(IndexError):
        a[[0, 3]]
    with pytest.raises(IndexError):
        a[np.array([0.5])]
    check(a[2], np.zeros(4))  # still usable


def test_write_through_slice_changes_base():
    x = np.arange(24, dtype="f4").reshape(4, 6)
    a = ad.asarray(x)
    v = a[1:3, ::2]
    v += 100
    x[1:3, ::2] += 100
    check(a, x)
    t = a.T
    t[0] = -1
    x.T[0] = -1
    check(a, x)
    r = a[::-1, ::-1]
    r[0, 0] = 42
    x[::-1, ::-1][0, 0] = 42
    check(a, x)
    check(v, x[1:3, ::2])  # the view sees later writes to the base


def test_overlapping_setitem_and_inplace_like_numpy():
    x = np.arange(10, dtype="i4")
    a = ad.asarray(x)
    a[...] = a[::-1]
    x[...] = x[::-1].copy()
    check(a, x)
    a[1:] = a[:-1]
    x[1:] = x[:-1].copy()
    check(a, x)
    a[:5] += a[5:]
    x[:5] += x[5:]
    check(a, x)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_setitem(dt):
    x = sample(dt, (4, 5), 3)
    a = ad.asarray(x)
    val = sample(dt, (5,), 4)
    for key, value in [
            (0, val), ((slice(None), 1), sample(dt, (4,), 5)),
            ((slice(1, 3), slice(None, None, -2)), sample(dt, (1, 3), 6)),
            (Ellipsis, x[::-1].copy()), ((-1, -1), val[0]),
            ((slice(None), slice(0, 2)), sample(dt, (2,), 7))]:
        x[key] = value
        a[key] = ad.asarray(value)
    a[1] = 1
    x[1] = 1
    a[2, ::2] = True
    x[2, ::2] = True
    a[3] = np.array([1, 0, 1, 0, 1], dtype="i8")  # numpy input, cast
    x[3] = np.array([1, 0, 1, 0, 1], dtype="i8")
    check(a, x)


def test_setitem_errors_and_casting():
    a = ad.zeros((2, 3), "u1")
    with pytest.raises(OverflowError):
        a[0] = -1
    with pytest.raises(ValueError, match="could not broadcast"):
        a[0] = ad.zeros(4, "u1")
    a[0] = 2.7  # NumPy truncates
    a[1, :] = [1, 2, 3]
    x = np.zeros((2, 3), "u1")
    x[0] = 2.7
    x[1, :] = [1, 2, 3]
    check(a, x)
    b = ad.zeros((2, 3))
    b[:] = ad.ones((1, 1, 3))  # leading 1s are dropped, like NumPy
    check(b, np.ones((2, 3)))
    b.fill(7)
    check(b, np.full((2, 3), 7.0))


def test_reshape():
    x = np.arange(24).reshape(2, 3, 4)
    a = ad.asarray(x)
    for shape in [(24,), (-1,), (4, -1), (2, 12), ((6, 4)), (1, 24, 1), (-1, 2, 3)]:
        check(a.reshape(shape), x.reshape(shape))
    check(a.reshape(6, 4), x.reshape(6, 4))
    check(ad.reshape(a, (3, 8)), x.reshape(3, 8))
    check(a.T.reshape(-1), x.T.reshape(-1))  # non-contiguous: a copy
    check(a[:, ::2].reshape(2, -1), x[:, ::2].reshape(2, -1))
    check(a.ravel(), x.ravel())
    check(a.T.flatten(), x.T.flatten())
    check(ad.zeros((0, 3)).reshape(3, 0), np.zeros((0, 3)).reshape(3, 0))
    check(ad.asarray(np.float32(1)).reshape(1, 1), np.float32(1).reshape(1, 1))
    with pytest.raises(ValueError, match="cannot reshape"):
        a.reshape(5, -1)
    with pytest.raises(ValueError):
        a.reshape(-1, -1)


def test_reshape_view_shares_data():
    a = ad.zeros((2, 6))
    r = a.reshape(3, 4)
    r[0] = 1
    x = np.zeros((2, 6))
    x.reshape(3, 4)[0] = 1
    check(a, x)


def test_transpose():
    x = sample("c8", (2, 3, 4), 5)
    a = ad.asarray(x)
    check(a.T, x.T)
    check(a.transpose(), x.transpose())
    check(a.transpose(1, 0, 2), x.transpose(1, 0, 2))
    check(a.transpose((2, 0, 1)), x.transpose((2, 0, 1)))
    check(a.transpose(-1, 0, 1), x.transpose(-1, 0, 1))
    check(ad.transpose(a, (0, 2, 1)), np.transpose(x, (0, 2, 1)))
    check(a.swapaxes(0, 2), x.swapaxes(0, 2))
    with pytest.raises(ValueError):
        a.transpose(0, 1)
    with pytest.raises(np.exceptions.AxisError):
        a.transpose(0, 1, 3)
    with pytest.raises(ValueError):
        a.transpose(0, 0, 1)


def test_astype_all_pairs():
    for i, d1 in enumerate(ALL_DTYPES):
        x = sample(d1, (3, 2), i, positive=True)  # values valid everywhere
        a = ad.asarray(x)
        for d2 in ALL_DTYPES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # complex -> real
                expected = x.astype(d2)
            try:
                check(a.astype(d2), expected)
                check(a.T.astype(d2), expected.T)
            except AssertionError as e:
                raise AssertionError(f"astype {d1}->{d2}: {e}") from None
    a = ad.zeros(3, "f4")
    assert a.astype("f4", copy=False) is a
    assert a.astype("f4") is not a
    with pytest.raises(TypeError):
        a.astype("U5")
    with pytest.raises(TypeError):
        a.astype("nonsense")


def test_copy_is_independent():
    a = ad.arange(6)
    c = a.copy()
    c2 = ad.copy(a[::-1])
    a[0] = 100
    check(c, np.arange(6))
    check(c2, np.arange(6)[::-1])


def test_broadcast_to():
    x = np.arange(3, dtype="f4")
    check(ad.broadcast_to(ad.asarray(x), (4, 3)), np.broadcast_to(x, (4, 3)))
    with pytest.raises(ValueError):
        ad.broadcast_to(ad.asarray(x), (4, 2))


def test_iteration_len_and_newaxis():
    x = sample("i2", (3, 2), 9)
    a = ad.asarray(x)
    assert len(a) == 3
    rows = list(a)
    assert len(rows) == 3
    for r, e in zip(rows, x):
        check(r, e)
    with pytest.raises(TypeError, match="unsized"):
        len(ad.asarray(np.int8(1)))
    with pytest.raises(TypeError):
        iter(ad.asarray(np.int8(1)))
    check(a[ad.newaxis], x[np.newaxis])
