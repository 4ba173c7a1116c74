"""arrayd.cuda.runtime: CuPy's ``cupy.cuda.runtime`` functions for the
server's device: getDeviceCount, getDevice, setDevice, deviceSynchronize,
getDeviceProperties (CuPy's keys), deviceGetAttribute (the attributes the
server reports), memGetInfo, deviceGetPCIBusId, pointerGetAttributes (for
the blocks of arrayd.cuda.memory), and CUDARuntimeError for a device the
server does not have; streams and events (streamCreate..., eventCreate...,
eventElapsedTime) on the server.

A stream or event "pointer" here is an id this client chose (unique in the
process, never 0, 1 or 2, which are CUDA's default, legacy and per-thread
stream handles): creating one costs no round trip; a session makes it on
the server when an op or sync first names it (see _session).

Layer: below arrayd.cuda (imports _connect, _session, _errors).
"""
from __future__ import annotations

import itertools
import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from arrayd import _connect, _session
from arrayd._errors import (CUDA_ERROR_INVALID_DEVICE,
                            CUDA_ERROR_INVALID_RESOURCE_HANDLE,
                            CUDARuntimeError)
from arrayd._proto import pb

__all__ = ["CUDARuntimeError", "getDeviceCount", "getDevice", "setDevice",
           "deviceSynchronize", "getDeviceProperties", "deviceGetAttribute",
           "memGetInfo", "deviceGetPCIBusId", "pointerGetAttributes",
           "PointerAttributes", "streamCreate", "streamCreateWithFlags",
           "streamCreateWithPriority", "streamDestroy", "streamSynchronize",
           "streamQuery", "streamWaitEvent", "streamGetFlags",
           "streamGetPriority", "eventCreate", "eventCreateWithFlags",
           "eventDestroy", "eventRecord", "eventSynchronize", "eventQuery",
           "eventElapsedTime", "streamDefault", "streamNonBlocking",
           "streamLegacy", "streamPerThread", "eventDefault",
           "eventBlockingSync", "eventDisableTiming", "eventInterprocess",
           "cudaSuccess", "cudaErrorNotReady", "cudaErrorNotSupported",
           "cudaMemoryTypeUnregistered", "cudaMemoryTypeHost",
           "cudaMemoryTypeDevice", "cudaMemoryTypeManaged"]

_INVALID_DEVICE = CUDA_ERROR_INVALID_DEVICE
_current = threading.local()

# CUDA's flags and handles, with the runtime's values.
streamDefault = 0
streamNonBlocking = 1
streamLegacy = 1     # the legacy default stream's handle: stream 0 here
streamPerThread = 2  # the calling thread's default stream
eventDefault = 0
eventBlockingSync = 1
eventDisableTiming = 2
eventInterprocess = 4
cudaSuccess = 0
cudaErrorNotReady = 600
cudaErrorNotSupported = 801
cudaMemoryTypeUnregistered = 0
cudaMemoryTypeHost = 1
cudaMemoryTypeDevice = 2
cudaMemoryTypeManaged = 3


def _devices() -> list[Any]:
    return list(_connect.current().capabilities.devices)


def backend() -> str:
    """The server's active backend ("cuda", "cpu", ...)."""
    return _connect.current().capabilities.active_backend


def _check_device(device: int) -> Any:
    devices = _devices()
    if not 0 <= device < len(devices):
        raise CUDARuntimeError(_INVALID_DEVICE,
                               "cudaErrorInvalidDevice: invalid device ordinal")
    return devices[device]


def getDeviceCount() -> int:
    """The devices of the server (the host CPU counts as one on the CPU
    backend, so that device code runs there too)."""
    return len(_devices())


def getDevice() -> int:
    """The current device of this thread (0 unless setDevice chose another)."""
    return getattr(_current, "device", 0)


def setDevice(device: int) -> None:
    """Makes `device` this thread's current device (CUDARuntimeError for one
    the server lacks)."""
    _check_device(int(device))
    _current.device = int(device)


def deviceSynchronize() -> None:
    """Waits for every op of this session (CuPy: of the device)."""
    _connect.current().synchronize()


def getDeviceProperties(device: int) -> dict[str, Any]:
    """CuPy's dict of cudaDeviceProp fields that the server reports."""
    d = _check_device(int(device))
    return {
        "name": d.name.encode(), "totalGlobalMem": d.total_memory,
        "major": d.compute_major, "minor": d.compute_minor,
        "multiProcessorCount": d.multiprocessor_count,
        "maxThreadsPerBlock": d.max_threads_per_block, "warpSize": d.warp_size,
        "sharedMemPerBlock": d.shared_memory_per_block,
        "l2CacheSize": d.l2_cache_bytes, "clockRate": d.clock_rate_khz,
        "pciBusID": _bus_number(d.pci_bus_id),
    }


