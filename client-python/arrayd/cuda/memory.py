"""arrayd.cuda.memory: CuPy's ``cupy.cuda.memory`` for the session's memory
on the server.

The server allocates every array of a session from the device pool of the
session's streams (a caching allocator on CUDA), and keeps the session's
count: ``get_default_memory_pool()`` shows it (used_bytes: the session's
live arrays; free_bytes: the pool's cached blocks), frees the cached blocks
(free_all_blocks) and sets the session's limit (set_limit: allocations past
it raise OutOfMemoryError, as CuPy's pool does).

``malloc``/``alloc`` give a MemoryPointer to a block of the session's
device memory (a uint8 array on the server) with CuPy's copy and memset
methods, which ``ndarray(shape, dtype, memptr)`` views; its ``ptr`` is an
address in this client's numbering of its blocks, not a device address
(the memory is in the server's process). A ``MemoryPool(allocator)`` made
by the caller is a pool of such blocks, as CuPy's: it keeps the blocks
freed to it for the next malloc of their size on their stream and counts
them (used_bytes, free_bytes, n_free_blocks, its own set_limit).
``set_allocator`` takes what CuPy code passes (a pool's malloc,
malloc_managed, malloc_async, None) and is what alloc() calls; arrays are
allocated by the server whatever it is, and count in the default pool.

Layer: a public namespace module below arrayd.cuda (imports runtime,
device, stream and the array modules).
"""
from __future__ import annotations

import collections
import contextlib
import ctypes
import os
import threading
import warnings
import weakref
from typing import Any, Callable, Iterator

import numpy as np

from arrayd import _connect, _creation, _indexing  # noqa: F401 (ndarray[...])
from arrayd import _ndarray
from arrayd._errors import OutOfMemoryError
from arrayd.cuda import device, runtime
# Not "stream": that is the name of CuPy's arguments here.
from arrayd.cuda import stream as stream_module

__all__ = ["OutOfMemoryError", "BaseMemory", "Memory", "ManagedMemory",
           "MemoryAsync", "UnownedMemory", "PooledMemory", "MemoryPointer",
           "MemoryPool", "MemoryAsyncPool", "alloc", "malloc_managed",
           "malloc_async", "set_allocator", "get_allocator",
           "using_allocator", "get_default_memory_pool"]

# CuPy rounds allocations to this (cudaMalloc's alignment).
_allocation_unit_size = runtime._ADDRESS_UNIT


