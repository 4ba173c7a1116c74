#!/usr/bin/env python3
"""Concurrency of a session's streams, arrayd beside CuPy in one run.

    python3 tests/bench/bench_streams.py --address unix:/tmp/arrayd.sock [--cupy]

The server must run with --allow-user-kernels (the workload is a RawKernel
that keeps one block busy for a set time, so that two of them can share the
GPU). Three measures, each as wall time of the work between two syncs:

- kernel | kernel: the busy kernel on stream A, then on stream B, each
  alone; then both at once (one on each stream). Overlap: both < A + B.
- copy | kernel: an upload of pinned host memory (alloc_pinned_memory) on
  stream A alone, the busy kernel on stream B alone, then both at once.
- small ops: many small elementwise ops (2^14 elements: a few blocks each)
  on one stream, then the same split across two streams.

Not a test: run on the GPU machine, record the table in RESULTS.md.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))

SPIN = r'''
extern "C" __global__ void spin(long long cycles, int* out) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
  if (threadIdx.x == 0) out[blockIdx.x] = 1;
}
'''


def best(fn, repeat: int = 5) -> float:
    fn()  # warm-up (compiles, allocates)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def run(xp, label: str) -> dict[str, float]:
    cuda = xp.cuda
    a, b = cuda.Stream(non_blocking=True), cuda.Stream(non_blocking=True)
    spin = xp.RawKernel(SPIN, "spin")
    flag = xp.zeros(4, dtype=np.int32)
    clock_khz = cuda.runtime.getDeviceProperties(0)["clockRate"]
    cycles = np.int64(clock_khz * 20)  # ~20 ms at the base clock

    def kernel_on(s):
        with s:
            spin((1,), (32,), (cycles, flag))

    def sync():
        a.synchronize()
        b.synchronize()

    out: dict[str, float] = {}
    out["kernel A"] = best(lambda: (kernel_on(a), sync()))
    out["kernel B"] = best(lambda: (kernel_on(b), sync()))
    out["kernel A | kernel B"] = best(lambda: (kernel_on(a), kernel_on(b), sync()))

    nbytes = 256 << 20
    mem = cuda.alloc_pinned_memory(nbytes)
    host = np.frombuffer(mem, np.uint8, nbytes)
    host[:] = 7
    dev = xp.empty(nbytes, dtype=np.uint8)

    def copy_on(s):
        with s:
            dev.set(host)

    out["copy A"] = best(lambda: (copy_on(a), sync()))
    out["copy A | kernel B"] = best(lambda: (kernel_on(b), copy_on(a), sync()))
    assert int(dev[-1].get()) == 7

    x = xp.ones(1 << 14, dtype=np.float32)
    ys = [xp.empty_like(x) for _ in range(2)]

    def small(streams):
        for i in range(400):
            s = streams[i % len(streams)]
            with s:
                xp.multiply(x, 1.0001, out=ys[i % 2])
        sync()

    out["400 small ops, 1 stream"] = best(lambda: small([a]))
    out["400 small ops, 2 streams"] = best(lambda: small([a, b]))
    print(f"{label}: " + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in out.items()),
          file=sys.stderr)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--address", required=True)
    p.add_argument("--cupy", action="store_true", help="CuPy beside arrayd")
    args = p.parse_args()
    import arrayd
    arrayd.connect(args.address)
    results = {"arrayd": run(arrayd, "arrayd")}
    if args.cupy:
        import cupy
        results["CuPy"] = run(cupy, "CuPy")
    libs = list(results)
    print("| measure | " + " | ".join(f"{k} (ms)" for k in libs) + " |")
    print("|---|" + "---|" * len(libs))
    for key in results["arrayd"]:
        print(f"| {key} | " + " | ".join(f"{results[k][key] * 1e3:.2f}" for k in libs) + " |")
    for k in libs:
        r = results[k]
        print(f"{k}: kernels overlap {r['kernel A'] + r['kernel B']:.4f} s -> "
              f"{r['kernel A | kernel B']:.4f} s; copy and kernel "
              f"{r['copy A'] + r['kernel B']:.4f} s -> {r['copy A | kernel B']:.4f} s")


if __name__ == "__main__":
    main()
