"""scipy.signal's chirp z-transform: czt, zoom_fft, the CZT and ZoomFFT
transforms and czt_points.

The transform X[k] = sum_j x[j] A^-j W^(j k), k < m, goes by Bluestein's
identity j k = (j^2 + k^2 - (k - j)^2) / 2: multiply by a chirp, convolve
with the conjugate chirp (one FFT pair of length next_fast_len(n + m - 1)
on the server), multiply by a chirp. The chirps depend only on n, m, W
and A, so they are computed on the host once per transform (in float64,
the default FFT-like W reduced modulo 2m so large k loses no accuracy)
and uploaded; the signal stays on the server.

Layer: a module of the arrayd.scipy.signal namespace (imports arrayd's
public namespace and the package's helpers).
"""
from __future__ import annotations

import cmath
import math
import numbers
from typing import Any

import numpy as np
import scipy.fft as _sfft

import arrayd as ad
from arrayd.scipy.signal import _arraytools as _at


def _sizes(n: Any, m: Any) -> int:
    if not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"Invalid number of CZT data points ({n}) "
                         "specified. n must be positive and integer type.")
    if m is None:
        return int(n)
    if not isinstance(m, numbers.Integral) or m < 1:
        raise ValueError(f"Invalid number of CZT output points ({m}) "
                         "specified. m must be positive and integer type.")
    return int(m)


class CZT:
    """scipy.signal.CZT: the chirp z-transform of length-n signals at the m
    points A W^-k (default: the FFT's, W = exp(-2 pi i / m), A = 1);
    calling it transforms along axis on the server."""

    def __init__(self, n: int, m: Any = None, w: Any = None,
                 a: Any = 1 + 0j) -> None:
        m = _sizes(n, m)
        k = np.arange(max(m, n), dtype=np.float64)
        if w is None:
            w = cmath.exp(-2j * math.pi / m)
            # W^(k^2/2) = exp(-i pi k^2 / m); k^2 mod 2m keeps it exact.
            kk = (np.arange(max(m, n), dtype=np.int64) ** 2) % (2 * m)
            chirp = np.exp(-1j * math.pi * kk / m)
        else:
            w = _host_scalar(w)
            chirp = np.power(complex(w), k * k / 2)
        a = _host_scalar(a) * 1.0
        self.w, self.a = w, a
        self._setup(n, m, a ** -k[:n] * chirp[:n], chirp)

    def _setup(self, n: int, m: int, pre: np.ndarray,
               chirp: np.ndarray) -> None:
        self.n, self.m = n, m
        self._nfft = _sfft.next_fast_len(n + m - 1)
        kernel = 1 / np.concatenate((chirp[n - 1:0:-1], chirp[:m]))
        self._pre = pre.astype(np.complex128)
        self._kernel = _sfft.fft(kernel, self._nfft)
        self._post = chirp[:m].astype(np.complex128)

    def __call__(self, x: Any, *, axis: int = -1) -> ad.ndarray:
        x = _at.asarray(x)
        if x.shape[axis] != self.n:
            raise ValueError(f"CZT defined for length {self.n}, not "
                             f"{x.shape[axis]}")
        xm = ad.moveaxis(x, axis, -1).astype(np.complex128)
        f = ad.fft.fft(xm * ad.asarray(self._pre), self._nfft)
        y = ad.fft.ifft(f * ad.asarray(self._kernel))
        y = y[..., self.n - 1:self.n - 1 + self.m] * ad.asarray(self._post)
        return ad.moveaxis(y, -1, axis)

    def points(self) -> ad.ndarray:
        """The m points of the z-plane where the transform is evaluated."""
        return czt_points(self.m, self.w, self.a)


class ZoomFFT(CZT):
    """scipy.signal.ZoomFFT: the DFT of length-n signals at m frequencies
    spanning fn ([f1, f2], or [0, fn]) at sample rate fs."""

    def __init__(self, n: int, fn: Any, m: Any = None, *, fs: float = 2,
                 endpoint: bool = False) -> None:
        m = _sizes(n, m)
        size = np.size(_at.host(fn))
        if size == 2:
            f1, f2 = (float(v) for v in _at.host(fn))
        elif size == 1:
            f1, f2 = 0.0, float(np.asarray(_at.host(fn)).reshape(()))
        else:
            raise ValueError("fn must be a scalar or 2-length sequence")
        self.f1, self.f2, self.fs = f1, f2, fs
        if endpoint:
            scale = ((f2 - f1) * m) / (fs * (m - 1))
        else:
            scale = (f2 - f1) / fs
        k = np.arange(max(m, n), dtype=np.float64)
        k2 = np.arange(max(m, n), dtype=np.int64) ** 2
        chirp = np.exp(-(1j * math.pi * scale * k2) / m)
        self.w = cmath.exp(-2j * math.pi / m * scale)
        self.a = cmath.exp(2j * math.pi * f1 / fs)
        pre = np.exp(-2j * math.pi * f1 / fs * k[:n]) * chirp[:n]
        self._setup(n, m, pre, chirp)


def _host_scalar(v: Any) -> Any:
    if isinstance(v, ad.ndarray):
        return ad.asnumpy(v).item()
    return v


def czt_points(m: int, w: Any = None, a: Any = 1 + 0j) -> ad.ndarray:
    """scipy.signal.czt_points: the m points A W^-k of the transform (the
    FFT's m roots of unity times A when w is None)."""
    m = _sizes(1, m)
    a = _host_scalar(a) * 1.0
    k = ad.arange(m, dtype=np.float64)
    if w is None:
        return a * ad.exp(2j * math.pi * k / m)
    w = _host_scalar(w) * 1.0
    # Real w and a give real points, as SciPy's.
    wdt = np.complex128 if np.iscomplexobj(w) else np.float64
    return a * ad.power(ad.asarray(w, dtype=wdt), -k)


def czt(x: Any, m: Any = None, w: Any = None, a: Any = 1 + 0j, *,
        axis: int = -1) -> ad.ndarray:
    """scipy.signal.czt: the chirp z-transform of x along axis."""
    x = _at.asarray(x)
    return CZT(x.shape[axis], m=m, w=w, a=a)(x, axis=axis)


def zoom_fft(x: Any, fn: Any, m: Any = None, *, fs: float = 2,
             endpoint: bool = False, axis: int = -1) -> ad.ndarray:
    """scipy.signal.zoom_fft: the DFT of x along axis at m frequencies
    spanning fn."""
    x = _at.asarray(x)
    return ZoomFFT(x.shape[axis], fn, m=m, fs=fs, endpoint=endpoint)(
        x, axis=axis)
