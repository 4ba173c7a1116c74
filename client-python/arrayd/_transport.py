"""Transports: the gRPC channel and its RPCs, and the same-host op stream.

Layer: session (below Session, beside _wire). A session's ops go over one
OpStream: the gRPC bidirectional stream (``op_stream``), or, when the
server is on this host, frames over its unix socket (``LocalStream``),
much cheaper per round trip than a Python gRPC stream. Both look alike to
Session: something to ``put`` requests into and an iterator of replies.
Bulk data uses the Upload/Download RPCs of the channel.
"""
from __future__ import annotations

import array
import os
import socket
import struct
import threading
import time
from typing import Any, Callable, Iterable, Iterator, Sequence

import grpc

from arrayd import _wire
from arrayd._proto import pb

SERVICE = "/arrayd.v1.Arrayd/"
MAX_MESSAGE = 64 << 20
CHANNEL_OPTIONS = [
    ("grpc.max_send_message_length", MAX_MESSAGE),
    ("grpc.max_receive_message_length", MAX_MESSAGE),
]
START_TIMEOUT_S = 10.0  # for a server to answer its first call


def _poll_seconds() -> float:
    """How long a same-host reply is polled for before a blocking read
    (ARRAYD_LOCAL_POLL_US, default 20000 us; 0 blocks at once). A thread
    woken from a blocking read after a few hundred microseconds of GPU work
    cost ~100 us on the GPU machine (an idle core's wake-up), so the client
    polls through waits as CUDA's own synchronize spins; after the first
    _SPIN_ONLY_S it yields the core between reads (os.sched_yield), which
    keeps a long poll from starving the server on a small machine."""
    try:
        return max(0.0, float(os.environ.get("ARRAYD_LOCAL_POLL_US", "20000")) * 1e-6)
    except ValueError:
        return 20000e-6


_SPIN_S = _poll_seconds()
_SPIN_ONLY_S = 50e-6
_FRAME_HEADER = struct.Struct("<I")  # same-host frames: length, then message


class Credentials:
    """How this client proves who it is, and checks the server: a bearer
    token (``authorization`` metadata on every call, OpenSession.auth_token
    on the same-host socket) and TLS files (PEM) for TCP addresses: the CA
    that signed the server's certificate, and this client's certificate and
    key for servers that require one (mTLS). Unset arguments come from
    ARRAYD_TOKEN, ARRAYD_TLS_CA, ARRAYD_TLS_CERT and ARRAYD_TLS_KEY."""

    def __init__(self, token: str | None = None, tls_ca: str | None = None,
                 tls_cert: str | None = None, tls_key: str | None = None):
        env = os.environ.get
        self.token = token if token is not None else env("ARRAYD_TOKEN", "")
        self.tls_ca = tls_ca if tls_ca is not None else env("ARRAYD_TLS_CA", "")
        self.tls_cert = tls_cert if tls_cert is not None else env("ARRAYD_TLS_CERT", "")
        self.tls_key = tls_key if tls_key is not None else env("ARRAYD_TLS_KEY", "")
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("a client certificate needs its key (tls_cert and tls_key)")

    def tls_for(self, address: str) -> bool:
        """TLS is used on TCP addresses when a CA is given (unix sockets are
        guarded by their directory, as the server serves them)."""
        return bool(self.tls_ca) and not address.startswith("unix")


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


class _Metadata(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,
                grpc.StreamUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):
    """Adds ``authorization: Bearer TOKEN`` to every call."""

    def __init__(self, token: str):
        self._pair = ("authorization", f"Bearer {token}")

    def _details(self, details: Any) -> Any:
        return _CallDetails(details, list(details.metadata or ()) + [self._pair])

    def intercept_unary_unary(self, continuation, details, request):  # type: ignore[no-untyped-def]
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation, details, request):  # type: ignore[no-untyped-def]
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation, details, requests):  # type: ignore[no-untyped-def]
        return continuation(self._details(details), requests)

    def intercept_stream_stream(self, continuation, details, requests):  # type: ignore[no-untyped-def]
        return continuation(self._details(details), requests)


class _CallDetails(grpc.ClientCallDetails):
    def __init__(self, details: Any, metadata: list[tuple[str, str]]):
        self.method = details.method
        self.timeout = details.timeout
        self.metadata = metadata
        self.credentials = details.credentials
        self.wait_for_ready = getattr(details, "wait_for_ready", None)
        self.compression = getattr(details, "compression", None)


def open_channel(address: str, creds: Credentials | None = None) -> grpc.Channel:
    """A channel to ``address`` that carries 64 MiB messages: TLS and the
    token as ``creds`` say (plaintext without them)."""
    creds = creds or Credentials()
    if creds.tls_for(address):
        ssl = grpc.ssl_channel_credentials(
            root_certificates=_read(creds.tls_ca),
            private_key=_read(creds.tls_key) if creds.tls_key else None,
            certificate_chain=_read(creds.tls_cert) if creds.tls_cert else None)
        channel = grpc.secure_channel(address, ssl, options=CHANNEL_OPTIONS)
    else:
        channel = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
    if creds.token:
        channel = grpc.intercept_channel(channel, _Metadata(creds.token))
    return channel


def get_capabilities(channel: grpc.Channel,
                     timeout: float = START_TIMEOUT_S) -> pb.Capabilities:
    """The server's capabilities (grpc.RpcError when it does not answer)."""
    call = channel.unary_unary(
        SERVICE + "GetCapabilities",
        request_serializer=pb.GetCapabilitiesRequest.SerializeToString,
        response_deserializer=pb.Capabilities.FromString)
    return call(pb.GetCapabilitiesRequest(), timeout=timeout)


