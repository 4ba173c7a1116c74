"""The ufunc type: NumPy's ufunc objects for the server's elementwise ops.

Layer: functions, the first above the core (_ndarray); imports only the
core, the session modules and the generated table. _math builds one ufunc
per row of the table (_ufuncs_gen.py, generated from the server's op
signatures) and attaches the operators.

A ufunc's dtype rule is its loop table in NumPy's own form (``ff->f``):
Python scalars take their NEP 50 weak dtype first, then the first loop that
every input casts to safely runs (NumPy's linear search; ``??->!`` refuses
exactly those inputs). The result's dtype and shape are known at once; the
server checks them again.

The optional ``dtype`` attr is not sent on the common path (it costs ~2 us
an op); ndarray.get() checks the server's dtype and shape against the
client's.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from numpy._core._exceptions import (_UFuncInputCastingError,
                                     _UFuncNoLoopError,
                                     _UFuncOutputCastingError)

from arrayd import _dtypes, _shapes
from arrayd import _session as _sess
from arrayd._ndarray import (asarray_in, elementwise_strides, ndarray,
                             scalar, session_of)
from arrayd._ufuncs_gen import LOOPS

_BOOL = np.dtype(np.bool_)
_INT64 = np.dtype(np.int64)
_INT_BOUNDS = {dt: (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
               for dt in _dtypes.SUPPORTED if dt.kind in "iu"}
_COMPARISONS = frozenset(("equal", "not_equal", "less", "less_equal",
                          "greater", "greater_equal"))
_LOGICAL = frozenset(("logical_and", "logical_or", "logical_xor"))
# A lone Python scalar's dtype (np.asarray), and a value of each weak type.
_DEFAULT = {int: _INT64, float: np.dtype(np.float64),
            complex: np.dtype(np.complex128)}
_ZERO = {int: 0, float: 0.0, complex: 0j}
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
# Reductions the server runs in one op, and the table of their dtypes.
_SERVER_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max",
                  "minimum": "min", "logical_and": "all", "logical_or": "any"}
_SERVER_SCAN = {"add": "cumsum", "multiply": "cumprod"}
# Associative ops whose reduce may pair elements in any order (a tree).
_ASSOCIATIVE = frozenset((
    "add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and",
    "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
    "gcd", "lcm", "logaddexp", "logaddexp2", "hypot"))


class _NoValue:
    """ufunc.reduce's `initial` when none is given."""


def parse_loops(text: str) -> tuple[tuple[tuple[np.dtype, ...],
                                          np.dtype | None], ...]:
    """'ff->f ?\\?->!' -> ((inputs, output or None when refused), ...)."""
    loops = []
    for loop in text.split():
        ins, out = loop.split("->")
        loops.append((tuple(np.dtype(c) for c in ins),
                      None if out == "!" else np.dtype(out)))
    return tuple(loops)


def concrete_dtypes(keys: tuple[Any, ...]) -> tuple[np.dtype, ...]:
    """Input dtypes with Python scalars (int/float/complex types) replaced
    by their NEP 50 dtype next to the arrays (alone: np.asarray's)."""
    strong = [k for k in keys if type(k) is not type]
    if not strong:
        return tuple(_DEFAULT[k] for k in keys)
    base = strong[0] if len(strong) == 1 else np.result_type(*strong)
    return tuple(k if type(k) is not type else np.result_type(base, _ZERO[k])
                 for k in keys)


def _with_longlong(types: list[str]) -> list[str]:
    """NumPy's ``ufunc.types`` lists its int64 loops twice, as C long ('l')
    and as long long ('q'), the q copies after each run of l ones."""
    out: list[str] = []
    run: list[str] = []
    for t in types + [""]:
        if "l" in t or "L" in t:
            run.append(t)
            continue
        out += run + [r.replace("l", "q").replace("L", "Q") for r in run]
        run = []
        if t:
            out.append(t)
    return out


