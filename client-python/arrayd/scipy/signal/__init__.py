"""arrayd.scipy.signal: scipy.signal on the server.

    from arrayd.scipy import signal
    b, a = signal.butter(4, 0.2)            # design: host, tiny
    y = signal.filtfilt(b, a, x)            # x, y: arrays on the server
    f, p = signal.welch(x, nperseg=1024)

Laid out as SciPy's: _signaltools (convolution, lfilter/filtfilt/sosfilt,
hilbert, detrend, medfilt, wiener, resample, decimate), _upfirdn,
_spectral (periodogram, welch, csd, coherence, spectrogram, stft,
istft, lombscargle, vectorstrength), _peak_finding, _savitzky_golay,
_czt (czt, zoom_fft), _waveforms (chirp, sawtooth, square, sweep_poly,
gausspulse), _bsplines and _splines (B-spline coefficients and
evaluation, sepfir2d, symiirorder1), _filter_design (design on the host;
freqz/sosfreqz on the server), _ltisys (lti/dlti systems), windows.
_iir_utils, _iir_filter_conversions and _polyutils hold the private
helpers CuPy's tests import (apply_iir, _cplxreal, _compute_factors).

What runs where. Every function on signal data composes arrayd ops on
the server (fft, matmul, sliding windows, pad, sort, take, ufuncs). Only
inputs of design size go to the host: filter coefficients (b, a, sos)
are downloaded where a function needs them there, and filter design,
windows, initial conditions (lfilter_zi, sosfilt_zi, lfiltic),
savgol_coeffs, max_len_seq and check_COLA/check_NOLA run in SciPy.
find_peaks, peak_prominences and peak_widths download the signal and
run SciPy's (see _peak_finding). The LTI systems and their responses
(lsim, dlsim, step, impulse, bode, freqresp, cont2discrete,
place_poles) run in SciPy on the host too, so lsim/dlsim download their
input: they are for design-sized simulations (see _ltisys).

IIR filtering is a recurrence: _linear_filter.linear_filter computes it
as block matmuls (about 130 multiply-adds a sample instead of n); a
server ``linear_filter`` op would replace that one function.

lfilter and sosfilt keep SciPy's meaning of zi (the filter state, of
length max(len(a), len(b)) - 1, or (n_sections, ..., 2, ...)); CuPy's
form of past inputs and outputs is accepted only by the private
_iir_utils.apply_iir/apply_iir_sos.

Not supported: upfirdn modes other than 'constant',
choose_conv_method(measure=True), symiirorder2 (and so cspline2d and
spline_filter with lamb > 1/144).

Layer: a public namespace (imports arrayd's function modules).
"""
from __future__ import annotations

from arrayd.scipy.signal import _iir_filter_conversions  # noqa: F401
from arrayd.scipy.signal import _iir_utils  # noqa: F401
from arrayd.scipy.signal import _polyutils  # noqa: F401
from arrayd.scipy.signal import windows
from arrayd.scipy.signal._bsplines import (cspline1d, cspline1d_eval,
                                           cspline2d, gauss_spline,
                                           qspline1d, qspline1d_eval,
                                           qspline2d, sepfir2d, spline_filter)
from arrayd.scipy.signal._czt import CZT, ZoomFFT, czt, czt_points, zoom_fft
from arrayd.scipy.signal._filter_design import HOST as _HOST
from arrayd.scipy.signal._filter_design import (BadCoefficients, freqz,
                                                freqz_sos, sosfreqz)
from arrayd.scipy.signal._ltisys import HOST as _LTI
from arrayd.scipy.signal._peak_finding import (argrelextrema, argrelmax,
                                               argrelmin, find_peaks,
                                               peak_prominences, peak_widths)
from arrayd.scipy.signal._savitzky_golay import savgol_filter
from arrayd.scipy.signal._signaltools import (
    choose_conv_method, convolve, convolve2d, correlate, correlate2d,
    correlation_lags, decimate, deconvolve, detrend, fftconvolve, filtfilt,
    hilbert, hilbert2, lfilter, lfilter_zi, lfiltic, medfilt, medfilt2d,
    oaconvolve, order_filter, resample, resample_poly, sosfilt, sosfilt_zi,
    sosfiltfilt, unit_impulse, wiener)
from arrayd.scipy.signal._spectral import (coherence, csd, istft,
                                           lombscargle, periodogram,
                                           spectrogram, stft, vectorstrength,
                                           welch)
from arrayd.scipy.signal._splines import symiirorder1
from arrayd.scipy.signal._upfirdn import upfirdn
from arrayd.scipy.signal._waveforms import (chirp, gausspulse, sawtooth,
                                            square, sweep_poly)

get_window = windows.get_window

# Filter design on the host: butter, cheby1, firwin, zpk2sos, ...
globals().update(_HOST)
# LTI systems and their responses on the host (see _ltisys).
globals().update(_LTI)

__all__ = [
    "argrelextrema", "argrelmax", "argrelmin", "choose_conv_method",
    "coherence", "convolve", "convolve2d", "correlate", "correlate2d",
    "correlation_lags", "csd", "decimate", "deconvolve", "detrend",
    "fftconvolve", "filtfilt", "find_peaks", "freqz", "freqz_sos",
    "get_window", "hilbert", "hilbert2", "istft", "lfilter", "lfilter_zi",
    "lfiltic", "medfilt", "medfilt2d", "oaconvolve", "order_filter",
    "peak_prominences", "peak_widths", "periodogram", "resample",
    "resample_poly", "savgol_filter", "sosfilt", "sosfilt_zi",
    "sosfiltfilt", "sosfreqz", "spectrogram", "stft", "unit_impulse",
    "upfirdn", "welch", "wiener", "windows"]
__all__ += ["BadCoefficients", "CZT", "ZoomFFT", "chirp", "cspline1d",
            "cspline1d_eval", "cspline2d", "czt", "gauss_spline",
            "qspline1d", "qspline1d_eval", "qspline2d", "sepfir2d",
            "spline_filter",
            "czt_points", "gausspulse", "lombscargle", "sawtooth", "square",
            "sweep_poly", "symiirorder1", "vectorstrength", "zoom_fft"]
__all__ += sorted(_HOST) + sorted(_LTI)
