"""Transport: one session = one OpStream to an arrayd server.

Ops are recorded into a pending ClientMessage (cheap: no round trip, no
syscall) and sent in batches: at a sync point, when the batch is full, or
after a short delay by a background flusher thread. Frees of collected arrays
ride along with the next message. Bulk data uses the Upload/Download RPCs.

Thread safety: a Session may be used from several threads. ``_lock`` guards
only the pending message (record and swap); ``_sync_lock`` serializes sync
points, which read the response stream in the calling thread.
"""
from __future__ import annotations

import atexit
import collections
import contextlib
import fcntl
import itertools
import math
import os
import queue
import shutil
import subprocess
import socket
import struct
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import grpc
import numpy as np

from arrayd import _dtypes
from arrayd._errors import (ConnectionError, SessionClosedError,
                            from_op_error, from_rpc_error)
from arrayd._proto import pb

_SERVICE = "/arrayd.v1.Arrayd/"
_MAX_MESSAGE = 64 << 20
_CHANNEL_OPTIONS = [
    ("grpc.max_send_message_length", _MAX_MESSAGE),
    ("grpc.max_receive_message_length", _MAX_MESSAGE),
]
_BATCH_OPS = 256        # flush when this many ops are pending
_FLUSH_DELAY_S = 0.001  # the flusher sends a batch this long after its 1st op
_IDLE_S = 0.0002        # an op recorded this long after the last send goes at once
# Ops on at most this many elements are small (record's `small`): a GPU
# runs them in about the time a message takes to send.
_SMALL_OP_ELEMENTS = 1 << 16


def is_small(shape: tuple[int, ...]) -> bool:
    """Whether an op whose largest operand has ``shape`` is small (record)."""
    return math.prod(shape) <= _SMALL_OP_ELEMENTS


def _poll_seconds() -> float:
    """How long a same-host reply is polled for before a blocking read
    (ARRAYD_LOCAL_POLL_US, default 20000 us; 0 blocks at once). A thread
    woken from a blocking read after a few hundred microseconds of GPU work
    cost ~100 us on the GPU machine (an idle core's wake-up), so the client
    polls through waits as CUDA's own synchronize spins; after the first
    _SPIN_ONLY_S it yields the core between reads (os.sched_yield), which
    keeps a long poll from starving the server on a small machine."""
    try:
        return max(0.0, float(os.environ.get("ARRAYD_LOCAL_POLL_US", "20000")) * 1e-6)
    except ValueError:
        return 20000e-6


_SPIN_S = _poll_seconds()
_SPIN_ONLY_S = 50e-6
_CHUNK_BYTES = 4 << 20  # Upload chunk size
_FRAME_HEADER = struct.Struct("<I")  # same-host frames: length, then message


def _env_bytes(name: str, default: int) -> int:
    """A byte count from the environment (read at each use, so tests can
    change it), else ``default``."""
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


# Same-host downloads of at least ARRAYD_SHM_LOAN_MIN_BYTES return a view on
# a shared memory segment loaned to the result (no client-side copy); all
# loan segments of a session, loaned or free, stay under
# ARRAYD_SHM_LOAN_MAX_BYTES. See _LoanPool.
_LOAN_MIN_BYTES = 64 << 20
_LOAN_MAX_BYTES = 4 << 30

_START_TIMEOUT_S = 10.0


