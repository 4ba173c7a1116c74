"""arrayd.fft: numpy.fft on the server.

The server's ``fft`` (complex, forward or inverse), ``rfft`` and ``irfft``
ops transform along one axis, with n and norm; the n-dimensional
transforms (fftn, rfftn, irfftn), hfft, ihfft, fftfreq, rfftfreq,
fftshift and ifftshift are server ops of their own (ops/fft.cc, shared
with the C++ client).

Everything NumPy decides before it transforms is decided here, before
anything is sent: each transform is planned as numpy.fft runs it, one
axis after another (``_Step``), so the lengths a missing ``n`` or a
``None`` in ``s`` stands for, the result's shape and dtype (NumPy 2's:
single precision stays single, an irfftn over several axes of float16
gives float32), NumPy's DeprecationWarnings for ``s`` and its errors
(ValueError for a bad length, norm or out shape, in NumPy's order) come
out as NumPy's do. The server gets every length resolved.

Layer: a public namespace, above the function modules (imports the core,
_composite and _connect).
"""
from __future__ import annotations

import functools
import operator
import warnings
from typing import Any, NamedTuple, Sequence

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from arrayd import _composite as _c
from arrayd import _connect
from arrayd._ndarray import ndarray

_NORMS = ("backward", "ortho", "forward")
# The one-axis transforms: (NumPy's function, forward?).
_KINDS = {"fft": (np.fft.fft, True), "ifft": (np.fft.ifft, False),
          "rfft": (np.fft.rfft, True), "irfft": (np.fft.irfft, False)}
# NumPy's DeprecationWarnings of numpy.fft._cook_nd_args (NumPy 2.0).
_AXES_NONE = (
    "`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy "
    "2.0). In a future version of NumPy, this will raise an error and "
    "`s[i]` will correspond to the size along the transformed axis "
    "specified by `axes[i]`. To retain current behaviour, pass a sequence "
    "[0, ..., k-1] to `axes` for an array of dimension k.")
_S_NONE = (
    "Passing an array containing `None` values to `s` is deprecated in "
    "NumPy 2.0 and will raise an error in a future version of NumPy. To use "
    "the default behaviour of the corresponding 1-D transform, pass the "
    "value matching the default for its `n` parameter. To use the default "
    "behaviour for every axis, the `s` argument can be omitted.")
# The user's line: _cook_nd <- _plan_nd <- the public function <- it.
_WARN_LEVEL = 4


def _check_norm(norm: Any, forward: bool) -> str:
    """norm as the server's attribute; NumPy's ValueError (its message
    differs, by one space, between forward and inverse transforms)."""
    if norm is None:
        return "backward"
    if isinstance(norm, str) and norm in _NORMS:
        return norm
    sep = "" if forward else " "
    raise ValueError(f'Invalid norm value {norm}; should be "backward",'
                     f'{sep}"ortho" or "forward".')


@functools.lru_cache(maxsize=None)
def _step_dtype(kind: str, dt: np.dtype) -> np.dtype:
    """NumPy's result dtype of one transform on a 2-element probe (NumPy
    raises its TypeError for unsupported inputs, rfft of complex)."""
    return _KINDS[kind][0](np.zeros(2, dt), n=2).dtype


def _server_dtype(kind: str, dt: np.dtype) -> np.dtype:
    """The dtype the server's transform gives: complex (irfft: real) of
    single precision for float16/32 and complex64 inputs, else double."""
    single = dt.char in "efF"
    if kind == "irfft":
        return np.dtype(np.float32 if single else np.float64)
    return np.dtype(np.complex64 if single else np.complex128)


class _Step(NamedTuple):
    kind: str  # fft, ifft, rfft or irfft
    n: int
    axis: int  # normalized


def _plan_step(kind: str, shape: list[int], n: Any, axis: Any,
               norm: Any, first: bool) -> _Step:
    """One transform as numpy.fft checks it: the default n from the
    current shape, NumPy's ValueError for n < 1, the norm (on the first
    transform, where NumPy meets it first), then the axis (AxisError).
    Updates ``shape`` to the transform's result."""
    ndim = len(shape)
    if n is None:
        m = shape[normalize_axis_index(axis, ndim)]
        n = 2 * (m - 1) if kind == "irfft" else m
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    if first:
        _check_norm(norm, _KINDS[kind][1])
    ax = normalize_axis_index(axis, ndim)
    shape[ax] = n // 2 + 1 if kind == "rfft" else n
    return _Step(kind, n, ax)


