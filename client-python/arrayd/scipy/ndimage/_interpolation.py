"""scipy.ndimage's B-spline interpolation: spline_filter(1d),
map_coordinates, affine_transform, shift, zoom and rotate.

The spline prefilter (SciPy's recursive filter) is linear along each axis:

- along a long axis it is the server's spline_filter1d op: per pole, the
  causal and anticausal recursions of the input extended by the mode
  (mirror, reflect or wrap), by independent chunks that start each
  recursion far enough outside themselves for the missing state to fall
  below 1e-17 (a backend without the op: a correlation with the filter's
  impulse response, cut at the same level, by the stencil op). That is
  SciPy's exact boundary rule for 'mirror' and the wraps;
  SciPy's 'reflect' start is truncated at one period, which differs by
  pole**(2n), below float64's resolution from 20 elements on;
- along a short axis (up to _DENSE_MAX elements) it is one matmul with the
  n x n matrix that SciPy's own filter makes of the identity (a design
  step, on the host, from the shape alone).

Interpolation takes, for each output point and each axis, order + 1 taps
with B-spline weights (polynomials of the fractional coordinate). Every
tap's index is a clip into the coefficients extended by order + 1 as the
mode extends them; out-of-range points of 'constant' are cval. zoom and
shift (and affine_transform with a diagonal matrix) interpolate axis by
axis: the taps and weights of a 1-D grid are computed on the host, their
indices folded back into the axis, and each axis is one server resample
op. General coordinates pad the coefficients and gather (order + 1) **
ndim taps from them (Horner on the server for the weights).

Layer: functions of the arrayd.scipy.ndimage namespace (imports arrayd's
public namespace, _util and _filters).
"""
from __future__ import annotations

import functools
import inspect
import math
import operator
import warnings
from typing import Any, Sequence

import numpy as np

import arrayd as ad
from arrayd.scipy import _kernels
from arrayd.scipy.ndimage import _filters
from arrayd.scipy.ndimage import _util as u

__all__ = ["spline_filter1d", "spline_filter", "map_coordinates",
           "affine_transform", "shift", "zoom", "rotate"]

_DENSE_MAX = 64
# numpy.pad mode of the extension the interpolation's taps read.
_TAP_PAD = {"mirror": "reflect", "constant": "reflect", "wrap": "reflect",
            "reflect": "symmetric", "grid-mirror": "symmetric",
            "grid-wrap": "wrap", "nearest": "edge",
            "grid-constant": "constant"}


# -- the spline prefilter ----------------------------------------------------

def _check_order(order: Any) -> int:
    order = operator.index(order)
    if order < 0 or order > 5:
        raise RuntimeError("spline order not supported")
    return order


@functools.lru_cache(maxsize=None)
def _bspline_at_integers(order: int) -> np.ndarray:
    """The centred B-spline of order sampled at -r..r (r = order//2 + 1)."""
    r = order // 2 + 1
    return _bspline(np.arange(-r, r + 1, dtype=np.float64), order)


def _bspline(t: np.ndarray, k: int) -> np.ndarray:
    """The centred B-spline of degree k at t (host), from its truncated
    power form."""
    s = np.zeros_like(t, dtype=np.float64)
    for i in range(k + 2):
        s += ((-1) ** i * math.comb(k + 1, i)
              * np.maximum(t + (k + 1) / 2 - i, 0) ** k)
    return s / math.factorial(k)


