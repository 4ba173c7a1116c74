"""Math functions composed of ufuncs: round, clip, nan_to_num, isclose,
allclose, array_equal, real, imag, angle, float_power.

Each follows NumPy's own composition (numpy/_core/fromnumeric.py,
numeric.py, lib/_function_base_impl.py), so dtypes and edge cases match.

Layer: functions (imports the core, _composite and _math). Attaches
ndarray's real and imag properties, round and clip.
"""
from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from arrayd import _composite as _c
from arrayd import _math as _m
from arrayd._ndarray import (OPERAND_TYPES as _OPERANDS, asarray_in,
                             attach, ndarray, session_of)

_PY_SCALARS = (int, float, complex, bool)


def round(a: Any, decimals: int = 0, out: Any = None) -> ndarray:  # noqa: A001
    """numpy.round: half to even, at ``decimals`` decimal places."""
    a = _c.ensure(a, session_of(a, out))
    decimals = int(decimals)
    rdt = np.round(np.zeros(1, a._dtype), decimals).dtype
    if a._dtype.kind in "biu":
        if a._dtype.kind == "b" or decimals >= 0:
            r = a.astype(rdt)
        else:
            f = 10 ** (-decimals)
            r = _m.multiply(_m.rint(_m.true_divide(a, f)), f).astype(rdt)
    elif decimals == 0:
        return _m.rint(a, out=out)
    elif decimals > 0:
        f = 10.0 ** decimals
        r = _m.true_divide(_m.rint(_m.multiply(a, f)), f)
    else:
        f = 10.0 ** (-decimals)
        r = _m.multiply(_m.rint(_m.true_divide(a, f)), f)
    return r if out is None else _c.assign(out, r, "round")


around = round


def _clamp_bound(v: Any, dt: np.dtype) -> Any:
    # NumPy's clip accepts out-of-range Python ints: the result is the same
    # as with the dtype's extreme value.
    if type(v) is int and dt.kind in "iu":
        info = np.iinfo(dt)
        return builtins.min(builtins.max(v, int(info.min)), int(info.max))
    return v


_NOT_GIVEN = np._NoValue


def clip(a: Any, a_min: Any = _NOT_GIVEN, a_max: Any = _NOT_GIVEN,
         out: Any = None, **kwargs: Any) -> ndarray:
    """numpy.clip: minimum(maximum(a, a_min), a_max), NumPy's dtypes."""
    if a_min is not _NOT_GIVEN and a_max is _NOT_GIVEN and "max" not in kwargs:
        raise TypeError("clip() missing 1 required positional argument: "
                        "'a_max'")
    a_min = kwargs.pop("min", None if a_min is _NOT_GIVEN else a_min)
    a_max = kwargs.pop("max", None if a_max is _NOT_GIVEN else a_max)
    if kwargs:
        raise TypeError(f"clip() got unexpected keyword arguments "
                        f"{sorted(kwargs)}")
    s = session_of(a, a_min, a_max, out)
    a = asarray_in(s, a)

    def key(v: Any) -> Any:
        if v is None or type(v) in _PY_SCALARS:
            return v
        if isinstance(v, ndarray):
            return np.zeros((), v._dtype)
        return np.asarray(v)

    rdt = np.clip(np.zeros(1, a._dtype), key(a_min), key(a_max)).dtype
    r = a if rdt == a._dtype else a.astype(rdt)
    if a_min is not None:
        r = _m.maximum(r, _clamp_bound(a_min, rdt))
    if a_max is not None:
        if out is not None and r._dtype == rdt:
            return _m.minimum(r, _clamp_bound(a_max, rdt), out=out)
        r = _m.minimum(r, _clamp_bound(a_max, rdt))
    if r._dtype != rdt:
        r = r.astype(rdt)
    if r is a:
        r = a.copy()
    return r if out is None else _c.assign(out, r, "clip")


def _fix_real(x: ndarray, nan: float, posinf: Any, neginf: Any) -> ndarray:
    info = np.finfo(x._dtype)
    pinf = info.max if posinf is None else posinf
    ninf = info.min if neginf is None else neginf
    dt = x._dtype

    def value(v: Any) -> ndarray:  # a scalar or an array (broadcast), as dt
        if isinstance(v, ndarray) or np.ndim(v):
            return _c.ensure(v, x._session).astype(dt, copy=False)
        return _c.const(x._session, v, dt)
    r = _c.where(_m.isnan(x), value(nan), x)
    r = _c.where(_m.logical_and(_m.isinf(x), _m.greater(x, 0)), value(pinf),
                 r)
    r = _c.where(_m.logical_and(_m.isinf(x), _m.less(x, 0)), value(ninf), r)
    if r._shape != x._shape:  # NumPy keeps x's shape: the values fit it
        raise ValueError(f"could not broadcast the replacement values to "
                         f"shape {x._shape}")
    return r


