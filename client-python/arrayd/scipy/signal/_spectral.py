"""scipy.signal's spectral analysis on the server: periodogram, welch,
csd, coherence, spectrogram, stft and istft.

Segments are strided views of the (extended, padded) signal
(sliding_window_view with a step), detrended, windowed and transformed
by arrayd.fft in one batch; istft overlap-adds with as many shifted adds
as a segment spans hops. Windows are designed on the host (get_window).

Layer: a module of the arrayd.scipy.signal namespace (imports arrayd's
public namespace and the package's helpers).
"""
from __future__ import annotations

import math
import operator
import warnings
from typing import Any

import numpy as np
import scipy.signal as _ss

import arrayd as ad
from arrayd.lib.stride_tricks import sliding_window_view
from arrayd.scipy.signal import _arraytools as _at
from arrayd.scipy.signal import _signaltools as _st

_HANN = "hann_periodic"


def _window(window: Any, nperseg: Any, n: int) -> tuple[ad.ndarray, int]:
    """(window, nperseg) from a window spec or array, as SciPy's."""
    if isinstance(window, (str, tuple)):
        if nperseg is None:
            nperseg = 256
        if nperseg > n:
            warnings.warn(f"nperseg = {nperseg:d} is greater than input "
                          f"length  = {n:d}, using nperseg = {n:d}",
                          stacklevel=3)
            nperseg = n
        win = _ss.get_window(window, nperseg)
    else:
        win = _at.host(window)
        if win.ndim != 1:
            raise ValueError("window must be 1-D")
        if n < win.shape[-1]:
            raise ValueError("window is longer than input signal")
        if nperseg is None:
            nperseg = win.shape[0]
        elif nperseg != win.shape[0]:
            raise ValueError("value specified for nperseg is different from "
                             "length of window")
    return win, nperseg


def _detrender(detrend: Any) -> Any:
    if not detrend:
        return lambda d: d
    if isinstance(detrend, str):
        return lambda d: _st.detrend(d, type=detrend, axis=-1)
    return detrend


def _segments(x: ad.ndarray, nperseg: int, step: int) -> ad.ndarray:
    """(..., nseg, nperseg) strided segments of the last axis."""
    return sliding_window_view(x, nperseg, axis=-1)[..., ::step, :]


