"""ad.random: shapes, dtypes, ranges, moments (loose, large samples) and
reproducibility of the Philox streams."""
from __future__ import annotations

import numpy as np
import pytest

import arrayd as ad

N = 200_000


def test_reproducible_and_advancing():
    a = ad.random.default_rng(42).random(1000).get()
    b = ad.random.default_rng(42).random(1000).get()
    np.testing.assert_array_equal(a, b)
    g = ad.random.default_rng(42)
    first, second = g.random(500).get(), g.random(500).get()
    np.testing.assert_array_equal(np.concatenate([first, second]), a)
    c = ad.random.default_rng(43).random(1000).get()
    assert not np.array_equal(a, c)
    big = ad.random.default_rng(2**70 + 5).random(10).get()  # key > INT64_MAX
    assert big.shape == (10,)
    ad.random.seed(7)
    x = ad.random.rand(3, 4).get()
    ad.random.seed(7)
    np.testing.assert_array_equal(ad.random.rand(3, 4).get(), x)


@pytest.mark.parametrize("dt", ["f4", "f8"])
def test_random_uniform_normal(dt):
    g = ad.random.default_rng(0)
    u = g.random(N, dtype=dt)
    assert u.dtype == np.dtype(dt) and u.shape == (N,)
    uh = u.get()
    assert uh.min() >= 0 and uh.max() < 1
    assert abs(uh.mean() - 0.5) < 0.005 and abs(uh.var() - 1 / 12) < 0.002
    z = g.standard_normal((400, 500), dtype=dt)
    assert z.dtype == np.dtype(dt) and z.shape == (400, 500)
    zh = z.get().astype("f8")
    assert abs(zh.mean()) < 0.01 and abs(zh.std() - 1) < 0.01
    assert abs((zh ** 3).mean()) < 0.03 and abs((zh ** 4).mean() - 3) < 0.1


def test_scalar_and_empty_sizes():
    g = ad.random.default_rng(1)
    assert g.random().shape == ()
    assert g.standard_normal(0).shape == (0,)
    assert g.integers(5, size=(2, 0)).shape == (2, 0)


