#!/usr/bin/env python3
"""Where a synchronous round trip's time goes, step by step (median us).

    python3 tests/bench/latency_breakdown.py --address unix:/tmp/arrayd.sock [--cupy]

Rows: an empty synchronize(); one 1000-element add then synchronize(); a sum
then synchronize(); float() of a 0-d array (a 4-byte download); and the
benchmark's add + sum + float(). Run it against a CUDA and a CPU server on
the same machine to split transport cost from device cost; --cupy adds the
same rows for CuPy in this process. Not a test.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))


def median_us(fn, n: int = 400) -> float:
    """Median us of n calls of fn, the first fifth left out (warm-up)."""
    lat = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        lat.append(time.perf_counter() - t0)
    return statistics.median(lat[n // 5:]) * 1e6


def rows(xp, sync) -> dict[str, float]:
    a = xp.ones(1000, dtype=xp.float32)
    b = xp.ones(1000, dtype=xp.float32)
    s = (a + b).sum()
    sync()

    def add_sync():
        a + b
        sync()

    def sum_sync():
        a.sum()
        sync()

    return {
        "synchronize (empty)": median_us(sync),
        "add + synchronize": median_us(add_sync),
        "sum + synchronize": median_us(sum_sync),
        "float(0-d array)": median_us(lambda: float(s)),
        "add + sum + float()": median_us(lambda: float((a + b).sum())),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--address", required=True)
    p.add_argument("--cupy", action="store_true")
    args = p.parse_args()
    import arrayd as ad
    ad.connect(args.address)
    table = {"arrayd": rows(ad, ad.synchronize)}
    ad.disconnect()
    if args.cupy:
        import cupy as cp
        table["cupy"] = rows(cp, cp.cuda.Device().synchronize)
    names = list(table)
    print(f"{'step (median us)':28}" + "".join(f"{n:>12}" for n in names))
    for row in table[names[0]]:
        print(f"{row:28}" + "".join(f"{table[n][row]:12.1f}" for n in names))


if __name__ == "__main__":
    main()
