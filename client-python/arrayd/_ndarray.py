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

import builtins as _builtins
import operator
import warnings
from typing import Any

import numpy as np

from arrayd import _connect, _dtypes, _layout, _shapes
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

    __slots__ = ("_session", "_handle", "_shape", "_dtype", "_strides",
                 "_base", "_readonly", "__weakref__")
    __hash__ = None  # type: ignore[assignment]

    _session: _sess.Session
    _handle: int
    _shape: tuple[int, ...]
    _dtype: np.dtype
    # Byte strides as the server's view has them; None: C-contiguous as
    # allocated (the common case, so the op path computes nothing).
    _strides: tuple[int, ...] | None
    _base: "ndarray | None"  # the array that owns the memory of a view
    _readonly: bool

    @classmethod
    def _new(cls, session: _sess.Session, handle: int,
             shape: tuple[int, ...], dtype: np.dtype,
             strides: tuple[int, ...] | None = None,
             base: "ndarray | None" = None,
             readonly: bool = False) -> "ndarray":
        a = _new_object(cls)
        a._session = session
        a._handle = handle
        a._shape = shape
        a._dtype = dtype
        a._strides = strides
        a._base = base
        a._readonly = readonly
        return a

    def __del__(self) -> None:
        # Runs in any thread, maybe at interpreter exit: queue the free for
        # the next message and never raise.
        try:
            if self._handle >= 0:  # -1: handed to another array
                self._session.free(self._handle)
        except Exception:
            pass

    # -- metadata --------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        """The array's dimensions; assigning reshapes in place when no copy is
        needed."""
        return self._shape

    @shape.setter
    def shape(self, value: Any) -> None:
        """a.shape = new: reshapes in place, only without a copy (NumPy's
        AttributeError otherwise)."""
        try:
            r = self.reshape(value, copy=False)
        except ValueError as e:
            if "copy" in str(e):
                raise AttributeError(
                    "Incompatible shape for in-place modification. Use "
                    "`.reshape()` to make a copy with the desired shape.") \
                    from None
            raise
        self._session.free(self._handle)
        self._handle, self._shape, self._strides = (r._handle, r._shape,
                                                    r._strides)
        r._handle = -1

    @property
    def dtype(self) -> np.dtype:
        """The array's element type (a numpy.dtype)."""
        return self._dtype

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self._shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        n = 1
        for d in self._shape:
            n *= d
        return n

    @property
    def itemsize(self) -> int:
        """The size of one element in bytes."""
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """The bytes the elements take (size * itemsize; a view counts its
        own)."""
        return self.size * self._dtype.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        """The byte strides of the array's view, as NumPy's."""
        if self._strides is None:
            return _layout.c_strides(self._shape, self._dtype.itemsize)
        return self._strides

    @property
    def flags(self) -> "Flags":
        """The memory layout flags (c_contiguous, f_contiguous, owndata,
        writeable), as NumPy's."""
        return Flags(self)

    @property
    def base(self) -> "ndarray | None":
        """The array whose memory this view shares (None if it owns its
        memory)."""
        return self._base

    def _is_c(self) -> bool:
        return self._strides is None or _layout.is_c_contiguous(
            self._shape, self._strides, self._dtype.itemsize)

    def _is_f(self) -> bool:
        if self._strides is None:
            return _layout.is_f_contiguous(
                self._shape, _layout.c_strides(self._shape, 1), 1)
        return _layout.is_f_contiguous(self._shape, self._strides,
                                       self._dtype.itemsize)

    def _set_writeable(self, write: bool) -> None:
        """flags.writeable = write: the server's view changes too."""
        write = bool(write)
        if write == (not self._readonly):
            return
        if write and ((self._base is not None and self._base._readonly)
                      or any(st == 0 and n > 1 for st, n in zip(
                          self._full_strides(), self._shape))):
            raise ValueError("cannot set WRITEABLE flag to True of this array")
        s = self._session
        h = s.new_handle()
        s.record("setflags", (self._handle,), (h,), {"write": write})
        old, self._handle = self._handle, h
        s.free(old)
        self._readonly = not write

    @property
    def T(self) -> "ndarray":
        """The array with its axes reversed (transpose()), a view."""
        return self.transpose()

    @property
    def session(self) -> _sess.Session:
        """The session (server connection) that holds the array."""
        return self._session

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    # -- data (sync points) -----------------------------------------------

    def get(self, stream: Any = None, order: str = "C", out: Any = None,
            blocking: bool = True) -> np.ndarray:
        """Copies the array to a new numpy array (waits for its ops), in
        ``order`` ('C', 'F' or 'A': F when this array is F-ordered), or
        into ``out`` (a numpy array of the same shape and dtype; one in
        pinned memory, arrayd.cuda.alloc_pinned_memory, is written by the
        server without a copy on the client). ``stream`` and ``blocking``
        are CuPy's: the copy always waits for every stream's work."""
        if (out is not None and isinstance(out, np.ndarray)
                and out.dtype == self._dtype and out.shape == self._shape
                and self._session.download_to_host(self._handle, out)):
            return out
        a = self._session.fetch([self._handle])[0]
        if a.dtype != self._dtype or a.shape != self._shape:
            raise RuntimeError(
                f"arrayd client and server disagree on array {self._handle}: "
                f"client expects {self._shape} {self._dtype}, server has "
                f"{a.shape} {a.dtype} (a bug in one of them)")
        if out is None and order == "C":
            return a  # the common case: nothing more to check
        if out is not None:
            if not isinstance(out, np.ndarray):
                raise TypeError("Only numpy.ndarray can be obtained from "
                                "arrayd.ndarray")
            if out.dtype != a.dtype or out.shape != a.shape:
                raise ValueError(f"Shape mismatch or dtype mismatch: out is "
                                 f"{out.shape} {out.dtype}, the array is "
                                 f"{a.shape} {a.dtype}")
            if not (out.flags.c_contiguous or out.flags.f_contiguous):
                raise RuntimeError("Cannot set to non-contiguous array")
            out[...] = a
            return out
        order = _order(order, "CFA")
        if order == "A":
            order = "F" if self._is_f() and not self._is_c() else "C"
        return np.asfortranarray(a) if order == "F" and a.ndim > 1 else a

    def set(self, arr: Any, stream: Any = None) -> None:
        """Copies a numpy array of this array's shape and dtype into it, as
        CuPy's (ordered on the current stream; ``stream`` is accepted). From
        pinned memory (arrayd.cuda.alloc_pinned_memory) the server reads
        the buffer when the copy runs: change it only after a sync."""
        if not isinstance(arr, np.ndarray):
            raise TypeError("Only numpy.ndarray can be set to arrayd.ndarray")
        if self._dtype != arr.dtype:
            raise TypeError(f"{arr.dtype} array cannot be set to "
                            f"{self._dtype} array")
        if self._shape != arr.shape:
            raise ValueError(f"Shape mismatch. Old shape: {self._shape}, new "
                             f"shape: {arr.shape}")
        if not (self._is_c() or self._is_f()):
            raise RuntimeError("Cannot set to non-contiguous array")
        if self._readonly:
            raise ValueError("assignment destination is read-only")
        self._session.upload_into(self._handle, arr)

    def tobytes(self, order: str = "C") -> bytes:
        """The elements as bytes in `order` (downloads the array)."""
        return self.get().tobytes(order)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if copy is False:
            raise ValueError(
                "an arrayd.ndarray lives on the server: converting it to "
                "numpy always copies (copy=False is impossible)")
        a = self.get()
        return a if dtype is None else a.astype(dtype, copy=False)

    def item(self, *args: Any) -> Any:
        """One element as a Python scalar (numpy.ndarray.item; downloads)."""
        return self.get().item(*args)

    def tolist(self) -> Any:
        """The array as nested Python lists of Python scalars (downloads)."""
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
                    dtype: np.dtype | None = None,
                    strides: tuple[int, ...] | None = None,
                    readonly: bool = False) -> "ndarray":
        """A view of this array made by the server's op ``name``, with the
        strides the server gives it."""
        s = self._session
        h = s.new_handle()
        s.record(name, (self._handle,), (h,), attrs)
        base = self if self._base is None else self._base
        return ndarray._new(s, h, shape,
                            self._dtype if dtype is None else dtype,
                            strides, base, readonly or self._readonly)

    def _derived(self, name: str, attrs: dict[str, Any] | None,
                 dtype: np.dtype, strides: tuple[int, ...] | None,
                 shape: tuple[int, ...] | None = None) -> "ndarray":
        """A new array (a copy) made by the server's op ``name``."""
        s = self._session
        h = s.new_handle()
        s.record(name, (self._handle,), (h,), attrs)
        return ndarray._new(s, h, self._shape if shape is None else shape,
                            dtype, strides)

    def _full_strides(self) -> tuple[int, ...]:
        """The strides the server's view has (C strides as the server
        computes them, for an array that is C-contiguous as allocated)."""
        if self._strides is not None:
            return self._strides
        return _layout.server_c_strides(self._shape, self._dtype.itemsize)

    def reshape(self, *shape: Any, order: str = "C",
                copy: bool | None = None) -> "ndarray":
        """The array with a new shape: a view when the strides allow, else a
        copy (copy=False raises instead)."""
        if len(shape) == 1:
            shape = shape[0]
        if order == "C" and not copy:
            # The common call: a shape of the same size, in C order, needs
            # no NumPy to check it.
            if type(shape) is int:
                shape = (shape,)
            if type(shape) is tuple and _layout.plain_shape_of(
                    shape, self._shape):
                return self._reshape_c(shape, copy is False)
        order = _order(order, "CFA")
        new = shape_dummy(self._shape).reshape(shape).shape
        if order == "A":
            order = "F" if self._is_f() and not self._is_c() else "C"
        if copy:
            return self.copy(order).reshape(new, order=order)
        if order == "F":
            return self.transpose()._reshape_c(
                new[::-1], copy is False).transpose()
        return self._reshape_c(new, copy is False)

    def _reshape_c(self, new: tuple[int, ...], no_copy: bool) -> "ndarray":
        """A C-order reshape: a view when the strides allow (NumPy's rule,
        the server's too), else a C-ordered copy."""
        attrs = {"shape": list(new)}
        if self._is_c():
            return self._unary_view("reshape", new, attrs)
        strides = _layout.reshape_strides(
            self._shape, self._full_strides(), self._dtype.itemsize, new)
        if strides is not None:
            return self._unary_view("reshape", new, attrs, strides=strides)
        if no_copy:
            raise ValueError("Unable to avoid creating a copy while "
                             "reshaping.")
        return self._derived("reshape", attrs, self._dtype, None, new)

    def transpose(self, *axes: Any) -> "ndarray":
        """The array with its axes reversed or permuted by `axes`, a view."""
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
        strides = _layout.transpose_strides(self._full_strides(), perm)
        return self._unary_view("transpose", shape, {"axes": list(perm)},
                                strides=strides)

    def swapaxes(self, axis1: int, axis2: int) -> "ndarray":
        """The array with axis1 and axis2 interchanged, a view."""
        nd = len(self._shape)
        a = np.lib.array_utils.normalize_axis_index(axis1, nd)
        b = np.lib.array_utils.normalize_axis_index(axis2, nd)
        perm = list(range(nd))
        perm[a], perm[b] = perm[b], perm[a]
        return self.transpose(perm)

    def ravel(self, order: str = "C") -> "ndarray":
        """NumPy's ravel: a view when the array is contiguous in ``order``,
        else a copy (not merely a view whenever the strides allow, as
        reshape)."""
        order = _order(order, "CFAK")
        if order == "A":
            order = "F" if self._is_f() and not self._is_c() else "C"
        if order == "C" and not self._is_c():
            return self.flatten("C")
        if order == "F" and not self._is_f():
            return self.flatten("F")
        if order == "K":
            # NumPy: the elements in memory order (a view when contiguous).
            if self._is_c():
                order = "C"
            elif self._is_f():
                order = "F"
            else:
                return self._ravel_k()
        return self.reshape(-1, order=order)

    def _ravel_k(self) -> "ndarray":
        strides = self._full_strides()
        perm = sorted(range(self.ndim), key=lambda i: -abs(strides[i]))
        t = self.transpose(perm)
        return t.reshape(-1) if t._is_c() else t.flatten()

    def flatten(self, order: str = "C") -> "ndarray":
        """A 1-d copy of the array in `order`."""
        order = _order(order, "CFAK")
        if order == "K":
            return self.copy("K")._ravel_k()
        return self.copy(order).reshape(-1, order=order)

    def squeeze(self, axis: Any = None) -> "ndarray":
        """The array without its length-1 axes, or only those in `axis`."""
        new = shape_dummy(self._shape).squeeze(axis).shape
        return self.reshape(new)

    def copy(self, order: str = "C") -> "ndarray":
        """A copy of the array on the server, laid out in `order` (K keeps the
        layout)."""
        order = _order(order, "CFAK")
        strides = _layout.like_strides(self._shape, self._strides,
                                       self._dtype.itemsize, order)
        return self._derived("copy", None if order == "C" else
                             {"order": order}, self._dtype, strides)

    def astype(self, dtype: Any, order: str = "K", casting: str = "unsafe",
               subok: bool = True, copy: bool = True) -> "ndarray":
        """The array cast to `dtype` under the `casting` rule (copy=False
        returns itself when nothing changes)."""
        dt = _dtypes.normalize(dtype)
        if order != "K":
            order = _order(order, "CFAK")
        if casting != "unsafe" and not np.can_cast(self._dtype, dt, casting):
            raise TypeError(f"Cannot cast array data from {self._dtype!r} "
                            f"to {dt!r} according to the rule {casting!r}")
        if self._dtype.kind == "c" and dt.kind not in "cb":
            warn_complex_to_real()
        if not copy and dt == self._dtype and (
                order in "AK" or (order == "C" and self._is_c())
                or (order == "F" and self._is_f())):
            return self
        if order == "K":
            attrs: dict[str, Any] = {"dtype": dt}
            if self._strides is None:
                return self._derived("astype", attrs, dt, None)
        else:
            attrs = {"dtype": dt, "order": order}
        strides = _layout.like_strides(self._shape, self._strides,
                                       self._dtype.itemsize, order,
                                       dt.itemsize)
        return self._derived("astype", attrs, dt, strides)

    def view(self, dtype: Any = None, type: Any = None) -> "ndarray":
        """The same memory seen as another dtype (ndarray.view); a view of
        the same class for view(ndarray)."""
        if type is None and isinstance(dtype, _builtins.type) and issubclass(
                dtype, ndarray):
            dtype, type = None, dtype
        if type is not None and not (isinstance(type, _builtins.type)
                                     and issubclass(type, ndarray)):
            raise ValueError("Type must be a sub-type of arrayd.ndarray "
                             "type (an arrayd array cannot become a NumPy "
                             "one without a copy)")
        dt = self._dtype if dtype is None else _dtypes.normalize(dtype)
        shape, strides = self._shape, self._full_strides()
        if dt.itemsize != self._dtype.itemsize:
            shape, strides = _view_layout(self, dt)
        same = self._strides is None and dt.itemsize == self._dtype.itemsize
        v = self._unary_view("view", shape, {"dtype": dt}, dt,
                             None if same else strides)
        if type is not None and type is not ndarray:
            w = _new_object(type)
            for slot in ndarray.__slots__[:-1]:
                setattr(w, slot, getattr(v, slot))
            v._handle = -1  # w holds the handle now
            finalize = getattr(w, "__array_finalize__", None)
            if finalize is not None:
                finalize(self)
            return w
        return v

    def view_as_broadcast(self, shape: tuple[int, ...]) -> "ndarray":
        """A read-only view broadcast to `shape` (numpy.broadcast_to's rules
        and errors)."""
        new = _shapes.broadcast(self._shape, shape)
        if new != tuple(shape):
            np.broadcast_to(shape_dummy(self._shape), shape)  # NumPy's error
        lead = len(new) - len(self._shape)
        old = self._full_strides()
        strides = tuple(0 if i < lead or self._shape[i - lead] != n else
                        old[i - lead] for i, n in enumerate(new))
        return self._unary_view("broadcast_to", new, {"shape": list(new)},
                                strides=strides, readonly=True)

    def __copy__(self) -> "ndarray":
        return self.copy()

    def __deepcopy__(self, memo: Any) -> "ndarray":
        return self.copy()


