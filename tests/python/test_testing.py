"""arrayd.testing: NumPy's assertions over arrayd arrays (same verdicts and
messages as numpy.testing on the fetched values) and the shaped_* data."""
import importlib

import arrayd as ad
import numpy as np
import numpy.testing as npt
import pytest
from helpers import ALL_DTYPES, check, ids


@pytest.fixture(scope="module")
def adt():
    # Imported here, not at collection: importing the subpackage adds
    # ``testing`` to the package's names, which test_import_dag compares.
    return importlib.import_module("arrayd.testing")


def _message(f, *args, **kwargs):
    with pytest.raises(AssertionError) as e:
        f(*args, **kwargs)
    return str(e.value)


def _same_verdict(adt_f, np_f, x, y, **kw):
    """adt_f on arrayd arrays and np_f on NumPy's agree (and so do the
    messages)."""
    xh = x.get() if isinstance(x, ad.ndarray) else x
    yh = y.get() if isinstance(y, ad.ndarray) else y
    try:
        np_f(xh, yh, **kw)
    except AssertionError as e:
        want = str(e)
    else:
        want = None
    if want is None:
        adt_f(x, y, **kw)
    else:
        assert _message(adt_f, x, y, **kw) == want


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
def test_assert_array_equal(adt, dtype):
    a = np.arange(6).reshape(2, 3).astype(dtype)
    b = a.copy()
    b[1, 2] = not b[1, 2] if dtype.kind == "b" else b[1, 2] + 1
    x = ad.asarray(a)
    adt.assert_array_equal(x, a)
    adt.assert_array_equal(a, x)
    adt.assert_array_equal(x, ad.asarray(a), strict=True)
    for y in (b, ad.asarray(b)):
        _same_verdict(adt.assert_array_equal, npt.assert_array_equal, x, y)
        _same_verdict(adt.assert_array_equal, npt.assert_array_equal, x, y,
                      err_msg="context", verbose=False)
    # NumPy's broadcasting of a scalar, and strict's refusal of it.
    adt.assert_array_equal(ad.zeros(3, dtype), 0)
    with pytest.raises(AssertionError):
        adt.assert_array_equal(ad.zeros(3, dtype), 0, strict=True)


def test_assert_array_equal_shapes_and_strides(adt):
    x = ad.ones((2, 3))
    msg = _message(adt.assert_array_equal, x, np.ones((3, 2)))
    assert msg == _message(npt.assert_array_equal, np.ones((2, 3)),
                           np.ones((3, 2)))
    assert "(shapes (2, 3), (3, 2) mismatch)" in msg
    adt.assert_array_equal(x, np.ones((2, 3)), strides_check=True)
    msg = _message(adt.assert_array_equal, x.T, np.ones((3, 2)),
                   strides_check=True, err_msg="why")
    assert "Strides are not equal" in msg and "why" in msg
    with pytest.raises(AssertionError):
        adt.assert_array_equal(ad.ones(3, "f4"), np.ones(3, "f8"),
                               strict=True)


@pytest.mark.parametrize("dtype", ["f2", "f4", "f8", "c8", "c16"])
def test_assert_allclose(adt, dtype):
    a = (np.arange(5) / 3).astype(dtype)
    x = ad.asarray(a)
    adt.assert_allclose(x, a)
    adt.assert_allclose(x, ad.asarray(a), rtol=0, atol=0)
    b = a * (1 + 1e-3)
    for kw in ({}, {"rtol": 1e-2}, {"atol": 1e-4}, {"err_msg": "m"},
               {"verbose": False}):
        _same_verdict(adt.assert_allclose, npt.assert_allclose, x,
                      ad.asarray(b), **kw)
    n = ad.asarray(np.array([np.nan, 1.0]))
    adt.assert_allclose(n, n)
    with pytest.raises(AssertionError):
        adt.assert_allclose(n, n, equal_nan=False)


def test_assert_almost_equal_and_array_almost_equal(adt):
    a = np.array([1.0, 2.0, 3.0])
    x = ad.asarray(a + 1e-8)
    adt.assert_almost_equal(x, a)
    adt.assert_array_almost_equal(x, a)
    y = ad.asarray(a + 1e-5)
    _same_verdict(adt.assert_almost_equal, npt.assert_almost_equal, y, a)
    _same_verdict(adt.assert_array_almost_equal,
                  npt.assert_array_almost_equal, y, a, decimal=6)
    adt.assert_array_almost_equal(y, a, decimal=4)
    adt.assert_almost_equal(ad.asarray(1.0000001), 1.0, decimal=6)
    adt.assert_almost_equal(1.0, 1.0)


