"""Result shapes of the copying functions (concatenate, stack, repeat, take,
take_along_axis, compress, x[advanced key]) come from arrayd._shapes in
O(ndim), not from NumPy walking a data-less dummy of the result's size; NumPy
on dummies still decides every invalid call, so errors stay NumPy's.

Checked here: each helper against NumPy on dummies (random shapes and keys:
an answer must be NumPy's, and a common valid call must get one), helpers on
shapes no walk could finish (2**40 elements), the functions' values and
shapes against NumPy, NumPy's exception and message for invalid inputs, and
that the valid paths never reach the NumPy-on-dummy fallbacks.
"""
from __future__ import annotations

import operator

import numpy as np
import pytest

import arrayd as ad
from arrayd import _indexing, _manipulation
from arrayd import _shapes as S
from helpers import check

_V0 = np.dtype((np.void, 0))
HUGE = 2**40  # a walk of this many elements would not finish


def _dummy(shape):
    return np.empty(shape, _V0)


def _zeros_view(shape):
    return np.lib.stride_tricks.as_strided(np.zeros(1, np.intp), shape,
                                           (0,) * len(shape))


def _numpy_shape(fn, *args, **kwargs):
    """NumPy's result shape of fn(*args, **kwargs), or None where NumPy
    raises."""
    try:
        r = fn(*args, **kwargs)
    except (TypeError, ValueError, IndexError):  # AxisError is both
        return None
    return r.shape if isinstance(r, np.ndarray) else ()


def _shape(rng, lo=0, hi=4):
    return tuple(int(rng.choice([0, 1, 1, 2, 3, 4]))
                 for _ in range(rng.integers(lo, hi)))


def same_error(ad_call, np_call):
    """ad_call raises NumPy's exception: the same type and message."""
    with pytest.raises(Exception) as want:
        np_call()
    with pytest.raises(Exception) as got:
        ad_call()
    assert type(got.value) is type(want.value), (got.value, want.value)
    assert str(got.value) == str(want.value)


# -- the helpers against NumPy on dummies -----------------------------------

AXES = [0, 1, 2, -1, -2, -3, 3, np.int64(1), True, 1.0]


def test_join_helpers_agree_with_numpy_on_dummies():
    rng = np.random.default_rng(1)
    answered = 0
    for _ in range(3000):
        base = _shape(rng)
        shapes = []
        for _ in range(rng.integers(1, 4)):
            s = list(base)
            if s and rng.random() < 0.5:
                s[rng.integers(len(s))] = int(rng.integers(0, 3))
            shapes.append(tuple(s) if rng.random() < 0.9 else _shape(rng))
        axis = AXES[rng.integers(len(AXES))]
        want = _numpy_shape(np.concatenate, [_dummy(s) for s in shapes], axis=axis)
        got = S.concatenate(shapes, axis)
        assert got is None or got == want, (shapes, axis, got, want)
        equal = [base] * len(shapes)
        want = _numpy_shape(np.stack, [_dummy(s) for s in equal], axis=axis)
        got = S.stack(equal, axis)
        assert got is None or got == want, (equal, axis, got, want)
        if want is not None and not isinstance(axis, (bool, float)):
            assert got == want, (equal, axis)  # valid: answered
            answered += 1
    assert answered > 1000


def test_repeat_helper_agrees_with_numpy_on_dummies():
    rng = np.random.default_rng(2)
    dtypes = [np.int64, np.int8, np.uint8, np.uint64, np.bool_, np.float64]
    answered = 0
    for _ in range(3000):
        shape = _shape(rng, 1, 4)
        axis = int(rng.integers(len(shape)))
        n = shape[axis] if rng.random() < 0.8 else int(rng.integers(0, 4))
        kind = rng.random()
        if kind < 0.3:
            reps = np.asarray(int(rng.integers(-1, 4)))
        elif kind < 0.9:
            reps = rng.integers(-1 if rng.random() < 0.2 else 0, 4, n).astype(
                dtypes[rng.integers(len(dtypes))])
        else:
            reps = np.ones((1, 1), np.int64)
        want = _numpy_shape(np.repeat, _dummy(shape), reps, axis=axis)
        got = S.repeat(shape, reps, axis)
        assert got is None or got == want, (shape, reps, axis, got, want)
        if got is not None:
            answered += 1
    assert answered > 1000


