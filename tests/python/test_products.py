"""Products against NumPy: matmul (@) dot vdot inner outer tensordot kron
einsum, and linalg.norm."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, ids, sample


def _tol(dt):
    return 5e-3 if np.dtype(dt).char in "eF" else 1e-5 if np.dtype(
        dt).char in "f" else None


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 2)), ((4,), (4, 2)),
                                   ((3, 4), (4,)), ((4,), (4,)),
                                   ((2, 1, 3, 4), (5, 4, 2)),
                                   ((0, 4), (4, 3)), ((3, 0), (0, 2))])
def test_matmul(dt, sa, sb):
    x, y = sample(dt, sa), sample(dt, sb, seed=1)
    e = np.matmul(x, y)
    check(ad.matmul(ad.asarray(x), ad.asarray(y)), e, _tol(e.dtype))
    check(ad.asarray(x) @ ad.asarray(y), e, _tol(e.dtype))


def test_matmul_mixed_layout_and_errors():
    x = sample("f4", (4, 6))[:, ::2]
    y = sample("i2", (3, 5))
    check(ad.asarray(sample("f4", (4, 6)))[:, ::2] @ ad.asarray(y), x @ y,
          1e-5)
    check(x @ ad.asarray(y), x @ y, 1e-5)
    out = ad.zeros((4, 5), "f8")
    assert ad.matmul(ad.asarray(x), ad.asarray(y), out=out) is out
    check(out, (x @ y).astype("f8"), 1e-5)
    with pytest.raises(ValueError):
        ad.ones((2, 3)) @ ad.ones((2, 3))
    with pytest.raises(ValueError):
        ad.matmul(ad.ones(3), 2.0)


@pytest.mark.parametrize("dt", ["?", "i4", "u1", "f4", "f8", "c16"])
def test_dot_inner_outer_vdot(dt):
    for sa, sb in (((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)),
                   ((2, 2, 3), (4, 3, 2)), ((), (3,))):
        x, y = sample(dt, sa), sample(dt, sb, seed=2)
        e = np.dot(x, y)
        check(ad.dot(ad.asarray(x), ad.asarray(y)), e, _tol(e.dtype))
    for sa, sb in (((3,), (3,)), ((2, 3), (4, 3)), ((2, 2, 3), (3,))):
        x, y = sample(dt, sa), sample(dt, sb, seed=2)
        e = np.inner(x, y)
        check(ad.inner(ad.asarray(x), ad.asarray(y)), e, _tol(e.dtype))
    x, y = sample(dt, (2, 3)), sample(dt, (4,), seed=2)
    check(ad.outer(ad.asarray(x), ad.asarray(y)), np.outer(x, y))
    y6 = sample(dt, (3, 2), seed=3)
    e = np.vdot(x, y6)
    check(ad.vdot(ad.asarray(x), ad.asarray(y6)), e, _tol(e.dtype))
    check(ad.asarray(x).dot(ad.asarray(y6)), x.dot(y6), _tol(e.dtype))


def test_dot_errors():
    with pytest.raises(ValueError):
        ad.dot(ad.ones((2, 3)), ad.ones((2, 3)))
    with pytest.raises(ValueError):
        ad.inner(ad.ones((2, 3)), ad.ones((2, 4)))
    with pytest.raises(ValueError):
        ad.vdot(ad.ones(3), ad.ones(4))


@pytest.mark.parametrize("axes", [2, 1, 0, ([1, 0], [0, 1]), (2, 0),
                                  ([-1], [0])])
def test_tensordot(axes):
    x, y = sample("f8", (3, 4, 5)), sample("f8", (4, 3, 2), seed=1)
    if axes in (2, ([1, 0], [0, 1])):
        y = sample("f8", (4, 3, 2), seed=1) if axes != 2 else sample(
            "f8", (4, 5, 2), seed=1)
    if axes == (2, 0):
        y = sample("f8", (5, 2), seed=1)
    if axes == 1:
        y = sample("f8", (5, 2), seed=1)
    if axes == ([-1], [0]):
        y = sample("f8", (5, 3), seed=1)
    check(ad.tensordot(ad.asarray(x), ad.asarray(y), axes),
          np.tensordot(x, y, axes))
    with pytest.raises(ValueError):
        ad.tensordot(ad.ones((2, 3)), ad.ones((2, 3)), ([1], [1, 0]))
    with pytest.raises(ValueError):
        ad.tensordot(ad.ones((2, 3)), ad.ones((2, 3)), 1)


@pytest.mark.parametrize("sa,sb", [((2, 3), (4, 5)), ((3,), (2,)),
                                   ((2, 2), (3,)), ((2,), (2, 3, 1))])
def test_kron(sa, sb):
    x, y = sample("i4", sa), sample("f4", sb, seed=1)
    check(ad.kron(ad.asarray(x), ad.asarray(y)), np.kron(x, y))


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij->ji", [(3, 4)]),
    ("ii->", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,), (5,)]),
    ("i,i->i", [(5,), (5,)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("bi,bi->b", [(3, 4), (3, 4)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("i...->...", [(3, 4)]),
]


@pytest.mark.parametrize("spec,shapes", EINSUM, ids=[s for s, _ in EINSUM])
@pytest.mark.parametrize("dt", ["i8", "f4", "c16"])
def test_einsum(spec, shapes, dt):
    ops = [sample(dt, s, seed=i) for i, s in enumerate(shapes)]
    e = np.einsum(spec, *ops)
    check(ad.einsum(spec, *[ad.asarray(o) for o in ops]), e, _tol(e.dtype))


def test_einsum_errors():
    with pytest.raises(ValueError):
        ad.einsum("ij,jk->ik", ad.ones((2, 3)))
    with pytest.raises(ValueError):
        ad.einsum("ij->ik", ad.ones((2, 3)))
    with pytest.raises(ValueError):
        ad.einsum("ijk->i", ad.ones((2, 3)))
    with pytest.raises(ValueError):
        ad.einsum("ii->i", ad.ones((2, 3)))


@pytest.mark.parametrize("dt", ["i4", "f4", "f8", "c8", "c16"])
def test_norm_vector(dt):
    x = sample(dt, (3, 4))
    for ord_ in (None, 2, 1, np.inf, -np.inf, 0, 3, -1, 0.5):
        for axis in (0, 1, -1):
            e = np.linalg.norm(x, ord_, axis)
            check(ad.linalg.norm(ad.asarray(x), ord_, axis), e, _tol(e.dtype))
    v = sample(dt, (6,))
    e = np.linalg.norm(v)
    check(ad.linalg.norm(ad.asarray(v)), e, _tol(e.dtype))
    e = np.linalg.norm(x, keepdims=True)
    check(ad.linalg.norm(ad.asarray(x), keepdims=True), e, _tol(e.dtype))


@pytest.mark.parametrize("dt", ["i4", "f4", "f8", "c16"])
def test_norm_matrix(dt):
    x = sample(dt, (2, 3, 4))
    for ord_ in ("fro", 1, -1, np.inf, -np.inf, None):
        for axis in ((1, 2), (2, 0)):
            e = np.linalg.norm(x, ord_, axis)
            check(ad.linalg.norm(ad.asarray(x), ord_, axis), e, _tol(e.dtype))
    e = np.linalg.norm(x[0], "fro")
    check(ad.linalg.norm(ad.asarray(x[0]), "fro"), e, _tol(e.dtype))
    e = np.linalg.norm(x, 1, (1, 2), keepdims=True)
    check(ad.linalg.norm(ad.asarray(x), 1, (1, 2), keepdims=True), e,
          _tol(e.dtype))


def test_norm_errors():
    with pytest.raises(ValueError):
        ad.linalg.norm(ad.ones(3), "fro")
    with pytest.raises(ValueError):
        ad.linalg.norm(ad.ones((2, 2)), 3, (0, 1))
    with pytest.raises(ValueError):
        ad.linalg.norm(ad.ones((2, 2, 2)), None, (0, 1, 2))
    with pytest.raises(ValueError):
        ad.linalg.norm(ad.ones((2, 2)), "nuc", 0)


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((4, 3), (3,)), ((2, 1, 3), (5, 3)),
                                   ((3, 4), (3, 4))])
def test_vecdot(sa, sb):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(sa) + 1j * rng.standard_normal(sa)
    b = rng.standard_normal(sb) + 1j * rng.standard_normal(sb)
    axis = 0 if sa == (3, 4) else -1
    for x, y in ((a, b), (a.real, b.real), (a.real.astype("i8"), b.real.astype("i8"))):
        got = ad.vecdot(ad.asarray(x), ad.asarray(y), axis=axis)
        exp = np.vecdot(x, y, axis=axis)
        assert got.dtype == exp.dtype and got.shape == exp.shape
        np.testing.assert_allclose(got.get(), exp, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ad.linalg.vecdot(ad.asarray(x), ad.asarray(y), axis=axis).get(),
                                   np.linalg.vecdot(x, y, axis=axis), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError):
        ad.vecdot(ad.ones(3), ad.ones(4))
    with pytest.raises(ValueError):
        ad.vecdot(ad.ones(()), ad.ones(3))


@pytest.mark.parametrize("sa,sb,kw", [((3,), (3,), {}), ((5, 3), (3,), {}),
                                      ((3, 4), (4, 3), {"axisa": 0}),
                                      ((2, 3, 4), (2, 3, 4), {"axis": 1}),
                                      ((4, 3), (4, 2), {})])
def test_cross(sa, sb, kw):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            exp = np.cross(a, b, **kw)
        except ValueError:  # 2-element vectors, in a NumPy that dropped them
            with pytest.raises(ValueError, match="3-dimensional vectors"):
                ad.cross(ad.asarray(a), ad.asarray(b), **kw)
            return
        got = ad.cross(ad.asarray(a), ad.asarray(b), **kw)
    assert got.shape == exp.shape and got.dtype == exp.dtype
    np.testing.assert_allclose(got.get(), exp, rtol=1e-12, atol=1e-12)
    ia, ib = a.astype("i4"), b.astype("i4")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert ad.cross(ad.asarray(ia), ad.asarray(ib), **kw).dtype == np.cross(ia, ib, **kw).dtype


def test_linalg_cross_and_errors():
    a, b = np.arange(6.0).reshape(2, 3), np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(ad.linalg.cross(ad.asarray(a), ad.asarray(b)).get(),
                               np.linalg.cross(a, b))
    with pytest.raises(ValueError, match="3-dimensional vectors"):
        ad.linalg.cross(ad.ones((2, 2)), ad.ones((2, 2)))
    with pytest.raises(ValueError) as np_err:
        np.cross(np.ones(4), np.ones(4))
    with pytest.raises(ValueError, match=re.escape(str(np_err.value))):
        ad.cross(ad.ones(4), ad.ones(4))
    try:  # 2-element vectors: deprecated in NumPy 2.0, an error later
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            np.cross(np.ones(2), np.ones(2))
    except ValueError as e:
        with pytest.raises(ValueError, match=re.escape(str(e))):
            ad.cross(ad.ones(2), ad.ones(2))
    else:
        with pytest.warns(DeprecationWarning):
            ad.cross(ad.ones(2), ad.ones(2))
