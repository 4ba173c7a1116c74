"""numpy.linalg's solvers and decompositions: inv, solve, det, slogdet,
cholesky, qr, svd, eigh, eigvalsh on the server's LAPACK-backed ops; pinv,
lstsq, matrix_rank, norm, matrix_power and eig's real-or-complex rule on
the server's composite ops of the same names (ops/linalg.cc, shared with
the C++ client); cond and the tensor functions composed here.

Shapes, dtypes and the errors NumPy raises before computing (non-square,
float16, mismatched shapes) are decided here; singular and
non-positive-definite matrices are found by the server and raise
numpy.linalg.LinAlgError at the next sync.

Layer: functions, the top of them (imports the core, _composite, _math,
_reduction, _indexing, _statistics and _linalg); arrayd.linalg
re-exports it.
"""
from __future__ import annotations

import builtins
import operator
import warnings
from typing import Any, NamedTuple

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from arrayd import _composite as _c
from arrayd import _indexing, _statistics
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
    if b.ndim == 0:
        raise ValueError("solve: Input operand 1 does not have enough "
                         "dimensions (has 0, gufunc core with signature "
                         "(m,m),(m,n)->(m,n) requires 2)")
    if b.ndim == 1:
        if b._shape[0] != n:
            raise ValueError(
                f"solve1: Input operand 1 has a mismatch in its core "
                f"dimension 0, with gufunc signature (m,m),(m)->(m) (size "
                f"{b._shape[0]} is different from {n})")
        return _c.new(s, "solve", (a, b), a._shape[:-2] + (n,), t)
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


def _householder(a: ndarray) -> tuple[ndarray, ndarray]:
    """LAPACK's geqr2 composed of server ops, batched over the leading
    axes, in double precision: (A with R on and above the diagonal and the
    Householder vectors below it, tau). Each reflector is LAPACK's larfg
    (beta = -sign(alpha) * ||(alpha, x)||, tau = (beta - alpha) / beta,
    v = x / (alpha - beta); tau = 0 when x is zero and alpha real) and is
    applied as H^H to the columns on its right, as geqr2 does."""
    cplx = a._dtype.kind == "c"
    wdt = np.dtype(np.complex128 if cplx else np.float64)
    f64 = np.dtype(np.float64)
    s = a._session
    A = a.astype(wdt)  # noqa: N806 (a copy, updated in place)
    m, n = A._shape[-2:]
    batch = A._shape[:-2]
    k = builtins.min(m, n)
    one = _c.new(s, "ones", (), batch + (1,), wdt,
                 {"shape": list(batch + (1,)), "dtype": wdt})
    taus = []
    for j in range(k):
        alpha = A[..., j, j]
        x = A[..., j + 1:, j]
        if cplx:
            xr, xi = _c.new(s, "real", (x,), x._shape, f64), _c.new(
                s, "imag", (x,), x._shape, f64)
            ssq = _m.add(_m.square(xr), _m.square(xi))
            ar = _c.new(s, "real", (alpha,), alpha._shape, f64)
            ai = _c.new(s, "imag", (alpha,), alpha._shape, f64)
        else:
            ssq = _m.square(x)
            ar, ai = alpha, None
        xnorm = _m.sqrt(_r.sum(ssq, -1, f64))
        size = xnorm if ai is None else _m.hypot(ai, xnorm)
        beta = _m.negative(_m.copysign(_m.hypot(ar, size), ar))
        zero = _m.equal(xnorm, 0)
        if ai is not None:
            zero = _m.logical_and(zero, _m.equal(ai, 0))
            tau = _m.add(_m.true_divide(_m.subtract(beta, ar), beta),
                         _m.multiply(_m.true_divide(_m.negative(ai), beta),
                                     1j))
        else:
            tau = _m.true_divide(_m.subtract(beta, ar), beta)
        tau = _c.where(zero, _c.const(s, 0, wdt), tau.astype(wdt,
                                                              copy=False))
        v = _m.multiply(x, _m.true_divide(1, _m.subtract(alpha, beta))
                        .reshape(batch + (1,)))
        v = _c.where(zero.reshape(batch + (1,)), x, v)
        A[..., j, j] = _c.where(zero, alpha, beta.astype(wdt, copy=False))
        if m - j - 1 > 0:
            A[..., j + 1:, j] = v
        if j + 1 < n:
            vf = _c.concatenate([one, v], len(batch))      # B + (m-j,)
            cblk = A[..., j:, j + 1:]
            vh = _m.conjugate(vf) if cplx else vf
            w = matmul(vh.reshape(batch + (1, m - j)), cblk)
            t = _m.conjugate(tau) if cplx else tau
            upd = _m.multiply(_m.multiply(vf.reshape(batch + (m - j, 1)), w),
                              t.reshape(batch + (1, 1)))
            A[..., j:, j + 1:] = _m.subtract(cblk, upd)
        taus.append(tau.reshape(batch + (1,)))
    if taus:
        tau_all = _c.concatenate(taus, len(batch))
    else:
        tau_all = _c.new(s, "zeros", (), batch + (0,), wdt,
                         {"shape": list(batch + (0,)), "dtype": wdt})
    return A, tau_all