def upload_rpc(channel: grpc.Channel
               ) -> Callable[[Iterable[bytes]], pb.UploadResponse]:
    """The Upload call: takes serialized UploadChunks (_wire.upload_chunks)."""
    return channel.stream_unary(
        SERVICE + "Upload", request_serializer=_wire.identity,
        response_deserializer=pb.UploadResponse.FromString)


def download_rpc(channel: grpc.Channel) -> Callable[
        [pb.DownloadRequest], Iterator[tuple[pb.DownloadChunk, memoryview]]]:
    """The Download call: yields (chunk header, view of its data)."""
    return channel.unary_stream(
        SERVICE + "Download",
        request_serializer=pb.DownloadRequest.SerializeToString,
        response_deserializer=_wire.parse_download_chunk)


def op_stream(channel: grpc.Channel, requests: Iterator[pb.ClientMessage]
              ) -> Iterator[pb.ServerMessage]:
    """Opens the gRPC OpStream: sends what ``requests`` yields (from a gRPC
    thread), returns the iterator of the server's messages."""
    stream = channel.stream_stream(
        SERVICE + "OpStream",
        request_serializer=pb.ClientMessage.SerializeToString,
        response_deserializer=pb.ServerMessage.FromString)
    return stream(requests)


def health_ok(address: str, timeout: float,
              creds: Credentials | None = None) -> bool:
    """Whether a server at ``address`` answers Health as serving."""
    ch = open_channel(address, creds)
    try:
        health = ch.unary_unary(
            SERVICE + "Health",
            request_serializer=pb.HealthRequest.SerializeToString,
            response_deserializer=pb.HealthResponse.FromString)
        r = health(pb.HealthRequest(), timeout=timeout)
        return r.status == pb.HealthResponse.STATUS_SERVING
    except grpc.RpcError:
        return False
    finally:
        ch.close()


class LocalStream:
    """The op stream over the server's same-host unix socket.

    Frames are a 4-byte little-endian length and a serialized ClientMessage
    (out) or ServerMessage (in). It stands in for both the request queue
    (``put``; ``None`` half-closes) and the response iterator of the gRPC
    stream. Replies come only at sync points, read by the syncing thread.
    """

    def __init__(self, sock: socket.socket):
        self._sock = sock
        self._rbuf = bytearray()
        self._send_lock = threading.Lock()
        self._done_callbacks: list[Any] = []
        # How long the next reply is polled for: none while the server said
        # its workers are busy (SyncReply.server_busy), as a poll then takes
        # a core from the server that has to produce the reply.
        self._spin_s = _SPIN_S

    @staticmethod
    def connect(path: str) -> "LocalStream | None":
        """The stream over the socket ``path`` (Capabilities.local_op_socket),
        or None: no socket, ARRAYD_NO_LOCAL_SOCKET set, or no connection."""
        if not path or os.environ.get("ARRAYD_NO_LOCAL_SOCKET") or not os.path.exists(path):
            return None
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
        except OSError:
            sock.close()
            return None
        return LocalStream(sock)

    def put(self, msg: pb.ClientMessage | None, fds: Sequence[int] = ()) -> None:
        """Sends a frame; ``fds`` (the shared memory segments that
        msg.segments names) go with its first byte (SCM_RIGHTS)."""
        try:
            if msg is None:
                self._sock.shutdown(socket.SHUT_WR)
                return
            data = msg.SerializeToString()
            frame = _FRAME_HEADER.pack(len(data)) + data
            with self._send_lock:
                if fds:
                    rights = array.array("i", fds).tobytes()
                    sent = self._sock.sendmsg(
                        [frame], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, rights)])
                    frame = frame[sent:]
                self._sock.sendall(frame)
        except OSError:
            pass  # the reader sees the end of the stream and reports it

    def _fill(self, n: int) -> None:
        """Reads until the buffer holds at least n bytes (EOFError at the
        end of the stream). Buffered: a reply's header and message usually
        arrive in one recv."""
        buf = self._rbuf
        # Poll first: a reply that comes within _SPIN_S is read without the
        # wake-up of a blocked thread.
        sock, start, spin_s = self._sock, time.perf_counter(), self._spin_s
        while len(buf) < n and spin_s > 0:
            try:
                chunk = sock.recv(1 << 16, socket.MSG_DONTWAIT)
            except BlockingIOError:
                waited = time.perf_counter() - start
                if waited < _SPIN_ONLY_S:
                    continue
                if waited < spin_s:
                    os.sched_yield()
                    continue
                break
            if not chunk:
                raise EOFError
            buf += chunk
        while len(buf) < n:
            chunk = sock.recv(max(n - len(buf), 1 << 16))
            if not chunk:
                raise EOFError
            buf += chunk

    def __iter__(self) -> "LocalStream":
        return self

    def __next__(self) -> pb.ServerMessage:
        try:
            buf = self._rbuf
            if len(buf) < 4:
                self._fill(4)
            (n,) = _FRAME_HEADER.unpack_from(buf)
            if len(buf) < 4 + n:
                self._fill(4 + n)
            msg = pb.ServerMessage.FromString(bytes(buf[4:4 + n]))
            del buf[:4 + n]
            self._spin_s = 0.0 if msg.sync.server_busy else _SPIN_S
            return msg
        except (OSError, EOFError):
            self._finish()
            raise StopIteration from None

    def close(self) -> None:
        self._sock.close()

    def _finish(self) -> None:
        callbacks, self._done_callbacks = self._done_callbacks, []
        for cb in callbacks:
            cb(self)

    def add_done_callback(self, cb: Any) -> None:
        # close(): the server ends the stream once the session has stopped.
        self._done_callbacks.append(cb)
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        try:
            while self._sock.recv(65536):
                pass
        except OSError:
            pass
        self._sock.close()
        self._finish()
