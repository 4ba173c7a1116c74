"""Samplers composed of the server's uniform and normal draws: rejection
methods, inversion by a bounded search, and the log-gamma they need.

Each sampler takes ``draw(op, shape)``, a float64 draw of the generator
using it (op: random_uniform or random_normal), and parameters that are
float64 arrayd arrays broadcastable to the output shape (0-d for
scalars), already checked by the caller. Everything runs on the server as
ufuncs over whole arrays; a rejection method draws a few candidates per
value and redraws only the values none was accepted for (``by_rejection``,
one sync per pass).

The methods (each checked against its exact law in
tests/python/test_random_dists.py):

- gamma: Marsaglia and Tsang (2000), alpha >= 1.
- poisson: inversion of the CDF for lam < 10, Hoermann's transformed
  rejection PTRS (1993) above.
- binomial: inversion for n * min(p, 1 - p) < 10, Hoermann's BTRS (1993)
  above.
- hypergeometric: Stadlober's ratio of uniforms HRUA (1989).
- logseries: Kemp's LK (1981).
- zipf: Devroye's rejection from the Pareto law (1986, X.6).
- vonmises: Best and Fisher (1979); a wrapped normal for kappa > 1e6.

Layer: the random namespace's bottom (imports the function modules).
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from arrayd import _composite as _c
from arrayd import _indexing, _sorting
from arrayd import _manipulation as _mp
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd._ndarray import ndarray

Draw = Callable[[str, tuple[int, ...]], ndarray]
Propose = Callable[[Draw, list[ndarray], tuple[int, ...]],
                   tuple[ndarray, ndarray]]

_F64 = np.dtype(np.float64)
_INT64 = np.dtype(np.int64)
# Candidates in a redraw pass: enough for the few values left, bounded.
_REDRAW_BUDGET = 1 << 20
_MAX_ROUNDS = 256


def by_rejection(draw: Draw, propose: Propose, params: list[ndarray],
                 shape: tuple[int, ...], rounds: int) -> ndarray:
    """Values of ``shape``: propose(draw, params, (rounds,) + shape) gives
    candidates and whether each is accepted; a value is its first accepted
    candidate. Values with none are drawn again (their parameters
    gathered), with more candidates each as fewer are left."""
    if not shape:
        return by_rejection(draw, propose, params, (1,), rounds).reshape(())
    vals, ok = propose(draw, params, (rounds,) + shape)
    if rounds == 1:
        value, accepted = vals[0], ok[0]
    else:
        first = _r.argmax(ok, axis=0)[None]
        value = _indexing.take_along_axis(vals, first, axis=0)[0]
        accepted = _r.any(ok, axis=0)
    if 0 in shape:
        return value
    rejected = _m.logical_not(accepted)
    n = int(rejected.sum())
    if n:
        sub = [p if p.ndim == 0 else _mp.broadcast_to(p, shape)[rejected]
               for p in params]
        more = max(rounds, min(_MAX_ROUNDS, _REDRAW_BUDGET // n))
        value[rejected] = by_rejection(draw, propose, sub, (n,), more)
    return value


def split(draw: Draw, mask: ndarray, shape: tuple[int, ...],
          params: list[ndarray], where_true: Any, where_false: Any) -> ndarray:
    """where(mask, where_true(...), where_false(...)) computing each side
    only for its own values: where_*(draw, params, shape) -> float64. One
    sync (the count of mask), none more when the mask is uniform."""
    mask = _mp.broadcast_to(mask, shape)
    n = int(mask.sum())
    total = math.prod(shape)
    if n == total:
        return where_true(draw, params, shape)
    if n == 0:
        return where_false(draw, params, shape)
    out = _c.new(params[0]._session, "zeros", (), shape, _F64,
                 {"shape": list(shape), "dtype": _F64})
    other = _m.logical_not(mask)
    for side, m, k in ((where_true, mask, n), (where_false, other,
                                                total - n)):
        sub = [p if p.ndim == 0 else _mp.broadcast_to(p, shape)[m]
               for p in params]
        out[m] = side(draw, sub, (k,))
    return out


# -- log-gamma ----------------------------------------------------------------

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
# Stirling's series of log Gamma(z): coefficients B_2k / (2k (2k - 1)) of
# z^-(2k-1), k = 1 .. 6 (error below 1e-14 for z >= 8).
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188,
             -691 / 360360)
_SHIFT = 8


def lgamma(x: ndarray) -> ndarray:
    """log Gamma(x) elementwise for x >= 1 (float64): Stirling's series at
    z = x, or at z = x + 8 less log(x (x + 1) ... (x + 7)) for x < 8."""
    small = _m.less(x, float(_SHIFT))
    z = _mp.where(small, _m.add(x, float(_SHIFT)), x)
    xs = _m.minimum(x, float(_SHIFT))  # the product only where it is used
    prod = xs
    for j in range(1, _SHIFT):
        prod = _m.multiply(prod, _m.add(xs, float(j)))
    inv = _m.reciprocal(z)
    inv2 = _m.multiply(inv, inv)
    series = _STIRLING[-1]
    for c in reversed(_STIRLING[:-1]):
        series = _m.add(_m.multiply(series, inv2), c)
    main = _m.add(_m.subtract(_m.multiply(_m.subtract(z, 0.5), _m.log(z)), z),
                  _m.add(_m.multiply(series, inv), _HALF_LOG_2PI))
    return _m.subtract(main, _mp.where(small, _m.log(prod), 0.0))


def _uniform_pm(draw: Draw, shape: tuple[int, ...]) -> tuple[ndarray,
                                                            ndarray]:
    """(U - 1/2, 1/2 - |U - 1/2|) of one uniform draw: the transformed
    rejection methods' pair."""
    u = _m.subtract(draw("random_uniform", shape), 0.5)
    return u, _m.subtract(0.5, _m.absolute(u))


