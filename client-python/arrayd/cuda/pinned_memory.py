"""arrayd.cuda.pinned_memory: CuPy's ``cupy.cuda.pinned_memory``: host
memory that arrays move to and from the server without a copy.

    mem = arrayd.cuda.alloc_pinned_memory(x.nbytes)
    src = numpy.frombuffer(mem, x.dtype, x.size).reshape(x.shape)
    src[...] = x
    a = arrayd.asarray(src)          # the server reads src's memory
    a.get(out=src)                   # the server writes into it

Pinned memory here is a shared memory segment (a memfd) mapped in this
process and handed to the server of a same-host session the first time
an array in it moves; the server pins it (cudaHostRegister), so its
copies run at pinned speed and the client copies nothing. As CUDA's
asynchronous copies from pinned memory, an upload reads the buffer when
its op runs: change it only after a sync. With a server on another host
the memory is ordinary host memory and transfers copy it.

PinnedMemoryPool (the default allocator, as CuPy's) keeps freed blocks for
reuse; its numbers are this client's.

Layer: a public namespace module below arrayd.cuda (imports _shm).
"""
from __future__ import annotations

import collections
import ctypes
import threading
import weakref
from typing import Any, Callable

from arrayd import _shm

__all__ = ["PinnedMemory", "PinnedMemoryPointer", "PooledPinnedMemory",
           "PinnedMemoryPool", "alloc_pinned_memory",
           "set_pinned_memory_allocator", "is_memory_pinned"]


class PinnedMemory:
    """``size`` bytes of pinned host memory (a shared memory segment), freed
    when the last reference goes. ``ptr`` is its address in this process."""

    def __init__(self, size: int, flags: int = 0):
        self.size = int(size)
        self.ptr = 0
        self._segment: _shm.HostSegment | None = None
        if self.size > 0:
            self._segment = _shm.HostSegment(self.size)
            self.ptr = self._segment.address

    def __int__(self) -> int:
        return self.ptr


class PinnedMemoryPointer:
    """A pointer into pinned memory, as ``cupy.cuda.PinnedMemoryPointer``:
    ``mem``, ``ptr``, ``size()``, pointer arithmetic, and the buffer
    protocol (numpy.frombuffer(ptr, dtype, count) views the memory).

    Python 3.11 classes cannot export a buffer themselves, so each pointer
    is an instance of a subclass of this class and of a ctypes byte array
    of its size over the segment's mapping (ctypes exports the buffer)."""

    mem: Any
    ptr: int

    def __new__(cls, mem: Any, offset: int) -> "PinnedMemoryPointer":
        offset = int(offset)
        n = max(mem.size - offset, 0)
        segment = getattr(mem, "_segment", None)
        if segment is None or n == 0:
            obj = _buffer_type(0).from_buffer(_NO_BYTES)
        else:
            obj = _buffer_type(n).from_buffer(segment.mm, offset)
        obj.mem = mem
        obj.ptr = mem.ptr + offset
        return obj

    def __init__(self, mem: Any, offset: int):
        pass  # set up by __new__

    def __int__(self) -> int:
        return self.ptr

    def __add__(self, offset: int) -> "PinnedMemoryPointer":
        return PinnedMemoryPointer(self.mem, self.ptr - self.mem.ptr + int(offset))

    def __radd__(self, offset: int) -> "PinnedMemoryPointer":
        return self + offset

    def __iadd__(self, offset: int) -> "PinnedMemoryPointer":
        # A new object: the buffer's start cannot move.
        return self + offset

    def __sub__(self, offset: int) -> "PinnedMemoryPointer":
        return self + -int(offset)

    def __isub__(self, offset: int) -> "PinnedMemoryPointer":
        return self + -int(offset)

    def size(self) -> int:
        """Bytes from this pointer to the end of its memory."""
        return self.mem.size - (self.ptr - self.mem.ptr)

    def __repr__(self) -> str:
        return (f"<arrayd.cuda.PinnedMemoryPointer 0x{self.ptr:x}, "
                f"{self.size()} bytes>")


_NO_BYTES = bytearray(1)  # what pointers to no memory view
_buffer_types: dict[int, type] = {}
_buffer_types_lock = threading.Lock()


def _buffer_type(n: int) -> type:
    """The PinnedMemoryPointer class of ``n`` bytes (made once per size;
    pool sizes are powers of two, so there are few)."""
    t = _buffer_types.get(n)
    if t is None:
        with _buffer_types_lock:
            t = _buffer_types.get(n)
            if t is None:
                t = type("PinnedMemoryPointer",
                         (PinnedMemoryPointer, ctypes.c_ubyte * n),
                         {"__module__": __name__})
                _buffer_types[n] = t
    return t


