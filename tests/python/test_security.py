"""Who may use a server (issue 13): bearer tokens, TLS and mTLS, quotas and
session caps per tenant, refusal of listeners that are unsafe or in use.
Each test starts its own server with the flags it needs."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import grpc
import numpy as np
import pytest

import arrayd as ad
from arrayd import _connect, _transport
from arrayd._proto import pb

REPO = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("ARRAYD_SERVER_BIN") or str(REPO / "build" / "bin" / "arrayd")
ALICE, ALICE2, BOB = "alice-token-0123456789", "alice-second-0123456789", "bob-token-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """An arrayd process with `args`; `ready` waits until `probe` answers
    (a callable), or until it exits (its exit code and log are kept)."""

    def __init__(self, tmp: Path, *args: str):
        self.log_path = tmp / f"arrayd-{time.monotonic_ns()}.log"
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([BINARY, "--backend", "cpu", *args],
                                     stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)

    def ready(self, probe, timeout: float = 20) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            if probe():
                return True
            time.sleep(0.05)
        return False

    def exit_code(self, timeout: float = 20) -> int:
        return self.proc.wait(timeout)

    @property
    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


_servers: list[Server] = []


@pytest.fixture
def tmp():
    path = Path(tempfile.mkdtemp(prefix="arrayd-sec-"))
    yield path
    while _servers:
        _servers.pop().stop()
    shutil.rmtree(path, ignore_errors=True)


def start(tmp: Path, *args: str) -> Server:
    s = Server(tmp, *args)
    _servers.append(s)
    return s


def serving(address: str, token: str | None = None, **tls: str):
    creds = _transport.Credentials(token=token or "", **tls)
    return lambda: _transport.health_ok(address, timeout=0.5, creds=creds)


@pytest.fixture
def token_file(tmp):
    path = tmp / "tokens"
    path.write_text(f"# token tenant\n{ALICE} alice\n{ALICE2} alice\n{BOB} bob\n")
    return str(path)


def _call(address: str, method: str, request, response, token: str = ""):
    ch = _transport.open_channel(address, _transport.Credentials(token=token))
    try:
        rpc = ch.unary_unary(_transport.SERVICE + method,
                             request_serializer=type(request).SerializeToString,
                             response_deserializer=response.FromString)
        return rpc(request, timeout=10)
    finally:
        ch.close()


# -- tokens -----------------------------------------------------------------

@pytest.mark.parametrize("transport", ["unix", "tcp"])
def test_without_a_valid_token_every_call_is_unauthenticated(tmp, token_file, transport,
                                                            monkeypatch):
    monkeypatch.delenv("ARRAYD_TOKEN", raising=False)
    sock = f"unix:{tmp}/a.sock"
    port = free_port()
    server = start(tmp, "--listen", sock, "--listen", f"127.0.0.1:{port}",
                   "--auth-tokens", token_file)
    address = sock if transport == "unix" else f"127.0.0.1:{port}"
    assert server.ready(serving(address, ALICE)), server.log
    for token in ["", "wrong-token-0123456789", ALICE[:-1]]:
        for method, req, resp in [
                ("GetCapabilities", pb.GetCapabilitiesRequest(), pb.Capabilities),
                ("Health", pb.HealthRequest(), pb.HealthResponse)]:
            with pytest.raises(grpc.RpcError) as e:
                _call(address, method, req, resp, token)
            assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(ConnectionError, match="token"):
            ad.connect(address, default=False, token=token)
    # Download and the op stream too, even with a real session's id and
    # secret (the token is checked first).
    good = ad.connect(address, default=False, token=ALICE)
    ch = _transport.open_channel(address)
    try:
        download = _transport.download_rpc(ch)
        req = pb.DownloadRequest(session_id=good.session_id, handle=1,
                                 session_token=good._token)
        with pytest.raises(grpc.RpcError) as e:
            list(download(req))
        assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
        first = pb.ClientMessage()
        first.open.client_name = "no token"
        with pytest.raises(grpc.RpcError) as e:
            next(_transport.op_stream(ch, iter([first])))
        assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        ch.close()
    with good:
        x = np.arange(400_000.0)  # over max_inline_bytes: bulk transfers too
        np.testing.assert_array_equal((ad.asarray(x) * 2).get(), x * 2)
    good.close()


def test_the_same_host_socket_needs_the_token_too(tmp, token_file, monkeypatch):
    monkeypatch.delenv("ARRAYD_NO_LOCAL_SOCKET", raising=False)
    sock = f"unix:{tmp}/a.sock"
    server = start(tmp, "--listen", sock, "--auth-tokens", token_file)
    assert server.ready(serving(sock, ALICE)), server.log
    s = ad.connect(sock, default=False, token=ALICE)
    assert isinstance(s._requests, _transport.LocalStream)
    path = s.capabilities.local_op_socket
    s.close()
    for token in ["", "wrong-token-0123456789"]:
        local = _transport.LocalStream.connect(path)
        first = pb.ClientMessage()
        first.open.client_name = "raw"
        first.open.auth_token = token
        local.put(first)
        reply = next(local)
        assert reply.opened.error_code == grpc.StatusCode.UNAUTHENTICATED.value[0]
        assert not reply.opened.session_id and not reply.opened.session_token
        with pytest.raises(StopIteration):  # and the connection ends
            next(local)
        local.close()


def test_token_file_errors_stop_the_server(tmp):
    bad = tmp / "bad"
    for text in ["short alice\n", f"{ALICE} alice extra\n", f"{ALICE} a\n{ALICE} b\n", "# none\n"]:
        bad.write_text(text)
        server = start(tmp, "--listen", f"unix:{tmp}/x.sock", "--auth-tokens", str(bad))
        assert server.exit_code() == 1
        assert "auth-tokens" in server.log


# -- quotas and session caps --------------------------------------------------

def test_quotas_hold_across_the_sessions_of_a_tenant(tmp, token_file):
    sock = f"unix:{tmp}/a.sock"
    mb = 1 << 20
    server = start(tmp, "--listen", sock, "--auth-tokens", token_file,
                   "--tenant-quota", str(100 * mb), "--session-quota", str(90 * mb))
    assert server.ready(serving(sock, ALICE)), server.log
    a1 = ad.connect(sock, default=False, token=ALICE)
    a2 = ad.connect(sock, default=False, token=ALICE2)  # the same tenant
    b = ad.connect(sock, default=False, token=BOB)
    with a1:
        x1 = ad.zeros(60 * mb, dtype="u1")
        x1.get()
    with a2:
        x2 = ad.zeros(60 * mb, dtype="u1")
        with pytest.raises(MemoryError, match="tenant 'alice'"):
            x2.get()
        small = ad.zeros(30 * mb, dtype="u1")  # what is left fits
        assert small[-1:].get()[0] == 0
    with b:
        y = ad.zeros(60 * mb, dtype="u1")  # another tenant's quota
        assert y[-1:].get()[0] == 0
    with a1:
        del x1
        a1.synchronize()
    with a2:
        x2 = ad.zeros(60 * mb, dtype="u1")  # freed by the other session
        assert x2[-1:].get()[0] == 0
    for s in (a1, a2, b):
        s.close()


def test_the_server_cap_holds_across_tenants(tmp, token_file):
    sock = f"unix:{tmp}/a.sock"
    mb = 1 << 20
    server = start(tmp, "--listen", sock, "--auth-tokens", token_file,
                   "--server-quota", str(100 * mb))
    assert server.ready(serving(sock, ALICE)), server.log
    a = ad.connect(sock, default=False, token=ALICE)
    b = ad.connect(sock, default=False, token=BOB)
    with a:
        x = ad.zeros(70 * mb, dtype="u1")
        x.get()
    with b:
        with pytest.raises(MemoryError, match="server's memory cap"):
            ad.zeros(70 * mb, dtype="u1").get()
    a.close()
    b.close()


def test_session_caps(tmp, token_file):
    sock = f"unix:{tmp}/a.sock"
    server = start(tmp, "--listen", sock, "--auth-tokens", token_file,
                   "--max-sessions-per-tenant", "2", "--max-sessions", "3")
    assert server.ready(serving(sock, ALICE)), server.log
    a = [ad.connect(sock, default=False, token=ALICE) for _ in range(2)]
    with pytest.raises(ConnectionError, match="max-sessions-per-tenant"):
        ad.connect(sock, default=False, token=ALICE2)
    b = ad.connect(sock, default=False, token=BOB)
    with pytest.raises(ConnectionError, match="max-sessions"):
        ad.connect(sock, default=False, token=BOB)
    a[0].close()
    time.sleep(0.3)  # the server closes the session when the stream ends
    a.append(ad.connect(sock, default=False, token=ALICE2))
    for s in a[1:] + [b]:
        with s:
            assert int(ad.arange(4).sum().get()) == 6
        s.close()


def test_max_array_bytes(tmp):
    sock = f"unix:{tmp}/a.sock"
    server = start(tmp, "--listen", sock, "--max-array-bytes", str(1 << 20))
    assert server.ready(serving(sock)), server.log
    s = ad.connect(sock, default=False)
    with s:
        with pytest.raises(MemoryError, match="limit for one array"):
            ad.zeros(2 << 20, dtype="u1").get()
        assert ad.ones(1 << 20, dtype="u1")[-1:].get()[0] == 1
    s.close()


# -- TLS ----------------------------------------------------------------------

def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def pki(tmp):
    """A CA, a server certificate for 127.0.0.1 and a client certificate."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    d = tmp / "pki"
    d.mkdir()
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key",
             "-out", "ca.crt", "-days", "2", "-subj", "/CN=arrayd test CA", cwd=d)
    for name, ext in [("server", "subjectAltName=IP:127.0.0.1,DNS:localhost"),
                      ("client", "extendedKeyUsage=clientAuth")]:
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
                 "-out", f"{name}.csr", "-subj", f"/CN=arrayd {name}", cwd=d)
        (d / f"{name}.ext").write_text(ext + "\n")
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                 "-CAcreateserial", "-out", f"{name}.crt", "-days", "2",
                 "-extfile", f"{name}.ext", cwd=d)
    return d