@functools.lru_cache(maxsize=None)
def _prefilter_fir(order: int) -> np.ndarray:
    """The impulse response of the inverse of the sampled B-spline (the
    prefilter on an infinite line), symmetric, cut at 1e-15 of its peak
    (the FFT's rounding floor: below it the taps are noise, and a cut
    under it kept all 1,023 taps)."""
    n = 1024
    b = np.zeros(n)
    r = order // 2 + 1
    for k, v in zip(range(-r, r + 1), _bspline_at_integers(order)):
        b[k % n] += v
    h = np.real(np.fft.ifft(1.0 / np.fft.fft(b)))
    half = int(np.max(np.nonzero(np.abs(h[:n // 2]) > 1e-15 * h[0])))
    return np.concatenate([h[n - half:], h[:half + 1]])


@functools.lru_cache(maxsize=64)
def _prefilter_matrix(n: int, order: int, mode: str, dtype: str) -> np.ndarray:
    """The n x n matrix (read-only, of dtype) of SciPy's prefilter along an
    axis of n elements."""
    import scipy.ndimage  # noqa: PLC0415 (SciPy, not arrayd: design only)
    m = scipy.ndimage.spline_filter1d(np.eye(n), order, axis=0,
                                      mode=mode).T.astype(dtype)
    m.flags.writeable = False
    return m


def _spline_axis(x: ad.ndarray, order: int, axis: int,
                 mode: str) -> ad.ndarray:
    """The prefilter of x (float64 or complex128) along axis."""
    n = x.shape[axis]
    if n == 1 or x.size == 0:
        return x
    if n <= _DENSE_MAX:
        m = _prefilter_matrix(n, order, mode, x.dtype.str)
        xm = ad.moveaxis(x, axis, -1)
        return ad.moveaxis(ad.matmul(xm, _kernels.table(x._session, m)), -1, axis)
    pm = "wrap" if mode == "grid-wrap" else (
        "symmetric" if mode in ("reflect", "grid-mirror", "nearest")
        else "reflect")
    res = _kernels.spline_filter1d(x, order, axis, pm)
    if res is not None:
        return res
    h = _prefilter_fir(order)
    half = len(h) // 2
    taps = [[k - half if d == axis else 0 for d in range(x.ndim)]
            for k in range(len(h))]
    res = _kernels.stencil(x, taps, pm, 0.0, h)
    if res is not None:
        return res
    widths = [(0, 0)] * x.ndim
    widths[axis] = (half, half)
    p = ad.pad(x, widths, mode=pm)
    return _filters._correlate_padded(p, axis, h.astype(np.float64), n)


def spline_filter1d(input: Any, order: int = 3, axis: int = -1,
                    output: Any = np.float64,
                    mode: str = "mirror") -> ad.ndarray:
    """scipy.ndimage.spline_filter1d: the B-spline coefficients of order
    along axis (orders 0 and 1 are the input itself)."""
    order = _check_order(order)
    x = u.check_input(input)
    axis = u.normalize_axis(axis, x.ndim)
    u.check_mode(mode)
    dt, out = u.get_output(output, x, complex_output=x.dtype.kind == "c")
    work = u.C128 if x.dtype.kind == "c" else u.F64
    res = x.astype(work)
    if order > 1:
        res = _spline_axis(res, order, axis, mode)
    return u.finish(res, dt, out)


def spline_filter(input: Any, order: int = 3, output: Any = np.float64,
                  mode: str = "mirror") -> ad.ndarray:
    """scipy.ndimage.spline_filter: the B-spline coefficients of order
    (2 to 5), one 1-D pass an axis."""
    order = operator.index(order)
    if order < 2 or order > 5:
        raise RuntimeError("spline order not supported")
    x = u.check_input(input)
    u.check_mode(mode)
    dt, out = u.get_output(output, x, complex_output=x.dtype.kind == "c")
    work = u.C128 if x.dtype.kind == "c" else u.F64
    res = x.astype(work)
    for ax in range(x.ndim):
        res = _spline_axis(res, order, ax, mode)
    return u.finish(res, dt, out)


# -- taps and weights --------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _weight_polys(order: int) -> np.ndarray:
    """(order + 1, order + 1): row j holds the coefficients (highest first)
    of tap j's weight as a polynomial of the fractional coordinate."""
    f = (np.arange(order + 1) + 0.5) / (order + 1)
    shift = 0.0 if order & 1 else -0.5
    rows = []
    for j in range(order + 1):
        w = _bspline(f + shift + order // 2 - j, order)
        rows.append(np.polyfit(f, w, order))
    return np.array(rows)


def _map_coordinate(xp: Any, c: Any, n: int, mode: str) -> Any:
    """The coordinate c (float array) folded into the input as the mode
    folds it before the taps are chosen."""
    if mode in ("mirror", "wrap", "reflect", "grid-mirror", "grid-wrap"):
        if n == 1 and mode in ("mirror", "wrap"):
            return c * 0.0
    if mode == "mirror":
        p = 2.0 * (n - 1)
        c = xp.remainder(xp.abs(c), p)
        return xp.where(c > n - 1, p - c, c)
    if mode in ("reflect", "grid-mirror"):
        p = 2.0 * n
        c = xp.remainder(c + 0.5, p)
        return xp.where(c >= n, p - c, c) - 0.5
    if mode == "wrap":
        # Period n - 1, and only points outside [0, n - 1] move.
        out = (c < 0) | (c > n - 1)
        return xp.where(out, xp.remainder(c, float(n - 1)), c)
    if mode == "grid-wrap":
        return xp.remainder(c, float(n))
    return c


def _taps(xp: Any, c: Any, n: int, order: int, mode: str
          ) -> tuple[list[Any], list[Any], Any]:
    """For coordinates c along an axis of n elements: the order + 1 tap
    indices into the axis padded by order + 1 (clipped), their weights,
    and the mask of in-range points ('constant'; None otherwise)."""
    valid = None
    if mode == "constant":
        valid = (c >= 0) & (c <= n - 1)
    if order == 0 and mode in ("mirror", "reflect", "grid-mirror"):
        # SciPy rounds to the nearest sample (halves away from zero) first,
        # then mirrors that sample's index.
        c = xp.where(c < 0, -xp.floor(0.5 - c), xp.floor(c + 0.5))
    c = _map_coordinate(xp, c, n, mode)
    if order & 1:
        base = xp.floor(c)
        f = c - base
    else:
        base = xp.floor(c + 0.5)
        f = c + 0.5 - base
    pad = order + 1
    first = base.astype(np.int64) + (pad - order // 2)
    hi = n + 2 * pad - 1
    idx = [xp.clip(first + j, 0, hi) for j in range(order + 1)]
    if order == 0:
        return idx, [None], valid
    weights = []
    for row in _weight_polys(order):
        w = f * float(row[0]) + float(row[1])
        for a in row[2:]:
            w = w * f + float(a)
        weights.append(w)
    return idx, weights, valid


def _pad_coeffs(coeffs: ad.ndarray, axes: Sequence[int], order: int,
                mode: str, cval: float) -> ad.ndarray:
    pad = order + 1
    widths = [(pad, pad) if ax in axes else (0, 0) for ax in range(coeffs.ndim)]
    pm = _TAP_PAD[mode]
    if pm == "constant":
        return ad.pad(coeffs, widths, mode="constant", constant_values=cval)
    return ad.pad(coeffs, widths, mode=pm)


def _prepare(x: ad.ndarray, order: int, mode: str, cval: float,
             prefilter: bool, axes: Sequence[int]) -> tuple[ad.ndarray, int]:
    """The spline coefficients along axes (float64 or complex128) and the
    padding SciPy adds before filtering for 'nearest' and
    'grid-constant'."""
    work = u.C128 if x.dtype.kind == "c" else u.F64
    c = x.astype(work)
    npad = 0
    if prefilter and order > 1:
        if mode in ("nearest", "grid-constant"):
            npad = 12
            widths = [(npad, npad) if ax in axes else (0, 0)
                      for ax in range(x.ndim)]
            c = (ad.pad(c, widths, mode="edge") if mode == "nearest" else
                 ad.pad(c, widths, mode="constant", constant_values=cval))
        for ax in axes:
            c = _spline_axis(c, order, ax, mode)
    return c, npad


def _round_to(res: ad.ndarray, dt: np.dtype) -> ad.ndarray:
    """Interpolated values for an integer output, rounded as SciPy rounds
    them: half away from zero, unsigned types clipped to their range."""
    if dt.kind not in "iu" or res.dtype.kind != "f":
        return res
    if dt.kind == "u":
        return ad.clip(ad.floor(res + 0.5), 0, float(np.iinfo(dt).max))
    return ad.trunc(ad.where(res < 0, res - 0.5, res + 0.5))


def _finish(res: ad.ndarray, dt: np.dtype, out: Any) -> ad.ndarray:
    if dt.kind != "c" and res.dtype.kind == "c":
        res = res.real
    return u.finish(_round_to(res, dt), dt, out)


def _check_interp(input: Any, order: Any, mode: Any) -> tuple[ad.ndarray, int]:
    order = _check_order(order)
    x = u.check_input(input)
    if x.ndim < 1:
        raise RuntimeError("input and output rank must be > 0")
    u.check_mode(mode)
    return x, order


def _complex_by_parts(fn: Any) -> Any:
    """fn (map_coordinates, shift, zoom, affine_transform) on a complex
    input run as SciPy runs it: on the real and the imaginary parts apart
    (cval's parts as their cvals), so an infinite cval does not make NaNs
    of the other part."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        x = bound.arguments.get("input")
        if not (isinstance(x, (ad.ndarray, np.ndarray))
                and np.dtype(x.dtype).kind == "c"):
            return fn(*args, **kwargs)
        x = u.asarray(x)
        output = bound.arguments.get("output")
        cval = complex(bound.arguments.get("cval", 0.0))
        if output is None:
            dt, out = x.dtype, None
        elif isinstance(output, (type, np.dtype, str)):
            dt, out = np.dtype(output), None
            if dt.kind != "c":
                warnings.warn("promoting specified output dtype to complex",
                              stacklevel=2)
                dt = np.promote_types(dt, np.complex64)
        else:
            if np.dtype(output.dtype).kind != "c":
                raise RuntimeError("output must have complex dtype")
            dt, out = np.dtype(output.dtype), output
        part_dt = np.dtype(np.float32 if dt == np.complex64 else np.float64)
        parts = []
        for part, c in ((x.real, cval.real), (x.imag, cval.imag)):
            b = sig.bind(*args, **kwargs)
            b.arguments["input"] = part
            b.arguments["output"] = part_dt
            if "cval" in sig.parameters:
                b.arguments["cval"] = c
            parts.append(fn(*b.args, **b.kwargs).astype(part_dt))
        pair = ad.ascontiguousarray(ad.stack(parts, axis=-1))
        res = pair.view(dt)[..., 0]
        if out is not None and tuple(out.shape) != tuple(res.shape):
            raise RuntimeError("output shape not correct")
        return u.finish(res, dt, out)
    return wrapper


# -- general coordinates -----------------------------------------------------

def _interp_general(coeffs: ad.ndarray, coords: Sequence[Any], order: int,
                    mode: str, cval: float, nbatch: int = 0) -> ad.ndarray:
    """coeffs (padded by _pad_coeffs over its last len(coords) axes) at the
    coordinates coords (one array per interpolated axis, all of the output
    shape); leading nbatch axes of coeffs are carried along."""
    pad = order + 1
    d = len(coords)
    space = coeffs.shape[nbatch:]
    sizes = [s - 2 * pad for s in space]
    strides = [int(np.prod(space[i + 1:])) for i in range(d)]
    per_axis = [_taps(ad, c, n, order, mode) for c, n in zip(coords, sizes)]
    flat = ad.ravel(coeffs)
    oshape = tuple(coords[0].shape)
    batch_off = None
    if nbatch:
        bshape = coeffs.shape[:nbatch]
        nb = int(np.prod(bshape))
        batch_off = (ad.arange(nb, dtype=np.int64) * int(np.prod(space))
                     ).reshape(bshape + (1,) * len(oshape))
    acc = None
    for combo in np.ndindex(*([order + 1] * d)):
        index = None
        weight = None
        for a, j in enumerate(combo):
            idx, ws, _ = per_axis[a]
            term = idx[j] * strides[a] if strides[a] != 1 else idx[j]
            index = term if index is None else index + term
            if ws[0] is not None:
                weight = ws[j] if weight is None else weight * ws[j]
        if batch_off is not None:
            index = index + batch_off
        val = ad.take(flat, index)
        if weight is not None:
            val = val * weight
        acc = val if acc is None else ad.add(acc, val, out=acc)
    valid = None
    for _, _, v in per_axis:
        if v is not None:
            valid = v if valid is None else valid & v
    if valid is not None:
        acc = ad.where(valid, acc, cval)
    return acc


def _interp_points(coeffs: ad.ndarray, coords: ad.ndarray, order: int,
                   mode: str, cval: float, npad: int = 0,
                   nbatch: int = 0) -> ad.ndarray:
    """coeffs (the spline coefficients, not padded; its first nbatch axes a
    batch) at coords ((coeffs.ndim - nbatch, ...), each shifted by npad):
    the server's map_coordinates op in one kernel, or composed from gathers
    where it does not apply (more than its dimensions, an empty axis)."""
    res = _kernels.map_coordinates(coeffs, coords, order, mode, cval, npad)
    if res is not None:
        return res
    c = coords.astype(np.float64)
    points = [c[a] + npad if npad else c[a] for a in range(c.shape[0])]
    axes = list(range(nbatch, coeffs.ndim))
    return _interp_general(_pad_coeffs(coeffs, axes, order, mode, cval),
                           points, order, mode, cval, nbatch)


@_complex_by_parts
def map_coordinates(input: Any, coordinates: Any, output: Any = None,
                    order: int = 3, mode: str = "constant",
                    cval: float = 0.0, prefilter: bool = True) -> ad.ndarray:
    """scipy.ndimage.map_coordinates: input's spline interpolation of order
    at coordinates (shape (input.ndim, ...)); the result has the shape of
    coordinates[0]."""
    x, order = _check_interp(input, order, mode)
    c = u.asarray(coordinates)
    if c.ndim < 1 or c.shape[0] != x.ndim:
        raise RuntimeError("invalid shape for coordinate array")
    oshape = c.shape[1:]
    complex_output = x.dtype.kind == "c"
    dt, out = u.get_output(output, x, shape=oshape,
                           complex_output=complex_output)
    coeffs, npad = _prepare(x, order, mode, cval, prefilter,
                            list(range(x.ndim)))
    return _finish(_interp_points(coeffs, c, order, mode, cval, npad), dt,
                   out)


# -- separable grids (zoom, shift) -------------------------------------------

@functools.lru_cache(maxsize=64)
def _axis_taps(n: int, coords: bytes, order: int, mode: str, cval: float
               ) -> tuple[np.ndarray, np.ndarray, Any, Any]:
    """The resample of an axis of n elements at the coordinates (float64
    bytes): the taps' indices folded into the axis, their weights, the cval
    part of the taps past the edges ('constant' extension; None when there
    is none) and the in-range mask (None when every point is in range).
    Cached: repeated zooms and shifts of one shape skip this host work."""
    c = np.frombuffer(coords, dtype=np.float64)
    idx, ws, valid = _taps(np, c, n, order, mode)
    pad = order + 1
    index = np.stack(idx, axis=-1)
    weights = (np.ones(index.shape) if ws[0] is None
               else np.stack(ws, axis=-1))
    pm = _TAP_PAD[mode]
    extra = None
    if pm == "constant":
        src = np.pad(np.arange(n), pad, mode="constant",
                     constant_values=-1)[index]
        outside = src < 0
        if outside.any():
            # The taps past the edges read cval.
            extra = np.where(outside, weights * cval, 0.0).sum(axis=-1)
            weights = np.where(outside, 0.0, weights)
            src = np.where(outside, 0, src)
    else:
        src = np.pad(np.arange(n), pad, mode=pm)[index]
    if valid is not None and valid.all():
        valid = None
    for a in (src, weights, extra, valid):
        if a is not None:
            a.flags.writeable = False
    return src, weights, extra, valid


def _interp_axis(coeffs: ad.ndarray, axis: int, c: np.ndarray, order: int,
                 mode: str, cval: float, masks: Any = None) -> ad.ndarray:
    """coeffs interpolated along axis at the host coordinates c: one
    resample of order + 1 taps a point, the taps' indices into the axis
    extended by the mode folded back into it on the host; with masks (a
    list), the points outside get 0 and their mask (along axis) is
    appended, for the caller to put cval there at the end (a cval of inf
    times a zero weight of a later pass would be NaN)."""
    n, m = coeffs.shape[axis], len(c)
    along = [1] * coeffs.ndim
    along[axis] = m
    if coeffs.size == 0:
        shape = list(coeffs.shape)
        shape[axis] = m
        return ad.zeros(tuple(shape), dtype=coeffs.dtype)
    src, weights, extra, valid = _axis_taps(n, np.ascontiguousarray(
        c, dtype=np.float64).tobytes(), order, mode, float(cval))
    res = _kernels.resample(coeffs, src, weights, axis)
    if extra is not None:
        res = res + ad.asarray(extra.reshape(along))
    if valid is not None:
        if masks is not None:
            masks.append(valid.reshape(along))
            res = ad.where(ad.asarray(valid.reshape(along)), res, 0.0)
        else:
            res = ad.where(ad.asarray(valid.reshape(along)), res, cval)
    return res


def _separable(x: ad.ndarray, coords: Sequence[np.ndarray], order: int,
               mode: str, cval: float, prefilter: bool) -> ad.ndarray:
    """x interpolated on the grid whose axis a holds coords[a]."""
    axes = list(range(x.ndim))
    coeffs, npad = _prepare(x, order, mode, cval, prefilter, axes)
    res = coeffs
    masks: list[np.ndarray] = []
    for a in axes:
        res = _interp_axis(res, a, coords[a] + npad, order, mode, cval,
                           masks)
    if masks:
        # A point outside along any axis is cval, as SciPy's.
        inside = masks[0]
        for mk in masks[1:]:
            inside = inside & mk
        res = ad.where(ad.asarray(inside), res, cval)
    return res


@_complex_by_parts
def shift(input: Any, shift: Any, output: Any = None, order: int = 3,
          mode: str = "constant", cval: float = 0.0,
          prefilter: bool = True) -> ad.ndarray:
    """scipy.ndimage.shift: input moved by shift (per axis) with spline
    interpolation of order."""
    x, order = _check_interp(input, order, mode)
    shifts = [float(s) for s in u.normalize_sequence(shift, x.ndim)]
    dt, out = u.get_output(output, x, complex_output=x.dtype.kind == "c")
    coords = [np.arange(n, dtype=np.float64) - s
              for n, s in zip(x.shape, shifts)]
    return _finish(_separable(x, coords, order, mode, cval, prefilter),
                   dt, out)


@_complex_by_parts
def zoom(input: Any, zoom: Any, output: Any = None, order: int = 3,
         mode: str = "constant", cval: float = 0.0, prefilter: bool = True,
         *, grid_mode: bool = False) -> ad.ndarray:
    """scipy.ndimage.zoom: input resampled to round(shape * zoom) by spline
    interpolation of order; grid_mode aligns pixel edges instead of
    centres."""
    x, order = _check_interp(input, order, mode)
    zooms = u.normalize_sequence(zoom, x.ndim)
    oshape = tuple(int(round(n * z)) for n, z in zip(x.shape, zooms))
    if grid_mode and mode in ("constant", "wrap"):
        warnings.warn(f"It is recommended to use mode = grid-{mode} instead "
                      f"of {mode} when grid_mode is True.", UserWarning,
                      stacklevel=2)
    dt, out = u.get_output(output, x, shape=oshape,
                           complex_output=x.dtype.kind == "c")
    coords = []
    for n, m in zip(x.shape, oshape):
        div, nom = (m, n) if grid_mode else (m - 1, n - 1)
        f = nom / div if div != 0 else 1.0
        i = np.arange(m, dtype=np.float64)
        coords.append((i + 0.5) * f - 0.5 if grid_mode else i * f)
    if x.size == 0 or 0 in oshape:
        return u.finish(ad.zeros(oshape, dtype=dt), dt, out)
    return _finish(_separable(x, coords, order, mode, cval, prefilter),
                   dt, out)


def _check_texture(input: Any, matrix: Any, output_shape: Any, output: Any,
                   order: Any, mode: Any) -> None:
    """CuPy's conditions on affine_transform(texture_memory=True): a 2-D or
    3-D float32 input, a homogeneous matrix, order 0 or 1, mode constant or
    nearest, a float32 output (ValueError otherwise)."""
    x = u.asarray(input)
    nd = x.ndim
    if nd not in (2, 3):
        raise ValueError("texture memory affine transformation is defined "
                         "only for 2-D and 3-D arrays")
    if x.dtype != np.float32:
        raise ValueError("texture memory affine transformation is available "
                         f"only for float32 data (not {x.dtype})")
    if operator.index(order) not in (0, 1):
        raise ValueError("texture memory supports order 0 and 1 only")
    if tuple(np.shape(matrix)) != (nd + 1, nd + 1):
        raise ValueError("matrix must have shape (ndim + 1, ndim + 1)")
    if mode not in ("constant", "nearest"):
        raise ValueError(f"unsupported mode {mode!r} with texture memory "
                         "(supported: constant, nearest)")
    shape = x.shape if output_shape is None else tuple(output_shape)
    if output is None:
        return
    if isinstance(output, (type, np.dtype)):
        if np.dtype(output) != np.float32:
            raise ValueError("texture memory affine transformation is "
                             f"available only for float32 (not {output})")
    elif hasattr(output, "shape") and hasattr(output, "dtype"):
        if tuple(output.shape) != shape:
            raise ValueError("output shapes do not match")
    else:
        raise ValueError("output must be None, an array or a dtype")


@_complex_by_parts
def affine_transform(input: Any, matrix: Any, offset: Any = 0.0,
                     output_shape: Any = None, output: Any = None,
                     order: int = 3, mode: str = "constant",
                     cval: float = 0.0, prefilter: bool = True, *,
                     texture_memory: bool = False) -> ad.ndarray:
    """scipy.ndimage.affine_transform: output[o] = input[matrix @ o +
    offset] by spline interpolation of order; matrix is (ndim,) (a
    diagonal), (ndim, ndim), (ndim, ndim + 1) or homogeneous (ndim + 1,
    ndim + 1). ``texture_memory`` is CuPy's: its restrictions are checked
    (ValueError) and the result is computed as without it."""
    if texture_memory:
        _check_texture(input, matrix, output_shape, output, order, mode)
    x, order = _check_interp(input, order, mode)
    if output_shape is None:
        output_shape = (output.shape if isinstance(output, (ad.ndarray,
                                                            np.ndarray))
                        else x.shape)
    oshape = tuple(operator.index(s) for s in output_shape)
    dt, out = u.get_output(output, x, shape=oshape,
                           complex_output=x.dtype.kind == "c")
    m = u.host(matrix).astype(np.float64)
    nd = x.ndim
    if m.ndim not in (1, 2) or m.shape[0] < 1:
        raise RuntimeError("no proper affine matrix provided")
    if m.ndim == 2:
        if m.shape[0] == m.shape[1] - 1:
            offset = m[:, -1]
            m = m[:, :-1]
        elif m.shape[0] == nd + 1 and m.shape[1] == nd + 1:
            offset = m[:nd, -1]
            m = m[:nd, :nd]
        if m.shape != (nd, nd):
            raise RuntimeError("affine matrix has wrong number of rows"
                               if m.shape[0] != nd else
                               "affine matrix has wrong number of columns")
    elif m.shape[0] != nd:
        raise RuntimeError("affine matrix has wrong number of rows")
    offs = np.asarray([float(o) for o in u.normalize_sequence(
        u.host(offset).tolist() if not np.isscalar(offset) else offset, nd)])
    if m.ndim == 2 and np.count_nonzero(m - np.diag(np.diag(m))) == 0:
        m = np.diag(m)
    if m.ndim == 1:
        coords = [np.arange(n, dtype=np.float64) * z + o
                  for n, z, o in zip(oshape, m, offs)]
        return _finish(_separable(x, coords, order, mode, cval, prefilter),
                       dt, out)
    grids = [ad.arange(n, dtype=np.float64).reshape(
        (1,) * a + (n,) + (1,) * (nd - a - 1)) for a, n in enumerate(oshape)]
    coords = []
    for a in range(nd):
        c = ad.full(oshape, offs[a], dtype=np.float64)
        for b in range(nd):
            if m[a, b] != 0:
                c = c + grids[b] * float(m[a, b])
        coords.append(c)
    coeffs, npad = _prepare(x, order, mode, cval, prefilter, list(range(nd)))
    return _finish(_interp_points(coeffs, ad.stack(coords), order, mode, cval,
                                  npad), dt, out)


@_complex_by_parts
def rotate(input: Any, angle: float, axes: Sequence[int] = (1, 0),
           reshape: bool = True, output: Any = None, order: int = 3,
           mode: str = "constant", cval: float = 0.0,
           prefilter: bool = True) -> ad.ndarray:
    """scipy.ndimage.rotate: input rotated by angle degrees in the plane of
    axes (reshape: grow the output to hold the whole rotated input)."""
    x, order = _check_interp(input, order, mode)
    nd = x.ndim
    if nd < 2:
        raise ValueError("input array should be at least 2D")
    ax = list(axes)
    if len(ax) != 2:
        raise ValueError("axes should contain exactly two values")
    if not all(float(a).is_integer() for a in ax):
        raise ValueError("axes should contain only integer values")
    ax = [operator.index(a) for a in ax]
    ax = [a + nd if a < 0 else a for a in ax]
    if ax[0] == ax[1] or not all(0 <= a < nd for a in ax):
        raise ValueError("invalid rotation plane specified")
    ax.sort()
    rad = math.radians(float(angle) % 360.0)
    c, s = math.cos(rad), math.sin(rad)
    # Exact quarter turns, as SciPy's cosdg/sindg give them.
    if float(angle) % 90 == 0:
        c, s = round(c), round(s)
    m = np.array([[c, s], [-s, c]])
    in_plane = np.array([x.shape[ax[0]], x.shape[ax[1]]])
    if reshape:
        iy, ix = in_plane
        corners = m @ np.array([[0, 0, iy, iy], [0, ix, 0, ix]])
        out_plane = (np.ptp(corners, axis=1) + 0.5).astype(int)
    else:
        out_plane = in_plane
    offset = (in_plane - 1) / 2 - m @ ((out_plane - 1) / 2)
    oshape = list(x.shape)
    oshape[ax[0]], oshape[ax[1]] = int(out_plane[0]), int(out_plane[1])
    oshape = tuple(oshape)
    dt, out = u.get_output(output, x, shape=oshape,
                           complex_output=x.dtype.kind == "c")
    if x.size == 0 or 0 in oshape:
        return u.finish(ad.zeros(oshape, dtype=dt), dt, out)
    # The plane's axes last, the others a batch.
    others = [a for a in range(nd) if a not in ax]
    xm = ad.transpose(x, others + ax)
    coeffs, npad = _prepare(xm, order, mode, cval, prefilter, [nd - 2, nd - 1])
    h, w = int(out_plane[0]), int(out_plane[1])
    gy = ad.arange(h, dtype=np.float64).reshape(h, 1)
    gx = ad.arange(w, dtype=np.float64).reshape(1, w)
    cy = gy * float(m[0, 0]) + gx * float(m[0, 1]) + float(offset[0] + npad)
    cx = gy * float(m[1, 0]) + gx * float(m[1, 1]) + float(offset[1] + npad)
    coords = ad.stack([ad.broadcast_to(cy, (h, w)),
                       ad.broadcast_to(cx, (h, w))])
    res = _interp_points(coeffs, coords, order, mode, cval, nbatch=nd - 2)
    res = ad.transpose(res, np.argsort(others + ax).tolist())
    return _finish(res, dt, out)