def test_take_helpers_agree_with_numpy_on_dummies():
    rng = np.random.default_rng(3)
    answered = 0
    for _ in range(3000):
        shape = _shape(rng)
        axis = [None, 0, 1, -1, 3, True][rng.integers(6)]
        mode = ["raise", "wrap", "clip"][rng.integers(3)]
        if mode != "raise" and 0 in shape:
            continue  # NumPy's own take never returns here
        ishape = _shape(rng, 0, 3)
        if rng.random() < 0.5:  # client indices, some out of range
            idx = rng.integers(-5, 5, ishape)
            bounds = S.index_bounds(idx)
        else:  # a server array: zeros as far as shapes go
            idx, bounds = _zeros_view(ishape), (0, 0)
        want = _numpy_shape(np.take, _dummy(shape), idx, axis=axis, mode=mode)
        got = S.take(shape, idx.shape, axis, mode, bounds)
        assert got is None or got == want, (shape, idx, axis, mode, got, want)
        answered += got is not None
        # take_along_axis: indices of the same ndim, broadcasting elsewhere
        if shape:
            tshape = tuple(int(rng.choice([n, 1, 0, 2])) for n in shape)
            tidx = rng.integers(-4, 4, tshape)
            taxis = [0, -1, len(shape) - 1, 5, True][rng.integers(5)]
            want = _numpy_shape(np.take_along_axis, _dummy(shape), tidx, taxis)
            got = S.take_along_axis(shape, tidx.shape, taxis, S.index_bounds(tidx))
            assert got is None or got == want, (shape, tidx, taxis, got, want)
            answered += got is not None
    assert answered > 500


def _key_item(rng, shape, dim):
    n = shape[dim] if dim < len(shape) else 3
    c = rng.random()
    if c < 0.1:
        return None
    if c < 0.17:
        return Ellipsis
    if c < 0.35:
        ends = [None, -5, -1, 0, 1, 2, 7]
        return slice(ends[rng.integers(7)], ends[rng.integers(7)],
                     [None, 1, 2, -1, -2][rng.integers(5)])
    if c < 0.45:
        return int(rng.integers(-n - 1, n + 1))
    if c < 0.62:
        return rng.integers(-n - (rng.random() < 0.1), max(n, 1), _shape(rng, 0, 3))
    if c < 0.75:
        mshape = shape[dim:dim + 1] if rng.random() < 0.85 else _shape(rng, 1, 3)
        return rng.random(mshape) < 0.5
    if c < 0.95:
        return S.IndexShape(_shape(rng, 0, 3))
    return [True, 1.5][rng.integers(2)]


def test_fancy_index_helper_agrees_with_numpy_on_dummies():
    rng = np.random.default_rng(4)
    answered = 0
    for _ in range(4000):
        shape = _shape(rng, 0, 5)
        key = [_key_item(rng, shape, d) for d in range(rng.integers(1, 4))]
        if not any(isinstance(k, (np.ndarray, S.IndexShape)) for k in key):
            key.append(S.IndexShape((2,)))
        real = tuple(np.zeros(k, np.intp) if isinstance(k, S.IndexShape) else k
                     for k in key)
        want = _numpy_shape(operator.getitem, _dummy(shape), real)
        got = S.fancy_index(shape, key)
        assert got is None or got == want, (shape, key, got, want)
        usual = not any(isinstance(k, (bool, np.bool_, float)) for k in key)
        if want is not None and usual and 0 not in want:
            assert got == want, (shape, key)  # valid: answered
            answered += 1
    assert answered > 500


# -- no walks: shapes no walk could finish ----------------------------------

def test_helpers_answer_for_shapes_too_large_to_walk():
    assert S.concatenate([(HUGE,)] * 4, 0) == (4 * HUGE,)
    assert S.concatenate([(3, HUGE), (2, HUGE)], -2) == (5, HUGE)
    assert S.stack([(HUGE,)] * 4, -1) == (HUGE, 4)
    assert S.repeat((HUGE, 2), np.asarray(3), 0) == (3 * HUGE, 2)
    assert S.repeat((3, HUGE), np.array([1, 0, 5]), 0) == (6, HUGE)
    assert S.take((HUGE, 3), (HUGE,), 0, "raise", (0, 0)) == (HUGE, 3)
    assert S.take((HUGE,), (2, HUGE), None, "wrap", (0, 0)) == (2, HUGE)
    assert S.take_along_axis((2**20, 2**20), (2**20, 1), 1, (0, 0)) == (2**20, 1)
    assert S.take_along_axis((1, 2**20), (2**20, 2**20), 0, (-1, 0)) == (2**20, 2**20)
    big = 2**20  # (NumPy's shapes hold at most 2**63 elements)
    key = [S.IndexShape((big, 1)), slice(None), S.IndexShape((big,))]
    assert S.fancy_index((big, big, big), key) == (big, big, big)
    assert S.fancy_index((HUGE, HUGE), [slice(None), S.IndexShape((HUGE,))]) == (HUGE, HUGE)
    # A server mask before its count is known: checked by shape alone.
    assert S.fancy_items((HUGE, 3), [S.MaskShape((HUGE,)), 1]) is not None
    assert S.fancy_items((HUGE, 3), [S.MaskShape((HUGE, 2))]) is None