def qr(a: Any, mode: str = "reduced") -> Any:
    """numpy.linalg.qr, stacked: 'reduced' and 'complete' (Q, R) and 'r'
    (R) from the server's qr op; 'raw' (h, tau) and the deprecated
    'economic' are LAPACK geqrf's Householder form, composed of server ops
    (geqr2's algorithm, in double precision as NumPy computes)."""
    if mode not in ("reduced", "complete", "r", "raw"):
        if mode in ("f", "full"):
            warnings.warn("The 'full' option is deprecated in favor of "
                          "'reduced'.\nFor backward compatibility let mode "
                          "default.", DeprecationWarning, stacklevel=2)
            mode = "reduced"
        elif mode in ("e", "economic"):
            warnings.warn("The 'economic' option is deprecated.",
                          DeprecationWarning, stacklevel=2)
            mode = "economic"
        else:
            raise ValueError(f"Unrecognized mode '{mode}'")
    a = _c.ensure(a)
    _assert_stacked_2d(a)
    t = _common_type(a)
    m, n = a._shape[-2:]
    k = builtins.min(m, n)
    batch = a._shape[:-2]
    s = a._session
    if mode in ("raw", "economic"):
        h, tau = _householder(a)
        h = h.astype(t, copy=False)
        if mode == "economic":
            return h
        return h.swapaxes(-1, -2), tau.astype(t, copy=False)
    if a.size == 0:
        def zeros(shape: tuple[int, ...]) -> ndarray:
            return _c.new(s, "zeros", (), shape, t,
                          {"shape": list(shape), "dtype": t})
        if mode == "r":
            return zeros(batch + (k, n))
        if mode == "complete" and m > n:
            eye = _c.new(s, "eye", (), (m, m), t,
                         {"n": m, "m": m, "k": 0, "dtype": t})
            q = eye.view_as_broadcast(batch + (m, m)).copy()
            return QRResult(q, zeros(batch + (m, n)))
        return QRResult(zeros(batch + (m, k)), zeros(batch + (k, n)))
    kc = m if mode == "complete" else k
    q, r = _new_many(s, "qr", (a,),
                     [(batch + (m, kc), t), (batch + (kc, n), t)],
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


# NumPy after 2.4 gives complex eig results for every input; before, real
# ones for real input whose eigenvalues are all real. The client follows the
# installed NumPy (the server applies the older rule unless told).
_EIG_ALWAYS_COMPLEX = np.linalg.eigvals(np.eye(1)).dtype.kind == "c"
_EIG_ATTRS = {"always_complex": True} if _EIG_ALWAYS_COMPLEX else {}


def _server_dtypes(t: np.dtype, *results: ndarray) -> tuple[ndarray, ...]:
    """eig's results with the dtypes the server gave them: for real input,
    real when every eigenvalue is real (NumPy's rule, applied by the
    server's op), else complex; a sync."""
    if t.kind != "c" and not _EIG_ALWAYS_COMPLEX:
        dts = results[0]._session.dtypes([r._handle for r in results])
        for r, dt in zip(results, dts):
            r._dtype = dt
    return results


def eig(a: Any) -> EigResult:
    """numpy.linalg.eig: eigenvalues and right eigenvectors (columns, unit
    norm) of general square matrices; real for real input whose
    eigenvalues are all real, complex otherwise (as NumPy)."""
    a = _c.ensure(a)
    _assert_stacked_square(a)
    t = _common_type(a)
    ct = _complex_of(t)
    w, v = _new_many(a._session, "eig", (a,),
                     [(a._shape[:-1], ct), (a._shape, ct)], _EIG_ATTRS)
    return EigResult(*_server_dtypes(t, w, v))


def eigvals(a: Any) -> ndarray:
    """numpy.linalg.eigvals."""
    a = _c.ensure(a)
    _assert_stacked_square(a)
    t = _common_type(a)
    w = _c.new(a._session, "eigvals", (a,), a._shape[:-1], _complex_of(t),
               _EIG_ATTRS)
    return _server_dtypes(t, w)[0]


def _tolerance(a: ndarray, value: Any) -> ndarray | float:
    """A tolerance of pinv/matrix_rank: a float attribute, or (NumPy's
    array_like) an array input broadcast against a's batch."""
    if not isinstance(value, ndarray) and np.ndim(value) == 0:
        return float(value)
    return _c.ensure(value, a._session)


def pinv(a: Any, rcond: Any = None, hermitian: bool = False, *,
         rtol: Any = np._NoValue) -> ndarray:  # type: ignore[attr-defined]
    """numpy.linalg.pinv: the server's pinv op (from the SVD, or eigh when
    hermitian)."""
    a = _c.ensure(a)
    _assert_stacked_2d(a)
    if hermitian:
        _assert_stacked_square(a)
    t = _common_type(a)
    no_value = np._NoValue  # type: ignore[attr-defined]
    if rcond is None and rtol is not None:
        rcond = 1e-15 if rtol is no_value else rtol
    elif rcond is not None and rtol is not no_value:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    inputs: tuple[ndarray, ...] = (a,)
    attrs: dict[str, Any] = {"hermitian": True} if hermitian else {}
    if rcond is not None:  # None: the server's max(m, n) * eps (rtol=None)
        tol = _tolerance(a, rcond)
        if isinstance(tol, ndarray):
            inputs += (tol,)
        else:
            attrs["rcond"] = tol
    m, n = a._shape[-2:]
    return _c.new(a._session, "pinv", inputs, a._shape[:-2] + (n, m), t, attrs)


def lstsq(a: Any, b: Any, rcond: Any = None) -> tuple[Any, Any, int, Any]:
    """numpy.linalg.lstsq: the server's lstsq op, (x, residuals, rank, s).
    The rank is a Python int, so this syncs, and reads the residuals'
    shape, which the server decides, in the same sync."""
    s_ = session_of(a, b)
    a, b = asarray_in(s_, a), asarray_in(s_, b)
    is_1d = b.ndim == 1
    bshape = (b._shape[0], 1) if is_1d else b._shape
    for nd in (a.ndim, len(bshape)):
        if nd < 2:
            raise LinAlgError(f"{nd}-dimensional array given. Array must "
                              f"be at least two-dimensional")
    if a.ndim != 2 or len(bshape) != 2:
        raise LinAlgError(f"{builtins.max(a.ndim, len(bshape))}-dimensional "
                          f"array given. Array must be two-dimensional")
    m, n = a._shape
    m2, nrhs = bshape
    if m != m2:
        raise LinAlgError("Incompatible dimensions")
    t = _common_type(a, b)
    rt = _real(t)
    handles = tuple(s_.new_handle() for _ in range(4))
    s_.record("lstsq", (a._handle, b._handle), handles,
              {} if rcond is None else {"rcond": float(rcond)})
    x = ndarray._new(s_, handles[0], (n,) if is_1d else (n, nrhs), t)
    rank_a = ndarray._new(s_, handles[2], (), np.dtype(np.int64))
    sv = ndarray._new(s_, handles[3], (builtins.min(m, n),), rt)
    # One sync: the rank and the residuals, whose shape the server gives by
    # NumPy's rule ((k,) when rank == n < m, else (0,)).
    try:
        rank_h, resid_h = s_.fetch([handles[2], handles[1]])
    except BaseException:
        ndarray._new(s_, handles[1], (0,), rt)  # frees the handle
        raise
    del rank_a
    resid = ndarray._new(s_, handles[1], resid_h.shape, rt)
    return x, resid, np.int32(rank_h), sv  # NumPy gives an int32 scalar


def matrix_power(a: Any, n: Any) -> ndarray:
    """numpy.linalg.matrix_power: the server's matrix_power op (repeated
    squaring on matmul; negative powers invert first)."""
    a = _c.ensure(a)
    _assert_stacked_square(a)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    dt = _common_type(a) if n < 0 else a._dtype  # of inv(a)
    return _c.new(a._session, "matrix_power", (a,), a._shape, dt, {"n": n})


def matrix_rank(A: Any, tol: Any = None,  # noqa: N803
                hermitian: bool = False, *,
                rtol: Any = None) -> Any:
    """numpy.linalg.matrix_rank: the server's matrix_rank op (int64 per
    matrix; a 0-d array for 0-d and 1-D A)."""
    A = _c.ensure(A)  # noqa: N806
    if tol is not None and rtol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    inputs: tuple[ndarray, ...] = (A,)
    attrs: dict[str, Any] = {"hermitian": True} if hermitian else {}
    for name, value in (("tol", tol), ("rtol", rtol)):
        if value is not None:
            t = _tolerance(A, value)
            if isinstance(t, ndarray):
                inputs += (t,)
                attrs["relative"] = name == "rtol"
            else:
                attrs[name] = t
    shape: tuple[int, ...] = ()
    if A.ndim >= 2:
        _common_type(A)
        if hermitian:
            _assert_stacked_square(A)
        shape = A._shape[:-2]
    return _c.new(A._session, "matrix_rank", inputs, shape,
                  np.dtype(np.int64), attrs)


# -- norms -----------------------------------------------------------------

def norm(x: Any, ord: Any = None, axis: Any = None,  # noqa: A002
         keepdims: bool = False) -> ndarray:
    """numpy.linalg.norm: the server's norm op (vector norms of any ord,
    matrix norms 'fro', 'nuc', 1, -1, 2, -2, inf, -inf). NumPy's errors and
    the result's shape are decided here."""
    x = _c.ensure(x)
    nd = x.ndim
    attrs: dict[str, Any] = {"keepdims": True} if keepdims else {}
    if isinstance(ord, str):
        attrs["ord_name"] = ord
    elif ord is not None:
        try:
            attrs["ord"] = float(ord)
        except (TypeError, ValueError):
            raise ValueError(f"Invalid norm order '{ord}' for vectors") \
                from None
    if axis is None and (ord is None or (ord in ("f", "fro") and nd == 2)
                         or (ord == 2 and nd == 1)):
        shape: tuple[int, ...] = (1,) * nd if keepdims else ()
    else:
        if axis is None:
            axes = tuple(range(nd))
        else:
            if not isinstance(axis, tuple):
                try:
                    axis = (operator.index(axis),)
                except TypeError:
                    raise TypeError("'axis' must be None, an integer or a "
                                    "tuple of integers") from None
            axes = tuple(normalize_axis_index(ax, nd) for ax in axis)
            attrs["axes"] = list(axes)
        if len(axes) == 1:
            if isinstance(ord, str):
                raise ValueError(f"Invalid norm order '{ord}' for vectors")
        elif len(axes) == 2:
            if axes[0] == axes[1]:
                raise ValueError("Duplicate axes given.")
            if ord in (2, -2, "nuc"):
                _common_type(x)  # the SVD's TypeError for float16
            elif ord not in (None, "fro", "f", 1, -1, np.inf, -np.inf):
                raise ValueError("Invalid norm order for matrices.")
        else:
            raise ValueError("Improper number of dimensions to norm.")
        shape = tuple(1 if d in axes else k for d, k in enumerate(x._shape)
                      if keepdims or d not in axes)
    dt = x._dtype if x._dtype.kind in "fc" else np.dtype(np.float64)
    return _c.new(x._session, "norm", (x,), shape, _real(dt), attrs)


def cond(x: Any, p: Any = None) -> ndarray:
    """numpy.linalg.cond: from the singular values (p None, 2, -2) or as
    norm(x, p) * norm(inv(x), p), inf for an exactly singular matrix (a
    zero pivot, which slogdet's sign tells, as NumPy's inv under
    errstate(all='ignore') gives)."""
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
        singular = _m.equal(slogdet(x)[0], 0)
        n = x._shape[-1]
        eye = _c.new(x._session, "eye", (), (n, n), x._dtype,
                     {"n": n, "m": n, "k": 0, "dtype": x._dtype})
        safe = _c.where(singular[..., None, None], eye, x)
        r = _m.multiply(norm(x, p, axis=(-2, -1)),
                        norm(inv(safe), p, axis=(-2, -1))).astype(rt,
                                                                  copy=False)
        r = _c.where(singular, np.inf, r)
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
