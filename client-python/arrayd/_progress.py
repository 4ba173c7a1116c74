"""Progress bars for the client's long waits, with tqdm when it is
installed and stderr is a terminal: transfers over gRPC of at least 64 MiB
(uploads and downloads, chunk by chunk) and loads of user kernels that last
more than half a second (a first-time compile on the server). The
same-host shared-memory path needs none (it copies at memory speed).
ARRAYD_PROGRESS=0 turns them off; ARRAYD_PROGRESS=1 shows them on any
stderr.

Layer: a leaf module (imports nothing of arrayd).
"""
from __future__ import annotations

import os
import sys
from typing import Any

# Transfers smaller than this get no bar.
MIN_BYTES = 64 << 20


class _NoBar:
    """What the callers use when no bar is shown."""

    def update(self, n: int) -> None:
        """Nothing to advance."""

    def close(self) -> None:
        """Nothing to close."""


def _tqdm() -> Any:
    setting = os.environ.get("ARRAYD_PROGRESS", "")
    if setting == "0":
        return None
    if setting != "1" and not getattr(sys.stderr, "isatty", lambda: False)():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


def transfer(total: int, desc: str) -> Any:
    """A bar of ``total`` bytes (update it with the bytes moved, close it
    at the end), or one that does nothing."""
    tqdm = _tqdm() if total >= MIN_BYTES else None
    if tqdm is None:
        return _NoBar()
    return tqdm(total=total, desc=desc, unit="B", unit_scale=True,
                unit_divisor=1024, leave=False)


def waiting(desc: str) -> Any:
    """A bar without a total for a wait that may be long: shown only once
    it has lasted half a second (close it when the wait ends)."""
    tqdm = _tqdm()
    if tqdm is None:
        return _NoBar()
    return tqdm(total=None, desc=desc, delay=0.5, bar_format="{desc} {elapsed}",
                leave=False)
