"""CuPy's private IIR helpers ``apply_iir`` and ``apply_iir_sos``
(cupyx.scipy.signal._iir_utils), on top of lfilter and sosfilt.

CuPy's helpers describe a filter's start by its past values, not by
SciPy's state: ``apply_iir(x, a, zi=...)`` filters y[n] = x[n] +
sum_k a[k] y[n-1-k] with zi the K outputs before x (oldest first), and
``apply_iir_sos`` takes per section [x[-2], x[-1], y[-2], y[-1]] along
the axis. They are converted here to SciPy's transposed direct form II
state (what lfiltic computes) by one small matmul on the server, and the
filtering itself is lfilter/sosfilt (so _linear_filter's recurrence).
The public lfilter and sosfilt keep SciPy's meaning of zi.

Layer: a helper of the arrayd.scipy.signal namespace (imports arrayd's
public namespace and the package's helpers).
"""
from __future__ import annotations

from typing import Any

import numpy as np

import arrayd as ad
from arrayd.scipy.signal import _arraytools as _at
from arrayd.scipy.signal import _signaltools as _st


def _past_to_state(past: ad.ndarray, M: np.ndarray, axis: int
                   ) -> ad.ndarray:
    """past values along axis (length M.shape[0]) times M: the state along
    axis (length M.shape[1])."""
    dt = np.result_type(past.dtype, M.dtype, np.float64)
    moved = ad.moveaxis(past.astype(dt, copy=False), axis, -1)
    out = ad.matmul(moved, ad.asarray(M.astype(dt)))
    return ad.moveaxis(out, -1, axis)


def _result_dtype(dtype: Any, *dts: Any) -> np.dtype:
    if dtype is not None:
        return np.dtype(dtype)
    return _at.float_dtype(*dts)


def apply_iir(x: Any, a: Any, axis: int = -1, zi: Any = None,
              dtype: Any = None, block_sz: int = 1024) -> ad.ndarray:
    """y[n] = x[n] + sum_k a[k] y[n-1-k] along axis (CuPy's form: a is the
    negated feedback without its leading 1); zi the K past outputs along
    axis, oldest first (zeros when None). block_sz is CuPy's kernel block
    size and is accepted for compatibility."""
    del block_sz
    x = _at.asarray(x)
    ah = np.atleast_1d(_at.host(a))
    if ah.ndim != 1:
        raise ValueError("a must be 1-D")
    axis = _at.normalize_axis(axis, x.ndim)
    K = ah.size
    den = np.concatenate(([1], -ah))
    dt = _result_dtype(dtype, x.dtype, ah.dtype)
    if K == 0:
        return x.astype(dt)
    state = None
    if zi is not None:
        zi = _at.asarray(zi)
        # z_i = sum_{p >= i} a[K - 1 - p + i] past[p] (lfiltic with b = 1).
        M = np.zeros((K, K), np.result_type(ah.dtype, np.float64))
        for i in range(K):
            for p in range(i, K):
                M[p, i] = ah[K - 1 - p + i]
        state = _past_to_state(zi, M, axis)
    one = np.ones(1, den.dtype)
    if state is None:
        y = _st.lfilter(one, den, x, axis=axis)
    else:
        y, _ = _st.lfilter(one, den, x, axis=axis, zi=state)
    return y.astype(dt, copy=False)


def apply_iir_sos(x: Any, sos: Any, axis: int = -1, zi: Any = None,
                  dtype: Any = None, block_sz: int = 1024) -> Any:
    """sosfilt along axis with CuPy's start values: zi of shape
    (n_sections, ..., 4, ...) holding each section's [x[-2], x[-1],
    y[-2], y[-1]]; with zi, (y, the same four values at the end)."""
    del block_sz
    x = _at.asarray(x)
    s = _st._validate_sos(sos)
    axis = _at.normalize_axis(axis, x.ndim)
    dt = _result_dtype(dtype, x.dtype, s.dtype)
    if zi is None:
        return _st.sosfilt(s, x, axis=axis).astype(dt, copy=False)
    zi = _at.asarray(zi)
    y = x
    finals = []
    for k in range(s.shape[0]):
        b, a = s[k, :3], s[k, 3:]
        # Rows: x[-2], x[-1], y[-2], y[-1]; columns: the two states.
        M = np.array([[b[2], 0], [b[1], b[2]], [-a[2], 0], [-a[1], -a[2]]])
        inp = y
        y, _ = _st.lfilter(b, a, inp, axis=axis,
                           zi=_past_to_state(zi[k], M, axis))
        px = ad.concatenate((_at.axis_slice(zi[k], 0, 2, axis=axis)
                             .astype(y.dtype), inp.astype(y.dtype)),
                            axis=axis)
        py = ad.concatenate((_at.axis_slice(zi[k], 2, 4, axis=axis)
                             .astype(y.dtype), y), axis=axis)
        finals.append(ad.concatenate(
            (_at.axis_slice(px, -2, None, axis=axis),
             _at.axis_slice(py, -2, None, axis=axis)), axis=axis))
    return y.astype(dt, copy=False), ad.stack(finals).astype(dt, copy=False)
