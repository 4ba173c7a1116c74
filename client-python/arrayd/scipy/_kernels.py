"""The server's filter kernels under arrayd.scipy (server/ops/filters.cc):
``stencil`` (ndimage's correlations and rank filters, the boundary mode
applied in the kernel), ``lfilter`` (signal's IIR recursion),
``label`` (ndimage.label's components), ``spline_filter1d`` (the
spline prefilter), ``resample`` (zoom and
shift along an axis) and ``map_coordinates`` (the spline interpolation at
arbitrary points). Each returns None where the
kernel does not apply (too many taps, an order over the kernel's), and
the caller then composes the result from other ops."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from arrayd import _composite as _c
from arrayd._creation import asarray
from arrayd._decompositions import _new_many
from arrayd._ndarray import ndarray, upload

MAX_STENCIL_TAPS = 256   # Stream::kMaxStencilTaps
MAX_STENCIL_EXTENT = 256  # Stream::kMaxStencilExtent: a footprint's span an axis
MAX_LFILTER_ORDER = 128  # Stream::kMaxLinearFilterOrder
MAX_INTERP_DIMS = 8  # kernels/interp.h's InterpParams
_FLOATING = frozenset("fdFD")

# Host tables (tap indices and weights, prefilter matrices) already on the
# server: the last _TABLES_MAX, by (session, key) -> (session, host, array).
_TABLES: OrderedDict[tuple[int, Any], tuple[Any, np.ndarray, ndarray]] = OrderedDict()
_TABLES_MAX = 128
_SMALL_TABLE = 4096  # bytes: keyed by content below, by identity above


def table(session: Any, host: np.ndarray) -> ndarray:
    """host on the server, uploaded once a session: a small table is keyed
    by its bytes, a larger read-only one (kept alive by its maker's cache:
    its contents cannot change) by identity; any other is uploaded each
    time. The arrays are the ops' inputs only, never handed to users."""
    if host.nbytes <= _SMALL_TABLE:
        key: Any = (host.dtype.str, host.shape, host.tobytes())
    elif not host.flags.writeable:
        key = id(host)
    else:
        return upload(session, host)
    hit = _TABLES.get((id(session), key))
    if hit is not None and hit[0] is session and (host.nbytes <= _SMALL_TABLE
                                                  or hit[1] is host):
        _TABLES.move_to_end((id(session), key))
        return hit[2]
    dev = upload(session, host)
    _TABLES[(id(session), key)] = (session, host, dev)
    while len(_TABLES) > _TABLES_MAX:
        _TABLES.popitem(last=False)
    return dev


def stencil(x: ndarray, offsets: Sequence[Sequence[int]], pad_mode: str,
            cval: Any = 0.0, weights: Any = None, rank: int = -1) -> ndarray | None:
    """out (of x's shape) with out[i] the weighted sum (``weights``, one per
    tap) or the ``rank``-th smallest of x[i + offset] over the taps
    (per-dimension offsets, negative before i), x extended past its edges
    as numpy.pad's ``pad_mode`` extends it (cval for constant; SciPy's
    filter modes by ndimage._util.pad_mode)."""
    offsets = [tuple(int(v) for v in t) for t in offsets]
    if (not 1 <= len(offsets) <= MAX_STENCIL_TAPS or not 1 <= x.ndim <= 8
            or 0 in x.shape):
        return None
    for d in range(x.ndim):
        along = [t[d] for t in offsets]
        if max(0, -min(along)) + max(0, max(along)) >= MAX_STENCIL_EXTENT:
            return None
    ch = x.dtype.char
    if weights is None and (ch in "eFD" or x.dtype.kind == "c"):
        return None
    if weights is not None and ch not in _FLOATING:
        return None
    try:
        c = float(cval)
    except (TypeError, ValueError):
        return None
    inputs: tuple[ndarray, ...] = (x,)
    if weights is not None:
        inputs = (x, table(x._session, np.asarray(weights).astype(x.dtype).reshape(-1)))
    attrs = {"taps": [v for t in offsets for v in t], "shape": [int(n) for n in x.shape],
             "rank": int(rank), "mode": pad_mode, "cval": c}
    return _c.new(x._session, "stencil", inputs, x.shape, x.dtype, attrs)


