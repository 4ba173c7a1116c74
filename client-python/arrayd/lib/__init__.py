"""arrayd.lib: the parts of numpy.lib that CuPy has (stride_tricks).

Layer: namespaces (imports the function modules).
"""
from __future__ import annotations

from arrayd.lib import stride_tricks

__all__ = ["stride_tricks"]
