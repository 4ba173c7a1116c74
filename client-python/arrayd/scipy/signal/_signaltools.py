"""scipy.signal's signal tools on the server: convolution and correlation
(n-D, 2-D with boundaries), linear filtering (lfilter, filtfilt, sosfilt,
sosfiltfilt), the analytic signal, detrending, median and Wiener filters,
resampling and decimation.

Convolution runs either directly (sliding windows of the padded input
contracted with the flipped kernel: exact, for integers too) or by FFT
(arrayd.fft's rfftn/fftn); ``method='auto'`` asks choose_conv_method as
SciPy does. Every recurrence goes through _linear_filter.linear_filter.
Initial conditions (lfilter_zi, sosfilt_zi, lfiltic) are computed on the
host from the coefficients, as filter design is.

Layer: a module of the arrayd.scipy.signal namespace (imports arrayd's
public namespace and the package's helpers).
"""
from __future__ import annotations

import math
import operator
import warnings
from typing import Any

import numpy as np
import scipy.fft as _sfft
import scipy.signal as _ss

import arrayd as ad
from arrayd.lib.stride_tricks import sliding_window_view
from arrayd.scipy.signal import _arraytools as _at
from arrayd.scipy.signal import _upfirdn
from arrayd.scipy.signal._linear_filter import linear_filter

_MODES = ("full", "same", "valid")
# Elements of the window tensor a direct convolution may build; above it
# a float convolution goes by FFT.
_DIRECT_LIMIT = 1 << 25


# -- convolution ---------------------------------------------------------------

def _check_mode(mode: Any) -> str:
    if mode not in _MODES:
        raise ValueError("acceptable mode flags are 'valid', 'same', or "
                         "'full'")
    return mode


def _swap_needed(mode: str, s1: tuple, s2: tuple, axes: Any = None) -> bool:
    """Whether 'valid' needs in2 as the larger input (and raise if neither
    is at least as large as the other on every axis)."""
    if mode != "valid":
        return False
    axes = range(len(s1)) if axes is None else axes
    ge = all(s1[i] >= s2[i] for i in axes)
    le = all(s1[i] <= s2[i] for i in axes)
    if not (ge or le):
        raise ValueError("For 'valid' mode, one must be at least as large "
                         "as the other in every dimension")
    return not ge


def _centered(a: ad.ndarray, shape: Any, axes: Any = None) -> ad.ndarray:
    """The centered part of a of the given shape on axes."""
    idx = [slice(None)] * a.ndim
    for i in (range(a.ndim) if axes is None else axes):
        start = (a.shape[i] - shape[i]) // 2
        idx[i] = slice(start, start + shape[i])
    return a[tuple(idx)]


def _crop(full: ad.ndarray, mode: str, s1: tuple, s2: tuple,
          axes: Any = None) -> ad.ndarray:
    axes = list(range(full.ndim)) if axes is None else axes
    if mode == "full":
        out = full
    elif mode == "same":
        # Every axis to in1's length, broadcast ones too (SciPy's).
        out = _centered(full, s1)
    else:
        shape = list(full.shape)
        for i in axes:
            shape[i] = abs(s1[i] - s2[i]) + 1
        out = _centered(full, shape, axes)
    return ad.ascontiguousarray(out)


def _direct_full(in1: ad.ndarray, in2: ad.ndarray, dt: np.dtype
                 ) -> ad.ndarray:
    """The full n-D convolution by sliding windows (exact)."""
    nd = in1.ndim
    pads = [(k - 1, k - 1) for k in in2.shape]
    p = ad.pad(in1.astype(dt, copy=False), pads)
    win = sliding_window_view(p, in2.shape)
    k = ad.flip(in2.astype(dt, copy=False))
    return ad.tensordot(win, k, axes=(list(range(nd, 2 * nd)),
                                      list(range(nd))))


def _fft_full(in1: ad.ndarray, in2: ad.ndarray, axes: list[int],
              dt: np.dtype) -> ad.ndarray:
    """The full convolution by FFT on axes (others broadcast)."""
    shape = [in1.shape[i] + in2.shape[i] - 1 for i in axes]
    fshape = [_sfft.next_fast_len(n, real=dt.kind != "c") for n in shape]
    if dt.kind == "c":
        sp = ad.fft.fftn(in1.astype(dt, copy=False), fshape, axes=axes) * \
            ad.fft.fftn(in2.astype(dt, copy=False), fshape, axes=axes)
        ret = ad.fft.ifftn(sp, fshape, axes=axes)
    else:
        sp = ad.fft.rfftn(in1.astype(dt, copy=False), fshape, axes=axes) * \
            ad.fft.rfftn(in2.astype(dt, copy=False), fshape, axes=axes)
        ret = ad.fft.irfftn(sp, fshape, axes=axes)
    idx = [slice(None)] * ret.ndim
    for i, n in zip(axes, shape):
        idx[i] = slice(0, n)
    return ret[tuple(idx)]


def _init_axes(in1: ad.ndarray, in2: ad.ndarray, axes: Any) -> list[int]:
    if axes is None:
        axes = list(range(in1.ndim))
    else:
        axes = [_at.normalize_axis(a, in1.ndim)
                for a in np.atleast_1d(axes).tolist()]
        if len(set(axes)) != len(axes):
            raise ValueError("all axes must be unique")
    for i in range(in1.ndim):
        if i not in axes and in1.shape[i] != in2.shape[i] and \
                1 not in (in1.shape[i], in2.shape[i]):
            raise ValueError("incompatible shapes for in1 and in2: "
                             f"{in1.shape} and {in2.shape}")
    # An axis where either input has length 1 is a broadcast, not a
    # convolution (SciPy drops it too).
    return [a for a in axes if in1.shape[a] != 1 and in2.shape[a] != 1]


