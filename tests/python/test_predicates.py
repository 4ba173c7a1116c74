"""Predicates against NumPy: iscomplex isreal isneginf isposinf
real_if_close iterable array_equiv isfortran may_share_memory
shares_memory."""
import arrayd as ad
import numpy as np
import pytest
from helpers import ALL_DTYPES, FLOAT_DTYPES, check, ids, sample

SHAPES = [(), (0,), (5,), (2, 3)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_iscomplex_isreal(dtype, shape):
    a = sample(dtype, shape)
    if dtype.kind == "c" and a.size:
        a.flat[0] = 3  # a zero imaginary part too
    x = ad.asarray(a)
    check(ad.iscomplex(x), np.asarray(np.iscomplex(a)))
    check(ad.isreal(x), np.asarray(np.isreal(a)))


def test_iscomplex_isreal_scalars_and_lists():
    for v in (3, 2.5, 1j, 1 + 0j, True, np.float32(2), np.complex64(1j)):
        assert ad.iscomplex(v) == np.iscomplex(v)
        assert type(ad.iscomplex(v)) is type(np.iscomplex(v))
        assert ad.isreal(v) == np.isreal(v)
    v = [[1, 2j], [3, 4]]
    check(ad.iscomplex(v), np.iscomplex(v))
    check(ad.isreal(v), np.isreal(v))
    check(ad.isreal(np.array([1.0, 2.0])), np.isreal(np.array([1.0, 2.0])))


@pytest.mark.parametrize("dtype", ["f2", "f4", "f8"])
def test_isneginf_isposinf(dtype):
    a = np.array([-3, np.inf, -1, -np.inf, 0, -0.0, 1, np.nan, -np.nan],
                 dtype=dtype)
    x = ad.asarray(a)
    check(ad.isneginf(x), np.isneginf(a))
    check(ad.isposinf(x), np.isposinf(a))
    out = ad.zeros(a.shape, bool)
    r = ad.isneginf(x, out=out)
    assert r is out
    check(out, np.isneginf(a))
    ad.isposinf(x, out)
    check(out, np.isposinf(a))


@pytest.mark.parametrize("dtype", ["?", "i1", "u4", "i8"])
def test_isneginf_isposinf_of_integers(dtype):
    a = sample(dtype, (2, 3))
    x = ad.asarray(a)
    check(ad.isneginf(x), np.isneginf(a))
    check(ad.isposinf(x), np.isposinf(a))


def test_isneginf_rejects_complex():
    for f in ("isneginf", "isposinf"):
        with pytest.raises(TypeError, match="ambiguous"):
            getattr(np, f)(np.array([1j]))
        with pytest.raises(TypeError, match="complex128 values because"):
            getattr(ad, f)(ad.asarray(np.array([1j])))


@pytest.mark.parametrize("dtype", ["c8", "c16"])
def test_real_if_close(dtype):
    eps = np.finfo(np.dtype(dtype)).eps
    for imag in (0.0, 10 * eps, 1000 * eps, 0.5):
        a = np.array([1 + imag * 1j, 2.5 - imag * 1j], dtype=dtype)
        x = ad.asarray(a)
        check(ad.real_if_close(x), np.real_if_close(a))
        check(ad.real_if_close(x, tol=1e-3), np.real_if_close(a, tol=1e-3))
        check(ad.real_if_close(x, tol=0.9), np.real_if_close(a, tol=0.9))


@pytest.mark.parametrize("dtype", ["i4", "f4", "?"])
def test_real_if_close_of_real_arrays_is_the_array(dtype):
    a = sample(dtype, (3,))
    x = ad.asarray(a)
    assert ad.real_if_close(x) is x
    check(ad.real_if_close(a.tolist()), np.real_if_close(a.tolist()))


def test_iterable():
    for v in ([1], (), "ab", 3, 3.0, np.float32(1), np.ones(2),
              np.array(1), iter([1]), None):
        assert ad.iterable(v) == np.iterable(v)
    assert ad.iterable(ad.ones(3)) and ad.iterable(ad.ones((0, 2)))
    assert not ad.iterable(ad.asarray(1.0))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
def test_array_equiv(dtype):
    pairs = [
        ([0, 4, 1, 1], [0, 4, 1, 1]),
        ([0, 4, 1, 1], [0, 4, 1, 0]),
        ([0, 4, 0, 5], [0, 4, 0]),
        ([0, 4], [[0, 4], [0, 4]]),
        ([0, 1], [[0, 1], [0, 0]]),
        ([0, 4], [[0, 4, 0, 4], [0, 4, 0, 4]]),
        ([], []),
        (1, [1, 1]),
    ]
    for p, q in pairs:
        a = np.asarray(p).astype(dtype)
        b = np.asarray(q).astype(dtype)
        want = np.array_equiv(a, b)
        assert ad.array_equiv(ad.asarray(a), ad.asarray(b)) is want
        assert ad.array_equiv(ad.asarray(a), b) is want
        assert ad.array_equiv(p, q) is np.array_equiv(p, q)


def test_array_equiv_mixed_dtypes_and_nan():
    a = [0.0, 1.0, 100.0]
    b = [0, 1, 100]
    assert ad.array_equiv(ad.asarray(a), ad.asarray(b)) is True
    assert ad.array_equiv(ad.asarray([1.5]), ad.asarray([1])) is False
    n = [np.nan, 1.0]
    assert ad.array_equiv(ad.asarray(n), ad.asarray(n)) is np.array_equiv(
        n, n)
    assert ad.array_equiv(ad.ones(2), [[object()]]) is False


def test_isfortran():
    x = ad.ones((4, 6))
    assert ad.isfortran(x) is False
    assert ad.isfortran(x.T) is True
    assert ad.isfortran(ad.ones(24)) is False
    assert ad.isfortran(ad.ones((1, 5))) is False
    a = np.ones((4, 6))
    for v in (a, a.T, np.asfortranarray(a), a[1:3, 1:3]):
        assert ad.isfortran(v) is np.isfortran(v)
    with pytest.raises(AttributeError):
        ad.isfortran([1, 2])


def test_may_share_memory_and_shares_memory():
    x = ad.arange(12)
    y = ad.arange(12)
    views = [x[2:5], x.reshape(3, 4), x.reshape(3, 4).T, x[::2],
             x.reshape(3, 4)[1]]
    for f in (ad.may_share_memory, ad.shares_memory):
        assert f(x, x) is True
        assert f(x, y) is False
        assert f(x, x.copy()) is False
        for v in views:
            assert f(x, v) is True and f(v, x) is True
            assert f(views[0], v) is True  # views of one owner
            assert f(y, v) is False
        empty = ad.zeros(0)
        assert f(empty, empty) is False
        assert f(x[:0], x) is False
        assert f(x, x.get()) is False  # host memory is never the server's
        a = np.arange(5)
        assert f(a, a[1:]) is np.may_share_memory(a, a[1:])
        assert f(a, a.copy()) is False


def test_shares_memory_across_sessions(server_address):
    other = ad.Session(server_address)
    try:
        x = ad.arange(3)
        z = ad.ones(3).to_device(type(x.device)(other))
        assert not ad.may_share_memory(x, z) and not ad.shares_memory(x, z)
    finally:
        other.close()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids)
def test_iscomplex_of_views(dtype):
    a = sample(dtype, (4, 5))
    x = ad.asarray(a)
    check(ad.iscomplex(x[1:, ::2].T), np.iscomplex(a[1:, ::2].T))
    check(ad.isreal(x[::-1]), np.isreal(a[::-1]))
