#!/usr/bin/env python3
"""Per-op cost of pipelined small ops vs a synchronous round trip.

    python tests/bench/bench_pipeline.py --address unix:/tmp/arrayd.sock

Rows (microseconds per op):
  record     client-side cost of recording one add (no waiting)
  pipelined  N adds of 1000-element float32 arrays, then one synchronize()
  roundtrip  add + sum + float() (one sync point each)
  upload/download  1 MiB and 64 MiB float32 arrays (MB/s)
Not a test; results go to tests/bench/RESULTS.md by hand.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "client-python"))
import arrayd as ad  # noqa: E402


def _best(f, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--address", default=None,
                   help="server address (default: ARRAYD_ADDRESS or the "
                        "private per-user server)")
    p.add_argument("--n", type=int, default=10000, help="pipelined ops")
    p.add_argument("--size", type=int, default=1000, help="array elements")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()

    s = ad.connect(args.address)
    n, size = args.n, args.size
    x = ad.ones(size, dtype=ad.float32)
    y = ad.ones(size, dtype=ad.float32)
    ad.synchronize()

    def pipelined() -> None:
        for _ in range(n):
            x + y
        ad.synchronize()

    def record_only() -> None:
        t = time.perf_counter()
        for _ in range(n):
            x + y
        record_only.t = time.perf_counter() - t  # type: ignore[attr-defined]
        ad.synchronize()

    rt_n = max(1, min(n // 10, 1000))

    def roundtrip() -> None:
        for _ in range(rt_n):
            float((x + y).sum())

    pipelined()  # warm up (server kernels, caches)
    rec = []
    for _ in range(args.repeat):
        record_only()
        rec.append(record_only.t)  # type: ignore[attr-defined]
    t_pipe = _best(pipelined, args.repeat)
    t_rt = _best(roundtrip, args.repeat)

    rows = [
        ("record (client only)", min(rec) / n * 1e6, f"{n} adds"),
        ("pipelined add + sync", t_pipe / n * 1e6, f"{n} adds, 1 sync"),
        ("round trip add+sum+float", t_rt / rt_n * 1e6, f"{rt_n} times"),
    ]
    print(f"arrayd {s.capabilities.version} backend={s.backend} "
          f"address={s.address} size={size} float32")
    print(f"{'case':28s} {'us/op':>10s}  note")
    for name, us, note in rows:
        print(f"{name:28s} {us:10.2f}  {note}")

    for mib in (1, 64):
        a = np.ones(mib * (1 << 18), dtype=np.float32)

        def up() -> None:
            ad.asarray(a)
            ad.synchronize()

        t_up = _best(up, args.repeat)
        d = ad.asarray(a)
        t_down = _best(d.get, args.repeat)
        print(f"{'upload ' + str(mib) + ' MiB':28s} {mib / t_up:10.1f}  MiB/s")
        print(f"{'download ' + str(mib) + ' MiB':28s} {mib / t_down:10.1f}"
              f"  MiB/s")
    ad.disconnect(s)


if __name__ == "__main__":
    main()