# -- gamma ---------------------------------------------------------------------

def _gamma_mt(draw: Draw, params: list[ndarray],
              cshape: tuple[int, ...]) -> tuple[ndarray, ndarray]:
    """Marsaglia and Tsang's candidates d * V for alpha >= 1."""
    (alpha,) = params
    d = _m.subtract(alpha, 1.0 / 3.0)
    c = _m.reciprocal(_m.sqrt(_m.multiply(d, 9.0)))
    x = draw("random_normal", cshape)
    u = draw("random_uniform", cshape)
    v = _m.power(_m.add(_m.multiply(x, c), 1.0), 3.0)
    # log(1 - U) has the law of log(U) and never meets log(0).
    bound = _m.add(_m.multiply(_m.multiply(x, x), 0.5),
                   _m.multiply(d, _m.add(_m.subtract(1.0, v), _m.log(v))))
    ok = _m.logical_and(_m.greater(v, 0.0),
                        _m.less(_m.log1p(_m.negative(u)), bound))
    return _m.multiply(v, d), ok


def gamma_ge1(draw: Draw, alpha: ndarray, shape: tuple[int, ...]) -> ndarray:
    """Standard Gamma(alpha) for alpha >= 1."""
    return by_rejection(draw, _gamma_mt, [alpha], shape, 3)


# -- poisson -------------------------------------------------------------------

_POISSON_INVERSION_BELOW = 10.0
# Terms of the CDF searched: P(X > 50) < 1e-18 for lam < 10.
_POISSON_TERMS = 50


def _poisson_inversion(draw: Draw, params: list[ndarray],
                       cshape: tuple[int, ...]) -> tuple[ndarray, ndarray]:
    """X = #{k : F(k) <= U}, F summed term by term; a U beyond the last
    term's F (a rounding of the far tail) is redrawn."""
    (lam,) = params
    u = draw("random_uniform", cshape)
    pmf = _m.exp(_m.negative(lam))
    cdf = pmf
    count = _m.greater_equal(u, cdf).astype(_F64)
    for k in range(1, _POISSON_TERMS + 1):
        pmf = _m.multiply(pmf, _m.multiply(lam, 1.0 / k))
        cdf = _m.add(cdf, pmf)
        count = _m.add(count, _m.greater_equal(u, cdf))
    return count, _m.less(u, cdf)


