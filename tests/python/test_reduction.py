"""Reductions against NumPy: dtypes, axes, keepdims, dtype=, empty inputs."""
from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, sample

REDUCTIONS = ["sum", "prod", "mean", "min", "max", "all", "any"]
AXES = [None, 0, -1, 1, (0, 2), (2, 0), (), (-3, -2, -1)]


def _numpy(name, *args, **kw):
    with np.errstate(all="ignore"):
        return np.asarray(getattr(np, name)(*args, **kw))


def _tol(name, dt):
    # float16 accumulation order differs between implementations.
    return 2e-2 if np.dtype(dt).char in "e" and name in ("sum", "mean",
                                                        "prod") else None


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction_all_dtypes_and_axes(name):
    for i, dt in enumerate(ALL_DTYPES):
        x = sample(dt, (2, 3, 4), seed=i)
        if name == "prod":
            x = sample(dt, (2, 3, 4), seed=i, positive=True)
        ax = ad.asarray(x)
        for axis in AXES:
            for keepdims in (False, True):
                expected = _numpy(name, x, axis=axis, keepdims=keepdims)
                got = getattr(ad, name)(ax, axis=axis, keepdims=keepdims)
                try:
                    check(got, expected, _tol(name, dt))
                except AssertionError as e:
                    raise AssertionError(
                        f"{name}({dt}, axis={axis}, keepdims={keepdims}): "
                        f"{e}") from None


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction_methods_0d_and_noncontiguous(name):
    x = sample("f8", (5, 6), 1, positive=True)
    a = ad.asarray(x)
    check(getattr(a[::2, ::-3], name)(), _numpy(name, x[::2, ::-3]))
    check(getattr(a.T, name)(axis=0), _numpy(name, x.T, axis=0))
    s = ad.asarray(np.float32(2.5))
    check(getattr(s, name)(), _numpy(name, np.float32(2.5)))


@pytest.mark.parametrize("name", ["sum", "prod", "mean"])
def test_reduction_dtype_argument(name):
    x = sample("i2", (3, 4), 2, positive=True)
    for dt in ("f4", "i8", "u2", "c16"):
        check(getattr(ad, name)(ad.asarray(x), axis=1, dtype=dt),
              _numpy(name, x, axis=1, dtype=dt))
    with pytest.raises(TypeError):
        getattr(ad, name)(ad.asarray(x), dtype="not-a-dtype")


@pytest.mark.parametrize("name", ["argmin", "argmax"])
def test_arg_reductions(name):
    for i, dt in enumerate(ALL_DTYPES):
        x = sample(dt, (3, 4, 5), seed=i)
        ax = ad.asarray(x)
        for axis in (None, 0, 1, -1):
            for keepdims in (False, True):
                try:
                    check(getattr(ax, name)(axis=axis, keepdims=keepdims),
                          _numpy(name, x, axis=axis, keepdims=keepdims))
                except AssertionError as e:
                    raise AssertionError(f"{name}({dt}, axis={axis}): "
                                         f"{e}") from None
    check(getattr(ax[:, ::-1], name)(axis=1), _numpy(name, x[:, ::-1], axis=1))


@pytest.mark.parametrize("name", ["argmin", "argmax"])
def test_arg_reductions_ties_nans_and_signed_zeros(name):
    nan, inf = np.nan, np.inf
    rows = [[1, 3, 3, 2], [nan, 1, nan, 5], [2, 7, nan, 7], [-0.0, 0.0, -0.0, 0.0],
            [inf, -inf, inf, -inf], [5, 5, 5, 5]]
    for dt in ("f2", "f4", "f8"):
        x = np.array(rows, dtype=dt)
        for v in (x, x[:, ::-1], np.asfortranarray(x)):
            check(getattr(ad.asarray(v), name)(axis=1), getattr(v, name)(axis=1))
            check(getattr(ad.asarray(v), name)(), getattr(v, name)())
    for dt in ("i1", "u2", "i8", "?"):
        x = np.random.default_rng(4).integers(0, 3, (7, 300)).astype(dt)
        check(getattr(ad.asarray(x), name)(axis=1), getattr(x, name)(axis=1))
        check(getattr(ad.asarray(x)[:, ::3], name)(axis=1), getattr(x[:, ::3], name)(axis=1))


