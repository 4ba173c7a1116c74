"""numpy.random's module-level distributions: each draws from the
module-level RandomState (_generator.get_random_state()), with CuPy's
``dtype=`` where CuPy has one.

Layer: the random namespace, above _generator.
"""
from __future__ import annotations

from typing import Any

from arrayd._ndarray import ndarray
from arrayd.random._generator import get_random_state


def beta(a: Any, b: Any, size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().beta(a, b, size, dtype)


def binomial(n: Any, p: Any, size: Any = None, dtype: Any = int) -> ndarray:
    return get_random_state().binomial(n, p, size, dtype)


def chisquare(df: Any, size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().chisquare(df, size, dtype)


def dirichlet(alpha: Any, size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().dirichlet(alpha, size, dtype)


def exponential(scale: Any = 1.0, size: Any = None,
                dtype: Any = float) -> ndarray:
    return get_random_state().exponential(scale, size, dtype)


def f(dfnum: Any, dfden: Any, size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().f(dfnum, dfden, size, dtype)


def gamma(shape: Any, scale: Any = 1.0, size: Any = None,
          dtype: Any = float) -> ndarray:
    return get_random_state().gamma(shape, scale, size, dtype)


def geometric(p: Any, size: Any = None, dtype: Any = int) -> ndarray:
    return get_random_state().geometric(p, size, dtype)


def gumbel(loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
           dtype: Any = float) -> ndarray:
    return get_random_state().gumbel(loc, scale, size, dtype)


def hypergeometric(ngood: Any, nbad: Any, nsample: Any, size: Any = None,
                   dtype: Any = int) -> ndarray:
    return get_random_state().hypergeometric(ngood, nbad, nsample, size, dtype)


def laplace(loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
            dtype: Any = float) -> ndarray:
    return get_random_state().laplace(loc, scale, size, dtype)


def logistic(loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
             dtype: Any = float) -> ndarray:
    return get_random_state().logistic(loc, scale, size, dtype)


def lognormal(mean: Any = 0.0, sigma: Any = 1.0, size: Any = None,
              dtype: Any = float) -> ndarray:
    return get_random_state().lognormal(mean, sigma, size, dtype)


def logseries(p: Any, size: Any = None, dtype: Any = int) -> ndarray:
    return get_random_state().logseries(p, size, dtype)


def multivariate_normal(mean: Any, cov: Any, size: Any = None,
                        check_valid: str = "warn", tol: float = 1e-8,
                        dtype: Any = float) -> ndarray:
    return get_random_state().multivariate_normal(mean, cov, size,
                                                  check_valid, tol, dtype)


def negative_binomial(n: Any, p: Any, size: Any = None,
                      dtype: Any = int) -> ndarray:
    return get_random_state().negative_binomial(n, p, size, dtype)


def noncentral_chisquare(df: Any, nonc: Any, size: Any = None,
                         dtype: Any = float) -> ndarray:
    return get_random_state().noncentral_chisquare(df, nonc, size, dtype)


def noncentral_f(dfnum: Any, dfden: Any, nonc: Any, size: Any = None,
                 dtype: Any = float) -> ndarray:
    return get_random_state().noncentral_f(dfnum, dfden, nonc, size, dtype)


def normal(loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
           dtype: Any = float) -> ndarray:
    return get_random_state().normal(loc, scale, size, dtype)


def pareto(a: Any, size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().pareto(a, size, dtype)


def poisson(lam: Any = 1.0, size: Any = None, dtype: Any = int) -> ndarray:
    return get_random_state().poisson(lam, size, dtype)


def power(a: Any, size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().power(a, size, dtype)


def rayleigh(scale: Any = 1.0, size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().rayleigh(scale, size, dtype)


def standard_cauchy(size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().standard_cauchy(size, dtype)


def standard_exponential(size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().standard_exponential(size, dtype)


def standard_gamma(shape: Any, size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().standard_gamma(shape, size, dtype)


def standard_normal(size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().standard_normal(size, dtype)


def standard_t(df: Any, size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().standard_t(df, size, dtype)


def triangular(left: Any, mode: Any, right: Any, size: Any = None,
               dtype: Any = float) -> ndarray:
    return get_random_state().triangular(left, mode, right, size, dtype)


def uniform(low: Any = 0.0, high: Any = 1.0, size: Any = None,
            dtype: Any = float) -> ndarray:
    return get_random_state().uniform(low, high, size, dtype)


def vonmises(mu: Any, kappa: Any, size: Any = None,
             dtype: Any = float) -> ndarray:
    return get_random_state().vonmises(mu, kappa, size, dtype)


def wald(mean: Any, scale: Any, size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().wald(mean, scale, size, dtype)


def weibull(a: Any, size: Any = None, dtype: Any = float) -> ndarray:
    return get_random_state().weibull(a, size, dtype)


def zipf(a: Any, size: Any = None, dtype: Any = int) -> ndarray:
    return get_random_state().zipf(a, size, dtype)