def test_helpers_refuse_what_numpy_refuses():
    assert S.concatenate([(), ()], 0) is None  # 0-d
    assert S.concatenate([(2, 3), (2, 4)], 0) is None
    assert S.concatenate([(2, 3), (2,)], 0) is None
    assert S.concatenate([(2, 3)], True) is None  # NumPy: a TypeError
    assert S.concatenate([(2**62,), (2**62,)], 0) is None  # past intp
    assert S.stack([(2, 3), (3, 2)], 0) is None
    assert S.stack([(2,)], 2) is None
    assert S.repeat((3,), np.array([1, -1, 1]), 0) is None
    assert S.repeat((3,), np.array([1, 1]), 0) is None
    assert S.repeat((3,), np.array([1.0]), 0) is None
    assert S.repeat((3,), np.array([1, 1, 1], np.uint64), 0) is None
    assert S.take((3,), (1,), None, "raise", (3, 3)) is None
    assert S.take((0, 2), (1,), 0, "clip", (0, 0)) is None
    assert S.take_along_axis((2, 3), (3, 3), 1, (0, 0)) is None
    assert S.take_along_axis((2, 3), (2, 3), 1, (0, 3)) is None
    assert S.fancy_index((3,), [S.IndexShape((2,)), S.IndexShape((3,))]) is None
    assert S.fancy_index((3, 4), [np.array([1]), np.array([4])]) is None
    assert S.fancy_index((3,), [np.ones(4, bool)]) is None
    assert S.fancy_index((3,), [Ellipsis, S.IndexShape((1,)), Ellipsis]) is None


# -- values and shapes against NumPy ----------------------------------------

def test_concatenate_and_stack_match_numpy():
    xs = [np.arange(6.0).reshape(2, 3), np.arange(3.0).reshape(1, 3),
          np.zeros((0, 3))]
    a = [ad.asarray(x) for x in xs]
    check(ad.concatenate(a), np.concatenate(xs))
    check(ad.concatenate(a, axis=-2), np.concatenate(xs, axis=-2))
    check(ad.concatenate(a, axis=None), np.concatenate(xs, axis=None))
    check(ad.concatenate(a, axis=np.int64(0), dtype=np.float32),
          np.concatenate(xs, axis=0, dtype=np.float32))
    check(ad.concatenate([ad.asarray(np.zeros((2, 0)))] * 2, 1), np.zeros((2, 0)))
    y = np.arange(6).reshape(2, 3)
    for axis in (0, 1, 2, -1, -3):
        check(ad.stack([ad.asarray(y), ad.asarray(y + 1)], axis=axis),
              np.stack([y, y + 1], axis=axis))
    check(ad.stack([ad.asarray(np.int32(5)), ad.asarray(np.int32(7))]),
          np.stack([np.int32(5), np.int32(7)]))
    check(ad.stack([ad.asarray(np.zeros((0, 2)))] * 3, axis=1), np.zeros((0, 3, 2)))


def test_repeat_matches_numpy():
    x = np.arange(12).reshape(3, 4)
    a = ad.asarray(x)
    check(ad.repeat(a, 2), np.repeat(x, 2))
    check(ad.repeat(a, 0, axis=1), np.repeat(x, 0, axis=1))
    check(ad.repeat(a, [1, 0, 2], axis=0), np.repeat(x, [1, 0, 2], axis=0))
    check(ad.repeat(a, np.array([2, 1, 0, 3], np.uint8), axis=-1),
          np.repeat(x, np.array([2, 1, 0, 3], np.uint8), axis=-1))
    check(ad.repeat(a, ad.asarray([1, 2, 3]), axis=0), np.repeat(x, [1, 2, 3], axis=0))
    check(ad.repeat(a, [True, False, True], axis=0),
          np.repeat(x, [True, False, True], axis=0))
    check(ad.repeat(ad.asarray(np.zeros((0, 2))), np.array([], int), axis=0),
          np.zeros((0, 2)))
    check(a.repeat(3, axis=1), x.repeat(3, axis=1))


