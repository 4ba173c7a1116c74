"""Statistics and scans against NumPy: var std ptp median quantile
percentile average cumsum cumprod diff count_nonzero nan* trace."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, ids, sample

REAL = [d for d in ALL_DTYPES if d.kind != "c"]
NUMERIC = [d for d in ALL_DTYPES if d.kind != "b"]


def _np(f, *a, **k):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


def _tol(dt):
    return 5e-3 if np.dtype(dt).char in "eF" else 1e-5 if np.dtype(
        dt).char in "f" else None


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("axis", [None, 0, (0, 2), -1])
def test_var_std(dt, axis):
    x = sample(dt, (3, 4, 5))
    a = ad.asarray(x)
    for ddof in (0, 1):
        e = _np(np.var, x, axis=axis, ddof=ddof)
        check(ad.var(a, axis=axis, ddof=ddof), e, _tol(e.dtype))
        e = _np(np.std, x, axis=axis, ddof=ddof, keepdims=True)
        check(ad.std(a, axis=axis, ddof=ddof, keepdims=True), e,
              _tol(e.dtype))
    check(a.var(axis), _np(x.var, axis), _tol(_np(x.var, axis).dtype))


def test_var_edge_cases():
    x = sample("f8", (4, 6))[:, ::2]
    check(ad.var(ad.asarray(sample("f8", (4, 6)))[:, ::2], 1), np.var(x, 1))
    check(ad.var(ad.asarray(x), dtype="f4"), np.var(x, dtype="f4"), 1e-5)
    check(ad.var(ad.asarray(np.float64(3.0))), np.var(np.float64(3.0)))
    check(ad.var(ad.zeros((0, 3)), 0), _np(np.var, np.zeros((0, 3)), 0))
    check(ad.std(ad.ones(3), ddof=5), _np(np.std, np.ones(3), ddof=5))
    with pytest.raises(np.exceptions.AxisError):
        ad.var(ad.ones(3), axis=1)


@pytest.mark.parametrize("dt", NUMERIC, ids=ids)
def test_ptp(dt):
    x = sample(dt, (3, 4))
    check(ad.ptp(ad.asarray(x)), np.ptp(x))
    check(ad.ptp(ad.asarray(x), axis=1, keepdims=True),
          np.ptp(x, axis=1, keepdims=True))
    with pytest.raises(TypeError):
        ad.ptp(ad.ones(3, bool))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_median(dt, axis):
    for shape in ((4, 5), (3, 3)):
        x = sample(dt, shape)
        e = np.median(x, axis=axis)
        check(ad.median(ad.asarray(x), axis=axis), e, _tol(e.dtype))
        e = np.median(x, axis=axis, keepdims=True)
        check(ad.median(ad.asarray(x), axis=axis, keepdims=True), e,
              _tol(e.dtype))


def test_median_nan_and_empty():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 2.0, 0.0]])
    check(ad.median(ad.asarray(x), axis=1), np.median(x, axis=1))
    check(ad.median(ad.asarray(x)), np.median(x))
    check(ad.median(ad.zeros(0)), _np(np.median, np.zeros(0)))
    check(ad.median(ad.asarray(x[:, ::2]), 0), np.median(x[:, ::2], 0))


@pytest.mark.parametrize("dt", REAL, ids=ids)
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest",
                                    "midpoint"])
def test_quantile(dt, method):
    x = sample(dt, (4, 7))
    if dt.kind == "b" and method in ("linear", "midpoint"):
        with pytest.raises(TypeError):  # NumPy: boolean subtract
            ad.quantile(ad.asarray(x), 0.5, method=method)
        return
    for q in (0.5, [0.0, 0.25, 0.9, 1.0]):
        e = np.quantile(x, q, axis=1, method=method)
        check(ad.quantile(ad.asarray(x), q, axis=1, method=method), e,
              _tol(e.dtype))
    if dt.kind == "b":
        return
    e = np.percentile(x, [10, 50], method=method, keepdims=True)
    check(ad.percentile(ad.asarray(x), [10, 50], method=method,
                        keepdims=True), e, _tol(e.dtype))
    e = np.percentile(x, 30.0, axis=0)
    check(ad.percentile(ad.asarray(x), 30.0, axis=0), e, _tol(e.dtype))


def test_quantile_errors_and_nan():
    x = np.array([1.0, 2.0, np.nan])
    check(ad.quantile(ad.asarray(x), 0.3), np.quantile(x, 0.3))
    with pytest.raises(ValueError):
        ad.quantile(ad.ones(3), 1.5)
    with pytest.raises(ValueError):
        ad.percentile(ad.ones(3), -1)
    with pytest.raises(TypeError):
        ad.quantile(ad.ones(3, "c8"), 0.5)
    with pytest.raises(ValueError):
        ad.quantile(ad.ones(3), 0.5, method="bogus")


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_average(dt):
    x = sample(dt, (3, 4))
    w = sample("f4", (3, 4), seed=2, positive=True)
    e = np.average(x, axis=1)
    check(ad.average(ad.asarray(x), axis=1), e, _tol(e.dtype))
    e = np.average(x, weights=w)
    check(ad.average(ad.asarray(x), weights=ad.asarray(w)), e, _tol(e.dtype))
    w1 = w[0]
    avg, scl = np.average(x, axis=1, weights=w1, returned=True)
    gavg, gscl = ad.average(ad.asarray(x), axis=1, weights=ad.asarray(w1),
                            returned=True)
    check(gavg, avg, _tol(avg.dtype))
    check(gscl, scl, _tol(scl.dtype))


def test_average_errors():
    with pytest.raises(ZeroDivisionError):
        ad.average(ad.ones(3), weights=ad.zeros(3))
    with pytest.raises(TypeError):
        ad.average(ad.ones((2, 3)), weights=ad.ones(3))
    with pytest.raises(ValueError):
        ad.average(ad.ones((2, 3)), axis=1, weights=ad.ones(2))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_cumsum_cumprod(dt, axis):
    x = sample(dt, (3, 4))
    a = ad.asarray(x)
    e = np.cumsum(x, axis=axis)
    check(ad.cumsum(a, axis=axis), e, _tol(e.dtype))
    e = np.cumprod(x, axis=axis)
    check(ad.cumprod(a, axis=axis), e, _tol(e.dtype))
    check(a.cumsum(axis, dtype="f8"), np.cumsum(x, axis, dtype="f8"))


def test_cumsum_layouts():
    x = sample("i4", (4, 6))
    check(ad.cumsum(ad.asarray(x)[:, ::2], 0), np.cumsum(x[:, ::2], 0))
    check(ad.cumsum(ad.asarray(np.int8(3))), np.cumsum(np.int8(3)))
    check(ad.cumsum(ad.zeros((0, 2)), 1), np.cumsum(np.zeros((0, 2)), 1))
    out = ad.zeros(24, "f8")
    assert ad.cumsum(ad.asarray(x), out=out) is out
    check(out, np.cumsum(x).astype("f8"))
    with pytest.raises(np.exceptions.AxisError):
        ad.cumsum(ad.ones(3), axis=2)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_diff(dt):
    x = sample(dt, (3, 5))
    for n, axis in ((1, -1), (2, 1), (1, 0), (0, 0), (6, 1)):
        check(ad.diff(ad.asarray(x), n, axis), np.diff(x, n, axis))
    check(ad.diff(ad.asarray(x), prepend=0, append=ad.asarray(x[:, :1])),
          np.diff(x, prepend=0, append=x[:, :1]))


def test_diff_errors():
    with pytest.raises(ValueError):
        ad.diff(ad.ones(3), -1)
    with pytest.raises(ValueError):
        ad.diff(ad.asarray(np.float64(1.0)))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_count_nonzero(dt):
    x = sample(dt, (3, 4))
    assert int(ad.count_nonzero(ad.asarray(x))) == np.count_nonzero(x)
    check(ad.count_nonzero(ad.asarray(x), axis=0),
          np.count_nonzero(x, axis=0))
    check(ad.count_nonzero(ad.asarray(x), axis=(0, 1), keepdims=True),
          np.count_nonzero(x, axis=(0, 1), keepdims=True))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_nan_reductions(dt):
    x = sample(dt, (3, 4))
    if dt.kind in "fc":
        x[0, 1] = np.nan
        x[2, :] = np.nan
    a = ad.asarray(x)
    for f in ("nansum", "nanmean", "nanmin", "nanmax"):
        if dt.kind == "c" and f in ("nanmin", "nanmax"):
            continue
        for axis in (None, 1):
            e = _np(getattr(np, f), x, axis=axis)
            check(getattr(ad, f)(a, axis=axis), e, _tol(e.dtype))
    e = _np(np.nansum, x, axis=0, keepdims=True)
    check(ad.nansum(a, axis=0, keepdims=True), e, _tol(e.dtype))


def test_nan_reductions_errors():
    with pytest.raises(ValueError):
        ad.nanmin(ad.zeros(0))
    with pytest.raises(np.exceptions.AxisError):
        ad.nansum(ad.ones(3), axis=3)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_trace(dt):
    x = sample(dt, (3, 4, 2))
    for offset, a1, a2 in ((0, 0, 1), (1, 0, 1), (-1, 1, 0), (0, 1, 2),
                           (5, 0, 1)):
        check(ad.trace(ad.asarray(x), offset, a1, a2),
              np.trace(x, offset, a1, a2))
    check(ad.asarray(x[:, :, 0]).trace(dtype="f4"),
          x[:, :, 0].trace(dtype="f4"))


def test_trace_errors():
    with pytest.raises(ValueError):
        ad.trace(ad.ones(3))
    with pytest.raises(ValueError):
        ad.trace(ad.ones((2, 2)), axis1=0, axis2=0)
