"""arrayd.fft: numpy.fft on the server.

The server's ``fft`` (complex, forward or inverse), ``rfft`` and ``irfft``
ops transform along one axis, with n and norm; the n-dimensional
transforms apply them axis by axis as NumPy's own do, and hfft/ihfft are
irfft/rfft of the conjugate. Result shapes and dtypes are NumPy 2's
(single precision stays single), decided here before anything is sent.

Layer: a public namespace, above the function modules (imports the core,
_composite, _math, _creation and _manipulation).
"""
from __future__ import annotations

import functools
import operator
import warnings
from typing import Any, Sequence

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from arrayd import _composite as _c
from arrayd import _creation, _manipulation
from arrayd import _math as _m
from arrayd._ndarray import ndarray

_NORMS = ("backward", "ortho", "forward")


def _check_norm(norm: Any) -> str:
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", '
                         f'"ortho" or "forward".')
    return norm


def _swap_direction(norm: Any) -> str:
    norm = _check_norm(norm)
    return {"backward": "forward", "ortho": "ortho",
            "forward": "backward"}[norm]


@functools.lru_cache(maxsize=None)
def _result_dtype(kind: str, dt: np.dtype) -> np.dtype:
    """NumPy's result dtype of a transform (it raises NumPy's TypeError for
    unsupported inputs)."""
    fn = {"fft": np.fft.fft, "rfft": np.fft.rfft, "irfft": np.fft.irfft}[kind]
    return fn(np.zeros(2, dt), n=2).dtype


def _raw(kind: str, a: Any, n: Any, axis: int, norm: Any,
         inverse: bool = False, out: Any = None) -> ndarray:
    a = _c.ensure(a)
    ax = normalize_axis_index(axis, a.ndim)
    norm = _check_norm(norm)
    if n is None:
        n = 2 * (a._shape[ax] - 1) if kind == "irfft" else a._shape[ax]
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    rdt = _result_dtype(kind, a._dtype)
    shape = list(a._shape)
    shape[ax] = n // 2 + 1 if kind == "rfft" else n
    single = a._dtype.char in "efF"
    if kind == "irfft":
        sdt = np.dtype(np.float32 if single else np.float64)
    else:
        sdt = np.dtype(np.complex64 if single else np.complex128)
    attrs: dict[str, Any] = {"n": n, "axis": ax, "norm": norm}
    if kind == "fft":
        attrs["inverse"] = bool(inverse)
    r = _c.new(a._session, kind, (a,), tuple(shape), sdt, attrs)
    if r._dtype != rdt:
        r = r.astype(rdt)
    return r if out is None else _c.assign(out, r, kind)


def fft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
        out: Any = None) -> ndarray:
    """numpy.fft.fft."""
    return _raw("fft", a, n, axis, norm, False, out)


def ifft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
         out: Any = None) -> ndarray:
    """numpy.fft.ifft."""
    return _raw("fft", a, n, axis, norm, True, out)


def rfft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
         out: Any = None) -> ndarray:
    """numpy.fft.rfft."""
    return _raw("rfft", a, n, axis, norm, False, out)


def irfft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
          out: Any = None) -> ndarray:
    """numpy.fft.irfft."""
    return _raw("irfft", a, n, axis, norm, True, out)


def hfft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
         out: Any = None) -> ndarray:
    """numpy.fft.hfft: the irfft of the conjugate, norm swapped."""
    a = _c.ensure(a)
    if n is None:
        n = (a._shape[normalize_axis_index(axis, a.ndim)] - 1) * 2
    new_norm = _swap_direction(norm)
    return irfft(_m.conjugate(a), n, axis, new_norm, out)


def ihfft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
          out: Any = None) -> ndarray:
    """numpy.fft.ihfft: the conjugate of the rfft, norm swapped."""
    a = _c.ensure(a)
    new_norm = _swap_direction(norm)
    r = _m.conjugate(rfft(a, n, axis, new_norm))
    return r if out is None else _c.assign(out, r, "ihfft")


