"""Advanced indexing (integer arrays, boolean masks; getitem and setitem)
and take, take_along_axis, put, compress, nonzero, argwhere, flatnonzero,
diagonal, where(cond): compared with NumPy, plus NumPy's exceptions."""
from __future__ import annotations

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, sample

AxisError = np.exceptions.AxisError

X3 = np.arange(60, dtype="i4").reshape(3, 4, 5)
M34 = (X3[:, :, 0] % 3) == 0           # a (3, 4) mask
KEYS = [
    [0, 2],
    [[0, 1], [2, -1]],
    np.array([2, 0, 2]),
    np.array(1),
    (slice(1, None), [0, 2]),
    ([0, 1], [1, 2]),
    ([0, 2], slice(None), [1, 4]),        # separated: result dims first
    (slice(None), [[0], [3]], [1, 2]),    # adjacent, broadcast
    (1, slice(None), [0, 3]),             # int and array separated
    (slice(None), 1, [0, 3]),             # int and array adjacent
    (Ellipsis, [0, -1]),
    (None, [0, 1], None, [1, 2]),
    ([0, 1], Ellipsis, [1, 2]),
    ([], slice(None)),
    (np.array([], "i8"), [1, 2, 3][:0]),
    [True, False, True],
    M34,
    (M34, 1),
    (1, [True, False, True, True]),
    (slice(None), [True, False, True, True], slice(1, 3)),
    (slice(None, None, -1), [1, 0], slice(None, None, 2)),
    True,
    False,
    (0, True),
    (slice(None), np.array([[1, 2], [0, 3]]), np.array([[4], [0]])),
    (np.int64(2), [1, 1, 1]),
]


def _on_server(key):
    """The key with its index arrays uploaded (server-side indices)."""
    if isinstance(key, tuple):
        return tuple(_on_server(k) for k in key)
    if isinstance(key, (list, np.ndarray)):
        arr = np.asarray(key)
        if arr.dtype.kind in "biu" and arr.ndim:
            return ad.asarray(arr)
    return key


@pytest.mark.parametrize("where", ["client", "server"])
def test_getitem_matches_numpy(where):
    a = ad.asarray(X3)
    for key in KEYS:
        k = _on_server(key) if where == "server" else key
        try:
            check(a[k], X3[key])
        except AssertionError as e:
            raise AssertionError(f"key {key!r}: {e}") from None


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_getitem_dtypes_and_layouts(dtype):
    x = sample(dtype, (5, 6), 3)
    a = ad.asarray(x)
    xt, at = x.T[::2], a.T[::2]   # non-contiguous view
    for key in ([2, 0], (slice(None), [1, -1]), ([0, 1], [4, 0]),
                xt[:, 0] != xt[0, 0] if dtype != "?" else [True, False, True]):
        check(at[key], xt[key])
    m = x != x.flat[0]
    check(a[ad.asarray(m)], x[m])
    check(a[ad.asarray(m)[:, 0]], x[m[:, 0]])
    check(a[2][ad.asarray([0, 0])], x[2][[0, 0]])
    z = ad.asarray(x[0, 0])   # 0-d
    check(z[True], x[0, 0][True])
    check(z[ad.asarray(False)], np.asarray(x[0, 0])[np.asarray(False)])


def test_getitem_errors():
    a = ad.asarray(X3)
    with pytest.raises(IndexError):
        a[[0, 3]]
    with pytest.raises(IndexError):
        a[:, [-5]]
    with pytest.raises(IndexError):
        a[[0.5]]
    with pytest.raises(IndexError):
        a[[True, False]]            # mask length mismatch
    with pytest.raises(IndexError):
        a[ad.asarray([True, False])]
    with pytest.raises(IndexError):
        a[[0, 1], [0, 1, 2]]        # index arrays do not broadcast
    with pytest.raises(IndexError):
        a[ad.asarray([0.5, 1.0])]
    with pytest.raises(IndexError):
        a[[0], [0], [0], [0]]
    # Out of range on the server: NumPy's IndexError at the sync.
    with pytest.raises(IndexError):
        a[ad.asarray([0, 3])].get()
    with pytest.raises(IndexError):
        a[ad.asarray([0, 1]), ad.asarray([4, 1])].get()
    check(a[[0]], X3[[0]])  # still usable


