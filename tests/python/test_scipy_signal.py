"""arrayd.scipy.signal against scipy.signal: values, dtypes, shapes and
errors on bad input."""
from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.signal as ss

import arrayd as ad
from arrayd.scipy import signal as sig

RNG = np.random.default_rng(1234)


@pytest.fixture(autouse=True)
def _session(server_address):
    ad.connect(server_address)
    yield


def close(got, want, rtol=1e-10, atol=1e-12):
    assert isinstance(got, ad.ndarray)
    g = ad.asnumpy(got)
    assert g.dtype == np.asarray(want).dtype, (g.dtype, np.asarray(want).dtype)
    assert g.shape == np.shape(want)
    np.testing.assert_allclose(g, want, rtol=rtol, atol=atol)


# -- lfilter and friends -------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 7, 128, 129, 5000])
@pytest.mark.parametrize("design", [
    ss.butter(2, 0.1), ss.cheby1(5, 1, 0.3), ss.butter(6, 0.2),
    (RNG.standard_normal(9), [1.0]), ([0.5, 0.2], [1.0, -0.9])])
def test_lfilter_with_zi_matches_scipy(n, design):
    b, a = design
    x = RNG.standard_normal((2, n))
    order = max(len(a), len(b)) - 1
    zi = RNG.standard_normal((2, order))
    y, zf = sig.lfilter(b, a, ad.asarray(x), zi=ad.asarray(zi))
    ry, rzf = ss.lfilter(b, a, x, zi=zi)
    scale = np.abs(ry).max()
    close(y, ry, rtol=1e-9, atol=1e-9 * scale)
    close(zf, rzf, rtol=1e-9, atol=1e-9 * max(1, np.abs(rzf).max()))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128,
                                   np.int32])
def test_lfilter_dtypes_and_axis(dtype):
    b, a = ss.butter(3, 0.25)
    x = (RNG.standard_normal((40, 3)) * 10).astype(dtype)
    y = sig.lfilter(b, a, ad.asarray(x), axis=0)
    want = ss.lfilter(b, a, x, axis=0)
    close(y, want, rtol=1e-5 if dtype == np.float32 else 1e-10, atol=1e-9)


def test_lfilter_bad_input():
    with pytest.raises(ValueError):
        sig.lfilter([1.0], [0.0, 1.0], ad.ones(5))
    with pytest.raises(ValueError):
        sig.lfilter([1.0, 2.0], [1.0, 0.5], ad.ones(5), zi=ad.ones(3))


def _raises_as_scipy(ours, theirs):
    """ours() raises the exception type and message that theirs() does."""
    with pytest.raises(Exception) as want:
        theirs()
    with pytest.raises(want.type, match=re.escape(str(want.value))):
        ours()


@pytest.mark.parametrize("axis", [0, 2])
def test_cupy_form_zi_is_refused_as_scipy_refuses_it(axis):
    # CuPy's lfilter and sosfilt take zi as past inputs and outputs
    # (len(b) + len(a) - 2 along axis; 4 per section): SciPy refuses those
    # shapes, and so does arrayd (its zi is SciPy's filter state).
    b, a = np.array([0.1, 0.2, 0.3]), np.array([1.0, 0.1, 0.2])
    x = RNG.standard_normal((4, 5, 11))
    shape = list(x.shape)
    shape[axis] = len(b) + len(a) - 2
    zi = np.zeros(shape)
    _raises_as_scipy(
        lambda: sig.lfilter(b, a, ad.asarray(x), axis=axis,
                            zi=ad.asarray(zi)),
        lambda: ss.lfilter(b, a, x, axis=axis, zi=zi))
    sos = ss.butter(4, 0.3, output="sos")
    zs = np.zeros((sos.shape[0],) + tuple(4 if k == axis else n
                                          for k, n in enumerate(x.shape)))
    _raises_as_scipy(
        lambda: sig.sosfilt(sos, ad.asarray(x), axis=axis, zi=ad.asarray(zs)),
        lambda: ss.sosfilt(sos, x, axis=axis, zi=zs))