def warn_complex_to_real() -> None:
    """NumPy's ComplexWarning for a cast that drops imaginary parts."""
    warnings.warn("Casting complex values to real discards the imaginary "
                  "part", np.exceptions.ComplexWarning, stacklevel=3)


def _order(order: Any, allowed: str) -> str:
    """NumPy's order= argument normalized to one of ``allowed`` (C, F, A,
    K); None means K where K is allowed, else C. NumPy's errors."""
    if order is None:
        return "K" if "K" in allowed else "C"
    if not isinstance(order, str) or len(order) != 1 or \
            order.upper() not in "CFAK":
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' "
                         f"(got {order!r})")
    o = order.upper()
    if o not in allowed:
        raise ValueError(f"order {order!r} is not permitted here (only "
                         f"{', '.join(repr(c) for c in allowed)})")
    return o


def _view_layout(a: ndarray,
                 dt: np.dtype) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Shape and strides of a.view(dt) for another item size (NumPy's
    rule: the last axis must be contiguous and is rescaled)."""
    old, new = a._dtype.itemsize, dt.itemsize
    if a.ndim == 0:
        raise ValueError("Changing the dtype of a 0d array is only "
                         "supported if the itemsize is unchanged")
    strides = list(a._full_strides())
    shape = list(a._shape)
    if shape[-1] != 1 and a.size != 0 and strides[-1] != old:
        raise ValueError("To change to a dtype of a different size, the "
                         "last axis must be contiguous")
    nbytes = shape[-1] * old
    if nbytes % new:
        raise ValueError("When changing to a larger dtype, its size must be "
                         "a divisor of the total size in bytes of the last "
                         "axis of the array.")
    shape[-1] = nbytes // new
    strides[-1] = new
    return tuple(shape), tuple(strides)


class Flags:
    """ndarray.flags: NumPy's memory-layout flags of an arrayd array
    (computed from its strides; only ``writeable`` can be set)."""

    __slots__ = ("_a",)

    def __init__(self, a: ndarray) -> None:
        self._a = a

    @property
    def c_contiguous(self) -> bool:
        return self._a._is_c()

    @property
    def f_contiguous(self) -> bool:
        return self._a._is_f()

    @property
    def contiguous(self) -> bool:
        return self.c_contiguous

    @property
    def fortran(self) -> bool:
        return self.f_contiguous

    @property
    def owndata(self) -> bool:
        return self._a._base is None

    @property
    def writeable(self) -> bool:
        return not self._a._readonly

    @writeable.setter
    def writeable(self, value: bool) -> None:
        self._a._set_writeable(value)

    @property
    def aligned(self) -> bool:
        return True

    @property
    def writebackifcopy(self) -> bool:
        return False

    @property
    def fnc(self) -> bool:
        return self.f_contiguous and not self.c_contiguous

    @property
    def forc(self) -> bool:
        return self.f_contiguous or self.c_contiguous

    @property
    def behaved(self) -> bool:
        return self.writeable

    @property
    def carray(self) -> bool:
        return self.behaved and self.c_contiguous

    @property
    def farray(self) -> bool:
        return self.behaved and self.f_contiguous and not self.c_contiguous

    _KEYS = {
        "C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous",
        "CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous",
        "F": "f_contiguous", "FORTRAN": "f_contiguous", "OWNDATA": "owndata",
        "O": "owndata", "WRITEABLE": "writeable", "W": "writeable",
        "ALIGNED": "aligned", "A": "aligned",
        "WRITEBACKIFCOPY": "writebackifcopy", "X": "writebackifcopy",
        "FNC": "fnc", "FORC": "forc", "BEHAVED": "behaved", "B": "behaved",
        "CARRAY": "carray", "CA": "carray", "FARRAY": "farray",
        "FA": "farray",
    }

    def __getitem__(self, key: str) -> bool:
        name = self._KEYS.get(key.upper() if isinstance(key, str) else key)
        if name is None:
            raise KeyError(f"Unknown flag {key!r}")
        return getattr(self, name)

    def __setitem__(self, key: str, value: bool) -> None:
        if self._KEYS.get(key.upper()) != "writeable":
            raise KeyError(f"Unknown flag {key!r}")
        self.writeable = value

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Flags):
            return all(getattr(self, n) == getattr(other, n)
                       for n in ("c_contiguous", "f_contiguous", "owndata",
                                 "writeable"))
        return NotImplemented

    def __repr__(self) -> str:
        return "".join(f"  {k} : {getattr(self, v)}\n" for k, v in (
            ("C_CONTIGUOUS", "c_contiguous"), ("F_CONTIGUOUS", "f_contiguous"),
            ("OWNDATA", "owndata"), ("WRITEABLE", "writeable"),
            ("ALIGNED", "aligned"), ("WRITEBACKIFCOPY", "writebackifcopy")))


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
    return upload(s, np.asarray(x, dtype=dtype))


def elementwise_strides(inputs: Any, shape: tuple[int, ...],
                        dtype: np.dtype) -> tuple[int, ...] | None:
    """The strides the server gives the elementwise result of ``inputs``
    (ufuncs, where): NumPy's order='K' layout; None for C."""
    return _layout.keep_order_strides(
        [(v._shape, v._strides) for v in inputs], shape, dtype.itemsize)


