"""numpy.fft's argument rules against NumPy 2: the DeprecationWarnings of
``s`` (given without axes, holding None), the errors for bad lengths,
norms, axes and out= (exception type and message, in NumPy's order),
result dtypes through every step of the n-D transforms (float16 into
irfftn over two axes gives float32), out= for every transform, repeated
axes and empty inputs. Each case runs NumPy and arrayd on the same data
and compares what each gives: values, dtype, shape, warnings, error."""
from __future__ import annotations

import warnings

import arrayd as ad
import numpy as np
import numpy.testing as npt
import pytest

ONE_AXIS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_DIM = ["fftn", "ifftn", "fft2", "ifft2", "rfftn", "irfftn", "rfft2",
         "irfft2"]
REAL_IN = {"rfft", "ihfft", "rfftn", "rfft2"}


def _data(dt, shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    dt = np.dtype(dt)
    if dt.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    if dt.kind in "iub":
        a = rng.integers(0, 2 if dt.kind == "b" else 9, shape)
    return a.astype(dt)


def _run(mod, fname, a, kw):
    """(result, DeprecationWarning messages, exception) of mod.fft.fname."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = getattr(mod.fft, fname)(a, **kw)
            err = None
        except (ValueError, TypeError, IndexError) as e:  # compared below
            r, err = None, e
    msgs = [str(x.message) for x in w
            if issubclass(x.category, DeprecationWarning)]
    return r, msgs, err


def _same(fname, x, **kw):
    """Runs fname on x with NumPy and arrayd; the same warnings, the same
    error (type and message) or the same result (dtype, shape, values)."""
    want, wmsgs, werr = _run(np, fname, x, kw)
    got, gmsgs, gerr = _run(ad, fname, ad.asarray(x), kw)
    assert gmsgs == wmsgs
    if werr is not None:
        assert gerr is not None, f"NumPy raised {werr!r}, arrayd did not"
        assert isinstance(gerr, type(werr)), (gerr, werr)
        if isinstance(werr, ValueError) and not isinstance(
                werr, np.exceptions.AxisError):
            assert str(gerr) == str(werr)
        return None
    assert gerr is None, gerr
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    tol = 5e-2 if want.dtype.char == "e" else 2e-4 if want.dtype.char in \
        "fF" else 1e-10
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    npt.assert_allclose(got.get(), want, rtol=tol, atol=tol * scale)
    return got


ND_CASES = [
    {},
    {"s": (3, 5)},                      # s without axes: deprecated
    {"s": (3, 5), "axes": (0, 1)},
    {"s": (-1, 6), "axes": (0, 1)},
    {"s": (None, 6), "axes": (0, 1)},      # None in s: deprecated
    {"s": (None, None), "axes": (1, 0)},
    {"s": (4, None), "axes": (-1, -2)},
    {"axes": (0,)},
    {"axes": (1, 0)},
    {"axes": (0, 0)},                   # a repeated axis
    {"s": (3, 7), "axes": (1, 1)},
    {"s": (5,), "axes": None},
    {"s": (2, 3, 4)},                   # more lengths than axes of a
    {"s": (0, 4), "axes": (0, 1)},         # NumPy's ValueError
    {"s": (4, -2), "axes": (0, 1)},
    {"s": (4,), "axes": (0, 1)},           # lengths and axes differ
    {"axes": (0, 2)},                   # AxisError
    {"norm": "ortho", "axes": (0, 1)},
    {"norm": "forward", "s": (3, 3), "axes": (0, 1)},
    {"norm": "bad", "axes": (0, 1)},
    {"norm": "bad", "s": (0, 3), "axes": (0, 1)},  # the length is checked first
]


@pytest.mark.parametrize("fname", N_DIM)
@pytest.mark.parametrize("case", range(len(ND_CASES)))
def test_nd_arguments(fname, case):
    dt = "f8" if fname in REAL_IN else "c16"
    _same(fname, _data(dt, (4, 6)), **ND_CASES[case])


@pytest.mark.parametrize("fname", N_DIM)
@pytest.mark.parametrize("dt", ["e", "f", "d", "F", "D", "i4", "u1", "?"])
@pytest.mark.parametrize("axes", [None, (0,), (1,), (0, 1), (1, 0)])
def test_nd_dtypes(fname, dt, axes):
    """NumPy 2's dtype after every one-axis step (irfftn over one axis of
    float16 stays float16, over two becomes float32; rfft of complex is
    NumPy's TypeError)."""
    _same(fname, _data(dt, (4, 6)), axes=axes)


def test_irfftn_float16_dtypes_spelled_out():
    x = ad.asarray(_data("e", (4, 6)))
    assert ad.fft.irfftn(x).dtype == np.float32
    assert ad.fft.irfftn(x, axes=(1,)).dtype == np.float16
    assert ad.fft.irfft2(x).dtype == np.float32
    assert ad.fft.rfftn(ad.asarray(_data("f", (4, 6)))).dtype == np.complex64


@pytest.mark.parametrize("fname", ONE_AXIS)
@pytest.mark.parametrize("kw", [{"n": 0}, {"n": -3}, {"n": 1}, {"n": 9},
                                {"norm": "bad"}, {"norm": "bad", "n": 0},
                                {"norm": "ortho", "n": 5}, {"axis": 0},
                                {"axis": 2}, {"axis": -3, "n": 4},
                                {"norm": "forward", "axis": 0, "n": 3}],
                         ids=str)
def test_one_axis_arguments(fname, kw):
    dt = "f8" if fname in REAL_IN else "c16"
    _same(fname, _data(dt, (4, 6)), **kw)


@pytest.mark.parametrize("fname", ONE_AXIS)
@pytest.mark.parametrize("dt", ["e", "f", "d", "F", "D", "i2", "?"])
def test_one_axis_dtypes(fname, dt):
    _same(fname, _data(dt, (3, 5)))


def test_invalid_length_messages():
    x = ad.asarray(_data("c16", (4,)))
    with pytest.raises(ValueError, match=r"^Invalid number of FFT data "
                       r"points \(0\) specified\.$"):
        ad.fft.fft(x, n=0)
    with pytest.raises(ValueError, match=r"\(0\)"):
        ad.fft.fftn(x, s=(0,), axes=(0,))
    with pytest.raises(ValueError, match=r"\(0\)"):
        ad.fft.irfft(ad.asarray(_data("c16", (1,))))  # (1 - 1) * 2 points


def test_norm_messages_as_numpy():
    x = ad.asarray(_data("c16", (4, 4)))
    fwd = 'Invalid norm value x; should be "backward","ortho" or "forward".'
    inv = 'Invalid norm value x; should be "backward", "ortho" or "forward".'
    for fn, msg in [(ad.fft.fft, fwd), (ad.fft.ifft, inv),
                    (ad.fft.irfft, inv), (ad.fft.hfft, inv),
                    (ad.fft.fftn, fwd), (ad.fft.ifft2, inv),
                    (ad.fft.irfftn, inv)]:
        with pytest.raises(ValueError) as e:
            fn(x, norm="x")
        assert str(e.value) == msg, fn


def test_deprecation_warnings_only_when_numpy_warns():
    x = ad.asarray(_data("c16", (4, 6)))
    with pytest.warns(DeprecationWarning, match="`axes` should not be"):
        ad.fft.fftn(x, s=(4, 6))
    with pytest.warns(DeprecationWarning, match="containing `None`"):
        ad.fft.fft2(x, s=(None, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ad.fft.fft2(x, s=(4, 6))          # fft2's axes default is given
        ad.fft.fftn(x, axes=(0, 1))
        ad.fft.irfftn(x)


def test_warning_points_at_the_caller():
    x = ad.asarray(_data("c16", (4, 6)))
    with pytest.warns(DeprecationWarning) as rec:
        ad.fft.ifftn(x, s=(4, 6))
    assert rec[0].filename == __file__


def test_empty_axes():
    x = _data("c16", (2, 3))
    a = ad.asarray(x)
    assert ad.fft.fftn(a, axes=()) is a           # as NumPy: a itself
    for fname in ("rfftn", "irfftn"):
        with pytest.raises(IndexError):
            getattr(ad.fft, fname)(ad.asarray(x.real) if fname == "rfftn"
                                   else a, axes=())


@pytest.mark.parametrize("fname", ONE_AXIS + N_DIM)
@pytest.mark.parametrize("odt", ["c16", "c8", "f8", "f4"])
def test_out(fname, odt):
    """out= takes the result (cast same_kind) and is returned; a wrong
    kind is TypeError, as NumPy's UFuncTypeError."""
    x = _data("f8" if fname in REAL_IN else "c16", (4, 6))
    want = getattr(np.fft, fname)(x)
    out = ad.empty(want.shape, odt)
    if not np.can_cast(want.dtype, odt, "same_kind"):
        with pytest.raises(TypeError):
            getattr(ad.fft, fname)(ad.asarray(x), out=out)
        return
    got = getattr(ad.fft, fname)(ad.asarray(x), out=out)
    assert got is out
    npt.assert_allclose(out.get(), want.astype(odt), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fname", ["fft", "rfft", "irfft", "fftn", "rfftn"])
def test_out_wrong_shape(fname):
    x = _data("f8" if fname in REAL_IN else "c16", (4, 6))
    want = getattr(np.fft, fname)(x)
    for bad in [(want.shape[0], want.shape[1] + 1), (want.size,)]:
        out_np = np.empty(bad, want.dtype)
        with pytest.raises(ValueError) as e_np:
            getattr(np.fft, fname)(x, out=out_np)
        with pytest.raises(ValueError) as e_ad:
            getattr(ad.fft, fname)(ad.asarray(x), out=ad.empty(bad,
                                                              want.dtype))
        assert str(e_ad.value) == str(e_np.value)


@pytest.mark.parametrize("fname", ["fft", "ifft", "fftn", "fft2"])
def test_zero_size_batch(fname):
    kw = {"axes": (1,)} if fname in N_DIM else {}
    _same(fname, _data("c16", (0, 5)), **kw)
    _same(fname, _data("c16", (0, 5)))  # fft2 and fftn: NumPy's ValueError


def test_padding_an_empty_axis():
    _same("fft", _data("c16", (3, 0)), n=4)
    _same("fft", _data("c16", (3, 0)))             # n = 0: ValueError
