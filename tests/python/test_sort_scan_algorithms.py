"""sort, argsort, cumsum and cumprod against NumPy for every dtype, along
every axis and on the shapes that take different paths in the backends:
one row, many short rows, a row per element, empty and 0-d arrays (CUB's
radix sort and scans on CUDA, cub_sort.cu and cub_scan.cu; sequential loops
on the CPU)."""
from __future__ import annotations

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, ids, sample

SHAPES = [(1,), (1000,), (37, 5), (5, 37), (64, 1), (3, 4, 5), (4096, 3)]


def special(dtype, n, seed=0) -> np.ndarray:
    """Values with ties, the extremes of the dtype and, for floats, NaNs
    of both signs, infinities and both zeros."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        pool = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dt)
        base = sample(dt, (n,), seed)
    elif dt.kind == "f":
        pool = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -1.5], dtype=dt)
        base = sample(dt, (n,), seed)
    else:
        return sample(dt, (n,), seed)
    pick = rng.integers(0, 4, n) == 0
    base[pick] = rng.choice(pool, pick.sum())
    return base


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sort_and_argsort_along_every_axis(dtype, shape):
    x = special(dtype, int(np.prod(shape))).reshape(shape)
    a = ad.asarray(x)
    for axis in [None] + list(range(-len(shape), len(shape))):
        check(ad.sort(a, axis=axis), np.sort(x, axis=axis, kind="stable"))
        check(ad.argsort(a, axis=axis, kind="stable"), np.argsort(x, axis=axis, kind="stable"))


@pytest.mark.parametrize("dtype", ["f2", "f4", "f8"])
def test_sort_puts_nans_last_and_keeps_equal_zeros_in_order(dtype):
    x = np.array([np.nan, 0.0, -0.0, -np.inf, -np.nan, 2.0, -0.0, np.inf, 0.0], dtype=dtype)
    np.testing.assert_array_equal(ad.argsort(ad.asarray(x)).get(), np.argsort(x, kind="stable"))
    got = ad.sort(ad.asarray(x)).get()
    want = np.sort(x)
    np.testing.assert_array_equal(got, want)  # -0.0 == 0.0, NaNs equal_nan
    assert np.isnan(got[-2:]).all()


def test_sort_of_a_large_row_and_many_rows():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(1 << 20).astype(np.float32)
    check(ad.sort(ad.asarray(x)), np.sort(x))
    y = rng.integers(-1000, 1000, (1 << 14, 64)).astype(np.int64)
    check(ad.argsort(ad.asarray(y), axis=1, kind="stable"), np.argsort(y, axis=1, kind="stable"))
    check(ad.sort(ad.asarray(y), axis=0), np.sort(y, axis=0))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint16"])
def test_sort_of_lines_beyond_the_caches_bit_for_bit(dtype):
    # Lines of a million elements and more are scattered a cache line at a
    # time on the CPU backend: an odd length (partial lines at every
    # digit's ends), a payload (NaNs and -0.0 sort with their bits; the
    # argsort's positions) and many equal keys.
    rng = np.random.default_rng(5)
    n = (1 << 20) + 12345
    x = (rng.standard_normal(n) * 1000).astype(dtype)
    if x.dtype.kind == "f":
        x[::1001] = np.nan
        x[5::777] = -0.0
    got = ad.sort(ad.asarray(x)).get()
    assert got.tobytes() == np.sort(x, kind="stable").tobytes()
    np.testing.assert_array_equal(ad.argsort(ad.asarray(x), kind="stable").get(),
                                  np.argsort(x, kind="stable"))


def test_sort_of_rows_within_a_narrow_range():
    # Rows that the caches hold are sorted on the bits in which their
    # smallest and largest keys differ (11-bit digits where that saves
    # passes): mixed signs within 2^40, rows of one value, rows of two.
    rng = np.random.default_rng(6)
    x = rng.integers(-1 << 40, 1 << 40, (6, 4096))
    x[1] = 7
    x[2] = 7
    x[2, 100] = -7
    x[3] = rng.integers(-3, 3, 4096)
    for a in (x, x.astype(np.int32), (x % 1000).astype(np.uint16)):
        check(ad.sort(ad.asarray(a), axis=1), np.sort(a, axis=1))
        check(ad.argsort(ad.asarray(a), axis=1, kind="stable"),
              np.argsort(a, axis=1, kind="stable"))


def test_sort_of_views_empty_and_0d():
    x = np.arange(60, dtype=np.float32)[::-1].reshape(6, 10)
    check(ad.sort(ad.asarray(x).T), np.sort(x.T))
    check(ad.sort(ad.asarray(x)[:, ::3], axis=0), np.sort(x[:, ::3], axis=0))
    check(ad.sort(ad.zeros((0, 3))), np.sort(np.zeros((0, 3))))
    with pytest.raises(np.exceptions.AxisError):
        ad.sort(ad.asarray(np.float32(1)))


def _scan_tol(dtype):
    # A scan sums in another order than NumPy's loop (a tree on the GPU).
    return {"e": 5e-2, "f": 1e-4, "F": 1e-4, "d": 1e-10, "D": 1e-10}.get(np.dtype(dtype).char)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_and_cumprod_along_every_axis(op, dtype, shape):
    x = sample(dtype, shape, 3)
    if op == "cumprod" and np.dtype(dtype).kind in "fc":
        x = (x / 4 + 1).astype(dtype)  # products that stay finite
    a = ad.asarray(x)
    for axis in [None] + list(range(-len(shape), len(shape))):
        with np.errstate(over="ignore"):
            want = getattr(np, op)(x, axis=axis)
        check(getattr(ad, op)(a, axis=axis), want, _scan_tol(want.dtype))


def test_scan_dtype_argument_views_empty_and_0d():
    x = np.arange(1, 25, dtype=np.int32).reshape(2, 3, 4)
    check(ad.cumsum(ad.asarray(x), axis=1, dtype=np.float64),
          np.cumsum(x, axis=1, dtype=np.float64))
    check(ad.cumsum(ad.asarray(x).transpose(2, 0, 1), axis=2), np.cumsum(x.transpose(2, 0, 1), axis=2))
    check(ad.cumprod(ad.asarray(x)[:, ::2], axis=2), np.cumprod(x[:, ::2], axis=2))
    check(ad.cumsum(ad.zeros((0, 4)), axis=1), np.cumsum(np.zeros((0, 4)), axis=1))
    check(ad.cumsum(ad.asarray(np.float32(2.5))), np.cumsum(np.float32(2.5)))
    rng = np.random.default_rng(2)
    big = rng.integers(0, 100, (1 << 20,)).astype(np.int64)
    check(ad.cumsum(ad.asarray(big)), np.cumsum(big))
    with pytest.raises(np.exceptions.AxisError):
        ad.cumsum(ad.asarray(x), axis=3)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64", "float16", "float32", "float64", "bool"])
def test_sort_of_each_dtypes_extremes_is_numpys_stable_order(dtype):
    # The radix keys of the CPU backend (and CUB's on CUDA): signs, extremes,
    # subnormals next to zero, both zeros and NaNs of either sign.
    dt = np.dtype(dtype)
    rng = np.random.default_rng(11)
    if dt.kind == "b":
        x = rng.integers(0, 2, 3000).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, 3000, dtype=dt, endpoint=True)
        x[:4] = [info.min, info.max, 0, info.min + 1]
    else:
        x = (rng.standard_normal(3000) * 10).astype(dt)
        tiny = np.finfo(dt).smallest_subnormal
        x[:10] = [0.0, -0.0, tiny, -tiny, np.inf, -np.inf, np.nan, -np.nan,
                  np.finfo(dt).max, np.finfo(dt).min]
        x[10:20] = np.where(np.arange(10) % 2 == 0, 0.0, -0.0).astype(dt)
    a = ad.asarray(x)
    got = ad.sort(a).get()
    np.testing.assert_array_equal(got.view(np.uint8) if dt.kind == "b" else got, np.sort(x))
    np.testing.assert_array_equal(ad.argsort(a, kind="stable").get(),
                                  np.argsort(x, kind="stable"))