def find_loop(loops: tuple[Any, ...], dts: tuple[np.dtype, ...],
              out: np.dtype | None = None, casting: str = "safe"
              ) -> tuple[tuple[np.dtype, ...], np.dtype] | None:
    """NumPy's loop choice: the loop of exactly the inputs' dtypes, else
    its linear search: the first loop every input casts to under
    `casting` (with `out`: whose output is `out`, and, as NumPy's dtype=,
    the loop all of whose operands are `out` when there is one); None when
    none fits."""
    if out is not None:
        for ins, res in loops:
            if res == out and all(i == out for i in ins):
                return ins, res
    else:  # NumPy 2: the loop of exactly these dtypes first
        for ins, res in loops:
            if ins == dts:
                return None if res is None else (ins, res)
    for ins, res in loops:
        if res is None:
            if ins == dts:
                return None
            continue
        if out is not None and res != out:
            continue
        if all(np.can_cast(d, i, casting) for d, i in zip(dts, ins)):
            return ins, res
    return None


def _operand(s: _sess.Session, x: Any) -> tuple[Any, Any]:
    """(value, dtype key): Python int/float/complex stay Python scalars
    (weak, NEP 50); numpy scalars become 0-d arrays of their own dtype;
    array-likes are uploaded."""
    t = type(x)
    if t is ndarray:
        return x, x._dtype
    if t is int or t is float or t is complex:
        return x, t
    if t is bool:
        return scalar(s, x, _BOOL), _BOOL
    if isinstance(x, ndarray):
        return x, x._dtype
    if isinstance(x, np.generic):
        dt = _dtypes.normalize(x.dtype)
        return scalar(s, x.item(), dt), dt
    a = asarray_in(s, x)
    return a, a._dtype


def _weak_scalar(s: _sess.Session, value: Any, dtype: np.dtype) -> ndarray:
    """A Python scalar as a 0-d array of its loop's input dtype (NumPy's
    OverflowError for an integer that does not fit)."""
    bounds = _INT_BOUNDS.get(dtype)
    if bounds is not None and type(value) is int and not (
            bounds[0] <= value <= bounds[1]):
        raise OverflowError(f"Python integer {value} out of bounds for {dtype}")
    return scalar(s, value, dtype)


def _broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return _shapes.broadcast(*shapes)
    except ValueError:
        raise ValueError("operands could not be broadcast together with "
                         "shapes " + " ".join(map(str, shapes)) + " ") from None


