"""True array layout: strides, flags, order=, base, view(dtype), flat.

Each arrayd array carries the strides of the server's view, computed on the
client with NumPy's rules. The tests run the same chain of operations on
NumPy and on arrayd and compare strides and flags with NumPy's, and ask the
server (its ``strides`` op) for the strides its view really has.
"""
from __future__ import annotations

import itertools
import random

import arrayd as ad
import numpy as np
import pytest
from arrayd._ndarray import ndarray

_INT64 = np.dtype(np.int64)


def server_strides(a: ndarray) -> tuple[int, ...]:
    s = a._session
    h = s.new_handle()
    s.record("strides", (a._handle,), (h,))
    return tuple(int(v) for v in ndarray._new(s, h, (a.ndim,), _INT64).get())


def flags_of(a) -> tuple[bool, bool]:
    return (a.flags.c_contiguous, a.flags.f_contiguous)


def check_layout(x: ndarray, n: np.ndarray, exact: bool = True) -> None:
    """x (arrayd) has n's (NumPy's) values, contiguity flags and strides,
    and the server agrees with the client's strides."""
    assert x.shape == n.shape
    assert flags_of(x) == flags_of(n), (x.strides, n.strides)
    if exact and n.size > 0:
        # Dimensions of length one have no say on the layout; NumPy's own
        # allocation paths differ on their strides, so only the rest is
        # compared.
        keep = [i for i, d in enumerate(n.shape) if d != 1]
        assert [x.strides[i] for i in keep] == [n.strides[i] for i in keep]
    if x.size > 0:
        mine = [x.strides[i] for i, d in enumerate(x.shape) if d != 1]
        server = server_strides(x)
        assert mine == [server[i] for i, d in enumerate(x.shape) if d != 1]
    np.testing.assert_allclose(x.get(), n, rtol=1e-12)


def _random_view(rng: random.Random, x, n):
    """The same random view (slices with steps, transposes, broadcasts) of
    an arrayd and a NumPy array."""
    for _ in range(rng.randint(1, 3)):
        choice = rng.random()
        if choice < 0.4 and n.ndim:
            key = tuple(slice(None, None, rng.choice([1, 2, -1]))
                        for _ in range(n.ndim))
            x, n = x[key], n[key]
        elif choice < 0.8:
            perm = list(range(n.ndim))
            rng.shuffle(perm)
            x, n = x.transpose(perm), n.transpose(perm)
        elif n.ndim < 4:
            x, n = x[None], n[None]
    return x, n


@pytest.mark.parametrize("seed", range(40))
def test_views_and_elementwise_layout_matches_numpy(seed):
    rng = random.Random(seed)
    shape = tuple(rng.choice([1, 2, 3, 4]) for _ in range(rng.randint(1, 4)))
    n = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    x = ad.asarray(n)
    xv, nv = _random_view(rng, x, n)
    check_layout(xv, nv)
    check_layout(xv + 1, nv + 1)
    check_layout(ad.sqrt(xv), np.sqrt(nv))
    check_layout(xv.astype(np.float32), nv.astype(np.float32))
    check_layout(xv.copy(), nv.copy())
    for order in "CFAK":
        check_layout(xv.copy(order), nv.copy(order))
        check_layout(xv.astype(np.int32, order=order),
                     nv.astype(np.int32, order=order))
    yv, mv = _random_view(rng, x, n)
    try:
        expected = nv * mv
    except ValueError:
        return
    check_layout(xv * yv, expected)


