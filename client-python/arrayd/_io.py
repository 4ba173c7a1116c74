"""Save, load, savez, loadtxt, savetxt, fromfile, frombuffer, fromfunction.

Layer: functions.
"""
from __future__ import annotations

__all__: list[str] = []