class ufunc:
    """A NumPy ufunc whose loops run on the arrayd server.

    ``nin``, ``nout``, ``nargs``, ``ntypes``, ``types`` and ``identity``
    come from the server's signature of the op; ``__call__`` takes
    ``out=``, ``where=``, ``dtype=`` and ``casting=``, and ``reduce``,
    ``accumulate``, ``outer``, ``at`` and ``reduceat`` follow NumPy.
    """

    def __init__(self, name: str, nin: int, nout: int, identity: str,
                 loops: str, doc: str, module: str = "") -> None:
        self.__name__ = self.__qualname__ = name
        self.nin, self.nout, self.nargs = nin, nout, nin + nout
        self.types = _with_longlong([t for t in loops.split()
                                     if not t.endswith("!")])
        self.ntypes = len(self.types)
        self.identity = None if identity == "" else (
            -math.inf if identity == "-inf" else eval(identity, {}))  # noqa: S307
        self.signature = None
        self.__doc__ = (f"{name}(*args, out=None, where=True, casting="
                        f"'same_kind', dtype=None)\n\n{doc}\n\n"
                        "Runs on the arrayd server with NumPy's dtype rules "
                        f"(loops: {' '.join(self.types)}).")
        self._loop_text = loops.split()
        self._loops = parse_loops(loops)
        self._resolved: dict[tuple[Any, ...], tuple[np.dtype, ...]] = {}
        # Loops reordered by follow_order: the server still picks by its
        # own order, so calls cast the inputs to the chosen loop first.
        self._followed = False
        # NumPy's own ufunc of that name, for __array_ufunc__ and the
        # constant answers of out-of-range comparisons (none for the ufuncs
        # of another module: scipy.special's erf, gamma, i0, ...).
        self._np = None if module else getattr(np, name, None)

    def __repr__(self) -> str:
        return f"<ufunc '{self.__name__}'>"

    # -- dtype resolution ------------------------------------------------

    def follow_order(self, types: Sequence[str]) -> None:
        """Orders this ufunc's loops as ``types`` (another ufunc's, e.g.
        the installed scipy.special's) lists the same signatures, so that
        the first loop an input casts to safely is the one that ufunc
        picks (SciPy releases differ: float64 or float32 loops first).
        Refusals stay first; loops ``types`` lacks follow in their order."""
        rank: dict[tuple[Any, ...], int] = {}
        for i, t in enumerate(types):
            try:
                ins, out = t.split("->")
                rank.setdefault((tuple(np.dtype(c) for c in ins),
                                 np.dtype(out)), i)
            except (TypeError, ValueError):  # a dtype arrayd has not ('g')
                continue

        def key(j: int) -> int:
            if self._loops[j][1] is None:
                return -1
            return rank.get(self._loops[j], len(types) + j)
        order = sorted(range(len(self._loops)), key=key)
        self._followed = self._followed or order != sorted(order)
        text = [self._loop_text[j] for j in order]
        self._loop_text = text
        self._loops = tuple(self._loops[j] for j in order)
        self.types = _with_longlong([t for t in text if not t.endswith("!")])
        self._resolved.clear()

    def resolve(self, keys: tuple[Any, ...]) -> tuple[np.dtype, ...]:
        """(loop input dtypes..., result dtype) for operand dtype keys
        (np.dtype, or int/float/complex for weak Python scalars); NumPy's
        UFuncTypeError when no loop fits."""
        r = self._resolved.get(keys)
        if r is None:
            dts = concrete_dtypes(keys)
            loop = find_loop(self._loops, dts)
            if loop is None:
                self._no_loop(dts)
            r = loop[0] + (loop[1],)
            self._resolved[keys] = r
        return r

    def resolve_dtypes(self, dtypes: tuple[Any, ...], *,
                       signature: Any = None, casting: Any = None,
                       reduction: bool = False) -> tuple[np.dtype, ...]:
        """NumPy's ufunc.resolve_dtypes, from this ufunc's loop table."""
        keys = tuple(d if d in (int, float, complex) else np.dtype(d)
                     for d in dtypes[:self.nin])
        return self.resolve(keys)

    def _no_loop(self, dts: tuple[np.dtype, ...],
                 out: np.dtype | None = None) -> None:
        """Raises NumPy's own error for a call with no loop (its message,
        e.g. for bool subtract), or UFuncTypeError for arrayd's ufuncs."""
        if self._np is not None:
            self._np.resolve_dtypes(dts + (out,) * self.nout)
        raise _UFuncNoLoopError(self, dts + (out,) * self.nout)

    # -- calls -----------------------------------------------------------

    def __call__(self, *args: Any, out: Any = None, where: Any = True,
                 casting: str = "same_kind", order: str = "K",
                 dtype: Any = None, subok: bool = True,
                 signature: Any = None) -> Any:
        nin = self.nin
        if len(args) != nin:
            if len(args) == nin + 1 and out is None:
                args, out = args[:nin], args[nin]
            else:
                raise TypeError(
                    f"{self.__name__}() takes from {nin} to {nin + 1} "
                    f"positional arguments but {len(args)} were given")
        if (where is True and dtype is None and signature is None
                and casting == "same_kind" and not self._followed):
            if nin == 2:
                return binary(self, args[0], args[1], out)
            return unary(self, args[0], out)
        return self._general(args, out, where, casting, dtype, signature)

    def _general(self, args: tuple[Any, ...], out: Any, where: Any,
                 casting: str, dtype: Any, signature: Any) -> ndarray:
        """__call__ with dtype=, signature=, casting= or where=."""
        if casting not in _CASTINGS:
            raise ValueError("casting must be one of 'no', 'equiv', 'safe', "
                             "'same_kind', or 'unsafe'")
        if signature is not None:
            sig = signature if isinstance(signature, tuple) else (signature,)
            dtype = sig[-1] if sig[-1] is not None else dtype
        outs = out if isinstance(out, tuple) else (out,)
        s = session_of(*args, *outs)
        ops = [_operand(s, x) for x in args]
        if self.nin == 1 and type(ops[0][1]) is type:
            ops = [_operand(s, np.asarray(args[0]))]
        dts = concrete_dtypes(tuple(k for _, k in ops))
        forced = None if dtype is None else _dtypes.normalize(np.dtype(dtype))
        loop = find_loop(self._loops, dts, forced,
                         "safe" if forced is None else "unsafe")
        if loop is None:
            self._no_loop(dts, forced)
        ins, res = loop
        for i, (d, want) in enumerate(zip(dts, ins)):
            if not np.can_cast(d, want, casting):
                raise _UFuncInputCastingError(self, casting, d, want, i)
        shape = _broadcast(*(v._shape for v, _ in ops if type(v) is ndarray))
        inputs = []  # held until the op is recorded
        for (v, _), want in zip(ops, ins):
            if type(v) is not ndarray:
                v = _weak_scalar(s, v, want)
            elif v._dtype != want:
                v = v.astype(want)
            inputs.append(v)
        h = s.new_handle()
        s.record(self.__name__, tuple(v._handle for v in inputs), (h,),
                 small=_sess.is_small(shape))
        result = ndarray._new(s, h, shape, res, elementwise_strides(
            inputs, shape, res))
        target = None if outs[0] is None else _check_out(
            self, outs[0], s, shape, res, casting)
        if where is not True:
            mask = asarray_in(s, where, _BOOL)
            _broadcast(mask._shape, shape)
            base = target if target is not None else ndarray._new(
                s, _full(s, shape, res, 0), shape, res)
            result = where_op(s, mask, result, base)
        if target is None:
            return result
        target[...] = result
        return target

    # -- NumPy's ufunc methods ---------------------------------------------

    def _binary_only(self, method: str) -> None:
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{method} only supported for binary functions")

    def reduce(self, array: Any, axis: Any = 0, dtype: Any = None,
               out: Any = None, keepdims: bool = False,
               initial: Any = _NoValue, where: Any = True) -> Any:
        """NumPy's ufunc.reduce along `axis` (an int, a tuple, or None)."""
        self._binary_only("reduce")
        s = session_of(array, out)
        a = asarray_in(s, array)
        axes = _axes(axis, a.ndim)
        if len(axes) > 1 and self.__name__ not in _ASSOCIATIVE:
            raise ValueError(f"reduction operation '{self.__name__}' is not "
                             "reorderable, so at most one axis may be "
                             "specified")
        if where is not True:
            fill = self.identity if initial is _NoValue else initial
            if fill is None:
                raise ValueError("reduction operation '" + self.__name__ +
                                 "' does not have an identity, so to use a "
                                 "where mask one has to specify 'initial'")
            a = where_op(s, asarray_in(s, where, _BOOL), a,
                         ndarray._new(s, _full(s, (), a._dtype, fill), (),
                                      a._dtype))
        empty = any(a._shape[d] == 0 for d in axes)
        if empty and initial is _NoValue and self.identity is None:
            raise ValueError(f"zero-size array to reduction operation "
                             f"{self.__name__} which has no identity")
        r = self._reduce_axes(s, a, axes, dtype, keepdims)
        if initial is not _NoValue:
            r = self(r, initial) if r.dtype.kind != "b" else self(r, bool(initial))
        if out is not None:
            out[...] = r
            return out
        return r

    def _reduce_axes(self, s: _sess.Session, a: ndarray, axes: tuple[int, ...],
                     dtype: Any, keepdims: bool) -> ndarray:
        name = self.__name__
        op = _SERVER_REDUCE.get(name)
        if op is not None:
            return server_reduce(s, op, a, axes, dtype, keepdims)
        if dtype is not None:
            a = a.astype(dtype)
        kept = tuple(d for d in range(a.ndim) if d not in axes)
        x = a.transpose(kept + axes).reshape(
            tuple(a._shape[d] for d in kept) + (-1,))
        n = x._shape[-1]
        if n == 0:
            r = ndarray._new(s, _full(s, x._shape[:-1], self.resolve(
                (a._dtype, a._dtype))[-1], self.identity), x._shape[:-1],
                self.resolve((a._dtype, a._dtype))[-1])
        elif name in _ASSOCIATIVE:
            while n > 1:  # pairs, then an odd element folded into the first
                h = n // 2
                head = self(x[..., :h], x[..., h:2 * h])
                if n % 2:
                    head[..., :1] = self(head[..., :1], x[..., 2 * h:])
                x, n = head, h
            r = x[..., 0]
        elif name == "subtract":  # ((x0 - x1) - x2) ... = x0 - sum(rest)
            r = self(x[..., 0], _subtract_sum(x[..., 1:]))
        else:  # order matters: one step per element, as NumPy
            r = x[..., 0]
            for i in range(1, n):
                r = self(r, x[..., i])
        if keepdims:
            r = r.reshape(tuple(1 if d in axes else a._shape[d]
                                for d in range(a.ndim)))
        return r

    def accumulate(self, array: Any, axis: int = 0, dtype: Any = None,
                   out: Any = None) -> Any:
        """NumPy's ufunc.accumulate along one axis."""
        self._binary_only("accumulate")
        s = session_of(array, out)
        a = asarray_in(s, array)
        if a.ndim == 0:
            raise TypeError("cannot accumulate on a scalar")
        ax = _axes(axis, a.ndim)[0]
        scan = _SERVER_SCAN.get(self.__name__)
        lead = (slice(None),) * ax
        if scan is not None:
            r = server_scan(s, scan, a, ax, dtype)
        elif self.__name__ == "subtract":  # x0 - (x1 + ... + xi)
            x = a.astype(dtype) if dtype is not None else a
            first = x[lead + (slice(0, 1),)]
            r = self(first + first, server_scan(s, "cumsum", x, ax, x._dtype))
        elif self.__name__ not in _ASSOCIATIVE:  # order matters: per element
            x = a.astype(dtype) if dtype is not None else a
            r = x.copy()
            for i in range(1, r._shape[ax]):
                r[lead + (slice(i, i + 1),)] = self(
                    r[lead + (slice(i - 1, i),)], x[lead + (slice(i, i + 1),)])
        else:
            x = a.astype(dtype) if dtype is not None else a
            r = x.copy()
            n, k = r._shape[ax], 1
            while k < n:  # doubling steps: r[k:] = op(r[k:], r[:-k])
                r[lead + (slice(k, None),)] = self(
                    r[lead + (slice(k, None),)], r[lead + (slice(0, n - k),)])
                k *= 2
        if out is not None:
            out[...] = r
            return out
        return r

    def outer(self, A: Any, B: Any, /, **kwargs: Any) -> Any:
        """NumPy's ufunc.outer: op(a[..., None, ...], b) over all pairs."""
        self._binary_only("outer")
        s = session_of(A, B)
        a, b = asarray_in(s, A), asarray_in(s, B)
        return self(a.reshape(a._shape + (1,) * b.ndim), b, **kwargs)

    def at(self, a: Any, indices: Any, b: Any = None) -> None:
        """NumPy's ufunc.at: a[indices] = op(a[indices], b), unbuffered, so
        a repeated index applies once per occurrence."""
        if not isinstance(a, ndarray):
            raise TypeError("ufunc.at needs an arrayd.ndarray to modify")
        if self.nin == 2 and b is None:
            raise ValueError("second operand needed for ufunc")
        idx = indices.get() if isinstance(indices, ndarray) else indices
        if isinstance(idx, tuple) or np.asarray(idx).dtype.kind not in "iu":
            # slices, booleans, several axes: no repeats possible per round
            a[idx] = self(a[idx], b) if self.nin == 2 else self(a[idx])
            return
        flat = np.asarray(idx, dtype=np.int64).reshape(-1)
        n = a._shape[0] if a.ndim else 0
        flat = np.where(flat < 0, flat + n, flat)
        order = np.argsort(flat, kind="stable")
        ranks = np.empty_like(order)
        sorted_ = flat[order]
        starts = np.r_[0, np.flatnonzero(np.diff(sorted_)) + 1]
        run = np.repeat(starts, np.diff(np.r_[starts, sorted_.size]))
        ranks[order] = np.arange(sorted_.size) - run
        bb = None if b is None else (b if isinstance(b, ndarray)
                                     else np.asarray(b))
        for r in range(int(ranks.max()) + 1 if ranks.size else 0):
            sel = np.flatnonzero(ranks == r)
            rows = flat[sel]
            if bb is None:
                a[rows] = self(a[rows])
                continue
            vals = bb
            if getattr(bb, "ndim", 0) and bb.shape[:1] == (flat.size,):
                vals = bb[sel] if isinstance(bb, np.ndarray) else bb[
                    asarray_in(a._session, sel)]
            a[rows] = self(a[rows], vals)

    def reduceat(self, array: Any, indices: Any, axis: int = 0,
                 dtype: Any = None, out: Any = None) -> Any:
        """NumPy's ufunc.reduceat: reduces a[i:j] for consecutive indices
        (a[i] alone where j <= i), along one axis."""
        self._binary_only("reduceat")
        s = session_of(array, out)
        a = asarray_in(s, array)
        ax = _axes(axis, a.ndim)[0]
        idx = np.asarray(indices.get() if isinstance(indices, ndarray)
                         else indices).reshape(-1)
        n = a._shape[ax]
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            bad = idx.min() if idx.min() < 0 else idx.max()
            raise IndexError(f"index {bad} out-of-bounds in {self.__name__}"
                             f".reduceat [0, {n})")
        lead = (slice(None),) * ax
        parts = []
        for k, i in enumerate(idx):
            j = int(idx[k + 1]) if k + 1 < idx.size else n
            seg = a[lead + (slice(int(i), j if j > i else int(i) + 1),)]
            parts.append(self.reduce(seg, axis=ax, dtype=dtype, keepdims=True))
        if not parts:
            raise ValueError("reduceat needs at least one index")
        r = _concatenate(parts, ax)
        if out is not None:
            out[...] = r
            return out
        return r


