"""arrayd.cuda.stream: CuPy's ``cupy.cuda.stream`` for the server's streams.

    s = arrayd.cuda.Stream(non_blocking=True)
    with s:                       # ops of this thread run on s
        y = x * 2
    e = s.record()                # an Event after y
    arrayd.cuda.Stream.null.wait_event(e)
    s.synchronize()

A Stream is a stream of the server's session (CUDA streams on the CUDA
backend; on the CPU backend ops run in order as they come, so every query
says done). Ops go to the thread's current stream: ``with stream:`` and
``stream.use()`` set it, as CuPy's do; ``Stream.null`` (id 0) is the
default stream, which orders with the blocking streams as CUDA's legacy
stream does. Making a Stream or an Event costs no round trip: the session
makes it when an op or sync first names it, and destroys it (after its
queued work) when the Python object is collected.

``launch_host_func`` and ``add_callback`` run the callback on a worker
thread of the stream once the work queued before it is done, in order;
unlike CUDA, work queued on the stream after it does not wait for the
callback (the server cannot wait for the client).

Layer: a public namespace module below arrayd.cuda (imports runtime and
_session).
"""
from __future__ import annotations

import logging
import queue
import threading
import warnings
import weakref
from typing import Any, Callable

from arrayd import _session
from arrayd.cuda import runtime

__all__ = ["Stream", "ExternalStream", "Event", "get_current_stream",
           "get_elapsed_time"]

_log = logging.getLogger("arrayd")


class _ThreadLocal(threading.local):
    """The thread's current Stream and the streams of its ``with`` blocks.
    ``use()`` changes only the current one, so a ``with`` block restores
    what was current when it began (CuPy's rule, cupy/cupy#5143)."""

    def __init__(self) -> None:
        self.current: _BaseStream = Stream.null
        self.stack: list[_BaseStream] = [Stream.null]

    def set_current(self, stream: "_BaseStream") -> None:
        self.current = stream
        _session.set_thread_stream(runtime.stream_id(stream.ptr))


_tls: _ThreadLocal


def get_current_stream(device_id: int = -1) -> "_BaseStream":
    """The calling thread's current stream (Stream.null unless set)."""
    if device_id not in (-1, runtime.getDevice()):
        runtime._check_device(device_id)
    return _tls.current


