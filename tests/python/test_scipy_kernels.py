"""The server's filter kernels (server/ops/filters.cc) through arrayd.scipy,
against SciPy: stencils (correlations, rank, min/max filters) over every
dtype they take, lfilter/sosfilt over orders, zi and lengths that cut the
signal into chunks on CUDA, label over structures and dimensions; and the
raw ops' errors on bad arguments."""
from __future__ import annotations

import numpy as np
import pytest

import arrayd as ad
from arrayd import _composite as _c
from arrayd._decompositions import _new_many

sn = pytest.importorskip("scipy.ndimage")
ss = pytest.importorskip("scipy.signal")
from arrayd.scipy import ndimage as an  # noqa: E402
from arrayd.scipy import signal as asig  # noqa: E402

RNG = np.random.default_rng(7)


def _img(shape, dtype):
    if np.dtype(dtype).kind == "b":
        return RNG.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(0, 100, shape).astype(dtype)
    return (RNG.standard_normal(shape) * 10).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8, np.int64])
@pytest.mark.parametrize("size", [3, (3, 5), 7])
@pytest.mark.parametrize("mode", ["reflect", "constant", "wrap", "nearest"])
def test_median_filter(dtype, size, mode):
    x = _img((37, 41), dtype)
    ref = sn.median_filter(x, size=size, mode=mode, cval=1)
    res = an.median_filter(ad.asarray(x), size=size, mode=mode, cval=1)
    assert res.dtype == ref.dtype
    np.testing.assert_array_equal(ad.asnumpy(res), ref)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
@pytest.mark.parametrize("how", ["minimum_filter", "maximum_filter"])
def test_min_max_footprint(dtype, how):
    x = _img((30, 33), dtype)
    fp = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 1]], bool)
    ref = getattr(sn, how)(x, footprint=fp, mode="mirror")
    res = getattr(an, how)(ad.asarray(x), footprint=fp, mode="mirror")
    np.testing.assert_array_equal(ad.asnumpy(res), ref)


@pytest.mark.parametrize("rank", [0, 1, 4, -1, -3])
def test_rank_filter_3d(rank):
    x = _img((9, 10, 11), np.float64)
    ref = sn.rank_filter(x, rank, size=(2, 3, 2), mode="reflect")
    res = an.rank_filter(ad.asarray(x), rank, size=(2, 3, 2), mode="reflect")
    np.testing.assert_array_equal(ad.asnumpy(res), ref)


def test_percentile_filter_large_footprint():
    x = _img((40, 40), np.float32)
    ref = sn.percentile_filter(x, 30, size=15)  # 225 taps: the kernel's largest bucket
    res = an.percentile_filter(ad.asarray(x), 30, size=15)
    np.testing.assert_array_equal(ad.asnumpy(res), ref)


MODES = ["reflect", "mirror", "nearest", "wrap", "constant", "grid-mirror", "grid-wrap",
         "grid-constant"]


@pytest.mark.parametrize("mode", MODES)
def test_boundary_modes_in_the_kernel(mode):
    # Footprints wider than the image (the extension repeats), origins,
    # strided and 1-D / 3-D inputs: the kernel's boundary against SciPy's.
    x = _img((7, 40), np.float64)
    xv = x[:, ::3]  # 7 x 14, strided
    for size, origin in [((3, 3), 0), ((5, 9), (1, -2)), ((15, 1), 0), ((1, 31), (0, 3))]:
        for f in ("median_filter", "minimum_filter", "uniform_filter"):
            kw = {"size": size, "mode": mode, "cval": 2.5, "origin": origin}
            ref = getattr(sn, f)(xv, **kw)
            res = getattr(an, f)(ad.asarray(x)[:, ::3], **kw)
            np.testing.assert_allclose(ad.asnumpy(res), ref, rtol=1e-12, atol=1e-12,
                                       err_msg=f"{f} {size} {origin}")
    w = RNG.standard_normal((3, 4, 2))
    v = _img((5, 6, 4), np.float32)
    np.testing.assert_allclose(ad.asnumpy(an.correlate(ad.asarray(v), w, mode=mode, cval=-1)),
                               sn.correlate(v, w, mode=mode, cval=-1), rtol=1e-5, atol=1e-4)
    fp = RNG.random((3, 5, 3)) > 0.4
    np.testing.assert_array_equal(
        ad.asnumpy(an.rank_filter(ad.asarray(v), 2, footprint=fp, mode=mode, cval=3)),
        sn.rank_filter(v, 2, footprint=fp, mode=mode, cval=3))
    line = _img((9,), np.int32)
    for size in (1, 4, 20):
        np.testing.assert_array_equal(
            ad.asnumpy(an.maximum_filter1d(ad.asarray(line), size, mode=mode, cval=7)),
            sn.maximum_filter1d(line, size, mode=mode, cval=7))
        np.testing.assert_allclose(
            ad.asnumpy(an.correlate1d(ad.asarray(line.astype(np.float32)), np.arange(size) - 1.5,
                                      mode=mode, cval=7)),
            sn.correlate1d(line.astype(np.float32), np.arange(size) - 1.5, mode=mode, cval=7),
            rtol=1e-5, atol=1e-4)


