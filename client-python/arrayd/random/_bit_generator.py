"""arrayd.random's bit generators: the state of one server stream.

A stream is the server's counter-based Philox4x32-10 (ops/random.cc): block
``offset`` of the stream keyed by ``seed`` gives four float32 or two
float64 values, and a random op drawing n values from block ``offset``
uses blocks offset .. offset + ceil(n / K) - 1. A bit generator is that
(seed, offset) pair; every draw of a Generator or RandomState records its
op at the bit generator's offset and advances it past the blocks the op
uses, so the same seed gives the same numbers.

Only the server's Philox4x32-10 exists here: CuPy's XORWOW and MRG32k3a
(cuRAND's other generators) have no server op.

Layer: the random namespace's bottom (imports the core and _composite).
"""
from __future__ import annotations

import secrets
import threading
from typing import Any

import numpy as np

from arrayd import _composite as _c
from arrayd import _connect
from arrayd import _session as _sess
from arrayd._ndarray import ndarray

_MASK64 = (1 << 64) - 1


def seed_words(seed: Any) -> list[int]:
    """The random ops' ``seed`` attribute: the seed's 64-bit words (each
    integer's low word first, a sequence's concatenated) as int64 bit
    patterns; the server derives the Philox key from them. None: 64 bits
    of OS entropy; a numpy SeedSequence: two words of its state. Non-integer
    seeds are TypeError, negative ones ValueError (as NumPy's)."""
    if seed is None:
        seeds = [secrets.randbits(64)]
    elif isinstance(seed, np.random.SeedSequence):
        seeds = [int(w) for w in seed.generate_state(2, np.uint64)]
    elif isinstance(seed, (int, np.integer)):
        seeds = [int(seed)]
    else:
        arr = seed.get() if isinstance(seed, ndarray) else np.asarray(seed)
        if arr.dtype.kind == "O":
            if not all(isinstance(v, (int, np.integer)) for v in arr.flat):
                raise TypeError("Seed must be an integer or a sequence of "
                                "integers")
        elif arr.dtype.kind not in "biu" and arr.size:  # [] is no words
            raise TypeError(f"Cannot use a seed of dtype {arr.dtype}: seeds "
                            f"must be integers")
        seeds = [int(v) for v in arr.ravel()]
    words = []
    for v in seeds:
        if v < 0:
            raise ValueError("Seed must be non-negative")
        while True:  # arbitrarily large ints, 64 bits at a time
            w = v & _MASK64
            words.append(w - (1 << 64) if w >> 63 else w)
            v >>= 64
            if not v:
                break
    return words


def size_of(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        if d < 0:
            raise ValueError("negative dimensions are not allowed")
        n *= d
    return n


class BitGenerator:
    """A stream of the server's random ops: its seed words and the next
    block. Thread-safe: each op takes its blocks under the lock, so threads
    sharing one bit generator never draw the same blocks."""

    def __init__(self, seed: Any = None,
                 session: _sess.Session | None = None) -> None:
        self._seed = seed_words(seed)
        self._offset = 0
        self._session = session
        self.lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__} at {id(self):#X}"

    @property
    def state(self) -> dict[str, Any]:
        """{'bit_generator': name, 'state': {'seed': words, 'offset': n}}:
        what set_state (or assigning ``state``) restores."""
        with self.lock:
            return {"bit_generator": type(self).__name__,
                    "state": {"seed": list(self._seed),
                              "offset": self._offset}}

    @state.setter
    def state(self, value: dict[str, Any]) -> None:
        if not isinstance(value, dict) or value.get(
                "bit_generator") != type(self).__name__:
            raise ValueError(f"state must be a dict of a "
                             f"{type(self).__name__} state")
        st = value["state"]
        with self.lock:
            self._seed = [int(w) for w in st["seed"]]
            self._offset = int(st["offset"])

    def session(self, session: Any = None) -> _sess.Session:
        """The session draws go to: ``session``, the bit generator's own, or
        the current one."""
        if session is not None:
            return session
        return self._session or _connect.current()

    def record(self, op: str, inputs: tuple[ndarray, ...],
               shape: tuple[int, ...], dtype: np.dtype,
               attrs: dict[str, Any], blocks: int,
               session: Any = None) -> ndarray:
        """Records random op ``op`` at the stream's seed and next block,
        then advances past the ``blocks`` it uses."""
        s = self.session(session)
        with self.lock:
            attrs["seed"] = self._seed
            attrs["offset"] = self._offset
            self._offset += blocks
        return _c.new(s, op, inputs, shape, dtype, attrs)

    def take_blocks(self, blocks: int) -> tuple[list[int], int]:
        """(seed, offset) for an op recorded by the caller that uses
        ``blocks`` blocks (in-place ops: shuffle)."""
        with self.lock:
            offset = self._offset
            self._offset += blocks
            return self._seed, offset

    def random_raw(self, size: Any = None, output: bool = True) -> Any:
        """Raw random bits of shape `size`: not offered by the base class
        (Philox4x3210 has them)."""
        raise NotImplementedError("Not implemented in base BitGenerator")


class Philox4x3210(BitGenerator):
    """The server's Philox4x32-10 stream (the one every arrayd generator
    draws from), seeded with an int, a sequence of ints, a numpy
    SeedSequence or None (OS entropy)."""

    def random_raw(self, size: Any = None, output: bool = True) -> Any:
        """32 random bits a value, as uint32 of shape ``size`` (() for
        None). The server exposes no raw Philox words: these are its
        uniform integers in [0, 2**32), one float64 draw each, which are
        exactly uniform 32-bit values."""
        if size is None:
            shape: tuple[int, ...] = ()
        elif isinstance(size, (int, np.integer)):
            shape = (int(size),)
        else:
            shape = tuple(int(d) for d in size)
        dt = np.dtype(np.uint32)
        attrs = {"shape": list(shape), "dtype": dt, "endpoint": True,
                 "low": 0, "high": (1 << 32) - 1}
        r = self.record("random_integers", (), shape, dt, attrs,
                        -(-size_of(shape) // 2))
        return r if output else None
