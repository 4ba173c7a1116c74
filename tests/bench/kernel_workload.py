#!/usr/bin/env python3
"""The benchmark's large workloads, a few times each, for a kernel profiler.

    ncu --target-processes all ... arrayd --backend cuda --listen unix:S &
    python3 tests/bench/kernel_workload.py --address unix:S
    ncu ... python3 tests/bench/kernel_workload.py --cupy

Runs FFT 2^24 complex64, sum 2^28 float32 and 2^28 float32 normals, so that
the profiler lists arrayd's kernels next to CuPy's. Not a test.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--address", default="")
    p.add_argument("--cupy", action="store_true")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    if args.cupy:
        import cupy as xp
        sync = xp.cuda.Device().synchronize
    else:
        import arrayd as xp
        xp.connect(args.address)
        sync = xp.synchronize
    z = xp.ones(1 << 24, dtype=xp.complex64)
    x = xp.ones(1 << 28, dtype=xp.float32)
    rng = xp.random.default_rng(1)
    for _ in range(args.repeat):
        xp.fft.fft(z)
        x.sum()
        rng.standard_normal(1 << 28, dtype=xp.float32)
    sync()


if __name__ == "__main__":
    main()
