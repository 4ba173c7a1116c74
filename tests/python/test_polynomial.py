"""Polynomials against NumPy: poly1d (construction, attributes, arithmetic,
calls, deriv/integ, repr/str, item access), poly polyadd polysub polymul
polydiv polyval polyder polyint polyfit roots vander."""
from __future__ import annotations

import warnings

import arrayd as ad
import numpy as np
import numpy.testing as npt
import pytest
from helpers import ALL_DTYPES, check, ids, sample

NUMERIC = [d for d in ALL_DTYPES if d.kind != "b"]


def _np(f, *a, **k):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


def _tol(dt):
    c = np.dtype(dt).char
    return 1e-2 if c in "e" else 1e-5 if c in "fF" else 1e-10


def check_poly(got, want, tol=None):
    assert isinstance(got, ad.poly1d), type(got)
    assert isinstance(want, np.poly1d)
    assert got.variable == want.variable
    check(got.coeffs, want.coeffs, tol)


def coeffs(dt, n=5, seed=0):
    c = sample(dt, n, seed)
    c[0] = 3 if np.dtype(dt).kind != "b" else True  # no leading zero
    return c


# -- poly1d -------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_poly1d_construction(dt):
    c = coeffs(dt)
    for src in (c, ad.asarray(c)):
        check_poly(ad.poly1d(src), np.poly1d(c))
        check_poly(ad.poly1d(src, variable="z"), np.poly1d(c, variable="z"))
    z = np.concatenate([np.zeros(2, dt), c])
    check_poly(ad.poly1d(ad.asarray(z)), np.poly1d(z))
    check_poly(ad.poly1d(ad.zeros(3, dt)), np.poly1d(np.zeros(3, dt)))
    check_poly(ad.poly1d(ad.zeros(0, dt)), np.poly1d(np.zeros(0, dt)))
    check_poly(ad.poly1d(ad.asarray(c[0])), np.poly1d(c[0]))
    p = ad.poly1d(ad.asarray(c), variable="t")
    check_poly(ad.poly1d(p), np.poly1d(np.poly1d(c, variable="t")))
    check_poly(ad.poly1d(p, variable="s"), np.poly1d(c, variable="s"))
    check_poly(ad.poly1d(np.poly1d(c, variable="q")),
               np.poly1d(c, variable="q"))
    assert p.order == np.poly1d(c).order == len(p)
    assert p.coeffs is p.c is p.coef is p.coefficients
    with pytest.raises(ValueError):
        ad.poly1d(ad.ones((2, 2), dt))
    with pytest.raises(AttributeError):
        p.coeffs = ad.ones(3)


def test_poly1d_from_roots():
    r = np.array([1.0, -2.0, 3.5])
    check_poly(ad.poly1d(ad.asarray(r), True), np.poly1d(r, True))
    check_poly(ad.poly1d([1j, -1j], r=True), np.poly1d([1j, -1j], r=True))


@pytest.mark.parametrize("dt", NUMERIC, ids=ids)
def test_poly1d_arithmetic(dt):
    a, b = coeffs(dt, 5, 1), coeffs(dt, 3, 2)
    P, Q = np.poly1d(a), np.poly1d(b)
    p, q = ad.poly1d(ad.asarray(a)), ad.poly1d(ad.asarray(b))
    tol = _tol(dt)
    for f in (lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y,
              lambda x, y: y - x, lambda x, y: x + 2, lambda x, y: 2 - x,
              lambda x, y: x * 3, lambda x, y: 1.5 * x, lambda x, y: -x,
              lambda x, y: +x, lambda x, y: x ** 2, lambda x, y: x ** 0,
              lambda x, y: x / 2.0, lambda x, y: x + [1, 2]):
        check_poly(f(p, q), _np(f, P, Q), tol)
    if np.dtype(dt).kind in "fc":
        for got, want in zip(p / q, _np(lambda: P / Q)):
            check_poly(got, want, tol)
    for bad in (-1, 2.5, [1, 2]):
        with pytest.raises(ValueError):
            p ** bad
    with pytest.raises(TypeError):
        p ** 2.0