def _poisson_ptrs(draw: Draw, params: list[ndarray],
                  cshape: tuple[int, ...]) -> tuple[ndarray, ndarray]:
    """Hoermann's PTRS candidates for lam >= 10."""
    (lam,) = params
    b = _m.add(_m.multiply(_m.sqrt(lam), 2.53), 0.931)
    a = _m.add(_m.multiply(b, 0.02483), -0.059)
    inv_alpha = _m.add(_m.true_divide(1.1328, _m.subtract(b, 3.4)), 1.1239)
    vr = _m.subtract(0.9277, _m.true_divide(3.6224, _m.subtract(b, 2.0)))
    u, us = _uniform_pm(draw, cshape)
    v = draw("random_uniform", cshape)
    k = _m.floor(_m.add(_m.multiply(_m.add(_m.true_divide(
        _m.multiply(a, 2.0), us), b), u), _m.add(lam, 0.43)))
    fast = _m.logical_and(_m.greater_equal(us, 0.07), _m.less_equal(v, vr))
    bad = _m.logical_and(_m.less(us, 0.013), _m.greater(v, us))
    lhs = _m.subtract(_m.add(_m.log(v), _m.log(inv_alpha)),
                      _m.log(_m.add(_m.true_divide(a, _m.multiply(us, us)),
                                    b)))
    kk = _m.maximum(k, 0.0)  # lgamma's domain; k < 0 is rejected anyway
    rhs = _m.subtract(_m.subtract(_m.multiply(kk, _m.log(lam)), lam),
                      lgamma(_m.add(kk, 1.0)))
    slow = _m.logical_and(_m.logical_not(bad), _m.less_equal(lhs, rhs))
    ok = _m.logical_and(_m.greater_equal(k, 0.0), _m.logical_or(fast, slow))
    return k, ok


def _poisson_small(draw: Draw, params: list[ndarray],
                   shape: tuple[int, ...]) -> ndarray:
    return by_rejection(draw, _poisson_inversion, params, shape, 1)


def _poisson_large(draw: Draw, params: list[ndarray],
                   shape: tuple[int, ...]) -> ndarray:
    return by_rejection(draw, _poisson_ptrs, params, shape, 3)


def poisson(draw: Draw, lam: ndarray, shape: tuple[int, ...]) -> ndarray:
    """Poisson(lam) as float64 integers, lam >= 0 (finite)."""
    return split(draw, _m.less(lam, _POISSON_INVERSION_BELOW), shape, [lam],
                 _poisson_small, _poisson_large)


# -- binomial ------------------------------------------------------------------

_BINOMIAL_INVERSION_BELOW = 10.0  # n * min(p, 1 - p)
_BINOMIAL_TERMS = 50  # P(X > 50) < 1e-18 when the mean is below 10


def _binomial_inversion(draw: Draw, params: list[ndarray],
                        cshape: tuple[int, ...]) -> tuple[ndarray, ndarray]:
    """X = #{k : F(k) <= U} for p <= 1/2, the pmf by its ratio
    (n - k + 1) / k * p / q; a U beyond the last F is redrawn."""
    n, p = params
    ratio = _m.true_divide(p, _m.subtract(1.0, p))
    u = draw("random_uniform", cshape)
    pmf = _m.exp(_m.multiply(n, _m.log1p(_m.negative(p))))  # q ** n
    cdf = pmf
    count = _m.greater_equal(u, cdf).astype(_F64)
    left = n  # n - k + 1 at term k
    for k in range(1, _BINOMIAL_TERMS + 1):
        # Beyond k = n the pmf is 0 and stays 0 (0 times a negative left).
        pmf = _m.multiply(pmf, _m.multiply(left, _m.multiply(ratio, 1.0 / k)))
        left = _m.subtract(left, 1.0)
        cdf = _m.add(cdf, pmf)
        count = _m.add(count, _m.greater_equal(u, cdf))
    return count, _m.less(u, cdf)


