"""Inserting, deleting, selecting and putting against NumPy: append delete
insert resize trim_zeros select piecewise choose extract place putmask
put_along_axis copyto apply_along_axis apply_over_axes lexsort
sort_complex packbits unpackbits fix astype."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, ids, sample

NO_BOOL = [d for d in ALL_DTYPES if d.kind != "b"]
REAL = [d for d in ALL_DTYPES if d.kind != "c"]


def same_error(fn_np, fn_ad):
    """fn_ad raises the exception class that fn_np raises."""
    with pytest.raises(Exception) as info:
        fn_np()
    with pytest.raises(info.type):
        fn_ad()


def in_place(name, x, *args, **kw):
    """Runs numpy.name and arrayd.name in place on copies of x (numpy
    arrays among the arguments are uploaded for arrayd) and compares."""
    a = ad.asarray(x)
    e = x.copy()

    def up(v):
        return ad.asarray(v) if isinstance(v, np.ndarray) else v
    assert getattr(ad, name)(a, *map(up, args),
                             **{k: up(v) for k, v in kw.items()}) is None
    getattr(np, name)(e, *args, **kw)
    check(a, e)


# -- append, delete, insert, resize ------------------------------------------

@pytest.mark.parametrize("dt", NO_BOOL, ids=ids)
def test_append(dt):
    x = sample(dt, (3, 4))
    y = sample("f4", (2, 3))
    check(ad.append(ad.asarray(x), ad.asarray(y)), np.append(x, y))
    check(ad.append(ad.asarray(x), ad.asarray(x[:1]), axis=0),
          np.append(x, x[:1], axis=0))
    check(ad.append(ad.asarray(x), 10), np.append(x, 10))
    check(ad.append(np.float32(2), ad.asarray(x)), np.append(np.float32(2), x))
    check(ad.append(ad.asarray(np.array(0, dt)), ad.arange(3)),
          np.append(np.array(0, dt), np.arange(3)))


def test_append_cases_and_errors():
    check(ad.append(10, 10), np.append(10, 10))
    check(ad.append(ad.asarray(np.array([])), ad.arange(4)),
          np.append(np.array([]), np.arange(4)))
    with pytest.raises(ValueError):
        ad.append(ad.ones((2, 3)), ad.ones((2, 1)), axis=0)
    with pytest.raises(np.exceptions.AxisError):
        ad.append(ad.ones((2, 3)), ad.ones((2, 3)), axis=2)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("obj, axis", [
    ([0, 2], 0), ([0, 2, -1], 1), (1, 1), (-1, None), (slice(None, None, 2), None),
    (slice(3, 0, -2), 1), (slice(5, 1), 0), ([], None), (np.array([True, False, True]), 0),
    (np.array([2, 2, 0]), 1), (np.intp(1), 0)], ids=str)
def test_delete(dt, obj, axis):
    x = sample(dt, (3, 4))
    check(ad.delete(ad.asarray(x), obj, axis=axis), np.delete(x, obj, axis=axis))


def test_delete_server_obj():
    x = np.arange(10)
    for obj in (np.array([0, 2, 4]), np.array([True, False] * 5), np.array([-1, 3, 3]),
                np.zeros(0, int)):
        check(ad.delete(ad.asarray(x), ad.asarray(obj)), np.delete(x, obj))
    m = sample("f8", (3, 4))
    check(ad.delete(ad.asarray(m), ad.asarray(np.array([3, 0])), axis=1),
          np.delete(m, [3, 0], axis=1))


@pytest.mark.parametrize("obj", [10, -11, [10], [1.5], np.array([True]), "srv10",
                                 "srv-11", "srv_float", "srv_mask"])
def test_delete_errors(obj):
    x = np.arange(10)
    server = {"srv10": np.array([10]), "srv-11": np.array([-11]),
              "srv_float": np.array([1.5]), "srv_mask": np.array([True, False])}
    if isinstance(obj, str):
        o = server[obj]
        same_error(lambda: np.delete(x, o), lambda: ad.delete(ad.asarray(x), ad.asarray(o)))
    else:
        same_error(lambda: np.delete(x, obj), lambda: ad.delete(ad.asarray(x), obj))


@pytest.mark.parametrize("dt", ["i4", "f8", "c8", "?", "u1"])
@pytest.mark.parametrize("obj, values, axis", [
    (2, 7, None), ([2], [7, 8], None), (2, [7, 8], None), (1, 5, 1), (1, [5, 6, 7], 1),
    ([1], [[5], [6], [7]], 1), ([1, 3], 9, 1), ([3, 1, -1, 4], [1, 2, 3, 4], 1),
    (slice(1, 4, 2), [7, 8], 1), ([], [], None), (0, [[1, 2, 3, 4]], 0),
    (np.array([True, False, True, False]), 0, 1), (-1, 5, 0), (4, 5, 1)], ids=str)
def test_insert(dt, obj, values, axis):
    x = sample(dt, (3, 4))
    check(ad.insert(ad.asarray(x), obj, values, axis=axis),
          np.insert(x, obj, values, axis=axis))


@pytest.mark.parametrize("obj, values, axis", [
    (np.array([3, 1, -1, 6]), [10, 20, 30, 40], None), (np.array(1), [5, 6, 7], 1),
    (np.array([1]), [[5], [6], [7]], 1), (np.array([6]), 1, None),
    (np.array([True, False, True, False, False, False]), 0, None),
    (np.array(2), [7, 8], None), (np.array([1, 1]), [[5], [6], [7]], 1),
    (np.array([3, 0, 4], np.int8), [1.5, 2, 3], 1)], ids=str)
def test_insert_server_obj(obj, values, axis):
    x = np.arange(6) if axis is None else np.arange(12.).reshape(3, 4)
    check(ad.insert(ad.asarray(x), ad.asarray(obj), values, axis=axis),
          np.insert(x, obj, values, axis=axis))
    check(ad.insert(ad.asarray(x), ad.asarray(obj), ad.asarray(np.asarray(values)),
                    axis=axis), np.insert(x, obj, values, axis=axis))


@pytest.mark.parametrize("case", [
    "X.insert(X.arange(6), 7, 1)", "X.insert(X.arange(6), [7], 1)",
    "X.insert(X.arange(6), [-20, 1], 1)", "X.insert(X.arange(6), [[1]], 1)",
    "X.insert(X.arange(6), np.array([[True]]), 1)",
    "X.insert(X.arange(6), X.asarray(np.array([7])), 1)",
    "X.insert(X.ones((2, 2)), 1, 1, axis=2)"])
def test_insert_errors(case):
    same_error(lambda: eval(case.replace("X.", "np.")),
               lambda: eval(case.replace("X.", "ad.")))


@pytest.mark.parametrize("x, shape", [
    (np.arange(10), (10, 10)), (np.arange(8), (3, 5)), (np.arange(8), 15),
    (np.array(2), (3, 3)), (np.float32(10.0), (2, 2)), (np.array([]), (2, 2)),
    (np.arange(6.).reshape(2, 3), (4,)), (np.arange(3), 0), (np.arange(3), (2, 0))],
    ids=str)
def test_resize(x, shape):
    check(ad.resize(ad.asarray(x), shape), np.resize(x, shape))


def test_resize_errors():
    with pytest.raises(ValueError):
        ad.resize(ad.arange(3), (2, -1))
    check(ad.resize(2, 5), np.resize(2, 5))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("trim", ["fb", "f", "b", "BF"])
def test_trim_zeros(dt, trim):
    for v in ([0, 0, 4, 1, 0, 2, 3, 0, 5], [1, 0, 2, 3, 0, 5, 0, 0],
              [-1, 2, -3, 7], [0] * 7, [], 3, 0):
        x = np.array(v).astype(dt)
        check(ad.trim_zeros(ad.asarray(x), trim), np.trim_zeros(x, trim))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1), ()], ids=str)
@pytest.mark.parametrize("trim", ["fb", "f", "b"])
def test_trim_zeros_nd(axis, trim):
    x = np.zeros((5, 6), np.float32)
    x[1, 2] = 1
    x[3, 4] = -2
    for a in (x, np.zeros((2, 3)), np.zeros((3, 0))):
        check(ad.trim_zeros(ad.asarray(a), trim, axis=axis),
              np.trim_zeros(a, trim, axis=axis))


def test_trim_zeros_errors():
    with pytest.raises(ValueError):
        ad.trim_zeros(ad.arange(3), "x")
    with pytest.raises(np.exceptions.AxisError):
        ad.trim_zeros(ad.ones((2, 2)), axis=2)


# -- selecting -----------------------------------------------------------------

@pytest.mark.parametrize("dt", NO_BOOL, ids=ids)
def test_select(dt):
    x = np.arange(10).astype(dt)
    a = ad.asarray(x)
    check(ad.select([a > 3, a < 5], [a, a * a]), np.select([x > 3, x < 5], [x, x * x]))
    check(ad.select([a > 3, a < 5], [a, a * a], 3),
          np.select([x > 3, x < 5], [x, x * x], 3))
    y = np.arange(30).astype(dt).reshape(3, 10)
    b = ad.asarray(y)
    check(ad.select([a < 3, b > 8], [a, b]), np.select([x < 3, y > 8], [x, y]))
    check(ad.select([a < 4, b > 8], [ad.asarray(np.repeat(x, 3).reshape(3, 10)), b]),
          np.select([x < 4, y > 8], [np.repeat(x, 3).reshape(3, 10), y]))


def test_select_cases():
    a0, b0 = np.array(1), np.array(3)
    check(ad.select([ad.asarray(a0) < 3, ad.asarray(b0) > 8], [ad.asarray(a0), ad.asarray(b0)]),
          np.select([a0 < 3, b0 > 8], [a0, b0]))
    x = np.arange(3, dtype=np.int8)
    a = ad.asarray(x)
    check(ad.select([a > 0], [a], 300), np.select([x > 0], [x], 300))
    check(ad.select([a > 0], [1.5]), np.select([x > 0], [1.5]))
    check(ad.select([[True, False, True]], [a], ad.asarray(np.array([1.5, 2, 3]))),
          np.select([[True, False, True]], [x], np.array([1.5, 2, 3])))


def test_select_errors():
    a = ad.arange(10)
    with pytest.raises(ValueError):
        ad.select([a > 3], [a, a])
    with pytest.raises(ValueError):
        ad.select([], [])
    with pytest.raises(TypeError):
        ad.select([a], [a])
    with pytest.raises(ValueError):
        ad.select([a < 3, ad.arange(20) > 8], [a, ad.arange(20)])


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_piecewise(dt):
    x = np.linspace(-2, 20, 12).astype(dt)
    a = ad.asarray(x)
    funcs = np.array([-1, 0, 2, 3, -5])
    conds_np = [x > 15, x <= 5, x == 0, x == 10]
    conds_ad = [a > 15, a <= 5, a == 0, a == 10]
    check(ad.piecewise(a, conds_ad, ad.asarray(funcs)), np.piecewise(x, conds_np, funcs))
    check(ad.piecewise(a, conds_ad, list(funcs[:4])), np.piecewise(x, conds_np, funcs[:4]))
    check(ad.piecewise(a, ad.asarray(np.array(conds_np)), ad.asarray(funcs.astype(dt))),
          np.piecewise(x, np.array(conds_np), funcs.astype(dt)))
    y = sample(dt, (2, 3, 5))
    check(ad.piecewise(ad.asarray(y), True, ad.asarray(np.array([-10, 10]))),
          np.piecewise(y, True, np.array([-10, 10])))
    z = np.array(2, dt)
    check(ad.piecewise(ad.asarray(z), [ad.asarray(z) < 0, ad.asarray(z) > 0], [10, 1, 2]),
          np.piecewise(z, [z < 0, z > 0], [10, 1, 2]))


def test_piecewise_callables_and_scalars():
    x = np.linspace(-2, 2, 6)
    a = ad.asarray(x)
    check(ad.piecewise(a, [a < 0, a == 0, a > 0], [-10, lambda v: -v, 10, lambda v: v]),
          np.piecewise(x, [x < 0, x == 0, x > 0], [-10, lambda v: -v, 10, lambda v: v]))
    check(ad.piecewise(a, [a > 0], [lambda v, k: v * k, 7.9], 3),
          np.piecewise(x, [x > 0], [lambda v, k: v * k, 7.9], 3))
    check(ad.piecewise(np.float32(2), [np.float32(2) < 0, np.float32(2) >= 0], [1, 10]),
          np.piecewise(np.float32(2), [np.float32(2) < 0, np.float32(2) >= 0], [1, 10]))
    check(ad.piecewise(a, [[True, False] * 3], [5, 6]),
          np.piecewise(x, [[True, False] * 3], [5, 6]))
    with pytest.raises(ValueError):
        ad.piecewise(a, [a < 0, a >= 0], [1, 2, 3, 4])


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_choose(dt):
    c = np.arange(12).reshape(3, 4).astype(dt)
    i = np.array([0, 2, 1, 2])
    check(ad.asarray(i).choose(ad.asarray(c)), i.choose(c))
    check(ad.choose(ad.asarray(i), ad.asarray(c)), np.choose(i, c))
    j = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 1]])
    v = np.array([-10, 10]).astype(dt)
    check(ad.choose(ad.asarray(j), ad.asarray(v)), np.choose(j, v))
    w = np.array([0, 3, -1, 5])
    for mode in ("wrap", "clip"):
        check(ad.choose(ad.asarray(w), ad.asarray(c), mode=mode), np.choose(w, c, mode=mode))
    c3 = np.arange(30).reshape(3, 5, 2).astype(dt)
    check(ad.choose(ad.asarray(np.array([0, 1])), ad.asarray(c3)),
          np.choose(np.array([0, 1]), c3))


def test_choose_mixed_and_out():
    i = np.array([0, 1, 1])
    x = np.arange(3, dtype=np.int8)
    check(ad.choose(ad.asarray(i), [ad.asarray(x), 300]), np.choose(i, [x, 300]))
    check(ad.choose(ad.asarray(i), [ad.asarray(x), 2.5]), np.choose(i, [x, 2.5]))
    c = [[1, 2, 3], [4, 5, 6]]
    check(ad.choose([0, 1, 1], c), np.choose([0, 1, 1], c))
    out = ad.zeros(3)
    r = ad.choose(ad.asarray(i), [ad.asarray(x), ad.asarray(x * 2)], out=out)
    assert r is out
    check(out, np.choose(i, [x, x * 2]).astype(float))


@pytest.mark.parametrize("case", [
    "X.choose(X.asarray(np.array([0, 3])), X.asarray(np.arange(4).reshape(2, 2)))",
    "X.choose(X.asarray(np.array([-1])), X.asarray(np.arange(4).reshape(2, 2)))",
    "X.choose(X.asarray(np.array([0, 1])), X.asarray(np.ones((2, 2))), mode='bad')",
    "X.choose(X.asarray(np.array([0.5])), [[1], [2]])",
    "X.choose(X.asarray(np.array([0, 1])), X.asarray(np.ones((3, 5, 4))))"])
def test_choose_errors(case):
    same_error(lambda: eval(case.replace("X.", "np.")),
               lambda: eval(case.replace("X.", "ad.")))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_extract(dt):
    x = sample("f4", (3, 3))
    for c in (np.array([[1, 0, 1], [0, 1, 0], [1, 0, 1]]).astype(dt),
              np.array([[True, False], [True, False], [True, False]]),
              np.array([[True, False, True], [False, True, False]]),
              np.array([])):
        check(ad.extract(ad.asarray(c), ad.asarray(x)), np.extract(c, x))
    m = [True, False, True]
    check(ad.extract(m, [[1, 2, 3]]), np.extract(m, [[1, 2, 3]]))


# -- putting -----------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("shape", [(7,), (2, 3), (4, 3, 2)])
def test_place(dt, shape):
    x = sample(dt, shape)
    m = sample("?", shape, seed=3)
    for n in (1, 3, 15):
        in_place("place", x, m, sample(dt, (n,), seed=4))
    in_place("place", x, np.zeros(shape, bool), np.zeros(0, dt))


def test_place_errors():
    a = ad.arange(6)
    with pytest.raises(ValueError):
        ad.place(a, ad.asarray(np.arange(6) % 2 == 0), ad.asarray(np.zeros(0, int)))
    with pytest.raises(ValueError):
        ad.place(a, ad.ones((3, 4), bool), ad.asarray(np.zeros(1, int)))
    with pytest.raises(TypeError):
        ad.place(ad.ones(3, np.float32), ad.ones(3, bool), ad.ones(1))
    with pytest.raises(TypeError):
        ad.place(np.ones(3), np.ones(3, bool), [1.0])


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("shape", [(0,), (1,), (2, 3), (2, 3, 4)])
@pytest.mark.parametrize("vshape", ["same", (2,), (3, 1), (5,), (1,)])
def test_putmask(dt, shape, vshape):
    x = sample(dt, shape)
    m = sample("?", shape, seed=1)
    v = sample(dt, shape if vshape == "same" else vshape, seed=2)
    in_place("putmask", x, m, v)


def test_putmask_cases():
    x = np.arange(6).reshape(2, 3)
    in_place("putmask", x, x > 1, 30)
    in_place("putmask", x, x > 1, 2.5)
    in_place("putmask", np.array([1, 2, 3, 3]), np.array([0, 1, 0, 2]), 0)
    in_place("putmask", x.astype(float), x > 2, np.arange(3, dtype=np.int8))
    in_place("putmask", x, x > 2, np.zeros(0, int))
    a = ad.asarray(np.arange(12).reshape(3, 4))
    e = np.arange(12).reshape(3, 4)
    ad.putmask(a[:, 1:], a[:, 1:] > 5, -1)  # a view: written through
    np.putmask(e[:, 1:], e[:, 1:] > 5, -1)
    check(a, e)


def test_putmask_errors():
    with pytest.raises(ValueError):
        ad.putmask(ad.arange(3), ad.asarray(np.array([True, False])), 1)
    with pytest.raises(TypeError):
        ad.putmask(ad.arange(3), ad.ones(3, bool), ad.asarray(np.array([2.5])))
    with pytest.raises(TypeError):
        ad.putmask(np.arange(3), np.ones(3, bool), 1)


def test_put_along_axis():
    x = np.arange(27.).reshape(3, 3, 3)
    in_place("put_along_axis", x, np.argmax(x, axis=0, keepdims=True), 0, axis=0)
    y = np.arange(12).reshape(3, 4)
    in_place("put_along_axis", y, np.array([[0], [3], [-1]]), np.array([[10], [20], [30]]),
             axis=1)
    in_place("put_along_axis", y, np.array([[0, 1, 2, 0]]), 7, axis=0)
    in_place("put_along_axis", y, np.array([1, 3]), np.array([99, 100]), axis=None)
    in_place("put_along_axis", np.zeros((0, 10), np.float32), np.zeros((0, 10), np.int64),
             np.zeros((0, 10)), axis=0)
    for dt in ALL_DTYPES:
        z = sample(dt, (2, 5))
        in_place("put_along_axis", z, np.argsort(z, axis=1)[:, :2], np.ones(1, dt), axis=1)
    arr = ad.asarray(np.array([[10, 30, 20], [60, 40, 50]]))
    for axis in (0, 1):
        imax = ad.argmax(arr, axis=axis, keepdims=True)
        ad.put_along_axis(arr, imax, -99, axis=axis)
        check(ad.argmin(arr, axis=axis, keepdims=True), imax.get())


def test_put_along_axis_errors():
    a = ad.asarray(np.arange(27).reshape(3, 3, 3))
    with pytest.raises(ValueError):
        ad.put_along_axis(a, ad.argmax(a, axis=0), -99, axis=1)
    with pytest.raises(ValueError):
        ad.put_along_axis(a, ad.zeros((1, 1, 1), int), 1, axis=None)
    with pytest.raises(IndexError):
        ad.put_along_axis(ad.ones((3, 4)), np.array([[4], [0], [0]]), 7, axis=1)
    with pytest.raises(IndexError):
        ad.put_along_axis(ad.ones((3, 4)), np.array([[0.5]]), 7, axis=1)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_copyto(dt):
    dst = np.zeros((2, 3, 4), dt)
    for src in (np.arange(24).reshape(2, 3, 4).astype(dt)[::-1],
                sample(dt, (3, 1)), sample(dt, (1, 1, 3, 4)), sample(dt, (1, 2, 1, 4)),
                np.ones((2, 3, 4), bool)):
        in_place("copyto", dst, src)
        in_place("copyto", dst, src, where=sample("?", (2, 3, 4)))
        in_place("copyto", dst, src, where=sample("?", (3, 4)))
    b = ad.asarray(np.zeros((4, 3), dt)).T  # a strided destination
    e = np.zeros((4, 3), dt).T
    src = sample(dt, (1, 1, 3, 4))
    ad.copyto(b, ad.asarray(src))
    np.copyto(e, src)
    check(b, e)


@pytest.mark.parametrize("dt", ["i1", "u1", "f4", "c8", "?"])
@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_copyto_casting(dt, casting):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ComplexWarning, invalid casts
        _copyto_casting(dt, casting)


def _copyto_casting(dt, casting):
    for src in (3.2, 0, 4, -4, 300, True, 1 + 1j, np.float32(2.5), np.array(1, np.int8),
                np.array([1.0]), np.arange(4, dtype=np.uint16)):
        for where in (True, np.arange(12).reshape(3, 4) % 2 == 1):
            x = np.ones((3, 4), dt)
            try:
                np.copyto(x.copy(), src, casting=casting, where=where)
            except (TypeError, OverflowError) as e:
                with pytest.raises(type(e)):
                    ad.copyto(ad.asarray(x), src if not isinstance(src, np.ndarray)
                              else ad.asarray(src), casting=casting,
                              where=where if where is True else ad.asarray(where))
                continue
            in_place("copyto", x, src, casting=casting, where=where)


@pytest.mark.parametrize("where", [3.2, 0, 4, -4, True, False, 1 + 1j])
@pytest.mark.parametrize("shape", [(3, 2), (0,)])
def test_copyto_scalar_where(where, shape):
    x = np.zeros(shape, np.float32)
    try:
        np.copyto(x.copy(), np.ones(shape, np.float32), where=where)
    except TypeError:
        with pytest.raises(TypeError):
            ad.copyto(ad.asarray(x), ad.ones(shape, np.float32), where=where)
        return
    in_place("copyto", x, np.ones(shape, np.float32), where=where)


@pytest.mark.parametrize("dst, src", [((), (2,)), ((2, 0, 5, 4), (2, 0, 3, 4)),
                                      ((6,), (2, 3)), ((2, 3), (6,))])
def test_copyto_shape_errors(dst, src):
    with pytest.raises(ValueError):
        ad.copyto(ad.zeros(dst, int), ad.zeros(src, int))


def test_copyto_errors():
    with pytest.raises(TypeError):
        ad.copyto(ad.zeros(3, np.int32), ad.ones(3, np.int32), where=ad.ones(3, np.int32))
    with pytest.raises(TypeError):
        ad.copyto(np.zeros(3), ad.ones(3))
    with pytest.raises(TypeError):
        ad.copyto(ad.zeros(3, int), ad.ones(3))
    with pytest.raises(ValueError):
        ad.copyto(ad.zeros((2, 3)), 1.0, where=ad.ones((3, 3), bool))


# -- applying functions ------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, -1])
def test_apply_along_axis(axis):
    check(ad.apply_along_axis(len, axis, ad.ones((6, 4))),
          np.apply_along_axis(len, axis, np.ones((6, 4))))
    for dt in NO_BOOL:
        x = np.arange(27).astype(dt).reshape(3, 3, 3)
        check(ad.apply_along_axis(ad.sum, axis, ad.asarray(x)),
              np.apply_along_axis(np.sum, axis, x))

    def f1to2(v):
        return v[::-1] * v[1:, None]
    x = np.arange(90).reshape(6, 5, 3)
    check(ad.apply_along_axis(f1to2, axis, ad.asarray(x)), np.apply_along_axis(f1to2, axis, x))
    check(ad.apply_along_axis(lambda v: ad.squeeze(ad.sum(v, keepdims=True)), axis,
                              ad.ones((6, 3))),
          np.apply_along_axis(lambda v: np.squeeze(np.sum(v, keepdims=True)), axis,
                              np.ones((6, 3))))


def test_apply_along_axis_cases():
    x = np.arange(8).reshape(2, 2, 2)

    def three(v, xp):
        return v.sum(axis=-1), v.prod(axis=-1), v.max(axis=-1)
    check(ad.apply_along_axis(three, 1, ad.asarray(x), ad),
          np.apply_along_axis(three, 1, x, np))
    check(ad.apply_along_axis(lambda v, k: v * k, 0, ad.asarray(x), k=2.5),
          np.apply_along_axis(lambda v, k: v * k, 0, x, k=2.5))
    check(ad.apply_along_axis(lambda v: 1, 0, ad.empty((0, 10))),
          np.apply_along_axis(lambda v: 1, 0, np.empty((0, 10))))
    with pytest.raises(ValueError):
        ad.apply_along_axis(lambda v: 1, 1, ad.empty((0, 10)))
    for axis in (-3, 2):
        with pytest.raises(np.exceptions.AxisError):
            ad.apply_along_axis(ad.sum, axis, ad.ones((8, 4)))


def test_apply_over_axes():
    x = np.arange(24).reshape(2, 3, 4)
    a = ad.asarray(x)
    check(ad.apply_over_axes(ad.sum, a, [0, 2]), np.apply_over_axes(np.sum, x, [0, 2]))
    check(ad.apply_over_axes(ad.sum, a, -1), np.apply_over_axes(np.sum, x, -1))
    y = np.arange(10.).reshape(2, 5, 1)
    b = ad.asarray(y)
    check(ad.apply_over_axes(lambda v, ax: b / v.sum(axis=ax)[:, None], b, 1),
          np.apply_over_axes(lambda v, ax: y / v.sum(axis=ax)[:, None], y, 1))
    with pytest.raises(np.exceptions.AxisError):
        ad.apply_over_axes(ad.sum, ad.ones((8, 4)), 3)
    with pytest.raises(ValueError):
        ad.apply_over_axes(lambda v, ax: v.sum(), a, 0)


# -- sorting -----------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_lexsort(dt):
    k = sample(dt, (3, 12))
    check(ad.lexsort(ad.asarray(k)), np.lexsort(k))
    check(ad.lexsort([ad.asarray(r) for r in k]), np.lexsort(list(k)))
    k3 = sample(dt, (2, 4, 5))
    check(ad.lexsort(ad.asarray(k3)), np.lexsort(k3))
    check(ad.lexsort(ad.asarray(k3), axis=0), np.lexsort(k3, axis=0))


def test_lexsort_cases():
    k = np.array([[9, 4, 0, 4, 0, 2, 1], [1, 5, 1, 4, 3, 4, 4]])
    check(ad.lexsort(ad.asarray(k)), np.lexsort(k))
    check(ad.lexsort((k[0], k[1])), np.lexsort((k[0], k[1])))
    for dt in ("f2", "f4", "f8", "c8", "c16"):
        f = sample(dt, (2, 10))
        f[0, 2] = f[1, 6] = np.nan
        check(ad.lexsort(ad.asarray(f)), np.lexsort(f))
    g = sample("f8", (4, 8))
    check(ad.lexsort(ad.asarray(g).T[::-1]), np.lexsort(g.T[::-1]))
    mixed = [ad.asarray(k[0].astype(np.int8)), ad.asarray(k[1].astype(np.float32))]
    check(ad.lexsort(mixed), np.lexsort([k[0].astype(np.int8), k[1].astype(np.float32)]))
    check(ad.lexsort(ad.asarray(np.array([0.3, 0.7]))), np.array(np.lexsort(np.array([0.3, 0.7]))))


def test_lexsort_errors():
    with pytest.raises(TypeError):
        ad.lexsort(ad.asarray(np.array(0.5)))
    with pytest.raises(TypeError):
        ad.lexsort([])
    with pytest.raises(ValueError):
        ad.lexsort([ad.arange(3), ad.arange(4)])
    with pytest.raises(np.exceptions.AxisError):
        ad.lexsort(ad.ones((2, 3)), axis=1)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_sort_complex(dt):
    for shape in ((10,), (2, 5, 3)):
        x = sample(dt, shape)
        check(ad.sort_complex(ad.asarray(x)), np.sort_complex(x))
    if dt.kind in "fc":
        x = sample(dt, (2, 3, 5))
        x[0, 2, 1] = x[1, 0, 3] = np.nan
        check(ad.sort_complex(ad.asarray(x)), np.sort_complex(x))
    with pytest.raises(np.exceptions.AxisError):
        ad.sort_complex(ad.asarray(np.array(1, dt)))


# -- bits ----------------------------------------------------------------------

@pytest.mark.parametrize("dt", [d for d in ALL_DTYPES if d.kind in "biu"], ids=ids)
@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_packbits(dt, bitorder):
    for data in ([0], [1], [0, 1], [1, 0, 1, 1, 0, 1, 1, 1], [1, 0, 1, 1, 0, 1, 1, 1, 1],
                 np.arange(24).reshape(2, 3, 4) % 2, []):
        x = np.array(data).astype(dt)
        check(ad.packbits(ad.asarray(x), bitorder=bitorder), np.packbits(x, bitorder=bitorder))
    x = (sample(dt, (3, 11, 2)) != 0).astype(dt)
    for axis in (0, 1, -1):
        check(ad.packbits(ad.asarray(x), axis=axis, bitorder=bitorder),
              np.packbits(x, axis=axis, bitorder=bitorder))


def test_packbits_cases_and_errors():
    x = np.array([-1, 256, 0, 3])
    check(ad.packbits(ad.asarray(x)), np.packbits(x))
    e = np.zeros((2, 0), bool)
    for axis in (0, 1):
        check(ad.packbits(ad.asarray(e), axis=axis), np.packbits(e, axis=axis))
    with pytest.raises(TypeError):
        ad.packbits(ad.ones(3))
    with pytest.raises(ValueError):
        ad.packbits(ad.arange(3), bitorder="ascendant")
    with pytest.raises(np.exceptions.AxisError):
        ad.packbits(ad.arange(3), axis=1)


@pytest.mark.parametrize("bitorder", ["big", "little", "l", "b"])
def test_unpackbits(bitorder):
    for data in ([], [0], [1], [255], [100, 200, 123, 213]):
        x = np.array(data, np.uint8)
        check(ad.unpackbits(ad.asarray(x), bitorder=bitorder),
              np.unpackbits(x, bitorder=bitorder))
    x = sample("u1", (2, 3)) * 40
    for axis in (0, 1, None):
        for count in (None, 0, 5, -3, 30):
            check(ad.unpackbits(ad.asarray(x), axis=axis, count=count, bitorder=bitorder),
                  np.unpackbits(x, axis=axis, count=count, bitorder=bitorder))
    y = np.packbits(sample("?", (4, 13)), axis=1)
    check(ad.packbits(ad.unpackbits(ad.asarray(y), axis=1, count=13), axis=1), y)


def test_unpackbits_errors():
    with pytest.raises(TypeError):
        ad.unpackbits(ad.arange(3))
    with pytest.raises(TypeError):
        ad.unpackbits(ad.ones(3))
    with pytest.raises(ValueError):
        ad.unpackbits(ad.asarray(np.zeros(2, np.uint8)), bitorder="r")
    with pytest.raises(ValueError):
        ad.unpackbits(ad.asarray(np.zeros(2, np.uint8)), count=-17)


# -- fix, astype ---------------------------------------------------------------

@pytest.mark.parametrize("dt", REAL, ids=ids)
def test_fix(dt):
    x = sample(dt, (3, 4))
    check(ad.fix(ad.asarray(x)), np.fix(x))
    out = ad.empty((3, 4), x.dtype)
    assert ad.fix(ad.asarray(x), out=out) is out
    check(out, np.fix(x))
    check(np.fix(ad.asarray(x)), np.fix(x))  # NumPy's function dispatches here


def test_fix_values_and_errors():
    x = np.array([2.1, 2.9, -2.1, -2.9, -0.5, np.inf, np.nan])
    check(ad.fix(ad.asarray(x)), np.fix(x))
    with pytest.raises(TypeError):
        ad.fix(ad.asarray(np.array([1 + 1j])))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_astype(dt):
    x = sample("f8", (2, 3))
    a = ad.asarray(x)
    check(ad.astype(a, dt), np.astype(x, dt))
    b = ad.asarray(x.astype(dt))
    assert ad.astype(b, dt, copy=False) is b
    c = ad.astype(b, dt)
    assert c is not b
    check(c, x.astype(dt))
    check(ad.astype(np.float32(2.5), np.int32), np.astype(np.float32(2.5), np.int32))
    assert ad.astype(b, dt, device=b.device) is not b
    with pytest.raises(TypeError):
        ad.astype([1, 2], dt)
    with pytest.raises(ValueError):
        ad.astype(b, dt, device="gpu:7")