def test_poly1d_array_operands():
    # NumPy's operators take a poly1d on the right of an array (or a NumPy
    # scalar) as its coefficients, elementwise.
    c = np.array([1.0, 2.0, 3.0])
    p, P = ad.poly1d(ad.asarray(c)), np.poly1d(c)
    x = np.array([4.0, 5.0, 6.0])
    check(ad.asarray(x) + p, x + P)
    check(ad.asarray(x) * p, x * P)
    check(ad.asarray(x) - p, x - P)
    check(ad.asarray(x) / p, x / P)
    check(np.float64(2) * p, np.float64(2) * P)
    check(np.float32(2) - p, np.float32(2) - P)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_poly1d_call_deriv_integ(dt):
    c = coeffs(dt)
    P, p = np.poly1d(c), ad.poly1d(ad.asarray(c))
    x = sample(dt, (2, 3), 5)
    check(p(ad.asarray(x)), _np(P, x), _tol(P(x).dtype))
    check(p(ad.asarray(np.float32(1.5))), np.asarray(_np(P, np.float32(1.5))),
          _tol(P(np.float32(1.5)).dtype))
    if np.dtype(dt).kind != "b":
        check_poly(p(ad.poly1d([1, 1])), _np(P, np.poly1d([1, 1])),
                   _tol(dt))
        check_poly(p.deriv(), P.deriv())
        check_poly(p.deriv(3), P.deriv(3))
        check_poly(p.deriv(0), P.deriv(0))
        check_poly(p.integ(), _np(P.integ), _tol("f8"))
        check_poly(p.integ(2, k=[1, 2]), _np(P.integ, 2, k=[1, 2]),
                   _tol("f8"))
        check_poly(p.integ(3, k=5), _np(P.integ, 3, k=5), _tol("f8"))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_poly1d_repr_str_items(dt):
    c = np.concatenate([np.zeros(1, dt), coeffs(dt)])
    P, p = np.poly1d(c), ad.poly1d(ad.asarray(c))
    assert repr(p) == repr(P)
    assert str(p) == str(P)
    for k in (0, 2, P.order, P.order + 3, -1):
        g, w = p[k], P[k]
        npt.assert_array_equal(np.asarray(g.get() if hasattr(g, "get")
                                          else g), w)
    assert p == ad.poly1d(ad.asarray(c))
    assert (p != ad.poly1d(ad.asarray(c))) is False
    assert (p == ad.poly1d([1, 2])) is False
    assert [x.item() for x in p] == list(P)
    g = p.get()
    assert isinstance(g, np.poly1d) and g == P


@pytest.mark.parametrize("dt", NUMERIC, ids=ids)
def test_poly1d_setitem(dt):
    c = coeffs(dt)
    P, p = np.poly1d(c.copy()), ad.poly1d(ad.asarray(c))
    P[1], p[1] = 7, 7
    P[8], p[8] = 2, 2
    check_poly(p, P)
    with pytest.raises(ValueError):
        p[-1] = 3
    q = ad.poly1d(ad.asarray(coeffs(dt, 9)))
    q.set(np.poly1d(np.ones(9, dt), variable="w"))
    check_poly(q, np.poly1d(np.ones(9, dt), variable="w"))


# -- the functions ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["polyadd", "polysub", "polymul"])
@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("n1,n2", [(5, 3), (3, 5), (4, 4), (1, 0), (0, 3)])
def test_poly_arithmetic_functions(name, dt, n1, n2):
    a, b = sample(dt, n1, 1), sample(dt, n2, 2)
    f, g = getattr(ad, name), getattr(np, name)
    try:
        want = _np(g, a, b)
    except TypeError:
        with pytest.raises(TypeError):
            f(ad.asarray(a), ad.asarray(b))
        return
    check(f(ad.asarray(a), ad.asarray(b)), want, _tol(want.dtype))
    if n1 and n2 and np.dtype(dt).kind != "b":
        check_poly(f(ad.poly1d(coeffs(dt, n1)), b),
                   _np(g, np.poly1d(coeffs(dt, n1)), b), _tol(want.dtype))