def _binomial_btrs(draw: Draw, params: list[ndarray],
                   cshape: tuple[int, ...]) -> tuple[ndarray, ndarray]:
    """Hoermann's BTRS candidates for p <= 1/2 and n p >= 10."""
    n, p = params
    q = _m.subtract(1.0, p)
    spq = _m.sqrt(_m.multiply(_m.multiply(n, p), q))
    b = _m.add(_m.multiply(spq, 2.53), 1.15)
    a = _m.add(_m.add(_m.multiply(b, 0.0248), _m.multiply(p, 0.01)), -0.0873)
    c = _m.add(_m.multiply(n, p), 0.5)
    vr = _m.subtract(0.92, _m.true_divide(4.2, b))
    alpha = _m.multiply(_m.add(_m.true_divide(5.1, b), 2.83), spq)
    m = _m.floor(_m.multiply(_m.add(n, 1.0), p))
    h = _m.add(lgamma(_m.add(m, 1.0)), lgamma(_m.add(_m.subtract(n, m), 1.0)))
    u, us = _uniform_pm(draw, cshape)
    v = draw("random_uniform", cshape)
    k = _m.floor(_m.add(_m.multiply(_m.add(_m.true_divide(
        _m.multiply(a, 2.0), us), b), u), c))
    inside = _m.logical_and(_m.greater_equal(k, 0.0), _m.less_equal(k, n))
    fast = _m.logical_and(_m.greater_equal(us, 0.07), _m.less_equal(v, vr))
    lv = _m.log(_m.true_divide(_m.multiply(v, alpha), _m.add(
        _m.true_divide(a, _m.multiply(us, us)), b)))
    kk = _m.minimum(_m.maximum(k, 0.0), n)  # lgamma's domain
    rhs = _m.add(_m.subtract(_m.subtract(h, lgamma(_m.add(kk, 1.0))),
                             lgamma(_m.add(_m.subtract(n, kk), 1.0))),
                 _m.multiply(_m.subtract(kk, m), _m.log(_m.true_divide(p, q))))
    ok = _m.logical_and(inside, _m.logical_or(fast, _m.less_equal(lv, rhs)))
    return k, ok


def _binomial_small(draw: Draw, params: list[ndarray],
                    shape: tuple[int, ...]) -> ndarray:
    return by_rejection(draw, _binomial_inversion, params, shape, 1)


def _binomial_large(draw: Draw, params: list[ndarray],
                    shape: tuple[int, ...]) -> ndarray:
    return by_rejection(draw, _binomial_btrs, params, shape, 3)


def binomial(draw: Draw, n: ndarray, p: ndarray,
             shape: tuple[int, ...]) -> ndarray:
    """Binomial(n, p) as float64 integers (n integral >= 0, 0 <= p <= 1):
    drawn for min(p, 1 - p), reflected for p > 1/2."""
    flip = _m.greater(p, 0.5)
    pp = _mp.where(flip, _m.subtract(1.0, p), p)
    small = _m.less(_m.multiply(n, pp), _BINOMIAL_INVERSION_BELOW)
    x = split(draw, small, shape, [n, pp], _binomial_small, _binomial_large)
    return _mp.where(flip, _m.subtract(n, x), x)


# -- hypergeometric ------------------------------------------------------------

_HRUA_D1 = 2 * math.sqrt(2 / math.e)
_HRUA_D2 = 3 - 2 * math.sqrt(3 / math.e)


def _log_terms(k: ndarray, small: ndarray, sample: ndarray,
               large: ndarray) -> ndarray:
    """log(k! (small - k)! (sample - k)! (large - sample + k)!)."""
    one = 1.0
    return _m.add(
        _m.add(lgamma(_m.add(k, one)),
               lgamma(_m.add(_m.subtract(small, k), one))),
        _m.add(lgamma(_m.add(_m.subtract(sample, k), one)),
               lgamma(_m.add(_m.add(_m.subtract(large, sample), k), one))))


def _hrua(draw: Draw, params: list[ndarray],
          cshape: tuple[int, ...]) -> tuple[ndarray, ndarray]:
    """Stadlober's HRUA candidates: the number of the smaller group's items
    in a sample of at most half the population."""
    small, large, sample = params
    pop = _m.add(small, large)
    p = _m.true_divide(small, _m.maximum(pop, 1.0))
    a = _m.add(_m.multiply(sample, p), 0.5)
    var = _mp.where(_m.greater(pop, 1.0), _m.true_divide(
        _m.multiply(_m.multiply(_m.subtract(pop, sample), sample),
                    _m.multiply(p, _m.subtract(1.0, p))),
        _m.subtract(_m.maximum(pop, 2.0), 1.0)), 0.0)
    c = _m.sqrt(_m.add(var, 0.5))
    h = _m.add(_m.multiply(c, _HRUA_D1), _HRUA_D2)
    mode = _m.floor(_m.true_divide(
        _m.multiply(_m.add(sample, 1.0), _m.add(small, 1.0)),
        _m.add(pop, 2.0)))
    g = _log_terms(mode, small, sample, large)
    top = _m.minimum(_m.add(_m.minimum(sample, small), 1.0),
                     _m.floor(_m.add(a, _m.multiply(c, 16.0))))
    u = draw("random_uniform", cshape)
    v = draw("random_uniform", cshape)
    x = _m.add(a, _m.true_divide(_m.multiply(h, _m.subtract(v, 0.5)), u))
    inside = _m.logical_and(_m.greater_equal(x, 0.0), _m.less(x, top))
    k = _m.floor(_m.minimum(_m.maximum(x, 0.0), top))  # finite for the test
    k = _m.minimum(k, _m.minimum(sample, small))
    t = _m.subtract(g, _log_terms(k, small, sample, large))
    ok = _m.logical_and(inside, _m.less_equal(_m.multiply(_m.log(u), 2.0), t))
    return k, ok


