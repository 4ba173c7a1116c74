"""arrayd.random: random numbers generated on the server (numpy.random's
API, laid out as CuPy's cupy.random).

Every draw comes from the server's counter-based Philox4x32-10 streams: a
bit generator (_bit_generator: Philox4x3210) holds a stream's seed and next
block, and each random op advances it past the blocks it uses, so the same
seed gives the same numbers in both clients, on every backend and launch
shape (uniform draws bit for bit; normal draws up to the last bits of the
platform's log/sin/cos). The streams are arrayd's own: the numbers differ
from NumPy's for the same seed, with the same laws.

- _generator_api: Generator (numpy.random.Generator), on a bit generator;
  _samplers: the laws composed of uniform and normal draws.
- _generator: RandomState (the legacy API) and the module-level state
  (get_random_state, set_random_state, reset_states, seed).
- _distributions, _sample, _permutations: numpy.random's module-level
  functions, drawing from that state.

Draws return arrayd arrays; with ``size=None`` a 0-d array (as CuPy).

Layer: a public namespace, above the function modules it draws with.
"""
from __future__ import annotations

from typing import Any

from arrayd.random._bit_generator import BitGenerator, Philox4x3210
from arrayd.random._distributions import (
    beta, binomial, chisquare, dirichlet, exponential, f, gamma, geometric,
    gumbel, hypergeometric, laplace, logistic, lognormal, logseries,
    multivariate_normal, negative_binomial, noncentral_chisquare,
    noncentral_f, normal, pareto, poisson, power, rayleigh, standard_cauchy,
    standard_exponential, standard_gamma, standard_normal, standard_t,
    triangular, uniform, vonmises, wald, weibull, zipf)
from arrayd.random._generator import (RandomState, get_random_state,
                                      reset_states, seed, set_random_state)
from arrayd.random._generator_api import Generator
from arrayd.random._permutations import permutation, shuffle
from arrayd.random._sample import (choice, multinomial, rand, randint, randn,
                                   random_integers, random_sample)

random = ranf = sample = random_sample


def default_rng(seed: Any = None) -> Generator:
    """A Generator: on ``seed`` if it is a BitGenerator, ``seed`` itself if
    it is a Generator, else on a Philox4x3210 seeded with it (an int, a
    sequence of ints, a numpy SeedSequence, or None for OS entropy)."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed)


def bytes(length: int) -> bytes:  # noqa: A001 (numpy.random's name)
    """``length`` random bytes from the module-level RandomState."""
    return get_random_state().bytes(length)


def get_state() -> dict[str, Any]:
    """The module-level RandomState's state (RandomState.get_state)."""
    return get_random_state().get_state()


def set_state(state: dict[str, Any]) -> None:
    """Restores the module-level RandomState's state."""
    get_random_state().set_state(state)


__all__ = ["BitGenerator", "Generator", "Philox4x3210", "RandomState",
           "beta", "binomial", "bytes", "chisquare", "choice", "default_rng",
           "dirichlet", "exponential", "f", "gamma", "geometric",
           "get_random_state", "get_state", "gumbel", "hypergeometric",
           "laplace", "logistic", "lognormal", "logseries", "multinomial",
           "multivariate_normal", "negative_binomial",
           "noncentral_chisquare", "noncentral_f", "normal", "pareto",
           "permutation", "poisson", "power", "rand", "randint", "randn",
           "random", "random_integers", "random_sample", "ranf", "rayleigh",
           "reset_states", "sample", "seed", "set_random_state",
           "set_state", "shuffle", "standard_cauchy",
           "standard_exponential", "standard_gamma", "standard_normal",
           "standard_t", "triangular", "uniform", "vonmises", "wald",
           "weibull", "zipf"]
