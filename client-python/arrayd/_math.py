"""Elementwise ops: NumPy ufuncs that run on the server, and the operators.

Layer: functions, the first above the core (_ndarray); imports only the
core and the session modules. Attaches ndarray's arithmetic, comparison
and bitwise operators, conj() and conjugate().

Each op is one row below: public name, server op name (OPS.md) and the
NumPy ufunc whose rules (dtype resolution, NEP 50 weak Python scalars,
broadcasting, same_kind casting into out=) the client applies to compute
the result's dtype and shape without asking the server.

The optional ``dtype`` attr is not sent (it costs ~2 us an op); instead
ndarray.get() checks the server's dtype and shape against the client's.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from numpy._core._exceptions import _UFuncOutputCastingError

from arrayd import _dtypes
from arrayd import _session as _sess
from arrayd._ndarray import (OPERAND_TYPES, asarray_in, attach, ndarray,
                             scalar, session_of)

_BOOL = np.dtype(np.bool_)
# (op, operand dtype or Python scalar type, ...) -> ufunc.resolve_dtypes(...)
_RESOLVED: dict[tuple[Any, ...], tuple[np.dtype, ...]] = {}
_INT_BOUNDS = {dt: (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
               for dt in _dtypes.SUPPORTED if dt.kind in "iu"}
_COMPARISONS = frozenset(("equal", "not_equal", "less", "less_equal",
                          "greater", "greater_equal"))


def _operand(s: _sess.Session, x: Any) -> tuple[Any, Any]:
    """(value, dtype key for resolve_dtypes).

    Python int/float/complex stay Python scalars (weak, NEP 50); numpy
    scalars become 0-d arrays of their own dtype; array-likes are uploaded.
    """
    t = type(x)
    if t is ndarray:
        return x, x._dtype
    if t is int or t is float or t is complex:
        return x, t
    if t is bool:
        return scalar(s, x, _BOOL), _BOOL
    if isinstance(x, ndarray):
        return x, x._dtype
    if isinstance(x, np.generic):
        dt = _dtypes.normalize(x.dtype)
        return scalar(s, x.item(), dt), dt
    a = asarray_in(s, x)
    return a, a._dtype


def _weak_scalar(s: _sess.Session, value: Any, dtype: np.dtype) -> ndarray:
    """A Python scalar as a 0-d array of the dtype NumPy gives it."""
    bounds = _INT_BOUNDS.get(dtype)
    if bounds is not None and type(value) is int and not (
            bounds[0] <= value <= bounds[1]):
        raise OverflowError(f"Python integer {value} out of bounds for {dtype}")
    return scalar(s, value, dtype)


def _check_out(uf: np.ufunc, out: Any, s: _sess.Session,
               shape: tuple[int, ...], dtype: np.dtype) -> ndarray:
    if type(out) is tuple:
        if len(out) != 1:
            raise ValueError(f"{uf.__name__} has 1 output, got {len(out)}")
        out = out[0]
    if not isinstance(out, ndarray):
        raise TypeError("out must be an arrayd.ndarray")
    if out._session is not s:
        raise ValueError("arrays belong to different arrayd sessions")
    if out._shape != shape:
        try:
            ok = np.broadcast_shapes(shape, out._shape) == out._shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(
                f"non-broadcastable output operand with shape {out._shape} "
                f"doesn't match the broadcast shape {shape}")
    if dtype != out._dtype and not np.can_cast(dtype, out._dtype,
                                               "same_kind"):
        raise _UFuncOutputCastingError(uf, "same_kind", dtype, out._dtype, 0)
    return out


def _constant(s: _sess.Session, shape: tuple[int, ...], dtype: np.dtype,
              value: Any, uf: np.ufunc, out: Any) -> ndarray:
    """A result that NumPy knows without looking at the data."""
    attrs = {"shape": list(shape), "dtype": dtype,
             "value": int(value) if dtype.kind == "b" else value}
    if out is not None:
        out = _check_out(uf, out, s, shape, dtype)
        tmp = s.new_handle()
        s.record("full", (), (tmp,), attrs)
        s.record("setitem", (out._handle, tmp), (), {"index": [2, 0, 0, 0]})
        s.free(tmp)
        return out
    h = s.new_handle()
    s.record("full", (), (h,), attrs)
    return ndarray._new(s, h, shape, dtype)


def _binary(op: str, uf: np.ufunc, x1: Any, x2: Any, out: Any) -> ndarray:
    if (type(x1) is ndarray and type(x2) is ndarray and out is None
            and x1._session is x2._session):  # the common case, in short
        s, a, ka, b, kb = x1._session, x1, x1._dtype, x2, x2._dtype
    else:
        s = session_of(x1, x2, out)
        a, ka = _operand(s, x1)
        b, kb = _operand(s, x2)
    key = (op, ka, kb)
    r = _RESOLVED.get(key)
    if r is None:
        r = uf.resolve_dtypes((ka, kb, None))  # NumPy's TypeError
        _RESOLVED[key] = r
    in1, in2, rdt = r
    if op == "power" and type(b) is int and b < 0 and rdt.kind in "iu":
        raise ValueError("Integers to negative integer powers are not allowed.")
    sa = a._shape if type(a) is ndarray else ()
    sb = b._shape if type(b) is ndarray else ()
    if sa == sb:
        shape = sa
    else:
        try:
            shape = np.broadcast_shapes(sa, sb)
        except ValueError:
            raise ValueError(f"operands could not be broadcast together "
                             f"with shapes {sa} {sb} ") from None
    try:
        if type(a) is not ndarray:
            a = _weak_scalar(s, a, in1)
        if type(b) is not ndarray:
            b = _weak_scalar(s, b, in2)
    except OverflowError:
        if op not in _COMPARISONS:
            raise
        # NumPy 2 compares with out-of-range Python ints: the answer is the
        # same for every in-range value.
        va = np.zeros((), in1) if type(a) is ndarray else x1
        vb = np.zeros((), in2) if type(b) is ndarray else x2
        return _constant(s, shape, rdt, bool(uf(va, vb)), uf, out)
    if out is not None:
        out = _check_out(uf, out, s, shape, rdt)
        s.record(op, (a._handle, b._handle), (out._handle,), small=_sess.is_small(shape))
        return out
    h = s.new_handle()
    s.record(op, (a._handle, b._handle), (h,), small=_sess.is_small(shape))
    return ndarray._new(s, h, shape, rdt)


def _unary(op: str, uf: np.ufunc, x: Any, out: Any) -> ndarray:
    s = session_of(x, out)
    if type(x) is int or type(x) is float or type(x) is complex:
        x = np.asarray(x)  # NumPy's default dtype for a lone Python scalar
    a, ka = _operand(s, x)
    key = (op, ka)
    r = _RESOLVED.get(key)
    if r is None:
        r = uf.resolve_dtypes((ka, None))
        _RESOLVED[key] = r
    rdt = r[1]
    if out is not None:
        out = _check_out(uf, out, s, a._shape, rdt)
        s.record(op, (a._handle,), (out._handle,), small=_sess.is_small(a._shape))
        return out
    h = s.new_handle()
    s.record(op, (a._handle,), (h,), small=_sess.is_small(a._shape))
    return ndarray._new(s, h, a._shape, rdt)


def _binary_ufunc(op: str, uf: np.ufunc) -> Callable[..., ndarray]:
    def f(x1: Any, x2: Any, /, out: Any = None) -> ndarray:
        return _binary(op, uf, x1, x2, out)
    f.__name__ = f.__qualname__ = op
    f.__doc__ = (f"Elementwise numpy.{uf.__name__} on the server "
                 "(broadcasting, NumPy's dtype rules, out=).")
    f.ufunc = uf  # type: ignore[attr-defined]
    return f


def _unary_ufunc(op: str, uf: np.ufunc) -> Callable[..., ndarray]:
    def f(x: Any, /, out: Any = None) -> ndarray:
        return _unary(op, uf, x, out)
    f.__name__ = f.__qualname__ = op
    f.__doc__ = f"Elementwise numpy.{uf.__name__} on the server (out=)."
    f.ufunc = uf  # type: ignore[attr-defined]
    return f


# -- the ops: public name = factory(server op name, NumPy ufunc) -----------

negative = _unary_ufunc("negative", np.negative)
positive = _unary_ufunc("positive", np.positive)
absolute = _unary_ufunc("absolute", np.absolute)
logical_not = _unary_ufunc("logical_not", np.logical_not)
invert = _unary_ufunc("invert", np.invert)

add = _binary_ufunc("add", np.add)
subtract = _binary_ufunc("subtract", np.subtract)
multiply = _binary_ufunc("multiply", np.multiply)
true_divide = _binary_ufunc("true_divide", np.true_divide)
floor_divide = _binary_ufunc("floor_divide", np.floor_divide)
remainder = _binary_ufunc("remainder", np.remainder)
power = _binary_ufunc("power", np.power)
equal = _binary_ufunc("equal", np.equal)
not_equal = _binary_ufunc("not_equal", np.not_equal)
less = _binary_ufunc("less", np.less)
less_equal = _binary_ufunc("less_equal", np.less_equal)
greater = _binary_ufunc("greater", np.greater)
greater_equal = _binary_ufunc("greater_equal", np.greater_equal)
logical_and = _binary_ufunc("logical_and", np.logical_and)
logical_or = _binary_ufunc("logical_or", np.logical_or)
logical_xor = _binary_ufunc("logical_xor", np.logical_xor)
bitwise_and = _binary_ufunc("bitwise_and", np.bitwise_and)
bitwise_or = _binary_ufunc("bitwise_or", np.bitwise_or)
bitwise_xor = _binary_ufunc("bitwise_xor", np.bitwise_xor)
left_shift = _binary_ufunc("left_shift", np.left_shift)
right_shift = _binary_ufunc("right_shift", np.right_shift)
maximum = _binary_ufunc("maximum", np.maximum)
minimum = _binary_ufunc("minimum", np.minimum)
exp = _unary_ufunc("exp", np.exp)
exp2 = _unary_ufunc("exp2", np.exp2)
expm1 = _unary_ufunc("expm1", np.expm1)
log = _unary_ufunc("log", np.log)
log2 = _unary_ufunc("log2", np.log2)
log10 = _unary_ufunc("log10", np.log10)
log1p = _unary_ufunc("log1p", np.log1p)
sqrt = _unary_ufunc("sqrt", np.sqrt)
cbrt = _unary_ufunc("cbrt", np.cbrt)
square = _unary_ufunc("square", np.square)
reciprocal = _unary_ufunc("reciprocal", np.reciprocal)
sin = _unary_ufunc("sin", np.sin)
cos = _unary_ufunc("cos", np.cos)
tan = _unary_ufunc("tan", np.tan)
arcsin = _unary_ufunc("arcsin", np.arcsin)
arccos = _unary_ufunc("arccos", np.arccos)
arctan = _unary_ufunc("arctan", np.arctan)
sinh = _unary_ufunc("sinh", np.sinh)
cosh = _unary_ufunc("cosh", np.cosh)
tanh = _unary_ufunc("tanh", np.tanh)
arcsinh = _unary_ufunc("arcsinh", np.arcsinh)
arccosh = _unary_ufunc("arccosh", np.arccosh)
arctanh = _unary_ufunc("arctanh", np.arctanh)
floor = _unary_ufunc("floor", np.floor)
ceil = _unary_ufunc("ceil", np.ceil)
trunc = _unary_ufunc("trunc", np.trunc)
rint = _unary_ufunc("rint", np.rint)
sign = _unary_ufunc("sign", np.sign)
signbit = _unary_ufunc("signbit", np.signbit)
fabs = _unary_ufunc("fabs", np.fabs)
degrees = _unary_ufunc("degrees", np.degrees)
radians = _unary_ufunc("radians", np.radians)
isnan = _unary_ufunc("isnan", np.isnan)
isinf = _unary_ufunc("isinf", np.isinf)
isfinite = _unary_ufunc("isfinite", np.isfinite)
conjugate = _unary_ufunc("conjugate", np.conjugate)
arctan2 = _binary_ufunc("arctan2", np.arctan2)
hypot = _binary_ufunc("hypot", np.hypot)
copysign = _binary_ufunc("copysign", np.copysign)
nextafter = _binary_ufunc("nextafter", np.nextafter)
fmax = _binary_ufunc("fmax", np.fmax)
fmin = _binary_ufunc("fmin", np.fmin)
fmod = _binary_ufunc("fmod", np.fmod)
gcd = _binary_ufunc("gcd", np.gcd)
lcm = _binary_ufunc("lcm", np.lcm)
logaddexp = _binary_ufunc("logaddexp", np.logaddexp)
logaddexp2 = _binary_ufunc("logaddexp2", np.logaddexp2)
heaviside = _binary_ufunc("heaviside", np.heaviside)

# NumPy's aliases.
divide = true_divide
mod = remainder
abs = absolute  # noqa: A001
conj = conjugate
pow = power  # noqa: A001
asin, acos, atan, atan2 = arcsin, arccos, arctan, arctan2
asinh, acosh, atanh = arcsinh, arccosh, arctanh

# numpy ufunc name -> function, for ndarray.__array_ufunc__.
UFUNCS: dict[str, Callable[..., ndarray]] = {
    f.ufunc.__name__: f  # type: ignore[attr-defined]
    for f in (negative, positive, absolute, logical_not, invert, add,
              subtract, multiply, true_divide, floor_divide, remainder,
              power, equal, not_equal, less, less_equal, greater,
              greater_equal, logical_and, logical_or, logical_xor,
              bitwise_and, bitwise_or, bitwise_xor, left_shift, right_shift,
              maximum, minimum, exp, exp2, expm1, log, log2, log10, log1p,
              sqrt, cbrt, square, reciprocal, sin, cos, tan, arcsin, arccos,
              arctan, sinh, cosh, tanh, arcsinh, arccosh, arctanh, floor, ceil,
              trunc, rint, sign, signbit, fabs, degrees, radians, isnan, isinf,
              isfinite, conjugate, arctan2, hypot, copysign, nextafter, fmax,
              fmin, fmod, gcd, lcm, logaddexp, logaddexp2, heaviside)
}


# -- ndarray's operators -----------------------------------------------------
# One closure per operator that calls the ufunc itself: ``x + y`` is a
# measured path (tests/bench), so no helper call sits in between.

def _named(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    fn.__name__ = name
    fn.__qualname__ = f"ndarray.{name}"
    return fn


def _binary_operators(f: Callable[..., ndarray],
                      name: str) -> dict[str, Callable[..., Any]]:
    """ndarray's __name__, __rname__ and __iname__ for the ufunc f."""
    def op(self: ndarray, o: Any) -> Any:
        return f(self, o) if isinstance(o, OPERAND_TYPES) else NotImplemented

    def rop(self: ndarray, o: Any) -> Any:
        return f(o, self) if isinstance(o, OPERAND_TYPES) else NotImplemented

    def iop(self: ndarray, o: Any) -> Any:
        return (f(self, o, out=self) if isinstance(o, OPERAND_TYPES)
                else NotImplemented)

    ops = {f"__{name}__": op, f"__r{name}__": rop, f"__i{name}__": iop}
    return {key: _named(fn, key) for key, fn in ops.items()}


