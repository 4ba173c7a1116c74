"""The client's fast paths for common calls, against NumPy: basic keys
encoded without NumPy on a dummy, x[idx] and x[idx] = v with one server
integer array as one take or put, pad's constant mode as one full, cached
einsum plans, and the edge cases each fast path leaves to the general one
(negative steps, F-order and strided inputs, 0-d and empty arrays, NumPy's
exceptions for bad input)."""
from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.array_utils import normalize_axis_tuple

import arrayd as ad
from arrayd import _indexing, _linalg, _reduction, _shapes
from helpers import check


def same_error(ad_call, np_call):
    """ad_call raises NumPy's exception: the same type and message."""
    with pytest.raises(Exception) as want:
        np_call()
    with pytest.raises(Exception) as got:
        ad_call()
    assert type(got.value) is type(want.value), (got.value, want.value)
    assert str(got.value) == str(want.value)


def same_layout(got, want):
    assert got.shape == want.shape
    if want.size:  # (NumPy's strides of empty views vary; the server's too)
        assert got.strides == want.strides, (got.strides, want.strides)
    assert got.flags.c_contiguous == want.flags.c_contiguous
    assert got.flags.f_contiguous == want.flags.f_contiguous
    assert got.flags.writeable == want.flags.writeable


# -- basic keys ----------------------------------------------------------

_ITEMS = [None, Ellipsis, 0, 1, -1, 2, -3, np.int64(1), np.uint8(0),
          np.intp(-2), slice(None), slice(1, None), slice(None, None, -1),
          slice(-2, None, -2), slice(5, 1, -1), slice(0, 0),
          slice(10, 20), slice(None, None, 3), slice(-100, 100, -7),
          slice(np.int64(1), np.int32(-1))]


def _inputs():
    """(numpy array, the same view of an arrayd array): C, F, strided with
    negative steps, transposed, 0-d, empty."""
    base = np.arange(120, dtype=np.float32)
    b = ad.asarray(base)
    yield base.reshape(2, 3, 4, 5), b.reshape(2, 3, 4, 5)
    f = np.asfortranarray(base.reshape(4, 5, 6))
    yield f, ad.asarray(f)
    yield (base.reshape(10, 12)[::-2, 1::3], b.reshape(10, 12)[::-2, 1::3])
    yield base.reshape(4, 30).T, b.reshape(4, 30).T
    yield np.array(7.0, np.float32), ad.asarray(np.array(7.0, np.float32))
    yield np.zeros((0, 3), np.float32), ad.zeros((0, 3), np.float32)
    yield np.zeros((2, 0, 4), np.float32), ad.zeros((2, 0, 4), np.float32)


def test_basic_keys_give_numpys_values_shapes_and_strides():
    rng = np.random.default_rng(0)
    checked = 0
    for x, a in _inputs():
        same_layout(a, x)
        for n in range(5):
            for _ in range(40):
                key = tuple(_ITEMS[i] for i in rng.integers(0, len(_ITEMS), n))
                try:
                    want = x[key]
                except (IndexError, TypeError, ValueError):
                    same_error(lambda a=a, k=key: a[k], lambda x=x, k=key: x[k])
                    continue
                got = a[key]
                want = np.asarray(want)
                check(got, want)
                same_layout(got, want)
                checked += 1
    assert checked > 400


def test_basic_setitem_keys_write_what_numpy_writes():
    rng = np.random.default_rng(1)
    for x, _ in _inputs():
        for n in range(4):
            for _ in range(15):
                key = tuple(_ITEMS[i] for i in rng.integers(0, len(_ITEMS), n))
                want = x.copy()
                a = ad.asarray(x)
                try:
                    want[key] = -1
                except (IndexError, TypeError, ValueError):
                    same_error(lambda a=a, k=key: a.__setitem__(k, -1),
                               lambda x=x, k=key: x.copy().__setitem__(k, -1))
                    continue
                a[key] = -1
                check(a, want)


