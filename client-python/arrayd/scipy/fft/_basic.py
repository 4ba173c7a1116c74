"""scipy.fft's complex and real transforms over arrayd.fft's server ops.

SciPy decides differently from numpy.fft in a few places, and those are
decided here before anything is sent: half precision is transformed in
single (an irfft of float16 gives float32), ``s`` may be a scalar but
holds no None, ``axes`` must be unique, ``s`` without ``axes`` names the
last len(s) axes without NumPy's deprecation warning, -1 in ``s`` keeps an
axis's length, and the messages are SciPy's. ``overwrite_x`` and
``workers`` are accepted (the server plans its own transforms; results
never alias the input); ``plan`` must be None, as in SciPy.

Layer: functions of the arrayd.scipy.fft namespace (imports arrayd.fft and
the core function modules).
"""
from __future__ import annotations

import contextlib
import contextvars
import operator
import os
from typing import Any, Iterator, Sequence

import numpy as np

from arrayd import _composite as _c
from arrayd import fft as _npfft
from arrayd._ndarray import ndarray

_NORMS = (None, "backward", "ortho", "forward")
# scipy.fft's inverse-norm pairing (hfft is an irfft with the other norm).
_SWAPPED = {None: "forward", "backward": "forward", "forward": "backward",
            "ortho": "ortho"}
_workers: contextvars.ContextVar[int] = contextvars.ContextVar(
    "arrayd_scipy_fft_workers", default=1)


def check_norm(norm: Any) -> Any:
    """norm as given, or SciPy's ValueError."""
    if not isinstance(norm, (str, type(None))) or norm not in _NORMS:
        raise ValueError(f"Invalid norm value {norm!r}, should be "
                         '"backward", "ortho" or "forward"')
    return norm


def swapped_norm(norm: Any) -> str:
    """The norm of the transform in the other direction."""
    return _SWAPPED[check_norm(norm)]


def check_workers(workers: Any) -> int:
    """SciPy's reading of ``workers``: None the current default, a negative
    count wraps around os.cpu_count(); zero, or too negative, is a
    ValueError. The server plans its own threads, so the count is only
    checked."""
    if workers is None:
        return _workers.get()
    workers = operator.index(workers)
    if workers == 0:
        raise ValueError("workers must not be zero")
    if workers < 0:
        workers += (os.cpu_count() or 1) + 1
        if workers <= 0:
            raise ValueError("workers value out of range; got "
                             f"{workers}, must not be less than "
                             f"{-(os.cpu_count() or 1)}")
    return workers


def check_plan(plan: Any) -> None:
    """SciPy's answer to a precomputed plan."""
    if plan is not None:
        raise NotImplementedError("Passing a precomputed plan is not yet "
                                  "supported by scipy.fft functions")


def check_n(n: Any) -> Any:
    """A transform length: None, or an integer of at least 1."""
    if n is None:
        return None
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"invalid number of data points ({n}) specified")
    return n


def as_input(x: Any) -> ndarray:
    """x on the server; half precision as single (SciPy transforms it so)."""
    x = _c.ensure(x)
    if x.dtype == np.float16:
        x = x.astype(np.float32)
    return x


def shape_and_axes(x: ndarray, s: Any, axes: Any) -> tuple[Any, list[int]]:
    """The lengths (None: the axes' own) and the normalized axes of an
    n-dimensional transform, with SciPy's rules and errors."""
    ndim = x.ndim
    if axes is not None:
        axes = [axes] if np.ndim(axes) == 0 else list(axes)
        norm_axes = []
        for ax in axes:
            ax = operator.index(ax)
            if not -ndim <= ax < ndim:
                raise ValueError("axes exceeds dimensionality of input")
            norm_axes.append(ax % ndim)
        if len(set(norm_axes)) != len(norm_axes):
            raise ValueError("all axes must be unique")
        axes = norm_axes
    if s is None:
        return None, list(range(ndim)) if axes is None else axes
    try:
        s = [operator.index(s)] if np.ndim(s) == 0 else [
            operator.index(d) for d in s]
    except TypeError:
        raise ValueError(
            "shape must be a scalar or iterable of integers") from None
    if axes is None:
        if len(s) > ndim:
            raise ValueError("shape requires more axes than are present")
        axes = list(range(ndim - len(s), ndim))
    elif len(s) != len(axes):
        raise ValueError("when given, axes and shape arguments have to be "
                         "of the same length")
    s = [x.shape[ax] if d == -1 else d for d, ax in zip(s, axes)]
    if any(d < 1 for d in s):
        raise ValueError(f"invalid number of data points ({s}) specified")
    return s, axes