def test_take_take_along_axis_and_compress_match_numpy():
    x = np.arange(24.0).reshape(2, 3, 4)
    a = ad.asarray(x)
    idx = np.array([[0, -1], [3, 1]])
    for axis in (None, 0, 2, -1):
        i = idx % 2 if axis == 0 else idx
        check(ad.take(a, i, axis=axis), np.take(x, i, axis=axis))
        check(ad.take(a, ad.asarray(i), axis=axis), np.take(x, i, axis=axis))
    check(ad.take(a, [7, -9], axis=1, mode="wrap"), np.take(x, [7, -9], axis=1, mode="wrap"))
    check(ad.take(a, [7, -9], axis=2, mode="clip"), np.take(x, [7, -9], axis=2, mode="clip"))
    check(ad.take(a, [], axis=1), np.take(x, [], axis=1))
    check(ad.take(ad.asarray(np.float64(3.0)), 0, axis=-1), np.take(np.float64(3.0), 0, axis=-1))
    # take_along_axis: indices broadcast against the other axes
    y = np.arange(12.0).reshape(3, 4)
    b = ad.asarray(y)
    for ind, axis in ((np.array([[0], [3], [-1]]), 1), (np.array([[2, 0, 1, 1]]), 0),
                      (np.array([[1, 0, -1, 2]] * 3), -1), (np.zeros((1, 4), np.int32), -2)):
        check(ad.take_along_axis(b, ind, axis), np.take_along_axis(y, ind, axis))
        check(ad.take_along_axis(b, ad.asarray(ind), axis), np.take_along_axis(y, ind, axis))
    flat = np.array([11, 0, -1])
    check(ad.take_along_axis(b, flat, None), np.take_along_axis(y, flat, None))
    check(ad.take_along_axis(b, np.zeros((3, 0), np.int64), 1),
          np.take_along_axis(y, np.zeros((3, 0), np.int64), 1))
    # compress: a false tail past the axis is ignored
    for cond, axis in (([True, False, True], 0), ([0, 1, 1, 0, 0, 0], 1),
                       ([1, 0, 1] + [0] * 9, None), ([], 1)):
        check(ad.compress(cond, b, axis=axis), np.compress(cond, y, axis=axis))


def test_advanced_keys_match_numpy():
    x = np.arange(60).reshape(3, 4, 5)
    a = ad.asarray(x)
    rows = np.array([2, 0, -1])
    check(a[rows], x[rows])
    check(a[ad.asarray(rows)], x[rows])
    check(a[:, [[1], [3]], [0, 4]], x[:, [[1], [3]], [0, 4]])
    check(a[ad.asarray([0, 1]), :, ad.asarray([1, 2])], x[[0, 1], :, [1, 2]])
    check(a[..., None, ad.asarray([4, 0])], x[..., None, [4, 0]])
    check(a[1, :, [0, 1]], x[1, :, [0, 1]])
    m = np.array([True, False, True])
    m2 = x[0] % 3 == 0
    check(a[ad.asarray(m)], x[m])
    check(a[ad.asarray(m), 1:3], x[m, 1:3])
    check(a[1, ad.asarray(m2)], x[1, m2])
    check(a[:, ad.asarray(m2[:, 0]), ad.asarray([3])], x[:, m2[:, 0], [3]])
    # A server mask with a server integer array: the mask's count, not an
    # all-false stand-in, broadcasts against the integers.
    check(a[ad.asarray(m), ad.asarray([1, 2])], x[m, [1, 2]])
    check(a[ad.asarray(m), :, ad.asarray([4])], x[m, :, [4]])
    check(a[ad.asarray(np.zeros(3, bool)), ad.asarray([1])], x[np.zeros(3, bool), [1]])
    check(a[np.zeros((0,), np.int64)], x[np.zeros((0,), np.int64)])


def test_advanced_setitem_matches_numpy():
    x = np.arange(20.0).reshape(4, 5)
    a = ad.asarray(x)
    m = np.array([True, False, True, True])
    x[m, [0, 2, 4]] = -1.0
    a[ad.asarray(m), ad.asarray([0, 2, 4])] = -1.0
    x[[1, 3], 1:] = 7.0
    a[ad.asarray([1, 3]), 1:] = 7.0
    check(a, x)