def test_the_direct_encoder_matches_the_dummy_one():
    # Every key the direct encoder takes gets the encoding, shape and strides
    # that NumPy on a dummy gives; it refuses the rest.
    rng = np.random.default_rng(2)
    taken = 0
    for shape in [(), (4,), (3, 5), (0, 3), (2, 0, 4), (5, 1, 3, 2)]:
        strides = np.empty(shape, np.float32).strides
        for n in range(5):
            for _ in range(100):
                key = tuple(_ITEMS[i] for i in rng.integers(0, len(_ITEMS), n))
                fast = _indexing._encode_simple(shape, key, strides)
                try:
                    d = np.empty(shape, np.dtype((np.void, 0)))[key]
                except (IndexError, TypeError, ValueError):
                    assert fast is None, key
                    continue
                assert fast is not None, key
                want_shape = d.shape if isinstance(d, np.ndarray) else ()
                assert fast[1] == want_shape
                taken += 1
    assert taken > 500


@pytest.mark.parametrize("key", [
    (0, 0, 0), (Ellipsis, Ellipsis), 5, -6, (0, 9), (slice(None, None, 0),),
    (slice(1.5),), 1.0, (0, "a"), (np.float64(1),)])
def test_bad_basic_keys_raise_numpys_errors(key):
    x = np.arange(20.0).reshape(5, 4)
    a = ad.asarray(x)
    same_error(lambda a=a, k=key: a[k], lambda x=x, k=key: x[k])
    same_error(lambda: a.__setitem__(key, 1.0),
               lambda: x.copy().__setitem__(key, 1.0))


def test_zero_d_keys():
    x = np.array(3.5)
    a = ad.asarray(x)
    for key in [(), Ellipsis, None, (None, Ellipsis, None)]:
        check(a[key], np.asarray(x[key]))
    same_error(lambda: a[0], lambda: x[0])
    same_error(lambda: a[:], lambda: x[:])


# -- one server integer index --------------------------------------------

@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.int8])
def test_getitem_of_one_server_index_array(dtype):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    for arr in (x, np.asfortranarray(x), x[::-1, ::2], x.ravel()[::-3]):
        a = ad.asarray(arr)
        n = arr.shape[0]
        idx = np.array([[0, n - 1], [1, 0]], dtype)
        if np.dtype(dtype).kind == "i":
            idx[1, 1] = -1
        got = a[ad.asarray(idx)]
        check(got, arr[idx])
        assert got.flags.c_contiguous and got.flags.owndata
        check(a[ad.asarray(idx[0])], arr[idx[0]])
        check(a[(ad.asarray(idx[0]),)], arr[(idx[0],)])
        empty = np.zeros(0, dtype)
        check(a[ad.asarray(empty)], arr[empty])


def test_getitem_of_one_server_index_errors():
    a = ad.arange(10, dtype=np.float32)
    with pytest.raises(IndexError,
                       match="index 10 is out of bounds for axis 0 with size 10"):
        a[ad.asarray([0, 10])].get()
    with pytest.raises(IndexError, match="index -11 is out of bounds"):
        a[ad.asarray([-11])].get()
    z = np.array(1.0)
    same_error(lambda: ad.asarray(z)[ad.asarray([0])], lambda: z[np.array([0])])
    same_error(lambda: a[ad.asarray([1.0])], lambda: np.arange(10.0)[np.array([1.0])])


def test_setitem_of_one_server_index_array_on_1d():
    x = np.arange(10, dtype=np.float32)
    for arr_of in (lambda v: v, lambda v: v[::-1], lambda v: v[1::2]):
        want = arr_of(x.copy())
        idx = np.array([0, -1, 2, 2], np.int64)[: want.size]
        vals = np.array([5, 6, 7, 8], np.float32)[: idx.size]
        a = ad.asarray(arr_of(x.copy()))
        want[idx] = vals
        a[ad.asarray(idx)] = ad.asarray(vals)
        check(a, want)
        # Scalars, Python values, broadcasting, and a cast.
        want[idx] = 3
        a[ad.asarray(idx)] = 3
        check(a, want)
        want[idx[:2]] = [[1.5, 2.5]]
        a[ad.asarray(idx[:2])] = [[1.5, 2.5]]
        check(a, want)
        want[idx[:2]] = np.array([4, 9], np.int64)
        a[ad.asarray(idx[:2])] = ad.asarray(np.array([4, 9], np.int64))
        check(a, want)


