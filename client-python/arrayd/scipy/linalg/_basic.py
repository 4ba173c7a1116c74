"""scipy.linalg's solvers, decompositions and norms over arrayd.linalg's
server ops, with SciPy's signatures, dtypes and errors.

SciPy's differences from numpy.linalg are decided here: det is always
double precision (float64 or complex128); cholesky gives the upper factor
by default; solve reads one triangle for ``assume_a`` 'sym', 'her' and
'pos' and solves the transposed system on request; qr's modes are
'full', 'economic', 'r' (a 1-tuple) and 'raw'; eig's eigenvalues are
always complex; eigh solves generalized problems (b) through a Cholesky
factor and picks eigenvalues by index or value. ``check_finite`` (default
True, as in SciPy) costs one scalar from the server: a matrix with an inf
or a NaN raises ValueError before the call; ``check_finite=False`` skips
the round trip. ``overwrite_*`` and ``lwork`` are accepted (results never
alias inputs).

Layer: functions of the arrayd.scipy.linalg namespace (imports
arrayd.linalg and the function modules).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from arrayd import _composite as _c
from arrayd import _manipulation, linalg as _la
from arrayd._linalg import matmul
from arrayd._math import UFUNCS as _U
from arrayd._ndarray import ndarray, session_of

LinAlgError = np.linalg.LinAlgError
_STRUCTURES = {"gen": "gen", "general": "gen", "sym": "sym",
               "symmetric": "sym", "her": "her", "hermitian": "her",
               "pos": "pos", "positive definite": "pos",
               "diagonal": "diagonal", "lower triangular": "lower",
               "upper triangular": "upper", "tridiagonal": "gen",
               "banded": "gen"}


def as_matrix(a: Any, check_finite: bool, s: Any = None) -> ndarray:
    """a on the server; with check_finite, SciPy's ValueError for an inf
    or a NaN (one boolean comes back)."""
    a = _c.ensure(a, s)
    if check_finite and a.dtype.kind in "fc" and a.size and not bool(
            _U["isfinite"](a).all()):
        raise ValueError("array must not contain infs or NaNs")
    return a


def square(a: ndarray) -> None:
    """SciPy's ValueError for a matrix (stack) that is not square."""
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Expected square matrix, got a1.shape={a.shape}")


def _float_type(dt: np.dtype) -> np.dtype:
    """LAPACK's type: float32/complex64 stay, others double."""
    if dt.char in "fF":
        return dt
    return np.dtype(np.complex128 if dt.kind == "c" else np.float64)


def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True,
        *, assume_a: Any = None, lower: bool = False) -> ndarray:
    """scipy.linalg.inv: the inverse (LinAlgError, at the next sync, for a
    singular matrix)."""
    a = as_matrix(a, check_finite)
    square(a)
    return _la.inv(a)


def det(a: Any, overwrite_a: bool = False,
        check_finite: bool = True) -> ndarray:
    """scipy.linalg.det: the determinant, in double precision (float64 or
    complex128, as SciPy); 1.0 for an empty matrix."""
    a = as_matrix(a, check_finite)
    square(a)
    dt = np.dtype(np.complex128 if a.dtype.kind == "c" else np.float64)
    return _la.det(a.astype(dt, copy=False))


def _symmetrized(a: ndarray, lower: bool, conj: bool) -> ndarray:
    """The full matrix of one triangle of a (the other ignored, as SciPy)."""
    tri = _manipulation.tril(a) if lower else _manipulation.triu(a)
    strict = (_manipulation.tril(a, -1) if lower
              else _manipulation.triu(a, 1))
    other = _manipulation.swapaxes(strict, -1, -2)
    return tri + (other.conj() if conj else other)


