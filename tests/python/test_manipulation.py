"""Shape manipulation, joining, splitting, tiling, padding, where, tri,
diag, meshgrid: compared with NumPy over dtypes, shapes (0-d, empty,
non-contiguous inputs) and axes, plus NumPy's exceptions for bad input."""
from __future__ import annotations

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, sample

AxisError = np.exceptions.AxisError


def pair(dtype, shape, seed=0, layout="c"):
    """(numpy array, arrayd array) with the same values; layout "t" gives a
    transposed (non-contiguous) arrayd view, "s" a strided one."""
    if layout == "t":
        x = sample(dtype, shape[::-1], seed)
        return x.T, ad.asarray(x).T
    if layout == "s":
        big = tuple(2 * d for d in shape)
        x = sample(dtype, big, seed)
        key = tuple(slice(None, None, 2) for _ in shape)
        return x[key], ad.asarray(x)[key]
    x = sample(dtype, shape, seed)
    return x, ad.asarray(x)


def raises_like(exc, f_np, f_ad):
    with pytest.raises(exc):
        f_np()
    with pytest.raises(exc):
        f_ad()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_concatenate_dtypes_and_layouts(dtype):
    x, a = pair(dtype, (2, 3), 1, "t")
    y, b = pair(dtype, (4, 3), 2, "s")
    check(ad.concatenate([a, b]), np.concatenate([x, y]))
    check(ad.concatenate([a, b], axis=None), np.concatenate([x, y], None))
    check(ad.stack([a, a[::-1]], axis=-1), np.stack([x, x[::-1]], -1))


def test_concatenate_mixed_dtypes_axes_and_out():
    x = sample("i2", (2, 3, 4))
    y = sample("f4", (2, 1, 4), 1)
    z = np.zeros((2, 0, 4), "u1")
    a, b, c = ad.asarray(x), ad.asarray(y), ad.asarray(z)
    for axis in (1, -2):
        check(ad.concatenate([a, b, c], axis), np.concatenate([x, y, z],
                                                              axis))
    check(ad.concatenate([a, y], 1, dtype="f8"),
          np.concatenate([x, y], 1, dtype="f8"))
    out = ad.empty((2, 4, 4), "f8")
    assert ad.concatenate([a, b], 1, out=out) is out
    check(out, np.concatenate([x, y], 1).astype("f8"))
    check(ad.concatenate([ad.zeros((0,)), ad.arange(3)]),
          np.concatenate([np.zeros(0), np.arange(3)]))
    # NumPy dispatch through __array_function__.
    check(np.concatenate([a, b], axis=1), np.concatenate([x, y], 1))


def test_concatenate_errors():
    x, a = np.zeros((2, 3)), ad.zeros((2, 3))
    raises_like(AxisError, lambda: np.concatenate([x, x], 2),
                lambda: ad.concatenate([a, a], 2))
    raises_like(ValueError, lambda: np.concatenate([x, x.T]),
                lambda: ad.concatenate([a, a.T]))
    raises_like(ValueError, lambda: np.concatenate([x, x[0]]),
                lambda: ad.concatenate([a, a[0]]))
    raises_like(ValueError, lambda: np.concatenate([]),
                lambda: ad.concatenate([]))
    raises_like(TypeError, lambda: np.concatenate([x, x], dtype="i4"),
                lambda: ad.concatenate([a, a], dtype="i4"))
    raises_like(ValueError, lambda: np.stack([x, x[:1]]),
                lambda: ad.stack([a, a[:1]]))
    raises_like(AxisError, lambda: np.stack([x, x], 3),
                lambda: ad.stack([a, a], 3))
    with pytest.raises(TypeError):
        ad.concatenate([a, a], out=ad.zeros((4, 3), "i4"))


