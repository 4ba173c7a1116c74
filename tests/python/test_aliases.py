"""NumPy 1.x aliases CuPy keeps, the Array API's unstack and cumulative_*,
and bitwise_count, against NumPy."""
from __future__ import annotations

import arrayd as ad
import numpy as np
import pytest


@pytest.mark.parametrize("dtype", ["?", "i1", "u1", "i2", "u2", "i4", "u4",
                                   "i8", "u8"])
def test_bitwise_count(dtype):
    info = np.iinfo(dtype) if dtype != "?" else None
    vals = [0, 1, 5, 127] + ([int(info.min), int(info.max)] if info else [])
    x = np.array(vals).astype(dtype)
    got = ad.bitwise_count(ad.asarray(x))
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got.get(), np.bitwise_count(x))
    with pytest.raises(TypeError):
        ad.bitwise_count(ad.ones(2))


@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_and_prod(include_initial):
    n = np.arange(1, 7).reshape(2, 3)
    for f in ("cumulative_sum", "cumulative_prod"):
        for axis in (0, 1, -1):
            got = getattr(ad, f)(ad.asarray(n), axis=axis,
                                 include_initial=include_initial)
            want = getattr(np, f)(n, axis=axis,
                                  include_initial=include_initial)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.get(), want)
        with pytest.raises(ValueError):
            getattr(ad, f)(ad.asarray(n))
    np.testing.assert_array_equal(
        ad.cumulative_sum(ad.arange(4), include_initial=include_initial)
        .get(), np.cumulative_sum(np.arange(4),
                                  include_initial=include_initial))


def test_unstack():
    n = np.arange(24).reshape(2, 3, 4)
    for axis in (0, 1, -1):
        got = ad.unstack(ad.asarray(n), axis=axis)
        want = np.unstack(n, axis=axis)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.get(), w)
    with pytest.raises(ValueError):
        ad.unstack(ad.asarray(3))


def test_numpy1_aliases():
    x = ad.asarray(np.array([[1, 0], [1, 1]]))
    with pytest.warns(DeprecationWarning):
        assert not bool(ad.alltrue(x))
    with pytest.warns(DeprecationWarning):
        assert bool(ad.sometrue(x))
    with pytest.warns(DeprecationWarning):
        assert int(ad.product(ad.arange(1, 5))) == 24
    with pytest.warns(DeprecationWarning):
        np.testing.assert_array_equal(ad.cumproduct(ad.arange(1, 4)).get(),
                                      [1, 2, 6])
    np.testing.assert_array_equal(ad.round_(ad.asarray([1.26]), 1).get(),
                                  [1.3])
    with pytest.warns(DeprecationWarning):
        assert float(ad.trapz(ad.asarray([1.0, 2.0, 3.0]))) == 4.0
    assert ad.asfarray([1, 2]).dtype == np.float64
    assert ad.asfarray([1, 2], np.float32).dtype == np.float32
    assert isinstance(ad.arange(3).flat, ad.flatiter)
