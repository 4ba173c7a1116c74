"""arrayd.scipy.fft against scipy.fft: the complex, real and Hermitian
transforms (1-D, 2-D, n-D) with SciPy's dtypes (single precision stays
single, half is computed in single), every norm, scalar s and axes; the
DCTs and DSTs of types 1 to 4, their inverses and n-D forms with every
norm and orthogonalize; the helpers; SciPy's errors for bad input; the
module as a scipy.fft backend."""
from __future__ import annotations

import numpy as np
import numpy.testing as npt
import pytest

import arrayd as ad
from arrayd.scipy import fft as afft

sfft = pytest.importorskip("scipy.fft")

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


def _check(got, expected):
    assert isinstance(got, ad.ndarray)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    tol = 2e-4 if expected.dtype.char in "fF" else 1e-10
    scale = max(1.0, float(np.max(np.abs(expected)))) if expected.size else 1
    npt.assert_allclose(got.get(), expected, rtol=tol, atol=tol * scale)


def _both(name, x, *args, **kw):
    _check(getattr(afft, name)(ad.asarray(x), *args, **kw),
           getattr(sfft, name)(x, *args, **kw))


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft",
                                  "ihfft"])
def test_one_axis(name, norm, dt):
    if name in ("rfft", "ihfft") and dt.kind == "c":
        pytest.skip("real input only (tested below)")
    x = _data(dt, (6, 7))
    for n, axis in [(None, -1), (None, 0), (5, -1), (12, 0)]:
        _both(name, x, n=n, axis=axis, norm=norm)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn",
                                  "hfftn", "ihfftn", "fft2", "ifft2",
                                  "rfft2", "irfft2", "hfft2", "ihfft2"])
def test_n_dimensional(name, dt):
    if name.startswith(("rfft", "ihfft")) and dt.kind == "c":
        pytest.skip("real input only")
    x = _data(dt, (4, 5, 6))
    cases = [{}, {"axes": (0, 2)}, {"s": (3, 8)}, {"s": (-1, 4), "axes": (2, 0)},
             {"norm": "ortho"}, {"norm": "forward", "axes": (1,)}]
    for kw in cases:
        if name.endswith("2") and "axes" in kw and len(kw["axes"]) != 2:
            continue
        _both(name, x, **kw)


@pytest.mark.parametrize("name", ["fftn", "rfftn", "irfftn", "hfftn"])
def test_scalar_s_and_axes(name):
    x = _data("f8", (6, 8))
    _both(name, x, s=5, axes=-1)
    _check(getattr(afft, name)(ad.asarray(x), s=5, axes=-1),
           getattr(sfft, name)(x, s=(5,), axes=(-1,)))


def test_fftn_over_no_axes_copies():
    x = _data("f4", (3, 4))
    _both("fftn", x, axes=())


def test_accepted_keywords():
    x = _data("c8", (8,))
    got = afft.fft(ad.asarray(x), overwrite_x=True, workers=2, plan=None)
    _check(got, sfft.fft(x, overwrite_x=True, workers=2))
    with afft.set_workers(3):
        assert afft.get_workers() == 3
        _check(afft.fft(ad.asarray(x), workers=-1), sfft.fft(x))
    assert afft.get_workers() == 1