def test_stencil_with_a_mode_op_errors():
    x = ad.zeros((5, 5), dtype=np.float32)
    with pytest.raises(ValueError, match="mode"):
        _op("stencil", (x,), (5, 5), np.float32, {"taps": [0, 0], "shape": [5, 5], "rank": 0,
                                                  "mode": "bogus"})
    with pytest.raises(ValueError, match="x's shape"):
        _op("stencil", (x,), (4, 5), np.float32, {"taps": [0, 0], "shape": [4, 5], "rank": 0,
                                                  "mode": "edge"})
    with pytest.raises(ValueError, match="footprint"):
        _op("stencil", (x,), (5, 5), np.float32, {"taps": [0, -200, 0, 100], "shape": [5, 5],
                                                  "rank": 0, "mode": "edge"})
    with pytest.raises(ValueError, match="footprint"):
        _op("stencil", (x,), (5, 5), np.float32, {"taps": [0, 1 << 40], "shape": [5, 5],
                                                  "rank": 0, "mode": "wrap"})
    with pytest.raises(ValueError, match="empty"):
        e = ad.zeros((0, 5), dtype=np.float32)
        _op("stencil", (e,), (0, 5), np.float32, {"taps": [0, 0], "shape": [0, 5], "rank": 0,
                                                  "mode": "wrap"})
    assert float(ad.asnumpy((x + 1).sum())) == 25.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_correlate_nd(dtype):
    x = _img((31, 29), np.float64).astype(dtype)
    w = RNG.standard_normal((4, 5))
    ref = sn.correlate(x, w, mode="nearest")
    res = an.correlate(ad.asarray(x), w, mode="nearest")
    tol = 1e-4 if np.dtype(dtype).char in "fF" else 1e-10
    np.testing.assert_allclose(ad.asnumpy(res), ref, rtol=tol, atol=tol * 100)


@pytest.mark.parametrize("sigma", [0.7, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint16])
def test_gaussian_and_uniform(sigma, dtype):
    x = _img((50, 47), dtype)
    ref = sn.gaussian_filter(x, sigma)
    res = an.gaussian_filter(ad.asarray(x), sigma)
    assert res.dtype == ref.dtype
    np.testing.assert_allclose(ad.asnumpy(res).astype(float), ref.astype(float),
                               rtol=1e-4, atol=1 if dtype == np.uint16 else 1e-4)
    ref = sn.uniform_filter(x, 5, mode="wrap")
    res = an.uniform_filter(ad.asarray(x), 5, mode="wrap")
    np.testing.assert_allclose(ad.asnumpy(res).astype(float), ref.astype(float),
                               rtol=1e-4, atol=1 if dtype == np.uint16 else 1e-4)


