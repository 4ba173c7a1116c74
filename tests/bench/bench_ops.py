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
from bench_vs_cupy import LAST_TIMING, run_both, timeit  # noqa: E402

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
    # Issue 15's further rows: GB/s count the bytes read and written once.
    ("sumsq_fused_2^26", "GB/s", True),
    ("mse_fused_2^26", "GB/s", True),
    ("unique_i32_2^24", "Gelem/s", True),
    ("searchsorted_2^24_in_2^20", "Gelem/s", True),
    ("bincount_2^24", "Gelem/s", True),
    ("histogram_f32_2^24", "Gelem/s", True),
    ("nonzero_2^24", "Gelem/s", True),
    ("where_2^26", "GB/s", True),
    ("concatenate_4x2^24", "GB/s", True),
    ("pad_4096", "GB/s", True),
    ("tile_4096", "GB/s", True),
    ("repeat_2^24", "GB/s", True),
    ("slice_copy_8192", "GB/s", True),
    ("transpose_copy_8192", "GB/s", True),
    ("fortran_add_8192", "GB/s", True),
    ("var_axis1_8192", "GB/s", True),
    ("std_axis0_8192", "GB/s", True),
    ("argmax_axis1_8192", "GB/s", True),
    ("sum_axis1_8192", "GB/s", True),
    ("einsum_ij_jk_2048", "TFLOP/s", True),
    ("batched_matmul_10000x16", "Gmat/s", True),
    ("batched_solve_10000x16", "Gmat/s", True),
    ("batched_inv_10000x16", "Gmat/s", True),
    ("fft2_c64_4096", "Gelem/s", True),
    ("normal_f32_2^28", "Gelem/s", True),
    ("setitem_idx_2^24", "Gelem/s", True),
    ("take_along_axis_4096", "Gelem/s", True),
    ("argsort_axis1_4096", "Gelem/s", True),
    ("partition_2^24", "Gelem/s", True),
]


