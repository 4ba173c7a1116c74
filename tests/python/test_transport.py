"""Both transports of a session: the gRPC OpStream (with chunked
Upload/Download) and the same-host op socket (with shared memory), on the
same server, give the same results."""
from __future__ import annotations

import os

import numpy as np
import pytest

import arrayd as ad
from arrayd import _transport


@pytest.fixture(params=["grpc", "local"])
def transport_session(request, server_address, monkeypatch):
    if request.param == "grpc":
        monkeypatch.setenv("ARRAYD_NO_LOCAL_SOCKET", "1")
    s = ad.connect(server_address, default=False)
    uses_local = isinstance(s._requests, _transport.LocalStream)
    if request.param == "local" and not uses_local:
        s.close()
        pytest.skip("the server offers no same-host op socket")
    assert uses_local == (request.param == "local")
    yield s
    s.close()


@pytest.mark.parametrize("n", [10, 300_000, 1_500_000])  # inline and bulk sizes
def test_round_trip_and_compute(transport_session, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n)
    with transport_session:
        a = ad.asarray(x)
        np.testing.assert_array_equal(a.get(), x)
        np.testing.assert_allclose((a * 2 + 1).get(), x * 2 + 1)
        assert float(a.sum()) == pytest.approx(float(x.sum()))


def test_bulk_transfer_of_a_strided_result(transport_session):
    x = np.arange(3_000_000, dtype=np.int32).reshape(1000, 3000)
    with transport_session:
        a = ad.asarray(x)
        np.testing.assert_array_equal(a.T[::2].get(), x.T[::2])


def test_deferred_error_reaches_the_client(transport_session):
    with transport_session:
        big = ad.zeros(2**62, dtype="u1")
        with pytest.raises(MemoryError):
            big.get()
        np.testing.assert_array_equal(ad.arange(3).get(), np.arange(3))


def test_shared_memory_segment_is_removed_with_the_session(server_address):
    s = ad.connect(server_address, default=False)
    if not isinstance(s._requests, _transport.LocalStream):
        s.close()
        pytest.skip("the server offers no same-host op socket")
    with s:
        ad.asarray(np.ones(1_000_000)).get()
    path = s._arena.path
    assert os.path.exists(path)
    s.close()
    assert not os.path.exists(path)


def test_server_refuses_segments_outside_dev_shm(session):
    h = session.new_handle()
    session.record("upload_shm", (), (h,), {"segment": "/etc/passwd", "offset": 0,
                                            "dtype": np.dtype("u1"), "shape": [4]})
    with pytest.raises(ValueError, match="not a /dev/shm/arrayd"):
        session.fetch([h])
