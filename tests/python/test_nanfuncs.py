"""NaN-ignoring functions and quantile methods against NumPy: nanargmax
nanargmin nancumsum nancumprod nanprod nanvar nanstd nanmedian nanquantile
nanpercentile, and every method= / weights= / out= / keepdims= /
overwrite_input= of quantile, percentile (median's too)."""
from __future__ import annotations

import warnings

import arrayd as ad
import numpy as np
import pytest
from helpers import ALL_DTYPES, check, ids, sample

FLOATS = ["f2", "f4", "f8"]
REAL = [d for d in ALL_DTYPES if d.kind != "c"]
METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear",
           "median_unbiased", "normal_unbiased", "lower", "higher",
           "midpoint", "nearest"]
DISCRETE = ["inverted_cdf", "closest_observation", "lower", "higher",
            "nearest"]
AXES = [None, 0, 1, -1, (0, 2)]


def _np(f, *a, **k):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


def _quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return f(*a, **k)


def _tol(dt):
    c = np.dtype(dt).char
    return 5e-3 if c == "e" else 2e-5 if c in "fF" else 1e-10


def with_nans(dt, shape=(4, 5, 6), seed=0):
    x = sample(dt, shape, seed)
    if np.dtype(dt).kind in "fc":
        rng = np.random.default_rng(seed + 1)
        x[rng.uniform(size=shape) < 0.3] = np.nan
        x[1, :, shape[2] // 2] = np.nan  # an all-NaN slice along axis 1
    return x


# -- nanargmax / nanargmin ------------------------------------------------------

@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
def test_nanarg(dt, name):
    x = with_nans(dt)
    if np.dtype(dt).kind in "fc":
        x[1, 3, 2] = 0.5  # the all-NaN slice has one value now
    a = ad.asarray(x)
    for axis in (None, 0, 1, -1):
        try:
            want = getattr(np, name)(x, axis=axis)
        except ValueError:
            with pytest.raises(ValueError):
                getattr(ad, name)(a, axis=axis)
            continue
        check(getattr(ad, name)(a, axis=axis), want)
        check(getattr(ad, name)(a, axis=axis, keepdims=True),
              getattr(np, name)(x, axis=axis, keepdims=True))


def test_nanarg_all_nan_and_empty():
    x = np.full((3, 2), np.nan)
    x[0, 1] = 1.0
    for name in ("nanargmax", "nanargmin"):
        f = getattr(ad, name)
        check(f(ad.asarray(x)), getattr(np, name)(x))
        with pytest.raises(ValueError):
            f(ad.asarray(x), axis=0)
        with pytest.raises(ValueError):
            f(ad.asarray(np.full(3, np.nan)))
        with pytest.raises(ValueError):
            f(ad.asarray(x), axis=1)
        check(f(ad.asarray(x[:1]), axis=1), getattr(np, name)(x[:1], axis=1))
        with pytest.raises(ValueError):
            f(ad.zeros(0))
        out = ad.zeros(2, "i8")
        f(ad.asarray(np.array([[1.0, 2.0], [3.0, 0.0]])), axis=0, out=out)
        check(out, getattr(np, name)(np.array([[1.0, 2.0], [3.0, 0.0]]),
                                     axis=0))


# -- scans and products -----------------------------------------------------------

@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("name", ["nancumsum", "nancumprod"])
def test_nancum(dt, name):
    x = with_nans(dt, (3, 4, 2))
    a = ad.asarray(x)
    for axis in (None, 0, 1, -1):
        want = _np(getattr(np, name), x, axis=axis)
        check(getattr(ad, name)(a, axis=axis), want, _tol(want.dtype))
    want = _np(getattr(np, name), x, axis=1, dtype="f8")
    check(getattr(ad, name)(a, axis=1, dtype="f8"), want)
    out = ad.zeros(x.shape, x.dtype)
    getattr(ad, name)(a, axis=2, out=out)
    want = np.zeros(x.shape, x.dtype)
    _np(getattr(np, name), x, axis=2, out=want)
    check(out, want, _tol(x.dtype))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_nanprod(dt):
    x = with_nans(dt, (3, 4, 2))
    a = ad.asarray(x)
    for axis in AXES[:4]:
        for kd in (False, True):
            want = _np(np.nanprod, x, axis=axis, keepdims=kd)
            check(ad.nanprod(a, axis=axis, keepdims=kd), want,
                  _tol(want.dtype))
    mask = sample("?", x.shape, 3)
    want = _np(np.nanprod, x, axis=1, initial=2, where=mask)
    check(ad.nanprod(a, axis=1, initial=2, where=ad.asarray(mask)), want,
          _tol(want.dtype))
    want = _np(np.nanprod, x, dtype="f8")
    check(ad.nanprod(a, dtype="f8"), want, 1e-10)


# -- nanvar / nanstd --------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("name", ["nanvar", "nanstd"])
def test_nanvar_nanstd(dt, name):
    x = with_nans(dt)
    a = ad.asarray(x)
    f, g = getattr(ad, name), getattr(np, name)
    for axis in AXES:
        for kw in ({}, {"ddof": 1}, {"keepdims": True}):
            want = _np(g, x, axis=axis, **kw)
            got = _quiet(f, a, axis=axis, **kw)
            check(got, want, _tol(want.dtype))
    if np.dtype(dt).kind in "fc":
        wide = "f8" if np.dtype(dt).kind == "f" else "c16"
        want = _np(g, x, axis=1, dtype=wide)
        check(_quiet(f, a, axis=1, dtype=wide), want, _tol(dt))


def test_nanvar_options_and_warnings():
    x = with_nans("f8")
    a = ad.asarray(x)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        r = ad.nanvar(a, axis=1)
    check(r, _np(np.nanvar, x, axis=1))
    mask = sample("?", x.shape, 4)
    check(_quiet(ad.nanvar, a, axis=2, where=ad.asarray(mask)),
          _np(np.nanvar, x, axis=2, where=mask))
    m = _np(np.nanmean, x, axis=2, keepdims=True)
    check(_quiet(ad.nanvar, a, axis=2, mean=ad.asarray(m)),
          _np(np.nanvar, x, axis=2, mean=m))
    check(_quiet(ad.nanstd, a, axis=0, correction=1),
          _np(np.nanstd, x, axis=0, correction=1))
    out = ad.zeros((4, 6))
    _quiet(ad.nanstd, a, axis=1, out=out)
    check(out, _np(np.nanstd, x, axis=1))
    with pytest.raises(ValueError):
        ad.nanvar(a, ddof=1, correction=1)
    with pytest.raises(TypeError):
        ad.nanvar(a, dtype="i8")
    with pytest.raises(TypeError):
        ad.nanvar(a, axis=0, out=ad.zeros((5, 6), "i8"))
    with pytest.raises(np.exceptions.AxisError):
        ad.nanvar(a, axis=3)
    check(_quiet(ad.nanvar, ad.zeros((0, 3))),
          _np(np.nanvar, np.zeros((0, 3))))


# -- nanmedian --------------------------------------------------------------------

@pytest.mark.parametrize("dt", REAL, ids=ids)
def test_nanmedian(dt):
    x = with_nans(dt)
    a = ad.asarray(x)
    for axis in AXES + [(-1, -2)]:
        for kd in (False, True):
            want = _np(np.nanmedian, x, axis=axis, keepdims=kd)
            check(_quiet(ad.nanmedian, a, axis=axis, keepdims=kd), want,
                  _tol(want.dtype))


def test_nanmedian_warnings_out_empty():
    x = with_nans("f8")
    with pytest.warns(RuntimeWarning, match="All-NaN"):
        r = ad.nanmedian(ad.asarray(x), axis=1)
    check(r, _np(np.nanmedian, x, axis=1))
    out = ad.zeros((4, 6))
    _quiet(ad.nanmedian, ad.asarray(x), axis=1, out=out,
           overwrite_input=True)
    check(out, _np(np.nanmedian, x, axis=1))
    check(_quiet(ad.nanmedian, ad.zeros((0, 2)), axis=0),
          _np(np.nanmedian, np.zeros((0, 2)), axis=0))
    check(ad.nanmedian(ad.asarray(np.array([np.nan, 1.0, 3.0]))),
          np.asarray(np.nanmedian([np.nan, 1.0, 3.0])))


# -- quantiles ------------------------------------------------------------------

QS = [0.0, 0.35, 1.0, [0.0, 0.2, 0.5, 0.99, 1.0], [[0.1, 0.9], [0.5, 0.6]],
      np.float32(0.7)]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dt", ["?", "u1", "i2", "i8", "f2", "f4", "f8"],
                         ids=ids)