class _HostFuncs:
    """The worker thread of one stream that runs its host functions in
    order, each once the event recorded before it is done. It holds no
    reference to its stream, and ends when the stream is collected."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._cond = threading.Condition()
        self._queued = 0
        self._done = 0
        self._thread = threading.Thread(target=self._main, daemon=True,
                                        name="arrayd-host-func")
        self._thread.start()

    def put(self, event: "Event", fn: Callable[[], None]) -> None:
        with self._cond:
            self._queued += 1
        self._queue.put((event, fn))

    def stop(self) -> None:
        self._queue.put(None)

    def wait(self) -> None:
        """Returns when every host function queued so far has run (at once
        on the worker itself: a callback that synchronizes its stream)."""
        if threading.current_thread() is self._thread:
            return
        with self._cond:
            target = self._queued
            self._cond.wait_for(lambda: self._done >= target)

    def idle(self) -> bool:
        with self._cond:
            return self._done >= self._queued

    def _main(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            event, fn = item
            try:
                event.synchronize()
                fn()
            except Exception:
                _log.exception("arrayd: a stream's host function failed")
            finally:
                del event, fn, item
                with self._cond:
                    self._done += 1
                    self._cond.notify_all()


class _BaseStream:
    """A stream of the server's session. ``ptr`` is its id (0: the default
    stream; CUDA's per-thread handle 2: the thread's own stream);
    ``device_id`` the device it was made on (-1: any)."""

    def __init__(self, ptr: int, device_id: int):
        self.ptr = ptr
        self.device_id = device_id
        self._host: _HostFuncs | None = None
        self._host_lock = threading.Lock()

    def __eq__(self, other: object) -> bool:
        # Several objects may name one stream (Stream.null and
        # Stream(null=True), an ExternalStream).
        return isinstance(other, _BaseStream) and other.ptr == self.ptr

    def __hash__(self) -> int:
        return hash(self.ptr)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.ptr} (device {self.device_id})>"

    def __cuda_stream__(self) -> tuple[int, int]:
        """The CUDA stream protocol's (version, handle); the handle is the
        id, which names the stream for arrayd only."""
        return (0, self.ptr)

    def _check_device(self) -> None:
        if self.device_id not in (-1, runtime.getDevice()):
            raise RuntimeError(
                f"The device that the stream is created on ({self.device_id})"
                f" does not match with the current device "
                f"({runtime.getDevice()})")

    def __enter__(self) -> "_BaseStream":
        self._check_device()
        _tls.stack.append(self)
        _tls.set_current(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        stack = _tls.stack
        stack.pop()
        _tls.set_current(stack[-1])

    def use(self) -> "_BaseStream":
        """Makes this stream the thread's current one (``with`` restores
        what a block began with)."""
        self._check_device()
        _tls.set_current(self)
        return self

    @property
    def done(self) -> bool:
        """True if all work queued on this stream is done (host functions
        too)."""
        if self._host is not None and not self._host.idle():
            return False
        return runtime.streamQuery(self.ptr) == runtime.cudaSuccess

    def synchronize(self) -> None:
        """Waits for the work queued on this stream (and its host
        functions); raises a deferred error of the session."""
        runtime.streamSynchronize(self.ptr)
        if self._host is not None:
            self._host.wait()

    def record(self, event: "Event | None" = None) -> "Event":
        """Records ``event`` (a new Event when None) on this stream, after
        the work queued so far; returns it."""
        if event is None:
            event = Event()
        runtime.eventRecord(event.ptr, self.ptr)
        return event

    def wait_event(self, event: "Event") -> None:
        """Work queued on this stream from now on runs after ``event``'s
        last record (none: no wait)."""
        runtime.streamWaitEvent(self.ptr, event.ptr)

    def _host_funcs(self) -> _HostFuncs:
        with self._host_lock:
            if self._host is None:
                self._host = _HostFuncs()
                weakref.finalize(self, self._host.stop).atexit = False
            return self._host

    def launch_host_func(self, callback: Callable[[Any], None],
                         arg: Any) -> None:
        """Calls ``callback(arg)`` on this stream's worker thread once the
        work queued so far is done (after the host functions before it)."""
        event = self.record(Event(disable_timing=True))
        self._host_funcs().put(event, lambda: callback(arg))

    def add_callback(self, callback: Callable[[Any, int, Any], None],
                     arg: Any) -> None:
        """As launch_host_func, calling ``callback(stream, 0, arg)`` (CUDA's
        stream callback: the status is cudaSuccess)."""
        event = self.record(Event(disable_timing=True))
        self._host_funcs().put(event, lambda: callback(self, 0, arg))

    @property
    def is_non_blocking(self) -> bool:
        """True if the stream does not order with the default stream."""
        return runtime.streamGetFlags(self.ptr) == runtime.streamNonBlocking

    @property
    def priority(self) -> int:
        return runtime.streamGetPriority(self.ptr)

    def is_capturing(self) -> bool:
        return False

    def begin_capture(self, mode: Any = None) -> None:
        raise NotImplementedError(
            "arrayd: CUDA graph capture is not supported (the server "
            "schedules the session's ops itself)")

    def end_capture(self) -> Any:
        raise NotImplementedError(
            "arrayd: CUDA graph capture is not supported")


class Stream(_BaseStream):
    """A stream of the server's session, as ``cupy.cuda.Stream``.

    ``null``: the default stream (also ``Stream.null``); ``ptds``: the
    thread's own default stream (``Stream.ptds``); else a new stream,
    ``non_blocking`` (does not order with the default stream), with CUDA's
    ``priority`` (lower runs first). Destroyed when collected, after the
    work queued on it."""

    null: "Stream"
    ptds: "Stream"

    def __init__(self, null: bool = False, non_blocking: bool = False,
                 ptds: bool = False, priority: int | None = None):
        if null:
            super().__init__(0, -1)
        elif ptds:
            super().__init__(runtime.streamPerThread, -1)
        else:
            flag = (runtime.streamNonBlocking if non_blocking
                    else runtime.streamDefault)
            ptr = runtime.streamCreateWithPriority(flag, priority or 0)
            super().__init__(ptr, runtime.getDevice())
            weakref.finalize(self, runtime.streamDestroy, ptr).atexit = False
        self._foreign_stream_ref: Any = None

    @classmethod
    def from_external(cls, obj: Any) -> "Stream":
        """A Stream on the stream that ``obj.__cuda_stream__()`` names
        (another arrayd stream: only arrayd's ids name streams of the
        server). It keeps ``obj`` alive and destroys nothing."""
        try:
            version, ptr = obj.__cuda_stream__()
        except AttributeError as e:
            raise TypeError(
                f"Object of type {type(obj).__name__} does not implement "
                "the CUDA stream protocol (__cuda_stream__ method)") from e
        except (TypeError, ValueError) as e:
            raise TypeError("__cuda_stream__() must return a 2-tuple of "
                            "(version, stream_ptr)") from e
        if not isinstance(version, int) or not isinstance(ptr, int):
            raise TypeError(
                f"__cuda_stream__() must return (int, int), got "
                f"({type(version).__name__}, {type(ptr).__name__})")
        if version != 0:
            raise TypeError(f"__cuda_stream__() returned unsupported version "
                            f"{version}, only version 0 is supported")
        stream = cls.__new__(cls)
        _BaseStream.__init__(stream, ptr, -1)
        stream._foreign_stream_ref = obj
        return stream


class ExternalStream(_BaseStream):
    """A stream this object does not own (deprecated in CuPy 14: use
    Stream.from_external). ``ptr`` must be an arrayd stream id
    (runtime.streamCreate(), another Stream's ptr): CUDA stream handles of
    other libraries name nothing on the server."""

    def __init__(self, ptr: int, device_id: int = -1):
        warnings.warn(
            "ExternalStream is deprecated. Use Stream.from_external() instead "
            "to interoperate with external streams that implement the CUDA "
            "stream protocol.", DeprecationWarning, stacklevel=2)
        super().__init__(int(ptr), device_id)


Stream.null = Stream(null=True)
Stream.ptds = Stream(ptds=True)
_tls = _ThreadLocal()


class Event:
    """An event of the server's session, as ``cupy.cuda.Event``: a point in
    a stream's work that other streams can wait for and the host can wait
    for or time. ``block`` (the host's wait blocks instead of spinning: the
    server's choice), ``disable_timing`` (no timestamps: cheaper, and
    get_elapsed_time refuses it). Interprocess events are not supported."""

    def __init__(self, block: bool = False, disable_timing: bool = False,
                 interprocess: bool = False):
        self.ptr = 0
        if interprocess and not disable_timing:
            raise ValueError("Timing must be disabled for interprocess events")
        flag = ((runtime.eventBlockingSync if block else 0)
                | (runtime.eventDisableTiming if disable_timing else 0)
                | (runtime.eventInterprocess if interprocess else 0))
        self.ptr = runtime.eventCreateWithFlags(flag)
        weakref.finalize(self, runtime.eventDestroy, self.ptr).atexit = False

    @property
    def done(self) -> bool:
        """True if the work before the event's last record is done (or it
        was never recorded)."""
        return runtime.eventQuery(self.ptr) == runtime.cudaSuccess

    def record(self, stream: _BaseStream | None = None) -> None:
        """Records the event on ``stream`` (default: the thread's current
        stream), after the work queued there so far."""
        ptr = _tls.current.ptr if stream is None else stream.ptr
        runtime.eventRecord(self.ptr, ptr)

    def synchronize(self) -> None:
        """Waits for the work before the event's last record; raises a
        deferred error of the session."""
        runtime.eventSynchronize(self.ptr)

    def __repr__(self) -> str:
        return f"<arrayd.cuda.Event {self.ptr}>"


def get_elapsed_time(start_event: Event, end_event: Event) -> float:
    """Milliseconds from ``start_event`` to ``end_event`` (device time; a
    host timestamp on the CPU backend). CUDARuntimeError when either was
    never recorded or has timing disabled."""
    return runtime.eventElapsedTime(start_event.ptr, end_event.ptr)
