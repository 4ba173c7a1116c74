"""Inputs that used to crash the server for every client (issue 13):
integer division overflow, element counts that wrap. Each gets NumPy's
result or exception, and the server keeps serving."""
from __future__ import annotations

import warnings

import arrayd as ad
import numpy as np
import pytest

SIGNED = ["i1", "i2", "i4", "i8"]


@pytest.mark.parametrize("dtype", SIGNED)
@pytest.mark.parametrize("op", ["fmod", "remainder", "floor_divide", "gcd",
                                "lcm"])
def test_integer_minimum_by_minus_one_and_zero(dtype, op):
    lo = np.iinfo(dtype).min
    a = np.array([lo, lo, lo, -7, 7, lo, 0], dtype)
    b = np.array([-1, 0, 5, -1, 0, lo, -1], dtype)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = getattr(np, op)(a, b)
        got = getattr(ad, op)(ad.asarray(a), ad.asarray(b)).get()
    np.testing.assert_array_equal(got, want)


def test_element_counts_that_wrap_are_refused():
    with pytest.raises((ValueError, MemoryError)):
        ad.eye(2**32).get()
    with pytest.raises((ValueError, MemoryError)):
        ad.zeros((2**32, 2**32)).get()
    np.testing.assert_array_equal(ad.arange(3).get(), [0, 1, 2])  # serving
