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
    """Samples of the Beta(a, b) distribution (numpy.random.beta), from the
    module-level RandomState."""
    return get_random_state().beta(a, b, size, dtype)


def binomial(n: Any, p: Any, size: Any = None, dtype: Any = int) -> ndarray:
    """Samples of the binomial distribution: successes in n trials of
    probability p (numpy.random.binomial), from the module-level
    RandomState."""
    return get_random_state().binomial(n, p, size, dtype)


def chisquare(df: Any, size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of the chi-square distribution with df degrees of freedom
    (numpy.random.chisquare), from the module-level RandomState."""
    return get_random_state().chisquare(df, size, dtype)


def dirichlet(alpha: Any, size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of the Dirichlet distribution of concentrations alpha (each
    sample a vector that sums to 1) (numpy.random.dirichlet), from the
    module-level RandomState."""
    return get_random_state().dirichlet(alpha, size, dtype)


def exponential(scale: Any = 1.0, size: Any = None,
                dtype: Any = float) -> ndarray:
    """Samples of the exponential distribution of mean scale
    (numpy.random.exponential), from the module-level RandomState."""
    return get_random_state().exponential(scale, size, dtype)


def f(dfnum: Any, dfden: Any, size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of the F distribution with dfnum and dfden degrees of freedom
    (numpy.random.f), from the module-level RandomState."""
    return get_random_state().f(dfnum, dfden, size, dtype)


def gamma(shape: Any, scale: Any = 1.0, size: Any = None,
          dtype: Any = float) -> ndarray:
    """Samples of the gamma distribution of the given shape and scale
    (numpy.random.gamma), from the module-level RandomState."""
    return get_random_state().gamma(shape, scale, size, dtype)


def geometric(p: Any, size: Any = None, dtype: Any = int) -> ndarray:
    """Samples of the geometric distribution: trials up to the first success of
    probability p (numpy.random.geometric), from the module-level
    RandomState."""
    return get_random_state().geometric(p, size, dtype)


def gumbel(loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
           dtype: Any = float) -> ndarray:
    """Samples of the Gumbel (extreme value type I) distribution of loc and
    scale (numpy.random.gumbel), from the module-level RandomState."""
    return get_random_state().gumbel(loc, scale, size, dtype)


def hypergeometric(ngood: Any, nbad: Any, nsample: Any, size: Any = None,
                   dtype: Any = int) -> ndarray:
    """Samples of the hypergeometric distribution: good items among nsample
    drawn without replacement from ngood good and nbad bad ones
    (numpy.random.hypergeometric), from the module-level RandomState."""
    return get_random_state().hypergeometric(ngood, nbad, nsample, size, dtype)


def laplace(loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
            dtype: Any = float) -> ndarray:
    """Samples of the Laplace (double exponential) distribution of loc and
    scale (numpy.random.laplace), from the module-level RandomState."""
    return get_random_state().laplace(loc, scale, size, dtype)


def logistic(loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
             dtype: Any = float) -> ndarray:
    """Samples of the logistic distribution of loc and scale
    (numpy.random.logistic), from the module-level RandomState."""
    return get_random_state().logistic(loc, scale, size, dtype)


def lognormal(mean: Any = 0.0, sigma: Any = 1.0, size: Any = None,
              dtype: Any = float) -> ndarray:
    """Samples of the log-normal distribution: exp of a normal of the given
    mean and sigma (numpy.random.lognormal), from the module-level
    RandomState."""
    return get_random_state().lognormal(mean, sigma, size, dtype)


def logseries(p: Any, size: Any = None, dtype: Any = int) -> ndarray:
    """Samples of the logarithmic series distribution of parameter p
    (numpy.random.logseries), from the module-level RandomState."""
    return get_random_state().logseries(p, size, dtype)


def multivariate_normal(mean: Any, cov: Any, size: Any = None,
                        check_valid: str = "warn", tol: float = 1e-8,
                        dtype: Any = float) -> ndarray:
    """Samples of the multivariate normal distribution of mean vector mean and
    covariance matrix cov (numpy.random.multivariate_normal), from the
    module-level RandomState."""
    return get_random_state().multivariate_normal(mean, cov, size,
                                                  check_valid, tol, dtype)


def negative_binomial(n: Any, p: Any, size: Any = None,
                      dtype: Any = int) -> ndarray:
    """Samples of the negative binomial distribution: failures before n
    successes of probability p (numpy.random.negative_binomial), from the
    module-level RandomState."""
    return get_random_state().negative_binomial(n, p, size, dtype)


def noncentral_chisquare(df: Any, nonc: Any, size: Any = None,
                         dtype: Any = float) -> ndarray:
    """Samples of the noncentral chi-square distribution of df degrees of
    freedom and noncentrality nonc (numpy.random.noncentral_chisquare), from
    the module-level RandomState."""
    return get_random_state().noncentral_chisquare(df, nonc, size, dtype)


def noncentral_f(dfnum: Any, dfden: Any, nonc: Any, size: Any = None,
                 dtype: Any = float) -> ndarray:
    """Samples of the noncentral F distribution of dfnum and dfden degrees of
    freedom and noncentrality nonc (numpy.random.noncentral_f), from the
    module-level RandomState."""
    return get_random_state().noncentral_f(dfnum, dfden, nonc, size, dtype)


def normal(loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
           dtype: Any = float) -> ndarray:
    """Samples of the normal distribution of mean loc and standard deviation
    scale (numpy.random.normal), from the module-level RandomState."""
    return get_random_state().normal(loc, scale, size, dtype)


def pareto(a: Any, size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of the Pareto II (Lomax) distribution of shape a
    (numpy.random.pareto), from the module-level RandomState."""
    return get_random_state().pareto(a, size, dtype)


def poisson(lam: Any = 1.0, size: Any = None, dtype: Any = int) -> ndarray:
    """Samples of the Poisson distribution of rate lam (numpy.random.poisson),
    from the module-level RandomState."""
    return get_random_state().poisson(lam, size, dtype)


def power(a: Any, size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of the power distribution of exponent a on [0, 1]
    (numpy.random.power), from the module-level RandomState."""
    return get_random_state().power(a, size, dtype)


def rayleigh(scale: Any = 1.0, size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of the Rayleigh distribution of mode scale
    (numpy.random.rayleigh), from the module-level RandomState."""
    return get_random_state().rayleigh(scale, size, dtype)


def standard_cauchy(size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of the standard Cauchy distribution
    (numpy.random.standard_cauchy), from the module-level RandomState."""
    return get_random_state().standard_cauchy(size, dtype)


def standard_exponential(size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of the standard exponential distribution (mean 1)
    (numpy.random.standard_exponential), from the module-level RandomState."""
    return get_random_state().standard_exponential(size, dtype)


def standard_gamma(shape: Any, size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of the gamma distribution of the given shape and scale 1
    (numpy.random.standard_gamma), from the module-level RandomState."""
    return get_random_state().standard_gamma(shape, size, dtype)


def standard_normal(size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of the standard normal distribution
    (numpy.random.standard_normal), from the module-level RandomState."""
    return get_random_state().standard_normal(size, dtype)


def standard_t(df: Any, size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of Student's t distribution with df degrees of freedom
    (numpy.random.standard_t), from the module-level RandomState."""
    return get_random_state().standard_t(df, size, dtype)


def triangular(left: Any, mode: Any, right: Any, size: Any = None,
               dtype: Any = float) -> ndarray:
    """Samples of the triangular distribution on [left, right] with its peak at
    mode (numpy.random.triangular), from the module-level RandomState."""
    return get_random_state().triangular(left, mode, right, size, dtype)


def uniform(low: Any = 0.0, high: Any = 1.0, size: Any = None,
            dtype: Any = float) -> ndarray:
    """Samples of the uniform distribution on [low, high)
    (numpy.random.uniform), from the module-level RandomState."""
    return get_random_state().uniform(low, high, size, dtype)


def vonmises(mu: Any, kappa: Any, size: Any = None,
             dtype: Any = float) -> ndarray:
    """Samples of the von Mises distribution of mode mu and concentration
    kappa, on [-pi, pi] (numpy.random.vonmises), from the module-level
    RandomState."""
    return get_random_state().vonmises(mu, kappa, size, dtype)


def wald(mean: Any, scale: Any, size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of the Wald (inverse Gaussian) distribution of the given mean
    and scale (numpy.random.wald), from the module-level RandomState."""
    return get_random_state().wald(mean, scale, size, dtype)


def weibull(a: Any, size: Any = None, dtype: Any = float) -> ndarray:
    """Samples of the Weibull distribution of shape a (numpy.random.weibull),
    from the module-level RandomState."""
    return get_random_state().weibull(a, size, dtype)


def zipf(a: Any, size: Any = None, dtype: Any = int) -> ndarray:
    """Samples of the Zipf distribution of parameter a > 1 (numpy.random.zipf),
    from the module-level RandomState."""
    return get_random_state().zipf(a, size, dtype)
