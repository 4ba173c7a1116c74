"""scipy.linalg's matrix functions and matrix tests, composed of arrayd's
matmul, solve and reductions on the server.

expm is Higham's scaling and squaring (2005): the 1-norm of A (one scalar
from the server: the maximum over a stack) picks the Pade degree (3, 5,
7, 9 or 13) and the number s of squarings; the Pade approximant of
A / 2**s is one solve, and s matmuls square it back.

Layer: functions of the arrayd.scipy.linalg namespace (imports
arrayd.linalg and the function modules).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from arrayd import _composite as _c
from arrayd import _creation, _manipulation, linalg as _la
from arrayd._linalg import matmul
from arrayd._math import UFUNCS as _U
from arrayd._ndarray import ndarray

LinAlgError = np.linalg.LinAlgError

# The numerator coefficients of the [m/m] Pade approximants of exp and the
# largest 1-norm each is accurate for in double precision (Higham 2005).
_PADE = {
    3: (1.495585217958292e-2, (120, 60, 12, 1)),
    5: (2.539398330063230e-1, (30240, 15120, 3360, 420, 30, 1)),
    7: (9.504178996162932e-1, (17297280, 8648640, 1995840, 277200, 25200,
                               1512, 56, 1)),
    9: (2.097847961257068e0, (17643225600, 8821612800, 2075673600,
                              302702400, 30270240, 2162160, 110880, 3960,
                              90, 1)),
    13: (5.371920351148152e0, (64764752532480000, 32382376266240000,
                               7771770303897600, 1187353796428800,
                               129060195264000, 10559470521600,
                               670442572800, 33522128640, 1323241920,
                               40840800, 960960, 16380, 182, 1)),
}


def _pade(a: ndarray, m: int) -> tuple[ndarray, ndarray]:
    """(U, V): the odd and even parts of the degree-m Pade numerator."""
    b = _PADE[m][1]
    n = a.shape[-1]
    eye = _creation.eye(n, dtype=a.dtype)
    a2 = matmul(a, a)
    if m < 13:
        powers = [eye, a2]
        while len(powers) < m // 2 + 1:
            powers.append(matmul(powers[-1], a2))
        odd = sum(b[2 * k + 1] * p for k, p in enumerate(powers))
        even = sum(b[2 * k] * p for k, p in enumerate(powers))
        return matmul(a, odd), even
    a4 = matmul(a2, a2)
    a6 = matmul(a4, a2)
    u_hi = matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
    u = matmul(a, u_hi + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v_hi = matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2)
    v = v_hi + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    return u, v


def expm(A: Any) -> ndarray:  # noqa: N803  (SciPy's name)
    """scipy.linalg.expm: the matrix exponential of A (or of each matrix of
    a stack); integers as float64, single precision stays single (computed
    in double)."""
    a = _c.ensure(A)
    if a.ndim < 2:
        raise LinAlgError("The input array must be at least "
                          "two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    if a.dtype.kind not in "fc" or a.dtype == np.float16:
        a = a.astype(np.float32 if a.dtype == np.float16 else np.float64)
    if a.size == 0:
        return a.copy()
    if a.dtype.char in "fF":
        # Single precision is computed in double and rounded once (the
        # squarings would otherwise compound single-precision errors).
        return expm(a.astype(np.complex128 if a.dtype.kind == "c"
                             else np.float64)).astype(a.dtype)
    norm1 = float(abs(a).sum(axis=-2).max())
    if not math.isfinite(norm1):
        # SciPy's answer for infs and NaNs: NaN everywhere.
        return _creation.full(a.shape, np.nan, dtype=a.dtype)
    m = next((d for d in (3, 5, 7, 9) if norm1 <= _PADE[d][0]), 13)
    s = 0
    if m == 13 and norm1 > _PADE[13][0]:
        s = max(0, math.ceil(math.log2(norm1 / _PADE[13][0])))
        a = a * (0.5 ** s)
    u, v = _pade(a, m)
    r = _la.solve(v - u, v + u)
    for _ in range(s):
        r = matmul(r, r)
    return r


def bandwidth(a: Any) -> tuple[int, int]:
    """scipy.linalg.bandwidth: (lower, upper), the farthest nonzero
    diagonals below and above the main one (two integers come back)."""
    a = _c.ensure(a)
    if a.ndim != 2:
        # SciPy raises ValueError; LinAlgError is one (and CuPy's answer).
        raise LinAlgError("Input array must be a 2D array.")
    m, n = a.shape
    if a.size == 0:
        return 0, 0
    i = _creation.arange(m, dtype=np.int64).reshape(m, 1)
    j = _creation.arange(n, dtype=np.int64).reshape(1, n)
    nz = _U["not_equal"](a, 0)
    below = _manipulation.where(nz, i - j, 0).max()
    above = _manipulation.where(nz, j - i, 0).max()
    lo, hi = _c.fetch_items(below, above)
    return int(lo), int(hi)


def _symmetry(a: Any, atol: Any, rtol: Any, conj: bool) -> bool:
    a = _c.ensure(a)
    if a.ndim != 2:
        raise ValueError("Input array must be a 2D NumPy array.")
    if a.shape[0] != a.shape[1]:
        return False
    t = _manipulation.swapaxes(a, 0, 1)
    if conj:
        t = t.conj()
    if not atol and not rtol:
        return bool(_U["equal"](a, t).all())
    return bool(_U["less_equal"](abs(a - t), (atol or 0) + (rtol or 0)
                                 * abs(t)).all())


def issymmetric(a: Any, atol: Any = None, rtol: Any = None) -> bool:
    """scipy.linalg.issymmetric: a == a.T (within atol + rtol |a.T|)."""
    return _symmetry(a, atol, rtol, conj=False)


def ishermitian(a: Any, atol: Any = None, rtol: Any = None) -> bool:
    """scipy.linalg.ishermitian: a == a.conj().T (within tolerances)."""
    return _symmetry(a, atol, rtol, conj=True)
