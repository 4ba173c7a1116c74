"""scipy.ndimage's labels and measurements.

label: every foreground element starts with its own flat index + 1 as
label; each round takes the minimum over the structure's neighbours (a
pad and one minimum a tap), then jumps pointers twice (a label names an
element of the same component, whose label is no larger: one take), and
every round is checked for convergence (one bool to the host). The roots
(elements that kept their own index) are numbered in raster order by a
cumsum, as SciPy numbers them.

Measurements over labels are segmented reductions: each element's label
is mapped to its position in ``index`` by a searchsorted (absent: a
spare bin), sums and counts are bincounts of that position, and the
order statistics (minimum, maximum, median, their positions) come from
one stable sort by (position, value) and the segment bounds
(searchsorted again). What SciPy returns as Python tuples (positions,
centres of mass, find_objects' slices) is brought to the host at the end.

Layer: functions of the arrayd.scipy.ndimage namespace (imports arrayd's
public namespace and _util).
"""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

import arrayd as ad
from arrayd.scipy import _kernels as _k
from arrayd.scipy.ndimage import _util as u

__all__ = [
    "label", "find_objects", "sum_labels", "sum", "mean", "variance",
    "standard_deviation", "minimum", "maximum", "median", "extrema",
    "minimum_position", "maximum_position", "center_of_mass", "histogram",
    "labeled_comprehension", "value_indices",
]


# -- label -------------------------------------------------------------------

def label(input: Any, structure: Any = None,
          output: Any = None) -> Any:
    """scipy.ndimage.label: the connected components of input's nonzero
    elements (neighbours by structure, default connectivity 1), numbered
    from 1 in raster order; (labels, count), or count alone when output is
    an array (written in place)."""
    x = u.asarray(input)
    if x.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    nd = x.ndim
    if structure is None:
        s = np.add.reduce(np.fabs(np.indices([3] * nd) - 1), 0) <= 1 if nd \
            else np.array(True)
    else:
        s = u.host(structure).astype(bool)
        if s.ndim != nd:
            raise RuntimeError("structure and input must have equal rank")
        if any(n != 3 for n in s.shape):
            raise ValueError("structure dimensions must be equal to 3")
    dt = np.dtype(np.int32)
    out = None
    if output is not None:
        if isinstance(output, (type, np.dtype, str)):
            dt = np.dtype(output)
        else:
            if tuple(output.shape) != x.shape:
                raise ValueError("output shape not correct")
            dt, out = output.dtype, output
    if nd == 0 or x.size == 0:
        lab = (x != 0).astype(dt)
        n = int(ad.count_nonzero(lab)) if x.size else 0
        if out is not None:
            out[...] = lab
            return n
        return lab, n
    fg = x != 0
    size = x.size
    # The server's union-find over the structure's half before the centre
    # (SciPy's raster scan reads that half), the roots numbered in order.
    before = [o for o in (tuple(int(i) - 1 for i in idx) for idx in zip(*np.nonzero(s)))
              if any(o) and next(v for v in o if v) < 0]
    done = _k.label(fg, before)
    if done is not None:
        res, count = done
        n = int(count)
        if res.dtype != dt:
            res = res.astype(dt)
        if out is not None:
            out[...] = res
            return n
        return res, n
    big = size + 1
    flat_id = ad.arange(1, size + 1, dtype=np.int64).reshape(x.shape)
    lab = ad.where(fg, flat_id, big)
    offsets = [idx for idx in zip(*np.nonzero(s)) if any(i != 1 for i in idx)]
    spare = ad.full((1,), big, dtype=np.int64)
    while offsets:
        p = ad.pad(lab, 1, mode="constant", constant_values=big)
        new = lab.copy()
        for idx in offsets:
            ad.minimum(new, p[tuple(slice(i, i + n)
                                    for i, n in zip(idx, x.shape))], out=new)
        new = ad.where(fg, new, big)
        for _ in range(2):
            ext = ad.concatenate([ad.ravel(new), spare])
            new = ad.take(ext, new - 1)
        done = bool(ad.array_equal(new, lab))
        lab = new
        if done:
            break
    roots = ad.ravel(fg & (lab == flat_id))
    number = ad.cumsum(roots.astype(np.int64))
    n = int(number[-1])
    ext = ad.concatenate([number, ad.zeros((1,), dtype=np.int64)])
    res = ad.take(ext, ad.where(fg, lab - 1, size)).astype(dt)
    if out is not None:
        out[...] = res
        return n
    return res, n


