"""scipy.signal's peak finding: argrelextrema, argrelmax, argrelmin on
the server; find_peaks, peak_prominences and peak_widths on the host.

argrelextrema compares each sample with its neighbours up to order away
(indices clipped or wrapped at the ends) by ufuncs on the server and
returns nonzero's indices. find_peaks, peak_prominences and peak_widths
download the signal and run SciPy's (their walks to each peak's bases are
sequential per peak); their array results are uploaded. A server op for
the per-peak walks would keep them on the device.

Layer: a module of the arrayd.scipy.signal namespace (imports arrayd's
public namespace and the package's helpers).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np
import scipy.signal as _ss

import arrayd as ad
from arrayd.scipy.signal import _arraytools as _at


def _comparator(comparator: Any) -> Any:
    """An arrayd ufunc for NumPy's (np.greater -> ad.greater)."""
    if isinstance(comparator, np.ufunc):
        return getattr(ad, comparator.__name__)
    return comparator


def _boolrelextrema(data: ad.ndarray, comparator: Any, axis: int,
                    order: int, mode: str) -> ad.ndarray:
    if int(order) != order or order < 1:
        raise ValueError("Order must be an int >= 1")
    axis = _at.normalize_axis(axis, data.ndim)
    n = data.shape[axis]
    locs = ad.arange(n)
    comparator = _comparator(comparator)
    result = ad.ones(data.shape, bool)
    main = data
    for shift in range(1, int(order) + 1):
        if mode == "clip":
            plus = ad.clip(locs + shift, 0, n - 1)
            minus = ad.clip(locs - shift, 0, n - 1)
        elif mode == "wrap":
            plus = (locs + shift) % n
            minus = (locs - shift) % n
        else:
            raise ValueError(f"mode {mode!r} must be 'clip' or 'wrap'")
        result &= comparator(main, ad.take(data, plus, axis=axis))
        result &= comparator(main, ad.take(data, minus, axis=axis))
    return result


def argrelextrema(data: Any, comparator: Any, axis: int = 0,
                  order: int = 1, mode: str = "clip") -> tuple:
    """scipy.signal.argrelextrema: the indices (as nonzero) where
    comparator(data, each neighbour up to order away) holds."""
    data = _at.asarray(data)
    return ad.nonzero(_boolrelextrema(data, comparator, axis, order, mode))


def argrelmax(data: Any, axis: int = 0, order: int = 1,
              mode: str = "clip") -> tuple:
    """scipy.signal.argrelmax: relative maxima (argrelextrema, greater)."""
    return argrelextrema(data, ad.greater, axis, order, mode)


def argrelmin(data: Any, axis: int = 0, order: int = 1,
              mode: str = "clip") -> tuple:
    """scipy.signal.argrelmin: relative minima (argrelextrema, less)."""
    return argrelextrema(data, ad.less, axis, order, mode)


def find_peaks(x: Any, height: Any = None, threshold: Any = None,
               distance: Any = None, prominence: Any = None,
               width: Any = None, wlen: Any = None, rel_height: float = 0.5,
               plateau_size: Any = None) -> tuple[ad.ndarray, dict]:
    """scipy.signal.find_peaks: the peaks of a 1-D signal and their
    properties (host: SciPy's; results uploaded)."""
    if distance is not None and operator.index(int(distance)) < 1 and \
            distance < 1:
        raise ValueError("`distance` must be greater or equal to 1")
    peaks, props = _ss.find_peaks(
        _at.host(x), _at.to_host(height), _at.to_host(threshold), distance,
        _at.to_host(prominence), _at.to_host(width), wlen, rel_height,
        _at.to_host(plateau_size))
    return ad.asarray(peaks), {k: ad.asarray(v) for k, v in props.items()}


def peak_prominences(x: Any, peaks: Any, wlen: Any = None) -> tuple:
    """scipy.signal.peak_prominences: each peak's prominence and bases
    (host: SciPy's; results uploaded)."""
    return _at.to_device(_ss.peak_prominences(_at.host(x), _at.host(peaks),
                                              wlen))


def peak_widths(x: Any, peaks: Any, rel_height: float = 0.5,
                prominence_data: Any = None, wlen: Any = None) -> tuple:
    """scipy.signal.peak_widths: each peak's width at rel_height of its
    prominence (host: SciPy's; results uploaded)."""
    return _at.to_device(_ss.peak_widths(
        _at.host(x), _at.host(peaks), rel_height,
        _at.to_host(prominence_data), wlen))