def test_tls_refuses_plaintext_clients(tmp, pki, token_file):
    port = free_port()
    address = f"127.0.0.1:{port}"
    server = start(tmp, "--listen", address, "--tls-cert", str(pki / "server.crt"),
                   "--tls-key", str(pki / "server.key"), "--auth-tokens", token_file)
    ca = str(pki / "ca.crt")
    assert server.ready(serving(address, ALICE, tls_ca=ca)), server.log
    with pytest.raises(ConnectionError):
        ad.connect(address, default=False, token=ALICE, tls_ca="")  # plaintext
    s = ad.connect(address, default=False, token=ALICE, tls_ca=ca)
    with s:
        x = np.arange(300_000.0)
        np.testing.assert_array_equal(ad.asarray(x).get(), x)  # Upload, Download
    s.close()
    with pytest.raises(ConnectionError, match="token"):
        ad.connect(address, default=False, token="", tls_ca=ca)


def test_mutual_tls_needs_a_client_certificate(tmp, pki):
    port = free_port()
    address = f"127.0.0.1:{port}"
    ca = str(pki / "ca.crt")
    client = {"tls_ca": ca, "tls_cert": str(pki / "client.crt"),
              "tls_key": str(pki / "client.key")}
    server = start(tmp, "--listen", address, "--tls-cert", str(pki / "server.crt"),
                   "--tls-key", str(pki / "server.key"), "--tls-client-ca", ca)
    assert server.ready(serving(address, **client)), server.log
    with pytest.raises(ConnectionError):
        ad.connect(address, default=False, tls_ca=ca)  # no client certificate
    s = ad.connect(address, default=False, **client)
    with s:
        assert int(ad.arange(5).sum().get()) == 10
    s.close()