@pytest.mark.parametrize("x_shape,zi_shape,axis", [
    ((11,), (4,), -1), ((4, 5, 11), (1, 5, 3), -1), ((4, 5, 11), (5, 2), -1),
    ((11,), (1, 2), -1), ((3, 11), (3, 2, 1), -1), ((4, 5, 11), (4, 4, 11), 1)])
def test_lfilter_bad_zi_raises_scipys_error(x_shape, zi_shape, axis):
    b, a = np.array([0.1, 0.2, 0.3]), np.array([1.0, 0.1, 0.2])
    x, zi = np.ones(x_shape), np.zeros(zi_shape)
    _raises_as_scipy(
        lambda: sig.lfilter(b, a, ad.asarray(x), axis=axis,
                            zi=ad.asarray(zi)),
        lambda: ss.lfilter(b, a, x, axis=axis, zi=zi))


@pytest.mark.parametrize("x_dtype,c_dtype", [
    (np.int8, np.float32), (np.uint64, np.complex64), (np.float32, np.int16),
    (np.complex64, np.float64), (np.int32, np.complex128)])
def test_lfilter_zi_from_lfiltic_mixed_dtypes_match_scipy(x_dtype, c_dtype):
    # The state made by lfiltic from past inputs and outputs, as CuPy's
    # tests give SciPy: values and the dtypes of y and zf are SciPy's.
    b = (RNG.random(3) * 0.2).astype(c_dtype)
    a = np.r_[1, RNG.random(2) * 0.2].astype(c_dtype)
    x = (RNG.random((3, 40)) * 4).astype(x_dtype)
    past = (RNG.random(4) * 4).astype(x_dtype)
    zi = ss.lfiltic(b, a, past[2:][::-1], past[:2][::-1])
    zi2 = np.broadcast_to(zi, (3, zi.size))
    y, zf = sig.lfilter(ad.asarray(b), ad.asarray(a), ad.asarray(x),
                        zi=ad.asarray(zi2))
    ry, rzf = ss.lfilter(b, a, x, zi=zi2)
    tol = 1e-5 if np.dtype(ry.dtype).itemsize <= 8 and \
        ry.dtype != np.float64 else 1e-10
    close(y, ry, rtol=tol, atol=tol)
    close(zf, rzf, rtol=tol, atol=tol)


def test_sosfilt_long_signal_and_zi():
    sos = ss.butter(8, [0.1, 0.3], btype="band", output="sos")
    x = RNG.standard_normal((3, 20000))
    zi = RNG.standard_normal((sos.shape[0], 3, 2))
    y, zf = sig.sosfilt(sos, ad.asarray(x), zi=ad.asarray(zi))
    ry, rzf = ss.sosfilt(sos, x, zi=zi)
    close(y, ry, rtol=1e-9, atol=1e-11)
    close(zf, rzf, rtol=1e-9, atol=1e-11)
    with pytest.raises(ValueError):
        sig.sosfilt(sos[:, :5], ad.asarray(x))


@pytest.mark.parametrize("padtype", ["odd", "even", "constant", None])
def test_filtfilt_and_sosfiltfilt(padtype):
    x = RNG.standard_normal((4, 300))
    b, a = ss.cheby1(4, 0.5, 0.2)
    close(sig.filtfilt(b, a, ad.asarray(x), padtype=padtype),
          ss.filtfilt(b, a, x, padtype=padtype), rtol=1e-8, atol=1e-10)
    sos = ss.butter(6, 0.15, output="sos")
    close(sig.sosfiltfilt(sos, ad.asarray(x), axis=1, padtype=padtype),
          ss.sosfiltfilt(sos, x, axis=1, padtype=padtype), rtol=1e-8,
          atol=1e-10)
    with pytest.raises(ValueError):
        sig.filtfilt(b, a, ad.ones(5))