def test_transpose_is_f_contiguous_and_a_view():
    n = np.arange(12.0).reshape(3, 4)
    x = ad.asarray(n)
    t = x.T
    assert t.flags.f_contiguous and not t.flags.c_contiguous
    assert t.strides == n.T.strides
    assert not t.flags.owndata and t.base is x
    assert x.flags.owndata and x.base is None
    assert t.T.base is x  # the base is the owner, as in NumPy
    c = t.copy()
    assert c.flags.c_contiguous and c.flags.owndata


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("make", ["empty", "zeros", "ones", "full"])
def test_creation_order(make, order):
    shape = (2, 3, 4)
    args = (shape, 7) if make == "full" else (shape,)
    x = getattr(ad, make)(*args, order=order)
    n = getattr(np, make)(*args, order=order)
    assert flags_of(x) == flags_of(n)
    assert x.strides == n.strides
    assert x.flags.owndata
    if make != "empty":
        check_layout(x, n)


@pytest.mark.parametrize("order", ["C", "F", "A", "K", None])
@pytest.mark.parametrize("make", ["empty_like", "zeros_like", "ones_like"])
def test_like_order(make, order):
    n = np.asfortranarray(np.arange(24.0).reshape(2, 3, 4))
    x = ad.asarray(n)
    assert x.flags.f_contiguous
    kw = {} if order is None else {"order": order}
    r, e = getattr(ad, make)(x, **kw), getattr(np, make)(n, **kw)
    assert flags_of(r) == flags_of(e)
    if make != "empty_like":
        check_layout(r, e)


def test_like_keeps_a_permuted_layout():
    n = np.arange(24.0).reshape(2, 3, 4).transpose(1, 0, 2)
    x = ad.asarray(np.arange(24.0).reshape(2, 3, 4)).transpose(1, 0, 2)
    check_layout(ad.zeros_like(x), np.zeros_like(n))
    check_layout(ad.full_like(x, 3), np.full_like(n, 3))


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_array_and_asarray_orders(order):
    n = np.arange(12.0).reshape(3, 4)
    f = np.asfortranarray(n)
    for src in (n, f, n.tolist()):
        check_layout(ad.array(src, order=order), np.array(src, order=order))
        check_layout(ad.asarray(src, order=order),
                     np.asarray(src, order=order))
    for src in (n, f):
        x = ad.asarray(src)
        check_layout(ad.array(x, order=order), np.array(src, order=order))
        check_layout(ad.asarray(x, order=order),
                     np.asarray(src, order=order))
        check_layout(ad.copy(x, order=order), np.copy(src, order=order))


def test_asarray_returns_itself_when_layout_fits():
    x = ad.asfortranarray(ad.arange(6.0).reshape(2, 3))
    assert ad.asarray(x) is x
    assert ad.asarray(x, order="F") is x
    assert ad.asfortranarray(x) is x
    assert ad.asarray(x, order="C") is not x
    c = ad.ascontiguousarray(x)
    assert c.flags.c_contiguous and ad.ascontiguousarray(c) is c
    with pytest.raises(ValueError):
        ad.asarray(x, order="C", copy=False)


def test_require():
    n = np.arange(6.0).reshape(2, 3)
    x = ad.asarray(n)
    assert ad.require(x, requirements="F").flags.f_contiguous
    assert ad.require(x, requirements=["C", "W"]) is x
    assert ad.require(x.T, requirements="O").flags.owndata
    with pytest.raises(ValueError):
        ad.require(x, requirements="CF")
    with pytest.raises(KeyError):
        ad.require(x, requirements="Z")


@pytest.mark.parametrize("order", ["C", "F", "A"])
def test_reshape_and_ravel_orders(order):
    n = np.arange(24.0).reshape(2, 3, 4)
    for src, xsrc in ((n, ad.asarray(n)),
                      (n.transpose(2, 0, 1),
                       ad.asarray(n).transpose(2, 0, 1)),
                      (n[:, ::2], ad.asarray(n)[:, ::2])):
        check_layout(xsrc.reshape(4, -1, order=order),
                     src.reshape(4, -1, order=order))
        check_layout(xsrc.ravel(order), src.ravel(order))
        check_layout(xsrc.flatten(order), src.flatten(order))
    with pytest.raises(ValueError):
        ad.arange(6).reshape(2, 3, order="K")


