"""scipy.ndimage's binary and grey morphology.

A binary erosion is the AND, a dilation the OR, of the structure's taps,
each a shifted slice of the input padded with border_value (one pad op,
then one logical op a tap); iterations repeat it, and ``iterations < 1``
repeats until nothing changes (one host check an iteration, the only
host round trip). binary_fill_holes labels the background
(_measurements.label) and keeps the components that touch the border.
Grey morphology is the minimum and maximum filters of _filters with
SciPy's reflection of the footprint for dilation.

Layer: functions of the arrayd.scipy.ndimage namespace (imports arrayd's
public namespace, _util, _filters and _measurements).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

import arrayd as ad
from arrayd.scipy.ndimage import _filters, _measurements
from arrayd.scipy.ndimage import _util as u

__all__ = [
    "generate_binary_structure", "iterate_structure", "binary_erosion",
    "binary_dilation", "binary_opening", "binary_closing",
    "binary_propagation", "binary_fill_holes", "binary_hit_or_miss",
    "grey_erosion", "grey_dilation", "grey_opening", "grey_closing",
    "morphological_gradient", "morphological_laplace", "white_tophat",
    "black_tophat",
]


def _host_structure(rank: int, connectivity: int) -> np.ndarray:
    if connectivity < 1:
        connectivity = 1
    if rank < 1:
        return np.array(True, dtype=bool)
    return np.add.reduce(np.fabs(np.indices([3] * rank) - 1), 0) <= connectivity


def generate_binary_structure(rank: int, connectivity: int) -> ad.ndarray:
    """scipy.ndimage.generate_binary_structure: the 3 x ... x 3 boolean
    structure of the elements within connectivity steps of the centre."""
    return ad.asarray(_host_structure(operator.index(rank),
                                      operator.index(connectivity)))


def iterate_structure(structure: Any, iterations: int,
                      origin: Any = None) -> Any:
    """scipy.ndimage.iterate_structure: structure dilated by itself
    iterations - 1 times (and the origin scaled with it when given)."""
    s = u.host(structure).astype(bool)
    if iterations < 2:
        res = ad.asarray(s.copy())
    else:
        ni = iterations - 1
        shape = [n + ni * (n - 1) for n in s.shape]
        pos = [ni * (n // 2) for n in s.shape]
        seed = np.zeros(shape, bool)
        seed[tuple(slice(p, p + n) for p, n in zip(pos, s.shape))] = s
        res = binary_dilation(seed, s, iterations=ni)
    if origin is None:
        return res
    o = u.normalize_sequence(origin, s.ndim)
    return res, [iterations * v for v in o]


def _is_shape(structure: Any) -> bool:
    """Whether structure is CuPy's box shorthand (an int, or a tuple of
    ints) rather than an array."""
    if isinstance(structure, bool):
        return False
    if isinstance(structure, int):
        return True
    return (isinstance(structure, tuple) and len(structure) > 0
            and all(isinstance(v, int) and not isinstance(v, bool)
                    for v in structure))


def _binary_output(output: Any, x: ad.ndarray) -> tuple[np.dtype, Any]:
    """SciPy's output rule of the binary operations: bool unless output is
    an array to fill (a dtype is ignored)."""
    if output is None or isinstance(output, (type, np.dtype, str)):
        return np.dtype(bool), None
    return u.get_output(output, x)


def _structure(structure: Any, ndim: int,
               axes: tuple[int, ...]) -> np.ndarray:
    """The structure over the axes as a host bool array (SciPy's default:
    connectivity 1), expanded over the input's other axes."""
    if structure is None:
        s = _host_structure(len(axes), 1)
    elif _is_shape(structure):
        # CuPy's shorthand: an int or a tuple of ints is a box of ones.
        shape = ((structure,) * len(axes) if isinstance(structure, int)
                 else structure)
        s = np.ones(shape, dtype=bool)
    else:
        s = u.host(structure).astype(bool)
    if s.ndim != len(axes):
        raise RuntimeError("structure and input must have same dimensionality")
    if s.size < 1:
        raise RuntimeError("structure must not be empty")
    return _filters._expand_to_axes(s, axes, ndim, "structure")


def _origins(origin: Any, axes: tuple[int, ...], ndim: int,
             shape: tuple[int, ...]) -> list[int]:
    full = _filters._axis_origins(origin, axes, ndim)
    for o, n in zip(full, shape):
        u.check_origin(o, n)
    return full


