"""Fused elementwise chains: a chain of ufuncs whose temporaries the client
drops runs as one fused op on the server (session/fusion_plan.h). Results
must be those of the same chain unfused (its temporaries held), bit for bit,
with NumPy's dtypes and layouts, for every kind of operand."""
from __future__ import annotations

import tempfile

import arrayd as ad
import numpy as np
import pytest
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


# (reduction, kwargs) pairs: each reduces a chain's value, fused, and the
# same chain with its temporaries held, unfused.
REDUCTIONS = [
    ("sum", {}), ("sum", {"axis": 0}), ("sum", {"axis": -1, "keepdims": True}),
    ("prod", {"axis": 1}), ("mean", {}), ("mean", {"axis": (0,)}),
    ("max", {"axis": 0}), ("min", {}), ("all", {"axis": 1}), ("any", {}),
    ("sum", {"dtype": np.float64}),
]


def reduce_chain(a, b, name, kw):
    return getattr(a * b - a, name)(**kw)


def held_reduce_chain(a, b, name, kw):
    t1 = a * b
    t2 = t1 - a
    r = getattr(t2, name)(**kw)
    r.get()
    return r, (t1, t2)


REDUCE_CASES = [
    ("float32", (257, 300), (257, 300)),
    ("float64", (40, 1), (1, 33)),      # the value is broadcast both ways
    ("float16", (64, 70), (70,)),
    ("int32", (6, 7), ()),              # a 0-d operand
    ("complex64", (9, 16), (9, 16)),
    ("uint8", (5, 300), (5, 300)),
]


@pytest.mark.parametrize("dtype,sa,sb", REDUCE_CASES, ids=[c[0] for c in REDUCE_CASES])
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # as NumPy's
@pytest.mark.parametrize("name,kw", REDUCTIONS, ids=[f"{r}{k}" for r, k in REDUCTIONS])
def test_a_fused_reduction_is_the_unfused_one_bit_for_bit(dtype, sa, sb, name, kw):
    if dtype == "complex64" and name in ("max", "min"):
        pytest.skip("complex max and min order as NumPy's, tested elsewhere")
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(sa) * 3).astype(dtype)
    y = (rng.standard_normal(sb) * 3).astype(dtype)
    a, b = ad.asarray(x), ad.asarray(y)
    fused = reduce_chain(a, b, name, kw)
    unfused, _ = held_reduce_chain(a, b, name, kw)
    got, want = fused.get(), unfused.get()
    with np.errstate(all="ignore"):
        expect = getattr(x * y - x, name)(**kw)
    assert got.dtype == want.dtype == np.asarray(expect).dtype
    assert got.shape == want.shape == np.shape(expect)
    np.testing.assert_array_equal(np.atleast_1d(got).view(np.uint8), np.atleast_1d(want).view(np.uint8))
    if dtype in ("float16", "uint8") and name == "prod":
        return  # overflow: the comparison above is the one that matters
    tol = {"float16": 2e-2, "float32": 1e-4, "complex64": 1e-4}.get(dtype, 1e-10)
    np.testing.assert_allclose(got, expect, rtol=tol, atol=tol * np.abs(expect).max())


def test_fused_reductions_of_views_and_f_order_follow_numpy():
    x = np.asfortranarray(np.arange(1.0, 25.0).reshape(4, 6))
    a = ad.asarray(x)
    check((a * a + 1).sum(axis=0), (x * x + 1).sum(axis=0))
    check((a * a + 1).sum(axis=1), (x * x + 1).sum(axis=1))
    t = ad.asarray(np.arange(30.0).reshape(5, 6))[::2, 1::2].T
    tn = np.arange(30.0).reshape(5, 6)[::2, 1::2].T
    check(ad.exp(t * -0.1).max(axis=1), np.exp(tn * -0.1).max(axis=1))
    check(ad.var(t, axis=0), np.var(tn, axis=0))
    check(ad.std(a, axis=1), np.std(x, axis=1))
    # A reduction over nothing, and an empty value.
    e = ad.zeros((0, 3))
    check((e * 2 + 1).sum(axis=0), np.zeros(3))
    with pytest.raises(ValueError, match="zero-size array"):
        (e * 2).max(axis=0).get()
    check((a * 2).sum(axis=()), (x * 2).sum(axis=()))


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
            s2 = ad.connect(address, default=False)
            with s2:
                d = ad.asarray(np.linspace(0, 1, 4096, dtype=np.float32))
                total = [float(((d - 0.5) * (d - 0.5)).sum()) for _ in range(5)]
                dn = np.linspace(0, 1, 4096, dtype=np.float32)
                np.testing.assert_allclose(total, [((dn - 0.5) ** 2).sum()] * 5, rtol=1e-5)
                counts = scrape(port)
            s2.close()
            # The chain and its sum are one op, and nothing is materialized.
            assert value(counts, "arrayd_ops_total", op="fused_reduction") == 5
            assert value(counts, "arrayd_ops_total", op="sum") == 5
        finally:
            proc.terminate()
            proc.wait(10)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "int32"])
def test_a_square_power_is_numpys_square(dtype):
    # NumPy computes x ** 2 of an inexact array as square(x): bit for bit.
    x = (np.random.default_rng(3).standard_normal(5000) * 7).astype(dtype)
    a = ad.asarray(x)
    for e in (2, 2.0):
        got, want = (a ** e).get(), x ** e
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    check(a ** 3, x ** 3)
    np.testing.assert_array_equal(((a - 1) ** 2).sum().get(), ((a - 1) ** 2).sum().get())
