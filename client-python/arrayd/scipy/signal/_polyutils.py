"""scipy.signal's polynomial helpers (partial fractions: residue,
residuez, invres, invresz, unique_roots) and the private _compute_factors
that CuPy's tests read: a few coefficients, on the host in SciPy.

Layer: a module of the arrayd.scipy.signal namespace (imports the
package's helpers).
"""
from __future__ import annotations

from typing import Any

from scipy.signal import _signaltools as _sst

from arrayd.scipy.signal import _arraytools as _at
from arrayd.scipy.signal._filter_design import HOST as _HOST

unique_roots = _HOST["unique_roots"]
residue = _HOST["residue"]
residuez = _HOST["residuez"]
invres = _HOST["invres"]
invresz = _HOST["invresz"]


def _compute_factors(roots: Any, multiplicity: Any,
                     include_powers: bool = False) -> tuple:
    """(the polynomials sum of all roots' factors but one, the whole
    polynomial) for partial fractions (scipy.signal's private helper, on
    the host; arrayd arrays)."""
    return _at.to_device(_sst._compute_factors(
        _at.to_host(roots), _at.to_host(multiplicity), include_powers))
