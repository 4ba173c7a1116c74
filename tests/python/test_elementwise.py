"""Elementwise ufuncs against NumPy: all dtype pairs, scalars, broadcasting,
non-contiguous inputs, out= and in-place operators."""
from __future__ import annotations

import operator

import numpy as np
import pytest

import arrayd as ad
from helpers import ALL_DTYPES, check, sample

BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide",
          "remainder", "power", "equal", "not_equal", "less", "less_equal",
          "greater", "greater_equal", "logical_and", "logical_or",
          "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
          "left_shift", "right_shift", "maximum", "minimum"]
UNARY = ["negative", "positive", "absolute", "logical_not", "invert"]
# Second operand must avoid 0 (division), and stay small (power, shifts).
POSITIVE_RHS = {"true_divide", "floor_divide", "remainder", "power",
                "left_shift", "right_shift"}


def _numpy(name, *args, **kw):
    with np.errstate(all="ignore"):
        return getattr(np, name)(*args, **kw)


def _pair_expect(name, x, y):
    try:
        return _numpy(name, x, y), None
    except TypeError as e:
        return None, e


@pytest.mark.parametrize("name", BINARY)
def test_binary_all_dtype_pairs(name):
    shape = (2, 3)
    for i, d1 in enumerate(ALL_DTYPES):
        x = sample(d1, shape, seed=i)
        ax = ad.asarray(x)
        for j, d2 in enumerate(ALL_DTYPES):
            y = sample(d2, shape, seed=100 + j, positive=name in POSITIVE_RHS)
            if name == "power" and d2.kind in "iu":
                y = y % 3  # keep integer powers small
            ay = ad.asarray(y)
            expected, err = _pair_expect(name, x, y)
            if err is not None:
                with pytest.raises(TypeError):
                    getattr(ad, name)(ax, ay)
                continue
            got = getattr(ad, name)(ax, ay)
            try:
                check(got, expected)
            except AssertionError as e:
                raise AssertionError(f"{name}({d1}, {d2}): {e}") from None


@pytest.mark.parametrize("name", UNARY)
def test_unary_all_dtypes(name):
    for i, dt in enumerate(ALL_DTYPES):
        x = sample(dt, (2, 5), seed=i)
        try:
            expected = _numpy(name, x)
        except TypeError:
            with pytest.raises(TypeError):
                getattr(ad, name)(ad.asarray(x))
            continue
        try:
            check(getattr(ad, name)(ad.asarray(x)), expected)
        except AssertionError as e:
            raise AssertionError(f"{name}({dt}): {e}") from None


SCALARS = [2, -3, 2.5, 1.5 + 2j, True, np.float32(2), np.int8(3),
           np.float64(0.5), np.uint8(2)]


@pytest.mark.parametrize("name", ["add", "subtract", "multiply",
                                  "true_divide", "maximum", "less", "equal"])
def test_python_and_numpy_scalars_nep50(name):
    for i, dt in enumerate(ALL_DTYPES):
        x = sample(dt, (4,), seed=i, positive=True)
        ax = ad.asarray(x)
        for v in SCALARS:
            for args, aargs in (((x, v), (ax, v)), ((v, x), (v, ax))):
                try:
                    expected = _numpy(name, *args)
                except (TypeError, OverflowError) as e:
                    with pytest.raises(type(e)):
                        getattr(ad, name)(*aargs)
                    continue
                try:
                    check(getattr(ad, name)(*aargs), expected)
                except AssertionError as e:
                    raise AssertionError(f"{name}{args}: {e}") from None


def test_weak_scalar_keeps_small_dtype():
    assert (ad.zeros(3, "i1") + 1).dtype == np.int8
    assert (ad.zeros(3, "f4") * 2.5).dtype == np.float32
    assert (ad.zeros(3, "f2") + 1).dtype == np.float16
    assert (ad.zeros(3, "i2") + 1.5).dtype == np.float64
    assert (ad.zeros(3, "f4") + 1j).dtype == np.complex64
    check(ad.arange(4, dtype="u1") * 3, np.arange(4, dtype="u1") * 3)


def test_scalar_overflow_like_numpy():
    with pytest.raises(OverflowError):
        ad.zeros(3, "u1") + (-1)
    with pytest.raises(OverflowError):
        ad.zeros(3, "i1") + 200
    with pytest.raises(OverflowError):
        ad.zeros(3, "i8") + 2**63
    # NumPy 2 compares with out-of-range Python ints.
    check(ad.zeros(3, "u1") == -1, np.zeros(3, "u1") == -1)
    check(ad.zeros(3, "u1") < 300, np.zeros(3, "u1") < 300)
    check(ad.zeros(3, "i1") != 1000, np.zeros(3, "i1") != 1000)


