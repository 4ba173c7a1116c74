"""arrayd.random's legacy RandomState (numpy.random.RandomState) and the
table of module-level states behind numpy.random's functions.

A RandomState draws from a Philox4x3210 stream through a Generator of
its own: the laws are the Generator's, under the legacy names and
signatures (rand, randn, randint, random_integers, random_sample,
tomaxint, ...), with NumPy's legacy checks where they differ, and CuPy's
``dtype=`` keyword on the methods CuPy gives one (float32 or float64 for
the server's own draws and the laws CuPy draws the same way, any real
dtype for the composite laws, the result cast to it). The numbers differ
from NumPy's for the same seed (another generator); the same seed gives
the same numbers.

The module-level functions (random/_distributions.py, _sample.py,
_permutations.py) draw from ``get_random_state()``: one RandomState per
device, as CuPy's table ``_random_states``; arrayd's client sees one
device, so the table has one entry (key 0), made on first use, seeded
from $CUPY_SEED or $ARRAYD_SEED when set, else from OS entropy.

Layer: the random namespace, above _generator_api.
"""
from __future__ import annotations

import math
import operator
import os
import threading
import warnings
from typing import Any

import numpy as np

from arrayd import _composite as _c
from arrayd import _dtypes
from arrayd import _session as _sess
from arrayd._ndarray import ndarray
from arrayd.random._bit_generator import BitGenerator, Philox4x3210
from arrayd.random._generator_api import Generator, _shape

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_INT64 = np.dtype(np.int64)


def _check_and_get_dtype(dtype: Any) -> np.dtype:
    """A continuous law's ``dtype=``: float32 or float64, else TypeError."""
    dt = np.dtype(dtype)
    if dt.char not in "fd":
        raise TypeError("cupy.random only supports float32 and float64")
    return dt


def _real_dtype(dtype: Any) -> np.dtype:
    """A composite law's ``dtype=`` (CuPy's: the result is cast to it): a
    boolean, integer or float dtype, else TypeError."""
    dt = _dtypes.normalize(dtype)
    if dt.kind not in "biuf":
        raise TypeError(f"Unsupported dtype {dt!r}: a real dtype is required")
    return dt


def _as(x: ndarray, dt: np.dtype) -> ndarray:
    return x if x._dtype == dt else x.astype(dt)


def _size_from_args(size: tuple[Any, ...]) -> tuple[int, ...]:
    """rand's and randn's shape arguments (ints only, as NumPy's)."""
    return tuple(operator.index(d) for d in size)