# -- the call paths (ufunc.__call__ and ndarray's operators) ---------------

def _check_out(uf: ufunc, out: Any, s: _sess.Session, shape: tuple[int, ...],
               dtype: np.dtype, casting: str = "same_kind") -> ndarray:
    if type(out) is tuple:
        if len(out) != 1:
            raise ValueError(f"{uf.__name__} has 1 output, got {len(out)}")
        out = out[0]
    if not isinstance(out, ndarray):
        raise TypeError("return arrays must be of ArrayType")
    if out._session is not s:
        raise ValueError("arrays belong to different arrayd sessions")
    if out._readonly:
        raise ValueError("output array is read-only")
    if out._shape != shape:
        try:
            ok = np.broadcast_shapes(shape, out._shape) == out._shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(
                f"non-broadcastable output operand with shape {out._shape} "
                f"doesn't match the broadcast shape {shape}")
    if dtype != out._dtype and not np.can_cast(dtype, out._dtype, casting):
        raise _UFuncOutputCastingError(uf, casting, dtype, out._dtype, 0)
    return out


def _full(s: _sess.Session, shape: tuple[int, ...], dtype: np.dtype,
          value: Any) -> int:
    h = s.new_handle()
    s.record("full", (), (h,), {"shape": list(shape), "dtype": dtype,
                                "value": int(value) if dtype.kind == "b"
                                else value})
    return h


