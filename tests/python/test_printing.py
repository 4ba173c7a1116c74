"""Printing against NumPy: array2string, array_repr, array_str, print
options, format_float_*, base_repr, binary_repr."""
import inspect
import io

import arrayd as ad
import numpy as np
import pytest
from helpers import ALL_DTYPES, ids, sample

SHAPES = [(), (0,), (5,), (2, 3), (2, 3, 4)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_repr_str_and_array2string_are_numpys(dtype, shape):
    a = sample(dtype, shape)
    x = ad.asarray(a)
    assert ad.array_repr(x) == np.array_repr(a) == repr(x)
    assert ad.array_str(x) == np.array_str(a) == str(x)
    assert ad.array2string(x) == np.array2string(a)


def test_arguments_are_numpys():
    a = sample("f8", (4, 5)) / 3
    x = ad.asarray(a)
    assert ad.array2string(x, precision=2, separator=", ", prefix="v = ",
                           suffix=";") == np.array2string(
        a, precision=2, separator=", ", prefix="v = ", suffix=";")
    assert ad.array2string(x, max_line_width=30, sign="+",
                           floatmode="fixed") == np.array2string(
        a, max_line_width=30, sign="+", floatmode="fixed")
    fmt = {"float_kind": lambda v: f"<{v:.1f}>"}
    assert ad.array2string(x, formatter=fmt) == np.array2string(
        a, formatter=fmt)
    assert ad.array_repr(x, 40, 3, True) == np.array_repr(a, 40, 3, True)
    assert ad.array_str(x, 40, 1) == np.array_str(a, 40, 1)
    # NumPy's arrays take the same path.
    assert ad.array2string(a) == np.array2string(a)
    assert ad.array_repr(a) == np.array_repr(a)


def test_summarized_output():
    a = np.arange(3000, dtype=np.float32).reshape(30, 100)
    x = ad.asarray(a)
    assert ad.array2string(x, threshold=10, edgeitems=2) == np.array2string(
        a, threshold=10, edgeitems=2)
    assert ad.array_repr(x) == np.array_repr(a)


def test_print_options_apply_to_arrayd_arrays():
    assert ad.set_printoptions is np.set_printoptions
    assert ad.get_printoptions is np.get_printoptions
    a = sample("f8", (3,)) / 7
    x = ad.asarray(a)
    with ad.printoptions(precision=2, sign="+"):
        assert ad.get_printoptions()["precision"] == 2
        assert repr(x) == repr(a) and ad.array_str(x) == np.array_str(a)
        assert "+" in ad.array_str(x)
    assert ad.get_printoptions()["precision"] == 8


def test_bad_arguments_raise_numpys_errors():
    x = ad.ones(3)
    with pytest.raises(TypeError):
        ad.array2string(x, style=repr)
    with pytest.raises(ValueError):
        ad.array2string(x, sign="x")
    with pytest.raises(ValueError):
        ad.array2string(x, floatmode="bad")


@pytest.mark.parametrize("dtype", ["f2", "f4", "f8"])
@pytest.mark.parametrize("value", [0.0, 1.0, -2.5, 1 / 3, 1e-8, 12345.678])
def test_format_float(dtype, value):
    a = np.asarray(value, dtype=dtype)
    x = ad.asarray(a)
    for kw in ({}, {"precision": 3}, {"unique": False, "precision": 4},
               {"sign": True, "pad_left": 5}, {"trim": "-"}):
        assert ad.format_float_positional(x, **kw) == \
            np.format_float_positional(a, **kw)
        assert ad.format_float_scientific(x, **kw) == \
            np.format_float_scientific(a, **kw)
    assert ad.format_float_positional(value) == \
        np.format_float_positional(value)
    assert ad.format_float_scientific(x, exp_digits=3) == \
        np.format_float_scientific(a, exp_digits=3)


def test_format_float_rejects_arrays():
    with pytest.raises(TypeError):
        ad.format_float_positional(ad.ones(2))
    with pytest.raises(TypeError):
        ad.format_float_scientific(ad.ones((2, 2)))


@pytest.mark.parametrize("num", [0, 1, 5, 255, -3, -128, 2**40])
def test_base_repr_and_binary_repr(num):
    for base, pad in ((2, 0), (3, 2), (16, 0), (36, 1)):
        assert ad.base_repr(num, base, pad) == np.base_repr(num, base, pad)
        assert ad.base_repr(ad.asarray(num), base, pad) == np.base_repr(
            num, base, pad)
    assert ad.binary_repr(num) == np.binary_repr(num)
    assert ad.binary_repr(ad.asarray(num)) == np.binary_repr(num)
    if -128 <= num < 128:
        assert ad.binary_repr(ad.asarray(np.int8(num)), width=8) == \
            np.binary_repr(np.int8(num), width=8)


def test_base_repr_and_binary_repr_errors():
    with pytest.raises(ValueError):
        ad.base_repr(5, 37)
    with pytest.raises(ValueError):
        np.base_repr(5, 37)
    with pytest.raises(TypeError):
        ad.binary_repr(ad.asarray(1.5))
    with pytest.raises(TypeError):
        ad.binary_repr(1.5)


def test_signatures_are_numpys():
    for name in ("base_repr", "binary_repr", "array2string",
                 "format_float_positional", "format_float_scientific"):
        got = inspect.signature(getattr(ad, name)).parameters
        want = inspect.signature(getattr(np, name)).parameters
        assert [(p.name, p.kind, p.default) for p in got.values()] == [
            (p.name, p.kind, p.default) for p in want.values()], name
    assert inspect.signature(ad.binary_repr) == inspect.signature(
        np.binary_repr)


def test_disp_writes_like_numpy1(capsys):
    x = ad.asarray(np.arange(4).reshape(2, 2))
    buf = io.StringIO()
    ad.disp(x, buf)
    assert buf.getvalue() == np.array_str(x.get()) + "\n"
    buf = io.StringIO()
    ad.disp("msg", device=buf, linefeed=False)
    assert buf.getvalue() == "msg"
    ad.disp(3)
    assert capsys.readouterr().out == "3\n"