def _one(fn: Any, x: Any, n: Any, axis: Any, norm: Any, workers: Any,
         plan: Any) -> ndarray:
    check_plan(plan)
    check_norm(norm)
    check_workers(workers)
    return fn(as_input(x), check_n(n), axis, norm)


def _nd(fn: Any, x: Any, s: Any, axes: Any, norm: Any, workers: Any,
        plan: Any, real: bool = False) -> ndarray:
    check_plan(plan)
    check_norm(norm)
    check_workers(workers)
    x = as_input(x)
    s, axes = shape_and_axes(x, s, axes)
    if not axes:
        if real:
            raise ValueError("at least 1 axis must be transformed")
        return x.copy()
    return fn(x, s, axes, norm)


def fft(x: Any, n: Any = None, axis: int = -1, norm: Any = None,
        overwrite_x: bool = False, workers: Any = None, *,
        plan: Any = None) -> ndarray:
    """scipy.fft.fft: the 1-D discrete Fourier transform."""
    return _one(_npfft.fft, x, n, axis, norm, workers, plan)


def ifft(x: Any, n: Any = None, axis: int = -1, norm: Any = None,
         overwrite_x: bool = False, workers: Any = None, *,
         plan: Any = None) -> ndarray:
    """scipy.fft.ifft: the 1-D inverse discrete Fourier transform."""
    return _one(_npfft.ifft, x, n, axis, norm, workers, plan)


def rfft(x: Any, n: Any = None, axis: int = -1, norm: Any = None,
         overwrite_x: bool = False, workers: Any = None, *,
         plan: Any = None) -> ndarray:
    """scipy.fft.rfft: the 1-D transform of real input (n // 2 + 1 terms)."""
    return _one(_npfft.rfft, x, n, axis, norm, workers, plan)


def irfft(x: Any, n: Any = None, axis: int = -1, norm: Any = None,
          overwrite_x: bool = False, workers: Any = None, *,
          plan: Any = None) -> ndarray:
    """scipy.fft.irfft: the inverse of rfft (n defaults to 2 * (m - 1))."""
    return _one(_npfft.irfft, x, n, axis, norm, workers, plan)


def hfft(x: Any, n: Any = None, axis: int = -1, norm: Any = None,
         overwrite_x: bool = False, workers: Any = None, *,
         plan: Any = None) -> ndarray:
    """scipy.fft.hfft: the transform of a Hermitian-symmetric signal (real
    result)."""
    return _one(_npfft.hfft, x, n, axis, norm, workers, plan)


def ihfft(x: Any, n: Any = None, axis: int = -1, norm: Any = None,
          overwrite_x: bool = False, workers: Any = None, *,
          plan: Any = None) -> ndarray:
    """scipy.fft.ihfft: the inverse of hfft, of real input."""
    return _one(_npfft.ihfft, x, n, axis, norm, workers, plan)


def fftn(x: Any, s: Any = None, axes: Any = None, norm: Any = None,
         overwrite_x: bool = False, workers: Any = None, *,
         plan: Any = None) -> ndarray:
    """scipy.fft.fftn: the n-dimensional discrete Fourier transform."""
    return _nd(_npfft.fftn, x, s, axes, norm, workers, plan)


def ifftn(x: Any, s: Any = None, axes: Any = None, norm: Any = None,
          overwrite_x: bool = False, workers: Any = None, *,
          plan: Any = None) -> ndarray:
    """scipy.fft.ifftn: the n-dimensional inverse transform."""
    return _nd(_npfft.ifftn, x, s, axes, norm, workers, plan)


def fft2(x: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
         norm: Any = None, overwrite_x: bool = False, workers: Any = None,
         *, plan: Any = None) -> ndarray:
    """scipy.fft.fft2: fftn over the last two axes."""
    return _nd(_npfft.fftn, x, s, axes, norm, workers, plan)