@pytest.mark.parametrize("order", [1, 2, 4, 8])
@pytest.mark.parametrize("n", [50, 3000, 70000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_lfilter(order, n, dtype):
    b, a = ss.butter(order, 0.15)
    x = RNG.standard_normal((2, n)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal((2, n))
    zi = RNG.standard_normal((2, max(len(a), len(b)) - 1))
    ref, zref = ss.lfilter(b, a, x, zi=zi)
    res, zres = asig.lfilter(ad.asarray(b), ad.asarray(a), ad.asarray(x), zi=ad.asarray(zi))
    assert res.dtype == ref.dtype
    tol = 2e-4 if np.dtype(dtype).char in "fF" else 1e-9
    np.testing.assert_allclose(ad.asnumpy(res), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(ad.asnumpy(zres), zref, rtol=tol, atol=tol)


def test_lfilter_fir_and_axis0():
    b = ss.firwin(31, 0.2)
    x = RNG.standard_normal((5000, 3))
    ref = ss.lfilter(b, [1.0], x, axis=0)
    res = asig.lfilter(ad.asarray(b), ad.asarray([1.0]), ad.asarray(x), axis=0)
    np.testing.assert_allclose(ad.asnumpy(res), ref, rtol=1e-10, atol=1e-12)


def test_sosfilt_long():
    sos = ss.butter(8, 0.05, output="sos")
    x = RNG.standard_normal(100_000)
    ref = ss.sosfilt(sos, x)
    res = asig.sosfilt(ad.asarray(sos), ad.asarray(x))
    np.testing.assert_allclose(ad.asnumpy(res), ref, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("shape,connectivity", [((60, 70), 1), ((60, 70), 2),
                                                ((12, 13, 14), 1), ((12, 13, 14), 3),
                                                ((500,), 1), ((300, 401), 2),
                                                ((70000,), 1)])
def test_label(shape, connectivity):
    x = RNG.random(shape) > 0.55
    st = sn.generate_binary_structure(len(shape), connectivity)
    ref, nref = sn.label(x, structure=st)
    res, n = an.label(ad.asarray(x), structure=st)
    assert n == nref
    assert res.dtype == ref.dtype
    np.testing.assert_array_equal(ad.asnumpy(res), ref)


@pytest.mark.parametrize("fill", [False, True])
def test_label_uniform(fill):
    # No component, and one covering many of the numbering's chunks.
    x = np.full((257, 300), fill)
    res, n = an.label(ad.asarray(x))
    assert n == int(fill)
    np.testing.assert_array_equal(ad.asnumpy(res), x.astype(np.int32))


def test_label_snake():
    # One component that winds through the whole image: the worst case of
    # propagation by rounds, one union-find pass here.
    x = np.zeros((64, 64), bool)
    x[::2, :] = True
    x[1::4, -1] = True
    x[3::4, 0] = True
    ref, nref = sn.label(x)
    res, n = an.label(ad.asarray(x))
    assert n == nref == 1
    np.testing.assert_array_equal(ad.asnumpy(res), ref)


def _op(name, inputs, shape, dtype, attrs):
    s = inputs[0]._session
    return ad.asnumpy(_c.new(s, name, inputs, shape, np.dtype(dtype), attrs))


def _label_op(mask, neighbors):
    labels, count = _new_many(mask._session, "label", (mask,),
                              [(mask.shape, np.dtype(np.int32)), ((), np.dtype(np.int64))],
                              {"neighbors": neighbors})
    return ad.asnumpy(labels), int(count)


def test_raw_op_errors():
    p = ad.zeros((5, 5), dtype=np.float32)
    with pytest.raises(ValueError, match="reaches outside"):
        _op("stencil", (p,), (3, 3), np.float32, {"taps": [0, 0, 3, 0], "shape": [3, 3],
                                                  "rank": 0})
    with pytest.raises(ValueError, match="rank"):
        _op("stencil", (p,), (3, 3), np.float32, {"taps": [0, 0, 1, 1], "shape": [3, 3],
                                                  "rank": 2})
    with pytest.raises(ValueError, match="taps"):
        _op("stencil", (p,), (5, 5), np.float32, {"taps": [0] * (2 * 257), "shape": [5, 5],
                                                  "rank": 0})
    with pytest.raises(TypeError):
        _op("stencil", (ad.zeros((3, 3), dtype=np.complex64),), (3, 3), np.complex64,
            {"taps": [0, 0], "shape": [3, 3], "rank": 0})
    with pytest.raises(ValueError, match="beyond"):
        _label_op(ad.zeros((3, 3), dtype=bool), [-(1 << 62), 0])
    with pytest.raises(ValueError, match="neighbors"):
        _label_op(ad.zeros((3, 3), dtype=bool), [-1])
    with pytest.raises(TypeError):
        y, _ = _new_many(p._session, "lfilter",
                         (ad.ones(2), ad.ones(1), ad.ones((2, 3), dtype=np.int32)),
                         [((2, 3), np.dtype(np.int32)), ((2, 1), np.dtype(np.int32))])
        y.get()
    # The server keeps serving.
    assert float(ad.asnumpy((p + 1).sum())) == 25.0


def _resample_ref(x, index, weights, axis):
    xm = np.moveaxis(x, axis, -1)
    idx = np.clip(index, 0, xm.shape[-1] - 1)
    return np.moveaxis((xm[..., idx] * weights).sum(axis=-1), -1, axis)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_resample_op(dtype, axis):
    # Rows of 1, 6 and 40 elements around the axis; indices past both ends
    # are clipped, as take(mode='clip').
    from arrayd.scipy import _kernels  # noqa: PLC0415
    x = _img((6, 9, 40), dtype)
    n = x.shape[axis]
    index = RNG.integers(-3, n + 3, (2 * n + 1, 4))
    weights = RNG.standard_normal(index.shape)
    res = _kernels.resample(ad.asarray(x), index, weights, axis)
    ref = _resample_ref(x, index, weights.astype(dtype), axis)
    assert res.dtype == x.dtype and res.shape == ref.shape
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(ad.asnumpy(res), ref, rtol=tol, atol=tol * 100)
    # A strided input is copied first.
    xt = ad.asarray(x)[:, ::2]
    n = xt.shape[axis]
    index = RNG.integers(0, n, (3, 2))
    res = _kernels.resample(xt, index, np.ones((3, 2)), axis)
    np.testing.assert_allclose(ad.asnumpy(res),
                               _resample_ref(x[:, ::2], index, np.ones((3, 2)), axis),
                               rtol=tol, atol=tol * 100)


def test_resample_op_errors():
    x = ad.zeros((4, 5), dtype=np.float64)
    idx, w = ad.zeros((3, 2), dtype=np.int64), ad.ones((3, 2))
    with pytest.raises(TypeError, match="floating"):
        _op("resample", (ad.zeros((4, 5), dtype=np.int32), idx, w), (3, 5), np.int32,
            {"axis": 0})
    with pytest.raises(TypeError, match="integer"):
        _op("resample", (x, w, w), (3, 5), np.float64, {"axis": 0})
    with pytest.raises(ValueError, match="both be"):
        _op("resample", (x, idx, ad.ones((3, 3))), (3, 5), np.float64, {"axis": 0})
    with pytest.raises(ValueError, match="both be"):
        _op("resample", (x, ad.zeros((3, 0), dtype=np.int64), ad.ones((3, 0))), (3, 5),
            np.float64, {"axis": 0})
    with pytest.raises(np.exceptions.AxisError):
        _op("resample", (x, idx, w), (3, 5), np.float64, {"axis": 2})
    with pytest.raises(ValueError, match="empty"):
        _op("resample", (ad.zeros((0, 5)), idx, w), (3, 5), np.float64, {"axis": 0})
    assert float(ad.asnumpy((x + 1).sum())) == 20.0


MODES = ["constant", "nearest", "mirror", "wrap", "reflect", "grid-mirror",
         "grid-wrap", "grid-constant"]


def _composed_interp(coeffs, coords, order, mode, cval, shift, nbatch=0):
    """map_coordinates composed from gathers (the client's path where the
    op does not apply): the op's reference, non-finite points included."""
    from arrayd.scipy.ndimage import _interpolation as zi  # noqa: PLC0415
    c = ad.asarray(coords).astype(np.float64)
    points = [c[a] + shift for a in range(c.shape[0])]
    axes = list(range(nbatch, coeffs.ndim))
    padded = zi._pad_coeffs(ad.asarray(coeffs), axes, order, mode, cval)
    return ad.asnumpy(zi._interp_general(padded, points, order, mode, cval, nbatch))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("shape", [(1,), (9,), (7, 5), (6, 1, 4), (3, 4, 2, 3)])
def test_map_coordinates_op(mode, order, shape):
    # Against the composition: 1 to 4 axes (4: the kernel's runtime d and
    # order), points inside and past both ends; NaN, infinite and beyond
    # int64 read inside the input.
    from arrayd.scipy import _kernels  # noqa: PLC0415
    coeffs = RNG.standard_normal(shape)
    d = len(shape)
    coords = RNG.uniform(-2.5, max(shape) + 2.5, (d, 23))
    coords[:, :4] = np.round(coords[:, :4])   # integers (order 0's halves)
    coords[:, 4] += 0.5
    coords[0, 5:9] = [np.nan, np.inf, -np.inf, 1e30]
    for cdt in (np.float64, np.float32):
        c = coords.astype(cdt)
        res = _kernels.map_coordinates(ad.asarray(coeffs), ad.asarray(c), order, mode,
                                       1.5, 0.25)
        ref = _composed_interp(coeffs, c, order, mode, 1.5, 0.25)
        assert res.shape == ref.shape and res.dtype == np.float64
        got = ad.asnumpy(res)
        finite = np.r_[0:5, 9:23]
        np.testing.assert_allclose(got[finite], ref[finite], rtol=1e-9, atol=1e-9)
        # Past int64 the taps read the padding's ends (the composition's
        # cast differs by backend there); under constant, cval.
        if mode == "constant":
            np.testing.assert_array_equal(got[5:9], 1.5)


@pytest.mark.parametrize("order", [1, 3])
def test_map_coordinates_op_batch_and_float32(order):
    # Leading axes of coeffs are a batch; float32 coefficients give float32.
    from arrayd.scipy import _kernels  # noqa: PLC0415
    coeffs = RNG.standard_normal((3, 2, 8, 6))
    coords = RNG.uniform(-1, 9, (2, 5, 4))
    res = _kernels.map_coordinates(ad.asarray(coeffs), ad.asarray(coords), order,
                                   "reflect", 0.0)
    ref = _composed_interp(coeffs, coords, order, "reflect", 0.0, 0.0, nbatch=2)
    assert res.shape == (3, 2, 5, 4)
    np.testing.assert_allclose(ad.asnumpy(res), ref, rtol=1e-9, atol=1e-9)
    c32 = coeffs.astype(np.float32)
    res = _kernels.map_coordinates(ad.asarray(c32), ad.asarray(coords), order,
                                   "reflect", 0.0)
    assert res.dtype == np.float32
    np.testing.assert_allclose(ad.asnumpy(res), ref, rtol=1e-4, atol=1e-4)
    # Strided inputs are copied first.
    big = ad.asarray(coeffs)[:, :, ::2]
    res = _kernels.map_coordinates(big, ad.asarray(coords)[:, ::2], order, "nearest", 0.0)
    ref = _composed_interp(coeffs[:, :, ::2], coords[:, ::2], order, "nearest", 0.0, 0.0,
                           nbatch=2)
    np.testing.assert_allclose(ad.asnumpy(res), ref, rtol=1e-9, atol=1e-9)


def test_map_coordinates_op_errors():
    x = ad.zeros((4, 5))
    c = ad.zeros((2, 3))
    attrs = {"order": 3, "mode": "constant", "cval": 0.0, "shift": 0.0}
    with pytest.raises(TypeError, match="coeffs must be"):
        _op("map_coordinates", (ad.zeros((4, 5), dtype=np.int32), c), (3,), np.int32, attrs)
    with pytest.raises(TypeError, match="coords must be"):
        _op("map_coordinates", (x, ad.zeros((2, 3), dtype=np.int64)), (3,), np.float64,
            attrs)
    with pytest.raises(ValueError, match="coords must be"):
        _op("map_coordinates", (x, ad.zeros((3, 3))), (3,), np.float64, attrs)
    with pytest.raises(ValueError, match="coords must be"):
        _op("map_coordinates", (x, ad.zeros(())), (), np.float64, attrs)
    with pytest.raises(ValueError, match="order"):
        _op("map_coordinates", (x, c), (3,), np.float64, {**attrs, "order": 6})
    with pytest.raises(ValueError, match="mode"):
        _op("map_coordinates", (x, c), (3,), np.float64, {**attrs, "mode": "edge"})
    with pytest.raises(ValueError, match="empty"):
        _op("map_coordinates", (ad.zeros((0, 5)), c), (3,), np.float64, attrs)
    # No points: an empty result, even of an empty input.
    assert _op("map_coordinates", (ad.zeros((0, 5)), ad.zeros((2, 0))), (0,), np.float64,
               attrs).shape == (0,)
    assert float(ad.asnumpy((x + 1).sum())) == 20.0


def test_map_coordinates_large_against_scipy():
    # Many points (the kernel's grid-stride loop) against SciPy itself.
    img = RNG.standard_normal((64, 48)).astype(np.float32)
    coords = RNG.uniform(-3, 66, (2, 300, 200)).astype(np.float32)
    for order in (1, 3):
        ref = sn.map_coordinates(img, coords, order=order, mode="nearest")
        res = an.map_coordinates(ad.asarray(img), ad.asarray(coords), order=order,
                                 mode="nearest")
        assert res.dtype == np.float32
        np.testing.assert_allclose(ad.asnumpy(res), ref, rtol=1e-4, atol=1e-4)


def test_tables_upload_once_a_session():
    from arrayd.scipy import _kernels as k
    s = ad.ones(1)._session
    big = np.arange(1000, dtype=np.float64)
    first = k.table(s, big)
    # A writable array may change: uploaded again each time.
    assert k.table(s, big) is not first
    big.flags.writeable = False
    ro = k.table(s, big)
    assert k.table(s, big) is ro
    # A small table is keyed by its contents.
    small = np.array([1.0, 2.0, 3.0])
    assert k.table(s, small.copy()) is k.table(s, small.copy())
    assert k.table(s, small * 2) is not k.table(s, small)
    np.testing.assert_array_equal(ad.asnumpy(ro), big)
    np.testing.assert_array_equal(ad.asnumpy(k.table(s, small)), small)


_SPLINE_PAD = {"mirror": "reflect", "reflect": "symmetric", "grid-mirror": "symmetric",
               "grid-wrap": "wrap"}


@pytest.mark.parametrize("order", [2, 3, 4, 5])
@pytest.mark.parametrize("mode", list(_SPLINE_PAD))
def test_spline_filter1d_op(order, mode):
    from arrayd.scipy import _kernels as k
    x = RNG.standard_normal((7, 150, 3))
    for axis in (0, 1, 2, -1):
        # SciPy's reflect start is cut at one period: on short axes it
        # differs by pole**(2n) (arrayd.scipy uses SciPy's matrix there).
        if x.shape[axis] < 20 and mode not in ("mirror", "grid-wrap"):
            continue
        ref = sn.spline_filter1d(x, order, axis=axis, mode=mode)
        res = k.spline_filter1d(ad.asarray(x), order, axis, _SPLINE_PAD[mode])
        np.testing.assert_allclose(ad.asnumpy(res), ref, rtol=1e-12, atol=1e-12)


def test_spline_filter1d_op_dtypes_and_long_lines():
    from arrayd.scipy import _kernels as k
    x = RNG.standard_normal(5000) + 1j * RNG.standard_normal(5000)
    ref = sn.spline_filter1d(x.real, 3, mode="mirror") + 1j * sn.spline_filter1d(
        x.imag, 3, mode="mirror")
    res = k.spline_filter1d(ad.asarray(x), 3, 0, "reflect")
    assert res.dtype == np.complex128
    np.testing.assert_allclose(ad.asnumpy(res), ref, rtol=1e-12, atol=1e-12)
    x32 = RNG.standard_normal((90, 80)).astype(np.float32)
    res = k.spline_filter1d(ad.asarray(x32), 4, 1, "reflect")
    assert res.dtype == np.float32
    np.testing.assert_allclose(ad.asnumpy(res), sn.spline_filter1d(x32, 4, axis=1),
                               rtol=1e-4, atol=1e-4)
    # The public function on a long axis goes through the op.
    img = RNG.standard_normal((300, 200))
    np.testing.assert_allclose(ad.asnumpy(an.spline_filter(ad.asarray(img), 3)),
                               sn.spline_filter(img, 3), rtol=1e-12, atol=1e-12)


def test_spline_filter1d_op_errors():
    x = ad.ones((4, 100))
    attrs = {"axis": 1, "order": 3, "mode": "reflect"}
    with pytest.raises(ValueError, match="order"):
        _op("spline_filter1d", (x,), (4, 100), np.float64, dict(attrs, order=1))
    with pytest.raises(ValueError, match="mode"):
        _op("spline_filter1d", (x,), (4, 100), np.float64, dict(attrs, mode="constant"))
    with pytest.raises(ValueError, match="unknown mode"):
        _op("spline_filter1d", (x,), (4, 100), np.float64, dict(attrs, mode="mirror"))
    with pytest.raises(np.exceptions.AxisError):
        _op("spline_filter1d", (x,), (4, 100), np.float64, dict(attrs, axis=2))
    with pytest.raises(TypeError, match="floating"):
        _op("spline_filter1d", (ad.ones((4, 100), dtype=np.int32),), (4, 100), np.int32, attrs)
    assert float(ad.asnumpy(x.sum())) == 400.0
