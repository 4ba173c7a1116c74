"""Progress bars (arrayd._progress) with a stand-in for tqdm: long gRPC
transfers advance a bar of their bytes, small ones and ARRAYD_PROGRESS=0
show none, kernel loads get a bar that tqdm shows after half a second."""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import arrayd as ad
from arrayd import _progress


class FakeTqdm:
    made: list["FakeTqdm"] = []

    def __init__(self, total=None, desc="", **kwargs):
        self.total, self.desc, self.kwargs = total, desc, kwargs
        self.n, self.closed = 0, False
        FakeTqdm.made.append(self)

    def update(self, n):
        self.n += n

    def close(self):
        self.closed = True


@pytest.fixture
def fake_tqdm(monkeypatch):
    FakeTqdm.made = []
    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=FakeTqdm))
    monkeypatch.setenv("ARRAYD_PROGRESS", "1")
    return FakeTqdm


def test_bars_only_for_long_transfers_and_when_wanted(fake_tqdm, monkeypatch):
    assert isinstance(_progress.transfer(_progress.MIN_BYTES - 1, "x"), _progress._NoBar)
    bar = _progress.transfer(_progress.MIN_BYTES, "upload")
    assert isinstance(bar, FakeTqdm) and bar.total == _progress.MIN_BYTES
    wait = _progress.waiting("compiling")
    assert wait.total is None and wait.kwargs["delay"] == 0.5
    monkeypatch.setenv("ARRAYD_PROGRESS", "0")
    assert isinstance(_progress.transfer(1 << 40, "x"), _progress._NoBar)
    monkeypatch.setenv("ARRAYD_PROGRESS", "")  # then only on a terminal
    monkeypatch.setattr(sys, "stderr", types.SimpleNamespace(isatty=lambda: False))
    assert isinstance(_progress.waiting("x"), _progress._NoBar)


def test_grpc_transfers_advance_a_bar_of_their_bytes(fake_tqdm, session, monkeypatch):
    monkeypatch.setattr(session, "_shm_ok", False)  # the gRPC path
    host = np.arange(_progress.MIN_BYTES // 4, dtype=np.float32)
    a = ad.asarray(host)
    up = [b for b in fake_tqdm.made if b.desc == "arrayd upload"]
    assert len(up) == 1 and up[0].n == host.nbytes and up[0].closed
    np.testing.assert_array_equal(a.get(), host)
    down = [b for b in fake_tqdm.made if b.desc == "arrayd download"]
    assert len(down) == 1 and down[0].n == host.nbytes and down[0].closed