def test_setitem_of_one_server_index_on_a_view_writes_the_base():
    base = np.arange(12.0)
    a = ad.asarray(base)
    v = a[::3]
    v[ad.asarray([1, -1])] = ad.asarray([-1.0, -2.0])
    want = base.copy()
    want[::3][[1, -1]] = [-1.0, -2.0]
    check(a, want)


def test_setitem_of_one_server_index_of_itself():
    x = np.arange(8.0)
    a = ad.asarray(x)
    idx = np.arange(8)[::-1].copy()
    a[ad.asarray(idx)] = a
    want = x.copy()
    want[idx] = x
    check(a, want)


def test_setitem_of_one_server_index_errors():
    x = np.arange(6.0)
    a = ad.asarray(x)
    same_error(lambda: a.__setitem__(ad.asarray([0, 1]), ad.asarray([1.0, 2.0, 3.0])),
               lambda: x.copy().__setitem__(np.array([0, 1]), np.array([1.0, 2.0, 3.0])))
    with pytest.raises(IndexError,
                       match="index 6 is out of bounds for axis 0 with size 6"):
        a[ad.asarray([6])] = 1.0
        ad.synchronize()
    with pytest.raises(IndexError, match="index -7 is out of bounds"):
        a[ad.asarray([-7])] = 1.0
        ad.synchronize()
    e = ad.zeros(0)
    with pytest.raises(IndexError,
                       match="index 0 is out of bounds for axis 0 with size 0"):
        e[ad.asarray([0])] = 1.0
        ad.synchronize()
    e[ad.asarray(np.zeros(0, np.int64))] = 1.0  # nothing to write
    r = ad.broadcast_to(ad.asarray(x), (6,))
    same_error(lambda: r.__setitem__(ad.asarray([0]), 1.0),
               lambda: np.broadcast_to(x, (6,)).__setitem__(np.array([0]), 1.0))
    check(a, x)


def test_setitem_of_one_server_index_on_2d_rows():
    x = np.arange(12.0).reshape(3, 4)
    for arr in (x.copy(), np.asfortranarray(x)):
        a = ad.asarray(arr)
        want = arr.copy()
        want[np.array([2, -3])] = np.array([1.0, 2.0, 3.0, 4.0])
        a[ad.asarray([2, -3])] = ad.asarray([1.0, 2.0, 3.0, 4.0])
        check(a, want)


# -- pad -----------------------------------------------------------------

_PAD_INPUTS = [
    np.arange(12, dtype=np.float32).reshape(3, 4),
    np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)),
    np.arange(24, dtype=np.int16).reshape(4, 6)[::-1, ::2],
    np.arange(5, dtype=np.uint8),
    np.zeros((0, 3), np.float64),
    np.array(2.5),
]


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast")
@pytest.mark.parametrize("x", _PAD_INPUTS, ids=lambda x: f"{x.shape}")
@pytest.mark.parametrize("kw", [
    {}, {"constant_values": 7}, {"constant_values": (1, 2)},
    {"constant_values": ((1, 1), (3, 3))}, {"constant_values": ((1, 2), (3, 4))},
    {"constant_values": -0.0}, {"constant_values": ((0.0, -0.0),)},
    {"constant_values": np.nan}], ids=str)
@pytest.mark.parametrize("width", [2, 0, (1, 2), ((0, 1), (2, 0)), np.int64(1), [[1]]],
                         ids=str)
def test_pad_constant(x, kw, width):
    try:
        want = np.pad(x, width, **kw)
    except (ValueError, TypeError):
        same_error(lambda: ad.pad(ad.asarray(x), width, **kw),
                   lambda: np.pad(x, width, **kw))
        return
    a = ad.asarray(x)
    got = ad.pad(a, width, **kw)
    check(got, want)
    assert got.flags.c_contiguous == want.flags.c_contiguous
    assert got.flags.f_contiguous == want.flags.f_contiguous
    assert got.strides == want.strides
    np.testing.assert_array_equal(np.signbit(got.get()), np.signbit(want))


