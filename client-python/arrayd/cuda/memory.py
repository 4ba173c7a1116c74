"""arrayd.cuda.memory: CuPy's ``cupy.cuda.memory`` for the session's memory
on the server.

The server allocates every array of a session from the device pool of the
session's streams (a caching allocator on CUDA), and keeps the session's
count: ``get_default_memory_pool()`` shows it (used_bytes: the session's
live arrays; free_bytes: the pool's cached blocks), frees the cached blocks
(free_all_blocks) and sets the session's limit (set_limit: allocations past
it raise OutOfMemoryError, as CuPy's pool does). Every MemoryPool object
shows the same session pool: there is no second pool to make on the server.

``malloc``/``alloc`` give a MemoryPointer to a block of the session's
device memory (a uint8 array on the server) with CuPy's copy and memset
methods; its ``ptr`` is an address in this client's numbering of its
blocks, not a device address (the memory is in the server's process).
``set_allocator`` takes what CuPy code passes (a pool's malloc,
malloc_managed, malloc_async, None) and is what alloc() calls; arrays are
allocated by the server whatever it is.

Layer: a public namespace module below arrayd.cuda (imports runtime,
device and the array modules).
"""
from __future__ import annotations

import contextlib
import ctypes
import itertools
import threading
import warnings
import weakref
from typing import Any, Callable, Iterator

import numpy as np

from arrayd import _connect, _creation, _indexing  # noqa: F401 (ndarray[...])
from arrayd._errors import OutOfMemoryError
from arrayd.cuda import device, runtime

__all__ = ["OutOfMemoryError", "BaseMemory", "Memory", "ManagedMemory",
           "MemoryAsync", "UnownedMemory", "PooledMemory", "MemoryPointer",
           "MemoryPool", "MemoryAsyncPool", "alloc", "malloc_managed",
           "malloc_async", "set_allocator", "get_allocator",
           "using_allocator", "get_default_memory_pool"]

# CuPy rounds allocations to this (cudaMalloc's alignment).
_allocation_unit_size = 512

# The addresses ``ptr`` of this client's blocks: each block gets the next
# range, never reused, so that pointers of different blocks differ and
# MemoryPointer arithmetic stays within its block.
_addresses = itertools.count(1)
_address_lock = threading.Lock()
_ADDRESS_BASE = 1 << 40


def _new_address(size: int) -> int:
    units = -(-max(size, 1) // _allocation_unit_size)
    with _address_lock:
        start = next(_addresses)
        for _ in range(units - 1):
            next(_addresses)
    return _ADDRESS_BASE + start * _allocation_unit_size


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
        return device.Device(self.device_id)


class Memory(BaseMemory):
    """``size`` bytes of the session's device memory, freed when this object
    goes."""

    def __init__(self, size: int):
        self.size = int(size)
        self.device_id = device.get_device_id()
        self.ptr = 0
        self._array = None
        if self.size > 0:
            self._array = _creation.empty(self.size, dtype=np.uint8)
            self.ptr = _new_address(self.size)


class ManagedMemory(Memory):
    """Memory from malloc_managed: the server's device memory as any other
    (it has no unified memory to offer a remote client)."""

    def prefetch(self, stream: Any, *, device_id: int | None = None) -> None:
        raise NotImplementedError("arrayd: managed memory prefetch is not "
                                  "supported (the memory is the server's)")

    def advise(self, advise: int, device: Any) -> None:
        raise NotImplementedError("arrayd: managed memory advice is not "
                                  "supported (the memory is the server's)")


class MemoryAsync(Memory):
    """Memory from malloc_async: allocated by the server in stream order,
    as every allocation of a session is."""


class PooledMemory(Memory):
    """Memory from MemoryPool.malloc: the server's pool gives it and takes
    it back (free(), or when this object goes)."""

    def __init__(self, size: int, pool: "MemoryPool"):
        super().__init__(size)
        self.pool = pool

    def free(self) -> None:
        """Returns the block to the server's pool now (twice: no effect)."""
        self._array = None
        self.ptr = 0
        self.size = 0


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
        with _on(stream):
            self.copy_from_device(src, size)

    def copy_from_host(self, mem: Any, size: int) -> None:
        """Copies ``size`` bytes from a host pointer (read now)."""
        if size > 0:
            self._bytes(size)[...] = _host_bytes(_host_address(mem),
                                                 size).copy()

    def copy_from_host_async(self, mem: Any, size: int,
                             stream: Any = None) -> None:
        with _on(stream):
            self.copy_from_host(mem, size)

    def copy_from(self, mem: Any, size: int) -> None:
        """copy_from_device for a MemoryPointer, else copy_from_host."""
        if isinstance(mem, MemoryPointer):
            self.copy_from_device(mem, size)
        else:
            self.copy_from_host(mem, size)

    def copy_from_async(self, mem: Any, size: int, stream: Any = None) -> None:
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
        with _on(stream):
            self.memset(value, size)

    def __repr__(self) -> str:
        return f"<arrayd.cuda.MemoryPointer 0x{self.ptr:x} of {self.mem.size} bytes>"


def _malloc(size: int) -> MemoryPointer:
    """A new block of ``size`` bytes (the default allocator without a pool:
    CuPy's cudaMalloc; the server's pool gives it here too)."""
    return MemoryPointer(Memory(size), 0)


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


class MemoryPool:
    """The session's memory pool on the server, as ``cupy.cuda.MemoryPool``.
    Each call asks the server (one round trip). ``allocator`` is accepted
    for CuPy's signature; the server allocates."""

    def __init__(self, allocator: Callable[[int], MemoryPointer] | None = None):
        self._allocator = allocator

    def malloc(self, size: int) -> MemoryPointer:
        """A block of ``size`` bytes from the session's pool."""
        if size == 0:
            return MemoryPointer(Memory(0), 0)
        return MemoryPointer(PooledMemory(size, self), 0)

    def free_all_blocks(self, stream: Any = None) -> None:
        """Frees the pool's cached blocks (the server's, of the session's
        streams; ``stream`` is accepted, all are freed)."""
        _connect.current().record("memory_pool_free", (), (), {})

    def free_all_free(self) -> None:
        warnings.warn("free_all_free is deprecated. Use free_all_blocks "
                      "instead.", DeprecationWarning, stacklevel=2)
        self.free_all_blocks()

    def n_free_blocks(self) -> int:
        """The number of cached blocks in the pool."""
        return _session_pool()[3]

    def used_bytes(self) -> int:
        """Bytes of the session's live arrays."""
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
        if size is None:
            if fraction is None:
                size = 0
            else:
                if not 0 <= fraction <= 1:
                    raise ValueError(
                        f"memory limit fraction out of range: {fraction}")
                size = int(fraction * _total_memory())
        elif fraction is not None:
            raise ValueError("size and fraction cannot be specified at one "
                             "time")
        if size < 0:
            raise ValueError(f"memory limit size out of range: {size}")
        _connect.current().record("memory_pool_limit", (), (),
                                  {"bytes": int(size)})

    def get_limit(self) -> int:
        """The session's limit in bytes (0: none)."""
        return _session_pool()[1]


class MemoryAsyncPool(MemoryPool):
    """CuPy's pool of cudaMallocAsync: the same session pool."""


_default_pool = MemoryPool()
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
