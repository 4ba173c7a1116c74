"""scipy.signal.upfirdn on the server: upsample, FIR filter, downsample.

The rows are upsampled by writing them into every up-th place of zeros,
convolved directly with the taps (_linear_filter.convolve_rows: sliding
windows times the taps) and every down-th output is kept. This spends
up times the multiply-adds of a polyphase filter on the inserted zeros;
a polyphase form (up filters of len(h)/up taps) would save that.

Only mode='constant' with cval=0 is supported (SciPy's other extension
modes raise NotImplementedError, as in CuPy).

Layer: a module of the arrayd.scipy.signal namespace (imports arrayd's
public namespace and the package's helpers).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

import arrayd as ad
from arrayd.scipy.signal import _arraytools as _at
from arrayd.scipy.signal._linear_filter import convolve_rows

_MODES = ("constant", "wrap", "edge", "smooth", "symmetric", "reflect",
          "antisymmetric", "antireflect", "line")


def _output_len(len_h: int, in_len: int, up: int, down: int) -> int:
    """The number of outputs of upfirdn."""
    return ((in_len - 1) * up + len_h - 1) // down + 1


def upfirdn(h: Any, x: Any, up: int = 1, down: int = 1, axis: int = -1,
            mode: str = "constant", cval: Any = 0) -> ad.ndarray:
    """scipy.signal.upfirdn: x along axis upsampled by up (zeros between
    samples), filtered by the FIR taps h and downsampled by down."""
    hh = np.asarray(_at.host(h))
    if hh.ndim != 1 or hh.size == 0:
        raise ValueError("h must be 1-D with non-zero length")
    x = _at.asarray(x)
    up, down = operator.index(up), operator.index(down)
    if up < 1 or down < 1:
        raise ValueError("Both up and down must be >= 1")
    if mode not in _MODES:
        raise ValueError(f"Unknown mode: {mode}")
    if mode != "constant" or cval != 0:
        raise NotImplementedError(f"upfirdn mode={mode!r} is not "
                                  "implemented")
    if x.ndim == 0:
        raise ValueError("x must be at least 1-D")
    axis = _at.normalize_axis(axis, x.ndim)
    dt = _at.float_dtype(hh.dtype, x.dtype)
    rows, lead = _at.to_rows(x.astype(dt, copy=False), axis)
    batch, n_in = rows.shape
    if up > 1:
        z = ad.zeros((batch, n_in, up), dt)
        z[:, :, 0] = rows
        rows = z.reshape(batch, n_in * up)[:, :(n_in - 1) * up + 1]
    full = convolve_rows(rows, hh.astype(dt))
    out = full[:, ::down][:, :_output_len(hh.size, n_in, up, down)]
    return ad.ascontiguousarray(_at.from_rows(out, lead, axis))
