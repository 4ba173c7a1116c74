"""numpy.linalg's solvers and decompositions against NumPy: inv solve det
slogdet cholesky qr svd eigh eigvalsh pinv lstsq matrix_power matrix_rank
and the SVD norms, over float32/64, complex64/128 and integer inputs,
batched; NumPy's exceptions for bad inputs."""
from __future__ import annotations

import numpy as np
import numpy.testing as npt
import pytest

import arrayd as ad
from helpers import check

DTYPES = [np.dtype(t) for t in ("f4", "f8", "c8", "c16")]
LinAlgError = np.linalg.LinAlgError


def _tol(dt):
    return 2e-4 if np.dtype(dt).char in "fF" else 1e-10


def _mat(dt, shape, seed=0):
    """Well-conditioned matrices (random + n * I) of dtype dt."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        a = a + shape[-1] * np.eye(shape[-1])
    return a.astype(dt)


def _hpd(dt, shape, seed=0):
    a = _mat(dt, shape, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2))
            + shape[-1] * np.eye(shape[-1])).astype(dt)


def _close(got, expected, tol):
    assert got.shape == np.shape(expected), (got.shape, np.shape(expected))
    npt.assert_allclose(got.get(), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (1, 1), (0, 3, 3)])
def test_inv_det_slogdet(dt, shape):
    a = _mat(dt, shape)
    check(ad.linalg.inv(ad.asarray(a)), np.linalg.inv(a), _tol(dt))
    check(ad.linalg.det(ad.asarray(a)), np.linalg.det(a), _tol(dt))
    sign, logdet = ad.linalg.slogdet(ad.asarray(a))
    es, el = np.linalg.slogdet(a)
    check(sign, es, _tol(dt))
    check(logdet, el, _tol(dt))
    assert type(ad.linalg.slogdet(ad.asarray(a))).__name__ == "SlogdetResult"


@pytest.mark.parametrize("dt", ["i4", "?", "i8", "u1"])
def test_integer_inputs_compute_in_float64(dt):
    a = (np.eye(3) * 2 + np.triu(np.ones((3, 3)), 1)).astype(dt)
    check(ad.linalg.inv(ad.asarray(a)), np.linalg.inv(a))
    check(ad.linalg.det(ad.asarray(a)), np.linalg.det(a))
    b = np.arange(3).astype(dt)
    check(ad.linalg.solve(ad.asarray(a), ad.asarray(b)), np.linalg.solve(a, b))
    check(ad.linalg.svd(ad.asarray(a), compute_uv=False),
          np.linalg.svd(a, compute_uv=False))
    check(ad.linalg.eigvalsh(ad.asarray(a)), np.linalg.eigvalsh(a))


def test_det_singular_and_permuted():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    check(ad.linalg.det(ad.asarray(a)), np.linalg.det(a))
    s, l = ad.linalg.slogdet(ad.asarray(a))
    assert s.get() == 0 and l.get() == -np.inf
    p = np.eye(4)[[2, 0, 3, 1]] * np.array([1, -2, 3, 0.5])
    check(ad.linalg.det(ad.asarray(p)), np.linalg.det(p))
    check(ad.linalg.det(ad.asarray(np.zeros((0, 0)))), np.linalg.det(
        np.zeros((0, 0))))


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("sa,sb", [((4, 4), (4,)), ((4, 4), (4, 2)),
                                   ((3, 4, 4), (4, 1)), ((3, 4, 4), (4,)),
                                   ((2, 1, 3, 3), (5, 3, 2))])
def test_solve(dt, sa, sb):
    a = _mat(dt, sa)
    rng = np.random.default_rng(1)
    b = rng.standard_normal(sb).astype(dt)
    check(ad.linalg.solve(ad.asarray(a), ad.asarray(b)), np.linalg.solve(a, b),
          _tol(dt))


def test_solve_mixed_dtypes():
    a = _mat("f4", (3, 3))
    b = np.arange(3, dtype="c16")
    check(ad.linalg.solve(ad.asarray(a), ad.asarray(b)), np.linalg.solve(a, b),
          1e-5)
    bi = np.arange(3, dtype="i4")
    check(ad.linalg.solve(ad.asarray(a), ad.asarray(bi)),
          np.linalg.solve(a, bi), 1e-5)
    # NumPy's _commonType, not promotion: int with float32 is float64.
    for da, db in (("i2", "f4"), ("i1", "c8"), ("f4", "c8"), ("?", "c16")):
        x = (np.eye(3) + np.triu(np.ones((3, 3)), 1)).astype(da)
        y = np.arange(3).astype(db)
        check(ad.linalg.solve(ad.asarray(x), ad.asarray(y)),
              np.linalg.solve(x, y), 1e-5)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(5, 5), (2, 3, 4, 4), (0, 0)])
def test_cholesky(dt, shape):
    a = _hpd(dt, shape)
    check(ad.linalg.cholesky(ad.asarray(a)), np.linalg.cholesky(a), _tol(dt))
    check(ad.linalg.cholesky(ad.asarray(a), upper=True),
          np.linalg.cholesky(a, upper=True), _tol(dt))


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 2),
                                   (0, 3), (3, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(dt, shape, mode):
    a = _mat(dt, shape)
    e = np.linalg.qr(a, mode=mode)
    g = ad.linalg.qr(ad.asarray(a), mode=mode)
    tol = _tol(dt) * 10
    if mode == "r":
        assert g.shape == e.shape and g.dtype == e.dtype
        # R is unique up to the signs (phases) of its rows.
        npt.assert_allclose(np.abs(g.get()), np.abs(e), rtol=tol, atol=tol)
        return
    q, r = g
    assert type(g).__name__ == "QRResult"
    assert q.shape == e.Q.shape and r.shape == e.R.shape
    assert q.dtype == e.Q.dtype and r.dtype == e.R.dtype
    qn, rn = q.get(), r.get()
    npt.assert_allclose(qn @ rn, a, rtol=tol, atol=tol)
    k = qn.shape[-1]
    npt.assert_allclose(np.conj(np.swapaxes(qn, -1, -2)) @ qn,
                        np.broadcast_to(np.eye(k), qn.shape[:-2] + (k, k)),
                        rtol=tol, atol=tol)
    npt.assert_allclose(rn, np.triu(rn), atol=0)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 3, 6, 2),
                                   (0, 3), (2, 0)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(dt, shape, full):
    a = _mat(dt, shape)
    e = np.linalg.svd(a, full_matrices=full)
    g = ad.linalg.svd(ad.asarray(a), full_matrices=full)
    assert type(g).__name__ == "SVDResult"
    tol = _tol(dt) * 10
    for x, y in zip(g, e):
        assert x.shape == y.shape and x.dtype == y.dtype, (x.shape, y.shape)
    check(g.S, e.S, tol)
    u, s, vh = (x.get() for x in g)
    k = s.shape[-1]
    rec = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
    npt.assert_allclose(rec, a, rtol=tol, atol=tol)
    if 0 in shape and full:
        npt.assert_array_equal(u, e.U)
        npt.assert_array_equal(vh, e.Vh)
    check(ad.linalg.svd(ad.asarray(a), compute_uv=False),
          np.linalg.svd(a, compute_uv=False), tol)
    check(ad.linalg.svdvals(ad.asarray(a)), np.linalg.svdvals(a), tol)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(5, 5), (2, 3, 4, 4), (1, 1), (0, 0)])
@pytest.mark.parametrize("uplo", ["L", "U", "u"])
def test_eigh(dt, shape, uplo):
    # Not Hermitian: each triangle defines a different matrix.
    a = _mat(dt, shape)
    ew, ev = np.linalg.eigh(a, UPLO=uplo)
    w, v = ad.linalg.eigh(ad.asarray(a), UPLO=uplo)
    tol = _tol(dt) * 10
    check(w, ew, tol)
    assert v.shape == ev.shape and v.dtype == ev.dtype
    vn = v.get()
    # Same eigenvectors up to phase: |<v_i, ev_i>| = 1 (distinct eigenvalues).
    if shape[-1]:
        overlap = np.abs(np.sum(np.conj(vn) * ev, axis=-2))
        npt.assert_allclose(overlap, 1, rtol=tol, atol=tol)
    check(ad.linalg.eigvalsh(ad.asarray(a), UPLO=uplo), ew, tol)


def test_eigh_hermitian_reconstructs():
    a = _hpd("c16", (3, 5, 5))
    w, v = ad.linalg.eigh(ad.asarray(a))
    wn, vn = w.get(), v.get()
    npt.assert_allclose(a @ vn, vn * wn[..., None, :], atol=1e-10)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (0, 3)])
def test_pinv(dt, shape):
    a = _mat(dt, shape)
    check(ad.linalg.pinv(ad.asarray(a)), np.linalg.pinv(a), _tol(dt) * 10)


def test_pinv_rank_deficient():
    a = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]])
    check(ad.linalg.pinv(ad.asarray(a)), np.linalg.pinv(a), 1e-10)
    check(ad.linalg.pinv(ad.asarray(a), rtol=None),
          np.linalg.pinv(a, rtol=None), 1e-10)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("sa,sb", [((6, 3), (6,)), ((6, 3), (6, 2)),
                                   ((3, 5), (3,)), ((4, 4), (4, 3))])
def test_lstsq(dt, sa, sb):
    a = _mat(dt, sa)
    b = _mat(dt, sb, seed=3)
    ex, er, erank, es = np.linalg.lstsq(a, b)
    x, r, rank, s = ad.linalg.lstsq(ad.asarray(a), ad.asarray(b))
    tol = _tol(dt) * 10
    check(x, ex, tol)
    check(r, er, tol * 10)
    assert rank == erank
    check(s, es, tol)


def test_lstsq_rank_deficient_and_errors():
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    b = np.array([1.0, 2.0, 3.5])
    ex, er, erank, es = np.linalg.lstsq(a, b)
    x, r, rank, s = ad.linalg.lstsq(ad.asarray(a), ad.asarray(b))
    check(x, ex, 1e-10)
    assert rank == erank == 1 and r.shape == er.shape == (0,)
    with pytest.raises(LinAlgError):
        ad.linalg.lstsq(ad.ones((3, 2)), ad.ones(4))


@pytest.mark.parametrize("dt", ["f8", "c8", "i4"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(dt, n):
    a = (_mat("f8", (2, 3, 3)) / 3).astype(dt) if dt != "i4" else (
        np.array([[1, 1, 0], [0, 1, 2], [1, 0, 1]], dtype=dt))
    e = np.linalg.matrix_power(a, n)
    check(ad.linalg.matrix_power(ad.asarray(a), n), e,
          1e-4 if dt == "c8" else 1e-10)


def test_matrix_power_errors():
    with pytest.raises(TypeError):
        ad.linalg.matrix_power(ad.ones((2, 2)), 1.5)
    with pytest.raises(LinAlgError):
        ad.linalg.matrix_power(ad.ones((2, 3)), 2)


def test_matrix_rank():
    for a in (np.eye(4), np.ones((3, 4)), np.zeros((2, 2)),
              np.stack([np.eye(3), np.diag([1.0, 1.0, 0.0])]),
              np.ones(4), np.zeros(3)):
        e = np.linalg.matrix_rank(a)
        g = ad.linalg.matrix_rank(ad.asarray(a))
        npt.assert_array_equal(np.asarray(g.get()), e)
    check_tol = ad.linalg.matrix_rank(ad.asarray(np.diag([1.0, 1e-3])),
                                      tol=1e-2)
    assert int(check_tol.get()) == 1


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
def test_norm_svd(dt, ord_):
    a = _mat(dt, (2, 4, 3))
    for axis in [(1, 2), (2, 1), (0, 2)]:
        e = np.linalg.norm(a, ord_, axis)
        check(ad.linalg.norm(ad.asarray(a), ord_, axis), e, _tol(dt) * 10)
    e = np.linalg.norm(a[0], ord_)
    check(ad.linalg.norm(ad.asarray(a[0]), ord_), e, _tol(dt) * 10)
    e = np.linalg.norm(a, ord_, (1, 2), keepdims=True)
    check(ad.linalg.norm(ad.asarray(a), ord_, (1, 2), keepdims=True), e,
          _tol(dt) * 10)


FUNCS_SQUARE = [ad.linalg.inv, ad.linalg.det, ad.linalg.slogdet,
                ad.linalg.cholesky, ad.linalg.eigh, ad.linalg.eigvalsh]


@pytest.mark.parametrize("fn", FUNCS_SQUARE, ids=lambda f: f.__name__)
def test_not_square_or_1d_is_linalgerror(fn):
    with pytest.raises(LinAlgError, match="must be square"):
        fn(ad.ones((2, 3)))
    with pytest.raises(LinAlgError, match="two-dimensional"):
        fn(ad.ones(3))


@pytest.mark.parametrize("fn", FUNCS_SQUARE + [ad.linalg.svd, ad.linalg.qr,
                                                ad.linalg.pinv],
                         ids=lambda f: f.__name__)
def test_float16_is_typeerror(fn):
    with pytest.raises(TypeError, match="float16"):
        fn(ad.ones((2, 2), "f2"))
    with pytest.raises(TypeError):
        np.linalg.inv(np.ones((2, 2), "f2"))


def test_singular_and_not_positive_definite():
    sing = ad.asarray(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(LinAlgError, match="Singular matrix"):
        ad.linalg.inv(sing).get()
    with pytest.raises(LinAlgError, match="Singular matrix"):
        ad.linalg.solve(sing, ad.ones(2)).get()
    batch = np.stack([np.eye(2), np.zeros((2, 2))]).astype("c8")
    with pytest.raises(LinAlgError, match="Singular matrix"):
        ad.linalg.inv(ad.asarray(batch)).get()
    with pytest.raises(LinAlgError, match="not positive definite"):
        ad.linalg.cholesky(ad.asarray(np.array([[1.0, 2.0],
                                                [2.0, 1.0]]))).get()
    with pytest.raises(LinAlgError):
        np.linalg.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]))
    # The session stays usable.
    check(ad.linalg.inv(ad.asarray(np.eye(2))), np.eye(2))


def test_bad_arguments():
    with pytest.raises(ValueError):
        ad.linalg.solve(ad.ones((3, 3)), ad.ones((2, 3)))
    with pytest.raises(ValueError):
        ad.linalg.solve(ad.ones((3, 3)), ad.ones(2))
    with pytest.raises(ValueError):
        ad.linalg.eigh(ad.ones((2, 2)), UPLO="X")
    with pytest.raises(ValueError):
        ad.linalg.qr(ad.ones((2, 2)), mode="bogus")
    with pytest.raises(ValueError):
        ad.linalg.solve(ad.ones((2, 3, 3)), ad.ones((4, 3, 1)))


def test_server_checks_what_the_client_checks():
    # Ops recorded directly, past the client's checks: the server refuses
    # them with NumPy's exception kinds at the next sync.
    from arrayd import _composite as _c
    a = ad.ones((2, 3))
    s = a._session
    with pytest.raises(LinAlgError, match="square"):
        _c.new(s, "inv", (a,), (2, 3), np.dtype("f8")).get()
    with pytest.raises(LinAlgError, match="two-dimensional"):
        _c.new(s, "det", (ad.ones(3),), (), np.dtype("f8")).get()
    with pytest.raises(TypeError, match="float16"):
        _c.new(s, "cholesky", (ad.ones((2, 2), "f2"),), (2, 2),
               np.dtype("f8")).get()
    with pytest.raises(ValueError):
        _c.new(s, "solve", (ad.ones((3, 3)), ad.ones((2, 1))), (3, 1),
               np.dtype("f8")).get()
    from arrayd._decompositions import _new_many
    f8 = np.dtype("f8")
    with pytest.raises(ValueError, match="mode"):
        _new_many(s, "qr", (a,), [((2, 2), f8), ((2, 3), f8)],
                  {"mode": "x"})[0].get()
    with pytest.raises(ValueError):
        _c.new(s, "fft", (ad.ones(4),), (4,), np.dtype("c16"),
               {"n": 0, "axis": 0}).get()
    with pytest.raises(np.exceptions.AxisError):
        _c.new(s, "rfft", (ad.ones(4),), (3,), np.dtype("c16"),
               {"axis": 2}).get()
    with pytest.raises(ValueError, match="norm"):
        _c.new(s, "irfft", (ad.ones(4, "c8"),), (6,), np.dtype("f4"),
               {"norm": "x"}).get()
    with pytest.raises(TypeError):
        _c.new(s, "rfft", (ad.ones(4, "c8"),), (3,), np.dtype("c8")).get()


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, np.inf, "fro", "nuc"])
def test_cond(p):
    a = _mat("f8", (3, 4, 4))
    check(ad.linalg.cond(ad.asarray(a), p), np.linalg.cond(a, p), 1e-8)
    c = _mat("c8", (4, 4))
    check(ad.linalg.cond(ad.asarray(c), p), np.linalg.cond(c, p), 1e-3)
    if p is None:
        z = np.zeros((2, 2))
        check(ad.linalg.cond(ad.asarray(z)), np.linalg.cond(z))
    if p == "nuc":
        return  # NumPy's own SVD of the singular inverse does not converge
    # Stacked, some exactly singular: inf there, as NumPy.
    s = np.arange(16.0).reshape(2, 2, 2, 2)
    s[0, 0] = 0
    s[1, 1] = 0
    with np.errstate(all="ignore"):
        check(ad.linalg.cond(ad.asarray(s), p), np.linalg.cond(s, p), 1e-8)


def test_multi_dot_tensorinv_tensorsolve():
    xs = [_mat("f8", s, seed=i) for i, s in
          enumerate([(3,), (3, 4), (4, 5), (5,)])]
    for k in (slice(0, 3), slice(1, 4), slice(0, 4), slice(1, 3)):
        e = np.linalg.multi_dot(xs[k])
        check(ad.linalg.multi_dot([ad.asarray(x) for x in xs[k]]), e, 1e-10)
    with pytest.raises(ValueError):
        ad.linalg.multi_dot([ad.ones((2, 2))])
    a = np.eye(24).reshape(4, 6, 8, 3) + 0.1 * _mat("f8", (4, 6, 8, 3))
    check(ad.linalg.tensorinv(ad.asarray(a)), np.linalg.tensorinv(a), 1e-10)
    b = _mat("f8", (4, 6), seed=5)
    check(ad.linalg.tensorsolve(ad.asarray(a), ad.asarray(b)),
          np.linalg.tensorsolve(a, b), 1e-10)
    a2 = np.moveaxis(a, 0, 3)
    check(ad.linalg.tensorsolve(ad.asarray(a2), ad.asarray(b), axes=(0,)),
          np.linalg.tensorsolve(a2, b, axes=(0,)), 1e-10)


def test_array_api_spellings():
    x = _mat("c16", (2, 3, 4))
    check(ad.linalg.matrix_transpose(ad.asarray(x)),
          np.linalg.matrix_transpose(x))
    with pytest.raises(ValueError):
        ad.linalg.matrix_transpose(ad.ones(3))
    for kw in ({}, {"axis": 1}, {"axis": (0, 2)}, {"axis": (2, 0),
               "keepdims": True}, {"keepdims": True, "ord": 1},
               {"ord": np.inf}, {"axis": -1, "ord": 3}):
        check(ad.linalg.vector_norm(ad.asarray(x), **kw),
              np.linalg.vector_norm(x, **kw), 1e-10)
    for kw in ({}, {"ord": 2}, {"ord": "nuc", "keepdims": True},
               {"ord": -np.inf}):
        check(ad.linalg.matrix_norm(ad.asarray(x), **kw),
              np.linalg.matrix_norm(x, **kw), 1e-10)
    check(ad.linalg.trace(ad.asarray(x), offset=1),
          np.linalg.trace(x, offset=1))
    check(ad.linalg.diagonal(ad.asarray(x), offset=-1),
          np.linalg.diagonal(x, offset=-1))


def _check_eig(a, w, v):
    """A v = v diag(w), unit columns, and the eigenvalues are NumPy's (as a
    multiset: the order of geev's output is not specified)."""
    a = np.asarray(a)
    wn = np.linalg.eigvals(a)
    tol = 1e-4 if w.dtype in (np.float32, np.complex64) else 1e-10
    key = lambda z: np.lexsort((np.round(z.imag, 6), np.round(z.real, 6)), axis=-1)  # noqa: E731
    np.testing.assert_allclose(np.take_along_axis(w, key(w), -1),
                               np.take_along_axis(wn, key(wn), -1), rtol=tol, atol=tol)
    if v is not None:
        np.testing.assert_allclose(a @ v, v * w[..., None, :], rtol=tol, atol=tol * 10)
        np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, rtol=tol)


