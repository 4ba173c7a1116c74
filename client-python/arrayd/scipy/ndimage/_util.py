"""Helpers of arrayd.scipy.ndimage: argument checks with SciPy's messages,
the output rule (``output=`` a dtype or an array), axes, boundary modes and
the padding every filter starts from.

SciPy's boundary modes map onto NumPy's pad modes, which the server runs:

    SciPy      reflect    mirror   nearest  wrap  constant
    numpy.pad  symmetric  reflect  edge     wrap  constant

Filters treat 'grid-mirror', 'grid-wrap' and 'grid-constant' as 'reflect',
'wrap' and 'constant'; the interpolation functions tell them apart
(_interpolation.py).

Layer: a helper of the arrayd.scipy.ndimage namespace (imports arrayd's
public namespace).
"""
from __future__ import annotations

import operator
import warnings
from typing import Any, Sequence

import numpy as np

import arrayd as ad

F64 = np.dtype(np.float64)
C128 = np.dtype(np.complex128)

MODES = ("reflect", "constant", "nearest", "mirror", "wrap", "grid-constant",
         "grid-mirror", "grid-wrap")
_PAD_MODE = {"reflect": "symmetric", "grid-mirror": "symmetric",
             "mirror": "reflect", "nearest": "edge", "wrap": "wrap",
             "grid-wrap": "wrap", "constant": "constant",
             "grid-constant": "constant"}
_SUPPORTED_KINDS = "biufc"


def asarray(x: Any) -> ad.ndarray:
    """x as an arrayd array (uploaded when it is host data)."""
    return x if isinstance(x, ad.ndarray) else ad.asarray(x)


def host(x: Any) -> np.ndarray:
    """x as a NumPy array (downloads an arrayd array): for the small
    parameter arrays (footprints, structures) whose values decide which
    ops are sent."""
    return ad.asnumpy(x) if isinstance(x, ad.ndarray) else np.asarray(x)


def check_input(x: Any) -> ad.ndarray:
    """x as an arrayd array of a dtype SciPy's ndimage supports."""
    x = asarray(x)
    if x.dtype.kind not in _SUPPORTED_KINDS or x.dtype == np.float16:
        raise RuntimeError(f"array type {x.dtype!r} not supported")
    return x


def normalize_sequence(value: Any, rank: int) -> list[Any]:
    """value repeated rank times, or the sequence value checked to have
    rank items (SciPy's RuntimeError otherwise)."""
    if isinstance(value, str) or not hasattr(value, "__len__"):
        return [value] * rank
    value = list(value)
    if len(value) != rank:
        raise RuntimeError(
            "sequence argument must have length equal to input rank")
    return value


def check_axes(axes: Any, ndim: int) -> tuple[int, ...]:
    """The axes a filter runs over, in range(ndim) (all of them when
    None); numpy's AxisError or SciPy's ValueError when out of range or
    repeated."""
    if axes is None:
        return tuple(range(ndim))
    if np.isscalar(axes) or (isinstance(axes, np.ndarray) and axes.ndim == 0):
        axes = (axes,)
    out = []
    for ax in axes:
        ax = operator.index(ax)
        if not -ndim <= ax < ndim:
            raise ValueError(f"specified axis: {ax} is out of range")
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise ValueError("axes must be unique")
    return tuple(out)


def normalize_axis(axis: Any, ndim: int) -> int:
    """axis in range(ndim) (numpy's AxisError when out of range)."""
    axis = operator.index(axis)
    if not -ndim <= axis < max(ndim, 1):
        raise np.exceptions.AxisError(axis, ndim)
    return axis % max(ndim, 1)


def check_mode(mode: Any) -> str:
    """mode checked to be one of SciPy's boundary modes."""
    if not isinstance(mode, str) or mode not in MODES:
        raise RuntimeError("boundary mode not supported")
    return mode


def single_mode(mode: Any, what: str = "") -> str:
    """A mode where SciPy takes only one (non-separable filters)."""
    if not isinstance(mode, str) and hasattr(mode, "__len__"):
        raise RuntimeError("A sequence of modes is not supported" + what)
    return check_mode(mode)