def _constant(s: _sess.Session, shape: tuple[int, ...], dtype: np.dtype,
              value: Any, uf: ufunc, out: Any) -> ndarray:
    """A result that NumPy knows without looking at the data."""
    if out is not None:
        out = _check_out(uf, out, s, shape, dtype)
        tmp = _full(s, shape, dtype, value)
        s.record("setitem", (out._handle, tmp), (), {"index": [2, 0, 0, 0]})
        s.free(tmp)
        return out
    return ndarray._new(s, _full(s, shape, dtype, value), shape, dtype)


def binary(uf: ufunc, x1: Any, x2: Any, out: Any) -> ndarray:
    """uf(x1, x2, out=out): the measured path of ``x + y``."""
    if (type(x1) is ndarray and type(x2) is ndarray and out is None
            and x1._session is x2._session):  # the common case, in short
        s, a, ka, b, kb = x1._session, x1, x1._dtype, x2, x2._dtype
    else:
        s = session_of(x1, x2, out)
        a, ka = _operand(s, x1)
        b, kb = _operand(s, x2)
    key = (ka, kb)
    r = uf._resolved.get(key)
    if r is None:
        r = uf.resolve(key)  # NumPy's UFuncTypeError
    in1, in2, rdt = r
    op = uf.__name__
    if op == "power" and type(b) is int and b < 0 and rdt.kind in "iu":
        raise ValueError("Integers to negative integer powers are not allowed.")
    sa = a._shape if type(a) is ndarray else ()
    sb = b._shape if type(b) is ndarray else ()
    shape = sa if sa == sb else _broadcast(sa, sb)
    try:
        if type(a) is not ndarray:
            a = _weak_scalar(s, a, in1)
        if type(b) is not ndarray:
            b = _weak_scalar(s, b, in2)
    except OverflowError:
        if op in _LOGICAL or rdt.kind in "fc":
            # NumPy's own loop converts the integer there (??->? for the
            # logical ops; dd->d beside arrayd's integer true_divide loops).
            to = _BOOL if op in _LOGICAL else rdt
            if type(a) is not ndarray:
                a = scalar(s, bool(x1) if to.kind == "b" else x1, to)
            if type(b) is not ndarray:
                b = scalar(s, bool(x2) if to.kind == "b" else x2, to)
            return binary(uf, a, b, out)
        if op not in _COMPARISONS:
            raise
        # NumPy 2 compares with out-of-range Python ints: the answer is the
        # same for every in-range value.
        va = np.zeros((), in1) if type(a) is ndarray else x1
        vb = np.zeros((), in2) if type(b) is ndarray else x2
        return _constant(s, shape, rdt, bool(uf._np(va, vb)), uf, out)
    if out is not None:
        out = _check_out(uf, out, s, shape, rdt)
        s.record(op, (a._handle, b._handle), (out._handle,),
                 small=_sess.is_small(shape))
        return out
    h = s.new_handle()
    s.record(op, (a._handle, b._handle), (h,), small=_sess.is_small(shape))
    if a._strides is None and b._strides is None:
        return ndarray._new(s, h, shape, rdt)
    return ndarray._new(s, h, shape, rdt,
                        elementwise_strides((a, b), shape, rdt))