def _erode_once(x: ad.ndarray, s: np.ndarray, origins: list[int],
                border: bool, dilate: bool) -> ad.ndarray:
    """One erosion (AND of the taps) or dilation (OR of the reflected
    taps) of the boolean x."""
    _, view = _filters._taps(x, s.shape, origins, "constant", border)
    acc = None
    for idx in zip(*np.nonzero(s)):
        v = view(idx)
        if acc is None:
            acc = v.copy()
        elif dilate:
            ad.logical_or(acc, v, out=acc)
        else:
            ad.logical_and(acc, v, out=acc)
    if acc is None:
        # No taps: the AND over nothing is True, the OR False.
        acc = (ad.ones if not dilate else ad.zeros)(x.shape, dtype=bool)
    return acc


def _binary(input: Any, structure: Any, iterations: Any, mask: Any,
            output: Any, border_value: Any, origin: Any, axes: Any,
            dilate: bool) -> ad.ndarray:
    x = u.asarray(input)
    if x.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    axes = u.check_axes(axes, x.ndim)
    s = _structure(structure, x.ndim, axes)
    origins = _origins(origin, axes, x.ndim, s.shape)
    if dilate:
        s = s[(slice(None, None, -1),) * s.ndim]
        for ax in range(x.ndim):
            origins[ax] = -origins[ax]
            if not s.shape[ax] & 1:
                origins[ax] -= 1
    b = x != 0
    m = None if mask is None else u.asarray(mask) != 0
    iterations = operator.index(iterations)
    border = bool(border_value)
    steps = 0
    while True:
        nxt = _erode_once(b, s, origins, border, dilate)
        if m is not None:
            nxt = ad.where(m, nxt, b)
        steps += 1
        if iterations >= 1:
            b = nxt
            if steps >= iterations:
                break
        else:
            same = bool(ad.array_equal(nxt, b))
            b = nxt
            if same:
                break
    dt, out = _binary_output(output, x)
    return u.finish(b, dt, out)


