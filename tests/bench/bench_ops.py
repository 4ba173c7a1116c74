#!/usr/bin/env python3
"""The ops off the first benchmark's rows (issue 15's table), arrayd
through the Python client against CuPy in-process, same GPU, one run:
sort, argsort, cumsum, gather, boolean masks, broadcast and strided
elementwise, reductions over an axis, a chain and a round trip.

    python3 tests/bench/bench_ops.py --address unix:/tmp/arrayd.sock [--quick] [--only sort]

Prints one row per workload: both numbers (higher is better: Gelem/s or
GB/s; the round trip in us, lower is better) and arrayd/CuPy (CuPy/arrayd
for the round trip). Not a test: run it on the GPU machine and record the
table in RESULTS.md.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_vs_cupy import run_both, timeit  # noqa: E402

# (key, unit, higher is better)
ROWS = [
    ("sort_f32_2^24", "Gelem/s", True),
    ("argsort_f32_2^24", "Gelem/s", True),
    ("sort_i64_rows_4096x4096", "Gelem/s", True),
    ("cumsum_f32_2^24", "Gelem/s", True),
    ("cumsum_f32_axis0_4096x4096", "Gelem/s", True),
    ("take_i64_idx_2^24", "Gelem/s", True),
    ("mask_getitem_f32_2^24", "Gelem/s", True),
    ("outer_add_8192", "GB/s", True),
    ("sum_axis0_8192x8192", "GB/s", True),
    ("chain_2^26", "GB/s", True),
    ("roundtrip_1000", "us", False),
]


def workloads(xp, sync, quick: bool, only: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    rng = np.random.default_rng(0)
    big = 1 << (20 if quick else 24)
    side = 1024 if quick else 4096

    def measure(key, fn):
        if only and not any(o in key for o in only):
            return
        try:
            out[key] = fn()
        except Exception as e:  # noqa: BLE001 - a benchmark reports and goes on
            print(f"{xp.__name__}: {key} failed: {type(e).__name__}: {e}", file=sys.stderr)
            out[key] = float("nan")

    x = xp.asarray(rng.standard_normal(big).astype(np.float32))
    rows = xp.asarray(rng.integers(-1 << 40, 1 << 40, (side, side)))
    sq = xp.asarray(rng.standard_normal((side, side)).astype(np.float32))
    idx = xp.asarray(rng.integers(0, big, big))
    measure("sort_f32_2^24", lambda: big / timeit(lambda: xp.sort(x), sync, 10) / 1e9)
    measure("argsort_f32_2^24", lambda: big / timeit(lambda: xp.argsort(x), sync, 10) / 1e9)
    measure("sort_i64_rows_4096x4096",
            lambda: side * side / timeit(lambda: xp.sort(rows, axis=1), sync, 5) / 1e9)
    measure("cumsum_f32_2^24", lambda: big / timeit(lambda: xp.cumsum(x), sync, 20) / 1e9)
    measure("cumsum_f32_axis0_4096x4096",
            lambda: side * side / timeit(lambda: xp.cumsum(sq, axis=0), sync, 10) / 1e9)
    measure("take_i64_idx_2^24", lambda: big / timeit(lambda: x[idx], sync, 20) / 1e9)
    measure("mask_getitem_f32_2^24", lambda: big / timeit(lambda: x[x > 0], sync, 20) / 1e9)
    m = 2048 if quick else 8192
    col = xp.ones((m, 1), dtype=xp.float32)
    row = xp.ones((1, m), dtype=xp.float32)
    measure("outer_add_8192", lambda: 4 * m * m / timeit(lambda: col + row, sync, 20) / 1e9)
    mat = xp.ones((m, m), dtype=xp.float32)
    measure("sum_axis0_8192x8192",
            lambda: 4 * m * m / timeit(lambda: mat.sum(axis=0), sync, 20) / 1e9)
    c = xp.ones(1 << (22 if quick else 26), dtype=xp.float32)
    measure("chain_2^26",
            lambda: 8 * c.size / timeit(lambda: 2 * c + 3 * c * c - 1, sync, 10) / 1e9)
    small = xp.ones(1000, dtype=xp.float32)

    def roundtrip():
        lat = []
        for _ in range(300):
            t0 = time.perf_counter()
            float((small + small).sum())
            lat.append(time.perf_counter() - t0)
        return statistics.median(lat[50:]) * 1e6

    measure("roundtrip_1000", roundtrip)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--only", default="", help="comma-separated parts of workload keys")
    parser.add_argument("--json", default="")
    parser.add_argument("--no-cupy", action="store_true")
    args = parser.parse_args()
    only = [o for o in args.only.split(",") if o]
    results = run_both(workloads, args.address, args.quick, only, args.no_cupy)
    print("| workload | unit | CuPy | arrayd | ratio |\n|---|---|---|---|---|")
    for key, unit, higher in ROWS:
        a, c = results["arrayd"].get(key), results["cupy"].get(key)
        if a is None:
            continue
        ratio = (a / c if higher else c / a) if c else float("nan")
        print(f"| {key} | {unit} | {c if c is not None else float('nan'):.3g} | {a:.3g} | {ratio:.2f}x |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