@pytest.mark.parametrize("where", ["client", "server"])
def test_setitem_matches_numpy(where):
    for key in KEYS:
        x = X3.copy()
        a = ad.asarray(x)
        k = _on_server(key) if where == "server" else key
        shape = x[key].shape
        vals = -np.arange(int(np.prod(shape)), dtype="i4").reshape(shape) - 1
        a[k] = ad.asarray(vals) if where == "server" else vals
        x[key] = vals
        try:
            check(a, x)
        except AssertionError as e:
            raise AssertionError(f"key {key!r}: {e}") from None
        a[k] = 7
        x[key] = 7
        check(a, x)


def test_setitem_broadcast_cast_and_views():
    x = sample("f4", (4, 5), 1)
    a = ad.asarray(x)
    a[[0, 2], 1:] = np.arange(4)            # value broadcast over rows
    x[[0, 2], 1:] = np.arange(4)
    a[:, [True, False, True, False, True]] = 2.7
    x[:, [True, False, True, False, True]] = 2.7
    check(a, x)
    m = x > 1
    a[ad.asarray(m)] = -1.5                 # server mask, scalar: no sync
    x[m] = -1.5
    check(a, x)
    m = x < 0
    a[ad.asarray(m)] = ad.arange(int(m.sum()), dtype="f8")
    x[m] = np.arange(int(m.sum()))
    check(a, x)
    i = ad.asarray(np.arange(6, dtype="i2").reshape(2, 3))
    i[[1, 0], [0, 2]] = 2.9                 # cast to int16
    n = np.arange(6, dtype="i2").reshape(2, 3)
    n[[1, 0], [0, 2]] = 2.9
    check(i, n)
    # Writes through a view reach the base.
    x = np.zeros((4, 6), "i8")
    a = ad.asarray(x)
    v = a[1:, ::2]
    v[[0, 2], [1, 2]] = 5
    x[1:, ::2][[0, 2], [1, 2]] = 5
    check(a, x)


def test_setitem_errors():
    a = ad.zeros((3, 4))
    with pytest.raises(ValueError):
        a[[0, 1]] = np.ones(3)              # shape mismatch
    with pytest.raises(ValueError):
        a[[0, 1], [1, 2]] = ad.ones((3,))
    with pytest.raises(IndexError):
        a[[0, 5]] = 1
    with pytest.raises(IndexError):
        a[[True]] = 1
    b = ad.zeros(3, "i1")
    with pytest.raises(OverflowError):
        b[[0]] = 300
    ro = ad.broadcast_to(ad.arange(3), (2, 3))
    with pytest.raises(ValueError, match="read-only"):
        ro[[0], [1]] = 1                    # at once, as NumPy
    check(a, np.zeros((3, 4)))


@pytest.mark.parametrize("dtype", ["?", "i8", "u2", "f2", "c16"])
def test_take(dtype):
    x = sample(dtype, (3, 4, 2), 2)
    a = ad.asarray(x)
    for idx, axis in (([0, 2], None), ([[1, -1]], 1), (np.array(2), 0),
                      ([], 2), ([1, 1, 0], -1)):
        check(ad.take(a, idx, axis), np.take(x, idx, axis))
        check(a.take(ad.asarray(np.asarray(idx, "i4")), axis),
              x.take(np.asarray(idx, "i4"), axis))
    for mode in ("wrap", "clip"):
        check(ad.take(a, [-7, 9], 1, mode=mode),
              np.take(x, [-7, 9], 1, mode=mode))
        check(ad.take(a, ad.asarray([-7, 9]), 1, mode=mode),
              np.take(x, [-7, 9], 1, mode=mode))
    iu = np.array([2, 0], "u8")
    check(ad.take(a, ad.asarray(iu), 0), np.take(x, iu, 0))
    check(ad.take(a, iu, 0), np.take(x, iu, 0))
    out = ad.empty((3, 2, 2), dtype)
    assert ad.take(a, [0, 3], 1, out=out) is out
    check(out, np.take(x, [0, 3], 1))
    check(np.take(a, [1, 0], 0), np.take(x, [1, 0], 0))


