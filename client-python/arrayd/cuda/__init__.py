"""arrayd.cuda: CuPy's ``cupy.cuda`` names for the server's device.

A client sees the device of its server (one device per server today):
``Device(0)``, its properties from the server's Capabilities and its free
memory from the server (``device_memory``), and ``runtime`` with CuPy's
functions. ``Device.synchronize()`` waits for the session's work, as
CuPy's waits for the device's.

Not here yet (issue 14, next steps): streams and events, user kernels,
memory pools.

Layer: a public namespace, above the function modules (imports _connect
and _errors).
"""
from __future__ import annotations

from typing import Any

from arrayd import _connect
from arrayd.cuda import runtime
from arrayd.cuda.runtime import CUDARuntimeError

__all__ = ["Device", "is_available", "get_device_id", "runtime", "CUDARuntimeError"]


def is_available() -> bool:
    """True when the server computes on a GPU (CuPy: a device is there).
    A server on the CPU backend still runs everything, on its host."""
    return runtime.backend() in ("cuda", "hip")


def get_device_id() -> int:
    """The current device's id (always the server's one device, 0)."""
    return runtime.getDevice()


class Device:
    """A device of the server, as ``cupy.cuda.Device``: ``with Device(0):``,
    ``use()``, ``synchronize()``, ``id``, ``compute_capability``,
    ``mem_info``, ``pci_bus_id``. A device the server does not have raises
    CUDARuntimeError when it is used, as CuPy's does."""

    def __init__(self, device: Any = None):
        if device is None:
            self.id = runtime.getDevice()
        elif isinstance(device, Device):
            self.id = device.id
        else:
            self.id = int(device)
        self._entered: list[int] = []

    def _check(self) -> None:
        runtime._check_device(self.id)

    def use(self) -> None:
        """Makes this device current (there is one: it must exist)."""
        runtime.setDevice(self.id)

    def __enter__(self) -> "Device":
        self._entered.append(runtime.getDevice())
        self.use()
        return self

    def __exit__(self, *exc: Any) -> None:
        runtime.setDevice(self._entered.pop())

    def synchronize(self) -> None:
        """Waits for every op of this session (raising a deferred error)."""
        self._check()
        _connect.current().synchronize()

    @property
    def compute_capability(self) -> str:
        """"90" for an H100/H200, as CuPy; "0" on the CPU backend."""
        p = runtime.getDeviceProperties(self.id)
        return f"{p['major']}{p['minor']}"

    @property
    def mem_info(self) -> tuple[int, int]:
        """(free, total) bytes of the device's memory, now."""
        self._check()
        return runtime.memGetInfo()

    @property
    def pci_bus_id(self) -> str:
        return runtime.deviceGetPCIBusId(self.id)

    @property
    def attributes(self) -> dict[str, int]:
        p = runtime.getDeviceProperties(self.id)
        return {"MultiProcessorCount": p["multiProcessorCount"],
                "MaxThreadsPerBlock": p["maxThreadsPerBlock"],
                "WarpSize": p["warpSize"],
                "MaxSharedMemoryPerBlock": p["sharedMemPerBlock"],
                "L2CacheSize": p["l2CacheSize"], "ClockRate": p["clockRate"],
                "ComputeCapabilityMajor": p["major"],
                "ComputeCapabilityMinor": p["minor"]}

    def __int__(self) -> int:
        return self.id

    def __index__(self) -> int:
        return self.id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("arrayd.cuda.Device", self.id))

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"
