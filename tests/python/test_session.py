"""Sessions, sync points, conversions, errors and isolation."""
from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import time

import grpc
import numpy as np
import pytest

import arrayd as ad
from arrayd import _session, _transport
from arrayd._proto import pb
from conftest import REPO
from helpers import check


def test_repr_str_exact():
    assert (repr(ad.arange(6).reshape(2, 3).astype("f").sum(axis=1))
            == "array([ 3., 12.], dtype=float32)")
    x = np.arange(6).reshape(2, 3)
    a = ad.asarray(x)
    assert repr(a) == repr(x)
    assert str(a) == str(x)
    assert repr(a[1, 1]) == repr(np.asarray(x[1, 1]))
    assert f"{a[0, 2]:>5}" == f"{x[0, 2]:>5}"


def test_scalar_conversions_like_numpy():
    a = ad.asarray(np.float32(2.5))
    assert float(a) == 2.5
    assert int(a) == 2
    assert complex(a) == 2.5
    assert bool(a) is True
    assert bool(ad.zeros(())) is False
    assert ad.arange(5).sum().item() == 10
    assert ad.arange(4).tolist() == [0, 1, 2, 3]
    assert [1, 2, 3][ad.asarray(np.int64(1))] == 2  # __index__
    with pytest.raises(ValueError, match="truth value of an array"):
        bool(ad.arange(3))
    with pytest.raises(TypeError):
        float(ad.arange(3))
    with pytest.raises(ValueError):
        ad.arange(3).item()


def test_metadata_without_round_trip():
    a = ad.zeros((3, 4, 5), "i2")
    assert a.shape == (3, 4, 5) and a.ndim == 3 and a.size == 60
    assert a.itemsize == 2 and a.nbytes == 120
    assert a.strides == np.zeros((3, 4, 5), "i2").strides
    assert a.T.shape == (5, 4, 3)
    assert ad.float32 is np.float32 and ad.dtype is np.dtype
    assert ad.newaxis is None


def test_numpy_interop():
    a = ad.arange(4)
    n = np.asarray(a)
    assert isinstance(n, np.ndarray) and n.tolist() == [0, 1, 2, 3]
    assert np.asarray(a, dtype="f4").dtype == np.float32
    with pytest.raises(ValueError):
        np.asarray(a, copy=False)
    assert isinstance(ad.asnumpy(a), np.ndarray)
    assert isinstance(a.get(), np.ndarray)
    # NumPy functions dispatch to the array's methods / __array_ufunc__.
    s = np.sum(a)
    assert isinstance(s, ad.ndarray) and int(s) == 6
    out = ad.zeros(4)
    assert np.add(a, 1, out=(out,)) is out
    check(out, np.arange(4) + 1.0)
    e = ad.ndarray((2, 3), dtype="f4")  # like cupy.ndarray(shape, dtype)
    assert e.shape == (2, 3) and e.dtype == np.float32


def test_out_of_memory_raises_memory_error_and_session_survives():
    big = ad.zeros(2**62, dtype="u1")
    assert big.shape == (2**62,)
    with pytest.raises(MemoryError) as info:
        big.get()
    assert isinstance(info.value, ad.OutOfMemoryError)
    # A dependent op is poisoned and reports the same error.
    with pytest.raises(MemoryError):
        (big + 1).get()
    check(ad.arange(3) + 1, np.arange(3) + 1)


def test_deferred_error_surfaces_at_synchronize():
    ad.zeros(2**62, dtype="u1")  # never fetched
    with pytest.raises(MemoryError):
        ad.synchronize()
    ad.synchronize()  # reported once
    check(ad.ones(2), np.ones(2))


def test_server_side_validation_error_is_reported(session):
    # Bypass the client's checks: an op the server must refuse.
    h = session.new_handle()
    session.record("add", (10**9, 10**9 + 1), (h,))
    with pytest.raises(Exception) as info:
        session.synchronize()
    assert not isinstance(info.value, ad.SessionClosedError)
    h2 = session.new_handle()
    session.record("zeros", (), (h2,), {"shape": [2, -3], "dtype":
                                        np.dtype("f4")})
    with pytest.raises(ValueError):
        session.synchronize()
    check(ad.zeros(2), np.zeros(2))


def test_use_after_disconnect_raises_session_closed(server_address):
    s = ad.connect(server_address, default=False)
    with s:
        a = ad.arange(5)
        b = a + 1
        check(b, np.arange(5) + 1)
    ad.disconnect(s)
    assert s.closed
    for f in (lambda: a + 1, b.get, lambda: repr(a), lambda: a.sum(),
              lambda: a[1], lambda: float(a[0]), s.synchronize):
        with pytest.raises(ad.SessionClosedError, match="closed"):
            f()
    del a, b
    gc.collect()  # frees of a closed session are dropped silently
    check(ad.arange(2), np.arange(2))


def test_default_session_disconnect_and_reconnect(server_address):
    ad.disconnect()
    s = ad.connect(server_address)
    assert ad.current_session() is s
    check(ad.ones(3), np.ones(3))


def test_two_sessions_are_isolated(server_address, session):
    other = ad.connect(server_address, default=False)
    try:
        assert other.session_id != session.session_id
        with other:
            b = ad.full(3, 7.0)
        a = ad.full(3, 1.0)
        check(a, np.full(3, 1.0))
        check(b, np.full(3, 7.0))
        with pytest.raises(ValueError, match="different arrayd sessions"):
            a + b
        # `a` exists in this session only (other has made few handles).
        assert a._handle > b._handle
        with pytest.raises(Exception) as info:
            other._download(a._handle)
        assert not isinstance(info.value, ad.SessionClosedError)
        # Nor by naming its own session id in a raw Download.
        req = pb.DownloadRequest(session_id=other.session_id,
                                 handle=a._handle)
        with pytest.raises(Exception):
            list(other._download_rpc(req))
        # Freeing every handle number in `other` leaves our arrays alone.
        msg = pb.ClientMessage()
        msg.frees.extend(range(1, a._handle + 1))
        other._requests.put(msg)
        other.synchronize()
        check(a, np.full(3, 1.0))
    finally:
        ad.disconnect(other)
    check(a * 2, np.full(3, 2.0))


