"""Type tests, array information and constants, as NumPy (and CuPy's
get_array_module)."""
import numpy as np
import pytest

import arrayd as ad


def test_constants_are_numpys():
    assert (ad.e, ad.pi, ad.inf, ad.euler_gamma) == (np.e, np.pi, np.inf, np.euler_gamma)
    assert np.isnan(ad.nan) and ad.newaxis is None


def test_isscalar_and_array_module():
    x = ad.arange(3)
    for v in (1, 1.5, 2j, True, np.float32(1), "s"):
        assert ad.isscalar(v) == np.isscalar(v)
    assert not ad.isscalar(x) and not ad.isscalar(ad.asarray(1.0))
    assert ad.get_array_module(x, np.ones(2)) is ad
    assert ad.get_array_module(np.ones(2), 3) is np


def test_ndim_shape_size_match_numpy():
    a = np.zeros((2, 3, 4))
    x = ad.asarray(a)
    for arg in (a, x, [[1, 2], [3, 4]], 5):
        want = np.asarray(arg.get() if isinstance(arg, ad.ndarray) else arg)
        assert ad.ndim(arg) == np.ndim(want)
        assert ad.shape(arg) == np.shape(want)
        assert ad.size(arg) == np.size(want)
    assert ad.size(x, 1) == ad.size(a, 1) == 3
    assert ad.size(x, -1) == 4
    with pytest.raises(np.exceptions.AxisError):
        ad.size(x, 3)


def test_complexobj_tests_look_at_the_dtype():
    z = ad.asarray(np.array([1.0 + 0j]))
    assert ad.iscomplexobj(z) and not ad.isrealobj(z)
    assert ad.isrealobj(ad.arange(3)) and not ad.iscomplexobj([1, 2])
    assert ad.iscomplexobj(np.array([1j]))