def test_normal_uniform_exponential():
    g = ad.random.default_rng(3)
    x = g.normal(2.0, 3.0, N).get()
    assert abs(x.mean() - 2) < 0.05 and abs(x.std() - 3) < 0.05
    loc = ad.asarray(np.array([0.0, 10.0]))
    y = g.normal(loc, 1.0, size=(N // 2, 2)).get()
    assert abs(y[:, 1].mean() - 10) < 0.05
    u = g.uniform(-2, 5, N).get()
    assert u.min() >= -2 and u.max() < 5 and abs(u.mean() - 1.5) < 0.05
    e = g.exponential(2.0, N).get()
    assert e.min() >= 0 and abs(e.mean() - 2) < 0.05
    with pytest.raises(ValueError):
        g.normal(0, -1.0)
    with pytest.raises(ValueError):
        g.exponential(-1.0)


@pytest.mark.parametrize("dt", ["i1", "i2", "i4", "i8", "u1", "u2", "u4",
                                "u8", "?"])
def test_integers(dt):
    g = ad.random.default_rng(5)
    hi = 2 if dt == "?" else 100
    x = g.integers(0, hi, N, dtype=dt)
    assert x.dtype == np.dtype(dt)
    xh = x.get().astype(np.int64)
    assert xh.min() == 0 and xh.max() == hi - 1
    counts = np.bincount(xh, minlength=hi)
    assert counts.min() > N / hi * 0.8
    y = g.integers(-3, 3, 1000, endpoint=True).get()
    assert y.min() == -3 and y.max() == 3 and y.dtype == np.int64


def test_integers_wide_ranges_and_errors():
    g = ad.random.default_rng(6)
    x = g.integers(np.iinfo("i8").min, np.iinfo("i8").max, 1000).get()
    assert x.min() < -2**60 and x.max() > 2**60
    u = g.integers(0, 2**64 - 1, 1000, dtype="u8", endpoint=True).get()
    assert u.max() > 2**63
    with pytest.raises(ValueError):
        g.integers(5, 5)
    with pytest.raises(ValueError):
        g.integers(0, 300, dtype="u1")
    with pytest.raises(ValueError):
        g.integers(-1, 3, dtype="u4")
    with pytest.raises(TypeError):
        g.integers(0, 3, dtype="f4")
    with pytest.raises(TypeError):
        g.random(3, dtype="f2")
    x = ad.random.randint(10, size=100).get()
    assert x.min() >= 0 and x.max() < 10


@pytest.mark.parametrize("lam", [0.0, 0.5, 4.0, 300.0])
def test_poisson(lam):
    g = ad.random.default_rng(8)
    x = g.poisson(lam, N)
    assert x.dtype == np.int64 and x.shape == (N,)
    xh = x.get()
    assert xh.min() >= 0
    tol = 0.02 * max(lam, 1) ** 0.5 + 0.01
    assert abs(xh.mean() - lam) < tol * max(lam, 1) ** 0.5
    assert abs(xh.var() - lam) < 0.05 * max(lam, 1)
    with pytest.raises(ValueError):
        g.poisson(-1.0)


def test_choice():
    g = ad.random.default_rng(9)
    x = g.choice(5, N).get()
    assert set(np.unique(x)) == set(range(5))
    p = [0.1, 0.0, 0.6, 0.3]
    y = g.choice(4, N, p=p).get()
    freq = np.bincount(y, minlength=4) / N
    np.testing.assert_allclose(freq, p, atol=0.01)
    z = g.choice(10, 10, replace=False).get()
    assert sorted(z.tolist()) == list(range(10))
    w = g.choice(ad.asarray(np.array([10.0, 20.0, 30.0])), (2, 2)).get()
    assert w.shape == (2, 2) and set(w.ravel()) <= {10.0, 20.0, 30.0}
    v = g.choice(4, 2, replace=False, p=p).get()
    assert 1 not in v.tolist() and len(set(v.tolist())) == 2
    with pytest.raises(ValueError):
        g.choice(3, 5, replace=False)
    with pytest.raises(ValueError):
        g.choice(3, 2, p=[0.5, 0.5, 0.5])
    with pytest.raises(ValueError):
        g.choice(3, 2, p=[1.5, -0.5, 0.0])
    with pytest.raises(ValueError):
        g.choice(-1)
    assert ad.random.choice(3, 10).shape == (10,)


def test_permutation_shuffle():
    g = ad.random.default_rng(10)
    p = g.permutation(100).get()
    assert sorted(p.tolist()) == list(range(100)) and p.dtype == np.int64
    x = np.arange(12).reshape(4, 3)
    q = g.permutation(ad.asarray(x)).get()
    assert sorted(q[:, 0].tolist()) == [0, 3, 6, 9]
    np.testing.assert_array_equal(q[:, 1] - q[:, 0], 1)
    a = ad.asarray(x)
    g.shuffle(a)
    ah = a.get()
    assert sorted(ah[:, 0].tolist()) == [0, 3, 6, 9]
    r = g.permuted(ad.asarray(x), axis=1).get()
    np.testing.assert_array_equal(np.sort(r, axis=1), x)
    with pytest.raises(TypeError):
        g.shuffle(ad.asarray(np.float64(1.0)))
    with pytest.raises(TypeError):
        g.shuffle([1, 2, 3])
    b = ad.arange(10)
    ad.random.shuffle(b)
    assert sorted(b.get().tolist()) == list(range(10))
    assert sorted(ad.random.permutation(5).get().tolist()) == list(range(5))


def test_legacy_functions():
    ad.random.seed(0)
    assert ad.random.randn(2, 3).shape == (2, 3)
    assert ad.random.random_sample((4,)).dtype == np.float64
    assert ad.random.random((4,)).shape == (4,)
    assert ad.random.normal(size=3).shape == (3,)
    assert ad.random.uniform(size=3).shape == (3,)
    assert ad.random.rand().shape == ()


@pytest.mark.parametrize("dt", ["f4", "f8"])
def test_draws_of_any_length_never_reuse_values(dt):
    # A draw uses whole Philox blocks (4 float32 or 2 float64 values): the
    # next draw starts at the next block, never inside one already used.
    g = ad.random.default_rng(9)
    parts = [g.random(k, dtype=dt).get() for k in (3, 1, 5, 2)]
    allv = np.concatenate(parts)
    assert len(np.unique(allv)) == allv.size
    k = 16 // np.dtype(dt).itemsize
    whole = ad.random.default_rng(9).random(4 * k * 4, dtype=dt).get()
    starts = np.cumsum([0] + [-(-len(p) // k) * k for p in parts[:-1]])
    for p, s0 in zip(parts, starts):
        np.testing.assert_array_equal(p, whole[s0:s0 + len(p)])
    z = ad.random.default_rng(9).standard_normal(7, dtype=dt).get()
    assert np.isfinite(z).all() and len(np.unique(z)) == 7


def _ks_distance(x, y):
    """Two-sample Kolmogorov-Smirnov distance of the empirical CDFs."""
    x, y = np.sort(x), np.sort(y)
    grid = np.concatenate([x, y])
    fx = np.searchsorted(x, grid, side="right") / x.size
    fy = np.searchsorted(y, grid, side="right") / y.size
    return np.abs(fx - fy).max()


# (method, args): the distribution of ad's samples against NumPy's.
CLOSED_FORM = [
    ("lognormal", (0.5, 0.75)), ("laplace", (1.0, 2.0)),
    ("logistic", (-1.0, 0.5)), ("gumbel", (2.0, 3.0)), ("rayleigh", (2.0,)),
    ("weibull", (1.5,)), ("pareto", (3.0,)), ("power", (2.5,)),
    ("standard_cauchy", ()), ("geometric", (0.3,)),
    ("triangular", (-1.0, 0.5, 4.0)), ("standard_exponential", ()),
]


def _check_matches_numpy(name, args, seed):
    got = getattr(ad.random.default_rng(seed), name)(*args, size=N)
    ref = getattr(np.random.default_rng(seed), name)(*args, size=N)
    assert got.shape == (N,) and got.dtype == ref.dtype
    g = got.get()
    assert np.isfinite(g).all()
    # 2-sample KS at n = m = 2e5: a distance above 0.01 has p < 1e-7.
    assert _ks_distance(g, ref) < 0.01, name
    # The module-level function draws the same distribution.
    assert getattr(ad.random, name)(*args, size=(2, 3)).shape == (2, 3)


@pytest.mark.parametrize("name,args", CLOSED_FORM, ids=[c[0] for c in CLOSED_FORM])
def test_closed_form_distributions_match_numpy(name, args):
    _check_matches_numpy(name, args, 11)


def test_closed_form_ranges_and_parameters():
    g = ad.random.default_rng(5)
    assert g.geometric(0.5, size=1000).get().min() >= 1
    assert (g.geometric(1.0, size=10).get() == 1).all()
    p = g.power(3.0, size=1000).get()
    assert p.min() >= 0 and p.max() <= 1
    t = g.triangular(2, 2, 3, size=1000).get()
    assert t.min() >= 2 and t.max() <= 3
    assert g.weibull(0.0, size=5).get().tolist() == [0.0] * 5
    loc = ad.asarray(np.array([0.0, 100.0]))
    x = g.laplace(loc, 1.0, size=(N // 2, 2)).get()
    assert abs(x[:, 1].mean() - 100) < 0.05 and abs(x[:, 0].mean()) < 0.05
    w = g.weibull(ad.asarray(np.array([0.0, 2.0])), size=(4, 2)).get()
    assert (w[:, 0] == 0).all() and (w[:, 1] > 0).all()


@pytest.mark.parametrize("call,message", [
    (lambda g: g.rayleigh(-1.0), "scale < 0"),
    (lambda g: g.laplace(0.0, -1.0), "scale < 0"),
    (lambda g: g.weibull(-1.0), "a < 0"),
    (lambda g: g.pareto(0.0), "a <= 0"),
    (lambda g: g.power(0.0), "a <= 0"),
    (lambda g: g.geometric(0.0), "p <= 0"),
    (lambda g: g.geometric(1.5), "p <= 0"),
    (lambda g: g.geometric(float("nan")), "p <= 0"),
    (lambda g: g.triangular(0, 5, 3), "mode > right"),
    (lambda g: g.triangular(2, 1, 3), "left > mode"),
    (lambda g: g.triangular(1, 1, 1), "left == right"),
    (lambda g: g.lognormal(0.0, -1.0), "sigma < 0"),
])
def test_closed_form_bad_parameters_raise_numpys_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call(ad.random.default_rng(0))
    with pytest.raises(ValueError, match=message):
        call(np.random.default_rng(0))


GAMMA_FAMILY = [
    ("standard_gamma", (0.3,)), ("standard_gamma", (1.0,)), ("standard_gamma", (7.5,)),
    ("gamma", (2.5, 3.0)), ("chisquare", (4.0,)), ("standard_t", (3.0,)),
    ("beta", (0.5, 2.0)), ("f", (5.0, 7.0)),
]


@pytest.mark.parametrize("name,args", GAMMA_FAMILY,
                         ids=[f"{c[0]}{c[1]}" for c in GAMMA_FAMILY])
def test_gamma_family_matches_numpy(name, args):
    _check_matches_numpy(name, args, 13)


def test_gamma_family_shapes_dtypes_and_parameters():
    g = ad.random.default_rng(4)
    assert g.standard_gamma(2.0).shape == ()
    assert g.standard_gamma(0.0, size=4).get().tolist() == [0.0] * 4
    assert g.standard_gamma(2.0, size=10, dtype=np.float32).dtype == np.float32
    shape = ad.asarray(np.array([0.5, 1.0, 4.0]))
    x = g.gamma(shape, 2.0, size=(N // 3, 3)).get()
    np.testing.assert_allclose(x.mean(axis=0), [1.0, 2.0, 8.0], rtol=0.03)
    d = g.dirichlet([1.0, 2.0, 3.0], size=(N // 10,)).get()
    assert d.shape == (N // 10, 3)
    np.testing.assert_allclose(d.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(d.mean(axis=0), [1 / 6, 2 / 6, 3 / 6], atol=0.005)
    assert g.standard_gamma(3.0, size=(2, 0)).shape == (2, 0)


@pytest.mark.parametrize("call,message", [
    (lambda g: g.standard_gamma(-1.0), "shape < 0"),
    (lambda g: g.gamma(1.0, -1.0), "scale < 0"),
    (lambda g: g.chisquare(0.0), "df <= 0"),
    (lambda g: g.standard_t(0.0), "df <= 0"),
    (lambda g: g.beta(0.0, 1.0), "a <= 0"),
    (lambda g: g.beta(1.0, 0.0), "b <= 0"),
    (lambda g: g.f(0.0, 1.0), "dfnum <= 0"),
    (lambda g: g.f(1.0, 0.0), "dfden <= 0"),
    (lambda g: g.dirichlet([1.0, -1.0]), "alpha < 0"),
])
def test_gamma_family_bad_parameters_raise_numpys_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call(ad.random.default_rng(0))
    with pytest.raises(ValueError, match=message):
        call(np.random.default_rng(0))


@pytest.mark.parametrize("name,args", [("wald", (1.5, 2.0)), ("binomial", (20, 0.3)),
                                       ("binomial", (1000, 0.01))],
                         ids=["wald", "binomial", "binomial-rare"])
def test_wald_binomial_match_numpy(name, args):
    got = getattr(ad.random.default_rng(17), name)(*args, size=N)
    ref = getattr(np.random.default_rng(17), name)(*args, size=N)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    assert _ks_distance(got.get(), ref) < 0.01


def test_binomial_edges_and_errors():
    g = ad.random.default_rng(2)
    assert g.binomial(0, 0.5, size=3).get().tolist() == [0, 0, 0]
    assert g.binomial(7, 1.0, size=3).get().tolist() == [7, 7, 7]
    assert g.binomial(7, 0.0, size=2).get().tolist() == [0, 0]
    b = g.binomial(5, 0.5, size=1000).get()
    assert b.min() >= 0 and b.max() <= 5
    for call, message in [(lambda r: r.binomial(-1, 0.5), "n < 0"),
                          (lambda r: r.binomial(5, 1.5), "p < 0, p > 1"),
                          (lambda r: r.wald(0.0, 1.0), "mean <= 0"),
                          (lambda r: r.wald(1.0, 0.0), "scale <= 0")]:
        with pytest.raises(ValueError, match=message):
            call(g)
        with pytest.raises(ValueError, match=message):
            call(np.random.default_rng(0))
    # Array parameters draw per element.
    draws = g.binomial(ad.asarray(np.array([3, 0, 400])), 0.5).get()
    assert draws.shape == (3,) and 0 <= draws[0] <= 3 and draws[1] == 0
    assert 100 < draws[2] < 300


def test_multivariate_normal():
    mean = np.array([1.0, -2.0, 0.5])
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    for method in ("svd", "eigh", "cholesky"):
        x = ad.random.default_rng(8).multivariate_normal(mean, cov, size=N // 2,
                                                         method=method)
        assert x.shape == (N // 2, 3) and x.dtype == np.float64
        h = x.get()
        np.testing.assert_allclose(h.mean(axis=0), mean, atol=0.02)
        np.testing.assert_allclose(np.cov(h.T), cov, atol=0.02)
    assert ad.random.default_rng(1).multivariate_normal(mean, cov).shape == (3,)
    assert ad.random.default_rng(1).multivariate_normal(mean, cov, size=(2, 4)).shape == (2, 4, 3)
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.warns(RuntimeWarning, match="positive-semidefinite"):
        ad.random.default_rng(1).multivariate_normal([0.0, 0.0], bad)
    with pytest.raises(ValueError, match="positive-semidefinite"):
        ad.random.default_rng(1).multivariate_normal([0.0, 0.0], bad, check_valid="raise")
    with pytest.raises(ValueError, match="same length"):
        ad.random.default_rng(1).multivariate_normal([0.0, 0.0, 0.0], np.eye(2))
    assert ad.random.multivariate_normal([0.0], [[1.0]], size=4).shape == (4, 1)


# -- integers, poisson and permutation are server ops; the server derives
# the Philox key from the seed (ops/random.cc) -------------------------------

def test_streams_match_the_cpp_client():
    # The values client-cpp/tests/numeric_test.cc pins for the same calls.
    g = ad.random.default_rng(42)
    assert g.integers(0, 10, 8).get().tolist() == [2, 6, 8, 7, 3, 7, 8, 5]
    p = ad.random.default_rng(2024)
    assert p.poisson(3.5, 10).get().tolist() == [3, 3, 5, 3, 6, 6, 2, 3, 5, 2]
    assert p.poisson(0.0, 2).get().tolist() == [0, 0]
    assert p.poisson(1000.0, 4).get().tolist() == [979, 1030, 1050, 993]
    q = ad.random.default_rng(11)
    assert q.permutation(8).get().tolist() == [2, 0, 6, 5, 3, 4, 1, 7]


def test_seed_words():
    a = ad.random.default_rng([1, 2]).random(4).get()
    np.testing.assert_array_equal(ad.random.default_rng([1, 2]).random(4).get(), a)
    assert not np.array_equal(ad.random.default_rng(1).random(4).get(), a)
    np.testing.assert_array_equal(ad.random.default_rng([]).random(4).get(),
                                  ad.random.default_rng(0).random(4).get())
    assert not np.array_equal(ad.random.default_rng(2**70 + 5).random(4).get(),
                              ad.random.default_rng(5).random(4).get())
    with pytest.raises(ValueError):
        ad.random.default_rng(-1)


def test_integers_poisson_permutation_edges_and_errors():
    g = ad.random.default_rng(12)
    u = g.integers(2**63, 2**64, 1000, dtype="u8").get()
    assert u.min() >= 2**63 and u.dtype == np.uint64
    b = g.integers(0, 2, 100, dtype="?").get()
    assert b.dtype == np.bool_ and b.any() and not b.all()
    assert g.integers(7, 8, 5).get().tolist() == [7] * 5
    with pytest.raises(ValueError):
        g.integers(0, 2**64 + 1, dtype="u8")
    with pytest.raises(ValueError):
        g.poisson(float("nan"))
    big = g.poisson(1e9, 1000).get()  # far above the inversion's range
    assert abs(big.mean() - 1e9) < 1e4
    x = np.arange(12.0).reshape(3, 4)
    q = g.permutation(ad.asarray(x), axis=1).get()
    np.testing.assert_array_equal(np.sort(q, axis=1), x)
    assert g.permutation(ad.zeros((0, 2))).shape == (0, 2)
    with pytest.raises(np.exceptions.AxisError):
        g.permutation(ad.asarray(x), axis=2)
    with pytest.raises(np.exceptions.AxisError):
        g.permutation(ad.asarray(np.float64(1.0)))
    with pytest.raises(ValueError):
        g.permutation(-1)
