"""arrayd.scipy.ndimage: scipy.ndimage on the server.

    from arrayd.scipy import ndimage
    y = ndimage.gaussian_filter(ad.asarray(img), 2.0)

The functions have SciPy's names, signatures, defaults, output dtypes
(``output=`` a dtype or an array), boundary modes and exceptions, and run
as compositions of the server's ops: filters as sums, mins or maxes of
shifted slices of the padded input (or one matmul for a long 1-D kernel),
rank filters by partitioning stacked taps, interpolation by gathers with
B-spline weights, labels by min-label propagation, measurements by
segmented reductions (bincount), distance transforms by exact separable
passes. The files follow SciPy's: _filters, _interpolation, _morphology,
_measurements, _fourier, _distance (_util holds the shared checks).

Layer: a public namespace (imports arrayd's function modules).
"""
from __future__ import annotations

from arrayd.scipy.ndimage import (_distance, _filters, _fourier,
                                  _interpolation, _measurements,
                                  _morphology)
from arrayd.scipy.ndimage._filters import *  # noqa: F401,F403
from arrayd.scipy.ndimage._interpolation import *  # noqa: F401,F403
from arrayd.scipy.ndimage._measurements import *  # noqa: F401,F403
from arrayd.scipy.ndimage._morphology import *  # noqa: F401,F403
from arrayd.scipy.ndimage._fourier import *  # noqa: F401,F403
from arrayd.scipy.ndimage._distance import *  # noqa: F401,F403

__all__: list[str] = [*_filters.__all__, *_interpolation.__all__,
                      *_measurements.__all__, *_morphology.__all__,
                      *_fourier.__all__, *_distance.__all__]