def test_initial_conditions_are_scipys():
    b, a = ss.butter(3, 0.3)
    close(sig.lfilter_zi(b, a), ss.lfilter_zi(b, a))
    sos = ss.butter(4, 0.3, output="sos")
    close(sig.sosfilt_zi(sos), ss.sosfilt_zi(sos))
    close(sig.lfiltic(b, a, [1.0, 2.0]), ss.lfiltic(b, a, [1.0, 2.0]))


# -- convolution ---------------------------------------------------------------

@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("method", ["direct", "fft", "auto"])
def test_convolve_correlate(mode, method):
    a = RNG.standard_normal((9, 7))
    v = RNG.standard_normal((3, 4))
    close(sig.convolve(ad.asarray(a), ad.asarray(v), mode, method),
          ss.convolve(a, v, mode, method))
    close(sig.correlate(ad.asarray(a), ad.asarray(v), mode, method),
          ss.correlate(a, v, mode, method))
    close(sig.fftconvolve(ad.asarray(a), ad.asarray(v), mode),
          ss.fftconvolve(a, v, mode))


def test_convolve_integers_exact_and_swapped_valid():
    a = RNG.integers(-50, 50, 30).astype(np.int32)
    v = RNG.integers(-5, 5, 40).astype(np.int32)
    close(sig.convolve(ad.asarray(a), ad.asarray(v)), ss.convolve(a, v))
    close(sig.correlate(ad.asarray(a), ad.asarray(v), "valid"),
          ss.correlate(a, v, "valid"))
    with pytest.raises(ValueError):
        sig.convolve(ad.ones((2, 5)), ad.ones((3, 2)), "valid")
    with pytest.raises(ValueError):
        sig.convolve(ad.ones(3), ad.ones(3), "bogus")


