"""numpy.random's module-level uniform, normal, integer and choice draws
(rand, randn, randint, random_integers, random_sample, choice,
multinomial), from the module-level RandomState.

Layer: the random namespace, above _generator.
"""
from __future__ import annotations

from typing import Any

from arrayd._ndarray import ndarray
import arrayd.random._distributions as _distributions
from arrayd.random._generator import get_random_state


def rand(*size: Any, dtype: Any = float) -> ndarray:
    """Uniform floats in [0, 1) of shape ``size``."""
    return random_sample(size=size, dtype=dtype)


def randn(*size: Any, dtype: Any = float) -> ndarray:
    """Standard normal floats of shape ``size``."""
    return _distributions.normal(size=size, dtype=dtype)


def randint(low: Any, high: Any = None, size: Any = None,
            dtype: Any = int) -> ndarray:
    """Uniform integers in [low, high)."""
    return get_random_state().randint(low, high, size, dtype)


def random_integers(low: Any, high: Any = None, size: Any = None) -> ndarray:
    """Uniform integers in [low, high] (deprecated in NumPy)."""
    return get_random_state().random_integers(low, high, size)


def random_sample(size: Any = None, dtype: Any = float) -> ndarray:
    """Uniform floats in [0, 1)."""
    return get_random_state().random_sample(size, dtype)


def choice(a: Any, size: Any = None, replace: bool = True,
           p: Any = None) -> ndarray:
    """Samples of a 1-d array a, or of range(a) for an int, with or without
    replacement and with probabilities p (numpy.random.choice), from the
    module-level RandomState."""
    return get_random_state().choice(a, size, replace, p)


def multinomial(n: Any, pvals: Any, size: Any = None) -> ndarray:
    """Counts of n trials over outcomes of probabilities pvals, shape size +
    (len(pvals),) (numpy.random.multinomial), from the module-level
    RandomState."""
    return get_random_state().multinomial(n, pvals, size)
