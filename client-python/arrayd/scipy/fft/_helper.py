"""scipy.fft's helpers: frequencies and shifts (arrayd.fft's server ops)
and the fast FFT lengths (host arithmetic on one integer).

Layer: functions of the arrayd.scipy.fft namespace (imports arrayd.fft).
"""
from __future__ import annotations

import operator
from typing import Any

from arrayd import fft as _npfft
from arrayd._ndarray import ndarray

# The radices of the transforms SciPy calls fast: 5-smooth lengths for
# real transforms, 11-smooth for complex ones.
_RADICES = {True: (2, 3, 5), False: (2, 3, 5, 7, 11)}


def _smooth(n: int, radices: tuple[int, ...]) -> bool:
    for p in radices:
        while n % p == 0:
            n //= p
    return n == 1


def _target(target: Any) -> int:
    target = operator.index(target)
    if target < 0:
        raise ValueError("Target length must be positive")
    return target


def next_fast_len(target: int, real: bool = False) -> int:
    """scipy.fft.next_fast_len: the smallest length of at least ``target``
    whose prime factors are all radices of a fast transform (2, 3, 5; for
    complex transforms also 7 and 11). 0 for 0."""
    n = _target(target)
    if n == 0:
        return 0
    radices = _RADICES[bool(real)]
    while not _smooth(n, radices):
        n += 1
    return n


def prev_fast_len(target: int, real: bool = False) -> int:
    """scipy.fft.prev_fast_len: the largest fast length (see next_fast_len)
    of at most ``target``. 0 for 0."""
    n = _target(target)
    if n == 0:
        return 0
    radices = _RADICES[bool(real)]
    while not _smooth(n, radices):
        n -= 1
    return n


def fftfreq(n: int, d: float = 1.0, *, xp: Any = None,
            device: Any = None) -> ndarray:
    """scipy.fft.fftfreq: the sample frequencies of an n-point fft (float64,
    on the server)."""
    return _npfft.fftfreq(n, d)


def rfftfreq(n: int, d: float = 1.0, *, xp: Any = None,
             device: Any = None) -> ndarray:
    """scipy.fft.rfftfreq: the sample frequencies of an n-point rfft."""
    return _npfft.rfftfreq(n, d)


def fftshift(x: Any, axes: Any = None) -> ndarray:
    """scipy.fft.fftshift: the zero frequency moved to the middle."""
    return _npfft.fftshift(x, axes)


def ifftshift(x: Any, axes: Any = None) -> ndarray:
    """scipy.fft.ifftshift: the inverse of fftshift."""
    return _npfft.ifftshift(x, axes)