def lfilter(b: Any, a: Any, x: ndarray,
            zi: ndarray | None = None) -> tuple[ndarray, ndarray] | None:
    """scipy.signal.lfilter's (y, zf) along the last axis of the 2-D x (of
    a floating dtype; b, a and zi cast to it), zi (rows, m) or None."""
    if x.ndim != 2 or x.dtype.char not in _FLOATING:
        return None
    bb = b if isinstance(b, ndarray) else asarray(np.asarray(b))
    aa = a if isinstance(a, ndarray) else asarray(np.asarray(a))
    m = max(bb.size, aa.size) - 1
    if bb.ndim != 1 or aa.ndim != 1 or m > MAX_LFILTER_ORDER:
        return None
    inputs = (bb, aa, x) if zi is None else (bb, aa, x, zi)
    y, zf = _new_many(x._session, "lfilter", inputs,
                      [(x.shape, x.dtype), ((x.shape[0], m), x.dtype)])
    return y, zf


def label(mask: ndarray, neighbors: Sequence[Sequence[int]]) -> tuple[ndarray, ndarray] | None:
    """mask's connected components numbered from 1 in C order (int32;
    int64 from 2^31 elements), 0 for zeros, and their number (a 0-d int64
    array); neighbors: the structure's offsets before its center in C
    order."""
    flat = [int(v) for t in neighbors for v in t]
    if mask.ndim == 0 or mask.ndim > 8 or len(flat) > 256:
        return None
    ltype = np.dtype(np.int32 if mask.size < 2**31 else np.int64)
    labels, count = _new_many(mask._session, "label", (mask,),
                              [(mask.shape, ltype), ((), np.dtype(np.int64))],
                              {"neighbors": flat})
    return labels, count


def resample(x: ndarray, index: np.ndarray, weights: np.ndarray,
             axis: int) -> ndarray | None:
    """x along axis at len(index) points of k taps each: out[..., i, ...] =
    sum over j of weights[i, j] * x[..., index[i, j], ...] (index, weights:
    (m, k) host arrays; indices are clipped to the axis)."""
    if x.ndim == 0 or x.dtype.char not in _FLOATING or x.shape[axis] == 0:
        return None
    index = np.ascontiguousarray(index, dtype=np.int64)
    weights = np.ascontiguousarray(weights, dtype=x.dtype)
    shape = list(x.shape)
    shape[axis] = index.shape[0]
    s = x._session
    return _c.new(s, "resample", (x, table(s, index), table(s, weights)),
                  tuple(shape), x.dtype, {"axis": int(axis)})


def spline_filter1d(x: ndarray, order: int, axis: int, pad_mode: str) -> ndarray | None:
    """scipy.ndimage's spline prefilter of order (2 to 5) along axis of the
    floating x, x extended past its ends as numpy.pad's pad_mode (reflect,
    symmetric or wrap) extends it."""
    if x.dtype.char not in _FLOATING or not 2 <= order <= 5:
        return None
    return _c.new(x._session, "spline_filter1d", (x,), x.shape, x.dtype,
                  {"axis": int(axis), "order": int(order), "mode": pad_mode})


def map_coordinates(coeffs: ndarray, coords: ndarray, order: int, mode: str,
                    cval: float, shift: float = 0.0) -> ndarray | None:
    """coeffs' spline interpolation of ``order`` at coords ((d, ...): a
    coordinate a point along each of coeffs' last d axes, shift added to
    each; coeffs' earlier axes are a batch), SciPy's ``mode`` folding each
    coordinate and extending coeffs past its edges (cval for the constant
    modes). The result: coeffs.shape[:-d] + coords.shape[1:], coeffs'
    dtype."""
    d = coords.shape[0] if coords.ndim else 0
    if (coeffs.dtype.char not in "fd" or not 1 <= d <= min(MAX_INTERP_DIMS, coeffs.ndim)
            or 0 in coeffs.shape[coeffs.ndim - d:]):
        return None
    if coords.dtype.char not in "fd":
        coords = coords.astype(np.float64)
    shape = tuple(coeffs.shape[:coeffs.ndim - d]) + tuple(coords.shape[1:])
    return _c.new(coeffs._session, "map_coordinates", (coeffs, coords), shape,
                  coeffs.dtype, {"order": int(order), "mode": str(mode),
                                 "cval": float(cval), "shift": float(shift)})
