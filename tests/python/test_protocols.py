"""NumPy protocols (__array_ufunc__, __array_function__), the Array API
namespace, pickling, iteration, and NumPy's dtype helpers."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import arrayd as ad
from helpers import check, sample


def test_array_ufunc_call_reduce_accumulate_outer():
    x = sample("f4", (3, 4), 1)
    y = sample("i2", (4,), 2)
    a, b = ad.asarray(x), ad.asarray(y)
    check(np.add(a, b), np.add(x, y))
    check(np.multiply(a, y), np.multiply(x, y))       # numpy operand
    check(y - a, y - x)                                # numpy on the left
    check(np.exp(a), np.exp(x))
    check(np.add.reduce(a), np.add.reduce(x))
    check(np.add.reduce(a, axis=1, keepdims=True),
          np.add.reduce(x, axis=1, keepdims=True))
    check(np.maximum.reduce(a, axis=None), np.maximum.reduce(x, axis=None))
    check(np.logical_or.reduce(a > 0), np.logical_or.reduce(x > 0))
    check(np.add.accumulate(b), np.add.accumulate(y))
    check(np.multiply.outer(b, b[:2]), np.multiply.outer(y, y[:2]))
    out = ad.empty((3, 4), "f4")
    assert np.subtract(a, 1, out=out) is out
    check(out, x - 1)
    check(np.add.reduceat(a, [0, 2]), np.add.reduceat(x, [0, 2]))


def test_array_function_dispatch():
    x = sample("f8", (2, 3), 3)
    a = ad.asarray(x)
    for f, args, kw in (
            (np.concatenate, ([a, a],), {"axis": 1}),
            (np.stack, ([a, a],), {}),
            (np.sum, (a,), {"axis": 0}),
            (np.mean, (a,), {}),
            (np.reshape, (a,), {"shape": (3, 2)}),
            (np.transpose, (a,), {}),
            (np.where, (a > 0, a, 0.0), {}),
            (np.take, (a, [1, 0]), {"axis": 1}),
            (np.tile, (a, 2), {}),
            (np.pad, (a, 1), {}),
            (np.diagonal, (a,), {}),
            (np.linalg.norm, (a,), {})):
        nargs = tuple([x if t is a else t for t in v] if isinstance(v, list)
                      else (x if v is a else v) for v in args)
        if f is np.where:
            nargs = (x > 0, x, 0.0)
        got = f(*args, **kw)
        assert isinstance(got, ad.ndarray), f
        check(got, f(*nargs, **kw))
    res = np.split(a, 3, axis=1)
    assert all(isinstance(r, ad.ndarray) for r in res)
    assert not hasattr(ad, "is_busday")
    with pytest.raises(TypeError):      # no silent download
        np.is_busday(a[0])


def test_array_namespace():
    a = ad.arange(3)
    assert a.__array_namespace__() is ad
    assert a.__array_namespace__(api_version="2023.12") is ad
    assert ad.__array_api_version__ == "2023.12"
    with pytest.raises(ValueError):
        a.__array_namespace__(api_version="1999.01")
    xp = a.__array_namespace__()
    check(xp.concat([a, a]), np.concatenate([np.arange(3)] * 2))
    check(xp.permute_dims(xp.reshape(a, (1, 3)), (1, 0)),
          np.arange(3).reshape(3, 1))


def test_pickle_and_copy():
    x = sample("c8", (2, 3), 4)
    a = ad.asarray(x).T
    b = pickle.loads(pickle.dumps(a))
    assert isinstance(b, ad.ndarray) and b.session is ad.current_session()
    check(b, x.T)
    c = copy.copy(a)
    d = copy.deepcopy([a])[0]
    c[0] = 0
    check(a, x.T)
    check(d, x.T)
    e = pickle.loads(pickle.dumps(ad.asarray(np.float16(2.5))))
    check(e, np.asarray(np.float16(2.5)))


def test_iteration():
    x = sample("i4", (3, 2), 5)
    rows = list(ad.asarray(x))
    assert len(rows) == 3
    for r, e in zip(rows, x):
        check(r, e)
    assert list(ad.zeros((0, 2))) == []
    with pytest.raises(TypeError):
        iter(ad.asarray(1.0))


def test_dtype_helpers():
    a8, f4, c8 = ad.zeros(2, "i1"), ad.zeros(2, "f4"), ad.zeros(2, "c8")
    assert ad.result_type(a8, 1) == np.result_type(np.zeros(2, "i1"), 1)
    assert ad.result_type(a8, 1.0) == np.float64 or ad.result_type(
        a8, 1.0) == np.result_type(np.int8, 1.0)
    assert ad.result_type(a8, f4, "u2") == np.result_type("i1", "f4", "u2")
    assert ad.result_type(c8, np.float64) == np.complex128
    assert ad.can_cast(a8, "f4") and not ad.can_cast(f4, "i1")
    assert ad.can_cast(f4, "i1", casting="unsafe")
    assert ad.finfo(f4).eps == np.finfo(np.float32).eps
    assert ad.finfo(c8).dtype == np.float32
    assert ad.iinfo(a8).max == 127
    assert ad.promote_types(a8, "u1") == np.int16
    assert ad.isdtype(f4.dtype, "real floating")
    with pytest.raises(ValueError):
        ad.finfo(a8)
    with pytest.raises(ValueError):
        ad.iinfo(f4)
    with pytest.raises(TypeError):
        ad.can_cast(1, "i1")            # NumPy 2: no Python scalars
    with pytest.raises(TypeError):
        ad.result_type("bogus-dtype")
