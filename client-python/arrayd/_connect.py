"""Which server and session module functions use: connect, disconnect,
current, and the private per-user server started on demand.

Layer: session (above Session; below the arrays). Without an address,
ARRAYD_ADDRESS names the server, else a private server of this user on
unix:/tmp/arrayd-$UID/arrayd.sock, started from the arrayd binary
(ARRAYD_SERVER_BIN, PATH, or the source checkout's build/) when none
answers.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import stat
import subprocess
import threading
import time
from pathlib import Path

from arrayd import _session, _transport
from arrayd._errors import ConnectionError, SessionClosedError

_default: _session.Session | None = None
_default_lock = threading.Lock()


def existing() -> _session.Session | None:
    """The session module functions would use, if one is open; never
    connects."""
    if _session.entered:
        return _session.entered[-1]
    s = _default
    return s if s is not None and not s._closed else None


def current() -> _session.Session:
    """The session that module functions use; connects on first use."""
    if _session.entered:
        return _session.entered[-1]
    s = _default
    if s is None:
        with _default_lock:
            s = _default if _default is not None else connect()
    if s._closed:
        # Lost, not disconnected: do not silently switch servers.
        raise SessionClosedError(
            f"{s._closed_reason}; call arrayd.connect() for a new session")
    return s


def connect(address: str | None = None, *, default: bool = True,
            token: str | None = None, tls_ca: str | None = None,
            tls_cert: str | None = None,
            tls_key: str | None = None) -> _session.Session:
    """Opens a session and (by default) makes it the default session.

    The address is ``host:port`` or ``unix:/path``; without one, the env
    variable ARRAYD_ADDRESS, else a private per-user server (started when
    none answers). ``token`` is the bearer token of a server that requires
    one; ``tls_ca`` (PEM file) turns on TLS for a TCP address, with
    ``tls_cert``/``tls_key`` for a server that requires client certificates.
    Each defaults to ARRAYD_TOKEN, ARRAYD_TLS_CA, ARRAYD_TLS_CERT and
    ARRAYD_TLS_KEY.
    """
    global _default
    creds = _transport.Credentials(token, tls_ca, tls_cert, tls_key)
    if address is None:
        address = os.environ.get("ARRAYD_ADDRESS") or private_server()
    s = _session.Session(address, credentials=creds)
    if default:
        _default = s
    return s


def disconnect(session: _session.Session | None = None) -> None:
    """Closes a session (the default one when none is named)."""
    global _default
    s = session if session is not None else _default
    if s is None:
        return
    s.close()
    if s is _default:
        _default = None


def server_binary() -> str | None:
    """The arrayd binary to start: ARRAYD_SERVER_BIN, else arrayd on PATH,
    else the source checkout's build/bin/arrayd (None if there is none)."""
    env = os.environ.get("ARRAYD_SERVER_BIN")
    if env:
        return env
    found = shutil.which("arrayd")
    if found:
        return found
    # Source checkout: <repo>/client-python/arrayd/_connect.py.
    repo_bin = Path(__file__).resolve().parents[2] / "build" / "bin" / "arrayd"
    return str(repo_bin) if repo_bin.is_file() else None


def _check_private_dir(run_dir: Path) -> None:
    """Makes this user's run directory (0700) or checks the one there: a
    directory another user made could hold their server (which would see
    every array sent to it) or their trap."""
    try:
        run_dir.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(run_dir)
    except OSError as e:
        raise ConnectionError(f"cannot use {run_dir}: {e}") from None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise ConnectionError(
            f"{run_dir} is not a directory of this user (owner uid "
            f"{st.st_uid}): refusing to use the server there; remove it, or "
            "set ARRAYD_ADDRESS to a server you trust")
    if st.st_mode & 0o077:
        os.chmod(run_dir, 0o700)


def private_server() -> str:
    """Address of this user's private server, started if none answers."""
    run_dir = Path(f"/tmp/arrayd-{os.getuid()}")
    sock = run_dir / "arrayd.sock"
    address = f"unix:{sock}"
    _check_private_dir(run_dir)
    if _transport.health_ok(address, timeout=1.0):
        return address
    binary = server_binary()
    if binary is None:
        raise ConnectionError(
            f"no arrayd server answers at {address!r} and no arrayd binary "
            "was found to start one: set ARRAYD_ADDRESS to a running server, "
            "or ARRAYD_SERVER_BIN to the arrayd binary, or put arrayd on PATH")
    run_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    log_path = run_dir / "arrayd.log"
    with open(run_dir / "start.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one starter at a time
        if _transport.health_ok(address, timeout=1.0):
            return address
        if sock.exists():
            sock.unlink()  # stale socket of a dead server
        try:
            with open(log_path, "ab") as log:
                proc = subprocess.Popen(
                    [binary, "--listen", address, "--backend", "auto"],
                    stdin=subprocess.DEVNULL, stdout=log,
                    stderr=subprocess.STDOUT, start_new_session=True,
                    close_fds=True)
        except OSError as e:
            raise ConnectionError(
                f"could not start the arrayd server {binary!r}: {e}") from None
        deadline = time.monotonic() + _transport.START_TIMEOUT_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            if _transport.health_ok(address, timeout=0.5):
                return address
            time.sleep(0.05)
    try:
        tail = log_path.read_text(errors="replace")[-2000:]
    except OSError:
        tail = ""
    state = (f"exited with status {proc.returncode}" if proc.poll() is not None
             else f"did not answer within {_transport.START_TIMEOUT_S:.0f} s")
    raise ConnectionError(
        f"could not start arrayd ({binary}) at {address!r}: it {state}; "
        f"log {log_path}:\n{tail}")
