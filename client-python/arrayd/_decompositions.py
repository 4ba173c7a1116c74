"""numpy.linalg's solvers and decompositions: inv, solve, det, slogdet,
cholesky, qr, svd, eigh, eigvalsh on the server's LAPACK-backed ops, and
pinv, lstsq, matrix_power, matrix_rank, norm and cond composed from them.

Shapes, dtypes and the errors NumPy raises before computing (non-square,
float16, mismatched shapes) are decided here; singular and
non-positive-definite matrices are found by the server and raise
numpy.linalg.LinAlgError at the next sync.

Layer: functions, the top of them (imports the core, _composite, _math,
_reduction, _mathfuncs, _indexing, _statistics and _linalg); arrayd.linalg
re-exports it.
"""
from __future__ import annotations

import builtins
import functools
import operator
from typing import Any, NamedTuple

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from arrayd import _composite as _c
from arrayd import _indexing, _mathfuncs, _statistics
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd._linalg import matmul
from arrayd._ndarray import asarray_in, ndarray, session_of

LinAlgError = np.linalg.LinAlgError

try:  # NumPy 2's result types, so that isinstance checks agree.
    from numpy.linalg._linalg import (EighResult, EigResult, QRResult,
                                      SlogdetResult, SVDResult)
except ImportError:  # pragma: no cover
    class EighResult(NamedTuple):  # type: ignore[no-redef]
        eigenvalues: Any
        eigenvectors: Any

    class EigResult(NamedTuple):  # type: ignore[no-redef]
        eigenvalues: Any
        eigenvectors: Any

    class QRResult(NamedTuple):  # type: ignore[no-redef]
        Q: Any
        R: Any

    class SlogdetResult(NamedTuple):  # type: ignore[no-redef]
        sign: Any
        logabsdet: Any

    class SVDResult(NamedTuple):  # type: ignore[no-redef]
        U: Any
        S: Any
        Vh: Any


def _common_type(*arrays: ndarray) -> np.dtype:
    """NumPy's linalg._commonType: the LAPACK dtype of the operands."""
    single, cplx = True, False
    for a in arrays:
        dt = a._dtype
        if dt.kind in "fc":
            if dt.kind == "c":
                cplx = True
            if dt.char in "Ff":
                continue
            if dt.char in "dD":
                single = False
                continue
            raise TypeError(f"array type {dt.name} is unsupported in linalg")
        single = False
    if cplx:
        return np.dtype(np.complex64 if single else np.complex128)
    return np.dtype(np.float32 if single else np.float64)


def _real(dt: np.dtype) -> np.dtype:
    return np.dtype(dt.char.lower()) if dt.kind == "c" else dt


def _assert_stacked_2d(*arrays: ndarray) -> None:
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must "
                              f"be at least two-dimensional")


def _assert_stacked_square(*arrays: ndarray) -> None:
    _assert_stacked_2d(*arrays)
    for a in arrays:
        if a._shape[-1] != a._shape[-2]:
            raise LinAlgError("Last 2 dimensions of the array must be square")


def _new_many(s: Any, op: str, inputs: tuple[ndarray, ...],
              results: list[tuple[tuple[int, ...], np.dtype]],
              attrs: dict[str, Any] | None = None) -> list[ndarray]:
    """Records an op with several outputs and returns them."""
    handles = [s.new_handle() for _ in results]
    s.record(op, tuple(a._handle for a in inputs), tuple(handles), attrs)
    return [ndarray._new(s, h, shape, dt)
            for h, (shape, dt) in zip(handles, results)]


def _mT(a: ndarray) -> ndarray:
    return a.swapaxes(-1, -2)


def _mH(a: ndarray) -> ndarray:
    return _mT(_m.conjugate(a) if a._dtype.kind == "c" else a)


def inv(a: Any) -> ndarray:
    """numpy.linalg.inv."""
    a = _c.ensure(a)
    _assert_stacked_square(a)
    t = _common_type(a)
    return _c.new(a._session, "inv", (a,), a._shape, t)


