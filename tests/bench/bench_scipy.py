#!/usr/bin/env python3
"""arrayd.scipy against cupyx.scipy (or SciPy for the CPU backend): the
workloads of issue 18, same GPU, one run.

    python3 tests/bench/bench_scipy.py --address unix:/tmp/arrayd.sock [--quick] [--only sosfilt]
    python3 tests/bench/bench_scipy.py --address ... --against scipy   # CPU backend vs SciPy

Each row prints both libraries' rate (higher is better: Melem/s of the
input) and arrayd/reference. Not a test: run it on the GPU machine and
record the table in RESULTS.md.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import scipy.signal as host_signal  # filter design: the coefficients, on the host

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_vs_cupy import LAST_TIMING, timeit

ROWS = [
    "fftconvolve_2^22_by_2^12",
    "gaussian_filter_4096^2_sigma4",
    "median_filter_3x3_4096^2",
    "sosfilt_2^24_order8",
    "zoom_x2_2048^2",
    "label_4096^2",
    "erf_f32_2^26",
    "gammaln_f32_2^26",
    # Further rows off the issue's list: the same modules' other hot paths.
    "lfilter_2^24_order4",
    "uniform_filter_9x9_4096^2",
    "maximum_filter_5x5_4096^2",
    "convolve2d_2048^2_by_15^2",
    "binary_erosion_4096^2",
    "map_coordinates_2048^2",
    "welch_2^24",
    "resample_poly_2^22_up3_down2",
    "distance_transform_edt_2048^2",
    "j0_f32_2^26",
    "logsumexp_4096^2_axis1",
]


def workloads(xp, sp, sync, quick: bool, only: list[str]) -> dict[str, float]:
    """Melem/s of the input per workload, with array module xp and SciPy
    namespace sp (arrayd.scipy, cupyx.scipy or scipy)."""
    out: dict[str, float] = {}
    rng = np.random.default_rng(0)
    q = 4 if quick else 1  # --quick: sides a quarter, lengths a sixteenth

    def measure(key, elems, fn, repeat=5):
        if only and not any(o in key for o in only):
            return
        LAST_TIMING.update(call=float("nan"), client=float("nan"))
        try:
            out[key] = elems / timeit(fn, sync, repeat) / 1e6
        except Exception as e:  # noqa: BLE001 - a benchmark reports and goes on
            print(f"{xp.__name__}: {key} failed: {type(e).__name__}: {e}", file=sys.stderr)
            out[key] = float("nan")
        out[key + ":us"] = LAST_TIMING["call"] * 1e6

    def f32(*shape):
        return xp.asarray(rng.standard_normal(shape).astype(np.float32))

    signal, ndimage, special = sp.signal, sp.ndimage, sp.special
    n = (1 << 22) // (q * q)
    sig, taps = f32(n), f32(1 << 12)
    measure("fftconvolve_2^22_by_2^12", n, lambda: signal.fftconvolve(sig, taps))
    side = 4096 // q
    img = f32(side, side)
    measure("gaussian_filter_4096^2_sigma4", side * side,
            lambda: ndimage.gaussian_filter(img, 4))
    measure("median_filter_3x3_4096^2", side * side, lambda: ndimage.median_filter(img, 3))
    measure("uniform_filter_9x9_4096^2", side * side, lambda: ndimage.uniform_filter(img, 9))
    measure("maximum_filter_5x5_4096^2", side * side, lambda: ndimage.maximum_filter(img, 5))
    mask = img > 0.5
    measure("label_4096^2", side * side, lambda: ndimage.label(mask), repeat=2)
    measure("binary_erosion_4096^2", side * side, lambda: ndimage.binary_erosion(mask))
    long = (1 << 24) // (q * q)
    x = xp.asarray(rng.standard_normal(long))
    sos = host_signal.butter(8, 0.125, output="sos")
    measure("sosfilt_2^24_order8", long, lambda: signal.sosfilt(xp.asarray(sos), x), repeat=2)
    b, a = host_signal.butter(4, 0.2)
    measure("lfilter_2^24_order4", long,
            lambda: signal.lfilter(xp.asarray(b), xp.asarray(a), x), repeat=2)
    measure("welch_2^24", long, lambda: signal.welch(x, nperseg=1024))
    short = (1 << 22) // (q * q)
    measure("resample_poly_2^22_up3_down2", short,
            lambda: signal.resample_poly(x[:short], 3, 2))
    zs = 2048 // q
    zimg = f32(zs, zs)
    measure("zoom_x2_2048^2", zs * zs, lambda: ndimage.zoom(zimg, 2, order=3), repeat=2)
    coords = xp.asarray(rng.uniform(0, zs - 1, (2, zs, zs)).astype(np.float32))
    measure("map_coordinates_2048^2", zs * zs,
            lambda: ndimage.map_coordinates(zimg, coords, order=1))
    measure("distance_transform_edt_2048^2", zs * zs,
            lambda: ndimage.distance_transform_edt(zimg > 0), repeat=2)
    k = f32(15, 15)
    measure("convolve2d_2048^2_by_15^2", zs * zs,
            lambda: signal.convolve2d(zimg, k, mode="same"), repeat=2)
    e = (1 << 26) // (q * q)
    u = f32(e)
    measure("erf_f32_2^26", e, lambda: special.erf(u), repeat=10)
    pos = xp.abs(u) + 0.5
    measure("gammaln_f32_2^26", e, lambda: special.gammaln(pos), repeat=10)
    measure("j0_f32_2^26", e, lambda: special.j0(u), repeat=10)
    measure("logsumexp_4096^2_axis1", side * side, lambda: special.logsumexp(img, axis=1))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--only", default="", help="comma-separated parts of workload keys")
    parser.add_argument("--json", default="")
    parser.add_argument("--against", choices=("cupy", "scipy", "none"), default="cupy",
                        help="the reference: cupyx.scipy on the GPU, SciPy for the CPU backend")
    args = parser.parse_args()
    only = [o for o in args.only.split(",") if o]
    import arrayd as ad
    import arrayd.scipy
    import arrayd.scipy.ndimage
    import arrayd.scipy.signal
    import arrayd.scipy.special
    ad.connect(args.address)
    results = {"arrayd": workloads(ad, ad.scipy, ad.synchronize, args.quick, only), "ref": {}}
    ad.disconnect()
    if args.against == "cupy":
        import cupy as cp
        import cupyx.scipy.ndimage
        import cupyx.scipy.signal
        import cupyx.scipy.special
        results["ref"] = workloads(cp, cupyx.scipy, cp.cuda.Device().synchronize,
                                   args.quick, only)
    elif args.against == "scipy":
        import scipy.ndimage
        import scipy.signal
        import scipy.special
        results["ref"] = workloads(np, scipy, lambda: None, args.quick, only)
    ref = {"cupy": "cupyx.scipy", "scipy": "SciPy", "none": "-"}[args.against]
    nan = float("nan")
    print(f"| workload | {ref} Melem/s | arrayd Melem/s | ratio | {ref} us/call "
          f"| arrayd us/call |\n|---|---|---|---|---|---|")
    for key in ROWS:
        a, c = results["arrayd"].get(key), results["ref"].get(key, nan)
        if a is None:
            continue
        print(f"| {key} | {c:.4g} | {a:.4g} | {a / c if c else nan:.2f}x "
              f"| {results['ref'].get(key + ':us', nan):.0f} "
              f"| {results['arrayd'].get(key + ':us', nan):.0f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