def _helper(x: Any, y: Any, fs: float, window: Any, nperseg: Any,
            noverlap: Any, nfft: Any, detrend: Any, return_onesided: bool,
            scaling: str, axis: int, mode: str, boundary: Any = None,
            padded: bool = False) -> tuple[ad.ndarray, ad.ndarray,
                                           ad.ndarray]:
    """(freqs, times, spectra) of the segments of x (and y): SciPy's
    spectral helper. mode 'psd' gives conj(X) Y, 'stft' X."""
    if mode not in ("psd", "stft"):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: "
                         "{'psd', 'stft'}")
    boundaries = {"even": _at.even_ext, "odd": _at.odd_ext,
                  "constant": _at.const_ext, "zeros": _at.zero_ext,
                  None: None}
    if boundary not in boundaries:
        raise ValueError(f"Unknown boundary option '{boundary}', must be "
                         f"one of: {list(boundaries)}")
    same = y is x
    if not same and mode != "psd":
        raise ValueError("x and y must be equal if mode is 'stft'")
    x = _at.asarray(x)
    y = x if same else _at.asarray(y)
    raw_axis = operator.index(axis)
    axis = _at.normalize_axis(axis, max(x.ndim, 1)) if x.ndim else 0
    outdtype = np.result_type(x.dtype, y.dtype, np.complex64)
    if not same:
        # SciPy pops the axis as given (negative counts from each end).
        xs, ys = list(x.shape), list(y.shape)
        try:
            xs.pop(raw_axis)
            ys.pop(raw_axis)
        except IndexError as e:
            raise ValueError("x and y cannot be broadcast together.") from e
        try:
            outer = np.broadcast_shapes(tuple(xs), tuple(ys))
        except ValueError as e:
            raise ValueError("x and y cannot be broadcast together.") from e
    # Empty input: SciPy's empty float64 results (the input's shape; for
    # two inputs, the broadcast outer shape with the shorter length).
    if same and x.size == 0:
        empty = ad.empty(x.shape, np.float64)
        return empty, empty, empty
    if not same and (x.size == 0 or y.size == 0):
        n = min(x.shape[raw_axis], y.shape[raw_axis])
        empty = ad.moveaxis(ad.empty(tuple(outer) + (n,), np.float64), -1,
                            raw_axis)
        return empty, empty, empty
    if x.ndim > 1 and axis != x.ndim - 1:
        x = ad.moveaxis(x, axis, -1)
        if not same and y.ndim > 1:
            y = ad.moveaxis(y, axis, -1)
    if not same and x.shape[-1] != y.shape[-1]:
        if x.shape[-1] < y.shape[-1]:
            x = ad.pad(x, [(0, 0)] * (x.ndim - 1)
                       + [(0, y.shape[-1] - x.shape[-1])])
        else:
            y = ad.pad(y, [(0, 0)] * (y.ndim - 1)
                       + [(0, x.shape[-1] - y.shape[-1])])
    if nperseg is not None:
        nperseg = operator.index(nperseg)
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg = _window(window, nperseg, x.shape[-1])
    if nfft is None:
        nfft = nperseg
    elif nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    nfft = operator.index(nfft)
    noverlap = nperseg // 2 if noverlap is None else operator.index(noverlap)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    if boundary is not None:
        ext = boundaries[boundary]
        x = ext(x, nperseg // 2, axis=-1)
        if not same:
            y = ext(y, nperseg // 2, axis=-1)
    if padded:
        nadd = (-(x.shape[-1] - nperseg) % step) % nperseg
        x = ad.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, nadd)])
        if not same:
            y = ad.pad(y, [(0, 0)] * (y.ndim - 1) + [(0, nadd)])
    if np.result_type(win, np.complex64) != outdtype:
        win = win.astype(outdtype)
    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling!r}")
    if mode == "stft":
        scale = np.sqrt(scale)
    if return_onesided:
        if x.dtype.kind == "c" or y.dtype.kind == "c":
            sides = "twosided"
            warnings.warn("Input data is complex, switching to "
                          "return_onesided=False", stacklevel=3)
        else:
            sides = "onesided"
    else:
        sides = "twosided"
    freqs = (ad.fft.rfftfreq(nfft, 1 / fs) if sides == "onesided"
             else ad.fft.fftfreq(nfft, 1 / fs))
    detrend_func = _detrender(detrend)
    win_d = ad.asarray(win)

    def spectrum(d: ad.ndarray) -> ad.ndarray:
        seg = detrend_func(_segments(d, nperseg, step))
        seg = win_d * seg
        if sides == "twosided":
            return ad.fft.fft(seg, n=nfft)
        return ad.fft.rfft(seg.real if seg.dtype.kind == "c" else seg,
                           n=nfft)

    res = spectrum(x)
    if not same:
        res = ad.conj(res) * spectrum(y)
    elif mode == "psd":
        res = ad.conj(res) * res
    res = res * scale.item() if hasattr(scale, "item") else res * scale
    if sides == "onesided" and mode == "psd":
        hi = -1 if nfft % 2 == 0 else None
        res[..., 1:hi] *= 2
    nx = x.shape[-1]
    time = ad.arange(nperseg / 2, nx - nperseg / 2 + 1, step) / float(fs)
    if boundary is not None:
        time = time - (nperseg / 2) / fs
    res = res.astype(outdtype)
    if same and mode != "stft":
        res = res.real
    # The frequency axis goes back to the input's axis; the segment (time)
    # axis stays last.
    res = ad.moveaxis(res, -1, axis)
    return freqs, time, res


