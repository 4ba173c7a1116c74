"""Exceptions of the client and the mapping from server errors to them.

The server names the Python exception a NumPy user expects (OpError.kind);
the client raises that exception with the server's message.

Layer: session, the bottom (imports only the generated messages).
"""
from __future__ import annotations

import builtins

import grpc
import numpy as np

from arrayd._proto import pb


class OutOfMemoryError(MemoryError):
    """The server could not allocate device memory (or the quota is spent).

    Raised with the server's message; ``OutOfMemoryError(size, total,
    limit=0)`` builds CuPy's message (cupy.cuda.memory.OutOfMemoryError is
    this class)."""

    def __init__(self, *args: object):
        if len(args) in (2, 3) and all(isinstance(a, int) for a in args):
            size, total = int(args[0]), int(args[1])  # type: ignore[call-overload]
            limit = int(args[2]) if len(args) == 3 else 0  # type: ignore[call-overload]
            if limit == 0:
                msg = f"Out of memory allocating {size:,} bytes"
                if total != -1:
                    msg += f" (allocated so far: {total:,} bytes)."
            else:
                msg = (f"Out of memory allocating {size:,} bytes (allocated "
                       f"so far: {total:,} bytes, limit set to: {limit:,} "
                       "bytes).")
            super().__init__(msg)
            self._cupy_args: tuple[object, ...] | None = args
        else:
            super().__init__(*args)
            self._cupy_args = None

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), self._cupy_args or self.args)


class CUDARuntimeError(RuntimeError):
    """As cupy_backends.cuda.api.runtime.CUDARuntimeError: ``status`` is
    the cudaError_t code (arrayd.cuda.runtime.CUDARuntimeError)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.status, str(self)))


# cudaError_t codes of the errors the client raises.
CUDA_ERROR_INVALID_VALUE = 1
CUDA_ERROR_INVALID_DEVICE = 101
CUDA_ERROR_INVALID_RESOURCE_HANDLE = 400


class CompileException(Exception):
    """A user kernel that the server's compiler (NVRTC) refused, as
    cupy.cuda.compiler.CompileException: the message carries the
    compiler's log; ``source``, ``name`` and ``options`` what was
    compiled."""

    def __init__(self, msg: str, source: str = "", name: str = "",
                 options: tuple[str, ...] = (), backend: str = "nvrtc"):
        self._msg = msg
        self.source = source
        self.name = name
        self.options = tuple(options)
        self.backend = backend
        super().__init__(msg)

    def get_message(self) -> str:
        return self._msg

    def dump(self, f: object) -> None:
        """Writes the source, numbered, and the log to the file ``f``."""
        lines = self.source.split("\n")
        digits = len(str(len(lines)))
        f.write(f"{self.backend.upper()} compilation error: {self._msg}\n")  # type: ignore[attr-defined]
        f.write("-----\n")  # type: ignore[attr-defined]
        f.write(f"Name: {self.name}\nOptions: {' '.join(self.options)}\n")  # type: ignore[attr-defined]
        f.write("CUDA source:\n")  # type: ignore[attr-defined]
        for i, line in enumerate(lines, 1):
            f.write(f"{i:>{digits}} {line}\n")  # type: ignore[attr-defined]
        f.write("-----\n")  # type: ignore[attr-defined]

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self._msg, self.source, self.name, self.options,
                             self.backend))


class JitifyException(CompileException):
    """A module compiled with ``jitify=True`` that did not compile
    (cupy.cuda.compiler.JitifyException)."""


class CUDADriverError(RuntimeError):
    """As cupy_backends.cuda.api.driver.CUDADriverError: ``status`` is the
    CUresult code; the message starts with its name (``CUDA_ERROR_NOT_FOUND:
    named symbol not found``)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.status, str(self)))


# CUresult codes of the driver errors the client raises.
CUDA_ERROR_FILE_NOT_FOUND = 301
CUDA_ERROR_INVALID_IMAGE = 200
CUDA_ERROR_NOT_FOUND = 500


class SessionClosedError(RuntimeError):
    """The session of an array was closed (disconnect, or the stream ended)."""


class ConnectionError(builtins.ConnectionError):  # noqa: A001
    """The server cannot be reached, or the gRPC call failed."""


_KINDS: dict[str, type[BaseException]] = {
    "ValueError": ValueError,
    "TypeError": TypeError,
    "IndexError": IndexError,
    "AxisError": np.exceptions.AxisError,
    "LinAlgError": np.linalg.LinAlgError,
    "MemoryError": OutOfMemoryError,
    "OutOfMemoryError": OutOfMemoryError,
    "NotImplementedError": NotImplementedError,
    "OverflowError": OverflowError,
    "ZeroDivisionError": ZeroDivisionError,
    "KeyError": KeyError,
    "RuntimeError": RuntimeError,
    "CompileException": CompileException,
}

# gRPC status -> exception, for errors of whole RPCs (Upload, Download).
_CODES: dict[grpc.StatusCode, type[BaseException]] = {
    grpc.StatusCode.INVALID_ARGUMENT: ValueError,
    grpc.StatusCode.OUT_OF_RANGE: IndexError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: OutOfMemoryError,
    grpc.StatusCode.UNIMPLEMENTED: NotImplementedError,
    grpc.StatusCode.NOT_FOUND: RuntimeError,
    grpc.StatusCode.FAILED_PRECONDITION: RuntimeError,
    grpc.StatusCode.UNAVAILABLE: ConnectionError,
    grpc.StatusCode.CANCELLED: ConnectionError,
    grpc.StatusCode.DEADLINE_EXCEEDED: ConnectionError,
}


def from_op_error(err: pb.OpError) -> BaseException:
    """The exception to raise for a deferred error reported by the server."""
    cls = _KINDS.get(err.kind, RuntimeError)
    message = err.message or err.kind or "unknown error"
    if err.op and err.op not in message:
        message = f"{err.op}: {message}"
    if err.stream:
        message = f"{message} (on stream {err.stream})"
    return cls(message)


def from_sync_error(err: pb.OpError) -> BaseException:
    """The exception for a Sync the server refused (SyncReply.error: an
    unknown stream or event, the elapsed time of an event without timing):
    CUDARuntimeError with the status CUDA gives each of those,
    cudaErrorInvalidResourceHandle, as CuPy raises, with the server's
    message."""
    message = err.message or err.kind or "invalid resource handle"
    return CUDARuntimeError(
        CUDA_ERROR_INVALID_RESOURCE_HANDLE,
        f"cudaErrorInvalidResourceHandle: invalid resource handle ({message})")


def from_rpc_error(err: grpc.RpcError, what: str) -> BaseException:
    """The exception to raise for a failed RPC (``what`` names the call)."""
    code = err.code() if hasattr(err, "code") else None
    details = err.details() if hasattr(err, "details") else str(err)
    cls = _CODES.get(code, ConnectionError) if code else ConnectionError
    name = code.name if code is not None else "UNKNOWN"
    return cls(f"arrayd {what} failed ({name}): {details}")
