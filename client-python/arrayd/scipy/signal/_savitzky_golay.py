"""scipy.signal.savgol_filter on the server.

The coefficients (savgol_coeffs) come from a small least-squares problem
on the host. The filter is a correlation of the extended signal with
them (mode 'mirror', 'nearest', 'wrap', 'constant' extend it by pad) or,
for mode 'interp', the same correlation in the interior and, at each end,
the polynomial fitted to the first (last) window_length samples: one
window_length x window_length matrix (the fit's projection, evaluated at
the end positions, differentiated deriv times) times those samples.

Layer: a module of the arrayd.scipy.signal namespace (imports arrayd's
public namespace and the package's helpers).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.signal as _ss

import arrayd as ad
from arrayd.scipy.signal import _arraytools as _at
from arrayd.scipy.signal._linear_filter import convolve_rows

_PAD = {"mirror": "reflect", "nearest": "edge", "wrap": "wrap",
        "constant": "constant"}


def _edge_matrix(window_length: int, polyorder: int, deriv: int,
                 delta: float) -> np.ndarray:
    """E with (E @ x[:window_length]) the fitted polynomial's deriv-th
    derivative at positions 0 .. window_length-1."""
    t = np.arange(window_length, dtype=np.float64)
    V = np.vander(t, polyorder + 1, increasing=True)
    pinv = np.linalg.pinv(V)  # coefficients of the fit
    D = np.zeros_like(V)
    for j in range(deriv, polyorder + 1):
        D[:, j] = math.perm(j, deriv) * t ** (j - deriv)
    return (D @ pinv) / delta ** deriv


def savgol_filter(x: Any, window_length: int, polyorder: int,
                  deriv: int = 0, delta: float = 1.0, axis: int = -1,
                  mode: str = "interp", cval: float = 0.0) -> ad.ndarray:
    """scipy.signal.savgol_filter: the Savitzky-Golay smoothing (or
    deriv-th derivative) of x along axis."""
    if mode not in ("mirror", "constant", "nearest", "interp", "wrap"):
        raise ValueError("mode must be 'mirror', 'constant', 'nearest' "
                         "'wrap' or 'interp'.")
    x = _at.asarray(x)
    if x.dtype not in (np.float64, np.float32):
        x = x.astype(np.float64)
    axis = _at.normalize_axis(axis, x.ndim)
    coeffs = _ss.savgol_coeffs(window_length, polyorder, deriv=deriv,
                               delta=delta)
    n = x.shape[axis]
    if mode == "interp" and window_length > n:
        raise ValueError("If mode is 'interp', window_length must be less "
                         "than or equal to the size of x.")
    rows, lead = _at.to_rows(x.astype(np.float64), axis)
    half = window_length // 2
    if mode == "interp":
        ext = rows
    elif mode == "constant":
        ext = ad.pad(rows, ((0, 0), (half, half)), mode="constant",
                     constant_values=cval)
    else:
        ext = ad.pad(rows, ((0, 0), (half, half)), mode=_PAD[mode])
    # coeffs are convolution coefficients: the valid part of the full
    # convolution.
    full = convolve_rows(ext, coeffs)
    L = window_length
    y = full[:, L - 1:full.shape[1] - L + 1]
    if mode == "interp":
        E = _edge_matrix(L, polyorder, deriv, delta)
        left = ad.matmul(rows[:, :L], ad.asarray(E[:half].T.copy()))
        right = ad.matmul(rows[:, n - L:],
                          ad.asarray(E[L - half:].T.copy()))
        y = ad.concatenate((left, y, right), axis=1)
    out = ad.ascontiguousarray(_at.from_rows(y, lead, axis))
    return out.astype(x.dtype, copy=False)


def _polyder(p: Any, m: int) -> ad.ndarray:
    """The m-th derivative of the polynomials p (coefficients highest
    power first; 2-D p holds one polynomial a column): host arithmetic
    on a few coefficients, as savgol_coeffs's."""
    p = np.asarray(_at.host(p))
    if m == 0:
        return ad.asarray(p)
    n = len(p)
    if n <= m:
        return ad.asarray(np.zeros_like(p[:1, ...]))
    dp = p[:-m].copy()
    for k in range(m):
        rng = np.arange(n - k - 1, m - k - 1, -1)
        dp *= rng.reshape((n - m,) + (1,) * (p.ndim - 1))
    return ad.asarray(dp)