def solve(a: Any, b: Any) -> ndarray:
    """numpy.linalg.solve (NumPy 2: b is a vector only when 1-D)."""
    s = session_of(a, b)
    a, b = asarray_in(s, a), asarray_in(s, b)
    _assert_stacked_square(a)
    t = _common_type(a, b)
    n = a._shape[-1]
    if b.ndim == 1:
        if b._shape[0] != n:
            raise ValueError(
                f"solve1: Input operand 1 has a mismatch in its core "
                f"dimension 0, with gufunc signature (m,m),(m)->(m) (size "
                f"{b._shape[0]} is different from {n})")
        batch = a._shape[:-2]
        x = _c.new(s, "solve", (a, b.reshape(n, 1)), batch + (n, 1), t)
        return x.reshape(batch + (n,))
    if b._shape[-2] != n:
        raise ValueError(
            f"solve: Input operand 1 has a mismatch in its core dimension 0, "
            f"with gufunc signature (m,m),(m,n)->(m,n) (size {b._shape[-2]} "
            f"is different from {n})")
    batch = tuple(np.broadcast_shapes(a._shape[:-2], b._shape[:-2]))
    return _c.new(s, "solve", (a, b), batch + b._shape[-2:], t)


def det(a: Any) -> ndarray:
    """numpy.linalg.det."""
    a = _c.ensure(a)
    _assert_stacked_square(a)
    t = _common_type(a)
    return _c.new(a._session, "det", (a,), a._shape[:-2], t)


def slogdet(a: Any) -> SlogdetResult:
    """numpy.linalg.slogdet: (sign, logabsdet)."""
    a = _c.ensure(a)
    _assert_stacked_square(a)
    t = _common_type(a)
    batch = a._shape[:-2]
    sign, logdet = _new_many(a._session, "slogdet", (a,),
                             [(batch, t), (batch, _real(t))])
    return SlogdetResult(sign, logdet)


def cholesky(a: Any, /, *, upper: bool = False) -> ndarray:
    """numpy.linalg.cholesky: L with A = L L^H (or L^H when upper)."""
    a = _c.ensure(a)
    _assert_stacked_square(a)
    t = _common_type(a)
    r = _c.new(a._session, "cholesky", (a,), a._shape, t)
    return _mH(r).copy() if upper else r


def qr(a: Any, mode: str = "reduced") -> Any:
    """numpy.linalg.qr (modes 'reduced', 'complete', 'r')."""
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    if mode == "raw":
        raise NotImplementedError("qr: mode='raw' is not supported")
    a = _c.ensure(a)
    _assert_stacked_2d(a)
    t = _common_type(a)
    m, n = a._shape[-2:]
    k = m if mode == "complete" else builtins.min(m, n)
    batch = a._shape[:-2]
    q, r = _new_many(a._session, "qr", (a,),
                     [(batch + (m, k), t), (batch + (k, n), t)],
                     {"mode": "complete" if mode == "complete" else
                      "reduced"})
    if mode == "r":
        return r
    return QRResult(q, r)


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False) -> Any:
    """numpy.linalg.svd: SVDResult(U, S, Vh), or S (compute_uv=False).
    ``hermitian`` is accepted and computed by the general SVD."""
    a = _c.ensure(a)
    _assert_stacked_2d(a)
    t = _common_type(a)
    m, n = a._shape[-2:]
    k = builtins.min(m, n)
    batch = a._shape[:-2]
    if not compute_uv:
        return _c.new(a._session, "svdvals", (a,), batch + (k,), _real(t))
    uc, vr = (m, n) if full_matrices else (k, k)
    u, s, vh = _new_many(a._session, "svd", (a,),
                         [(batch + (m, uc), t), (batch + (k,), _real(t)),
                          (batch + (vr, n), t)],
                         {"full_matrices": bool(full_matrices)})
    return SVDResult(u, s, vh)


def svdvals(x: Any, /) -> ndarray:
    """numpy.linalg.svdvals."""
    return svd(x, compute_uv=False)


def _uplo(UPLO: str) -> str:  # noqa: N803
    u = UPLO.upper()
    if u not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return u


