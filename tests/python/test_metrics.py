"""Prometheus metrics (--metrics-listen): scraped while a client works, the
numbers move as it does."""
from __future__ import annotations

import os
import re
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

import arrayd as ad
from arrayd import _transport

REPO = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("ARRAYD_SERVER_BIN") or str(REPO / "build" / "bin" / "arrayd")


def _start(tmp: str, *flags: str) -> tuple[subprocess.Popen, str, int]:
    """A CPU server with metrics on a port it picks (127.0.0.1:0): its
    process, address and metrics port (from its log line)."""
    address = f"unix:{tmp}/arrayd.sock"
    log_path = Path(tmp, "arrayd.log")
    log = open(log_path, "wb")
    proc = subprocess.Popen([BINARY, "--listen", address, "--backend", "cpu",
                             "--metrics-listen", "127.0.0.1:0", *flags],
                            stdout=log, stderr=subprocess.STDOUT)
    log.close()
    deadline = time.monotonic() + 30
    while not _transport.health_ok(address, timeout=0.5):
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"arrayd did not start: {log_path.read_text()[-2000:]}")
        time.sleep(0.05)
    m = re.search(r"metrics on \S+ \(port (\d+)\)", log_path.read_text())
    assert m, log_path.read_text()
    return proc, address, int(m.group(1))


def scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        return r.read().decode()


def value(text: str, name: str, **labels: str) -> float:
    """The sample `name{labels...}` (labels may be a subset), summed."""
    total, found = 0.0, False
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)", line)
        if not m or m.group(1) != name:
            continue
        got = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
        if all(got.get(k) == v for k, v in labels.items()):
            total += float(m.group(3))
            found = True
    if not found:
        raise KeyError(f"{name}{labels} not in the scrape")
    return total


def test_other_paths_and_methods_are_http_errors():
    with tempfile.TemporaryDirectory() as tmp:
        proc, _, port = _start(tmp)
        try:
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)
            assert e.value.code == 404
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(urllib.request.Request(
                    f"http://127.0.0.1:{port}/metrics", data=b"x", method="POST"), timeout=5)
            assert e.value.code == 405
            # A client that connects and says nothing does not stop the scrapes.
            idle = socket.create_connection(("127.0.0.1", port))
            try:
                assert "arrayd_sessions_open" in scrape(port)
            finally:
                idle.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def test_metrics_follow_a_client():
    with tempfile.TemporaryDirectory() as tmp:
        proc, address, port = _start(tmp)
        try:
            before = scrape(port)
            assert value(before, "arrayd_sessions_open") == 0
            for family in ("arrayd_pool_bytes", "arrayd_sync_seconds_bucket",
                           "arrayd_transfer_bytes_total", "arrayd_kernel_compiles_total",
                           "arrayd_kernel_cache_hits_total"):
                value(before, family)
            s = ad.connect(address, default=False)
            with s:
                x = ad.asarray(np.arange(1 << 16, dtype=np.float64))
                for _ in range(5):
                    x = x + 1
                np.testing.assert_array_equal(x.get()[:3], [5, 6, 7])
                after = scrape(port)
                assert value(after, "arrayd_sessions_open") == 1
                assert value(after, "arrayd_session_bytes",
                             client="arrayd-python") >= x.nbytes
                assert value(after, "arrayd_ops_total", op="add") >= 5
                assert value(after, "arrayd_sync_seconds_count") > \
                    value(before, "arrayd_sync_seconds_count")
                moved = value(after, "arrayd_transfer_bytes_total", direction="upload")
                assert moved >= x.nbytes
            s.close()
            deadline = time.monotonic() + 10
            while value(scrape(port), "arrayd_sessions_open") != 0:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            final = scrape(port)
            assert value(final, "arrayd_sessions_opened_total") == 1
            assert value(final, "arrayd_ops_total", op="add") >= 5  # closed sessions count
        finally:
            proc.terminate()
            proc.wait(10)


def test_an_explicit_metrics_port_in_use_is_an_error():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run(
                [BINARY, "--listen", f"unix:{tmp}/arrayd.sock", "--backend", "cpu",
                 "--metrics-listen", f"127.0.0.1:{port}"],
                capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1
    assert "metrics" in proc.stdout + proc.stderr
