"""arrayd.ndarray: a handle to an array that lives on the server.

Layer: core, the bottom of the array modules (above the session modules:
_session, _connect, _dtypes). Everything that makes arrays imports this
module, and it imports none of them.

Shape and dtype are computed on the client with NumPy's own rules, so they
(and recording the next op) never wait for the server. Data crosses the wire
only at .get(), repr(), float(), ... (sync points).

Here: the class with its metadata, sync points and views (reshape,
transpose, astype, ...); the helpers every op uses (session_of, asarray_in,
scalar). Methods and operators that are functions of a module above
(``x + y``, ``x.sum()``, ``x[idx]``, ``x.var()``, ...) are attached to the
class by that module, with ``attach``: _math (operators), _reduction,
_indexing (getitem, setitem), _manipulation, _mathfuncs, _statistics,
_sorting, _linalg, _creation (``ndarray(shape)``), _protocols.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from arrayd import _connect, _dtypes
from arrayd import _session as _sess

_VOID0 = np.dtype((np.void, 0))
_new_object = object.__new__
_SCALAR_CACHE_SIZE = 512


def shape_dummy(shape: tuple[int, ...]) -> np.ndarray:
    """A numpy array of ``shape`` that holds no data (itemsize 0).

    NumPy's own reshape/transpose/indexing on it give exact result shapes
    and NumPy's exceptions without allocating anything.
    """
    return np.empty(shape, dtype=_VOID0)


class ndarray:
    """An N-dimensional array on an arrayd server (like cupy.ndarray)."""

    __slots__ = ("_session", "_handle", "_shape", "_dtype", "__weakref__")
    __hash__ = None  # type: ignore[assignment]

    _session: _sess.Session
    _handle: int
    _shape: tuple[int, ...]
    _dtype: np.dtype

    @classmethod
    def _new(cls, session: _sess.Session, handle: int,
             shape: tuple[int, ...], dtype: np.dtype) -> "ndarray":
        a = _new_object(cls)
        a._session = session
        a._handle = handle
        a._shape = shape
        a._dtype = dtype
        return a

    def __del__(self) -> None:
        # Runs in any thread, maybe at interpreter exit: queue the free for
        # the next message and never raise.
        try:
            self._session.free(self._handle)
        except Exception:
            pass

    # -- metadata --------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self._shape:
            n *= d
        return n

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self._dtype.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        """C-order strides of the shape (the server's layout may differ)."""
        strides = []
        step = self._dtype.itemsize
        for d in reversed(self._shape):
            strides.append(step)
            step *= max(d, 1)
        return tuple(reversed(strides))

    @property
    def T(self) -> "ndarray":
        return self.transpose()

    @property
    def session(self) -> _sess.Session:
        return self._session

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    # -- data (sync points) -----------------------------------------------

    def get(self) -> np.ndarray:
        """Copies the array to a new numpy array (waits for its ops)."""
        a = self._session.fetch([self._handle])[0]
        if a.dtype != self._dtype or a.shape != self._shape:
            raise RuntimeError(
                f"arrayd client and server disagree on array {self._handle}: "
                f"client expects {self._shape} {self._dtype}, server has "
                f"{a.shape} {a.dtype} (a bug in one of them)")
        return a

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if copy is False:
            raise ValueError(
                "an arrayd.ndarray lives on the server: converting it to "
                "numpy always copies (copy=False is impossible)")
        a = self.get()
        return a if dtype is None else a.astype(dtype, copy=False)

    def item(self, *args: Any) -> Any:
        return self.get().item(*args)

    def tolist(self) -> Any:
        return self.get().tolist()

    def __float__(self) -> float:
        return float(self.get())

    def __int__(self) -> int:
        return int(self.get())

    def __complex__(self) -> complex:
        return complex(self.get())

    def __bool__(self) -> bool:
        return bool(self.get())

    def __index__(self) -> int:
        return operator.index(self.get())

    def __repr__(self) -> str:
        return repr(self.get())

    def __str__(self) -> str:
        return str(self.get())

    def __format__(self, spec: str) -> str:
        return format(self.get(), spec)

    # -- views and copies --------------------------------------------------

    def _unary_view(self, name: str, shape: tuple[int, ...],
                    attrs: dict[str, Any] | None = None,
                    dtype: np.dtype | None = None) -> "ndarray":
        s = self._session
        h = s.new_handle()
        s.record(name, (self._handle,), (h,), attrs)
        return ndarray._new(s, h, shape,
                            self._dtype if dtype is None else dtype)

    def reshape(self, *shape: Any, order: str = "C") -> "ndarray":
        if order not in ("C", "c"):
            raise NotImplementedError("arrayd supports order='C' only")
        if len(shape) == 1:
            shape = shape[0]
        new = shape_dummy(self._shape).reshape(shape).shape
        return self._unary_view("reshape", new, {"shape": list(new)})

    def transpose(self, *axes: Any) -> "ndarray":
        if len(axes) == 1 and (axes[0] is None or not isinstance(
                axes[0], (int, np.integer))):
            axes = axes[0]
        nd = len(self._shape)
        if axes is None or axes == ():
            perm = tuple(range(nd - 1, -1, -1))
        else:
            perm = tuple(np.lib.array_utils.normalize_axis_tuple(
                axes, nd, allow_duplicate=False))
            if len(perm) != nd:
                raise ValueError("axes don't match array")
        shape = tuple(self._shape[i] for i in perm)
        return self._unary_view("transpose", shape, {"axes": list(perm)})

    def swapaxes(self, axis1: int, axis2: int) -> "ndarray":
        nd = len(self._shape)
        a = np.lib.array_utils.normalize_axis_index(axis1, nd)
        b = np.lib.array_utils.normalize_axis_index(axis2, nd)
        perm = list(range(nd))
        perm[a], perm[b] = perm[b], perm[a]
        return self.transpose(perm)

    def ravel(self, order: str = "C") -> "ndarray":
        return self.reshape(-1, order=order)

    def flatten(self, order: str = "C") -> "ndarray":
        return self.copy(order).reshape(-1)

    def squeeze(self, axis: Any = None) -> "ndarray":
        new = shape_dummy(self._shape).squeeze(axis).shape
        return self._unary_view("reshape", new, {"shape": list(new)})

    def copy(self, order: str = "C") -> "ndarray":
        if order not in ("C", "c", "K", "k", "A", "a"):
            raise NotImplementedError("arrayd copies in C order only")
        return self._unary_view("copy", self._shape)

    def astype(self, dtype: Any, order: str = "K", casting: str = "unsafe",
               subok: bool = True, copy: bool = True) -> "ndarray":
        dt = _dtypes.normalize(dtype)
        if casting != "unsafe" and not np.can_cast(self._dtype, dt, casting):
            raise TypeError(f"Cannot cast array data from {self._dtype!r} "
                            f"to {dt!r} according to the rule {casting!r}")
        if not copy and dt == self._dtype:
            return self
        return self._unary_view("astype", self._shape, {"dtype": dt}, dt)

    def view_as_broadcast(self, shape: tuple[int, ...]) -> "ndarray":
        new = np.broadcast_shapes(self._shape, shape)
        if new != tuple(shape):
            np.broadcast_to(shape_dummy(self._shape), shape)  # NumPy's error
        return self._unary_view("broadcast_to", new, {"shape": list(new)})

    def __copy__(self) -> "ndarray":
        return self.copy()

    def __deepcopy__(self, memo: Any) -> "ndarray":
        return self.copy()


# Python scalars, numpy scalars and array-likes usable as operands, and
# arrayd arrays: operators return NotImplemented for anything else.
OPERAND_TYPES = (ndarray, int, float, complex, np.generic, np.ndarray, list,
                 tuple)


def attach(**methods: Any) -> None:
    """Adds methods, properties and operators to ndarray (each name once:
    two modules attaching the same one is a bug)."""
    for name, method in methods.items():
        if name in ndarray.__dict__:
            raise RuntimeError(f"ndarray.{name} is attached twice")
        setattr(ndarray, name, method)


def session_of(*args: Any) -> _sess.Session:
    """The session of the arrayd arrays among args (the default if none)."""
    s = None
    for a in args:
        if isinstance(a, ndarray):
            if s is None:
                s = a._session
            elif a._session is not s:
                raise ValueError(
                    "arrays belong to different arrayd sessions")
    return s if s is not None else _connect.current()


def asarray_in(s: _sess.Session, x: Any, dtype: Any = None) -> ndarray:
    """x as an arrayd array of session s (array-likes are uploaded)."""
    if isinstance(x, ndarray):
        return x if dtype is None else x.astype(dtype, copy=False)
    arr = np.asarray(x, dtype=dtype)
    dt = _dtypes.normalize(arr.dtype)
    return ndarray._new(s, s.upload(arr), arr.shape, dt)


def encode_scalar(value: Any, dtype: np.dtype) -> int | float | complex | str:
    """A Python scalar already valid for ``dtype`` as an attribute value."""
    kind = dtype.kind
    if kind in "biu":
        v = int(value)
        # uint64 values above INT64_MAX travel as decimal strings (AttrValue.s).
        return str(v) if v >= (1 << 63) else v
    if kind == "f":
        return float(value)
    return complex(value)


def _scalar_key(value: Any, dtype: np.dtype) -> tuple[Any, ...]:
    t = type(value)
    if t is float:
        return (dtype, t, value.hex())  # keeps -0.0 and nan apart
    if t is complex:
        return (dtype, t, value.real.hex(), value.imag.hex())
    return (dtype, t, value)


def scalar(session: _sess.Session, value: Any, dtype: np.dtype) -> ndarray:
    """A 0-d array holding ``value`` (already checked for ``dtype``).

    Only used as an op input, never handed to the user, so the session
    caches them: ``x + 1`` in a loop creates the constant once.
    """
    cache = session.scalars
    key = _scalar_key(value, dtype)
    a = cache.get(key)
    if a is not None:
        return a
    h = session.new_handle()
    session.record("full", (), (h,), {"shape": [], "dtype": dtype,
                                      "value": encode_scalar(value, dtype)})
    a = ndarray._new(session, h, (), dtype)
    if len(cache) >= _SCALAR_CACHE_SIZE:
        cache.clear()
    cache[key] = a
    return a
