#!/usr/bin/env python3
"""Many client processes against one arrayd server, and as many CuPy
processes doing the same work, in one run (issue 17).

    python3 tests/bench/bench_clients.py --address unix:/tmp/arrayd.sock \\
        --server-pid PID [--clients 1,8,16,32,64,128] [--cupy] [--idle 1000]

For each N of --clients, N processes start together and each:
  1. issues --ops small adds (1000 float32) and synchronizes: the aggregate
     ops/s is every process's ops over the first start to the last end;
  2. makes --trips round trips (an add, then synchronize), each timed: p50
     and p99 over every client.
Then, with --flood, one process floods adds (a sync every 10,000) while the
other N - 1 make round trips, --polite-pause-ms apart (default 1 ms: an
interactive client; 0: back to back, when 63 tight loops on 16 cores
measure the machine's scheduler more than the server): their p99 beside
the single client's.
The server's threads and resident memory (/proc/PID/status, the most seen
while the clients ran) and GPU memory per process (nvidia-smi) are
recorded; --idle K opens K sessions that do nothing and records the
server's threads and memory before and after.

Not a test: run it on the GPU machine (tests/device_run.sh clients) and
record the table in RESULTS.md. Without a GPU (--cpu-only) it measures the
CPU server alone.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_vs_cupy import gpu_memory_by_pid

ADD_ELEMENTS = 1000
FLOOD_SYNC_EVERY = 10_000


def _module(kind: str, address: str):
    """(xp, sync) for a client process of `kind`."""
    if kind == "arrayd":
        import arrayd as xp
        xp.connect(address)
        return xp, xp.synchronize
    import cupy as xp
    return xp, xp.cuda.Device().synchronize


def _client(kind: str, address: str, role: str, ops: int, trips: int, seconds: float,
            barrier, results, pause_s: float = 0.0) -> None:
    """One client process: `role` is "work" (ops, then round trips),
    "polite" (round trips for `seconds`) or "flood" (adds for `seconds`)."""
    try:
        xp, sync = _module(kind, address)
        a = xp.ones(ADD_ELEMENTS, dtype=xp.float32)
        b = xp.ones(ADD_ELEMENTS, dtype=xp.float32)
        for _ in range(200):
            a + b
        sync()
        out: dict = {"pid": os.getpid()}
        barrier.wait()
        if role == "work":
            t0 = time.perf_counter()
            for _ in range(ops):
                a + b
            sync()
            out.update(t0=t0, t1=time.perf_counter(), ops=ops)
            barrier.wait()
        trips_us: list[float] = []
        if role == "flood":
            end = time.perf_counter() + seconds
            n = 0
            while time.perf_counter() < end:
                for _ in range(FLOOD_SYNC_EVERY):
                    a + b
                sync()
                n += FLOOD_SYNC_EVERY
            out["flood_ops"] = n
        else:
            # "work": `trips` round trips; "polite": as many as `seconds` hold.
            end = time.perf_counter() + seconds
            while (len(trips_us) < trips if role == "work" else time.perf_counter() < end):
                t = time.perf_counter()
                a + b
                sync()
                trips_us.append((time.perf_counter() - t) * 1e6)
                if role == "polite" and pause_s > 0:
                    time.sleep(pause_s)
        out["trips_us"] = trips_us
        results.put(out)
        time.sleep(2)  # alive while the parent reads nvidia-smi
    except Exception as e:  # noqa: BLE001 - reported by the parent
        results.put({"pid": os.getpid(), "error": repr(e)})


class ServerWatch:
    """The most threads and resident MiB the server had while it ran."""

    def __init__(self, pid: int):
        self.pid, self.threads, self.rss_mib = pid, 0, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> tuple[int, float]:
        threads, rss = 0, 0.0
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith("Threads:"):
                        threads = int(line.split()[1])
                    elif line.startswith("VmRSS:"):
                        rss = int(line.split()[1]) / 1024
        except OSError:
            pass
        return threads, rss

    def _run(self) -> None:
        while not self._stop.is_set():
            t, r = self.sample()
            self.threads, self.rss_mib = max(self.threads, t), max(self.rss_mib, r)
            self._stop.wait(0.05)

    def __enter__(self) -> ServerWatch:  # noqa: PYI034
        if self.pid:
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self.pid:
            self._thread.join()


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def run_clients(kind: str, address: str, roles: list[str], ops: int, trips: int,
                seconds: float, server_pid: int, pause_s: float = 0.0) -> dict:
    """Starts one process per role; returns the run's metrics."""
    ctx = mp.get_context("spawn")
    work = roles.count("work")
    # Every process waits at the start; "work" ones again between phases.
    start = ctx.Barrier(len(roles) + 1)
    between = ctx.Barrier(work + 1) if work else None
    results = ctx.Queue()
    procs = []
    for role in roles:
        barrier = _Barriers(start, between) if role == "work" else _Barriers(start, None)
        procs.append(ctx.Process(target=_client, args=(kind, address, role, ops, trips,
                                                       seconds, barrier, results, pause_s)))
    for p in procs:
        p.start()
    watch = ServerWatch(server_pid if kind == "arrayd" else 0)
    # A CuPy process makes its own CUDA context: 128 of them take minutes.
    start_timeout = 120 + 5 * len(roles)
    with watch:
        try:
            start.wait(timeout=start_timeout)
            if between is not None:
                between.wait(timeout=600)
        except Exception:  # noqa: BLE001 - a broken barrier or a timeout
            for p in procs:
                p.kill()
            raise RuntimeError(f"{kind}: a client process did not reach the start") from None
        got = [results.get(timeout=900) for _ in procs]
    mem = gpu_memory_by_pid()
    for p in procs:
        p.join()
    errors = [g["error"] for g in got if "error" in g]
    if errors:
        raise RuntimeError(f"{kind}: {len(errors)} clients failed: {errors[0]}")
    out: dict = {"clients": len(roles), "server_threads": watch.threads,
                 "server_rss_mib": round(watch.rss_mib, 1)}
    timed = [g for g in got if "t0" in g]
    if timed:
        wall = max(g["t1"] for g in timed) - min(g["t0"] for g in timed)
        out["ops_per_s"] = sum(g["ops"] for g in timed) / wall
    trips_us = [t for g in got for t in g["trips_us"]]
    out["trip_p50_us"] = _percentile(trips_us, 0.50)
    out["trip_p99_us"] = _percentile(trips_us, 0.99)
    gpu = [mem.get(g["pid"], 0) for g in got]
    out["gpu_mib_per_process"] = statistics.mean(gpu) if gpu else 0
    if server_pid and kind == "arrayd":
        out["server_gpu_mib"] = gpu_memory_by_pid().get(server_pid, 0)
    return out