def test_pad_constant_values_cast_as_numpy():
    x = np.arange(4, dtype=np.uint64)
    big = 2**64 - 1
    check(ad.pad(ad.asarray(x), 1, constant_values=big),
          np.pad(x, 1, constant_values=big))
    b = np.array([True, False])
    check(ad.pad(ad.asarray(b), 2, constant_values=True),
          np.pad(b, 2, constant_values=True))
    c = np.arange(3, dtype=np.complex64)
    check(ad.pad(ad.asarray(c), 1, constant_values=1 + 2j),
          np.pad(c, 1, constant_values=1 + 2j))
    u = np.arange(3, dtype=np.uint8)
    # NumPy casts the constant as an int64 array: 300 wraps, no error.
    check(ad.pad(ad.asarray(u), 1, constant_values=300),
          np.pad(u, 1, constant_values=300))
    same_error(lambda: ad.pad(ad.asarray(u), 1, constant_values=2**64),
               lambda: np.pad(u, 1, constant_values=2**64))
    with pytest.warns(np.exceptions.ComplexWarning):
        np.pad(x.astype(np.float32), 1, constant_values=1j)
    with pytest.warns(np.exceptions.ComplexWarning):
        ad.pad(ad.asarray(x.astype(np.float32)), 1, constant_values=1j)


@pytest.mark.parametrize("width", [-1, True, 1.5, 2**70, (1, -1), "a", [[1, 2, 3]]],
                         ids=str)
def test_pad_bad_widths_raise_numpys_errors(width):
    x = np.arange(6.0).reshape(2, 3)
    same_error(lambda: ad.pad(ad.asarray(x), width),
               lambda: np.pad(x, width))


def test_pad_callable_gets_numpys_width_types():
    seen, seen_np = [], []

    def rec(out):
        def f(vector, pad_width, iaxis, kwargs):
            out.append(tuple(type(w) for w in pad_width))
        return f
    x = np.arange(6.0).reshape(2, 3)
    for width in (1, (1, 2), ((1, 0), (0, 1))):
        np.pad(x, width, rec(seen_np))
        ad.pad(ad.asarray(x), width, rec(seen))
        assert set(seen) == set(seen_np)
        seen.clear()
        seen_np.clear()


# -- einsum --------------------------------------------------------------

def test_einsum_cached_plans_follow_shapes_and_dtypes():
    rng = np.random.default_rng(3)
    _linalg._EINSUM_PLANS.clear()
    cases = [((4, 5), (5, 3), np.float32), ((4, 5), (5, 3), np.float32),
             ((2, 2), (2, 7), np.float64), ((4, 5), (5, 3), np.int32),
             ((4, 1), (1, 3), np.float32)]
    for sa, sb, dt in cases:
        x = rng.integers(-3, 4, sa).astype(dt)
        y = rng.integers(-3, 4, sb).astype(dt)
        for _ in range(2):
            check(ad.einsum("ij,jk->ik", ad.asarray(x), ad.asarray(y)),
                  np.einsum("ij,jk->ik", x, y))
            check(ad.einsum(ad.asarray(x), [0, 1], ad.asarray(y), [1, 2]),
                  np.einsum(x, [0, 1], y, [1, 2]))
    assert _linalg._EINSUM_PLANS
    # A cached subscript with shapes that do not fit is still NumPy's error.
    x, y = np.ones((4, 5)), np.ones((4, 3))
    same_error(lambda: ad.einsum("ij,jk->ik", ad.asarray(x), ad.asarray(y)),
               lambda: np.einsum("ij,jk->ik", x, y))
    same_error(lambda: ad.einsum("ij,jk->ik", ad.asarray(x), ad.asarray(y),
                                 dtype=np.int8),
               lambda: np.einsum("ij,jk->ik", x, y, dtype=np.int8))


def test_einsum_with_options_cached_and_not():
    x = np.arange(12.0).reshape(3, 4)
    y = np.arange(8.0).reshape(4, 2)
    a, b = ad.asarray(x), ad.asarray(y)
    for _ in range(2):
        for kw in ({}, {"dtype": np.float32, "casting": "same_kind"},
                   {"optimize": True}, {"optimize": "optimal"},
                   {"optimize": ["einsum_path", (0, 1)]}, {"order": "F"}):
            check(ad.einsum("ij,jk", a, b, **kw), np.einsum("ij,jk", x, y, **kw))
        out = ad.empty((3, 2))
        r = ad.einsum("ij,jk->ik", a, b, out=out)
        assert r is out
        check(out, x @ y)
        same_error(lambda: ad.einsum("ij,jk->ik", a, b, out=ad.empty((3, 2), np.int32)),
                   lambda: np.einsum("ij,jk->ik", x, y, out=np.empty((3, 2), np.int32)))
    # The ComplexWarning of unsafe casting comes every call.
    c = ad.asarray(x + 1j)
    for _ in range(2):
        with pytest.warns(np.exceptions.ComplexWarning):
            ad.einsum("ij->j", c, dtype=np.float64, casting="unsafe")