def find_objects(input: Any, max_label: int = 0) -> list[Any]:
    """scipy.ndimage.find_objects: for labels 1..max_label (default the
    largest), the tuple of slices of each label's bounding box, or None
    where the label is absent."""
    x = u.asarray(input)
    if x.dtype.kind not in "iu":
        raise TypeError("Invalid type for labels")
    if x.size == 0:
        return []
    if max_label < 1:
        max_label = int(ad.max(x))
    if max_label < 1:
        return []
    lab = ad.ravel(x).astype(np.int64)
    pos = ad.where((lab >= 1) & (lab <= max_label), lab - 1, max_label)
    present = ad.asnumpy(ad.bincount(pos, minlength=max_label + 1))[:max_label]
    bounds = []
    grids = np.indices(x.shape, sparse=True)
    for ax in range(x.ndim):
        c = ad.ravel(ad.broadcast_to(ad.asarray(grids[ax].astype(np.int64)),
                                     x.shape))
        key = pos * x.shape[ax] + c
        srt = ad.sort(key)
        k = ad.arange(max_label, dtype=np.int64) * x.shape[ax]
        lo = ad.searchsorted(srt, k)
        hi = ad.searchsorted(srt, k + x.shape[ax]) - 1
        n = srt.shape[0]
        lo_v = ad.take(srt, ad.clip(lo, 0, n - 1)) - k
        hi_v = ad.take(srt, ad.clip(hi, 0, n - 1)) - k
        bounds.append((ad.asnumpy(lo_v), ad.asnumpy(hi_v)))
    result: list[Any] = []
    for i in range(max_label):
        if present[i] == 0:
            result.append(None)
        else:
            result.append(tuple(slice(int(lo[i]), int(hi[i]) + 1)
                                for lo, hi in bounds))
    return result


# -- segments ----------------------------------------------------------------

class _Segments:
    """Each element's position in index (len(index) where it is in none):
    what every measurement over labels groups by. ``scalar``: the result is
    one value (no index, or a scalar index)."""

    def __init__(self, x: ad.ndarray, labels: Any, index: Any):
        self.shape = x.shape
        self.values = ad.ravel(x)
        self.scalar = False
        if labels is None:
            # SciPy ignores index without labels (histogram refuses it).
            self.k = 1
            self.pos = ad.zeros(self.values.shape, dtype=np.int64)
            self.scalar = True
            return
        lab = u.asarray(labels)
        try:
            lab = ad.broadcast_to(lab, x.shape)
        except ValueError:
            raise ValueError("input and labels must have the same shape")
        lab = ad.ravel(lab)
        if index is None:
            self.k = 1
            self.pos = ad.where(lab > 0, 0, 1).astype(np.int64)
            self.scalar = True
            return
        idx = u.asarray(index)
        if idx.ndim == 0:
            self.scalar = True
            idx = idx.reshape(1)
        self.index_shape = idx.shape
        idx = ad.ravel(idx)
        self.k = k = idx.shape[0]
        if k == 0:
            self.pos = ad.zeros(lab.shape, dtype=np.int64)
            return
        sidx = ad.sort(idx)
        p = ad.searchsorted(sidx, lab)
        hit = ad.take(sidx, ad.clip(p, 0, k - 1)) == lab
        # Positions in the sorted index; the results are mapped back to
        # index's own order by where each index value sorts.
        self.pos = ad.where(hit, p, k).astype(np.int64)
        self.back = ad.searchsorted(sidx, idx)

    def reorder(self, r: ad.ndarray) -> ad.ndarray:
        """r (one value per sorted index position) in index's order."""
        back = getattr(self, "back", None)
        return r if back is None else ad.take(r, back, axis=0)

    def shaped(self, r: ad.ndarray) -> Any:
        r = self.reorder(r)
        if self.scalar:
            return r[0]
        return r.reshape(getattr(self, "index_shape", r.shape))

    def bincount(self, weights: Any = None) -> ad.ndarray:
        return ad.bincount(self.pos, weights, minlength=self.k + 1)[:self.k]

    def order(self, negate: bool = False) -> tuple[ad.ndarray, ad.ndarray,
                                                   ad.ndarray]:
        """(the element order sorted by (position, value), stable; each
        segment's start; its end)."""
        v = self.values
        o1 = ad.argsort(v, kind="stable")
        o2 = ad.take(o1, ad.argsort(ad.take(self.pos, o1), kind="stable"))
        sp = ad.take(self.pos, o2)
        ks = ad.arange(self.k, dtype=np.int64)
        return o2, ad.searchsorted(sp, ks), ad.searchsorted(sp, ks,
                                                            side="right")


