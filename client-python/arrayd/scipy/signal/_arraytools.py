"""Helpers of arrayd.scipy.signal: coercion, axis handling, edge extension,
and the wrapper that runs SciPy's filter design on the host.

Filter design (butter, firwin, zpk2sos, ...) takes and returns a few
coefficients, so it runs in SciPy on the host, as SciPy itself does; its
array results are uploaded as arrayd arrays, as CuPy returns cupy arrays.
Everything that touches signal data runs on the server.

Layer: a helper of the arrayd.scipy.signal namespace (imports arrayd's
public namespace).
"""
from __future__ import annotations

import inspect
import math
import operator
from typing import Any, Callable

import numpy as np

import arrayd as ad

F64 = np.dtype(np.float64)
C128 = np.dtype(np.complex128)


def asarray(x: Any) -> ad.ndarray:
    """x as an arrayd array (uploaded when it is host data)."""
    return x if isinstance(x, ad.ndarray) else ad.asarray(x)


def host(x: Any) -> np.ndarray:
    """x as a NumPy array: for filter coefficients and other small inputs
    that host-side design code reads (downloads an arrayd array)."""
    return ad.asnumpy(x) if isinstance(x, ad.ndarray) else np.asarray(x)


def to_device(obj: Any) -> Any:
    """obj with every NumPy array in it (tuples and lists followed) made an
    arrayd array (named tuples and SciPy's result bunches too); other
    values as they are."""
    if isinstance(obj, np.ndarray):
        return ad.asarray(obj)
    if isinstance(obj, tuple):
        if hasattr(obj, "_fields"):
            return type(obj)(*(to_device(o) for o in obj))
        return tuple(to_device(o) for o in obj)
    if type(obj).__name__ == "Bunch" and hasattr(obj, "__dict__"):
        for k, v in vars(obj).items():
            setattr(obj, k, to_device(v))
        return obj
    if isinstance(obj, list):
        return [to_device(o) for o in obj]
    return obj


# (type, unwrap): client-side wrappers of host objects (the LTI systems)
# that to_host hands to SciPy as the objects they wrap.
_HOST_TYPES: list[tuple[type, Callable[[Any], Any]]] = []


def register_host_type(cls: type, unwrap: Callable[[Any], Any]) -> None:
    """Make to_host turn instances of cls into unwrap(instance)."""
    _HOST_TYPES.append((cls, unwrap))


def to_host(obj: Any) -> Any:
    """obj with every arrayd array in it made a NumPy array (and every
    registered wrapper the host object it wraps)."""
    if isinstance(obj, ad.ndarray):
        return ad.asnumpy(obj)
    for cls, unwrap in _HOST_TYPES:
        if isinstance(obj, cls):
            return unwrap(obj)
    if isinstance(obj, (tuple, list)):
        return type(obj)(to_host(o) for o in obj)
    return obj


