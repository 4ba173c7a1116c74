"""numpy.random's module-level shuffle and permutation, from the
module-level RandomState.

Layer: the random namespace, above _generator.
"""
from __future__ import annotations

from typing import Any

from arrayd._ndarray import ndarray
from arrayd.random._generator import get_random_state


def shuffle(a: Any) -> None:
    """Shuffles ``a`` (an arrayd array) in place along its first axis."""
    get_random_state().shuffle(a)


def permutation(a: Any) -> ndarray:
    """A permuted range(a), or a copy of ``a`` permuted along its first
    axis."""
    return get_random_state().permutation(a)
