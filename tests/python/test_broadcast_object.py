"""arrayd's broadcast object against numpy.broadcast: attributes, iteration
(tuples of NumPy scalars), iters sharing positions with the object, reset,
nested broadcast objects, and NumPy's errors."""
from __future__ import annotations

import arrayd as ad
import numpy as np
import pytest
from arrayd._broadcast import broadcast
from helpers import ALL_DTYPES, ids, sample

SHAPES = [
    [], [()], [(3,)], [(1,), (1,)], [(2,), (2,)], [(3,), (2, 3)],
    [(2, 1), (1, 3)], [(4, 1, 2), (3, 1), ()], [(0,), (1,)],
    [(2, 0, 3), (1, 3)], [(1, 1), (5,), (2, 1, 1)],
]


def inputs(shapes, dtype="i8"):
    host = [sample(dtype, s, seed=k) for k, s in enumerate(shapes)]
    return host, [ad.asarray(h) for h in host]


def same_attributes(got, exp):
    assert got.shape == exp.shape
    assert got.size == exp.size
    assert got.nd == exp.nd and got.ndim == exp.ndim
    assert got.numiter == exp.numiter
    assert got.index == exp.index


def same_elements(got, exp):
    assert len(got) == len(exp)
    for g, e in zip(got, exp):
        assert type(g) is tuple and len(g) == len(e)
        for gv, ev in zip(g, e):
            assert type(gv) is type(ev), (type(gv), type(ev))
            assert gv == ev or (np.isnan(gv) and np.isnan(ev))


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_attributes(shapes):
    host, dev = inputs(shapes)
    same_attributes(broadcast(*dev), np.broadcast(*host))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("shapes", [[(3,), (2, 3)], [(2, 1), (1, 3), ()]],
                         ids=str)
def test_iteration(dt, shapes):
    host, dev = inputs(shapes, dt)
    got, exp = broadcast(*dev), np.broadcast(*host)
    same_elements(list(got), list(exp))
    same_attributes(got, exp)
    with pytest.raises(StopIteration):
        next(got)


def test_scalars_lists_and_numpy_inputs():
    args = (1, 2.5, [1j, 2], np.float32(3), np.arange(2, dtype="u1"))
    got, exp = broadcast(*args), np.broadcast(*args)
    same_attributes(got, exp)
    same_elements(list(got), list(exp))


def test_no_arguments():
    got, exp = broadcast(), np.broadcast()
    same_attributes(got, exp)
    assert list(got) == list(exp) == [()]
    assert got.iters == ()


def test_iters_share_positions_with_the_object():
    host, dev = inputs([(3,), (2, 3)])
    got, exp = broadcast(*dev), np.broadcast(*host)
    assert got.iters[0] is got.iters[0]
    assert isinstance(got.iters, tuple) and len(got.iters) == 2
    for b in (got, exp):
        next(b)
        next(b)
    assert got.index == exp.index == 2
    assert next(got.iters[0]) == next(exp.iters[0])
    assert got.iters[0].index == exp.iters[0].index == 3
    assert got.index == exp.index == 2
    # The first input's iterator is one ahead now, in both.
    assert next(got) == next(exp)
    got.reset()
    exp.reset()
    assert got.index == 0 and [it.index for it in got.iters] == [0, 0]
    assert next(got.iters[1]) == next(exp.iters[1])
    assert next(got) == next(exp)


def test_iter_protocol():
    host, dev = inputs([(2, 1), (1, 3)])
    it, eit = broadcast(*dev).iters[0], np.broadcast(*host).iters[0]
    assert len(it) == len(eit) == 6
    assert it.base is dev[0]
    assert it.coords == (0, 0)
    assert list(it) == list(eit)
    assert it.index == 6 and it.coords == (2, 0)
    with pytest.raises(StopIteration):
        next(it)
    one = broadcast(ad.arange(3)).iters[0]
    eone = np.broadcast(np.arange(3)).iters[0]
    for _ in range(3):
        assert one.coords == eone.coords
        assert next(one) == next(eone)
    assert one.coords == eone.coords == (3,)


def test_iter_indexing_and_copy():
    host, dev = inputs([(4,), ()])
    b, e = broadcast(*dev), np.broadcast(*host)
    for k in range(2):
        for i in (0, 3, -1):
            assert b.iters[k][i].get() == e.iters[k][i]
    np.testing.assert_array_equal(b.iters[1][1:3].get(),
                                  np.broadcast_to(host[1], (4,))[1:3])
    np.testing.assert_array_equal(b.iters[1].copy().get(), e.iters[1].copy())
    with pytest.raises(IndexError):
        b.iters[0][4]


def test_nested_broadcast_objects():
    host, dev = inputs([(3,), (2, 3), (2, 1)])
    got = broadcast(broadcast(dev[0], dev[1]), dev[2])
    exp = np.broadcast(np.broadcast(host[0], host[1]), host[2])
    same_attributes(got, exp)
    same_elements(list(got), list(exp))
    got = broadcast(np.broadcast(host[0], host[1]), dev[2])
    exp.reset()
    same_attributes(got, exp)
    same_elements(list(got), list(exp))


def test_one_fetch_per_iteration(monkeypatch, session):
    _, dev = inputs([(3,), (2, 3)])
    b = broadcast(*dev)
    calls = []
    real = type(session).fetch

    def counting(self, handles, *args, **kw):
        calls.append(len(handles))
        return real(self, handles, *args, **kw)

    monkeypatch.setattr(type(session), "fetch", counting)
    assert b.shape == (2, 3) and b.size == 6 and calls == []
    list(b)
    b.reset()
    list(b)
    assert calls == [2]


@pytest.mark.parametrize("shapes", [[(3,), (2,)], [(3, 2), (2, 3)],
                                    [(3, 2), (3, 4)], [(0,), (2,)]], ids=str)
def test_shape_mismatch(shapes):
    host, dev = inputs(shapes)
    with pytest.raises(ValueError) as exp:
        np.broadcast(*host)
    with pytest.raises(ValueError) as got:
        broadcast(*dev)
    assert str(got.value) == str(exp.value)


def test_at_most_64_arrays():
    assert broadcast(*[0] * 64).numiter == np.broadcast(*[0] * 64).numiter
    for args in ([0] * 65, [broadcast(*[0] * 32), *[0] * 33]):
        with pytest.raises(ValueError, match="at most 64 array objects"):
            broadcast(*args)
    with pytest.raises(ValueError, match="at most 64 array objects"):
        np.broadcast(*[0] * 65)