# -- listeners ----------------------------------------------------------------

def test_a_public_listener_needs_tls_and_authentication(tmp, pki, token_file):
    port = free_port()
    public = f"0.0.0.0:{port}"
    server = start(tmp, "--listen", public)
    assert server.exit_code() == 1 and "without TLS" in server.log
    server = start(tmp, "--listen", public, "--auth-tokens", token_file)  # no TLS
    assert server.exit_code() == 1
    server = start(tmp, "--listen", public, "--tls-cert", str(pki / "server.crt"),
                   "--tls-key", str(pki / "server.key"))  # nobody authenticated
    assert server.exit_code() == 1
    server = start(tmp, "--listen", public, "--insecure")
    assert server.ready(serving(f"127.0.0.1:{port}")), server.log


def test_a_second_server_on_the_same_addresses_is_refused(tmp):
    sock = f"unix:{tmp}/a.sock"
    port = free_port()
    first = start(tmp, "--listen", sock, "--listen", f"127.0.0.1:{port}")
    assert first.ready(serving(sock)), first.log
    for args in (["--listen", sock], ["--listen", f"unix:{tmp}/b.sock",
                                      "--listen", f"127.0.0.1:{port}"]):
        second = start(tmp, *args)
        assert second.exit_code() == 1, second.log
        assert "cannot listen" in second.log
    # The first still serves, on both addresses.
    for address in (sock, f"127.0.0.1:{port}"):
        s = ad.connect(address, default=False)
        with s:
            assert int(ad.arange(3).sum().get()) == 3
        s.close()
    assert first.proc.poll() is None


