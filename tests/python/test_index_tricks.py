"""Index helpers against NumPy: r_ c_ s_ index_exp mgrid ogrid ix_
indices ndindex, diag/tril/triu/mask indices, ravel_multi_index,
unravel_index, fill_diagonal."""
from __future__ import annotations

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, INT_DTYPES, check, ids, sample


def check_tuple(got, expected):
    assert isinstance(got, tuple) and len(got) == len(expected)
    for g, e in zip(got, expected):
        check(g, e)


def raises_like_numpy(fn_np, fn_ad):
    """fn_ad raises the exception class that fn_np raises."""
    with pytest.raises(Exception) as info:
        fn_np()
    with pytest.raises(info.type):
        fn_ad()


# -- grids ---------------------------------------------------------------------

@pytest.mark.parametrize("dims", [(0,), (3,), (2, 3), (1, 2, 3, 4), ()])
@pytest.mark.parametrize("dt", ["i8", "i4", "u1", "f4", "c8"])
def test_indices(dims, dt):
    check(ad.indices(dims, dt), np.indices(dims, dt))
    check_tuple(ad.indices(dims, dt, sparse=True),
                np.indices(dims, dt, sparse=True))


def test_indices_bool_and_errors():
    check(ad.indices((1, 2), bool), np.indices((1, 2), bool))
    with pytest.raises(TypeError):
        ad.indices((2, 3), dtype=bool)
    with pytest.raises(ValueError):
        ad.indices((2, -1))


@pytest.mark.parametrize("key", [
    np.s_[0:5, 0:3], np.s_[0:1:3j, 0:4], np.s_[-1:1:0.5, 2:5],
    np.s_[0:1:0j, 0:2], np.s_[3:0:-1, 0:2:1j], np.s_[0:4], np.s_[1:2:0.25],
    np.s_[0:1:5j], np.s_[2:-1:-1], np.s_[0:3, 0:2, 1:3]], ids=str)
def test_mgrid_ogrid(key):
    check(ad.mgrid[key], np.mgrid[key])
    og = np.ogrid[key]
    if isinstance(og, tuple):
        check_tuple(ad.ogrid[key], og)
    else:
        check(ad.ogrid[key], og)


def test_grid_negative_size():
    check_tuple(ad.ogrid[5:0, 0:2], np.ogrid[5:0, 0:2])
    with pytest.raises(ValueError):
        ad.mgrid[5:0, 0:2]


def test_s_index_exp_ndindex():
    assert ad.s_[1:2, ::3] == np.s_[1:2, ::3]
    assert ad.index_exp[1:2] == np.index_exp[1:2]
    assert list(ad.ndindex(2, 3)) == list(np.ndindex(2, 3))
    x = sample("f4", (4, 5))
    check(ad.asarray(x)[ad.s_[1:, ::2]], x[np.s_[1:, ::2]])


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_r_c_arrays(dt):
    a = sample(dt, (3, 4))
    b = sample(dt, (2, 4), seed=1)
    check(ad.r_[ad.asarray(a), ad.asarray(b)], np.r_[a, b])
    c = sample(dt, (3, 2), seed=2)
    check(ad.c_[ad.asarray(a), ad.asarray(c)], np.c_[a, c])
    v = sample(dt, (3,))
    check(ad.r_[ad.asarray(v), 0, 0, ad.asarray(v)], np.r_[v, 0, 0, v])
    check(ad.c_[ad.asarray(v), ad.asarray(v)], np.c_[v, v])


@pytest.mark.parametrize("expr", [
    "X.r_[1, 2, 3]", "X.r_[0, 0.5, -1, 0.3]", "X.r_[-1:1:6j, [0] * 3, 5, 6]",
    "X.r_[0:4, 2]", "X.r_[np.int8(3), np.float32(2.5)]",
    "X.r_[np.array([1, 2], np.int8), 3]",
    "X.r_['0,2,0', [1, 2, 3], [4, 5, 6]]", "X.r_['1,2,0', [1, 2, 3], [4, 5, 6]]",
    "X.r_['0,2', [1, 2, 3], [4, 5, 6]]", "X.r_['0,3,-1', [1, 2, 3], [4, 5, 6]]",
    "X.r_['-1', X.ones((1, 3)), X.zeros((1, 3))]", "X.r_['0,2', 0:3]",
    "X.r_['0,2,0', 0:3, [4, 5, 6]]", "X.c_[1, 2]", "X.c_[0:3, [1, 2, 3]]",
    "X.c_[X.array([[1, 2, 3]]), 0, 0, X.array([[4, 5, 6]])]",
])
def test_r_c_directives(expr):
    check(eval(expr.replace("X.", "ad.")), eval(expr.replace("X.", "np.")))


def test_r_c_errors():
    with pytest.raises(ValueError):
        ad.r_[ad.ones((3, 4)), ad.ones((2, 5))]
    with pytest.raises(ValueError):
        ad.c_[ad.ones((3, 4)), ad.ones((2, 5))]
    with pytest.raises(ValueError):
        ad.r_[1, "0"]
    with pytest.raises(ValueError):
        ad.r_["x", 1]
    with pytest.raises(OverflowError):
        ad.r_[ad.asarray(np.array([1, 2], np.int8)), 300]
    with pytest.raises(NotImplementedError):
        ad.r_["r", [1, 2, 3]]
    assert len(ad.r_) == 0 and len(ad.c_) == 0