@pytest.mark.parametrize("dt", ["f4", "f8", "c8", "c16", "i8"])
def test_eig_matches_numpy(dt):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 5, 5))
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal((3, 5, 5))
    a = (a * 4).astype(dt)
    w, v = ad.linalg.eig(ad.asarray(a))
    wn, vn = np.linalg.eig(a)
    assert w.dtype == wn.dtype and v.dtype == vn.dtype  # complex: pairs exist
    assert w.shape == wn.shape and v.shape == vn.shape
    _check_eig(a.astype(wn.dtype), w.get(), v.get())
    e = ad.linalg.eigvals(ad.asarray(a))
    assert e.dtype == wn.dtype
    _check_eig(a.astype(wn.dtype), e.get(), None)


def test_eig_real_eigenvalues_dtype_as_numpy():
    # Triangular and symmetric real matrices: real results in NumPy up to
    # 2.4, complex in later NumPy; arrayd follows the installed one.
    tri = np.triu(np.arange(1.0, 10.0).reshape(3, 3))
    sym = np.array([[2.0, 1.0], [1.0, 2.0]], dtype=np.float32)
    for a in (tri, sym):
        w, v = ad.linalg.eig(ad.asarray(a))
        wn, vn = np.linalg.eig(a)
        assert w.dtype == wn.dtype and v.dtype == vn.dtype
        assert ad.linalg.eigvals(ad.asarray(a)).dtype == np.linalg.eigvals(a).dtype
        _check_eig(a, w.get(), v.get())
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])  # eigenvalues +-i
    w = ad.linalg.eigvals(ad.asarray(rot))
    assert w.dtype == np.complex128
    np.testing.assert_allclose(np.sort_complex(w.get()), [-1j, 1j], atol=1e-12)