def test_socket_directories_others_can_change_are_refused(tmp):
    shared = tmp / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    server = start(tmp, "--listen", f"unix:{shared}/a.sock")
    assert server.exit_code() == 1 and "other users" in server.log
    (tmp / "file.sock").write_text("not a socket")
    server = start(tmp, "--listen", f"unix:{tmp}/file.sock")
    assert server.exit_code() == 1 and "not a socket" in server.log


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make another user's directory")
def test_a_run_directory_of_another_user_is_refused(tmp, monkeypatch):
    other = tmp / "other"
    other.mkdir(mode=0o700)
    os.chown(other, 65534, 65534)  # nobody
    with pytest.raises(ConnectionError, match="not a directory of this user"):
        _connect._check_private_dir(other)
    server = start(tmp, "--listen", f"unix:{other}/a.sock")
    assert server.exit_code() == 1 and "belongs to user" in server.log


def test_the_client_uses_only_its_servers_same_host_socket(tmp, monkeypatch):
    monkeypatch.delenv("ARRAYD_NO_LOCAL_SOCKET", raising=False)
    # Server 2 advertises a same-host socket that server 1 holds: the
    # client sees another server id there and stays on gRPC.
    s1 = start(tmp, "--listen", f"unix:{tmp}/one.sock")
    assert s1.ready(serving(f"unix:{tmp}/one.sock")), s1.log
    s2 = start(tmp, "--listen", f"unix:{tmp}/two.sock")
    assert s2.ready(serving(f"unix:{tmp}/two.sock")), s2.log
    real = _transport.get_capabilities

    def lying(channel, timeout=_transport.START_TIMEOUT_S):
        caps = real(channel, timeout)
        caps.local_op_socket = f"{tmp}/one.sock.ops"
        return caps

    monkeypatch.setattr(_transport, "get_capabilities", lying)
    s = ad.connect(f"unix:{tmp}/two.sock", default=False)
    assert not isinstance(s._requests, _transport.LocalStream)
    with s:
        x = np.arange(300_000.0)
        np.testing.assert_array_equal((ad.asarray(x) + 1).get(), x + 1)
    s.close()


# -- another user on the same host ----------------------------------------------

