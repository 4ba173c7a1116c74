"""arrayd.scipy.linalg: scipy.linalg on the server.

Layer: a public namespace (imports arrayd's function modules).
"""
from __future__ import annotations

__all__: list[str] = []
