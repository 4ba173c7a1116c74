"""arrayd.scipy.fft: scipy.fft on the server.

    from arrayd.scipy import fft
    y = fft.dct(x, norm="ortho")          # x an arrayd (or NumPy) array

The transforms keep SciPy's signatures, defaults, dtypes (single precision
stays single, half precision is computed in single) and errors, and run as
arrayd's FFT ops (_basic: fft ... ihfftn; _realtransforms: dct, dst and
their inverses and n-dimensional forms, types 1 to 4; _helper:
frequencies, shifts, fast lengths). ``overwrite_x`` and ``workers`` are
accepted and checked; ``plan`` must be None, as in SciPy.

The module is also a SciPy backend: ``scipy.fft.set_backend(
arrayd.scipy.fft)`` sends scipy.fft's calls on arrayd arrays here
(``__ua_domain__``, ``__ua_function__``).

Layer: a public namespace (imports arrayd's function modules).
"""
from __future__ import annotations

from typing import Any

from arrayd.scipy.fft._basic import (fft, fft2, fftn, get_workers, hfft,
                                     hfft2, hfftn, ifft, ifft2, ifftn, ihfft,
                                     ihfft2, ihfftn, irfft, irfft2, irfftn,
                                     rfft, rfft2, rfftn, set_workers)
from arrayd.scipy.fft._helper import (fftfreq, fftshift, ifftshift,
                                      next_fast_len, prev_fast_len, rfftfreq)
from arrayd.scipy.fft._realtransforms import (dct, dctn, dst, dstn, idct,
                                              idctn, idst, idstn)

__all__ = ["dct", "dctn", "dst", "dstn", "fft", "fft2", "fftfreq", "fftn",
           "fftshift", "get_workers", "hfft", "hfft2", "hfftn", "idct",
           "idctn", "idst", "idstn", "ifft", "ifft2", "ifftn", "ifftshift",
           "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2", "irfftn",
           "next_fast_len", "prev_fast_len", "rfft", "rfft2", "rfftfreq",
           "rfftn", "set_workers"]

# The uarray protocol of scipy.fft's backends.
__ua_domain__ = "numpy.scipy.fft"


def __ua_function__(method: Any, args: tuple, kwargs: dict) -> Any:
    """Runs scipy.fft's ``method`` as this module's function of the same
    name (NotImplemented, so SciPy tries its next backend, for one this
    module lacks)."""
    fn = globals().get(method.__name__)
    if fn is None or method.__name__ not in __all__:
        return NotImplemented
    return fn(*args, **kwargs)