def test_stack_family():
    v = [sample("i4", (3,), s) for s in range(3)]
    m = [sample("f4", (2, 3), s) for s in range(3)]
    av = [ad.asarray(t) for t in v]
    am = [ad.asarray(t) for t in m]
    for npf, adf in ((np.vstack, ad.vstack), (np.hstack, ad.hstack),
                     (np.dstack, ad.dstack), (np.column_stack,
                                              ad.column_stack)):
        check(adf(av), npf(v))
        check(adf(am), npf(m))
    check(ad.stack(av, 1), np.stack(v, 1))
    check(ad.hstack([ad.asarray(1.0), ad.asarray(2.0)]),
          np.hstack([np.float64(1), np.float64(2)]))
    check(ad.vstack(iter(am)), np.vstack(m))


@pytest.mark.parametrize("layout", ["c", "t", "s"])
def test_shape_views(layout):
    x, a = pair("f8", (2, 3, 4), 3, layout)
    check(ad.reshape(a, (4, -1)), np.reshape(x, (4, -1)))
    check(ad.reshape(a, shape=(-1,)), np.reshape(x, -1))
    check(ad.ravel(a), np.ravel(x))
    check(a.flatten(), x.flatten())
    check(ad.transpose(a, (1, 2, 0)), np.transpose(x, (1, 2, 0)))
    check(ad.swapaxes(a, 0, -1), np.swapaxes(x, 0, -1))
    for src, dst in ((0, -1), ((0, 1), (2, 0)), (-1, 0)):
        check(ad.moveaxis(a, src, dst), np.moveaxis(x, src, dst))
    check(ad.rollaxis(a, 2), np.rollaxis(x, 2))
    check(ad.rollaxis(a, 0, 3), np.rollaxis(x, 0, 3))
    check(ad.expand_dims(a, (0, -1)), np.expand_dims(x, (0, -1)))
    check(ad.squeeze(ad.expand_dims(a, 1)), np.squeeze(np.expand_dims(x, 1)))
    check(ad.broadcast_to(a[:, :1], (5, 2, 3, 4)),
          np.broadcast_to(x[:, :1], (5, 2, 3, 4)))
    for got, exp in zip(ad.broadcast_arrays(a, a[0, 0], ad.asarray(2.0)),
                        np.broadcast_arrays(x, x[0, 0], np.float64(2))):
        check(got, exp)
    check(ad.ascontiguousarray(a), np.ascontiguousarray(x))
    check(ad.ascontiguousarray(ad.asarray(1.5)),
          np.ascontiguousarray(np.asarray(1.5)))


def test_shape_errors():
    x, a = np.zeros((2, 3)), ad.zeros((2, 3))
    raises_like(ValueError, lambda: np.reshape(x, (4, 2)),
                lambda: ad.reshape(a, (4, 2)))
    raises_like(AxisError, lambda: np.moveaxis(x, 2, 0),
                lambda: ad.moveaxis(a, 2, 0))
    raises_like(ValueError, lambda: np.moveaxis(x, (0, 1), 0),
                lambda: ad.moveaxis(a, (0, 1), 0))
    raises_like(AxisError, lambda: np.swapaxes(x, 0, 2),
                lambda: ad.swapaxes(a, 0, 2))
    raises_like(AxisError, lambda: np.expand_dims(x, 3),
                lambda: ad.expand_dims(a, 3))
    raises_like(ValueError, lambda: np.squeeze(x, 0),
                lambda: ad.squeeze(a, 0))
    raises_like(ValueError, lambda: np.broadcast_to(x, (3, 3)),
                lambda: ad.broadcast_to(a, (3, 3)))
    raises_like(ValueError, lambda: np.broadcast_arrays(x, x.T),
                lambda: ad.broadcast_arrays(a, a.T))
    raises_like(AxisError, lambda: np.rollaxis(x, 2),
                lambda: ad.rollaxis(a, 2))


def test_atleast():
    for shape in ((), (3,), (2, 3), (1, 2, 3)):
        x = sample("i8", shape)
        a = ad.asarray(x)
        check(ad.atleast_1d(a), np.atleast_1d(x))
        check(ad.atleast_2d(a), np.atleast_2d(x))
        check(ad.atleast_3d(a), np.atleast_3d(x))
    r = ad.atleast_2d(ad.asarray(1), ad.arange(3))
    assert isinstance(r, tuple) and [t.shape for t in r] == [(1, 1), (1, 3)]


