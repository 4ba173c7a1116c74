"""ndarray's NumPy-facing API beyond layout: get(order=, out=), tobytes,
shape assignment, view(type), flat iteration, object comparisons,
ComplexWarning, argmin/argmax dtype=, dot(out=) checks."""
from __future__ import annotations

import warnings

import arrayd as ad
import numpy as np
import pytest


def test_get_order_and_out():
    n = np.arange(6.0).reshape(2, 3)
    x = ad.asarray(n)
    f = x.get(order="F")
    assert f.flags.f_contiguous and np.array_equal(f, n)
    assert x.T.get(order="A").flags.f_contiguous
    out = np.empty((2, 3))
    assert x.get(out=out) is out and np.array_equal(out, n)
    with pytest.raises(ValueError):
        x.get(out=np.empty((3, 2)))
    with pytest.raises(TypeError):
        x.get(out=[0] * 6)
    assert x.tobytes() == n.tobytes()
    assert x.T.tobytes("F") == n.T.tobytes("F")


def test_shape_assignment_is_in_place_and_refuses_copies():
    x = ad.arange(6)
    v = x
    x.shape = (2, 3)
    assert v.shape == (2, 3) and x[1, 2].get() == 5
    t = x.T
    with pytest.raises(AttributeError):
        t.shape = (6,)
    with pytest.raises(ValueError):
        x.shape = (4,)


def test_view_as_subclass():
    class Sub(ad.ndarray):
        pass

    x = ad.arange(3.0)
    s = x.view(Sub)
    assert type(s) is Sub and s.base is x
    np.testing.assert_array_equal(s.get(), [0, 1, 2])
    s[0] = 7
    assert x[0].get() == 7


def test_flat_iterator_protocol():
    n = np.arange(6).reshape(2, 3)
    it = ad.asarray(n).flat
    assert iter(it) is it
    assert next(it) == 0 and it.index == 1
    assert list(it) == [1, 2, 3, 4, 5]
    with pytest.raises(IndexError):
        ad.asarray(n).flat[None]
    assert int(ad.asarray(n).flat[(4,)]) == 4


@pytest.mark.parametrize("value", [None, Ellipsis, object()])
def test_comparison_with_objects(value):
    n = np.array([[1, 2, 3], [4, 5, 6]])
    x = ad.asarray(n)
    for got, want in ((x == value, n == value), (x != value, n != value),
                      (value == x, value == n)):
        assert isinstance(got, ad.ndarray)
        np.testing.assert_array_equal(got.get(), want)


def test_complex_warning_on_complex_to_real_casts():
    z = ad.asarray(np.array([1 + 2j, 3 - 1j]))
    with pytest.warns(np.exceptions.ComplexWarning):
        r = z.astype(np.float64)
    np.testing.assert_array_equal(r.get(), [1.0, 3.0])
    target = ad.zeros(2)
    with pytest.warns(np.exceptions.ComplexWarning):
        target[...] = z
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(z.astype(bool).get(), [True, True])


def test_argminmax_dtype():
    x = ad.asarray(np.array([[3, 1], [0, 5]]))
    r = ad.argmax(x, dtype=np.int8)
    assert r.dtype == np.int8 and int(r) == 3
    assert x.argmin(axis=1, dtype=np.int16).dtype == np.int16
    with pytest.raises(TypeError):
        x.argmax(dtype=np.float32)


def test_dot_out_must_be_exact():
    a = ad.ones((2, 3))
    b = ad.ones((3, 4))
    out = ad.empty((2, 4))
    assert ad.dot(a, b, out=out) is out
    np.testing.assert_array_equal(out.get(), np.full((2, 4), 3.0))
    for bad in (ad.empty((2, 4), np.float32), ad.empty((4, 2)).T,
                ad.empty((2, 5))):
        with pytest.raises(ValueError, match="not acceptable"):
            ad.dot(a, b, out=bad)
