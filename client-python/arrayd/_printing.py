"""Array2string, array_repr, array_str, print options.

Layer: functions.
"""
from __future__ import annotations

__all__: list[str] = []
