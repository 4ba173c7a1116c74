"""Math ufuncs (exp .. heaviside) and compositions (round, clip, isclose,
...) against NumPy over the 14 dtypes, layouts and out=."""
from __future__ import annotations

import warnings

import numpy as np
import numpy.testing as npt
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, ids, sample

UNARY = ("exp exp2 expm1 log log2 log10 log1p sqrt cbrt square reciprocal "
         "sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh "
         "arctanh floor ceil trunc rint sign signbit fabs degrees radians "
         "isnan isinf isfinite conjugate").split()
BINARY = ("arctan2 hypot copysign nextafter fmax fmin fmod gcd lcm logaddexp "
          "logaddexp2 heaviside").split()
POSITIVE = {"log", "log2", "log10", "sqrt", "reciprocal", "arccosh"}
SMALL = {"arcsin", "arccos", "arctanh", "arctan", "arcsinh"}


def _input(name, dt, shape, seed=0):
    x = sample(dt, shape, seed=seed, positive=name in POSITIVE)
    if name in SMALL and dt.kind in "fc":
        x = (x / 10).astype(dt)
    if name == "arccosh" and dt.kind in "fc":
        x = (x + 1).astype(dt)
    return x


def _np(f, *args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args)


def _tol(dt):
    return 5e-3 if dt.char in "eFf" else None


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("name", UNARY)
def test_unary(name, dt):
    x = _input(name, dt, (3, 5))
    f = getattr(np, name)
    try:
        expected = _np(f, x[:, ::2])
    except TypeError:
        with pytest.raises(TypeError):
            getattr(ad, name)(ad.asarray(x))
        return
    got = getattr(ad, name)(ad.asarray(x)[:, ::2])  # non-contiguous
    check(got, expected, _tol(expected.dtype))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("name", BINARY)
def test_binary(name, dt):
    x = sample(dt, (3, 4))
    y = sample(dt, (4,), seed=1, positive=name == "fmod")
    f = getattr(np, name)
    try:
        expected = _np(f, x, y)
    except TypeError:
        with pytest.raises(TypeError):
            getattr(ad, name)(ad.asarray(x), ad.asarray(y))
        return
    got = getattr(ad, name)(ad.asarray(x), ad.asarray(y))  # broadcasting
    check(got, expected, _tol(expected.dtype))


@pytest.mark.parametrize("name", ["exp", "sqrt", "sign", "isnan", "floor"])
@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3)])
def test_unary_zero_d_and_empty(name, shape):
    x = sample("f4", shape, positive=True)
    check(getattr(ad, name)(ad.asarray(x)), getattr(np, name)(x))


def test_special_values():
    x = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.5])
    for name in ("isnan", "isinf", "isfinite", "signbit", "sign", "rint",
                 "floor", "ceil", "trunc", "fabs", "exp", "expm1", "log1p"):
        check(getattr(ad, name)(ad.asarray(x)), _np(getattr(np, name), x))
    y = np.array([1.0, np.nan, -1.0, 0.0, np.inf, -0.0, 2.0])
    for name in ("fmax", "fmin", "copysign", "nextafter", "hypot",
                 "arctan2", "heaviside", "logaddexp"):
        check(getattr(ad, name)(ad.asarray(x), ad.asarray(y)),
              _np(getattr(np, name), x, y))


@pytest.mark.parametrize("name", ["arcsin", "arccos", "arctanh", "arctan",
                                  "arcsinh"])
def test_complex_branch_cuts(name):
    z = np.zeros(4, "c16")
    z.real = [2.0, -2.0, 0.0, 0.0]
    z.imag = [0.0, 0.0, 2.0, -2.0]
    check(getattr(ad, name)(ad.asarray(z)), getattr(np, name)(z))


def test_int_to_smallest_float():
    for dt, want in (("i1", "f2"), ("u1", "f2"), ("i2", "f4"), ("i4", "f8"),
                     ("?", "f2")):
        assert ad.exp(ad.ones(3, dt)).dtype == np.dtype(want)