def _check_values(input: Any, complex_ok: bool = True) -> ad.ndarray:
    x = u.asarray(input)
    if not complex_ok and x.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    return x


def _single_group(x: ad.ndarray, labels: Any, index: Any) -> Any:
    """The values of the one group SciPy reduces with numpy's own sum (in
    the input's dtype: float16 stays float16): all of x without labels,
    labels > 0 without index, labels == index for a scalar index; None
    when index names several labels."""
    if labels is None:
        return ad.ravel(x)
    lab = u.asarray(labels)
    try:
        lab = ad.broadcast_to(lab, x.shape)
    except ValueError:
        raise ValueError("input and labels must have the same shape")
    if index is None:
        return x[lab > 0]
    if np.ndim(index) == 0:
        k = index.item() if isinstance(index, ad.ndarray) else index
        return x[lab == k]
    return None


def _check_stats_input(x: ad.ndarray, labels: Any, index: Any) -> None:
    """SciPy's TypeError for complex values grouped by an index array (its
    bincount takes float64 weights)."""
    if (x.dtype.kind == "c" and labels is not None and index is not None
            and np.ndim(index) != 0):
        raise TypeError("Cannot cast array data from dtype('complex128') to "
                        "dtype('float64') according to the rule 'safe'")


def _empty_index(index: Any) -> bool:
    return index is not None and np.ndim(index) != 0 and np.size(index) == 0


def sum_labels(input: Any, labels: Any = None, index: Any = None) -> Any:
    """scipy.ndimage.sum_labels: the sum of input over each label of index
    (over all labels > 0 without index; everything without labels)."""
    x = _check_values(input)
    _check_stats_input(x, labels, index)
    vals = _single_group(x, labels, index)
    if vals is not None:
        return ad.sum(vals)
    if _empty_index(index):
        _Segments(x, labels, index)
        # SciPy's bincount: int64 when there are no values at all.
        return ad.zeros((0,), dtype=np.int64 if x.size == 0 else u.F64)
    seg = _Segments(x, labels, index)
    r = seg.bincount(seg.values.astype(u.C128 if x.dtype.kind == "c"
                                       else u.F64))
    return seg.shaped(r)


sum = sum_labels  # noqa: A001 (SciPy's name)


def _count_sum(x: ad.ndarray, labels: Any, index: Any
               ) -> tuple[_Segments, ad.ndarray, ad.ndarray]:
    seg = _Segments(x, labels, index)
    w = seg.values.astype(u.C128 if x.dtype.kind == "c" else u.F64)
    return seg, seg.bincount(), seg.bincount(w)