def test_take_errors():
    x, a = np.zeros((3, 4)), ad.zeros((3, 4))
    for f in (np.take, ad.take):
        with pytest.raises(IndexError):
            f(x if f is np.take else a, [4], 1)
        with pytest.raises(AxisError):
            f(x if f is np.take else a, [0], 2)
        with pytest.raises(TypeError):
            f(x if f is np.take else a, np.array([0.5]))
        check(ad.take(a, [0.5, 1.9]), np.take(x, [0.5, 1.9])) \
            if f is ad.take else None
        with pytest.raises(ValueError):
            f(x if f is np.take else a, [0], mode="bogus")
        with pytest.raises(IndexError):
            f(np.zeros(0) if f is np.take else ad.zeros(0), [0])
    with pytest.raises(IndexError):
        ad.take(a, ad.asarray([12])).get()
    with pytest.raises(TypeError):
        ad.take(a, ad.asarray([0.0]))


def test_take_along_axis():
    x = sample("f8", (3, 4), 4)
    a = ad.asarray(x)
    idx = np.argsort(x, axis=1)
    check(ad.take_along_axis(a, idx, 1), np.take_along_axis(x, idx, 1))
    check(ad.take_along_axis(a, ad.asarray(idx), -1),
          np.take_along_axis(x, idx, -1))
    i0 = np.array([[2, 0, 1, -1]])
    check(ad.take_along_axis(a, i0, 0), np.take_along_axis(x, i0, 0))
    i1 = np.array([0, 11, 5])
    check(ad.take_along_axis(a, i1, None), np.take_along_axis(x, i1, None))
    for f, arr in ((np.take_along_axis, x), (ad.take_along_axis, a)):
        with pytest.raises(ValueError):
            f(arr, np.zeros(3, int), 0)       # ndim mismatch
        with pytest.raises(AxisError):
            f(arr, np.zeros((1, 1), int), 2)
        with pytest.raises(IndexError):
            f(arr, np.zeros((1, 1)), 0)        # float indices
        with pytest.raises(IndexError):
            f(arr, np.full((1, 1), 5), 1).__array__()


@pytest.mark.parametrize("dtype", ["i4", "f4", "c8", "?"])
def test_put(dtype):
    x = sample(dtype, (3, 4), 5)
    a = ad.asarray(x)
    v = sample(dtype, (3,), 6)
    for ind in ([0, 5, -1], np.array([[1], [2]]), [11]):
        np.put(x, ind, v)
        ad.put(a, ind, v)
        check(a, x)
    a.put(ad.asarray([2, 3]), ad.asarray(v[:1]))
    x.put([2, 3], v[:1])
    check(a, x)
    for mode in ("wrap", "clip"):
        np.put(x, [-20, 30], v[:2], mode=mode)
        ad.put(a, [-20, 30], v[:2], mode=mode)
        check(a, x)
    # put into a non-contiguous view: flat positions of the view.
    y = np.zeros((4, 6), dtype)
    b = ad.asarray(y)
    bt = b.T[::2]
    bt.put([0, 3, 5], v)
    yt = y.T[::2].copy()
    yt.put([0, 3, 5], v)
    y.T[::2] = yt
    check(b, y)


def test_put_errors():
    x, a = np.zeros(4), ad.zeros(4)
    for f, arr in ((np.put, x), (ad.put, a)):
        with pytest.raises(IndexError):
            f(arr, [4], 1.0)
        with pytest.raises(IndexError):
            f(arr, [-5], 1.0)
        with pytest.raises(TypeError):
            f(arr, np.array([0.5]), 1.0)
        with pytest.raises(ValueError):
            f(arr, [0], 1.0, mode="bogus")
    with pytest.raises(TypeError):
        ad.put(x, [0], 1)
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        ad.put(a, ad.asarray([9]), 1.0)  # at once, as NumPy (one sync)
    with pytest.raises(IndexError, match="index -5"):
        ad.put(a, ad.asarray([0, -5]), 1.0)
    ad.put(a, ad.asarray([-4, 3]), 2.0)
    np.testing.assert_array_equal(a.get(), [2, 0, 0, 2])


