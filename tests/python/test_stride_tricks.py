"""diagonal as a read-only view, arrayd.lib.stride_tricks (as_strided,
sliding_window_view) and the server's bounds check, against NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import arrayd as ad
from arrayd.lib import stride_tricks


@pytest.mark.parametrize("shape,offset,axes", [
    ((4, 4), 0, (0, 1)), ((3, 5), 2, (0, 1)), ((3, 5), -1, (1, 0)),
    ((2, 3, 4), 1, (0, 2)), ((2, 3, 4), -2, (2, 1)), ((3, 3), 5, (0, 1))])
def test_diagonal_is_a_read_only_view(shape, offset, axes):
    n = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    x = ad.asarray(n)
    d = x.diagonal(offset, *axes)
    e = n.diagonal(offset, *axes)
    assert d.shape == e.shape and d.strides == e.strides
    np.testing.assert_array_equal(d.get(), e)
    assert d.base is x and not d.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        d[...] = 0
    t = ad.asarray(n).T.diagonal()  # of a transposed view
    np.testing.assert_array_equal(t.get(), n.T.diagonal())


def test_as_strided_and_sliding_window_view():
    n = np.arange(10.0)
    x = ad.asarray(n)
    v = stride_tricks.as_strided(x, (4, 3), (16, 8))
    np.testing.assert_array_equal(
        v.get(), np.lib.stride_tricks.as_strided(n, (4, 3), (16, 8)))
    v[0, 0] = -1  # writes through
    assert x[0].get() == -1
    m = np.arange(24).reshape(4, 6)
    for window, axis in ((3, None), ((2, 2), None), (2, 1), ((2, 3), (0, 1))):
        if axis is None and np.ndim(window) == 0:
            window, axis = (3, 3), None
        got = stride_tricks.sliding_window_view(ad.asarray(m), window, axis)
        want = np.lib.stride_tricks.sliding_window_view(m, window, axis)
        assert got.shape == want.shape and not got.flags.writeable
        np.testing.assert_array_equal(got.get(), want)
    with pytest.raises(ValueError):
        stride_tricks.sliding_window_view(ad.asarray(m), (5, 1))


def test_as_strided_outside_the_buffer_is_refused():
    x = ad.arange(4.0)
    bad = stride_tricks.as_strided(x, (4,), (16,))
    with pytest.raises(ValueError, match="outside"):
        bad.get()
    neg = stride_tricks.as_strided(x[1:], (3,), (-8,))
    with pytest.raises(ValueError, match="outside"):
        neg.get()
    huge = stride_tricks.as_strided(x, (2, 1 << 40), (1 << 40, 8))
    with pytest.raises(ValueError):
        huge.get()
    np.testing.assert_array_equal(x.get(), [0, 1, 2, 3])  # still serving
