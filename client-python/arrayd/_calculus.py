"""Gradient interp trapezoid convolve correlate unwrap cov corrcoef digitize
histogram2d histogramdd.

Layer: functions.
"""
from __future__ import annotations

__all__: list[str] = []