class _Barriers:
    """A client's two barriers (the second: None for roles with one phase),
    waited in turn by `wait`."""

    def __init__(self, first, second):
        self._left = [b for b in (first, second) if b is not None]

    def wait(self) -> None:
        if self._left:
            self._left.pop(0).wait(timeout=600)


def idle_sessions(address: str, count: int, server_pid: int) -> dict:
    """The server's threads and resident MiB before and after `count` idle
    sessions open (from this process)."""
    import resource

    import arrayd as ad
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # a socket or two each
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4 * count + 1024)), hard))
    watch = ServerWatch(server_pid)
    before = watch.sample()
    sessions = [ad.connect(address, default=False) for _ in range(count)]
    time.sleep(1.0)
    after = watch.sample()
    for s in sessions:
        ad.disconnect(s)
    return {"sessions": count, "threads_before": before[0], "threads_after": after[0],
            "rss_mib_before": round(before[1], 1), "rss_mib_after": round(after[1], 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--server-pid", type=int, default=0)
    parser.add_argument("--clients", default="1,8,16,32,64,128")
    parser.add_argument("--ops", type=int, default=2000, help="adds per process, then a sync")
    parser.add_argument("--trips", type=int, default=200, help="round trips per process")
    parser.add_argument("--flood", type=float, default=3.0,
                        help="seconds of the flood phase at the largest N (0: none)")
    parser.add_argument("--polite-pause-ms", type=float, default=1.0,
                        help="flood phase: the polite clients' pause between round trips")
    parser.add_argument("--idle", type=int, default=0, help="idle sessions to open (0: none)")
    parser.add_argument("--cupy", action="store_true", help="the same with CuPy processes")
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    counts = [int(c) for c in args.clients.split(",") if c]
    kinds = ["arrayd"] + (["cupy"] if args.cupy else [])
    report: dict = {"table": {k: {} for k in kinds}, "flood": {}, "idle": {}}

    def save() -> None:  # after every row: a run cut short keeps its rows
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=1, default=str))

    # Each row is printed as soon as it is measured.
    print("| clients | CuPy ops/s | arrayd ops/s | ratio | arrayd p50/p99 us | CuPy p50/p99 us "
          "| server threads | server RSS MiB | GPU MiB per process (CuPy) |", flush=True)
    print("|---|---|---|---|---|---|---|---|---|", flush=True)
    nan = float("nan")
    for n in counts:
        for kind in kinds:
            try:
                report["table"][kind][n] = run_clients(kind, args.address, ["work"] * n, args.ops,
                                                       args.trips, 0.0, args.server_pid)
            except Exception as e:  # noqa: BLE001 - a failed row is reported
                print(f"{kind}, {n} clients: {e}", file=sys.stderr, flush=True)
        save()
        a, c = report["table"]["arrayd"].get(n, {}), report["table"].get("cupy", {}).get(n, {})
        ratio = a.get("ops_per_s", nan) / c["ops_per_s"] if c else nan
        print(f"| {n} | {c.get('ops_per_s', nan):,.0f} | {a.get('ops_per_s', nan):,.0f} | "
              f"{ratio:.2f}x | {a.get('trip_p50_us', nan):.0f}/{a.get('trip_p99_us', nan):.0f} | "
              f"{c.get('trip_p50_us', nan):.0f}/{c.get('trip_p99_us', nan):.0f} | "
              f"{a.get('server_threads', 0)} | {a.get('server_rss_mib', 0)} | "
              f"{c.get('gpu_mib_per_process', 0):.0f} |", flush=True)
    single = report["table"]["arrayd"].get(1, {}).get("trip_p99_us")
    if args.flood > 0 and counts:
        n = max(counts)
        for kind in kinds:
            try:
                f = run_clients(kind, args.address, ["flood"] + ["polite"] * (n - 1), 0, 0,
                                args.flood, args.server_pid, args.polite_pause_ms * 1e-3)
            except Exception as e:  # noqa: BLE001
                print(f"{kind}, flood with {n} clients: {e}", file=sys.stderr, flush=True)
                continue
            report["flood"][kind] = f
            save()
            line = (f"flood ({kind}): {n} clients, one flooding, the others "
                    f"{args.polite_pause_ms:g} ms apart: polite p50/p99 "
                    f"{f['trip_p50_us']:.0f}/{f['trip_p99_us']:.0f} us")
            if kind == "arrayd" and single:
                line += f", {f['trip_p99_us'] / single:.1f}x the single client's p99 ({single:.0f} us)"
            print(line, flush=True)
    if args.idle:
        idle = report["idle"] = idle_sessions(args.address, args.idle, args.server_pid)
        save()
        print(f"idle: {idle['sessions']} sessions: server threads {idle['threads_before']} -> "
              f"{idle['threads_after']}, RSS {idle['rss_mib_before']} -> {idle['rss_mib_after']} MiB",
              flush=True)


if __name__ == "__main__":
    main()