@pytest.mark.parametrize("call", [
    lambda m, x: m.fft(x, n=0),
    lambda m, x: m.fft(x, norm="ortho2"),
    lambda m, x: m.fft(x, norm=""),
    lambda m, x: m.fftn(x, axes=(0, 0)),
    lambda m, x: m.fftn(x, s=(2, 2, 2)),
    lambda m, x: m.fftn(x, s=(0, 2)),
    lambda m, x: m.fftn(x, s=(2, 2), axes=(0,)),
    lambda m, x: m.fftn(x, s=2.5),
    lambda m, x: m.fftn(x, axes=(5,)),
    lambda m, x: m.rfftn(x, axes=()),
    lambda m, x: m.fft(x, workers=0),
    lambda m, x: m.rfft(x.astype(complex)),
    lambda m, x: m.fft(x, n=2.0),
    lambda m, x: m.fft(x, plan=object()),
    lambda m, x: m.dct(x, type=5),
    lambda m, x: m.dst(x, type=0),
    lambda m, x: m.dct(x, n=0),
    lambda m, x: m.dct(x, norm="bad"),
    lambda m, x: m.dctn(x, axes=(1, 1)),
    lambda m, x: m.dctn(x, s=(2, 2, 2)),
    lambda m, x: m.dct(x[:, :1], type=1),
    lambda m, x: m.next_fast_len(-1),
    lambda m, x: m.next_fast_len(2.5),
], ids=lambda f: "")
def test_errors_as_scipy(call):
    x = _data("f8", (3, 4))
    with pytest.raises(Exception) as expected:
        call(sfft, x)
    with pytest.raises(expected.type):
        call(afft, ad.asarray(x))


REAL_DTYPES = [np.dtype(t) for t in ("f4", "f8", "c8", "c16", "i4", "?",
                                     "f2")]


@pytest.mark.parametrize("dt", REAL_DTYPES, ids=str)
@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("name", ["dct", "idct", "dst", "idst"])
def test_dct_dst(name, type, dt):
    x = _data(dt, (5, 7))
    for norm in NORMS:
        for n, axis in [(None, -1), (None, 0), (4, -1), (9, 0), (1, 0)]:
            if n == 1 and type == 1 and name.endswith("dct"):
                continue  # SciPy's RuntimeError, tested with the errors
            _both(name, x, type=type, n=n, axis=axis, norm=norm)
        if dt.kind != "c":  # SciPy ignores orthogonalize for complex input
            for orth in (True, False):
                _both(name, x, type=type, norm=norm, orthogonalize=orth)


@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("name", ["dctn", "idctn", "dstn", "idstn"])
def test_dctn_dstn(name, type):
    x = _data("f8", (3, 4, 5))
    for kw in [{}, {"axes": (0, 2)}, {"s": (4, 6)}, {"s": 3, "axes": 1},
               {"norm": "ortho"}, {"norm": "forward", "axes": (-1, 0)}]:
        _both(name, x, type=type, **kw)


@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("kind", ["dct", "dst"])
def test_inverse_round_trip(kind, type):
    x = _data("f8", (6, 5))
    a = ad.asarray(x)
    fwd, inv = getattr(afft, kind), getattr(afft, "i" + kind)
    for norm in NORMS:
        npt.assert_allclose(inv(fwd(a, type, norm=norm), type,
                                norm=norm).get(), x, atol=1e-10)


def test_helpers():
    for real in (False, True):
        for target in [0, 1, 7, 11, 13, 97, 1000, 10007]:
            assert afft.next_fast_len(target, real) == sfft.next_fast_len(
                target, real)
            assert afft.prev_fast_len(target, real) == sfft.prev_fast_len(
                target, real)
    _check(afft.fftfreq(8, 0.5), sfft.fftfreq(8, 0.5))
    _check(afft.rfftfreq(9), sfft.rfftfreq(9))
    x = _data("f4", (4, 5))
    _both("fftshift", x)
    _both("ifftshift", x, axes=1)


def test_scipy_backend():
    x = _data("f4", (4, 6))
    with sfft.set_backend(afft):
        got = sfft.dct(ad.asarray(x), norm="ortho")
        spectrum = sfft.rfft2(ad.asarray(x))
    _check(got, sfft.dct(x, norm="ortho"))
    _check(spectrum, sfft.rfft2(x))


def test_public_names_follow_scipy():
    missing = {"fht", "ifht", "fhtoffset", "set_backend", "skip_backend",
               "set_global_backend", "register_backend"}
    assert set(sfft.__all__) - set(afft.__all__) <= missing
