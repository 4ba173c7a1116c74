"""pytest plugin for the CuPy compatibility run (loaded by run.py with -p).

In every process that runs tests (each xdist worker, or the one process
without -n) it starts a private arrayd server, as tests/python/conftest.py
does, and points the client at it through ARRAYD_ADDRESS; a server that
died is restarted before the next test, so one crash costs one test. It
applies the deselection rules of deselect.txt, gives each test a time limit
(SIGALRM), and skips what is left once the run's deadline has passed.

Options (run.py sets them): --compat-deselect FILE, --compat-test-timeout S,
--compat-deadline EPOCH_S, --compat-report-dir DIR.
"""
from __future__ import annotations

import contextlib
import fnmatch
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

_server: dict = {}


def pytest_addoption(parser):
    group = parser.getgroup("cupy_compat")
    group.addoption("--compat-deselect", default=None,
                    help="deselection rules (tests/cupy_compat/deselect.txt)")
    group.addoption("--compat-test-timeout", type=float, default=120.0,
                    help="seconds one test may take (0: no limit)")
    group.addoption("--compat-deadline", type=float, default=0.0,
                    help="epoch seconds after which tests are skipped")
    group.addoption("--compat-report-dir", default=None,
                    help="where each process writes its deselected ids")


def _runs_tests(config) -> bool:
    """False in the xdist controller, which only distributes tests."""
    if hasattr(config, "workerinput"):
        return True
    return not getattr(config.option, "numprocesses", None)


def _worker_name(config) -> str:
    return config.workerinput["workerid"] if hasattr(
        config, "workerinput") else "main"


# --- the server ------------------------------------------------------------

def _start_server() -> str:
    from arrayd import _transport

    binary = os.environ.get("ARRAYD_SERVER_BIN")
    if not binary or not os.path.exists(binary):
        raise pytest.UsageError(
            f"ARRAYD_SERVER_BIN is not an arrayd binary: {binary!r}")
    backend = os.environ.get("ARRAYD_BACKEND", "cpu")
    tmp = tempfile.mkdtemp(prefix="arrayd-compat-")
    address = f"unix:{tmp}/arrayd.sock"
    log = open(os.path.join(tmp, "arrayd.log"), "wb")  # noqa: SIM115  (the server's lifetime)
    cmd = [binary, "--listen", address, "--backend", backend,
           *os.environ.get("ARRAYD_SERVER_ARGS", "").split()]
    # SIGTERM to the server when its worker exits, so a worker that ends
    # without pytest_unconfigure (killed, crashed) leaves no server behind.
    if shutil.which("setpriv"):
        cmd = ["setpriv", "--pdeathsig", "TERM", "--", *cmd]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not _transport.health_ok(address, timeout=0.5):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            log.close()
            text = Path(tmp, "arrayd.log").read_text(errors="replace")
            raise pytest.UsageError(f"arrayd did not start:\n{text[-3000:]}")
        time.sleep(0.05)
    _server.update(proc=proc, log=log, tmp=tmp, address=address)
    os.environ["ARRAYD_ADDRESS"] = address
    return address


def _stop_server() -> None:
    proc = _server.get("proc")
    if proc is None:
        return
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    _server["log"].close()
    shutil.rmtree(_server["tmp"], ignore_errors=True)
    _server.clear()


def pytest_configure(config):
    if _runs_tests(config):
        _start_server()
        _server["restarts"] = 0
        _server["worker"] = _worker_name(config)


def pytest_unconfigure(config):
    if _server.get("proc") is not None:
        import arrayd
        with contextlib.suppress(Exception):  # the server may be gone
            arrayd.disconnect()
        restarts = _server.get("restarts", 0)
        report_dir = config.getoption("--compat-report-dir")
        if report_dir:
            Path(report_dir, f"restarts-{_server['worker']}.txt").write_text(
                f"{restarts}\n")
        _stop_server()


# --- deselection -----------------------------------------------------------

def _read_rules(path: str) -> list[tuple[str, str]]:
    """(pattern, reason) pairs; a pattern is a glob on the node id relative
    to tests/cupy_tests/ (cupyx_tests/... for CuPy's tests of cupyx), or
    ``marker:NAME``."""
    rules = []
    reason = ""
    for line in Path(path).read_text().splitlines():
        text = line.strip()
        if not text:
            continue
        if text.startswith("#"):
            reason = text.lstrip("# ").strip() or reason
            continue
        pattern, _, inline = text.partition(" #")
        rules.append((pattern.strip(), inline.strip() or reason))
    return rules


def _relative_id(nodeid: str) -> str:
    """The id deselect.txt matches: relative to tests/cupy_tests/ for CuPy's
    tests of cupy, from cupyx_tests/ on for its tests of cupyx."""
    i = nodeid.find("cupy_tests/")
    if i >= 0:
        return nodeid[i + len("cupy_tests/"):]
    i = nodeid.find("cupyx_tests/")
    return nodeid[i:] if i >= 0 else nodeid


def pytest_collection_modifyitems(session, config, items):
    path = config.getoption("--compat-deselect")
    if not path:
        return
    rules = _read_rules(path)
    keep, drop = [], []
    for item in items:
        rid = _relative_id(item.nodeid)
        hit = False
        for pattern, _reason in rules:
            if pattern.startswith("marker:"):
                hit = item.get_closest_marker(pattern[7:]) is not None
            else:
                hit = fnmatch.fnmatchcase(rid, pattern)
            if hit:
                break
        (drop if hit else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    report_dir = config.getoption("--compat-report-dir")
    if report_dir:
        Path(report_dir, f"deselected-{_worker_name(config)}.txt").write_text(
            "".join(item.nodeid + "\n" for item in drop))


# --- per-test time limit, deadline, server health ---------------------------

class CompatTimeout(Exception):
    """A test ran past --compat-test-timeout."""


def _on_alarm(signum, frame):
    raise CompatTimeout("test ran past the compat time limit")


def pytest_runtest_setup(item):
    deadline = item.config.getoption("--compat-deadline")
    if deadline and time.time() > deadline:
        pytest.skip("compat run time limit reached")
    proc = _server.get("proc")
    if proc is not None and proc.poll() is not None:
        # The server died (in the previous test): start a fresh one.
        import arrayd
        with contextlib.suppress(Exception):  # it is gone
            arrayd.disconnect()
        _server["log"].close()
        restarts = _server.get("restarts", 0) + 1
        worker = _server.get("worker")
        shutil.rmtree(_server["tmp"], ignore_errors=True)
        _server.clear()
        address = _start_server()
        _server.update(restarts=restarts, worker=worker)
        arrayd.connect(address)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    limit = item.config.getoption("--compat-test-timeout")
    if limit:
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        if limit:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