def test_python_scalars_and_aliases():
    x = sample("f4", (5,))
    check(ad.arctan2(ad.asarray(x), 2.0), np.arctan2(x, 2.0))
    check(ad.hypot(3, ad.asarray(x)), np.hypot(3, x))
    check(ad.atan2(ad.asarray(x), 1), np.atan2(x, 1))
    check(ad.conj(ad.asarray(x.astype("c8"))), np.conj(x.astype("c8")))
    check(ad.asin(ad.asarray(x / 10)), np.asin(x / 10))
    check(ad.pow(ad.asarray(x), 2), np.pow(x, 2))
    check(ad.sqrt(4.0), np.sqrt(4.0))


def test_numpy_dispatch():
    x = sample("f8", (4,), positive=True)
    check(np.log(ad.asarray(x)), np.log(x))
    check(np.hypot(ad.asarray(x), x), np.hypot(x, x))


def test_out():
    x = sample("f4", (2, 3), positive=True)
    out = ad.zeros((2, 3), "f8")
    r = ad.sqrt(ad.asarray(x), out=out)
    assert r is out
    check(out, np.sqrt(x).astype("f8"))
    out2 = ad.zeros((2, 3), "i4")
    with pytest.raises(TypeError):  # float -> int is not same_kind
        ad.sqrt(ad.asarray(x), out=out2)
    with pytest.raises(ValueError):
        ad.fmax(ad.asarray(x), 1.0, out=ad.zeros((3,), "f4"))
    o = ad.zeros((2, 3), "f4")
    ad.arctan2(ad.asarray(x), ad.asarray(x), out=(o,))
    check(o, np.arctan2(x, x))


def test_bad_inputs():
    with pytest.raises(TypeError):
        ad.gcd(ad.ones(3, "f4"), ad.ones(3, "f4"))
    with pytest.raises(TypeError):
        ad.floor(ad.ones(3, "c8"))
    with pytest.raises(ValueError):
        ad.hypot(ad.ones(3), ad.ones(4))


# -- compositions -------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("decimals", [0, 1, -1])
def test_round(dt, decimals):
    x = sample(dt, (7,))
    if dt.kind in "fc":
        x = (x * 13.37).astype(dt)
    else:
        x = (x * 7).astype(dt)
    if dt.kind == "b" and decimals:
        with pytest.raises(TypeError):  # NumPy: multiply into bool
            ad.round(ad.asarray(x), decimals)
        return
    check(ad.round(ad.asarray(x), decimals), np.round(x, decimals),
          _tol(dt))
    check(ad.around(ad.asarray(x), decimals), np.around(x, decimals),
          _tol(dt))


def test_round_half_even_and_out():
    x = np.array([0.5, 1.5, 2.5, -0.5, 0.25, 0.35])
    check(ad.round(ad.asarray(x)), np.round(x))
    check(ad.round(ad.asarray(x), 1), np.round(x, 1))
    out = ad.zeros(6)
    assert ad.round(ad.asarray(x), 1, out=out) is out
    check(out, np.round(x, 1))
    check(ad.asarray(x).round(1), x.round(1))


@pytest.mark.parametrize("dt", [d for d in ALL_DTYPES if d.kind != "c"],
                         ids=ids)
def test_clip(dt):
    x = sample(dt, (3, 4))
    check(ad.clip(ad.asarray(x), 1, 3), np.clip(x, 1, 3))
    check(ad.clip(ad.asarray(x), None, 2), np.clip(x, None, 2))
    lo = sample(dt, (4,), seed=3)
    check(ad.clip(ad.asarray(x), ad.asarray(lo), None), np.clip(x, lo, None))