def test_uint64_large_scalar():
    x = np.array([1, 2, 3], dtype="u8")
    check(ad.asarray(x) + (2**63 + 5), x + (2**63 + 5))


def test_bool_subtract_and_negative_raise_numpy_type_error():
    b = ad.asarray([True, False])
    with pytest.raises(TypeError, match="boolean subtract"):
        b - b
    with pytest.raises(TypeError, match="boolean negative"):
        -b
    with pytest.raises(TypeError):
        ~ad.zeros(2, "f4")


@pytest.mark.parametrize("s1,s2", [
    ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((), (3,)), ((0, 3), (1, 3)),
    ((5,), ()), ((1,), (0,)), ((2, 1, 3), (4, 1))])
def test_broadcasting(s1, s2):
    x = sample("f4", s1, 1)
    y = sample("i2", s2, 2)
    check(ad.asarray(x) * ad.asarray(y), x * y)
    check(ad.asarray(y) - ad.asarray(x), y - x)


def test_broadcast_mismatch_is_value_error():
    with pytest.raises(ValueError, match="could not be broadcast"):
        ad.zeros((2, 3)) + ad.zeros((4,))
    with pytest.raises(ValueError):
        ad.add(ad.zeros(3), ad.zeros(3), out=ad.zeros(2))


def test_non_contiguous_inputs():
    x = sample("f8", (6, 8), 3)
    y = sample("i4", (8, 6), 4)
    ax, ay = ad.asarray(x), ad.asarray(y)
    check(ax[::2, 1::3] + ay.T[::2, 1::3], x[::2, 1::3] + y.T[::2, 1::3])
    check(ax[::-1] * ay.T, x[::-1] * y.T)
    check(-ax.T[:, ::-2], -x.T[:, ::-2])


def test_operators_and_reflected():
    x = sample("i4", (3, 4), 5, positive=True)
    y = sample("i4", (3, 4), 6, positive=True)
    ax, ay = ad.asarray(x), ad.asarray(y)
    for op in (operator.add, operator.sub, operator.mul, operator.truediv,
               operator.floordiv, operator.mod, operator.pow, operator.and_,
               operator.or_, operator.xor, operator.lshift, operator.rshift,
               operator.eq, operator.ne, operator.lt, operator.le,
               operator.gt, operator.ge):
        check(op(ax, ay), op(x, y))
        check(op(ax, 3), op(x, 3))
        check(op(2, ay), op(2, y))
    check(-ax, -x)
    check(+ax, +x)
    check(abs(-ax), abs(-x))
    check(~ax, ~x)
    # numpy array on the left: dispatched to arrayd by __array_ufunc__.
    r = x + ay
    assert isinstance(r, ad.ndarray)
    check(r, x + y)
    check(np.multiply(ax, y), x * y)


def test_module_aliases():
    x = sample("f4", (5,), 7, positive=True)
    ax = ad.asarray(x)
    check(ad.divide(ax, 2), np.divide(x, 2))
    check(ad.mod(ax, 2), np.mod(x, 2))
    check(ad.abs(-ax), np.abs(-x))
    check(ad.add([1, 2], [3, 4]), np.add([1, 2], [3, 4]))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_inplace_operators(dt):
    x = sample(dt, (3, 4), 8, positive=True)
    y = sample(dt, (4,), 9, positive=True)
    a = ad.asarray(x)
    ref = x.copy()
    ops = [("__iadd__", 1), ("__imul__", y)]
    if dt.kind != "b":
        ops += [("__isub__", y)]
    for meth, other in ops:
        if dt.kind == "b" and not isinstance(other, np.ndarray):
            continue
        with np.errstate(all="ignore"):
            ref = getattr(ref, meth)(other)
        arg = ad.asarray(other) if isinstance(other, np.ndarray) else other
        r = getattr(a, meth)(arg)
        assert r is a
    check(a, ref)


def test_inplace_same_kind_casting_error():
    a = ad.zeros(3, "i1")
    with pytest.raises(TypeError, match="same_kind"):
        a += 1.5
    with pytest.raises(TypeError):
        a += ad.ones(3, "f4")
    b = ad.zeros(3, "f4")
    b += ad.ones(3, "f8")  # same kind: allowed
    check(b, np.ones(3, "f4"))
    with pytest.raises(ValueError):
        b += ad.ones((2, 3))  # result does not fit the output


