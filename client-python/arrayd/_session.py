"""Session: one session on an arrayd server, its handles and batching.

Layer: session (above _transport, _wire and _shm; below everything that
makes arrays). Ops are recorded into a pending ClientMessage (cheap: no
round trip, no syscall) and sent in batches: at a sync point, when the
batch is full, or after a short delay by a background flusher thread.
Frees of collected arrays ride along with the next message. Bulk data
uses the Upload/Download RPCs, or shared memory on the same host (for an
array in the user's pinned memory, a HostSegment, that memory itself).

Streams (arrayd.cuda.Stream): each thread has a current stream id
(``thread_stream``, 0 by default) that record() puts in Op.stream. A stream
is made on the server lazily, by a StreamSpec sent with the first message
that needs it (its flags are in ``stream_specs``); destroyed streams and
forgotten events ride along with the next message, as frees do. Syncs can
wait for one stream or event, or only ask (sync_scope).

Thread safety: a Session may be used from several threads. ``_lock`` guards
only the pending message (record and swap); ``_sync_lock`` serializes sync
points, which read the response stream in the calling thread.
"""
from __future__ import annotations

import atexit
import collections
import itertools
import logging
import math
import os
import queue
import threading
import time
import weakref
from typing import Any, Iterator, Sequence

import grpc
import numpy as np

from arrayd import _dtypes, _progress, _shm, _transport, _wire
from arrayd._wire import set_attr
from arrayd._errors import (CUDA_ERROR_INVALID_RESOURCE_HANDLE,
                            ConnectionError, CUDARuntimeError,
                            SessionClosedError, from_op_error, from_rpc_error,
                            from_sync_error)
from arrayd._proto import pb

_log = logging.getLogger("arrayd")

_BATCH_OPS = 256        # flush when this many ops are pending
_FLUSH_DELAY_S = 0.001  # the flusher sends a batch this long after its 1st op
_IDLE_S = 0.0002        # an op recorded this long after the last send goes at once
_LARGE_BATCH_S = 50e-6  # a batch with large ops waits at most this long in record
# Ops on at most this many elements are small (record's `small`): a GPU
# runs them in about the time a message takes to send.
_SMALL_OP_ELEMENTS = 1 << 16


def is_small(shape: tuple[int, ...]) -> bool:
    """Whether an op whose largest operand has ``shape`` is small (record)."""
    return math.prod(shape) <= _SMALL_OP_ELEMENTS


class _ThreadStream(threading.local):
    """The current stream of each thread: what arrayd.cuda's Stream.use()
    and ``with stream:`` set (0: the default stream)."""

    stream = 0


thread_stream = _ThreadStream()
streams_in_use = False  # some thread has set a stream other than 0


def set_thread_stream(stream: int) -> None:
    """Makes ``stream`` the calling thread's current stream id."""
    global streams_in_use
    if stream:
        streams_in_use = True
    thread_stream.stream = stream


# The flags of every stream id in use in this process (arrayd.cuda makes
# and forgets them): id -> (non_blocking, priority). A session makes a
# stream from them the first time an op or sync names it.
stream_specs: dict[int, tuple[bool, int]] = {}


class _SegmentRefused(Exception):
    """The server has no such shared memory segment: it refused the one
    this session sent (or never got it)."""

    @staticmethod
    def matches(error: pb.OpError) -> bool:
        return "shared memory segment" in error.message and (
            "is attached" in error.message or "cannot map" in error.message)