def fftconvolve(in1: Any, in2: Any, mode: str = "full",
                axes: Any = None) -> ad.ndarray:
    """scipy.signal.fftconvolve: the n-D convolution by FFT on axes
    (default all; the other axes broadcast)."""
    in1, in2 = _at.asarray(in1), _at.asarray(in2)
    _check_mode(mode)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    dt = _at.float_dtype(in1.dtype, in2.dtype)
    if in1.ndim == 0:
        return in1 * in2
    if in1.size == 0 or in2.size == 0:
        return ad.zeros((0,) * in1.ndim, dt)
    axes = _init_axes(in1, in2, axes)
    if _swap_needed(mode, in1.shape, in2.shape, axes):
        in1, in2 = in2, in1
    if not axes:
        # Only broadcast axes: the product, cropped by mode as SciPy's.
        return _crop(in1 * in2, mode, in1.shape, in2.shape, axes)
    full = _fft_full(in1, in2, axes, dt)
    return _crop(full, mode, in1.shape, in2.shape, axes).astype(dt,
                                                                copy=False)


def oaconvolve(in1: Any, in2: Any, mode: str = "full",
               axes: Any = None) -> ad.ndarray:
    """scipy.signal.oaconvolve: the n-D convolution (computed by one FFT
    of the whole extent here, not overlap-add blocks; the values agree to
    rounding)."""
    return fftconvolve(in1, in2, mode, axes)


def choose_conv_method(in1: Any, in2: Any, mode: str = "full",
                       measure: bool = False) -> Any:
    """scipy.signal.choose_conv_method: 'direct' or 'fft', by SciPy's own
    rule on the inputs' shapes and dtypes (for integers, their largest
    magnitudes, read from the server). measure=True is not supported."""
    if measure:
        raise NotImplementedError("choose_conv_method(measure=True)")
    a, b = _at.asarray(in1), _at.asarray(in2)
    stand = []
    for x in (a, b):
        v = 0
        if x.dtype.kind in "iub" and x.size:
            v = ad.abs(x).max().item()
        stand.append(np.broadcast_to(np.array(v, x.dtype), x.shape))
    return _ss.choose_conv_method(stand[0], stand[1], mode=mode)


def convolve(in1: Any, in2: Any, mode: str = "full",
             method: str = "auto") -> ad.ndarray:
    """scipy.signal.convolve: the n-D convolution; method 'direct' (exact,
    integer results for integer inputs), 'fft' or 'auto'."""
    a, b = _at.asarray(in1), _at.asarray(in2)
    _check_mode(mode)
    if method not in ("auto", "direct", "fft"):
        raise ValueError("Acceptable method flags are 'auto', 'direct', or "
                         "'fft'.")
    if a.ndim == b.ndim == 0:
        return a * b
    if a.ndim != b.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if a.size == 0 or b.size == 0:
        return ad.zeros((0,) * a.ndim, np.result_type(a.dtype, b.dtype))
    if method == "auto":
        method = choose_conv_method(a, b, mode)
    if method == "fft":
        out = fftconvolve(a, b, mode)
        dt = np.result_type(a.dtype, b.dtype)
        if dt.kind in "iub":
            out = ad.rint(out)
        return out.astype(dt, copy=False)
    if _swap_needed(mode, a.shape, b.shape):
        a, b = b, a
    dt = np.result_type(a.dtype, b.dtype)
    numpy_ok = a.ndim == 1 and (mode != "same" or a.size >= b.size)
    if dt in (np.bool_, np.float16) and not numpy_ok:
        # SciPy's n-D direct convolution has no kernel for these (its 1-D
        # one is numpy.convolve, which has).
        raise ValueError("Unsupported type")
    if dt == np.bool_:
        full = _direct_full(a, b, np.dtype(np.int64)) != 0
    elif a.size * b.size > _DIRECT_LIMIT and dt.kind in "fc":
        full = _fft_full(a, b, list(range(a.ndim)), dt)
    else:
        full = _direct_full(a, b, dt)
    return _crop(full, mode, a.shape, b.shape).astype(dt, copy=False)


def _reverse_conj(x: ad.ndarray) -> ad.ndarray:
    x = ad.flip(x)
    return ad.conj(x) if x.dtype.kind == "c" else x


def correlate(in1: Any, in2: Any, mode: str = "full",
              method: str = "auto") -> ad.ndarray:
    """scipy.signal.correlate: the n-D cross-correlation, sum of in1
    shifted times conj(in2)."""
    a, b = _at.asarray(in1), _at.asarray(in2)
    _check_mode(mode)
    if a.ndim == b.ndim == 0:
        return a * (ad.conj(b) if b.dtype.kind == "c" else b)
    if a.ndim != b.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode == "valid" and _swap_needed(mode, a.shape, b.shape):
        return ad.ascontiguousarray(
            _reverse_conj(convolve(b, _reverse_conj(a), mode, method)))
    return convolve(a, _reverse_conj(b), mode, method)


def correlation_lags(in1_len: int, in2_len: int, mode: str = "full"
                     ) -> ad.ndarray:
    """scipy.signal.correlation_lags: the lag of each output of a 1-D
    correlation of the given lengths."""
    return ad.asarray(_ss.correlation_lags(in1_len, in2_len, mode))


_BOUNDARY = {"fill": "constant", "pad": "constant", "wrap": "wrap",
             "circular": "wrap", "symm": "symmetric",
             "symmetric": "symmetric"}