def test_split():
    x, a = pair("i4", (6, 4), 0, "t")
    for ios in (2, 3, [1, 4], [2, 2, 5], [-2], [8]):
        for got, exp in zip(ad.split(a, ios), np.split(x, ios)):
            check(got, exp)
    for ios in (4, 5, 6, 1):
        got, exp = ad.array_split(a, ios, axis=1), np.array_split(x, ios, 1)
        assert len(got) == len(exp)
        for g, e in zip(got, exp):
            check(g, e)
    for f in ("hsplit", "vsplit"):
        for g, e in zip(getattr(ad, f)(a, 2), getattr(np, f)(x, 2)):
            check(g, e)
    y = sample("f4", (2, 2, 4))
    for g, e in zip(ad.dsplit(ad.asarray(y), [1]), np.dsplit(y, [1])):
        check(g, e)
    raises_like(ValueError, lambda: np.split(x, 4), lambda: ad.split(a, 4))
    raises_like(ValueError, lambda: np.array_split(x, 0),
                lambda: ad.array_split(a, 0))
    raises_like(ValueError, lambda: np.vsplit(x[0], 2),
                lambda: ad.vsplit(a[0], 2))


@pytest.mark.parametrize("dtype", ["?", "u1", "i8", "f2", "c16"])
def test_tile_repeat(dtype):
    x, a = pair(dtype, (2, 3), 4, "t")
    for reps in (2, (2, 1), (1, 2, 3), (0, 2), 1, (3,)):
        check(ad.tile(a, reps), np.tile(x, reps))
    check(ad.tile(a[0, 0], 3), np.tile(x[0, 0], 3))
    for rep, axis in ((2, None), (3, 0), (2, -1), ([1, 0, 2], 1),
                      (np.array([2, 1]), 0), (0, 1)):
        check(ad.repeat(a, rep, axis), np.repeat(x, rep, axis))
    check(a.repeat(2), x.repeat(2))
    check(ad.repeat(a, ad.asarray([1, 2]), 0), np.repeat(x, [1, 2], 0))


@pytest.mark.parametrize("dtype", ["?", "i2", "f4", "c8"])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_short_broadcast_copies(dtype, k):
    # Each row one value copied k times (the copy kernels' unrolled rows),
    # from a sliced source and into a casting destination.
    x, a = pair(dtype, (7, 5), 4, "t")
    check(ad.repeat(a, k, axis=1), np.repeat(x, k, axis=1))
    check(ad.repeat(a[::2, 1], k), np.repeat(x[::2, 1], k))
    check(ad.broadcast_to(a[:, :1], (7, k)).copy(), np.broadcast_to(x[:, :1], (7, k)).copy())
    out, expected = ad.zeros((3, 7, k), "f8"), np.zeros((3, 7, k), "f8")
    out[...] = a[:, 2:3].real if dtype == "c8" else a[:, 2:3]
    expected[...] = x[:, 2:3].real if dtype == "c8" else x[:, 2:3]
    check(out, expected)


def test_tile_repeat_errors():
    x, a = np.zeros((2, 3)), ad.zeros((2, 3))
    raises_like(ValueError, lambda: np.tile(x, -1), lambda: ad.tile(a, -1))
    raises_like(ValueError, lambda: np.repeat(x, -1),
                lambda: ad.repeat(a, -1))
    raises_like(ValueError, lambda: np.repeat(x, [1, 2], 1),
                lambda: ad.repeat(a, [1, 2], 1))
    raises_like(AxisError, lambda: np.repeat(x, 2, 2),
                lambda: ad.repeat(a, 2, 2))