def test_out_argument():
    x = sample("f4", (2, 3), 10)
    out = ad.zeros((2, 3), "f8")
    r = ad.multiply(ad.asarray(x), 2, out=out)
    assert r is out
    check(out, (x * 2).astype("f8"))
    out2 = ad.empty((2, 3), "f4")
    ad.negative(ad.asarray(x), out=out2)
    check(out2, -x)
    # out broadcasting: the result is broadcast into a bigger out.
    out3 = ad.zeros((4, 3), "f4")
    ad.add(ad.ones(3, "f4"), 1, out=out3)
    check(out3, np.full((4, 3), 2, "f4"))


def test_integer_division_by_zero_and_overflow_follow_numpy():
    for dt in ("i1", "i4", "i8", "u1", "u8"):
        x = np.array([7, -7, 0, 5] if dt[0] == "i" else [7, 0, 5, 9], dt)
        z = np.zeros(4, dt)
        ax, az = ad.asarray(x), ad.asarray(z)
        for name in ("floor_divide", "remainder"):
            check(getattr(ad, name)(ax, az), _numpy(name, x, z))
    m = np.array([-128, 127], "i1")
    check(ad.asarray(m) + 1, _numpy("add", m, np.int8(1)))
    check(ad.asarray(m) * 2, _numpy("multiply", m, np.int8(2)))
    check(-ad.asarray(m), _numpy("negative", m))
    check(ad.asarray(m) // -1, _numpy("floor_divide", m, np.int8(-1)))
    f = np.array([1.0, -1.0, 0.0], "f4")
    check(ad.asarray(f) / 0, _numpy("true_divide", f, np.float32(0)))
    check(ad.asarray(f) // 0, _numpy("floor_divide", f, np.float32(0)))


@pytest.mark.parametrize("name", BINARY)
def test_binary_all_dtype_pairs_strided_layouts(name):
    """Transposed, reversed, stepped and broadcast (zero-stride) operands."""
    for i, d1 in enumerate(ALL_DTYPES):
        x = sample(d1, (4, 6), seed=i)
        if name == "power" and d1.kind in "iu":
            x = np.abs(x) % 3  # also used as an exponent below
        ax = ad.asarray(x)
        xv, axv = x.T[::-2], ax.T[::-2]  # (3, 4), non-contiguous
        for j, d2 in enumerate(ALL_DTYPES):
            y = sample(d2, (8,), seed=50 + j, positive=name in POSITIVE_RHS)
            if name == "power" and d2.kind in "iu":
                y = y % 3
            ay = ad.asarray(y)
            yv = np.broadcast_to(y[::-2], (3, 4))
            ayv = ad.broadcast_to(ay[::-2], (3, 4))
            expected, err = _pair_expect(name, xv, yv)
            if err is not None:
                continue
            try:
                check(getattr(ad, name)(axv, ayv), expected)
                check(getattr(ad, name)(ayv[0], axv), _numpy(name, yv[0], xv))
            except AssertionError as e:
                raise AssertionError(f"{name}({d1}, {d2}): {e}") from None


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "less",
                                  "true_divide", "floor_divide"])
def test_out_casting_all_output_dtypes(name):
    x = sample("i2", (3, 4), 1, positive=True)
    y = sample("f4", (4,), 2, positive=True)
    res = _numpy(name, x, y)
    for od in ALL_DTYPES:
        out = ad.zeros((3, 4), od)
        if not np.can_cast(res.dtype, od, "same_kind"):
            with pytest.raises(TypeError):
                getattr(ad, name)(ad.asarray(x), ad.asarray(y), out=out)
            continue
        getattr(ad, name)(ad.asarray(x), ad.asarray(y), out=out)
        expected = np.zeros((3, 4), od)
        getattr(np, name)(x, y, out=expected)
        check(out, expected)


def test_out_into_a_view_writes_the_base():
    a = ad.zeros((4, 4), "f8")
    ad.add(ad.ones(2), 1, out=a[1:3, 2])
    x = np.zeros((4, 4))
    np.add(np.ones(2), 1, out=x[1:3, 2])
    check(a, x)
    v = a.T[::-1]
    v *= 3
    x.T[::-1] *= 3
    check(a, x)


def test_broadcast_view_is_read_only():
    b = ad.broadcast_to(ad.arange(3.0), (2, 3))
    b2 = np.broadcast_to(np.arange(3.0), (2, 3))
    check(b, b2)
    with pytest.raises(ValueError, match="read-only"):
        b += 1  # at once, as NumPy


def test_integer_negative_power_array_exponent_raises_value_error():
    with pytest.raises(ValueError, match="negative integer powers"):
        ad.power(ad.asarray([2, 3]), ad.asarray([-1, 2])).get()


def test_integer_negative_power_scalar_exponent_raises_value_error():
    with pytest.raises(ValueError, match="negative integer powers"):
        ad.asarray([2, 3]) ** -1
    check(ad.asarray([2.0, 4.0]) ** -1, np.array([0.5, 0.25]))
