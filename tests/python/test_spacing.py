"""spacing: one row of server/kernels/op_list.h and one functor, and it is a
NumPy ufunc of arrayd (loops, methods, NumPy's values and errors)."""
import numpy as np
import pytest

import arrayd as ad

VALUES = [0.0, -0.0, 1.0, -1.0, 1e-300, 3.5e38, -2.5, np.inf, -np.inf, np.nan,
          65504.0, 6e-8, 1e10]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_spacing_matches_numpy(dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        a = np.array(VALUES).astype(dtype)
        want = np.spacing(a)
    got = ad.spacing(ad.asarray(a))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)
    np.testing.assert_array_equal(np.spacing(ad.asarray(a)).get(), want)  # __array_ufunc__


def test_spacing_is_a_ufunc_with_numpys_loops_and_methods():
    uf = ad.spacing
    assert isinstance(uf, ad.ufunc)
    assert (uf.nin, uf.nout, uf.nargs, uf.identity) == (1, 1, 2, None)
    assert uf.types == ["e->e", "f->f", "d->d"]
    assert ad.spacing(ad.arange(3, dtype=np.int8)).dtype == np.float16  # as NumPy
    assert ad.spacing(ad.arange(3, dtype=np.int32)).dtype == np.float64
    x = ad.asarray(np.array([1.0, 2.0, 4.0]))
    ad.spacing.at(x, [0, 2])
    want = np.array([1.0, 2.0, 4.0])
    np.spacing.at(want, [0, 2])
    np.testing.assert_array_equal(x.get(), want)
    out = ad.zeros(3)
    assert ad.spacing(ad.asarray([1.0, 2.0, 3.0]), out=out) is out
    np.testing.assert_array_equal(out.get(), np.spacing([1.0, 2.0, 3.0]))
    for method, args in (("reduce", (x,)), ("outer", (x, x)), ("accumulate", (x,))):
        with pytest.raises(ValueError):  # unary: as numpy.spacing.<method>
            getattr(ad.spacing, method)(*args)
    with pytest.raises(TypeError):
        ad.spacing(ad.asarray([1 + 2j]))  # no complex loop, as NumPy