def _round_size(size: int) -> int:
    """``size`` rounded up to the allocation unit (CuPy's block sizes)."""
    unit = _allocation_unit_size
    return -(-int(size) // unit) * unit


class BaseMemory:
    """A block of device memory: ``ptr`` (see the module comment), ``size``
    bytes, ``device_id``."""

    ptr: int = 0
    size: int = 0
    device_id: int = 0
    _array: Any = None  # the server's uint8 array of the block, if any

    def __int__(self) -> int:
        return self.ptr

    @property
    def device(self) -> device.Device:
        """The Device the memory is on."""
        return device.Device(self.device_id)


class Memory(BaseMemory):
    """``size`` bytes of the session's device memory, freed when this object
    goes."""

    _managed = False

    def __init__(self, size: int):
        self.size = int(size)
        self.device_id = device.get_device_id()
        self.ptr = 0
        self._array = None
        if self.size > 0:
            self._array = _creation.empty(self.size, dtype=np.uint8)
            self.ptr = runtime._new_block_address(self, self.size,
                                                  self._managed)


class ManagedMemory(Memory):
    """Memory from malloc_managed: the server's device memory as any other
    (it has no unified memory to offer a remote client; runtime's
    cudaDevAttrManagedMemory says 0)."""

    _managed = True

    def prefetch(self, stream: Any, *, device_id: int | None = None) -> None:
        """Not supported: raises NotImplementedError (the memory is the
        server's)."""
        raise NotImplementedError("arrayd: managed memory prefetch is not "
                                  "supported (the memory is the server's)")

    def advise(self, advise: int, device: Any) -> None:
        """Not supported: raises NotImplementedError (the memory is the
        server's)."""
        raise NotImplementedError("arrayd: managed memory advice is not "
                                  "supported (the memory is the server's)")


class MemoryAsync(Memory):
    """Memory from malloc_async: allocated by the server in stream order,
    as every allocation of a session is. ``stream_ref()`` is the stream
    current when it was allocated (None once that stream is gone)."""

    def __init__(self, size: int):
        super().__init__(size)
        self.stream_ref = weakref.ref(stream_module.get_current_stream())


class PooledMemory(Memory):
    """A block of a MemoryPool (from its malloc): back to the pool on
    free() or when this object goes. ``size`` is the block's, the request
    rounded up to the allocation unit; ``pool`` a weak reference to the
    pool, as CuPy's."""

    def __init__(self, block: "MemoryPointer", size: int, stream_ident: int,
                 pool: "MemoryPool"):
        # No Memory.__init__: the block is the pool's allocator's.
        self._block: MemoryPointer | None = block
        self._stream_ident = stream_ident
        self.ptr = block.ptr
        self.size = size
        self.device_id = block.device_id
        array = block.mem._array
        offset = block.ptr - block.mem.ptr
        if array is not None and (offset or block.mem.size != size):
            array = array[offset:offset + size]
        self._array = array
        self.pool = weakref.ref(pool)

    def free(self) -> None:
        """Returns the block to its pool now (twice: no effect). Lock-free:
        the garbage collector may call it from any thread."""
        block, self._block = self._block, None
        if block is None:
            return
        pool = self.pool()
        if pool is not None:
            pool._give_back(block, self.size, self._stream_ident)
        self._array = None
        self.ptr = 0
        self.size = 0

    def __del__(self) -> None:
        self.free()


class UnownedMemory(BaseMemory):
    """A block this object does not own; ``owner`` keeps it alive."""

    def __init__(self, ptr: int, size: int, owner: Any,
                 device_id: int | None = None):
        self.ptr = int(ptr)
        self.size = int(size)
        self._owner = owner
        self.device_id = (device.get_device_id() if device_id is None
                          else int(device_id))
        mem = getattr(owner, "mem", owner)
        if isinstance(mem, BaseMemory) and mem._array is not None:
            base = mem.ptr
            if base <= self.ptr and self.ptr + self.size <= base + mem.size:
                self._array = mem._array[self.ptr - base:
                                         self.ptr - base + self.size]


def _host_address(mem: Any) -> int:
    """The address of a host pointer given as CuPy takes it: an int, a
    ctypes pointer (c_void_p), or an object with __int__."""
    if isinstance(mem, ctypes.c_void_p):
        return mem.value or 0
    if isinstance(mem, ctypes._Pointer):
        return ctypes.cast(mem, ctypes.c_void_p).value or 0
    return int(mem)


def _host_bytes(address: int, size: int) -> np.ndarray:
    """The ``size`` bytes at a host address, as a numpy view."""
    if size == 0:
        return np.empty(0, dtype=np.uint8)
    return np.ctypeslib.as_array((ctypes.c_ubyte * size).from_address(address))


def _on(stream: Any) -> Any:
    """A context that makes ``stream`` current (None: no change)."""
    return contextlib.nullcontext() if stream is None else stream


class MemoryPointer:
    """A pointer into a block of the session's device memory, as
    ``cupy.cuda.MemoryPointer``: ``mem`` (the block), ``ptr``, ``device_id``,
    pointer arithmetic, and copies to, from and within device memory. The
    copies run on the current stream (``stream=`` for the _async ones);
    copies to the host wait for the data."""

    def __init__(self, mem: BaseMemory, offset: int):
        self.mem = mem
        self.device_id = mem.device_id
        self.ptr = mem.ptr + int(offset)

    def __int__(self) -> int:
        return self.ptr

    def __add__(self, offset: int) -> "MemoryPointer":
        return MemoryPointer(self.mem, self.ptr - self.mem.ptr + int(offset))

    def __radd__(self, offset: int) -> "MemoryPointer":
        return self + offset

    def __iadd__(self, offset: int) -> "MemoryPointer":
        self.ptr += int(offset)
        return self

    def __sub__(self, offset: int) -> "MemoryPointer":
        return self + -int(offset)

    def __isub__(self, offset: int) -> "MemoryPointer":
        return self.__iadd__(-int(offset))

    @property
    def device(self) -> device.Device:
        """The Device the memory is on."""
        return device.Device(self.device_id)

    def _bytes(self, size: int) -> Any:
        """The server's uint8 view of ``size`` bytes from this pointer."""
        start = self.ptr - self.mem.ptr
        arr = self.mem._array
        if arr is None or start < 0 or start + size > self.mem.size:
            raise ValueError(
                f"arrayd: {size} bytes at offset {start} are outside the "
                f"{self.mem.size}-byte block")
        return arr[start:start + size]

    def copy_from_device(self, src: "MemoryPointer", size: int) -> None:
        """Copies ``size`` bytes from device memory at ``src``."""
        if size > 0:
            self._bytes(size)[...] = src._bytes(size)

    def copy_from_device_async(self, src: "MemoryPointer", size: int,
                               stream: Any = None) -> None:
        """copy_from_device on `stream` (default: the current stream)."""
        with _on(stream):
            self.copy_from_device(src, size)

    def copy_from_host(self, mem: Any, size: int) -> None:
        """Copies ``size`` bytes from a host pointer (read now)."""
        if size > 0:
            self._bytes(size)[...] = _host_bytes(_host_address(mem),
                                                 size).copy()

    def copy_from_host_async(self, mem: Any, size: int,
                             stream: Any = None) -> None:
        """copy_from_host on `stream` (default: the current stream)."""
        with _on(stream):
            self.copy_from_host(mem, size)

    def copy_from(self, mem: Any, size: int) -> None:
        """copy_from_device for a MemoryPointer, else copy_from_host."""
        if isinstance(mem, MemoryPointer):
            self.copy_from_device(mem, size)
        else:
            self.copy_from_host(mem, size)

    def copy_from_async(self, mem: Any, size: int, stream: Any = None) -> None:
        """copy_from on `stream` (default: the current stream)."""
        with _on(stream):
            self.copy_from(mem, size)

    def copy_to_host(self, mem: Any, size: int) -> None:
        """Copies ``size`` bytes to a host pointer (waits for the data)."""
        if size > 0:
            data = self._bytes(size).get()
            ctypes.memmove(_host_address(mem), data.ctypes.data, size)

    def copy_to_host_async(self, mem: Any, size: int,
                           stream: Any = None) -> None:
        """As copy_to_host (done when it returns, which CUDA's asynchronous
        copy allows)."""
        with _on(stream):
            self.copy_to_host(mem, size)

    def memset(self, value: int, size: int) -> None:
        """Sets ``size`` bytes to ``value`` (its low byte)."""
        if size > 0:
            self._bytes(size)[...] = int(value) & 0xFF

    def memset_async(self, value: int, size: int, stream: Any = None) -> None:
        """memset on `stream` (default: the current stream)."""
        with _on(stream):
            self.memset(value, size)

    def __repr__(self) -> str:
        return f"<arrayd.cuda.MemoryPointer 0x{self.ptr:x} of {self.mem.size} bytes>"


def _malloc(size: int) -> MemoryPointer:
    """A new block of ``size`` bytes (the default allocator without a pool:
    CuPy's cudaMalloc; the server's pool gives it here too)."""
    return MemoryPointer(Memory(size), 0)


class _ArrayMemory(BaseMemory):
    """The bytes of a contiguous array as a block (``ndarray.data``): a
    uint8 view of them on the server, which keeps the array's buffer alive
    as long as the block lives (the server counts references to buffers)."""

    def __init__(self, a: Any):
        if a._is_c():
            flat = a.reshape(-1)
        elif a._is_f():
            flat = a.T.reshape(-1)
        else:
            raise ValueError(
                "arrayd: .data of a non-contiguous view is not supported (its "
                "first element's offset in its base is the server's); use "
                ".data of a contiguous array, e.g. ascontiguousarray(a)")
        self.size = a.nbytes
        self.device_id = device.get_device_id()
        self._array = flat.view(np.uint8) if a.nbytes else None
        if self._array is not None:
            self._array._base = None  # no reference back to the array
        self.ptr = runtime._new_block_address(self, self.size)


# Each array's block while the array lives, so that a.data.ptr stays the same.
_array_blocks: dict[int, _ArrayMemory] = {}


def _pointer_to(a: Any) -> MemoryPointer:
    """``a.data``: a MemoryPointer to the first element of array ``a``."""
    mem = _array_blocks.get(id(a))
    if mem is None:
        mem = _ArrayMemory(a)
        _array_blocks[id(a)] = mem
        weakref.finalize(a, _array_blocks.pop, id(a), None)
    return MemoryPointer(mem, 0)


def _data(a: Any) -> MemoryPointer:
    """A MemoryPointer to the array's first element, as CuPy's ``a.data``:
    kernels take it as the array's device pointer, its copy methods move
    bytes; the same one while the array lives. For C- or F-contiguous
    arrays."""
    return _pointer_to(a)


_ndarray.attach(data=property(_data))


def malloc_managed(size: int) -> MemoryPointer:
    """CuPy's managed memory allocator: the server's device memory."""
    return MemoryPointer(ManagedMemory(size), 0)


def malloc_async(size: int) -> MemoryPointer:
    """CuPy's stream-ordered allocator: every allocation of a session is."""
    return MemoryPointer(MemoryAsync(size), 0)


# Each session's array for the memory_pool op's answer, written in place at
# every query: a new array each time would itself be freed into the pool's
# cache and show up in the next answer's cached bytes.
_stats_handles: "weakref.WeakKeyDictionary[Any, int]" = (
    weakref.WeakKeyDictionary())


def _session_pool() -> list[int]:
    """[used_bytes, limit_bytes, cached_bytes, cached_blocks] of the current
    session (the memory_pool op). The frees of arrays dropped so far are
    sent first, so that the numbers see them gone."""
    s = _connect.current()
    s.flush()
    h = _stats_handles.get(s)
    if h is None:
        # Made by a first op, so that the answer counts it as every later
        # answer does.
        h = _stats_handles[s] = s.new_handle()
        s.record("memory_pool", (), (h,), {})
    s.record("memory_pool", (), (h,), {})
    (out,) = s.fetch([h])
    return [int(v) for v in np.asarray(out)]


def _total_memory() -> int:
    d = runtime._check_device(runtime.getDevice())
    return int(d.total_memory)


def _limit_bytes(size: int | None, fraction: float | None) -> int:
    """set_limit's bytes: ``size``, or ``fraction`` of the device's total
    memory; neither: 0 (no limit). ValueError as CuPy's."""
    if size is None:
        if fraction is None:
            return 0
        if not 0 <= fraction <= 1:
            raise ValueError(f"memory limit fraction out of range: {fraction}")
        return int(fraction * _total_memory())
    if fraction is not None:
        raise ValueError("size and fraction cannot be specified at one time")
    if size < 0:
        raise ValueError(f"memory limit size out of range: {size}")
    return int(size)


def _parse_limit_string(limit: str | None = None) -> dict[str, Any]:
    """CuPy's reading of a memory limit (CUPY_GPU_MEMORY_LIMIT when
    ``limit`` is None): "1073741824" is {'size': 1073741824, 'fraction':
    None}, "40%" is {'size': None, 'fraction': 0.4}; no limit: both None.
    The result is set_limit's keyword arguments."""
    if limit is None:
        limit = os.environ.get("CUPY_GPU_MEMORY_LIMIT")
    size = fraction = None
    if limit is not None:
        limit = limit.strip()
        if limit.endswith("%"):
            fraction = float(limit[:-1]) / 100
        else:
            size = int(limit)
    return {"size": size, "fraction": fraction}


def _current_stream_ident() -> int:
    """The session's id of the calling thread's current stream (the
    thread's own stream for Stream.ptds): a pool's blocks are reused on the
    stream that freed them only."""
    return runtime.stream_id(stream_module.get_current_stream().ptr)


class MemoryPool:
    """A pool of device-memory blocks, as ``cupy.cuda.MemoryPool``: malloc
    takes blocks (sizes rounded up to 512 bytes) from ``allocator``
    (default: new blocks of the session's memory), a block freed to it is
    kept for the next malloc of its size on the same stream, and the pool
    counts its blocks: used_bytes (in use), free_bytes and n_free_blocks
    (kept), total_bytes (both). free_all_blocks lets the kept ones go.
    set_limit bounds total_bytes (OutOfMemoryError past it).

    This pool counts only what its own malloc gave: arrays are allocated
    by the server (in the session's pool, get_default_memory_pool()),
    whatever allocator is set.

    Thread safety: any thread. A block comes back from a __del__ that the
    garbage collector may run anywhere, even inside malloc on the thread
    that holds the lock: it is only appended to a deque, which the other
    methods drain under the lock."""

    def __init__(self, allocator: Callable[[int], MemoryPointer] | None = None):
        self._allocator = _malloc if allocator is None else allocator
        self._lock = threading.Lock()
        # (stream ident, size) -> blocks kept for reuse.
        self._free: collections.defaultdict[tuple[int, int],
                                            list[MemoryPointer]] = (
            collections.defaultdict(list))
        self._used = 0  # bytes of the blocks in use
        self._back: collections.deque[tuple[MemoryPointer, int, int]] = (
            collections.deque())
        self._limit = 0

    def _give_back(self, block: MemoryPointer, size: int,
                   stream_ident: int) -> None:
        # Lock-free (see the class comment).
        self._back.append((block, size, stream_ident))

    def _take_back(self) -> None:
        # Under _lock.
        back = self._back
        for _ in range(len(back)):
            block, size, ident = back.popleft()
            self._used -= size
            self._free[(ident, size)].append(block)

    def _free_bytes(self) -> int:
        # Under _lock.
        return sum(size * len(blocks)
                   for (_, size), blocks in self._free.items())

    def malloc(self, size: int) -> MemoryPointer:
        """A block of at least ``size`` bytes (a PooledMemory; size 0: an
        empty Memory, as CuPy). OutOfMemoryError past the limit, or when
        the allocator fails even after the kept blocks are let go."""
        if size == 0:
            return MemoryPointer(Memory(0), 0)
        rounded = _round_size(size)
        ident = _current_stream_ident()
        with self._lock:
            self._take_back()
            kept = self._free.get((ident, rounded))
            if kept:
                block = kept.pop()
            else:
                block = self._new_block(rounded)
            self._used += rounded
        return MemoryPointer(PooledMemory(block, rounded, ident, self), 0)

    def _new_block(self, size: int) -> MemoryPointer:
        # Under _lock: a block from the allocator; the kept blocks go first
        # when the limit or the allocator refuses it.
        total = self._used + self._free_bytes()
        if self._limit and total + size > self._limit:
            self._free.clear()
            if self._used + size > self._limit:
                raise OutOfMemoryError(size, self._used, self._limit)
        try:
            return self._allocator(size)
        except OutOfMemoryError:
            if not self._free:
                raise
            self._free.clear()
            return self._allocator(size)

    def free_all_blocks(self, stream: Any = None) -> None:
        """Lets the kept blocks go: those of ``stream`` (a Stream), or of
        every stream."""
        with self._lock:
            self._take_back()
            if stream is None:
                self._free.clear()
                return
            ident = runtime.stream_id(stream.ptr)
            for key in [k for k in self._free if k[0] == ident]:
                del self._free[key]

    def free_all_free(self) -> None:
        """Deprecated alias of free_all_blocks (warns)."""
        warnings.warn("free_all_free is deprecated. Use free_all_blocks "
                      "instead.", DeprecationWarning, stacklevel=2)
        self.free_all_blocks()

    def n_free_blocks(self) -> int:
        """The number of blocks kept for reuse."""
        with self._lock:
            self._take_back()
            return sum(len(blocks) for blocks in self._free.values())

    def used_bytes(self) -> int:
        """Bytes of this pool's blocks in use."""
        with self._lock:
            self._take_back()
            return self._used

    def free_bytes(self) -> int:
        """Bytes of the blocks kept for reuse."""
        with self._lock:
            self._take_back()
            return self._free_bytes()

    def total_bytes(self) -> int:
        """used_bytes() + free_bytes()."""
        with self._lock:
            self._take_back()
            return self._used + self._free_bytes()

    def set_limit(self, size: int | None = None,
                  fraction: float | None = None) -> None:
        """Limits total_bytes to ``size`` bytes, or to ``fraction`` of the
        device's total memory; neither, or 0: no limit."""
        limit = _limit_bytes(size, fraction)
        with self._lock:
            self._limit = limit

    def get_limit(self) -> int:
        """The limit in bytes (0: none)."""
        return self._limit


class _SessionMemoryPool(MemoryPool):
    """The session's memory pool on the server (get_default_memory_pool()):
    its numbers are the server's for the session's arrays and blocks, and
    its limit the session's. Each call asks the server (one round trip)."""

    def malloc(self, size: int) -> MemoryPointer:
        """A block of ``size`` bytes (rounded up to 512) of the session's
        pool."""
        if size == 0:
            return MemoryPointer(Memory(0), 0)
        rounded = _round_size(size)
        return MemoryPointer(PooledMemory(_malloc(rounded), rounded,
                                          _current_stream_ident(), self), 0)

    def _give_back(self, block: MemoryPointer, size: int,
                   stream_ident: int) -> None:
        # The block's array goes with ``block``: the server's pool keeps it.
        pass

    def free_all_blocks(self, stream: Any = None) -> None:
        """Frees the pool's cached blocks (the server's, of the session's
        streams; ``stream`` is accepted, all are freed)."""
        _connect.current().record("memory_pool_free", (), (), {})

    def n_free_blocks(self) -> int:
        """The number of cached blocks in the pool."""
        return _session_pool()[3]

    def used_bytes(self) -> int:
        """Bytes of the session's live arrays and blocks."""
        return _session_pool()[0]

    def free_bytes(self) -> int:
        """Bytes of the pool's cached blocks."""
        return _session_pool()[2]

    def total_bytes(self) -> int:
        """used_bytes() + free_bytes()."""
        used, _, cached, _ = _session_pool()
        return used + cached

    def set_limit(self, size: int | None = None,
                  fraction: float | None = None) -> None:
        """Limits the session's device memory to ``size`` bytes, or to
        ``fraction`` of the device's total memory; neither, or 0: the
        server's default. An allocation past it raises OutOfMemoryError."""
        _connect.current().record("memory_pool_limit", (), (),
                                  {"bytes": _limit_bytes(size, fraction)})

    def get_limit(self) -> int:
        """The session's limit in bytes (0: none)."""
        return _session_pool()[1]


class MemoryAsyncPool(_SessionMemoryPool):
    """CuPy's pool of cudaMallocAsync, as the session's pool: its blocks
    are MemoryAsync (malloc_async's), its numbers the session's, and no
    limit reads 2**64 - 1, as CuPy's. (arrayd exposes no cudaMallocAsync
    pool: runtime's cudaDevAttrMemoryPoolsSupported says 0.)"""

    def __init__(self, pool_handles: Any = "current") -> None:
        super().__init__()

    def malloc(self, size: int) -> MemoryPointer:
        """A stream-ordered block of `size` bytes of the session's memory
        (malloc_async)."""
        return malloc_async(size)

    def get_limit(self) -> int:
        """The session's limit in bytes, 2**64 - 1 when there is none (as
        CuPy's async pool)."""
        return super().get_limit() or 2**64 - 1


_default_pool = _SessionMemoryPool()
_current_allocator: Callable[[int], MemoryPointer] = _default_pool.malloc
_thread_local = threading.local()


def get_default_memory_pool() -> MemoryPool:
    """The session's memory pool (as ``cupy.get_default_memory_pool()``)."""
    return _default_pool


def alloc(size: int) -> MemoryPointer:
    """A block of ``size`` bytes from the current allocator."""
    return get_allocator()(size)


def set_allocator(allocator: Callable[[int], MemoryPointer] | None = None
                  ) -> None:
    """Sets what alloc() calls (None: the allocator without a pool).
    ValueError inside ``using_allocator``, as CuPy."""
    global _current_allocator
    if getattr(_thread_local, "allocator", None) is not None:
        raise ValueError("Can't change the global allocator inside "
                         "`using_allocator` context manager")
    _current_allocator = _malloc if allocator is None else allocator


def get_allocator() -> Callable[[int], MemoryPointer]:
    """What alloc() calls in this thread."""
    allocator = getattr(_thread_local, "allocator", None)
    return _current_allocator if allocator is None else allocator


@contextlib.contextmanager
def using_allocator(allocator: Callable[[int], MemoryPointer] | None = None
                    ) -> Iterator[None]:
    """Sets the thread's allocator for the ``with`` block."""
    previous = getattr(_thread_local, "allocator", None)
    _thread_local.allocator = _malloc if allocator is None else allocator
    try:
        yield
    finally:
        _thread_local.allocator = previous