def on_host(fn: Callable[..., Any], doc: str) -> Callable[..., Any]:
    """A function with fn's signature that runs fn (SciPy's) on the host
    with its array arguments downloaded and uploads its array results."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        args = tuple(to_host(a) for a in args)
        kwargs = {k: to_host(v) for k, v in kwargs.items()}
        return to_device(fn(*args, **kwargs))

    wrapper.__name__ = wrapper.__qualname__ = fn.__name__
    wrapper.__doc__ = doc
    try:
        wrapper.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        pass
    return wrapper


def normalize_axis(axis: Any, ndim: int) -> int:
    """axis in range(ndim) (numpy's AxisError when out of range)."""
    axis = operator.index(axis)
    if not -ndim <= axis < max(ndim, 1):
        raise np.exceptions.AxisError(axis, ndim)
    return axis % max(ndim, 1)


def float_dtype(*dtypes: Any) -> np.dtype:
    """The result dtype of SciPy's filters: the promotion of the inputs,
    float64 for integers and booleans."""
    dt = np.result_type(*dtypes)
    if dt.kind not in "fc":
        dt = F64
    if dt == np.float16:
        dt = np.dtype(np.float32)
    return dt


def work_dtype(dt: np.dtype) -> np.dtype:
    """float64 or complex128: the precision the recurrences run in."""
    return C128 if np.dtype(dt).kind == "c" else F64


def axis_slice(a: ad.ndarray, start: Any = None, stop: Any = None,
               step: Any = None, axis: int = -1) -> ad.ndarray:
    """a[..., start:stop:step, ...] on one axis (a view)."""
    idx = [slice(None)] * a.ndim
    idx[axis] = slice(start, stop, step)
    return a[tuple(idx)]


def axis_reverse(a: ad.ndarray, axis: int = -1) -> ad.ndarray:
    """a reversed along axis (a view)."""
    return axis_slice(a, step=-1, axis=axis)


def odd_ext(x: ad.ndarray, n: int, axis: int = -1) -> ad.ndarray:
    """x extended by n points at each end along axis with odd symmetry
    about its end points (2 x[0] - x[n:0:-1] before it)."""
    if n < 1:
        return x
    if n > x.shape[axis] - 1:
        raise ValueError(f"The extension length n ({n}) is too big. It must "
                         f"not exceed x.shape[axis]-1, which is "
                         f"{x.shape[axis] - 1}.")
    left_end = axis_slice(x, 0, 1, axis=axis)
    left = axis_slice(x, n, 0, -1, axis=axis)
    right_end = axis_slice(x, -1, None, axis=axis)
    right = axis_slice(x, -2, -(n + 2), -1, axis=axis)
    return ad.concatenate((2 * left_end - left, x, 2 * right_end - right),
                          axis=axis)


def even_ext(x: ad.ndarray, n: int, axis: int = -1) -> ad.ndarray:
    """x extended by n points at each end along axis with even symmetry
    about its end points (x[n:0:-1] before it)."""
    if n < 1:
        return x
    if n > x.shape[axis] - 1:
        raise ValueError(f"The extension length n ({n}) is too big. It must "
                         f"not exceed x.shape[axis]-1, which is "
                         f"{x.shape[axis] - 1}.")
    left = axis_slice(x, n, 0, -1, axis=axis)
    right = axis_slice(x, -2, -(n + 2), -1, axis=axis)
    return ad.concatenate((left, x, right), axis=axis)


def const_ext(x: ad.ndarray, n: int, axis: int = -1) -> ad.ndarray:
    """x extended by n copies of its end points at each end along axis."""
    if n < 1:
        return x
    shape = list(x.shape)
    shape[axis] = n
    left = ad.broadcast_to(axis_slice(x, 0, 1, axis=axis), shape)
    right = ad.broadcast_to(axis_slice(x, -1, None, axis=axis), shape)
    return ad.concatenate((left, x, right), axis=axis)


def zero_ext(x: ad.ndarray, n: int, axis: int = -1) -> ad.ndarray:
    """x extended by n zeros at each end along axis."""
    if n < 1:
        return x
    shape = list(x.shape)
    shape[axis] = n
    z = ad.zeros(shape, x.dtype)
    return ad.concatenate((z, x, z), axis=axis)


def to_rows(x: ad.ndarray, axis: int) -> tuple[ad.ndarray, tuple[int, ...]]:
    """x with axis moved last and the other axes flattened: (rows, the
    other axes' shape), for from_rows."""
    m = ad.moveaxis(x, axis, -1)
    lead = tuple(m.shape[:-1])
    if m.ndim == 2:
        return m, lead
    # An explicit row count: -1 is ambiguous for an empty last axis.
    return m.reshape(math.prod(lead), m.shape[-1]), lead


def from_rows(y: ad.ndarray, lead: tuple[int, ...], axis: int
              ) -> ad.ndarray:
    """The inverse of to_rows: rows of any length back to axis."""
    return ad.moveaxis(y.reshape(lead + (y.shape[-1],)), -1, axis)