def _set_attr(av: pb.AttrValue, v: Any) -> None:
    """Stores a Python value in an AttrValue (bool/int/float/complex/...)."""
    t = type(v)
    if t is bool:
        av.b = v
    elif t is int:
        av.i = v
    elif t is float:
        av.f = v
    elif t is tuple or t is list:
        ints = av.ints
        ints.SetInParent()  # an empty list is still a value (0-d shape)
        ints.values.extend(v)
    elif t is complex:
        av.c.real = v.real
        av.c.imag = v.imag
    elif isinstance(v, np.dtype):
        av.dtype = _dtypes.to_pb(v)
    elif t is bytes:
        av.data = v
    elif t is str:
        av.s = v
    else:
        raise TypeError(f"cannot encode attribute value {v!r} of type {t}")


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _parse_download_chunk(raw: bytes) -> tuple[pb.DownloadChunk, memoryview]:
    """Splits a serialized DownloadChunk into its small fields and a view of
    its data, so the payload is copied once (into the result array) only."""
    mv = memoryview(raw)
    data = mv[0:0]
    header = []
    pos, end = 0, len(raw)
    while pos < end:
        start = pos
        key, pos = _read_varint(raw, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = _read_varint(raw, pos)
        elif wire == 2:
            n, pos = _read_varint(raw, pos)
            if field == 4:  # DownloadChunk.data
                data = mv[pos:pos + n]
                pos += n
                continue
            pos += n
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        else:
            raise RuntimeError(f"bad wire type {wire} in DownloadChunk")
        header.append(raw[start:pos])
    return pb.DownloadChunk.FromString(b"".join(header)), data


def _identity(b: bytes) -> bytes:
    return b


class Session:
    """One session on an arrayd server: the OpStream, handles and batching.

    Arrays of a session are freed when it closes (``close()``, process exit,
    or loss of the connection); using them afterwards raises
    SessionClosedError.
    """

    def __init__(self, address: str, client_name: str = "arrayd-python"):
        self.address = address
        self._closed = False  # no more ops: disconnected or stream lost
        self._torn_down = False  # close() ran: channel closed
        self._closed_reason = "the session is closed"
        self._channel = grpc.insecure_channel(address,
                                              options=_CHANNEL_OPTIONS)
        ch = self._channel
        caps = ch.unary_unary(
            _SERVICE + "GetCapabilities",
            request_serializer=pb.GetCapabilitiesRequest.SerializeToString,
            response_deserializer=pb.Capabilities.FromString)
        try:
            self.capabilities: pb.Capabilities = caps(
                pb.GetCapabilitiesRequest(), timeout=_START_TIMEOUT_S)
        except grpc.RpcError as e:
            ch.close()
            raise ConnectionError(
                f"cannot reach arrayd at {address!r}: {e.details()}") from None
        self.max_inline_bytes = self.capabilities.max_inline_bytes or (1 << 20)
        self._upload_rpc = ch.stream_unary(
            _SERVICE + "Upload", request_serializer=_identity,
            response_deserializer=pb.UploadResponse.FromString)
        self._download_rpc = ch.unary_stream(
            _SERVICE + "Download",
            request_serializer=pb.DownloadRequest.SerializeToString,
            response_deserializer=_parse_download_chunk)

        self._handles = itertools.count(1)
        self._sync_ids = itertools.count(1)
        self._lock = threading.Lock()
        self._sync_lock = threading.RLock()
        self._pending = pb.ClientMessage()
        self._frees: collections.deque[int] = collections.deque()
        self._freeing: set[int] = set()  # the handles in _frees
        self._deferred: list[pb.OpError] = []
        # Constant 0-d inputs (Python scalars), see _ndarray.scalar().
        self.scalars: dict[tuple[Any, ...], Any] = {}
        self._requests: queue.SimpleQueue[pb.ClientMessage | None] = (
            queue.SimpleQueue())
        self._wake = threading.Event()
        # The flusher ticks while ops come; after a quiet spell it sleeps
        # until record() wakes it (no wake-up per batch in a busy loop).
        self._flusher_asleep = False
        self._last_send = 0.0  # perf_counter() of the last message sent
        self._eager = False  # send the next op at once (see record)
        self._pending_large = False  # _pending holds an op that is not small
        self._arena: _ShmArena | None = None  # shared memory, same host only
        self._arena_lock = threading.Lock()  # one transfer in the arena at a time
        self._loans: _LoanPool | None = None  # download segments, same host only

        first = pb.ClientMessage()
        first.open.client_name = client_name
        local = _LocalStream.connect(self.capabilities.local_op_socket)
        if local is not None:
            # Same host: the op stream over the server's unix socket (frames),
            # much cheaper per round trip than a Python gRPC stream.
            self._requests = local
            self._responses = local
        else:
            stream = ch.stream_stream(
                _SERVICE + "OpStream",
                request_serializer=pb.ClientMessage.SerializeToString,
                response_deserializer=pb.ServerMessage.FromString)
            self._responses = stream(self._request_iter())
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

    def new_handle(self) -> int:
        """A fresh client-assigned handle (never reused in this session)."""
        return next(self._handles)

    def record(self, name: str, inputs: Sequence[int], outputs: Sequence[int],
               attrs: dict[str, Any] | None = None, small: bool = False) -> None:
        """Queues one op; it is sent with the next batch.

        ``small``: an op on few elements (see is_small), which the device
        runs in a few microseconds, less than a message costs: it is never
        sent on its own after a quiet spell, but with the next op that is,
        by the flusher, or with a sync (add + sum + float() of small arrays
        is one message)."""
        if self._closed:
            raise SessionClosedError(self._closed_reason)
        if self._freeing and not self._freeing.isdisjoint(inputs):
            # A bug in the caller: the array was dropped before this op was
            # recorded, so its free may already be on its way.
            raise RuntimeError(f"arrayd: op {name!r} names a freed array")
        with self._lock:
            op = self._pending.ops.add(name=name, inputs=inputs,
                                       outputs=outputs)
            if attrs:
                oa = op.attrs
                for k, v in attrs.items():
                    _set_attr(oa[k], v)
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

    def flush(self, sync: tuple[int, Sequence[int]] | None = None) -> None:
        """Sends the pending ops and frees (and ``sync``: its id and the
        handles to fetch) as one message."""
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
            if sync is None and not n and not msg.ops:
                return
            if sync is not None:
                msg.sync.sync_id = sync[0]
                if sync[1]:
                    msg.sync.fetch.extend(sync[1])
                self._eager = False  # a sync ends the burst
            self._pending = pb.ClientMessage()
            self._pending_large = False
            self._requests.put(msg)
            self._last_send = time.perf_counter()

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

    def _sync(self, fetch: Sequence[int] = ()) -> pb.SyncReply:
        with self._sync_lock:
            self.check_open()
            sid = next(self._sync_ids)
            self.flush((sid, fetch))
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
                    return msg.sync

    def synchronize(self) -> None:
        """Waits for all queued ops; raises the first deferred error."""
        reply = self._sync()
        errors = self._deferred + list(reply.errors)
        self._deferred = []
        if errors:
            raise from_op_error(errors[0])

    def fetch(self, handles: Sequence[int]) -> list[np.ndarray]:
        """Waits for the arrays and returns their data as numpy arrays.

        Raises the error that poisoned a fetched array; other deferred
        errors are kept for the next synchronize().
        """
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
            dtype = _dtypes.from_pb(f.dtype)
            shape = tuple(f.shape)
            if f.inline:
                arr = np.frombuffer(f.data, dtype=dtype).reshape(shape).copy()
            elif isinstance(self._requests, _LocalStream):
                arr = self._download_shm(h, dtype, shape)
            else:
                arr = self._download(h)
            out.append(arr)
        return out

    # -- bulk data -------------------------------------------------------

    def _download(self, handle: int) -> np.ndarray:
        self.check_open()
        req = pb.DownloadRequest(session_id=self.session_id, handle=handle,
                                 session_token=self._token)
        out = flat = None
        pos = total = 0
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
                n = len(data)
                flat[pos:pos + n] = np.frombuffer(data, dtype=np.uint8)
                pos += n
        except grpc.RpcError as e:
            raise from_rpc_error(e, "Download") from None
        if out is None:
            raise RuntimeError(f"Download of {handle}: empty reply")
        if pos != total:
            raise RuntimeError(
                f"Download of {handle}: got {pos} of {total} bytes")
        return out

    def _shm(self) -> "_ShmArena":
        if self._arena is None:
            self._arena = _ShmArena(self.session_id)
        return self._arena

    def _download_shm(self, handle: int, dtype: np.dtype,
                      shape: tuple[int, ...]) -> np.ndarray:
        """Large array through shared memory (same host): a view on a loaned
        segment when it is large enough and the pool has room, else copied
        out of the session's arena."""
        nbytes = dtype.itemsize * math.prod(shape)
        if nbytes >= _env_bytes("ARRAYD_SHM_LOAN_MIN_BYTES", _LOAN_MIN_BYTES):
            arr = self._download_loan(handle, dtype, shape, nbytes)
            if arr is not None:
                return arr
        with self._arena_lock:
            out = np.empty(shape, dtype=dtype)
            arena = self._shm()
            segment = arena.view(nbytes)
            self._download_into(handle, arena.path)
            _parallel_copy(out.reshape(-1).view(np.uint8), segment[:nbytes])
        return out

    def _download_into(self, handle: int, path: str) -> None:
        """Has the server write the array's C-order bytes into segment
        ``path``; raises the op's error (others are deferred)."""
        self.record("download_shm", (handle,), (),
                    {"segment": path, "offset": 0})
        reply = self._sync()
        for e in reply.errors:
            if e.op == "download_shm":
                raise from_op_error(e)
        self._deferred.extend(reply.errors)

    def _download_loan(self, handle: int, dtype: np.dtype,
                       shape: tuple[int, ...], nbytes: int) -> np.ndarray | None:
        """The array as a view on a segment loaned to it, or None when the
        pool is at its cap (the caller copies instead)."""
        if self._loans is None:
            self._loans = _LoanPool(
                f"/dev/shm/arrayd-{os.getpid()}-{self.session_id}-loan")
        pool = self._loans
        segment, dropped = pool.acquire(
            nbytes, _env_bytes("ARRAYD_SHM_LOAN_MAX_BYTES", _LOAN_MAX_BYTES))
        for old in dropped:
            # Ordered after every op that named it; the server's mapping
            # outlives the unlink.
            if not self._closed:
                self.record("release_shm", (), (), {"segment": old.path})
            old.remove()
        if segment is None:
            return None
        try:
            self._download_into(handle, segment.path)
        except BaseException:
            pool.give_back(segment)
            raise
        return pool.lend(segment, dtype, shape, nbytes)

    def upload(self, arr: np.ndarray) -> int:
        """Copies a numpy array into a new handle and returns the handle."""
        dt = _dtypes.normalize(arr.dtype)
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr).reshape(arr.shape)
        h = self.new_handle()
        shape = [int(d) for d in arr.shape]
        if arr.nbytes <= self.max_inline_bytes:
            self.record("upload", (), (h,),
                        {"dtype": dt, "shape": shape, "data": arr.tobytes()})
            return h
        self.check_open()
        if isinstance(self._requests, _LocalStream):
            # Same host: through shared memory, then a sync so that the
            # segment can be reused (upload errors surface at the fetch).
            with self._arena_lock:
                arena = self._shm()
                _parallel_copy(arena.view(arr.nbytes),
                               arr.reshape(-1).view(np.uint8))
                self.record("upload_shm", (), (h,),
                            {"segment": arena.path, "offset": 0, "dtype": dt,
                             "shape": shape})
                self._deferred.extend(self._sync().errors)
            return h
        self.flush()
        header = pb.UploadChunk(session_id=self.session_id, handle=h,
                                session_token=self._token,
                                dtype=_dtypes.to_pb(dt),
                                shape=shape).SerializeToString()
        flat = memoryview(arr.reshape(-1).view(np.uint8))

        def chunks() -> Iterable[bytes]:
            first = header
            for start in range(0, len(flat), _CHUNK_BYTES):
                piece = flat[start:start + _CHUNK_BYTES]
                # UploadChunk.data is field 5, length-delimited (tag 0x2a).
                yield b"".join((first, b"\x2a", _varint(len(piece)), piece))
                first = b""

        try:
            self._upload_rpc(chunks())
        except grpc.RpcError as e:
            raise from_rpc_error(e, "Upload") from None
        return h

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
        _default_stack.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _default_stack.remove(self)

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return (f"<arrayd.Session {getattr(self, 'session_id', '?')} "
                f"{self.address!r} {state}>")