def test_second_client_process_cannot_read_our_arrays(server_address):
    mine = ad.full(4, 5.0)
    mine.get()
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO / 'client-python')!r})
        import arrayd as ad
        s = ad.connect({server_address!r})
        a = ad.arange(3.0)
        assert a.get().tolist() == [0.0, 1.0, 2.0]
        try:
            s._download({mine._handle})  # a handle of the parent's session
        except Exception as e:
            print("refused", type(e).__name__)
        else:
            print("LEAK")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("refused"), out.stdout
    check(mine, np.full(4, 5.0))


def test_many_temporaries_are_freed():
    a = ad.ones(1000, "f4")
    for _ in range(2000):
        a = a + 1
    check(a, np.full(1000, 2001, "f4"))


def test_pipelined_ops_keep_order():
    a = ad.zeros(10, "i8")
    for i in range(600):  # > one batch
        a[i % 10] = i
    x = np.zeros(10, "i8")
    for i in range(600):
        x[i % 10] = i
    check(a, x)


def test_capabilities(session):
    caps = session.capabilities
    assert caps.max_inline_bytes > 0
    assert session.backend


def test_server_death_raises_connection_error_then_session_closed(tmp_path):
    """A session whose server dies fails fast and clearly, never hangs."""
    address = os.environ.get("ARRAYD_ADDRESS")
    binary = os.environ.get("ARRAYD_SERVER_BIN") or str(
        REPO / "build" / "bin" / "arrayd")
    if address and not os.environ.get("ARRAYD_SERVER_BIN"):
        pytest.skip("needs a server binary to start a private server")
    sock = f"unix:{tmp_path}/dying.sock"
    proc = subprocess.Popen([binary, "--listen", sock, "--backend",
                             os.environ.get("ARRAYD_BACKEND", "cpu")],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not _transport.health_ok(sock, timeout=0.5):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        s = ad.connect(sock, default=False)
        with s:
            a = ad.arange(4) + 1
        check(a, np.arange(4) + 1)
    finally:
        proc.kill()
        proc.wait()
    with pytest.raises(ad.ConnectionError):
        a.get()
    with pytest.raises(ad.SessionClosedError):
        a + 1
    with pytest.raises(ad.SessionClosedError):
        a.get()
    ad.disconnect(s)


def test_threads_share_a_session():
    import threading
    errors = []

    def work(k):
        try:
            a = ad.full(100, float(k))
            for _ in range(300):
                a = a + 1
            b = ad.zeros(100)
            b[::2] = a[::2]
            np.testing.assert_array_equal(
                b.get(), np.where(np.arange(100) % 2 == 0, k + 300.0, 0))
            assert float(a.sum()) == 100 * (k + 300.0)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors


def test_download_needs_the_sessions_token(server_address, session):
    big = ad.arange(300_000, dtype="f8")  # above max_inline_bytes: staged
    reply = session._sync(fetch=[big._handle])
    assert not reply.fetched[0].inline
    other = ad.connect(server_address, default=False)
    try:
        for token in (other._token, "", "x" * len(session._token)):
            req = pb.DownloadRequest(session_id=session.session_id,
                                     handle=big._handle, session_token=token)
            with pytest.raises(grpc.RpcError):
                list(other._download_rpc(req))
    finally:
        ad.disconnect(other)
    np.testing.assert_array_equal(session._download(big._handle),
                                  np.arange(300_000, dtype="f8"))


def test_an_op_naming_a_dropped_array_is_refused():
    # Its free may already be on the way: recording the op would race it.
    x = ad.ones(3)
    sess = x._session
    sess.synchronize()
    time.sleep(0.005)  # the flusher has nothing left to send
    h = x._handle
    sess.free(h)  # as when the last reference to x goes
    with pytest.raises(RuntimeError, match="freed array"):
        sess.record("negative", (h,), (sess.new_handle(),))
    sess.synchronize()


def test_small_ops_go_with_the_sync_and_large_ones_at_once(server_address, monkeypatch):
    # After a quiet spell a large op is sent at once (the device starts it
    # while the client goes on); a small one waits for the next message:
    # add + sum + float() of small arrays is then one message with the sync.
    monkeypatch.setattr(_session, "_FLUSH_DELAY_S", 5.0)  # no flusher tick in between
    s = ad.connect(server_address, default=False)
    sent = []
    flush = s.flush

    def recording_flush(sync=None):
        sent.append(([op.name for op in s._pending.ops], sync is not None))
        flush(sync)

    monkeypatch.setattr(s, "flush", recording_flush)
    with s:
        a = ad.ones(1000, dtype=np.float32)
        big = ad.ones(1 << 17, dtype=np.float32)
        s.synchronize()
        time.sleep(0.01)  # quiet: past any tick of the flusher's old delay
        sent.clear()
        assert float((a + a).sum()) == 2000.0
        assert sent == [(["add", "sum"], True)]
        time.sleep(0.01)
        sent.clear()
        c = big + big
        assert sent == [(["add"], False)]
        np.testing.assert_array_equal(c[:3].get(), [2, 2, 2])
    s.close()