def test_clip_dtype_rules():
    x = np.arange(-3, 4, dtype="i1")
    check(ad.clip(ad.asarray(x), 0, 1000), np.clip(x, 0, 1000))
    check(ad.clip(ad.asarray(x), -1.5, 1.5), np.clip(x, -1.5, 1.5))
    u = np.arange(5, dtype="u1")
    check(ad.clip(ad.asarray(u), -1, 2), np.clip(u, -1, 2))
    f = np.array([np.nan, -5.0, 5.0], "f4")
    check(ad.clip(ad.asarray(f), -1, 1), np.clip(f, -1, 1))
    out = ad.zeros(3, "f4")
    assert ad.clip(ad.asarray(f), -1, 1, out=out) is out
    check(out, np.clip(f, -1, 1))
    check(ad.asarray(f).clip(0, 1), f.clip(0, 1))


@pytest.mark.parametrize("dt", ["f2", "f4", "f8", "c8", "c16", "i4", "?"])
def test_nan_to_num(dt):
    x = np.array([np.nan, np.inf, -np.inf, 1.5, -2.0])
    if np.dtype(dt).kind == "c":
        x = x + 1j * x[::-1]
    if np.dtype(dt).kind in "fc":
        x = x.astype(dt)
    else:
        x = np.arange(5).astype(dt)
    check(ad.nan_to_num(ad.asarray(x)), np.nan_to_num(x))
    check(ad.nan_to_num(ad.asarray(x), nan=7.0, posinf=1.0, neginf=-1.0),
          np.nan_to_num(x, nan=7.0, posinf=1.0, neginf=-1.0))


def test_nan_to_num_in_place():
    x = np.array([np.nan, 1.0, np.inf])
    a = ad.asarray(x)
    r = ad.nan_to_num(a, copy=False)
    assert r is a
    check(a, np.nan_to_num(x))


def test_isclose_allclose_array_equal():
    a = np.array([1.0, 1.0 + 1e-9, np.nan, np.inf, 2.0])
    b = np.array([1.0, 1.0, np.nan, np.inf, 2.1])
    check(ad.isclose(ad.asarray(a), ad.asarray(b)), np.isclose(a, b))
    check(ad.isclose(ad.asarray(a), ad.asarray(b), equal_nan=True),
          np.isclose(a, b, equal_nan=True))
    check(ad.isclose(ad.asarray(a), 1), np.isclose(a, 1))
    i = np.arange(5, dtype="i1")
    check(ad.isclose(ad.asarray(i), ad.asarray(i)), np.isclose(i, i))
    assert ad.allclose(ad.asarray(a[:2]), ad.asarray(b[:2])) is True
    assert ad.allclose(ad.asarray(a), ad.asarray(b)) is False
    assert ad.array_equal(ad.asarray(a), ad.asarray(a)) is False
    assert ad.array_equal(ad.asarray(a), ad.asarray(a), equal_nan=True)
    assert ad.array_equal(ad.asarray(i), ad.asarray(i))
    assert not ad.array_equal(ad.asarray(i), ad.asarray(i[:3]))
    assert ad.array_equal(ad.zeros((0, 2)), ad.zeros((0, 2)))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_real_imag_angle(dt):
    x = sample(dt, (2, 3))
    check(ad.real(ad.asarray(x)), np.real(x))
    check(ad.imag(ad.asarray(x)), np.imag(x))
    check(ad.angle(ad.asarray(x)), np.angle(x), _tol(np.angle(x).dtype))
    check(ad.angle(ad.asarray(x), deg=True), np.angle(x, deg=True),
          _tol(np.angle(x).dtype))


def test_real_imag_views():
    z = np.array([1 + 2j, 3 - 4j], "c16")
    a = ad.asarray(z)
    re = ad.real(a)
    re[...] = 9.0
    z.real[...] = 9.0
    check(a, z)
    ad.imag(a)[0] = -1.0
    z.imag[0] = -1.0
    check(a, z)
    with pytest.raises(ValueError):
        r = ad.imag(ad.ones(3))
        r[0] = 1.0
        ad.synchronize()


def test_float_power():
    x = sample("i4", (5,), positive=True)
    check(ad.float_power(ad.asarray(x), 2), np.float_power(x, 2))
    check(ad.float_power(ad.asarray(x.astype("c8")), 0.5),
          np.float_power(x.astype("c8"), 0.5))
    check(ad.float_power(2, ad.asarray(x)), np.float_power(2, x))
