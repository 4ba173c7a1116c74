"""Test data and comparisons against NumPy."""
from __future__ import annotations

import numpy as np
import numpy.testing as npt

import arrayd as ad

ALL_DTYPES = [np.dtype(t) for t in (
    "?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8",
    "c8", "c16")]
INT_DTYPES = [d for d in ALL_DTYPES if d.kind in "iu"]
FLOAT_DTYPES = [d for d in ALL_DTYPES if d.kind in "fc"]
ids = str  # pytest ids for dtypes


def sample(dtype, shape, seed=0, positive=False) -> np.ndarray:
    """Small values valid in dtype; ``positive`` avoids 0 (divisors)."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dt.kind == "b":
        a = rng.integers(0, 2, shape).astype(bool)
        return np.ones(shape, bool) if positive else a
    if dt.kind == "u" or (positive and dt.kind == "i"):
        return rng.integers(1 if positive else 0, 6, shape).astype(dt)
    if dt.kind == "i":
        return rng.integers(-5, 6, shape).astype(dt)
    lo = 1 if positive else -8
    re = rng.integers(lo, 9, shape) / 4
    if dt.kind == "c":
        re = re + 1j * (rng.integers(lo, 9, shape) / 4)
    return np.asarray(re).astype(dt)


def rtol(dtype) -> float:
    dt = np.dtype(dtype)
    return {"e": 2e-3, "f": 2e-6, "F": 2e-6, "d": 1e-12, "D": 1e-12}.get(
        dt.char, 0)


def check(got, expected, rtol_=None) -> None:
    """got (ad.ndarray) equals expected (numpy) in dtype, shape and values."""
    assert isinstance(got, ad.ndarray), type(got)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    g = got.get()
    assert g.dtype == expected.dtype and g.shape == expected.shape
    if expected.dtype.kind in "fc":
        tol = rtol(expected.dtype) if rtol_ is None else rtol_
        npt.assert_allclose(g, expected, rtol=tol, atol=tol, equal_nan=True)
    else:
        npt.assert_array_equal(g, expected)
