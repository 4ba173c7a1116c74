"""Element and array predicates: iscomplex, isreal, isneginf, isposinf,
real_if_close, iterable, array_equiv, isfortran, may_share_memory,
shares_memory.

Elementwise answers are computed on the server with ufuncs (NumPy's
compositions, so dtypes and errors match); the whole-array ones
(array_equiv, real_if_close) wait for the server once for their bool.
iterable, isfortran and the memory tests read client metadata only.

may_share_memory and shares_memory are conservative for arrayd arrays:
the client knows which array owns a view's memory (``x.base``) but not
where in it a view starts, so two views of one array count as sharing
memory even when their elements are disjoint; arrays of different owners
(or sessions, or a NumPy array and an arrayd array) never share memory.

Layer: functions (imports the core, _creation, _math, _mathfuncs and
_reduction).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from arrayd import _creation
from arrayd import _math as _m
from arrayd import _mathfuncs as _mf
from arrayd import _reduction as _r
from arrayd._ndarray import asarray_in, ndarray, session_of

_PY_SCALARS = (int, float, complex, bool)


def _is_host_scalar(x: Any) -> bool:
    return isinstance(x, _PY_SCALARS + (np.generic,))


def _array(x: Any) -> ndarray:
    return x if isinstance(x, ndarray) else asarray_in(session_of(), x)


def iscomplex(x: Any) -> Any:
    """numpy.iscomplex: True where the element has a nonzero imaginary part
    (False everywhere for a real dtype). NumPy's bool for a scalar."""
    if _is_host_scalar(x):
        return np.iscomplex(x)
    x = _array(x)
    if x.dtype.kind == "c":
        return _m.not_equal(_mf.imag(x), 0)
    return _creation.zeros(x.shape, bool)


def isreal(x: Any) -> Any:
    """numpy.isreal: True where the imaginary part is zero (everywhere for
    a real dtype). NumPy's bool for a scalar."""
    if _is_host_scalar(x):
        return np.isreal(x)
    x = _array(x)
    if x.dtype.kind == "c":
        return _m.equal(_mf.imag(x), 0)
    return _creation.ones(x.shape, bool)


def _signbit(x: Any) -> Any:
    try:
        return _m.signbit(x)
    except TypeError as e:
        dt = x.dtype if isinstance(x, ndarray) else np.asarray(x).dtype
        raise TypeError(f"This operation is not supported for {dt} values "
                        "because it would be ambiguous.") from e


def isneginf(x: Any, out: Any = None) -> Any:
    """numpy.isneginf: x is -inf, elementwise (TypeError for complex)."""
    neg = _signbit(x)
    return _m.logical_and(_m.isinf(x), neg, out=out)


def isposinf(x: Any, out: Any = None) -> Any:
    """numpy.isposinf: x is +inf, elementwise (TypeError for complex)."""
    neg = _signbit(x)
    return _m.logical_and(_m.isinf(x), _m.logical_not(neg), out=out)


def real_if_close(a: Any, tol: float = 100) -> ndarray:
    """numpy.real_if_close: the real part of a complex array whose
    imaginary parts are all below ``tol`` (in machine epsilons when
    tol > 1); the array itself otherwise (one sync)."""
    a = _array(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = np.finfo(a.dtype).eps * tol
    if bool(_r.all(_m.less(_m.absolute(_mf.imag(a)), tol))):
        return _mf.real(a)
    return a


def iterable(y: Any) -> bool:
    """numpy.iterable: iter(y) works (not for a 0-d array)."""
    if isinstance(y, ndarray):
        return y.ndim > 0
    return bool(np.iterable(y))


def array_equiv(a1: Any, a2: Any) -> bool:
    """numpy.array_equiv: the arrays broadcast together and are equal
    everywhere (False if they do not broadcast; one sync)."""
    s = session_of(a1, a2)
    try:
        x, y = asarray_in(s, a1), asarray_in(s, a2)
    except Exception:
        return False
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return False
    return bool(_r.all(_m.equal(x, y)))


def isfortran(a: Any) -> bool:
    """numpy.isfortran: Fortran-contiguous and not C-contiguous (from the
    array's strides; no wait)."""
    if isinstance(a, ndarray):
        return bool(a.flags.f_contiguous and not a.flags.c_contiguous)
    return bool(np.isfortran(a))


def _owner(a: ndarray) -> ndarray:
    base = a.base
    while isinstance(base, ndarray):
        a, base = base, base.base
    return a


def _same_memory(a: Any, b: Any) -> bool | None:
    """The answer for arrayd arrays (None: neither is one)."""
    ours_a, ours_b = isinstance(a, ndarray), isinstance(b, ndarray)
    if not (ours_a or ours_b):
        return None
    if not (ours_a and ours_b) or a.session is not b.session:
        return False
    if a.size == 0 or b.size == 0:
        return False
    return _owner(a) is _owner(b)


def may_share_memory(a: Any, b: Any, /, max_work: int = 0) -> bool:
    """numpy.may_share_memory: False only when a and b certainly use
    different memory (conservative for two views of one arrayd array)."""
    same = _same_memory(a, b)
    if same is None:
        return bool(np.may_share_memory(a, b, max_work))
    return same


def shares_memory(a: Any, b: Any, /, max_work: int = -1) -> bool:
    """numpy.shares_memory. For arrayd arrays: True for two arrays of the
    same memory owner (also when the views' elements are disjoint, which
    the client cannot tell: see the module comment), False otherwise."""
    same = _same_memory(a, b)
    if same is None:
        return bool(np.shares_memory(a, b, max_work))
    return same


__all__ = ["array_equiv", "iscomplex", "isfortran", "isneginf", "isposinf",
           "isreal", "iterable", "may_share_memory", "real_if_close",
           "shares_memory"]