def _cook_nd_args(a: ndarray, s: Any = None, axes: Any = None,
                  invreal: bool = False) -> tuple[list[int], list[int]]:
    """NumPy's numpy.fft._cook_nd_args."""
    if s is None:
        shapeless = True
        if axes is None:
            s = list(a._shape)
        else:
            s = [a._shape[normalize_axis_index(ax, a.ndim)] for ax in axes]
    else:
        shapeless = False
    s = list(s)
    if axes is None:
        if not shapeless:
            warnings.warn(
                "`axes` should not be `None` if `s` is not `None`. This "
                "behavior is deprecated (NumPy 2.0).", DeprecationWarning,
                stacklevel=3)
        axes = list(range(-len(s), 0))
    axes = list(axes)
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if invreal and shapeless:
        s[-1] = (a._shape[normalize_axis_index(axes[-1], a.ndim)] - 1) * 2
    s = [a._shape[normalize_axis_index(ax, a.ndim)] if d == -1 else d
         for d, ax in zip(s, axes)]
    return s, axes


def _raw_nd(a: Any, s: Any, axes: Any, norm: Any, inverse: bool,
            out: Any) -> ndarray:
    a = _c.ensure(a)
    s, axes = _cook_nd_args(a, s, axes)
    for ii in reversed(range(len(axes))):
        a = _raw("fft", a, s[ii], axes[ii], norm, inverse)
    return a if out is None else _c.assign(out, a, "fftn")


def fftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None,
         out: Any = None) -> ndarray:
    """numpy.fft.fftn."""
    return _raw_nd(a, s, axes, norm, False, out)


def ifftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None,
          out: Any = None) -> ndarray:
    """numpy.fft.ifftn."""
    return _raw_nd(a, s, axes, norm, True, out)


def fft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
         norm: Any = None, out: Any = None) -> ndarray:
    """numpy.fft.fft2."""
    return _raw_nd(a, s, axes, norm, False, out)


def ifft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
          norm: Any = None, out: Any = None) -> ndarray:
    """numpy.fft.ifft2."""
    return _raw_nd(a, s, axes, norm, True, out)


def rfftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None,
          out: Any = None) -> ndarray:
    """numpy.fft.rfftn: rfft on the last axis, then complex ffts."""
    a = _c.ensure(a)
    s, axes = _cook_nd_args(a, s, axes)
    a = rfft(a, s[-1], axes[-1], norm)
    for ii in range(len(axes) - 2, -1, -1):
        a = fft(a, s[ii], axes[ii], norm)
    return a if out is None else _c.assign(out, a, "rfftn")


def rfft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
          norm: Any = None, out: Any = None) -> ndarray:
    """numpy.fft.rfft2."""
    return rfftn(a, s, axes, norm, out)


def irfftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None,
           out: Any = None) -> ndarray:
    """numpy.fft.irfftn: complex inverse ffts, then irfft on the last axis."""
    a = _c.ensure(a)
    s, axes = _cook_nd_args(a, s, axes, invreal=True)
    for ii in range(len(axes) - 1):
        a = ifft(a, s[ii], axes[ii], norm)
    a = irfft(a, s[-1], axes[-1], norm)
    return a if out is None else _c.assign(out, a, "irfftn")


def irfft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
           norm: Any = None, out: Any = None) -> ndarray:
    """numpy.fft.irfft2."""
    return irfftn(a, s, axes, norm, out)


def fftfreq(n: int, d: float = 1.0, device: Any = None) -> ndarray:
    """numpy.fft.fftfreq (computed here, uploaded)."""
    return _creation.asarray(np.fft.fftfreq(n, d))


def rfftfreq(n: int, d: float = 1.0, device: Any = None) -> ndarray:
    """numpy.fft.rfftfreq (computed here, uploaded)."""
    return _creation.asarray(np.fft.rfftfreq(n, d))


def _shift(x: Any, axes: Any, sign: int) -> ndarray:
    x = _c.ensure(x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift: Any = [sign * (dim // 2) for dim in x._shape]
    elif isinstance(axes, (int, np.integer)):
        shift = sign * (x._shape[axes] // 2)
    else:
        shift = [sign * (x._shape[ax] // 2) for ax in axes]
    return _manipulation.roll(x, shift, axes)


def fftshift(x: Any, axes: Any = None) -> ndarray:
    """numpy.fft.fftshift."""
    return _shift(x, axes, 1)


def ifftshift(x: Any, axes: Any = None) -> ndarray:
    """numpy.fft.ifftshift."""
    return _shift(x, axes, -1)


__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft",
           "ifft2", "ifftn", "ifftshift", "ihfft", "irfft", "irfft2",
           "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]