def test_reshape_view_or_copy_like_numpy():
    n = np.arange(24.0).reshape(4, 6)
    x = ad.asarray(n)
    # A slice of whole rows reshapes as a view; a transpose needs a copy.
    v = x[1:3].reshape(3, 4)
    assert v.base is x
    check_layout(v, n[1:3].reshape(3, 4))
    c = x.T.reshape(-1)
    assert c.flags.c_contiguous
    check_layout(c, n.T.reshape(-1))
    with pytest.raises(ValueError):
        x.T.reshape(-1, copy=False)
    v[0, 0] = -1  # writes through the view
    assert x[1, 0].get() == -1


def test_ravel_k_and_flatten_k():
    n = np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1)
    x = ad.asarray(np.arange(24.0).reshape(2, 3, 4)).transpose(2, 0, 1)
    check_layout(x.ravel("K"), n.ravel("K"))
    check_layout(x.flatten("K"), n.flatten("K"))


def test_ravel_of_f_ordered_is_a_view_in_f_order():
    x = ad.asfortranarray(ad.arange(6.0).reshape(2, 3))
    r = x.ravel("F")
    assert r.base is x
    np.testing.assert_array_equal(r.get(), np.arange(6.0).reshape(2, 3)
                                  .ravel("F"))


def test_bad_order_raises_numpys_error():
    for f in (lambda: ad.empty(3, order="X"), lambda: ad.zeros(3, order="K"),
              lambda: ad.arange(3).copy("Q"),
              lambda: ad.arange(3).astype(float, order="Z")):
        with pytest.raises(ValueError):
            f()


@pytest.mark.parametrize("dtype,new", [
    (np.float32, np.int32), (np.float64, np.int32), (np.int32, np.int64),
    (np.complex128, np.float64), (np.uint8, np.int16)])
def test_view_dtype(dtype, new):
    n = np.arange(24).astype(dtype).reshape(3, 8)
    x = ad.asarray(n)
    v = x.view(new)
    e = n.view(new)
    assert v.dtype == e.dtype and v.shape == e.shape
    check_layout(v, e)
    assert v.base is x


def test_view_dtype_errors_and_type():
    x = ad.zeros((3, 4), np.float32)
    with pytest.raises(ValueError):
        x.T.view(np.float64)  # last axis not contiguous
    with pytest.raises(ValueError):
        ad.zeros((3, 3), np.int8).view(np.int16)  # 3 bytes do not divide
    with pytest.raises(ValueError):
        ad.zeros((), np.int32).view(np.int8)
    v = x.view(ad.ndarray)
    assert type(v) is ad.ndarray and v.base is x
    v2 = x.view()
    assert v2.base is x and v2.dtype == x.dtype
    with pytest.raises(ValueError):
        x.view(type=np.ndarray)


def test_view_writes_through():
    x = ad.zeros(4, np.float32)
    x.view(np.int32)[1] = 0x3F800000  # the bits of 1.0f
    np.testing.assert_array_equal(x.get(), [0, 1, 0, 0])


def test_writeable_flag_is_honoured():
    x = ad.arange(6.0)
    v = x[1:]
    x.flags.writeable = False
    assert not x.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 1
    with pytest.raises(ValueError, match="read-only"):
        ad.add(x, 1, out=x)
    assert x[2:].flags.writeable is False  # views of it are read-only too
    v[0] = 5  # a view made before keeps its own flag, as in NumPy
    assert x[1].get() == 5
    x.flags["W"] = True
    x[0] = 7
    assert x[0].get() == 7


def test_broadcast_views_are_read_only():
    b = ad.broadcast_to(ad.arange(3), (2, 3))
    assert not b.flags.writeable and b.strides == (0, 8)
    with pytest.raises(ValueError):
        b[0, 0] = 1
    with pytest.raises(ValueError):
        b.flags.writeable = True


