"""arrayd.scipy.linalg's LU and triangular solvers against scipy.linalg:
lu_factor / lu_solve (every trans), solve_triangular (lower, upper,
transposed, unit diagonal, vector and matrix right-hand sides), lu (its
three forms), cho_factor / cho_solve, and their errors."""
from __future__ import annotations

import arrayd as ad
import numpy as np
import pytest

scipy_linalg = pytest.importorskip("scipy.linalg")
from arrayd.scipy import linalg

RNG = np.random.default_rng(7)
A = RNG.standard_normal((6, 6)) + 3 * np.eye(6)
B = RNG.standard_normal((6, 3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_lu_factor_and_solve(dtype):
    a = A.astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal((6, 6))
    lu, piv = linalg.lu_factor(ad.asarray(a))
    wlu, wpiv = scipy_linalg.lu_factor(a)
    assert piv.dtype == np.int32
    np.testing.assert_array_equal(piv.get(), wpiv)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(lu.get(), wlu, rtol=tol, atol=tol)
    for trans in (0, 1, 2):
        for b in (B, B[:, 0]):
            got = linalg.lu_solve((lu, piv), ad.asarray(b), trans=trans)
            want = scipy_linalg.lu_solve((wlu, wpiv), b, trans=trans)
            np.testing.assert_allclose(got.get(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", [0, 1, "C"])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(lower, trans, unit):
    for b in (B, B[:, 1]):
        got = linalg.solve_triangular(ad.asarray(A), ad.asarray(b),
                                      lower=lower, trans=trans,
                                      unit_diagonal=unit)
        want = scipy_linalg.solve_triangular(A, b, lower=lower, trans=trans,
                                             unit_diagonal=unit)
        np.testing.assert_allclose(got.get(), want, rtol=1e-10, atol=1e-10)


def test_lu_forms():
    p, low, up = linalg.lu(ad.asarray(A))
    wp, wl, wu = scipy_linalg.lu(A)
    for got, want in ((p, wp), (low, wl), (up, wu)):
        np.testing.assert_allclose(got.get(), want, rtol=1e-10, atol=1e-12)
    pl, up = linalg.lu(ad.asarray(A), permute_l=True)
    np.testing.assert_allclose((pl @ up).get(), A, rtol=1e-10, atol=1e-12)
    idx, low, up = linalg.lu(ad.asarray(A), p_indices=True)
    np.testing.assert_allclose((low[idx] @ up).get(), A, rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("lower", [True, False])
def test_cho_factor_and_solve(lower):
    spd = A @ A.T + 6 * np.eye(6)
    c = linalg.cho_factor(ad.asarray(spd), lower=lower)
    got = linalg.cho_solve(c, ad.asarray(B))
    np.testing.assert_allclose(got.get(), scipy_linalg.cho_solve(
        scipy_linalg.cho_factor(spd, lower=lower), B), rtol=1e-10)


def test_errors():
    with pytest.raises(ValueError):
        linalg.lu_factor(ad.ones((3, 4)))
    with pytest.raises(ValueError):
        linalg.lu_factor(ad.asarray([[1.0, np.nan], [0, 1]]))
    with pytest.raises(np.linalg.LinAlgError):
        linalg.solve_triangular(ad.asarray([[1.0, 2], [0, 0]]),
                                ad.asarray([1.0, 1]))
    with pytest.raises(ValueError):
        linalg.solve_triangular(ad.eye(3), ad.ones(4))
    with pytest.raises(ValueError):
        linalg.lu_solve(linalg.lu_factor(ad.eye(3)), ad.ones(3), trans=5)