@pytest.mark.parametrize("layout", ["c", "s"])
def test_flip_roll_rot90(layout):
    x, a = pair("i2", (3, 4, 2), 5, layout)
    for axis in (None, 0, -1, (0, 2)):
        check(ad.flip(a, axis), np.flip(x, axis))
    check(ad.fliplr(a), np.fliplr(x))
    check(ad.flipud(a), np.flipud(x))
    for shift, axis in ((1, None), (-5, None), (2, 0), (7, 1),
                        ((1, 2), (0, 1)), ((1, -1), (1, 1)), (0, 0),
                        (3, -1)):
        check(ad.roll(a, shift, axis), np.roll(x, shift, axis))
    for k in range(-1, 5):
        check(ad.rot90(a, k), np.rot90(x, k))
        check(ad.rot90(a, k, (2, 0)), np.rot90(x, k, (2, 0)))
    check(ad.roll(ad.zeros((0, 3)), 2, 1), np.roll(np.zeros((0, 3)), 2, 1))
    check(ad.roll(ad.asarray(5), 1), np.roll(np.asarray(5), 1))


def test_flip_roll_rot90_errors():
    x, a = np.zeros((2, 3)), ad.zeros((2, 3))
    raises_like(AxisError, lambda: np.flip(x, 2), lambda: ad.flip(a, 2))
    raises_like(ValueError, lambda: np.fliplr(x[0]),
                lambda: ad.fliplr(a[0]))
    raises_like(ValueError, lambda: np.flipud(x[0, 0]),
                lambda: ad.flipud(a[0, 0]))
    raises_like(AxisError, lambda: np.roll(x, 1, 2), lambda: ad.roll(a, 1, 2))
    raises_like(ValueError, lambda: np.roll(x, (1, 2, 3), (0, 1)),
                lambda: ad.roll(a, (1, 2, 3), (0, 1)))
    raises_like(ValueError, lambda: np.rot90(x, 1, (0, 0)),
                lambda: ad.rot90(a, 1, (0, 0)))
    raises_like(ValueError, lambda: np.rot90(x, 1, (0, 2)),
                lambda: ad.rot90(a, 1, (0, 2)))
    raises_like(ValueError, lambda: np.rot90(x, 1, (0,)),
                lambda: ad.rot90(a, 1, (0,)))


@pytest.mark.parametrize("dtype", ["i4", "f8", "c8", "?"])
def test_pad(dtype):
    x, a = pair(dtype, (3, 4), 6, "t")
    widths = [1, (2, 3), ((1, 0), (0, 2)), ((5, 7), (9, 4)), 0]
    for w in widths:
        check(ad.pad(a, w), np.pad(x, w))
        for mode in ("edge", "reflect", "symmetric", "wrap"):
            try:
                check(ad.pad(a, w, mode), np.pad(x, w, mode))
            except AssertionError as e:
                raise AssertionError(f"{mode} {w}: {e}") from None
        if dtype not in "?":
            check(ad.pad(a, w, "reflect", reflect_type="odd"),
                  np.pad(x, w, "reflect", reflect_type="odd"))
            check(ad.pad(a, w, "symmetric", reflect_type="odd"),
                  np.pad(x, w, "symmetric", reflect_type="odd"))
    cv = ((1, 2), (3, 4)) if dtype != "?" else True
    check(ad.pad(a, 2, constant_values=cv), np.pad(x, 2, constant_values=cv))
    y = sample(dtype, (1, 3), 1)
    check(ad.pad(ad.asarray(y), 3, "reflect"), np.pad(y, 3, "reflect"))
    e = np.zeros((0, 2), dtype)
    check(ad.pad(ad.asarray(e), 1), np.pad(e, 1))
    check(ad.pad(ad.asarray(e), ((0, 0), (1, 1)), "edge"),
          np.pad(e, ((0, 0), (1, 1)), "edge"))


