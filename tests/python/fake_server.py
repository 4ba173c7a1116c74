#!/usr/bin/env python3
"""A NumPy stand-in for the arrayd server, for developing the Python client.

Speaks the v1 protocol (proto/arrayd/v1/arrayd.proto, OPS.md) with the same
command line as the real server (``--listen ADDR``, ``--backend NAME``), so
``ARRAYD_SERVER_BIN=tests/python/fake_server.py pytest tests/python`` runs
the client tests without the C++ build. It is not the product and not a
reference for performance; the real server is what the tests are for.
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import threading
from concurrent import futures

import grpc
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "client-python"))
from arrayd import _dtypes  # noqa: E402
from arrayd._proto import pb  # noqa: E402

_MAX_INLINE = 1 << 20
_INT64_MIN = -(1 << 63)
_KIND = {"AxisError": "AxisError", "_ArrayMemoryError": "MemoryError",
         "MemoryError": "MemoryError", "IndexError": "IndexError",
         "ValueError": "ValueError", "OverflowError": "ValueError",
         "NotImplementedError": "NotImplementedError"}
_ELEMENTWISE = ("negative positive absolute logical_not invert add subtract "
                "multiply true_divide floor_divide remainder power equal "
                "not_equal less less_equal greater greater_equal logical_and "
                "logical_or logical_xor bitwise_and bitwise_or bitwise_xor "
                "left_shift right_shift maximum minimum").split()


def _attr(av: pb.AttrValue):
    which = av.WhichOneof("value")
    if which == "ints":
        return list(av.ints.values)
    if which == "floats":
        return list(av.floats.values)
    if which == "c":
        return complex(av.c.real, av.c.imag)
    if which == "dtype":
        return _dtypes.from_pb(av.dtype)
    if which == "s" and av.s.isdigit():  # uint64 above INT64_MAX
        return int(av.s)
    return getattr(av, which) if which else None


def _kind(e: BaseException) -> str:
    for cls in type(e).__mro__:
        if cls.__name__ in _KIND:
            return _KIND[cls.__name__]
    return "TypeError" if isinstance(e, TypeError) else "RuntimeError"


def _index(enc: list[int]) -> tuple:
    key = []
    for i in range(0, len(enc), 4):
        kind, a, b, c = enc[i:i + 4]
        if kind == 0:
            key.append(a)
        elif kind == 1:
            key.append(slice(*(None if v == _INT64_MIN else v
                               for v in (a, b, c))))
        elif kind == 2:
            key.append(Ellipsis)
        else:
            key.append(None)
    return tuple(key)


class _Poisoned(Exception):
    def __init__(self, err: pb.OpError):
        self.err = err


class FakeSession:
    def __init__(self, sid: int):
        self.sid = sid
        self.arrays: dict[int, np.ndarray] = {}
        self.poison: dict[int, pb.OpError] = {}
        self.errors: list[pb.OpError] = []
        self.op_index = 0

    def get(self, h: int) -> np.ndarray:
        if h in self.poison:
            raise _Poisoned(self.poison[h])
        if h not in self.arrays:
            raise KeyError(f"unknown handle {h}")
        return self.arrays[h]

    def run(self, op: pb.Op) -> None:
        self.op_index += 1
        try:
            self._run(op)
        except _Poisoned as p:
            for h in op.outputs:
                self.poison[h] = p.err
        except BaseException as e:  # noqa: BLE001 - reported to the client
            err = pb.OpError(code=3, kind=_kind(e), message=f"{op.name}: {e}",
                             op=op.name, op_index=self.op_index)
            self.errors.append(err)
            for h in op.outputs:
                self.arrays.pop(h, None)
                self.poison[h] = err

    def _run(self, op: pb.Op) -> None:
        n = op.name
        at = {k: _attr(v) for k, v in op.attrs.items()}
        ins = [self.get(h) for h in op.inputs]
        dt = at.get("dtype")
        shape = tuple(at.get("shape", ()))
        with np.errstate(all="ignore"):
            if n in ("empty", "zeros"):
                r = np.zeros(shape, dt)
            elif n == "ones":
                r = np.ones(shape, dt)
            elif n == "full":
                r = np.full(shape, np.array(at["value"]).astype(dt))
            elif n == "arange":
                r = (at["start"] + np.arange(at["num"]) * at["step"]).astype(dt)
            elif n == "linspace":
                r = np.linspace(at["start"], at["stop"], at["num"],
                                endpoint=at["endpoint"], dtype=dt)
            elif n == "eye":
                r = np.eye(at["n"], at["m"], at["k"], dtype=dt)
            elif n == "upload":
                r = np.frombuffer(at["data"], dt).reshape(shape).copy()
            elif n in _ELEMENTWISE:
                uf = getattr(np, n)
                out = self.arrays.get(op.outputs[0])
                if out is not None:
                    uf(*ins, out=out, casting="same_kind")
                    return
                r = uf(*ins)
                if dt is not None and r.dtype != dt:
                    raise TypeError(f"dtype {r.dtype} != expected {dt}")
            elif n in ("sum", "prod", "mean", "min", "max", "all", "any"):
                kw = {"dtype": dt} if dt is not None else {}
                r = getattr(np, n)(ins[0], axis=tuple(at.get("axes", ())),
                                   keepdims=at.get("keepdims", False), **kw)
            elif n in ("argmin", "argmax"):
                r = getattr(np, n)(ins[0], axis=at.get("axis"),
                                   keepdims=at.get("keepdims", False))
            elif n == "reshape":
                r = ins[0].reshape(shape)
            elif n == "transpose":
                r = ins[0].transpose(at.get("axes"))
            elif n == "broadcast_to":
                r = np.broadcast_to(ins[0], shape)
            elif n == "slice":
                r = ins[0][_index(at["index"])]
            elif n == "setitem":
                ins[0][_index(at["index"])] = ins[1]
                return
            elif n == "astype":
                r = ins[0].astype(dt)
            elif n == "copy":
                r = ins[0].copy()
            else:
                raise NotImplementedError(f"unknown op {n!r}")
        out = op.outputs[0]
        if out in self.arrays:
            np.copyto(self.arrays[out], r, casting="same_kind")
        else:
            self.arrays[out] = np.asarray(r)
            self.poison.pop(out, None)

    def sync(self, s: pb.Sync) -> pb.SyncReply:
        reply = pb.SyncReply(sync_id=s.sync_id)
        reported = set()
        for h in s.fetch:
            f = reply.fetched.add(handle=h)
            if h in self.poison:
                f.error.CopyFrom(self.poison[h])
                reported.add(self.poison[h].op_index)
                continue
            if h not in self.arrays:
                f.error.CopyFrom(pb.OpError(code=5, kind="RuntimeError",
                                            message=f"unknown handle {h}"))
                continue
            a = self.arrays[h]
            f.dtype = _dtypes.to_pb(a.dtype)
            f.shape.extend(a.shape)
            if a.nbytes <= _MAX_INLINE:
                f.data = np.ascontiguousarray(a).tobytes()
                f.inline = True
        reply.errors.extend(e for e in self.errors
                            if e.op_index not in reported)
        self.errors = []
        return reply


class FakeServer:
    def __init__(self, backend: str):
        self.backend = backend
        self.sessions: dict[int, FakeSession] = {}
        self.ids = itertools.count(1)
        self.lock = threading.Lock()

    def capabilities(self, req, ctx):
        caps = pb.Capabilities(version="fake-0", backends=["numpy"],
                               active_backend="numpy",
                               max_inline_bytes=_MAX_INLINE)
        caps.dtypes.extend(str(d) for d in _dtypes.SUPPORTED)
        return caps

    def health(self, req, ctx):
        return pb.HealthResponse(status=pb.HealthResponse.STATUS_SERVING)

    def op_stream(self, requests, ctx):
        sess = None
        try:
            for msg in requests:
                if msg.HasField("open"):
                    with self.lock:
                        sess = FakeSession(next(self.ids))
                        self.sessions[sess.sid] = sess
                    yield pb.ServerMessage(opened=pb.SessionOpened(
                        session_id=sess.sid, backend=self.backend))
                with self.lock:
                    for op in msg.ops:
                        sess.run(op)
                    for h in msg.frees:
                        sess.arrays.pop(h, None)
                        sess.poison.pop(h, None)
                    reply = sess.sync(msg.sync) if msg.HasField("sync") else None
                if reply is not None:
                    yield pb.ServerMessage(sync=reply)
        finally:
            if sess is not None:
                with self.lock:
                    self.sessions.pop(sess.sid, None)

    def upload(self, chunks, ctx):
        first = None
        parts = []
        for c in chunks:
            if first is None:
                first = c
            parts.append(c.data)
        with self.lock:
            sess = self.sessions.get(first.session_id)
            if sess is None:
                ctx.abort(grpc.StatusCode.NOT_FOUND, "unknown session")
            a = np.frombuffer(b"".join(parts), _dtypes.from_pb(first.dtype))
            sess.arrays[first.handle] = a.reshape(tuple(first.shape)).copy()
        return pb.UploadResponse(bytes_received=a.nbytes)

    def download(self, req, ctx):
        with self.lock:
            sess = self.sessions.get(req.session_id)
            if sess is None or req.handle not in sess.arrays:
                ctx.abort(grpc.StatusCode.NOT_FOUND, "unknown session/handle")
            a = np.ascontiguousarray(sess.arrays[req.handle])
        data = memoryview(a.reshape(-1).view(np.uint8))
        yield pb.DownloadChunk(dtype=_dtypes.to_pb(a.dtype), shape=a.shape,
                               total_bytes=a.nbytes, data=bytes(data[:1 << 20]))
        for i in range(1 << 20, len(data), 1 << 20):
            yield pb.DownloadChunk(data=bytes(data[i:i + (1 << 20)]))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--listen", action="append", required=True)
    p.add_argument("--backend", default="cpu")
    args = p.parse_args()
    fake = FakeServer(args.backend)
    rpc = grpc
    handlers = {
        "GetCapabilities": rpc.unary_unary_rpc_method_handler(
            fake.capabilities, pb.GetCapabilitiesRequest.FromString,
            pb.Capabilities.SerializeToString),
        "Health": rpc.unary_unary_rpc_method_handler(
            fake.health, pb.HealthRequest.FromString,
            pb.HealthResponse.SerializeToString),
        "OpStream": rpc.stream_stream_rpc_method_handler(
            fake.op_stream, pb.ClientMessage.FromString,
            pb.ServerMessage.SerializeToString),
        "Upload": rpc.stream_unary_rpc_method_handler(
            fake.upload, pb.UploadChunk.FromString,
            pb.UploadResponse.SerializeToString),
        "Download": rpc.unary_stream_rpc_method_handler(
            fake.download, pb.DownloadRequest.FromString,
            pb.DownloadChunk.SerializeToString),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16), options=[
        ("grpc.max_send_message_length", 64 << 20),
        ("grpc.max_receive_message_length", 64 << 20)])
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("arrayd.v1.Arrayd", handlers),))
    for addr in args.listen:
        server.add_insecure_port(addr)
    server.start()
    server.wait_for_termination()


if __name__ == "__main__":
    main()