def eigh(a: Any, UPLO: str = "L") -> EighResult:  # noqa: N803
    """numpy.linalg.eigh: ascending eigenvalues and eigenvectors (columns)."""
    u = _uplo(UPLO)
    a = _c.ensure(a)
    _assert_stacked_square(a)
    t = _common_type(a)
    w, v = _new_many(a._session, "eigh", (a,),
                     [(a._shape[:-1], _real(t)), (a._shape, t)], {"UPLO": u})
    return EighResult(w, v)


def eigvalsh(a: Any, UPLO: str = "L") -> ndarray:  # noqa: N803
    """numpy.linalg.eigvalsh."""
    u = _uplo(UPLO)
    a = _c.ensure(a)
    _assert_stacked_square(a)
    t = _common_type(a)
    return _c.new(a._session, "eigvalsh", (a,), a._shape[:-1], _real(t),
                  {"UPLO": u})


def _complex_of(t: np.dtype) -> np.dtype:
    return np.dtype(np.complex64 if t.char in "fF" else np.complex128)


@functools.cache
def _numpy_eig_always_complex() -> bool:
    """Whether the installed NumPy's eig of real input with real
    eigenvalues returns complex arrays (newer NumPy) or real ones."""
    return np.linalg.eigvals(np.eye(1)).dtype.kind == "c"


def _real_if_all_real(t: np.dtype, w: ndarray,
                      *rest: ndarray) -> tuple[ndarray, ...]:
    """The installed NumPy's rule for eig of real input: always complex,
    or (older NumPy) real results when every eigenvalue's imaginary part
    is 0 (a sync: the dtype depends on the values)."""
    if t.kind == "c" or _numpy_eig_always_complex() or (
            w.size and bool(_r.any(w.imag != 0))):
        return (w, *rest)
    return (w.real.copy(), *(x.real.copy() for x in rest))


def eig(a: Any) -> EigResult:
    """numpy.linalg.eig: eigenvalues and right eigenvectors (columns, unit
    norm) of general square matrices; real for real input whose
    eigenvalues are all real, complex otherwise (as NumPy)."""
    a = _c.ensure(a)
    _assert_stacked_square(a)
    t = _common_type(a)
    ct = _complex_of(t)
    w, v = _new_many(a._session, "eig", (a,),
                     [(a._shape[:-1], ct), (a._shape, ct)], {})
    return EigResult(*_real_if_all_real(t, w, v))


def eigvals(a: Any) -> ndarray:
    """numpy.linalg.eigvals."""
    a = _c.ensure(a)
    _assert_stacked_square(a)
    t = _common_type(a)
    w = _c.new(a._session, "eigvals", (a,), a._shape[:-1], _complex_of(t), {})
    return _real_if_all_real(t, w)[0]


def pinv(a: Any, rcond: Any = None, hermitian: bool = False, *,
         rtol: Any = np._NoValue) -> ndarray:  # type: ignore[attr-defined]
    """numpy.linalg.pinv via the SVD."""
    a = _c.ensure(a)
    _assert_stacked_2d(a)
    t = _common_type(a)
    if rcond is None:
        if rtol is np._NoValue:  # type: ignore[attr-defined]
            rcond = 1e-15
        elif rtol is None:
            rcond = builtins.max(a._shape[-2:]) * np.finfo(t).eps
        else:
            rcond = rtol
    m, n = a._shape[-2:]
    if m == 0 or n == 0:
        return _c.new(a._session, "zeros", (), a._shape[:-2] + (n, m), t,
                      {"shape": list(a._shape[:-2] + (n, m)), "dtype": t})
    u, s, vh = svd(_m.conjugate(a) if a._dtype.kind == "c" else a,
                   full_matrices=False)
    rc = _c.ensure(np.asarray(rcond), a._session)
    cutoff = _m.multiply(rc[..., None] if rc.ndim else rc,
                         _r.max(s, axis=-1, keepdims=True))
    large = _m.greater(s, cutoff)
    sinv = _c.where(large, _m.reciprocal(s), 0)
    return matmul(_mT(vh), _m.multiply(sinv[..., None], _mT(u)))