@pytest.mark.parametrize("mode", ["constant", "edge", "wrap", "symmetric", "reflect"])
def test_pad_extending_modes_in_one_op(mode):
    # Widths past the axis (the extension repeats), length-1 axes, F-ordered
    # and strided inputs, every dtype kind: the server's pad against NumPy.
    rng = np.random.default_rng(3)
    for n in (1, 2, 5):
        x = np.arange(n) * 1.5
        for w in ((0, 0), (3, 0), (2 * n + 1, n), (7, 13)):
            check(ad.pad(ad.asarray(x), w, mode=mode), np.pad(x, w, mode=mode))
    for dt in ("?", "u1", "i8", "f2", "f4", "c16"):
        x = (rng.standard_normal((4, 5, 3)) * 5).astype(dt)
        w = ((1, 2), (6, 0), (3, 4))
        check(ad.pad(ad.asarray(x), w, mode=mode), np.pad(x, w, mode=mode))
        f = np.asfortranarray(x[:, :, 0])
        res = ad.pad(ad.asarray(f), ((2, 1), (0, 7)), mode=mode)
        check(res, np.pad(f, ((2, 1), (0, 7)), mode=mode))
        assert res.flags.f_contiguous
        check(ad.pad(ad.asarray(x)[::-2, 1:, ::2], 2, mode=mode),
              np.pad(x[::-2, 1:, ::2], 2, mode=mode))
    x = np.arange(6.0).reshape(2, 3)
    check(ad.pad(ad.asarray(x), 4, mode="reflect", reflect_type="odd"),
          np.pad(x, 4, mode="reflect", reflect_type="odd"))
    if mode == "constant":
        check(ad.pad(ad.zeros((0, 3)), 1), np.pad(np.zeros((0, 3)), 1))
        return
    with pytest.raises(ValueError, match="empty axis"):
        ad.pad(ad.zeros((0, 3)), 1, mode=mode)
    # The raw op's own checks; the server keeps serving.
    from arrayd import _composite as _c
    a = ad.ones((2, 3))
    for attrs in ({"widths": [1, 1, 1, 1], "mode": "median"}, {"widths": [1, 1], "mode": mode},
                  {"widths": [1, -1, 0, 0], "mode": mode}):
        with pytest.raises(ValueError):
            _c.new(a._session, "pad", (a,), (4, 5), a.dtype, attrs).get()
    assert float((a + 1).sum()) == 12.0


def test_pad_constant_values_the_server_cast_cannot_carry():
    # One value for every area goes to the server's pad as a double; the
    # values no double gives back bit for bit take the full-and-copy path.
    for dt, v in (("i8", 2**62 + 1), ("u8", 2**64 - 1), ("c8", 1 + 2j),
                  ("f4", np.nan), ("f8", -0.0), ("f2", 65504), ("?", True),
                  ("i1", -3), ("f8", np.inf)):
        x = (np.arange(12).reshape(3, 4) % 5).astype(dt)
        for xx in (x, np.asfortranarray(x), x[::-1, ::2]):
            e = np.pad(xx, ((1, 2), (3, 0)), constant_values=v)
            res = ad.pad(ad.asarray(xx), ((1, 2), (3, 0)), constant_values=v)
            check(res, e)
            assert res.get().tobytes() == e.tobytes() or dt == "f4", (dt, v)


def test_pad_errors():
    x, a = np.zeros((2, 3)), ad.zeros((2, 3))
    raises_like(ValueError, lambda: np.pad(x, -1), lambda: ad.pad(a, -1))
    raises_like(TypeError, lambda: np.pad(x, 1.5), lambda: ad.pad(a, 1.5))
    raises_like(ValueError, lambda: np.pad(x, ((1, 2, 3),)),
                lambda: ad.pad(a, ((1, 2, 3),)))
    raises_like(ValueError, lambda: np.pad(x, 1, "bogus"),
                lambda: ad.pad(a, 1, "bogus"))
    raises_like(ValueError, lambda: np.pad(x, 1, "edge", constant_values=1),
                lambda: ad.pad(a, 1, "edge", constant_values=1))
    raises_like(ValueError, lambda: np.pad(np.zeros((0, 2)), 1, "edge"),
                lambda: ad.pad(ad.zeros((0, 2)), 1, "edge"))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_where_dtypes(dtype):
    c = sample("?", (3, 4), 7)
    x, a = pair(dtype, (3, 4), 1, "t")
    y, b = pair(dtype, (4,), 2)
    check(ad.where(ad.asarray(c), a, b), np.where(c, x, y))
    check(ad.where(c, a, 0), np.where(c, x, 0))
    check(ad.where(ad.asarray(c), 1, a[0]), np.where(c, 1, x[0]))