def _median_bias(n: int) -> float:
    ii = 2 * np.arange(1.0, (n - 1) // 2 + 1)
    return 1 + np.sum(1.0 / (ii + 1) - 1.0 / ii)


def csd(x: Any, y: Any, fs: float = 1.0, window: Any = _HANN,
        nperseg: Any = None, noverlap: Any = None, nfft: Any = None,
        detrend: Any = "constant", return_onesided: bool = True,
        scaling: str = "density", axis: int = -1,
        average: str = "mean") -> tuple[ad.ndarray, ad.ndarray]:
    """scipy.signal.csd: the cross power spectral density by Welch's
    method (segments averaged by mean or median)."""
    freqs, _, Pxy = _helper(x, y, fs, window, nperseg, noverlap, nfft,
                            detrend, return_onesided, scaling, axis, "psd")
    if Pxy.ndim >= 2 and Pxy.size > 0:
        if Pxy.shape[-1] > 1:
            if average == "median":
                bias = _median_bias(Pxy.shape[-1])
                if Pxy.dtype.kind == "c":
                    Pxy = ad.median(Pxy.real, axis=-1) + \
                        1j * ad.median(Pxy.imag, axis=-1)
                else:
                    Pxy = ad.median(Pxy, axis=-1)
                Pxy = Pxy / bias
            elif average == "mean":
                Pxy = Pxy.mean(axis=-1)
            else:
                raise ValueError('average must be "median" or "mean", got '
                                 f"{average}")
        else:
            Pxy = Pxy.reshape(Pxy.shape[:-1])
    return freqs, Pxy


def welch(x: Any, fs: float = 1.0, window: Any = _HANN, nperseg: Any = None,
          noverlap: Any = None, nfft: Any = None, detrend: Any = "constant",
          return_onesided: bool = True, scaling: str = "density",
          axis: int = -1, average: str = "mean"
          ) -> tuple[ad.ndarray, ad.ndarray]:
    """scipy.signal.welch: the power spectral density by Welch's method."""
    freqs, Pxx = csd(x, x, fs, window, nperseg, noverlap, nfft, detrend,
                     return_onesided, scaling, axis, average)
    return freqs, Pxx.real


def periodogram(x: Any, fs: float = 1.0, window: Any = "boxcar",
                nfft: Any = None, detrend: Any = "constant",
                return_onesided: bool = True, scaling: str = "density",
                axis: int = -1) -> tuple[ad.ndarray, ad.ndarray]:
    """scipy.signal.periodogram: the power spectral density of the whole
    signal (one segment)."""
    x = _at.asarray(x)
    if x.size == 0:
        return ad.empty(x.shape), ad.empty(x.shape)
    if window is None:
        window = "boxcar"
    n = x.shape[axis]
    if nfft is None:
        nperseg = n
    elif nfft == n:
        nperseg = nfft
    elif nfft > n:
        nperseg = n
    else:
        x = _at.axis_slice(x, 0, nfft, axis=axis)
        nperseg = nfft
        nfft = None
    return welch(x, fs, window, nperseg, 0, nfft, detrend, return_onesided,
                 scaling, axis)


def coherence(x: Any, y: Any, fs: float = 1.0, window: Any = _HANN,
              nperseg: Any = None, noverlap: Any = None, nfft: Any = None,
              detrend: Any = "constant", axis: int = -1
              ) -> tuple[ad.ndarray, ad.ndarray]:
    """scipy.signal.coherence: |Pxy|^2 / (Pxx Pyy) by Welch's method."""
    freqs, Pxx = welch(x, fs, window, nperseg, noverlap, nfft, detrend,
                       axis=axis)
    _, Pyy = welch(y, fs, window, nperseg, noverlap, nfft, detrend,
                   axis=axis)
    _, Pxy = csd(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                 axis=axis)
    return freqs, ad.abs(Pxy) ** 2 / Pxx / Pyy


def spectrogram(x: Any, fs: float = 1.0, window: Any = ("tukey_periodic",
                                                        0.25),
                nperseg: Any = None, noverlap: Any = None, nfft: Any = None,
                detrend: Any = "constant", return_onesided: bool = True,
                scaling: str = "density", axis: int = -1, mode: str = "psd"
                ) -> tuple[ad.ndarray, ad.ndarray, ad.ndarray]:
    """scipy.signal.spectrogram: spectra of consecutive segments (mode
    'psd', 'complex', 'magnitude', 'angle' or 'phase')."""
    modes = ("psd", "complex", "magnitude", "angle", "phase")
    if mode not in modes:
        raise ValueError(f"unknown value for mode {mode}, must be one of "
                         f"{modes}")
    x = _at.asarray(x)
    win, nperseg = _window(window, nperseg, x.shape[axis])
    if noverlap is None:
        noverlap = nperseg // 8
    if mode == "psd":
        return _helper(x, x, fs, win, nperseg, noverlap, nfft, detrend,
                       return_onesided, scaling, axis, "psd")
    f, t, Sxx = _helper(x, x, fs, win, nperseg, noverlap, nfft, detrend,
                        return_onesided, scaling, axis, "stft")
    if mode == "magnitude":
        Sxx = ad.abs(Sxx)
    elif mode in ("angle", "phase"):
        Sxx = ad.angle(Sxx)
        if mode == "phase":
            Sxx = ad.unwrap(Sxx, axis=-2 if axis in (-1, x.ndim - 1)
                            else axis)
    return f, t, Sxx


def stft(x: Any, fs: float = 1.0, window: Any = _HANN, nperseg: int = 256,
         noverlap: Any = None, nfft: Any = None, detrend: Any = False,
         return_onesided: bool = True, boundary: Any = "zeros",
         padded: bool = True, axis: int = -1, scaling: str = "spectrum"
         ) -> tuple[ad.ndarray, ad.ndarray, ad.ndarray]:
    """scipy.signal.stft: the short-time Fourier transform (scaling
    'spectrum' or 'psd')."""
    if scaling == "psd":
        scaling = "density"
    elif scaling != "spectrum":
        raise ValueError(f"Parameter {scaling=} not in ['spectrum', 'psd']!")
    return _helper(x, x, fs, window, nperseg, noverlap, nfft, detrend,
                   return_onesided, scaling, axis, "stft", boundary, padded)


def istft(Zxx: Any, fs: float = 1.0, window: Any = _HANN,
          nperseg: Any = None, noverlap: Any = None, nfft: Any = None,
          input_onesided: bool = True, boundary: bool = True,
          time_axis: int = -1, freq_axis: int = -2,
          scaling: str = "spectrum") -> tuple[ad.ndarray, ad.ndarray]:
    """scipy.signal.istft: the inverse short-time Fourier transform by
    windowed overlap-add."""
    Z = _at.asarray(Zxx)
    if Z.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis = _at.normalize_axis(freq_axis, Z.ndim)
    time_axis = _at.normalize_axis(time_axis, Z.ndim)
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    nseg = Z.shape[time_axis]
    if input_onesided:
        n_default = 2 * (Z.shape[freq_axis] - 1)
    else:
        n_default = Z.shape[freq_axis]
    if nperseg is None:
        nperseg = n_default
    else:
        nperseg = operator.index(nperseg)
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        if input_onesided and nperseg == n_default + 1:
            nfft = nperseg
        else:
            nfft = n_default
    elif nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    nfft = operator.index(nfft)
    noverlap = nperseg // 2 if noverlap is None else operator.index(noverlap)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    # (..., nseg, nfreq)
    Z = ad.moveaxis(Z, (freq_axis, time_axis), (-1, -2))
    if input_onesided:
        segs = ad.fft.irfft(Z, n=nfft, axis=-1)
    else:
        segs = ad.fft.ifft(Z, n=nfft, axis=-1)
    segs = segs[..., :nperseg]
    if isinstance(window, (str, tuple)):
        win = _ss.get_window(window, nperseg)
    else:
        win = _at.host(window)
        if win.ndim != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg:
            raise ValueError(f"window must have length of {nperseg}")
    if scaling == "spectrum":
        scale = win.sum()
    elif scaling == "psd":
        scale = np.sqrt(fs * (win * win).sum())
    else:
        raise ValueError(f"Parameter {scaling=} not in ['spectrum', 'psd']!")
    segs = segs * ad.asarray(win.astype(segs.real.dtype if
                                        segs.dtype.kind == "c"
                                        else segs.dtype)) * float(scale)
    outlen = nperseg + (nseg - 1) * step
    q = -(-nperseg // step)
    lead = segs.shape[:-2]
    chunks = ad.pad(segs, [(0, 0)] * len(lead) + [(0, 0),
                                                  (0, q * step - nperseg)])
    chunks = chunks.reshape(lead + (nseg, q, step))
    x = ad.zeros(lead + (nseg + q - 1, step), segs.dtype)
    wsq = np.zeros((nseg + q - 1, step))
    w2 = np.zeros(q * step)
    w2[:nperseg] = np.abs(win) ** 2
    w2 = w2.reshape(q, step)
    for c in range(q):
        x[..., c:c + nseg, :] += chunks[..., :, c, :]
        wsq[c:c + nseg] += w2[c]
    wsq = wsq.reshape(-1)
    x = x.reshape(lead + ((nseg + q - 1) * step,))[..., :outlen]
    norm = wsq[:outlen]
    if boundary:
        x = x[..., nperseg // 2:-(nperseg // 2)]
        norm = norm[nperseg // 2:-(nperseg // 2)]
    ok = norm > 1e-10
    norm = np.where(ok, norm, 1.0)
    x = x / ad.asarray(norm.astype(x.real.dtype if x.dtype.kind == "c"
                                   else x.dtype))
    if input_onesided:
        x = x.real
    if x.ndim > 1 and time_axis != Z.ndim - 1:
        if freq_axis < time_axis:
            time_axis -= 1
        x = ad.moveaxis(x, -1, time_axis)
    time = ad.arange(x.shape[0] if x.ndim == 1 else x.shape[time_axis]) \
        / float(fs)
    return time, ad.ascontiguousarray(x)


def vectorstrength(events: Any, period: Any) -> tuple[Any, Any]:
    """scipy.signal.vectorstrength: (strength, phase) of the mean unit
    vector exp(2 pi i t / period) over the event times t, for one period
    or each of a 1-D array of them (one matmul on the server)."""
    ev = _at.asarray(events)
    per = _at.asarray(period)
    if ev.ndim > 1:
        raise ValueError("events cannot have dimensions more than 1")
    if per.ndim > 1:
        raise ValueError("period cannot have dimensions more than 1")
    scalar = per.ndim == 0
    ev2 = ev.reshape(1, -1)
    per2 = per.reshape(1, -1)
    if bool(ad.any(per2 <= 0)):
        raise ValueError("periods must be positive")
    vectors = ad.exp(ad.matmul((2j * math.pi / per2).T,
                               ev2.astype(np.complex128)))
    mean = ad.mean(vectors, axis=1)
    strength, phase = ad.abs(mean), ad.angle(mean)
    if scalar:
        return strength[0], phase[0]
    return strength, phase


_NO_VALUE = object()


def lombscargle(x: Any, y: Any, freqs: Any, *, precenter: Any = _NO_VALUE,
                normalize: Any = False, weights: Any = None,
                floating_mean: bool = False) -> ad.ndarray:
    """scipy.signal.lombscargle: the (weighted, generalized) Lomb-Scargle
    periodogram of samples y at times x, at angular frequencies freqs;
    normalize False/'power', True/'normalize' or 'amplitude' (complex).

    The sums over samples are matmuls of the weights with the
    len(x) x len(freqs) matrices of cos and sin of freqs * x, on the
    server, in float64."""
    x = _at.asarray(x).astype(np.float64)
    y = _at.asarray(y).astype(np.float64)
    freqs = _at.asarray(freqs).astype(np.float64)
    w = (ad.ones(y.shape, np.float64) if weights is None
         else _at.asarray(weights).astype(np.float64))
    if not (x.ndim == 1 and x.size > 0 and x.shape == y.shape == w.shape):
        raise ValueError("Parameters x, y, weights must be 1-D arrays of "
                         "equal non-zero length!")
    if not (freqs.ndim == 1 and freqs.size > 0):
        raise ValueError("Parameter freqs must be a 1-D array of non-zero "
                         "length!")
    total = float(ad.sum(w))
    if not (bool(ad.all(w >= 0)) and total > 0):
        raise ValueError("Parameter weights must have only non-negative "
                         "entries which sum to a positive value!")
    if isinstance(normalize, bool):
        normalize = "normalize" if normalize else "power"
    if normalize not in ("power", "normalize", "amplitude"):
        raise ValueError("Normalize must be: False (or 'power'), True (or "
                         "'normalize'), or 'amplitude'.")
    w = w * (1.0 / total)
    if precenter is not _NO_VALUE:
        warnings.warn("Use of parameter 'precenter' is deprecated as of "
                      "SciPy 1.17.0 and will be removed in 1.19.0. Please "
                      "leave 'precenter' unspecified. Passing True to "
                      "'precenter' can be exactly substituted by passing "
                      "'y = (y - y.mean())' into the input. Consider setting "
                      "`floating_mean` to True instead.", DeprecationWarning,
                      stacklevel=2)
        if precenter:
            y = y - ad.mean(y)
    phase = ad.multiply.outer(x, freqs)  # (N, M)
    wy = w * y
    Y = ad.dot(w, y)
    c, s = ad.cos(phase), ad.sin(phase)
    CC = ad.matmul(w, c * c)
    SS = 1.0 - CC
    CS = ad.matmul(w, c * s)
    if floating_mean:
        C, S = ad.matmul(w, c), ad.matmul(w, s)
        CC, SS, CS = CC - C * C, SS - S * S, CS - C * S
    tau = 0.5 * ad.arctan2(2.0 * CS, CC - SS)
    shifted = phase - tau
    ct, st = ad.cos(shifted), ad.sin(shifted)
    YC, YS = ad.matmul(wy, ct), ad.matmul(wy, st)
    CC = ad.matmul(w, ct * ct)
    SS = 1.0 - CC
    if floating_mean:
        C, S = ad.matmul(w, ct), ad.matmul(w, st)
        YC, YS = YC - Y * C, YS - Y * S
        CC, SS = CC - C * C, SS - S * S
    eps = float(np.finfo(np.float64).epsneg)
    CC = ad.maximum(CC, eps)
    SS = ad.maximum(SS, eps)
    a, b = YC / CC, YS / SS
    if normalize == "amplitude":
        return (a + 1j * b) * ad.exp(1j * tau)
    pgram = 2.0 * (a * YC + b * YS)
    if normalize == "power":
        return pgram * (x.shape[0] / 4.0)
    YY = ad.dot(wy, y)
    if floating_mean:
        YY = YY - Y * Y
    return pgram * (0.5 / YY)