def workloads(xp, sync, quick: bool, only: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    rng = np.random.default_rng(0)
    big = 1 << (20 if quick else 24)
    side = 1024 if quick else 4096

    def measure(key, fn):
        if only and not any(o in key for o in only):
            return
        LAST_TIMING.update(call=float("nan"), client=float("nan"))
        try:
            out[key] = fn()
        except Exception as e:  # noqa: BLE001 - a benchmark reports and goes on
            print(f"{xp.__name__}: {key} failed: {type(e).__name__}: {e}", file=sys.stderr)
            out[key] = float("nan")
        out[key + ":us"] = LAST_TIMING["call"] * 1e6
        out[key + ":client_us"] = LAST_TIMING["client"] * 1e6

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
    more_workloads(xp, sync, quick, measure, rng)
    return out


def more_workloads(xp, sync, quick: bool, measure, rng) -> None:
    """The further rows of issue 15 (its list of at least these ops)."""
    big = 1 << (20 if quick else 24)
    huge = 1 << (22 if quick else 26)
    side = 1024 if quick else 8192
    a = xp.asarray(rng.standard_normal(huge).astype(np.float32))
    b = xp.asarray(rng.standard_normal(huge).astype(np.float32))
    measure("sumsq_fused_2^26", lambda: 4 * huge / timeit(lambda: (a * a).sum(), sync, 20) / 1e9)
    measure("mse_fused_2^26",
            lambda: 8 * huge / timeit(lambda: ((a - b) ** 2).mean(), sync, 20) / 1e9)
    ints = xp.asarray(rng.integers(0, 1 << 16, big).astype(np.int32))
    measure("unique_i32_2^24", lambda: big / timeit(lambda: xp.unique(ints), sync, 5) / 1e9)
    table = xp.sort(xp.asarray(rng.standard_normal(big >> 4).astype(np.float32)))
    x = xp.asarray(rng.standard_normal(big).astype(np.float32))
    measure("searchsorted_2^24_in_2^20",
            lambda: big / timeit(lambda: xp.searchsorted(table, x), sync, 10) / 1e9)
    small_ints = xp.asarray(rng.integers(0, 1000, big))
    measure("bincount_2^24", lambda: big / timeit(lambda: xp.bincount(small_ints), sync, 10) / 1e9)
    measure("histogram_f32_2^24",
            lambda: big / timeit(lambda: xp.histogram(x, bins=100, range=(-4, 4)), sync, 10) / 1e9)
    mask = x > 0.5
    measure("nonzero_2^24", lambda: big / timeit(lambda: xp.nonzero(mask), sync, 10) / 1e9)
    cond = a > 0
    measure("where_2^26",
            lambda: 13 * huge / timeit(lambda: xp.where(cond, a, b), sync, 10) / 1e9)
    parts = [x, x, x, x]
    measure("concatenate_4x2^24",
            lambda: 32 * big / timeit(lambda: xp.concatenate(parts), sync, 10) / 1e9)
    sq = xp.asarray(rng.standard_normal((side // 2, side // 2)).astype(np.float32))
    n_sq = (side // 2) ** 2
    padded = (side // 2 + 64) ** 2
    measure("pad_4096", lambda: 4 * (n_sq + padded) / timeit(lambda: xp.pad(sq, 32), sync, 10) / 1e9)
    measure("tile_4096", lambda: 4 * 5 * n_sq / timeit(lambda: xp.tile(sq, (2, 2)), sync, 10) / 1e9)
    measure("repeat_2^24", lambda: 12 * big / timeit(lambda: xp.repeat(x, 2), sync, 10) / 1e9)
    m = xp.asarray(rng.standard_normal((side, side)).astype(np.float32))
    sliced = 4 * 2 * (side // 2) * (side // 3)
    measure("slice_copy_8192",
            lambda: sliced / timeit(lambda: m[::2, ::3].copy(), sync, 10) / 1e9)
    measure("transpose_copy_8192",
            lambda: 8 * side * side / timeit(lambda: m.T.copy(), sync, 10) / 1e9)
    f = xp.asfortranarray(m)
    measure("fortran_add_8192",
            lambda: 12 * side * side / timeit(lambda: f + m, sync, 10) / 1e9)
    measure("var_axis1_8192",
            lambda: 4 * side * side / timeit(lambda: m.var(axis=1), sync, 10) / 1e9)
    measure("std_axis0_8192",
            lambda: 4 * side * side / timeit(lambda: m.std(axis=0), sync, 10) / 1e9)
    measure("argmax_axis1_8192",
            lambda: 4 * side * side / timeit(lambda: m.argmax(axis=1), sync, 10) / 1e9)
    measure("sum_axis1_8192",
            lambda: 4 * side * side / timeit(lambda: m.sum(axis=1), sync, 10) / 1e9)
    k = 512 if quick else 2048
    e1 = xp.asarray(rng.standard_normal((k, k)).astype(np.float32))
    measure("einsum_ij_jk_2048",
            lambda: 2 * k ** 3 / timeit(lambda: xp.einsum("ij,jk->ik", e1, e1), sync, 10) / 1e12)
    batch = 1000 if quick else 10000
    mats = xp.asarray(rng.standard_normal((batch, 16, 16)).astype(np.float32) + 8 * np.eye(16, dtype=np.float32))
    rhs = xp.asarray(rng.standard_normal((batch, 16, 1)).astype(np.float32))
    measure("batched_matmul_10000x16",
            lambda: batch / timeit(lambda: mats @ mats, sync, 20) / 1e9)
    measure("batched_solve_10000x16",
            lambda: batch / timeit(lambda: xp.linalg.solve(mats, rhs), sync, 10) / 1e9)
    measure("batched_inv_10000x16",
            lambda: batch / timeit(lambda: xp.linalg.inv(mats), sync, 10) / 1e9)
    fs = 1024 if quick else 4096
    img = xp.asarray((rng.standard_normal((fs, fs)) + 1j * rng.standard_normal((fs, fs))).astype(np.complex64))
    measure("fft2_c64_4096", lambda: fs * fs / timeit(lambda: xp.fft.fft2(img), sync, 10) / 1e9)
    nr = 1 << (24 if quick else 28)
    normal = (np.random.default_rng(0).standard_normal if xp is np
              else xp.random.standard_normal)
    measure("normal_f32_2^28",
            lambda: nr / timeit(lambda: normal(nr, dtype=np.float32), sync, 5) / 1e9)
    idx = xp.asarray(rng.integers(0, big, big))
    target = xp.zeros(big, dtype=xp.float32)

    def setitem():
        target[idx] = x
    measure("setitem_idx_2^24", lambda: big / timeit(setitem, sync, 10) / 1e9)
    rows = xp.asarray(rng.standard_normal((side // 2, side // 2)).astype(np.float32))
    order = xp.argsort(rows, axis=1)
    measure("take_along_axis_4096",
            lambda: n_sq / timeit(lambda: xp.take_along_axis(rows, order, axis=1), sync, 10) / 1e9)
    measure("argsort_axis1_4096",
            lambda: n_sq / timeit(lambda: xp.argsort(rows, axis=1), sync, 5) / 1e9)
    measure("partition_2^24",
            lambda: big / timeit(lambda: xp.partition(x, big // 2), sync, 5) / 1e9)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--only", default="", help="comma-separated parts of workload keys")
    parser.add_argument("--json", default="")
    parser.add_argument("--no-cupy", action="store_true")
    parser.add_argument("--against", choices=("cupy", "numpy"), default="cupy",
                        help="the reference: CuPy on the GPU, NumPy for the CPU backend")
    args = parser.parse_args()
    only = [o for o in args.only.split(",") if o]
    results = run_both(workloads, args.address, args.quick, only, args.no_cupy, args.against)
    ref = "CuPy" if args.against == "cupy" else "NumPy"
    # us/call: each library's time per call (client: the part spent issuing
    # the calls before the sync; where it is most of the call, the row
    # measures the client, not the device).
    print(f"| workload | unit | {ref} | arrayd | ratio | {ref} us/call (client) "
          f"| arrayd us/call (client) |\n|---|---|---|---|---|---|---|")
    nan = float("nan")
    for key, unit, higher in ROWS:
        a, c = results["arrayd"].get(key), results["cupy"].get(key)
        if a is None:
            continue
        ratio = (a / c if higher else c / a) if c else nan
        ca, cc = results["arrayd"], results["cupy"]
        print(f"| {key} | {unit} | {c if c is not None else nan:.3g} | {a:.3g} | {ratio:.2f}x "
              f"| {cc.get(key + ':us', nan):.0f} ({cc.get(key + ':client_us', nan):.0f}) "
              f"| {ca.get(key + ':us', nan):.0f} ({ca.get(key + ':client_us', nan):.0f}) |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
