"""Set routines: in1d intersect1d setdiff1d setxor1d union1d
unique_all/counts/inverse/values ediff1d.

Layer: functions.
"""
from __future__ import annotations

__all__: list[str] = []
