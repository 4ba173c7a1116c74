"""Writes the fuzz target's seed corpus (tests/fuzz/corpus): small valid
and invalid conversations on the same-host socket, one file each, and one
call of every op of a running server's registry on two small arrays.

    python tests/fuzz/make_corpus.py [ADDRESS]   # ADDRESS: a server, for the op list

File format (server/fuzz/local_fuzzer.cc): the first byte odd means the
target sends a valid OpenSession first; the rest are frames (4-byte little
endian length, then a serialized ClientMessage).
"""
from __future__ import annotations

import hashlib
import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client-python"))
from arrayd._proto import pb  # noqa: E402
from arrayd._wire import set_attr  # noqa: E402

OUT = Path(__file__).resolve().parent / "corpus"


def frame(msg: pb.ClientMessage) -> bytes:
    data = msg.SerializeToString()
    return struct.pack("<I", len(data)) + data


def op(msg, name, inputs=(), outputs=(), **attrs):
    o = msg.ops.add(name=name, inputs=list(inputs), outputs=list(outputs))
    for k, v in attrs.items():
        set_attr(o.attrs[k], v)
    return o


def upload(msg, handle, array):
    op(msg, "upload", (), (handle,), dtype=array.dtype, shape=list(array.shape),
       data=array.tobytes())


def sync(msg, fetch=(), sync_id=1):
    msg.sync.sync_id = sync_id
    msg.sync.fetch.extend(fetch)


def seeds(op_names):
    out = {}
    m = pb.ClientMessage()
    upload(m, 1, np.arange(4, dtype="f4"))
    op(m, "add", (1, 1), (2,))
    sync(m, [2])
    out["add"] = b"\x01" + frame(m)

    m = pb.ClientMessage()
    op(m, "zeros", (), (1,), shape=[2, 3], dtype=np.dtype("f8"))
    op(m, "reshape", (1,), (2,), shape=[3, -1])
    op(m, "transpose", (2,), (3,))
    op(m, "slice", (3,), (4,), index=[1, 0, 2, 1])
    op(m, "sum", (4,), (5,))
    m.frees.extend([1, 2, 99])
    sync(m, [5, 3])
    out["views"] = b"\x01" + frame(m)

    m = pb.ClientMessage()
    upload(m, 1, np.array([np.iinfo("i8").min, 7], "i8"))
    upload(m, 2, np.array([-1, 0], "i8"))
    for i, name in enumerate(["fmod", "remainder", "floor_divide", "gcd", "lcm"]):
        op(m, name, (1, 2), (10 + i,))
    sync(m, [10, 11, 12, 13, 14])
    out["int-edges"] = b"\x01" + frame(m)

    m = pb.ClientMessage()
    op(m, "zeros", (), (1,), shape=[0], dtype=np.dtype("f4"))
    op(m, "reshape", (1,), (2,), shape=[2**32, 2**32])
    op(m, "zeros", (), (3,), shape=[1] * 65, dtype=np.dtype("f4"))
    op(m, "zeros", (), (4,), shape=[-1], dtype=np.dtype("f4"))
    op(m, "as_strided", (1,), (5,), shape=[2**40], strides=[0], offset=0)
    op(m, "no_such_op", (1,), (6,))
    op(m, "add", (77,), (7,))
    sync(m, [2, 3, 4, 5, 6, 7])
    out["bad-shapes"] = b"\x01" + frame(m)

    m = pb.ClientMessage()
    op(m, "random_uniform", (), (1,), shape=[8], dtype=np.dtype("f8"), seed=[1, 2],
       offset="18446744073709551615")
    op(m, "random_normal", (), (2,), shape=[3], dtype=np.dtype("f4"), seed=[5], offset=0)
    sync(m, [1, 2])
    out["random"] = b"\x01" + frame(m)

    m = pb.ClientMessage()
    upload(m, 1, np.eye(3))
    op(m, "matmul", (1, 1), (2,))
    op(m, "svd", (1,), (3, 4, 5), full_matrices=False)
    op(m, "eigh", (2,), (6, 7))
    sync(m, [2, 4, 6])
    out["linalg"] = b"\x01" + frame(m)

    m = pb.ClientMessage()
    m.segments.extend(["a", "b"])  # no descriptors come with it
    op(m, "upload_shm", (), (1,), segment="a", offset=0, shape=[4], dtype=np.dtype("u1"))
    sync(m, [1])
    out["segments"] = b"\x01" + frame(m)

    out["huge-header"] = b"\x01" + struct.pack("<I", 256 << 20) + b"\x00" * 16
    out["truncated"] = b"\x01" + frame(m)[:-3]
    first = pb.ClientMessage()
    first.open.client_name = "seed"
    first.open.quota_bytes = 1 << 20
    out["raw-open"] = b"\x00" + frame(first) + frame(m)
    out["no-open"] = b"\x00" + frame(m)

    for name in op_names:
        m = pb.ClientMessage()
        upload(m, 1, np.arange(6, dtype="f8").reshape(2, 3))
        upload(m, 2, np.array([1, 2, 3], "i4"))
        op(m, name, (1, 2), (3, 4, 5)[: 1 + len(name) % 3])
        sync(m, [3])
        out[f"op-{name}"] = b"\x01" + frame(m)
    return out


def main() -> None:
    names: list[str] = []
    if len(sys.argv) > 1:
        from arrayd import _transport
        ch = _transport.open_channel(sys.argv[1])
        names = sorted(o.name for o in _transport.get_capabilities(ch).ops)
        ch.close()
    OUT.mkdir(exist_ok=True)
    for name, data in seeds(names).items():
        digest = hashlib.sha1(data).hexdigest()[:8]
        (OUT / f"{name}-{digest}").write_bytes(data)
    print(f"{len(list(OUT.iterdir()))} seeds in {OUT}")


if __name__ == "__main__":
    main()
