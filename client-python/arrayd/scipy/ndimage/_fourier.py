"""scipy.ndimage's Fourier-domain filters: the input is a transform, and
each filter multiplies it by the transform of a Gaussian, a box, an
ellipsoid or a shift, one broadcast factor an axis (the ellipsoid's
factor is one array over all axes). ``n`` > 0 says the input is a real
transform along ``axis`` of a signal of n samples.

Layer: functions of the arrayd.scipy.ndimage namespace (imports arrayd's
public namespace, _util and arrayd.scipy.special).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

import arrayd as ad
from arrayd.scipy.ndimage import _util as u
from arrayd.scipy.special import j1

__all__ = ["fourier_gaussian", "fourier_uniform", "fourier_ellipsoid",
           "fourier_shift"]


def _output(output: Any, x: ad.ndarray, complex_only: bool) -> tuple[Any, Any]:
    """SciPy's output rule of the Fourier filters: complex stays, float32
    stays (not for fourier_shift), anything else float64 (complex128 for
    fourier_shift)."""
    if output is None:
        if x.dtype in (np.complex64, np.complex128):
            return x.dtype, None
        if complex_only:
            return np.dtype(np.complex128), None
        if x.dtype == np.float32:
            return x.dtype, None
        return u.F64, None
    if isinstance(output, (type, np.dtype, str)):
        return np.dtype(output), None
    if tuple(output.shape) != x.shape:
        raise RuntimeError("output shape not correct")
    return output.dtype, output


def _freqs(x: ad.ndarray, n: int, axis: int) -> list[np.ndarray]:
    """The frequency of every index along each axis (host vectors, shaped
    to broadcast)."""
    out = []
    for ax, m in enumerate(x.shape):
        if ax == axis and n > 0:
            f = np.arange(m, dtype=np.float64) / n
        else:
            f = np.fft.fftfreq(m)
        shape = [1] * x.ndim
        shape[ax] = m
        out.append(f.reshape(shape))
    return out


def _prepare(input: Any, n: Any, axis: Any) -> tuple[ad.ndarray, int, int]:
    x = u.asarray(input)
    n = operator.index(n)
    # A 0-d input has no axis: numpy's AxisError, as SciPy.
    axis = u.normalize_axis(axis, x.ndim)
    return x, n, axis


def _apply(x: ad.ndarray, factor: Any, output: Any,
           complex_only: bool = False) -> ad.ndarray:
    dt, out = _output(output, x, complex_only)
    work = np.result_type(x.dtype, np.float32 if dt in (
        np.float32, np.complex64) else np.float64)
    if np.dtype(dt).kind == "c":
        work = np.result_type(work, np.complex64)
    res = x.astype(work) * factor.astype(
        work if np.dtype(work).kind != "c" else work)
    return u.finish(res, np.dtype(dt), out)


def fourier_gaussian(input: Any, sigma: Any, n: int = -1, axis: int = -1,
                     output: Any = None) -> ad.ndarray:
    """scipy.ndimage.fourier_gaussian: the transform times that of a
    Gaussian of sigma (per axis)."""
    x, n, axis = _prepare(input, n, axis)
    sig = [float(s) for s in u.normalize_sequence(sigma, x.ndim)]
    f = np.ones([1] * x.ndim)
    for fr, s in zip(_freqs(x, n, axis), sig):
        f = f * np.exp(-2.0 * (np.pi * s * fr) ** 2)
    return _apply(x, ad.asarray(f), output)


def fourier_uniform(input: Any, size: Any, n: int = -1, axis: int = -1,
                    output: Any = None) -> ad.ndarray:
    """scipy.ndimage.fourier_uniform: the transform times that of a box of
    size (per axis)."""
    x, n, axis = _prepare(input, n, axis)
    sz = [float(s) for s in u.normalize_sequence(size, x.ndim)]
    f = np.ones([1] * x.ndim)
    for fr, s in zip(_freqs(x, n, axis), sz):
        f = f * np.sinc(fr * s)
    return _apply(x, ad.asarray(f), output)


def fourier_shift(input: Any, shift: Any, n: int = -1, axis: int = -1,
                  output: Any = None) -> ad.ndarray:
    """scipy.ndimage.fourier_shift: the transform times that of a shift by
    shift (per axis)."""
    x, n, axis = _prepare(input, n, axis)
    sh = [float(s) for s in u.normalize_sequence(shift, x.ndim)]
    f = np.ones([1] * x.ndim, dtype=np.complex128)
    for fr, s in zip(_freqs(x, n, axis), sh):
        f = f * np.exp(-2j * np.pi * s * fr)
    return _apply(x, ad.asarray(f), output, complex_only=True)


def fourier_ellipsoid(input: Any, size: Any, n: int = -1, axis: int = -1,
                      output: Any = None) -> ad.ndarray:
    """scipy.ndimage.fourier_ellipsoid: the transform times that of an
    ellipsoid of the semi-axes size/2 (inputs of 1 to 3 dimensions)."""
    x, n, axis = _prepare(input, n, axis)
    if x.ndim > 3:
        raise NotImplementedError("Only 1d, 2d and 3d inputs are supported")
    sz = [float(s) for s in u.normalize_sequence(size, x.ndim)]
    r2 = None
    for fr, s in zip(_freqs(x, n, axis), sz):
        term = ad.asarray((fr * s) ** 2)
        r2 = term if r2 is None else r2 + term
    t = ad.sqrt(r2) * np.pi
    safe = ad.where(t == 0, 1.0, t)
    if x.ndim == 1:
        f = ad.sin(safe) / safe
    elif x.ndim == 2:
        f = 2.0 * j1(safe) / safe
    else:
        f = 3.0 * (ad.sin(safe) - safe * ad.cos(safe)) / (safe * safe * safe)
    f = ad.where(t == 0, 1.0, f)
    return _apply(x, f, output)
