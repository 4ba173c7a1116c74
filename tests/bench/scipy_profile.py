#!/usr/bin/env python3
"""The kernels of bench_scipy.py's slow rows, for a profiler: runs one
row's whole call a few times with arrayd (against a running server) or
with cupyx.scipy, for Nsight Compute to time each kernel:

    ncu --clock-control none --metrics gpu__time_duration.sum --csv \\
        --log-file arrayd.csv build/bin/arrayd --backend cuda --listen unix:/tmp/p.sock &
    python3 tests/bench/scipy_profile.py --lib arrayd --address unix:/tmp/p.sock --row zoom
    ncu ... --log-file cupy.csv python3 tests/bench/scipy_profile.py --lib cupy --row zoom
    python3 tests/bench/scipy_profile.py --summarize arrayd.csv

--summarize prints each kernel's launches and mean time (us) from ncu's
CSV log. Not a test: a probe for RESULTS.md's notes.
"""
from __future__ import annotations

import argparse
import collections
import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))

ROWS = ("fftconvolve", "zoom", "label", "map_coordinates", "uniform")


def run(lib: str, address: str | None, row: str, calls: int) -> None:
    if lib == "cupy":
        import cupy as xp
        import cupyx.scipy.ndimage as ndi
        from cupyx.scipy import signal
        sync = xp.cuda.Device().synchronize
    else:
        import arrayd as xp
        if address:
            xp.connect(address)
        import arrayd.scipy.ndimage as ndi
        from arrayd.scipy import signal
        sync = xp.synchronize
    rng = np.random.default_rng(0)
    img = xp.asarray(rng.standard_normal((4096, 4096)).astype(np.float32))
    if row == "fftconvolve":
        sig = xp.asarray(rng.standard_normal(1 << 22).astype(np.float32))
        ker = xp.asarray(rng.standard_normal(1 << 12).astype(np.float32))
        fn = lambda: signal.fftconvolve(sig, ker)
    elif row == "zoom":
        small = xp.asarray(rng.standard_normal((2048, 2048)).astype(np.float32))
        fn = lambda: ndi.zoom(small, 2)
    elif row == "label":
        mask = img > 0.5
        fn = lambda: ndi.label(mask)
    elif row == "map_coordinates":
        small = xp.asarray(rng.standard_normal((2048, 2048)).astype(np.float32))
        coords = xp.asarray((rng.random((2, 2048, 2048)) * 2047).astype(np.float32))
        fn = lambda: ndi.map_coordinates(small, coords, order=1)
    else:
        fn = lambda: ndi.uniform_filter(img, 9)
    for _ in range(calls):
        fn()
    sync()


def summarize(path: str) -> None:
    launches: dict[str, list[float]] = collections.defaultdict(list)
    with open(path, newline="") as f:
        lines = [ln for ln in f if ln.startswith('"')]
    for rec in csv.DictReader(lines):
        if rec.get("Metric Name") != "gpu__time_duration.sum":
            continue
        scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0,
                 "ms": 1e3, "msecond": 1e3}.get(rec["Metric Unit"], 1.0)
        value = float(rec["Metric Value"].replace(",", "")) * scale
        launches[rec["Kernel Name"][:90]].append(value)
    total = sum(sum(v) for v in launches.values())
    print(f"{'kernel':90s} {'launches':>8s} {'mean us':>9s} {'total us':>9s}")
    for name, v in sorted(launches.items(), key=lambda kv: -sum(kv[1])):
        print(f"{name:90s} {len(v):8d} {np.mean(v):9.1f} {sum(v):9.1f}")
    print(f"{'all':90s} {sum(len(v) for v in launches.values()):8d} {'':9s} {total:9.1f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", choices=("arrayd", "cupy"), default="arrayd")
    ap.add_argument("--address")
    ap.add_argument("--row", choices=ROWS, default="zoom")
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--summarize", metavar="NCU_CSV")
    args = ap.parse_args()
    if args.summarize:
        summarize(args.summarize)
    else:
        run(args.lib, args.address, args.row, args.calls)


if __name__ == "__main__":
    main()
