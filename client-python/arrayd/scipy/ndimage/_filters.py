"""scipy.ndimage's filters, as compositions of the server's ops.

Every filter starts from the input padded as its boundary mode says (one
pad op, _util.pad), then:

- a 1-D linear filter (correlate1d and the separable filters built on it:
  gaussian, sobel, prewitt, laplace) is, for a short kernel, a weighted
  sum of shifted slices of the padded input (one multiply and one add a
  tap), and for a long one a single matmul: the padded axis is cut into
  overlapping windows of B + n - 1 elements (a strided view) and each
  window is multiplied by a B x (B + n - 1) banded Toeplitz matrix of the
  weights, which gives B outputs, about (B + n - 1)/n times the direct
  arithmetic in one library call;
- uniform, minimum and maximum filters along an axis are one reduction
  (mean, min, max) over the last axis of a sliding-window view;
- an N-D kernel or footprint is a sum, min or max over its taps, each a
  shifted slice of the padded input; rank filters stack the taps along a
  new axis and partition it.

Weights, footprints and sizes are parameters read on the host (as SciPy's
C code reads them before its loop); the image data never leaves the
server. As in SciPy, a separable filter writes each pass into the output
dtype, integers accumulate in float64 and are truncated toward zero, and
complex weights of a correlation are conjugated.

Layer: functions of the arrayd.scipy.ndimage namespace (imports arrayd's
public namespace and _util).
"""
from __future__ import annotations

import numbers
import operator
import warnings
from typing import Any, Callable, Sequence

import numpy as np

import arrayd as ad
from arrayd.lib.stride_tricks import as_strided, sliding_window_view
from arrayd.scipy import _kernels as _k
from arrayd.scipy.ndimage import _util as u

__all__ = [
    "correlate1d", "convolve1d", "correlate", "convolve",
    "gaussian_filter1d", "gaussian_filter", "uniform_filter1d",
    "uniform_filter", "minimum_filter1d", "maximum_filter1d",
    "minimum_filter", "maximum_filter", "rank_filter", "median_filter",
    "percentile_filter", "generic_filter", "generic_filter1d", "sobel",
    "prewitt", "laplace", "gaussian_laplace", "gaussian_gradient_magnitude",
    "generic_laplace", "generic_gradient_magnitude",
]

# Kernels up to this many taps are summed tap by tap; longer ones are one
# matmul against a banded Toeplitz matrix.
_TAPS_MAX = 6
# The Toeplitz block: outputs per window.
_BLOCK_MIN = 32


# -- 1-D linear filters ------------------------------------------------------

def _toeplitz(w: np.ndarray, block: int) -> np.ndarray:
    """T with T[i + k, i] = w[k]: a window of block + len(w) - 1 inputs
    times T is block outputs of the correlation with w."""
    n = len(w)
    t = np.zeros((block + n - 1, block), dtype=w.dtype)
    for k in range(n):
        t[np.arange(block) + k, np.arange(block)] = w[k]
    return t