def mean(input: Any, labels: Any = None, index: Any = None) -> Any:
    """scipy.ndimage.mean: the mean of input over each label of index."""
    x = _check_values(input)
    _check_stats_input(x, labels, index)
    vals = _single_group(x, labels, index)
    if vals is not None:
        return ad.sum(vals) / ad.asarray(float(vals.size))
    seg, n, s = _count_sum(x, labels, index)
    return seg.shaped(s / n.astype(u.F64))


def variance(input: Any, labels: Any = None, index: Any = None) -> Any:
    """scipy.ndimage.variance: the (population) variance of input over each
    label of index."""
    x = _check_values(input)
    _check_stats_input(x, labels, index)
    vals = _single_group(x, labels, index)
    if vals is not None:
        # As SciPy: centred on the mean in the input's precision.
        c = vals - ad.mean(vals)
        sq = c * ad.conjugate(c) if c.dtype.kind == "c" else c * c
        return ad.sum(sq) / ad.asarray(float(vals.size))
    seg, n, s = _count_sum(x, labels, index)
    nf = n.astype(u.F64)
    m = s / nf
    ext = ad.concatenate([m, ad.zeros((1,), dtype=m.dtype)])
    d = seg.values.astype(m.dtype) - ad.take(ext, seg.pos)
    sq = (d * ad.conjugate(d)).real if d.dtype.kind == "c" else d * d
    return seg.shaped(seg.bincount(sq) / nf)


def standard_deviation(input: Any, labels: Any = None,
                       index: Any = None) -> Any:
    """scipy.ndimage.standard_deviation: the square root of variance."""
    return ad.sqrt(variance(input, labels, index))


def _median_dtype(dt: np.dtype) -> np.dtype:
    """The dtype of SciPy's medians: half and single precision stay,
    anything else is float64 (the mean of two middle values)."""
    return np.dtype(dt if dt in (np.float16, np.float32) else np.float64)