def _conv2d(in1: Any, in2: Any, mode: str, boundary: str, fillvalue: Any,
            flip: bool) -> ad.ndarray:
    a, b = _at.asarray(in1), _at.asarray(in2)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"{'convolve2d' if flip else 'correlate2d'} inputs "
                         "must both be 2-D arrays")
    _check_mode(mode)
    if boundary not in _BOUNDARY:
        raise ValueError("Acceptable boundary flags are 'fill', 'circular' "
                         "(or 'wrap'), and 'symmetric' (or 'symm').")
    swapped = _swap_needed(mode, a.shape, b.shape)
    if swapped:
        a, b = b, a
    dt = np.result_type(a.dtype, b.dtype)
    if dt in (np.bool_, np.float16):
        raise ValueError("convolve2d not available for this type.")
    if a.size == 0 or b.size == 0:
        return ad.zeros((0, 0), dt)
    if not flip:
        b = _reverse_conj(b)
    pads = [(k - 1, k - 1) for k in b.shape]
    kind = _BOUNDARY[boundary]
    if kind == "constant":
        fv = np.asarray(fillvalue)
        if fv.size != 1:
            raise ValueError("fillvalue must be scalar or an array with one "
                             "element.")
        p = ad.pad(a.astype(dt, copy=False), pads, mode="constant",
                   constant_values=fv.reshape(()).item())
    else:
        p = ad.pad(a.astype(dt, copy=False), pads, mode=kind)
    win = sliding_window_view(p, b.shape)
    full = ad.tensordot(win, ad.flip(b.astype(dt, copy=False)),
                        axes=([2, 3], [0, 1]))
    if mode == "same" and not flip:
        # correlate2d's 'same' window starts k // 2 into the full result
        # (convolve2d's at (k - 1) // 2).
        r0, c0 = b.shape[0] // 2, b.shape[1] // 2
        out = ad.ascontiguousarray(full[r0:r0 + a.shape[0],
                                        c0:c0 + a.shape[1]])
    else:
        out = _crop(full, mode, a.shape, b.shape)
    if swapped and not flip:
        # SciPy's correlate2d reverses the swapped result without
        # conjugating it (its n-D correlate conjugates too).
        out = ad.ascontiguousarray(ad.flip(out))
    return out


def convolve2d(in1: Any, in2: Any, mode: str = "full",
               boundary: str = "fill", fillvalue: Any = 0) -> ad.ndarray:
    """scipy.signal.convolve2d: 2-D convolution with the boundary 'fill'
    (fillvalue), 'wrap' or 'symm' (direct, exact)."""
    return _conv2d(in1, in2, mode, boundary, fillvalue, True)


def correlate2d(in1: Any, in2: Any, mode: str = "full",
                boundary: str = "fill", fillvalue: Any = 0) -> ad.ndarray:
    """scipy.signal.correlate2d: 2-D cross-correlation with the boundary
    'fill', 'wrap' or 'symm'."""
    return _conv2d(in1, in2, mode, boundary, fillvalue, False)


# -- linear filters ------------------------------------------------------------

def _coefficients(b: Any, a: Any) -> tuple[np.ndarray, np.ndarray]:
    b = np.atleast_1d(_at.host(b))
    a = np.atleast_1d(_at.host(a))
    if b.ndim != 1 or a.ndim != 1:
        raise ValueError("object of too small depth for desired array")
    if a.size == 0 or b.size == 0:
        raise ValueError("Empty coefficient arrays are not supported")
    if a[0] == 0:
        raise ValueError("BUG: filter coefficient a[0] == 0 not supported "
                         "yet")
    return b, a


def _filter_rows(b: np.ndarray, a: np.ndarray, x: ad.ndarray, axis: int,
                 zi: Any, dt: np.dtype) -> tuple[ad.ndarray, Any]:
    """linear_filter on axis of x (b, a already of equal length, a[0] == 1)
    with zi in x's layout; y and zf in dt."""
    wdt = _at.work_dtype(dt)
    rows, lead = _at.to_rows(x.astype(wdt, copy=False), axis)
    zrows = None
    if zi is not None:
        zrows, _ = _at.to_rows(zi.astype(wdt, copy=False), axis)
    bb, aa = b.astype(wdt), a.astype(wdt)
    y, zf = linear_filter(bb, aa, rows, zrows)
    y = ad.ascontiguousarray(_at.from_rows(y, lead, axis)).astype(dt,
                                                                  copy=False)
    if zi is None:
        return y, None
    zf = ad.ascontiguousarray(_at.from_rows(zf, lead, axis))
    return y, zf.astype(dt, copy=False)


def _check_zi(zi: Any, x: ad.ndarray, axis: int, n: int) -> ad.ndarray:
    zi = _at.asarray(zi)
    expected = list(x.shape)
    expected[axis] = n
    # SciPy's checks and messages: the rank first, then the shape (the
    # N-d message spells shapes without spaces).
    if zi.ndim > x.ndim:
        raise ValueError("object too deep for desired array")
    if zi.ndim < x.ndim:
        raise ValueError("object of too small depth for desired array")
    ok = all(z == e or (k != axis and z == 1)
             for k, (z, e) in enumerate(zip(zi.shape, expected)))
    if not ok:
        if x.ndim == 1:
            raise ValueError(f"Unexpected shape for zi: expected "
                             f"{tuple(expected)}, found {zi.shape}.")
        spell = ",".join
        raise ValueError(
            f"Unexpected shape for zi:  expected "
            f"({spell(map(str, expected))}), "
            f"found ({spell(map(str, zi.shape))}).")
    return ad.broadcast_to(zi, tuple(expected))


