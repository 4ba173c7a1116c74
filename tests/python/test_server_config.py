"""The server's flags from a file (--config FILE): the same flags, one per
line, with comments; later flags override earlier ones; a bad file is exit
code 2 with a message naming the line."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from arrayd import _transport

REPO = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("ARRAYD_SERVER_BIN") or str(REPO / "build" / "bin" / "arrayd")


def test_flags_come_from_the_file_and_the_command_line_overrides(tmp_path):
    address = f"unix:{tmp_path}/from-config.sock"
    config = tmp_path / "arrayd.conf"
    config.write_text(f"""
# arrayd's flags, one per line
--listen {address}
--backend=hip          # overridden below, on the command line
--metrics-listen off
--max-sessions 4
""")
    proc = subprocess.Popen([BINARY, "--config", str(config), "--backend", "cpu"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not _transport.health_ok(address, timeout=0.5):
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0


def _fails(*args: str) -> str:
    r = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2, (r.returncode, r.stderr)
    return r.stderr


def test_a_bad_config_is_exit_code_2_naming_the_line(tmp_path):
    assert "cannot read" in _fails("--config", str(tmp_path / "missing.conf"))
    bad = tmp_path / "bad.conf"
    bad.write_text("--backend cpu\nlisten unix:/tmp/x.sock\n")
    assert f"{bad}:2" in _fails(f"--config={bad}")
    nested = tmp_path / "nested.conf"
    nested.write_text(f"--config {bad}\n")
    assert f"{nested}:1" in _fails("--config", str(nested))
    unknown = tmp_path / "unknown.conf"
    unknown.write_text("--no-such-flag 1\n")
    assert "unknown flag --no-such-flag" in _fails("--config", str(unknown))
    assert "--config needs a file" in _fails("--config")


def test_help_names_the_config_file():
    out = subprocess.run([BINARY, "--help"], capture_output=True, text=True, timeout=30).stdout
    assert "--config FILE" in out
