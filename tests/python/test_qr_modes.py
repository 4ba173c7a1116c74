"""numpy.linalg.qr's modes against NumPy: 'reduced', 'complete', 'r',
'raw' (LAPACK's Householder form h and tau) and the deprecated 'full' and
'economic', on stacked, empty, integer and complex input, and errors."""
from __future__ import annotations

import warnings

import arrayd as ad
import numpy as np
import numpy.testing as npt
import pytest
from helpers import ids

SHAPES = [(2, 4), (3, 3), (5, 4), (1, 1), (4, 1), (1, 4), (3, 2, 4),
          (2, 2, 5, 3), (0, 3), (3, 0), (2, 0, 3), (2, 3, 0), (0, 2, 2)]
DTYPES = ["i4", "f4", "f8", "c8", "c16"]


def _input(shape, dt, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return (x * 4).astype(dt)


def _same(got, want):
    assert isinstance(got, ad.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-4 if want.dtype.char in "fF" else 1e-10
    npt.assert_allclose(got.get(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dt", DTYPES, ids=ids)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
def test_qr_modes(shape, dt, mode):
    x = _input(shape, dt)
    want = np.linalg.qr(x, mode=mode)
    got = ad.linalg.qr(ad.asarray(x), mode=mode)
    if mode == "r":
        _same(got, want)
        return
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        _same(g, w)
    if mode != "raw":
        assert isinstance(got, ad.linalg.QRResult)
        q, r = got
        npt.assert_allclose((q @ r).get(), x, atol=1e-3)


def test_qr_raw_special_columns():
    # Zero columns (tau 0), exactly real reflectors, a complex alpha with
    # nothing below it, and a negative leading element.
    cases = [np.array([[0.0, 1.0], [0.0, 2.0], [0.0, 3.0]]),
             np.array([[-3.0, 1.0], [4.0, 2.0]]),
             np.array([[1 + 2j, 3.0], [0.0, 1j]]),
             np.array([[2.0, 1.0, 0.0]]), np.eye(3), -np.eye(3)]
    for x in cases:
        for mode in ("raw", "r", "complete"):
            want = np.linalg.qr(x, mode=mode)
            got = ad.linalg.qr(ad.asarray(x), mode=mode)
            for g, w in zip(got if isinstance(got, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                _same(g, w)


def test_qr_deprecated_modes():
    x = _input((4, 3), "f8")
    for mode in ("f", "full", "e", "economic"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            want = np.linalg.qr(x, mode=mode)
        with pytest.warns(DeprecationWarning):
            got = ad.linalg.qr(ad.asarray(x), mode=mode)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            _same(g, w)


def test_qr_errors():
    with pytest.raises(ValueError):
        ad.linalg.qr(ad.ones((2, 2)), mode="bogus")
    with pytest.raises(np.linalg.LinAlgError):
        ad.linalg.qr(ad.ones(3))
    for mode in ("reduced", "raw"):
        with pytest.raises(TypeError):
            ad.linalg.qr(ad.ones((2, 2), "f2"), mode=mode)