def lfilter(b: Any, a: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
    """scipy.signal.lfilter: the IIR/FIR filter b/a along axis (transposed
    direct form II); with zi, (y, zf)."""
    b, a = _coefficients(b, a)
    x = _at.asarray(x)
    if x.ndim == 0:
        raise ValueError("x must be at least 1-D")
    axis = _at.normalize_axis(axis, x.ndim)
    dts = [b.dtype, a.dtype, x.dtype]
    n = max(len(a), len(b)) - 1
    if zi is not None:
        zi = _check_zi(zi, x, axis, n)
        dts.append(zi.dtype)
    dt = _at.float_dtype(*dts)
    a0 = a[0]
    bb = np.zeros(n + 1, np.result_type(b, a, np.float64))
    aa = np.zeros(n + 1, bb.dtype)
    bb[:len(b)] = b / a0
    aa[:len(a)] = a / a0
    if x.shape[axis] == 0:
        y = ad.zeros(x.shape, dt)
        return y if zi is None else (y, zi.astype(dt))
    y, zf = _filter_rows(bb, aa, x, axis, zi, dt)
    return y if zi is None else (y, zf)


def lfiltic(b: Any, a: Any, y: Any, x: Any = None) -> ad.ndarray:
    """scipy.signal.lfiltic: lfilter's initial state from past outputs y
    and inputs x (host: a few values)."""
    return _at.to_device(_ss.lfiltic(_at.host(b), _at.host(a), _at.host(y),
                                     None if x is None else _at.host(x)))


def lfilter_zi(b: Any, a: Any) -> ad.ndarray:
    """scipy.signal.lfilter_zi: the state of the filter's steady step
    response (host: a small linear system)."""
    return ad.asarray(_ss.lfilter_zi(_at.host(b), _at.host(a)))


def _validate_pad(padtype: Any, padlen: Any, x: ad.ndarray, axis: int,
                  ntaps: int) -> tuple[int, ad.ndarray]:
    if padtype not in ("even", "odd", "constant", None):
        raise ValueError(f"Unknown value '{padtype}' given to padtype. "
                         "padtype must be 'even', 'odd', 'constant', or "
                         "None.")
    if padtype is None:
        padlen = 0
    edge = 3 * ntaps if padlen is None else operator.index(padlen)
    if x.shape[axis] <= edge:
        raise ValueError("The length of the input vector x must be greater "
                         f"than padlen, which is {edge}.")
    if padtype is not None and edge > 0:
        ext = {"even": _at.even_ext, "odd": _at.odd_ext,
               "constant": _at.const_ext}[padtype](x, edge, axis=axis)
    else:
        ext = x
    return edge, ext


def _zi_shaped(zi: np.ndarray, ndim: int, axis: int) -> ad.ndarray:
    shape = [1] * ndim
    shape[axis] = zi.size
    return ad.asarray(zi.reshape(shape))


def filtfilt(b: Any, a: Any, x: Any, axis: int = -1, padtype: Any = "odd",
             padlen: Any = None, method: str = "pad",
             irlen: Any = None) -> ad.ndarray:
    """scipy.signal.filtfilt: the filter forward and backward (zero
    phase), the signal extended by padtype at both ends (method 'pad');
    method 'gust' is not supported."""
    b, a = _coefficients(b, a)
    x = _at.asarray(x)
    axis = _at.normalize_axis(axis, x.ndim)
    if method not in ("pad", "gust"):
        raise ValueError("method must be 'pad' or 'gust'.")
    if method == "gust":
        if irlen is not None and operator.index(irlen) < 0:
            raise ValueError("irlen must be nonnegative")
        return _filtfilt_gust(b, a, x, axis, irlen)
    edge, ext = _validate_pad(padtype, padlen, x, axis,
                              max(len(a), len(b)))
    zi = _zi_shaped(_ss.lfilter_zi(b, a), x.ndim, axis)
    x0 = _at.axis_slice(ext, 0, 1, axis=axis)
    y, _ = lfilter(b, a, ext, axis=axis, zi=zi * x0)
    y0 = _at.axis_slice(y, -1, None, axis=axis)
    y, _ = lfilter(b, a, _at.axis_reverse(y, axis), axis=axis, zi=zi * y0)
    y = _at.axis_reverse(y, axis)
    if edge > 0:
        y = _at.axis_slice(y, edge, -edge, axis=axis)
    return ad.ascontiguousarray(y)


def _filtfilt_gust(b: np.ndarray, a: np.ndarray, x: ad.ndarray, axis: int,
                   irlen: Any) -> ad.ndarray:
    """filtfilt's method 'gust' (Gustafsson): the forward-backward filter
    with the initial states of both passes chosen by least squares so that
    filtering forward-backward and backward-forward agree.

    The observability-like matrices (the free responses of each unit state
    over the first m samples, and those responses filtered backwards)
    come from lfilter on the server; the least-squares problem has
    2 * order unknowns per row of x."""
    order = max(len(a), len(b)) - 1
    if order == 0:
        return ad.ascontiguousarray(x * ((b[0] / a[0]) ** 2).item())
    xm = ad.moveaxis(x, axis, -1)
    n = xm.shape[-1]
    m = n if irlen is None or n <= 2 * irlen else int(irlen)
    e0 = np.zeros(order)
    e0[0] = 1
    free = lfilter(b, a, ad.zeros(m), zi=ad.asarray(e0))[0]
    if free.dtype.kind == "c":
        # SciPy stores this response in a real array (numpy's warning, the
        # imaginary part dropped).
        warnings.warn("Casting complex values to real discards the "
                      "imaginary part", np.exceptions.ComplexWarning,
                      stacklevel=3)
        free = free.real
    free = free.astype(np.float64)
    # Column k: the response of unit state k, the first response delayed.
    obs = ad.stack([ad.concatenate((ad.zeros(k), free[:m - k]))
                    for k in range(order)], axis=1)
    obs_r = obs[::-1]
    S = lfilter(b, a, obs_r, axis=0)
    S_r = S[::-1]
    if m == n:
        M = ad.concatenate((S_r - obs, obs_r - S), axis=1)
        W = ad.concatenate((S_r, obs_r), axis=1)
    else:
        zm = ad.zeros((m, order), S.dtype)
        M = ad.concatenate((ad.concatenate((S_r - obs, zm), axis=1),
                            ad.concatenate((zm, obs_r - S), axis=1)))
        W = ad.concatenate((ad.concatenate((S_r, zm), axis=1),
                            ad.concatenate((zm, obs_r), axis=1)))
    y_f = lfilter(b, a, xm)
    y_fb = lfilter(b, a, y_f[..., ::-1])[..., ::-1]
    y_b = lfilter(b, a, xm[..., ::-1])[..., ::-1]
    y_bf = lfilter(b, a, y_b)
    delta = y_bf - y_fb
    if m != n:
        delta = ad.concatenate((delta[..., :m], delta[..., n - m:]),
                               axis=-1)
    lead = delta.shape[:-1]
    rows = delta.reshape(-1, delta.shape[-1])
    dt = np.result_type(M.dtype, rows.dtype)
    ic = ad.linalg.lstsq(M.astype(dt), rows.T.astype(dt), rcond=None)[0].T
    wic = ad.matmul(ic, W.T.astype(dt)).reshape(lead + (W.shape[0],))
    if m == n:
        y = y_fb + wic
    else:
        # n > 2 m: the two ends do not overlap.
        y = ad.concatenate((y_fb[..., :m] + wic[..., :m], y_fb[..., m:n - m],
                            y_fb[..., n - m:] + wic[..., m:]), axis=-1)
    return ad.ascontiguousarray(ad.moveaxis(y, -1, axis))


def _validate_sos(sos: Any) -> np.ndarray:
    sos = np.atleast_2d(_at.host(sos))
    if sos.ndim != 2:
        raise ValueError("sos array must be 2D")
    if sos.shape[1] != 6:
        raise ValueError("sos array must be shape (n_sections, 6)")
    if not (sos[:, 3] == 1).all():
        raise ValueError("sos[:, 3] should be all ones")
    return sos


def sosfilt(sos: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
    """scipy.signal.sosfilt: the cascade of second-order sections along
    axis; with zi (n_sections, ..., 2, ...), (y, zf)."""
    sos = _validate_sos(sos)
    x = _at.asarray(x)
    axis = _at.normalize_axis(axis, x.ndim)
    ns = sos.shape[0]
    dts = [sos.dtype, x.dtype]
    if zi is not None:
        zi = _at.asarray(zi)
        expected = (ns,) + tuple(2 if k == axis else s
                                 for k, s in enumerate(x.shape))
        if zi.shape != expected:
            raise ValueError(f"Invalid zi shape. With axis={axis!r}, an "
                             f"input with shape {x.shape!r}, and an sos "
                             f"array with {ns} sections, zi must have "
                             f"shape {expected!r}, got {zi.shape!r}.")
        dts.append(zi.dtype)
    dt = _at.float_dtype(*dts)
    wdt = _at.work_dtype(dt)
    y = x.astype(wdt, copy=False)
    zfs = []
    for s in range(ns):
        zs = None if zi is None else zi[s]
        y, zf = _filter_rows(sos[s, :3], sos[s, 3:], y, axis, zs, wdt)
        zfs.append(zf)
    y = y.astype(dt, copy=False)
    if zi is None:
        return y
    return y, ad.stack(zfs).astype(dt, copy=False)


def sosfilt_zi(sos: Any) -> ad.ndarray:
    """scipy.signal.sosfilt_zi: each section's steady step-response state
    (host)."""
    return ad.asarray(_ss.sosfilt_zi(_at.host(sos)))


def sosfiltfilt(sos: Any, x: Any, axis: int = -1, padtype: Any = "odd",
                padlen: Any = None) -> ad.ndarray:
    """scipy.signal.sosfiltfilt: sosfilt forward and backward (zero
    phase), the signal extended by padtype at both ends."""
    sos = _validate_sos(sos)
    x = _at.asarray(x)
    axis = _at.normalize_axis(axis, x.ndim)
    ntaps = 2 * sos.shape[0] + 1
    ntaps -= min(int((sos[:, 2] == 0).sum()), int((sos[:, 5] == 0).sum()))
    edge, ext = _validate_pad(padtype, padlen, x, axis, ntaps)
    zi = _ss.sosfilt_zi(sos)
    shape = [1] * (x.ndim + 1)
    shape[0] = zi.shape[0]
    shape[axis + 1] = 2
    zi = ad.asarray(zi.reshape(shape))
    x0 = _at.axis_slice(ext, 0, 1, axis=axis)
    zshape = (sos.shape[0],) + tuple(2 if k == axis else s
                                     for k, s in enumerate(ext.shape))
    y, _ = sosfilt(sos, ext, axis=axis,
                   zi=ad.broadcast_to(zi * x0, zshape))
    y0 = _at.axis_slice(y, -1, None, axis=axis)
    y, _ = sosfilt(sos, _at.axis_reverse(y, axis), axis=axis,
                   zi=ad.broadcast_to(zi * y0, zshape))
    y = _at.axis_reverse(y, axis)
    if edge > 0:
        y = _at.axis_slice(y, edge, -edge, axis=axis)
    return ad.ascontiguousarray(y)


def deconvolve(signal: Any, divisor: Any) -> tuple[ad.ndarray, ad.ndarray]:
    """scipy.signal.deconvolve: (quotient, remainder) of the polynomial
    division signal / divisor (the quotient by lfilter of an impulse)."""
    num = ad.atleast_1d(_at.asarray(signal))
    den = ad.atleast_1d(_at.asarray(divisor))
    if num.ndim > 1 or den.ndim > 1:
        raise ValueError("signal must be 1-D.")
    N, D = num.shape[0], den.shape[0]
    # SciPy filters a float64 impulse: float64 unless an input is complex.
    dt = np.result_type(num.dtype, den.dtype, np.float64)
    if D > N:
        return ad.zeros((), dt), num.astype(dt)
    impulse = ad.zeros(N - D + 1, dt)
    impulse[0] = 1
    quot = lfilter(num, den, impulse)
    rem = num - convolve(den, quot, mode="full")
    return quot, rem


# -- analytic signal, detrending -----------------------------------------------

def _hilbert_h(N: int, dt: np.dtype, nyquist: bool = True) -> ad.ndarray:
    """The analytic-signal multiplier: 1 at DC (and at Nyquist when
    nyquist), 2 on the positive frequencies, 0 on the negative ones.
    (SciPy's hilbert2 leaves the Nyquist bin of an even length at 0.)"""
    k = ad.arange(N)
    two = ad.where(k < (N + 1) // 2, 2.0, 0.0)
    one = (k == 0) | ((k == N // 2) & (N % 2 == 0) & nyquist)
    return ad.where(one, 1.0, two).astype(dt)


def hilbert(x: Any, N: Any = None, axis: int = -1) -> ad.ndarray:
    """scipy.signal.hilbert: the analytic signal x + i H(x) along axis, by
    FFT."""
    x = _at.asarray(x)
    if x.dtype.kind == "c":
        raise ValueError("x must be real.")
    axis = _at.normalize_axis(axis, x.ndim)
    if N is None:
        N = x.shape[axis]
    if N <= 0:
        raise ValueError("N must be positive.")
    rdt = np.dtype(np.float32) if x.dtype == np.float32 else _at.F64
    Xf = ad.fft.fft(x.astype(rdt, copy=False), N, axis=axis)
    h = _hilbert_h(N, rdt)
    shape = [1] * x.ndim
    shape[axis] = N
    return ad.fft.ifft(Xf * h.reshape(shape), axis=axis)


def hilbert2(x: Any, N: Any = None) -> ad.ndarray:
    """scipy.signal.hilbert2: the 2-D analytic signal of a 2-D array."""
    x = ad.atleast_2d(_at.asarray(x))
    if x.ndim > 2:
        raise ValueError("x must be 2-D.")
    if x.dtype.kind == "c":
        raise ValueError("x must be real.")
    if N is None:
        N = x.shape
    elif isinstance(N, int):
        if N <= 0:
            raise ValueError("N must be positive.")
        N = (N, N)
    elif len(N) != 2 or any(n <= 0 for n in N):
        raise ValueError("When given as a tuple, N must hold exactly two "
                         "positive integers")
    rdt = np.dtype(np.float32) if x.dtype == np.float32 else _at.F64
    Xf = ad.fft.fft2(x.astype(rdt, copy=False), N, axes=(0, 1))
    h0 = _hilbert_h(N[0], rdt, False)[:, None]
    h1 = _hilbert_h(N[1], rdt, False)[None, :]
    return ad.fft.ifft2(Xf * (h0 * h1), axes=(0, 1))


def detrend(data: Any, axis: int = -1, type: str = "linear", bp: Any = 0,
            overwrite_data: bool = False) -> ad.ndarray:
    """scipy.signal.detrend: data less its mean ('constant') or less its
    least-squares line on each piece between the breakpoints bp
    ('linear')."""
    if type not in ("linear", "l", "constant", "c"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    data = _at.asarray(data)
    dt = data.dtype if data.dtype.char in "dfDF" else _at.F64
    axis = _at.normalize_axis(axis, max(data.ndim, 1))
    if type in ("constant", "c"):
        return data - ad.mean(data.astype(dt), axis=axis, keepdims=True)
    N = data.shape[axis]
    bps = np.sort(np.unique(np.r_[0, np.atleast_1d(_at.host(bp)), N]))
    if np.any(bps > N):
        raise ValueError("Breakpoints must be less than length of data "
                         "along given axis.")
    x = data.astype(dt)
    pieces = []
    for lo, hi in zip(bps[:-1], bps[1:]):
        seg = _at.axis_slice(x, int(lo), int(hi), axis=axis)
        n = int(hi - lo)
        shape = [1] * x.ndim
        shape[axis] = n
        t = ad.arange(1, n + 1, dtype=_at.F64).reshape(shape) / N
        tc = t - ad.mean(t)
        mean = ad.mean(seg, axis=axis, keepdims=True)
        denom = ad.sum(tc * tc)
        slope = ad.sum(tc * (seg - mean), axis=axis, keepdims=True) / denom
        pieces.append(seg - (mean + slope * tc))
    out = pieces[0] if len(pieces) == 1 else ad.concatenate(pieces, axis)
    return out.astype(dt, copy=False)


# -- order statistics and the Wiener filter -----------------------------------

def _kernel_size(kernel_size: Any, ndim: int) -> list[int]:
    if kernel_size is None:
        kernel_size = [3] * ndim
    ks = np.asarray(kernel_size)
    if ks.shape == ():
        ks = np.repeat(ks.item(), ndim)
    ks = [int(k) for k in ks]
    if len(ks) != ndim:
        raise ValueError("kernel_size must have one entry per dimension")
    for k in ks:
        if k % 2 != 1:
            raise ValueError("Each element of kernel_size should be odd.")
    return ks


def _windows(x: ad.ndarray, shape: list[int]) -> ad.ndarray:
    """Windows of the given shape centred on every element of x
    (zero-padded), flattened: x.shape + (prod(shape),)."""
    p = ad.pad(x, [(k // 2, k // 2) for k in shape])
    w = sliding_window_view(p, tuple(shape))
    return w.reshape(x.shape + (math.prod(shape),))


def _check_rank_dtype(dt: np.dtype, name: str) -> None:
    """SciPy's rank filters take integers, float32 and float64 only."""
    if not (dt.kind in "iu" or dt in (np.float32, np.float64)):
        raise ValueError(f"dtype={dt} is not supported by {name}")


def medfilt(volume: Any, kernel_size: Any = None) -> ad.ndarray:
    """scipy.signal.medfilt: the median of each zero-padded window of
    kernel_size (odd; default 3 on each axis)."""
    v = _at.asarray(volume)
    _check_rank_dtype(v.dtype, "medfilt")
    ks = _kernel_size(kernel_size, v.ndim)
    w = ad.sort(_windows(v, ks), axis=-1)
    return ad.ascontiguousarray(w[..., w.shape[-1] // 2])


def medfilt2d(input: Any, kernel_size: Any = 3) -> ad.ndarray:
    """scipy.signal.medfilt2d: medfilt of a 2-D array."""
    v = _at.asarray(input)
    _check_rank_dtype(v.dtype, "medfilt")
    if v.ndim != 2:
        raise ValueError("input must be 2d")
    return medfilt(v, kernel_size)


def order_filter(a: Any, domain: Any, rank: int) -> ad.ndarray:
    """scipy.signal.order_filter: the rank-th smallest of the elements of
    each zero-padded window that domain (odd shape) marks."""
    x = _at.asarray(a)
    _check_rank_dtype(x.dtype, "order_filter")
    dom = _at.host(domain)
    if dom.ndim != x.ndim:
        raise ValueError("The input and the domain must have the same "
                         "number of dimensions.")
    for k in dom.shape:
        if k % 2 != 1:
            raise ValueError("Each dimension of domain argument should have "
                             "an odd number of elements.")
    sel = np.flatnonzero(dom.reshape(-1) != 0)
    if not 0 <= rank < len(sel):
        raise ValueError("rank not within range")
    w = ad.take(_windows(x, list(dom.shape)), ad.asarray(sel), axis=-1)
    return ad.ascontiguousarray(ad.sort(w, axis=-1)[..., rank])


def wiener(im: Any, mysize: Any = None, noise: Any = None) -> ad.ndarray:
    """scipy.signal.wiener: the adaptive Wiener filter from the local mean
    and variance over windows of mysize (default 3 on each axis)."""
    im = _at.asarray(im)
    if mysize is None:
        mysize = [3] * im.ndim
    ms = np.asarray(mysize)
    if ms.shape == ():
        ms = np.repeat(ms.item(), im.ndim)
    ms = [int(m) for m in ms]
    x = im.astype(_at.F64) if im.dtype.kind != "c" else im
    ones = ad.ones(ms, _at.F64)
    size = float(math.prod(ms))
    mean = correlate(x, ones, "same", method="direct") / size
    var = correlate(x * x, ones, "same", method="direct") / size - mean * mean
    if noise is None:
        noise = ad.mean(var)
    res = (x - mean) * (1 - noise / var) + mean
    return ad.where(var < noise, mean, res)


def unit_impulse(shape: Any, idx: Any = None, dtype: Any = float
                 ) -> ad.ndarray:
    """scipy.signal.unit_impulse: zeros with a 1 at idx (default the
    first element; 'mid' the middle)."""
    out = ad.zeros(shape, dtype)
    shape = np.atleast_1d(shape)
    if idx is None:
        idx = (0,) * len(shape)
    elif idx == "mid":
        idx = tuple(shape // 2)
    elif not hasattr(idx, "__iter__"):
        idx = (idx,) * len(shape)
    out[tuple(idx)] = 1
    return out


# -- resampling -----------------------------------------------------------------

def resample(x: Any, num: int, t: Any = None, axis: int = 0,
             window: Any = None, domain: str = "time") -> Any:
    """scipy.signal.resample: x resampled to num samples along axis by
    Fourier method (the spectrum truncated or zero-padded; window weights
    it); domain 'freq' takes x as its FFT. With t, (y, new t)."""
    if domain not in ("time", "freq"):
        raise ValueError(f"Parameter {domain=} not in ('time', 'freq')!")
    x = _at.asarray(x)
    axis = _at.normalize_axis(axis, x.ndim)
    Nx = x.shape[axis]
    num = operator.index(num)
    if num < 0:
        raise ValueError("Number of samples, num must be non-negative")
    real = x.dtype.kind != "c" and domain == "time"
    if domain == "time":
        wx = x.astype(np.float32 if x.dtype in (np.float32, np.float16)
                      else (np.complex64 if x.dtype == np.complex64 else
                            _at.work_dtype(x.dtype)), copy=False)
        X = ad.fft.rfft(wx, axis=axis) if real else ad.fft.fft(wx, axis=axis)
    else:
        X = x
    if window is not None:
        if callable(window):
            W = window(_at.host(ad.fft.fftfreq(Nx)))
        elif isinstance(window, (np.ndarray, ad.ndarray)):
            W = _at.host(window)
            if W.shape != (Nx,):
                raise ValueError(f"window.shape={W.shape} != ({Nx},), i.e., "
                                 "window length is not equal to number of "
                                 "frequency bins!")
        else:
            W = np.fft.fftshift(_ss.get_window(window, Nx))
        W = np.array(W, dtype=np.float64 if np.isrealobj(W) else None)
        shape = [1] * x.ndim
        shape[axis] = -1
        if real:
            # The one-sided spectrum takes the window folded onto it:
            # (W[l] + W[-l]) / 2 for l > 0, as SciPy's.
            nX = Nx // 2 + 1
            W[1:nX] = (W[1:nX] + W[::-1][:nX - 1]) / 2
            W = W[:nX]
        X = X * ad.asarray(W.astype(X.real.dtype).reshape(shape))
    m = min(num, Nx)
    h = m // 2
    shp = list(X.shape)
    if real:
        shp[axis] = num // 2 + 1
        Y = ad.zeros(shp, X.dtype)
        keep = h + 1
        _set(Y, axis, slice(0, keep), _at.axis_slice(X, 0, keep, axis=axis))
        if m % 2 == 0 and num != Nx and m > 0:
            fac = 2.0 if num < Nx else 0.5
            _set(Y, axis, slice(h, h + 1),
                 _at.axis_slice(Y, h, h + 1, axis=axis) * fac)
        y = ad.fft.irfft(Y, num, axis=axis)
    else:
        shp[axis] = num
        Y = ad.zeros(shp, X.dtype)
        keep = h + (m % 2)
        _set(Y, axis, slice(0, keep), _at.axis_slice(X, 0, keep, axis=axis))
        if h:
            _set(Y, axis, slice(num - h, num),
                 _at.axis_slice(X, Nx - h, Nx, axis=axis))
        if m % 2 == 0 and num != Nx and m > 0:
            if num < Nx:
                _set(Y, axis, slice(num - h, num - h + 1),
                     _at.axis_slice(Y, num - h, num - h + 1, axis=axis)
                     + _at.axis_slice(X, h, h + 1, axis=axis))
            else:
                half = _at.axis_slice(X, h, h + 1, axis=axis) * 0.5
                _set(Y, axis, slice(h, h + 1), half)
                _set(Y, axis, slice(num - h, num - h + 1), half)
        y = ad.fft.ifft(Y, axis=axis)
    y = y * (float(num) / float(Nx))
    if t is None:
        return y
    t = _at.asarray(t)
    new_t = ad.arange(0, num) * (t[1] - t[0]) * Nx / float(num) + t[0]
    return y, new_t


def _set(a: ad.ndarray, axis: int, sl: slice, value: ad.ndarray) -> None:
    idx = [slice(None)] * a.ndim
    idx[axis] = sl
    a[tuple(idx)] = value


def _output_len(len_h: int, in_len: int, up: int, down: int) -> int:
    return ((in_len - 1) * up + len_h - 1) // down + 1


def resample_poly(x: Any, up: int, down: int, axis: int = 0,
                  window: Any = ("kaiser", 5.0), padtype: str = "constant",
                  cval: Any = None) -> ad.ndarray:
    """scipy.signal.resample_poly: x resampled by up/down along axis with
    a polyphase FIR filter (designed on the host, applied by upfirdn on
    the server)."""
    x = _at.asarray(x)
    if up != int(up) or down != int(down):
        raise ValueError("up and down must be integers")
    up, down = int(up), int(down)
    if up < 1 or down < 1:
        raise ValueError("up and down must be >= 1")
    if cval is not None and padtype != "constant":
        raise ValueError("cval has no effect when padtype is ", padtype)
    axis = _at.normalize_axis(axis, x.ndim)
    n_in = x.shape[axis]
    g = math.gcd(up, down)
    up //= g
    down //= g
    if up == down == 1:
        return x.copy()
    n_out = n_in * up // down + bool(n_in * up % down)
    hdt = None
    if isinstance(window, (list, np.ndarray, ad.ndarray)):
        h = np.asarray(_at.host(window))
        # A given window keeps its precision (float32 taps, float32 result
        # for float32 data), as SciPy's.
        hdt = h.dtype if h.dtype.kind in "fc" else np.dtype(np.float64)
        h = h.astype(np.float64)
        if h.ndim > 1 or h.size == 0:
            raise ValueError("window must be 1-D")
        half_len = (h.size - 1) // 2
    else:
        max_rate = max(up, down)
        half_len = 10 * max_rate
        h = _ss.firwin(2 * half_len + 1, 1.0 / max_rate, window=window)
    h = h * up
    n_pre_pad = down - half_len % down
    n_post_pad = 0
    n_pre_remove = (half_len + n_pre_pad) // down
    while _output_len(len(h) + n_pre_pad + n_post_pad, n_in, up,
                      down) < n_out + n_pre_remove:
        n_post_pad += 1
    h = np.concatenate((np.zeros(n_pre_pad), h, np.zeros(n_post_pad)))
    if padtype == "constant":
        background = None
        xb = x
        if cval:
            background = cval
            xb = x - cval
    else:
        fn = {"mean": ad.mean, "median": ad.median, "maximum": ad.max,
              "minimum": ad.min}.get(padtype)
        if fn is None:
            raise ValueError(f"padtype {padtype!r} is not supported")
        background = fn(x, axis=axis, keepdims=True)
        xb = x - background
    if xb.dtype.kind not in "fc":
        xb = xb.astype(_at.F64)
    if hdt is None:
        hdt = np.float32 if xb.dtype in (np.float32, np.complex64) \
            else np.float64
    y = _upfirdn.upfirdn(h.astype(hdt), xb, up, down, axis=axis)
    y = _at.axis_slice(y, n_pre_remove, n_pre_remove + n_out, axis=axis)
    if background is not None:
        y = y + background
    return ad.ascontiguousarray(y)


def decimate(x: Any, q: int, n: Any = None, ftype: Any = "iir",
             axis: int = -1, zero_phase: bool = True) -> ad.ndarray:
    """scipy.signal.decimate: x low-pass filtered (order-8 Chebyshev I
    'iir', or a Hamming-windowed 'fir' of 20 q + 1 taps) and kept every q-th
    sample; zero_phase filters both ways."""
    x = _at.asarray(x)
    q = operator.index(q)
    if n is not None:
        n = operator.index(n)
    if q < 1:
        raise ValueError("q must be positive")
    axis = _at.normalize_axis(axis, x.ndim)
    if x.dtype.kind not in "fc":
        x = x.astype(_at.F64)
    sl = [slice(None)] * x.ndim
    sl[axis] = slice(None, None, q)
    if ftype == "fir":
        if n is None:
            n = 20 * q
        b = _ss.firwin(n + 1, 1.0 / q, window="hamming")
        if zero_phase:
            return resample_poly(x, 1, q, axis=axis, window=b)
        y = lfilter(b, 1.0, x, axis=axis)
    elif ftype == "iir":
        if n is None:
            n = 8
        sos = _ss.cheby1(n, 0.05, 0.8 / q, output="sos")
        sos = sos.astype(np.float32 if x.dtype in (np.float32, np.complex64)
                         else np.float64)
        y = sosfiltfilt(sos, x, axis=axis) if zero_phase else \
            sosfilt(sos, x, axis=axis)
    elif isinstance(getattr(ftype, "_scipy_system", ftype), _ss.dlti):
        # An arrayd dlti wraps SciPy's (see _ltisys).
        ftype = getattr(ftype, "_scipy_system", ftype)
        tf = ftype._as_tf()
        b, a = tf.num, tf.den
        if zero_phase:
            y = filtfilt(b, a, x, axis=axis)
        else:
            y = lfilter(b, a, x, axis=axis)
    else:
        raise ValueError("invalid ftype")
    return ad.ascontiguousarray(y[tuple(sl)])
