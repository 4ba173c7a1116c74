"""NumPy's scalar types, dtype helpers and exception classes.

Layer: functions.
"""
from __future__ import annotations

__all__: list[str] = []