def solve(a: Any, b: Any, lower: bool = False, overwrite_a: bool = False,
          overwrite_b: bool = False, check_finite: bool = True,
          assume_a: Any = None, transposed: bool = False) -> ndarray:
    """scipy.linalg.solve: x with a @ x = b (a.T @ x = b when
    ``transposed``). 'sym', 'her' and 'pos' read a's lower or upper
    triangle (``lower``); the triangular structures read theirs."""
    s = session_of(a, b)
    a = as_matrix(a, check_finite, s)
    b = as_matrix(b, check_finite, s)
    square(a)
    kind = _STRUCTURES.get("gen" if assume_a is None else assume_a)
    if kind is None:
        raise ValueError(f"{assume_a} is not a recognized matrix structure")
    n = a.shape[-1]
    if b.ndim == 0 or b.shape[0 if b.ndim == 1 else -2] != n:
        raise ValueError(f"incompatible shapes: a1.shape={a.shape} and "
                         f"b1.shape={b.shape}")
    if kind in ("sym", "her", "pos"):
        a = _symmetrized(a, lower, conj=kind != "sym" and
                         a.dtype.kind == "c")
    elif kind == "lower":
        a = _manipulation.tril(a)
    elif kind == "upper":
        a = _manipulation.triu(a)
    elif kind == "diagonal":
        a = _manipulation.tril(_manipulation.triu(a))
    if transposed:
        a = _manipulation.swapaxes(a, -1, -2)
    dt = _float_type(np.result_type(a.dtype, b.dtype))
    return _la.solve(a.astype(dt, copy=False), b.astype(dt, copy=False))


def norm(a: Any, ord: Any = None, axis: Any = None,  # noqa: A002
         keepdims: bool = False, check_finite: bool = True) -> ndarray:
    """scipy.linalg.norm: a vector or matrix norm (numpy.linalg.norm's)."""
    return _la.norm(as_matrix(a, check_finite), ord, axis, keepdims)


def cholesky(a: Any, lower: bool = False, overwrite_a: bool = False,
             check_finite: bool = True) -> ndarray:
    """scipy.linalg.cholesky: the upper factor U with a = U^H U (the lower
    one when ``lower``)."""
    a = as_matrix(a, check_finite)
    square(a)
    return _la.cholesky(a, upper=not lower)


def qr(a: Any, overwrite_a: bool = False, lwork: Any = None,
       mode: str = "full", pivoting: bool = False,
       check_finite: bool = True) -> Any:
    """scipy.linalg.qr: (Q, R) for 'full' (Q square) and 'economic', (R,)
    for 'r', ((h, tau), R) for 'raw' (h as LAPACK's geqrf leaves it).
    Column pivoting is not available (NotImplementedError)."""
    modes = ["full", "r", "economic", "raw"]
    if mode not in modes:
        raise ValueError(f"Mode argument should be one of {modes}")
    if pivoting:
        raise NotImplementedError("qr(pivoting=True) is not available on "
                                  "the server")
    a = as_matrix(a, check_finite)
    if a.ndim < 2:
        raise ValueError("expected at least a 2-D array")
    if mode == "raw":
        h, tau = _la.qr(a, mode="raw")
        qr_ = _manipulation.swapaxes(h, -1, -2).copy()
        k = min(a.shape[-2:])
        return (qr_, tau), _manipulation.triu(qr_[..., :k, :])
    if mode == "r":
        m, n = a.shape[-2:]
        r = _la.qr(a, mode="r")  # (k, n)
        if m > n:  # SciPy's full R is m x n
            pad = _c.zeros(r._session, r.shape[:-2] + (m - n, n), r.dtype)
            r = _manipulation.concatenate([r, pad], axis=-2)
        return (r,)
    q, r = _la.qr(a, mode="complete" if mode == "full" else "reduced")
    return q, r


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
        overwrite_a: bool = False, check_finite: bool = True,
        lapack_driver: str = "gesdd") -> Any:
    """scipy.linalg.svd: (U, s, Vh), or s alone without compute_uv."""
    if lapack_driver not in ("gesdd", "gesvd"):
        raise ValueError('lapack_driver must be "gesdd" or "gesvd", not '
                         f'"{lapack_driver}"')
    a = as_matrix(a, check_finite)
    if a.ndim < 2:
        raise ValueError("expected matrix")
    if not compute_uv:
        return _la.svd(a, compute_uv=False)
    u, s, vh = _la.svd(a, full_matrices=full_matrices)
    return u, s, vh


