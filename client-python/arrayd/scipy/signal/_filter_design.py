"""scipy.signal's filter design and frequency responses.

Design (butter, cheby1, firwin, zpk2sos, ...) runs in SciPy on the host:
its inputs and outputs are a few coefficients. The array results are
arrayd arrays, as CuPy returns cupy arrays. freqz and sosfreqz evaluate
the response on the server: the polynomials at the points exp(-i w k) by
one matmul (or by FFT for a whole grid of worN points, as SciPy does).

Layer: a module of the arrayd.scipy.signal namespace (imports arrayd's
public namespace and the package's helpers).
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np
import scipy.signal as _ss

import arrayd as ad
from arrayd.scipy.signal import _arraytools as _at

_DESIGN = {
    "butter": "Butterworth digital or analog filter design",
    "cheby1": "Chebyshev type I filter design",
    "cheby2": "Chebyshev type II filter design",
    "ellip": "Elliptic (Cauer) filter design",
    "bessel": "Bessel/Thomson filter design",
    "iirfilter": "IIR filter design from an order and critical frequencies",
    "iirdesign": "IIR filter design from pass and stop band specifications",
    "buttord": "Butterworth filter order selection",
    "cheb1ord": "Chebyshev type I filter order selection",
    "cheb2ord": "Chebyshev type II filter order selection",
    "ellipord": "Elliptic filter order selection",
    "iirnotch": "second-order IIR notch filter design",
    "iirpeak": "second-order IIR peak filter design",
    "iircomb": "IIR comb (notching or peaking) filter design",
    "gammatone": "gammatone filter design",
    "firwin": "FIR filter design by the window method",
    "firwin2": "FIR filter design from a frequency response by the window "
               "method",
    "firls": "least-squares FIR filter design",
    "remez": "minimax (Parks-McClellan) FIR filter design",
    "kaiserord": "Kaiser window FIR design parameters",
    "kaiser_beta": "the Kaiser window's beta for an attenuation",
    "kaiser_atten": "the attenuation of a Kaiser FIR filter",
    "minimum_phase": "a minimum-phase FIR filter from a linear-phase one",
    "buttap": "the analog Butterworth prototype's zeros, poles, gain",
    "cheb1ap": "the analog Chebyshev type I prototype",
    "cheb2ap": "the analog Chebyshev type II prototype",
    "ellipap": "the analog elliptic prototype",
    "besselap": "the analog Bessel prototype",
    "tf2zpk": "transfer function to zeros, poles, gain",
    "zpk2tf": "zeros, poles, gain to transfer function",
    "tf2sos": "transfer function to second-order sections",
    "sos2tf": "second-order sections to transfer function",
    "zpk2sos": "zeros, poles, gain to second-order sections",
    "sos2zpk": "second-order sections to zeros, poles, gain",
    "tf2ss": "transfer function to state space",
    "ss2tf": "state space to transfer function",
    "zpk2ss": "zeros, poles, gain to state space",
    "ss2zpk": "state space to zeros, poles, gain",
    "normalize": "the transfer function normalized (a[0] == 1)",
    "bilinear": "bilinear transform of a transfer function",
    "bilinear_zpk": "bilinear transform of zeros, poles, gain",
    "lp2lp": "low-pass prototype to low-pass",
    "lp2hp": "low-pass prototype to high-pass",
    "lp2bp": "low-pass prototype to band-pass",
    "lp2bs": "low-pass prototype to band-stop",
    "lp2lp_zpk": "low-pass prototype to low-pass (zpk)",
    "lp2hp_zpk": "low-pass prototype to high-pass (zpk)",
    "lp2bp_zpk": "low-pass prototype to band-pass (zpk)",
    "lp2bs_zpk": "low-pass prototype to band-stop (zpk)",
    "group_delay": "the group delay of a digital filter",
    "freqs": "the frequency response of an analog filter",
    "freqs_zpk": "the frequency response of an analog filter (zpk)",
    "freqz_zpk": "the frequency response of a digital filter (zpk)",
    "findfreqs": "frequencies at which to evaluate an analog response",
    "unique_roots": "unique roots and their multiplicities",
    "residue": "partial fractions of b(s)/a(s)",
    "residuez": "partial fractions of b(z)/a(z)",
    "invres": "b(s)/a(s) from partial fractions",
    "invresz": "b(z)/a(z) from partial fractions",
    "savgol_coeffs": "the Savitzky-Golay filter's coefficients",

    "max_len_seq": "a maximum length sequence and the final state",
    "check_COLA": "whether a window and overlap satisfy the constant "
                  "overlap-add constraint",
    "check_NOLA": "whether a window and overlap satisfy the nonzero "
                  "overlap-add constraint",
}

# The warning class filter design emits for badly conditioned
# coefficients (SciPy's own, so filters catch either).
BadCoefficients = _ss.BadCoefficients

# scipy.signal's functions of the names above, run on the host.
HOST = {name: _at.on_host(getattr(_ss, name),
                          f"scipy.signal.{name}: {text} (on the host; array "
                          "results are arrayd arrays).")
        for name, text in _DESIGN.items() if hasattr(_ss, name)}


def _is_int(v: Any) -> bool:
    """Whether worN is a number of points (an integer, or a 0-d integer
    array) rather than frequencies."""
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    dt = getattr(v, "dtype", None)
    return (dt is not None and np.ndim(v) == 0
            and np.dtype(dt).kind in "iu")


def _points(worN: Any, whole: bool, fs: float, include_nyquist: bool,
            dtype: Any = None) -> tuple[ad.ndarray, bool]:
    """(w in radians/sample, whether w is SciPy's regular grid)."""
    if worN is None:
        worN = 512
    if _is_int(worN):
        N = operator.index(worN.item() if hasattr(worN, "item") else worN)
        if N < 0:
            raise ValueError(f"worN must be nonnegative, got {N}")
        lastpoint = 2 * math.pi if whole else math.pi
        if include_nyquist and not whole:
            w = ad.linspace(0, lastpoint, N, endpoint=True)
        else:
            w = ad.linspace(0, lastpoint, N, endpoint=False)
        return w, True
    # Frequencies as given, at least 1-D, in the coefficients' dtype (a
    # Python complex counts by its real part), as SciPy's.
    if isinstance(worN, complex):
        worN = worN.real
    w = ad.atleast_1d(_at.asarray(worN))
    dt = np.dtype(np.float64) if dtype is None else np.dtype(dtype)
    if dt.kind in "iub":
        dt = np.dtype(np.float64)
    w = w.astype(dt)
    return w * (2 * math.pi / fs), False


def _poly_at(c: np.ndarray, w: ad.ndarray) -> ad.ndarray:
    """sum_k c[k] exp(-i w k) for each w (one matmul)."""
    k = ad.arange(len(c), dtype=np.float64)
    e = ad.exp(-1j * ad.multiply.outer(w.reshape(-1), k))
    out = ad.matmul(e, ad.asarray(c.astype(np.complex128)))
    return out.reshape(w.shape)


def _horner(c: np.ndarray, z: ad.ndarray) -> ad.ndarray:
    """sum_k c[k] z^k, c[k] (host) broadcast against z."""
    h = ad.asarray(c[-1].astype(np.complex128)) + ad.zeros(z.shape,
                                                            np.complex128)
    for k in range(len(c) - 2, -1, -1):
        h = h * z + ad.asarray(c[k].astype(np.complex128))
    return ad.ascontiguousarray(h)


def freqz(b: Any, a: Any = 1, worN: Any = 512, whole: bool = False,
          plot: Any = None, fs: float = 2 * math.pi,
          include_nyquist: bool = False) -> tuple[ad.ndarray, ad.ndarray]:
    """scipy.signal.freqz: (w, h) the frequency response b(e^iw)/a(e^iw)
    of a digital filter, evaluated on the server."""
    bh = np.atleast_1d(_at.host(b))
    ah = np.atleast_1d(_at.host(a))
    if ah.dtype.kind in "iub":
        ah = ah.astype(np.float64)
    w, _ = _points(worN, whole, fs, include_nyquist,
                   np.result_type(bh.dtype, ah.dtype))
    if bh.ndim != 1 or ah.ndim != 1:
        # Coefficients along the first axis, the rest broadcast against
        # w's shape (numpy's polyval with tensor=False).
        zm1 = ad.exp(-1j * w)
        h = _horner(bh, zm1) / _horner(ah, zm1)
    else:
        h = _poly_at(bh, w)
        if not (ah.size == 1 and ah[0] == 1):
            h = h / _poly_at(ah, w)
    w = w * (fs / (2 * math.pi))
    if plot is not None:
        plot(_at.host(w), _at.host(h))
    return w, h


def sosfreqz(sos: Any, worN: Any = 512, whole: bool = False,
             fs: float = 2 * math.pi) -> tuple[ad.ndarray, ad.ndarray]:
    """scipy.signal.sosfreqz: the frequency response of second-order
    sections (the product of the sections' responses)."""
    s = np.atleast_2d(_at.host(sos))
    if s.ndim != 2 or s.shape[1] != 6:
        raise ValueError("sos array must be shape (n_sections, 6)")
    if s.shape[0] == 0:
        raise ValueError("Cannot compute frequencies with no sections")
    h = None
    w = None
    for row in s:
        w, hs = freqz(row[:3], row[3:], worN=worN, whole=whole, fs=fs)
        h = hs if h is None else h * hs
    return w, h


def freqz_sos(sos: Any, worN: Any = 512, whole: bool = False,
              fs: float = 2 * math.pi) -> tuple[ad.ndarray, ad.ndarray]:
    """scipy.signal.freqz_sos: sosfreqz."""
    return sosfreqz(sos, worN, whole, fs)
