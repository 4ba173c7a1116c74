"""mgrid and ogrid against NumPy: array bounds, complex steps (points, the
stop included), NumPy's dtypes, shapes and errors; r_/c_ with array
bounds."""
from __future__ import annotations

import arrayd as ad
import numpy as np
import pytest
from helpers import check

X = np.zeros(10)[:, None]
Y = np.ones(10)[:, None]


def on_server(v):
    return ad.asarray(v) if isinstance(v, np.ndarray) else v


def server_key(key):
    """key with its NumPy arrays as arrayd arrays."""
    if isinstance(key, slice):
        return slice(on_server(key.start), on_server(key.stop),
                     on_server(key.step))
    if isinstance(key, tuple):
        return tuple(server_key(k) for k in key)
    return key


def same(got, exp):
    if isinstance(exp, tuple):
        assert isinstance(got, tuple) and len(got) == len(exp)
        for g, e in zip(got, exp):
            check(g, e)
    else:
        check(got, exp)


KEYS = [
    np.s_[X:Y:10j], np.s_[X:Y:10j, X:Y:10j], np.s_[0:], np.s_[-10:10],
    np.s_[-10:10:10j], np.s_[-10:10:10j, -10:10:10j], np.s_[X:Y:3j, 0:4],
    np.s_[0:4, X:Y:3j], np.s_[X:Y:1j, 0:2], np.s_[0:X:3j],
    np.s_[X.astype("f4"):Y.astype("f4"):5j],
    np.s_[X.astype("f4"):Y.astype("f4"):5j, X.astype("f4"):1:10j],
    np.s_[X.astype("i4"):Y.astype("i4"):5j],
    np.s_[0:Y.astype("f2"):4j, 0:2],
    np.s_[np.zeros(3):np.ones(3):3j, 0:3:3j],
    np.s_[np.zeros((2, 1, 1)):np.ones(3):3j, 0:3:3j],
    np.s_[np.array(0):np.array(5)], np.s_[np.array(0):np.array(5), 0:2],
    np.s_[np.array(0.5):np.array(5), 0:2:0.5], np.s_[0:5:np.array(2)],
    np.s_[0:np.array(5):1j], np.s_[()], np.s_[0:3:0j], np.s_[0:3:1j, 0:2],
    np.s_[0:3:1j], np.s_[None:5], np.s_[0:None], np.s_[5:0, 0:2],
    np.s_[np.int8(0):np.int8(3), 0:2], np.s_[0:1:0.25, 0:2], np.s_[0.5:3],
    np.s_[2:7:2, 1:3, 0:2], np.s_[3.0:0:-0.5, 1:3],
    np.s_[np.float32(0):np.float32(1):5j, 0:2],
    np.s_[1:2:np.complex64(5j), 0:1:3j],
]


@pytest.mark.parametrize("grid", ["mgrid", "ogrid"])
@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
def test_grid_matches_numpy(grid, key):
    """The same arrays, or the same exception (some keys hold only for
    sparse grids: array bounds broadcast against the whole dense grid)."""
    try:
        exp = getattr(np, grid)[key]
    except ValueError as e:
        with pytest.raises(ValueError) as got:
            getattr(ad, grid)[server_key(key)]
        assert str(got.value) == str(e)
        return
    same(getattr(ad, grid)[server_key(key)], exp)


def test_grid_of_arrayd_arrays_broadcasts_per_row():
    # Each row of the (10, 1) bounds spans its own points.
    lo = np.arange(10.0)[:, None]
    hi = lo * 3 + 1
    same(ad.mgrid[ad.asarray(lo):ad.asarray(hi):10j,
                  ad.asarray(lo):ad.asarray(hi):10j],
         np.mgrid[lo:hi:10j, lo:hi:10j])
    same(ad.ogrid[ad.asarray(lo):ad.asarray(hi):10j, 0:3],
         np.ogrid[lo:hi:10j, 0:3])


BAD_KEYS = [
    np.s_[X:Y, 0:3],                       # array bounds need a complex step
    np.s_[X:Y],
    np.s_[np.array([0]):np.array([5])],
    np.s_[np.array([0]):np.array([5]), 0:2],
    np.s_[X:Y:3j, 0:4],                    # (10, 1) against a (3, 4) grid
    np.s_[0:4, X:Y:3j],
    np.s_[np.zeros((2, 1, 1)):np.ones(3):3j, 0:3:3j],
    np.s_[X.astype("f4"):Y.astype("f4"):5j, X.astype("f4"):1:10j],
    np.s_[0:3:0], np.s_[0:3:0, 0:2], np.s_[-2:3, 0:-2],
    3,
]


@pytest.mark.parametrize("key", BAD_KEYS, ids=range(len(BAD_KEYS)))
def test_grid_errors_match_numpy(key):
    raised = 0
    for grid in ("mgrid", "ogrid"):
        try:
            getattr(np, grid)[key]
        except Exception as e:  # noqa: BLE001 - NumPy's class, whichever
            exp = e
        else:
            continue  # sparse grids accept some of these
        raised += 1
        with pytest.raises(type(exp)) as got:
            getattr(ad, grid)[server_key(key)]
        assert str(got.value) == str(exp)
    assert raised


def test_ogrid_sparse_shapes_of_array_bounds():
    got = ad.ogrid[ad.asarray(X):ad.asarray(Y):10j,
                   ad.asarray(X):ad.asarray(Y):10j]
    assert [g.shape for g in got] == [(10, 1, 10), (1, 10, 10)]


@pytest.mark.parametrize("name", ["r_", "c_"])
def test_concatenators_with_array_bounds(name):
    lo, hi = np.zeros(3), np.ones(3) * 2
    exp = getattr(np, name)[lo:hi:4j]
    same(getattr(ad, name)[ad.asarray(lo):ad.asarray(hi):4j], exp)
    exp = np.r_["0,2,1", lo:hi:2j]
    same(ad.r_["0,2,1", ad.asarray(lo):ad.asarray(hi):2j], exp)
