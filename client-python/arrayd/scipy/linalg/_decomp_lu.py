"""scipy.linalg's LU and triangular solvers over the server's ``lu_factor``
and ``lu_solve`` ops (LAPACK getrf/getrs, cuSOLVER on CUDA).

A triangular system is an LU system whose factors are known: an upper
triangular a is its own U (L = I, no interchanges); a lower one is
L' D with L' = a D^-1 unit lower triangular, so its factors are L' below
the diagonal and D on it. solve_triangular and cho_solve are therefore one
``lu_solve`` each (two for cho_solve), with no interchanges, on the server.
Transposed LU solves (trans 1, 2) and the permutation matrix of ``lu``
read the n pivots back to the host, as LAPACK's own interchanges are a
sequence.

Layer: a module of the public namespace arrayd.scipy.linalg.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from arrayd import _indexing, _manipulation, _reduction
from arrayd._creation import arange, asarray, eye
from arrayd._decompositions import LinAlgError, _new_many
from arrayd._decompositions import cholesky as _cholesky
from arrayd._math import UFUNCS as _U
from arrayd.scipy.linalg._basic import _float_type, as_matrix, square

_INT32 = np.dtype(np.int32)


def lu_factor(a: Any, overwrite_a: bool = False,
              check_finite: bool = True) -> tuple[Any, Any]:
    """(lu, piv): a's LU factors (L's unit diagonal implied) and LAPACK's
    row interchanges, counted from 0."""
    a = as_matrix(a, check_finite)
    square(a)
    t = _float_type(a.dtype)
    if a.dtype != t:
        a = a.astype(t)
    lu, piv = _new_many(a._session, "lu_factor", (a,),
                        [(a.shape, t), (a.shape[:-1], _INT32)])
    return lu, piv


def _permutation(piv: Any) -> np.ndarray:
    """The row order that LAPACK's interchanges make: a[perm] = L @ U."""
    p = np.asarray(piv.get() if hasattr(piv, "get") else piv)
    perm = np.arange(p.shape[-1])
    for i, j in enumerate(p):
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def _as_columns(b: Any, n: int) -> tuple[Any, bool]:
    b = asarray(b)
    if b.ndim == 0 or b.shape[0] != n:
        raise ValueError(f"Shapes of lu {(n, n)} and b {b.shape} are "
                         "incompatible")
    vector = b.ndim == 1
    return (b.reshape(n, 1) if vector else b), vector


def _lu_solve_op(lu: Any, piv: Any, b: Any) -> Any:
    t = np.result_type(lu.dtype, b.dtype)
    t = _float_type(np.dtype(t))
    x, = _new_many(lu._session, "lu_solve",
                   (lu.astype(t, copy=False), piv, b.astype(t, copy=False)),
                   [(b.shape, t)])
    return x


def _trans(trans: Any) -> int:
    codes = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}
    if trans not in codes:
        raise ValueError("trans must be one of 0, 1, 2, 'N', 'T', 'C'")
    return codes[trans]


def lu_solve(lu_and_piv: Any, b: Any, trans: Any = 0,
             overwrite_b: bool = False, check_finite: bool = True) -> Any:
    """x with a x = b (trans 0), a^T x = b (1) or a^H x = b (2), from
    lu_factor's (lu, piv)."""
    lu, piv = lu_and_piv
    lu = as_matrix(lu, check_finite)
    n = lu.shape[-1]
    b, vector = _as_columns(as_matrix(b, check_finite, lu._session), n)
    code = _trans(trans)
    if code == 0:
        x = _lu_solve_op(lu, asarray(piv), b)
    else:
        # a = P L U, so a^T = U^T L^T P^T: two triangular solves, then the
        # interchanges undone.
        u = _manipulation.triu(lu)
        unit_l = _manipulation.tril(lu, -1) + eye(n, dtype=lu.dtype)
        ut, lt = u.T, unit_l.T
        if code == 2 and lu.dtype.kind == "c":
            ut, lt = _U["conjugate"](ut), _U["conjugate"](lt)
        y = solve_triangular(ut, b, lower=True, check_finite=False)
        w = solve_triangular(lt, y, lower=False, unit_diagonal=True,
                             check_finite=False)
        perm = _permutation(piv)
        x = w[asarray(np.argsort(perm))]
    return x.reshape(n) if vector else x