def _malloc(size: int) -> PinnedMemoryPointer:
    """New pinned memory, without a pool."""
    return PinnedMemoryPointer(PinnedMemory(size), 0)


class PooledPinnedMemory(PinnedMemory):
    """A block of a PinnedMemoryPool: back to the pool's free blocks when
    it goes (or free())."""

    def __init__(self, mem: PinnedMemory, pool: "weakref.ref[PinnedMemoryPool]"):
        self.ptr = mem.ptr
        self.size = mem.size
        self._segment = mem._segment
        self.pool = pool

    def free(self) -> None:
        """Returns the block to its pool (once; a second call does nothing)."""
        pool = self.pool()
        if pool is not None and self.ptr != 0:
            pool.free(self.ptr, self.size)
        self.ptr = 0
        self.size = 0

    __del__ = free


def _clp2(n: int) -> int:
    """The least power of two >= n."""
    return 1 << max(n - 1, 0).bit_length()


class PinnedMemoryPool:
    """Pinned memory blocks kept for reuse, as ``cupy.cuda.PinnedMemoryPool``:
    a freed block stays in the pool (n_free_blocks) and serves the next
    malloc of its size (sizes: powers of two of 512-byte units) until
    free_all_blocks. ``allocator`` makes new blocks.

    Thread safety: any thread. A block comes back from a __del__ the
    garbage collector may run anywhere, even inside malloc on the thread
    that holds the lock: it is only appended to a deque, which the other
    methods drain under the lock."""

    def __init__(self, allocator: Callable[[int], Any] = _malloc):
        self._alloc = allocator
        self._in_use: dict[int, PinnedMemory] = {}
        self._free: collections.defaultdict[int, list[PinnedMemory]] = (
            collections.defaultdict(list))
        self._back: collections.deque[tuple[int, int]] = collections.deque()
        self._lock = threading.Lock()
        self._weakref = weakref.ref(self)
        self._allocation_unit_size = 512

    def _take_back(self) -> None:
        # Under _lock.
        back = self._back
        for _ in range(len(back)):
            ptr, size = back.popleft()
            mem = self._in_use.pop(ptr, None)
            if mem is not None:
                self._free[size].append(mem)

    def malloc(self, size: int) -> PinnedMemoryPointer:
        """A pinned host block of at least `size` bytes, reused from the pool
        when one of its size is free."""
        if size == 0:
            return PinnedMemoryPointer(PinnedMemory(0), 0)
        unit = self._allocation_unit_size
        size = _clp2(-(-int(size) // unit) * unit)
        with self._lock:
            self._take_back()
            free = self._free[size]
            mem = free.pop() if free else None
            if mem is None:
                mem = self._alloc(size).mem
            self._in_use[mem.ptr] = mem
        return PinnedMemoryPointer(PooledPinnedMemory(mem, self._weakref), 0)

    def free(self, ptr: int, size: int) -> None:
        """Returns block ``ptr`` (of ``size`` bytes) to the free blocks."""
        if ptr not in self._in_use:
            raise RuntimeError("Cannot free out-of-pool memory")
        self._back.append((ptr, size))

    def free_all_blocks(self) -> None:
        """Frees every free block (the server releases its segment)."""
        with self._lock:
            self._take_back()
            self._free.clear()

    def n_free_blocks(self) -> int:
        """The number of blocks kept for reuse."""
        with self._lock:
            self._take_back()
            return sum(len(v) for v in self._free.values())


_default_pool = PinnedMemoryPool()
_current_allocator: Callable[[int], Any] = _default_pool.malloc


def get_default_pinned_memory_pool() -> PinnedMemoryPool:
    """The pool alloc_pinned_memory() uses by default."""
    return _default_pool


def alloc_pinned_memory(size: int) -> PinnedMemoryPointer:
    """``size`` bytes of pinned memory from the current allocator (the
    default pool unless set_pinned_memory_allocator changed it)."""
    return _current_allocator(size)


def set_pinned_memory_allocator(allocator: Callable[[int], Any] | None = None
                                ) -> None:
    """Sets what alloc_pinned_memory() calls (None: new memory each time,
    without a pool)."""
    global _current_allocator
    _current_allocator = _malloc if allocator is None else allocator


def is_memory_pinned(data: int) -> bool:
    """Whether host address ``data`` lies in pinned memory of this client."""
    return _shm.host_segment_at(int(data)) is not None
