"""numpy.fft against NumPy: 1-D, 2-D and n-D transforms, real and
Hermitian ones, every norm, any length (primes too), padding and
truncation, along any axis; result dtypes as NumPy 2's; bad inputs."""
from __future__ import annotations

import numpy as np
import numpy.testing as npt
import pytest

import arrayd as ad

DTYPES = [np.dtype(t) for t in ("f4", "f8", "c8", "c16", "i4", "?", "f2")]
NORMS = [None, "backward", "ortho", "forward"]


def _data(dt, shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    dt = np.dtype(dt)
    if dt.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    if dt.kind in "iub":
        a = rng.integers(0, 2 if dt.kind == "b" else 9, shape)
    return a.astype(dt)


def _check(got, expected, tol=None):
    assert isinstance(got, ad.ndarray)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if tol is None:
        tol = {"e": 5e-2, "f": 2e-4, "F": 2e-4}.get(expected.dtype.char,
                                                     1e-10)
    scale = max(1.0, float(np.max(np.abs(expected)))) if expected.size else 1
    npt.assert_allclose(got.get(), expected, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("fn", ["fft", "ifft"])
def test_fft_ifft(dt, norm, fn):
    f, g = getattr(np.fft, fn), getattr(ad.fft, fn)
    x = _data(dt, (3, 13))
    # NumPy scales float16 input by a float16-rounded factor.
    tol = 2e-3 if dt.char == "e" else None
    _check(g(ad.asarray(x), norm=norm), f(x, norm=norm), tol)
    for n in (1, 8, 17, 5):
        _check(g(ad.asarray(x), n=n, norm=norm), f(x, n=n, norm=norm), tol)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 16, 31, 97, 100, 243])
def test_fft_lengths(n):
    x = _data("c16", (2, n), seed=n)
    _check(ad.fft.fft(ad.asarray(x)), np.fft.fft(x))
    _check(ad.fft.ifft(ad.asarray(x)), np.fft.ifft(x))
    r = x.real.copy()
    _check(ad.fft.rfft(ad.asarray(r)), np.fft.rfft(r))
    if n > 1:
        _check(ad.fft.irfft(ad.asarray(x)), np.fft.irfft(x))
    _check(ad.fft.irfft(ad.asarray(x), n=2 * n - 1),
           np.fft.irfft(x, n=2 * n - 1))


@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_fft_axis(axis):
    x = _data("c8", (4, 5, 6))
    _check(ad.fft.fft(ad.asarray(x), axis=axis), np.fft.fft(x, axis=axis))
    _check(ad.fft.ifft(ad.asarray(x), n=3, axis=axis),
           np.fft.ifft(x, n=3, axis=axis))
    r = _data("f8", (4, 5, 6))
    _check(ad.fft.rfft(ad.asarray(r), axis=axis), np.fft.rfft(r, axis=axis))
    _check(ad.fft.irfft(ad.asarray(x), n=7, axis=axis),
           np.fft.irfft(x, n=7, axis=axis))
    # Non-contiguous input.
    xs = x[:, ::2, ::-1]
    _check(ad.fft.fft(ad.asarray(x)[:, ::2, ::-1], axis=axis),
           np.fft.fft(xs, axis=axis))


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("norm", NORMS)
def test_rfft_irfft(dt, norm):
    if dt.kind == "c":
        x = _data(dt, (2, 9))
        with pytest.raises(TypeError):
            ad.fft.rfft(ad.asarray(x))
    else:
        x = _data(dt, (2, 9))
        for n in (None, 4, 9, 12):
            _check(ad.fft.rfft(ad.asarray(x), n=n, norm=norm),
                   np.fft.rfft(x, n=n, norm=norm))
    y = _data(dt, (2, 5))
    for n in (None, 1, 7, 8, 15):
        _check(ad.fft.irfft(ad.asarray(y), n=n, norm=norm),
               np.fft.irfft(y, n=n, norm=norm))


@pytest.mark.parametrize("dt", ["f4", "f8", "c8", "c16", "i8"])
@pytest.mark.parametrize("norm", NORMS)
def test_hfft_ihfft(dt, norm):
    x = _data(dt, (3, 6))
    for n in (None, 5, 10):
        _check(ad.fft.hfft(ad.asarray(x), n=n, norm=norm),
               np.fft.hfft(x, n=n, norm=norm))
        if np.dtype(dt).kind != "c":
            _check(ad.fft.ihfft(ad.asarray(x), n=n, norm=norm),
                   np.fft.ihfft(x, n=n, norm=norm))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s,axes", [(None, None), (None, (0, 2)),
                                    ((4, 6), (1, 2)), ((3, 8, 5), None),
                                    ((-1, 6), (2, 0)), (None, (-1,)),
                                    (None, (0, 0)), ((2, 9), (2, 1))])
