"""Fused elementwise chains: a chain of ufuncs whose temporaries the client
drops runs as one fused op on the server (session/fusion_plan.h). Results
must be those of the same chain unfused (its temporaries held), bit for bit,
with NumPy's dtypes and layouts, for every kind of operand."""
from __future__ import annotations

import tempfile

import numpy as np
import pytest

import arrayd as ad
from arrayd import _session
from helpers import check
from test_metrics import _start, scrape, value


def chain(xp, a, b):
    return 2 * a + 3 * a * b - 1


def held_chain(xp, a, b):
    # The same ops with every temporary kept alive until the end: unfused.
    t1 = 2 * a
    t2 = 3 * a
    t3 = t2 * b
    t4 = t1 + t3
    r = t4 - 1
    r.get()
    return r, (t1, t2, t3, t4)


CASES = [
    ("float32", (1000,), (1000,)),
    ("float16", (64, 33), (64, 33)),
    ("float64", (7, 1), (1, 9)),       # broadcast both ways
    ("int32", (5, 6), (6,)),
    ("uint8", (300,), ()),             # a 0-d operand
    ("complex64", (4, 5), (4, 5)),
    ("bool", (17,), (17,)),
]


@pytest.mark.parametrize("dtype,sa,sb", CASES, ids=[c[0] for c in CASES])
def test_a_fused_chain_is_the_unfused_chain_bit_for_bit(dtype, sa, sb):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(sa) * 10).astype(dtype)
    y = (rng.standard_normal(sb) * 10).astype(dtype)
    a, b = ad.asarray(x), ad.asarray(y)
    fused = chain(ad, a, b)
    unfused, _ = held_chain(ad, a, b)
    got, want = fused.get(), unfused.get()
    assert got.dtype == want.dtype == chain(np, x, y).dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    check(fused, chain(np, x, y))


def test_layouts_and_views_follow_numpy():
    x = np.asfortranarray(np.arange(24.0).reshape(4, 6))
    a = ad.asarray(x)
    r = ad.sqrt(a * a + 1) - a
    e = np.sqrt(x * x + 1) - x
    assert r.strides == e.strides and r.flags.f_contiguous
    check(r, e)
    s = ad.asarray(np.arange(40.0))[::3]
    check(ad.exp(-(s * s)) * 2, np.exp(-(np.arange(40.0)[::3] ** 2)) * 2)
    t = ad.asarray(np.arange(12.0).reshape(3, 4)).T
    check((t + 1) * (t - 1), (np.arange(12.0).reshape(3, 4).T + 1) * (np.arange(12.0).reshape(3, 4).T - 1))


def test_out_and_dtype_and_comparisons():
    x = np.linspace(-3, 3, 50, dtype=np.float32)
    a = ad.asarray(x)
    out = ad.zeros(50, dtype=np.float64)
    ad.add(a * 2, 1, out=out)
    check(out, np.add(x * 2, 1, out=np.zeros(50)))
    check(ad.multiply(a + 1, a, dtype=np.float64) - 1, np.multiply(x + 1, x, dtype=np.float64) - 1)
    check(ad.logical_and(a > 0, a < 2) | (a == -3), np.logical_and(x > 0, x < 2) | (x == -3))
    i = ad.arange(20)
    check((i * i) % 7 + (i // 3), (np.arange(20) ** 2) % 7 + np.arange(20) // 3)


def test_in_place_updates_between_reads_keep_their_order():
    x = np.arange(10.0)
    a = ad.asarray(x)
    t = a * 2          # reads a
    a += 100           # then a changes
    r = t + a          # t is the old a times 2
    del t
    check(r, x * 2 + (x + 100))


def test_a_failing_step_raises_numpys_error():
    a = ad.ones(5)
    b = ad.ones(3)
    with pytest.raises(ValueError, match="broadcast"):
        ((a * 2) + b).get()
    i = ad.arange(5)
    with pytest.raises(ValueError, match="negative integer powers"):
        ((i + 1) ** -i).get()
    with pytest.raises(TypeError):
        ad.bitwise_and(ad.ones(3) * 2, 1).get()
    check(ad.arange(3) * 2 + 1, np.arange(3) * 2 + 1)  # the session goes on


def test_python_chains_run_fused_on_the_server(monkeypatch):
    # A server of our own to read its op counts. The flusher waits long
    # enough that each chain and its frees go in one message (the sync
    # sends them), as they do when the client is not starved of CPU.
    monkeypatch.setattr(_session, "_FLUSH_DELAY_S", 30.0)
    with tempfile.TemporaryDirectory() as tmp:
        proc, address, port = _start(tmp)
        try:
            s = ad.connect(address, default=False)
            with s:
                c = ad.asarray(np.linspace(0, 1, 4096, dtype=np.float32))
                for _ in range(10):
                    r = 2 * c + 3 * c * c - 1
                cn = np.linspace(0, 1, 4096, dtype=np.float32)
                np.testing.assert_array_equal(r.get(), 2 * cn + 3 * cn * cn - 1)
                counts = scrape(port)
            s.close()
            # Each chain is one fused op.
            assert value(counts, "arrayd_ops_total", op="fused_elementwise") == 10
            assert value(counts, "arrayd_ops_total", op="multiply") == 30
        finally:
            proc.terminate()
            proc.wait(10)