@pytest.mark.parametrize("boundary", ["fill", "wrap", "symm"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve2d_correlate2d(boundary, mode):
    a = RNG.standard_normal((8, 6))
    k = RNG.standard_normal((3, 2))
    close(sig.convolve2d(ad.asarray(a), ad.asarray(k), mode, boundary, 1.5),
          ss.convolve2d(a, k, mode, boundary, 1.5))
    close(sig.correlate2d(ad.asarray(a), ad.asarray(k), mode, boundary),
          ss.correlate2d(a, k, mode, boundary))


def test_choose_conv_method_is_scipys():
    a, v = np.ones(1000), np.ones(500)
    assert sig.choose_conv_method(ad.asarray(a), ad.asarray(v)) == \
        ss.choose_conv_method(a, v)
    assert sig.choose_conv_method(ad.ones(5), ad.ones(3)) == \
        ss.choose_conv_method(np.ones(5), np.ones(3))


# -- other signal tools --------------------------------------------------------

def test_hilbert_detrend_medfilt_wiener():
    x = RNG.standard_normal((3, 50))
    close(sig.hilbert(ad.asarray(x)), ss.hilbert(x))
    close(sig.hilbert2(ad.asarray(x)), ss.hilbert2(x))
    with pytest.raises(ValueError):
        sig.hilbert(ad.asarray(x + 1j))
    close(sig.detrend(ad.asarray(x), bp=[10, 30]), ss.detrend(x, bp=[10, 30]))
    close(sig.detrend(ad.asarray(x), axis=0, type="constant"),
          ss.detrend(x, axis=0, type="constant"))
    close(sig.medfilt(ad.asarray(x), [3, 5]), ss.medfilt(x, [3, 5]))
    close(sig.medfilt2d(ad.asarray(x)), ss.medfilt2d(x))
    with pytest.raises(ValueError):
        sig.medfilt(ad.asarray(x), 4)
    close(sig.wiener(ad.asarray(x), [3, 5]), ss.wiener(x, [3, 5]))


@pytest.mark.parametrize("num", [17, 50, 64, 101])
def test_resample(num):
    x = RNG.standard_normal((64, 2))
    close(sig.resample(ad.asarray(x), num), ss.resample(x, num))
    xc = x[:, 0] + 1j * x[:, 1]
    close(sig.resample(ad.asarray(xc), num), ss.resample(xc, num))


@pytest.mark.parametrize("up,down", [(3, 2), (1, 4), (5, 1), (2, 2)])
def test_resample_poly_upfirdn_decimate(up, down):
    x = RNG.standard_normal(200)
    close(sig.resample_poly(ad.asarray(x), up, down),
          ss.resample_poly(x, up, down))
    h = RNG.standard_normal(7)
    close(sig.upfirdn(h, ad.asarray(x), up, down), ss.upfirdn(h, x, up, down))
    close(sig.decimate(ad.asarray(x), 3), ss.decimate(x, 3), rtol=1e-8,
          atol=1e-10)
    close(sig.decimate(ad.asarray(x), 2, ftype="fir"),
          ss.decimate(x, 2, ftype="fir"))
    with pytest.raises(ValueError):
        sig.upfirdn(np.ones((2, 2)), ad.asarray(x))


@pytest.mark.parametrize("mode", ["interp", "mirror", "nearest", "constant",
                                  "wrap"])
def test_savgol_filter(mode):
    x = RNG.standard_normal((2, 40))
    close(sig.savgol_filter(ad.asarray(x), 9, 3, mode=mode),
          ss.savgol_filter(x, 9, 3, mode=mode), rtol=1e-9, atol=1e-11)
    close(sig.savgol_filter(ad.asarray(x), 7, 2, deriv=1, delta=0.5,
                            mode=mode),
          ss.savgol_filter(x, 7, 2, deriv=1, delta=0.5, mode=mode),
          rtol=1e-9, atol=1e-11)


# -- spectral ------------------------------------------------------------------

def test_welch_csd_periodogram_coherence():
    x = RNG.standard_normal((2, 1000))
    y = RNG.standard_normal((2, 1000))
    for fn, args in [(sig.welch, {}), (sig.welch, {"average": "median"}),
                     (sig.periodogram, {}),
                     (sig.welch, {"scaling": "spectrum", "nperseg": 100})]:
        ref = getattr(ss, fn.__name__)
        f, p = fn(ad.asarray(x), **args)
        rf, rp = ref(x, **args)
        close(f, rf)
        close(p, rp)
    f, p = sig.csd(ad.asarray(x), ad.asarray(y), nperseg=64)
    rf, rp = ss.csd(x, y, nperseg=64)
    close(p, rp)
    f, c = sig.coherence(ad.asarray(x), ad.asarray(y), nperseg=64)
    close(c, ss.coherence(x, y, nperseg=64)[1])
    with pytest.raises(ValueError):
        sig.welch(ad.asarray(x), nperseg=64, noverlap=64)


def test_stft_istft_spectrogram():
    x = RNG.standard_normal(777)
    f, t, Z = sig.stft(ad.asarray(x), nperseg=64)
    rf, rt, rZ = ss.stft(x, nperseg=64)
    close(t, rt)
    close(Z, rZ)
    tt, xr = sig.istft(Z, nperseg=64)
    rtt, rxr = ss.istft(rZ, nperseg=64)
    close(xr, rxr)
    for mode in ("psd", "magnitude", "complex"):
        _, _, S = sig.spectrogram(ad.asarray(x), mode=mode)
        close(S, ss.spectrogram(x, mode=mode)[2])


# -- peaks, design, windows -----------------------------------------------------

def test_argrel_and_find_peaks():
    x = RNG.standard_normal((5, 30))
    for fn in ("argrelmax", "argrelmin"):
        got = getattr(sig, fn)(ad.asarray(x), axis=1, order=2)
        want = getattr(ss, fn)(x, axis=1, order=2)
        for g, w in zip(got, want):
            close(g, w)
    p, props = sig.find_peaks(ad.asarray(x[0]), height=0, prominence=0.1)
    rp, rprops = ss.find_peaks(x[0], height=0, prominence=0.1)
    close(p, rp)
    close(props["prominences"], rprops["prominences"])


def test_design_and_freqz():
    b, a = sig.butter(4, 0.2)
    rb, ra = ss.butter(4, 0.2)
    close(b, rb)
    close(a, ra)
    close(sig.zpk2sos(*ss.butter(4, 0.2, output="zpk")),
          ss.zpk2sos(*ss.butter(4, 0.2, output="zpk")))
    w, h = sig.freqz(b, a, worN=100)
    rw, rh = ss.freqz(rb, ra, worN=100)
    close(w, rw)
    close(h, rh)
    sos = ss.cheby2(5, 40, 0.3, output="sos")
    close(sig.sosfreqz(sos, worN=64)[1], ss.sosfreqz(sos, worN=64)[1])
    close(sig.firwin(31, 0.3), ss.firwin(31, 0.3))
    with pytest.raises(ValueError):
        sig.butter(4, 1.5)


@pytest.mark.parametrize("name,args", [
    ("hann", (16,)), ("kaiser", (15, 5.0)), ("tukey", (20, 0.3)),
    ("chebwin", (21, 50)), ("dpss", (32, 3)), ("taylor", (24,))])
def test_windows(name, args):
    close(getattr(sig.windows, name)(*args),
          getattr(ss.windows, name)(*args))
    close(sig.get_window(("kaiser", 4.0), 12), ss.get_window(("kaiser", 4.0), 12))


# -- added: gust, czt, waveforms, splines, LTI, CuPy's IIR helpers --------------

@pytest.mark.parametrize("shape,axis,irlen", [((30,), -1, None),
                                              ((3, 41), -1, 6),
                                              ((25, 2), 0, None)])
def test_filtfilt_gust_matches_scipy(shape, axis, irlen):
    b, a = ss.butter(3, 0.3)
    x = RNG.standard_normal(shape)
    got = sig.filtfilt(b, a, ad.asarray(x), axis=axis, method="gust",
                       irlen=irlen)
    close(got, ss.filtfilt(b, a, x, axis=axis, method="gust", irlen=irlen),
          rtol=1e-8, atol=1e-10)


def test_filtfilt_gust_complex_coefficients_warn_as_scipy():
    with pytest.warns(np.exceptions.ComplexWarning):
        sig.filtfilt(np.array([0.1 + 0.1j]), np.array([1.0, 0.1]),
                     ad.ones(20), method="gust")


@pytest.mark.parametrize("m,w,a", [(None, None, 1 + 0j), (17, None, 1 + 0j),
                                   (9, np.exp(-0.03j), 1.1 * np.exp(0.2j))])
def test_czt_matches_scipy(m, w, a):
    x = RNG.standard_normal((3, 40)) + 1j * RNG.standard_normal((3, 40))
    close(sig.czt(ad.asarray(x), m=m, w=w, a=a),
          ss.czt(x, m=m, w=w, a=a), rtol=1e-9, atol=1e-9)
    close(sig.czt_points(m or 40, w, a), ss.czt_points(m or 40, w, a))


def test_zoom_fft_matches_scipy_and_checks_sizes():
    x = RNG.standard_normal((16, 5))
    close(sig.zoom_fft(ad.asarray(x), [0.1, 0.4], m=12, fs=2, endpoint=True,
                       axis=0),
          ss.zoom_fft(x, [0.1, 0.4], m=12, fs=2, endpoint=True, axis=0),
          rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError):
        sig.CZT(0)
    with pytest.raises(ValueError):
        sig.CZT(8)(ad.ones(9))


def test_waveforms_match_scipy():
    t = np.linspace(-2, 3, 301)
    td = ad.asarray(t)
    close(sig.sawtooth(td, 0.3), ss.sawtooth(t, 0.3))
    close(sig.square(td, 0.7), ss.square(t, 0.7))
    for method in ("linear", "quadratic", "logarithmic", "hyperbolic"):
        close(sig.chirp(td + 3, 2.0, 4.0, 9.0, method=method),
              ss.chirp(t + 3, 2.0, 4.0, 9.0, method=method), rtol=1e-9)
    close(sig.sweep_poly(td, ad.poly1d([1.0, 0.0, 2.0])),
          ss.sweep_poly(t, np.poly1d([1.0, 0.0, 2.0])), rtol=1e-9,
          atol=1e-9)
    yi, yq, ye = sig.gausspulse(td, fc=5, retquad=True, retenv=True)
    for g, w in zip((yi, yq, ye), ss.gausspulse(t, fc=5, retquad=True,
                                                retenv=True)):
        close(g, w)
    assert sig.gausspulse("cutoff", fc=1000) == ss.gausspulse("cutoff",
                                                              fc=1000)
    with pytest.raises(ValueError):
        sig.chirp(td, 0, 1, 1, "hyperbolic")
    with pytest.raises(ValueError):
        sig.chirp(td, 1, 1, 2, "foo")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("precision", [-1, 0.5, 1e-3])
def test_symiirorder1_matches_scipy(dtype, precision):
    x = (RNG.random((2, 80)) * 3).astype(dtype)
    got = sig.symiirorder1(ad.asarray(x), 2.0, 0.5, precision)
    close(got, ss.symiirorder1(x, 2.0, 0.5, precision), rtol=2e-5,
          atol=2e-5)


def test_symiirorder1_bad_input():
    with pytest.raises(ValueError):
        sig.symiirorder1(ad.ones(100), 2.0, 1.5)
    with pytest.raises(ValueError, match="converge"):
        sig.symiirorder1(ad.ones(12), 2.0, 0.5)


def test_apply_iir_is_lfilter_with_past_outputs():
    from arrayd.scipy.signal._iir_utils import apply_iir, apply_iir_sos
    x = RNG.standard_normal(50)
    a = np.array([1.0, 0.3, -0.2])
    past = RNG.standard_normal(2)  # y[-2], y[-1]
    want, _ = ss.lfilter([1.0], a, x, zi=ss.lfiltic([1.0], a, past[::-1]))
    close(apply_iir(ad.asarray(x), ad.asarray(-a[1:]), zi=ad.asarray(past),
                    dtype=np.float64), want, rtol=1e-9, atol=1e-12)
    sos = ss.butter(4, 0.2, output="sos")
    zi = RNG.standard_normal((2, 4))  # x[-2], x[-1], y[-2], y[-1]
    szi = np.stack([ss.lfiltic(s[:3], s[3:], z[2:][::-1], z[:2][::-1])
                    for s, z in zip(sos, zi)])
    got, _ = apply_iir_sos(ad.asarray(x), sos, zi=ad.asarray(zi))
    close(got, ss.sosfilt(sos, x, zi=szi)[0], rtol=1e-9, atol=1e-12)


def test_lti_systems_mirror_scipy():
    s = sig.dlti([1.0], [1.0, -0.5], dt=0.1)
    assert isinstance(s, sig.TransferFunction) and isinstance(s, sig.dlti)
    assert not isinstance(s, sig.lti)
    close(s.den, np.array([1.0, -0.5]))
    t, y = sig.dstep(s, n=5)
    rt, ry = ss.dstep(ss.dlti([1.0], [1.0, -0.5], dt=0.1), n=5)
    close(t, rt)
    close(y[0], ry[0])
    u = np.linspace(0, 1, 7)
    tout, yout = sig.dlsim(([1.0, -0.1], [0.3, 1.0, 0.2], 0.5),
                           ad.asarray(u))
    rt, ry = ss.dlsim(([1.0, -0.1], [0.3, 1.0, 0.2], 0.5), u)
    close(tout, rt)
    close(yout, ry)
    with pytest.raises(AttributeError):
        sig.dlsim(sig.lti([1], [1, 1]), ad.asarray(u))


def test_splines_match_scipy():
    y = RNG.random(12) * 5
    newx = np.arange(-6, 20, 0.5)
    for ours, theirs, oe, te in (
            (sig.cspline1d, ss.cspline1d, sig.cspline1d_eval,
             ss.cspline1d_eval),
            (sig.qspline1d, ss.qspline1d, sig.qspline1d_eval,
             ss.qspline1d_eval)):
        cj = ours(ad.asarray(y))
        close(cj, theirs(y))
        close(oe(cj, ad.asarray(newx), dx=1.5, x0=-2),
              te(theirs(y), newx, dx=1.5, x0=-2))
    close(sig.cspline1d(ad.asarray(y), 2.0), ss.cspline1d(y, 2.0))
    im = RNG.random((20, 23))
    close(sig.cspline2d(ad.asarray(im)), ss.cspline2d(im), rtol=1e-8)
    close(sig.qspline2d(ad.asarray(im)), ss.qspline2d(im), rtol=1e-8)
    close(sig.spline_filter(ad.asarray(im), 0), ss.spline_filter(im, 0),
          rtol=1e-8)
    close(sig.gauss_spline(ad.asarray(y), 3), ss.gauss_spline(y, 3))
    with pytest.raises(ValueError, match="must not be empty"):
        sig.cspline1d_eval(ad.zeros(0), ad.zeros(1))
    with pytest.raises(ValueError):
        sig.qspline1d(ad.asarray(y), 1.0)
    with pytest.raises(TypeError):
        sig.spline_filter(ad.ones((4, 4), np.int32))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float32,
                                   np.complex128])
