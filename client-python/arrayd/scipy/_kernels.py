"""The server's filter kernels under arrayd.scipy (server/ops/filters.cc):
``stencil`` (ndimage's correlations and rank filters over padding made
with the boundary mode), ``lfilter`` (signal's IIR recursion) and
``label_roots`` (ndimage.label's components). Each returns None where the
kernel does not apply (too many taps, an order over the kernel's), and
the caller then composes the result from other ops."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arrayd import _composite as _c
from arrayd._creation import asarray
from arrayd._decompositions import _new_many
from arrayd._ndarray import ndarray

MAX_STENCIL_TAPS = 256   # Stream::kMaxStencilTaps
MAX_LFILTER_ORDER = 128  # Stream::kMaxLinearFilterOrder
_FLOATING = frozenset("fdFD")


def stencil(p: ndarray, taps: Sequence[Sequence[int]], shape: Sequence[int],
            weights: Any = None, rank: int = -1) -> ndarray | None:
    """out (of ``shape``) with out[i] the weighted sum (``weights``, one per
    tap) or the ``rank``-th smallest of p[i + tap] over the taps
    (per-dimension offsets into the padded p)."""
    taps = [tuple(int(v) for v in t) for t in taps]
    if not 1 <= len(taps) <= MAX_STENCIL_TAPS or p.ndim == 0:
        return None
    ch = p.dtype.char
    if weights is None and (ch in "eFD" or p.dtype.kind == "c"):
        return None
    if weights is not None and ch not in _FLOATING:
        return None
    inputs: tuple[ndarray, ...] = (p,)
    if weights is not None:
        inputs = (p, asarray(np.asarray(weights).astype(p.dtype).reshape(-1)))
    attrs = {"taps": [v for t in taps for v in t], "shape": [int(n) for n in shape],
             "rank": int(rank)}
    return _c.new(p._session, "stencil", inputs, tuple(int(n) for n in shape),
                  p.dtype, attrs)


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


def label_roots(mask: ndarray, neighbors: Sequence[Sequence[int]]) -> ndarray | None:
    """For each nonzero element of mask, the C flat index of its
    component's first element (int64), -1 for zeros; neighbors: the
    structure's offsets before its center in C order."""
    flat = [int(v) for t in neighbors for v in t]
    if mask.ndim == 0 or mask.ndim > 8 or len(flat) > 256:
        return None
    return _c.new(mask._session, "label_roots", (mask,), mask.shape,
                  np.dtype(np.int64), {"neighbors": flat})