def _as_nobody(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
         "-c", code], capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO / "client-python")})


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to run a client as another user")
def test_a_client_of_another_user(tmp, monkeypatch):
    """A server shared on purpose with another user (a socket directory
    they may enter): their bulk transfers work (segments are descriptors,
    not files the server must open), their session has no name for this
    user's segments, and this user's arrays stay out of reach."""
    if _as_nobody("import numpy, grpc").returncode != 0:
        pytest.skip("this Python cannot be run as another user")
    monkeypatch.delenv("ARRAYD_NO_LOCAL_SOCKET", raising=False)
    os.chmod(tmp, 0o755)
    sock = f"{tmp}/shared.sock"
    server = start(tmp, "--listen", f"unix:{sock}")
    assert server.ready(serving(f"unix:{sock}")), server.log
    for path in (sock, sock + ".ops"):
        os.chmod(path, 0o777)  # the operator shares it
    mine = ad.connect(f"unix:{sock}", default=False)
    assert isinstance(mine._requests, _transport.LocalStream)
    mine.upload(np.zeros(300_000))
    h = mine.upload(np.full(1_000_000, 7.0))  # in a second, larger arena
    # (Handles and segment names are per session: the other user's session
    # has names of its own, so it is probed with ones it never made.)
    name = mine._arena.name
    assert name != "arena-0"  # the other session will have only its first
    result = _as_nobody(textwrap.dedent(f"""
        import numpy as np, arrayd as ad
        from arrayd import _transport
        s = ad.connect("unix:{sock}")
        assert isinstance(s._requests, _transport.LocalStream), "same-host socket"
        x = np.arange(400_000.0)
        np.testing.assert_array_equal((ad.asarray(x) * 2).get(), x * 2)
        assert s._shm_ok, "shared memory went to gRPC"
        h = s.new_handle()
        s.record("upload_shm", (), (h,), {{"segment": "{name}", "offset": 0,
                 "dtype": np.dtype("f8"), "shape": [300000]}})
        try:
            s.fetch([h])
        except ValueError as e:
            assert "no shared memory segment" in str(e), e
        else:
            raise AssertionError("reached another session's segment")
        try:  # handles are the session's own: this one it never made
            s.fetch([{h} + 10**9])
        except ValueError as e:
            assert "unknown handle" in str(e), e
        else:
            raise AssertionError("reached another session's array")
        print("ok")
    """))
    assert result.returncode == 0 and "ok" in result.stdout, result.stdout + result.stderr
    np.testing.assert_array_equal(mine.fetch([h])[0], np.full(1_000_000, 7.0))
    mine.close()


def test_the_cpp_client_over_tls_with_a_token(tmp, pki, token_file):
    """The C++ client end to end (its example program, which takes its
    token and CA from ARRAYD_TOKEN and ARRAYD_TLS_CA)."""
    example = Path(BINARY).with_name("arrayd_cpp_example")
    if not example.exists():
        pytest.skip("no arrayd_cpp_example beside the server binary")
    port = free_port()
    address = f"127.0.0.1:{port}"
    ca = str(pki / "ca.crt")
    server = start(tmp, "--listen", address, "--tls-cert", str(pki / "server.crt"),
                   "--tls-key", str(pki / "server.key"), "--auth-tokens", token_file)
    assert server.ready(serving(address, ALICE, tls_ca=ca)), server.log

    def run(**env: str) -> subprocess.CompletedProcess:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("ARRAYD_")}
        return subprocess.run([str(example), address], capture_output=True, text=True,
                              timeout=60, env={**clean, **env})

    ok = run(ARRAYD_TOKEN=ALICE, ARRAYD_TLS_CA=ca)
    assert ok.returncode == 0 and "[3, 12]" in ok.stdout, ok.stdout + ok.stderr
    no_token = run(ARRAYD_TLS_CA=ca)
    assert no_token.returncode != 0 and "token" in no_token.stderr
    plaintext = run(ARRAYD_TOKEN=ALICE)
    assert plaintext.returncode != 0
