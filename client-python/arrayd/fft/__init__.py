"""arrayd.fft: numpy.fft on the server.

The server's ``fft`` (complex, forward or inverse), ``rfft`` and ``irfft``
ops transform along one axis, with n and norm; the n-dimensional
transforms (fftn, rfftn, irfftn), hfft, ihfft, fftfreq, rfftfreq,
fftshift and ifftshift are server ops of their own (ops/fft.cc, shared
with the C++ client). Result shapes and dtypes are
NumPy 2's (single precision stays single), decided here before anything
is sent.

Layer: a public namespace, above the function modules (imports the core,
_composite and _connect).
"""
from __future__ import annotations

import functools
import operator
import warnings
from typing import Any, Sequence

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from arrayd import _composite as _c
from arrayd import _connect
from arrayd._ndarray import ndarray

_NORMS = ("backward", "ortho", "forward")


def _check_norm(norm: Any) -> str:
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", '
                         f'"ortho" or "forward".')
    return norm


@functools.lru_cache(maxsize=None)
def _result_dtype(kind: str, dt: np.dtype) -> np.dtype:
    """NumPy's result dtype of a transform (it raises NumPy's TypeError for
    unsupported inputs)."""
    fn = {"fft": np.fft.fft, "rfft": np.fft.rfft, "irfft": np.fft.irfft}[kind]
    return fn(np.zeros(2, dt), n=2).dtype


def _server_dtype(kind: str, dt: np.dtype) -> np.dtype:
    """The dtype the server's transform gives: complex (irfft: real) of
    single precision for float16/32 and complex64 inputs, else double."""
    single = dt.char in "efF"
    if kind == "irfft":
        return np.dtype(np.float32 if single else np.float64)
    return np.dtype(np.complex64 if single else np.complex128)


def _raw(kind: str, a: Any, n: Any, axis: int, norm: Any,
         inverse: bool = False, out: Any = None, op: str = "") -> ndarray:
    """The transform ``kind`` (fft, rfft, irfft), or the server op ``op``
    with its shapes and dtypes (hfft as irfft, ihfft as rfft)."""
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
    sdt = _server_dtype(kind, a._dtype)
    attrs: dict[str, Any] = {"n": n, "axis": ax, "norm": norm}
    if kind == "fft":
        attrs["inverse"] = bool(inverse)
    r = _c.new(a._session, op or kind, (a,), tuple(shape), sdt, attrs)
    if r._dtype != rdt:
        r = r.astype(rdt)
    return r if out is None else _c.assign(out, r, op or kind)


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
    """numpy.fft.hfft: the server's hfft (the irfft of the conjugate, norm
    swapped)."""
    return _raw("irfft", a, n, axis, norm, True, out, op="hfft")


def ihfft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
          out: Any = None) -> ndarray:
    """numpy.fft.ihfft: the server's ihfft (the conjugate of the rfft, norm
    swapped)."""
    return _raw("rfft", a, n, axis, norm, False, out, op="ihfft")


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


def _raw_nd(kind: str, a: Any, s: Any, axes: Any, norm: Any, inverse: bool,
            out: Any) -> ndarray:
    """The server's fftn (kind fft), rfftn or irfftn over ``axes`` with
    lengths ``s`` (NumPy's _cook_nd_args); here the result's shape and
    dtype. No axes: a itself (fftn), as NumPy."""
    a = _c.ensure(a)
    s, axes = _cook_nd_args(a, s, axes, invreal=kind == "irfft")
    op = {"fft": "fftn", "rfft": "rfftn", "irfft": "irfftn"}[kind]
    if kind == "fft" and not axes:
        return a if out is None else _c.assign(out, a, op)
    norm = _check_norm(norm)
    axes = [normalize_axis_index(ax, a.ndim) for ax in axes]
    s = [operator.index(n) for n in s]
    for n in s:
        if n < 1:
            raise ValueError(f"Invalid number of FFT data points ({n}) "
                             f"specified.")
    rdt = _result_dtype(kind, a._dtype)
    # The lengths in the server's order of one-axis transforms (a repeated
    # axis keeps the last one's).
    k = len(axes)
    order = {"fft": list(reversed(range(k))),
             "rfft": [k - 1, *reversed(range(k - 1))],
             "irfft": list(range(k))}[kind]
    shape = list(a._shape)
    for i in order:
        last_rfft = kind == "rfft" and i == k - 1
        shape[axes[i]] = s[i] // 2 + 1 if last_rfft else s[i]
    sdt = _server_dtype(kind, a._dtype)
    attrs: dict[str, Any] = {"s": s, "axes": axes, "norm": norm}
    if kind == "fft":
        attrs["inverse"] = bool(inverse)
    r = _c.new(a._session, op, (a,), tuple(shape), sdt, attrs)
    if r._dtype != rdt:
        r = r.astype(rdt)
    return r if out is None else _c.assign(out, r, op)


def fftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None,
         out: Any = None) -> ndarray:
    """numpy.fft.fftn."""
    return _raw_nd("fft", a, s, axes, norm, False, out)


def ifftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None,
          out: Any = None) -> ndarray:
    """numpy.fft.ifftn."""
    return _raw_nd("fft", a, s, axes, norm, True, out)


def fft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
         norm: Any = None, out: Any = None) -> ndarray:
    """numpy.fft.fft2."""
    return _raw_nd("fft", a, s, axes, norm, False, out)


def ifft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
          norm: Any = None, out: Any = None) -> ndarray:
    """numpy.fft.ifft2."""
    return _raw_nd("fft", a, s, axes, norm, True, out)


def rfftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None,
          out: Any = None) -> ndarray:
    """numpy.fft.rfftn: rfft on the last axis, then complex ffts."""
    return _raw_nd("rfft", a, s, axes, norm, False, out)


def rfft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
          norm: Any = None, out: Any = None) -> ndarray:
    """numpy.fft.rfft2."""
    return rfftn(a, s, axes, norm, out)


def irfftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None,
           out: Any = None) -> ndarray:
    """numpy.fft.irfftn: complex inverse ffts, then irfft on the last axis."""
    return _raw_nd("irfft", a, s, axes, norm, True, out)


def irfft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
           norm: Any = None, out: Any = None) -> ndarray:
    """numpy.fft.irfft2."""
    return irfftn(a, s, axes, norm, out)


def _frequencies(op: str, n: Any, d: Any, size: Any) -> ndarray:
    """The server's fftfreq or rfftfreq (float64 of ``size(n)`` values);
    NumPy's errors."""
    if not isinstance(n, (int, np.integer)):
        raise ValueError("n should be an integer")
    n, d = int(n), float(d)
    if n * d == 0:  # NumPy's 1.0 / (n * d) comes first
        raise ZeroDivisionError("float division by zero")
    if n < 0:
        raise ValueError("negative dimensions are not allowed")
    return _c.new(_connect.current(), op, (), (size(n),), _c.F64,
                  {"n": n, "d": d})


def fftfreq(n: int, d: float = 1.0, device: Any = None) -> ndarray:
    """numpy.fft.fftfreq (the server's fftfreq)."""
    return _frequencies("fftfreq", n, d, lambda k: k)


def rfftfreq(n: int, d: float = 1.0, device: Any = None) -> ndarray:
    """numpy.fft.rfftfreq (the server's rfftfreq)."""
    return _frequencies("rfftfreq", n, d, lambda k: k // 2 + 1)


def _shift(op: str, x: Any, axes: Any) -> ndarray:
    """The server's fftshift or ifftshift (NumPy's AxisError checked here)."""
    x = _c.ensure(x)
    attrs: dict[str, Any] = {}
    if axes is not None:
        axes = [axes] if isinstance(axes, (int, np.integer)) else list(axes)
        for ax in axes:
            normalize_axis_index(ax, x.ndim)
        attrs["axes"] = [int(ax) for ax in axes]
    return _c.new(x._session, op, (x,), x._shape, x._dtype, attrs)


def fftshift(x: Any, axes: Any = None) -> ndarray:
    """numpy.fft.fftshift."""
    return _shift("fftshift", x, axes)


def ifftshift(x: Any, axes: Any = None) -> ndarray:
    """numpy.fft.ifftshift."""
    return _shift("ifftshift", x, axes)


__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft",
           "ifft2", "ifftn", "ifftshift", "ihfft", "irfft", "irfft2",
           "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]
