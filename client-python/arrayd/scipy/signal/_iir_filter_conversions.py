"""The IIR filter conversions of scipy.signal (zpk2tf, tf2sos, lp2lp,
bilinear, ...: host design code, see _filter_design) under the module
name CuPy gives them, with the private _cplxreal that CuPy's tests read.

Layer: a module of the arrayd.scipy.signal namespace (imports the
package's helpers).
"""
from __future__ import annotations

from typing import Any

from scipy.signal import _filter_design as _sfd

from arrayd.scipy.signal import _arraytools as _at
from arrayd.scipy.signal._filter_design import HOST as _HOST

globals().update(_HOST)


def _cplxreal(z: Any, tol: Any = None) -> tuple:
    """(complex roots of positive imaginary part, real roots) of z, whose
    complex roots come in conjugate pairs (SciPy's private helper, on the
    host; arrayd arrays; ValueError for unmatched conjugates)."""
    return _at.to_device(_sfd._cplxreal(_at.to_host(z), tol))
