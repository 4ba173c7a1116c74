"""take and integer-array indexing (one checked gather kernel; on CUDA the
bounds are checked on the device and reported at the next sync) against
NumPy, with NumPy's IndexError for an index out of bounds."""
from __future__ import annotations

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, ids, sample


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
def test_take_along_every_axis_with_negative_indices(dtype):
    x = sample(dtype, (4, 5, 6), 1)
    a = ad.asarray(x)
    for axis, n in ((0, 4), (1, 5), (2, 6), (-1, 6)):
        idx = np.array([[0, n - 1], [-1, -n]])
        check(ad.take(a, ad.asarray(idx), axis=axis), np.take(x, idx, axis=axis))
    flat = np.array([0, 119, -120, 7, 7])
    check(ad.take(a, ad.asarray(flat)), np.take(x, flat))
    check(a[ad.asarray([3, -4, 1])], x[[3, -4, 1]])
    check(a[:, ad.asarray(np.array([4, 0], np.int32))], x[:, [4, 0]])


def test_take_of_views_and_empty_arrays():
    x = np.arange(60.0).reshape(6, 10)
    a = ad.asarray(x)
    check(a.T[ad.asarray([9, 0])], x.T[[9, 0]])
    check(a[::2, ::3][ad.asarray([2, 0])], x[::2, ::3][[2, 0]])
    check(ad.take(a, ad.asarray(np.zeros(0, np.int64)), axis=1), np.take(x, [], axis=1))
    with pytest.raises(IndexError, match="empty"):
        ad.take(ad.zeros((0, 3)), ad.asarray([0]), axis=0).get()


def test_an_index_out_of_bounds_is_numpys_index_error_at_the_next_sync():
    a = ad.arange(10, dtype=np.float32)
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 10"):
        a[ad.asarray([1, 10, 2])].get()
    with pytest.raises(IndexError, match="index -11 is out of bounds"):
        ad.take(a, ad.asarray([-11]))
        ad.synchronize()
    m = ad.asarray(np.arange(12).reshape(3, 4))
    with pytest.raises(IndexError, match="for axis 1 with size 4"):
        ad.take(m, ad.asarray([0, 4]), axis=1).get()
    # The session keeps working, and a later sync is clean.
    check(a[ad.asarray([9, -10])], np.arange(10, dtype=np.float32)[[9, -10]])
    ad.synchronize()


def test_put_and_setitem_check_their_indices_and_write_nothing_on_error():
    # put and x[idx] = v check every index in the scatter (on CUDA on the
    # device); the error of an op without outputs comes at the next sync,
    # and a bad index writes nothing.
    for n in (1, 3, 5000):
        a = ad.zeros(10, dtype=np.float32)
        idx = np.arange(n) % 10
        idx[-1] = 10
        with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 10"):
            a[ad.asarray(idx)] = ad.ones(n, dtype=np.float32)
            ad.synchronize()
        check(a, np.zeros(10, np.float32))
        with pytest.raises(IndexError, match="index -11 is out of bounds"):
            ad.put(a, ad.asarray(np.r_[idx[:-1], -11]), 2.0)
            ad.synchronize()
        check(a, np.zeros(10, np.float32))
    # Negative indices count from the end; the last write wins.
    a = ad.zeros(6)
    a[ad.asarray([-1, 0, -1, 2])] = ad.asarray([1.0, 2.0, 3.0, 4.0])
    check(a, np.array([2.0, 0, 4.0, 0, 0, 3.0]))
    b = ad.zeros((3, 4), dtype=np.int32)
    ad.put(b, ad.asarray(np.array([[11, -12]], np.int16)), ad.asarray([7, 8]))
    e = np.zeros((3, 4), np.int32)
    np.put(e, [11, -12], [7, 8])
    check(b, e)


def test_take_along_axis_checks_on_the_device():
    x = np.arange(12.0).reshape(3, 4)
    a = ad.asarray(x)
    idx = np.array([[0, -1], [3, -4], [1, 2]])
    check(ad.take_along_axis(a, ad.asarray(idx), 1), np.take_along_axis(x, idx, 1))
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
        ad.take_along_axis(a, ad.asarray(np.array([[0], [4], [1]])), 1).get()
    with pytest.raises(IndexError, match="index -4 is out of bounds for axis 0 with size 3"):
        ad.take_along_axis(a, ad.asarray(np.array([[-4, 0, 0, 0]])), 0).get()
    check(ad.take_along_axis(a, ad.asarray(idx), 1), np.take_along_axis(x, idx, 1))