def hypergeometric(draw: Draw, good: ndarray, bad: ndarray, sample: ndarray,
                   shape: tuple[int, ...]) -> ndarray:
    """Hypergeometric(good, bad, sample) as float64 integers (integral
    good, bad >= 0, 0 <= sample <= good + bad): HRUA for the smaller group
    in the smaller of the sample and its complement, mapped back."""
    pop = _m.add(good, bad)
    half = _m.minimum(sample, _m.subtract(pop, sample))
    small = _m.minimum(good, bad)
    large = _m.maximum(good, bad)
    k = by_rejection(draw, _hrua, [small, large, half], shape, 3)
    k = _mp.where(_m.greater(good, bad), _m.subtract(half, k), k)
    return _mp.where(_m.less(half, sample), _m.subtract(good, k), k)


# -- logseries, zipf -------------------------------------------------------------

def logseries(draw: Draw, p: ndarray, shape: tuple[int, ...]) -> ndarray:
    """Logarithmic(p) (0 <= p < 1) as float64 integers by Kemp's LK: 1 when
    V >= p, else floor(1 + log V / log q) with q = 1 - (1 - p) ** U when
    V <= q**2, else 1 or 2 (V >= q or not). V is drawn in (0, 1]."""
    v = _m.subtract(1.0, draw("random_uniform", shape))
    u = draw("random_uniform", shape)
    q = _m.negative(_m.expm1(_m.multiply(_m.log1p(_m.negative(p)), u)))
    deep = _m.floor(_m.add(_m.true_divide(_m.log(v), _m.log(q)), 1.0))
    two = _mp.where(_m.greater_equal(v, q), 1.0, 2.0)
    x = _mp.where(_m.less_equal(v, _m.multiply(q, q)), deep, two)
    return _mp.where(_m.greater_equal(v, p), 1.0, x)


_ZIPF_LIMIT = 2.0 ** 63  # values must stay below int64's maximum


def _zipf_devroye(draw: Draw, params: list[ndarray],
                  cshape: tuple[int, ...]) -> tuple[ndarray, ndarray]:
    """Devroye's candidates floor(U ** (-1 / (a - 1))), accepted when
    V X (T - 1) / (b - 1) <= T / b, T = (1 + 1 / X) ** (a - 1),
    b = 2 ** (a - 1); values beyond int64 are rejected."""
    (a,) = params
    am1 = _m.subtract(a, 1.0)
    b = _m.power(2.0, am1)
    u = _m.subtract(1.0, draw("random_uniform", cshape))  # (0, 1]
    v = draw("random_uniform", cshape)
    x = _m.floor(_m.power(u, _m.negative(_m.reciprocal(am1))))
    inside = _m.logical_and(_m.greater_equal(x, 1.0), _m.less(x, _ZIPF_LIMIT))
    t = _m.power(_m.add(_m.reciprocal(x), 1.0), am1)
    lhs = _m.true_divide(_m.multiply(_m.multiply(v, x), _m.subtract(t, 1.0)),
                         _m.subtract(b, 1.0))
    ok = _m.logical_and(inside, _m.less_equal(lhs, _m.true_divide(t, b)))
    return _mp.where(inside, x, 1.0), ok


def zipf(draw: Draw, a: ndarray, shape: tuple[int, ...]) -> ndarray:
    """Zipf(a) (a > 1) as float64 integers below 2**63."""
    return by_rejection(draw, _zipf_devroye, [a], shape, 3)


# -- vonmises --------------------------------------------------------------------