def binary_erosion(input: Any, structure: Any = None, iterations: int = 1,
                   mask: Any = None, output: Any = None,
                   border_value: int = 0, origin: Any = 0,
                   brute_force: bool = False, *,
                   axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.binary_erosion: True where every element under the
    structure is True (outside the input: border_value), repeated
    iterations times (until nothing changes when iterations < 1); where
    mask is False the input is kept."""
    return _binary(input, structure, iterations, mask, output, border_value,
                   origin, axes, False)


def binary_dilation(input: Any, structure: Any = None, iterations: int = 1,
                    mask: Any = None, output: Any = None,
                    border_value: int = 0, origin: Any = 0,
                    brute_force: bool = False, *,
                    axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.binary_dilation: True where any element under the
    reflected structure is True, repeated as binary_erosion."""
    return _binary(input, structure, iterations, mask, output, border_value,
                   origin, axes, True)


def _default_structure(structure: Any, x: Any, axes: Any) -> Any:
    if structure is None:
        n = len(u.check_axes(axes, u.asarray(x).ndim))
        return _host_structure(n, 1)
    if _is_shape(structure):
        n = len(u.check_axes(axes, u.asarray(x).ndim))
        return np.ones((structure,) * n if isinstance(structure, int)
                       else structure, dtype=bool)
    return structure


def binary_opening(input: Any, structure: Any = None, iterations: int = 1,
                   output: Any = None, origin: Any = 0, mask: Any = None,
                   border_value: int = 0, brute_force: bool = False, *,
                   axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.binary_opening: the dilation of the erosion."""
    s = _default_structure(structure, input, axes)
    tmp = binary_erosion(input, s, iterations, mask, None, border_value,
                         origin, brute_force, axes=axes)
    return binary_dilation(tmp, s, iterations, mask, output, border_value,
                           origin, brute_force, axes=axes)


def binary_closing(input: Any, structure: Any = None, iterations: int = 1,
                   output: Any = None, origin: Any = 0, mask: Any = None,
                   border_value: int = 0, brute_force: bool = False, *,
                   axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.binary_closing: the erosion of the dilation."""
    s = _default_structure(structure, input, axes)
    tmp = binary_dilation(input, s, iterations, mask, None, border_value,
                          origin, brute_force, axes=axes)
    return binary_erosion(tmp, s, iterations, mask, output, border_value,
                          origin, brute_force, axes=axes)


def binary_propagation(input: Any, structure: Any = None, mask: Any = None,
                       output: Any = None, border_value: int = 0,
                       origin: Any = 0, *, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.binary_propagation: dilation repeated until nothing
    changes, within mask."""
    return binary_dilation(input, structure, -1, mask, output, border_value,
                           origin, axes=axes)


def binary_fill_holes(input: Any, structure: Any = None, output: Any = None,
                      origin: Any = 0, *, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.binary_fill_holes: input with every background region
    that does not reach the border (through structure) filled."""
    x = u.asarray(input)
    axes = u.check_axes(axes, x.ndim)
    s = _structure(structure, x.ndim, axes)
    dt, out = _binary_output(output, x)
    fg = x != 0
    sym = np.array_equal(s, s[(slice(None, None, -1),) * s.ndim])
    if (not sym or any(n != 3 for n in s.shape if n != 1)
            or any(_filters._axis_origins(origin, axes, x.ndim))
            or len(axes) != x.ndim):
        # The general rule: propagate from the border within the background.
        seed = ad.zeros(x.shape, dtype=bool)
        reach = binary_dilation(seed, structure, -1, ~fg, None, 1, origin,
                                axes=axes)
        return u.finish(~reach, dt, out)
    lab, n = _measurements.label(~fg, s)
    # Labels seen on the border reach it.
    edge = ad.zeros(x.shape, dtype=bool)
    for ax in range(x.ndim):
        lo = [slice(None)] * x.ndim
        lo[ax] = slice(0, 1)
        hi = [slice(None)] * x.ndim
        hi[ax] = slice(x.shape[ax] - 1, x.shape[ax])
        edge[tuple(lo)] = True
        edge[tuple(hi)] = True
    border_labels = ad.bincount(ad.ravel(ad.where(edge, lab, 0)),
                                minlength=int(n) + 1) > 0
    border_labels[0] = True
    keep = ad.take(border_labels, lab)
    return u.finish(fg | ~keep, dt, out)


def binary_hit_or_miss(input: Any, structure1: Any = None,
                       structure2: Any = None, output: Any = None,
                       origin1: Any = 0, origin2: Any = None, *,
                       axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.binary_hit_or_miss: where structure1 fits the input
    and structure2 fits its complement."""
    x = u.asarray(input)
    axes_t = u.check_axes(axes, x.ndim)
    s1 = (_host_structure(len(axes_t), 1) if structure1 is None
          else u.host(structure1).astype(bool))
    s2 = ~s1 if structure2 is None else u.host(structure2).astype(bool)
    if origin2 is None:
        origin2 = origin1
    fg = x != 0
    a = binary_erosion(fg, s1, 1, None, None, 0, origin1, axes=axes)
    b = binary_erosion(~fg, s2, 1, None, None, 1, origin2, axes=axes)
    dt, out = _binary_output(output, x)
    return u.finish(a & b, dt, out)


# -- grey morphology ---------------------------------------------------------

def grey_erosion(input: Any, size: Any = None, footprint: Any = None,
                 structure: Any = None, output: Any = None,
                 mode: str = "reflect", cval: float = 0.0, origin: Any = 0,
                 *, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.grey_erosion: the minimum of input - structure over
    footprint (or a box of size)."""
    if size is None and footprint is None and structure is None:
        raise ValueError("size, footprint, or structure must be specified")
    return _filters._minmax(input, size, footprint, structure, output, mode,
                            cval, origin, "min", axes)


def grey_dilation(input: Any, size: Any = None, footprint: Any = None,
                  structure: Any = None, output: Any = None,
                  mode: str = "reflect", cval: float = 0.0, origin: Any = 0,
                  *, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.grey_dilation: the maximum of input + structure over
    the reflected footprint (or a box of size)."""
    if size is None and footprint is None and structure is None:
        raise ValueError("size, footprint, or structure must be specified")
    x = u.asarray(input)
    axes_t = u.check_axes(axes, x.ndim)
    rev = None
    if structure is not None:
        structure = u.host(structure)
        structure = structure[(slice(None, None, -1),) * structure.ndim]
        rev = structure.shape
    if footprint is not None:
        footprint = u.host(footprint)
        footprint = footprint[(slice(None, None, -1),) * footprint.ndim]
        rev = footprint.shape
    origins = u.origins(origin, len(axes_t))
    if rev is None:
        rev = [operator.index(s) for s in
               u.normalize_sequence(size, len(axes_t))]
    origins = [-o - (0 if n & 1 else 1) for o, n in zip(origins, rev)]
    return _filters._minmax(x, size, footprint, structure, output, mode,
                            cval, origins, "max", axes)


def grey_opening(input: Any, size: Any = None, footprint: Any = None,
                 structure: Any = None, output: Any = None,
                 mode: str = "reflect", cval: float = 0.0, origin: Any = 0,
                 *, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.grey_opening: the grey dilation of the grey erosion."""
    tmp = grey_erosion(input, size, footprint, structure, None, mode, cval,
                       origin, axes=axes)
    return grey_dilation(tmp, size, footprint, structure, output, mode, cval,
                         origin, axes=axes)


def grey_closing(input: Any, size: Any = None, footprint: Any = None,
                 structure: Any = None, output: Any = None,
                 mode: str = "reflect", cval: float = 0.0, origin: Any = 0,
                 *, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.grey_closing: the grey erosion of the grey dilation."""
    tmp = grey_dilation(input, size, footprint, structure, None, mode, cval,
                        origin, axes=axes)
    return grey_erosion(tmp, size, footprint, structure, output, mode, cval,
                        origin, axes=axes)


def _filled(output: Any) -> bool:
    """Whether output is an array to fill (SciPy ignores a dtype given to
    the gradient and the Laplace)."""
    return output is not None and not isinstance(output, (type, np.dtype,
                                                          str))


def morphological_gradient(input: Any, size: Any = None,
                           footprint: Any = None, structure: Any = None,
                           output: Any = None, mode: str = "reflect",
                           cval: float = 0.0, origin: Any = 0, *,
                           axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.morphological_gradient: grey dilation minus grey
    erosion (in the input's dtype unless output is an array: then the
    erosion is written there first and the difference after)."""
    x = u.asarray(input)
    d = grey_dilation(x, size, footprint, structure, None, mode, cval,
                      origin, axes=axes)
    if _filled(output):
        e = grey_erosion(x, size, footprint, structure, output, mode, cval,
                         origin, axes=axes)
        return u.finish(d - e, output.dtype, output)
    e = grey_erosion(x, size, footprint, structure, None, mode, cval,
                     origin, axes=axes)
    return u.finish(d - e, x.dtype, None)


def morphological_laplace(input: Any, size: Any = None,
                          footprint: Any = None, structure: Any = None,
                          output: Any = None, mode: str = "reflect",
                          cval: float = 0.0, origin: Any = 0, *,
                          axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.morphological_laplace: grey dilation plus grey erosion
    minus the input twice, each step in the result's dtype (the input's,
    unless output is an array), as SciPy."""
    x = u.asarray(input)
    d = grey_dilation(x, size, footprint, structure, None, mode, cval,
                      origin, axes=axes)
    out = output if _filled(output) else None
    e = grey_erosion(x, size, footprint, structure, out, mode, cval,
                     origin, axes=axes)
    dt = e.dtype
    res = u.finish(d + e, dt, None)
    res = u.finish(res - x, dt, None)
    return u.finish(res - x, dt, out)


def white_tophat(input: Any, size: Any = None, footprint: Any = None,
                 structure: Any = None, output: Any = None,
                 mode: str = "reflect", cval: float = 0.0, origin: Any = 0,
                 *, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.white_tophat: the input minus its grey opening (the
    opening's dilation already in the output dtype, as SciPy)."""
    x = u.asarray(input)
    dt, out = u.get_output(output, x)
    e = grey_erosion(x, size, footprint, structure, None, mode, cval,
                     origin, axes=axes)
    o = grey_dilation(e, size, footprint, structure, dt, mode, cval, origin,
                      axes=axes)
    res = ad.logical_xor(x, o) if x.dtype == np.bool_ and dt == np.bool_ else x - o
    return u.finish(res, dt, out)


def black_tophat(input: Any, size: Any = None, footprint: Any = None,
                 structure: Any = None, output: Any = None,
                 mode: str = "reflect", cval: float = 0.0, origin: Any = 0,
                 *, axes: Any = None) -> ad.ndarray:
    """scipy.ndimage.black_tophat: the grey closing (its erosion already in
    the output dtype, as SciPy) minus the input."""
    x = u.asarray(input)
    dt, out = u.get_output(output, x)
    d = grey_dilation(x, size, footprint, structure, None, mode, cval,
                      origin, axes=axes)
    c = grey_erosion(d, size, footprint, structure, dt, mode, cval, origin,
                     axes=axes)
    res = ad.logical_xor(c, x) if x.dtype == np.bool_ and dt == np.bool_ else c - x
    return u.finish(res, dt, out)