def nan_to_num(x: Any, copy: bool = True, nan: float = 0.0,
               posinf: Any = None, neginf: Any = None) -> ndarray:
    """numpy.nan_to_num: NaN -> nan, +-inf -> posinf/neginf (or extremes)."""
    x = _c.ensure(x)
    kind = x._dtype.kind
    if kind not in "fc":
        return x.copy() if copy else x
    if kind == "f":
        r = _fix_real(x, nan, posinf, neginf)
        if copy:
            return r
        x[...] = r
        return x
    r = x.copy() if copy else x
    for part in (real(r), imag(r)):
        part[...] = _fix_real(part, nan, posinf, neginf)
    return r


def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08,
            equal_nan: bool = False) -> ndarray:
    """numpy.isclose: |a - b| <= atol + rtol * |b| (and a == b)."""
    s = session_of(a, b, rtol, atol)
    x, y = (v if type(v) in _PY_SCALARS else asarray_in(s, v) for v in (a, b))
    if isinstance(y, ndarray):
        dt = np.result_type(y._dtype, 1.0)
        if dt != y._dtype:
            y = y.astype(dt)
    elif type(y) is int:
        y = float(y)
    if not isinstance(x, ndarray) and not isinstance(y, ndarray):
        x = asarray_in(s, np.asarray(x))
    if type(atol) not in _PY_SCALARS:
        atol = asarray_in(s, atol)
    if type(rtol) not in _PY_SCALARS:
        rtol = asarray_in(s, rtol)
    result = _m.logical_or(
        _m.logical_and(
            _m.less_equal(_m.absolute(_m.subtract(x, y)),
                          _m.add(atol, _m.multiply(rtol, _m.absolute(y)))),
            _m.isfinite(y)),
        _m.equal(x, y))
    if equal_nan:
        result = _m.logical_or(result,
                               _m.logical_and(_m.isnan(x), _m.isnan(y)))
    return result


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """numpy.allclose (a sync: returns a Python bool)."""
    return bool(isclose(a, b, rtol, atol, equal_nan).all().get())


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> bool:
    """numpy.array_equal (a sync: returns a Python bool)."""
    s = session_of(a1, a2)
    try:
        x, y = asarray_in(s, a1), asarray_in(s, a2)
    except Exception:
        return False
    if x._shape != y._shape:
        return False
    if x.size == 0:
        return True
    eq = _m.equal(x, y)
    if equal_nan and (x._dtype.kind in "fc" or y._dtype.kind in "fc"):
        eq = _m.logical_or(eq, _m.logical_and(_m.isnan(x), _m.isnan(y)))
    return bool(eq.all().get())


def real(val: Any) -> ndarray:
    """numpy.real: a view of the real part for complex input, else val."""
    a = _c.ensure(val)
    if a._dtype.kind != "c":
        return a
    dt = np.dtype(a._dtype.char.lower())
    return _c.new(a._session, "real", (a,), a._shape, dt)


def imag(val: Any) -> ndarray:
    """numpy.imag: a view of the imaginary part for complex input; for real
    input read-only zeros."""
    a = _c.ensure(val)
    dt = np.dtype(a._dtype.char.lower()) if a._dtype.kind == "c" else a._dtype
    return _c.new(a._session, "imag", (a,), a._shape, dt)


def angle(z: Any, deg: bool = False) -> ndarray:
    """numpy.angle: arctan2(imag, real), in degrees when ``deg``."""
    z = _c.ensure(z)
    if z._dtype.kind == "c":
        a = _m.arctan2(imag(z), real(z))
    else:
        a = _m.arctan2(0, z)
    if deg:
        a = _m.multiply(a, 180 / np.pi)
    return a


def float_power(x1: Any, x2: Any, out: Any = None, *, where: Any = True,
                casting: str = "same_kind", order: str = "K",
                dtype: Any = None, subok: bool = True) -> ndarray:
    """numpy.float_power: power computed in float64 (or complex128)."""
    s = session_of(x1, x2, out)
    keys = []
    vals = []
    for v in (x1, x2):
        if type(v) in _PY_SCALARS and type(v) is not bool:
            keys.append(type(v))
            vals.append(v)
        else:
            a = asarray_in(s, v)
            keys.append(a._dtype)
            vals.append(a)
    # NumPy's loop choice (and TypeError for a dtype= it has no loop for).
    if dtype is None:
        rdt = np.float_power.resolve_dtypes((keys[0], keys[1], None))[2]
    else:  # NumPy on 1-element probes: its loop and TypeError for dtype=
        probes = [k(1) if isinstance(k, type) else np.ones(1, k)
                  for k in keys]
        rdt = np.float_power(*probes, dtype=dtype, casting=casting).dtype
    vals = [v.astype(rdt, copy=False) if isinstance(v, ndarray) else v
            for v in vals]
    if not isinstance(vals[0], ndarray) and not isinstance(vals[1], ndarray):
        vals[0] = _c.const(s, vals[0], rdt)
    return _m.power(vals[0], vals[1], out=out, where=where, casting=casting)