def test_ix():
    check_tuple(ad.ix_([0, 1], [2, 4]), np.ix_([0, 1], [2, 4]))
    for dt in ("i4", "u8", "f8"):
        a = np.array([0, 1], dt)
        b = np.array([2, 3], dt)
        check_tuple(ad.ix_(ad.asarray(a), ad.asarray(b)), np.ix_(a, b))
    m = np.array([True, False] * 2)
    check_tuple(ad.ix_(ad.asarray(m), [1, 2]), np.ix_(m, [1, 2]))
    check_tuple(ad.ix_([]), np.ix_([]))
    x = sample("f4", (4, 5))
    got = ad.asarray(x)[ad.ix_([1, 3], [0, 2, 4])]
    check(got, x[np.ix_([1, 3], [0, 2, 4])])
    with pytest.raises(ValueError):
        ad.ix_(ad.ones((2, 2)))


# -- diagonals and triangles -------------------------------------------------

@pytest.mark.parametrize("n", [2, 4, -3, 0])
@pytest.mark.parametrize("ndim", [2, 3, 1, 0])
def test_diag_indices(n, ndim):
    check_tuple(ad.diag_indices(n, ndim), np.diag_indices(n, ndim))


def test_diag_indices_from():
    for shape in [(3, 3), (0, 0), (2, 2, 2)]:
        check_tuple(ad.diag_indices_from(ad.ones(shape)),
                    np.diag_indices_from(np.ones(shape)))
    for shape in [(3, 5), (3, 3, 4), (5,), (0,)]:
        with pytest.raises(ValueError):
            ad.diag_indices_from(ad.ones(shape))


@pytest.mark.parametrize("n, k, m", [
    (29, 0, None), (11, 4, 4), (4, 4, 3), (5, -2, None), (5, -7, 3),
    (0, 0, None), (3, 0, 0), (6, 1, 9), (1, 0, 1), (7, -1, 2)])
def test_tril_triu_indices(n, k, m):
    check_tuple(ad.tril_indices(n, k, m), np.tril_indices(n, k, m))
    check_tuple(ad.triu_indices(n, k, m), np.triu_indices(n, k, m))


@pytest.mark.parametrize("shape, k", [((10, 10), 4), ((10, 20), 13),
                                      ((4, 6), 0), ((20, 5), 32),
                                      ((5, 4), -2)])
def test_tri_indices_from(shape, k):
    x = sample("f4", shape)
    a = ad.asarray(x)
    check_tuple(ad.tril_indices_from(a, k), np.tril_indices_from(x, k))
    check_tuple(ad.triu_indices_from(a, k), np.triu_indices_from(x, k))
    check(a[ad.triu_indices_from(a, k)], x[np.triu_indices_from(x, k)])


def test_tri_indices_errors():
    with pytest.raises(AttributeError):
        ad.tril_indices_from(4)
    with pytest.raises(ValueError):
        ad.triu_indices_from(ad.ones((2, 2, 2)))
    with pytest.raises(TypeError):
        ad.tril_indices(1.5)


def test_mask_indices():
    check_tuple(ad.mask_indices(10, ad.triu, 1), np.mask_indices(10, np.triu, 1))
    check_tuple(ad.mask_indices(5, ad.tril, -1), np.mask_indices(5, np.tril, -1))
    check_tuple(ad.mask_indices(0, ad.triu), np.mask_indices(0, np.triu))
    x = sample("f4", (6, 6))
    check_tuple(ad.mask_indices(6, lambda n, k: ad.asarray(x)),
                np.mask_indices(6, lambda n, k: x))


@pytest.mark.parametrize("shape", [(3, 3), (2, 2, 2), (3, 5), (5, 3)])
@pytest.mark.parametrize("val", [1, 0, (2,), (2, 2)], ids=str)
@pytest.mark.parametrize("wrap", [True, False])
@pytest.mark.parametrize("dt", ["i4", "f8", "c8", "?"])
def test_fill_diagonal(shape, val, wrap, dt):
    def value(xp):
        return val if type(val) is int else xp.arange(np.prod(val)).reshape(val)
    x = np.arange(np.prod(shape)).reshape(shape).astype(dt)
    a = ad.asarray(x)
    assert ad.fill_diagonal(a, value(ad), wrap=wrap) is None
    np.fill_diagonal(x, value(np), wrap=wrap)
    check(a, x)
    if len(shape) == 2:  # a view: written through
        x = np.arange(np.prod(shape)).reshape(shape).astype(dt)
        a = ad.asarray(x)
        ad.fill_diagonal(a[:, 1:], value(ad), wrap=wrap)
        np.fill_diagonal(x[:, 1:], value(np), wrap=wrap)
        check(a, x)


