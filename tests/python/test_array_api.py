"""Array API 2023.12 pieces: __array_namespace_info__, x.device,
x.to_device, x.mT, matrix_transpose, DLPack, and the renamed ufuncs."""
import arrayd as ad
import numpy as np
import pytest
from helpers import INT_DTYPES, check, sample


def test_namespace_info_capabilities_and_defaults():
    info = ad.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": True,
                                   "data-dependent shapes": True}
    assert info.default_dtypes() == np.__array_namespace_info__(
    ).default_dtypes()
    d = info.default_device()
    assert d == ad.arange(2).device
    assert info.devices() == [d]
    assert info.default_dtypes(device=d)["integral"] == np.dtype(np.int64)


@pytest.mark.parametrize("kind", [
    None, "bool", "signed integer", "unsigned integer", "integral",
    "real floating", "complex floating", "numeric",
    ("bool", "real floating")])
def test_namespace_info_dtypes_match_numpys(kind):
    got = ad.__array_namespace_info__().dtypes(kind=kind)
    want = np.__array_namespace_info__().dtypes(kind=kind)
    assert list(got) == list(want)
    assert all(np.dtype(got[k]) == np.dtype(want[k]) for k in got)
    for dt in got.values():
        assert ad.zeros(1, dt).dtype == dt  # each one is usable


def test_namespace_info_bad_arguments():
    info = ad.__array_namespace_info__()
    with pytest.raises(ValueError, match="unsupported kind"):
        info.dtypes(kind="text")
    with pytest.raises(ValueError, match="Unsupported device"):
        info.dtypes(device="cpu")
    with pytest.raises(ValueError, match="Unsupported device"):
        info.default_dtypes(device="gpu")


def test_device_and_to_device_within_a_session():
    x = ad.arange(4)
    y = ad.ones(3)
    assert x.device == y.device and hash(x.device) == hash(y.device)
    assert "cpu" in repr(x.device) or "cuda" in repr(x.device)
    assert x.to_device(x.device) is x
    with pytest.raises(ValueError, match="Unsupported device"):
        x.to_device("cpu")
    with pytest.raises(ValueError, match="stream"):
        x.to_device(x.device, stream=1)


def test_to_device_of_another_session_copies(server_address):
    a = sample("f4", (3, 4))
    x = ad.asarray(a)
    other = ad.Session(server_address)
    try:
        target = type(x.device)(other)
        y = x.to_device(target)
        assert y.device == target and y.device != x.device
        assert y.session is other
        check(y, a)
        z = ad.from_dlpack(y, device=x.device)
        assert z.session is x.session
        check(z, a)
    finally:
        other.close()


@pytest.mark.parametrize("shape", [(2, 3), (4, 2, 3), (1, 5, 1, 2)])
def test_mT_and_matrix_transpose(shape):
    a = sample("i4", shape)
    x = ad.asarray(a)
    check(x.mT, a.mT)
    check(ad.matrix_transpose(x), np.matrix_transpose(a))
    check(ad.matrix_transpose(a.tolist()), np.matrix_transpose(a.tolist()))


def test_mT_needs_two_dimensions():
    for shape in ((), (3,)):
        with pytest.raises(ValueError, match="ndim < 2"):
            _ = ad.ones(shape).mT
        with pytest.raises(ValueError, match="at least 2-dimensional"):
            ad.matrix_transpose(ad.ones(shape))


def test_dlpack_refuses_a_zero_copy_export():
    x = ad.arange(5)
    with pytest.raises(BufferError, match="remote"):
        x.__dlpack__()
    with pytest.raises(BufferError, match="remote"):
        x.__dlpack_device__()
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError):
        np.from_dlpack(x)


@pytest.mark.parametrize("dtype", ["i8", "f4", "c16", "?"])
def test_numpy_from_dlpack_copies_to_the_cpu(dtype):
    a = sample(dtype, (2, 3))
    got = np.from_dlpack(ad.asarray(a), device="cpu")
    assert isinstance(got, np.ndarray) and got.dtype == a.dtype
    np.testing.assert_array_equal(got, a)


@pytest.mark.parametrize("dtype", ["u1", "i4", "f8", "c8"])
def test_from_dlpack_uploads_host_exporters(dtype):
    a = sample(dtype, (3, 2))
    check(ad.from_dlpack(a), a)
    x = ad.asarray(a)
    assert ad.from_dlpack(x) is x
    y = ad.from_dlpack(x, copy=True)
    assert y is not x
    check(y, a)
    with pytest.raises(ValueError, match="copy=False"):
        ad.from_dlpack(a, copy=False)
    with pytest.raises(ValueError, match="Unsupported device"):
        ad.from_dlpack(a, device="cpu")


def test_from_dlpack_bad_object():
    with pytest.raises((TypeError, AttributeError)):
        ad.from_dlpack([1, 2, 3])


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
def test_renamed_bitwise_ufuncs(dtype):
    a = sample(dtype, (3, 4))
    b = np.abs(sample(dtype, (4,))).astype(dtype) % 3
    x, y = ad.asarray(a), ad.asarray(b)
    check(ad.bitwise_left_shift(x, y), np.bitwise_left_shift(a, b))
    check(ad.bitwise_right_shift(x, y), np.bitwise_right_shift(a, b))
    check(ad.bitwise_invert(x), np.bitwise_invert(a))
    check(ad.bitwise_not(x), np.bitwise_not(a))
    assert ad.bitwise_left_shift is ad.left_shift
    assert ad.bitwise_invert is ad.invert


def test_renamed_bitwise_ufuncs_reject_floats():
    with pytest.raises(TypeError):
        ad.bitwise_invert(ad.ones(2))
    with pytest.raises(TypeError):
        np.bitwise_invert(np.ones(2))


def test_spec_names_exist():
    names = """arange asarray empty empty_like eye from_dlpack full full_like
    linspace meshgrid ones ones_like tril triu zeros zeros_like can_cast finfo
    iinfo isdtype result_type abs acos acosh add asin asinh atan atan2 atanh
    bitwise_and bitwise_left_shift bitwise_invert bitwise_or
    bitwise_right_shift bitwise_xor ceil clip conj copysign cos cosh divide
    equal exp expm1 floor floor_divide greater greater_equal hypot imag
    isfinite isinf isnan less less_equal log log1p log2 log10 logaddexp
    logical_and logical_not logical_or logical_xor maximum minimum multiply
    negative not_equal positive pow real remainder round sign signbit sin
    sinh square sqrt subtract tan tanh trunc take __array_namespace_info__
    matmul matrix_transpose tensordot vecdot broadcast_arrays broadcast_to
    concat expand_dims flip moveaxis permute_dims repeat reshape roll squeeze
    stack tile argmax argmin nonzero searchsorted where argsort sort max mean
    min prod std sum var all any e inf nan newaxis pi bool int8 int16 int32
    int64 uint8 uint16 uint32 uint64 float32 float64 complex64
    complex128""".split()  # noqa: SIM905
    assert [n for n in names if not hasattr(ad, n)] == []
    x = ad.ones((2, 2))
    for attr in ("device", "mT", "to_device", "__dlpack__",
                 "__dlpack_device__", "__array_namespace__"):
        assert hasattr(type(x), attr), attr
    assert x.__array_namespace__() is ad