# -- NumPy's exceptions for invalid inputs ------------------------------------

def test_join_and_repeat_errors_are_numpys():
    x, y = np.zeros((2, 3)), np.zeros((2, 4))
    a, b = ad.asarray(x), ad.asarray(y)
    same_error(lambda: ad.concatenate([a, b]), lambda: np.concatenate([x, y]))
    same_error(lambda: ad.concatenate([a, b], axis=2), lambda: np.concatenate([x, y], axis=2))
    same_error(lambda: ad.concatenate([a, a[0]]), lambda: np.concatenate([x, x[0]]))
    same_error(lambda: ad.concatenate([a, a], axis=True),
               lambda: np.concatenate([x, x], axis=True))
    z = np.zeros(())
    same_error(lambda: ad.concatenate([ad.asarray(z)] * 2), lambda: np.concatenate([z] * 2))
    same_error(lambda: ad.stack([a, b]), lambda: np.stack([x, y]))
    same_error(lambda: ad.stack([a, a], axis=3), lambda: np.stack([x, x], axis=3))
    same_error(lambda: ad.stack([a, a], axis=-4), lambda: np.stack([x, x], axis=-4))
    same_error(lambda: ad.repeat(a, -1), lambda: np.repeat(x, -1))
    same_error(lambda: ad.repeat(a, [1, -1], axis=0), lambda: np.repeat(x, [1, -1], axis=0))
    same_error(lambda: ad.repeat(a, [1, 2], axis=1), lambda: np.repeat(x, [1, 2], axis=1))
    f = np.array([1.5, 2])
    same_error(lambda: ad.repeat(a, f, axis=0), lambda: np.repeat(x, f, axis=0))
    r2 = np.array([[1, 2]])
    same_error(lambda: ad.repeat(a, r2, axis=0), lambda: np.repeat(x, r2, axis=0))
    same_error(lambda: ad.repeat(a, np.array([1, 2], np.uint64), axis=0),
               lambda: np.repeat(x, np.array([1, 2], np.uint64), axis=0))


def test_take_and_compress_errors_are_numpys():
    x = np.arange(12.0).reshape(3, 4)
    a = ad.asarray(x)
    same_error(lambda: ad.take(a, [0, 4], axis=1), lambda: np.take(x, [0, 4], axis=1))
    same_error(lambda: ad.take(a, [-13]), lambda: np.take(x, [-13]))
    same_error(lambda: ad.take(a, [0], axis=2), lambda: np.take(x, [0], axis=2))
    same_error(lambda: ad.take(a, [0], axis=True), lambda: np.take(x, [0], axis=True))
    e = np.zeros((0, 3))
    same_error(lambda: ad.take(ad.asarray(e), [0], axis=0, mode="clip"),
               lambda: np.take(e, [0], axis=0, mode="clip"))
    same_error(lambda: ad.take_along_axis(a, np.array([[0]]), 2),
               lambda: np.take_along_axis(x, np.array([[0]]), 2))
    same_error(lambda: ad.take_along_axis(a, np.array([0]), 1),
               lambda: np.take_along_axis(x, np.array([0]), 1))
    same_error(lambda: ad.take_along_axis(a, np.zeros((2, 4), np.int64), 1),
               lambda: np.take_along_axis(x, np.zeros((2, 4), np.int64), 1))
    same_error(lambda: ad.take_along_axis(a, np.array([[4]]), 1),
               lambda: np.take_along_axis(x, np.array([[4]]), 1))
    same_error(lambda: ad.take_along_axis(a, np.array([[0.5]]), 1),
               lambda: np.take_along_axis(x, np.array([[0.5]]), 1))
    same_error(lambda: ad.take_along_axis(a, ad.zeros((2, 4), ad.int64), 1),
               lambda: np.take_along_axis(x, np.zeros((2, 4), np.int64), 1))
    same_error(lambda: ad.compress([0, 0, 0, 1], a, axis=0),
               lambda: np.compress([0, 0, 0, 1], x, axis=0))
    same_error(lambda: ad.compress([1] * 13, a), lambda: np.compress([1] * 13, x))