def test_flags_object():
    x = ad.zeros((2, 3))
    f = x.flags
    assert f["C_CONTIGUOUS"] and f["C"] and not f["F"]
    assert f.forc and not f.fnc and f.carray and f.aligned and f.behaved
    assert x.T.flags.fnc and x.T.flags.farray
    assert "C_CONTIGUOUS : True" in repr(f)
    with pytest.raises(KeyError):
        f["NOPE"]
    one = ad.zeros((1, 5))
    assert flags_of(one) == flags_of(np.zeros((1, 5))) == (True, True)
    assert flags_of(ad.zeros((2, 5))[:, :1]) == (False, False)
    empty = ad.zeros((0, 3))
    assert empty.flags.c_contiguous and empty.flags.f_contiguous
    assert empty.strides == np.zeros((0, 3)).strides


def test_flat():
    n = np.arange(12.0).reshape(3, 4)
    x = ad.asarray(n)
    assert len(x.flat) == 12
    assert list(x.T.flat) == list(n.T.flat)
    assert float(x.flat[5]) == n.flat[5]
    np.testing.assert_array_equal(x.T.flat[2:7].get(), n.T.flat[2:7])
    np.testing.assert_array_equal(x.flat[[1, 3, -1]].get(), n.flat[[1, 3, -1]])
    xt, nt = x.T, n.copy().T
    xt.flat[::3] = [-1, -2]
    nt.flat[::3] = [-1, -2]
    np.testing.assert_array_equal(x.get(), nt.T)
    x.flat = 0
    assert float(x.sum()) == 0
    with pytest.raises(IndexError):
        x.flat[12]


def test_elementwise_on_f_ordered_inputs_gives_f_order():
    n = np.asfortranarray(np.arange(24.0).reshape(2, 3, 4))
    x = ad.asarray(n)
    for r, e in ((x + x, n + n), (x * 2, n * 2), (ad.exp(x), np.exp(n)),
                 (x + ad.asarray(n[0, 0]), n + n[0, 0]),
                 (ad.where(x > 3, x, 0.0), np.where(n > 3, n, 0.0))):
        check_layout(r, e)
    # C order wins a conflict between operands.
    c = ad.asarray(np.ascontiguousarray(n))
    check_layout(x + c, n + np.ascontiguousarray(n))
    check_layout(c + x, np.ascontiguousarray(n) + n)


def test_orders_of_every_creation_dtype():
    for dt, order in itertools.product(["f4", "i2", "c16", "?"], "CF"):
        x = ad.ones((3, 2), dt, order=order)
        n = np.ones((3, 2), dt, order=order)
        check_layout(x, n)


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("shape", [(4, 2), (2, 4), (8,), (2, 2, 2)])
def test_like_with_a_new_shape(order, shape):
    n = np.asfortranarray(np.ones((4, 2)))
    x = ad.asarray(n)
    assert flags_of(ad.empty_like(x, order=order, shape=shape)) == flags_of(
        np.empty_like(n, order=order, shape=shape))


def test_ndarray_constructor_order_and_strides():
    f = ad.ndarray((2, 3), np.float32, order="F")
    assert f.flags.f_contiguous and not f.flags.c_contiguous
    c = ad.ndarray((2, 3), np.float32, strides=(12, 4))
    assert c.strides == (12, 4)
    assert ad.ndarray((2, 3), np.float32, strides=(4, 8)).flags.f_contiguous
    with pytest.raises(ValueError):
        ad.ndarray((2, 3), np.float32, strides=(20, 4))
    with pytest.raises(ValueError):
        ad.ndarray((2, 3), np.float32, strides=(12, 4), order="!")
    with pytest.raises(TypeError):
        ad.ndarray(None)


def test_arange_of_booleans():
    np.testing.assert_array_equal(ad.arange(2, dtype=bool).get(),
                                  np.arange(2, dtype=bool))
    with pytest.raises(TypeError):
        ad.arange(3, dtype=bool)
