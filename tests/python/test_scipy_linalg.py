"""arrayd.scipy.linalg against scipy.linalg: solvers (every assume_a,
lower, transposed), inv, det (always double precision), norms, the
decompositions (qr's four modes, svd, eigh with b and subsets, eig's
complex eigenvalues, cholesky's upper default), pinv and lstsq, expm over
every Pade degree and a stack, the special matrices; SciPy's errors for
bad input (check_finite included)."""
from __future__ import annotations

import numpy as np
import numpy.testing as npt
import pytest

import arrayd as ad
from arrayd.scipy import linalg as alg

sl = pytest.importorskip("scipy.linalg")

RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 4))
SPD = A @ A.T + 4 * np.eye(4)
B = RNG.standard_normal((4, 2))


def _up(x):
    return ad.asarray(x) if isinstance(x, np.ndarray) else x


def _same(got, expected, signless=False, tol=None):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e, signless, tol)
        return
    if isinstance(expected, (int, float)) and not isinstance(
            got, ad.ndarray):
        assert type(got) is type(expected) and got == expected
        return
    e = np.asarray(expected)
    assert isinstance(got, ad.ndarray)
    assert got.dtype == e.dtype and got.shape == e.shape, (
        got.dtype, e.dtype, got.shape, e.shape)
    g = got.get()
    if tol is None:
        tol = 2e-4 if e.dtype.char in "fF" else 1e-8
    if signless:  # eigenvectors and Q: each column up to a sign/phase
        g, e = np.abs(g), np.abs(e)
    npt.assert_allclose(g, e, rtol=tol, atol=tol)


def _both(name, *args, signless=False, tol=None, **kw):
    _same(getattr(alg, name)(*[_up(a) for a in args], **kw),
          getattr(sl, name)(*args, **kw), signless, tol)


@pytest.mark.parametrize("dt", ["f4", "f8", "c8", "c16", "i4"])
def test_inv_det_expm_dtypes(dt):
    x = (SPD + (1j * A if np.dtype(dt).kind == "c" else 0)).astype(dt)
    _both("inv", x)
    # Double precision out of single precision in: SciPy's LAPACK works
    # in single, arrayd's in double; both agree to single precision.
    _both("det", x, tol=1e-5 if dt in ("f4", "c8") else None)
    _both("expm", x)


def test_det_of_an_empty_matrix():
    _both("det", np.zeros((0, 0)))


@pytest.mark.parametrize("scale", [1e-3, 0.1, 0.5, 1.5, 4.0, 30.0])
def test_expm_every_pade_degree(scale):
    _both("expm", A * scale)
    _both("expm", (A + 1j * A.T) * scale)


def test_expm_stack_and_edges():
    _both("expm", np.stack([A, -A, A * 10]))
    _both("expm", np.zeros((0, 0)))
    _both("expm", np.arange(4).reshape(2, 2))
    anti = A - A.T
    u = alg.expm(ad.asarray(anti)).get()
    npt.assert_allclose(u.T @ u, np.eye(4), atol=1e-13)


@pytest.mark.parametrize("kw", [
    {}, {"assume_a": "pos", "lower": True}, {"assume_a": "sym"},
    {"assume_a": "her"}, {"assume_a": "gen", "transposed": True},
    {"assume_a": "lower triangular"}, {"assume_a": "upper triangular"},
    {"assume_a": "diagonal"}, {"overwrite_a": True, "check_finite": False}])
def test_solve(kw):
    a = np.triu(SPD) if kw.get("assume_a") in ("sym", "her") else SPD + A
    if kw.get("assume_a") == "pos":
        a = np.tril(SPD)
    _both("solve", a, B, **kw)
    _both("solve", a, B[:, 0], **kw)


def test_norms():
    for ordr in [None, "fro", 1, -1, 2, np.inf, "nuc"]:
        _both("norm", A, ordr)
    for ordr in [None, 1, 3, np.inf]:
        _both("norm", A[0], ordr)
    _both("norm", A, axis=0)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (4, 4)])
def test_qr_modes(shape):
    x = RNG.standard_normal(shape)
    _both("qr", x, signless=True)
    _both("qr", x, mode="economic", signless=True)
    _both("qr", x, mode="r", signless=True)
    (h, tau), r = alg.qr(ad.asarray(x), mode="raw")
    (eh, etau), er = sl.qr(x, mode="raw")
    _same(h, eh, True)
    _same(tau, etau, True)
    _same(r, er, True)