def _correlate_padded(p: ad.ndarray, axis: int, w: np.ndarray,
                      length: int) -> ad.ndarray:
    """The correlation with w of p, already padded along axis (length +
    len(w) - 1 elements there): length outputs along axis."""
    n = len(w)
    nz = np.flatnonzero(w)
    if n <= _TAPS_MAX or len(nz) <= _TAPS_MAX or length < 2:
        acc = None
        for k in nz:
            sl = [slice(None)] * p.ndim
            sl[axis] = slice(int(k), int(k) + length)
            term = p[tuple(sl)] * w[k].astype(p.dtype).item()
            acc = term if acc is None else ad.add(acc, term, out=acc)
        if acc is None:
            shape = list(p.shape)
            shape[axis] = length
            acc = ad.zeros(tuple(shape), dtype=p.dtype)
        return acc
    # One matmul: windows of block + n - 1 elements every block elements.
    block = min(max(_BLOCK_MIN, n), length)
    nb = -(-length // block)
    q = ad.moveaxis(p, axis, -1)
    extra = nb * block + n - 1 - q.shape[-1]
    if extra > 0:
        q = ad.pad(q, [(0, 0)] * (q.ndim - 1) + [(0, extra)], mode="edge")
    q = ad.ascontiguousarray(q)
    st = q.strides
    win = as_strided(q, q.shape[:-1] + (nb, block + n - 1),
                     st[:-1] + (block * st[-1], st[-1]))
    t = ad.asarray(_toeplitz(w.astype(p.dtype), block))
    out = ad.matmul(win, t).reshape(q.shape[:-1] + (nb * block,))
    return ad.moveaxis(out[..., :length], -1, axis)


def _weights1d(weights: Any) -> np.ndarray:
    w = u.host(weights)
    if w.ndim != 1:
        raise RuntimeError("filter weights must be a one-dimensional array")
    if w.size == 0:
        raise RuntimeError("no filter weights given")
    return w.astype(np.complex128 if w.dtype.kind == "c" else np.float64)


def _correlate1d(x: ad.ndarray, w: np.ndarray, axis: int, mode: str,
                 cval: Any, origin: int) -> ad.ndarray:
    """The correlation of x with w along axis, in x's working dtype."""
    n = len(w)
    if not -(n // 2) <= origin <= (n - 1) // 2:
        raise ValueError("Invalid origin; origin must satisfy "
                         "-(len(weights) // 2) <= origin <= "
                         "(len(weights)-1) // 2")
    wd = u.work_dtype(x, w.dtype if w.dtype.kind == "c" else np.float32)
    if x.dtype != wd:
        x = x.astype(wd)
    if x.size == 0:
        return x
    left = n // 2 + origin
    nz = np.flatnonzero(w)
    if len(nz):
        # The server's stencil: one pass, the edges extended in the kernel.
        taps = [[int(k) - left if d == axis else 0 for d in range(x.ndim)] for k in nz]
        res = _k.stencil(x, taps, u.pad_mode(mode), cval, weights=w[nz])
        if res is not None:
            return res
    p = u.pad_axis(x, axis, left, n - 1 - left, mode, cval)
    return _correlate_padded(p, axis, w, x.shape[axis])


def _exact_for(x: ad.ndarray, dt: np.dtype) -> ad.ndarray:
    """x, or a single-precision x as float64 when the result is truncated to
    integers: SciPy sums in double, and a float32 sum can fall on the other
    side of an integer."""
    if x.dtype == np.float32 and np.dtype(dt).kind in "iub":
        return x.astype(u.F64)
    return x


def correlate1d(input: Any, weights: Any, axis: int = -1, output: Any = None,
                mode: str = "reflect", cval: float = 0.0,
                origin: int = 0) -> ad.ndarray:
    """scipy.ndimage.correlate1d: the 1-D correlation of input with weights
    along axis (complex weights are conjugated)."""
    x = u.check_input(input)
    w = _weights1d(weights)
    axis = u.normalize_axis(axis, x.ndim)
    u.check_mode(mode)
    complex_output = x.dtype.kind == "c" or w.dtype.kind == "c"
    dt, out = u.get_output(output, x, complex_output=complex_output)
    res = _correlate1d(_exact_for(x, dt), np.conj(w), axis, mode, cval,
                       operator.index(origin))
    return u.finish(res, dt, out)


def convolve1d(input: Any, weights: Any, axis: int = -1, output: Any = None,
               mode: str = "reflect", cval: float = 0.0,
               origin: int = 0) -> ad.ndarray:
    """scipy.ndimage.convolve1d: the 1-D convolution of input with weights
    along axis."""
    w = _weights1d(weights)[::-1]
    origin = -operator.index(origin)
    if not len(w) & 1:
        origin -= 1
    return correlate1d(input, np.conj(w), axis, output, mode, cval, origin)


# -- N-D linear filters ------------------------------------------------------

def _expand_to_axes(a: np.ndarray, axes: Sequence[int], ndim: int,
                    what: str = "weights") -> np.ndarray:
    """a (one dimension per axis of axes) with length-1 dimensions on the
    other axes of an ndim-dimensional input."""
    if a.ndim != len(axes):
        raise RuntimeError(f"{what}.ndim ({a.ndim}) must match "
                           f"len(axes) ({len(axes)})")
    shape = [1] * ndim
    order = np.argsort(axes)
    a = np.transpose(a, order)
    for ax, n in zip(sorted(axes), a.shape):
        shape[ax] = n
    return a.reshape(shape)


def _axis_origins(origin: Any, axes: Sequence[int], ndim: int) -> list[int]:
    """origin (a value or one per axis of axes) as one int per axis of the
    input (0 off axes)."""
    o = u.origins(origin, len(axes))
    full = [0] * ndim
    for ax, v in zip(axes, o):
        full[ax] = v
    return full


def _taps(x: ad.ndarray, shape: Sequence[int], origins: Sequence[int],
          mode: str, cval: Any) -> tuple[ad.ndarray, Callable[..., ad.ndarray]]:
    """x padded for a kernel of shape with origins; and a function of a tap's
    index giving the shifted slice of the padded input it reads."""
    widths = []
    for n, o in zip(shape, origins):
        left = n // 2 + o
        widths.append((left, n - 1 - left))
    p = u.pad(x, widths, mode, cval) if any(a or b for a, b in widths) else x

    def view(idx: Sequence[int]) -> ad.ndarray:
        return p[tuple(slice(int(i), int(i) + n)
                       for i, n in zip(idx, x.shape))]
    return p, view


def _offsets(idxs: Sequence[Sequence[int]], shape: Sequence[int],
             origins: Sequence[int]) -> list[list[int]]:
    """The taps at idxs of a footprint of shape with origins as offsets from
    the element they belong to (the stencil kernel's)."""
    return [[int(i) - (n // 2 + o) for i, n, o in zip(idx, shape, origins)]
            for idx in idxs]


def _correlate_nd(input: Any, weights: Any, output: Any, mode: str,
                  cval: Any, origin: Any, axes: Any,
                  convolution: bool) -> ad.ndarray:
    x = u.check_input(input)
    w = u.host(weights)
    w = w.astype(np.complex128 if w.dtype.kind == "c" else np.float64)
    axes = u.check_axes(axes, x.ndim)
    if w.size == 0 and len(axes) == x.ndim:
        # As SciPy: empty weights count their nonzero lengths as dimensions
        # and give zeros.
        nd = sum(1 for n in w.shape if n > 0)
        if nd != x.ndim:
            raise RuntimeError(f"weights.ndim ({nd}) must match "
                               f"len(axes) ({len(axes)})")
        complex_output = x.dtype.kind == "c" or w.dtype.kind == "c"
        dt, out = u.get_output(output, x, complex_output=complex_output)
        return u.finish(ad.zeros(x.shape, dtype=dt), dt, out)
    if w.ndim != len(axes):
        raise RuntimeError(f"weights.ndim ({w.ndim}) must match "
                           f"len(axes) ({len(axes)})")
    origins = u.origins(origin, len(axes))
    w = _expand_to_axes(w, axes, x.ndim)
    full = [0] * x.ndim
    for ax, o in zip(axes, origins):
        full[ax] = o
    mode = u.single_mode(mode)
    if convolution:
        w = w[(slice(None, None, -1),) * w.ndim]
        for ax in range(x.ndim):
            full[ax] = -full[ax]
            if not w.shape[ax] & 1:
                full[ax] -= 1
    else:
        w = np.conj(w)
    for o, n in zip(full, w.shape):
        if n > 0 and not -(n // 2) <= o <= (n - 1) // 2:
            raise ValueError(
                "Invalid origin; origin must satisfy -(weights.shape[k] // 2)"
                " <= origin[k] <= (weights.shape[k]-1) // 2")
    complex_output = x.dtype.kind == "c" or w.dtype.kind == "c"
    dt, out = u.get_output(output, x, complex_output=complex_output)
    x = _exact_for(x, dt)
    wd = u.work_dtype(x, w.dtype if w.dtype.kind == "c" else np.float32)
    if w.size == 0 or x.size == 0:
        return u.finish(ad.zeros(x.shape, dtype=wd), dt, out)
    xs = x.astype(wd) if x.dtype != wd else x
    long_axes = [ax for ax in range(x.ndim) if w.shape[ax] > 1]
    if len(long_axes) <= 1:
        ax = long_axes[0] if long_axes else 0
        res = _correlate1d(xs, w.reshape(-1), ax, mode, cval, full[ax])
        return u.finish(res, dt, out)
    idxs = list(zip(*np.nonzero(w)))
    if idxs:
        res = _k.stencil(xs, _offsets(idxs, w.shape, full), u.pad_mode(mode), cval,
                         weights=[w[i] for i in idxs])
        if res is not None:
            return u.finish(res, dt, out)
    p, view = _taps(xs, w.shape, full, mode, cval)
    acc = None
    for idx in idxs:
        term = view(idx) * w[idx].astype(wd).item()
        acc = term if acc is None else ad.add(acc, term, out=acc)
    if acc is None:
        acc = ad.zeros(x.shape, dtype=wd)
    return u.finish(acc, dt, out)


def correlate(input: Any, weights: Any, output: Any = None,
              mode: str = "reflect", cval: float = 0.0, origin: Any = 0, *,
              axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.correlate: the N-D correlation of input with weights
    (one dimension per axis of axes; complex weights are conjugated)."""
    return _correlate_nd(input, weights, output, mode, cval, origin, axes,
                         False)


def convolve(input: Any, weights: Any, output: Any = None,
             mode: str = "reflect", cval: float = 0.0, origin: Any = 0, *,
             axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.convolve: the N-D convolution of input with weights."""
    return _correlate_nd(input, weights, output, mode, cval, origin, axes,
                         True)


def _check_complex_output(x: ad.ndarray, dt: np.dtype) -> None:
    """SciPy's error for a complex input filtered into a real output."""
    if x.dtype.kind == "c" and dt.kind != "c":
        raise RuntimeError("output must have complex dtype")


# -- Gaussian filters --------------------------------------------------------

def _gaussian_kernel1d(sigma: float, order: int, radius: int) -> np.ndarray:
    """The sampled Gaussian of sigma over [-radius, radius], normalized to
    sum 1, times the polynomial that makes it its order-th derivative."""
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    phi = np.exp(-0.5 * (x / sigma) ** 2)
    phi /= phi.sum()
    if order == 0:
        return phi
    # d/dx (p(x) phi) = (p'(x) - x p(x) / sigma^2) phi, from p = 1.
    p = np.polynomial.Polynomial([1.0])
    xs = np.polynomial.Polynomial([0.0, -1.0 / sigma ** 2])
    for _ in range(order):
        p = p.deriv() + xs * p
    return p(x) * phi


def _gaussian_weights(sigma: Any, order: Any, truncate: Any,
                      radius: Any) -> np.ndarray:
    sd = float(sigma)
    lw = int(truncate * sd + 0.5)
    if radius is not None:
        lw = radius
    if not isinstance(lw, numbers.Integral) or lw < 0:
        raise ValueError("Radius must be a nonnegative integer.")
    order = operator.index(order)
    if order < 0:
        raise ValueError("order must be non-negative")
    # A correlation with the kernel reversed, as SciPy's convolution.
    return _gaussian_kernel1d(sd, order, int(lw))[::-1]


def gaussian_filter1d(input: Any, sigma: float, axis: int = -1,
                      order: int = 0, output: Any = None,
                      mode: str = "reflect", cval: float = 0.0,
                      truncate: float = 4.0, *,
                      radius: Any = None) -> ad.ndarray:
    """scipy.ndimage.gaussian_filter1d: the 1-D Gaussian filter (or its
    order-th derivative) of standard deviation sigma along axis, cut at
    truncate sigmas (or radius)."""
    w = _gaussian_weights(sigma, order, truncate, radius)
    return correlate1d(input, w, axis, output, mode, cval, 0)


def gaussian_filter(input: Any, sigma: Any, order: Any = 0,
                    output: Any = None, mode: Any = "reflect",
                    cval: float = 0.0, truncate: float = 4.0, *,
                    radius: Any = None, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.gaussian_filter: the separable Gaussian filter, one
    1-D pass for each axis whose sigma is positive (sigma, order, mode and
    radius may be given per axis)."""
    x = u.check_input(input)
    dt, out = u.get_output(output, x)
    axes = u.check_axes(axes, x.ndim)
    n = len(axes)
    orders = u.normalize_sequence(order, n)
    sigmas = u.normalize_sequence(sigma, n)
    modes = u.normalize_sequence(mode, n)
    radii = u.normalize_sequence(radius, n)
    res = x
    done = False
    for ax, sd, od, md, rd in zip(axes, sigmas, orders, modes, radii):
        if sd <= 1e-15:
            continue
        _check_complex_output(x, dt)
        w = _gaussian_weights(sd, od, truncate, rd)
        res = u.finish(_correlate1d(res, w, ax, u.check_mode(md), cval, 0),
                       dt, None)
        done = True
    if not done:
        res = res.astype(dt, copy=True)
    return u.finish(res, dt, out)


# -- uniform, minimum and maximum filters ------------------------------------

def _check_size(size: Any) -> int:
    size = operator.index(size)
    if size < 1:
        raise RuntimeError("incorrect filter size")
    return size


def _window_reduce(x: ad.ndarray, size: int, axis: int, mode: str,
                   cval: Any, origin: int, how: str,
                   exact_mean: bool = True) -> ad.ndarray:
    """The mean, min or max over each window of size along axis; the mean
    as the sum divided by size (exact_mean: as SciPy, exact where the mean
    is an integer), else one pass with weights 1 / size."""
    u.check_origin(origin, size)
    if size == 1 or x.size == 0:
        return x
    left = size // 2 + origin
    taps = [[k - left if d == axis else 0 for d in range(x.ndim)] for k in range(size)]
    pm = u.pad_mode(mode)
    if how == "mean" and not exact_mean:
        res = _k.stencil(x, taps, pm, cval, weights=np.full(size, 1 / size))
    elif how == "mean":
        # The sum, then one division (as SciPy: exact for integer means).
        res = _k.stencil(x, taps, pm, cval, weights=np.ones(size))
        if res is not None:
            ad.divide(res, size, out=res)
    else:
        res = _k.stencil(x, taps, pm, cval, rank=0 if how == "min" else size - 1)
    if res is not None:
        return res
    p = u.pad_axis(x, axis, left, size - 1 - left, mode, cval)
    win = sliding_window_view(p, size, axis=axis)
    if how == "mean":
        return ad.mean(win, axis=-1)
    return ad.min(win, axis=-1) if how == "min" else ad.max(win, axis=-1)


def uniform_filter1d(input: Any, size: int, axis: int = -1,
                     output: Any = None, mode: str = "reflect",
                     cval: float = 0.0, origin: int = 0) -> ad.ndarray:
    """scipy.ndimage.uniform_filter1d: the mean over windows of size along
    axis."""
    x = u.check_input(input)
    axis = u.normalize_axis(axis, x.ndim)
    size = _check_size(size)
    u.check_mode(mode)
    dt, out = u.get_output(output, x)
    xs = x.astype(u.work_dtype(x)) if x.dtype.kind in "biu" else x
    res = _window_reduce(xs, size, axis, mode, cval, operator.index(origin),
                         "mean", np.dtype(dt).kind in "biu")
    return u.finish(res, dt, out)


def uniform_filter(input: Any, size: Any = 3, output: Any = None,
                   mode: Any = "reflect", cval: float = 0.0,
                   origin: Any = 0, *, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.uniform_filter: the separable mean over boxes of size
    (one 1-D pass an axis; size, mode and origin may be given per axis)."""
    x = u.check_input(input)
    dt, out = u.get_output(output, x)
    axes = u.check_axes(axes, x.ndim)
    n = len(axes)
    sizes = u.normalize_sequence(size, n)
    origins = u.normalize_sequence(origin, n)
    modes = u.normalize_sequence(mode, n)
    res = x
    done = False
    for ax, sz, org, md in zip(axes, sizes, origins, modes):
        if operator.index(sz) <= 1:
            continue
        xs = res.astype(u.work_dtype(res)) if res.dtype.kind in "biu" else res
        r = _window_reduce(xs, sz, ax, u.check_mode(md), cval,
                           operator.index(org), "mean", np.dtype(dt).kind in "biu")
        res = u.finish(r, dt, None)
        done = True
    if not done:
        res = res.astype(dt, copy=True)
    return u.finish(res, dt, out)


def _minmax1d(input: Any, size: int, axis: int, output: Any, mode: str,
              cval: Any, origin: int, how: str) -> ad.ndarray:
    x = u.check_input(input)
    axis = u.normalize_axis(axis, x.ndim)
    size = _check_size(size)
    u.check_mode(mode)
    dt, out = u.get_output(output, x)
    x = u.wide_for_cval(x, mode, cval)
    res = _window_reduce(x, size, axis, mode, cval, operator.index(origin),
                         how)
    if res is x:
        res = x.astype(dt, copy=True)
    return u.finish(res, dt, out)


def minimum_filter1d(input: Any, size: int, axis: int = -1,
                     output: Any = None, mode: str = "reflect",
                     cval: float = 0.0, origin: int = 0) -> ad.ndarray:
    """scipy.ndimage.minimum_filter1d: the minimum over windows of size
    along axis."""
    return _minmax1d(input, size, axis, output, mode, cval, origin, "min")


def maximum_filter1d(input: Any, size: int, axis: int = -1,
                     output: Any = None, mode: str = "reflect",
                     cval: float = 0.0, origin: int = 0) -> ad.ndarray:
    """scipy.ndimage.maximum_filter1d: the maximum over windows of size
    along axis."""
    return _minmax1d(input, size, axis, output, mode, cval, origin, "max")


def _footprint(size: Any, footprint: Any, axes: Sequence[int],
               ndim: int) -> tuple[np.ndarray | None, list[int] | None]:
    """(footprint as a bool array over all ndim axes, None) or, for a
    rectangular one, (None, its sizes per axis of axes)."""
    if footprint is None:
        if size is None:
            raise RuntimeError("no footprint or filter size provided")
        return None, [operator.index(s)
                      for s in u.normalize_sequence(size, len(axes))]
    if size is not None:
        warnings.warn("ignoring size because footprint is set",
                      UserWarning, stacklevel=3)
    fp = u.host(footprint).astype(bool)
    if fp.ndim != len(axes):
        raise RuntimeError("footprint array has incorrect shape.")
    if not fp.any():
        raise ValueError("All-zero footprint is not supported.")
    if fp.all():
        return None, list(fp.shape)
    return _expand_to_axes(fp, axes, ndim, "footprint"), None


def _minmax(input: Any, size: Any, footprint: Any, structure: Any,
            output: Any, mode: Any, cval: Any, origin: Any, how: str,
            axes: Any = None) -> ad.ndarray:
    """minimum_filter and maximum_filter, also grey erosion and dilation
    (structure: values subtracted or added before the min or max)."""
    x = u.check_input(input)
    dt, out = u.get_output(output, x)
    axes = u.check_axes(axes, x.ndim)
    if structure is None:
        fp, sizes = _footprint(size, footprint, axes, x.ndim)
        st = None
    else:
        st = u.host(structure).astype(np.float64)
        if st.ndim != len(axes):
            raise RuntimeError("structure array has incorrect shape")
        fp = (np.ones(st.shape, bool) if footprint is None
              else u.host(footprint).astype(bool))
        if not fp.any():
            raise ValueError("All-zero footprint is not supported.")
        fp = _expand_to_axes(fp, axes, x.ndim, "footprint")
        st = _expand_to_axes(st, axes, x.ndim, "structure")
        sizes = None
    full_origins = _axis_origins(origin, axes, x.ndim)
    if fp is None:
        # Rectangular: separable, one reduction an axis.
        modes = u.normalize_sequence(mode, len(axes))
        # SciPy's separable passes compare a cval the dtype cannot hold as
        # a double; its footprint loop converts cval to the dtype first.
        res = u.wide_for_cval(x, modes, cval)
        for ax, sz, md in zip(axes, sizes, modes):
            sz = _check_size(sz)
            res = _window_reduce(res, sz, ax, u.check_mode(md), cval,
                                 full_origins[ax], how)
        if res is x:
            res = x.astype(dt, copy=True)
        return u.finish(res, dt, out)
    mode = u.single_mode(mode)
    for o, n in zip(full_origins, fp.shape):
        u.check_origin(o, n)
    if st is None:
        idxs = list(zip(*np.nonzero(fp)))
        res = _k.stencil(x, _offsets(idxs, fp.shape, full_origins), u.pad_mode(mode), cval,
                         rank=0 if how == "min" else len(idxs) - 1)
        if res is not None:
            return u.finish(res, dt, out)
    p, view = _taps(x, fp.shape, full_origins, mode, cval)
    pick = ad.minimum if how == "min" else ad.maximum
    acc = None
    for idx in zip(*np.nonzero(fp)):
        term = view(idx)
        if st is not None:
            s = st[idx] if how == "max" else -st[idx]
            term = term + x.dtype.type(s) if s else term
        acc = term.copy() if acc is None else pick(acc, term, out=acc)
    return u.finish(acc, dt, out)


def minimum_filter(input: Any, size: Any = None, footprint: Any = None,
                   output: Any = None, mode: Any = "reflect",
                   cval: float = 0.0, origin: Any = 0, *,
                   axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.minimum_filter: the minimum over a box of size, or
    over footprint."""
    return _minmax(input, size, footprint, None, output, mode, cval, origin,
                   "min", axes)


def maximum_filter(input: Any, size: Any = None, footprint: Any = None,
                   output: Any = None, mode: Any = "reflect",
                   cval: float = 0.0, origin: Any = 0, *,
                   axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.maximum_filter: the maximum over a box of size, or
    over footprint."""
    return _minmax(input, size, footprint, None, output, mode, cval, origin,
                   "max", axes)


# -- rank filters ------------------------------------------------------------

def _rank(input: Any, rank: Any, size: Any, footprint: Any, output: Any,
          mode: Any, cval: Any, origin: Any, kind: str,
          axes: Any) -> ad.ndarray:
    x = u.check_input(input)
    axes = u.check_axes(axes, x.ndim)
    if footprint is None:
        if size is None:
            raise RuntimeError("no footprint or filter size provided")
        sizes = u.normalize_sequence(size, len(axes))
        fp = np.ones([operator.index(s) for s in sizes], dtype=bool)
    else:
        if size is not None:
            warnings.warn("ignoring size because footprint is set",
                          UserWarning, stacklevel=3)
        fp = u.host(footprint).astype(bool)
        if fp.ndim != len(axes):
            raise RuntimeError("footprint array has incorrect shape.")
    full_origins = _axis_origins(origin, axes, x.ndim)
    fp_full = _expand_to_axes(fp, axes, x.ndim, "footprint")
    for o, n in zip(full_origins, fp_full.shape):
        u.check_origin(o, n)
    count = int(fp.sum())
    if kind == "percentile":
        pct = float(rank)
        if pct < 0.0:
            pct += 100.0
        if pct < 0 or pct > 100:
            raise RuntimeError("invalid percentile")
        rank = count - 1 if pct == 100.0 else int(float(count) * pct / 100.0)
    elif kind == "median":
        rank = count // 2
    else:
        rank = operator.index(rank)
        if rank < 0:
            rank += count
    if rank < 0 or rank >= count:
        raise RuntimeError("rank not within filter footprint size")
    if rank == 0 or rank == count - 1:
        how = "min" if rank == 0 else "max"
        fp_arg = None if footprint is None else fp
        return _minmax(x, None if fp_arg is not None else fp.shape, fp_arg,
                       None, output, mode, cval, origin, how, axes)
    mode = u.single_mode(mode, " by non-separable rank filters")
    dt, out = u.get_output(output, x)
    idxs = list(zip(*np.nonzero(fp_full)))
    res = _k.stencil(x, _offsets(idxs, fp_full.shape, full_origins), u.pad_mode(mode), cval,
                     rank=rank)
    if res is not None:
        return u.finish(res, dt, out)
    p, view = _taps(x, fp_full.shape, full_origins, mode, cval)
    stacked = ad.stack([view(idx) for idx in idxs], axis=-1)
    res = ad.partition(stacked, rank, axis=-1)[..., rank]
    return u.finish(res, dt, out)


def rank_filter(input: Any, rank: int, size: Any = None,
                footprint: Any = None, output: Any = None,
                mode: str = "reflect", cval: float = 0.0, origin: Any = 0, *,
                axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.rank_filter: the rank-th smallest value over a box of
    size, or over footprint (negative ranks count from the largest)."""
    return _rank(input, rank, size, footprint, output, mode, cval, origin,
                 "rank", axes)


def median_filter(input: Any, size: Any = None, footprint: Any = None,
                  output: Any = None, mode: str = "reflect",
                  cval: float = 0.0, origin: Any = 0, *,
                  axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.median_filter: the median over a box of size, or over
    footprint (the upper median for an even count, as SciPy)."""
    return _rank(input, 0, size, footprint, output, mode, cval, origin,
                 "median", axes)


def percentile_filter(input: Any, percentile: float, size: Any = None,
                      footprint: Any = None, output: Any = None,
                      mode: str = "reflect", cval: float = 0.0,
                      origin: Any = 0, *, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.percentile_filter: the percentile-th value over a box
    of size, or over footprint (negative percentiles count from 100)."""
    return _rank(input, percentile, size, footprint, output, mode, cval,
                 origin, "percentile", axes)


# -- generic filters ---------------------------------------------------------

def generic_filter(input: Any, function: Callable[..., Any], size: Any = None,
                   footprint: Any = None, output: Any = None,
                   mode: str = "reflect", cval: float = 0.0, origin: Any = 0,
                   extra_arguments: Sequence[Any] = (),
                   extra_keywords: dict[str, Any] | None = None, *,
                   axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.generic_filter, vectorized: function receives, once,
    an array whose last axis holds every element's footprint values (as
    SciPy's 1-D buffer, in footprint order) and returns one value per
    element; an arrayd ReductionKernel or a function reducing over
    ``axis=-1`` fits (a reduction such as ``lambda v: v.max(axis=-1)``).
    SciPy's per-element Python callback would be a host loop, which the
    server does not run."""
    x = u.check_input(input)
    axes = u.check_axes(axes, x.ndim)
    if footprint is None:
        if size is None:
            raise RuntimeError("no footprint or filter size provided")
        fp = np.ones([operator.index(s) for s in
                      u.normalize_sequence(size, len(axes))], dtype=bool)
    else:
        fp = u.host(footprint).astype(bool)
        if fp.ndim != len(axes):
            raise RuntimeError("footprint array has incorrect shape.")
    full_origins = _axis_origins(origin, axes, x.ndim)
    fp_full = _expand_to_axes(fp, axes, x.ndim, "footprint")
    for o, n in zip(full_origins, fp_full.shape):
        u.check_origin(o, n)
    dt, out = u.get_output(output, x)
    _, view = _taps(x.astype(u.F64), fp_full.shape, full_origins,
                    u.single_mode(mode), cval)
    stacked = ad.stack([view(idx) for idx in zip(*np.nonzero(fp_full))],
                       axis=-1)
    res = function(stacked, *extra_arguments, **(extra_keywords or {}))
    return u.finish(u.asarray(res), dt, out)


def generic_filter1d(input: Any, function: Callable[..., Any],
                     filter_size: int, axis: int = -1, output: Any = None,
                     mode: str = "reflect", cval: float = 0.0,
                     origin: int = 0, extra_arguments: Sequence[Any] = (),
                     extra_keywords: dict[str, Any] | None = None
                     ) -> ad.ndarray:
    """scipy.ndimage.generic_filter1d, vectorized: function(src, dst) gets
    every line along axis at once, src padded by filter_size - 1 (last
    axis), dst the output lines to fill in place (last axis)."""
    x = u.check_input(input)
    axis = u.normalize_axis(axis, x.ndim)
    size = _check_size(filter_size)
    origin = operator.index(origin)
    u.check_origin(origin, size)
    dt, out = u.get_output(output, x)
    left = size // 2 + origin
    src = ad.moveaxis(u.pad_axis(x.astype(u.F64), axis, left,
                                 size - 1 - left, u.check_mode(mode), cval),
                      axis, -1)
    dst = ad.zeros(src.shape[:-1] + (x.shape[axis],), dtype=u.F64)
    function(src, dst, *extra_arguments, **(extra_keywords or {}))
    return u.finish(ad.moveaxis(dst, -1, axis), dt, out)


# -- derivatives -------------------------------------------------------------

def _separable_derivative(input: Any, axis: int, output: Any, mode: Any,
                          cval: Any, diff: Sequence[float],
                          smooth: Sequence[float]) -> ad.ndarray:
    x = u.check_input(input)
    axis = u.normalize_axis(axis, x.ndim)
    modes = u.normalize_sequence(mode, x.ndim)
    dt, out = u.get_output(output, x)
    _check_complex_output(x, dt)
    res = u.finish(_correlate1d(x, np.asarray(diff, float), axis,
                                u.check_mode(modes[axis]), cval, 0), dt, None)
    for ax in range(x.ndim):
        if ax != axis:
            res = u.finish(_correlate1d(res, np.asarray(smooth, float), ax,
                                        u.check_mode(modes[ax]), cval, 0),
                           dt, None)
    return u.finish(res, dt, out)


def sobel(input: Any, axis: int = -1, output: Any = None,
          mode: Any = "reflect", cval: float = 0.0) -> ad.ndarray:
    """scipy.ndimage.sobel: the Sobel derivative along axis ([-1, 0, 1]
    there, [1, 2, 1] along the other axes)."""
    return _separable_derivative(input, axis, output, mode, cval,
                                 (-1, 0, 1), (1, 2, 1))


def prewitt(input: Any, axis: int = -1, output: Any = None,
            mode: Any = "reflect", cval: float = 0.0) -> ad.ndarray:
    """scipy.ndimage.prewitt: the Prewitt derivative along axis ([-1, 0, 1]
    there, [1, 1, 1] along the other axes)."""
    return _separable_derivative(input, axis, output, mode, cval,
                                 (-1, 0, 1), (1, 1, 1))


def _out_array(output: Any, x: ad.ndarray) -> ad.ndarray:
    """The array the generic derivative filters accumulate in."""
    dt, out = u.get_output(output, x)
    return out if out is not None else ad.zeros(x.shape, dtype=dt)


def generic_laplace(input: Any, derivative2: Callable[..., Any],
                    output: Any = None, mode: Any = "reflect",
                    cval: float = 0.0, extra_arguments: Sequence[Any] = (),
                    extra_keywords: dict[str, Any] | None = None, *,
                    axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.generic_laplace: the sum over axes of
    derivative2(input, axis, output, mode, cval, ...), the first written
    into the output array, the others returned in its dtype."""
    x = u.check_input(input)
    kw = extra_keywords or {}
    res = _out_array(output, x)
    axes = u.check_axes(axes, x.ndim)
    if not axes:
        res[...] = x
        return res
    modes = u.normalize_sequence(mode, len(axes))
    derivative2(x, axes[0], res, modes[0], cval, *extra_arguments, **kw)
    for ax, md in zip(axes[1:], modes[1:]):
        tmp = derivative2(x, ax, res.dtype, md, cval, *extra_arguments, **kw)
        res += tmp
    return res


def laplace(input: Any, output: Any = None, mode: Any = "reflect",
            cval: float = 0.0, *, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.laplace: the sum of the second differences [1, -2, 1]
    along each axis."""
    def derivative2(x: Any, axis: int, output: Any, mode: str,
                    cval: float) -> ad.ndarray:
        return correlate1d(x, [1, -2, 1], axis, output, mode, cval, 0)
    return generic_laplace(input, derivative2, output, mode, cval, axes=axes)


def gaussian_laplace(input: Any, sigma: Any, output: Any = None,
                     mode: Any = "reflect", cval: float = 0.0, *,
                     axes: Any = None, **kwargs: Any) -> ad.ndarray:
    """scipy.ndimage.gaussian_laplace: the sum over axes of the second
    Gaussian derivatives of sigma (kwargs go to gaussian_filter)."""
    x = u.check_input(input)
    axes = u.check_axes(axes, x.ndim)
    sigmas = u.normalize_sequence(sigma, len(axes))

    def derivative2(x: Any, axis: int, output: Any, mode: str, cval: float,
                    sigma: Any, **kw: Any) -> ad.ndarray:
        order = [0] * len(axes)
        order[axes.index(axis)] = 2
        return gaussian_filter(x, sigma, order, output, mode, cval,
                               axes=axes, **kw)
    return generic_laplace(x, derivative2, output, mode, cval,
                           extra_arguments=(sigmas,), extra_keywords=kwargs,
                           axes=axes)


def generic_gradient_magnitude(input: Any, derivative: Callable[..., Any],
                               output: Any = None, mode: Any = "reflect",
                               cval: float = 0.0,
                               extra_arguments: Sequence[Any] = (),
                               extra_keywords: dict[str, Any] | None = None,
                               *, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.generic_gradient_magnitude: the square root of the
    sum over axes of derivative(input, axis, ...) squared, accumulated in
    the output dtype."""
    x = u.check_input(input)
    kw = extra_keywords or {}
    res = _out_array(output, x)
    axes = u.check_axes(axes, x.ndim)
    if not axes:
        res[...] = x
        return res
    modes = u.normalize_sequence(mode, len(axes))
    derivative(x, axes[0], res, modes[0], cval, *extra_arguments, **kw)
    ad.multiply(res, res, out=res)
    for ax, md in zip(axes[1:], modes[1:]):
        tmp = u.asarray(derivative(x, ax, res.dtype, md, cval,
                                   *extra_arguments, **kw))
        res += tmp * tmp
    res[...] = ad.sqrt(res).astype(res.dtype)
    return res


def gaussian_gradient_magnitude(input: Any, sigma: Any, output: Any = None,
                                mode: Any = "reflect", cval: float = 0.0, *,
                                axes: Any = None,
                                **kwargs: Any) -> ad.ndarray:
    """scipy.ndimage.gaussian_gradient_magnitude: the magnitude of the
    gradient by Gaussian first derivatives of sigma (the gradient over
    axes, the smoothing over every axis, as SciPy)."""
    x = u.check_input(input)
    axes = u.check_axes(axes, x.ndim)
    sigmas = sigma

    def derivative(x: Any, axis: int, output: Any, mode: str, cval: float,
                   sigma: Any, **kw: Any) -> ad.ndarray:
        order = [0] * x.ndim
        order[axis] = 1
        return gaussian_filter(x, sigma, order, output, mode, cval, **kw)
    return generic_gradient_magnitude(x, derivative, output, mode, cval,
                                      extra_arguments=(sigmas,),
                                      extra_keywords=kwargs, axes=axes)