def test_poly_arithmetic_mixed_and_bad():
    a, b = sample("i2", 6), sample("f4", 3)
    for name in ("polyadd", "polysub", "polymul"):
        want = getattr(np, name)(a, b)
        check(getattr(ad, name)(ad.asarray(a), ad.asarray(b)), want,
              _tol(want.dtype))
        check(getattr(ad, name)(ad.asarray(a), 3),
              getattr(np, name)(a, 3))
        with pytest.raises(ValueError):
            getattr(ad, name)(ad.ones((2, 3, 4)), ad.ones((10, 5)))


@pytest.mark.parametrize("dt", NUMERIC, ids=ids)
def test_polydiv(dt):
    u = coeffs(dt, 6, 1).astype(np.result_type(dt, 1.0))
    v = coeffs(dt, 3, 2)
    for got, want in zip(ad.polydiv(ad.asarray(u), ad.asarray(v)),
                         _np(np.polydiv, u, v)):
        check(got, want, _tol(want.dtype))
    # An exact division leaves the remainder [0].
    prod = np.polymul(v, [1, 2])
    for got, want in zip(ad.polydiv(prod, v), _np(np.polydiv, prod, v)):
        check(got, want, _tol(want.dtype))


@pytest.mark.parametrize("d1", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("d2", ["?", "i4", "f4", "c16"], ids=ids)
def test_polyval(d1, d2):
    p, x = sample(d1, 6, 1), sample(d2, (3, 2), 2)
    want = _np(np.polyval, p, x)
    check(ad.polyval(ad.asarray(p), ad.asarray(x)), want, _tol(want.dtype))
    want = _np(np.polyval, p, 3)
    check(ad.polyval(ad.asarray(p), 3), np.asarray(want), _tol(want.dtype))
    want = _np(np.polyval, p[:0], x)
    check(ad.polyval(ad.asarray(p[:0]), ad.asarray(x)), want)
    with pytest.raises(TypeError):
        ad.polyval(ad.asarray(p[0]), ad.asarray(x))


@pytest.mark.parametrize("dt", NUMERIC, ids=ids)
def test_polyder_polyint(dt):
    c = sample(dt, 6, 3)
    a = ad.asarray(c)
    for m in (0, 1, 2, 6):
        want = np.polyder(c, m)
        check(ad.polyder(a, m), want)
    for m, k in ((0, None), (1, None), (2, 3), (3, [1, 2, 3])):
        want = _np(np.polyint, c, m, k)
        check(ad.polyint(a, m, k), want, _tol(want.dtype))
    with pytest.raises(ValueError):
        ad.polyder(a, -1)
    with pytest.raises(ValueError):
        ad.polyint(a, -1)
    with pytest.raises(ValueError):
        ad.polyint(a, 3, [1, 2])


@pytest.mark.parametrize("dt", NUMERIC, ids=ids)
def test_poly(dt):
    z = sample(dt, 4, 4)
    want = _np(np.poly, z)
    check(ad.poly(ad.asarray(z)), want, 1e-3 if want.dtype.char in "eFf"
          else 1e-10)
    assert ad.poly(ad.zeros(0, dt)) == np.poly(np.zeros(0, dt))


def test_poly_matrix_and_conjugates():
    m = np.array([[6.0, 3, 1], [3, 0, 5], [1, 5, 6]])
    check(ad.poly(ad.asarray(m)), np.poly(m), 1e-10)
    h = np.array([[2, -1j], [1j, 1]])
    check(ad.poly(ad.asarray(h)), np.poly(h), 1e-10)
    for z in ([1 + 2j, 1 - 2j, 3], [1j, 2j]):
        check(ad.poly(ad.asarray(np.array(z))), np.poly(z), 1e-12)
    for bad in (np.ones((2, 3)), np.ones((2, 2, 2))):
        with pytest.raises(ValueError):
            ad.poly(ad.asarray(bad))


@pytest.mark.parametrize("c", [[1.0, -3, 2], [2, -1, -2], [1, 0, 0],
                               [0, 0, 5, 10, 0], [5], [0, 0], [3, 0],
                               [1j, 2, -1j], [3 + 2j, 5]])
def test_roots(c):
    c = np.array(c)
    want = np.sort(np.roots(c))
    got = ad.roots(ad.asarray(c))
    assert got.dtype == want.dtype and got.shape == want.shape
    npt.assert_allclose(np.sort(got.get()), want, rtol=1e-10, atol=1e-12)
    got = ad.roots(ad.poly1d(ad.asarray(c)))
    npt.assert_allclose(np.sort(got.get()), np.sort(np.roots(np.poly1d(c))),
                        rtol=1e-10, atol=1e-12)


def test_roots_edge_cases():
    check(ad.roots(ad.zeros(0)), np.roots(np.zeros(0)))
    check(ad.roots(ad.asarray(np.array([0, 4, 2], "i1"))),
          np.roots(np.array([0, 4, 2], "i1")))
    with pytest.raises(ValueError):
        ad.roots(ad.ones((3, 1)))
    with pytest.raises(TypeError):
        ad.roots(ad.asarray(np.float64(2)))
    with pytest.raises(TypeError):
        ad.roots(ad.ones(3, "f2"))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_vander(dt):
    x = sample(dt, 5)
    a = ad.asarray(x)
    for kw in ({}, {"N": 3}, {"N": 1}, {"N": 0}, {"increasing": True},
               {"N": 7, "increasing": True}):
        check(ad.vander(a, **kw), np.vander(x, **kw))
    check(ad.vander([1, 2, 3]), np.vander([1, 2, 3]))
    with pytest.raises(ValueError):
        ad.vander(ad.ones((2, 2), dt))
    with pytest.raises(ValueError):
        ad.vander(a, -1)


# -- polyfit ----------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["i4", "f4", "f8", "c16"], ids=ids)
@pytest.mark.parametrize("deg", [0, 1, 3, 3.5])
def test_polyfit(dt, deg):
    x = np.linspace(-1, 2, 12).astype(dt)
    y = (np.cos(3 * x.real) * 4).astype(dt)
    y2 = np.stack([y, np.sin(x.real).astype(dt)], 1)
    w = np.linspace(0.5, 2, 12)
    a = ad.asarray(x)
    tol = 1e-3 if np.dtype(dt).char in "fF" else 1e-8
    for yy in (y, y2):
        for kw in ({}, {"w": w}, {"rcond": 1e-3}):
            want = np.polyfit(x, yy, deg, **kw)
            got = ad.polyfit(a, ad.asarray(yy),
                             deg, **{k: ad.asarray(v) if k == "w" else v
                                     for k, v in kw.items()})
            check(got, want, tol)
        got = ad.polyfit(a, ad.asarray(yy), deg, full=True)
        want = np.polyfit(x, yy, deg, full=True)
        for i in (0, 1, 3):
            check(got[i], want[i], tol)
        assert got[2] == want[2] and got[4] == want[4]
        for cov in (True, "unscaled"):
            got = ad.polyfit(a, ad.asarray(yy), deg, cov=cov)
            want = np.polyfit(x, yy, deg, cov=cov)
            check(got[0], want[0], tol)
            check(got[1], want[1], 1e-2 if tol > 1e-6 else 1e-6)


def test_polyfit_warnings_and_errors():
    x = ad.arange(5.0)
    with pytest.warns(np.exceptions.RankWarning):
        ad.polyfit(x, x, 6)
    with pytest.raises(ValueError):
        ad.polyfit(x, x, -1)
    with pytest.raises(TypeError):
        ad.polyfit(x, x, 2j)
    with pytest.raises(TypeError):
        ad.polyfit(ad.ones((5, 2)), x, 2)
    with pytest.raises(TypeError):
        ad.polyfit(ad.zeros(0), ad.zeros(0), 2)
    with pytest.raises(TypeError):
        ad.polyfit(x, ad.ones((5, 2, 2)), 2)
    with pytest.raises(TypeError):
        ad.polyfit(ad.arange(10.0), x, 2)
    with pytest.raises(TypeError):
        ad.polyfit(x, x, 2, w=ad.ones(4))
    with pytest.raises(TypeError):
        ad.polyfit(x, x, 2, w=ad.ones((5, 1)))
    with pytest.raises(TypeError):
        ad.polyfit(x, x, 2, w=ad.ones(5, "c16"))
    with pytest.raises(TypeError):
        ad.polyfit(x.astype("f2"), x.astype("f2"), 2)
    with pytest.raises(ValueError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ad.polyfit(x, x, 5, cov=True)
