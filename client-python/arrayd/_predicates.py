"""Iscomplex isreal isneginf isposinf real_if_close asarray_chkfinite iterable.

Layer: functions.
"""
from __future__ import annotations

__all__: list[str] = []
