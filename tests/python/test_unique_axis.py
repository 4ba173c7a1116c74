"""unique along an axis (NumPy 2's shapes: the inverse is 1-D), NaN rows,
NumPy's complex order, equal_nan without an axis, and NumPy's errors."""
from __future__ import annotations

import arrayd as ad
import numpy as np
import pytest
from helpers import ALL_DTYPES, check, ids

ALL3 = {"return_index": True, "return_inverse": True,
        "return_counts": True}
NAN = np.nan
# Complex values of every NaN class, some repeated, and signed zeros.
COMPLEX = np.array([complex(NAN, 3), 2, complex(7, NAN), complex(NAN, NAN),
                    complex(NAN, 1), complex(1, NAN), 2 + 1j,
                    complex(NAN, -1), -0.0, 0.0, complex(NAN, 1),
                    complex(7, NAN)])


def same(got, exp) -> None:
    """unique's results: the same number, each equal to NumPy's in dtype,
    shape and value; for complex also in which parts are NaN."""
    if not isinstance(exp, tuple):
        got, exp = (got,), (exp,)
    assert isinstance(got, tuple) and len(got) == len(exp)
    for g, e in zip(got, exp):
        check(g, e)
        if e.dtype.kind == "c":
            h = g.get()
            np.testing.assert_array_equal(np.isnan(h.real), np.isnan(e.real))
            np.testing.assert_array_equal(np.isnan(h.imag), np.isnan(e.imag))


def both(x, **kw) -> None:
    same(ad.unique(ad.asarray(x), **kw), np.unique(x, **kw))


def few_values(dt, shape, seed=0) -> np.ndarray:
    """Values from {0, 1, 2} so that rows repeat."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2 if np.dtype(dt) == bool else 3,
                        shape).astype(dt)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("shape,axis", [
    ((6, 5), 0), ((6, 5), 1), ((6, 5), -1), ((4, 3, 5), 0), ((4, 3, 5), 1),
    ((4, 3, 5), 2), ((2, 3, 2, 2), 2), ((9, 1), 0), ((1, 9), 0), ((1, 9), 1),
    ((8, 2), 0), ((2, 8), 1)])
def test_axis_all_results(dt, shape, axis):
    x = few_values(dt, shape)
    both(x, axis=axis)
    both(x, axis=axis, **ALL3)
    both(x, axis=axis, return_inverse=True)
    both(x, axis=axis, return_index=True, return_counts=True)


@pytest.mark.parametrize("dt", ["i4", "f8"], ids=ids)
def test_axis_many_columns(dt):
    # Enough columns for several rounds of pairing, and an odd count.
    x = few_values(dt, (40, 37), seed=3)
    x[20:30] = x[5:15]
    both(x, axis=0, **ALL3)
    both(x.T.copy(), axis=1, **ALL3)


def test_axis_reconstructs_input():
    x = few_values("i8", (7, 4, 3), seed=1)
    u, inv = ad.unique(ad.asarray(x), axis=1, return_inverse=True)
    np.testing.assert_array_equal(ad.take(u, inv, axis=1).get(), x)


@pytest.mark.parametrize("equal_nan", [True, False])
def test_axis_nan_rows_never_match(equal_nan):
    # NaN sorts last (first for float16, as NumPy compares sub-arrays) and
    # ties in the order, but rows holding a NaN never compare equal
    # (equal_nan only applies to axis=None, as NumPy).
    x = np.array([[2, NAN, 2], [NAN, 1, NAN], [NAN, 1, NAN], [1, 2, 3],
                  [1, NAN, 3], [1, NAN, 2], [-0.0, 1, 1], [0.0, 1, 1]])
    for dt in ("f2", "f4", "f8"):
        y = x.astype(dt)
        both(y, axis=0, equal_nan=equal_nan, **ALL3)
        both(y.T.copy(), axis=1, equal_nan=equal_nan, **ALL3)
        both(y[:, :1].copy(), axis=0, equal_nan=equal_nan, **ALL3)


@pytest.mark.parametrize("dt", ["c8", "c16"], ids=ids)
@pytest.mark.parametrize("equal_nan", [True, False])
def test_complex_nan_order(dt, equal_nan):
    c = COMPLEX.astype(dt)
    for v in (c, c[::-1].copy()):
        both(v, equal_nan=equal_nan)
        both(v, equal_nan=equal_nan, **ALL3)
        both(v.reshape(6, 2), axis=0, equal_nan=equal_nan, **ALL3)
        both(v.reshape(4, 3), axis=1, equal_nan=equal_nan, **ALL3)


@pytest.mark.parametrize("equal_nan", [True, False])
def test_flat_equal_nan(equal_nan):
    x = np.array([[2, NAN, 2], [NAN, 1, NAN], [-0.0, 0.0, 1]])
    for dt in ("f2", "f4", "f8"):
        both(x.astype(dt), equal_nan=equal_nan)
        both(x.astype(dt), equal_nan=equal_nan, **ALL3)


def test_one_dimensional_with_axis_is_flat():
    x = np.array([3.0, NAN, 1.0, NAN, 3.0])
    for axis in (0, -1):
        both(x, axis=axis, **ALL3)
        both(x, axis=axis, equal_nan=False, **ALL3)


def test_inverse_shapes():
    x = few_values("i2", (3, 4))
    _, inv = ad.unique(ad.asarray(x), return_inverse=True)
    assert inv.shape == (3, 4)
    _, inv = ad.unique(ad.asarray(x), return_inverse=True, axis=1)
    assert inv.shape == (4,)
    _, inv = ad.unique(ad.asarray(np.float32(5)), return_inverse=True)
    assert inv.shape == ()


@pytest.mark.parametrize("shape,axis", [((3, 0, 2), 0), ((3, 0, 2), 1),
                                        ((3, 0, 2), 2), ((0, 4), 0),
                                        ((0, 4), 1), ((0,), 0), ((2, 0), 0)])
def test_axis_empty(shape, axis):
    x = np.empty(shape, "f4")
    both(x, axis=axis)
    both(x, axis=axis, **ALL3)


def test_sorted_false_is_sorted():
    x = few_values("u1", (5, 4))
    same(ad.unique(ad.asarray(x), axis=0, sorted=False),
         np.unique(x, axis=0))


def test_axis_of_a_view():
    base = few_values("i4", (6, 10), seed=2)
    x = ad.asarray(base)[:, ::2].T
    both(base[:, ::2].T, axis=0, **ALL3)
    same(ad.unique(x, axis=1, return_counts=True),
         np.unique(base[:, ::2].T, axis=1, return_counts=True))


@pytest.mark.parametrize("shape,axis", [((2, 3), 2), ((2, 3), -3),
                                        ((3,), 1), ((), 0)])
def test_bad_axis(shape, axis):
    with pytest.raises(np.exceptions.AxisError):
        np.unique(np.zeros(shape), axis=axis)
    with pytest.raises(np.exceptions.AxisError):
        ad.unique(ad.zeros(shape), axis=axis)


def test_axis_not_an_integer():
    for axis in (1.0, "0"):
        with pytest.raises(TypeError):
            np.unique(np.zeros((2, 3)), axis=axis)
        with pytest.raises(TypeError):
            ad.unique(ad.zeros((2, 3)), axis=axis)
