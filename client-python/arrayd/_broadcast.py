"""numpy.broadcast: an object for the broadcast of several arrays.

``broadcast(*arrays)`` holds its inputs (arrayd arrays; anything else is
uploaded, as every arrayd function does) and their broadcast shape, which
comes from NumPy's rules on the client (``broadcast_shapes``): shape, size,
nd/ndim and numiter never wait for the server, and a shape mismatch raises
NumPy's ValueError at the call. Iterating (over the broadcast object or one
of its ``iters``) is a sync point, like iterating an array: the first step
fetches every input once, in one round trip (the inputs, not their
broadcast, which may be much larger), and the elements come back as NumPy
scalars, in tuples, as NumPy's. The iterators share their positions with
the object as NumPy's do: advancing one of them by hand shifts what the
object's next step reads for it.

Layer: functions (imports the core and _manipulation).
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from arrayd import _manipulation
from arrayd._ndarray import asarray_in, ndarray, session_of

__all__ = ["broadcast"]

# NumPy's NPY_MAXARGS.
_MAX_ARRAYS = 64


class broadcast:
    """numpy.broadcast: the broadcast shape of arrays, and iteration over
    their broadcast elements (tuples of one NumPy scalar per array)."""

    __slots__ = ("_arrays", "_shape", "_size", "_index", "_pos", "_iters",
                 "_host")

    def __init__(self, *args: Any) -> None:
        items: list[Any] = []
        for a in args:  # a broadcast object stands for its arrays
            if isinstance(a, broadcast):
                items.extend(a._arrays)
            elif isinstance(a, np.broadcast):
                items.extend(it.base for it in a.iters)
            else:
                items.append(a)
        if len(items) > _MAX_ARRAYS:
            raise ValueError(f"Need at least 0 and at most {_MAX_ARRAYS} "
                             f"array objects.")
        if items:
            s = session_of(*items)
            self._arrays = tuple(asarray_in(s, a) for a in items)
        else:
            self._arrays = ()
        self._shape = tuple(_manipulation.broadcast_shapes(
            *(a.shape for a in self._arrays)))
        self._size = math.prod(self._shape)
        self._index = 0
        self._pos = [0] * len(self._arrays)
        self._iters: tuple[_BroadcastIter, ...] | None = None
        # The inputs' values as NumPy views of the broadcast shape (fetched
        # at the first step of an iteration).
        self._host: list[np.ndarray] | None = None

    @property
    def shape(self) -> tuple[int, ...]:
        """The broadcast shape."""
        return self._shape

    @property
    def size(self) -> int:
        """The number of elements of the broadcast shape."""
        return self._size

    @property
    def nd(self) -> int:
        """The number of dimensions of the broadcast shape (NumPy's old name of
        ndim)."""
        return len(self._shape)

    @property
    def ndim(self) -> int:
        """The number of dimensions of the broadcast shape."""
        return len(self._shape)

    @property
    def numiter(self) -> int:
        """The number of arrays broadcast together."""
        return len(self._arrays)

    @property
    def index(self) -> int:
        """How many elements the object's iteration has given."""
        return self._index

    @property
    def iters(self) -> tuple["_BroadcastIter", ...]:
        """One iterator per input over its broadcast elements (the same
        objects at every access)."""
        if self._iters is None:
            self._iters = tuple(_BroadcastIter(self, k)
                                for k in range(len(self._arrays)))
        return self._iters

    def reset(self) -> None:
        """Back to the first element, for the object and its iters."""
        self._index = 0
        self._pos = [0] * len(self._arrays)

    def __iter__(self) -> "broadcast":
        return self

    def __next__(self) -> tuple[Any, ...]:
        if self._index >= self._size:
            raise StopIteration
        host = self._values()
        out = []
        for k, h in enumerate(host):
            p = self._pos[k]
            # An iterator advanced by hand past the end reads on from the
            # start (NumPy reads past its data there).
            out.append(h.flat[p % self._size])
            self._pos[k] = p + 1
        self._index += 1
        return tuple(out)

    def _values(self) -> list[np.ndarray]:
        if self._host is None:
            arrs = self._arrays
            got = (session_of(*arrs).fetch([a._handle for a in arrs])
                   if arrs else [])
            self._host = [np.broadcast_to(g, self._shape) for g in got]
        return self._host


class _BroadcastIter:
    """One input of a broadcast, as an iterator over the broadcast shape
    (as the flatiter objects of numpy.broadcast.iters): base (the input),
    index, coords, len(), next(), indexing by flat position, copy()."""

    __slots__ = ("_owner", "_k")

    def __init__(self, owner: broadcast, k: int) -> None:
        self._owner = owner
        self._k = k

    @property
    def base(self) -> ndarray:
        return self._owner._arrays[self._k]

    @property
    def index(self) -> int:
        return self._owner._pos[self._k]

    @property
    def coords(self) -> tuple[int, ...]:
        """The broadcast coordinates of the next element (past the end:
        the first one carried over, as NumPy's)."""
        pos = self.index
        shape = self._owner._shape
        out = []
        for d in reversed(shape[1:]):
            pos, c = divmod(pos, d) if d else (pos, 0)
            out.append(c)
        return (pos,) + tuple(reversed(out)) if shape else ()

    def __len__(self) -> int:
        return self._owner._size

    def __iter__(self) -> "_BroadcastIter":
        return self

    def __next__(self) -> Any:
        owner = self._owner
        p = owner._pos[self._k]
        if p >= owner._size:
            raise StopIteration
        v = owner._values()[self._k].flat[p]
        owner._pos[self._k] = p + 1
        return v

    def __getitem__(self, key: Any) -> Any:
        """The broadcast elements at flat positions: for an integer, a 0-d
        view of the input (no copy of the broadcast); else a copy."""
        owner = self._owner
        base = self.base
        if isinstance(key, tuple) and len(key) == 1:
            key = key[0]
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            n = owner._size
            k = operator.index(key)
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis 0 "
                                 f"with size {n}")
            coords = np.unravel_index(k % n, owner._shape)
            lead = len(owner._shape) - base.ndim
            return base[tuple(int(c) if d != 1 else 0 for c, d in
                              zip(coords[lead:], base.shape))]
        view = base if base.shape == owner._shape else \
            _manipulation.broadcast_to(base, owner._shape)
        return view.flat[key]

    def copy(self) -> ndarray:
        """The input, flattened (a copy), as NumPy's."""
        return self.base.flatten()
