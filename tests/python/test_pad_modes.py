"""numpy.pad's modes on arrayd: every mode and keyword (stat_length,
end_values, constant_values, reflect_type, a callable), NumPy's per-axis
broadcasting of each argument, dtypes (integer means rounded as NumPy
does), layouts, and NumPy's exceptions."""
from __future__ import annotations

import warnings

import arrayd as ad
import numpy as np
import numpy.testing as npt
import pytest
from helpers import ALL_DTYPES, sample

MODES = ["constant", "edge", "linear_ramp", "maximum", "minimum", "mean",
         "median", "reflect", "symmetric", "wrap"]
WIDTHS = [0, 2, (1, 3), ((1, 0), (0, 2)), ((4, 6), (7, 2))]


def same(got, expected, mode="constant"):
    """Same dtype and shape; values exact, but for float means and
    medians (their sums may round in another order)."""
    assert isinstance(got, ad.ndarray), type(got)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    g = got.get()
    if mode in ("mean", "median") and expected.dtype.kind in "fc":
        tol = 2e-3 if expected.dtype.char in "eF" or \
            expected.dtype.char == "f" else 1e-12
        npt.assert_allclose(g, expected, rtol=tol, atol=tol, equal_nan=True)
    else:
        npt.assert_array_equal(g, expected)