def lstsq(a: Any, b: Any, rcond: Any = None) -> tuple[Any, Any, int, Any]:
    """numpy.linalg.lstsq via the SVD: (x, residuals, rank, s). The rank
    is a Python int, so this syncs."""
    s_ = session_of(a, b)
    a, b = asarray_in(s_, a), asarray_in(s_, b)
    is_1d = b.ndim == 1
    if is_1d:
        b = b.reshape(b._shape[0], 1)
    if a.ndim != 2 or b.ndim != 2:
        _assert_stacked_2d(a, b)
        if a.ndim != 2 or b.ndim != 2:
            raise LinAlgError(f"{builtins.max(a.ndim, b.ndim)}-dimensional "
                              f"array given. Array must be two-dimensional")
    m, n = a._shape
    m2, nrhs = b._shape
    if m != m2:
        raise LinAlgError("Incompatible dimensions")
    t = _common_type(a, b)
    rt = _real(t)
    if rcond is None:
        rcond = np.finfo(t).eps * builtins.max(n, m)
    a, b = a.astype(t, copy=False), b.astype(t, copy=False)
    k = builtins.min(m, n)
    if k == 0:
        x = _c.new(s_, "zeros", (), (n, nrhs), t,
                   {"shape": [n, nrhs], "dtype": t})
        sv = _c.new(s_, "zeros", (), (0,), rt, {"shape": [0], "dtype": rt})
        rank = 0
        resid = (_r.sum(_m.multiply(_m.absolute(b), _m.absolute(b)), axis=0)
                 if m > n else None)
    else:
        u, sv, vh = svd(a, full_matrices=False)
        cutoff = _m.multiply(_r.max(sv), rcond)
        large = _m.greater(sv, cutoff)
        rank = int(_r.sum(large).get())
        sinv = _c.where(large, _m.reciprocal(sv), 0).astype(t)
        uhb = matmul(_mH(u), b)
        x = matmul(_mH(vh), _m.multiply(sinv[:, None], uhb))
        resid = None
        if rank == n and m > n:
            r = _m.subtract(matmul(a, x), b)
            ar = _m.absolute(r)
            resid = _r.sum(_m.multiply(ar, ar), axis=0).astype(rt)
    if resid is None or rank != n or m <= n:
        resid = _c.new(s_, "zeros", (), (0,), rt, {"shape": [0], "dtype": rt})
    if is_1d:
        x = x.reshape(n)
    return x, resid, rank, sv


def matrix_power(a: Any, n: Any) -> ndarray:
    """numpy.linalg.matrix_power: repeated squaring on matmul; negative
    powers invert first."""
    a = _c.ensure(a)
    _assert_stacked_square(a)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        k = a._shape[-1]
        eye = _c.upload(a._session, np.eye(k, dtype=a._dtype))
        return (eye.view_as_broadcast(a._shape) if a.ndim > 2 else eye).copy()
    if n < 0:
        a = inv(a)
        n = -n
    if n == 1:
        return a.copy()
    result = None
    z = a
    while True:
        if n & 1:
            result = z if result is None else matmul(result, z)
        n >>= 1
        if not n:
            break
        z = matmul(z, z)
    assert result is not None
    return result


def matrix_rank(A: Any, tol: Any = None,  # noqa: N803
                hermitian: bool = False, *,
                rtol: Any = None) -> Any:
    """numpy.linalg.matrix_rank (from the singular values)."""
    A = _c.ensure(A)  # noqa: N806
    if A.ndim < 2:
        return _m.logical_not(_r.all(_m.equal(A, 0))).astype(np.int64)
    S = svd(A, compute_uv=False)  # noqa: N806
    smax = _r.max(S, axis=-1, keepdims=True)
    if tol is None:
        if rtol is None:
            rtol = builtins.max(A._shape[-2:]) * np.finfo(S._dtype).eps
        rt = _c.ensure(np.asarray(rtol), A._session)
        tol = _m.multiply(rt[..., None] if rt.ndim else rt, smax)
    else:
        tt = _c.ensure(np.asarray(tol), A._session)
        tol = tt[..., None] if tt.ndim else tt
    return _r.sum(_m.greater(S, tol), axis=-1)


