"""arrayd.cuda streams and events (issue 14): CuPy's Stream, Event,
get_current_stream, get_elapsed_time on the session's server streams.

Values are compared with NumPy. On the CPU backend ops run in order as they
come and events are host timestamps, so every query says done; each test
holds on both backends (on CUDA the work is large enough to be in flight).
"""
from __future__ import annotations

import gc
import threading
import warnings

import numpy as np
import numpy.testing as npt
import pytest

import arrayd as ad
from arrayd import cuda
from arrayd._proto import pb

N = 1 << 20  # in flight for a while on a GPU after a chain of ops


@pytest.fixture(autouse=True)
def _default_stream_after():
    yield
    cuda.Stream.null.use()


def chain(x, rounds=8):
    """x -> sin(x) * 0.5 + x, ``rounds`` times (its NumPy twin: np_chain)."""
    for _ in range(rounds):
        x = ad.sin(x) * 0.5 + x
    return x


def np_chain(x, rounds=8):
    for _ in range(rounds):
        x = np.sin(x) * 0.5 + x
    return x


def test_ops_on_streams_match_numpy():
    a = np.linspace(0, 1, N)
    x = ad.asarray(a)
    s1 = cuda.Stream()
    s2 = cuda.Stream(non_blocking=True, priority=-1)
    with s1:
        y = chain(x)
        ys = y.sum()
    with s2:
        z = ad.cos(x) * 2
    s1.synchronize()
    s2.synchronize()
    npt.assert_allclose(y.get(), np_chain(a), rtol=1e-12)
    npt.assert_allclose(float(ys), np_chain(a).sum(), rtol=1e-9)
    npt.assert_allclose(z.get(), np.cos(a) * 2, rtol=1e-12)
    assert s2.is_non_blocking and not s1.is_non_blocking
    assert s2.priority == -1 and s1.priority == 0


def test_ops_are_recorded_on_the_current_stream(session, monkeypatch):
    sent = []
    put = session._requests.put
    try:
        monkeypatch.setattr(session._requests, "put",
                            lambda msg, *a, **k: (sent.append(msg),
                                                  put(msg, *a, **k))[1])
    except (AttributeError, TypeError):
        pytest.skip("the gRPC request queue cannot be spied on")
    s = cuda.Stream()
    with s:
        a = ad.arange(3)
        e = s.record()
    b = ad.arange(4)
    session.synchronize()
    ops = [op for m in sent for op in m.ops]
    streams = {op.name: op.stream for op in ops}
    assert [sp.id for m in sent for sp in m.new_streams] == [s.ptr]
    assert streams["event_record"] == s.ptr
    assert [op.stream for op in ops if op.outputs == [a._handle]] == [s.ptr]
    assert [op.stream for op in ops if op.outputs == [b._handle]] == [0]
    del e


def test_current_stream_follows_with_and_use_per_thread():
    null = cuda.Stream.null
    assert cuda.get_current_stream() is null
    s1, s2, s3 = cuda.Stream(), cuda.Stream(), cuda.Stream()
    with s1:
        assert cuda.get_current_stream() is s1
        assert s2.use() is s2 and cuda.get_current_stream() is s2
        with s3:
            assert cuda.get_current_stream() is s3
            seen = []
            t = threading.Thread(
                target=lambda: seen.append(cuda.get_current_stream()))
            t.start()
            t.join()
            assert seen == [null]  # another thread: its own current stream
        # A with block restores what it began with, not what use() set.
        assert cuda.get_current_stream() is s1
    assert cuda.get_current_stream() is null
    assert cuda.stream.get_current_stream is cuda.get_current_stream


def test_event_orders_work_across_streams():
    a = np.linspace(0, 1, N)
    x = ad.asarray(a)
    # Blocking streams: both wait for stream 0's work (zeros), not for each
    # other; only the event orders the consumer after the producer.
    producer, consumer = cuda.Stream(), cuda.Stream()
    out = ad.zeros(N)
    with producer:
        out[...] = chain(x, rounds=16)
        ev = producer.record()
    consumer.wait_event(ev)
    with consumer:
        total = (out * 2).sum()
    npt.assert_allclose(float(total), 2 * np_chain(a, 16).sum(), rtol=1e-9)
    # A non-blocking stream after an event of the default stream.
    z = ad.zeros(N)
    z += chain(x, rounds=4)
    e0 = cuda.Event()
    e0.record()
    late = cuda.Stream(non_blocking=True)
    late.wait_event(e0)
    with late:
        m = z.max()
    npt.assert_allclose(float(m), np_chain(a, 4).max(), rtol=1e-12)


def test_waiting_for_an_event_never_recorded_is_no_wait():
    s = cuda.Stream()
    s.wait_event(cuda.Event())
    with s:
        v = ad.arange(4).sum()
    assert int(v) == 6


def test_done_and_synchronize():
    x = ad.asarray(np.linspace(0, 1, N))
    s = cuda.Stream()
    e = cuda.Event()
    assert e.done is True  # never recorded: done, as CUDA
    e.synchronize()
    with s:
        y = chain(x)
    s.record(e)
    assert isinstance(s.done, bool) and isinstance(e.done, bool)
    e.synchronize()
    assert e.done
    s.synchronize()
    assert s.done and cuda.Stream.null.done
    assert cuda.Stream().done  # a stream never used
    npt.assert_allclose(y.get(), np_chain(np.linspace(0, 1, N)), rtol=1e-12)