def test_quantile_methods(method, dt):
    x = sample(dt, (4, 5, 6))
    if dt == "?" and method not in DISCRETE:
        with pytest.raises(TypeError):  # NumPy subtracts booleans
            ad.quantile(ad.asarray(x), 0.5, method=method)
        return
    check(ad.quantile(ad.asarray(x), np.float32(0.7), method=method),
          _np(np.quantile, x, np.float32(0.7), method=method),
          _tol(x.dtype))
    if np.dtype(dt).kind == "f":
        # A NaN: NaN results in its slices. (NumPy's 0-d result is then
        # the data's dtype, whatever q's: not followed.)
        x[2, 1, 3] = np.nan
    a = ad.asarray(x)
    for q in QS[:-1]:
        for axis in AXES:
            want = _np(np.quantile, x, q, axis=axis, method=method)
            got = ad.quantile(a, q, axis=axis, method=method)
            check(got, want, _tol(np.asarray(want).dtype))
    pq = [0, 12.5, 100]
    check(ad.percentile(a, pq, axis=1, method=method, keepdims=True),
          _np(np.percentile, x, pq, axis=1, method=method, keepdims=True),
          _tol(x.dtype))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dt", ["i4", "f4", "f8"], ids=ids)
def test_nanquantile_methods(method, dt):
    x = with_nans(dt)
    a = ad.asarray(x)
    for q in QS[:5]:
        for axis in AXES:
            if np.ndim(q) == 2 and isinstance(axis, tuple):
                continue  # NumPy's nanquantile puts q's axes apart here
            for kd in (False, True):
                want = _np(np.nanquantile, x, q, axis=axis, method=method,
                           keepdims=kd)
                got = _quiet(ad.nanquantile, a, q, axis=axis, method=method,
                             keepdims=kd)
                check(got, want, _tol(np.asarray(want).dtype))
    want = _np(np.nanpercentile, x, [10, 90], axis=-1, method=method)
    check(_quiet(ad.nanpercentile, a, [10, 90], axis=-1, method=method),
          want, _tol(want.dtype))


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_weights(name):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(5, 6, 4))
    if name == "nanquantile":
        x[x > 1.2] = np.nan
    w = rng.uniform(size=x.shape)
    f, g = getattr(ad, name), getattr(np, name)
    a = ad.asarray(x)
    for q in (0.0, 0.3, [0.05, 0.5, 1.0]):
        cases = [(None, w), (0, w), (1, w), (2, w)]
        if name == "quantile":  # NumPy's nanquantile fails on these
            cases += [(1, w[0, :, 0]), ((0, 2), w[:, 0, :])]
        for axis, ww in cases:
            want = _np(g, x, q, axis=axis, method="inverted_cdf",
                       weights=ww)
            got = _quiet(f, a, q, axis=axis, method="inverted_cdf",
                         weights=ad.asarray(ww))
            check(got, want)
    with pytest.raises(ValueError):
        f(a, 0.5, method="linear", weights=ad.asarray(w))
    with pytest.raises(ValueError):
        f(a, 0.5, method="inverted_cdf", weights=ad.asarray(-w))
    with pytest.raises(TypeError):
        f(a, 0.5, method="inverted_cdf", weights=ad.asarray(w[0]))
    with pytest.raises(ValueError):
        f(a, 0.5, axis=0, method="inverted_cdf", weights=ad.asarray(w[0]))
    with pytest.raises(ValueError):
        f(a, 0.5, method="inverted_cdf", weights=ad.zeros(x.shape))