class RandomState:
    """numpy.random.RandomState on the server: the legacy API over a
    Philox4x3210 stream seeded with ``seed`` (an int, a sequence of ints or
    None for OS entropy), or over a given BitGenerator. Thread-safe as its
    bit generator."""

    def __init__(self, seed: Any = None,
                 session: _sess.Session | None = None) -> None:
        bg = seed if isinstance(seed, BitGenerator) else Philox4x3210(
            seed, session)
        self._gen = Generator(bg)

    def __repr__(self) -> str:
        return f"RandomState(Philox4x3210) at {id(self):#X}"

    def seed(self, seed: Any = None) -> None:
        """Restarts the stream at ``seed`` (None: OS entropy)."""
        bg = self._gen.bit_generator
        bg.state = type(bg)(seed, bg._session).state

    def get_state(self) -> dict[str, Any]:
        """The stream's state: {'bit_generator': 'Philox4x3210', 'state':
        {'seed': words, 'offset': next block}} (arrayd's, not MT19937's)."""
        return self._gen.bit_generator.state

    def set_state(self, state: dict[str, Any]) -> None:
        """Restores a state get_state returned."""
        self._gen.bit_generator.state = state

    # -- uniform and normal draws ---------------------------------------------

    def random_sample(self, size: Any = None, dtype: Any = float) -> ndarray:
        """Uniform floats in [0, 1)."""
        return self._gen.random(size, _check_and_get_dtype(dtype))

    def random(self, size: Any = None) -> ndarray:
        """Uniform float64 in [0, 1) (random_sample)."""
        return self._gen.random(size)

    def rand(self, *size: Any, dtype: Any = float) -> ndarray:
        """Uniform floats in [0, 1) of shape ``size``."""
        return self._gen.random(_size_from_args(size),
                                _check_and_get_dtype(dtype))

    def randn(self, *size: Any, dtype: Any = float) -> ndarray:
        """Standard normal floats of shape ``size``."""
        return self._gen.standard_normal(_size_from_args(size),
                                         _check_and_get_dtype(dtype))

    def standard_normal(self, size: Any = None, dtype: Any = float) -> ndarray:
        """Samples of the standard normal distribution, of dtype float32 or
        float64."""
        return self._gen.standard_normal(size, _check_and_get_dtype(dtype))

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
               dtype: Any = float) -> ndarray:
        """Samples of the normal distribution of mean loc and standard
        deviation scale, of dtype float32 or float64."""
        return _as(self._gen.normal(loc, scale, size),
                   _check_and_get_dtype(dtype))

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None,
                dtype: Any = float) -> ndarray:
        """Samples of the uniform distribution on [low, high), of dtype float32
        or float64."""
        return _as(self._gen.uniform(low, high, size),
                   _check_and_get_dtype(dtype))

    # -- integers ----------------------------------------------------------

    def randint(self, low: Any, high: Any = None, size: Any = None,
                dtype: Any = int) -> ndarray:
        """Uniform integers in [low, high) (float bounds truncated, as
        NumPy's)."""
        dt = _dtypes.normalize(dtype)
        if dt.kind not in "biu":
            raise TypeError(f"Unsupported dtype {dt!r} for randint")
        return self._gen.integers(low, high, size, dt)

    def random_integers(self, low: Any, high: Any = None,
                        size: Any = None) -> ndarray:
        """Uniform integers in [low, high] (deprecated in NumPy: randint(low,
        high + 1))."""
        if high is None:
            warnings.warn(f"This function is deprecated. Please call "
                          f"randint(1, {low} + 1) instead",
                          DeprecationWarning, stacklevel=2)
            low, high = 1, low
        else:
            warnings.warn(f"This function is deprecated. Please call "
                          f"randint({low}, {high} + 1) instead",
                          DeprecationWarning, stacklevel=2)
        return self._gen.integers(low, high, size, _INT64, endpoint=True)

    def tomaxint(self, size: Any = None) -> ndarray:
        """Uniform int64 in [0, the int64 maximum]."""
        return self._gen.integers(0, int(np.iinfo(np.int64).max), size,
                                  _INT64, endpoint=True)

    def bytes(self, length: int) -> bytes:
        """length random bytes."""
        return self._gen.bytes(length)

    # -- continuous laws -------------------------------------------------------

    def beta(self, a: Any, b: Any, size: Any = None,
             dtype: Any = float) -> ndarray:
        """Samples of the Beta(a, b) distribution."""
        return _as(self._gen.beta(a, b, size), _real_dtype(dtype))

    def chisquare(self, df: Any, size: Any = None,
                  dtype: Any = float) -> ndarray:
        """Samples of the chi-square distribution with df degrees of
        freedom."""
        return _as(self._gen.chisquare(df, size), _real_dtype(dtype))

    def dirichlet(self, alpha: Any, size: Any = None,
                  dtype: Any = float) -> ndarray:
        """Samples of the Dirichlet distribution of concentrations alpha (each
        sample a vector that sums to 1)."""
        return _as(self._gen.dirichlet(alpha, size),
                   _real_dtype(dtype))

    def exponential(self, scale: Any = 1.0, size: Any = None,
                    dtype: Any = float) -> ndarray:
        """Samples of the exponential distribution of mean scale."""
        return _as(self._gen.exponential(scale, size),
                   _real_dtype(dtype))

    def f(self, dfnum: Any, dfden: Any, size: Any = None,
          dtype: Any = float) -> ndarray:
        """Samples of the F distribution with dfnum and dfden degrees of
        freedom."""
        return _as(self._gen.f(dfnum, dfden, size),
                   _real_dtype(dtype))

    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None,
              dtype: Any = float) -> ndarray:
        """Samples of the gamma distribution of the given shape and scale."""
        return _as(self._gen.gamma(shape, scale, size),
                   _real_dtype(dtype))

    def gumbel(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
               dtype: Any = float) -> ndarray:
        """Samples of the Gumbel (extreme value type I) distribution of loc and
        scale."""
        return _as(self._gen.gumbel(loc, scale, size),
                   _check_and_get_dtype(dtype))

    def laplace(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                dtype: Any = float) -> ndarray:
        """Samples of the Laplace (double exponential) distribution of loc and
        scale."""
        return _as(self._gen.laplace(loc, scale, size),
                   _check_and_get_dtype(dtype))

    def logistic(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 dtype: Any = float) -> ndarray:
        """Samples of the logistic distribution of loc and scale."""
        return _as(self._gen.logistic(loc, scale, size),
                   _real_dtype(dtype))

    def lognormal(self, mean: Any = 0.0, sigma: Any = 1.0, size: Any = None,
                  dtype: Any = float) -> ndarray:
        """Samples of the log-normal distribution: exp of a normal of the given
        mean and sigma."""
        return _as(self._gen.lognormal(mean, sigma, size),
                   _check_and_get_dtype(dtype))

    def multivariate_normal(self, mean: Any, cov: Any, size: Any = None,
                            check_valid: str = "warn", tol: float = 1e-8,
                            dtype: Any = float) -> ndarray:
        """Samples of the multivariate normal distribution of mean vector mean
        and covariance matrix cov."""
        return _as(self._gen.multivariate_normal(mean, cov, size, check_valid,
                                                 tol),
                   _real_dtype(dtype))

    def noncentral_chisquare(self, df: Any, nonc: Any, size: Any = None,
                             dtype: Any = float) -> ndarray:
        """Samples of the noncentral chi-square distribution of df degrees of
        freedom and noncentrality nonc."""
        return _as(self._gen.noncentral_chisquare(df, nonc, size),
                   _real_dtype(dtype))

    def noncentral_f(self, dfnum: Any, dfden: Any, nonc: Any,
                     size: Any = None, dtype: Any = float) -> ndarray:
        """Samples of the noncentral F distribution of dfnum and dfden degrees
        of freedom and noncentrality nonc."""
        return _as(self._gen.noncentral_f(dfnum, dfden, nonc, size),
                   _real_dtype(dtype))

    def pareto(self, a: Any, size: Any = None, dtype: Any = float) -> ndarray:
        """Samples of the Pareto II (Lomax) distribution of shape a."""
        return _as(self._gen.pareto(a, size), _check_and_get_dtype(dtype))

    def power(self, a: Any, size: Any = None, dtype: Any = float) -> ndarray:
        """Samples of the power distribution of exponent a on [0, 1]."""
        return _as(self._gen.power(a, size), _real_dtype(dtype))

    def rayleigh(self, scale: Any = 1.0, size: Any = None,
                 dtype: Any = float) -> ndarray:
        """Samples of the Rayleigh distribution of mode scale."""
        return _as(self._gen.rayleigh(scale, size),
                   _check_and_get_dtype(dtype))

    def standard_cauchy(self, size: Any = None,
                        dtype: Any = float) -> ndarray:
        """Samples of the standard Cauchy distribution."""
        return _as(self._gen.standard_cauchy(size),
                   _real_dtype(dtype))

    def standard_exponential(self, size: Any = None,
                             dtype: Any = float) -> ndarray:
        """Samples of the standard exponential distribution (mean 1)."""
        return self._gen.standard_exponential(size,
                                              _check_and_get_dtype(dtype))

    def standard_gamma(self, shape: Any, size: Any = None,
                       dtype: Any = float) -> ndarray:
        """Samples of the gamma distribution of the given shape and scale 1."""
        dt = _real_dtype(dtype)
        if dt.char in "fd":
            return self._gen.standard_gamma(shape, size, dt)
        return _as(self._gen.standard_gamma(shape, size), dt)

    def standard_t(self, df: Any, size: Any = None,
                   dtype: Any = float) -> ndarray:
        """Samples of Student's t distribution with df degrees of freedom."""
        return _as(self._gen.standard_t(df, size), _real_dtype(dtype))

    def triangular(self, left: Any, mode: Any, right: Any, size: Any = None,
                   dtype: Any = float) -> ndarray:
        """Samples of the triangular distribution on [left, right] with its
        peak at mode."""
        return _as(self._gen.triangular(left, mode, right, size),
                   _real_dtype(dtype))

    def vonmises(self, mu: Any, kappa: Any, size: Any = None,
                 dtype: Any = float) -> ndarray:
        """Samples of the von Mises distribution of mode mu and concentration
        kappa, on [-pi, pi]."""
        return _as(self._gen.vonmises(mu, kappa, size),
                   _real_dtype(dtype))

    def wald(self, mean: Any, scale: Any, size: Any = None,
             dtype: Any = float) -> ndarray:
        """Samples of the Wald (inverse Gaussian) distribution of the given
        mean and scale."""
        return _as(self._gen.wald(mean, scale, size),
                   _real_dtype(dtype))

    def weibull(self, a: Any, size: Any = None, dtype: Any = float) -> ndarray:
        """Samples of the Weibull distribution of shape a."""
        return _as(self._gen.weibull(a, size), _real_dtype(dtype))

    # -- discrete laws -----------------------------------------------------

    def binomial(self, n: Any, p: Any, size: Any = None,
                 dtype: Any = int) -> ndarray:
        """Samples of the binomial distribution: successes in n trials of
        probability p."""
        return _as(self._gen.binomial(n, p, size), _real_dtype(dtype))

    def geometric(self, p: Any, size: Any = None, dtype: Any = int) -> ndarray:
        """Samples of the geometric distribution: trials up to the first
        success of probability p."""
        return _as(self._gen.geometric(p, size), _real_dtype(dtype))

    def hypergeometric(self, ngood: Any, nbad: Any, nsample: Any,
                       size: Any = None, dtype: Any = int) -> ndarray:
        """Legacy hypergeometric: nsample >= 1."""
        return _as(self._gen._hypergeometric(ngood, nbad, nsample, size, 1),
                   _real_dtype(dtype))

    def logseries(self, p: Any, size: Any = None, dtype: Any = int) -> ndarray:
        """Samples of the logarithmic series distribution of parameter p."""
        return _as(self._gen.logseries(p, size), _real_dtype(dtype))

    def negative_binomial(self, n: Any, p: Any, size: Any = None,
                          dtype: Any = int) -> ndarray:
        """Legacy negative_binomial: real n > 0 and 0 < p <= 1 (NumPy's
        legacy takes p == 0 and returns a meaningless int64; here that is
        the Generator's ValueError)."""
        return _as(self._gen.negative_binomial(n, p, size), _real_dtype(dtype))

    def poisson(self, lam: Any = 1.0, size: Any = None,
                dtype: Any = int) -> ndarray:
        """Samples of the Poisson distribution of rate lam."""
        return _as(self._gen.poisson(lam, size), _real_dtype(dtype))

    def zipf(self, a: Any, size: Any = None, dtype: Any = int) -> ndarray:
        """Samples of the Zipf distribution of parameter a > 1."""
        return _as(self._gen.zipf(a, size), _real_dtype(dtype))

    def multinomial(self, n: Any, pvals: Any, size: Any = None) -> ndarray:
        """Legacy multinomial: one int n and a 1-d pvals; counts of shape
        size + (len(pvals),)."""
        pv = _c.ensure(pvals, self._gen.bit_generator.session())
        if pv.ndim == 0:
            raise TypeError("pvals must be a 1-d sequence")
        if pv.ndim > 1:
            raise ValueError("setting an array element with a sequence. The "
                             "requested array would exceed the maximum "
                             "number of dimension of 1.")
        if not isinstance(n, (int, float, np.integer, np.floating)):
            raise TypeError("an integer is required")
        if pv._shape[0] == 0:
            shape = _shape(size) + (0,)
            return _c.new(pv._session, "zeros", (), shape, _INT64,
                          {"shape": list(shape), "dtype": _INT64})
        return self._gen._multinomial(n, pv, size)

    # -- choice and permutations -----------------------------------------------

    def choice(self, a: Any, size: Any = None, replace: bool = True,
               p: Any = None) -> ndarray:
        """Samples of a 1-d a (an int n: range(n)); legacy checks first."""
        if isinstance(a, ndarray) and a.ndim == 0 and a._dtype.kind in "iu":
            a = int(a)  # a 0-d integer array is n, as NumPy's
        if not isinstance(a, (int, np.integer)):
            if a is None or isinstance(a, (float, complex, np.number)):
                raise ValueError("a must be 1-dimensional or an integer")
            pop = _c.ensure(a, self._gen.bit_generator.session())
            if pop.ndim != 1:
                raise ValueError("a must be 1-dimensional or an integer"
                                 if pop.ndim == 0 else
                                 "a must be 1-dimensional")
            if pop.size == 0 and math.prod(_shape(size)):
                raise ValueError("'a' cannot be empty unless no samples are "
                                 "taken")
            a = pop
        return self._gen.choice(a, size, replace, p)

    def permutation(self, x: Any) -> ndarray:
        """A permuted range(x) for an int x, else a copy of x permuted along
        its first axis."""
        return self._gen.permutation(x)

    def shuffle(self, x: Any) -> None:
        """Shuffles the arrayd array x in place along its first axis."""
        self._gen.shuffle(x)


