"""Nan-ignoring reductions and scans.

Layer: functions.
"""
from __future__ import annotations

__all__: list[str] = []
