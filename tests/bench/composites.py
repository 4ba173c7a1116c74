#!/usr/bin/env python3
"""The composites that are server ops: pinv, lstsq, matrix_rank, norm,
matrix_power, eigvals, random integers/poisson/permutation/exponential/
normal/uniform/shuffle/choice, and fft hfft/ihfft/fftfreq/fftshift, one
call and its sync each.

    python3 tests/bench/composites.py [--address ADDR] [--before DIR]

Microseconds per call (a call then .get() of its result, or the rank for
lstsq): the best of --rounds medians of --reps calls, rounds alternating
between the columns; and the ops the client recorded per call. With --before
DIR, the same calls through an earlier client's own composites, on the
same server: DIR holds that client's _decompositions.py,
random/__init__.py (as __init__.py) and, optionally, fft/__init__.py (as
fft.py) (e.g. `git show 1f87eaa:client-python/arrayd/...`), loaded beside
the current package; its random draws are re-pointed at the current
client's _draw (the server no longer takes `key`), so the streams and the
ops after them are the earlier client's. Calls the earlier client cannot
make on this server (eigvals of real input: the server's eig now decides
the dtype) are measured now only. Not a test.
"""
from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))

import arrayd as ad  # noqa: E402
from arrayd import random as adr  # noqa: E402


def load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def median_us(fn: Callable[[], Any], reps: int) -> float:
    fn()
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def ops_per_call(session: Any, fn: Callable[[], Any]) -> int:
    """The ops one call records (the session's record() counted)."""
    count = 0
    record = session.record

    def counting(*args: Any, **kw: Any) -> Any:
        nonlocal count
        count += 1
        return record(*args, **kw)

    session.record = counting
    try:
        fn()
    finally:
        session.record = record
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=None)
    parser.add_argument("--before", type=Path, default=None)
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="",
                        help="only the calls whose name contains this")
    args = parser.parse_args()
    s = ad.connect(args.address)
    rng = np.random.default_rng(0)
    a = ad.asarray(rng.standard_normal((64, 32)))
    b = ad.asarray(rng.standard_normal(64))
    v = ad.asarray(rng.standard_normal(4096))
    stack = ad.asarray(rng.standard_normal((16, 8, 8)))
    square = ad.asarray(rng.standard_normal((32, 32)))
    grid = ad.asarray(rng.standard_normal((64, 64)))
    x = ad.arange(4096)
    p1000 = rng.random(1000)
    p1000 /= p1000.sum()

    def shuffle(gen: Any) -> None:
        gen.shuffle(x)
        s.synchronize()

    def calls(la: Any, gen: Any, ft: Any) -> dict[str, Callable[[], Any]]:
        return {
            "pinv (64, 32)": lambda: la.pinv(a).get(),
            "lstsq (64, 32), (64,)": lambda: la.lstsq(a, b)[2],
            "matrix_rank (16, 8, 8)": lambda: la.matrix_rank(stack).get(),
            "norm 4096, ord 3": lambda: la.norm(v, 3).get(),
            "norm (64, 32), 'nuc'": lambda: la.norm(a, "nuc").get(),
            "norm (16, 8, 8), ord 1, axes (1, 2)":
                lambda: la.norm(stack, 1, (1, 2)).get(),
            "integers 2^16 in [0, 100)":
                lambda: gen.integers(0, 100, 1 << 16).get(),
            "integers 1000 in [-2^62, 2^62)":
                lambda: gen.integers(-(1 << 62), 1 << 62, 1000).get(),
            "poisson 2^16, lam 4": lambda: gen.poisson(4.0, 1 << 16).get(),
            "permutation 2^16": lambda: gen.permutation(1 << 16).get(),
            "matrix_power (16, 8, 8), 5":
                lambda: la.matrix_power(stack, 5).get(),
            "matrix_power (16, 8, 8), -3":
                lambda: la.matrix_power(stack, -3).get(),
            "eigvals (32, 32)": lambda: la.eigvals(square).get(),
            "exponential 2^16, scale 2":
                lambda: gen.exponential(2.0, 1 << 16).get(),
            "standard_exponential 2^16":
                lambda: gen.standard_exponential(1 << 16).get(),
            "normal 2^16, (1, 2)": lambda: gen.normal(1.0, 2.0, 1 << 16).get(),
            "uniform 2^16, (-1, 3)":
                lambda: gen.uniform(-1.0, 3.0, 1 << 16).get(),
            "shuffle 4096": lambda: shuffle(gen),
            "choice 2^16 of 1000": lambda: gen.choice(1000, 1 << 16).get(),
            "choice 2^16 of 1000, p":
                lambda: gen.choice(1000, 1 << 16, p=p1000).get(),
            "choice 100 of 4096, no replace":
                lambda: gen.choice(4096, 100, replace=False).get(),
            "choice 100 of 1000, p, no replace":
                lambda: gen.choice(1000, 100, replace=False, p=p1000).get(),
            "hfft 4096": lambda: ft.hfft(v).get(),
            "ihfft 4096": lambda: ft.ihfft(v).get(),
            "fftfreq 4096": lambda: ft.fftfreq(4096).get(),
            "fftshift (64, 64)": lambda: ft.fftshift(grid).get(),
            "fftn (64, 64)": lambda: ft.fftn(grid).get(),
            "irfftn (64, 64)": lambda: ft.irfftn(grid).get(),
        }

    now_only = {"eigvals (32, 32)"}
    rows = {"now": calls(ad.linalg, adr.default_rng(1), ad.fft)}
    if args.before is not None:
        old_la = load("arrayd._decompositions_before",
                      args.before / "_decompositions.py")
        old_random = load("arrayd.random_before", args.before / "__init__.py")

        class Before(old_random.Generator):  # type: ignore[name-defined]
            def __init__(self, seed: Any) -> None:
                super().__init__(seed)
                self._now = adr.default_rng(seed)

            def _draw(self, *a: Any, **kw: Any) -> Any:
                return self._now._draw(*a, **kw)

        old_fft = (load("arrayd.fft_before", args.before / "fft.py")
                   if (args.before / "fft.py").exists() else ad.fft)
        rows["before"] = calls(old_la, Before(1), old_fft)
    names = [n for n in rows["now"] if args.only in n]
    cols = list(rows)
    print("| call | " + " | ".join(f"{c} (us) | {c} (ops)" for c in cols) + " |")
    print("|---" * (1 + 2 * len(cols)) + "|")
    for name in names:
        # Rounds alternate between the columns; the best round's median
        # counts (a shared machine's noise only adds time).
        run = [c for c in cols if c == "now" or name not in now_only]
        best = {c: float("inf") for c in run}
        for _ in range(args.rounds):
            for c in run:
                best[c] = min(best[c], median_us(rows[c][name], args.reps))
        cells = []
        for c in cols:
            if c not in run:
                cells += ["-", "-"]
                continue
            cells.append(f"{best[c]:.0f}")
            cells.append(str(ops_per_call(s, rows[c][name])))
        print(f"| {name} | " + " | ".join(cells) + " |")
    ad.disconnect()


if __name__ == "__main__":
    main()
