"""scipy.linalg's special matrices, built on the server.

Each matrix is an index computation on the server: an arange-made grid of
row and column numbers (``_grid``) picks entries of the inputs with
``take`` (toeplitz, hankel, circulant, convolution_matrix) or is the
formula itself (hilbert, helmert, dft, fiedler); block_diag writes its
blocks into one zeroed result. The 1-D inputs of toeplitz, hankel,
circulant, companion, leslie and fiedler may carry batch dimensions in
front, as in SciPy 1.17 (the last axis is the vector).

Layer: functions of the arrayd.scipy.linalg namespace (imports arrayd's
function modules).
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from arrayd import _composite as _c
from arrayd import _creation, _manipulation
from arrayd._linalg import kron as _kron
from arrayd._math import UFUNCS as _U
from arrayd._ndarray import ndarray, session_of

LinAlgError = np.linalg.LinAlgError


def _grid(m: int, n: int) -> tuple[ndarray, ndarray]:
    """The row numbers (m, 1) and column numbers (1, n), int64."""
    i = _creation.arange(m, dtype=np.int64).reshape(m, 1)
    j = _creation.arange(n, dtype=np.int64).reshape(1, n)
    return i, j


def _vector(x: Any) -> ndarray:
    x = _c.ensure(x)
    return x.reshape(1) if x.ndim == 0 else x


def toeplitz(c: Any, r: Any = None) -> ndarray:
    """scipy.linalg.toeplitz: constant diagonals, first column c and first
    row r (default: c conjugated; r[0] is ignored)."""
    c = _vector(c)
    r = c.conj() if r is None else _vector(r)
    m, n = c.shape[-1], r.shape[-1]
    batch = np.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    c = _manipulation.broadcast_to(c, batch + (m,))
    r = _manipulation.broadcast_to(r, batch + (n,))
    vals = _manipulation.concatenate(
        [_manipulation.flip(r[..., 1:], -1), c], axis=-1)
    i, j = _grid(m, n)
    return vals[..., (n - 1) + i - j]


def hankel(c: Any, r: Any = None) -> ndarray:
    """scipy.linalg.hankel: constant anti-diagonals, first column c and
    last row r (default: zeros; r[0] is ignored)."""
    c = _vector(c)
    if r is None:
        r = _creation.zeros_like(c)
    r = _vector(r)
    m, n = c.shape[-1], r.shape[-1]
    batch = np.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    c = _manipulation.broadcast_to(c, batch + (m,))
    r = _manipulation.broadcast_to(r, batch + (n,))
    vals = _manipulation.concatenate([c, r[..., 1:]], axis=-1)
    i, j = _grid(m, n)
    return vals[..., i + j]


def circulant(c: Any) -> ndarray:
    """scipy.linalg.circulant: the circulant matrix of first column c."""
    c = _vector(c)
    n = c.shape[-1]
    i, j = _grid(n, n)
    return c[..., (i - j) % n]


def companion(a: Any) -> ndarray:
    """scipy.linalg.companion: the companion matrix of the polynomial of
    coefficients a (highest first). a[..., 0] must not be zero (checked
    on the server's answer: one scalar comes back)."""
    a = _c.ensure(a)
    if a.ndim == 0 or a.shape[-1] < 2:
        raise ValueError("The length of `a` along the last axis must be at "
                         "least 2.")
    if bool(_U["equal"](a[..., 0], 0).any()):
        raise ValueError("The first coefficient(s) of `a` (i.e. elements "
                         "of `a[..., 0]`) must not be zero.")
    n = a.shape[-1] - 1
    first = -a[..., 1:] / a[..., :1]
    out = _creation.zeros(a.shape[:-1] + (n, n), dtype=first.dtype)
    out[..., 0, :] = first
    if n > 1:
        i = _creation.arange(n - 1, dtype=np.int64)
        out[..., i + 1, i] = 1
    return out


def leslie(f: Any, s: Any) -> ndarray:
    """scipy.linalg.leslie: fecundities f on the first row, survival
    rates s (one fewer) on the subdiagonal."""
    f, s = _vector(f), _vector(s)
    n = f.shape[-1]
    if n < 1:
        raise ValueError("Incorrect shape for f.  f.shape[-1] must be at "
                         "least 1")
    if s.shape[-1] != n - 1:
        raise ValueError("Incorrect shape for s.  s.shape[-1] must be "
                         "f.shape[-1] - 1")
    dt = np.result_type(f.dtype, s.dtype)
    batch = np.broadcast_shapes(f.shape[:-1], s.shape[:-1])
    out = _creation.zeros(batch + (n, n), dtype=dt)
    out[..., 0, :] = f
    if n > 1:
        i = _creation.arange(n - 1, dtype=np.int64)
        out[..., i + 1, i] = s
    return out


def block_diag(*arrs: Any) -> ndarray:
    """scipy.linalg.block_diag: the arrays (as 2-D) on the diagonal of one
    matrix of their common dtype; no arrays, a (1, 0) float64 array."""
    if not arrs:
        return _creation.zeros((1, 0))
    s = session_of(*arrs)
    blocks = [_manipulation.atleast_2d(_c.ensure(a, s)) for a in arrs]
    bad = [k for k, b in enumerate(blocks) if b.ndim > 2]
    if bad:
        raise ValueError("arguments in the following positions have "
                         f"dimension greater than 2: {bad}")
    dt = np.result_type(*[b.dtype for b in blocks])
    rows = sum(b.shape[0] for b in blocks)
    cols = sum(b.shape[1] for b in blocks)
    out = _creation.zeros((rows, cols), dtype=dt)
    r = c = 0
    for b in blocks:
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def hadamard(n: int, dtype: Any = int) -> ndarray:
    """scipy.linalg.hadamard: the Sylvester-Hadamard matrix of order n (a
    power of 2), built by log2(n) Kronecker products."""
    n = operator.index(n)
    if n < 1 or n & (n - 1):
        raise ValueError("n must be an positive integer, and n must be a "
                         "power of 2")
    h = _creation.ones((1, 1), dtype=dtype)
    step = _creation.array([[1, 1], [1, -1]], dtype=dtype)
    for _ in range(n.bit_length() - 1):
        h = _kron(step, h)
    return h


def helmert(n: int, full: bool = False) -> ndarray:
    """scipy.linalg.helmert: the orthogonal Helmert matrix of order n
    (without its first row unless ``full``)."""
    n = operator.index(n)
    i, j = _grid(n, n)
    ii = i.astype(np.float64)
    d = 1.0 / _U["sqrt"](ii * (ii + 1))
    h = _manipulation.where(j < i, d, _manipulation.where(j == i, -ii * d,
                                                          0.0))
    if n:
        h[0, :] = 1.0 / math.sqrt(n)
    return h if full else h[1:]


def hilbert(n: int) -> ndarray:
    """scipy.linalg.hilbert: 1 / (i + j + 1), float64."""
    n = operator.index(n)
    i, j = _grid(n, n)
    return 1.0 / (i + j + 1).astype(np.float64)


def dft(n: int, scale: Any = None) -> ndarray:
    """scipy.linalg.dft: the n-point DFT matrix exp(-2j pi jk / n), scaled
    by 1/sqrt(n) ('sqrtn') or 1/n ('n')."""
    if scale not in (None, "sqrtn", "n"):
        raise ValueError("scale must be None, 'sqrtn', or 'n'; "
                         f"{scale!r} is not valid.")
    n = operator.index(n)
    i, j = _grid(n, n)
    phase = ((i * j) % n).astype(np.float64) * (-2 * math.pi / n)
    m = _U["exp"](phase * 1j)
    if scale == "sqrtn":
        m = m * (1 / math.sqrt(n))
    elif scale == "n":
        m = m * (1 / n)
    return m


def fiedler(a: Any) -> ndarray:
    """scipy.linalg.fiedler: |a_i - a_j|."""
    a = _c.ensure(a)
    if a.ndim == 1 and a.shape[0] < 2:
        # SciPy's answers for the short vectors: float64 [] and [[0.]].
        return _creation.zeros((0,) if a.shape[0] == 0 else (1, 1))
    return abs(a[..., :, None] - a[..., None, :])


def convolution_matrix(a: Any, n: int, mode: str = "full") -> ndarray:
    """scipy.linalg.convolution_matrix: the matrix A with A @ v equal to
    numpy.convolve(a, v, mode) for v of length n."""
    a = _c.ensure(a)
    n = operator.index(n)
    if a.ndim != 1:
        raise ValueError("convolution_matrix expects a one-dimensional "
                         "array as input")
    m = a.shape[0]
    if m == 0:
        raise ValueError("len(a) must be at least 1.")
    if n <= 0:
        raise ValueError("n must be a positive integer.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"'mode' argument must be one of ('full', "
                         f"'valid', 'same'); got {mode!r}")
    zeros = _creation.zeros(n - 1, dtype=a.dtype)
    col = _manipulation.concatenate([a, zeros])
    row = _manipulation.concatenate([a[:1], zeros])
    full = toeplitz(col, row)  # (m + n - 1, n)
    short, long = min(m, n), max(m, n)
    if mode == "valid":
        return full[short - 1:long]
    if mode == "same":
        lo = (short - 1) // 2
        return full[lo:lo + long]
    return full


def khatri_rao(a: Any, b: Any) -> ndarray:
    """scipy.linalg.khatri_rao: the column-wise Kronecker product."""
    s = session_of(a, b)
    a, b = _c.ensure(a, s), _c.ensure(b, s)
    if a.ndim != 2 or b.ndim != 2:
        raise LinAlgError("The both arrays should be 2-dimensional.")
    if a.shape[1] != b.shape[1]:
        raise ValueError("The number of columns for both arrays should be "
                         "equal.")
    k = a.shape[1]
    return (a[:, None, :] * b[None, :, :]).reshape(-1, k)