# -- the module-level states (CuPy's per-device table) ---------------------------

_random_states: dict[int, RandomState] = {}
_lock = threading.Lock()
_DEVICE = 0  # arrayd's client sees one device: the session's


def _env_seed() -> Any:
    for name in ("CUPY_SEED", "ARRAYD_SEED"):
        v = os.environ.get(name)
        if v is not None:
            return int(v)
    return None


def get_random_state() -> RandomState:
    """The RandomState the module-level functions draw from (made on first
    use)."""
    rs = _random_states.get(_DEVICE)
    if rs is None:
        with _lock:
            rs = _random_states.get(_DEVICE)
            if rs is None:
                rs = RandomState(_env_seed())
                _random_states[_DEVICE] = rs
    return rs


def set_random_state(rs: RandomState) -> None:
    """Makes ``rs`` the module-level functions' RandomState."""
    if not isinstance(rs, RandomState):
        raise TypeError(f"Random state must be an instance of RandomState. "
                        f"Actual: {type(rs)}")
    _random_states[_DEVICE] = rs


def reset_states() -> None:
    """Forgets the module-level state (a new table: the next draw makes a
    fresh RandomState)."""
    global _random_states
    _random_states = {}


def seed(seed: Any = None) -> None:
    """Reseeds the module-level RandomState (None: OS entropy)."""
    get_random_state().seed(seed)