def _select(input: Any, labels: Any, index: Any, what: str) -> Any:
    """minimum, maximum, median and the positions, from the sorted
    segments."""
    x = _check_values(input, complex_ok=False)
    seg = _Segments(x, labels, index)
    if x.size == 0 or seg.k == 0:
        if what in ("min", "max"):
            dt = x.dtype
        elif what == "median":
            dt = _median_dtype(x.dtype)
        else:
            dt = np.dtype(np.int64)
        return ad.zeros((0,), dtype=dt)
    o, lo, hi = seg.order()
    n = hi - lo
    last = o.shape[0] - 1
    v = seg.values

    def at(i: ad.ndarray) -> ad.ndarray:
        return ad.take(v, ad.take(o, ad.clip(i, 0, last)))
    zero = ad.zeros((), dtype=x.dtype)
    if what == "min":
        return ad.where(n > 0, at(lo), zero)
    if what == "max":
        return ad.where(n > 0, at(hi - 1), zero)
    if what == "median":
        a = at(lo + (n - 1) // 2)
        b = at(lo + n // 2)
        dt = _median_dtype(x.dtype)
        return ad.where(n > 0, (a.astype(dt) + b.astype(dt)) / 2,
                        ad.asarray(np.nan, dtype=dt))
    if what == "min_pos":
        return ad.where(n > 0, ad.take(o, ad.clip(lo, 0, last)), 0)
    # max_pos: the first element (raster order) of the run of maxima, which
    # the stable sort keeps in raster order at the segment's end.
    mx = at(hi - 1)
    ext = ad.concatenate([mx, ad.zeros((1,), dtype=mx.dtype)])
    is_max = v == ad.take(ext, seg.pos)
    runs = seg.bincount(is_max.astype(np.int64)).astype(np.int64)
    return ad.where(n > 0, ad.take(o, ad.clip(hi - runs, 0, last)), 0)


def minimum(input: Any, labels: Any = None, index: Any = None) -> Any:
    """scipy.ndimage.minimum: the minimum of input over each label of
    index."""
    return _shaped_select(input, labels, index, "min")


def maximum(input: Any, labels: Any = None, index: Any = None) -> Any:
    """scipy.ndimage.maximum: the maximum of input over each label of
    index."""
    return _shaped_select(input, labels, index, "max")


def median(input: Any, labels: Any = None, index: Any = None) -> Any:
    """scipy.ndimage.median: the median of input over each label of index
    (the mean of the two middle values for an even count)."""
    return _shaped_select(input, labels, index, "median")


def _shaped_select(input: Any, labels: Any, index: Any, what: str) -> Any:
    x = _check_values(input, complex_ok=False)
    seg = _Segments(x, labels, index)
    r = _select(x, labels, index, what)
    if r.shape[0] == 0:
        return r
    return seg.shaped(r)


def _positions(input: Any, labels: Any, index: Any, what: str) -> Any:
    x = _check_values(input, complex_ok=False)
    seg = _Segments(x, labels, index)
    flat = seg.reorder(_select(x, labels, index, what))
    coords = np.unravel_index(ad.asnumpy(flat), x.shape) if x.ndim else ()
    pts = [tuple(int(c[i]) for c in coords) for i in range(len(flat))]
    if seg.scalar:
        return pts[0] if pts else ()
    return pts


def minimum_position(input: Any, labels: Any = None,
                     index: Any = None) -> Any:
    """scipy.ndimage.minimum_position: the coordinates (a tuple, or a list
    of them) of the first minimum of each label of index."""
    return _positions(input, labels, index, "min_pos")


def maximum_position(input: Any, labels: Any = None,
                     index: Any = None) -> Any:
    """scipy.ndimage.maximum_position: the coordinates of the first maximum
    of each label of index."""
    return _positions(input, labels, index, "max_pos")


def extrema(input: Any, labels: Any = None, index: Any = None) -> Any:
    """scipy.ndimage.extrema: (minimums, maximums, minimum positions,
    maximum positions) over each label of index."""
    return (minimum(input, labels, index), maximum(input, labels, index),
            minimum_position(input, labels, index),
            maximum_position(input, labels, index))


def center_of_mass(input: Any, labels: Any = None, index: Any = None) -> Any:
    """scipy.ndimage.center_of_mass: the input-weighted mean coordinates (a
    tuple, or a list of them) of each label of index."""
    x = _check_values(input, complex_ok=False)
    if x.ndim == 0:
        raise IndexError("list index out of range")  # as SciPy's
    seg = _Segments(x, labels, index)
    w = seg.values.astype(u.F64)
    vals = _single_group(x, labels, index)
    if vals is not None:
        # SciPy's normalizer is numpy's sum, in the input's dtype.
        total = ad.sum(vals).astype(u.F64).reshape(1)
    else:
        total = seg.bincount(w)
    grids = np.indices(x.shape, sparse=True)
    comps = []
    for ax in range(x.ndim):
        g = ad.ravel(ad.broadcast_to(ad.asarray(grids[ax].astype(u.F64)),
                                     x.shape))
        comps.append(seg.reorder(seg.bincount(w * g) / total))
    host = [ad.asnumpy(c) for c in comps]
    pts = [tuple(float(c[i]) for c in host) for i in range(seg.k)]
    if seg.scalar:
        return pts[0]
    return pts


def histogram(input: Any, min: float, max: float, bins: int,  # noqa: A002
              labels: Any = None, index: Any = None) -> Any:
    """scipy.ndimage.histogram: bins equal bins over [min, max) of input
    (one histogram, or one for each label of index, an object array)."""
    x = _check_values(input, complex_ok=False)
    bins = operator.index(bins)
    if labels is None and index is not None:
        raise ValueError("index without defined labels")
    seg = _Segments(x, labels, index)
    v = seg.values.astype(u.F64)
    b = ad.floor((v - float(min)) * (bins / (float(max) - float(min))))
    b = b.astype(np.int64)
    inside = (b >= 0) & (b < bins) & (seg.pos < seg.k)
    key = ad.where(inside, seg.pos * bins + b, seg.k * bins)
    counts = ad.bincount(key, minlength=seg.k * bins + 1)[:seg.k * bins]
    counts = counts.reshape(seg.k, bins)
    counts = seg.reorder(counts)
    if seg.scalar:
        return counts[0]
    res = np.empty(seg.k, dtype=object)
    for i in range(seg.k):
        res[i] = counts[i]
    return res


def labeled_comprehension(input: Any, labels: Any, index: Any,
                          func: Callable[..., Any], out_dtype: Any,
                          default: Any, pass_positions: bool = False) -> Any:
    """scipy.ndimage.labeled_comprehension: func applied to the values (and
    flat positions) of each label of index, default where a label is
    absent. func runs once a label on server arrays."""
    x = u.asarray(input)
    if labels is None:
        if index is not None:
            raise ValueError("index without defined labels")
        args = (x,)
        if pass_positions:
            args += (ad.arange(x.size).reshape(x.shape),)
        return func(*args)
    lab = ad.broadcast_to(u.asarray(labels), x.shape)
    if index is None:
        # As SciPy: one call on the values of every label > 0, its result
        # as func gives it.
        sel = lab > 0
        args = (x[sel],)
        if pass_positions:
            args += (ad.arange(x.size).reshape(x.shape)[sel],)
        return func(*args)
    scalar = np.ndim(index) == 0
    idx = u.host(index).ravel().tolist()
    out = np.full(len(idx), default, dtype=out_dtype)
    vals = ad.ravel(x)
    flat = ad.ravel(lab)
    positions = ad.arange(x.size)
    res = []
    for i, k in enumerate(idx):
        sel = flat == k
        if not bool(ad.any(sel)):
            res.append(ad.asarray(out[i]))
            continue
        args = (vals[sel],)
        if pass_positions:
            args += (positions[sel],)
        res.append(u.asarray(func(*args)).astype(out_dtype))
    r = ad.stack(res) if res else ad.asarray(out)
    return r[0] if scalar else r


def value_indices(arr: Any, *, ignore_value: Any = None,
                  adaptive_index_dtype: bool = False) -> dict[Any, Any]:
    """scipy.ndimage.value_indices: for each distinct value of the integer
    array arr (but ignore_value), the tuple of index arrays where it
    occurs (intp; with CuPy's adaptive_index_dtype, the smallest signed
    integer dtype that holds every index)."""
    x = u.asarray(arr)
    if x.dtype.kind not in "iu":
        raise ValueError("Parameter 'arr' must be an integer array")
    idx_dtype = np.dtype(np.intp)
    if adaptive_index_dtype:
        top = max(x.shape, default=1) - 1
        idx_dtype = next(np.dtype(t) for t in (np.int8, np.int16, np.int32,
                                               np.int64)
                         if top <= np.iinfo(t).max)
    flat = ad.ravel(x)
    order = ad.argsort(flat, kind="stable")
    srt = ad.take(flat, order)
    vals = ad.unique(srt)
    starts = ad.asnumpy(ad.searchsorted(srt, vals))
    ends = ad.asnumpy(ad.searchsorted(srt, vals, side="right"))
    coords = ad.unravel_index(order, x.shape)
    if idx_dtype != np.intp:
        coords = tuple(c.astype(idx_dtype) for c in coords)
    out = {}
    for v, a, b in zip(ad.asnumpy(vals).tolist(), starts, ends):
        if ignore_value is not None and v == ignore_value:
            continue
        out[x.dtype.type(v)] = tuple(c[int(a):int(b)] for c in coords)
    return out