def ifft2(x: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
          norm: Any = None, overwrite_x: bool = False, workers: Any = None,
          *, plan: Any = None) -> ndarray:
    """scipy.fft.ifft2: ifftn over the last two axes."""
    return _nd(_npfft.ifftn, x, s, axes, norm, workers, plan)


def rfftn(x: Any, s: Any = None, axes: Any = None, norm: Any = None,
          overwrite_x: bool = False, workers: Any = None, *,
          plan: Any = None) -> ndarray:
    """scipy.fft.rfftn: rfft over the last axis, fft over the others."""
    return _nd(_npfft.rfftn, x, s, axes, norm, workers, plan, real=True)


def irfftn(x: Any, s: Any = None, axes: Any = None, norm: Any = None,
           overwrite_x: bool = False, workers: Any = None, *,
           plan: Any = None) -> ndarray:
    """scipy.fft.irfftn: the inverse of rfftn."""
    return _nd(_npfft.irfftn, x, s, axes, norm, workers, plan, real=True)


def rfft2(x: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
          norm: Any = None, overwrite_x: bool = False, workers: Any = None,
          *, plan: Any = None) -> ndarray:
    """scipy.fft.rfft2: rfftn over the last two axes."""
    return rfftn(x, s, axes, norm, overwrite_x, workers, plan=plan)


def irfft2(x: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
           norm: Any = None, overwrite_x: bool = False, workers: Any = None,
           *, plan: Any = None) -> ndarray:
    """scipy.fft.irfft2: irfftn over the last two axes."""
    return irfftn(x, s, axes, norm, overwrite_x, workers, plan=plan)


def _hfftn(x: ndarray, s: Any, axes: list[int], norm: Any) -> ndarray:
    """hfftn is irfftn of the conjugate with the other norm."""
    return _npfft.irfftn(x.conj(), s, axes, swapped_norm(norm))


def _ihfftn(x: ndarray, s: Any, axes: list[int], norm: Any) -> ndarray:
    """ihfftn is the conjugate of rfftn with the other norm."""
    return _npfft.rfftn(x, s, axes, swapped_norm(norm)).conj()


def hfftn(x: Any, s: Any = None, axes: Any = None, norm: Any = None,
          overwrite_x: bool = False, workers: Any = None, *,
          plan: Any = None) -> ndarray:
    """scipy.fft.hfftn: the n-dimensional transform of a Hermitian-symmetric
    signal (real result; the last axis's length defaults to 2 * (m - 1))."""
    return _nd(_hfftn, x, s, axes, norm, workers, plan, real=True)


def ihfftn(x: Any, s: Any = None, axes: Any = None, norm: Any = None,
           overwrite_x: bool = False, workers: Any = None, *,
           plan: Any = None) -> ndarray:
    """scipy.fft.ihfftn: the inverse of hfftn, of real input."""
    return _nd(_ihfftn, x, s, axes, norm, workers, plan, real=True)


def hfft2(x: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
          norm: Any = None, overwrite_x: bool = False, workers: Any = None,
          *, plan: Any = None) -> ndarray:
    """scipy.fft.hfft2: hfftn over the last two axes."""
    return hfftn(x, s, axes, norm, overwrite_x, workers, plan=plan)


def ihfft2(x: Any, s: Any = None, axes: Sequence[int] = (-2, -1),
           norm: Any = None, overwrite_x: bool = False, workers: Any = None,
           *, plan: Any = None) -> ndarray:
    """scipy.fft.ihfft2: ihfftn over the last two axes."""
    return ihfftn(x, s, axes, norm, overwrite_x, workers, plan=plan)


def get_workers() -> int:
    """scipy.fft.get_workers: the default ``workers`` of this context."""
    return _workers.get()


@contextlib.contextmanager
def set_workers(workers: int) -> Iterator[None]:
    """scipy.fft.set_workers: a context manager that sets the default
    ``workers`` (checked as SciPy does; the server picks its threads)."""
    token = _workers.set(check_workers(workers))
    try:
        yield
    finally:
        _workers.reset(token)
