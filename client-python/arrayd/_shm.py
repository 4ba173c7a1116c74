"""Shared memory for bulk transfers with a server on this host.

Layer: session (below Session; imports nothing of arrayd). Segments are
memfds (no file in /dev/shm: nothing is left behind by a killed client, and
a small /dev/shm does not matter) sealed against shrinking, handed to the
server as file descriptors over the same-host socket: no other session can
name them, and the server's copies cannot fault. ShmArena: the segment of a
session that uploads and copied downloads go through (replaced by a larger
one as needed). LoanPool of ShmSegments: segments loaned to downloaded
arrays, which are numpy views on the client's mapping (no copy), and come
back to the pool when the last view dies. HostSegment: a segment the user's
arrays live in (arrayd.cuda's pinned memory), found from an array by
host_segment_of. parallel_copy: large copies on several threads.
"""
from __future__ import annotations

import bisect
import collections
import contextlib
import ctypes
import fcntl
import itertools
import mmap
import os
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np


def env_bytes(name: str, default: int) -> int:
    """A byte count from the environment (read at each use, so tests can
    change it), else ``default``."""
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


# Same-host downloads of at least ARRAYD_SHM_LOAN_MIN_BYTES return a view on
# a shared memory segment loaned to the result (no client-side copy); all
# loan segments of a session, loaned or free, stay under
# ARRAYD_SHM_LOAN_MAX_BYTES. See LoanPool.
LOAN_MIN_BYTES = 64 << 20
LOAN_MAX_BYTES = 4 << 30

_COPY_POOL: Any = None
_PARALLEL_COPY_BYTES = 32 << 20


