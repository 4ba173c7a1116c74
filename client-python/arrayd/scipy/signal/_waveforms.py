"""scipy.signal's waveforms on the server: sawtooth, square, chirp,
sweep_poly and gausspulse, elementwise arrayd ops on the time points.

The scalar parameters (frequencies, widths, the sweep polynomial's
coefficients) are host numbers; the time array is evaluated on the
server. A scalar t gives a 0-d array where SciPy gives a NumPy scalar;
gausspulse('cutoff') returns SciPy's Python float.

Layer: a module of the arrayd.scipy.signal namespace (imports arrayd's
public namespace and the package's helpers).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

import arrayd as ad
from arrayd.scipy.signal import _arraytools as _at


def _out_dtype(t: ad.ndarray) -> np.dtype:
    return t.dtype if t.dtype.char in "fFdD" else np.dtype(np.float64)


def _periodic(t: Any, width: Any, name: str) -> tuple:
    t = _at.asarray(t)
    w = _at.asarray(width)
    t, w = ad.broadcast_arrays(t, w)
    dt = _out_dtype(t)
    bad = (w > 1) | (w < 0)
    tmod = ad.mod(t, 2 * math.pi)
    return t, w, dt, bad, tmod


def sawtooth(t: Any, width: Any = 1) -> ad.ndarray:
    """scipy.signal.sawtooth: a sawtooth of period 2 pi rising from -1 to 1
    over width * 2 pi and falling back over the rest (nan where width is
    outside [0, 1])."""
    t, w, dt, bad, tmod = _periodic(t, width, "width")
    rising = tmod < w * (2 * math.pi)
    with np.errstate(divide="ignore", invalid="ignore"):
        up = tmod / (math.pi * w) - 1
        down = (math.pi * (w + 1) - tmod) / (math.pi * (1 - w))
    y = ad.where(rising, up, down)
    y = ad.where(bad, math.nan, y)
    return ad.ascontiguousarray(y.astype(dt))


def square(t: Any, duty: Any = 0.5) -> ad.ndarray:
    """scipy.signal.square: 1 over duty * 2 pi of each period 2 pi, -1 over
    the rest (nan where duty is outside [0, 1])."""
    t, w, dt, bad, tmod = _periodic(t, duty, "duty")
    y = ad.where(tmod < w * (2 * math.pi), 1.0, -1.0)
    y = ad.where(bad, math.nan, y)
    return ad.ascontiguousarray(y.astype(dt))


_METHODS = {"linear": "linear", "lin": "linear", "li": "linear",
            "quadratic": "quadratic", "quad": "quadratic", "q": "quadratic",
            "logarithmic": "logarithmic", "log": "logarithmic",
            "lo": "logarithmic", "hyperbolic": "hyperbolic",
            "hyp": "hyperbolic"}


def _chirp_phase(t: ad.ndarray, f0: float, t1: float, f1: float,
                 method: str, vertex_zero: bool) -> ad.ndarray:
    kind = _METHODS.get(method) if isinstance(method, str) else None
    if kind is None:
        raise ValueError("method must be 'linear', 'quadratic', "
                         "'logarithmic', or 'hyperbolic', but a value of "
                         f"{method!r} was given.")
    f0, t1, f1 = float(f0), float(t1), float(f1)
    two_pi = 2 * math.pi
    if kind == "linear":
        beta = (f1 - f0) / t1
        return two_pi * (f0 * t + 0.5 * beta * t * t)
    if kind == "quadratic":
        beta = (f1 - f0) / t1 ** 2
        if vertex_zero:
            return two_pi * (f0 * t + beta * t ** 3 / 3)
        return two_pi * (f1 * t + beta * ((t1 - t) ** 3 - t1 ** 3) / 3)
    if kind == "logarithmic":
        if f0 * f1 <= 0.0:
            raise ValueError("For a logarithmic chirp, f0 and f1 must be "
                             "nonzero and have the same sign.")
        if f0 == f1:
            return two_pi * f0 * t
        beta = t1 / math.log(f1 / f0)
        return two_pi * beta * f0 * ((f1 / f0) ** (t / t1) - 1.0)
    if f0 == 0 or f1 == 0:
        raise ValueError("For a hyperbolic chirp, f0 and f1 must be "
                         "nonzero.")
    if f0 == f1:
        return two_pi * f0 * t
    sing = -f1 * t1 / (f0 - f1)
    return two_pi * (-sing * f0) * ad.log(ad.abs(1 - t / sing))


def chirp(t: Any, f0: float, t1: float, f1: float, method: str = "linear",
          phi: float = 0, vertex_zero: bool = True, *,
          complex: bool = False) -> ad.ndarray:
    """scipy.signal.chirp: cos(phase(t) + phi) of a frequency sweep from f0
    (at t = 0) to f1 (at t1), phi in degrees; with complex=True,
    exp(1j (phase + phi))."""
    t = _at.asarray(t)
    phase = _chirp_phase(t, f0, t1, f1, method, vertex_zero)
    phase = phase + phi * (math.pi / 180)
    if complex:
        return ad.exp(1j * phase)
    return ad.cos(phase)


def sweep_poly(t: Any, poly: Any, phi: float = 0) -> ad.ndarray:
    """scipy.signal.sweep_poly: cos(2 pi int_0^t poly + phi) (phi in
    degrees), poly a poly1d or its coefficients, highest power first."""
    t = _at.asarray(t)
    coeffs = getattr(poly, "coeffs", poly)
    c = np.atleast_1d(_at.host(coeffs)).astype(np.float64)
    integral = np.polyint(np.poly1d(c)).coeffs
    phase = ad.polyval(ad.asarray(integral), t) * (2 * math.pi)
    return ad.cos(phase + phi * (math.pi / 180))


def gausspulse(t: Any, fc: float = 1000, bw: float = 0.5, bwr: float = -6,
               tpr: float = -60, retquad: bool = False,
               retenv: bool = False) -> Any:
    """scipy.signal.gausspulse: a Gaussian-modulated sinusoid of centre
    frequency fc and fractional bandwidth bw (at level bwr dB); t='cutoff'
    gives the time where the envelope falls to tpr dB (a float)."""
    if fc < 0:
        raise ValueError(f"Center frequency (fc={fc:.2f}) must be >=0.")
    if bw <= 0:
        raise ValueError(f"Fractional bandwidth (bw={bw:.2f}) must be > 0.")
    if bwr >= 0:
        raise ValueError(f"Reference level for bandwidth (bwr={bwr:.2f}) "
                         "must be < 0 dB")
    ref = pow(10.0, bwr / 20.0)
    a = -(math.pi * fc * bw) ** 2 / (4.0 * math.log(ref))
    if isinstance(t, str):
        if t != "cutoff":
            raise ValueError("If `t` is a string, it must be 'cutoff'")
        if tpr >= 0:
            raise ValueError("Reference level for time cutoff must be < 0 dB")
        tref = pow(10.0, tpr / 20.0)
        return math.sqrt(-math.log(tref) / a)
    t = _at.asarray(t)
    yenv = ad.exp(-a * t * t)
    yI = yenv * ad.cos(2 * math.pi * fc * t)
    yQ = yenv * ad.sin(2 * math.pi * fc * t)
    if not retquad and not retenv:
        return yI
    if not retquad:
        return yI, yenv
    if not retenv:
        return yI, yQ
    return yI, yQ, yenv