def unary(uf: ufunc, x: Any, out: Any) -> ndarray:
    """uf(x, out=out)."""
    s = session_of(x, out)
    if type(x) is int or type(x) is float or type(x) is complex:
        x = np.asarray(x)  # NumPy's default dtype for a lone Python scalar
    a, ka = _operand(s, x)
    key = (ka,)
    r = uf._resolved.get(key)
    if r is None:
        r = uf.resolve(key)
    rdt = r[1]
    op = uf.__name__
    if out is not None:
        out = _check_out(uf, out, s, a._shape, rdt)
        s.record(op, (a._handle,), (out._handle,),
                 small=_sess.is_small(a._shape))
        return out
    h = s.new_handle()
    s.record(op, (a._handle,), (h,), small=_sess.is_small(a._shape))
    if a._strides is None:
        return ndarray._new(s, h, a._shape, rdt)
    return ndarray._new(s, h, a._shape, rdt,
                        elementwise_strides((a,), a._shape, rdt))


# -- server ops the methods use (no import of the modules above) -----------

_TYPED = {name: parse_loops(loops) for name, loops in LOOPS.items()}


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for ax in axes:
        ax = int(ax)
        if not -ndim <= ax < ndim:
            raise np.exceptions.AxisError(ax, ndim)
        ax %= ndim if ndim else 1
        if ax in out:
            raise ValueError("duplicate value in 'axis'")
        out.append(ax)
    return tuple(out)


