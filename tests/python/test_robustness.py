"""A shared server under many clients and killed clients (issue 13): 64
client processes at once, clients killed with SIGKILL in the middle of bulk
transfers; the server keeps serving, its memory comes back to its
baseline, and nothing is left in /dev/shm."""
from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import arrayd as ad

REPO = Path(__file__).resolve().parents[2]
MB = 1 << 20


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def server_pid(address: str) -> int:
    """The pid of the server on unix socket `address` (SO_PEERCRED of a
    same-host connection)."""
    import socket
    import struct
    path = address[len("unix:"):]
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(path)
        cred = s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", cred)[0]


def client(address: str, body: str) -> subprocess.Popen:
    code = textwrap.dedent(f"""
        import sys, numpy as np
        sys.path.insert(0, {str(REPO / 'client-python')!r})
        import arrayd as ad
        ad.connect({address!r})
    """) + textwrap.dedent(body)
    env = dict(os.environ)
    env.pop("ARRAYD_NO_LOCAL_SOCKET", None)
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)


def settled_rss(pid: int, limit: int, timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    rss = rss_bytes(pid)
    while rss > limit and time.monotonic() < deadline:
        time.sleep(0.2)
        rss = rss_bytes(pid)
    return rss


@pytest.fixture
def server(server_address):
    if not server_address.startswith("unix:"):
        pytest.skip("needs the server on a unix socket of this host")
    pid = server_pid(server_address)
    return server_address, pid


def test_64_client_processes_at_once(server):
    address, pid = server
    shm_before = set(glob.glob("/dev/shm/*"))
    baseline = rss_bytes(pid)
    body = """
        x = ad.arange(1000, dtype="f4")
        for _ in range(200):
            x = x + 1
        assert float(x[0].get()) == 200.0
        big = np.random.default_rng(0).standard_normal(300_000)
        np.testing.assert_array_equal(ad.asarray(big).get(), big)  # bulk both ways
        print("ok")
    """
    procs = [client(address, body) for _ in range(64)]
    outs = [p.communicate(timeout=300)[0].decode() for p in procs]
    failed = [o for p, o in zip(procs, outs) if p.returncode != 0 or "ok" not in o]
    assert not failed, failed[0][-2000:]
    np.testing.assert_array_equal(ad.arange(3).get(), [0, 1, 2])  # still serving
    rss = settled_rss(pid, baseline + 128 * MB)
    assert rss <= baseline + 128 * MB, (baseline, rss)
    assert set(glob.glob("/dev/shm/*")) == shm_before


def test_clients_killed_mid_transfer_leave_nothing(server):
    address, pid = server
    shm_before = set(glob.glob("/dev/shm/*"))
    baseline = rss_bytes(pid)
    body = """
        held = [ad.zeros(64 << 20, dtype="u1") for _ in range(3)]  # 192 MiB on the server
        assert held[-1][-1:].get()[0] == 0  # (made, not only queued)
        big = np.ones(32 << 20, dtype="u1")
        print("ready", flush=True)
        while True:  # bulk transfers both ways until killed
            a = ad.asarray(big)
            a.get()
    """
    procs = [client(address, body) for _ in range(4)]
    for p in procs:
        assert p.stdout.readline().decode().strip() == "ready"
    time.sleep(0.5)
    if os.environ.get("ARRAYD_BACKEND", "cpu") == "cpu":
        assert rss_bytes(pid) > baseline + 400 * MB  # the clients' arrays are there
    for p in procs:
        p.send_signal(signal.SIGKILL)
        p.wait()
    rss = settled_rss(pid, baseline + 64 * MB)
    assert rss <= baseline + 64 * MB, (baseline, rss)
    assert set(glob.glob("/dev/shm/*")) == shm_before
    x = np.arange(500_000.0)
    np.testing.assert_array_equal((ad.asarray(x) * 2).get(), x * 2)


def _pid_one_prefix() -> list[str] | None:
    """unshare's command prefix that runs a program as PID 1 of a new PID
    namespace (as in a container without an init), or None where it cannot."""
    for prefix in (["unshare", "--pid", "--fork", "--kill-child"],
                   ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child"]):
        try:
            if subprocess.run([*prefix, "true"], capture_output=True, timeout=10).returncode == 0:
                return prefix
        except (OSError, subprocess.TimeoutExpired):
            pass
    return None


def _child_pid(pid: int) -> int:
    """The one child of process `pid` (the server under unshare)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for task in Path(f"/proc/{pid}/task").iterdir():
            children = (task / "children").read_text().split()
            if children:
                return int(children[0])
        time.sleep(0.02)
    raise AssertionError(f"process {pid} has no child")


@pytest.mark.parametrize("sig,pid_one", [(signal.SIGTERM, False), (signal.SIGINT, False),
                                         (signal.SIGTERM, True)])
def test_a_signal_drains_the_server(tmp_path, sig, pid_one):
    """SIGTERM (docker stop) or SIGINT during a busy stream: the server
    stops taking sessions, the client gets an error (not a hang), the
    sockets are removed and the exit code is 0; also as PID 1 of its own
    PID namespace, where only a signal with a handler is delivered (as in a
    container started without an init)."""
    from arrayd import _transport
    binary = os.environ.get("ARRAYD_SERVER_BIN") or str(REPO / "build" / "bin" / "arrayd")
    prefix: list[str] = []
    if pid_one:
        found = _pid_one_prefix()
        if found is None:
            pytest.skip("unshare cannot make a PID namespace here")
        prefix = found
    sock = tmp_path / "a.sock"
    log = open(tmp_path / "log", "wb")
    proc = subprocess.Popen([*prefix, binary, "--backend", "cpu", "--listen", f"unix:{sock}",
                             "--metrics-listen", "off"],
                            stdout=log, stderr=subprocess.STDOUT)
    # The server's own pid: unshare's child when it runs as PID 1.
    target = _child_pid(proc.pid) if pid_one else proc.pid
    if pid_one:
        nspid = [line for line in Path(f"/proc/{target}/status").read_text().splitlines()
                 if line.startswith("NSpid:")]
        assert nspid and nspid[0].split()[-1] == "1", nspid  # PID 1 in its namespace
    try:
        deadline = time.monotonic() + 20
        while not _transport.health_ok(f"unix:{sock}", timeout=0.5):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        busy = client(f"unix:{sock}", """
            x = ad.arange(100_000, dtype="f4")
            print("ready", flush=True)
            try:
                while True:
                    x = x + 1
                    x.sum().get()
            except Exception as e:
                print("stopped:", type(e).__name__, flush=True)
        """)
        assert busy.stdout.readline().decode().strip() == "ready"
        time.sleep(0.3)
        os.kill(target, sig)
        assert proc.wait(20) == 0
        out = busy.communicate(timeout=30)[0].decode()
        assert "stopped:" in out, out
        text = (tmp_path / "log").read_text()
        assert "draining" in text and "arrayd stopped" in text
        assert not sock.exists() and not Path(f"{sock}.ops").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
