#!/usr/bin/env python3
"""Where the time of bench_scipy.py's slow rows goes: each row's whole call
beside the steps it is made of (the padding, the server kernel alone, the
casts), arrayd's steps timed one by one with a sync, CuPy's whole call in
the same run.

    python3 tests/bench/scipy_split.py --address unix:/tmp/arrayd.sock [--quick] [--no-cupy]

Prints us per call. Not a test: a probe for RESULTS.md's notes.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_vs_cupy import timeit


def us(fn, sync, repeat=5) -> float:
    return timeit(fn, sync, repeat) * 1e6


def whole_calls(xp, ndi, special, signal, sync, quick: bool
                ) -> tuple[dict[str, float], dict]:
    """The rows' whole calls with array module xp (arrayd or cupy) and its
    ndimage, special and signal; also the inputs, for the steps."""
    q = 4 if quick else 1
    side = 4096 // q
    rng = np.random.default_rng(0)
    data = {"img": xp.asarray(rng.standard_normal((side, side)).astype(np.float32))}
    img = data["img"]
    small = xp.asarray(rng.standard_normal((side // 2, side // 2)).astype(np.float32))
    data["small"] = small
    x26 = xp.asarray(rng.standard_normal(1 << 26 >> (2 * (q - 1))).astype(np.float32))
    data["mask"] = img > 0.5
    out: dict[str, float] = {}
    out["copy 4096^2 f32 (bandwidth reference)"] = us(lambda: img.copy(), sync)
    out["median 3x3: whole"] = us(lambda: ndi.median_filter(img, 3), sync)
    out["median 3x3: pad (reflect, 1 each side)"] = us(
        lambda: xp.pad(img, 1, mode="symmetric"), sync)
    out["maximum 5x5: whole"] = us(lambda: ndi.maximum_filter(img, 5), sync)
    out["uniform 9x9: whole"] = us(lambda: ndi.uniform_filter(img, 9), sync)
    out["zoom x2 of side/2: whole"] = us(lambda: ndi.zoom(small, 2), sync, 3)
    out["zoom: spline_filter alone"] = us(lambda: ndi.spline_filter(small), sync, 3)
    out["gammaln f32: whole"] = us(lambda: special.gammaln(x26), sync)
    out["erf f32: whole"] = us(lambda: special.erf(x26), sync)
    out["label: whole"] = us(lambda: ndi.label(data["mask"]), sync, 3)
    sig = xp.asarray(rng.standard_normal(1 << 22 >> (2 * (q - 1))).astype(np.float32))
    ker = xp.asarray(rng.standard_normal(1 << 12).astype(np.float32))
    data["sig"], data["ker"] = sig, ker
    out["fftconvolve 2^22 by 2^12: whole"] = us(lambda: signal.fftconvolve(sig, ker), sync)
    import scipy.fft
    n = sig.size + ker.size - 1
    fast = scipy.fft.next_fast_len(n, True)
    data["fshape"] = fast
    out["fftconvolve: rfft of the signal to its padded length"] = us(
        lambda: xp.fft.rfft(sig, fast), sync)
    out["fftconvolve: rfft of the kernel to that length"] = us(
        lambda: xp.fft.rfft(ker, fast), sync)
    spec = xp.fft.rfft(sig, fast)
    spec2 = xp.fft.rfft(ker, fast)
    out["fftconvolve: the product of the spectra"] = us(lambda: spec * spec2, sync)
    prod = spec * spec2
    out["fftconvolve: irfft of the product"] = us(lambda: xp.fft.irfft(prod, fast), sync)
    full = xp.fft.irfft(prod, fast)
    out["fftconvolve: the crop (contiguous copy of [:n])"] = us(
        lambda: xp.ascontiguousarray(full[:n]), sync)
    out["fftconvolve: rfft + rfft + product + irfft + crop, no sync between"] = us(
        lambda: xp.ascontiguousarray(xp.fft.irfft(
            xp.fft.rfft(sig, fast) * xp.fft.rfft(ker, fast), fast)[:n]), sync)
    return out, data


def arrayd_steps(quick: bool) -> dict[str, float]:
    import arrayd as ad
    import arrayd.scipy.ndimage as ndi
    from arrayd.scipy import _kernels as k
    from arrayd.scipy import signal, special
    sync = ad.synchronize
    out, data = whole_calls(ad, ndi, special, signal, sync, quick)
    img = data["img"]
    taps = [(i, j) for i in range(-1, 2) for j in range(-1, 2)]
    out["median 3x3: stencil kernel alone"] = us(
        lambda: k.stencil(img, taps, "symmetric", rank=4), sync)
    out["max 3x3 via stencil rank 8"] = us(lambda: k.stencil(img, taps, "symmetric", rank=8), sync)
    w = np.full(9, 1 / 9, np.float32)
    for axis in (0, 1):
        out[f"uniform 9: axis {axis}, weighted stencil alone"] = us(
            lambda axis=axis: k.stencil(img, [(j - 4, 0) if axis == 0 else (0, j - 4)
                                              for j in range(9)],
                              "symmetric", weights=w), sync)
    out.update(zoom_steps(data["small"], sync))
    out["label: label op alone"] = us(
        lambda: k.label(data["mask"], [(-1, 0), (0, -1)]), sync, 3)
    ad.disconnect()
    return out


def zoom_steps(small, sync) -> dict[str, float]:
    """zoom(small, 2)'s steps, each alone (order 3, mode constant)."""
    import arrayd as ad
    from arrayd.scipy.ndimage import _interpolation as zi
    out: dict[str, float] = {}
    n = small.shape[0]
    c = np.arange(2 * n, dtype=np.float64) * ((n - 1) / (2 * n - 1))
    args = (3, "constant", 0.0)
    out["zoom: astype float64"] = us(lambda: small.astype(np.float64), sync, 3)
    out["zoom: prefilter (astype + 2 spline passes)"] = us(
        lambda: zi._prepare(small, *args, True, [0, 1])[0], sync, 3)
    coeffs = zi._prepare(small, *args, True, [0, 1])[0]
    out["zoom: interp axis 0"] = us(lambda: zi._interp_axis(coeffs, 0, c, *args, []), sync, 3)
    r0 = zi._interp_axis(coeffs, 0, c, *args, [])
    out["zoom: interp axis 1"] = us(lambda: zi._interp_axis(r0, 1, c, *args, []), sync, 3)
    r1 = zi._interp_axis(r0, 1, c, *args, [])
    out["zoom: separable (prefilter + both axes)"] = us(
        lambda: zi._separable(small, [c, c], *args, True), sync, 3)
    out["zoom: finish (float64 -> float32)"] = us(
        lambda: zi._finish(r1, np.dtype(np.float32), None), sync, 3)
    valid = zi._taps(np, c, n, 3, "constant")[2]
    print(f"zoom: all coordinates inside: {bool(valid.all())}", file=sys.stderr)
    del ad
    return out


def cupy_whole(quick: bool) -> dict[str, float]:
    import cupy as cp
    import cupyx.scipy.ndimage as ndi
    from cupyx.scipy import signal, special
    return whole_calls(cp, ndi, special, signal, cp.cuda.Device().synchronize, quick)[0]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--address", required=True)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-cupy", action="store_true")
    args = p.parse_args()
    import arrayd as ad
    ad.connect(args.address)
    a = arrayd_steps(args.quick)
    c = {} if args.no_cupy else cupy_whole(args.quick)
    print("| step | arrayd us | CuPy us |\n|---|---|---|")
    for key, v in a.items():
        print(f"| {key} | {v:.0f} | {c.get(key, float('nan')):.0f} |")


if __name__ == "__main__":
    main()