def test_nd(norm, s, axes):
    import warnings
    x = _data("c16", (4, 5, 6))
    r = _data("f4", (4, 5, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for name, arg in (("fftn", x), ("ifftn", x), ("rfftn", r),
                          ("irfftn", x)):
            e = getattr(np.fft, name)(arg, s=s, axes=axes, norm=norm)
            g = getattr(ad.fft, name)(ad.asarray(arg), s=s, axes=axes,
                                      norm=norm)
            _check(g, e)


def test_nd_views_and_four_axes():
    # Multi-axis transforms of a transposed view, a sliced view and over all
    # four axes (more than one backend plan covers: one axis at a time).
    x = _data("c8", (3, 4, 5, 6))
    r = _data("f8", (3, 4, 5, 6))
    for arg, name in ((x, "fftn"), (r, "rfftn"), (x, "ifftn")):
        for view in (lambda a: a.transpose(2, 0, 3, 1), lambda a: a[:, ::2, 1:, ::-1]):
            e = getattr(np.fft, name)(view(arg), axes=(0, 2, 3))
            _check(getattr(ad.fft, name)(view(ad.asarray(arg)), axes=(0, 2, 3)), e)
        _check(getattr(ad.fft, name)(ad.asarray(arg)), getattr(np.fft, name)(arg))
    a = ad.asarray(r)
    ad.fft.rfft2(a)
    npt.assert_array_equal(a.get(), r)  # the input is left as it was


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
def test_2d(name):
    x = _data("f8" if name == "rfft2" else "c8", (2, 6, 7))
    e = getattr(np.fft, name)(x)
    _check(getattr(ad.fft, name)(ad.asarray(x)), e)
    e = getattr(np.fft, name)(x, s=(4, 4), axes=(0, 2), norm="ortho")
    _check(getattr(ad.fft, name)(ad.asarray(x), s=(4, 4), axes=(0, 2),
                                 norm="ortho"), e)


def test_freq_and_shift():
    for n, d in ((8, 1.0), (7, 0.5), (1, 2.0)):
        _check(ad.fft.fftfreq(n, d), np.fft.fftfreq(n, d))
        _check(ad.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d))
    x = _data("f8", (4, 5))
    for axes in (None, 0, 1, (0, 1), (-1,)):
        _check(ad.fft.fftshift(ad.asarray(x), axes), np.fft.fftshift(x, axes))
        _check(ad.fft.ifftshift(ad.asarray(x), axes),
               np.fft.ifftshift(x, axes))


def test_out_and_empty_batch():
    x = _data("c16", (0, 4))
    _check(ad.fft.fft(ad.asarray(x)), np.fft.fft(x))
    _check(ad.fft.fft(ad.asarray(np.zeros((3, 0))), n=4),
           np.fft.fft(np.zeros((3, 0)), n=4))
    out = ad.zeros((2, 4), "c16")
    y = _data("c16", (2, 4))
    assert ad.fft.fft(ad.asarray(y), out=out) is out
    _check(out, np.fft.fft(y))


def test_errors():
    x = ad.ones(4)
    for fn in (ad.fft.fft, ad.fft.ifft, ad.fft.rfft, ad.fft.irfft,
               ad.fft.hfft, ad.fft.ihfft):
        with pytest.raises(ValueError, match="Invalid number of FFT"):
            fn(x, n=0)
        with pytest.raises(ValueError, match="Invalid number of FFT"):
            fn(x, n=-2)
        with pytest.raises(np.exceptions.AxisError):
            fn(x, axis=1)
        with pytest.raises(ValueError, match="Invalid norm"):
            fn(x, norm="bogus")
    with pytest.raises(ValueError):
        ad.fft.fft(ad.ones(0))
    with pytest.raises(ValueError):
        ad.fft.irfft(ad.ones(1))
    with pytest.raises(np.exceptions.AxisError):
        ad.fft.fft(ad.asarray(np.float64(1.0)))
    with pytest.raises(ValueError, match="different lengths"):
        ad.fft.fftn(ad.ones((2, 2)), s=(2, 2), axes=(0,))