@pytest.mark.parametrize("name", ["argmin", "argmax"])
def test_arg_reductions_of_long_rows(name):
    # Rows longer than the CPU backend's lanes: the first extreme, the
    # first NaN, ties across lanes and the tail after the last full lane.
    rng = np.random.default_rng(11)
    for n in (1, 15, 16, 17, 33, 257, 1000):
        for dt in ("f4", "f8", "i1", "i4", "u8", "i8"):
            x = rng.integers(-3, 4, (6, n)).astype(dt)
            if dt[0] == "f":
                x[1, n // 2] = np.nan
                x[2, n - 1] = np.nan
                x[3, :] = -0.0
                x[3, n // 3] = 0.0
                x[4, rng.integers(0, n, 3)] = np.nan
            check(getattr(ad.asarray(x), name)(axis=1), getattr(x, name)(axis=1))
            check(getattr(ad.asarray(x), name)(), getattr(x, name)())


@pytest.mark.parametrize("dt", ["float16", "float32", "float64", "int32",
                                "complex64"])
@pytest.mark.parametrize("shape,axis", [((1003, 37), 0), ((13, 5, 7), (0, 1)),
                                        ((9, 3, 64), 0), ((2, 300), 0)])
def test_outer_axis_folds_match_numpy_bit_for_bit(dt, shape, axis):
    # A fold over outer axes adds the rows in NumPy's order, accumulating
    # in the output's dtype (float16 and complex64 round at every step), so
    # the results are NumPy's to the bit, whatever count of rows, on the
    # CPU backend (a GPU's column reduction splits the rows across blocks:
    # close, not the same bits).
    exact = os.environ.get("ARRAYD_BACKEND", "cpu") == "cpu"
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(shape) * 100).astype(dt)
    for name in ("sum", "prod", "max"):
        if name == "max" and x.dtype.kind == "c":
            continue
        expected = _numpy(name, x, axis=axis)
        got = getattr(ad.asarray(x), name)(axis=axis).get()
        assert got.dtype == expected.dtype
        if exact:
            np.testing.assert_array_equal(got, expected, strict=True)
        else:
            check(got, expected, _tol(name, dt))


def test_empty_reductions():
    e = ad.zeros((0, 3), "f4")
    ne = np.zeros((0, 3), "f4")
    check(e.sum(), ne.sum())
    check(e.sum(axis=0), ne.sum(axis=0))
    check(e.prod(axis=0), ne.prod(axis=0))
    check(e.max(axis=1), ne.max(axis=1))  # empty result: fine
    check(e.all(), ne.all())
    check(e.any(axis=0), ne.any(axis=0))
    for name in ("min", "max"):
        with pytest.raises(ValueError, match="zero-size array"):
            getattr(e, name)()
        with pytest.raises(ValueError, match="zero-size array"):
            getattr(e, name)(axis=0)
    for name in ("argmin", "argmax"):
        with pytest.raises(ValueError):
            getattr(e, name)()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(e.mean(axis=0), ne.mean(axis=0))


def test_bad_axes():
    a = ad.zeros((2, 3))
    with pytest.raises(np.exceptions.AxisError):
        a.sum(axis=2)
    with pytest.raises(np.exceptions.AxisError):
        a.max(axis=-3)
    with pytest.raises(np.exceptions.AxisError):
        a.argmin(axis=5)
    with pytest.raises(ValueError, match="repeated axis"):
        a.sum(axis=(0, 0))
    with pytest.raises(TypeError):
        a.argmax(axis=(0, 1))
    check(a.sum(), np.zeros((2, 3)).sum())  # session still usable


def test_reduction_out():
    x = sample("f4", (3, 4), 3)
    out = ad.zeros(4, "f4")
    r = ad.sum(ad.asarray(x), axis=0, out=out)
    assert r is out
    check(out, x.sum(axis=0))
    with pytest.raises(ValueError):
        ad.sum(ad.asarray(x), axis=1, out=out)


def test_amin_amax_aliases_and_numpy_input():
    x = sample("i4", (4, 5), 4)
    check(ad.amin(ad.asarray(x), axis=1), np.amin(x, axis=1))
    check(ad.sum([1, 2, 3]), np.sum([1, 2, 3]))
    # A NumPy array is reduced by NumPy, as CuPy's functions do (a.max()).
    for f in ("amax", "sum", "mean", "argmin", "all", "var", "std", "ptp"):
        r = getattr(ad, f)(x, axis=0)
        assert type(r) is np.ndarray, f
        np.testing.assert_array_equal(r, getattr(np, f)(x, axis=0))


@pytest.mark.parametrize("op", ["sum", "prod", "mean", "max", "min", "all",
                                "any"])
def test_reduction_out_of_another_dtype_casts_unsafely(op):
    x = np.arange(6.0).reshape(2, 3) + 0.5
    out = ad.zeros(2, "i8")
    assert getattr(ad, op)(ad.asarray(x), axis=1, out=out) is out
    want = np.zeros(2, "i8")
    getattr(np, op)(x, axis=1, out=want)
    np.testing.assert_array_equal(out.get(), want)