def svd_norm(x: ndarray, row: int, col: int,
             ord: Any) -> ndarray:  # noqa: A002
    """Matrix norms 2, -2 and 'nuc' over axes (row, col) of x."""
    y = _c.moveaxes_last(x, (row, col))
    sv = svd(y, compute_uv=False)
    if ord == 2:
        return _r.max(sv, axis=-1)
    if ord == -2:
        return _r.min(sv, axis=-1)
    return _r.sum(sv, axis=-1)


# -- norms -----------------------------------------------------------------

def _abs2(x: ndarray) -> ndarray:
    if x._dtype.kind == "c":
        return _m.add(_m.square(_mathfuncs.real(x)),
                      _m.square(_mathfuncs.imag(x)))
    return _m.multiply(x, x)


def norm(x: Any, ord: Any = None, axis: Any = None,  # noqa: A002
         keepdims: bool = False) -> ndarray:
    """numpy.linalg.norm: vector norms (any ord) and matrix norms ('fro',
    'nuc', 1, -1, 2, -2, inf, -inf; the last from the SVD)."""
    x = _c.ensure(x)
    if x._dtype.kind not in "fc":
        x = x.astype(np.float64)
    nd = x.ndim
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (
                ord == 2 and nd == 1):
            r = _m.sqrt(_r.sum(_abs2(x)))
            return r.reshape((1,) * nd) if keepdims else r
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        axis = (int(axis),)
    axes = normalize_axis_tuple(axis, nd)
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        ax = axes[0]
        if ord == np.inf:
            return _r.max(_m.absolute(x), ax, keepdims=keepdims)
        if ord == -np.inf:
            return _r.min(_m.absolute(x), ax, keepdims=keepdims)
        if ord == 0:
            rdt = np.dtype(x._dtype.char.lower())
            return _r.sum(_m.not_equal(x, 0), ax, keepdims=keepdims).astype(
                rdt)
        if ord == 1:
            return _r.sum(_m.absolute(x), ax, keepdims=keepdims)
        if ord is None or ord == 2:
            return _m.sqrt(_r.sum(_abs2(x), ax, keepdims=keepdims))
        try:
            ordf = float(ord)
        except TypeError:
            raise ValueError(f"Invalid norm order '{ord}' for vectors") \
                from None
        absx = _m.absolute(x)
        return _m.power(_r.sum(_m.power(absx, ordf), ax, keepdims=keepdims),
                        1.0 / ordf)
    if len(axes) == 2:
        row, col = axes
        if row == col:
            raise ValueError("Duplicate axes given.")
        if ord in (2, -2, "nuc"):
            r = svd_norm(x, row, col, ord)
        elif ord in (None, "fro", "f"):
            r = _m.sqrt(_r.sum(_abs2(x), axes))
        elif ord in (1, -1):
            red = _r.max if ord == 1 else _r.min
            c = col - 1 if col > row else col
            r = red(_r.sum(_m.absolute(x), row), c)
        elif ord in (np.inf, -np.inf):
            red = _r.max if ord == np.inf else _r.min
            rr = row - 1 if row > col else row
            r = red(_r.sum(_m.absolute(x), col), rr)
        else:
            raise ValueError("Invalid norm order for matrices.")
        if keepdims:
            r = r.reshape(tuple(1 if d in axes else n
                                for d, n in enumerate(x._shape)))
        return r
    raise ValueError("Improper number of dimensions to norm.")


def cond(x: Any, p: Any = None) -> ndarray:
    """numpy.linalg.cond: from the singular values (p None, 2, -2) or as
    norm(x, p) * norm(inv(x), p). Unlike NumPy, a singular matrix with the
    latter raises LinAlgError instead of giving inf."""
    x = _c.ensure(x)
    _assert_stacked_2d(x)
    if x.size == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or p == 2 or p == -2:
        sv = svd(x, compute_uv=False)
        if p == -2:
            r = _m.true_divide(sv[..., -1], sv[..., 0])
        else:
            r = _m.true_divide(sv[..., 0], sv[..., -1])
    else:
        _assert_stacked_square(x)
        rt = _real(_common_type(x))
        r = _m.multiply(norm(x, p, axis=(-2, -1)),
                        norm(inv(x), p, axis=(-2, -1))).astype(rt,
                                                               copy=False)
    # NaNs from 0/0 become inf unless x itself held NaNs.
    nan_x = _r.any(_m.isnan(x), axis=(-2, -1))
    fix = _m.logical_and(_m.isnan(r), _m.logical_not(nan_x))
    return _c.where(fix, np.inf, r)


