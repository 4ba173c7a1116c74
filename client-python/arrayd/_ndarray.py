"""arrayd.ndarray: a handle to an array that lives on the server.

Shape and dtype are computed on the client with NumPy's own rules, so they
(and recording the next op) never wait for the server. Data crosses the wire
only at .get(), repr(), float(), ... (sync points).

Views (slicing, reshape, transpose) live here; elementwise ops are in
_math.py, reductions in _reduction.py, creation functions in _creation.py.
"""
from __future__ import annotations

import operator
from typing import Any, Iterator

import numpy as np

from arrayd import _dtypes
from arrayd import _session as _sess

_VOID0 = np.dtype((np.void, 0))
_INT64_MIN = -(1 << 63)
_new_object = object.__new__
_SCALAR_CACHE_SIZE = 512

# Python scalars, numpy scalars and array-likes usable as operands.
_OPERAND_TYPES = (int, float, complex, np.generic, np.ndarray, list, tuple)


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

    def __new__(cls, shape: Any = (), dtype: Any = float) -> "ndarray":
        from arrayd._creation import empty
        return empty(shape, dtype)

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

    def __iter__(self) -> Iterator["ndarray"]:
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._shape[0]))

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

    def fill(self, value: Any) -> None:
        self[...] = value

    def __getitem__(self, key: Any) -> "ndarray":
        try:
            index, shape = _encode_index(self._shape, key)
        except _AdvancedKey:
            return _indexing.getitem(self, key)
        return self._unary_view("slice", shape, {"index": index})

    def __setitem__(self, key: Any, value: Any) -> None:
        try:
            index, target = _encode_index(self._shape, key)
        except _AdvancedKey:
            _indexing.setitem(self, key, value)
            return
        s = self._session
        if isinstance(value, ndarray):
            if value._session is not s:
                raise ValueError("arrays belong to different arrayd sessions")
        elif isinstance(value, (np.ndarray, list, tuple)):
            arr = np.asarray(value) if isinstance(value, np.ndarray) else (
                np.asarray(value, dtype=self._dtype))
            value = ndarray._new(s, s.upload(arr), arr.shape,
                                 _dtypes.normalize(arr.dtype))
        else:
            v = np.array(value, dtype=self._dtype)  # NumPy's cast errors
            value = scalar(s, v.item(), self._dtype)
        vshape = value._shape
        if vshape != target:
            stripped = assignable_shape(vshape, target)
            if stripped is None:
                raise ValueError(f"could not broadcast input array from "
                                 f"shape {vshape} into shape {target}")
            if stripped != vshape:
                value = value.reshape(stripped)
        s.record("setitem", (self._handle, value._handle), (),
                 {"index": index})

    # -- operators (elementwise ops live in _math) -------------------------

    def __add__(self, o: Any) -> Any:
        return _math.add(self, o) if _ok(o) else NotImplemented

    def __radd__(self, o: Any) -> Any:
        return _math.add(o, self) if _ok(o) else NotImplemented

    def __iadd__(self, o: Any) -> Any:
        return _math.add(self, o, out=self) if _ok(o) else NotImplemented

    def __sub__(self, o: Any) -> Any:
        return _math.subtract(self, o) if _ok(o) else NotImplemented

    def __rsub__(self, o: Any) -> Any:
        return _math.subtract(o, self) if _ok(o) else NotImplemented

    def __isub__(self, o: Any) -> Any:
        return _math.subtract(self, o, out=self) if _ok(o) else NotImplemented

    def __mul__(self, o: Any) -> Any:
        return _math.multiply(self, o) if _ok(o) else NotImplemented

    def __rmul__(self, o: Any) -> Any:
        return _math.multiply(o, self) if _ok(o) else NotImplemented

    def __imul__(self, o: Any) -> Any:
        return _math.multiply(self, o, out=self) if _ok(o) else NotImplemented

    def __truediv__(self, o: Any) -> Any:
        return _math.true_divide(self, o) if _ok(o) else NotImplemented

    def __rtruediv__(self, o: Any) -> Any:
        return _math.true_divide(o, self) if _ok(o) else NotImplemented

    def __itruediv__(self, o: Any) -> Any:
        return (_math.true_divide(self, o, out=self) if _ok(o)
                else NotImplemented)

    def __floordiv__(self, o: Any) -> Any:
        return _math.floor_divide(self, o) if _ok(o) else NotImplemented

    def __rfloordiv__(self, o: Any) -> Any:
        return _math.floor_divide(o, self) if _ok(o) else NotImplemented

    def __ifloordiv__(self, o: Any) -> Any:
        return (_math.floor_divide(self, o, out=self) if _ok(o)
                else NotImplemented)

    def __mod__(self, o: Any) -> Any:
        return _math.remainder(self, o) if _ok(o) else NotImplemented

    def __rmod__(self, o: Any) -> Any:
        return _math.remainder(o, self) if _ok(o) else NotImplemented

    def __imod__(self, o: Any) -> Any:
        return _math.remainder(self, o, out=self) if _ok(o) else NotImplemented

    def __pow__(self, o: Any, mod: Any = None) -> Any:
        if mod is not None:
            return NotImplemented
        return _math.power(self, o) if _ok(o) else NotImplemented

    def __rpow__(self, o: Any, mod: Any = None) -> Any:
        if mod is not None:
            return NotImplemented
        return _math.power(o, self) if _ok(o) else NotImplemented

    def __ipow__(self, o: Any) -> Any:
        return _math.power(self, o, out=self) if _ok(o) else NotImplemented

    def __and__(self, o: Any) -> Any:
        return _math.bitwise_and(self, o) if _ok(o) else NotImplemented

    def __rand__(self, o: Any) -> Any:
        return _math.bitwise_and(o, self) if _ok(o) else NotImplemented

    def __iand__(self, o: Any) -> Any:
        return (_math.bitwise_and(self, o, out=self) if _ok(o)
                else NotImplemented)

    def __or__(self, o: Any) -> Any:
        return _math.bitwise_or(self, o) if _ok(o) else NotImplemented

    def __ror__(self, o: Any) -> Any:
        return _math.bitwise_or(o, self) if _ok(o) else NotImplemented

    def __ior__(self, o: Any) -> Any:
        return (_math.bitwise_or(self, o, out=self) if _ok(o)
                else NotImplemented)

    def __xor__(self, o: Any) -> Any:
        return _math.bitwise_xor(self, o) if _ok(o) else NotImplemented

    def __rxor__(self, o: Any) -> Any:
        return _math.bitwise_xor(o, self) if _ok(o) else NotImplemented

    def __ixor__(self, o: Any) -> Any:
        return (_math.bitwise_xor(self, o, out=self) if _ok(o)
                else NotImplemented)

    def __lshift__(self, o: Any) -> Any:
        return _math.left_shift(self, o) if _ok(o) else NotImplemented

    def __rlshift__(self, o: Any) -> Any:
        return _math.left_shift(o, self) if _ok(o) else NotImplemented

    def __ilshift__(self, o: Any) -> Any:
        return (_math.left_shift(self, o, out=self) if _ok(o)
                else NotImplemented)

    def __rshift__(self, o: Any) -> Any:
        return _math.right_shift(self, o) if _ok(o) else NotImplemented

    def __rrshift__(self, o: Any) -> Any:
        return _math.right_shift(o, self) if _ok(o) else NotImplemented

    def __irshift__(self, o: Any) -> Any:
        return (_math.right_shift(self, o, out=self) if _ok(o)
                else NotImplemented)

    def __eq__(self, o: Any) -> Any:  # type: ignore[override]
        return _math.equal(self, o) if _ok(o) else NotImplemented

    def __ne__(self, o: Any) -> Any:  # type: ignore[override]
        return _math.not_equal(self, o) if _ok(o) else NotImplemented

    def __lt__(self, o: Any) -> Any:
        return _math.less(self, o) if _ok(o) else NotImplemented

    def __le__(self, o: Any) -> Any:
        return _math.less_equal(self, o) if _ok(o) else NotImplemented

    def __gt__(self, o: Any) -> Any:
        return _math.greater(self, o) if _ok(o) else NotImplemented

    def __ge__(self, o: Any) -> Any:
        return _math.greater_equal(self, o) if _ok(o) else NotImplemented

    def __neg__(self) -> "ndarray":
        return _math.negative(self)

    def __pos__(self) -> "ndarray":
        return _math.positive(self)

    def __abs__(self) -> "ndarray":
        return _math.absolute(self)

    def __invert__(self) -> "ndarray":
        return _math.invert(self)

    # -- protocols (in _protocols) -----------------------------------------

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any,
                        **kwargs: Any) -> Any:
        # np.add(x, y) and numpy_array + arrayd_array run on the server.
        return _protocols.array_ufunc(ufunc, method, *inputs, **kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any,
                           kwargs: Any) -> Any:
        return _protocols.array_function(func, types, args, kwargs)

    def __array_namespace__(self, *, api_version: str | None = None) -> Any:
        return _protocols.array_namespace(api_version)

    def __reduce__(self) -> Any:
        return _protocols.reduce(self)

    def __copy__(self) -> "ndarray":
        return self.copy()

    def __deepcopy__(self, memo: Any) -> "ndarray":
        return self.copy()

    # -- indexing and manipulation (in _indexing, _manipulation) -----------

    def take(self, indices: Any, axis: Any = None, out: Any = None,
             mode: str = "raise") -> "ndarray":
        return _indexing.take(self, indices, axis, out, mode)

    def put(self, indices: Any, values: Any, mode: str = "raise") -> None:
        _indexing.put(self, indices, values, mode)

    def nonzero(self) -> tuple["ndarray", ...]:
        return _indexing.nonzero(self)

    def compress(self, condition: Any, axis: Any = None,
                 out: Any = None) -> "ndarray":
        return _indexing.compress(condition, self, axis, out)

    def diagonal(self, offset: int = 0, axis1: int = 0,
                 axis2: int = 1) -> "ndarray":
        return _indexing.diagonal(self, offset, axis1, axis2)

    def repeat(self, repeats: Any, axis: Any = None) -> "ndarray":
        return _manipulation.repeat(self, repeats, axis)

    # -- reductions (in _reduction) ----------------------------------------

    def sum(self, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: bool = False) -> "ndarray":
        return _reduction.sum(self, axis, dtype, out, keepdims)

    def prod(self, axis: Any = None, dtype: Any = None, out: Any = None,
             keepdims: bool = False) -> "ndarray":
        return _reduction.prod(self, axis, dtype, out, keepdims)

    def mean(self, axis: Any = None, dtype: Any = None, out: Any = None,
             keepdims: bool = False) -> "ndarray":
        return _reduction.mean(self, axis, dtype, out, keepdims)

    def min(self, axis: Any = None, out: Any = None,
            keepdims: bool = False) -> "ndarray":
        return _reduction.min(self, axis, out, keepdims)

    def max(self, axis: Any = None, out: Any = None,
            keepdims: bool = False) -> "ndarray":
        return _reduction.max(self, axis, out, keepdims)

    def argmin(self, axis: Any = None, out: Any = None,
               keepdims: bool = False) -> "ndarray":
        return _reduction.argmin(self, axis, out, keepdims=keepdims)

    def argmax(self, axis: Any = None, out: Any = None,
               keepdims: bool = False) -> "ndarray":
        return _reduction.argmax(self, axis, out, keepdims=keepdims)

    def all(self, axis: Any = None, out: Any = None,
            keepdims: bool = False) -> "ndarray":
        return _reduction.all(self, axis, out, keepdims)

    def any(self, axis: Any = None, out: Any = None,
            keepdims: bool = False) -> "ndarray":
        return _reduction.any(self, axis, out, keepdims)

    # -- math, statistics, sorting, products (_mathfuncs, _statistics,
    # _sorting, _linalg; imported on use: they import this module) --------

    @property
    def real(self) -> "ndarray":
        from arrayd._mathfuncs import real
        return real(self)

    @real.setter
    def real(self, value: Any) -> None:
        from arrayd._mathfuncs import real
        real(self)[...] = value

    @property
    def imag(self) -> "ndarray":
        from arrayd._mathfuncs import imag
        return imag(self)

    @imag.setter
    def imag(self, value: Any) -> None:
        from arrayd._mathfuncs import imag
        imag(self)[...] = value

    def conj(self) -> "ndarray":
        return _math.conjugate(self)

    def conjugate(self) -> "ndarray":
        return _math.conjugate(self)

    def round(self, decimals: int = 0, out: Any = None) -> "ndarray":
        from arrayd._mathfuncs import round as round_
        return round_(self, decimals, out)

    def clip(self, min: Any = None, max: Any = None,  # noqa: A002
             out: Any = None) -> "ndarray":
        from arrayd._mathfuncs import clip
        return clip(self, min, max, out)

    def var(self, axis: Any = None, dtype: Any = None, out: Any = None,
            ddof: float = 0, keepdims: bool = False) -> "ndarray":
        from arrayd._statistics import var
        return var(self, axis, dtype, out, ddof, keepdims)

    def std(self, axis: Any = None, dtype: Any = None, out: Any = None,
            ddof: float = 0, keepdims: bool = False) -> "ndarray":
        from arrayd._statistics import std
        return std(self, axis, dtype, out, ddof, keepdims)

    def ptp(self, axis: Any = None, out: Any = None,
            keepdims: bool = False) -> "ndarray":
        from arrayd._statistics import ptp
        return ptp(self, axis, out, keepdims)

    def cumsum(self, axis: Any = None, dtype: Any = None,
               out: Any = None) -> "ndarray":
        from arrayd._statistics import cumsum
        return cumsum(self, axis, dtype, out)

    def cumprod(self, axis: Any = None, dtype: Any = None,
                out: Any = None) -> "ndarray":
        from arrayd._statistics import cumprod
        return cumprod(self, axis, dtype, out)

    def trace(self, offset: int = 0, axis1: int = 0, axis2: int = 1,
              dtype: Any = None, out: Any = None) -> "ndarray":
        from arrayd._statistics import trace
        return trace(self, offset, axis1, axis2, dtype, out)

    def sort(self, axis: int = -1, kind: Any = None,
             order: Any = None, *, stable: Any = None,
             descending: bool = False) -> None:
        """Sorts in place (as numpy.ndarray.sort)."""
        from arrayd._sorting import sort
        self[...] = sort(self, axis, kind, order, descending=descending)

    def argsort(self, axis: Any = -1, kind: Any = None,
                order: Any = None, *, stable: Any = None,
                descending: bool = False) -> "ndarray":
        from arrayd._sorting import argsort
        return argsort(self, axis, kind, order, descending=descending)

    def partition(self, kth: Any, axis: int = -1, kind: str = "introselect",
                  order: Any = None) -> None:
        from arrayd._sorting import partition
        self[...] = partition(self, kth, axis, kind, order)

    def argpartition(self, kth: Any, axis: int = -1,
                     kind: str = "introselect",
                     order: Any = None) -> "ndarray":
        from arrayd._sorting import argpartition
        return argpartition(self, kth, axis, kind, order)

    def searchsorted(self, v: Any, side: str = "left",
                     sorter: Any = None) -> "ndarray":
        from arrayd._sorting import searchsorted
        return searchsorted(self, v, side, sorter)

    def dot(self, b: Any, out: Any = None) -> "ndarray":
        from arrayd._linalg import dot
        return dot(self, b, out)

    def __matmul__(self, o: Any) -> Any:
        from arrayd._linalg import matmul
        return matmul(self, o) if _ok(o) else NotImplemented

    def __rmatmul__(self, o: Any) -> Any:
        from arrayd._linalg import matmul
        return matmul(o, self) if _ok(o) else NotImplemented

    def __imatmul__(self, o: Any) -> Any:
        from arrayd._linalg import matmul
        return matmul(self, o, out=self) if _ok(o) else NotImplemented