def test_fill_diagonal_errors():
    with pytest.raises(ValueError):
        ad.fill_diagonal(ad.ones(5), 1)
    with pytest.raises(ValueError):
        ad.fill_diagonal(ad.ones((2, 3, 2)), 1)
    with pytest.raises(TypeError):
        ad.fill_diagonal(np.ones((2, 2)), 1)


# -- flat <-> multi-indices --------------------------------------------------

@pytest.mark.parametrize("dt", INT_DTYPES + [np.dtype(bool)], ids=ids)
@pytest.mark.parametrize("order", ["C", "F", None])
def test_unravel_index(dt, order):
    x = np.minimum(np.arange(24).reshape(4, 3, 2), 23).astype(dt)
    check_tuple(ad.unravel_index(ad.asarray(x), (6, 4), order=order),
                np.unravel_index(x, (6, 4), order=order))
    check_tuple(ad.unravel_index(x, (2, 3, 4), order=order),
                np.unravel_index(x, (2, 3, 4), order=order))


def test_unravel_index_cases():
    got = ad.unravel_index(1621, (6, 7, 8, 9))
    exp = np.unravel_index(1621, (6, 7, 8, 9))
    assert [int(g) for g in got] == [int(e) for e in exp]
    check_tuple(ad.unravel_index(ad.zeros((2, 0), int), (0, 4)),
                np.unravel_index(np.zeros((2, 0), int), (0, 4)))
    check_tuple(ad.unravel_index(ad.arange(5), 5), np.unravel_index(np.arange(5), 5))


@pytest.mark.parametrize("args", [
    ((np.array([24]),), {}), ((np.array([-1]),), {}),
    ((np.array([1.0]),), {}), ((np.array([1]),), {"order": "V"})], ids=str)
def test_unravel_index_errors(args):
    (x,), kw = args
    raises_like_numpy(lambda: np.unravel_index(x, (6, 4), **kw),
                      lambda: ad.unravel_index(ad.asarray(x), (6, 4), **kw))


@pytest.mark.parametrize("dt", INT_DTYPES, ids=ids)
@pytest.mark.parametrize("order", ["C", "F", None])
@pytest.mark.parametrize("mode", ["clip", "wrap", ("wrap", "clip", "clip")],
                         ids=str)
def test_ravel_multi_index_modes(dt, order, mode):
    dims = (8, 4, 2)
    idx = [np.arange(8).astype(dt)] * 3
    if dt.kind == "i":
        idx[1] = (np.arange(8) - 3).astype(dt)
    check(ad.ravel_multi_index([ad.asarray(i) for i in idx], dims,
                               mode=mode, order=order),
          np.ravel_multi_index(idx, dims, mode=mode, order=order))


@pytest.mark.parametrize("order", ["C", "F", None])
def test_ravel_multi_index_raise_and_broadcast(order):
    x, y = np.meshgrid(np.arange(3), np.arange(5), sparse=True)
    check(ad.ravel_multi_index((ad.asarray(x), ad.asarray(y)), (3, 5),
                               order=order),
          np.ravel_multi_index((x, y), (3, 5), order=order))
    a = np.ones((3, 3, 3), np.int16)
    check(ad.ravel_multi_index([ad.asarray(a)] * 2, (8, 4), order=order),
          np.ravel_multi_index([a] * 2, (8, 4), order=order))
    b = np.array([[3, 6, 6], [4, 5, 1]])
    check(ad.ravel_multi_index(ad.asarray(b), (7, 6), order=order),
          np.ravel_multi_index(b, (7, 6), order=order))
    assert int(ad.ravel_multi_index((1, 2), (6, 4))) == 6


@pytest.mark.parametrize("case", [
    "X.ravel_multi_index((X.asarray(np.array([7])), X.asarray(np.array([1]))), (6, 4))",
    "X.ravel_multi_index((X.asarray(np.array([-1])), X.asarray(np.array([1]))), (6, 4))",
    "X.ravel_multi_index(X.asarray(np.ones((3, 5), int)), (2., 4, 8.))",
    "X.ravel_multi_index(X.asarray(np.ones((3, 5))), (2, 4, 8))",
    "X.ravel_multi_index(X.asarray(np.ones((3, 5), int)), (2, 4))",
    "X.ravel_multi_index((X.arange(4), X.arange(4)), (2**62, 4))",
    "X.ravel_multi_index((X.arange(4), X.arange(4)), (8, 4), order='V')",
    "X.ravel_multi_index((X.arange(4), X.arange(4)), (8, 4), mode='bad')",
    "X.ravel_multi_index((X.arange(4), X.arange(3)), (8, 4))",
])
def test_ravel_multi_index_errors(case):
    raises_like_numpy(lambda: eval(case.replace("X.", "np.")),
                      lambda: eval(case.replace("X.", "ad.")))


def test_ravel_unravel_roundtrip():
    flat = ad.asarray(np.array([0, 5, 17, 23, 11]))
    coords = ad.unravel_index(flat, (2, 3, 4))
    check(ad.ravel_multi_index(coords, (2, 3, 4)), flat.get())
    coords = ad.unravel_index(flat, (2, 3, 4), order="F")
    check(ad.ravel_multi_index(coords, (2, 3, 4), order="F"), flat.get())
