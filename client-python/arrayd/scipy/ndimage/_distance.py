"""scipy.ndimage.distance_transform_edt: the exact Euclidean distance of
every nonzero element to the nearest zero element.

The squared distance is separable: axis by axis, each element's value
becomes min over k of (previous value at k) + ((i - k) * sampling)**2
along that axis (the first pass starts from 0 at the zeros and inf
elsewhere). Each pass is a broadcast sum over a new axis of the line's
length and a min (argmin, for the indices) over it, in chunks of output
positions that keep the temporary under _CHUNK elements: exact, O(n) per
element and axis, with no loop over lines. The nearest zero's index
along the earlier axes follows each pass's argmin (take_along_axis).

Layer: functions of the arrayd.scipy.ndimage namespace (imports arrayd's
public namespace and _util).
"""
from __future__ import annotations

from typing import Any

import numpy as np

import arrayd as ad
from arrayd.scipy.ndimage import _util as u

__all__ = ["distance_transform_edt"]

_CHUNK = 1 << 24


def _pass(f: ad.ndarray, axis: int, step: float,
          want_arg: bool) -> tuple[ad.ndarray, Any]:
    """One separable pass along axis: (the new squared distances, the
    argmin along axis or None)."""
    n = f.shape[axis]
    fm = ad.moveaxis(f, axis, -1)
    rest = max(1, f.size // max(n, 1))
    chunk = max(1, min(n, _CHUNK // max(1, rest * n)))
    k = np.arange(n, dtype=np.float64)
    vals, args = [], []
    for start in range(0, n, chunk):
        i = np.arange(start, min(n, start + chunk), dtype=np.float64)
        w = ad.asarray(((i[:, None] - k[None, :]) * step) ** 2)
        d = fm[..., None, :] + w
        vals.append(ad.min(d, axis=-1))
        if want_arg:
            args.append(ad.argmin(d, axis=-1))
    v = vals[0] if len(vals) == 1 else ad.concatenate(vals, axis=-1)
    a = None
    if want_arg:
        a = args[0] if len(args) == 1 else ad.concatenate(args, axis=-1)
        a = ad.moveaxis(a, -1, axis)
    return ad.moveaxis(v, -1, axis), a


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
        if tuple(distances.shape) != x.shape:
            raise RuntimeError("distances array has wrong shape")
        if distances.dtype != np.float64 and float64_distances:
            raise RuntimeError("distances array must be float64")
    if ind_given:
        if tuple(indices.shape) != (nd,) + x.shape:
            raise RuntimeError("indices array has wrong shape")
        if indices.dtype != np.int32:
            raise RuntimeError("indices array must be int32")
    want_idx = return_indices or ind_given
    f = ad.where(x != 0, np.inf, 0.0)
    idx: list[Any] = []
    for ax in range(nd):
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
            indices[...] = ind
        elif return_indices:
            out.append(ind)
    if not out:
        return None
    return out[0] if len(out) == 1 else tuple(out)