def _pci_part(pci_bus_id: str, index: int) -> int:
    """Part ``index`` (0 domain, 1 bus, 2 device) of "0000:19:00.0", as an
    int (0 when the server reports no PCI address, as the CPU backend)."""
    parts = pci_bus_id.replace(".", ":").split(":")
    try:
        return int(parts[index], 16) if len(parts) == 4 else 0
    except ValueError:
        return 0


def _bus_number(pci_bus_id: str) -> int:
    return _pci_part(pci_bus_id, 1)


# cudaDeviceAttr values (CUDA's enum) of the attributes deviceGetAttribute
# answers: each from a field of the server's DeviceInfo, or a fact of
# arrayd itself (see _ARRAYD_ATTRIBUTES).
cudaDevAttrMaxThreadsPerBlock = 1
cudaDevAttrMaxSharedMemoryPerBlock = 8
cudaDevAttrWarpSize = 10
cudaDevAttrClockRate = 13
cudaDevAttrMultiProcessorCount = 16
cudaDevAttrPciBusId = 33
cudaDevAttrPciDeviceId = 34
cudaDevAttrL2CacheSize = 38
cudaDevAttrPciDomainId = 50
cudaDevAttrComputeCapabilityMajor = 75
cudaDevAttrComputeCapabilityMinor = 76
cudaDevAttrManagedMemory = 83
cudaDevAttrPageableMemoryAccess = 88
cudaDevAttrConcurrentManagedAccess = 89
cudaDevAttrMemoryPoolsSupported = 115

_DEVICE_ATTRIBUTES = {
    cudaDevAttrMaxThreadsPerBlock: lambda d: d.max_threads_per_block,
    cudaDevAttrMaxSharedMemoryPerBlock: lambda d: d.shared_memory_per_block,
    cudaDevAttrWarpSize: lambda d: d.warp_size,
    cudaDevAttrClockRate: lambda d: d.clock_rate_khz,
    cudaDevAttrMultiProcessorCount: lambda d: d.multiprocessor_count,
    cudaDevAttrPciBusId: lambda d: _pci_part(d.pci_bus_id, 1),
    cudaDevAttrPciDeviceId: lambda d: _pci_part(d.pci_bus_id, 2),
    cudaDevAttrL2CacheSize: lambda d: d.l2_cache_bytes,
    cudaDevAttrPciDomainId: lambda d: _pci_part(d.pci_bus_id, 0),
    cudaDevAttrComputeCapabilityMajor: lambda d: d.compute_major,
    cudaDevAttrComputeCapabilityMinor: lambda d: d.compute_minor,
}
# What arrayd offers a client, whatever the device could: 0 for memory
# the client would address itself. malloc_managed and malloc_async give
# blocks of the session's pool on the server (no unified memory reaches a
# remote client, no cudaMallocAsync pool is exposed), so CuPy code that
# checks these takes its plain device-memory path.
_ARRAYD_ATTRIBUTES = {
    cudaDevAttrManagedMemory: 0,
    cudaDevAttrPageableMemoryAccess: 0,
    cudaDevAttrConcurrentManagedAccess: 0,
    cudaDevAttrMemoryPoolsSupported: 0,
}


def deviceGetAttribute(attrib: int, device: int) -> int:
    """The value of cudaDeviceAttr ``attrib`` for ``device``, for the
    attributes the server reports (the cudaDevAttr... names of this module;
    0 on the CPU backend where it has no such property). CUDARuntimeError:
    cudaErrorInvalidDevice for a device the server does not have,
    cudaErrorNotSupported for an attribute the server does not report."""
    d = _check_device(int(device))
    attrib = int(attrib)
    if attrib in _ARRAYD_ATTRIBUTES:
        return _ARRAYD_ATTRIBUTES[attrib]
    get = _DEVICE_ATTRIBUTES.get(attrib)
    if get is None:
        raise CUDARuntimeError(
            cudaErrorNotSupported,
            f"cudaErrorNotSupported: the arrayd server does not report "
            f"device attribute {attrib} (it reports "
            f"{sorted({**_DEVICE_ATTRIBUTES, **_ARRAYD_ATTRIBUTES})})")
    return int(get(d))


# -- pointers of arrayd.cuda.memory's blocks ---------------------------------

