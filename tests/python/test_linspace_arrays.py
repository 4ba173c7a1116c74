"""numpy.linspace on arrayd: array-like start/stop (broadcast), axis=,
retstep with arrays, endpoint=, dtype= (integers floored as NumPy 2),
num 0 and 1, complex, NumPy's zero-step rule, and NumPy's exceptions.
Values are compared exactly: the client follows NumPy's formula in
NumPy's computation dtype."""
from __future__ import annotations

import sys
import warnings

import arrayd as ad
import numpy as np
import numpy.testing as npt
import pytest

DTYPES = ["i1", "i4", "i8", "u1", "u8", "f2", "f4", "f8", "c8", "c16", "?"]
AxisError = np.exceptions.AxisError


def exact(got, expected):
    assert isinstance(got, ad.ndarray), type(got)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    npt.assert_array_equal(got.get(), expected)


def both(start, stop, *args, **kw):
    """(arrayd, numpy) linspace; numpy arrays among start/stop go to arrayd
    as arrayd arrays."""
    def up(v):
        return ad.asarray(v) if isinstance(v, np.ndarray) else v
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return (ad.linspace(up(start), up(stop), *args, **kw),
                    np.linspace(start, stop, *args, **kw))


def step_matches(got, expected):
    if isinstance(got, ad.ndarray):
        got = got.get()
        if got.ndim == 0:
            got = got[()]
    expected = np.asarray(expected)
    assert np.asarray(got).dtype == expected.dtype
    npt.assert_array_equal(got, expected)


@pytest.mark.parametrize("range_dtype", ["i2", "u1", "f2", "f4", "f8",
                                         "c8"])
@pytest.mark.parametrize("out", [None] + DTYPES)
def test_array_start_stop(range_dtype, out):
    start = np.array([0, 120, 7], range_dtype)
    stop = np.array([100, 0, 7], range_dtype)  # the last: a zero step
    if out is not None and np.dtype(out).kind in "iu?" and \
            np.dtype(range_dtype).kind == "c":
        if np.dtype(out).kind == "b":
            exact(*both(start, stop, 9, dtype=out))
        else:
            with pytest.raises(TypeError):
                np.linspace(start, stop, 9, dtype=out)
            with pytest.raises(TypeError):
                ad.linspace(ad.asarray(start), ad.asarray(stop), 9, dtype=out)
        return
    for num in (0, 1, 2, 9, 50):
        for endpoint in (True, False):
            exact(*both(start, stop, num, endpoint=endpoint, dtype=out))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_broadcasting_and_axis(axis):
    rng = np.random.default_rng(0)
    start = rng.normal(size=(3, 1)) * 10
    stop = rng.normal(size=(4,)) * 100
    for s, e in [(start, stop), (start, 2.5), (-1, stop),
                 ([[0], [1], [2]], [5, 6, 7, 8]), (start.astype("f4"), 3)]:
        if not -np.ndim(s + np.asarray(e)) - 1 <= axis <= np.ndim(
                s + np.asarray(e)):
            with pytest.raises(AxisError):
                ad.linspace(s, e, 7, axis=axis)
            continue
        exact(*both(s, e, 7, axis=axis))
        exact(*both(s, e, 6, axis=axis, endpoint=False, dtype="i4"))


def test_retstep_with_arrays():
    start = np.array([[0.0, 1.0], [2.0, 2.0]], "f4")
    stop = np.array([1.0, 9.0], "f4")
    for num, endpoint in ((5, True), (5, False), (1, True), (1, False),
                          (0, True), (0, False)):
        (g, gs), (r, rs) = both(start, stop, num, endpoint=endpoint,
                                retstep=True)
        exact(g, r)
        if isinstance(rs, float):  # NumPy: nan when there is no step
            assert isinstance(gs, float) and np.isnan(gs) and np.isnan(rs)
        else:
            step_matches(gs, rs)


def test_scalars_and_their_step():
    rng = np.random.default_rng(1)
    for _ in range(60):
        a, b = rng.normal(size=2) * 10.0 ** rng.integers(-3, 4, 2)
        for conv in (float, np.float32, np.float16, np.float64,
                     lambda v: complex(v, 1)):
            num = int(rng.integers(0, 20))
            endpoint = bool(rng.integers(2))
            (g, gs), (r, rs) = both(conv(a), conv(b), num,
                                    endpoint=endpoint, retstep=True)
            exact(g, r)
            if isinstance(rs, float) and np.isnan(rs):
                assert np.isnan(gs)
            else:
                assert type(gs) is type(rs), (type(gs), type(rs))
                assert gs == rs


@pytest.mark.parametrize("dtype", DTYPES)
def test_scalar_dtypes(dtype):
    for args in ((0, 10, 5), (10, 0, 5), (-10, 8, 9), (0.1, 9.1, 11),
                 (0, 2, 1), (0, 10, 0), (3, 7, 1)):
        if np.dtype(dtype).kind == "u" and args[0] < 0:
            continue
        exact(*both(*args, dtype=dtype))
        exact(*both(*args, dtype=dtype, endpoint=False))


def test_integer_dtypes_floor():
    exact(*both(-10, 8, 9, dtype="i4"))
    exact(*both(np.array([-10.0, 3.0]), np.array([8.0, -4.0]), 9,
                dtype="i8"))
    got = ad.linspace(ad.asarray(np.array([-1.0])), 0.0, 3, dtype="i2")
    npt.assert_array_equal(got.get(), [[-1], [-1], [0]])


def test_zero_step_divides_first():
    tiny = sys.float_info.min
    while tiny / 2 > 0:
        tiny /= 2
    exact(*both(0.0, tiny, 10))
    exact(*both(np.array([0.0, 0.0]), np.array([tiny, 1.0]), 10))
    # A zero step in one element changes the formula for all (NumPy).
    exact(*both(np.array([0.0, 0.0]), np.array([0.0, 1.0]), 7))


def test_complex():
    start = np.array([0, 120 + 3j], "c16")
    stop = np.array([100 - 1j, 0], "c16")
    exact(*both(start, stop, 50))
    exact(*both(start.astype("c8"), stop.astype("c8"), 13, axis=1))
    exact(*both(1 + 2j, [2, 3], 4))
    with pytest.warns(np.exceptions.ComplexWarning):
        ad.linspace(1j, 2, 3, dtype="f8")


def test_nonfinite_and_bool():
    exact(*both(0, np.inf, 5))
    exact(*both(0, np.nan, 5))
    exact(*both(True, False, 3))
    exact(*both(np.array([True, False]), np.array([False, False]), 4))


def test_errors_like_numpy():
    for args, kw, exc in [((0, 1, -1), {}, ValueError),
                          ((0, 1, 2.5), {}, TypeError),
                          ((0, 1, 5), {"axis": 1}, AxisError),
                          (([0, 1], [1, 2, 3], 5), {}, ValueError),
                          (([0, 1], 3, 5), {"axis": 2}, AxisError),
                          ((1j, 2, 3), {"dtype": int}, TypeError),
                          (([1j], 2, 3), {"dtype": "u1"}, TypeError)]:
        with pytest.raises(exc):
            np.linspace(*args, **kw)
        with pytest.raises(exc):
            ad.linspace(*args, **kw)