def test_nonzero_argwhere_flatnonzero_where1():
    for shape in ((0,), (7,), (3, 4), (2, 3, 4), (2, 0, 3)):
        x = sample("i2", shape, 7)
        x[x > 2] = 0
        a = ad.asarray(x)
        got, exp = ad.nonzero(a), np.nonzero(x)
        assert len(got) == len(exp)
        for g, e in zip(got, exp):
            check(g, e.astype("i8"))
        for g, e in zip(a.nonzero(), exp):
            check(g, e.astype("i8"))
        for g, e in zip(ad.where(a), np.where(x)):
            check(g, e.astype("i8"))
        check(ad.argwhere(a), np.argwhere(x).astype("i8"))
        check(ad.flatnonzero(a), np.flatnonzero(x).astype("i8"))
    c = np.array([0, 1j, 0, 2 + 0j], "c8")
    check(ad.flatnonzero(ad.asarray(c)), np.flatnonzero(c).astype("i8"))
    check(ad.argwhere(ad.asarray(3.0)), np.argwhere(3.0).astype("i8"))
    check(ad.argwhere(ad.asarray(0.0)), np.argwhere(0.0).astype("i8"))
    check(ad.flatnonzero(ad.asarray(True)),
          np.flatnonzero(True).astype("i8"))
    with pytest.raises(ValueError):
        np.nonzero(np.asarray(1))
    with pytest.raises(ValueError):
        ad.nonzero(ad.asarray(1))
    check(ad.nonzero(ad.asarray([0, 5]).T)[0], np.array([1]))


def test_flatnonzero_checks_the_clients_count():
    # The server sizes flatnonzero's output by the client's count and checks
    # it as it selects: another count is a ValueError (on a GPU at the next
    # sync), nothing is written past the output, the session keeps serving.
    from arrayd._indexing import _flatnonzero_in
    x = np.zeros(4096, bool)
    x[::3] = True
    for mask in (ad.asarray(x), ad.asarray(np.repeat(x, 2))[::2]):
        true = int(x.sum())
        for wrong in (true - 1, true + 5, 0):
            with pytest.raises(ValueError, match="client expected"):
                _flatnonzero_in(mask, wrong).get()
        check(_flatnonzero_in(mask, true), np.flatnonzero(x).astype("i8"))
    with pytest.raises(ValueError):
        _flatnonzero_in(ad.asarray(x), 5000).get()
    check(ad.flatnonzero(ad.asarray(x)), np.flatnonzero(x).astype("i8"))


def test_compress():
    x = sample("f4", (3, 4), 8)
    a = ad.asarray(x)
    for cond, axis in (([True, False, True], 0), ([False, True], 1),
                       ([1, 0, 0, 1, 1], None), ([], 0)):
        check(ad.compress(cond, a, axis), np.compress(cond, x, axis))
        check(ad.compress(ad.asarray(np.asarray(cond, bool)), a, axis),
              np.compress(cond, x, axis))
    check(a.compress([0, 1, 1], 0), x.compress([0, 1, 1], 0))
    for f, arr in ((np.compress, x), (ad.compress, a)):
        with pytest.raises(AxisError):
            f([True], arr, 2)
        with pytest.raises(IndexError):
            f([False, False, False, True], arr, 0)


@pytest.mark.parametrize("dtype", ["i8", "f4", "c16", "?"])
def test_diagonal(dtype):
    x = sample(dtype, (3, 4, 5), 9)
    a = ad.asarray(x)
    for off, a1, a2 in ((0, 0, 1), (1, 0, 1), (-2, 0, 1), (2, 1, 2),
                        (0, 2, 0), (-1, -1, 0), (9, 0, 1)):
        check(ad.diagonal(a, off, a1, a2), np.diagonal(x, off, a1, a2))
        check(a.diagonal(off, a1, a2), x.diagonal(off, a1, a2))
    m = sample(dtype, (4, 3), 1)
    check(ad.asarray(m).T.diagonal(1), m.T.diagonal(1))
    for f, arr in ((np.diagonal, x), (ad.diagonal, a)):
        with pytest.raises(ValueError):
            f(arr, 0, 1, 1)
        with pytest.raises(AxisError):
            f(arr, 0, 0, 3)
        with pytest.raises(ValueError):
            f(arr[0, 0], 0)