def test_quantile_out_overwrite_errors():
    x = sample("f8", (4, 5))
    a = ad.asarray(x)
    out = ad.zeros((3, 5))
    r = ad.quantile(a, [0.1, 0.5, 0.9], axis=0, out=out)
    assert r is out
    check(out, np.quantile(x, [0.1, 0.5, 0.9], axis=0))
    b = ad.asarray(x)
    check(ad.percentile(b, 40, axis=1, overwrite_input=True),
          np.percentile(x, 40, axis=1))
    # overwrite_input may reorder the input (NumPy partitions it).
    np.testing.assert_array_equal(np.sort(b.get(), axis=1),
                                  np.sort(x, axis=1))
    check(ad.median(a, axis=0, out=ad.zeros(5)), np.median(x, axis=0))
    check(ad.median(a, axis=1, keepdims=True, overwrite_input=True),
          np.median(x, axis=1, keepdims=True))
    for bad in (1.5, -0.1, [0.2, 2.0]):
        with pytest.raises(ValueError):
            ad.quantile(a, bad)
    with pytest.raises(ValueError):
        ad.percentile(a, 101)
    with pytest.raises(ValueError):
        ad.quantile(a, 0.5, method="bogus")
    with pytest.raises(TypeError):
        ad.quantile(ad.ones(3, "c8"), 0.5)
    with pytest.raises(TypeError):
        ad.nanquantile(ad.ones(3, "c8"), 0.5)
    for xp_ in (np, ad):  # NumPy's own IndexError for an empty axis
        with pytest.raises(IndexError):
            xp_.quantile(xp_.zeros((0, 3)), 0.5, axis=0)
    check(_quiet(ad.quantile, ad.zeros((0, 3)), 0.5, axis=1),
          _np(np.quantile, np.zeros((0, 3)), 0.5, axis=1))
    check(ad.quantile(a, ad.asarray(np.array([0.25, 0.75]))),
          np.quantile(x, [0.25, 0.75]))


def test_nan_statistics_warnings():
    x = np.array([[np.nan, np.nan], [1.0, np.nan]])
    a = ad.asarray(x)
    for name in ("nanmax", "nanmin"):
        with pytest.warns(RuntimeWarning, match="All-NaN"):
            r = getattr(ad, name)(a, axis=1)
        check(r, _np(getattr(np, name), x, axis=1))
    with pytest.warns(RuntimeWarning, match="All-NaN"):
        ad.nanquantile(a, 0.5, axis=1)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        ad.nanmean(a, axis=1)
    out = ad.zeros(2, "i1")
    ad.nanmean(ad.asarray(np.array([[1, 2], [4, 8]], "i1")), axis=0, out=out)
    check(out, np.nanmean(np.array([[1, 2], [4, 8]], "i1"), axis=0,
                          out=np.zeros(2, "i1")))
