"""pytest fixtures: one arrayd server per test session.

Server: ARRAYD_ADDRESS (an already running server), else the binary from
ARRAYD_SERVER_BIN or <repo>/build/bin/arrayd, started with
``--listen unix:<tmp>/arrayd.sock --backend $ARRAYD_BACKEND`` (default cpu)
and the flags in ARRAYD_SERVER_ARGS (e.g. ``--allow-user-kernels``).
The client under test is the source checkout in client-python/.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "client-python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import arrayd as ad  # noqa: E402
from arrayd import _connect, _transport  # noqa: E402


@pytest.fixture(scope="session")
def server_address():
    """Address of the server under test (started here unless given)."""
    address = os.environ.get("ARRAYD_ADDRESS")
    if address:
        yield address
        return
    binary = os.environ.get("ARRAYD_SERVER_BIN") or str(
        REPO / "build" / "bin" / "arrayd")
    if not os.path.exists(binary):
        pytest.fail(f"arrayd server binary not found: {binary} (build it, or "
                    "set ARRAYD_SERVER_BIN or ARRAYD_ADDRESS)", pytrace=False)
    backend = os.environ.get("ARRAYD_BACKEND", "cpu")
    tmp = tempfile.mkdtemp(prefix="arrayd-test-")
    address = f"unix:{tmp}/arrayd.sock"
    log = open(os.path.join(tmp, "arrayd.log"), "wb")
    extra = os.environ.get("ARRAYD_SERVER_ARGS", "").split()
    proc = subprocess.Popen([binary, "--listen", address, "--backend",
                             backend, *extra], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not _transport.health_ok(address, timeout=0.5):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            log.close()
            text = Path(tmp, "arrayd.log").read_text(errors="replace")
            pytest.fail(f"arrayd did not start ({binary}):\n{text[-3000:]}",
                        pytrace=False)
        time.sleep(0.05)
    yield address
    ad.disconnect()
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(autouse=True)
def session(server_address):
    """The default session for every test; reconnects after a test closed it.

    After the test, a synchronize() must not report a deferred error: a test
    that expects one must consume it itself.
    """
    s = _connect._default
    if s is None or s.closed or s.address != server_address:
        s = ad.connect(server_address)
    yield s
    if not s.closed:
        s.synchronize()
