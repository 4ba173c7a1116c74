"""The wire codec: Python values into the protocol's messages and back.

Layer: session (below Session, beside _transport). AttrValue encoding of op
attributes, and the hand-made parts of the bulk RPCs: Upload chunks built
around a zero-copy view of the data, and DownloadChunk parsed so that its
payload is copied once only. Imports nothing of arrayd above _dtypes.
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from arrayd import _dtypes
from arrayd._proto import pb

UPLOAD_CHUNK_BYTES = 4 << 20


def set_attr(av: pb.AttrValue, v: Any) -> None:
    """Stores a Python value in an AttrValue (bool/int/float/complex/...)."""
    t = type(v)
    if t is bool:
        av.b = v
    elif t is int:
        av.i = v
    elif t is float:
        av.f = v
    elif t is tuple or t is list:
        ints = av.ints
        ints.SetInParent()  # an empty list is still a value (0-d shape)
        ints.values.extend(v)
    elif t is complex:
        av.c.real = v.real
        av.c.imag = v.imag
    elif isinstance(v, np.dtype):
        av.dtype = _dtypes.to_pb(v)
    elif t is bytes:
        av.data = v
    elif t is str:
        av.s = v
    else:
        raise TypeError(f"cannot encode attribute value {v!r} of type {t}")


def varint(n: int) -> bytes:
    """n (>= 0) as a protobuf base-128 varint."""
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """(the varint at buf[pos], the position after it)."""
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def parse_download_chunk(raw: bytes) -> tuple[pb.DownloadChunk, memoryview]:
    """Splits a serialized DownloadChunk into its small fields and a view of
    its data, so the payload is copied once (into the result array) only."""
    mv = memoryview(raw)
    data = mv[0:0]
    header = []
    pos, end = 0, len(raw)
    while pos < end:
        start = pos
        key, pos = _read_varint(raw, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = _read_varint(raw, pos)
        elif wire == 2:
            n, pos = _read_varint(raw, pos)
            if field == 4:  # DownloadChunk.data
                data = mv[pos:pos + n]
                pos += n
                continue
            pos += n
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        else:
            raise RuntimeError(f"bad wire type {wire} in DownloadChunk")
        header.append(raw[start:pos])
    return pb.DownloadChunk.FromString(b"".join(header)), data


def upload_chunks(header: bytes, flat: memoryview,
                  chunk_bytes: int = UPLOAD_CHUNK_BYTES) -> Iterator[bytes]:
    """Serialized UploadChunks of ``flat`` (bytes), the first one led by
    ``header`` (a serialized UploadChunk without data)."""
    first = header
    for start in range(0, len(flat), chunk_bytes):
        piece = flat[start:start + chunk_bytes]
        # UploadChunk.data is field 5, length-delimited (tag 0x2a).
        yield b"".join((first, b"\x2a", varint(len(piece)), piece))
        first = b""


def identity(b: bytes) -> bytes:
    """The serializer of requests that are already serialized."""
    return b
