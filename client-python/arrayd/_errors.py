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
    """The server could not allocate device memory (or the quota is spent)."""


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
    return cls(message)


def from_rpc_error(err: grpc.RpcError, what: str) -> BaseException:
    """The exception to raise for a failed RPC (``what`` names the call)."""
    code = err.code() if hasattr(err, "code") else None
    details = err.details() if hasattr(err, "details") else str(err)
    cls = _CODES.get(code, ConnectionError) if code else ConnectionError
    name = code.name if code is not None else "UNKNOWN"
    return cls(f"arrayd {what} failed ({name}): {details}")