def solve_triangular(a: Any, b: Any, trans: Any = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False,
                     check_finite: bool = True) -> Any:
    """x with a x = b for triangular a (its other triangle is not read);
    trans 1 or 2 solves with a's transpose or conjugate transpose. A stack
    of matrices a (..., n, n) takes b (..., n) (a vector each) or
    (..., n, k) of the same leading dimensions."""
    a = as_matrix(a, check_finite)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError("expected square matrix")
    n = a.shape[-1]
    b = as_matrix(b, check_finite, a._session)
    batch = a.shape[:-2]
    vector = b.ndim == a.ndim - 1
    if not vector and b.ndim != a.ndim:
        raise ValueError(f"shapes of a {a.shape} and b {b.shape} are "
                         "incompatible")
    if b.ndim == 0 or b.shape[:len(batch)] != batch or \
            b.shape[len(batch)] != n:
        raise ValueError(f"shapes of a {a.shape} and b {b.shape} are "
                         "incompatible")
    if vector:
        b = b.reshape(b.shape + (1,))
    code = _trans(trans)
    if code:
        a = a.swapaxes(-1, -2)
        if code == 2 and a.dtype.kind == "c":
            a = _U["conjugate"](a)
        lower = not lower
    t = _float_type(np.dtype(np.result_type(a.dtype, b.dtype)))
    a = a.astype(t, copy=False)
    on_diagonal = eye(n, dtype=bool)
    if unit_diagonal:
        a = _manipulation.where(on_diagonal, 1, a).astype(t, copy=False)
    d = _indexing.diagonal(a, axis1=-2, axis2=-1)
    if n and not unit_diagonal and bool((d == 0).any()):
        first = int(_reduction.argmax((d == 0).reshape(-1, n).any(axis=0)))
        raise LinAlgError(f"singular matrix: resolution failed at diagonal "
                          f"{first}")
    if lower:
        factors = (_manipulation.tril(a, -1) / d.reshape(batch + (1, n))
                   + _manipulation.where(on_diagonal, a, 0))
    else:
        factors = _manipulation.triu(a)
    piv = _manipulation.broadcast_to(arange(n, dtype=np.int32), batch + (n,))
    x = _lu_solve_op(factors.astype(t, copy=False), piv, b)
    return x.reshape(x.shape[:-1]) if vector else x


def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True, p_indices: bool = False) -> Any:
    """a = P @ L @ U (P a permutation matrix, L unit lower, U upper);
    (P @ L, U) with permute_l; P as row indices (a = L[p] @ U) with
    p_indices."""
    a = as_matrix(a, check_finite)
    if a.ndim != 2:
        raise ValueError("expected a 2-D array")
    if a.shape[0] != a.shape[1]:
        raise NotImplementedError("lu of a non-square matrix")
    n = a.shape[0]
    factors, piv = lu_factor(a, check_finite=False)
    low = _manipulation.tril(factors, -1) + eye(n, dtype=factors.dtype)
    up = _manipulation.triu(factors)
    inverse = np.argsort(_permutation(piv))
    if permute_l:
        return low[asarray(inverse)], up
    if p_indices:
        return asarray(inverse.astype(np.int32)), low, up
    p = eye(n, dtype=factors.dtype)[asarray(inverse)].T
    return p, low, up


def cho_factor(a: Any, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Any, bool]:
    """(c, lower): a's Cholesky factor (lower or upper) for cho_solve."""
    a = as_matrix(a, check_finite)
    square(a)
    low = _cholesky(a.astype(_float_type(a.dtype), copy=False))
    if lower:
        return low, True
    up = low.swapaxes(-1, -2)
    return (_U["conjugate"](up) if up.dtype.kind == "c" else up), False


def cho_solve(c_and_lower: Any, b: Any, overwrite_b: bool = False,
              check_finite: bool = True) -> Any:
    """x with a x = b, from cho_factor's (c, lower)."""
    c, lower = c_and_lower
    c = as_matrix(c, check_finite)
    if c.ndim != 2 or c.shape[0] != c.shape[1]:
        raise ValueError("The factored matrix c is not square.")
    if lower:
        y = solve_triangular(c, b, lower=True, check_finite=False)
        return solve_triangular(c, y, lower=True, trans=2,
                                check_finite=False)
    y = solve_triangular(c, b, lower=False, trans=2, check_finite=False)
    return solve_triangular(c, y, lower=False, check_finite=False)


__all__ = ["cho_factor", "cho_solve", "lu", "lu_factor", "lu_solve",
           "solve_triangular"]
