"""scipy.fft's discrete cosine and sine transforms, types 1 to 4, composed
of arrayd's FFT ops on the server.

Each type is one transform along the last axis (the axis is moved there
and back, as views): DCT-I an rfft of the even extension, DST-I of the odd
one, DCT-II and DCT-IV an FFT of length 2N times a twiddle, DCT-III an
inverse FFT of length 2N of the weighted, twiddled input, DST-II and
DST-III the DCTs of the reversed or sign-alternated input. Twiddles and
weights are computed on the server from an arange. Complex input is
transformed as its real and imaginary parts, as SciPy does.

Normalization, as in SciPy: "backward" (None) leaves the forward transform
unscaled, "forward" scales it by 1/M and "ortho" by 1/sqrt(M), where M is
2(N-1) for DCT-I, 2(N+1) for DST-I and 2N otherwise; ``orthogonalize``
(default: norm == "ortho") scales the boundary terms by sqrt(2) so that
the matrix is orthogonal. An inverse transform is the transform of the
inverse type (2 and 3 swap) with the other norm.

Layer: functions of the arrayd.scipy.fft namespace (imports arrayd.fft and
the core function modules).
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from arrayd import _composite as _c
from arrayd import _creation, _manipulation, fft as _npfft
from arrayd._math import UFUNCS as _U
from arrayd._ndarray import ndarray
from arrayd.scipy.fft import _basic

_INVERSE_TYPE = {1: 1, 2: 3, 3: 2, 4: 4}
_SQRT2 = math.sqrt(2.0)


def _real_dtype(dt: np.dtype) -> np.dtype:
    """The real dtype SciPy computes in: single for half and single
    precision (and complex64), double otherwise."""
    return np.dtype(np.float32 if dt.char in "efF" else np.float64)


def _phase(n: int, start: float, step: float, dt: np.dtype) -> ndarray:
    """exp(1j * (start + step * k)) for k < n, on the server, complex of
    the precision of the real dtype ``dt``."""
    k = _creation.arange(n, dtype=dt)
    return _U["exp"]((k * step + start) * 1j)


def _signs(n: int, dt: np.dtype) -> ndarray:
    """(-1)**k for k < n, on the server."""
    k = _creation.arange(n, dtype=np.int64)
    return (1 - 2 * (k % 2)).astype(dt)


def _weights(n: int, dt: np.dtype, first: float | None = None,
             last: float | None = None, rest: float = 1.0) -> ndarray:
    """A length-n vector of ``rest`` with its first and last entries
    replaced when given (the last wins when n == 1)."""
    w = _creation.full(n, rest, dtype=dt)
    if first is not None:
        w[0] = first
    if last is not None:
        w[n - 1] = last
    return w


def _dct1(x: ndarray, n: int) -> ndarray:
    ext = _manipulation.concatenate(
        [x, _manipulation.flip(x[..., 1:n - 1], -1)], axis=-1)
    return _npfft.rfft(ext).real


def _dct2(x: ndarray, n: int) -> ndarray:
    spectrum = _npfft.rfft(x, n=2 * n)[..., :n]
    return (spectrum * _phase(n, 0.0, -math.pi / (2 * n), x.dtype)).real * 2


def _dct3(x: ndarray, n: int) -> ndarray:
    z = x * _weights(n, x.dtype, first=1.0, rest=2.0) * _phase(
        n, 0.0, math.pi / (2 * n), x.dtype)
    return _npfft.ifft(z, n=2 * n, norm="forward")[..., :n].real


def _dct4_spectrum(x: ndarray, n: int) -> ndarray:
    """sum_m x_m exp(-i pi (2k+1)(2m+1) / (4n)) for k < n."""
    z = x * _phase(n, 0.0, -math.pi / (2 * n), x.dtype)
    spectrum = _npfft.fft(z, n=2 * n)[..., :n]
    return spectrum * _phase(n, -math.pi / (4 * n), -math.pi / (2 * n),
                             x.dtype)


def _dct4(x: ndarray, n: int) -> ndarray:
    return _dct4_spectrum(x, n).real * 2


def _dst1(x: ndarray, n: int) -> ndarray:
    zero = _creation.zeros(x.shape[:-1] + (1,), dtype=x.dtype)
    ext = _manipulation.concatenate(
        [zero, x, zero, -_manipulation.flip(x, -1)], axis=-1)
    return -_npfft.rfft(ext)[..., 1:n + 1].imag


def _dst2(x: ndarray, n: int) -> ndarray:
    return _manipulation.flip(_dct2(x * _signs(n, x.dtype), n), -1)


def _dst3(x: ndarray, n: int) -> ndarray:
    return _dct3(_manipulation.flip(x, -1), n) * _signs(n, x.dtype)


def _dst4(x: ndarray, n: int) -> ndarray:
    return _dct4_spectrum(x, n).imag * -2


# (kind, type) -> (transform, M(n), input weights, output weights); the
# weights (first, last; None: unscaled) are orthogonalize's sqrt(2)
# scalings.
_TRANSFORMS = {
    ("dct", 1): (_dct1, lambda n: 2 * (n - 1), (_SQRT2, _SQRT2),
                 (1 / _SQRT2, 1 / _SQRT2)),
    ("dct", 2): (_dct2, lambda n: 2 * n, None, (1 / _SQRT2, None)),
    ("dct", 3): (_dct3, lambda n: 2 * n, (_SQRT2, None), None),
    ("dct", 4): (_dct4, lambda n: 2 * n, None, None),
    ("dst", 1): (_dst1, lambda n: 2 * (n + 1), None, None),
    ("dst", 2): (_dst2, lambda n: 2 * n, None, (None, 1 / _SQRT2)),
    ("dst", 3): (_dst3, lambda n: 2 * n, (None, _SQRT2), None),
    ("dst", 4): (_dst4, lambda n: 2 * n, None, None),
}


def _resize_last(x: ndarray, n: int) -> ndarray:
    """x truncated or zero-padded to length n along the last axis."""
    m = x.shape[-1]
    if n <= m:
        return x[..., :n]
    pad = _creation.zeros(x.shape[:-1] + (n - m,), dtype=x.dtype)
    return _manipulation.concatenate([x, pad], axis=-1)


def _last_axis(kind: str, type: int, x: ndarray, norm: Any,
               orthogonalize: bool) -> ndarray:
    """The (forward) transform of real x along its last axis."""
    n = x.shape[-1]
    fn, length, pre, post = _TRANSFORMS[kind, type]
    if kind == "dct" and type == 1 and n < 2:
        raise RuntimeError("zero-length FFT requested")
    if orthogonalize and pre is not None:
        x = x * _weights(n, x.dtype, *pre)
    y = fn(x, n)
    if orthogonalize and post is not None:
        y = y * _weights(n, x.dtype, *post)
    m = length(n)
    if norm == "forward":
        y = y * (1.0 / m)
    elif norm == "ortho":
        y = y * (1.0 / math.sqrt(m))
    return y


def _check_type(kind: str, type: Any) -> int:
    if type not in (1, 2, 3, 4):
        raise ValueError(f"invalid {kind.upper()} type")
    return int(type)


def _input(x: Any) -> ndarray:
    """x on the server in the dtype SciPy computes in (complex64 and
    complex128 stay complex)."""
    x = _c.ensure(x)
    if x.dtype.kind == "c":
        return x
    return x.astype(_real_dtype(x.dtype), copy=False)


def _transform_axis(kind: str, type: int, x: ndarray, n: Any, axis: int,
                    norm: Any, orthogonalize: Any, inverse: bool) -> ndarray:
    """One transform of x along ``axis`` (normalized), length ``n``."""
    if inverse:
        type, norm = _INVERSE_TYPE[type], _basic.swapped_norm(norm)
    else:
        norm = "backward" if norm is None else norm
    if orthogonalize is None:
        orthogonalize = norm == "ortho"
    moved = _manipulation.moveaxis(x, axis, -1)
    if n is not None:
        moved = _resize_last(moved, n)
    if moved.dtype.kind == "c":
        y = (_last_axis(kind, type, moved.real, norm, orthogonalize)
             + _last_axis(kind, type, moved.imag, norm, orthogonalize) * 1j)
    else:
        y = _last_axis(kind, type, moved, norm, orthogonalize)
    return _manipulation.moveaxis(y, -1, axis)


def _one(kind: str, x: Any, type: Any, n: Any, axis: Any, norm: Any,
         workers: Any, orthogonalize: Any, inverse: bool) -> ndarray:
    type = _check_type(kind, type)
    _basic.check_norm(norm)
    _basic.check_workers(workers)
    n = _basic.check_n(n)
    x = _input(x)
    axis = normalize_axis_index(operator.index(axis), x.ndim)
    return _transform_axis(kind, type, x, n, axis, norm, orthogonalize,
                           inverse)


def _many(kind: str, x: Any, type: Any, s: Any, axes: Any, norm: Any,
          workers: Any, orthogonalize: Any, inverse: bool) -> ndarray:
    type = _check_type(kind, type)
    _basic.check_norm(norm)
    _basic.check_workers(workers)
    x = _input(x)
    s, axes = _basic.shape_and_axes(x, s, axes)
    if not axes:
        return x.copy()
    lengths = s if s is not None else [None] * len(axes)
    for n, axis in zip(lengths, axes):
        x = _transform_axis(kind, type, x, n, axis, norm, orthogonalize,
                            inverse)
    return x


def dct(x: Any, type: int = 2, n: Any = None, axis: int = -1,
        norm: Any = None, overwrite_x: bool = False, workers: Any = None,
        orthogonalize: Any = None) -> ndarray:
    """scipy.fft.dct: the discrete cosine transform of type 1 to 4."""
    return _one("dct", x, type, n, axis, norm, workers, orthogonalize, False)


def idct(x: Any, type: int = 2, n: Any = None, axis: int = -1,
         norm: Any = None, overwrite_x: bool = False, workers: Any = None,
         orthogonalize: Any = None) -> ndarray:
    """scipy.fft.idct: the inverse of dct of the same type and norm."""
    return _one("dct", x, type, n, axis, norm, workers, orthogonalize, True)


def dst(x: Any, type: int = 2, n: Any = None, axis: int = -1,
        norm: Any = None, overwrite_x: bool = False, workers: Any = None,
        orthogonalize: Any = None) -> ndarray:
    """scipy.fft.dst: the discrete sine transform of type 1 to 4."""
    return _one("dst", x, type, n, axis, norm, workers, orthogonalize, False)


def idst(x: Any, type: int = 2, n: Any = None, axis: int = -1,
         norm: Any = None, overwrite_x: bool = False, workers: Any = None,
         orthogonalize: Any = None) -> ndarray:
    """scipy.fft.idst: the inverse of dst of the same type and norm."""
    return _one("dst", x, type, n, axis, norm, workers, orthogonalize, True)


def dctn(x: Any, type: int = 2, s: Any = None, axes: Any = None,
         norm: Any = None, overwrite_x: bool = False, workers: Any = None,
         *, orthogonalize: Any = None) -> ndarray:
    """scipy.fft.dctn: dct along each of ``axes`` (default: all)."""
    return _many("dct", x, type, s, axes, norm, workers, orthogonalize,
                 False)


def idctn(x: Any, type: int = 2, s: Any = None, axes: Any = None,
          norm: Any = None, overwrite_x: bool = False, workers: Any = None,
          orthogonalize: Any = None) -> ndarray:
    """scipy.fft.idctn: idct along each of ``axes`` (default: all)."""
    return _many("dct", x, type, s, axes, norm, workers, orthogonalize, True)


def dstn(x: Any, type: int = 2, s: Any = None, axes: Any = None,
         norm: Any = None, overwrite_x: bool = False, workers: Any = None,
         orthogonalize: Any = None) -> ndarray:
    """scipy.fft.dstn: dst along each of ``axes`` (default: all)."""
    return _many("dst", x, type, s, axes, norm, workers, orthogonalize,
                 False)


def idstn(x: Any, type: int = 2, s: Any = None, axes: Any = None,
          norm: Any = None, overwrite_x: bool = False, workers: Any = None,
          orthogonalize: Any = None) -> ndarray:
    """scipy.fft.idstn: idst along each of ``axes`` (default: all)."""
    return _many("dst", x, type, s, axes, norm, workers, orthogonalize, True)