def get_output(output: Any, x: ad.ndarray, shape: Sequence[int] | None = None,
               complex_output: bool = False) -> tuple[np.dtype, Any]:
    """SciPy's output rule: (the result dtype, the array to write into or
    None). ``output`` is None (x's dtype), a dtype, or an array of the
    result's shape (RuntimeError otherwise)."""
    shape = tuple(x.shape if shape is None else shape)
    if output is None:
        dt = x.dtype
        if complex_output and dt.kind != "c":
            dt = np.promote_types(dt, np.complex64)
        return dt, None
    if isinstance(output, (type, np.dtype, str)):
        dt = np.dtype(output)
        if complex_output and dt.kind != "c":
            warnings.warn("promoting specified output dtype to complex",
                          stacklevel=3)
            dt = np.promote_types(dt, np.complex64)
        return dt, None
    if tuple(output.shape) != shape:
        raise RuntimeError("output shape not correct")
    if complex_output and output.dtype.kind != "c":
        raise RuntimeError("output must have complex dtype")
    return output.dtype, output


def finish(result: ad.ndarray, dtype: np.dtype, out: Any) -> ad.ndarray:
    """result cast to dtype (truncating toward zero for integers, as SciPy's
    C loops do), written into out when one was given; what the filter
    returns."""
    if out is not None:
        if isinstance(out, ad.ndarray):
            out[...] = result.astype(dtype, copy=False)
            return out
        out[...] = ad.asnumpy(result).astype(dtype)
        return out
    if result.dtype != dtype:
        if dtype.kind in "iub" and result.dtype.kind == "c":
            result = result.real
        result = result.astype(dtype)
    # A new array, C-ordered as SciPy's (a pass may leave a moved-axis view).
    return ad.ascontiguousarray(result)


def work_dtype(x: ad.ndarray, *others: Any) -> np.dtype:
    """The dtype a linear filter computes in: float64 for integers (SciPy
    accumulates in double), float32 stays float32, complex when any input
    is complex."""
    kinds = [x.dtype] + [np.dtype(o) for o in others]
    if any(k.kind == "c" for k in kinds):
        single = all(k in (np.complex64, np.float32) for k in kinds)
        return np.dtype(np.complex64 if single else np.complex128)
    if all(k == np.float32 for k in kinds):
        return np.dtype(np.float32)
    return F64


def pad_mode(mode: str) -> str:
    """The numpy.pad mode that extends like SciPy's filter mode."""
    return _PAD_MODE[check_mode(mode)]


def pad_axis(x: ad.ndarray, axis: int, before: int, after: int, mode: str,
             cval: Any = 0.0) -> ad.ndarray:
    """x extended along axis by before and after elements as SciPy's filter
    mode extends it (one pad op; x itself when both are 0)."""
    if before == 0 and after == 0:
        return x
    if x.shape[axis] == 0:
        raise RuntimeError("array has zero length along an axis")
    widths = [(0, 0)] * x.ndim
    widths[axis] = (before, after)
    return pad(x, widths, mode, cval)


def pad(x: ad.ndarray, widths: Sequence[tuple[int, int]], mode: str,
        cval: Any = 0.0) -> ad.ndarray:
    """x extended by widths (one (before, after) pair an axis) as SciPy's
    filter mode extends it."""
    pm = pad_mode(mode)
    if pm == "constant":
        return ad.pad(x, widths, mode="constant", constant_values=cval)
    return ad.pad(x, widths, mode=pm)


def origins(origin: Any, n: int) -> list[int]:
    """origin as n ints (SciPy's RuntimeError when the count is wrong)."""
    return [operator.index(o) for o in normalize_sequence(origin, n)]


def check_origin(origin: int, size: int) -> None:
    """SciPy's ValueError for an origin outside the filter of this size."""
    if not -(size // 2) <= origin <= (size - 1) // 2:
        raise ValueError("invalid origin")


def wide_for_cval(x: ad.ndarray, mode: Any, cval: Any) -> ad.ndarray:
    """x, or x as float64 where an integer x meets a constant border whose
    cval its dtype cannot hold: SciPy's min, max and rank filters compare
    such a cval as a double and cast the result (C's conversion: -1 is
    255 in uint8)."""
    if x.dtype.kind not in "iu":
        return x
    modes = [mode] if isinstance(mode, str) else list(mode)
    if not any(isinstance(m, str) and _PAD_MODE.get(m) == "constant"
               for m in modes):
        return x
    c = float(cval)
    info = np.iinfo(x.dtype)
    if c.is_integer() and info.min <= c <= info.max:
        return x
    return x.astype(F64)


def _is_integer_output(output: Any, input: Any) -> bool:
    """Whether the result (output a dtype, an array or None: input's
    dtype) is of an integer dtype (the name CuPy's tests import)."""
    if output is None:
        return np.dtype(input.dtype).kind in "iu"
    if hasattr(output, "dtype") and not isinstance(output, (type, np.dtype)):
        return np.dtype(output.dtype).kind in "iu"
    return np.dtype(output).kind in "iu"