VM_UNIFORM_BELOW = 1e-8   # the circle's uniform law
_VM_SERIES_BELOW = 1e-5    # s = 1 / kappa + kappa (Best-Fisher's r cancels)
VM_NORMAL_ABOVE = 1e6     # N(0, 1 / kappa), Best-Fisher loses precision


def _vonmises_bf(draw: Draw, params: list[ndarray],
                 cshape: tuple[int, ...]) -> tuple[ndarray, ndarray]:
    """Best and Fisher's candidates W = cos(theta) (the extreme kappas are
    accepted as they are: vonmises replaces them)."""
    (kappa,) = params
    r = _m.add(_m.sqrt(_m.add(_m.multiply(_m.multiply(kappa, kappa), 4.0),
                              1.0)), 1.0)
    rho = _m.true_divide(_m.subtract(r, _m.sqrt(_m.multiply(r, 2.0))),
                         _m.multiply(kappa, 2.0))
    s = _mp.where(_m.less(kappa, _VM_SERIES_BELOW),
                  _m.add(_m.reciprocal(kappa), kappa),
                  _m.true_divide(_m.add(_m.multiply(rho, rho), 1.0),
                                 _m.multiply(rho, 2.0)))
    z = _m.cos(_m.multiply(draw("random_uniform", cshape), math.pi))
    w = _m.true_divide(_m.add(_m.multiply(s, z), 1.0), _m.add(s, z))
    y = _m.multiply(kappa, _m.subtract(s, w))
    v = draw("random_uniform", cshape)
    ok = _m.logical_or(
        _m.greater_equal(_m.subtract(_m.multiply(y, _m.subtract(2.0, y)), v),
                         0.0),
        _m.greater_equal(_m.add(_m.subtract(_m.log(_m.true_divide(y, v)), y),
                                1.0), 0.0))
    extreme = _m.logical_or(_m.less(kappa, VM_UNIFORM_BELOW),
                            _m.greater(kappa, VM_NORMAL_ABOVE))
    return w, _m.logical_or(ok, extreme)


def vonmises(draw: Draw, mu: ndarray, kappa: ndarray,
             shape: tuple[int, ...], extremes: bool = True) -> ndarray:
    """von Mises(mu, kappa) angles (kappa >= 0) in [-pi, pi); ``extremes``:
    whether some kappa is below VM_UNIFORM_BELOW or above VM_NORMAL_ABOVE
    (those draw from their own laws)."""
    w = by_rejection(draw, _vonmises_bf, [kappa], shape, 3)
    sign = _mp.where(_m.less(draw("random_uniform", shape), 0.5), -1.0, 1.0)
    theta = _m.multiply(_m.arccos(_m.minimum(_m.maximum(w, -1.0), 1.0)),
                        sign)
    if extremes:
        uniform = _m.multiply(_m.subtract(draw("random_uniform", shape), 0.5),
                              2 * math.pi)
        normal = _m.true_divide(draw("random_normal", shape), _m.sqrt(kappa))
        theta = _mp.where(_m.less(kappa, VM_UNIFORM_BELOW), uniform,
                          _mp.where(_m.greater(kappa, VM_NORMAL_ABOVE), normal,
                                    theta))
    angle = _m.add(theta, mu)
    turns = _m.floor(_m.true_divide(_m.add(angle, math.pi), 2 * math.pi))
    return _m.subtract(angle, _m.multiply(turns, 2 * math.pi))


# -- multinomial counts ------------------------------------------------------------

CATEGORICAL_MAX = 1 << 24  # category draws multinomial makes and counts




def categorical_counts(idx: ndarray, k: int,
                       shape: tuple[int, ...]) -> ndarray:
    """How often each of k categories occurs along idx's last axis (int64
    indices of shape + (n,)): counts of shape + (k,), by sorting the codes
    row * k + index and searching the bin edges."""
    s = idx._session
    rows = math.prod(shape)
    n = idx._shape[-1]
    flat = idx.reshape(rows, n)
    codes = _m.add(flat, _m.multiply(_c.arange(s, rows).reshape(rows, 1), k))
    codes = codes.reshape(rows * n)
    srt = _c.new(s, "sort", (codes,), codes._shape, _INT64)
    pos = _sorting.bsearch(srt, _c.arange(s, rows * k + 1), False)
    return _m.subtract(pos[1:], pos[:-1]).reshape(shape + (k,))
