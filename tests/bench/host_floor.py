#!/usr/bin/env python3
"""The host's floor under a same-host round trip, without arrayd's server.

    python3 tests/bench/host_floor.py

Rows (median us): a ping-pong of 64-byte frames between two processes over a
unix socketpair, with the reader blocking and with it polling as the client
does; building and serializing the ClientMessage of add + sum + fetch, and
parsing a SyncReply with one fetched scalar. Run on two machines, it tells
how much of a round trip is the machine (kernel wake-ups, Python speed) and
how much is arrayd. Not a test.
"""
from __future__ import annotations

import multiprocessing as mp
import socket
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))

from latency_breakdown import median_us  # noqa: E402  (this folder)


def _echo(sock: socket.socket, poll: bool) -> None:
    while True:
        data = _recv(sock, poll)
        if not data:
            return
        sock.sendall(data)


def _recv(sock: socket.socket, poll: bool) -> bytes:
    if poll:
        while True:
            try:
                return sock.recv(4096, socket.MSG_DONTWAIT)
            except BlockingIOError:
                continue
    return sock.recv(4096)


def ping_pong_us(poll: bool, n: int = 3000) -> float:
    a, b = socket.socketpair()
    p = mp.Process(target=_echo, args=(b, poll), daemon=True)
    p.start()
    msg = b"x" * 64
    lat = []
    for _ in range(n):
        t0 = time.perf_counter()
        a.sendall(msg)
        _recv(a, poll)
        lat.append(time.perf_counter() - t0)
    a.close()
    p.join(5)
    return statistics.median(lat[n // 5:]) * 1e6


def main() -> None:
    from google.protobuf.internal import api_implementation

    from arrayd._proto import pb as msgs

    def build() -> bytes:
        m = msgs.ClientMessage()
        op = m.ops.add(name="add", inputs=[1, 2], outputs=[3])
        op = m.ops.add(name="sum", inputs=[3], outputs=[4])
        m.frees.extend([3])
        m.sync.CopyFrom(msgs.Sync(sync_id=7, fetch=[4]))
        return m.SerializeToString()

    reply = msgs.ServerMessage()
    reply.sync.sync_id = 7
    f = reply.sync.fetched.add(handle=4, inline=True, data=b"\0\0\0\0")
    f.shape.extend([])
    wire = reply.SerializeToString()
    rows = {
        "socketpair ping-pong, blocking": ping_pong_us(False),
        "socketpair ping-pong, polling": ping_pong_us(True),
        "build + serialize add+sum+fetch": median_us(build, 3000),
        "parse a one-scalar SyncReply": median_us(
            lambda: msgs.ServerMessage.FromString(wire), 3000),
    }
    print(f"python {sys.version.split()[0]}, protobuf {api_implementation.Type()}, "
          f"{mp.cpu_count()} cpus")
    for k, v in rows.items():
        print(f"{k:36} {v:8.1f}")


if __name__ == "__main__":
    main()
