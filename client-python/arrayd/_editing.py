"""Inserting, deleting, selecting and putting: append delete insert resize
trim_zeros select piecewise choose extract place putmask put_along_axis
copyto apply_along_axis lexsort packbits.

Layer: functions.
"""
from __future__ import annotations

__all__: list[str] = []