def svdvals(a: Any, overwrite_a: bool = False,
            check_finite: bool = True) -> ndarray:
    """scipy.linalg.svdvals: the singular values, descending."""
    return svd(a, compute_uv=False, check_finite=check_finite)


def _subset(w: ndarray, v: Any, by_index: Any, by_value: Any) -> Any:
    """The eigenpairs eigh keeps: indices lo..hi (inclusive), or the
    eigenvalues in (lo, hi] (two counts come back from the server)."""
    n = w.shape[-1]
    if by_index is not None:
        lo, hi = (operator.index(i) for i in by_index)
        if not 0 <= lo <= hi < n:
            raise ValueError("Requested eigenvalue indices are not valid. "
                             f"Valid range is [0, {n - 1}] and start <= end,"
                             f" but start={lo}, end={hi} is given")
        stop = hi + 1
    elif by_value is not None:
        lo_v, hi_v = by_value
        if not lo_v < hi_v:
            raise ValueError("Requested eigenvalue interval is not valid: "
                             "the lower end must be less than the upper.")
        lo = int(_U["less_equal"](w, lo_v).sum())
        stop = int(_U["less_equal"](w, hi_v).sum())
    else:
        return w, v
    w = w[..., lo:stop]
    return w, (None if v is None else v[..., lo:stop])


def eigh(a: Any, b: Any = None, *, lower: bool = True,
         eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, type: int = 1,
         check_finite: bool = True, subset_by_index: Any = None,
         subset_by_value: Any = None, driver: Any = None) -> Any:
    """scipy.linalg.eigh: ascending eigenvalues (and eigenvectors) of a
    Hermitian matrix, read from one triangle; with b, the generalized
    problem a v = w b v (type 1) through b's Cholesky factor."""
    s = session_of(a, b) if b is not None else None
    a = as_matrix(a, check_finite, s)
    square(a)
    if type not in (1, 2, 3):
        raise ValueError("'type' keyword only accepts 1, 2, and 3.")
    if subset_by_index is not None and subset_by_value is not None:
        raise ValueError("Either index or value subset can be requested.")
    uplo = "L" if lower else "U"
    if b is None:
        w, v = (_la.eigvalsh(a, uplo), None) if eigvals_only else \
            _la.eigh(a, uplo)
    else:
        b = as_matrix(b, check_finite, s)
        square(b)
        if b.shape != a.shape:
            raise ValueError(f"wrong b dimensions {b.shape}, should be "
                             f"{a.shape}")
        if type != 1:
            raise NotImplementedError("eigh(b=..., type=2 or 3) is not "
                                      "available on the server")
        full_a = _symmetrized(a, lower, a.dtype.kind == "c")
        full_b = _symmetrized(b, lower, b.dtype.kind == "c")
        fac = _la.cholesky(full_b)  # b = L L^H
        left = _la.solve(fac, full_a)  # L^-1 a
        c = _la.solve(fac, _manipulation.swapaxes(left, -1, -2).conj())
        c = _manipulation.swapaxes(c, -1, -2).conj()  # L^-1 a L^-H
        w, y = _la.eigh(c)
        v = None if eigvals_only else _la.solve(
            _manipulation.swapaxes(fac, -1, -2).conj(), y)
    w, v = _subset(w, v, subset_by_index, subset_by_value)
    return w if eigvals_only else (w, v)


def eigvalsh(a: Any, b: Any = None, *, lower: bool = True,
             overwrite_a: bool = False, overwrite_b: bool = False,
             type: int = 1, check_finite: bool = True,
             subset_by_index: Any = None, subset_by_value: Any = None,
             driver: Any = None) -> ndarray:
    """scipy.linalg.eigvalsh: eigh's eigenvalues only."""
    return eigh(a, b, lower=lower, eigvals_only=True, type=type,
                check_finite=check_finite, subset_by_index=subset_by_index,
                subset_by_value=subset_by_value)


