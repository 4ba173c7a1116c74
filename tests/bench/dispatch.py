#!/usr/bin/env python3
"""Client-side cost of ndarray's hot paths, without a server.

    python3 tests/bench/dispatch.py

Rows: ``x + y``, ``x + 1.0``, ``x.sum()`` and ``x[1:10]`` on arrays of a
stand-in session whose record() does nothing, so the time is the client's
own (operator dispatch, dtype and shape rules, handles): best of 25 runs,
in ns per call; and how many Python functions each call enters (counted
with sys.setprofile), which changes only when the code path does. Run it
on two trees to compare a change to the client. Not a test.
"""
from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))

from arrayd._ndarray import ndarray  # noqa: E402


class _NullSession:
    """Stands in for a Session: handles, a scalar cache, nothing sent."""

    def __init__(self) -> None:
        self._handles = itertools.count(1)
        self.scalars: dict[Any, Any] = {}

    def new_handle(self) -> int:
        return next(self._handles)

    def record(self, name: str, inputs: Any, outputs: Any,
               attrs: Any = None, small: bool = False) -> None:
        pass

    def free(self, handle: int) -> None:
        pass


def best_ns(fn: Callable[[], Any], n: int = 100_000, runs: int = 25) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n * 1e9)
    return best


def python_calls(fn: Callable[[], Any]) -> int:
    fn()  # caches warm
    calls = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(profile)
    fn()
    sys.setprofile(None)
    return calls - 1  # the lambda itself


def main() -> None:
    s = _NullSession()
    f32 = np.dtype(np.float32)
    x = ndarray._new(s, s.new_handle(), (1000,), f32)  # type: ignore[arg-type]
    y = ndarray._new(s, s.new_handle(), (1000,), f32)  # type: ignore[arg-type]
    rows = {
        "x + y": lambda: x + y,
        "x + 1.0": lambda: x + 1.0,
        "x.sum()": lambda: x.sum(),
        "x[1:10]": lambda: x[1:10],
    }
    print(f"python {sys.version.split()[0]}")
    for name, fn in rows.items():
        print(f"{name:10} {best_ns(fn):8.0f} ns  {python_calls(fn):3} calls")


if __name__ == "__main__":
    main()
