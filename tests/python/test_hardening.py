"""Inputs that used to crash the server for every client (issue 13):
integer division overflow, element counts that wrap. Each gets NumPy's
result or exception, and the server keeps serving."""
from __future__ import annotations

import warnings

import arrayd as ad
import numpy as np
import pytest

SIGNED = ["i1", "i2", "i4", "i8"]


@pytest.mark.parametrize("dtype", SIGNED)
@pytest.mark.parametrize("op", ["fmod", "remainder", "floor_divide", "gcd",
                                "lcm"])
def test_integer_minimum_by_minus_one_and_zero(dtype, op):
    lo = np.iinfo(dtype).min
    a = np.array([lo, lo, lo, -7, 7, lo, 0], dtype)
    b = np.array([-1, 0, 5, -1, 0, lo, -1], dtype)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = getattr(np, op)(a, b)
        got = getattr(ad, op)(ad.asarray(a), ad.asarray(b)).get()
    np.testing.assert_array_equal(got, want)


def test_element_counts_that_wrap_are_refused():
    with pytest.raises((ValueError, MemoryError)):
        ad.eye(2**32).get()
    with pytest.raises((ValueError, MemoryError)):
        ad.zeros((2**32, 2**32)).get()
    np.testing.assert_array_equal(ad.arange(3).get(), [0, 1, 2])  # serving


# -- requests a careless or hostile client can send past the Python API ---

def _raw(op, inputs, attrs, nout=1):
    """Records `op` as given (no client-side checks) and fetches its first
    output, so that its error is raised here."""
    from arrayd import _connect
    s = _connect.current()
    outs = [s.new_handle() for _ in range(nout)]
    s.record(op, inputs, outs, attrs)
    return s.fetch(outs[:1])[0]


def _serving():
    np.testing.assert_array_equal(ad.arange(3).get(), [0, 1, 2])


def test_raw_shapes_that_wrap_are_refused():
    empty = ad.asarray(np.zeros(0, "f4"))
    one = ad.asarray(np.zeros(1, "f4"))
    with pytest.raises(ValueError, match="cannot reshape"):
        _raw("reshape", [empty._handle], {"shape": [2**32, 2**32]})
    with pytest.raises(ValueError, match="too big"):
        _raw("broadcast_to", [one._handle], {"shape": [2**32, 2**32]})
    with pytest.raises(ValueError, match="too big"):
        _raw("zeros", [], {"shape": [2**31, 2**31, 4], "dtype": np.dtype("f4")})
    with pytest.raises(ValueError, match="negative"):
        _raw("zeros", [], {"shape": [-1], "dtype": np.dtype("f4")})
    # As NumPy: the non-zero dimensions must fit even when one is zero.
    assert _raw("zeros", [], {"shape": [0, 2**62],
                              "dtype": np.dtype("u1")}).shape == (0, 2**62)
    with pytest.raises(ValueError, match="too big"):
        _raw("zeros", [], {"shape": [0, 2**62, 2**62], "dtype": np.dtype("u1")})
    _serving()


def test_more_than_64_dimensions_are_refused():
    one = ad.asarray(np.zeros(1, "f4"))
    for op, inputs in [("reshape", [one._handle]), ("broadcast_to", [one._handle]),
                       ("zeros", [])]:
        attrs = {"shape": [1] * 65}
        if op == "zeros":
            attrs["dtype"] = np.dtype("f4")
        with pytest.raises(ValueError, match="64"):
            _raw(op, inputs, attrs)
    _serving()


def test_inline_data_over_the_servers_limit_is_refused():
    from arrayd import _connect
    limit = _connect.current().max_inline_bytes
    n = limit // 4 + 1
    with pytest.raises(ValueError, match="max_inline_bytes"):
        _raw("upload", [], {"dtype": np.dtype("f4"), "shape": [n],
                            "data": b"\0" * (4 * n)})
    with pytest.raises(ValueError, match="bytes of data"):
        _raw("upload", [], {"dtype": np.dtype("f4"), "shape": [4],
                            "data": b"\0" * 3})
    _serving()


@pytest.mark.parametrize("shape", [[2**32, 2**32], [2**31, 2**31, 4], [1] * 65,
                                   [-3]])
def test_upload_rpc_checks_its_shape(shape):
    import grpc
    from arrayd import _connect, _dtypes
    from arrayd._proto.arrayd.v1 import arrayd_pb2 as pb
    s = _connect.current()
    h = s.new_handle()
    s.flush()
    header = pb.UploadChunk(session_id=s.session_id, handle=h,
                            session_token=s._token,
                            dtype=_dtypes.to_pb(np.dtype("f4")), shape=shape)
    with pytest.raises(grpc.RpcError) as e:
        s._upload_rpc(iter([header.SerializeToString()]))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    _serving()


def test_unsigned_attributes_that_overflow_are_refused():
    with pytest.raises(OverflowError):
        _raw("random_uniform", [], {"seed": [1], "offset": str(2**64),
                                    "shape": [2], "dtype": np.dtype("f8")})
    with pytest.raises(TypeError):
        _raw("random_uniform", [], {"seed": [1], "offset": "12a",
                                    "shape": [2], "dtype": np.dtype("f8")})
    _serving()


@pytest.mark.parametrize("name", ["svd", "eigh", "eigvalsh", "svdvals"])
def test_decompositions_of_non_finite_input_raise_linalgerror(name):
    a = np.eye(3)
    a[1, 0] = np.nan
    f = (lambda x: ad.linalg.svd(x, compute_uv=False)) if name == "svdvals" \
        else getattr(ad.linalg, name)
    with pytest.raises(np.linalg.LinAlgError):
        r = f(ad.asarray(a))
        (r[0] if isinstance(r, tuple) else r).get()
    _serving()


def test_float_to_integer_out_of_range_follows_numpy():
    # uint32 is left out: NumPy's own result there depends on the loop it
    # takes (its SIMD loop and its scalar loop disagree on 5e9).
    x = np.array([1e30, -1e30, np.nan, np.inf, -np.inf, 2.0**63, 2.0**64, 3.7])
    with np.errstate(invalid="ignore"):
        for dt in ["u8", "i8", "i4", "u2", "i2", "u1", "i1"]:
            np.testing.assert_array_equal(ad.asarray(x).astype(dt).get(),
                                          x.astype(dt), err_msg=dt)


def test_misaligned_views_compute_and_never_fault():
    """NumPy allows a view whose address is no multiple of its itemsize
    (view(dtype) of a byte slice); a GPU faults on such loads, which would
    end every session. The server computes on aligned copies instead and
    writes through them; an op that may write its inputs refuses them."""
    h = np.arange(64, dtype=np.uint8)
    a = ad.asarray(h)
    v = a[4:28].view(np.float64)
    hv = h[4:28].view(np.float64)
    np.testing.assert_array_equal(v.get(), hv)
    np.testing.assert_array_equal((v + 1).get(), hv + 1)
    np.testing.assert_array_equal(v.sum().get(), hv.sum())
    c = a[2:34].view(np.complex64)
    np.testing.assert_array_equal((c * 2).get(), h[2:34].view(np.complex64) * 2)
    v[...] = 2.5  # through the view
    hv[...] = 2.5
    np.testing.assert_array_equal(a.get(), h)
    ad.synchronize()
