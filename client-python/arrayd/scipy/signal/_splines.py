"""scipy.signal.symiirorder1 on the server: the first-order symmetric IIR
filter c0 / ((1 - z1 z^-1)(1 - z1 z)) with mirror-symmetric boundaries,
a causal pass and an anti-causal pass of lfilter (so _linear_filter's
recurrence).

The causal pass starts from SciPy's mirror-symmetric condition
y[0] = x[0] + sum_{k=1..K} z1^k x[k-1], K the first power with
|z1|^K <= precision (default 1e-6 in single precision, 1e-11 in double,
as SciPy's), computed as one matmul of the first K samples; SciPy's
ValueError when the sum needs the whole signal. The anti-causal pass
starts from the steady state -c0 / (z1 - 1) y[-1].

Layer: a module of the arrayd.scipy.signal namespace (imports arrayd's
public namespace and the package's helpers).
"""
from __future__ import annotations

from typing import Any

import numpy as np

import arrayd as ad
from arrayd.scipy.signal import _arraytools as _at
from arrayd.scipy.signal import _signaltools as _st


def _terms(z1: Any, precision: float, single: bool, n: int) -> int:
    if precision <= 0 or precision > 1:
        precision = 1e-6 if single else 1e-11
    mag = abs(z1)
    k = 1
    power = mag
    while power > precision:
        k += 1
        power *= mag
        if k >= n:
            break
    if k >= n:
        raise ValueError("Sum to find symmetric boundary conditions did not "
                         "converge.")
    return k


def symiirorder1(signal: Any, c0: Any, z1: Any,
                 precision: float = -1.0) -> ad.ndarray:
    """scipy.signal.symiirorder1: the symmetric first-order IIR filter
    c0 / ((1 - z1/z)(1 - z1 z)) of a 1-D signal, or of each row of a 2-D
    one, with mirror-symmetric boundary conditions."""
    x = _at.asarray(signal)
    if x.dtype.kind not in "fc":
        x = x.astype(np.float64)
    z1 = z1.item() if isinstance(z1, ad.ndarray) else z1
    c0 = c0.item() if isinstance(c0, ad.ndarray) else c0
    if abs(z1) >= 1:
        raise ValueError("|z1| must be less than 1.0")
    if x.ndim > 2:
        raise ValueError("Input must be 1D or 2D")
    squeeze = x.ndim == 1
    rows = x[None, :] if squeeze else x
    dt = rows.dtype
    N = rows.shape[-1]
    single = dt in (np.float32, np.complex64)
    K = _terms(z1, precision, single, N)
    powers = np.power(np.asarray(z1, dtype=np.result_type(dt, type(z1))),
                      np.arange(1, K + 1))
    y0 = rows[:, 0] + ad.matmul(rows[:, :K], ad.asarray(powers.astype(
        np.result_type(dt, powers.dtype))))
    y0 = y0.astype(dt)
    den = np.array([1, -z1]).astype(dt)
    rest, _ = _st.lfilter(np.ones(1, dt), den, rows[:, 1:],
                          zi=(y0 * z1)[:, None])
    y1 = ad.concatenate((y0[:, None], rest.astype(dt)), axis=1)
    last = (y1[:, -1] * (-c0 / (z1 - 1.0))).astype(dt)
    back, _ = _st.lfilter(np.array([c0]).astype(dt), den, y1[:, -2::-1],
                          zi=(last * z1)[:, None])
    out = ad.concatenate((back[:, ::-1].astype(dt), last[:, None]), axis=1)
    out = ad.ascontiguousarray(out)
    return out[0] if squeeze else out
