#!/usr/bin/env python3
"""arrayd (through the Python client) against CuPy (in-process), same GPU, one run.

    python3 tests/bench/bench_vs_cupy.py --address unix:/tmp/arrayd.sock [--quick]

Prints a table with both numbers and the ratio arrayd/CuPy where higher is
better (GB/s, TFLOP/s, ops/s) or CuPy/arrayd where lower is better (us).
Not a test: run it on the GPU machine and record the table in RESULTS.md.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))


# The last timeit's best run, in seconds per call: "call" (to the sync's
# end) and "client" (issuing the calls, before the sync): where the client
# takes most of the call, the time is the client's, not the device's.
LAST_TIMING = {"call": float("nan"), "client": float("nan")}


def timeit(fn, sync, repeat: int, warmup: int = 2) -> float:
    """Best-of-3 mean seconds per call of fn over `repeat` calls."""
    for _ in range(warmup):
        fn()
    sync()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        t1 = time.perf_counter()
        sync()
        call = (time.perf_counter() - t0) / repeat
        if call < best:
            best = call
            LAST_TIMING.update(call=call, client=(t1 - t0) / repeat)
    return best


def workloads(xp, sync, quick: bool, only: list[str]) -> dict[str, float]:
    """Runs the workloads with module xp (arrayd or cupy); returns metrics.

    `only`: run just the workloads whose key contains one of these (all
    when empty). A workload that fails is reported (NaN) and the others
    still run."""
    out: dict[str, float] = {}

    def measure(key, fn):
        if only and not any(o in key for o in only):
            return
        try:
            out[key] = fn()
        except Exception as e:  # noqa: BLE001 - a benchmark reports and goes on
            print(f"{xp.__name__}: {key} failed: {type(e).__name__}: {e}", file=sys.stderr)
            out[key] = float("nan")

    n = 1 << (20 if quick else 28)

    def add():
        a = xp.ones(n, dtype=xp.float32)
        b = xp.ones(n, dtype=xp.float32)
        return 3 * 4 * n / timeit(lambda: a + b, sync, 20) / 1e9

    def total():
        a = xp.ones(n, dtype=xp.float32)
        return 4 * n / timeit(lambda: a.sum(), sync, 20) / 1e9

    def matmul(dt):
        m = 512 if quick else 8192
        x = xp.ones((m, m), dtype=dt)
        y = xp.ones((m, m), dtype=dt)
        return 2 * m ** 3 / timeit(lambda: x @ y, sync, 5) / 1e12

    small_a = xp.ones(1000, dtype=xp.float32)
    small_b = xp.ones(1000, dtype=xp.float32)

    def pipelined():
        return 1 / timeit(lambda: small_a + small_b, sync, 10_000, warmup=100)

    def roundtrip():
        lat = []
        for _ in range(300):
            t0 = time.perf_counter()
            float((small_a + small_b).sum())
            lat.append(time.perf_counter() - t0)
        return statistics.median(lat[50:]) * 1e6

    host = np.ones(1 << (22 if quick else 28), dtype=np.float32)  # 1 GiB, pageable

    def upload():
        return host.nbytes / timeit(lambda: xp.asarray(host), sync, 3, warmup=1) / 1e9

    def download():
        dev = xp.asarray(host)
        return host.nbytes / timeit(lambda: dev.get(), sync, 3, warmup=1) / 1e9

    measure("add_f32_GBps", add)
    measure("sum_f32_GBps", total)
    measure("matmul_f32_TFLOPs", lambda: matmul(xp.float32))
    measure("matmul_f16_TFLOPs", lambda: matmul(xp.float16))
    def fft():
        m = 1 << (16 if quick else 24)
        z = xp.ones(m, dtype=xp.complex64)
        # GB/s of one read and one write of the array
        return 2 * 8 * m / timeit(lambda: xp.fft.fft(z), sync, 10) / 1e9

    def normal():
        m = 1 << (20 if quick else 28)
        rng = xp.random.default_rng(1)
        return m / timeit(lambda: rng.standard_normal(m, dtype=xp.float32), sync, 5) / 1e9

    def normal_philox():
        # The same algorithm on both sides: CuPy's default_rng is XORWOW,
        # arrayd's streams are Philox4x32-10 (counter-based); this row gives
        # CuPy its Philox generator (arrayd draws as in `normal`).
        m = 1 << (20 if quick else 28)
        if xp.__name__ == "cupy":
            rng = xp.random.Generator(xp.random.Philox4x3210(1))
        else:
            rng = xp.random.default_rng(1)
        return m / timeit(lambda: rng.standard_normal(m, dtype=xp.float32), sync, 5) / 1e9

    measure("fft_c64_2^24_GBps", fft)
    measure("normal_f32_2^28_Gsamples_per_s", normal)
    measure("normal_f32_philox_both_Gsamples_per_s", normal_philox)
    measure("pipelined_add_ops_per_s", pipelined)
    measure("roundtrip_us", roundtrip)
    measure("upload_GBps", upload)
    measure("download_GBps", download)
    return out


def gpu_memory_by_pid() -> dict[int, int]:
    """MiB of GPU memory per process, from nvidia-smi."""
    try:
        text = subprocess.run(
            ["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    mem = {}
    for line in text.strip().splitlines():
        pid, used = (s.strip() for s in line.split(","))
        mem[int(pid)] = int(used)
    return mem


def _client_loop(kind: str, address: str, ops: int, start, results) -> None:
    if kind == "arrayd":
        import arrayd as xp
        xp.connect(address)
        sync = xp.synchronize
    else:
        import cupy as xp
        sync = xp.cuda.Device().synchronize
    a = xp.ones(1000, dtype=xp.float32)
    b = xp.ones(1000, dtype=xp.float32)
    for _ in range(200):
        a + b
    sync()
    start.wait()
    t0 = time.perf_counter()
    for _ in range(ops):
        a + b
    sync()
    t1 = time.perf_counter()
    results.put((os.getpid(), ops / (t1 - t0), t0, t1))
    time.sleep(3)  # stay alive while the parent reads nvidia-smi


def many_clients(kind: str, address: str, nproc: int, ops: int) -> tuple[float, list[int]]:
    ctx = mp.get_context("spawn")
    start = ctx.Barrier(nproc + 1)
    results = ctx.Queue()
    procs = [ctx.Process(target=_client_loop, args=(kind, address, ops, start, results))
             for _ in range(nproc)]
    for p in procs:
        p.start()
    try:
        start.wait(timeout=120)
    except Exception:  # a client died before the start (e.g. no server)
        for p in procs:
            p.kill()
        raise RuntimeError(f"{kind}: not every client process started") from None
    got = [results.get(timeout=300) for _ in procs]
    wall = max(r[3] for r in got) - min(r[2] for r in got)  # first start to last end
    mem = gpu_memory_by_pid()
    for p in procs:
        p.join()
    return nproc * ops / wall, [mem.get(r[0], 0) for r in got]


def run_both(workloads, address: str, quick: bool, only: list[str],
             no_cupy: bool, against: str = "cupy") -> dict[str, dict[str, float]]:
    """``workloads(xp, sync, quick, only)`` with arrayd (connected to
    `address`), then with the reference in-process unless `no_cupy`: CuPy
    (its pool freed afterwards) or, with `against` "numpy", NumPy (for the
    CPU backend): {"arrayd": metrics, "cupy": the reference's metrics}."""
    import arrayd as ad
    ad.connect(address)
    results = {"arrayd": workloads(ad, ad.synchronize, quick, only), "cupy": {}}
    ad.disconnect()
    if no_cupy:
        return results
    if against == "numpy":
        results["cupy"] = workloads(np, lambda: None, quick, only)
        return results
    import cupy as cp
    results["cupy"] = workloads(cp, cp.cuda.Device().synchronize, quick, only)
    cp.get_default_memory_pool().free_all_blocks()
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--server-pid", type=int, default=0)
    parser.add_argument("--quick", action="store_true",
                        help="small sizes: a smoke test of the script, not a measurement")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--json", default="")
    parser.add_argument("--only", default="",
                        help="comma-separated parts of workload keys to run (e.g. fft,roundtrip,"
                             "clients); all when empty")
    parser.add_argument("--no-cupy", action="store_true",
                        help="arrayd alone (comparisons between server settings)")
    args = parser.parse_args()
    only = [o for o in args.only.split(",") if o]

    results = run_both(workloads, args.address, args.quick, only, args.no_cupy)
    server_mem_1 = gpu_memory_by_pid().get(args.server_pid, 0)
    ops = 500 if args.quick else 10_000
    if not only or "clients" in only:
        agg_ad, mem_ad, agg_cp, mem_cp = float("nan"), [], float("nan"), []
        try:
            agg_ad, mem_ad = many_clients("arrayd", args.address, args.clients, ops)
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"arrayd: {args.clients} clients failed: {e}", file=sys.stderr)
        server_mem_n = gpu_memory_by_pid().get(args.server_pid, 0)
        if not args.no_cupy:
            try:
                agg_cp, mem_cp = many_clients("cupy", args.address, args.clients, ops)
            except Exception as e:  # noqa: BLE001
                print(f"cupy: {args.clients} clients failed: {e}", file=sys.stderr)
            results["cupy"][f"{args.clients}_clients_ops_per_s"] = agg_cp
            results["cupy"]["gpu_MiB_per_client_process"] = (
                statistics.mean(mem_cp) if mem_cp else 0)
        results["arrayd"][f"{args.clients}_clients_ops_per_s"] = agg_ad
        results["arrayd"]["gpu_MiB_per_client_process"] = max(mem_ad) if mem_ad else 0
        results["arrayd"]["server_gpu_MiB_1_client"] = server_mem_1
        results["arrayd"][f"server_gpu_MiB_after_{args.clients}_clients"] = server_mem_n

    lower_is_better = {"roundtrip_us", "gpu_MiB_per_client_process"}
    print(f"{'workload':34} {'arrayd':>12} {'cupy':>12} {'ratio':>8}")
    for key, value in results["arrayd"].items():
        ref = results["cupy"].get(key)
        ratio = ""
        if ref and value == value:
            ratio = f"{(ref / value if key in lower_is_better else value / ref):.2f}x" if value else "-"
        ref_text = f"{ref:12.2f}" if ref is not None else f"{'':12}"
        print(f"{key:34} {value:12.2f} {ref_text} {ratio:>8}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
