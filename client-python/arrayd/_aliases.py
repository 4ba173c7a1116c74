"""NumPy 1.x names CuPy keeps (alltrue, sometrue, product, cumproduct,
round_, trapz, asfarray), the Array API 2023.12 functions NumPy 2.1 added
(unstack, cumulative_sum, cumulative_prod), bitwise_count and the flatiter
type.

Layer: functions (imports the core and the function modules).
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from arrayd import _calculus, _mathfuncs, _reduction, _statistics
from arrayd import _composite as _c
from arrayd import _math as _m
from arrayd._indexing import flatiter
from arrayd._manipulation import concatenate, moveaxis
from arrayd._ndarray import asarray_in, ndarray, session_of

__all__ = ["alltrue", "asfarray", "bitwise_count", "cumproduct",
           "cumulative_prod", "cumulative_sum", "flatiter", "product",
           "round_", "sometrue", "trapz", "unstack"]


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"`{old}` is deprecated as of NumPy 1.25.0, and will be "
                  f"removed in NumPy 2.0. Please use `{new}` instead.",
                  DeprecationWarning, stacklevel=3)


def alltrue(*args: Any, **kwargs: Any) -> ndarray:
    """numpy.alltrue (NumPy 1.x): all, with its DeprecationWarning."""
    _deprecated("alltrue", "all")
    return _reduction.all(*args, **kwargs)


def sometrue(*args: Any, **kwargs: Any) -> ndarray:
    """numpy.sometrue (NumPy 1.x): any, with its DeprecationWarning."""
    _deprecated("sometrue", "any")
    return _reduction.any(*args, **kwargs)


def product(*args: Any, **kwargs: Any) -> ndarray:
    """numpy.product (NumPy 1.x): prod, with its DeprecationWarning."""
    _deprecated("product", "prod")
    return _reduction.prod(*args, **kwargs)


def cumproduct(*args: Any, **kwargs: Any) -> ndarray:
    """numpy.cumproduct (NumPy 1.x): cumprod, with its DeprecationWarning."""
    _deprecated("cumproduct", "cumprod")
    return _statistics.cumprod(*args, **kwargs)


def round_(a: Any, decimals: int = 0, out: Any = None) -> ndarray:
    """numpy.round_ (NumPy 1.x): round."""
    return _mathfuncs.round(a, decimals, out)


def trapz(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    """numpy.trapz (NumPy 1.x): trapezoid, with NumPy 2.0's warning."""
    warnings.warn("`trapz` is deprecated. Use `trapezoid` instead, or one "
                  "of the numerical integration functions in "
                  "`scipy.integrate`.", DeprecationWarning, stacklevel=2)
    return _calculus.trapezoid(y, x, dx, axis)


def asfarray(a: Any, dtype: Any = np.float64) -> ndarray:
    """numpy.asfarray (NumPy 1.x): a as an array of an inexact dtype."""
    dt = np.dtype(dtype)
    if not np.issubdtype(dt, np.inexact):
        dt = np.dtype(np.float64)
    return asarray_in(session_of(a), a, dt)


def unstack(x: Any, /, *, axis: int = 0) -> tuple[ndarray, ...]:
    """numpy.unstack: the views along ``axis``."""
    x = asarray_in(session_of(x), x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    ax = normalize_axis_index(axis, x.ndim)
    return tuple(moveaxis(x, ax, 0))


def _cumulative(name: str, scan: Any, x: Any, axis: Any, dtype: Any,
                out: Any, include_initial: bool, initial: int) -> ndarray:
    x = asarray_in(session_of(x, out), x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError("For arrays which have more than one dimension "
                             "``axis`` argument is required.")
        axis = 0
    if x.ndim == 0:
        x = x.reshape(1)
    ax = normalize_axis_index(axis, x.ndim)
    r = scan(x, axis=ax, dtype=dtype)
    if include_initial:
        shape = list(r.shape)
        shape[ax] = 1
        first = _c.new(r._session, "full", (), tuple(shape), r.dtype, {
            "shape": shape, "dtype": r.dtype, "value": initial})
        r = concatenate([first, r], axis=ax)
    return r if out is None else _c.assign(out, r, name)


def cumulative_sum(x: Any, /, *, axis: Any = None, dtype: Any = None,
                   out: Any = None, include_initial: bool = False) -> ndarray:
    """numpy.cumulative_sum (the Array API's cumsum)."""
    return _cumulative("cumulative_sum", _statistics.cumsum, x, axis, dtype,
                       out, include_initial, 0)


def cumulative_prod(x: Any, /, *, axis: Any = None, dtype: Any = None,
                    out: Any = None, include_initial: bool = False) -> ndarray:
    """numpy.cumulative_prod (the Array API's cumprod)."""
    return _cumulative("cumulative_prod", _statistics.cumprod, x, axis,
                       dtype, out, include_initial, 1)


_POP_MASKS = (0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F)


def bitwise_count(x: Any, /, out: Any = None) -> ndarray:
    """numpy.bitwise_count: the number of 1 bits of |x|, as uint8 (a
    parallel bit count of ufuncs: pairs, nibbles, bytes, then a sum of the
    bytes)."""
    x = asarray_in(session_of(x, out), x)
    dt = x.dtype
    if dt.kind not in "biu":
        raise TypeError("ufunc 'bitwise_count' not supported for the input "
                        "types, and the inputs could not be safely coerced "
                        "to any supported types according to the casting "
                        "rule ''safe''")
    if dt.kind == "b":
        r = x.astype(np.uint8)
        return r if out is None else _c.assign(out, r, "bitwise_count")
    u = np.dtype(f"u{dt.itemsize}")
    v = (_m.absolute(x) if dt.kind == "i" else x).astype(u)
    bits = 8 * dt.itemsize
    m1, m2, m4 = (np.array(m & ((1 << bits) - 1), u) for m in _POP_MASKS)
    v = _m.subtract(v, _m.bitwise_and(_m.right_shift(v, np.array(1, u)), m1))
    v = _m.add(_m.bitwise_and(v, m2),
               _m.bitwise_and(_m.right_shift(v, np.array(2, u)), m2))
    v = _m.bitwise_and(_m.add(v, _m.right_shift(v, np.array(4, u))), m4)
    total = _m.bitwise_and(v, np.array(0xFF, u))
    for shift in range(8, bits, 8):
        total = _m.add(total, _m.bitwise_and(
            _m.right_shift(v, np.array(shift, u)), np.array(0xFF, u)))
    r = total.astype(np.uint8)
    return r if out is None else _c.assign(out, r, "bitwise_count")
