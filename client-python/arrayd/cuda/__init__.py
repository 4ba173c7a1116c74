"""arrayd.cuda: CuPy's ``cupy.cuda`` names for the server's device.

A client sees the device of its server (one device per server today):
``Device(0)``, its properties from the server's Capabilities and its free
memory from the server (``device_memory``), and ``runtime`` with CuPy's
functions. ``Device.synchronize()`` waits for all of the session's work,
on every stream, as CuPy's waits for the device's.

Streams and events (``stream``: Stream, Event, get_current_stream,
get_elapsed_time) are the session's streams on the server; ``memory`` is
the session's memory pool on the server (get_default_memory_pool,
set_limit, MemoryPointer blocks, MemoryPool objects of such blocks) and
``pinned_memory`` host memory that transfers to a same-host server
without a copy (alloc_pinned_memory).

Layer: a public namespace, above the function modules (its submodules
import _connect, _session, _shm and the array modules).
"""
from __future__ import annotations

from arrayd.cuda import (compiler, device, driver, memory, pinned_memory,
                         runtime, stream)
from arrayd.cuda.device import Device, get_cublas_handle, get_device_id
from arrayd.cuda.memory import (BaseMemory, ManagedMemory, Memory,
                                MemoryAsync, MemoryAsyncPool, MemoryPointer,
                                MemoryPool, OutOfMemoryError, PooledMemory,
                                UnownedMemory, alloc, get_allocator,
                                malloc_async, malloc_managed, set_allocator,
                                using_allocator)
from arrayd.cuda.pinned_memory import (PinnedMemory, PinnedMemoryPointer,
                                       PinnedMemoryPool, alloc_pinned_memory,
                                       set_pinned_memory_allocator)
from arrayd.cuda.runtime import CUDARuntimeError
from arrayd.cuda.stream import (Event, ExternalStream, Stream,
                                get_current_stream, get_elapsed_time)

__all__ = ["Device", "is_available", "get_device_id", "get_cublas_handle",
           "runtime", "device", "driver", "compiler",
           "stream", "memory", "pinned_memory", "CUDARuntimeError",
           "Stream", "ExternalStream", "Event", "get_current_stream",
           "get_elapsed_time", "BaseMemory", "Memory", "ManagedMemory",
           "MemoryAsync", "PooledMemory", "UnownedMemory", "MemoryPointer",
           "MemoryPool", "MemoryAsyncPool", "OutOfMemoryError", "alloc",
           "malloc_managed", "malloc_async", "set_allocator",
           "get_allocator", "using_allocator", "PinnedMemory",
           "PinnedMemoryPointer", "PinnedMemoryPool", "alloc_pinned_memory",
           "set_pinned_memory_allocator"]


def is_available() -> bool:
    """True when the server computes on a GPU (CuPy: a device is there).
    A server on the CPU backend still runs everything, on its host."""
    return runtime.backend() in ("cuda", "hip")
