"""arrayd.cuda.device: CuPy's ``cupy.cuda.device`` for the server's devices:
Device (use, context manager, synchronize, id, compute_capability,
mem_info, pci_bus_id, attributes, from_pci_bus_id, ordering),
get_device_id, get_compute_capability, from_pointer (for blocks of
arrayd.cuda.memory) and the per-thread library handles
(get_cublas_handle, ...). A device the server does not have raises
CUDARuntimeError when it is used, as CuPy's does.

Layer: a public namespace module below arrayd.cuda (imports runtime and
_connect).
"""
from __future__ import annotations

import itertools
import threading
from typing import Any

from arrayd import _connect
from arrayd._errors import CUDA_ERROR_INVALID_VALUE, CUDARuntimeError
from arrayd.cuda import runtime

__all__ = ["Device", "get_device_id", "get_compute_capability",
           "from_pointer", "get_cublas_handle", "get_cusolver_handle",
           "get_cusolver_sp_handle", "get_cusparse_handle"]


def get_device_id() -> int:
    """The current device's id (always the server's one device, 0)."""
    return runtime.getDevice()


def get_compute_capability() -> str:
    """The current device's compute capability ("90"; "00" on the CPU
    backend)."""
    return Device().compute_capability


def from_pointer(ptr: int) -> "Device":
    """The device of a pointer into a block of arrayd.cuda.memory (malloc,
    alloc, a pool's malloc). CUDARuntimeError (cudaErrorInvalidValue) for
    any other address: arrays live on the server and have no device
    pointers in the client."""
    attrs = runtime.pointerGetAttributes(ptr)
    if attrs.type == runtime.cudaMemoryTypeUnregistered:
        raise CUDARuntimeError(
            CUDA_ERROR_INVALID_VALUE,
            f"cudaErrorInvalidValue: 0x{int(ptr):x} is not in a live block "
            f"of arrayd.cuda.memory (arrays live on the server and have no "
            f"device pointers here)")
    return Device(attrs.device)


# Library handles: the cuBLAS, cuSOLVER and cuSPARSE handles are the
# server's (one per session stream). These give what CuPy code reads of
# its handles: a non-zero int, one per thread and device, the same on
# each call in that thread. It is an opaque token: no arrayd function
# takes it, and it is no handle of a CUDA library in this process.
_handle_tokens = itertools.count(1)
_thread_handles = threading.local()


def _handle(library: str) -> int:
    table = getattr(_thread_handles, "table", None)
    if table is None:
        table = _thread_handles.table = {}
    key = (library, get_device_id())
    token = table.get(key)
    if token is None:
        token = table[key] = next(_handle_tokens)
    return token


def get_cublas_handle() -> int:
    """This thread's cuBLAS handle token (see _handle_tokens)."""
    return _handle("cublas")


def get_cusolver_handle() -> int:
    """This thread's cuSOLVER dense handle token."""
    return _handle("cusolver")


def get_cusolver_sp_handle() -> int:
    """This thread's cuSOLVER sparse handle token."""
    return _handle("cusolver_sp")


def get_cusparse_handle() -> int:
    """This thread's cuSPARSE handle token."""
    return _handle("cusparse")


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

    @classmethod
    def from_pci_bus_id(cls, pci_bus_id: str) -> "Device":
        """The device at PCI bus id "domain:bus:device.function" (hex).
        CUDARuntimeError: cudaErrorInvalidValue for a malformed id,
        cudaErrorInvalidDevice for one the server has no device at."""
        parts = pci_bus_id.replace(".", ":").split(":")
        try:
            key = tuple(int(p, 16) for p in parts)
        except ValueError:
            key = ()
        if len(key) != 4:
            raise CUDARuntimeError(CUDA_ERROR_INVALID_VALUE,
                                   "cudaErrorInvalidValue: invalid argument")
        for i in range(runtime.getDeviceCount()):
            other = runtime.deviceGetPCIBusId(i).replace(".", ":").split(":")
            try:
                if tuple(int(p, 16) for p in other) == key:
                    return cls(i)
            except ValueError:
                continue
        raise CUDARuntimeError(runtime._INVALID_DEVICE,
                               "cudaErrorInvalidDevice: invalid device ordinal")

    def _check(self) -> None:
        runtime._check_device(self.id)

    def use(self) -> "Device":
        """Makes this device current (there is one: it must exist)."""
        runtime.setDevice(self.id)
        return self

    def __enter__(self) -> "Device":
        self._entered.append(runtime.getDevice())
        self.use()
        return self

    def __exit__(self, *exc: Any) -> None:
        runtime.setDevice(self._entered.pop())

    def synchronize(self) -> None:
        """Waits for every op of this session, on every stream (raising a
        deferred error)."""
        self._check()
        _connect.current().synchronize()

    @property
    def compute_capability(self) -> str:
        """"90" for an H100/H200, as CuPy; "00" on the CPU backend."""
        p = runtime.getDeviceProperties(self.id)
        return f"{p['major']}{p['minor']}"

    @property
    def mem_info(self) -> tuple[int, int]:
        """(free, total) bytes of the device's memory, now."""
        self._check()
        return runtime.memGetInfo()

    @property
    def pci_bus_id(self) -> str:
        """The device's PCI bus id ('' where the server reports none, as the
        CPU backend)."""
        return runtime.deviceGetPCIBusId(self.id)

    @property
    def attributes(self) -> dict[str, int]:
        """Every attribute runtime.deviceGetAttribute answers, by CUDA's
        name less ``cudaDevAttr`` ("MaxThreadsPerBlock": 1024, ...)."""
        self._check()
        prefix = "cudaDevAttr"
        return {name[len(prefix):]: runtime.deviceGetAttribute(value, self.id)
                for name, value in vars(runtime).items()
                if name.startswith(prefix)}

    def __int__(self) -> int:
        return self.id

    def __index__(self) -> int:
        return self.id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("arrayd.cuda.Device", self.id))

    # Ordered by id, among Devices only (TypeError otherwise, as CuPy).
    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Device):
            return NotImplemented
        return self.id < other.id

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Device):
            return NotImplemented
        return self.id <= other.id

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Device):
            return NotImplemented
        return self.id > other.id

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Device):
            return NotImplemented
        return self.id >= other.id

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"