def multi_dot(arrays: Any, *, out: Any = None) -> ndarray:
    """numpy.linalg.multi_dot (left to right; same values as NumPy's
    optimal order up to rounding)."""
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    s = session_of(*arrays)
    ops = [asarray_in(s, a) for a in arrays]
    if ops[0].ndim == 1:
        ops[0] = ops[0].reshape(1, -1)
        first_1d = True
    else:
        first_1d = False
    last_1d = ops[-1].ndim == 1
    if last_1d:
        ops[-1] = ops[-1].reshape(-1, 1)
    for a in ops:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array "
                              f"must be two-dimensional")
    r = ops[0]
    for a in ops[1:]:
        r = matmul(r, a)
    if first_1d and last_1d:
        r = r.reshape(())
    elif first_1d:
        r = r.reshape(-1)
    elif last_1d:
        r = r.reshape(-1)
    return r if out is None else _c.assign(out, r, "multi_dot")


def tensorinv(a: Any, ind: int = 2) -> ndarray:
    """numpy.linalg.tensorinv."""
    a = _c.ensure(a)
    oldshape = a._shape
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    invshape = oldshape[ind:] + oldshape[:ind]
    prod = 1
    for k in oldshape[ind:]:
        prod *= k
    if prod == 0 or a.size % prod:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    return inv(a.reshape(prod, a.size // prod)).reshape(invshape)


def tensorsolve(a: Any, b: Any, axes: Any = None) -> ndarray:
    """numpy.linalg.tensorsolve."""
    s = session_of(a, b)
    a, b = asarray_in(s, a), asarray_in(s, b)
    an = a.ndim
    if axes is not None:
        allaxes = list(range(an))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(an, k)
        a = a.transpose(allaxes)
    oldshape = a._shape[-(an - b.ndim):]
    prod = 1
    for k in oldshape:
        prod *= k
    if a.size != prod ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return solve(a.reshape(prod, prod), b.reshape(-1)).reshape(oldshape)


# -- NumPy 2's array-API spellings -------------------------------------------

def matrix_transpose(x: Any, /) -> ndarray:
    """numpy.linalg.matrix_transpose: swaps the last two axes (a view)."""
    x = _c.ensure(x)
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return _mT(x)


def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False,
                ord: Any = 2) -> ndarray:  # noqa: A002
    """numpy.linalg.vector_norm: the vector norm over ``axis`` (all axes,
    or several, flattened together)."""
    x = _c.ensure(x)
    shape = x._shape
    if axis is None:
        r = norm(x.reshape(-1), ord, 0)
        axes: tuple[int, ...] = tuple(range(x.ndim))
    else:
        axes = normalize_axis_tuple(axis, x.ndim)
        if len(axes) == 1:
            r = norm(x, ord, axes[0])
        else:
            r = norm(_c.merge_last(_c.moveaxes_last(x, axes), len(axes)), ord,
                     -1)
    if keepdims:
        r = r.reshape(tuple(1 if d in axes else n
                            for d, n in enumerate(shape)))
    return r


def matrix_norm(x: Any, /, *, keepdims: bool = False,
                ord: Any = "fro") -> ndarray:  # noqa: A002
    """numpy.linalg.matrix_norm over the last two axes."""
    return norm(x, ord, (-2, -1), keepdims)


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> ndarray:
    """numpy.linalg.trace over the last two axes."""
    return _statistics.trace(x, offset, -2, -1, dtype)


def diagonal(x: Any, /, *, offset: int = 0) -> ndarray:
    """numpy.linalg.diagonal over the last two axes."""
    return _indexing.diagonal(x, offset, -2, -1)


__all__ = ["EigResult", "EighResult", "LinAlgError", "QRResult", "SVDResult",
           "SlogdetResult", "cholesky", "cond", "det", "diagonal", "eig",
           "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot",
           "norm", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
           "tensorinv", "tensorsolve", "trace", "vector_norm"]
