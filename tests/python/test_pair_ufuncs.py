"""divmod, modf, frexp, ldexp (NumPy's two-output and mixed-type ufuncs,
composed of arrayd's ufuncs), and float_power's dtype=, against NumPy."""
from __future__ import annotations

import arrayd as ad
import numpy as np
import pytest


def _eq(got, want):
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("dtype", ["i1", "u2", "i8", "f4", "f8"])
def test_divmod(dtype):
    a = np.array([-7, -3, 0, 3, 7, 9]).astype(dtype)
    b = np.array([2, 3, 5, 2, 4, 3], dtype)
    q, r = ad.divmod(ad.asarray(a), ad.asarray(b))
    eq, er = np.divmod(a, b)
    _eq(q, eq)
    _eq(r, er)
    q2, r2 = divmod(ad.asarray(a), 3)
    _eq(q2, a // 3)
    _eq(r2, a % 3)
    q3, r3 = divmod(10, ad.asarray(b))
    _eq(q3, 10 // b)
    _eq(r3, 10 % b)
    out = (ad.empty(6, q.dtype), ad.empty(6, r.dtype))
    res = ad.divmod(ad.asarray(a), ad.asarray(b), out)
    assert res[0] is out[0] and res[1] is out[1]
    _eq(out[0], eq)


@pytest.mark.parametrize("dtype", ["f2", "f4", "f8", "i4"])
def test_modf(dtype):
    x = np.array([1.5, -2.25, 0.0, -0.0, 7, -3], dtype)
    if dtype[0] == "f":
        x = np.concatenate([x, np.array([np.inf, -np.inf, np.nan], dtype)])
    f, w = ad.modf(ad.asarray(x))
    ef, ew = np.modf(x)
    _eq(f, ef)
    _eq(w, ew)
    assert np.array_equal(np.signbit(f.get()), np.signbit(ef))


@pytest.mark.parametrize("dtype", ["f4", "f8"])
def test_frexp(dtype):
    vals = [0.0, -0.0, 1.0, 0.5, 3.0, -0.1, 1024.0, 1023.9999, 7e-39,
            np.inf, -np.inf, np.nan, np.finfo(dtype).max,
            np.finfo(dtype).tiny, np.nextafter(np.array(2, dtype), 0)]
    x = np.array(vals, dtype)
    m, e = ad.frexp(ad.asarray(x))
    em, ee = np.frexp(x)
    _eq(m, em)
    _eq(e, ee)


def test_ldexp():
    x = np.array([1.5, -3.0, 1e-300, 2.0, 0.0], np.float64)
    n = np.array([3, -2, 1000, -1074, 5], np.int32)
    _eq(ad.ldexp(ad.asarray(x), ad.asarray(n)), np.ldexp(x, n))
    _eq(ad.ldexp(ad.asarray(x.astype("f4")), 2), np.ldexp(x.astype("f4"), 2))
    _eq(ad.ldexp(ad.arange(3), 2), np.ldexp(np.arange(3), 2))
    with pytest.raises(TypeError):
        ad.ldexp(ad.asarray(x), ad.asarray(x))


def test_float_power_dtype():
    a = np.arange(4, dtype=np.int8)
    _eq(ad.float_power(ad.asarray(a), 2, dtype=np.complex128),
        np.float_power(a, 2, dtype=np.complex128))
    with pytest.raises(TypeError):
        ad.float_power(ad.asarray(a), 2, dtype=np.float32)


def test_deg2rad_rad2deg():
    x = np.array([0.0, 90.0, -180.0, 360.0])
    np.testing.assert_allclose(ad.deg2rad(ad.asarray(x)).get(), np.deg2rad(x))
    np.testing.assert_allclose(ad.rad2deg(ad.asarray(x)).get(), np.rad2deg(x))


def test_float64_to_float16_rounds_once():
    # Through float32 would round twice: 1904.50002 -> 1904.5f -> 1904.
    rng = np.random.default_rng(0)
    x = np.concatenate([
        np.array([1904.50002, 65519.99, 65520.0, 2.0**-25, 2.0**-25 * 1.0001,
                  -2.0**-24 * 1.5, 6.1e-5, 1e-8, np.inf, -np.inf, np.nan]),
        rng.uniform(-70000, 70000, 2000),
        rng.uniform(-1, 1, 2000) * 2.0 ** rng.integers(-30, 0, 2000)])
    got = ad.asarray(x).astype(np.float16).get()
    want = x.astype(np.float16)
    np.testing.assert_array_equal(got.view(np.uint16)[~np.isnan(want)],
                                  want.view(np.uint16)[~np.isnan(want)])
    assert np.isnan(got[np.isnan(want)]).all()
