"""Stand-in for ``cupyx`` (tests/cupy_compat only): the modules that
cupy.testing imports, with nothing behind them.

cupy.testing asks ``cupyx.scipy.sparse.issparse(result)`` of every result;
arrayd has no sparse matrices, so the answer is False. ``cupyx.errstate``
and ``cupyx.cusolver`` are CuPy extensions (placeholders; their tests are
deselected or fail).
"""
from __future__ import annotations

import cupy

_scipy = cupy._stand_in("cupyx.scipy")
_sparse = cupy._stand_in("cupyx.scipy.sparse", issparse=lambda x: False)
scipy = _scipy
# The eig tests skip themselves unless cuSOLVER has geev; arrayd's backends
# do not use cuSOLVER's gate, so every routine counts as available.
cusolver = cupy._stand_in("cupyx.cusolver",
                          check_availability=lambda name: True)


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return cupy._Placeholder(f"cupyx.{name}")
