"""Polynomials (numpy.lib's poly1d API): poly poly1d polyadd polysub
polymul polydiv polyval polyder polyint polyfit roots vander.

Coefficients live on the server as arrayd arrays, highest power first.
NumPy's rules for dtypes, shapes and errors come from running NumPy on
zero-filled stand-ins of the coefficients' shapes; the arithmetic is
server ops (convolve for products, Horner's rule for polyval, the
server's lstsq for polyfit and eigvals of the companion matrix for
roots). Trimming leading zeros (poly1d) and finding the nonzero span
(roots) depend on the data: one sync each, for arrays already on the
server (host input is trimmed before it is uploaded).

poly1d also has CuPy's ``get()`` (a numpy.poly1d) and ``set()``. Its
``__array_ufunc__ = None`` makes NumPy scalars defer to its reflected
operators (``np.float64(2) * p`` is a poly1d, not a NumPy array).

Layer: functions (imports the core, _composite, _math, _reduction,
_linalg, _decompositions and _calculus).
"""
from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from arrayd import _calculus
from arrayd import _composite as _c
from arrayd import _math as _m
from arrayd import _mathfuncs as _mf
from arrayd import _reduction as _r
from arrayd._decompositions import eigvals, inv, lstsq
from arrayd._linalg import matmul
from arrayd._ndarray import ndarray, session_of

_I64 = np.dtype(np.int64)
_F64 = np.dtype(np.float64)


def _zeros(s: Any, n: int, dtype: Any) -> ndarray:
    return _c.zeros(s, (n,), dtype)


def _stand_in(a: ndarray) -> np.ndarray:
    return np.zeros(a._shape, a._dtype)


def _coeffs_of(p: Any, s: Any = None) -> ndarray:
    """p's coefficients as an arrayd array (poly1d, numpy.poly1d or an
    array-like), at least 1-D."""
    if isinstance(p, poly1d):
        return p._coeffs
    if isinstance(p, np.poly1d):
        p = p.coeffs
    a = _c.ensure(p, s if s is not None else session_of(p))
    return a.reshape(1) if a.ndim == 0 else a




def _trim_leading(c: Any) -> ndarray:
    """numpy.trim_zeros(c, 'f') of a 1-D array: on the host for host data,
    else one sync for the position of the first nonzero."""
    if not isinstance(c, ndarray):
        return _c.ensure(np.trim_zeros(c, "f"))
    if c.size == 0:
        return c
    nz = _m.not_equal(c, 0)
    anynz, first = _c.fetch(_r.any(nz), _r.argmax(nz))
    if not anynz:
        return c[c._shape[0]:]
    return c if int(first) == 0 else c[int(first):]


def _is_scalar(x: Any) -> bool:
    return np.isscalar(x)


def _is_array(x: Any) -> bool:
    """An operand that NumPy's own operators would take as an array (an
    array or a NumPy scalar on the left of a poly1d): NumPy then works on
    the coefficients elementwise and returns an array."""
    return isinstance(x, (ndarray, np.ndarray, np.generic))


