"""The Admin service and its command line (python -m arrayd): two client
processes' sessions with their memory, closing one, a drain, and the admin
credential when the server requires tokens."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import grpc
import pytest

from arrayd import _transport
from arrayd._admin import AdminClient, main

REPO = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("ARRAYD_SERVER_BIN") or str(REPO / "build" / "bin" / "arrayd")


def _start(tmp: str, *flags: str) -> tuple[subprocess.Popen, str]:
    address = f"unix:{tmp}/arrayd.sock"
    proc = subprocess.Popen([BINARY, "--listen", address, "--backend", "cpu", *flags],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    token = None
    for f in flags:
        if os.path.exists(f):
            token = Path(f).read_text().split()[0]  # the admin's, first line
    creds = _transport.Credentials(token=token) if token else None
    while not _transport.health_ok(address, timeout=0.5, creds=creds):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    return proc, address


CLIENT = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, {client!r})
    import arrayd as ad
    ad.connect({address!r}, token={token!r})
    keep = ad.zeros({n}, dtype=np.float64)
    ad.synchronize()
    print("ready", flush=True)
    sys.stdin.readline()
""")


def _client(address: str, n: int, token: str = "") -> subprocess.Popen:
    code = CLIENT.format(client=str(REPO / "client-python"), address=address, n=n,
                         token=token or None)
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_sessions_of_two_clients_with_their_memory(capsys):
    with tempfile.TemporaryDirectory() as tmp:
        server, address = _start(tmp)
        clients = []
        try:
            clients = [_client(address, 1 << 17), _client(address, 1 << 18)]
            admin = AdminClient(address)
            sessions = admin.sessions()
            by_pid = {s.pid: s for s in sessions}
            assert set(by_pid) >= {c.pid for c in clients}
            assert by_pid[clients[0].pid].bytes_in_use >= 8 << 17
            assert by_pid[clients[1].pid].bytes_in_use >= 8 << 18
            assert all(s.streams == 1 and s.ops >= 1 for s in sessions)
            info = admin.server_info()
            assert info.sessions == len(sessions) and info.backend == "cpu"
            assert info.bytes_in_use >= 3 * (8 << 17)

            assert main(["--address", address, "sessions"]) == 0
            out = capsys.readouterr().out
            assert str(clients[0].pid) in out and str(clients[1].pid) in out
            assert "MiB" in out
            assert main(["--address", address, "status"]) == 0
            assert "2 open" in capsys.readouterr().out
            assert main(["--address", address, "top", "--count", "1"]) == 0
            assert "OPS/S" in capsys.readouterr().out

            # Closing a session ends its client's stream; the other stays.
            victim = by_pid[clients[0].pid].id
            assert main(["--address", address, "kill", str(victim)]) == 0
            deadline = time.monotonic() + 10
            while victim in {s.id for s in admin.sessions()}:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            assert main(["--address", address, "kill", str(victim)]) == 1
            assert clients[1].pid in {s.pid for s in admin.sessions()}

            assert main(["--address", address, "drain"]) == 0
            for c in clients:
                c.stdin.close()
                c.wait(10)
            assert server.wait(20) == 0
            admin.close()
        finally:
            for c in clients:
                if c.poll() is None:
                    c.kill()
            if server.poll() is None:
                server.kill()
                server.wait()


def test_admin_needs_the_admin_tenant_when_tokens_are_on():
    with tempfile.TemporaryDirectory() as tmp:
        tokens = Path(tmp, "tokens")
        tokens.write_text("admin-token-0123456789 admin\nuser-token-0123456789 alice\n")
        tokens.chmod(0o600)
        server, address = _start(tmp, "--auth-tokens", str(tokens))
        try:
            user = AdminClient(address, _transport.Credentials(token="user-token-0123456789"))
            with pytest.raises(grpc.RpcError) as e:
                user.sessions()
            assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
            nobody = AdminClient(address, _transport.Credentials(token=""))
            with pytest.raises(grpc.RpcError) as e:
                nobody.server_info()
            assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
            admin = AdminClient(address, _transport.Credentials(token="admin-token-0123456789"))
            assert admin.server_info().sessions == 0
            for c in (user, nobody, admin):
                c.close()
        finally:
            server.terminate()
            server.wait(10)


def test_without_tokens_admin_is_the_unix_sockets_only():
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(5):  # a port found free may be taken before the server binds it
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            try:
                server, address = _start(tmp, "--listen", f"127.0.0.1:{port}")
                break
            except AssertionError:
                continue
        try:
            tcp = AdminClient(f"127.0.0.1:{port}")
            with pytest.raises(grpc.RpcError) as e:
                tcp.sessions()
            assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
            tcp.close()
            local = AdminClient(address)
            assert local.sessions() == []
            local.close()
        finally:
            server.terminate()
            server.wait(10)


def test_serve_says_how_to_get_a_server(monkeypatch, capsys):
    monkeypatch.setenv("ARRAYD_SERVER_BIN", "")
    monkeypatch.setenv("PATH", "/nonexistent")
    import arrayd._connect as c
    monkeypatch.setattr(c, "server_binary", lambda: None)
    assert main(["serve", "--listen", "unix:/tmp/x.sock"]) == 2
    assert "no arrayd server binary" in capsys.readouterr().err