def test_svd_and_pinv_and_lstsq():
    x = RNG.standard_normal((5, 3))
    _both("svd", x, signless=True)
    _both("svd", x, full_matrices=False, signless=True)
    _both("svd", x, compute_uv=False)
    _both("svdvals", x)
    _both("pinv", x)
    _both("pinv", x, return_rank=True)
    _both("lstsq", x, RNG.standard_normal((5, 2)))


def test_eigen():
    _both("eigh", SPD, signless=True)
    _both("eigh", np.tril(SPD), lower=True, signless=True)
    _both("eigh", np.triu(SPD), lower=False, signless=True)
    _both("eigh", SPD, SPD + np.eye(4), signless=True)
    _both("eigh", SPD, subset_by_index=[1, 2], signless=True)
    _both("eigh", SPD, eigvals_only=True, subset_by_value=(3, 20))
    _both("eigvalsh", SPD)
    _both("eigvalsh", SPD, SPD + np.eye(4))
    _both("eig", SPD, signless=True)
    w = alg.eigvals(ad.asarray(A)).get()
    npt.assert_allclose(np.sort_complex(w), np.sort_complex(sl.eigvals(A)))
    assert w.dtype == np.complex128


def test_cholesky_upper_by_default():
    _both("cholesky", SPD)
    _both("cholesky", SPD, lower=True)


@pytest.mark.parametrize("name,args", [
    ("toeplitz", (np.arange(3.0),)),
    ("toeplitz", (np.arange(3), np.arange(5.0))),
    ("toeplitz", (np.arange(3.0) + 1j,)),
    ("toeplitz", (np.ones((2, 3)),)),
    ("hankel", (np.arange(3.0),)),
    ("hankel", (np.arange(3.0), np.arange(4.0))),
    ("circulant", (np.arange(4.0),)),
    ("companion", (np.arange(1, 5.0),)),
    ("leslie", (np.arange(1, 5.0), np.arange(1, 4.0))),
    ("hilbert", (5,)), ("helmert", (5,)), ("helmert", (5, True)),
    ("dft", (5,)), ("dft", (4, "sqrtn")), ("dft", (4, "n")),
    ("hadamard", (8,)), ("hadamard", (4, "float64")),
    ("fiedler", (np.arange(4.0),)),
    ("block_diag", (np.ones((2, 2)), np.arange(3), np.ones((1, 1), int))),
    ("block_diag", ()),
    ("khatri_rao", (A, B[:, :1].repeat(4, 1))),
])
def test_special_matrices(name, args):
    _both(name, *args)


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
def test_convolution_matrix(mode):
    for m, n in [(1, 5), (2, 3), (4, 10), (10, 8), (25, 25)]:
        _both("convolution_matrix", np.arange(1, m + 1.0), n, mode)


def test_bandwidth_and_symmetry():
    x = np.triu(A, -1)
    assert alg.bandwidth(ad.asarray(x)) == sl.bandwidth(x)
    assert alg.issymmetric(ad.asarray(SPD)) == sl.issymmetric(SPD)
    assert alg.ishermitian(ad.asarray(A)) == sl.ishermitian(A)


@pytest.mark.parametrize("call", [
    lambda m, x: m.inv(np.ones((2, 3))),
    lambda m, x: m.inv(np.array([[1.0, np.nan], [1, 2]])),
    lambda m, x: m.det(np.ones((2, 3))),
    lambda m, x: m.expm(np.ones((2, 3))),
    lambda m, x: m.expm(np.ones(3)),
    lambda m, x: m.solve(x, np.ones(3)),
    lambda m, x: m.solve(x, np.ones(4), assume_a="bad"),
    lambda m, x: m.qr(x, mode="bad"),
    lambda m, x: m.svd(x, lapack_driver="x"),
    lambda m, x: m.companion(np.ones(1)),
    lambda m, x: m.companion(np.array([0, 1.0])),
    lambda m, x: m.hadamard(6),
    lambda m, x: m.dft(4, "bad"),
    lambda m, x: m.khatri_rao(np.ones(3), np.ones(3)),
    lambda m, x: m.khatri_rao(np.ones((2, 3)), np.ones((2, 2))),
    lambda m, x: m.eigh(x, subset_by_index=[3, 1]),
    lambda m, x: m.convolution_matrix(np.ones(3), 0),
], ids=lambda f: "")
def test_errors_as_scipy(call):
    with pytest.raises(Exception) as expected:
        call(sl, SPD)
    with pytest.raises(expected.type):
        call(alg, ad.asarray(SPD))


def test_not_positive_definite_raises_linalgerror():
    with pytest.raises(np.linalg.LinAlgError):
        alg.cholesky(ad.asarray(np.array([[1.0, 2], [2, 1]]))).get()


def test_public_names_are_scipys():
    assert set(alg.__all__) <= set(sl.__all__)
