"""NumPy's scalar types, exceptions, NumPy 1.x constants and dtype helpers
in the arrayd namespace (as CuPy re-exports them)."""
import math
import warnings

import arrayd as ad
import numpy as np
import pytest
from helpers import ALL_DTYPES

NUMPY_TYPES = [
    "byte", "ubyte", "short", "ushort", "intc", "uintc", "int_", "uint",
    "long", "ulong", "longlong", "ulonglong", "intp", "uintp", "half",
    "single", "double", "csingle", "cdouble", "generic", "number", "integer",
    "signedinteger", "unsignedinteger", "inexact", "floating",
    "complexfloating", "bool",
]


@pytest.mark.parametrize("name", NUMPY_TYPES)
def test_scalar_types_are_numpys(name):
    assert getattr(ad, name) is getattr(np, name)


def test_numpy1_aliases():
    assert ad.float_ is np.float64
    assert ad.complex_ is np.complex128 and ad.cfloat is np.complex128
    assert ad.singlecomplex is np.complex64
    assert ad.bool is np.bool_ is ad.bool_


def test_arrays_of_the_named_types():
    for name in ("intc", "uintc", "longlong", "single", "csingle", "half",
                 "float_", "bool"):
        t = getattr(ad, name)
        x = ad.zeros(3, dtype=t)
        assert x.dtype == np.dtype(t)
        assert ad.issubdtype(x.dtype, ad.generic)


@pytest.mark.parametrize("name", [
    "AxisError", "ComplexWarning", "VisibleDeprecationWarning", "RankWarning",
    "TooHardError", "ModuleDeprecationWarning"])
def test_exceptions_are_numpys(name):
    assert getattr(ad, name) is getattr(np.exceptions, name)
    assert getattr(ad.exceptions, name) is getattr(np.exceptions, name)


def test_axis_error_of_arrayd_is_caught_as_numpys():
    x = ad.ones((2, 3))
    with pytest.raises(ad.AxisError):
        ad.sum(x, axis=5)
    with pytest.raises(np.exceptions.AxisError):
        ad.size(x, 4)
    try:
        np.sum(np.ones(2), axis=3)
    except ad.AxisError as e:
        assert isinstance(e, ValueError)
    else:
        pytest.fail("numpy did not raise")


def test_numpy1_constants():
    for name in ("Inf", "Infinity", "PINF", "infty"):
        v = getattr(ad, name)
        assert math.isinf(v) and v > 0
    assert math.isinf(ad.NINF) and ad.NINF < 0
    assert math.isnan(ad.NAN) and math.isnan(ad.NaN)
    assert ad.PZERO == 0.0 and math.copysign(1.0, ad.PZERO) == 1.0
    assert ad.NZERO == 0.0 and math.copysign(1.0, ad.NZERO) == -1.0


def test_issubdtype_and_typename_are_numpys():
    assert ad.issubdtype(np.int32, ad.integer)
    assert not ad.issubdtype(np.float32, ad.integer)
    assert ad.issubdtype(ad.arange(3).dtype, np.signedinteger)
    for c in "?bhilqBHILQfdgFDG":
        assert ad.typename(c) == np.typename(c)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind != "b"],
                         ids=str)
def test_common_type_reads_dtypes(dtype):
    x = ad.zeros(3, dtype)
    assert ad.common_type(x) is np.common_type(np.zeros(3, dtype))
    y = ad.zeros(2, np.float32)
    assert ad.common_type(x, y) is np.common_type(np.zeros(3, dtype),
                                                  np.zeros(2, np.float32))
    assert ad.common_type(x, np.zeros(1, np.complex64)) is np.common_type(
        np.zeros(3, dtype), np.zeros(1, np.complex64))


def test_common_type_edge_cases():
    assert ad.common_type() is np.common_type() is np.float16
    with pytest.raises(TypeError):
        ad.common_type(ad.zeros(2, bool), ad.zeros(2))


def test_mintypecode():
    x = ad.zeros(2, np.float32)
    z = ad.zeros(2, np.complex128)
    assert ad.mintypecode([x]) == np.mintypecode([np.zeros(2, np.float32)])
    assert ad.mintypecode([x, "D"]) == np.mintypecode(["f", "D"]) == "D"
    assert ad.mintypecode([z, x]) == "D"
    assert ad.mintypecode("bh") == np.mintypecode("bh")
    assert ad.mintypecode(["i"], default="f") == "f"


def test_numpy1_sctype_helpers():
    x = ad.zeros(2, np.int16)
    assert ad.obj2sctype(x) is np.int16
    assert ad.obj2sctype(np.zeros(1, np.float32)) is np.float32
    assert ad.obj2sctype(np.floating) is np.floating
    assert ad.obj2sctype("f8") is np.float64
    assert ad.obj2sctype(np.dtype("c8")) is np.complex64
    assert ad.obj2sctype(int) is np.dtype(int).type
    assert ad.obj2sctype(object()) is None
    assert ad.obj2sctype(object(), default=np.int8) is np.int8

    assert ad.issubsctype(x, np.integer)
    assert ad.issubsctype("i4", np.signedinteger)
    assert not ad.issubsctype(np.float32, np.integer)

    assert ad.sctype2char(x) == "h"
    assert ad.sctype2char(np.float32) == "f"
    assert ad.sctype2char("c16") == "D"
    with pytest.raises(ValueError, match="unrecognized type"):
        ad.sctype2char(object())
    with pytest.raises(KeyError):
        ad.sctype2char(np.number)

    assert ad.issctype(np.int32) and ad.issctype(np.dtype("f4"))
    assert not ad.issctype(np.object_)
    assert not ad.issctype(1.0) and not ad.issctype("i4")

    assert ad.issubclass_(np.int32, np.integer)
    assert not ad.issubclass_(1, int)


@pytest.mark.parametrize("arrays, scalars, want", [
    (["i8"], ["f4"], "f8"),
    (["f4"], ["i8"], "f4"),
    (["i1", "u1"], [], "i2"),
    ([], ["f4", "f8"], "f8"),
    (["f4"], ["c8"], "c8"),
    (["f8"], ["c8"], "c16"),
    (["u2"], ["i1"], "i4"),
    (["i4"], ["i8"], "i4"),
])
def test_find_common_type_follows_numpy1(arrays, scalars, want):
    with pytest.warns(DeprecationWarning):
        got = ad.find_common_type(arrays, scalars)
    assert got == np.dtype(want)


def test_find_common_type_of_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert ad.find_common_type([], []) is None


def test_format_parser_is_numpys():
    p = ad.format_parser("i4, f8", ["a", "b"], [])
    assert p.dtype == np.dtype([("a", "<i4"), ("b", "<f8")])
