"""scipy.ndimage.distance_transform_edt: the exact Euclidean distance of
every nonzero element to the nearest zero element.

The squared distance is separable: axis by axis, each element's value
becomes min over k of (previous value at k) + ((i - k) * sampling)**2
along that axis.

- The first pass (from the binary input) is the distance to the nearest
  zero on the element's line: the last zero at or before it is a running
  maximum of the zeros' indices (maximum.accumulate), the next one a
  running minimum from the other end; a few ops whatever the image.
- A later pass tries the offsets d = 1, 2, ... in turn: each is one
  minimum of the current values with the previous pass's shifted by d
  (both ways) plus (d * sampling)**2. An offset whose (d * sampling)**2 is
  at least every element's current value cannot improve any, so the loop
  stops there (checked at d = 1, 2, 4, 8, ...): the op count grows with the
  largest distance in the image, not with its size, and each op is one
  array-wide elementwise pass.

The nearest zero's index along each axis follows the pass's choice of k
(take_along_axis of the earlier axes' indices).

Layer: functions of the arrayd.scipy.ndimage namespace (imports arrayd's
public namespace and _util).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

import arrayd as ad
from arrayd.scipy.ndimage import _util as u

__all__ = ["distance_transform_edt"]


def _index_along(shape: tuple[int, ...], axis: int) -> ad.ndarray:
    """The index along axis of every element, as float64 (broadcastable to
    shape)."""
    bshape = [1] * len(shape)
    bshape[axis] = shape[axis]
    return ad.arange(shape[axis], dtype=np.float64).reshape(tuple(bshape))


def _first_pass(zero: ad.ndarray, axis: int, step: float,
                want_arg: bool) -> tuple[ad.ndarray, Any]:
    """The squared distance along axis to the nearest zero of the line (inf
    on a line without one), and the index of that zero."""
    n = zero.shape[axis]
    i = _index_along(zero.shape, axis)
    last = ad.maximum.accumulate(ad.where(zero, i, -np.inf), axis=axis)
    flip = [slice(None)] * zero.ndim
    flip[axis] = slice(None, None, -1)
    flip = tuple(flip)
    nxt = ad.minimum.accumulate(ad.where(zero, i, np.inf)[flip],
                                axis=axis)[flip]
    before = (i - last) * step
    after = (nxt - i) * step
    take_before = before <= after
    d = ad.where(take_before, before, after)
    arg = None
    if want_arg:
        a = ad.where(take_before, last, nxt)
        # A line without a zero keeps its own index (its distance is inf).
        a = ad.where(ad.isfinite(a), a, i)
        arg = ad.clip(a, 0, n - 1).astype(np.int64)
    return d * d, arg


def _pass(f: ad.ndarray, axis: int, step: float,
          want_arg: bool) -> tuple[ad.ndarray, Any]:
    """One later pass along axis: (min over k of f(k) + ((i - k) * step)**2,
    the minimizing k or None)."""
    n = f.shape[axis]
    best = f.copy()
    arg = None
    if want_arg:
        arg = ad.broadcast_to(_index_along(f.shape, axis).astype(np.int64),
                              f.shape).copy()
        idx = _index_along(f.shape, axis).astype(np.int64)

    def sl(a: int, b: int) -> tuple[slice, ...]:
        s = [slice(None)] * f.ndim
        s[axis] = slice(a, b)
        return tuple(s)

    check = 1
    for d in range(1, n):
        c = (d * step) ** 2
        if d == check:
            check *= 2
            # (With indices, an offset that only ties may still move the
            # choice to a smaller k.)
            top = float(ad.max(best))
            if top < c or (top == c and not want_arg):
                break
        # k = i - d, then k = i + d; on a tie the smallest k wins, as in
        # SciPy (k = i - d is below every k tried before, k = i + d above).
        for lo, hi, tie in ((sl(d, n), sl(0, n - d), True),
                            (sl(0, n - d), sl(d, n), False)):
            cand = f[hi] + c
            bv = best[lo]
            if want_arg:
                better = cand <= bv if tie else cand < bv
                arg[lo] = ad.where(better, idx[hi], arg[lo])
                best[lo] = ad.where(better, cand, bv)
            else:
                ad.minimum(bv, cand, out=bv)
    return best, arg


def _check_block_params(block_params: Any, shape: tuple[int, ...]) -> None:
    """CuPy's tuning parameter of its GPU kernels: three ints >= 1, the
    second a power of 2, none over the padded size / 32 (ValueError); it
    changes nothing here."""
    if block_params is None:
        return
    try:
        params = [operator.index(p) for p in block_params]
    except TypeError:
        raise ValueError("block_params must be a sequence of 3 integers")
    if len(params) != 3:
        raise ValueError("block_params must be a sequence of 3 integers")
    if any(p < 1 for p in params):
        raise ValueError("block_params must all be >= 1")
    if params[1] & (params[1] - 1):
        raise ValueError("block_params[1] must be a power of 2")
    padded = -(-max(shape) // 32) * 32
    if any(p > max(1, padded // 32) for p in params):
        raise ValueError("block_params too large for the array size")


def distance_transform_edt(input: Any, sampling: Any = None,
                           return_distances: bool = True,
                           return_indices: bool = False,
                           distances: Any = None, indices: Any = None, *,
                           block_params: Any = None,
                           float64_distances: bool = True) -> Any:
    """scipy.ndimage.distance_transform_edt: the exact Euclidean distance
    transform (with sampling, the grid spacing per axis), and the indices
    of the nearest zero element; arrays given as distances or indices are
    filled in place. block_params and float64_distances are CuPy's and
    accepted (float64_distances=False gives float32)."""
    x = u.asarray(input)
    dist_given = distances is not None
    ind_given = indices is not None
    if not (return_distances or return_indices or dist_given or ind_given):
        raise RuntimeError("at least one of return_distances/return_indices "
                           "must be True")
    nd = x.ndim
    if nd == 0:
        raise RuntimeError("input must have at least one dimension")
    steps = ([1.0] * nd if sampling is None else
             [float(s) for s in u.normalize_sequence(sampling, nd)])
    if dist_given:
        if not return_distances:
            raise RuntimeError("return_distances must be True if distances "
                               "is supplied")
        if tuple(distances.shape) != x.shape:
            raise RuntimeError("distances array has wrong shape")
        want = np.float64 if float64_distances else np.float32
        if distances.dtype != want:
            raise RuntimeError(f"distances array must be {np.dtype(want)}")
    if ind_given:
        if not return_indices:
            raise RuntimeError("return_indices must be True if indices is "
                               "supplied")
        if tuple(indices.shape) != (nd,) + x.shape:
            raise RuntimeError("indices array has wrong shape")
        # SciPy's int32, or (as CuPy) any integer dtype of 16 bits or more
        # that holds every index.
        dt = np.dtype(indices.dtype)
        if (dt.kind not in "iu" or dt.itemsize < 2
                or max(x.shape, default=1) - 1 > np.iinfo(dt).max):
            raise RuntimeError("indices array must be int32")
    want_idx = return_indices or ind_given
    _check_block_params(block_params, x.shape)
    zero = x == 0
    f, arg = _first_pass(zero, 0, steps[0], want_idx)
    idx: list[Any] = [arg] if want_idx else []
    for ax in range(1, nd):
        f, arg = _pass(f, ax, steps[ax], want_idx)
        if want_idx:
            idx = [ad.take_along_axis(b, arg, axis=ax) for b in idx]
            idx.append(arg)
    out = []
    if return_distances or dist_given:
        d = ad.sqrt(f)
        if not float64_distances:
            d = d.astype(np.float32)
        if dist_given:
            distances[...] = d
        elif return_distances:
            out.append(d)
    if want_idx:
        ind = ad.stack(idx).astype(np.int32)
        if ind_given:
            indices[...] = ind.astype(indices.dtype)
        elif return_indices:
            out.append(ind)
    if not out:
        return None
    return out[0] if len(out) == 1 else tuple(out)
