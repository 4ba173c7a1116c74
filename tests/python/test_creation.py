"""Creation functions and data transfer against NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, sample


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_zeros_ones_full_empty(dt):
    for shape in [(), (0,), (3,), (2, 0, 3), (2, 3, 4), 5]:
        check(ad.zeros(shape, dt), np.zeros(shape, dt))
        check(ad.ones(shape, dt), np.ones(shape, dt))
        e = ad.empty(shape, dt)
        assert e.shape == np.empty(shape).shape and e.dtype == dt
        check(ad.full(shape, 1, dt), np.full(shape, 1, dt))
        check(ad.full(shape, True, dt), np.full(shape, True, dt))
    v = sample(dt, (), 1)
    check(ad.full((2, 2), v.item(), dt), np.full((2, 2), v.item(), dt))


def test_default_dtypes_and_like():
    check(ad.zeros(3), np.zeros(3))
    check(ad.full(3, 7), np.full(3, 7))
    check(ad.full(3, 2.5), np.full(3, 2.5))
    check(ad.full(3, 1j), np.full(3, 1j))
    check(ad.full((2, 2), False), np.full((2, 2), False))
    x = ad.zeros((2, 3), "i2")
    check(ad.zeros_like(x), np.zeros((2, 3), "i2"))
    check(ad.ones_like(x, dtype="f4"), np.ones((2, 3), "f4"))
    check(ad.full_like(x, 3), np.full((2, 3), 3, "i2"))
    assert ad.empty_like(x).shape == (2, 3)
    check(ad.full(3, np.float32(1.5)), np.full(3, np.float32(1.5)))


def test_creation_errors():
    with pytest.raises(ValueError, match="negative dimensions"):
        ad.zeros(-1)
    with pytest.raises(TypeError):
        ad.zeros(3, dtype="nonsense")
    with pytest.raises(TypeError):
        ad.zeros(3, dtype=object)
    with pytest.raises(TypeError):
        ad.ones((2, "a"))
    with pytest.raises(OverflowError):
        ad.full(3, -1, "u1")
    check(ad.zeros(2), np.zeros(2))


ARANGE_ARGS = [
    (6,), (0,), (-3,), (2, 10), (10, 2), (10, 2, -3), (0, 1, 0.1),
    (0.5, 4), (1, 2.5, 0.5), (-5, 5, 3), (3.0,), (0, 10, 3),
    (np.int8(0), np.int8(5)), (np.float32(0), 2), (True, 4), (0, 5, 1j),
]


def test_arange_matches_numpy():
    for args in ARANGE_ARGS:
        try:
            check(ad.arange(*args), np.arange(*args))
        except AssertionError as e:
            raise AssertionError(f"arange{args}: {e}") from None
    for dt in ALL_DTYPES:
        if dt.kind == "b":
            continue
        check(ad.arange(5, dtype=dt), np.arange(5, dtype=dt))
        check(ad.arange(1, 9, 2, dtype=dt), np.arange(1, 9, 2, dtype=dt))
    assert ad.arange(6).dtype == np.int64
    with pytest.raises(ZeroDivisionError):
        ad.arange(0, 5, 0)


def test_linspace_and_eye():
    for args, kw in [((0, 1), {}), ((0, 1, 5), {}), ((1, 0, 7), {}),
                     ((0, 10, 5), {"endpoint": False}), ((2, 3, 1), {}),
                     ((0, 1, 0), {}), ((0, 10, 6), {"dtype": "f4"}),
                     ((np.float32(0), 1, 3), {}), ((0, 1 + 1j, 4), {}),
                     ((0, 10, 5), {"dtype": "i4"})]:
        check(ad.linspace(*args, **kw), np.linspace(*args, **kw))
    a, step = ad.linspace(0, 1, 5, retstep=True)
    assert step == np.linspace(0, 1, 5, retstep=True)[1]
    with pytest.raises(ValueError):
        ad.linspace(0, 1, -1)
    for args, kw in [((3,), {}), ((3, 4), {}), ((4, 3, 1), {}),
                     ((4, 3, -2), {}), ((3,), {"dtype": "i1"}), ((0,), {}),
                     ((3, 3, 5), {}), ((2,), {"dtype": "c8"})]:
        check(ad.eye(*args, **kw), np.eye(*args, **kw))
    check(ad.identity(3), np.identity(3))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_array_roundtrip(dt):
    for shape in [(), (0,), (7,), (3, 0, 2), (4, 5)]:
        x = sample(dt, shape, 3)
        check(ad.array(x), x)
        check(ad.asarray(x), x)
        assert np.array_equal(ad.asnumpy(ad.asarray(x)), x)
    xt = sample(dt, (5, 4), 4).T  # non-contiguous numpy input
    check(ad.asarray(xt), xt)


def test_array_from_python_objects():
    check(ad.array([1, 2, 3]), np.array([1, 2, 3]))
    check(ad.array([[1.5, 2], [3, 4]]), np.array([[1.5, 2], [3, 4]]))
    check(ad.array([True, False]), np.array([True, False]))
    check(ad.array(3), np.array(3))
    check(ad.array(2.5, dtype="f2"), np.array(2.5, dtype="f2"))
    check(ad.array([1, 2], dtype="c8"), np.array([1, 2], dtype="c8"))
    check(ad.array([1, 2], ndmin=3), np.array([1, 2], ndmin=3))
    with pytest.raises(TypeError):
        ad.array(["a", "b"])


def test_array_of_arrayd_array():
    a = ad.arange(4)
    b = ad.array(a)
    a[0] = 9
    check(b, np.arange(4))
    assert ad.asarray(a) is a
    check(ad.asarray(a, dtype="f4"), np.array([9, 1, 2, 3], "f4"))


@pytest.mark.parametrize("nbytes", [(1 << 20) - 8, (1 << 20) + 8, 9 << 20])
def test_large_upload_download(nbytes, session):
    """Inline vs chunked Upload/Download RPCs around max_inline_bytes."""
    n = nbytes // 8
    x = np.random.default_rng(0).standard_normal(n)
    a = ad.asarray(x)
    np.testing.assert_array_equal(a.get(), x)
    np.testing.assert_array_equal((a * 2).get(), x * 2)
    y = x[:n // 2 * 2].astype("f4").reshape(-1, 2)[::2]  # non-contiguous
    np.testing.assert_array_equal(ad.asarray(y).get(), y)
    np.testing.assert_allclose(float(a.sum()), x.sum(), rtol=1e-9)


def test_large_download_of_a_view():
    x = np.arange(3 << 18, dtype="f8").reshape(-1, 3)  # 6 MiB
    a = ad.asarray(x)
    np.testing.assert_array_equal(a.T.get(), x.T)
    np.testing.assert_array_equal(a[::-2].get(), x[::-2])
