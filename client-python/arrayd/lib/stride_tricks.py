"""arrayd.lib.stride_tricks: as_strided and sliding_window_view.

Views with any byte strides over an array's memory, made by the server's
``as_strided`` op, which refuses (as a deferred ValueError at the next
sync) a view that would reach outside the array's buffer, where NumPy's
would read stray memory.

Layer: namespaces (imports the core and _manipulation).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from arrayd._manipulation import broadcast_arrays, broadcast_shapes, broadcast_to
from arrayd._ndarray import asarray_in, ndarray, session_of

__all__ = ["as_strided", "broadcast_arrays", "broadcast_shapes",
           "broadcast_to", "sliding_window_view"]


def as_strided(x: Any, shape: Any = None, strides: Any = None,
               subok: bool = False, writeable: bool = True) -> ndarray:
    """numpy.lib.stride_tricks.as_strided: x's memory seen with ``shape``
    and byte ``strides`` (x's own where not given)."""
    x = asarray_in(session_of(x), x)
    shp = x.shape if shape is None else tuple(int(d) for d in shape)
    st = (x._full_strides() if strides is None
          else tuple(int(v) for v in strides))
    if len(st) != len(shp):
        raise ValueError("mismatch in length of strides and shape")
    return x._unary_view("as_strided", shp, {
        "shape": list(shp), "strides": list(st), "writeable": bool(writeable)},
        strides=st, readonly=not writeable)


def sliding_window_view(x: Any, window_shape: Any, axis: Any = None, *,
                        subok: bool = False,
                        writeable: bool = False) -> ndarray:
    """numpy.lib.stride_tricks.sliding_window_view: a read-only view of
    every window of ``window_shape`` (along ``axis``)."""
    x = asarray_in(session_of(x), x)
    window = (tuple(window_shape) if np.iterable(window_shape)
              else (window_shape,))
    # NumPy's checks and result shape, on a data-less dummy.
    probe = np.lib.stride_tricks.sliding_window_view(
        np.empty(x.shape, dtype=np.dtype((np.void, 0))), window, axis)
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = normalize_axis_tuple(axis, x.ndim, allow_duplicate=True)
    st = x._full_strides()
    strides = st + tuple(st[ax] for ax in axes)
    return x._unary_view("as_strided", probe.shape, {
        "shape": list(probe.shape), "strides": list(strides),
        "writeable": bool(writeable)}, strides=strides,
        readonly=not writeable)