class poly1d:  # noqa: N801 (NumPy's name)
    """numpy.poly1d on the server: a one-dimensional polynomial, its
    coefficients (highest power first) an arrayd array."""

    __hash__ = None  # type: ignore[assignment]
    __array_ufunc__ = None

    _coeffs: ndarray
    _variable: str

    def __init__(self, c_or_r: Any, r: bool = False,
                 variable: str | None = None) -> None:
        if isinstance(c_or_r, poly1d):
            self._coeffs = c_or_r._coeffs
            self._variable = (c_or_r._variable if variable is None
                              else variable)
            return
        if isinstance(c_or_r, np.poly1d):
            if variable is None:
                variable = c_or_r.variable
            c_or_r = c_or_r.coeffs
        if r:
            c_or_r = poly(c_or_r)
        if isinstance(c_or_r, ndarray):
            c = c_or_r.reshape(1) if c_or_r.ndim == 0 else c_or_r
            if c.ndim > 1:
                raise ValueError("Polynomial must be 1d only.")
            c = _trim_leading(c)
        else:
            host = np.atleast_1d(np.asarray(c_or_r))
            if host.ndim > 1:
                raise ValueError("Polynomial must be 1d only.")
            c = _trim_leading(host)
        if c._shape[0] == 0:
            c = _zeros(c._session, 1, c._dtype)
        self._coeffs = c
        self._variable = "x" if variable is None else variable

    # -- attributes ---------------------------------------------------------

    @property
    def coeffs(self) -> ndarray:
        """The coefficients, highest power first."""
        return self._coeffs

    @coeffs.setter
    def coeffs(self, value: Any) -> None:
        # Only the same array (so that p.coeffs *= 2 works), as NumPy.
        if value is not self._coeffs:
            raise AttributeError("Cannot set attribute")

    @property
    def variable(self) -> str:
        """The name of the variable in the printed polynomial."""
        return self._variable

    @property
    def order(self) -> int:
        """The degree of the polynomial (o)."""
        return self._coeffs._shape[0] - 1

    @property
    def roots(self) -> ndarray:
        """The polynomial's roots (r), as numpy.roots."""
        return roots(self._coeffs)

    r = roots
    c = coef = coefficients = coeffs
    o = order

    # -- conversions -----------------------------------------------------------

    def __array__(self, t: Any = None, copy: Any = None) -> np.ndarray:
        return self._coeffs.__array__(t, copy)

    def get(self) -> np.poly1d:
        """A numpy.poly1d with the same coefficients (a download)."""
        return np.poly1d(self._coeffs.get(), variable=self._variable)

    def set(self, a: Any) -> None:
        """Copies a numpy.poly1d's coefficients (same length) and variable
        into this polynomial (CuPy's poly1d.set)."""
        self._coeffs[...] = a.coeffs
        self._variable = a.variable

    def __repr__(self) -> str:
        vals = repr(self._coeffs.get())
        return f"poly1d({vals[6:-1]})"

    def __str__(self) -> str:
        # Display only: NumPy's formatting of the downloaded coefficients.
        return str(np.poly1d(self._coeffs.get(), variable=self._variable))

    def __len__(self) -> int:
        return self.order

    def __iter__(self) -> Any:
        return iter(self._coeffs)

    # -- evaluation and arithmetic ---------------------------------------------

    def __call__(self, val: Any) -> Any:
        if isinstance(val, poly1d):
            return poly1d(polyval(self._coeffs, val))
        return polyval(self._coeffs, val)

    def __neg__(self) -> "poly1d":
        return poly1d(_m.negative(self._coeffs))

    def __pos__(self) -> "poly1d":
        return self

    def __mul__(self, other: Any) -> "poly1d":
        if _is_scalar(other):
            return poly1d(_m.multiply(self._coeffs, other))
        other = poly1d(other)
        return poly1d(polymul(self._coeffs, other._coeffs))

    def __rmul__(self, other: Any) -> Any:
        if _is_array(other):
            return _m.multiply(other, self._coeffs)
        if _is_scalar(other):
            return poly1d(_m.multiply(other, self._coeffs))
        other = poly1d(other)
        return poly1d(polymul(self._coeffs, other._coeffs))

    def __add__(self, other: Any) -> "poly1d":
        other = poly1d(other)
        return poly1d(polyadd(self._coeffs, other._coeffs))

    def __radd__(self, other: Any) -> Any:
        if _is_array(other):
            return _m.add(other, self._coeffs)
        return self.__add__(other)

    def __rpow__(self, other: Any) -> Any:
        if _is_array(other):
            return _m.power(other, self._coeffs)
        return NotImplemented

    def __pow__(self, val: Any) -> "poly1d":
        if not _is_scalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        res: Any = [1]
        for _ in range(val):
            res = polymul(self._coeffs, res)
        return poly1d(res)

    def __sub__(self, other: Any) -> "poly1d":
        other = poly1d(other)
        return poly1d(polysub(self._coeffs, other._coeffs))

    def __rsub__(self, other: Any) -> Any:
        if _is_array(other):
            return _m.subtract(other, self._coeffs)
        other = poly1d(other)
        return poly1d(polysub(other._coeffs, self._coeffs))

    def __truediv__(self, other: Any) -> Any:
        if _is_scalar(other):
            return poly1d(_m.true_divide(self._coeffs, other))
        other = poly1d(other)
        return polydiv(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        if _is_array(other):
            return _m.true_divide(other, self._coeffs)
        if _is_scalar(other):
            return poly1d(_m.true_divide(other, self._coeffs))
        other = poly1d(other)
        return polydiv(other, self)

    def __eq__(self, other: Any) -> Any:
        if not isinstance(other, poly1d):
            return NotImplemented
        if self._coeffs._shape != other._coeffs._shape:
            return False
        return np.bool_(_c.fetch(_r.all(_m.equal(self._coeffs,
                                                 other._coeffs)))[0])

    def __ne__(self, other: Any) -> Any:
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    def __getitem__(self, val: int) -> Any:
        ind = self.order - val
        if val > self.order or val < 0:
            return self._coeffs._dtype.type(0)
        return self._coeffs[ind]

    def __setitem__(self, key: int, val: Any) -> None:
        ind = self.order - key
        if key < 0:
            raise ValueError("Does not support negative powers.")
        if key > self.order:
            zr = _zeros(self._coeffs._session, key - self.order,
                        self._coeffs._dtype)
            self._coeffs = _c.concatenate([zr, self._coeffs])
            ind = 0
        self._coeffs[ind] = val

    def integ(self, m: int = 1, k: Any = 0) -> "poly1d":
        """The m-th antiderivative (integration constants k)."""
        return poly1d(polyint(self._coeffs, m=m, k=k))

    def deriv(self, m: int = 1) -> "poly1d":
        """The m-th derivative."""
        return poly1d(polyder(self._coeffs, m=m))


def _truepoly(*xs: Any) -> bool:
    return any(isinstance(x, (poly1d, np.poly1d)) for x in xs)


def _add_or_sub(op: str, a1: Any, a2: Any) -> Any:
    truepoly = _truepoly(a1, a2)
    s = session_of(a1 if not isinstance(a1, poly1d) else a1._coeffs,
                   a2 if not isinstance(a2, poly1d) else a2._coeffs)
    x, y = _coeffs_of(a1, s), _coeffs_of(a2, s)
    npf = np.polyadd if op == "add" else np.polysub
    npf(_stand_in(x), _stand_in(y))  # NumPy's errors (shapes, bool -)
    f = _m.add if op == "add" else _m.subtract
    diff = y._shape[0] - x._shape[0]
    if diff > 0:
        x = _c.concatenate([_zeros(s, diff, x._dtype), x])
    elif diff < 0:
        y = _c.concatenate([_zeros(s, -diff, y._dtype), y])
    val = f(x, y)
    return poly1d(val) if truepoly else val


def polyadd(a1: Any, a2: Any) -> Any:
    """numpy.polyadd: the sum of two polynomials (a poly1d if either is)."""
    return _add_or_sub("add", a1, a2)


def polysub(a1: Any, a2: Any) -> Any:
    """numpy.polysub: a1 - a2 (a poly1d if either is one)."""
    return _add_or_sub("sub", a1, a2)


def polymul(a1: Any, a2: Any) -> Any:
    """numpy.polymul: the product (a convolution; a poly1d if either is)."""
    truepoly = _truepoly(a1, a2)
    p1, p2 = poly1d(a1), poly1d(a2)
    val = _calculus.convolve(p1._coeffs, p2._coeffs)
    return poly1d(val) if truepoly else val


def polydiv(u: Any, v: Any) -> tuple[Any, Any]:
    """numpy.polydiv: quotient and remainder (float or complex), the
    remainder's leading near-zeros dropped (one sync)."""
    truepoly = _truepoly(u, v)
    s = session_of(u if not isinstance(u, poly1d) else u._coeffs,
                   v if not isinstance(v, poly1d) else v._coeffs)
    a = _m.add(_coeffs_of(u, s), 0.0)
    b = _m.add(_coeffs_of(v, s), 0.0)
    dt = np.result_type(a._dtype, b._dtype)
    m, n = a._shape[0] - 1, b._shape[0] - 1
    scale = _m.true_divide(1.0, b[0])
    q = _zeros(s, max(m - n + 1, 1), dt)
    r = a.astype(dt)
    for k in range(m - n + 1):
        d = _m.multiply(scale, r[k])
        q[k] = d
        r[k:k + n + 1] = _m.subtract(r[k:k + n + 1], _m.multiply(d, b))
    # NumPy drops leading elements while allclose(r[0], 0, rtol=1e-14).
    if r._shape[0] > 1:
        lead = _m.logical_not(_m.less_equal(_m.absolute(r), 1e-08))
        anyb, first = _c.fetch(_r.any(lead), _r.argmax(lead))
        drop = int(first) if anyb else r._shape[0]
        drop = min(drop, r._shape[0] - 1)
        if drop:
            r = r[drop:]
    if truepoly:
        return poly1d(q), poly1d(r)
    return q, r


def polyval(p: Any, x: Any) -> Any:
    """numpy.polyval: p evaluated at x by Horner's rule (x an array, a
    scalar or a poly1d)."""
    if isinstance(p, poly1d):
        pc = p._coeffs
    else:
        pc = _c.ensure(p.coeffs if isinstance(p, np.poly1d) else p,
                       session_of(p, x))
    if pc.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    if isinstance(x, poly1d):
        y: Any = 0
        for i in range(pc._shape[0]):
            y = y * x + pc[i]
        return y
    xa = _c.ensure(x, pc._session)
    y = _c.new(xa._session, "zeros", (), xa._shape, xa._dtype,
               {"shape": list(xa._shape), "dtype": xa._dtype})
    for i in range(pc._shape[0]):
        y = _m.add(_m.multiply(y, xa), pc[i])
    return y


def polyder(p: Any, m: int = 1) -> Any:
    """numpy.polyder: the m-th derivative's coefficients."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see "
                         "polyint)")
    truepoly = _truepoly(p)
    val = _coeffs_of(p) if truepoly else _c.ensure(p)
    if val.ndim == 0:
        raise TypeError("len() of unsized object")
    for _ in range(m):
        n = val._shape[0] - 1
        ramp = _c.new(val._session, "arange", (), (max(n, 0),), _I64,
                      {"start": n, "step": -1, "num": max(n, 0),
                       "dtype": _I64})
        val = _m.multiply(val[:-1], ramp)
    return poly1d(val) if truepoly else val


def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """numpy.polyint: the m-th antiderivative with constants k."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    truepoly = _truepoly(p)
    val = _coeffs_of(p) if truepoly else _c.ensure(p)
    s = val._session
    if k is None:
        k = _zeros(s, m, _F64)
    k = _c.ensure(k, s)
    k = k.reshape(1) if k.ndim == 0 else k
    if k._shape[0] == 1 and m > 1:
        k = _m.multiply(k[0], _c.new(s, "ones", (), (m,), _F64,
                                     {"shape": [m], "dtype": _F64}))
    if k._shape[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 "
                         "or >m.")
    if val.ndim == 0:
        if m == 0:
            return poly1d(val) if truepoly else val
        raise TypeError("len() of unsized object")
    for i in range(m):
        n = val._shape[0]
        ramp = _c.new(s, "arange", (), (n,), _I64,
                      {"start": n, "step": -1, "num": n, "dtype": _I64})
        head = _m.true_divide(val, ramp)
        dt = np.result_type(head._dtype, k._dtype)
        val = _c.concatenate([head.astype(dt, copy=False),
                              k[i:i + 1].astype(dt, copy=False)])
    return poly1d(val) if truepoly else val


def poly(seq_of_zeros: Any) -> Any:
    """numpy.poly: the coefficients of the monic polynomial with the given
    roots (or of a square matrix's characteristic polynomial)."""
    z = _coeffs_of(seq_of_zeros)
    sh = z._shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        z = eigvals(z)
    elif len(sh) == 1:
        z = z.astype(np.dtype(np.mintypecode(z._dtype.char)), copy=False)
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if z._shape[0] == 0:
        return 1.0
    s = z._session
    dt = z._dtype
    a = _c.new(s, "ones", (), (1,), dt, {"shape": [1], "dtype": dt})
    zero = _zeros(s, 1, dt)
    for i in range(z._shape[0]):
        # a * (x - z_i): the two-element convolution, term by term.
        a = _m.add(_c.concatenate([a, zero]),
                   _m.multiply(_c.concatenate([zero, a]),
                               _m.negative(z[i])))
    if dt.kind == "c":
        # Roots in conjugate pairs: the coefficients are real (one sync).
        rts = z.astype(np.complex128, copy=False)
        srt = _c.new(s, "sort", (rts,), rts._shape, rts._dtype, {"axis": 0})
        cs = _m.conjugate(rts)
        srt2 = _c.new(s, "sort", (cs,), cs._shape, cs._dtype, {"axis": 0})
        if _c.fetch(_r.all(_m.equal(srt, srt2)))[0]:
            a = _c.new(s, "real", (a,), a._shape,
                       np.dtype(dt.char.lower())).copy()
    return a


# Whether the installed NumPy's roots of a real polynomial with real roots
# is real (NumPy 2.5's eigvals is complex even then).
_ROOTS_REAL = np.roots([1.0, -3.0, 2.0]).dtype.kind == "f"


def roots(p: Any) -> ndarray:
    """numpy.roots: the eigenvalues of the companion matrix (one sync for
    the span of nonzero coefficients)."""
    if (isinstance(p, ndarray) and p.ndim == 0) or np.ndim(p) == 0 and not \
            isinstance(p, (poly1d, np.poly1d)):
        # NumPy's array-function dispatcher fails on 0-d input.
        raise TypeError("dispatcher for __array_function__ did not return "
                        "an iterable")
    p = _coeffs_of(p)
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    s = p._session
    if p.size == 0:
        return _zeros(s, 0, _F64)
    nz = _m.not_equal(p, 0)
    anynz, first, last_rev = _c.fetch(_r.any(nz), _r.argmax(nz),
                                    _r.argmax(nz[::-1]))
    n = p._shape[0]
    if not anynz:
        return _zeros(s, 0, _F64)
    first, last = int(first), n - 1 - int(last_rev)
    trailing = n - last - 1
    p = p[first:last + 1]
    if p._dtype.kind not in "fc":
        p = p.astype(_F64)
    N = p._shape[0]  # noqa: N806
    if N > 1:
        A = _c.new(s, "eye", (), (N - 1, N - 1), p._dtype,  # noqa: N806
                   {"n": N - 1, "m": N - 1, "k": -1, "dtype": p._dtype})
        A[0, :] = _m.true_divide(_m.negative(p[1:]), p[0])
        r = eigvals(A)
        if _ROOTS_REAL and p._dtype.kind == "f" and r._dtype.kind == "c":
            # This NumPy's eigvals is always complex, its roots real when
            # every root is (one sync).
            if not bool(_r.any(_m.not_equal(_mf.imag(r), 0))):
                r = _mf.real(r)
    else:
        r = _zeros(s, 0, _F64)
    if trailing:
        r = _c.concatenate([r, _zeros(s, trailing, r._dtype)])
    return r


def vander(x: Any, N: Any = None, increasing: bool = False) -> ndarray:  # noqa: N803
    """numpy.vander: columns x**(N-1), ..., x**0 (or increasing powers),
    by a cumulative product on the server."""
    x = _c.ensure(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = x._shape[0]
    N = n if N is None else operator.index(N)  # noqa: N806
    dt = np.promote_types(x._dtype, np.int64)
    s = x._session
    if N <= 0:
        np.empty((n, N))  # NumPy's error for a negative N
        return _c.new(s, "empty", (), (n, 0), dt,
                      {"shape": [n, 0], "dtype": dt})
    ones = _c.new(s, "ones", (), (n, 1), dt, {"shape": [n, 1], "dtype": dt})
    if N == 1:
        return ones
    xb = x.astype(dt, copy=False).reshape(n, 1).view_as_broadcast(
        (n, N - 1))
    pw = _c.new(s, "cumprod", (xb,), (n, N - 1), dt,
                {"dtype": dt, "axis": 1})
    v = _c.concatenate([ones, pw], 1)
    return v if increasing else v[:, ::-1].copy()


_RankWarning = np.exceptions.RankWarning


def polyfit(x: Any, y: Any, deg: Any, rcond: Any = None, full: bool = False,
            w: Any = None, cov: Any = False) -> Any:
    """numpy.polyfit: least-squares fit of a polynomial of degree deg (the
    server's lstsq on the column-scaled Vandermonde matrix)."""
    order = int(deg) + 1
    s = session_of(x, y, w)
    x = _m.add(_c.ensure(x, s), 0.0)
    y = _m.add(_c.ensure(y, s), 0.0)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x._shape[0] != y._shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = x._shape[0] * np.finfo(x._dtype).eps
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = _m.add(_c.ensure(w, s), 0.0)
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w._shape[0] != y._shape[0]:
            raise TypeError("expected w and y to have the same length")
        # In place in NumPy: its casting errors (complex weights on real
        # data).
        for t in (lhs, rhs):
            np.multiply(np.zeros(1, t._dtype), np.zeros(1, w._dtype),
                        out=np.zeros(1, t._dtype))
        lhs = _m.multiply(lhs, w.reshape(-1, 1)).astype(lhs._dtype,
                                                        copy=False)
        wr = w.reshape(-1, 1) if rhs.ndim == 2 else w
        rhs = _m.multiply(rhs, wr).astype(rhs._dtype, copy=False)
    scale = _m.sqrt(_r.sum(_m.multiply(lhs, lhs), 0))
    lhs = _m.true_divide(lhs, scale).astype(lhs._dtype, copy=False)
    c, resids, rank, sv = lstsq(lhs, rhs, rcond)
    c = _m.true_divide(c, scale.reshape(-1, 1) if c.ndim == 2 else scale)
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", _RankWarning,
                      stacklevel=2)
    if full:
        return c, resids, rank, sv, rcond
    if cov:
        lt = lhs.T
        vbase = inv(matmul(lt, lhs))
        vbase = _m.true_divide(vbase, _m.multiply(scale.reshape(-1, 1),
                                                  scale.reshape(1, -1)))
        if cov == "unscaled":
            fac: Any = 1
        else:
            if x._shape[0] <= order:
                raise ValueError("the number of data points must exceed "
                                 "order to scale the covariance matrix")
            fac = _m.true_divide(resids, x._shape[0] - order)
        if y.ndim == 1:
            return c, _m.multiply(vbase, fac)
        return c, _m.multiply(vbase.reshape(vbase._shape + (1,)), fac)
    return c


__all__ = ["poly", "poly1d", "polyadd", "polyder", "polydiv", "polyfit",
           "polyint", "polymul", "polysub", "polyval", "roots", "vander"]