def test_sepfir2d_matches_scipy(dtype):
    x = (RNG.random((9, 11)) * 4).astype(dtype)
    hr, hc = np.array([1, 2, 1], dtype), np.array([3], dtype)
    close(sig.sepfir2d(ad.asarray(x), ad.asarray(hr), ad.asarray(hc)),
          ss.sepfir2d(x, hr, hc), rtol=1e-6)


def test_vectorstrength_and_lombscargle_match_scipy():
    t = np.sort(RNG.random(60)) * 10
    y = np.sin(3 * t) + RNG.random(60)
    f = np.linspace(0.2, 6, 25)
    for kw in ({}, {"normalize": True}, {"normalize": "amplitude"},
               {"floating_mean": True}):
        close(sig.lombscargle(ad.asarray(t), ad.asarray(y), ad.asarray(f),
                              **kw), ss.lombscargle(t, y, f, **kw),
              rtol=1e-9, atol=1e-12)
    with pytest.warns(DeprecationWarning):
        sig.lombscargle(ad.asarray(t), ad.asarray(y), ad.asarray(f),
                        precenter=True)
    with pytest.raises(ValueError):
        sig.lombscargle(ad.asarray(t), ad.asarray(y[:5]), ad.asarray(f))
    s, p = sig.vectorstrength(ad.asarray(t), ad.asarray([1.0, 2.5]))
    rs, rp = ss.vectorstrength(t, [1.0, 2.5])
    close(s, rs)
    close(p, rp)
    with pytest.raises(ValueError):
        sig.vectorstrength(ad.asarray(t), -1.0)