def parallel_copy(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[:] = src for 1-D uint8 arrays, on several threads when large
    (numpy releases the GIL while it copies)."""
    global _COPY_POOL
    n = src.nbytes
    workers = min(8, os.cpu_count() or 1)
    if n < _PARALLEL_COPY_BYTES or workers < 2:
        np.copyto(dst, src)
        return
    if _COPY_POOL is None:
        _COPY_POOL = ThreadPoolExecutor(workers, thread_name_prefix="arrayd-copy")
    step = ((n + workers - 1) // workers + 4095) // 4096 * 4096
    jobs = [_COPY_POOL.submit(np.copyto, dst[i:i + step], src[i:i + step])
            for i in range(0, n, step)]
    for j in jobs:
        j.result()


# Hands a segment's descriptor to the server under a name (Session).
Attach = Callable[[str, int], None]


def new_segment(size: int, name: str, send: Attach) -> mmap.mmap:
    """A memfd of ``size`` bytes, sent to the server as ``name``; returns
    this process's mapping of it (its only hold on it). The pages are
    allocated now (a full memory is an OSError here, not a fault when the
    server or the user touches a page) and the size is sealed."""
    fd = os.memfd_create("arrayd", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        os.posix_fallocate(fd, 0, size)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                    fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        # Populated now, so that a result's pages are in this process's
        # page tables before the user reads them (and stay on reuse).
        flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
        mm = mmap.mmap(fd, size, flags=flags)
        try:
            send(name, fd)
        except BaseException:
            mm.close()
            raise
    finally:
        os.close(fd)
    return mm


def unmap(mm: mmap.mmap) -> None:
    """Unmaps unless an array still uses the mapping (then it is unmapped
    when the last user goes)."""
    with contextlib.suppress(BufferError):
        mm.close()


class ShmArena:
    """The segment of a session for bulk transfers with a server on this
    host. A larger request replaces it with a larger one (the server is told
    to release the old one); closed with the session."""

    _ROUND = 2 << 20

    def __init__(self, send: Attach, release: Callable[[str], None]):
        self._send = send
        self._release = release
        self._ids = itertools.count()
        self.name = ""
        self._size = 0
        self._mm: mmap.mmap | None = None
        self._buf: np.ndarray | None = None

    def view(self, nbytes: int) -> np.ndarray:
        """The first nbytes of the segment, as uint8 (replaced by a larger
        one if needed). OSError when no segment can be made."""
        if nbytes > self._size or self._buf is None:
            size = -(-max(nbytes, 2 * self._size, 1 << 20) // self._ROUND) * self._ROUND
            name = f"arena-{next(self._ids)}"
            mm = new_segment(size, name, self._send)
            old, self.name = self.name, name
            self.close()
            if old:
                self._release(old)
            self._mm, self._size = mm, size
            self._buf = np.frombuffer(mm, dtype=np.uint8)
        return self._buf[:nbytes]

    def close(self) -> None:
        self._buf = None
        if self._mm is not None:
            unmap(self._mm)
            self._mm = None
        self._size = 0


class ShmSegment:
    """One segment of a LoanPool, attached to the server as ``name``, and
    the client's mapping of it."""

    __slots__ = ("name", "size", "mm")

    def __init__(self, name: str, size: int, send: Attach):
        self.mm = new_segment(size, name, send)
        self.name = name
        self.size = size

    def remove(self) -> None:
        """Unmaps unless an array still uses the mapping."""
        unmap(self.mm)


class LoanPool:
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

    def __init__(self, send: Attach):
        self._send = send
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._free: list[ShmSegment] = []
        self._back: collections.deque[ShmSegment] = collections.deque()
        self._closed = False
        self._sizes: dict[str, int] = {}  # name -> size, loaned and free

    @property
    def segments(self) -> int:
        """How many segments the pool has, loaned and free."""
        return len(self._sizes)

    @property
    def total_bytes(self) -> int:
        """Their bytes."""
        return sum(self._sizes.values())

    def acquire(self, nbytes: int,
                cap: int) -> tuple[ShmSegment | None, list[ShmSegment]]:
        """A segment of at least ``nbytes`` (None when the cap leaves no
        room, or when no segment can be made), and the free segments dropped from
        the pool: the caller has the server release them, then removes
        them."""
        dropped: list[ShmSegment] = []
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
                        segment = ShmSegment(f"loan-{next(self._ids)}", size,
                                             self._send)
                    except OSError:
                        return None, dropped
                    self._sizes[segment.name] = size
        return segment, dropped

    def _forget(self, segment: ShmSegment) -> None:
        del self._sizes[segment.name]

    def lend(self, segment: ShmSegment, dtype: np.dtype,
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

    def _returned(self, segment: ShmSegment) -> None:
        if not self._closed:
            self._back.append(segment)
            if self._closed:  # close() ran in between: not taken back
                self._back.clear()

    def give_back(self, segment: ShmSegment) -> None:
        """Returns a segment that was not lent (its download failed)."""
        self._returned(segment)

    def close(self) -> None:
        """Unmaps every free segment; arrays on loan keep their mapping, and
        their segments are not taken back."""
        with self._lock:
            self._closed = True
            free, self._free = self._free, []
            while self._back:
                free.append(self._back.popleft())
        for seg in free:
            seg.remove()


class HostSegment:
    """A memfd mapped in this process that arrays of the user live in
    (arrayd.cuda's pinned memory): sent to the server of a session on its
    first transfer there (the server maps and pins it), so that uploads from
    it and downloads into it copy nothing on the client. The descriptor
    stays open for later sessions; the mapping and the descriptor go with
    the last reference to this object (segment_gone_hooks then have the
    sessions that attached it release it on their servers).

    Thread safety: made and used in any thread.
    """

    _ids = itertools.count()

    def __init__(self, size: int):
        self.size = size
        self.name = f"pinned-{os.getpid()}-{next(self._ids)}"
        mapped = max(size, 1)
        fd = os.memfd_create("arrayd-pinned", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.posix_fallocate(fd, 0, mapped)
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                        fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
            flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
            self.mm = mmap.mmap(fd, mapped, flags=flags)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        self.address = ctypes.addressof(ctypes.c_ubyte.from_buffer(self.mm))
        _HOST_SEGMENTS[self.address] = weakref.ref(self)
        _host_starts_changed()
        weakref.finalize(self, _host_segment_gone, self.address, self.name,
                         fd).atexit = False

    def offset_of(self, arr: np.ndarray) -> int | None:
        """The byte offset of a C-contiguous array's data in this segment,
        or None when the array is not (wholly) in it."""
        start = arr.__array_interface__["data"][0]
        off = start - self.address
        if 0 <= off and off + arr.nbytes <= self.size:
            return off
        return None


# Where the live HostSegments are: address -> segment, and their sorted
# addresses (replaced, never changed in place, so readers need no lock).
_HOST_SEGMENTS: dict[int, "weakref.ref[HostSegment]"] = {}
_host_starts: list[int] = []
# Called with a segment's name when it goes (from a weakref.finalize
# callback: no locks). Session registers one, so that the sessions that
# attached it release it.
segment_gone_hooks: list[Callable[[str], None]] = []


def _host_starts_changed() -> None:
    global _host_starts
    _host_starts = sorted(_HOST_SEGMENTS)


def _host_segment_gone(address: int, name: str, fd: int) -> None:
    # A weakref.finalize callback: may run on any thread, in the middle of
    # anything (see LoanPool): no locks, nothing sent.
    _HOST_SEGMENTS.pop(address, None)
    _host_starts_changed()
    with contextlib.suppress(OSError):
        os.close(fd)
    for hook in segment_gone_hooks:
        with contextlib.suppress(Exception):
            hook(name)


def host_segment_at(address: int) -> HostSegment | None:
    """The HostSegment holding host address ``address``, or None."""
    starts = _host_starts
    i = bisect.bisect_right(starts, address) - 1
    if i < 0:
        return None
    ref = _HOST_SEGMENTS.get(starts[i])
    seg = ref() if ref is not None else None
    if seg is None or address >= seg.address + seg.size:
        return None
    return seg


def host_segment_of(arr: np.ndarray) -> tuple[HostSegment, int] | None:
    """The HostSegment a C-contiguous numpy array lies in and its offset
    there, or None (the common case, answered without a search when no
    segment exists)."""
    if not _host_starts or arr.nbytes == 0:
        return None
    seg = host_segment_at(arr.__array_interface__["data"][0])
    if seg is None:
        return None
    off = seg.offset_of(arr)
    return None if off is None else (seg, off)
