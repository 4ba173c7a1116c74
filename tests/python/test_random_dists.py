"""arrayd.random's composed laws against their exact distributions:
hypergeometric, logseries, multinomial, negative_binomial,
noncentral_chisquare, noncentral_f, vonmises, zipf, and poisson and
binomial with array parameters (both branches of each sampler).

Discrete laws: Pearson's chi-square against the exact pmf (computed here
with math.lgamma), judged by the Wilson-Hilferty normal approximation
(|z| < 4.5: a correct sampler fails about once in 3e5 runs; the seeds are
fixed, so each run is the same). Continuous laws: the Kolmogorov-Smirnov
distance to the CDF, or the mean and variance within 5 standard errors.
Then NumPy's errors for bad parameters (type and message), result dtypes
and shapes as NumPy's, and reproducibility."""
from __future__ import annotations

import math

import arrayd as ad
import numpy as np
import pytest

N = 100_000
lg = math.lgamma


def _chi2_z(x, logpmf, lo, hi):
    """Wilson-Hilferty z of the chi-square statistic of the draws x against
    pmf on lo..hi (cells expected below 5 pooled, the tail beyond hi too)."""
    x = np.asarray(x).ravel()
    ks = np.arange(lo, hi + 1)
    probs = np.exp([logpmf(int(k)) for k in ks])
    counts = np.array([(x == k).sum() for k in ks], dtype=float)
    assert x.min() >= lo, "a draw below the support"
    counts = np.append(counts, (x > hi).sum())
    probs = np.append(probs, max(0.0, 1.0 - probs.sum()))
    exp = probs * x.size
    big = exp >= 5
    c = np.append(counts[big], counts[~big].sum())
    e = np.append(exp[big], exp[~big].sum())
    if e[-1] < 5:  # pool the small cells into the last large one
        c, e = c[:-2].tolist() + [c[-2] + c[-1]], e[:-2].tolist() + [
            e[-2] + e[-1]]
        c, e = np.array(c), np.array(e)
    dof = len(c) - 1
    if dof == 0:
        assert c[0] == x.size
        return 0.0
    stat = ((c - e) ** 2 / e).sum()
    return ((stat / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(
        2 / (9 * dof))


def _close(got, want, se, k=5.0):
    assert abs(got - want) <= k * se, (got, want, se)


# -- poisson and binomial with array parameters ------------------------------

@pytest.mark.parametrize("lam", [0.0, 0.4, 3.0, 9.9, 10.0, 42.0, 2500.0])
def test_poisson_array_lam(lam):
    g = ad.random.default_rng(11)
    x = g.poisson(ad.full((N,), lam)).get()
    assert x.dtype == np.int64

    def logpmf(k):
        if lam == 0:
            return 0.0 if k == 0 else -np.inf
        return k * math.log(lam) - lam - lg(k + 1)
    hi = int(lam + 10 * math.sqrt(lam) + 15)
    assert abs(_chi2_z(x, logpmf, 0, hi)) < 4.5


def test_poisson_mixed_and_huge_lam():
    g = ad.random.default_rng(12)
    lam = np.array([0.5, 7.0, 30.0, 1e5])
    x = g.poisson(ad.asarray(lam), size=(N // 4, 4)).get()
    for j, m in enumerate(lam):
        _close(x[:, j].mean(), m, math.sqrt(m / x.shape[0]))
        _close(x[:, j].var(), m, m * math.sqrt(2 / x.shape[0]) + 1e-9, 6)
    big = g.poisson(1e12, size=2000).get()  # beyond the server's table
    _close(big.mean(), 1e12, math.sqrt(1e12 / 2000))


@pytest.mark.parametrize("n, p", [(5, 0.3), (30, 0.2), (100, 0.5),
                                  (1000, 0.03), (1000, 0.97), (57, 0.999),
                                  (200, 0.05), (0, 0.5), (9, 1.0)])
def test_binomial_array_parameters(n, p):
    g = ad.random.default_rng(13)
    x = g.binomial(ad.full((N,), n), ad.full((N,), p)).get()
    assert x.dtype == np.int64

    def logpmf(k):
        if p == 1.0:
            return 0.0 if k == n else -np.inf
        return (lg(n + 1) - lg(k + 1) - lg(n - k + 1) + k * math.log(p)
                + (n - k) * math.log1p(-p))
    assert abs(_chi2_z(x, logpmf, 0, n)) < 4.5


def test_binomial_large_scalar_uses_btrs():
    g = ad.random.default_rng(14)
    x = g.binomial(10 ** 9, 0.4, size=20000).get()
    sd = math.sqrt(10 ** 9 * 0.4 * 0.6)
    _close(x.mean(), 4e8, sd / math.sqrt(x.size))
    _close(x.std(), sd, sd / math.sqrt(2 * x.size))


# -- hypergeometric, logseries, zipf --------------------------------------------

def _log_choose(a, b):
    return lg(a + 1) - lg(b + 1) - lg(a - b + 1)


@pytest.mark.parametrize("good, bad, sample", [
    (5, 5, 5), (10, 10, 10), (100, 2, 10), (0, 5, 2), (5, 0, 1), (7, 5, 12),
    (1000, 500, 700), (50, 3000, 1500), (3, 4, 1), (20, 30, 0)])
def test_hypergeometric(good, bad, sample):
    g = ad.random.default_rng(15)
    x = g.hypergeometric(good, bad, sample, size=N).get()
    assert x.dtype == np.int64

    def logpmf(k):
        if not (0 <= k <= good and 0 <= sample - k <= bad):
            return -np.inf
        return (_log_choose(good, k) + _log_choose(bad, sample - k)
                - _log_choose(good + bad, sample))
    assert abs(_chi2_z(x, logpmf, max(0, sample - bad),
                       min(good, sample))) < 4.5


def test_hypergeometric_array_parameters():
    g = ad.random.default_rng(16)
    good = np.array([0, 5, 8, 40])
    bad = np.array([5, 0, 3, 60])
    sample = np.array([2, 1, 8, 50])
    x = g.hypergeometric(ad.asarray(good), ad.asarray(bad),
                         ad.asarray(sample), size=(N // 4, 4)).get()
    mean = sample * good / (good + bad)
    var = mean * (bad / (good + bad)) * (good + bad - sample) / np.maximum(
        good + bad - 1, 1)
    for j in range(4):
        _close(x[:, j].mean(), mean[j], math.sqrt(var[j] / x.shape[0]) + 1e-12)
    assert (x[:, 0] == 0).all() and (x[:, 1] == 1).all()


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 0.99])
def test_logseries(p):
    g = ad.random.default_rng(17)
    x = g.logseries(p, size=N).get()
    assert x.dtype == np.int64 and x.min() >= 1
    if p == 0:
        assert (x == 1).all()
        return
    norm = -math.log1p(-p)
    assert abs(_chi2_z(x, lambda k: k * math.log(p) - math.log(k)
                       - math.log(norm), 1, 1500)) < 4.5


@pytest.mark.parametrize("a", [1.5, 2.0, 3.5])
def test_zipf(a):
    g = ad.random.default_rng(18)
    x = g.zipf(a, size=N).get()
    assert x.dtype == np.int64 and x.min() >= 1
    m = 10 ** 6  # zeta(a): the sum to m and the integral of the rest
    zeta = float(np.sum(np.arange(1, m, dtype=float) ** -a)) + m ** (
        1 - a) / (a - 1) + 0.5 * m ** -a
    assert abs(_chi2_z(x, lambda k: -a * math.log(k) - math.log(zeta), 1,
                       300)) < 4.5


def test_zipf_near_one_terminates():
    # Most of Devroye's candidates are beyond int64 here: redraw passes.
    x = ad.random.default_rng(19).zipf(1.0005, size=2000).get()
    assert x.min() >= 1 and x.dtype == np.int64


# -- negative binomial, multinomial ----------------------------------------------

@pytest.mark.parametrize("n, p", [(5, 0.5), (2.5, 0.3), (1, 1.0),
                                  (40, 0.9), (0.7, 0.05)])
def test_negative_binomial(n, p):
    g = ad.random.default_rng(20)
    x = g.negative_binomial(n, p, size=N).get()
    assert x.dtype == np.int64

    def logpmf(k):
        if p == 1.0:
            return 0.0 if k == 0 else -np.inf
        return (lg(k + n) - lg(k + 1) - lg(n) + n * math.log(p)
                + k * math.log1p(-p))
    mean = n * (1 - p) / p
    assert abs(_chi2_z(x, logpmf, 0, int(mean + 12 * math.sqrt(
        mean / p) + 20))) < 4.5


@pytest.mark.parametrize("n, size", [(10, N), (3, (N // 10, 10)), (400, 4000),
                                     (2 ** 40, 50)])
def test_multinomial(n, size):
    """Counts sum to n; each category's count is Binomial(n, p_j) and two
    categories' covariance is -n p_i p_j (categorical draws below
    CATEGORICAL_MAX, conditional binomials above)."""
    g = ad.random.default_rng(21)
    pv = np.array([0.2, 0.3, 0.1, 0.4])
    x = g.multinomial(n, pv, size=size)
    assert x.dtype == np.int64
    shape = (size,) if isinstance(size, int) else size
    assert x.shape == shape + (4,)
    x = x.get().reshape(-1, 4)
    assert (x.sum(axis=1) == n).all()
    m = x.shape[0]
    for j in range(4):
        var = n * pv[j] * (1 - pv[j])
        _close(x[:, j].mean(), n * pv[j], math.sqrt(var / m))
    if n < 1000:
        cov = np.cov(x[:, 0], x[:, 1])[0, 1]
        _close(cov, -n * pv[0] * pv[1], n * math.sqrt(
            (pv[0] * pv[1] + (pv[0] * pv[1]) ** 2) / m) * 2)


def test_multinomial_last_pval_ignored_and_array_n():
    g = ad.random.default_rng(22)
    x = g.multinomial(20, [0.5, 0.5, 0.9], size=1000).get()  # last: the rest
    assert (x[:, 2] == 0).all() and (x.sum(axis=1) == 20).all()
    y = g.multinomial(ad.asarray(np.array([5, 50])),
                      ad.asarray(np.array([[0.5, 0.5], [0.1, 0.9]])),
                      size=(N // 2, 2)).get()
    assert y.shape == (N // 2, 2, 2)
    assert (y[:, 0].sum(axis=1) == 5).all() and (y[:, 1].sum(axis=1) == 50).all()
    _close(y[:, 1, 0].mean(), 5.0, math.sqrt(4.5 / y.shape[0]))


# -- noncentral laws, vonmises ------------------------------------------------

@pytest.mark.parametrize("df, nonc", [(3.0, 2.0), (0.5, 1.5), (1.0, 0.0),
                                      (10.0, 30.0), (0.2, 0.0)])
def test_noncentral_chisquare(df, nonc):
    g = ad.random.default_rng(23)
    x = g.noncentral_chisquare(df, nonc, size=N).get()
    assert x.dtype == np.float64 and x.min() >= 0
    var = 2 * (df + 2 * nonc)
    _close(x.mean(), df + nonc, math.sqrt(var / N))
    # The fourth central moment of a noncentral chi-square: 12 (df + 4
    # nonc)^2 ... bounded here by a loose 10 standard errors.
    _close(x.var(), var, var * math.sqrt(2 / N) * 3, k=10)


def test_noncentral_chisquare_array_parameters():
    g = ad.random.default_rng(24)
    df = ad.asarray(np.array([0.5, 3.0]))
    nonc = ad.asarray(np.array([1.0, 2.0]))
    x = g.noncentral_chisquare(df, nonc, size=(N, 2)).get()
    for j, (d, lam) in enumerate([(0.5, 1.0), (3.0, 2.0)]):
        _close(x[:, j].mean(), d + lam, math.sqrt(2 * (d + 2 * lam) / N))


def test_noncentral_f():
    g = ad.random.default_rng(25)
    dn, dd, nonc = 5.0, 20.0, 3.0
    x = g.noncentral_f(dn, dd, nonc, size=N).get()
    mean = dd * (dn + nonc) / (dn * (dd - 2))
    var = 2 * (dd / dn) ** 2 * ((dn + nonc) ** 2 + (dn + 2 * nonc) * (
        dd - 2)) / ((dd - 2) ** 2 * (dd - 4))
    _close(x.mean(), mean, math.sqrt(var / N))


def _vonmises_cdf(mu, kappa):
    grid = np.linspace(-np.pi, np.pi, 400001)
    dens = np.exp(kappa * (np.cos(grid - mu) - 1))
    c = np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) / 2)])
    return lambda v: np.interp(v, grid, c / c[-1])


@pytest.mark.parametrize("mu, kappa", [(0.0, 0.0), (1.0, 1e-9), (0.5, 1e-6),
                                       (0.0, 0.5), (2.0, 4.0), (-3.0, 50.0),
                                       (3.0, 700.0), (1.0, 1e7)])
def test_vonmises(mu, kappa):
    g = ad.random.default_rng(26)
    x = g.vonmises(mu, kappa, size=N).get()
    assert x.dtype == np.float64
    assert x.min() >= -np.pi and x.max() <= np.pi
    s = np.sort(x)
    f = _vonmises_cdf(mu, kappa)(s)
    d = max(np.max(np.arange(1, N + 1) / N - f), np.max(f - np.arange(N) / N))
    assert d * math.sqrt(N) < 1.95  # Kolmogorov's 0.1 % point


def test_vonmises_array_kappa():
    g = ad.random.default_rng(27)
    mu = ad.asarray(np.array([0.0, 1.0, -2.0]))
    kappa = ad.asarray(np.array([0.0, 3.0, 2e6]))
    x = g.vonmises(mu, kappa, size=(N, 3)).get()
    # Circular means: E[cos(X - mu)] = I1(kappa) / I0(kappa).
    r = np.mean(np.cos(x - np.array([0.0, 1.0, -2.0])), axis=0)
    _close(r[0], 0.0, math.sqrt(0.5 / N))
    t = np.linspace(-np.pi, np.pi, 200001)
    i1_i0 = np.sum(np.cos(t) * np.exp(3 * np.cos(t))) / np.sum(
        np.exp(3 * np.cos(t)))  # I1(3) / I0(3), about 0.8106
    _close(r[1], i1_i0, math.sqrt(0.5 / N))
    assert abs(r[2] - 1.0) < 1e-5


# -- NumPy's errors, dtypes and shapes ------------------------------------------

BAD = [
    ("hypergeometric", (-1, 5, 2)), ("hypergeometric", (5, -1, 2)),
    ("hypergeometric", (5, 5, -1)), ("hypergeometric", (5, 5, 11)),
    ("hypergeometric", (10 ** 9, 5, 2)),
    ("logseries", (1.0,)), ("logseries", (-0.1,)), ("logseries", (np.nan,)),
    ("multinomial", (-1, [0.5, 0.5])), ("multinomial", (10, [0.7, 0.7, 0.2])),
    ("multinomial", (10, [0.5, -0.1, 0.6])), ("multinomial", (10, [])),
    ("negative_binomial", (0, 0.5)), ("negative_binomial", (1, 0.0)),
    ("negative_binomial", (1, 1.5)),
    ("noncentral_chisquare", (0, 1)), ("noncentral_chisquare", (1, -1)),
    ("noncentral_f", (0, 1, 1)), ("noncentral_f", (1, 0, 1)),
    ("noncentral_f", (1, 1, -1)),
    ("vonmises", (0.0, -1.0)), ("zipf", (1.0,)), ("zipf", (np.nan,)),
    ("poisson", (-1.0,)), ("poisson", (1e19,)), ("binomial", (-1, 0.5)),
    ("binomial", (3, 1.5)), ("poisson", (None,)),
]


def _num(a):
    return isinstance(a, (int, float)) and not isinstance(a, bool)


@pytest.mark.parametrize("name, args", BAD, ids=str)
@pytest.mark.parametrize("as_array", [False, True])
def test_bad_parameters_as_numpy(name, args, as_array):
    """The same exception type and message as NumPy's Generator, with the
    parameters as scalars or as arrays (checked on the server)."""
    def np_arg(a):
        return np.array([a, a], dtype=float) if as_array and _num(a) else a

    def ad_arg(a):
        return ad.asarray(np_arg(a)) if as_array and _num(a) else a

    with pytest.raises((ValueError, TypeError)) as want:
        getattr(np.random.default_rng(0), name)(*map(np_arg, args))
    with pytest.raises(type(want.value)) as got:
        getattr(ad.random.default_rng(0), name)(*map(ad_arg, args))
    assert str(got.value) == str(want.value)


GOOD = [
    ("hypergeometric", (7, 5, 4)), ("logseries", (0.6,)),
    ("negative_binomial", (3, 0.4)), ("noncentral_chisquare", (2.0, 1.5)),
    ("noncentral_f", (3.0, 4.0, 1.5)), ("vonmises", (0.5, 2.0)),
    ("zipf", (2.5,)), ("poisson", (4.0,)), ("binomial", (10, 0.3)),
]


@pytest.mark.parametrize("name, args", GOOD)
@pytest.mark.parametrize("size", [None, 5, (2, 3), (0,)])
def test_dtype_and_shape_as_numpy(name, args, size):
    want = np.asarray(getattr(np.random.default_rng(0), name)(*args,
                                                               size=size))
    got = getattr(ad.random.default_rng(0), name)(*args, size=size)
    assert got.dtype == want.dtype and got.shape == want.shape


@pytest.mark.parametrize("name, args", GOOD)
def test_broadcast_array_parameters_as_numpy(name, args):
    np_args = [np.full((3, 1), a) if i == 0 else a
               for i, a in enumerate(args)]
    want = getattr(np.random.default_rng(0), name)(*np_args)
    ad_args = [ad.asarray(a) if isinstance(a, np.ndarray) else a
               for a in np_args]
    got = getattr(ad.random.default_rng(0), name)(*ad_args)
    assert got.dtype == want.dtype and got.shape == want.shape
    got2 = getattr(ad.random.default_rng(0), name)(*ad_args, size=(2, 3, 4))
    assert got2.shape == (2, 3, 4)
    with pytest.raises(ValueError):
        getattr(ad.random.default_rng(0), name)(*ad_args, size=(4, 2))


@pytest.mark.parametrize("name, args", GOOD + [("multinomial", (9, [0.2,
                                                                    0.8]))])
def test_same_seed_same_numbers(name, args):
    a = getattr(ad.random.default_rng(99), name)(*args, size=500).get()
    b = getattr(ad.random.default_rng(99), name)(*args, size=500).get()
    c = getattr(ad.random.default_rng(100), name)(*args, size=500).get()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_bytes():
    a = ad.random.default_rng(5).bytes(17)
    assert isinstance(a, bytes) and len(a) == 17
    assert a == ad.random.default_rng(5).bytes(17)
    assert len(set(ad.random.default_rng(6).bytes(4096))) > 200