def assignable_shape(vshape: tuple[int, ...],
                     target: tuple[int, ...]) -> tuple[int, ...] | None:
    """The shape a value of shape vshape takes to be assigned into target
    (NumPy's setitem rule: leading ones dropped, then broadcasting), or None
    when it cannot be."""
    stripped = vshape
    while len(stripped) > len(target) and stripped[0] == 1:
        stripped = stripped[1:]
    try:
        ok = np.broadcast_shapes(stripped, target) == target
    except ValueError:
        ok = False
    return stripped if ok else None


def _ok(o: Any) -> bool:
    return isinstance(o, (ndarray, _OPERAND_TYPES))


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


class _AdvancedKey(Exception):
    """_encode_index met an integer-array or boolean index item."""


def _encode_index(shape: tuple[int, ...],
                  key: Any) -> tuple[list[int], tuple[int, ...]]:
    """OPS.md ``index`` encoding of a basic index, and the result shape.

    NumPy itself (on a data-less dummy) checks the key, so errors are
    NumPy's. Slices are sent as concrete in-range start/stop/step.
    """
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:
        if isinstance(k, (ndarray, np.ndarray, list, tuple, bool, np.bool_)):
            raise _AdvancedKey  # integer arrays, masks: _indexing
    result = shape_dummy(shape)[key]
    out_shape = result.shape if isinstance(result, np.ndarray) else ()
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    enc: list[int] = []
    dim = 0
    for k in key:
        if k is None:
            enc += (3, 0, 0, 0)
        elif k is Ellipsis:
            enc += (2, 0, 0, 0)
            dim += len(shape) - n_real
        elif isinstance(k, slice):
            n = shape[dim]
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            if length == 0:
                start, stop, step = 0, 0, 1
            else:
                last = start + (length - 1) * step
                stop = last + (1 if step > 0 else -1)
                if stop < 0:
                    stop = _INT64_MIN  # "through index 0" going backwards
            enc += (1, start, stop, step)
            dim += 1
        else:
            i = operator.index(k)
            enc += (0, i + shape[dim] if i < 0 else i, 0, 0)
            dim += 1
    return enc, out_shape


from arrayd import _math, _reduction  # noqa: E402  (operators use them)
from arrayd import _indexing, _manipulation, _protocols  # noqa: E402,E501