class Session:
    """One session on an arrayd server: the OpStream, handles and batching.

    Arrays of a session are freed when it closes (``close()``, process exit,
    or loss of the connection); using them afterwards raises
    SessionClosedError.
    """

    def __init__(self, address: str, client_name: str = "arrayd-python",
                 credentials: _transport.Credentials | None = None):
        self.address = address
        self._closed = False  # no more ops: disconnected or stream lost
        self._torn_down = False  # close() ran: channel closed
        self._closed_reason = "the session is closed"
        creds = credentials or _transport.Credentials()
        self._channel = ch = _transport.open_channel(address, creds)
        try:
            self.capabilities: pb.Capabilities = (
                _transport.get_capabilities(ch))
        except grpc.RpcError as e:
            ch.close()
            raise ConnectionError(
                f"cannot reach arrayd at {address!r}: {e.details()}") from None
        self.max_inline_bytes = self.capabilities.max_inline_bytes or (1 << 20)
        self._upload_rpc = _transport.upload_rpc(ch)
        self._download_rpc = _transport.download_rpc(ch)

        self._handles = itertools.count(1)
        self._sync_ids = itertools.count(1)
        self._lock = threading.Lock()
        self._sync_lock = threading.RLock()
        self._pending = pb.ClientMessage()
        self._frees: collections.deque[int] = collections.deque()
        self._freeing: set[int] = set()  # the handles in _frees
        self._deferred: list[pb.OpError] = []
        # Streams made on the server (StreamSpec sent or queued), events
        # recorded there, and what to destroy or forget with the next
        # message (deques: filled by finalizers on any thread, lock-free).
        self._streams: set[int] = set()
        self._events: set[int] = set()
        self._stream_frees: collections.deque[int] = collections.deque()
        self._event_frees: collections.deque[int] = collections.deque()
        # HostSegments (pinned memory) handed to the server, and those to
        # release with the next message (their last reference went).
        self._attached: set[str] = set()
        self._segment_releases: collections.deque[str] = collections.deque()
        # What ops in flight read (pinned buffers of uploads): kept until a
        # sync that waits for every stream.
        self._held: list[Any] = []
        # Constant 0-d inputs (Python scalars), see _ndarray.scalar().
        self.scalars: dict[tuple[Any, ...], Any] = {}
        # Where messages are put to be sent, and the server's messages:
        # a queue read by gRPC's thread and the gRPC response stream, or
        # both the same-host LocalStream.
        self._requests: (queue.SimpleQueue[pb.ClientMessage | None]
                         | _transport.LocalStream) = queue.SimpleQueue()
        self._responses: Iterator[pb.ServerMessage]
        self._wake = threading.Event()
        # The flusher ticks while ops come; after a quiet spell it sleeps
        # until record() wakes it (no wake-up per batch in a busy loop).
        self._flusher_asleep = False
        self._last_send = 0.0  # perf_counter() of the last message sent
        self._eager = False  # send the next op at once (see record)
        self._pending_large = False  # _pending holds an op that is not small
        # Shared memory, same host only: the arena for transfers (one at a
        # time), the pool of segments loaned to downloaded arrays.
        self._arena: _shm.ShmArena | None = None
        self._arena_lock = threading.Lock()
        self._loans: _shm.LoanPool | None = None
        self._shm_ok = True

        first = pb.ClientMessage()
        first.open.client_name = client_name
        first.open.auth_token = creds.token
        first.open.client_pid = os.getpid()
        msg = self._open_local(first)
        if msg is None:
            self._responses = _transport.op_stream(ch, self._request_iter())
            self._requests.put(first)
            try:
                msg = next(self._responses)
            except (grpc.RpcError, StopIteration) as e:
                self._closed = True
                ch.close()
                detail = e.details() if isinstance(e, grpc.RpcError) else "closed"
                raise ConnectionError(
                    f"arrayd at {address!r} refused the session: {detail}"
                ) from None
        self.session_id: int = msg.opened.session_id
        self._token: str = msg.opened.session_token
        self.backend: str = msg.opened.backend

        self._flusher = threading.Thread(
            target=_flusher_main, args=(weakref.ref(self), self._wake),
            name="arrayd-flusher", daemon=True)
        self._flusher.start()
        _open_sessions.add(self)

    # -- op path ---------------------------------------------------------

    def _open_local(self, first: pb.ClientMessage) -> pb.ServerMessage | None:
        """Opens the session over the server's same-host socket when it
        offers one and it is this server's (the SessionOpened there names
        the server id that Capabilities gave): its SessionOpened, else None
        (the op stream then goes over gRPC)."""
        caps = self.capabilities
        local = _transport.LocalStream.connect(caps.local_op_socket)
        if local is None:
            return None
        local.put(first)
        try:
            msg = next(local)
        except StopIteration:
            return None
        if msg.opened.error:
            local.close()
            self._channel.close()
            raise ConnectionError(f"arrayd at {self.address!r} refused the "
                                  f"session: {msg.opened.error}")
        if msg.opened.server_id != caps.server_id:
            _log.warning("arrayd: the same-host socket %s belongs to another "
                         "server; using gRPC", caps.local_op_socket)
            local.put(None)
            local.close()
            return None
        # Same host: the op stream over the server's unix socket.
        self._requests = local
        self._responses = local
        return msg

    def new_handle(self) -> int:
        """A fresh client-assigned handle (never reused in this session)."""
        return next(self._handles)

    def record(self, name: str, inputs: Sequence[int], outputs: Sequence[int],
               attrs: dict[str, Any] | None = None, small: bool = False,
               stream: int | None = None, hold: Any = None) -> None:
        """Queues one op; it is sent with the next batch.

        ``small``: an op on few elements (see is_small), which the device
        runs in a few microseconds, less than a message costs: it is never
        sent on its own after a quiet spell, but with the next op that is,
        by the flusher, or with a sync (add + sum + float() of small arrays
        is one message). ``stream``: the stream id it runs on (default: the
        thread's current stream). ``hold``: an object the op reads from
        while it runs (a pinned buffer), kept alive until a sync that waits
        for every stream."""
        if self._closed:
            raise SessionClosedError(self._closed_reason)
        if self._freeing and not self._freeing.isdisjoint(inputs):
            # A bug in the caller: the array was dropped before this op was
            # recorded, so its free may already be on its way.
            raise RuntimeError(f"arrayd: op {name!r} names a freed array")
        if stream is None:
            # A thread-local read costs about as much as the rest of this
            # check (measured): skipped until a thread leaves stream 0.
            stream = thread_stream.stream if streams_in_use else 0
        if stream and stream not in self._streams:
            self.ensure_stream(stream)
        with self._lock:
            op = self._pending.ops.add(name=name, inputs=inputs,
                                       outputs=outputs)
            if stream:
                op.stream = stream
            if attrs:
                oa = op.attrs
                for k, v in attrs.items():
                    set_attr(oa[k], v)
            if hold is not None:
                self._held.append(hold)
            n = len(self._pending.ops)
            first_large = not small and not self._pending_large
            if not small:
                self._pending_large = True
        if first_large:
            # After a quiet spell the server may be idle: send the op now
            # so the device starts at once, and the next one too (it
            # reaches the server while its reader still polls, and keeps
            # the device busy until the rest of a burst, batched behind
            # them, is sent by the flusher or a sync).
            if time.perf_counter() - self._last_send > _IDLE_S:
                self._eager = True
                self.flush()
                return
            if self._eager:
                self._eager = False
                self.flush()
                return
        elif not small and time.perf_counter() - self._last_send > _LARGE_BATCH_S:
            # A batch with large ops has waited while this thread recorded
            # more (host work between ops, as a composite's steps): the
            # device, which runs a large op in microseconds, may have run
            # out of work, and the flusher may not run for a switch
            # interval (5 ms) or the sync may be many calls away; send it
            # from here and keep the device fed (fftconvolve's five large
            # ops a call waited for the sync, the device idle meanwhile).
            self.flush()
            return
        if n == 1 and self._flusher_asleep:
            self._flusher_asleep = False
            self._wake.set()
        elif n >= _BATCH_OPS:
            self.flush()

    def free(self, handle: int) -> None:
        """Queues a free (sent with the next message). Never raises."""
        if not self._closed:
            self._freeing.add(handle)
            self._frees.append(handle)

    # -- streams and events ----------------------------------------------

    def ensure_stream(self, stream: int) -> None:
        """Makes stream ``stream`` on the server, before the next op, unless
        this session has it already (a StreamSpec with the next message).
        CUDARuntimeError for an id that names no stream of this process."""
        if stream == 0 or stream in self._streams:
            return
        spec = stream_specs.get(stream)
        if spec is None:
            raise CUDARuntimeError(
                CUDA_ERROR_INVALID_RESOURCE_HANDLE,
                f"cudaErrorInvalidResourceHandle: invalid resource handle "
                f"({stream} is not a stream of this client: destroyed, or "
                "never made)")
        with self._lock:
            # Added to the set after the spec is queued, under the lock: an
            # op of another thread that finds the id in the set is queued
            # after the spec.
            if stream not in self._streams:
                self._pending.new_streams.add(id=stream, non_blocking=spec[0],
                                              priority=spec[1])
                self._streams.add(stream)

    def has_stream(self, stream: int) -> bool:
        """Whether this session has made stream ``stream``."""
        return stream == 0 or stream in self._streams

    def free_stream(self, stream: int) -> None:
        """Destroys stream ``stream`` on the server after the ops queued so
        far (with the next message), if this session made it. Lock-free:
        a finalizer on any thread may call it. Never raises."""
        if stream in self._streams:
            self._streams.discard(stream)
            if not self._closed:
                self._stream_frees.append(stream)

    def recorded_event(self, event: int) -> None:
        """Notes that an event_record op for ``event`` was queued."""
        self._events.add(event)

    def has_event(self, event: int) -> bool:
        """Whether an event_record of ``event`` was queued in this session."""
        return event in self._events

    def free_event(self, event: int) -> None:
        """Has the server forget event ``event`` after the ops queued so far
        (with the next message), if it was recorded here. As free_stream:
        lock-free, never raises."""
        if event in self._events:
            self._events.discard(event)
            if not self._closed:
                self._event_frees.append(event)

    def flush(self, sync: pb.Sync | None = None) -> list[Any]:
        """Sends the pending ops and frees (and ``sync``, a Sync message to
        send with them) as one message. Returns what record()'s ``hold``
        kept for the ops sent, when ``sync`` waits for every stream (the
        caller drops it once the reply came), else []."""
        with self._lock:
            msg = self._pending
            # Frees first: every op naming a handle queued for freeing was
            # recorded before the free, hence is in this message or earlier.
            frees = self._frees
            n = len(frees)
            if n:
                sent = [frees.popleft() for _ in range(n)]
                msg.frees.extend(sent)
                self._freeing.difference_update(sent)
            # The same holds for streams, events and segments: the server
            # destroys streams and forgets events after the message's ops,
            # and the releases are ops at the end of the message.
            if self._segment_releases:
                _drain(self._segment_releases, lambda name: set_attr(
                    msg.ops.add(name="release_shm").attrs["segment"], name))
            if sync is None and not n and not msg.ops:
                # Nothing to send. Destroyed streams and events wait for a
                # message with ops, frees or a sync: the server skips one
                # without (service.cc, local_transport.cc).
                return []
            _drain(self._stream_frees, msg.free_streams.append)
            _drain(self._event_frees, msg.free_events.append)
            held: list[Any] = []
            if sync is not None:
                msg.sync.CopyFrom(sync)
                self._eager = False  # a sync ends the burst
                if sync.scope == pb.SYNC_ALL and not sync.query:
                    held, self._held = self._held, []
            self._pending = pb.ClientMessage()
            self._pending_large = False
            self._requests.put(msg)
            self._last_send = time.perf_counter()
        return held

    def _request_iter(self) -> Iterator[pb.ClientMessage]:
        get = self._requests.get
        while True:
            msg = get()
            if msg is None:
                return
            yield msg

    # -- sync points -----------------------------------------------------

    def check_open(self) -> None:
        if self._closed:
            raise SessionClosedError(self._closed_reason)

    def _sync(self, fetch: Sequence[int] = (), scope: int = 0, target: int = 0,
              query: bool = False, elapsed_from: int = 0) -> pb.SyncReply:
        with self._sync_lock:
            self.check_open()
            sid = next(self._sync_ids)
            sync = pb.Sync(sync_id=sid, fetch=fetch, scope=scope,
                           target=target, query=query,
                           elapsed_from=elapsed_from)
            held = self.flush(sync)
            while True:
                try:
                    msg = next(self._responses)
                except StopIteration:
                    self._mark_closed("the server ended the session")
                    raise ConnectionError(
                        f"arrayd at {self.address!r} ended the session"
                    ) from None
                except grpc.RpcError as e:
                    self._mark_closed(
                        f"the session's stream failed: {e.details()}")
                    raise from_rpc_error(e, "OpStream") from None
                if msg.HasField("sync") and msg.sync.sync_id == sid:
                    del held  # every op that read them has run
                    return msg.sync

    def synchronize(self) -> None:
        """Waits for all queued ops; raises the first deferred error."""
        reply = self._sync()
        errors = self._deferred + list(reply.errors)
        self._deferred = []
        if errors:
            raise from_op_error(errors[0])

    def sync_scope(self, scope: int = pb.SYNC_ALL, target: int = 0,
                   query: bool = False, elapsed_from: int = 0) -> pb.SyncReply:
        """A sync of one scope (Sync's fields): SYNC_ALL, SYNC_STREAM
        ``target`` or SYNC_EVENT ``target``; ``query``: wait for nothing,
        the reply's ``done`` says whether the scope's work is done;
        ``elapsed_from``: the reply's ``elapsed_ms`` from that event to the
        event ``target``. Raises the server's refusal of the sync itself
        (SyncReply.error: CUDARuntimeError for an unknown stream or event);
        then, unless ``query`` or ``elapsed_from``, the first deferred
        error (those are otherwise kept for the next synchronize())."""
        if scope == pb.SYNC_STREAM:
            self.ensure_stream(target)
        reply = self._sync(scope=scope, target=target, query=query,
                           elapsed_from=elapsed_from)
        self._deferred.extend(reply.errors)
        if reply.HasField("error") and (reply.error.kind or
                                        reply.error.message):
            raise from_sync_error(reply.error)
        if not query and not elapsed_from and self._deferred:
            errors, self._deferred = self._deferred, []
            raise from_op_error(errors[0])
        return reply

    def fetch(self, handles: Sequence[int]) -> list[np.ndarray]:
        """Waits for the arrays and returns their data as numpy arrays.

        Raises the error that poisoned a fetched array; other deferred
        errors are kept for the next synchronize().
        """
        out = []
        for h, f in zip(handles, self._fetched(handles)):
            dtype = _dtypes.from_pb(f.dtype)
            shape = tuple(f.shape)
            if f.inline:
                arr = np.frombuffer(f.data, dtype=dtype).reshape(shape).copy()
            elif self._shm_usable():
                arr = self._download_shm(h, dtype, shape)
            else:
                arr = self._download(h)
            out.append(arr)
        return out

    def dtypes(self, handles: Sequence[int]) -> list[np.dtype]:
        """Waits for the arrays and returns the dtypes the server gave them
        (ops whose result dtype depends on values: eig). Raises the error
        that poisoned one; other deferred errors are kept, as fetch's."""
        return [_dtypes.from_pb(f.dtype) for f in self._fetched(handles)]

    def _fetched(self, handles: Sequence[int]) -> list[Any]:
        """A sync fetching `handles`: their Fetched replies, in order.
        Raises the error that poisoned one; other deferred errors are kept
        for the next synchronize()."""
        reply = self._sync(fetch=handles)
        if reply.errors:
            self._deferred.extend(reply.errors)
        by_handle = {f.handle: f for f in reply.fetched}
        out = []
        for h in handles:
            f = by_handle.get(h)
            if f is None:
                raise RuntimeError(f"server did not answer fetch of {h}")
            if f.HasField("error") and (f.error.kind or f.error.message):
                raise from_op_error(f.error)
            out.append(f)
        return out

    # -- bulk data -------------------------------------------------------

    def _download(self, handle: int) -> np.ndarray:
        self.check_open()
        req = pb.DownloadRequest(session_id=self.session_id, handle=handle,
                                 session_token=self._token)
        out = flat = None
        pos = total = 0
        bar: Any = None
        try:
            for header, data in self._download_rpc(req):
                if out is None:
                    dtype = _dtypes.from_pb(header.dtype)
                    out = np.empty(tuple(header.shape), dtype=dtype)
                    flat = out.reshape(-1).view(np.uint8)
                    total = header.total_bytes or out.nbytes
                    if total != out.nbytes:
                        raise RuntimeError(
                            f"Download of {handle}: total_bytes {total} != "
                            f"{out.nbytes} for {out.shape} {out.dtype}")
                    bar = _progress.transfer(total, "arrayd download")
                n = len(data)
                flat[pos:pos + n] = np.frombuffer(data, dtype=np.uint8)
                pos += n
                bar.update(n)
        except grpc.RpcError as e:
            raise from_rpc_error(e, "Download") from None
        finally:
            if bar is not None:
                bar.close()
        if out is None:
            raise RuntimeError(f"Download of {handle}: empty reply")
        if pos != total:
            raise RuntimeError(
                f"Download of {handle}: got {pos} of {total} bytes")
        return out

    # Shared memory (same host): segments are memfds handed to the server
    # over the same-host socket. When none can be made, or the server
    # refuses one, transfers go over gRPC from then on (logged once).

    def _shm_usable(self) -> bool:
        return self._shm_ok and isinstance(self._requests, _transport.LocalStream)

    def _shm_failed(self, why: str) -> None:
        self._shm_ok = False
        _log.warning("arrayd: shared memory transfers are off for session %s "
                     "(%s); bulk data goes over gRPC", self.session_id, why)

    def _send_segment(self, name: str, fd: int) -> None:
        """Hands segment `name` to the server (before any op names it)."""
        self.check_open()
        self._requests.put(pb.ClientMessage(segments=[name]), fds=(fd,))

    def _release_segment(self, name: str) -> None:
        """Has the server forget segment `name` (ordered after every op
        that named it)."""
        if not self._closed:
            self.record("release_shm", (), (), {"segment": name})

    def _shm_arena(self) -> _shm.ShmArena:
        if self._arena is None:
            self._arena = _shm.ShmArena(self._send_segment, self._release_segment)
        return self._arena

    def _download_shm(self, handle: int, dtype: np.dtype,
                      shape: tuple[int, ...]) -> np.ndarray:
        """Large array through shared memory (same host): a view on a loaned
        segment when it is large enough and the pool has room, else copied
        out of the session's arena; over gRPC when shared memory fails."""
        nbytes = dtype.itemsize * math.prod(shape)
        try:
            if nbytes >= _shm.env_bytes("ARRAYD_SHM_LOAN_MIN_BYTES",
                                        _shm.LOAN_MIN_BYTES):
                arr = self._download_loan(handle, dtype, shape, nbytes)
                if arr is not None:
                    return arr
            with self._arena_lock:
                out = np.empty(shape, dtype=dtype)
                arena = self._shm_arena()
                segment = arena.view(nbytes)
                self._download_into(handle, arena.name)
                _shm.parallel_copy(out.reshape(-1).view(np.uint8),
                                   segment[:nbytes])
            return out
        except _SegmentRefused as e:
            self._shm_failed(str(e))
        except OSError as e:
            self._shm_failed(f"no shared memory segment: {e}")
        return self._download(handle)

    def _download_into(self, handle: int, segment: str) -> None:
        """Has the server write the array's C-order bytes into `segment`;
        raises the op's error (others are deferred); _SegmentRefused when
        the server has no such segment."""
        self.record("download_shm", (handle,), (),
                    {"segment": segment, "offset": 0})
        reply = self._sync()
        for e in reply.errors:
            if e.op == "download_shm":
                if _SegmentRefused.matches(e):
                    raise _SegmentRefused(e.message)
                raise from_op_error(e)
        self._deferred.extend(reply.errors)

    def _download_loan(self, handle: int, dtype: np.dtype,
                       shape: tuple[int, ...], nbytes: int) -> np.ndarray | None:
        """The array as a view on a segment loaned to it, or None when the
        pool is at its cap or has no segment (the caller copies instead)."""
        if self._loans is None:
            self._loans = _shm.LoanPool(self._send_segment)
        pool = self._loans
        segment, dropped = pool.acquire(
            nbytes, _shm.env_bytes("ARRAYD_SHM_LOAN_MAX_BYTES",
                                   _shm.LOAN_MAX_BYTES))
        for old in dropped:
            self._release_segment(old.name)
            old.remove()
        if segment is None:
            return None
        try:
            self._download_into(handle, segment.name)
        except BaseException:
            pool.give_back(segment)
            raise
        return pool.lend(segment, dtype, shape, nbytes)

    def upload(self, arr: np.ndarray) -> int:
        """Copies a numpy array into a new handle and returns the handle.

        An array in pinned memory (a HostSegment, same host) is read by the
        server from there when the op runs, as CUDA's asynchronous copy
        from pinned memory: it must not change until a sync."""
        dt = _dtypes.normalize(arr.dtype)
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr).reshape(arr.shape)
        h = self.new_handle()
        shape = [int(d) for d in arr.shape]
        if _shm._host_starts and self._upload_pinned(h, arr, dt, shape):
            return h
        if arr.nbytes <= self.max_inline_bytes:
            self.record("upload", (), (h,),
                        {"dtype": dt, "shape": shape, "data": arr.tobytes()})
            return h
        self.check_open()
        if self._shm_usable():
            if self._upload_shm(h, arr, dt, shape):
                return h
            self.free(h)  # poisoned by the refused upload_shm
            h = self.new_handle()
        self.flush()
        header = pb.UploadChunk(session_id=self.session_id, handle=h,
                                session_token=self._token,
                                dtype=_dtypes.to_pb(dt),
                                shape=shape).SerializeToString()
        flat = memoryview(arr.reshape(-1).view(np.uint8))
        bar = _progress.transfer(len(flat), "arrayd upload")

        def chunks() -> Iterator[bytes]:
            left = len(flat)
            for chunk in _wire.upload_chunks(header, flat):
                yield chunk
                step = min(_wire.UPLOAD_CHUNK_BYTES, left)
                bar.update(step)
                left -= step

        try:
            self._upload_rpc(chunks())
        except grpc.RpcError as e:
            raise from_rpc_error(e, "Upload") from None
        finally:
            bar.close()
        return h

    def upload_into(self, handle: int, arr: np.ndarray) -> None:
        """Writes a numpy array of the handle's shape into the existing
        array ``handle`` (ndarray.set), from pinned memory without a copy
        (then asynchronous, as upload's), else through a new handle."""
        dt = _dtypes.normalize(arr.dtype)
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr).reshape(arr.shape)
        if _shm._host_starts and self._upload_pinned(
                handle, arr, dt, [int(d) for d in arr.shape]):
            return
        tmp = self.upload(arr)
        self.record("copy", (tmp,), (handle,))
        self.free(tmp)

    def _attach(self, segment: _shm.HostSegment) -> None:
        """Hands a HostSegment to the server once (before an op names it)."""
        if segment.name not in self._attached:
            self._send_segment(segment.name, segment.fd)
            self._attached.add(segment.name)

    def _pinned_segment(self, arr: np.ndarray) -> tuple[Any, int] | None:
        """The HostSegment ``arr`` lies in and its offset there, handed to
        the server; None when it lies in none or shared memory is off."""
        found = _shm.host_segment_of(arr)
        if found is None or not self._shm_usable():
            return None
        try:
            self._attach(found[0])
        except OSError as e:
            self._shm_failed(f"cannot send a pinned segment: {e}")
            return None
        return found

    def _upload_pinned(self, h: int, arr: np.ndarray, dt: Any,
                       shape: list[int]) -> bool:
        """upload_shm of a C-contiguous array that lies in a HostSegment,
        into handle ``h`` (new or existing); False when it does not (or
        shared memory is off), and nothing was recorded."""
        found = self._pinned_segment(arr)
        if found is None:
            return False
        segment, offset = found
        # The segment is held (through arr) until the op has read it.
        self.record("upload_shm", (), (h,),
                    {"segment": segment.name, "offset": offset, "dtype": dt,
                     "shape": shape}, hold=arr)
        return True

    def download_to_host(self, handle: int, out: np.ndarray) -> bool:
        """Writes array ``handle`` into ``out`` (C-contiguous, of its shape
        and dtype) when ``out`` lies in a HostSegment: download_shm there,
        then a sync (raises the op's error). False when it does not."""
        if not out.flags.c_contiguous or not out.flags.writeable:
            return False
        found = self._pinned_segment(out)
        if found is None:
            return False
        segment, offset = found
        self.record("download_shm", (handle,), (),
                    {"segment": segment.name, "offset": offset})
        reply = self._sync()
        for e in reply.errors:
            if e.op == "download_shm":
                raise from_op_error(e)
        self._deferred.extend(reply.errors)
        return True

    def _upload_shm(self, h: int, arr: np.ndarray, dt: Any,
                    shape: list[int]) -> bool:
        """Same host: `arr` into handle `h` through shared memory, then a
        sync so that the segment can be reused (upload errors surface at the
        fetch). False when shared memory failed (then it is off)."""
        try:
            with self._arena_lock:
                arena = self._shm_arena()
                _shm.parallel_copy(arena.view(arr.nbytes),
                                   arr.reshape(-1).view(np.uint8))
                self.record("upload_shm", (), (h,),
                            {"segment": arena.name, "offset": 0, "dtype": dt,
                             "shape": shape})
                errors = list(self._sync().errors)
        except OSError as e:
            self._shm_failed(f"no shared memory segment: {e}")
            return False
        refused = [e for e in errors
                   if e.op == "upload_shm" and _SegmentRefused.matches(e)]
        self._deferred.extend(e for e in errors if e not in refused)
        if refused:
            self._shm_failed(refused[0].message)
            return False
        return True

    # -- lifetime --------------------------------------------------------

    def _mark_closed(self, reason: str) -> None:
        self._closed = True
        self._closed_reason = (f"arrayd session {getattr(self, 'session_id', '?')}"
                               f" at {self.address!r} is closed: {reason}")
        self._wake.set()

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Ends the session; the server frees all its arrays."""
        if self._torn_down:
            return
        self._torn_down = True
        if not self._closed:
            self._mark_closed("disconnected")
        self.scalars.clear()
        self._requests.put(None)  # ends the request stream (half-close)
        if self._arena is not None:
            self._arena.close()
        if self._loans is not None:
            self._loans.close()  # loaned arrays keep their mappings
        # Give the server a moment to end the stream, then tear down.
        done = threading.Event()
        try:
            self._responses.add_done_callback(lambda _: done.set())
            done.wait(1.0)
        except Exception:
            pass
        self._channel.close()
        _open_sessions.discard(self)

    def __enter__(self) -> "Session":
        entered.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        entered.remove(self)

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return (f"<arrayd.Session {getattr(self, 'session_id', '?')} "
                f"{self.address!r} {state}>")


_FLUSHER_IDLE_TICKS = 50  # ticks with nothing to send before it sleeps


def _flusher_main(ref: "weakref.ref[Session]", wake: threading.Event) -> None:
    """Sends what is pending every _FLUSH_DELAY_S while ops come in (so a
    batch waits at most that long); after _FLUSHER_IDLE_TICKS quiet ticks
    it sleeps until record() wakes it. record() appends an op before it
    reads _flusher_asleep, and the flusher sets it before it looks for
    pending ops, so no op is left behind by a flusher going to sleep."""
    quiet = 0
    while True:
        if quiet >= _FLUSHER_IDLE_TICKS:
            s = ref()
            if s is None or s._closed:
                return
            s._flusher_asleep = True
            pending = bool(s._pending.ops)
            del s
            if not pending:
                wake.wait()
            wake.clear()
            quiet = 0
        time.sleep(_FLUSH_DELAY_S)
        s = ref()
        if s is None or s._closed:
            return
        if s._pending.ops:
            quiet = 0
            try:
                s.flush()
            except Exception:  # never let the flusher die on a transient error
                pass
        else:
            quiet += 1
        del s


def _drain(queue_: collections.deque[Any], put: Any) -> None:
    """Moves what is in a deque that finalizers append to (lock-free) to
    ``put``, up to what was there when it began."""
    for _ in range(len(queue_)):
        put(queue_.popleft())


# Sessions of the `with session:` blocks now open, innermost last.
entered: list[Session] = []
_open_sessions: "weakref.WeakSet[Session]" = weakref.WeakSet()


def _segment_gone(name: str) -> None:
    """A HostSegment went: the sessions that attached it release it with
    their next message (called from a finalizer: no locks)."""
    for s in list(_open_sessions):
        if name in s._attached:
            s._attached.discard(name)
            if not s._closed:
                s._segment_releases.append(name)


_shm.segment_gone_hooks.append(_segment_gone)


@atexit.register
def _close_all() -> None:
    for s in list(_open_sessions):
        try:
            s.close()
        except Exception:
            pass
