#!/usr/bin/env python3
"""Prints the README's op table from a running server's registry.

    deploy/op_table.py [--address unix:/path | host:port]

Without --address the client finds (or starts) the per-user server, as
`import arrayd` does. The table lists every op the server registers, its
arity and attributes, and which compiled backends run it.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "client-python"))

import arrayd as ad  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=None)
    args = parser.parse_args()
    caps = ad.connect(args.address).capabilities
    backends = list(caps.backends)
    print(f"| op | inputs | attributes | {' | '.join(backends)} |")
    print(f"|----|--------|------------|{'|'.join('---' for _ in backends)}|")
    for op in caps.ops:
        arity = "any" if op.num_inputs < 0 else str(op.num_inputs)
        attrs = ", ".join(f"`{a}`" for a in op.attrs) or "-"
        marks = " | ".join("yes" if b in op.backends else "-" for b in backends)
        print(f"| `{op.name}` | {arity} | {attrs} | {marks} |")
    ad.disconnect()


if __name__ == "__main__":
    main()
