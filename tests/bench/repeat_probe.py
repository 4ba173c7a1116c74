#!/usr/bin/env python3
"""Per-call time of large ops against the number of calls between syncs.

    python3 tests/bench/repeat_probe.py --address unix:/tmp/arrayd.sock

If arrayd's per-call time falls toward CuPy's as calls grow, the gap of the
benchmark rows is a fixed cost per synchronized batch (transport, start-up
latency); if not, it is in the kernels. Not a test.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))

from bench_vs_cupy import timeit  # noqa: E402  (this folder)


def per_call_us(fn, sync, repeat: int) -> float:
    return timeit(fn, sync, repeat) * 1e6


def rows(xp, sync) -> dict[str, float]:
    n = 1 << 28
    a = xp.ones(n, dtype=xp.float32)
    rng = xp.random.default_rng(1)
    out = {}
    for r in (1, 5, 20, 80):
        out[f"sum x{r}"] = per_call_us(lambda: a.sum(), sync, r)
    for r in (1, 5, 20):
        out[f"normal x{r}"] = per_call_us(lambda: rng.standard_normal(n, dtype=xp.float32), sync, r)
    out["empty sync"] = per_call_us(lambda: None, sync, 1)
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--address", required=True)
    args = p.parse_args()
    import arrayd as ad
    ad.connect(args.address)
    table = {"arrayd": rows(ad, ad.synchronize)}
    ad.disconnect()
    import cupy as cp
    table["cupy"] = rows(cp, cp.cuda.Device().synchronize)
    print(f"{'per call (us)':16}{'arrayd':>10}{'cupy':>10}")
    for k in table["arrayd"]:
        print(f"{k:16}{table['arrayd'][k]:10.1f}{table['cupy'][k]:10.1f}")


if __name__ == "__main__":
    main()