def upload(s: _sess.Session, arr: np.ndarray) -> ndarray:
    """A numpy array as a new arrayd array, Fortran-ordered when ``arr`` is
    (F- and not C-contiguous), else C-ordered."""
    if arr.dtype.byteorder not in "=|":
        arr = arr.astype(arr.dtype.newbyteorder("="))  # as CuPy: native
    dt = _dtypes.normalize(arr.dtype)
    if arr.ndim > 1 and arr.flags.f_contiguous and not arr.flags.c_contiguous:
        return fortran(ndarray._new(s, s.upload(arr.T), arr.shape[::-1], dt))
    return ndarray._new(s, s.upload(arr), arr.shape, dt)


def fortran(rev: ndarray) -> ndarray:
    """An F-ordered array that owns its memory, from a new C-ordered one of
    the reversed shape (``rev`` itself is no longer used)."""
    return permuted(rev, tuple(range(rev.ndim - 1, -1, -1)))


def permuted(made: ndarray, axes: tuple[int, ...] | list[int]) -> ndarray:
    """``made`` (new, C-ordered, no longer used itself) with its axes
    permuted, as an array that owns its memory: how arrays in F or K order
    are made."""
    s = made._session
    h = s.new_handle()
    s.record("transpose", (made._handle,), (h,), {"axes": list(axes)})
    return ndarray._new(s, h, tuple(made._shape[i] for i in axes),
                        made._dtype, _layout.transpose_strides(
                            made._full_strides(), axes))


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
