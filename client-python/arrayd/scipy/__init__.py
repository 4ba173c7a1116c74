"""arrayd.scipy: SciPy on the server, laid out as SciPy is.

    from arrayd.scipy import signal, ndimage, special
    from arrayd.scipy.fft import dct

The modules are special, signal, ndimage, fft and linalg, with SciPy's
signatures, defaults, dtypes and exceptions. Work runs on the server: new
ops where a kernel or a library call is needed (special's ufuncs are rows
of the op-signature table), compositions of arrayd ops where not; only
filter design, whose inputs are a few coefficients, runs on the host as
SciPy does. CuPy's ``cupyx.scipy.X`` users change one import to
``arrayd.scipy.X``.

``import arrayd`` does not import this package (it pulls in SciPy-sized
surface area that most programs do not use); ``import arrayd.scipy`` or
``from arrayd.scipy import X`` does.

Layer: a public namespace above arrayd's own namespaces.
"""
from arrayd.scipy import fft, fftpack, linalg, ndimage, signal, special

__all__ = ["fft", "fftpack", "linalg", "ndimage", "signal", "special"]
