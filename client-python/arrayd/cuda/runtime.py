"""arrayd.cuda.runtime: CuPy's ``cupy.cuda.runtime`` functions for the
server's device: getDeviceCount, getDevice, setDevice, deviceSynchronize,
getDeviceProperties (CuPy's keys), memGetInfo, deviceGetPCIBusId, and
CUDARuntimeError for a device the server does not have.

Layer: below arrayd.cuda (imports _connect).
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

from arrayd import _connect

__all__ = ["CUDARuntimeError", "getDeviceCount", "getDevice", "setDevice",
           "deviceSynchronize", "getDeviceProperties", "memGetInfo",
           "deviceGetPCIBusId"]


class CUDARuntimeError(RuntimeError):
    """As cupy_backends.cuda.api.runtime.CUDARuntimeError: ``status`` is
    the cudaError_t code."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


_INVALID_DEVICE = 101  # cudaErrorInvalidDevice
_current = threading.local()


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
    return getattr(_current, "device", 0)


def setDevice(device: int) -> None:
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


def _bus_number(pci_bus_id: str) -> int:
    # "0000:19:00.0" -> 0x19
    parts = pci_bus_id.split(":")
    return int(parts[1], 16) if len(parts) == 3 else 0


def deviceGetPCIBusId(device: int) -> str:
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
