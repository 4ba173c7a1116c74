"""The standard gRPC surfaces: grpc.health.v1.Health, as a probe
(grpc_health_probe, Kubernetes' grpc probe) calls it without any token, and
server reflection (grpcurl's listing).

The messages are a field or two, encoded here by hand, so the test needs no
more than grpcio.
"""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import grpc
import pytest

from arrayd import _transport

SERVING, NOT_SERVING = 1, 2


def _channel(address: str) -> grpc.Channel:
    return grpc.insecure_channel(address)


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """The (field number, value) pairs of a protobuf message: varints and
    length-delimited values, the only wire types these messages use."""
    out, pos = [], 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 2:
            n, pos = _varint(data, pos)
            value, pos = data[pos:pos + n], pos + n
        else:
            raise AssertionError(f"unexpected wire type {wire}")
        out.append((number, value))
    return out


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def health_status(address: str, service: str = "", timeout: float = 5) -> int:
    """grpc.health.v1.Health/Check: the ServingStatus of `service`."""
    with _channel(address) as ch:
        check = ch.unary_unary("/grpc.health.v1.Health/Check",
                               request_serializer=lambda b: b,
                               response_deserializer=lambda b: b)
        name = service.encode()
        request = (b"\x0a" + bytes([len(name)]) + name) if name else b""
        reply = check(request, timeout=timeout)
    return dict(_fields(reply)).get(1, 0)  # type: ignore[return-value]


def reflection_services(address: str) -> list[str]:
    """The services a server reflection listing names."""
    with _channel(address) as ch:
        for method in ("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                       "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"):
            call = ch.stream_stream(method, request_serializer=lambda b: b,
                                    response_deserializer=lambda b: b)
            try:
                # ServerReflectionRequest.list_services (field 7) = "".
                replies = list(call(iter([b"\x3a\x00"]), timeout=5))
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.UNIMPLEMENTED:
                    continue
                raise
            names = []
            for number, value in _fields(replies[0]):
                if number == 6:  # list_services_response
                    for n2, service in _fields(value):  # type: ignore[arg-type]
                        if n2 == 1:
                            names += [v.decode() for k, v in _fields(service) if k == 1]
            return names
    raise AssertionError("no server reflection service")


def test_health_is_serving_without_a_token(server_address):
    assert health_status(server_address) == SERVING
    assert health_status(server_address, "arrayd.v1.Arrayd") == SERVING
    with pytest.raises(grpc.RpcError) as e:
        health_status(server_address, "no.such.Service")
    assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_reflection_lists_the_services(server_address):
    names = reflection_services(server_address)
    assert "arrayd.v1.Arrayd" in names
    assert "grpc.health.v1.Health" in names


def test_health_turns_not_serving_on_a_drain():
    binary = os.environ.get("ARRAYD_SERVER_BIN") or str(
        Path(__file__).resolve().parents[2] / "build" / "bin" / "arrayd")
    with tempfile.TemporaryDirectory() as tmp:
        address = f"unix:{tmp}/arrayd.sock"
        proc = subprocess.Popen([binary, "--listen", address, "--backend", "cpu"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while not _transport.health_ok(address, timeout=0.5):
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
            assert health_status(address) == SERVING
            # A client's open stream keeps the drain going a moment.
            import arrayd as ad
            s = ad.connect(address, default=False)
            with s:
                (ad.arange(4) + 1).get()
            proc.send_signal(signal.SIGTERM)
            seen = None
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    seen = health_status(address, timeout=1)
                except grpc.RpcError:
                    seen = None  # the listener is already gone
                    break
                if seen == NOT_SERVING:
                    break
                time.sleep(0.01)
            # Probes stop seeing SERVING: NOT_SERVING, then no answer.
            assert seen in (None, NOT_SERVING)
            s.close()
            assert proc.wait(15) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