def server_reduce(s: _sess.Session, op: str, a: ndarray,
                  axes: tuple[int, ...], dtype: Any,
                  keepdims: bool) -> ndarray:
    """The server's reduction `op` (sum, prod, min, max, all, any)."""
    attrs: dict[str, Any] = {"axes": list(axes)}
    if keepdims:
        attrs["keepdims"] = True
    if dtype is not None:
        rdt = _dtypes.normalize(np.dtype(dtype))
        attrs["dtype"] = rdt
        if op in ("all", "any"):
            rdt = _BOOL
    else:
        rdt = find_loop(_TYPED[op], (a._dtype,))[1]
    shape = tuple(1 if d in axes else n for d, n in enumerate(a._shape)
                  if keepdims or d not in axes)
    h = s.new_handle()
    s.record(op, (a._handle,), (h,), attrs)
    return ndarray._new(s, h, shape, rdt)


def server_scan(s: _sess.Session, op: str, a: ndarray, axis: int,
                dtype: Any) -> ndarray:
    """The server's cumulative `op` (cumsum, cumprod) along `axis`."""
    attrs: dict[str, Any] = {"axis": axis}
    if dtype is not None:
        rdt = _dtypes.normalize(np.dtype(dtype))
        attrs["dtype"] = rdt
    else:
        rdt = find_loop(_TYPED[op], (a._dtype,))[1]
    h = s.new_handle()
    s.record(op, (a._handle,), (h,), attrs)
    return ndarray._new(s, h, a._shape, rdt)


def where_op(s: _sess.Session, mask: ndarray, x: ndarray,
             y: ndarray) -> ndarray:
    """The server's where(mask, x, y) (x and y of one dtype)."""
    shape = _broadcast(mask._shape, x._shape, y._shape)
    h = s.new_handle()
    s.record("where", (mask._handle, x._handle, y._handle), (h,))
    return ndarray._new(s, h, shape, x._dtype, elementwise_strides(
        (mask, x, y), shape, x._dtype))


def _subtract_sum(x: ndarray) -> ndarray:
    return server_reduce(x._session, "sum", x, (x.ndim - 1,), None, False)


def _concatenate(parts: list[ndarray], axis: int) -> ndarray:
    s = parts[0]._session
    shape = list(parts[0]._shape)
    shape[axis] = sum(p._shape[axis] for p in parts)
    out = ndarray._new(s, _full(s, tuple(shape), parts[0]._dtype, 0),
                       tuple(shape), parts[0]._dtype)
    lead, start = (slice(None),) * axis, 0
    for p in parts:
        out[lead + (slice(start, start + p._shape[axis]),)] = p
        start += p._shape[axis]
    return out