def test_rank_filters_and_convolution_refuse_scipys_dtypes():
    with pytest.raises(ValueError, match="not supported by medfilt"):
        sig.medfilt(ad.ones(10, np.float16))
    with pytest.raises(ValueError, match="not supported by order_filter"):
        sig.order_filter(ad.ones(10, np.complex64), ad.ones(3), 1)
    with pytest.raises(ValueError, match="Unsupported type"):
        sig.convolve(ad.ones((4, 4), bool), ad.ones((2, 2), bool),
                     method="direct")
    with pytest.raises(ValueError, match="convolve2d not available"):
        sig.convolve2d(ad.ones((4, 4), np.float16), ad.ones((2, 2),
                                                           np.float16))
    # 1-D bool convolution is numpy's (allowed), float16 by FFT keeps the
    # dtype where SciPy's does.
    close(sig.convolve(ad.ones(5, bool), ad.ones(3, bool)),
          ss.convolve(np.ones(5, bool), np.ones(3, bool)))
    close(sig.fftconvolve(ad.ones(1, np.float16), ad.ones(7, np.float16)),
          ss.fftconvolve(np.ones(1, np.float16), np.ones(7, np.float16)))


def test_freqz_nd_coefficients_match_scipy():
    b = RNG.random((4, 2, 1, 1))
    a = RNG.random((5, 2, 1, 1))
    w = RNG.random((6, 7))
    rw, rh = ss.freqz(b, a, worN=w)
    gw, gh = sig.freqz(ad.asarray(b), ad.asarray(a), worN=ad.asarray(w))
    close(gw, rw)
    close(gh, rh)
    gw, gh = sig.freqz([1.0, 2.0], worN=ad.asarray(7))
    rw, rh = ss.freqz([1.0, 2.0], worN=np.asarray(7))
    close(gh, rh)


