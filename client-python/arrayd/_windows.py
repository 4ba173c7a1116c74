"""Window functions: bartlett blackman hamming hanning kaiser.

Layer: functions.
"""
from __future__ import annotations

__all__: list[str] = []
