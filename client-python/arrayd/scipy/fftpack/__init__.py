"""arrayd.scipy.fftpack: SciPy's legacy scipy.fftpack on the server.

    from arrayd.scipy import fftpack
    y = fftpack.fftn(x)                   # x an arrayd (or NumPy) array

The complex transforms keep fftpack's signatures (``shape=`` where
scipy.fft says ``s=``, ``overwrite_x``; no ``norm``) and run as
arrayd.scipy.fft's transforms; ``rfft``/``irfft`` use fftpack's packed
real layout ``[y0, Re y1, Im y1, ..., Re y(n/2)]``; the real-to-real
transforms (dct, dst and their inverses) and the helpers are
arrayd.scipy.fft's.

Layer: a public namespace (imports arrayd's public namespace and
arrayd.scipy.fft).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

import arrayd as ad
from arrayd.scipy import fft as _fft
from arrayd.scipy.fft import (dct, dctn, dst, dstn, fftfreq, fftshift, idct,
                              idctn, idst, idstn, ifftshift, next_fast_len,
                              rfftfreq)

__all__ = ["dct", "dctn", "dst", "dstn", "fft", "fft2", "fftfreq", "fftn",
           "fftshift", "idct", "idctn", "idst", "idstn", "ifft", "ifft2",
           "ifftn", "ifftshift", "irfft", "next_fast_len", "rfft",
           "rfftfreq"]


def _shape(x: Any, shape: Any, axes: Any) -> tuple[Any, Any]:
    """fftpack's ``shape`` (an int is a sequence of one) as scipy.fft's
    ``s``; without axes it must name every axis (ValueError, as fftpack)."""
    if shape is None:
        return None, axes
    shape = ([operator.index(shape)] if np.ndim(shape) == 0
             else [operator.index(n) for n in shape])
    if axes is None and len(shape) != np.ndim(x):
        raise ValueError("when given, axes and shape arguments have to be "
                         "of the same length")
    return shape, axes


def fft(x: Any, n: Any = None, axis: int = -1,
        overwrite_x: bool = False) -> ad.ndarray:
    """scipy.fftpack.fft: the 1-D discrete Fourier transform."""
    return _fft.fft(x, n, axis)


def ifft(x: Any, n: Any = None, axis: int = -1,
         overwrite_x: bool = False) -> ad.ndarray:
    """scipy.fftpack.ifft: the 1-D inverse discrete Fourier transform."""
    return _fft.ifft(x, n, axis)


def fftn(x: Any, shape: Any = None, axes: Any = None,
         overwrite_x: bool = False) -> ad.ndarray:
    """scipy.fftpack.fftn: the N-D discrete Fourier transform."""
    s, axes = _shape(x, shape, axes)
    return _fft.fftn(x, s, axes)


def ifftn(x: Any, shape: Any = None, axes: Any = None,
          overwrite_x: bool = False) -> ad.ndarray:
    """scipy.fftpack.ifftn: the N-D inverse discrete Fourier transform."""
    s, axes = _shape(x, shape, axes)
    return _fft.ifftn(x, s, axes)


def fft2(x: Any, shape: Any = None, axes: Any = (-2, -1),
         overwrite_x: bool = False) -> ad.ndarray:
    """scipy.fftpack.fft2: the 2-D discrete Fourier transform."""
    return fftn(x, shape, axes)


def ifft2(x: Any, shape: Any = None, axes: Any = (-2, -1),
          overwrite_x: bool = False) -> ad.ndarray:
    """scipy.fftpack.ifft2: the 2-D inverse discrete Fourier transform."""
    return ifftn(x, shape, axes)


def _real_input(x: Any) -> ad.ndarray:
    x = x if isinstance(x, ad.ndarray) else ad.asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("x must be a real sequence")
    if x.dtype.kind != "f" or x.dtype == np.float16:
        x = x.astype(np.float32 if x.dtype == np.float16 else np.float64)
    return x


def rfft(x: Any, n: Any = None, axis: int = -1,
         overwrite_x: bool = False) -> ad.ndarray:
    """scipy.fftpack.rfft: the real DFT in fftpack's packed layout
    [y0, Re y1, Im y1, ...] (n values along axis)."""
    x = _real_input(x)
    axis = operator.index(axis) % max(x.ndim, 1)
    n = x.shape[axis] if n is None else operator.index(n)
    y = ad.moveaxis(_fft.rfft(x, n, axis), axis, -1)
    pairs = ad.stack([y.real, y.imag], axis=-1)
    flat = pairs.reshape(y.shape[:-1] + (2 * y.shape[-1],))
    # Im y0 (always 0) is not stored.
    packed = ad.concatenate([flat[..., :1], flat[..., 2:n + 1]], axis=-1)
    return ad.ascontiguousarray(ad.moveaxis(packed, -1, axis))


def irfft(x: Any, n: Any = None, axis: int = -1,
          overwrite_x: bool = False) -> ad.ndarray:
    """scipy.fftpack.irfft: the inverse of rfft's packed layout."""
    x = _real_input(x)
    axis = operator.index(axis) % max(x.ndim, 1)
    n = x.shape[axis] if n is None else operator.index(n)
    if n < 1:
        raise ValueError(f"invalid number of data points ({n}) specified")
    x = ad.moveaxis(x, axis, -1)
    m = x.shape[-1]
    if m < n:
        x = ad.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, n - m)])
    x = x[..., :n]
    # Back to n // 2 + 1 complex values: y0 real, then (Re, Im) pairs.
    zero = ad.zeros(x.shape[:-1] + (1,), dtype=x.dtype)
    pairs = ad.concatenate([x[..., :1], zero, x[..., 1:]] +
                           ([zero] if n % 2 == 0 else []), axis=-1)
    pairs = pairs.reshape(x.shape[:-1] + (n // 2 + 1, 2))
    y = pairs[..., 0] + 1j * pairs[..., 1]
    out = _fft.irfft(y, n, -1)
    return ad.ascontiguousarray(ad.moveaxis(out, -1, axis))
