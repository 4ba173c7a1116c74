"""arrayd.scipy.signal.windows: scipy.signal.windows, as arrayd arrays.

A window is a design input of M coefficients (M is the segment or filter
length, not the signal's), so each one is computed by SciPy on the host
and uploaded once, as filter coefficients are: hann, hamming, blackman,
kaiser, gaussian, tukey, chebwin, dpss, taylor and the rest of SciPy's
list, with SciPy's signatures, dtypes (float64) and errors.
get_window(window, Nx, fftbins=True) the same.

Layer: a public namespace (imports arrayd's public namespace and the
package's helpers).
"""
from __future__ import annotations

import scipy.signal.windows as _sw

from arrayd.scipy.signal import _arraytools as _at

_NAMES = [n for n in _sw.__all__ if callable(getattr(_sw, n, None))]

globals().update({
    n: _at.on_host(getattr(_sw, n),
                   f"scipy.signal.windows.{n}: the window, computed on the "
                   "host, as an arrayd array.")
    for n in _NAMES})

__all__ = sorted(_NAMES)