@pytest.mark.parametrize("n", [19, 20])
def test_resample_window_matches_scipy(n):
    x = np.linspace(0, 10, n, endpoint=False)
    y = np.cos(-x ** 2 / 6.0)
    for data in (y, y + 0.5j * y):
        close(sig.resample(ad.asarray(data), 11, window="hamming"),
              ss.resample(data, 11, window="hamming"), atol=1e-12)
    with pytest.raises(ValueError):
        sig.resample(ad.asarray(y), 5, domain="foo")


def test_spectral_axis_and_empty_input_as_scipy():
    x = RNG.standard_normal((40, 3, 2))
    for axis in (0, 1, -1):
        nper = min(16, x.shape[axis])
        rf, rp = ss.welch(x, nperseg=nper, axis=axis)
        gf, gp = sig.welch(ad.asarray(x), nperseg=nper, axis=axis)
        close(gf, rf)
        close(gp, rp)
    _, p = sig.welch(ad.zeros((5, 0)))
    assert p.shape == (5, 0) and p.dtype == np.float64


def test_decimate_takes_an_arrayd_dlti_and_lfilter_an_empty_zi():
    x = RNG.standard_normal(200)
    system = sig.dlti(*ss.cheby1(4, 0.05, 0.3))
    want = ss.decimate(x, 3, ftype=ss.dlti(*ss.cheby1(4, 0.05, 0.3)))
    close(sig.decimate(ad.asarray(x), 3, ftype=system), want, rtol=1e-8,
          atol=1e-10)
    y, zf = sig.lfilter([0.5], [1.0], ad.asarray(x), zi=ad.zeros(0))
    close(y, 0.5 * x)
    assert zf.shape == (0,)
    q, r = sig.deconvolve(ad.asarray(x.astype(np.float32)),
                          ad.asarray(np.array([1.0, 0.5], np.float32)))
    assert q.dtype == np.float64 and r.dtype == np.float64


def test_correlate2d_swapped_complex_and_fftconvolve_broadcast_axes():
    a = RNG.random((5, 10)) + 1j * RNG.random((5, 10))
    b = RNG.random((10, 10)) + 1j * RNG.random((10, 10))
    for boundary in ("fill", "wrap", "symm"):
        close(sig.correlate2d(ad.asarray(a), ad.asarray(b), "valid",
                              boundary),
              ss.correlate2d(a, b, "valid", boundary))
    for s1, s2, axes in (((1,), (7,), None), ((5, 1, 1), (1, 4, 1), None),
                         ((1, 5, 5), (2, 1, 3), [1, 2])):
        x, y = RNG.random(s1), RNG.random(s2)
        for mode in ("full", "same", "valid"):
            close(sig.fftconvolve(ad.asarray(x), ad.asarray(y), mode,
                                  axes=axes),
                  ss.fftconvolve(x, y, mode, axes=axes))
