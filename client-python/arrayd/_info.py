"""Type tests and array information that NumPy and CuPy code asks first:
isscalar, get_array_module, ndim, shape, size, iscomplexobj, isrealobj.

Layer: functions (imports only the core). None of them waits for the server:
an arrayd array's dtype and shape are known to the client.
"""
from __future__ import annotations

import sys
from typing import Any

import numpy as np

from arrayd._ndarray import ndarray


def isscalar(element: Any) -> bool:
    """numpy.isscalar: True for Python and NumPy scalars; False for arrays,
    arrayd's 0-d arrays included (as cupy.isscalar)."""
    return bool(np.isscalar(element))


def get_array_module(*args: Any) -> Any:
    """cupy.get_array_module: the arrayd module if any argument is an
    arrayd array, else numpy."""
    for a in args:
        if isinstance(a, ndarray):
            return sys.modules["arrayd"]
    return np


def ndim(a: Any) -> int:
    """numpy.ndim."""
    return a.ndim if isinstance(a, ndarray) else int(np.ndim(a))


def shape(a: Any) -> tuple[int, ...]:
    """numpy.shape."""
    return a.shape if isinstance(a, ndarray) else tuple(np.shape(a))


def size(a: Any, axis: int | None = None) -> int:
    """numpy.size: the number of elements, or the length along `axis`."""
    if not isinstance(a, ndarray):
        return int(np.size(a, axis))
    if axis is None:
        return a.size
    if not -a.ndim <= axis < a.ndim:
        raise np.exceptions.AxisError(axis, a.ndim)
    return a.shape[axis]


def iscomplexobj(x: Any) -> bool:
    """numpy.iscomplexobj: the dtype is complex (not the values)."""
    if isinstance(x, ndarray):
        return x.dtype.kind == "c"
    return bool(np.iscomplexobj(x))


def isrealobj(x: Any) -> bool:
    """numpy.isrealobj: the dtype is not complex."""
    return not iscomplexobj(x)