def test_elapsed_time():
    start, end = cuda.Event(), cuda.Event()
    start.record()
    chain(ad.asarray(np.linspace(0, 1, N))).sum()
    end.record()
    ms = cuda.get_elapsed_time(start, end)
    assert isinstance(ms, float) and ms >= 0
    assert cuda.stream.get_elapsed_time is cuda.get_elapsed_time


def test_elapsed_time_of_a_bad_event_raises(session):
    start, untimed = cuda.Event(), cuda.Event(disable_timing=True)
    start.record()
    untimed.record()
    with pytest.raises(cuda.CUDARuntimeError) as info:
        cuda.get_elapsed_time(start, untimed)
    assert info.value.status == 400  # cudaErrorInvalidResourceHandle
    with pytest.raises(cuda.runtime.CUDARuntimeError):
        cuda.get_elapsed_time(start, cuda.Event())  # never recorded
    # The server's own refusal: an event it does not know.
    with pytest.raises(cuda.CUDARuntimeError, match="invalid resource handle"):
        session.sync_scope(pb.SYNC_EVENT, 1 << 62)
    assert int(ad.arange(3).sum()) == 3  # the session goes on


def test_launch_host_func_runs_in_order_after_the_work():
    s = cuda.Stream()
    got = []
    events = []
    arrays = []
    for i in range(30):
        with s:
            arrays.append(ad.arange(4) + i)
        events.append(s.record())
        s.launch_host_func(lambda arg: got.append((arg, events[arg].done)), i)
    seen_stream = []
    s.add_callback(lambda st, status, arg: seen_stream.append(
        (st, status, arg)), "last")
    s.synchronize()
    assert got == [(i, True) for i in range(30)]
    assert seen_stream == [(s, 0, "last")]
    null_got = []
    for i in range(5):
        cuda.Stream.null.launch_host_func(null_got.append, i)
    cuda.Stream.null.synchronize()
    assert null_got == list(range(5))
    npt.assert_array_equal(arrays[-1].get(), np.arange(4) + 29)


def test_streams_and_events_are_freed_when_collected(session):
    s = cuda.Stream()
    with s:
        ad.arange(3).sum()
    e = s.record()
    sid, eid = s.ptr, e.ptr
    assert session.has_stream(sid) and session.has_event(eid)
    del s, e
    gc.collect()
    assert not session.has_stream(sid) and not session.has_event(eid)
    session.synchronize()  # the frees went with it
    assert sid not in session._stream_frees
    # The server no longer has the stream.
    session._streams.add(sid)
    try:
        with pytest.raises(cuda.CUDARuntimeError, match="stream"):
            session.sync_scope(pb.SYNC_STREAM, sid)
    finally:
        session._streams.discard(sid)
    assert int(ad.arange(4).sum()) == 6


def test_a_destroyed_stream_raises():
    sid = cuda.runtime.streamCreate()
    cuda.runtime.streamSynchronize(sid)
    cuda.runtime.streamDestroy(sid)
    with pytest.raises(cuda.CUDARuntimeError):
        cuda.runtime.streamSynchronize(sid)
    with pytest.warns(DeprecationWarning):
        gone = cuda.ExternalStream(sid)
    with pytest.raises(cuda.CUDARuntimeError):
        with gone:
            ad.arange(3)
    assert int(ad.arange(3).sum()) == 3


def test_an_error_names_its_stream(session):
    s = cuda.Stream()
    with s:
        ad.zeros(2**62, dtype="u1")
    with pytest.raises(MemoryError, match=rf"\(on stream {s.ptr}\)"):
        s.synchronize()
    with s:
        npt.assert_array_equal(ad.arange(3).get(), np.arange(3))


def test_stream_identity():
    null = cuda.Stream.null
    assert null.ptr == 0 and cuda.Stream(null=True) == null
    assert cuda.Stream(ptds=True) == cuda.Stream.ptds != null
    a, b = cuda.Stream(), cuda.Stream()
    assert a != b and a.ptr not in (0, 1, 2) and len({a: 1, b: 2}) == 2
    assert a.__cuda_stream__() == (0, a.ptr)
    c = cuda.Stream.from_external(a)
    assert c == a and c.device_id == -1 and c._foreign_stream_ref is a
    with c:
        v = ad.arange(5).sum()
    assert int(v) == 10
    with pytest.raises(TypeError, match="does not implement"):
        cuda.Stream.from_external(object())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert cuda.ExternalStream(a.ptr) == a
    assert cuda.stream.Stream is cuda.Stream


def test_per_thread_default_stream():
    results = {}

    def work(i):
        with cuda.Stream.ptds:
            results[i] = (ad.arange(100) * i).sum().get()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: np.arange(100).sum() * i for i in range(4)}
    assert cuda.Stream.ptds.done


def test_interprocess_events():
    with pytest.raises(ValueError, match="Timing must be disabled"):
        cuda.Event(interprocess=True)
    with pytest.raises(NotImplementedError, match="interprocess"):
        cuda.Event(interprocess=True, disable_timing=True)


def test_device_synchronize_waits_for_every_stream():
    a = np.linspace(0, 1, N)
    streams = [cuda.Stream(non_blocking=True) for _ in range(3)]
    outs = []
    for s in streams:
        with s:
            outs.append(chain(ad.asarray(a), rounds=4))
    cuda.Device().synchronize()
    assert all(s.done for s in streams)
    for o in outs:
        npt.assert_allclose(o.get(), np_chain(a, 4), rtol=1e-12)