def test_einsum_results_are_new_arrays():
    # The views einsum skips (identity transposes, same-shape reshapes)
    # never reach the result: it owns its memory, as NumPy's.
    x = np.arange(6.0).reshape(2, 3)
    a = ad.asarray(x)
    for sub, ops in (("ij,jk->ik", (x, x.T)), ("ij,kj->ik", (x, x)),
                     ("i,i->i", (x[0], x[0])), ("ij,j->i", (x, x[1])),
                     ("ij,ij->", (x, x))):
        got = ad.einsum(sub, *(ad.asarray(o) for o in ops))
        check(got, np.einsum(sub, *ops))
        assert got.flags.owndata and got.flags.c_contiguous
    check(ad.einsum("ij->ji", a), np.einsum("ij->ji", x))


# -- matmul --------------------------------------------------------------

@pytest.mark.parametrize("sa,sb", [
    ((3, 4), (4, 2)), ((5, 3, 4), (5, 4, 2)), ((3, 4), (5, 4, 2)),
    ((5, 3, 4), (4, 2)), ((1, 3, 4), (6, 4, 2)), ((4,), (4,)), ((4,), (2, 4, 3)),
    ((2, 1, 3, 4), (5, 4, 1)), ((0, 3, 4), (0, 4, 2))], ids=str)
def test_matmul_shapes_and_dtypes(sa, sb):
    rng = np.random.default_rng(4)
    for da, db in ((np.float32, np.float32), (np.float32, np.float64),
                   (np.int8, np.bool_), (np.bool_, np.bool_), (np.int32, np.complex64)):
        x = rng.integers(0, 3, sa).astype(da)
        y = rng.integers(0, 3, sb).astype(db)
        for _ in range(2):  # the second from the dtype cache
            check(ad.matmul(ad.asarray(x), ad.asarray(y)), np.matmul(x, y))


@pytest.mark.parametrize("sa,sb", [((3, 4), (3, 2)), ((), (3,)), ((3,), ())], ids=str)
def test_matmul_errors(sa, sb):
    x, y = np.ones(sa), np.ones(sb)
    same_error(lambda: ad.matmul(ad.asarray(x), ad.asarray(y)), lambda: np.matmul(x, y))


def test_matmul_batch_mismatch_is_a_value_error():
    # (NumPy's message names its remapped shapes; arrayd's is
    # broadcast_shapes's.)
    with pytest.raises(ValueError):
        ad.matmul(ad.ones((2, 3, 4)), ad.ones((3, 4, 2)))


# -- axes, broadcasting, var and std ---------------------------------------

def test_axes_of_is_normalize_axis_tuple():
    for nd in range(4):
        for axis in [0, 1, 2, -1, -3, -4, 3, (0,), (1, 0), (0, 0), (0, -1),
                     (), (0, 5), np.int64(1), (np.intp(0),), [0], (True,)]:
            try:
                want = normalize_axis_tuple(axis, nd)
            except Exception as e:  # noqa: BLE001 - compared below
                with pytest.raises(type(e), match=None) as got:
                    _reduction.axes_of(axis, nd)
                assert str(got.value) == str(e)
                continue
            assert _reduction.axes_of(axis, nd) == want
        assert _reduction.axes_of(None, nd) == tuple(range(nd))


def test_broadcast_is_numpys():
    rng = np.random.default_rng(5)
    answered = 0
    for _ in range(3000):
        shapes = [tuple(int(d) for d in rng.integers(0, 4, rng.integers(0, 4)))
                  for _ in range(rng.integers(0, 4))]
        try:
            want = np.broadcast_shapes(*shapes)
        except ValueError as e:
            with pytest.raises(ValueError) as got:
                _shapes.broadcast(*shapes)
            assert str(got.value) == str(e)
            continue
        assert _shapes.broadcast(*shapes) == want
        answered += 1
    assert answered > 1000
    assert _shapes.broadcast(3, (2, 1)) == np.broadcast_shapes(3, (2, 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.bool_,
                                   np.complex64, np.float16], ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1), (1, 0)], ids=str)
