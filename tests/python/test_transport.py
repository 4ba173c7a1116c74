"""Both transports of a session: the gRPC OpStream (with chunked
Upload/Download) and the same-host op socket (with shared memory), on the
same server, give the same results."""
from __future__ import annotations

import glob
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


def _local_session(server_address):
    s = ad.connect(server_address, default=False)
    if not isinstance(s._requests, _transport.LocalStream):
        s.close()
        pytest.skip("the server offers no same-host op socket")
    return s


def test_shared_memory_leaves_no_file(server_address):
    before = set(glob.glob("/dev/shm/*"))
    s = _local_session(server_address)
    with s:
        x = np.arange(1_000_000.0)
        np.testing.assert_array_equal(ad.asarray(x).get(), x)
        assert s._arena is not None and s._shm_ok
        assert set(glob.glob("/dev/shm/*")) == before  # memfds only
    s.close()


def test_server_opens_no_paths(session):
    h = session.new_handle()
    session.record("upload_shm", (), (h,), {"segment": "/etc/passwd", "offset": 0,
                                            "dtype": np.dtype("u1"), "shape": [4]})
    with pytest.raises(ValueError, match="no shared memory segment"):
        session.fetch([h])


def test_a_session_cannot_name_another_sessions_segment(server_address):
    a = _local_session(server_address)
    b = _local_session(server_address)
    with a, b:
        a.upload(np.full(300_000, 7.0))  # through a's arena
        name = a._arena.name
        h = b.new_handle()
        b.record("upload_shm", (), (h,), {"segment": name, "offset": 0,
                                          "dtype": np.dtype("f8"), "shape": [300_000]})
        with pytest.raises(ValueError, match="no shared memory segment"):
            b.fetch([h])
    a.close()
    b.close()


def _raw_local(server_address):
    """A bare same-host socket with a session open on it (LocalStream)."""
    from arrayd._proto import pb
    s = _local_session(server_address)
    path = s.capabilities.local_op_socket
    s.close()
    local = _transport.LocalStream.connect(path)
    first = pb.ClientMessage()
    first.open.client_name = "raw"
    local.put(first)
    opened = next(local)
    assert opened.opened.session_id
    return local


def _sync(local, sync_id=1, fetch=()):
    from arrayd._proto import pb
    msg = pb.ClientMessage()
    msg.sync.sync_id = sync_id
    msg.sync.fetch.extend(fetch)
    local.put(msg)
    return next(local).sync


def _upload_shm(local, name, n, handle=1):
    from arrayd._proto import pb
    from arrayd._wire import set_attr
    msg = pb.ClientMessage()
    op = msg.ops.add(name="upload_shm", outputs=[handle])
    set_attr(op.attrs["segment"], name)
    set_attr(op.attrs["offset"], 0)
    set_attr(op.attrs["shape"], [n])
    set_attr(op.attrs["dtype"], np.dtype("u1"))
    local.put(msg)


def test_server_refuses_segments_that_could_shrink(server_address):
    import fcntl
    from arrayd._proto import pb
    local = _raw_local(server_address)
    unsealed = os.memfd_create("t", os.MFD_ALLOW_SEALING)
    os.ftruncate(unsealed, 1 << 20)
    local.put(pb.ClientMessage(segments=["unsealed"]), fds=[unsealed])
    _upload_shm(local, "unsealed", 1 << 20)
    reply = _sync(local, fetch=[1])
    assert "no shared memory segment 'unsealed'" in reply.fetched[0].error.message
    # Sealed: the client can no longer truncate it under the server.
    sealed = os.memfd_create("t", os.MFD_ALLOW_SEALING)
    os.ftruncate(sealed, 1 << 20)
    fcntl.fcntl(sealed, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
    local.put(pb.ClientMessage(segments=["sealed"]), fds=[sealed])
    with pytest.raises(OSError):
        os.ftruncate(sealed, 0)
    _upload_shm(local, "sealed", 1 << 20, handle=2)
    reply = _sync(local, sync_id=2, fetch=[2])
    assert not reply.fetched[0].error.message
    # Asking for more than it holds is an error, not a fault.
    _upload_shm(local, "sealed", 2 << 20, handle=3)
    reply = _sync(local, sync_id=3, fetch=[3])
    assert "fewer than" in reply.fetched[0].error.message
    os.close(unsealed)
    os.close(sealed)
    local.put(None)
    local.close()
    np.testing.assert_array_equal(ad.arange(3).get(), [0, 1, 2])


def test_a_frame_naming_more_segments_than_it_carries_ends_the_connection(
        server_address):
    from arrayd._proto import pb
    local = _raw_local(server_address)
    local.put(pb.ClientMessage(segments=["a", "b"]))  # no descriptors
    with pytest.raises(StopIteration):
        next(local)
    local.close()
    np.testing.assert_array_equal(ad.arange(3).get(), [0, 1, 2])