def test_eig_errors_and_edge_cases():
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        ad.linalg.eig(ad.ones((2, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="two-dimensional"):
        ad.linalg.eigvals(ad.ones(3))
    with pytest.raises(TypeError):
        ad.linalg.eig(ad.ones((2, 2), dtype="f2"))
    w, v = ad.linalg.eig(ad.zeros((0, 0)))
    wn, vn = np.linalg.eig(np.zeros((0, 0)))
    assert w.shape == (0,) and v.shape == (0, 0) and w.dtype == wn.dtype
    w, v = ad.linalg.eig(ad.zeros((4, 1, 1)) + 3)
    assert w.shape == (4, 1) and (w.get() == 3).all()
    bad = np.eye(3)
    bad[1, 2] = np.inf
    for f in (np.linalg.eigvals, ad.linalg.eigvals):
        with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):
            np.asarray(f(bad if f is np.linalg.eigvals else ad.asarray(bad)))


# -- pinv, lstsq, matrix_rank and norm are server ops (ops/linalg.cc) -------

def test_pinv_tolerances_and_hermitian():
    a = np.stack([np.diag([1.0, 1e-3]), np.diag([2.0, 1e-3])])
    for kw in ({"rcond": 1e-2}, {"rcond": np.array([1e-15, 1e-2])},
               {"rtol": 1e-2}, {"rtol": None}):
        check(ad.linalg.pinv(ad.asarray(a), **kw), np.linalg.pinv(a, **kw),
              1e-10)
    h = _hpd("c16", (2, 3, 3))
    check(ad.linalg.pinv(ad.asarray(h), hermitian=True),
          np.linalg.pinv(h, hermitian=True), 1e-10)
    with pytest.raises(LinAlgError, match="two-dimensional"):
        ad.linalg.pinv(ad.ones(3))
    with pytest.raises(LinAlgError, match="square"):
        ad.linalg.pinv(ad.ones((2, 3)), hermitian=True)
    with pytest.raises(ValueError):  # the rcond array does not fit the batch
        ad.linalg.pinv(ad.asarray(a), rcond=np.ones(3)).get()
    with pytest.raises(ValueError):
        np.linalg.pinv(a, rcond=1e-2, rtol=1e-2)
    with pytest.raises(ValueError):
        ad.linalg.pinv(ad.asarray(a), rcond=1e-2, rtol=1e-2)


def test_lstsq_rcond_and_bad_input():
    a = np.array([[1.0, 2.0], [2.0, 4.001], [3.0, 6.0]])
    b = np.array([[1.0, 0.0], [2.0, 1.0], [3.5, 1.0]])
    for rcond in (None, 1e-2):
        ex, er, erank, es = np.linalg.lstsq(a, b, rcond=rcond)
        x, r, rank, s = ad.linalg.lstsq(ad.asarray(a), ad.asarray(b),
                                         rcond=rcond)
        assert rank == erank and r.shape == er.shape
        check(x, ex, 1e-8)
        check(r, er, 1e-8)
        check(s, es, 1e-10)
    x, r, rank, s = ad.linalg.lstsq(ad.zeros((3, 0)), ad.ones(3))
    ex, er, erank, es = np.linalg.lstsq(np.zeros((3, 0)), np.ones(3))
    assert x.shape == ex.shape and rank == erank
    check(r, er)
    with pytest.raises(LinAlgError, match="two-dimensional"):
        ad.linalg.lstsq(ad.ones((2, 2, 2)), ad.ones((2, 2)))
    with pytest.raises(LinAlgError, match="at least two-dimensional"):
        ad.linalg.lstsq(ad.ones(3), ad.ones(3))
    with pytest.raises(TypeError):
        ad.linalg.lstsq(ad.ones((2, 2), "f2"), ad.ones(2))


def test_matrix_rank_tolerances_and_errors():
    a = np.stack([np.diag([1.0, 1e-3, 0.0]), np.diag([1.0, 1e-6, 1e-9])])
    for kw in ({}, {"tol": 1e-4}, {"rtol": 1e-7}, {"hermitian": True},
               {"tol": np.array([1e-2, 1e-7])},
               {"rtol": np.array([1e-7, 1e-2])}):
        npt.assert_array_equal(
            ad.linalg.matrix_rank(ad.asarray(a), **kw).get(),
            np.linalg.matrix_rank(a, **kw))
    with pytest.raises(ValueError):
        np.linalg.matrix_rank(a, tol=1.0, rtol=1.0)
    with pytest.raises(ValueError):
        ad.linalg.matrix_rank(ad.asarray(a), tol=1.0, rtol=1.0)
    with pytest.raises(TypeError, match="float16"):
        ad.linalg.matrix_rank(ad.ones((2, 2), "f2"))


@pytest.mark.parametrize("dt", ["f4", "f8", "c8", "c16", "i4", "?"])
def test_norm_orders_match_numpy(dt):
    x = (_mat("c16" if dt[0] == "c" else "f8", (2, 3, 4)) * 3).astype(dt)
    tol = _tol(dt) * 10 if dt != "?" else 1e-12
    for ord_, axis in [(None, None), (None, 1), (0, 2), (1, -1), (-1, 0),
                       (np.inf, 1), (-np.inf, 2), (3, 1), (0.5, 2),
                       ("fro", (0, 2)), (1, (2, 1)), (-1, (1, 2)),
                       (np.inf, (0, 1)), (-np.inf, (1, 0))]:
        for keepdims in (False, True):
            check(ad.linalg.norm(ad.asarray(x), ord_, axis, keepdims),
                  np.linalg.norm(x, ord_, axis, keepdims), tol)


def test_norm_bad_input_is_numpys_error():
    x = np.ones((2, 3))
    for args, kind in [((np.ones(3), "fro"), ValueError),
                       ((x, 3), ValueError),
                       ((x, "max"), ValueError),
                       ((np.ones((2, 2, 2)), 2), ValueError),
                       ((x, None, (0, 0)), ValueError),
                       ((x, None, (0, 1, 1)), ValueError),
                       ((x, None, (0, 2)), np.exceptions.AxisError),
                       ((x, None, 2), np.exceptions.AxisError)]:
        with pytest.raises(kind):
            np.linalg.norm(*args)
        with pytest.raises(kind):
            ad.linalg.norm(ad.asarray(args[0]), *args[1:])
    with pytest.raises(TypeError, match="float16"):
        ad.linalg.norm(ad.ones((2, 2), "f2"), "nuc")