def test_where_promotion_and_errors():
    c = sample("?", (2, 3))
    x = sample("i1", (2, 3))
    y = sample("f4", (3,))
    ac, a, b = ad.asarray(c), ad.asarray(x), ad.asarray(y)
    check(ad.where(ac, a, b), np.where(c, x, y))
    check(ad.where(ac, a, 2.5), np.where(c, x, 2.5))
    check(ad.where(ac, a, np.int64(3)), np.where(c, x, np.int64(3)))
    check(ad.where(ac.astype("i4"), 1, 2), np.where(c.astype("i4"), 1, 2))
    check(np.where(ac, a, b), np.where(c, x, y))
    raises_like(ValueError, lambda: np.where(c, x, np.zeros(4)),
                lambda: ad.where(ac, a, ad.zeros(4)))
    raises_like(ValueError, lambda: np.where(c, x),
                lambda: ad.where(ac, a))


def test_tri_tril_triu_diag():
    for n, m, k in ((3, None, 0), (3, 5, 1), (4, 2, -1), (0, 3, 0),
                    (3, 3, 10), (3, 3, -10)):
        check(ad.tri(n, m, k), np.tri(n, m, k))
    check(ad.tri(3, dtype="i2"), np.tri(3, dtype="i2"))
    for shape in ((4, 5), (2, 3, 3), (4,)):
        for k in (-1, 0, 2):
            x, a = pair("f4", shape, 3, "s")
            check(ad.tril(a, k), np.tril(x, k))
            check(ad.triu(a, k), np.triu(x, k))
    for k in (-2, 0, 1, 3):
        v, av = pair("c8", (3,), 2, "s")
        check(ad.diag(av, k), np.diag(v, k))
        m, am = pair("i4", (3, 4), 2, "t")
        check(ad.diag(am, k), np.diag(m, k))
    check(ad.diag(ad.zeros(0)), np.diag(np.zeros(0)))
    check(ad.diagflat(ad.arange(4).reshape(2, 2), 1),
          np.diagflat(np.arange(4).reshape(2, 2), 1))
    raises_like(ValueError, lambda: np.diag(np.zeros((2, 2, 2))),
                lambda: ad.diag(ad.zeros((2, 2, 2))))
    raises_like(TypeError, lambda: np.tril(np.asarray(1)),
                lambda: ad.tril(ad.asarray(1)))


def test_meshgrid():
    x, y, z = np.arange(3), np.linspace(0, 1, 4), np.arange(2, dtype="i1")
    ax, ay, az = ad.asarray(x), ad.asarray(y), ad.asarray(z)
    for kw in ({}, {"indexing": "ij"}, {"sparse": True},
               {"sparse": True, "indexing": "ij"}, {"copy": False}):
        for args, nargs in (((ax, ay), (x, y)), ((ax, ay, az), (x, y, z)),
                            ((ax,), (x,))):
            got, exp = ad.meshgrid(*args, **kw), np.meshgrid(*nargs, **kw)
            assert len(got) == len(exp)
            for g, e in zip(got, exp):
                check(g, e)
    with pytest.raises(ValueError):
        ad.meshgrid(ax, indexing="yx")


def test_copy_and_array_creation():
    x, a = pair("f4", (3, 4), 0, "t")
    c = ad.copy(a)
    c[0] = 7
    check(a, x)
    check(ad.array([[1, 2], [3, 4]], dtype="i2"),
          np.array([[1, 2], [3, 4]], dtype="i2"))
    check(ad.array(a, dtype="f8"), np.array(x, dtype="f8"))
    check(ad.asarray(3.5), np.asarray(3.5))
    check(ad.array([a[0], a[1]]), np.array([x[0], x[1]]))
    with pytest.raises(TypeError):
        ad.array([1, 2], dtype="bogus")