# Every block of arrayd.cuda.memory gets the next range of addresses in
# this client's numbering, never reused, so that pointers of different
# blocks differ and MemoryPointer arithmetic stays within its block; they
# are not device addresses (the memory is in the server's process).
_ADDRESS_UNIT = 512  # CuPy's allocation unit (cudaMalloc's alignment)
_ADDRESS_BASE = 1 << 40
_address_units = itertools.count(1)
_address_lock = threading.Lock()
# Live blocks by first address: start -> (block, size, memory type).
_blocks: dict[int, tuple["weakref.ref[Any]", int, int]] = {}


def _forget_block(start: int) -> None:
    _blocks.pop(start, None)


def _new_block_address(block: Any, size: int, managed: bool = False) -> int:
    """A new address range of ``size`` bytes for ``block`` (a BaseMemory of
    arrayd.cuda.memory), known to pointerGetAttributes while it lives."""
    units = -(-max(size, 1) // _ADDRESS_UNIT)
    with _address_lock:
        start = next(_address_units)
        for _ in range(units - 1):
            next(_address_units)
    start = _ADDRESS_BASE + start * _ADDRESS_UNIT
    kind = cudaMemoryTypeManaged if managed else cudaMemoryTypeDevice
    _blocks[start] = (weakref.ref(block, lambda _, s=start: _forget_block(s)),
                      size, kind)
    return start


@dataclass
class PointerAttributes:
    """cudaPointerGetAttributes' answer, as CuPy's PointerAttributes."""

    device: int
    devicePointer: int
    hostPointer: int
    type: int = -1


def pointerGetAttributes(ptr: int) -> PointerAttributes:
    """The device and memory type of an address in a live block of
    arrayd.cuda.memory (cudaMemoryTypeDevice, or Managed for
    malloc_managed's). Any other address is cudaMemoryTypeUnregistered,
    device -2, as CUDA answers for ordinary host memory: arrays on the
    server have no device pointers in the client."""
    ptr = int(ptr)
    # A scan of the live blocks: this is a rare query, and the blocks of
    # arrayd.cuda.memory are few (arrays do not have them).
    for start, (ref, size, kind) in list(_blocks.items()):
        block = ref()
        if block is not None and start <= ptr < start + max(size, 1):
            return PointerAttributes(block.device_id, ptr, 0, kind)
    return PointerAttributes(-2, 0, ptr, cudaMemoryTypeUnregistered)


def deviceGetPCIBusId(device: int) -> str:
    """The PCI bus id of `device` as the server reports it ('' on the CPU
    backend)."""
    return _check_device(int(device)).pci_bus_id


def memGetInfo() -> tuple[int, int]:
    """(free, total) bytes of the current device's memory, from the server."""
    _check_device(getDevice())
    s = _connect.current()
    h = s.new_handle()
    s.record("device_memory", (), (h,), {})
    try:
        (out,) = s.fetch([h])
    finally:
        s.free(h)
    free, total = (int(v) for v in np.asarray(out))
    return free, total


# -- streams and events -------------------------------------------------------

_ids = itertools.count(16)  # stream and event ids (see the module comment)
_event_flags: dict[int, int] = {}  # live events: id -> eventCreateWithFlags flags


class _OwnStream:
    """A stream id destroyed with this object."""

    __slots__ = ("id", "__weakref__")

    def __init__(self) -> None:
        self.id = streamCreateWithPriority(streamDefault, 0)
        weakref.finalize(self, streamDestroy, self.id).atexit = False


# streamPerThread: a blocking stream per thread (its ``own``), made on the
# thread's first use and destroyed when the thread ends (its values go).
_per_thread = threading.local()


def stream_id(stream: int) -> int:
    """The session's stream id of a stream handle: 0 for the default and
    legacy streams, the thread's own stream for streamPerThread."""
    if stream in (0, streamLegacy):
        return 0
    if stream == streamPerThread:
        own = getattr(_per_thread, "own", None)
        if own is None:
            own = _per_thread.own = _OwnStream()
        return own.id
    return stream


def _bad_handle(what: str) -> CUDARuntimeError:
    return CUDARuntimeError(CUDA_ERROR_INVALID_RESOURCE_HANDLE,
                            f"cudaErrorInvalidResourceHandle: invalid resource "
                            f"handle ({what})")


def streamCreate() -> int:
    """A new blocking stream of priority 0 (streamCreateWithPriority)."""
    return streamCreateWithPriority(streamDefault, 0)


def streamCreateWithFlags(flag: int) -> int:
    """A new stream with `flag` (streamDefault or streamNonBlocking) and
    priority 0."""
    return streamCreateWithPriority(flag, 0)


def streamCreateWithPriority(flag: int, priority: int) -> int:
    """A new stream (streamNonBlocking: it does not order with stream 0).
    Made on the server when first used; the server clamps ``priority`` to
    the device's range (lower runs first)."""
    sid = next(_ids)
    _session.stream_specs[sid] = (bool(flag & streamNonBlocking), int(priority))
    return sid


def streamDestroy(stream: int) -> None:
    """Destroys the stream in every session that made it, after the work
    queued on it (lock-free, so a finalizer may call it)."""
    if _session.stream_specs.pop(stream, None) is None:
        return
    for s in list(_session._open_sessions):
        s.free_stream(stream)


def _spec(stream: int) -> tuple[bool, int]:
    sid = stream_id(stream)
    if sid == 0:
        return (False, 0)
    spec = _session.stream_specs.get(sid)
    if spec is None:
        raise _bad_handle(f"no stream {stream}")
    return spec


def streamGetFlags(stream: int) -> int:
    """streamNonBlocking or streamDefault, as the stream was made (stream 0:
    streamDefault)."""
    return streamNonBlocking if _spec(stream)[0] else streamDefault


def streamGetPriority(stream: int) -> int:
    """The priority the stream was made with (the server may have clamped
    it to the device's range)."""
    return _spec(stream)[1]


def streamSynchronize(stream: int) -> None:
    """Waits for the work queued on the stream; raises a deferred error."""
    _spec(stream)
    _connect.current().sync_scope(pb.SYNC_STREAM, stream_id(stream))


def streamQuery(stream: int) -> int:
    """cudaSuccess when the stream's work is done, else cudaErrorNotReady."""
    _spec(stream)
    reply = _connect.current().sync_scope(pb.SYNC_STREAM, stream_id(stream),
                                          query=True)
    return cudaSuccess if reply.done else cudaErrorNotReady


def streamWaitEvent(stream: int, event: int, flags: int = 0) -> None:
    """Later work on the stream waits for the event's last record (an event
    never recorded: no wait, as CUDA)."""
    _spec(stream)
    if event not in _event_flags:
        raise _bad_handle(f"no event {event}")
    s = _connect.current()
    if s.has_event(event):
        s.record("stream_wait_event", (), (), {"event": event},
                 stream=stream_id(stream))


def eventCreate() -> int:
    """A new event with the default flags (eventCreateWithFlags)."""
    return eventCreateWithFlags(eventDefault)


def eventCreateWithFlags(flag: int) -> int:
    """A new event; eventInterprocess is not offered (CUDA IPC handles
    would name memory of the server's process)."""
    if flag & eventInterprocess:
        raise NotImplementedError(
            "arrayd: interprocess events are not supported (an event lives "
            "in the server's session; CUDA IPC handles cannot reach it)")
    eid = next(_ids)
    _event_flags[eid] = int(flag)
    return eid


def eventDestroy(event: int) -> None:
    """Forgets the event in every session that recorded it (lock-free)."""
    if _event_flags.pop(event, None) is None:
        return
    for s in list(_session._open_sessions):
        s.free_event(event)


def _event(event: int) -> int:
    flags = _event_flags.get(event)
    if flags is None:
        raise _bad_handle(f"no event {event}")
    return flags


def eventRecord(event: int, stream: int) -> None:
    """Records the event on the stream, after the work queued there."""
    flags = _event(event)
    _spec(stream)
    s = _connect.current()
    s.record("event_record", (), (),
             {"event": event, "timing": not flags & eventDisableTiming,
              "blocking": bool(flags & eventBlockingSync)},
             stream=stream_id(stream))
    s.recorded_event(event)


def eventSynchronize(event: int) -> None:
    """Waits for the event's last record (none yet: returns at once, as
    CUDA); raises a deferred error."""
    _event(event)
    s = _connect.current()
    if s.has_event(event):
        s.sync_scope(pb.SYNC_EVENT, event)


def eventQuery(event: int) -> int:
    """cudaSuccess when the event's last record is done (or it was never
    recorded), else cudaErrorNotReady."""
    _event(event)
    s = _connect.current()
    if not s.has_event(event):
        return cudaSuccess
    reply = s.sync_scope(pb.SYNC_EVENT, event, query=True)
    return cudaSuccess if reply.done else cudaErrorNotReady


def eventElapsedTime(start: int, end: int) -> float:
    """Milliseconds of device time from event ``start`` to ``end`` (both
    waited for). CUDARuntimeError when one was never recorded or was made
    with eventDisableTiming (the server refuses that)."""
    _event(start)
    _event(end)
    s = _connect.current()
    for e in (start, end):
        if not s.has_event(e):
            raise _bad_handle(f"event {e} was never recorded")
    reply = s.sync_scope(pb.SYNC_EVENT, end, elapsed_from=start)
    return float(reply.elapsed_ms)
