"""arrayd.random: random numbers generated on the server (numpy.random's API).

The server's random ops are counter-based Philox4x32-10 streams: each
block f(counter, key) gives four float32 or two float64 values, and a draw
of n values starting at block ``offset`` uses blocks offset .. offset +
ceil(n / K) - 1. A Generator holds (seed, offset): the ops carry the
seed's 64-bit words and the server derives the key from them
(ops/random.cc, the same derivation for the C++ client), and the
Generator advances the offset past the blocks each op uses (its doc in the
server's registry says how many), so the same seed gives the same numbers
in both clients, on every backend and launch shape (uniform draws bit for
bit; normal draws up to the last bits of the platform's log/sin/cos).
integers, poisson, permutation, shuffle, choice, exponential and the
parameters of normal and uniform are server ops of their own. The
streams are arrayd's own: the numbers differ from NumPy's for the same
seed.

Draws return arrayd arrays; with ``size=None`` a 0-d array (as CuPy).

Layer: a public namespace, above the function modules it draws with.
"""
from __future__ import annotations

from typing import Any

from arrayd._ndarray import ndarray
from arrayd.random._generator import Generator


def default_rng(seed: Any = None) -> Generator:
    """A Generator seeded with ``seed`` (an int, a sequence of ints, None for
    OS entropy, or a Generator, returned as is)."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed)


# -- legacy module-level functions (numpy.random.*) -------------------------

_global = Generator(None)


def seed(seed: Any = None) -> None:
    """Reseeds the module-level generator."""
    global _global
    _global = Generator(seed)


def get_random_state() -> Generator:
    return _global


def rand(*shape: int) -> ndarray:
    """Uniform float64 in [0, 1) of the given shape."""
    return _global.random(shape if shape else None)


def randn(*shape: int) -> ndarray:
    """Standard normal float64 of the given shape."""
    return _global.standard_normal(shape if shape else None)


def randint(low: Any, high: Any = None, size: Any = None,
            dtype: Any = int) -> ndarray:
    """Integers in [low, high) (legacy numpy.random.randint)."""
    return _global.integers(low, high, size, dtype)


def random_integers(low: Any, high: Any = None, size: Any = None) -> ndarray:
    if high is None:
        low, high = 1, low
    return _global.integers(low, high, size, endpoint=True)


def random_sample(size: Any = None) -> ndarray:
    return _global.random(size)


def random(size: Any = None) -> ndarray:
    return _global.random(size)


ranf = sample = random_sample


def standard_normal(size: Any = None) -> ndarray:
    return _global.standard_normal(size)


def normal(loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> ndarray:
    return _global.normal(loc, scale, size)


def uniform(low: Any = 0.0, high: Any = 1.0, size: Any = None) -> ndarray:
    return _global.uniform(low, high, size)


def exponential(scale: Any = 1.0, size: Any = None) -> ndarray:
    return _global.exponential(scale, size)


def poisson(lam: Any = 1.0, size: Any = None) -> ndarray:
    return _global.poisson(lam, size)


def standard_exponential(size: Any = None) -> ndarray:
    return _global.standard_exponential(size)


def wald(mean: Any, scale: Any, size: Any = None) -> ndarray:
    return _global.wald(mean, scale, size)


def binomial(n: Any, p: Any, size: Any = None) -> ndarray:
    return _global.binomial(n, p, size)


def multivariate_normal(mean: Any, cov: Any, size: Any = None,
                        check_valid: str = "warn", tol: float = 1e-8) -> ndarray:
    return _global.multivariate_normal(mean, cov, size, check_valid, tol)


def standard_gamma(shape: Any, size: Any = None) -> ndarray:
    return _global.standard_gamma(shape, size)


def gamma(shape: Any, scale: Any = 1.0, size: Any = None) -> ndarray:
    return _global.gamma(shape, scale, size)


def chisquare(df: Any, size: Any = None) -> ndarray:
    return _global.chisquare(df, size)


def standard_t(df: Any, size: Any = None) -> ndarray:
    return _global.standard_t(df, size)


def beta(a: Any, b: Any, size: Any = None) -> ndarray:
    return _global.beta(a, b, size)


def f(dfnum: Any, dfden: Any, size: Any = None) -> ndarray:
    return _global.f(dfnum, dfden, size)


def dirichlet(alpha: Any, size: Any = None) -> ndarray:
    return _global.dirichlet(alpha, size)


def lognormal(mean: Any = 0.0, sigma: Any = 1.0, size: Any = None) -> ndarray:
    return _global.lognormal(mean, sigma, size)


def laplace(loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> ndarray:
    return _global.laplace(loc, scale, size)


def logistic(loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> ndarray:
    return _global.logistic(loc, scale, size)


def gumbel(loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> ndarray:
    return _global.gumbel(loc, scale, size)


def rayleigh(scale: Any = 1.0, size: Any = None) -> ndarray:
    return _global.rayleigh(scale, size)


def weibull(a: Any, size: Any = None) -> ndarray:
    return _global.weibull(a, size)


def pareto(a: Any, size: Any = None) -> ndarray:
    return _global.pareto(a, size)


def power(a: Any, size: Any = None) -> ndarray:
    return _global.power(a, size)


def standard_cauchy(size: Any = None) -> ndarray:
    return _global.standard_cauchy(size)


def geometric(p: Any, size: Any = None) -> ndarray:
    return _global.geometric(p, size)


def triangular(left: Any, mode: Any, right: Any, size: Any = None) -> ndarray:
    return _global.triangular(left, mode, right, size)


def permutation(x: Any) -> ndarray:
    return _global.permutation(x)


def shuffle(x: Any) -> None:
    _global.shuffle(x)


def choice(a: Any, size: Any = None, replace: bool = True,
           p: Any = None) -> ndarray:
    return _global.choice(a, size, replace, p)


__all__ = ["Generator", "beta", "binomial", "chisquare", "choice",
           "default_rng", "multivariate_normal", "wald",
           "dirichlet", "exponential", "f", "gamma", "geometric",
           "gumbel", "laplace", "logistic", "lognormal", "normal", "pareto",
           "permutation", "poisson", "power", "rand", "randint", "randn",
           "random", "random_integers", "random_sample", "ranf", "rayleigh",
           "sample", "seed", "shuffle", "standard_cauchy",
           "standard_exponential", "standard_gamma", "standard_normal",
           "standard_t", "triangular",
           "uniform", "weibull"]