def test_advanced_key_errors_are_numpys():
    x = np.arange(12).reshape(3, 4)
    a = ad.asarray(x)
    m3, m4 = np.array([True, False, True]), np.array([True, False, True, True])
    keys = [
        (np.array([0]), np.array([0]), np.array([0])),   # too many indices
        (np.array([3]),),                                # out of bounds
        (slice(None), np.array([-5])),
        (np.array([0, 1]), np.array([0, 1, 2])),         # no broadcast
        (m4,),                                           # the mask's size
        (m3, np.array([0, 1, 2])),                       # the mask's count
        (Ellipsis, np.array([0]), Ellipsis),
        (np.array([0]), 1.5),
    ]
    for key in keys:
        same_error(lambda key=key: a[key], lambda key=key: x[key])
    # Server masks and integer arrays (server-side bounds aside).
    same_error(lambda: a[ad.asarray(m4)], lambda: x[m4])
    same_error(lambda: a[:, ad.asarray(m3)], lambda: x[:, m3])
    same_error(lambda: a[ad.asarray(m3), ad.asarray([0, 1, 2])], lambda: x[m3, [0, 1, 2]])
    same_error(lambda: a[ad.asarray(m3), :, ad.asarray([0])], lambda: x[m3, :, [0]])
    same_error(lambda: a[ad.asarray([0, 1]), ad.asarray([0, 1, 2])],
               lambda: x[[0, 1], [0, 1, 2]])


# -- the valid paths never reach the NumPy-on-dummy fallbacks -----------------

def _no_dummies(*_args, **_kwargs):
    raise AssertionError("a valid call ran NumPy on a shape dummy")


def test_valid_joins_and_repeats_use_no_dummy(monkeypatch):
    monkeypatch.setattr(_manipulation, "shape_dummy", _no_dummies)
    x = np.arange(6).reshape(2, 3)
    a = ad.asarray(x)
    check(ad.concatenate([a, a, a], axis=-1), np.concatenate([x, x, x], axis=-1))
    check(ad.concatenate([a, a], axis=None), np.concatenate([x, x], axis=None))
    check(ad.stack([a, a], axis=1), np.stack([x, x], axis=1))
    check(ad.repeat(a, 2, axis=0), np.repeat(x, 2, axis=0))
    check(ad.repeat(a, [2, 0, 1], axis=1), np.repeat(x, [2, 0, 1], axis=1))
    with pytest.raises(AssertionError, match="shape dummy"):
        ad.concatenate([a, a[0]])  # invalid: NumPy decides (here: the patch)


def test_valid_takes_use_no_dummy(monkeypatch):
    monkeypatch.setattr(_indexing, "shape_dummy", _no_dummies)
    x = np.arange(12.0).reshape(3, 4)
    a = ad.asarray(x)
    check(ad.take(a, ad.asarray([2, 0]), axis=0), np.take(x, [2, 0], axis=0))
    check(ad.take(a, [[5, -1]]), np.take(x, [[5, -1]]))
    check(ad.take_along_axis(a, ad.asarray(np.array([[1], [0], [3]])), 1),
          np.take_along_axis(x, np.array([[1], [0], [3]]), 1))
    check(ad.take_along_axis(a, np.array([[2, 0, 1, 1]]), 0),
          np.take_along_axis(x, np.array([[2, 0, 1, 1]]), 0))
    check(ad.compress([True, False, True], a, axis=0),
          np.compress([True, False, True], x, axis=0))
    with pytest.raises(AssertionError, match="shape dummy"):
        ad.take(a, [12])  # invalid: NumPy decides (here: the patch)


def test_valid_advanced_keys_use_no_dummy(monkeypatch):
    # (Basic keys' views keep their dummies: NumPy makes those in O(1).)
    monkeypatch.setattr(_indexing, "_dummy_index_shape", _no_dummies)
    x = np.arange(12.0).reshape(3, 4)
    a = ad.asarray(x)
    m = np.array([True, False, True])
    check(a[np.array([2, 2, 0])], x[[2, 2, 0]])
    check(a[ad.asarray([1, 0]), 1:], x[[1, 0], 1:])
    check(a[ad.asarray(m), ad.asarray([3, 0])], x[m, [3, 0]])
    check(a[ad.asarray(m)], x[m])
    a[ad.asarray([0, 2]), ad.asarray([1])] = 5.0
    x[[0, 2], [1]] = 5.0
    check(a, x)
    with pytest.raises(AssertionError, match="shape dummy"):
        a[np.array([0, 1]), np.array([0, 1, 2])]  # invalid: NumPy decides
