"""Polynomials: poly poly1d polyadd polysub polymul polyval polyfit roots vander.

Layer: functions.
"""
from __future__ import annotations

__all__: list[str] = []
