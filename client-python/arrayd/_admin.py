"""The operator's command line, ``python -m arrayd``: the Admin service of a
running server (status, sessions, top, kill, drain) and ``serve``, which
starts a server as ``ray start`` does.

    python -m arrayd status   [--address A]
    python -m arrayd sessions [--address A]
    python -m arrayd top      [--address A] [--interval S] [--count N]
    python -m arrayd kill ID  [--address A]
    python -m arrayd drain    [--address A]
    python -m arrayd serve    [server flags, e.g. --listen unix:/run/arrayd.sock]

The address is --address, else ARRAYD_ADDRESS, else this user's private
server (unix:/tmp/arrayd-$UID/arrayd.sock). With --auth-tokens on the
server, ARRAYD_TOKEN must be a token of the tenant "admin".

Layer: a tool on top of the transport (imports _connect, _transport, _proto).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Sequence

import grpc

from arrayd import _connect, _transport
from arrayd._proto import pb

ADMIN = "/arrayd.v1.Admin/"


class AdminClient:
    """The Admin RPCs of the server at ``address``."""

    def __init__(self, address: str, creds: _transport.Credentials | None = None):
        self.address = address
        self._channel = _transport.open_channel(address, creds)

    def _call(self, method: str, request: Any, reply: Any) -> Any:
        call = self._channel.unary_unary(
            ADMIN + method, request_serializer=type(request).SerializeToString,
            response_deserializer=reply.FromString)
        return call(request, timeout=10)

    def server_info(self) -> pb.ServerInfo:
        return self._call("GetServerInfo", pb.ServerInfoRequest(), pb.ServerInfo)

    def sessions(self) -> list[pb.SessionInfo]:
        return list(self._call("ListSessions", pb.ListSessionsRequest(),
                               pb.SessionList).sessions)

    def close_session(self, session_id: int) -> bool:
        return self._call("CloseSession", pb.CloseSessionRequest(session_id=session_id),
                          pb.CloseSessionReply).closed

    def drain(self) -> None:
        self._call("Drain", pb.DrainRequest(), pb.DrainReply)

    def close(self) -> None:
        self._channel.close()


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def _age(s: float) -> str:
    if s < 120:
        return f"{s:.0f}s"
    if s < 7200:
        return f"{s / 60:.0f}m"
    return f"{s / 3600:.1f}h"


def session_table(sessions: Sequence[pb.SessionInfo],
                  rates: dict[int, float] | None = None) -> str:
    """The sessions as an aligned text table (``top`` adds ops/s)."""
    head = ["ID", "CLIENT", "PID", "TENANT", "MEMORY", "ARRAYS", "OPS", "STREAMS", "AGE"]
    if rates is not None:
        head.insert(7, "OPS/S")
    rows = [head]
    for s in sessions:
        row = [str(s.id), s.client_name or "-", str(s.pid or "-"), s.tenant,
               _bytes(s.bytes_in_use), str(s.arrays), str(s.ops), str(s.streams),
               _age(s.age_s)]
        if rates is not None:
            row.insert(7, f"{rates.get(s.id, 0.0):.0f}")
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
                     for r in rows)


def _status(admin: AdminClient) -> int:
    info = admin.server_info()
    devices = ", ".join(f"{d.backend}:{d.index} {d.name} ({_bytes(d.total_memory)})"
                        for d in info.devices)
    print(f"arrayd {info.version} at {admin.address}")
    print(f"  backend      {info.backend} ({devices})")
    print(f"  uptime       {_age(info.uptime_s)}{'  DRAINING' if info.draining else ''}")
    print(f"  sessions     {info.sessions} open, {info.sessions_opened} since the start")
    quota = _bytes(info.server_quota_bytes) if info.server_quota_bytes else "no cap"
    print(f"  memory       {_bytes(info.bytes_in_use)} in arrays (server cap: {quota})")
    print(f"  server id    {info.server_id}")
    return 0


def _top(admin: AdminClient, interval: float, count: int) -> int:
    last: dict[int, int] = {}
    last_t = time.monotonic()
    shown = 0
    while count <= 0 or shown < count:
        sessions = sorted(admin.sessions(), key=lambda s: -s.bytes_in_use)
        now = time.monotonic()
        rates = {s.id: (s.ops - last.get(s.id, s.ops)) / max(now - last_t, 1e-9)
                 for s in sessions}
        last = {s.id: s.ops for s in sessions}
        last_t = now
        if sys.stdout.isatty():
            print("\x1b[H\x1b[2J", end="")
        print(f"arrayd at {admin.address}: {len(sessions)} session(s), "
              f"{_bytes(sum(s.bytes_in_use for s in sessions))} in arrays")
        print(session_table(sessions, rates), flush=True)
        shown += 1
        if count <= 0 or shown < count:
            time.sleep(interval)
    return 0


def _serve(args: Sequence[str]) -> int:
    binary = _connect.server_binary()
    if binary is None:
        print("no arrayd server binary found: install the arrayd server package "
              "(the .deb from cpack, or build it: ./deploy/quickstart.sh), put "
              "arrayd on PATH or set ARRAYD_SERVER_BIN", file=sys.stderr)
        return 2
    os.execv(binary, [binary, *args])
    return 0  # not reached


def _address(given: str | None) -> str:
    if given:
        return given
    env = os.environ.get("ARRAYD_ADDRESS")
    if env:
        return env
    return f"unix:/tmp/arrayd-{os.getuid()}/arrayd.sock"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        return _serve(argv[1:])
    p = argparse.ArgumentParser(prog="python -m arrayd",
                                description="Operate a running arrayd server.")
    p.add_argument("--address", help="the server (default: ARRAYD_ADDRESS, "
                   "else this user's private server)")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("status", help="the server: version, backend, sessions, memory")
    sub.add_parser("sessions", help="the open sessions and their memory")
    top = sub.add_parser("top", help="the sessions, refreshed, with ops/s")
    top.add_argument("--interval", type=float, default=1.0)
    top.add_argument("--count", type=int, default=0, help="refreshes (0: until ^C)")
    kill = sub.add_parser("kill", help="close a session (its client sees it closed)")
    kill.add_argument("session_id", type=int)
    sub.add_parser("drain", help="drain the server, as SIGTERM does")
    sub.add_parser("serve", help="start a server (arguments go to arrayd)")
    args = p.parse_args(argv)
    admin = AdminClient(_address(args.address))
    try:
        if args.command == "status":
            return _status(admin)
        if args.command == "sessions":
            print(session_table(admin.sessions()))
            return 0
        if args.command == "top":
            try:
                return _top(admin, args.interval, args.count)
            except KeyboardInterrupt:
                return 0
        if args.command == "kill":
            if admin.close_session(args.session_id):
                print(f"session {args.session_id} closed")
                return 0
            print(f"no session {args.session_id}", file=sys.stderr)
            return 1
        if args.command == "drain":
            admin.drain()
            print("draining")
            return 0
    except grpc.RpcError as e:
        print(f"arrayd at {admin.address}: {e.code().name}: {e.details()}",
              file=sys.stderr)
        return 1
    finally:
        admin.close()
    return 2