def _complex(dt: np.dtype) -> np.dtype:
    return np.dtype(np.complex64 if dt.char in "fF" else np.complex128)


def eig(a: Any, b: Any = None, left: bool = False, right: bool = True,
        overwrite_a: bool = False, overwrite_b: bool = False,
        check_finite: bool = True, homogeneous_eigvals: bool = False) -> Any:
    """scipy.linalg.eig: complex eigenvalues and right eigenvectors (real
    when every eigenvalue is). Generalized problems and left eigenvectors
    are not available (NotImplementedError)."""
    if b is not None or left:
        raise NotImplementedError("eig(b=...) and eig(left=True) are not "
                                  "available on the server")
    a = as_matrix(a, check_finite)
    square(a)
    if right:
        w, v = _la.eig(a)
    else:
        w, v = _la.eigvals(a), None
    w = w.astype(_complex(w.dtype), copy=False)
    if homogeneous_eigvals:
        w = _manipulation.stack([w, _c.full(w._session, w.shape, 1,
                                            w.dtype)], axis=-2)
    return (w, v) if right else w


def eigvals(a: Any, b: Any = None, overwrite_a: bool = False,
            check_finite: bool = True,
            homogeneous_eigvals: bool = False) -> ndarray:
    """scipy.linalg.eigvals: eig's eigenvalues only (complex)."""
    return eig(a, b, right=False, check_finite=check_finite,
               homogeneous_eigvals=homogeneous_eigvals)


def pinv(a: Any, *, atol: Any = None, rtol: Any = None,
         return_rank: bool = False, check_finite: bool = True) -> Any:
    """scipy.linalg.pinv: the pseudo-inverse by the SVD, singular values
    below max(atol, rtol * s_max) dropped (rtol default: max(m, n) * eps);
    with return_rank, (pinv, rank)."""
    a = as_matrix(a, check_finite)
    u, s, vh = _la.svd(a, full_matrices=False)
    m, n = a.shape[-2:]
    if rtol is None:
        rtol = max(m, n) * np.finfo(s.dtype).eps if atol in (None, 0) \
            else 0.0
    smax = s.max(axis=-1, keepdims=True) if s.shape[-1] else s
    cut = _U["maximum"](smax * rtol, 0.0 if atol is None else atol)
    keep = _U["greater"](s, cut)
    inv_s = _manipulation.where(keep, 1.0 / _manipulation.where(keep, s, 1),
                                0.0).astype(s.dtype)
    vs = _manipulation.swapaxes(vh, -1, -2).conj() * inv_s[..., None, :]
    res = matmul(vs, _manipulation.swapaxes(u, -1, -2).conj())
    if return_rank:
        return res, keep.sum(axis=-1)
    return res


def lstsq(a: Any, b: Any, cond: Any = None, overwrite_a: bool = False,
          overwrite_b: bool = False, check_finite: bool = True,
          lapack_driver: Any = None) -> tuple[Any, Any, Any, Any]:
    """scipy.linalg.lstsq: (x, residues, rank, s) minimizing |b - a x|
    (numpy.linalg.lstsq's solution; cond is its rcond; rank a Python int,
    as SciPy's)."""
    s = session_of(a, b)
    a = as_matrix(a, check_finite, s)
    b = as_matrix(b, check_finite, s)
    if a.ndim != 2:
        raise ValueError("Input array a should be 2D")
    if b.shape[0] != a.shape[0]:
        raise ValueError("Shape mismatch: a and b should have the same "
                         "number of rows ({} != {}).".format(a.shape[0],
                                                            b.shape[0]))
    x, residues, rank, sv = _la.lstsq(a, b, rcond=cond)
    return x, residues, int(rank), sv