def _check_out(out: Any, ndim: int, step: _Step) -> None:
    """NumPy's check of out= in each one-axis transform it is given to."""
    if out is None or type(out) is tuple:
        return
    oshape = getattr(out, "shape", None)
    n_out = step.n // 2 + 1 if step.kind == "rfft" else step.n
    if oshape is not None and (len(oshape) != ndim
                               or oshape[step.axis] != n_out):
        raise ValueError("output array has wrong shape.")


def _finish(a: ndarray, op: str, kind: str, shape: list[int],
            rdt: np.dtype, attrs: dict[str, Any], out: Any) -> ndarray:
    """Records server op ``op`` (its dtype rule: _server_dtype of
    ``kind``), casts to NumPy's dtype ``rdt`` and writes ``out``."""
    sdt = _server_dtype(kind, a._dtype)
    r = _c.new(a._session, op, (a,), tuple(shape), sdt, attrs)
    if r._dtype != rdt:
        r = r.astype(rdt)
    return r if out is None else _c.assign(out, r, op)


def _one_axis(kind: str, a: Any, n: Any, axis: Any, norm: Any, out: Any,
              op: str = "", swapped: bool = False) -> ndarray:
    """The one-axis transform ``kind``, or the server op ``op`` with its
    shapes (hfft as irfft, ihfft as rfft; ``swapped``: NumPy checks their
    norm as an inverse transform's first)."""
    a = _c.ensure(a)
    if swapped:
        _check_norm(norm, forward=False)
    shape = list(a._shape)
    step = _plan_step(kind, shape, n, axis, norm, first=True)
    _check_out(out, a.ndim, step)
    rdt = _step_dtype(kind, a._dtype)
    attrs: dict[str, Any] = {"n": step.n, "axis": step.axis,
                             "norm": _check_norm(norm, True)}
    if not op and kind in ("fft", "ifft"):
        attrs["inverse"] = kind == "ifft"
    server = op or ("fft" if kind == "ifft" else kind)
    return _finish(a, server, "fft" if kind == "ifft" else kind, shape,
                   rdt, attrs, out)


def fft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
        out: Any = None) -> ndarray:
    """numpy.fft.fft."""
    return _one_axis("fft", a, n, axis, norm, out)


def ifft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
         out: Any = None) -> ndarray:
    """numpy.fft.ifft."""
    return _one_axis("ifft", a, n, axis, norm, out)


def rfft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
         out: Any = None) -> ndarray:
    """numpy.fft.rfft."""
    return _one_axis("rfft", a, n, axis, norm, out)


def irfft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
          out: Any = None) -> ndarray:
    """numpy.fft.irfft."""
    return _one_axis("irfft", a, n, axis, norm, out)


def hfft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
         out: Any = None) -> ndarray:
    """numpy.fft.hfft: the server's hfft (the irfft of the conjugate, norm
    swapped)."""
    return _one_axis("irfft", a, n, axis, norm, out, "hfft", swapped=True)


def ihfft(a: Any, n: Any = None, axis: int = -1, norm: Any = None,
          out: Any = None) -> ndarray:
    """numpy.fft.ihfft: the server's ihfft (the conjugate of the rfft, norm
    swapped)."""
    return _one_axis("rfft", a, n, axis, norm, out, "ihfft", swapped=True)