def test_var_std_against_numpy(dtype, axis):
    x = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    a = ad.asarray(x)
    for _ in range(2):  # the second with the cached result dtype
        for ddof in (0, 1):
            check(a.var(axis=axis, ddof=ddof), x.var(axis=axis, ddof=ddof))
            check(a.std(axis=axis, ddof=ddof), x.std(axis=axis, ddof=ddof))
        check(ad.var(a, axis=axis, dtype=np.float64, keepdims=True),
              np.var(x, axis=axis, dtype=np.float64, keepdims=True))


def test_var_bad_axes_raise_numpys_errors():
    x = np.ones((2, 3))
    a = ad.asarray(x)
    for axis in (2, -3, (0, 2)):
        same_error(lambda ax=axis: a.var(axis=ax), lambda ax=axis: x.var(axis=ax))
        same_error(lambda ax=axis: a.sum(axis=ax), lambda ax=axis: x.sum(axis=ax))
    # (NumPy's reductions say "duplicate value in 'axis'", arrayd
    # normalize_axis_tuple's "repeated axis".)
    for f in (a.var, a.sum):
        with pytest.raises(ValueError):
            f(axis=(0, 0))


# -- reshape, concatenate, repeat, tile ------------------------------------

def test_reshape_fast_path_keeps_numpys_layout():
    base = np.arange(24, dtype=np.float32)
    b = ad.asarray(base)
    for x, a in ((base.reshape(4, 6), b.reshape(4, 6)),
                 (base.reshape(4, 6).T, b.reshape(4, 6).T),
                 (base.reshape(4, 6)[:, ::2], b.reshape(4, 6)[:, ::2]),
                 (base.reshape(4, 6)[::-1], b.reshape(4, 6)[::-1]),
                 (np.zeros((0, 3)), ad.zeros((0, 3))), (np.array(1.0), ad.asarray(1.0))):
        for shape in [(x.size,), x.size, (1, x.size), (x.size, 1, 1), (), (1,),
                      (2, x.size // 2), (3, x.size // 3), (0,), (0, 5), (-1,), (2, -1),
                      (np.int64(x.size),), (x.size, True)]:
            for copy in (None, False, True):
                try:
                    want = x.reshape(shape, copy=copy)
                except (ValueError, TypeError):
                    same_error(lambda s=shape, c=copy: a.reshape(s, copy=c),
                               lambda s=shape, c=copy: x.reshape(s, copy=c))
                    continue
                got = a.reshape(shape, copy=copy)
                check(got, want)
                same_layout(got, want)
    same_error(lambda: b.reshape((5, 5)), lambda: base.reshape((5, 5)))
    same_error(lambda: b.reshape((2**70,)), lambda: base.reshape((2**70,)))


@pytest.mark.parametrize("dts", [(np.float32, np.float32), (np.int8, np.uint8),
                                 (np.float32, np.complex64), (np.bool_, np.int64)], ids=str)
def test_concatenate_dtypes_cached_and_numpys(dts):
    xs = [np.arange(4).astype(dt) for dt in dts]
    for _ in range(2):
        check(ad.concatenate([ad.asarray(x) for x in xs]), np.concatenate(xs))
        if np.dtype(dts[1]).kind != "c":
            check(ad.concatenate([ad.asarray(x) for x in xs], dtype=np.float64),
                  np.concatenate(xs, dtype=np.float64))
        else:
            same_error(lambda: ad.concatenate([ad.asarray(x) for x in xs],
                                              dtype=np.float64),
                       lambda: np.concatenate(xs, dtype=np.float64))
        same_error(lambda: ad.concatenate([ad.asarray(x) for x in xs], dtype=np.int8,
                                          casting="safe"),
                   lambda: np.concatenate(xs, dtype=np.int8, casting="safe"))
    c = [np.arange(3) + 1j, np.arange(2.0)]
    check(ad.concatenate([ad.asarray(x) for x in c], dtype=np.float64, casting="unsafe"),
          np.concatenate(c, dtype=np.float64, casting="unsafe"))


def test_concatenate_axes_and_layouts():
    x = np.arange(24.0).reshape(2, 3, 4)
    a = ad.asarray(x)
    for axis in (0, 1, 2, -1, None):
        check(ad.concatenate([a, a[:, ::-1], a.transpose(0, 1, 2)], axis=axis),
              np.concatenate([x, x[:, ::-1], x], axis=axis))
    check(ad.concatenate([a[:0], a]), np.concatenate([x[:0], x]))


@pytest.mark.parametrize("x", [np.arange(5.0), np.arange(6.0).reshape(2, 3),
                               np.asfortranarray(np.arange(6.0).reshape(2, 3)),
                               np.arange(8.0)[::-2], np.array(3.0), np.zeros(0)],
                         ids=lambda x: f"{x.shape}{x.strides}")
def test_repeat_and_tile_keep_numpys_layout(x):
    a = ad.asarray(x)
    for reps in (2, 1, 0, [2]):
        got, want = ad.repeat(a, reps), np.repeat(x, reps)
        check(got, want)
        same_layout(got, want)
    for reps in (2, (2, 2), (1, 3), 1, (1, 1, 2)):
        got, want = ad.tile(a, reps), np.tile(x, reps)
        check(got, want)
        if reps != 1 or x.flags.c_contiguous:
            # (Known: tile with all reps 1 copies in C order, NumPy in K.)
            same_layout(got, want)


# -- where, take_along_axis ----------------------------------------------

@pytest.mark.parametrize("dts", [(np.float32, np.float32), (np.float32, np.float64),
                                 (np.int8, np.uint8), (np.bool_, np.int16),
                                 (np.complex64, np.float64)], ids=str)
def test_where_of_two_arrays_cached_dtype(dts):
    x = np.arange(6).reshape(2, 3).astype(dts[0])
    y = (np.arange(3) + 1).astype(dts[1])
    c = np.array([[True, False, True], [False, False, True]])
    for _ in range(2):
        got = ad.where(ad.asarray(c), ad.asarray(x), ad.asarray(y))
        want = np.where(c, x, y)
        check(got, want)
        same_layout(got, want)
    check(ad.where(ad.asarray(c), ad.asarray(x), 1), np.where(c, x, 1))
    check(ad.where(ad.asarray(c), 2.5, ad.asarray(y)), np.where(c, 2.5, y))
    xf = np.asfortranarray(x)
    got, want = ad.where(ad.asarray(c), ad.asarray(xf), ad.asarray(xf)), np.where(c, xf, xf)
    check(got, want)
    same_layout(got, want)
    # (NumPy's message names the shapes as its iterator does; arrayd's is
    # broadcast_shapes's, as before.)
    with pytest.raises(ValueError):
        ad.where(ad.asarray(c), ad.asarray(x), ad.ones(4))


def test_take_along_axis_of_server_and_client_indices():
    x = np.arange(24.0).reshape(2, 3, 4)
    a = ad.asarray(x)
    idx = np.argsort(-x, axis=1)
    for axis in (0, 1, 2, -1):
        i = np.argsort(-x, axis=axis)
        check(ad.take_along_axis(a, ad.asarray(i), axis=axis), np.take_along_axis(x, i, axis))
        check(ad.take_along_axis(a, i, axis=axis), np.take_along_axis(x, i, axis))
    flat = np.array([3, -1, 0])
    check(ad.take_along_axis(a, ad.asarray(flat), axis=None),
          np.take_along_axis(x, flat, None))
    check(ad.take_along_axis(a, ad.asarray(idx[:, :1]), axis=1),
          np.take_along_axis(x, idx[:, :1], 1))
    for bad_idx, axis in ((idx[0], 1), (idx, 3), (idx, None), (idx[:, :, :1].repeat(3, 0), 1)):
        same_error(lambda i=bad_idx, ax=axis: ad.take_along_axis(a, ad.asarray(i), axis=ax),
                   lambda i=bad_idx, ax=axis: np.take_along_axis(x, i, ax))
    same_error(lambda: ad.take_along_axis(a, ad.asarray(idx.astype(float)), axis=1),
               lambda: np.take_along_axis(x, idx.astype(float), 1))
    with pytest.raises(IndexError, match="out of bounds"):
        ad.take_along_axis(a, ad.asarray(idx + 3), axis=1).get()