def both(x, *args, **kw):
    """(arrayd result, numpy result) of pad with NumPy's warnings off."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return ad.pad(ad.asarray(x), *args, **kw), np.pad(x, *args, **kw)


def values(dtype, shape, seed=0):
    """Values with distinct maxima, means that are not integers, ..."""
    x = sample(dtype, shape, seed)
    if x.dtype.kind in "iu":
        x = (x * 7 + np.arange(x.size).reshape(shape) % 5).astype(dtype)
    return x


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_mode_and_dtype(mode, dtype):
    x = values(dtype, (3, 4), 1)
    for w in WIDTHS:
        if dtype.kind == "b" and mode in ("reflect", "symmetric"):
            kws = [{}]
        elif mode in ("reflect", "symmetric"):
            kws = [{}, {"reflect_type": "odd"}]
        else:
            kws = [{}]
        for kw in kws:
            got, exp = both(x, w, mode, **kw)
            try:
                same(got, exp, mode)
            except AssertionError as e:
                raise AssertionError(f"{mode} {w} {kw}: {e}") from None


@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean", "median"])
@pytest.mark.parametrize("dtype", ["i2", "u1", "f4", "f8", "c16"])
def test_stat_length(mode, dtype):
    x = values(dtype, (5, 7), 2)
    for w, sl in [(2, 1), (2, 2), ((1, 3), (2, 4)), (((1, 2), (3, 4)),
                                                     ((2, 4), (3, 5))),
                  (3, None), (3, 100), ((2, 1), 2.6), (((1, 1), (2, 0)),
                                                      [[1], [3]])]:
        if dtype[0] == "c" and mode in ("maximum", "minimum", "median"):
            continue
        got, exp = both(x, w, mode, stat_length=sl)
        same(got, exp, mode)


@pytest.mark.parametrize("dtype", ["i1", "i8", "u2"])
def test_integer_mean_rounds_to_even(dtype):
    # Means of 0.5, 2.5, 3.5 (NumPy rounds half to even before the cast).
    x = np.array([[0, 1, 2, 3], [2, 3, 4, 3], [3, 4, 6, 7]], dtype)
    for sl in (2, 3, None):
        for mode in ("mean", "median"):
            got, exp = both(x, 2, mode, stat_length=sl)
            same(got, exp)


@pytest.mark.parametrize("dtype", ["i4", "u1", "f2", "f4", "f8", "c8"])
def test_linear_ramp_end_values(dtype):
    x = values(dtype, (3, 5), 3)
    if dtype[0] == "u":
        x = x + 20
    for w, ev in [(3, 0), (3, 2), ((2, 4), (5, 1)),
                  (((1, 2), (3, 4)), ((1, 2), (3, 4))), (4, 1.5),
                  (2, np.float32(2.5)), (((3, 0), (0, 3)), [[7], [8]])]:
        got, exp = both(x, w, "linear_ramp", end_values=ev)
        same(got, exp)


def test_linear_ramp_complex_end_values():
    x = np.arange(1.0, 6.0)
    got, exp = both(x.astype("c16"), 3, "linear_ramp",
                    end_values=(1 + 2j, -3j))
    same(got, exp)
    with pytest.raises(TypeError):  # NumPy: no floor of complex ramps
        ad.pad(ad.arange(3), 2, "linear_ramp", end_values=1j)


@pytest.mark.parametrize("dtype", ["i4", "u1", "f4", "c16", "?"])
def test_constant_values(dtype):
    x = values(dtype, (2, 3), 4)
    for w, cv in [(2, 3), (2, (4, 5)), (((1, 2), (3, 1)), ((1, 2), (3, 4))),
                  (1, [[6], [7]]), (2, 1.75), (1, np.float64(9.5))]:
        if dtype == "u1" and isinstance(cv, float):
            continue
        got, exp = both(x, w, "constant", constant_values=cv)
        same(got, exp)


def test_constant_values_cast_like_numpy():
    x = np.arange(3, dtype=np.uint8)
    # One pair: NumPy scalars, cast (wrapping) as NumPy's setitem does.
    same(*both(x, 1, constant_values=[[-1, 300]]))
    # A broadcast array: Python ints, out of range for uint8.
    y = np.zeros((2, 3), np.uint8)
    with pytest.raises(OverflowError):
        np.pad(y, 1, constant_values=[[-1, 3], [4, 5]])
    with pytest.raises(OverflowError):
        ad.pad(ad.asarray(y), 1, constant_values=[[-1, 3], [4, 5]])
    with pytest.warns(np.exceptions.ComplexWarning):
        got = ad.pad(ad.zeros(2), 1, constant_values=np.complex128(2 + 1j))
    npt.assert_array_equal(got.get(), [2, 0, 0, 2])


def test_reflect_type_other_than_odd_is_even():
    x = np.arange(5)
    same(*both(x, 7, "reflect", reflect_type="nonsense"))
    same(*both(x, 12, "symmetric", reflect_type="odd"))
    same(*both(x, (13, 2), "wrap"))


def test_callable_mode():
    def tens(vector, width, axis, kwargs):
        vector[:width[0]] = 10 + axis + kwargs.get("extra", 0)
        vector[vector.shape[0] - width[1]:] = -1

    for dtype in ("i4", "f8", "c8"):
        x = values(dtype, (2, 3), 5)
        for w in (2, ((1, 0), (2, 3))):
            same(ad.pad(ad.asarray(x), w, tens), np.pad(x, w, tens))
            same(ad.pad(ad.asarray(x), w, tens, extra=5),
                 np.pad(x, w, tens, extra=5))


@pytest.mark.parametrize("mode", MODES + ["empty"])
def test_layouts_and_shapes(mode):
    x = values("f8", (4, 6), 6)
    for src, arr in [(x.T, ad.asarray(x).T), (x[::2, 1::2],
                                             ad.asarray(x)[::2, 1::2])]:
        got = ad.pad(arr, ((1, 2), (3, 0)), mode)
        exp = np.pad(src, ((1, 2), (3, 0)), mode)
        if mode == "empty":
            got, exp = got[1:-2, 3:], exp[1:-2, 3:]
        same(got, exp, mode)
    # NumPy keeps the F order of an F-ordered input.
    f = ad.asarray(np.asfortranarray(x))
    assert ad.pad(f, 1, mode).flags.f_contiguous
    assert ad.pad(ad.asarray(x), 1, mode).flags.c_contiguous
    for shape in ((), (1,), (3,), (2, 1, 3)):
        y = values("i8", shape, 7)
        if mode == "empty":
            continue
        same(*both(y, 2, mode), mode)


def test_empty_arrays():
    e = np.zeros((0, 3))
    same(*both(e, 1, "constant", constant_values=2))
    same(*both(e, ((0, 0), (1, 1)), "edge"))
    same(*both(e, ((0, 0), (2, 1)), "maximum"))
    for mode in ("edge", "reflect", "mean", "linear_ramp", "wrap"):
        with pytest.raises(ValueError, match="can't extend empty axis 0"):
            ad.pad(ad.asarray(e), 1, mode)


def test_errors_like_numpy():
    x = np.arange(6.0).reshape(2, 3)
    a = ad.asarray(x)
    cases = [((x, []), TypeError), ((x, 1.5), TypeError),
             ((x, np.array([1], np.uint8)), TypeError),
             ((x, -1), ValueError), ((x, [[1, -2]]), ValueError),
             ((x, [[1, 2, 3]]), ValueError), ((x, [[1, 2]] * 3), ValueError),
             ((x, 1, "bogus"), ValueError)]
    for (arr, *rest), exc in cases:
        with pytest.raises(exc) as e_np:
            np.pad(arr, *rest)
        with pytest.raises(exc) as e_ad:
            ad.pad(a, *rest)
        assert str(e_ad.value) == str(e_np.value)
    for mode, kw in [("edge", {"constant_values": 1}),
                     ("constant", {"stat_length": 1}),
                     ("mean", {"end_values": 1}),
                     ("linear_ramp", {"reflect_type": "odd"}),
                     ("maximum", {"stat_length": 0}),
                     ("minimum", {"stat_length": ((1, 0), (1, 1))}),
                     ("median", {"stat_length": -1})]:
        with pytest.raises(ValueError) as e_np:
            np.pad(x, 1, mode, **kw)
        with pytest.raises(ValueError) as e_ad:
            ad.pad(a, 1, mode, **kw)
        assert str(e_ad.value) == str(e_np.value)