_COPY_POOL: Any = None
_PARALLEL_COPY_BYTES = 32 << 20


def _parallel_copy(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[:] = src for 1-D uint8 arrays, on several threads when large
    (numpy releases the GIL while it copies)."""
    global _COPY_POOL
    n = src.nbytes
    workers = min(8, os.cpu_count() or 1)
    if n < _PARALLEL_COPY_BYTES or workers < 2:
        np.copyto(dst, src)
        return
    if _COPY_POOL is None:
        from concurrent.futures import ThreadPoolExecutor
        _COPY_POOL = ThreadPoolExecutor(workers, thread_name_prefix="arrayd-copy")
    step = ((n + workers - 1) // workers + 4095) // 4096 * 4096
    jobs = [_COPY_POOL.submit(np.copyto, dst[i:i + step], src[i:i + step])
            for i in range(0, n, step)]
    for j in jobs:
        j.result()


class _ShmArena:
    """A shared memory file (/dev/shm/arrayd-*) for bulk transfers with a
    server on this host; it grows as needed and is removed with the session."""

    def __init__(self, session_id: int):
        self.path = f"/dev/shm/arrayd-{os.getpid()}-{session_id}-{id(self):x}"
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        self._size = 0
        self._buf: np.ndarray | None = None

    def view(self, nbytes: int) -> np.ndarray:
        """The first nbytes of the segment, as uint8 (grows it if needed)."""
        if nbytes > self._size or self._buf is None:
            import mmap
            size = max(nbytes, 2 * self._size, 1 << 20)
            os.ftruncate(self._fd, size)
            self._buf = np.frombuffer(mmap.mmap(self._fd, size), dtype=np.uint8)
            self._size = size
        return self._buf[:nbytes]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        with contextlib.suppress(OSError):
            os.close(self._fd)


class _ShmSegment:
    """One shared memory file of a _LoanPool and the client's mapping of it
    (the mapping outlives the file's removal)."""

    __slots__ = ("path", "size", "mm")

    def __init__(self, path: str, size: int):
        import mmap
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            # Allocated now: a full /dev/shm is an OSError here rather than
            # a SIGBUS when the server or the user touches the page.
            os.posix_fallocate(fd, 0, size)
            # Mapped now, so that the result's pages are in this process's
            # page tables before the user reads them (and stay on reuse).
            flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
            self.mm = mmap.mmap(fd, size, flags=flags)
        except BaseException:
            os.close(fd)
            os.unlink(path)
            raise
        os.close(fd)
        self.path = path
        self.size = size

    def remove(self) -> None:
        """Removes the file; unmaps unless an array still uses the mapping."""
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        # Still exported to an array: unmapped when the last user goes.
        with contextlib.suppress(BufferError):
            self.mm.close()


class _LoanPool:
    """Shared memory segments loaned to downloaded arrays (same host).

    The server writes an array into a segment and the client returns a numpy
    view on its mapping of it: no copy on the client. The segment comes back
    to the free list when the last view of it dies; a later download reuses
    the smallest free segment that fits. New segments (sizes rounded up to
    2 MiB) are made while all segments together stay within the cap; free
    segments are dropped to make room, or when the cap was lowered.

    Thread safety: acquire, give_back and close run in the user's threads
    under ``_lock``. A loan ends in ``_returned``, a weakref.finalize callback
    that the garbage collector may run on any thread, even in the middle of
    acquire on the thread that holds ``_lock`` (a collection can start at any
    allocation). So it takes no lock and sends nothing: it appends to a deque
    (atomic), and acquire moves what came back to the free list.
    """

    _ROUND = 2 << 20
    # A new segment costs more than one copy (on the GPU machine, ~0.6 s per
    # GiB to zero and pin against ~0.09 s): it pays off when results are
    # dropped and segments come back. New ones are made only while fewer
    # than this many are on loan, so a session that keeps every result pays
    # that cost at most twice, then copies.
    _MAX_ON_LOAN = 2

    def __init__(self, prefix: str):
        self._prefix = prefix
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._free: list[_ShmSegment] = []
        self._back: collections.deque[_ShmSegment] = collections.deque()
        self._closed = False
        self._sizes: dict[str, int] = {}  # path -> size, loaned and free

    @property
    def segments(self) -> int:
        """How many segments the pool has, loaned and free."""
        return len(self._sizes)

    @property
    def total_bytes(self) -> int:
        """Their bytes."""
        return sum(self._sizes.values())

    def acquire(self, nbytes: int,
                cap: int) -> tuple[_ShmSegment | None, list[_ShmSegment]]:
        """A segment of at least ``nbytes`` (None when the cap leaves no
        room, or when /dev/shm is full), and the free segments dropped from
        the pool: the caller has the server release them, then removes
        them."""
        dropped: list[_ShmSegment] = []
        with self._lock:
            if self._closed:
                return None, dropped
            back = self._back
            while back:
                self._free.append(back.popleft())
            free = self._free
            free.sort(key=lambda seg: seg.size)
            while free and self.total_bytes > cap:  # the cap was lowered
                dropped.append(free.pop())
                self._forget(dropped[-1])
            segment = next((seg for seg in free if seg.size >= nbytes), None)
            if segment is not None:
                free.remove(segment)
            else:
                size = -(-nbytes // self._ROUND) * self._ROUND
                loaned = self.total_bytes - sum(seg.size for seg in free)
                on_loan = self.segments - len(free)
                if loaned + size <= cap and on_loan < self._MAX_ON_LOAN:
                    # None of the free ones fits: drop the largest first.
                    while free and self.total_bytes + size > cap:
                        dropped.append(free.pop())
                        self._forget(dropped[-1])
                    try:
                        segment = _ShmSegment(
                            f"{self._prefix}{next(self._ids)}-{id(self):x}",
                            size)
                    except OSError:
                        return None, dropped
                    self._sizes[segment.path] = size
        return segment, dropped

    def _forget(self, segment: _ShmSegment) -> None:
        del self._sizes[segment.path]

    def lend(self, segment: _ShmSegment, dtype: np.dtype,
             shape: tuple[int, ...], nbytes: int) -> np.ndarray:
        """A view of ``shape`` on the segment's first ``nbytes``; the
        segment returns to the pool when the last view of it dies."""
        # np.frombuffer takes its own buffer export of what it is given, so
        # a memoryview passed in can die before the array. The flat array
        # itself is what every view of the result keeps alive: numpy makes
        # it the base of a reshape, a slice or a view of one (the chain of
        # bases stops at the first array whose base is no array).
        flat = np.frombuffer(segment.mm, dtype=dtype,
                             count=nbytes // dtype.itemsize)
        weakref.finalize(flat, self._returned, segment).atexit = False
        return flat.reshape(shape)

    def _returned(self, segment: _ShmSegment) -> None:
        if not self._closed:
            self._back.append(segment)
            if self._closed:  # close() ran in between: not taken back
                self._back.clear()

    def give_back(self, segment: _ShmSegment) -> None:
        """Returns a segment that was not lent (its download failed)."""
        self._returned(segment)

    def close(self) -> None:
        """Removes every segment's file; arrays on loan keep their mapping,
        and their segments are not taken back."""
        with self._lock:
            self._closed = True
            free, self._free = self._free, []
            while self._back:
                free.append(self._back.popleft())
            on_loan = set(self._sizes) - {seg.path for seg in free}
        for seg in free:
            seg.remove()  # unmapped too
        for path in on_loan:
            with contextlib.suppress(OSError):
                os.unlink(path)


class _LocalStream:
    """The op stream over the server's same-host unix socket.

    Frames are a 4-byte little-endian length and a serialized ClientMessage
    (out) or ServerMessage (in). It stands in for both the request queue
    (``put``; ``None`` half-closes) and the response iterator of the gRPC
    stream. Replies come only at sync points, read by the syncing thread.
    """

    def __init__(self, sock: socket.socket):
        self._sock = sock
        self._rbuf = bytearray()
        self._send_lock = threading.Lock()
        self._done_callbacks: list[Any] = []

    @staticmethod
    def connect(path: str) -> "_LocalStream | None":
        if not path or os.environ.get("ARRAYD_NO_LOCAL_SOCKET") or not os.path.exists(path):
            return None
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
        except OSError:
            sock.close()
            return None
        return _LocalStream(sock)

    def put(self, msg: pb.ClientMessage | None) -> None:
        try:
            if msg is None:
                self._sock.shutdown(socket.SHUT_WR)
                return
            data = msg.SerializeToString()
            with self._send_lock:
                self._sock.sendall(_FRAME_HEADER.pack(len(data)) + data)
        except OSError:
            pass  # the reader sees the end of the stream and reports it

    def _fill(self, n: int) -> None:
        """Reads until the buffer holds at least n bytes (EOFError at the
        end of the stream). Buffered: a reply's header and message usually
        arrive in one recv."""
        buf = self._rbuf
        # Poll first: a reply that comes within _SPIN_S is read without the
        # wake-up of a blocked thread.
        sock, start = self._sock, time.perf_counter()
        while len(buf) < n:
            try:
                chunk = sock.recv(1 << 16, socket.MSG_DONTWAIT)
            except BlockingIOError:
                waited = time.perf_counter() - start
                if waited < _SPIN_ONLY_S:
                    continue
                if waited < _SPIN_S:
                    os.sched_yield()
                    continue
                break
            if not chunk:
                raise EOFError
            buf += chunk
        while len(buf) < n:
            chunk = sock.recv(max(n - len(buf), 1 << 16))
            if not chunk:
                raise EOFError
            buf += chunk

    def __iter__(self) -> "_LocalStream":
        return self

    def __next__(self) -> pb.ServerMessage:
        try:
            buf = self._rbuf
            if len(buf) < 4:
                self._fill(4)
            (n,) = _FRAME_HEADER.unpack_from(buf)
            if len(buf) < 4 + n:
                self._fill(4 + n)
            msg = pb.ServerMessage.FromString(bytes(buf[4:4 + n]))
            del buf[:4 + n]
            return msg
        except (OSError, EOFError):
            self._finish()
            raise StopIteration from None

    def _finish(self) -> None:
        callbacks, self._done_callbacks = self._done_callbacks, []
        for cb in callbacks:
            cb(self)

    def add_done_callback(self, cb: Any) -> None:
        # close(): the server ends the stream once the session has stopped.
        self._done_callbacks.append(cb)
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        try:
            while self._sock.recv(65536):
                pass
        except OSError:
            pass
        self._sock.close()
        self._finish()


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


# -- default session and the private server -------------------------------

_default: Session | None = None
_default_stack: list[Session] = []  # `with session:` blocks
_default_lock = threading.Lock()
_open_sessions: "weakref.WeakSet[Session]" = weakref.WeakSet()


def current() -> Session:
    """The session that module functions use; connects on first use."""
    if _default_stack:
        return _default_stack[-1]
    s = _default
    if s is None:
        with _default_lock:
            s = _default if _default is not None else connect()
    if s._closed:
        # Lost, not disconnected: do not silently switch servers.
        raise SessionClosedError(
            f"{s._closed_reason}; call arrayd.connect() for a new session")
    return s


def connect(address: str | None = None, *, default: bool = True) -> Session:
    """Opens a session and (by default) makes it the default session.

    The address is ``host:port`` or ``unix:/path``; without one, the env
    variable ARRAYD_ADDRESS, else a private per-user server (started when
    none answers).
    """
    global _default
    if address is None:
        address = os.environ.get("ARRAYD_ADDRESS") or _private_server()
    s = Session(address)
    if default:
        _default = s
    return s


def disconnect(session: Session | None = None) -> None:
    """Closes a session (the default one when none is named)."""
    global _default
    s = session if session is not None else _default
    if s is None:
        return
    s.close()
    if s is _default:
        _default = None


def _health_ok(address: str, timeout: float) -> bool:
    ch = grpc.insecure_channel(address)
    try:
        health = ch.unary_unary(
            _SERVICE + "Health",
            request_serializer=pb.HealthRequest.SerializeToString,
            response_deserializer=pb.HealthResponse.FromString)
        r = health(pb.HealthRequest(), timeout=timeout)
        return r.status == pb.HealthResponse.STATUS_SERVING
    except grpc.RpcError:
        return False
    finally:
        ch.close()


def _server_binary() -> str | None:
    env = os.environ.get("ARRAYD_SERVER_BIN")
    if env:
        return env
    found = shutil.which("arrayd")
    if found:
        return found
    # Source checkout: <repo>/client-python/arrayd/_session.py.
    repo_bin = Path(__file__).resolve().parents[2] / "build" / "bin" / "arrayd"
    return str(repo_bin) if repo_bin.is_file() else None


def _private_server() -> str:
    """Address of this user's private server, started if none answers."""
    run_dir = Path(f"/tmp/arrayd-{os.getuid()}")
    sock = run_dir / "arrayd.sock"
    address = f"unix:{sock}"
    if _health_ok(address, timeout=1.0):
        return address
    binary = _server_binary()
    if binary is None:
        raise ConnectionError(
            f"no arrayd server answers at {address!r} and no arrayd binary "
            "was found to start one: set ARRAYD_ADDRESS to a running server, "
            "or ARRAYD_SERVER_BIN to the arrayd binary, or put arrayd on PATH")
    run_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    log_path = run_dir / "arrayd.log"
    with open(run_dir / "start.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one starter at a time
        if _health_ok(address, timeout=1.0):
            return address
        if sock.exists():
            sock.unlink()  # stale socket of a dead server
        try:
            with open(log_path, "ab") as log:
                proc = subprocess.Popen(
                    [binary, "--listen", address, "--backend", "auto"],
                    stdin=subprocess.DEVNULL, stdout=log,
                    stderr=subprocess.STDOUT, start_new_session=True,
                    close_fds=True)
        except OSError as e:
            raise ConnectionError(
                f"could not start the arrayd server {binary!r}: {e}") from None
        deadline = time.monotonic() + _START_TIMEOUT_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            if _health_ok(address, timeout=0.5):
                return address
            time.sleep(0.05)
    try:
        tail = log_path.read_text(errors="replace")[-2000:]
    except OSError:
        tail = ""
    state = (f"exited with status {proc.returncode}" if proc.poll() is not None
             else f"did not answer within {_START_TIMEOUT_S:.0f} s")
    raise ConnectionError(
        f"could not start arrayd ({binary}) at {address!r}: it {state}; "
        f"log {log_path}:\n{tail}")


@atexit.register
def _close_all() -> None:
    for s in list(_open_sessions):
        try:
            s.close()
        except Exception:
            pass