def _cook_nd(shape: tuple[int, ...], s: Any, axes: Any,
             invreal: bool) -> tuple[list[Any], list[Any]]:
    """The lengths and axes of an n-D transform as NumPy 2 reads them
    (its warnings and errors): no s, the lengths of the axes; no axes, the
    last len(s); -1 in s, the axis's length; None in s (deprecated), the
    one-axis transform's default, resolved by _plan_nd."""
    shapeless = s is None
    if shapeless:
        if axes is None:
            s = list(shape)
        else:
            s = [shape[operator.index(ax)] for ax in axes]  # IndexError
    s = list(s)
    if axes is None:
        if not shapeless:
            warnings.warn(_AXES_NONE, DeprecationWarning,
                          stacklevel=_WARN_LEVEL)
        axes = list(range(-len(s), 0))
    axes = list(axes)
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if invreal and shapeless:
        s[-1] = (shape[axes[-1]] - 1) * 2  # no axes: NumPy's IndexError
    if any(d is None for d in s):
        warnings.warn(_S_NONE, DeprecationWarning,
                      stacklevel=_WARN_LEVEL)
    s = [shape[ax] if d is not None and d == -1 else d
         for d, ax in zip(s, axes)]
    return s, axes


def _plan_nd(kind: str, a: Any, s: Any, axes: Any, norm: Any, inverse: bool,
             out: Any) -> ndarray:
    """The server's fftn (kind fft), rfftn or irfftn over ``axes`` with
    lengths ``s``, planned as numpy.fft runs it: fftn the last axis
    first; rfftn the rfft on the last axis, then the others last first;
    irfftn the inverse ffts first to last, then the irfft on the last.
    No axes: a itself (fftn), as NumPy."""
    a = _c.ensure(a)
    s, axes = _cook_nd(a._shape, s, axes, invreal=kind == "irfft")
    op = {"fft": "fftn", "rfft": "rfftn", "irfft": "irfftn"}[kind]
    k = len(axes)
    if kind == "fft" and not k:
        return a if out is None else _c.assign(out, a, op)
    one = "ifft" if inverse else "fft"
    if kind == "fft":
        plan = [(one, i) for i in reversed(range(k))]
    elif kind == "rfft":
        plan = [("rfft", k - 1)] + [("fft", i) for i in reversed(range(k - 1))]
    else:
        plan = [("ifft", i) for i in range(k - 1)] + [("irfft", k - 1)]
    shape = list(a._shape)
    lengths = list(s)
    rdt = a._dtype
    for j, (step_kind, i) in enumerate(plan):
        step = _plan_step(step_kind, shape, s[i], axes[i], norm, j == 0)
        if kind != "irfft" or step_kind == "irfft":  # NumPy passes out here
            _check_out(out, a.ndim, step)
        lengths[i] = step.n
        axes[i] = step.axis
        rdt = _step_dtype(step_kind, rdt)
    attrs: dict[str, Any] = {"s": lengths, "axes": axes,
                             "norm": _check_norm(norm, True)}
    if kind == "fft":
        attrs["inverse"] = bool(inverse)
    return _finish(a, op, kind, shape, rdt, attrs, out)


def fftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None,
         out: Any = None) -> ndarray:
    """numpy.fft.fftn."""
    return _plan_nd("fft", a, s, axes, norm, False, out)


def ifftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None,
          out: Any = None) -> ndarray:
    """numpy.fft.ifftn."""
    return _plan_nd("fft", a, s, axes, norm, True, out)


def fft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
         norm: Any = None, out: Any = None) -> ndarray:
    """numpy.fft.fft2."""
    return _plan_nd("fft", a, s, axes, norm, False, out)


def ifft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
          norm: Any = None, out: Any = None) -> ndarray:
    """numpy.fft.ifft2."""
    return _plan_nd("fft", a, s, axes, norm, True, out)


def rfftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None,
          out: Any = None) -> ndarray:
    """numpy.fft.rfftn: rfft on the last axis, then complex ffts."""
    return _plan_nd("rfft", a, s, axes, norm, False, out)


def rfft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
          norm: Any = None, out: Any = None) -> ndarray:
    """numpy.fft.rfft2."""
    return _plan_nd("rfft", a, s, axes, norm, False, out)


def irfftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None,
           out: Any = None) -> ndarray:
    """numpy.fft.irfftn: complex inverse ffts, then irfft on the last axis."""
    return _plan_nd("irfft", a, s, axes, norm, True, out)


def irfft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
           norm: Any = None, out: Any = None) -> ndarray:
    """numpy.fft.irfft2."""
    return _plan_nd("irfft", a, s, axes, norm, True, out)


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