@pytest.mark.parametrize("dtype", ["f4", "f8"])
def test_ulp_assertions(adt, dtype):
    a = np.linspace(1, 2, 7).astype(dtype)
    nxt = np.nextafter(a, np.inf).astype(dtype)
    x, y = ad.asarray(a), ad.asarray(nxt)
    adt.assert_array_almost_equal_nulp(x, y, nulp=1)
    adt.assert_array_almost_equal_nulp(x, nxt, nulp=2)
    far = ad.asarray(a * (1 + 1e-3))
    _same_verdict(adt.assert_array_almost_equal_nulp,
                  npt.assert_array_almost_equal_nulp, x, far)
    got = adt.assert_array_max_ulp(x, y)
    np.testing.assert_array_equal(got, npt.assert_array_max_ulp(a, nxt))
    with pytest.raises(AssertionError):
        adt.assert_array_max_ulp(x, far, maxulp=1)


def test_assert_array_less(adt):
    x = ad.asarray(np.array([1, 2, 3]))
    adt.assert_array_less(x, np.array([2, 3, 4]))
    adt.assert_array_less(x, 10)
    _same_verdict(adt.assert_array_less, npt.assert_array_less, x,
                  ad.asarray(np.array([2, 2, 4])))
    with pytest.raises(AssertionError):
        adt.assert_array_less(x, 10, strict=True)


def test_assert_equal_walks_containers(adt):
    a = np.arange(4)
    x = ad.asarray(a)
    adt.assert_equal(x, a)
    adt.assert_equal({"k": x, "n": 1}, {"k": a, "n": 1})
    adt.assert_equal([x, (x, 2)], [a, (a, 2)])
    adt.assert_equal(3, 3)
    adt.assert_equal("s", "s")
    with pytest.raises(AssertionError):
        adt.assert_equal({"k": x}, {"k": a + 1})
    with pytest.raises(AssertionError):
        adt.assert_equal([x, 1], [a, 2])
    _same_verdict(adt.assert_equal, npt.assert_equal, x,
                  ad.asarray(a[::-1].copy()))
    with pytest.raises(AssertionError):
        adt.assert_equal(ad.ones(2, "f4"), np.ones(2), strict=True)


def test_assert_array_list_equal(adt):
    xs = [ad.arange(3), ad.ones((2, 2))]
    ys = [np.arange(3), np.ones((2, 2))]
    adt.assert_array_list_equal(xs, ys)
    adt.assert_array_list_equal(ys, xs)
    adt.assert_array_list_equal([], [])
    msg = _message(adt.assert_array_list_equal, xs, ys[:1])
    assert "2 != 1" in msg
    msg = _message(adt.assert_array_list_equal, xs,
                   [np.arange(3), np.zeros((2, 2))], err_msg="which")
    assert "index 1" in msg and "which" in msg


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3, 4)], ids=str)
def test_shaped_arange_and_reverse(adt, dtype, shape):
    got = adt.shaped_arange(shape, ad, dtype)
    want = adt.shaped_arange(shape, np, dtype)
    assert isinstance(want, np.ndarray)
    n = int(np.prod(shape))
    ref = np.arange(1, n + 1)
    if dtype.kind == "b":
        ref = ref % 2 == 0
    elif dtype.kind == "c":
        ref = ref + ref * 1j
    ref = ref.astype(dtype).reshape(shape)
    check(got, ref)
    np.testing.assert_array_equal(want, ref)
    assert want.dtype == ref.dtype
    rev = adt.shaped_reverse_arange(shape, ad, dtype)
    ref = np.arange(n, 0, -1)
    if dtype.kind == "b":
        ref = ref % 2 == 0
    elif dtype.kind == "c":
        ref = ref + ref * 1j
    check(rev, ref.astype(dtype).reshape(shape))
    check(adt.shaped_reverse_arange(shape, dtype=dtype),
          adt.shaped_reverse_arange(shape, np, dtype))


def test_shaped_arange_defaults(adt):
    a = adt.shaped_arange((2, 3))
    assert isinstance(a, ad.ndarray) and a.dtype == np.float32
    check(a, np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    check(adt.shaped_arange(4, ad, "i4"), np.arange(1, 5, dtype="i4"))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
def test_shaped_random_is_the_same_for_numpy_and_arrayd(adt, dtype):
    got = adt.shaped_random((3, 4), ad, dtype, seed=5)
    want = adt.shaped_random((3, 4), np, dtype, seed=5)
    check(got, want, rtol_=0)
    if dtype.kind == "b":
        assert want.any() and not want.all()
    elif dtype.kind in "fc":
        r = want.real
        assert (r >= 0).all() and (r < 10).all() and r.std() > 0
    other = adt.shaped_random((3, 4), np, dtype, seed=6)
    if dtype.kind != "b":
        assert not np.array_equal(want, other)
    big = adt.shaped_random((50,), np, "f8", scale=2.0)
    assert big.max() < 2.0 and big.max() > 1.0