def _comparison(f: Callable[..., ndarray],
                name: str) -> dict[str, Callable[..., Any]]:
    def op(self: ndarray, o: Any) -> Any:
        return f(self, o) if isinstance(o, OPERAND_TYPES) else NotImplemented
    return {name: _named(op, name)}


def _pow(self: ndarray, o: Any, mod: Any = None) -> Any:
    if mod is not None or not isinstance(o, OPERAND_TYPES):
        return NotImplemented
    return power(self, o)


def _rpow(self: ndarray, o: Any, mod: Any = None) -> Any:
    if mod is not None or not isinstance(o, OPERAND_TYPES):
        return NotImplemented
    return power(o, self)


def _ipow(self: ndarray, o: Any) -> Any:
    return (power(self, o, out=self) if isinstance(o, OPERAND_TYPES)
            else NotImplemented)


def _neg(self: ndarray) -> ndarray:
    return negative(self)


def _pos(self: ndarray) -> ndarray:
    return positive(self)


def _abs(self: ndarray) -> ndarray:
    return absolute(self)


def _invert(self: ndarray) -> ndarray:
    return invert(self)


def _conjugate(self: ndarray) -> ndarray:
    return conjugate(self)


attach(
    **_binary_operators(add, "add"),
    **_binary_operators(subtract, "sub"),
    **_binary_operators(multiply, "mul"),
    **_binary_operators(true_divide, "truediv"),
    **_binary_operators(floor_divide, "floordiv"),
    **_binary_operators(remainder, "mod"),
    **_binary_operators(bitwise_and, "and"),
    **_binary_operators(bitwise_or, "or"),
    **_binary_operators(bitwise_xor, "xor"),
    **_binary_operators(left_shift, "lshift"),
    **_binary_operators(right_shift, "rshift"),
    __pow__=_pow, __rpow__=_rpow, __ipow__=_ipow,
    **_comparison(equal, "__eq__"), **_comparison(not_equal, "__ne__"),
    **_comparison(less, "__lt__"), **_comparison(less_equal, "__le__"),
    **_comparison(greater, "__gt__"),
    **_comparison(greater_equal, "__ge__"),
    __neg__=_neg, __pos__=_pos, __abs__=_abs, __invert__=_invert,
    conj=_conjugate, conjugate=_conjugate,
)
