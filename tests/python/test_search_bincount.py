"""searchsorted and bincount are server ops (a binary search per element;
counts by atomic adds on CUDA, in order on the CPU), and histogram is built
on them: each against NumPy, NaNs, edges and weights included."""
from __future__ import annotations

import numpy as np
import pytest

import arrayd as ad
from helpers import check


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "float16", "float32",
                                   "float64", "complex64", "bool"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(dtype, side):
    rng = np.random.default_rng(3)
    a = np.sort((rng.standard_normal(200) * 20).astype(dtype))
    v = (rng.standard_normal((7, 9)) * 25).astype(dtype)
    if np.dtype(dtype).kind in "fc":
        a = np.sort(np.concatenate([a, np.array([np.nan, np.nan], dtype)]))
        v.flat[:3] = np.nan
    v.flat[3:6] = a[[0, 5, 150]]  # ties
    check(ad.searchsorted(ad.asarray(a), ad.asarray(v), side=side),
          np.searchsorted(a, v, side=side))


def test_searchsorted_mixed_dtypes_sorter_scalars_and_empty():
    a = np.array([1, 3, 3, 7], np.int32)
    v = np.array([0.5, 3.0, 3.5, 9.0])
    check(ad.searchsorted(ad.asarray(a), ad.asarray(v)), np.searchsorted(a, v))
    check(ad.searchsorted(ad.asarray(a), 3, side="right"), np.searchsorted(a, 3, side="right"))
    perm = np.array([2, 0, 3, 1])
    un = np.array([3, 1, 7, 3], np.int32)
    check(ad.searchsorted(ad.asarray(un), ad.asarray(v), sorter=ad.asarray(perm)),
          np.searchsorted(un, v, sorter=perm))
    check(ad.searchsorted(ad.zeros(0), ad.asarray(v)), np.searchsorted(np.zeros(0), v))
    check(ad.searchsorted(ad.asarray(a), ad.zeros(0)), np.searchsorted(a, np.zeros(0)))
    with pytest.raises(ValueError):
        ad.searchsorted(ad.asarray(a), ad.asarray(v), side="middle")


def test_bincount_counts_weights_and_minlength():
    rng = np.random.default_rng(4)
    x = rng.integers(0, 50, 10_000)
    w = rng.standard_normal(10_000)
    check(ad.bincount(ad.asarray(x)), np.bincount(x))
    check(ad.bincount(ad.asarray(x), minlength=80), np.bincount(x, minlength=80))
    check(ad.bincount(ad.asarray(x), weights=ad.asarray(w)), np.bincount(x, weights=w))
    check(ad.bincount(ad.asarray(x.astype(np.uint8)), weights=ad.asarray(w.astype(np.float32))),
          np.bincount(x.astype(np.uint8), weights=w.astype(np.float32)))
    check(ad.bincount(ad.asarray(np.array([True, False, True]))),
          np.bincount(np.array([True, False, True])))
    with pytest.raises(ValueError, match="negative"):
        ad.bincount(ad.asarray(np.array([1, -1])))
    with pytest.raises(TypeError):
        ad.bincount(ad.asarray(np.array([1.5])))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_histogram_bins_edges_and_weights(dtype):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(5000) * 3).astype(dtype)
    a[:4] = [-4, 4, 0, 1]  # on the range's edges and on inner edges
    for kw in ({"bins": 10}, {"bins": 16, "range": (-4, 4)}, {"bins": [-5, -1, 0, 0.5, 3, 8]},
               {"bins": 7, "range": (-1, 1), "density": True}):
        got_c, got_e = ad.histogram(ad.asarray(a), **kw)
        want_c, want_e = np.histogram(a, **kw)
        check(got_c, want_c)
        check(got_e, want_e)
    w = rng.standard_normal(5000).astype(np.float32)
    got_c, _ = ad.histogram(ad.asarray(a), bins=12, weights=ad.asarray(w))
    check(got_c, np.histogram(a, bins=12, weights=w)[0])
    wc = (w + 1j * w[::-1]).astype(np.complex64)
    got_c, _ = ad.histogram(ad.asarray(a), bins=5, range=(-2, 2), weights=ad.asarray(wc))
    check(got_c, np.histogram(a, bins=5, range=(-2, 2), weights=wc)[0])


def test_histogram_skips_nans_outside_a_given_range():
    a = np.array([np.nan, 0.1, 0.5, 0.9, 2.0, -1.0], np.float32)
    got_c, got_e = ad.histogram(ad.asarray(a), bins=4, range=(0, 1))
    want_c, want_e = np.histogram(a, bins=4, range=(0, 1))
    check(got_c, want_c)
    check(got_e, want_e)