def _pair_out(out: Any, n: int = 2) -> tuple[Any, ...]:
    if out is None:
        return (None,) * n
    if not isinstance(out, tuple) or len(out) != n:
        raise ValueError(f"The 'out' tuple must have exactly {n} entries: "
                         "one per ufunc output")
    return out


def _into(result: ndarray, out: Any) -> ndarray:
    if out is None:
        return result
    out[...] = result
    return out


def divmod(x1: Any, x2: Any, out: Any = None, **kw: Any  # noqa: A001
           ) -> tuple[ndarray, ndarray]:
    """numpy.divmod: (x1 // x2, x1 % x2), NumPy's floor semantics."""
    o1, o2 = _pair_out(out)
    return (_m.floor_divide(x1, x2, out=o1, **kw),
            _m.remainder(x1, x2, out=o2, **kw))


def modf(x: Any, out: Any = None) -> tuple[ndarray, ndarray]:
    """numpy.modf: fractional and integral parts, with x's sign (modf(inf)
    is (0, inf), as NumPy)."""
    o1, o2 = _pair_out(out)
    x = _c.ensure(x, session_of(x, o1, o2))
    if x._dtype.kind not in "fc":
        x = x.astype(np.modf(np.zeros(1, x._dtype))[0].dtype)
    whole = _m.trunc(x)
    frac = _m.copysign(_c.where(_m.isinf(x), 0.0, _m.subtract(x, whole)), x)
    return _into(frac, o1), _into(whole, o2)


def frexp(x: Any, out: Any = None) -> tuple[ndarray, ndarray]:
    """numpy.frexp: x = mantissa * 2**exponent, 0.5 <= |mantissa| < 1; the
    exponent as int32 (0 for zeros, infinities and NaNs)."""
    o1, o2 = _pair_out(out)
    x = _c.ensure(x, session_of(x, o1, o2))
    rdt = np.frexp(np.zeros(1, x._dtype))[0].dtype  # NumPy's TypeError too
    if x._dtype != rdt:
        x = x.astype(rdt)
    mag = _m.absolute(x)
    finite = _m.logical_and(_m.isfinite(x), _m.not_equal(x, 0))
    safe = _c.where(finite, mag, 1.0)
    e = _m.add(_m.floor(_m.log2(safe)), 1.0)
    half = _m.floor(_m.multiply(e, 0.5))  # two steps: 2**e may overflow
    m = _m.multiply(_m.multiply(x, _m.exp2(_m.negative(half))),
                    _m.exp2(_m.subtract(half, e)))
    # log2 rounds near powers of two: one step of correction each way.
    big = _m.greater_equal(_m.absolute(m), 1.0)
    m = _c.where(big, _m.multiply(m, 0.5), m)
    e = _c.where(big, _m.add(e, 1.0), e)
    small = _m.logical_and(finite, _m.less(_m.absolute(m), 0.5))
    m = _c.where(small, _m.multiply(m, 2.0), m)
    e = _c.where(small, _m.subtract(e, 1.0), e)
    m = _c.where(finite, m, x)
    e = _c.where(finite, e, 0.0).astype(np.int32)
    return _into(m, o1), _into(e, o2)


def ldexp(x1: Any, x2: Any, out: Any = None) -> ndarray:
    """numpy.ldexp: x1 * 2**x2 for integer x2 (in two steps, so that
    2**x2 itself neither overflows nor underflows early)."""
    s = session_of(x1, x2, out)
    a = _c.ensure(x1, s)
    n = _c.ensure(x2, s)
    if n._dtype.kind not in "biu":
        raise TypeError("ufunc 'ldexp' not supported for the input types, "
                        "and the inputs could not be safely coerced to any "
                        "supported types according to the casting rule "
                        "''safe''")
    rdt = np.ldexp(np.zeros(1, a._dtype), np.zeros(1, np.int32)).dtype
    if a._dtype != rdt:
        a = a.astype(rdt)
    half = _m.floor_divide(n, 2)
    rest = _m.subtract(n, half)
    r = _m.multiply(_m.multiply(a, _m.exp2(half.astype(rdt))),
                    _m.exp2(rest.astype(rdt)))
    return _into(r.astype(rdt, copy=False), out)


def _divmod_method(self: ndarray, other: Any) -> Any:
    if not isinstance(other, _OPERANDS):
        return NotImplemented
    return divmod(self, other)


def _rdivmod_method(self: ndarray, other: Any) -> Any:
    if not isinstance(other, _OPERANDS):
        return NotImplemented
    return divmod(other, self)


def _set_real(self: ndarray, value: Any) -> None:
    real(self)[...] = value


def _set_imag(self: ndarray, value: Any) -> None:
    if self._dtype.kind != "c":
        raise TypeError("array does not have imaginary part to set")
    imag(self)[...] = value


attach(real=property(real, _set_real), imag=property(imag, _set_imag),
       round=round, clip=clip, __divmod__=_divmod_method,
       __rdivmod__=_rdivmod_method)
