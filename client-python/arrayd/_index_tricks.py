"""Index helpers: c_ r_ s_ mgrid ogrid ix_ indices, diag/tril/triu indices,
ravel_multi_index, unravel_index, fill_diagonal.

Layer: functions.
"""
from __future__ import annotations

__all__: list[str] = []
