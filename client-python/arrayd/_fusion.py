"""arrayd.fuse: a Python function of arrays compiled into one kernel, as
cupy.fuse.

    @ad.fuse(kernel_name="squared_diff")
    def squared_diff(x, y):
        return (x - y) * (x - y)

How: the first call for each combination of argument dtypes and shapes
runs the function once on stand-in arrays whose session is a tracer, not a
server: arrayd's own functions (ufuncs, operators, astype, where, the
reductions) record their ops there, with arrayd's dtype and broadcasting
rules, as they would for the server. The recorded ops become one
ElementwiseKernel (elementwise ops, any number of outputs, in-place
updates of the inputs: ``x += y``, ``ad.add(x, y, out=z)``), or one
ReductionKernel (elementwise ops, then one reduction: sum, prod, mean,
max, min, all, any, over any axes, then elementwise ops of its result).
NumPy scalars and 0-d arrays are kernel parameters; Python scalars are
constants of the kernel (a new value compiles a new kernel, once).

Otherwise the function runs as it is, on the arrays, op by op, with the same
results: when the server is not CUDA or does not allow user kernels
(--allow-user-kernels; found at the first call and remembered for the
session), when no argument is an arrayd array, and for functions the
tracer cannot fuse (an op it does not know, a view, a value read on the
host such as ``if x.sum() > 0``, two reductions, outputs of different
shapes). The decision is made once per argument signature; the
function's own Python code (a print, a counter) runs at that trace, and
again at every unfused call.

Layer: functions (imports _math, _reduction, _userkernel and the core).
"""
from __future__ import annotations

import functools
import itertools
import re
import struct
from pathlib import Path
from typing import Any, Callable

import numpy as np

from arrayd import _math
from arrayd import _reduction
from arrayd._ndarray import ndarray, session_of
from arrayd._userkernel import (ElementwiseKernel, ReductionKernel,
                                typename)

__all__ = ["fuse", "Fusion"]

_BOOL = np.dtype(np.bool_)
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_INT64_MIN = -(1 << 63)
# Ufuncs with a device function in _fusion.cuh (all of the server's but
# spacing); the float16 loops of these step on float16's own bits, so they
# do not compute in float.
_NO_HALF = frozenset(("nextafter",))
_SUPPORTED = frozenset(_math.BY_NAME) - {"spacing"}
_REDUCTIONS = frozenset(("sum", "prod", "mean", "max", "min", "all", "any"))


@functools.lru_cache(maxsize=None)
def _functors() -> str:
    return Path(__file__).with_name("_fusion.cuh").read_text()


class NotFusable(Exception):
    """The traced function uses something one kernel cannot do; it then
    runs unfused."""


# -- tracing ----------------------------------------------------------------

class _Tracer:
    """Stands in for a Session while the function runs on stand-in arrays:
    ops are recorded, nothing is sent. Anything else a session would do
    (fetching a value, uploading a NumPy array, streams) cannot be fused."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.ops: list[tuple[str, tuple[int, ...], tuple[int, ...],
                             dict[str, Any]]] = []
        self.scalars: dict[Any, Any] = {}  # the 0-d constants' cache

    def new_handle(self) -> int:
        return next(self._ids)

    def record(self, name: str, inputs: Any, outputs: Any,
               attrs: dict[str, Any] | None = None, small: bool = False,
               stream: Any = None, hold: Any = None) -> None:
        self.ops.append((name, tuple(inputs), tuple(outputs),
                         dict(attrs or {})))

    def free(self, handle: int) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        raise NotFusable(f"the function needs the server ({name})")


def _is_traced(a: Any) -> bool:
    return isinstance(a, ndarray) and isinstance(a._session, _Tracer)


# -- the traced program ------------------------------------------------------

class _Var:
    """A value of the program: a C++ variable of a dtype and shape, made by
    ``line`` from ``deps``. ``phase``: 0 before the reduction, 1 after it,
    None for constants and by-value parameters (usable in both)."""

    __slots__ = ("name", "dtype", "shape", "phase", "deps", "line", "view")

    def __init__(self, name: str, dtype: np.dtype, shape: tuple[int, ...],
                 phase: int | None, deps: tuple["_Var", ...] = (),
                 line: str | None = None, view: bool = False):
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.phase = phase
        self.deps = deps
        self.line = line
        self.view = view  # a view of another value: never written through


class _Param:
    """Argument k of the call as a kernel parameter: an arrayd array, or a
    NumPy scalar passed by value."""

    __slots__ = ("k", "dtype", "shape", "by_value", "var", "written")

    def __init__(self, k: int, dtype: np.dtype, shape: tuple[int, ...],
                 by_value: bool):
        self.k = k
        self.dtype = dtype
        self.shape = shape
        self.by_value = by_value
        # A 0-d array, as a by-value scalar, may be read on both sides of a
        # reduction (after it, through a raw parameter).
        self.var = _Var(f"_x{k}", dtype, shape,
                        None if by_value or shape == () else 0)
        self.written: _Var | None = None  # its final value, if assigned


def _compute_type(dt: np.dtype) -> str:
    """The C++ type a loop of ``dt`` computes in (float16 in float)."""
    return "float" if dt == _F16 else typename(dt)


def _literal(value: Any, dt: np.dtype) -> str:
    """``value`` of dtype ``dt`` as an exact C++ expression."""
    kind = dt.kind
    if kind == "b":
        return "true" if value else "false"
    if kind in "iu":
        v = int(value)
        if v == _INT64_MIN:
            return "static_cast<long long>(-9223372036854775807LL - 1)"
        return f"static_cast<{typename(dt)}>({v}{'ULL' if kind == 'u' else 'LL'})"
    if kind == "f":
        return _float_literal(value, dt)
    part = np.dtype(dt.char.lower())
    z = complex(value)
    return (f"{typename(dt)}({_float_literal(z.real, part)}, "
            f"{_float_literal(z.imag, part)})")


def _float_literal(value: Any, dt: np.dtype) -> str:
    v = np.asarray(value, dtype=dt)[()]
    if dt == _F16:
        return f"float16::from_bits(0x{int(v.view(np.uint16)):04x}u)"
    if dt == _F32:
        return f"__int_as_float(0x{int(v.view(np.uint32)):08x})"
    bits = struct.unpack("<q", struct.pack("<d", float(v)))[0]
    return f"__longlong_as_double({bits}LL)"


def _broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise NotFusable("shapes do not broadcast") from None


def _full_index(index: list[int], shape: tuple[int, ...]) -> bool:
    """Whether a setitem index (OPS.md encoding) covers the whole array:
    an ellipsis and full slices only."""
    dim = 0
    items = [index[i:i + 4] for i in range(0, len(index), 4)]
    n_real = sum(1 for it in items if it[0] in (0, 1))
    for kind, start, stop, step in items:
        if kind == 2:
            dim += len(shape) - n_real
        elif kind == 1:
            if not (start == 0 and step == 1 and stop == shape[dim]):
                return False
            dim += 1
        else:
            return False
    return True


class _Program:
    """The recorded ops as C++ statements over kernel parameters (SSA:
    each op makes new variables; an op that writes an array rebinds its
    handle, and an input parameter's last value is written back)."""

    def __init__(self, params: list[_Param], handles: dict[int, _Param]):
        self.params = params
        self.values: dict[int, _Var] = {h: p.var for h, p in handles.items()}
        self._handle_param = dict(handles)
        self.vars: list[_Var] = []
        self.reduction: dict[str, Any] | None = None
        self.red_var: _Var | None = None
        self._names = itertools.count()

    def _new(self, dtype: np.dtype, shape: tuple[int, ...],
             deps: list[_Var], expr: str, view: bool = False) -> _Var:
        phases = {d.phase for d in deps} - {None}
        if len(phases) > 1:
            raise NotFusable("a value before the reduction meets one after it")
        phase = phases.pop() if phases else None
        name = f"_v{next(self._names)}"
        v = _Var(name, dtype, shape, phase, tuple(deps),
                 f"const {typename(dtype)} {name} = {expr};", view)
        self.vars.append(v)
        return v

    def _input(self, h: int) -> _Var:
        v = self.values.get(h)
        if v is None:
            raise NotFusable("an array of another session")
        return v

    def _assign(self, h: int, v: _Var) -> None:
        """Binds handle h (an op's output) to v; for a handle that exists,
        a write: v cast to its dtype, and an input array keeps it as its
        final value."""
        old = self.values.get(h)
        if old is not None:
            if old.view:
                raise NotFusable("a write into a view")
            if v.dtype != old.dtype:
                v = self._new(old.dtype, v.shape, [v],
                              f"arrayd_cast<{typename(old.dtype)}>({v.name})")
            p = self._handle_param.get(h)
            if p is not None and not p.by_value:
                if self.reduction is not None:
                    raise NotFusable("an in-place update beside a reduction")
                p.written = v
        self.values[h] = v

    def _bind_new(self, h: int, v: _Var) -> None:
        if h in self.values:
            raise NotFusable("an op writes an existing array")
        self.values[h] = v

    def run(self, ops: list[tuple[str, tuple[int, ...], tuple[int, ...],
                                  dict[str, Any]]]) -> None:
        for name, ins, outs, attrs in ops:
            if name in _SUPPORTED and len(outs) == 1:
                self._ufunc(name, [self._input(h) for h in ins], outs[0])
            elif name == "full" and len(outs) == 1 and not ins:
                dt = np.dtype(attrs["dtype"])
                self._bind_new(outs[0], self._new(
                    dt, tuple(attrs["shape"]), [],
                    _literal(attrs["value"], dt)))
            elif name in ("astype", "copy") and len(ins) == 1 and len(outs) == 1:
                a = self._input(ins[0])
                dt = np.dtype(attrs["dtype"]) if name == "astype" else a.dtype
                self._assign(outs[0], self._new(
                    dt, a.shape, [a], f"arrayd_cast<{typename(dt)}>({a.name})"))
            elif name == "where" and len(ins) == 3 and len(outs) == 1:
                c, x, y = (self._input(h) for h in ins)
                if x.dtype != y.dtype:
                    raise NotFusable("where of two dtypes")
                shape = _broadcast(c.shape, x.shape, y.shape)
                self._assign(outs[0], self._new(
                    x.dtype, shape, [c, x, y],
                    f"arrayd_fuse::where(arrayd_cast<bool>({c.name}), "
                    f"{x.name}, {y.name})"))
            elif name in ("real", "imag") and len(ins) == 1 and len(outs) == 1:
                a = self._input(ins[0])
                if a.dtype.kind == "c":
                    dt = np.dtype(a.dtype.char.lower())
                    expr = f"{a.name}.{name}()"
                else:
                    dt = a.dtype
                    expr = a.name if name == "real" else f"static_cast<{typename(dt)}>(0)"
                self._bind_new(outs[0], self._new(dt, a.shape, [a], expr,
                                                  view=True))
            elif name == "setitem" and len(ins) == 2 and not outs:
                target, value = self._input(ins[0]), self._input(ins[1])
                if not _full_index(list(attrs.get("index", [])), target.shape):
                    raise NotFusable("a partial setitem")
                _broadcast(value.shape, target.shape)
                self._assign(ins[0], self._new(
                    target.dtype, target.shape, [value],
                    f"arrayd_cast<{typename(target.dtype)}>({value.name})"))
            elif name in _REDUCTIONS and len(ins) == 1 and len(outs) == 1:
                self._reduce(name, self._input(ins[0]), outs[0], attrs)
            else:
                raise NotFusable(f"op {name}")

    def _ufunc(self, name: str, ins: list[_Var], out: int) -> None:
        uf = _math.BY_NAME[name]
        if len(ins) != uf.nin:
            raise NotFusable(f"{name} with {len(ins)} inputs")
        loop = uf.resolve(tuple(v.dtype for v in ins))
        loop_in, loop_out = loop[:-1], loop[-1]
        if name in _NO_HALF and loop_out == _F16:
            raise NotFusable(f"{name} of float16")
        args = ", ".join(f"arrayd_cast<{_compute_type(t)}>({v.name})"
                         for v, t in zip(ins, loop_in))
        expr = (f"arrayd_cast<{typename(loop_out)}>"
                f"(arrayd_fuse::{name}({args}))")
        shape = _broadcast(*(v.shape for v in ins))
        old = self.values.get(out)
        if old is not None:
            shape = _broadcast(shape, old.shape)
        self._assign(out, self._new(loop_out, shape, ins, expr))

    def _reduce(self, op: str, a: _Var, out: int, attrs: dict[str, Any]
                ) -> None:
        if self.reduction is not None:
            raise NotFusable("two reductions")
        if a.phase != 0:
            raise NotFusable("a reduction of a constant")
        if any(p.written is not None for p in self.params):
            raise NotFusable("an in-place update beside a reduction")
        nd = len(a.shape)
        axes = attrs.get("axes")
        axes = tuple(range(nd)) if axes is None else tuple(int(x) for x in axes)
        keepdims = bool(attrs.get("keepdims", False))
        forced = attrs.get("dtype")
        rdt = _reduction._result_dtype(
            op, a.dtype, None if forced is None else np.dtype(forced))
        if op in ("max", "min") and any(a.shape[d] == 0 for d in axes):
            raise NotFusable("an empty max/min")  # unfused raises NumPy's error
        if op in ("all", "any"):
            acc = _BOOL
        elif op in ("max", "min"):
            acc = a.dtype
        else:
            acc = rdt
        shape = tuple(1 if d in axes else n for d, n in enumerate(a.shape)
                      if keepdims or d not in axes)
        self.reduction = {"op": op, "input": a, "axes": axes,
                          "keepdims": keepdims, "acc": _compute_type(acc),
                          "rdt": rdt, "shape": shape}
        self.red_var = _Var("_red", rdt, shape, 1, (a,))
        self._bind_new(out, self.red_var)

    def live(self, roots: list[_Var]
             ) -> tuple[list[_Var], list[_Var], set[str], set[str]]:
        """What the roots need: the statements before the reduction (all of
        them without one) and after it, in program order, and the names of
        the parameters each part reads."""
        def closure(starts: list[_Var]) -> set[int]:
            seen: set[int] = set()
            stack = list(starts)
            while stack:
                v = stack.pop()
                if id(v) in seen:
                    continue
                seen.add(id(v))
                if v is not self.red_var:  # the reduction ends a part
                    stack.extend(v.deps)
            return seen

        red = self.red_var
        post_ids = closure(roots) if red is not None else set()
        pre_starts = list(red.deps) if red is not None and id(red) in post_ids \
            else ([] if red is not None else roots)
        pre_ids = closure(pre_starts)
        params = {p.var.name: p.var for p in self.params}

        def part(ids: set[int]) -> tuple[list[_Var], set[str]]:
            stmts = [v for v in self.vars if id(v) in ids]
            names = {n for n, v in params.items() if id(v) in ids}
            return stmts, names

        pre, pre_params = part(pre_ids)
        post, post_params = part(post_ids)
        return pre, post, pre_params, post_params


# -- fusion ------------------------------------------------------------------

_FOLDS = {
    "sum": ("a + b", "0"), "mean": ("a + b", "0"), "prod": ("a * b", "1"),
    "max": ("arrayd_fuse::max_fold(a, b)", None),
    "min": ("arrayd_fuse::min_fold(a, b)", None),
    "all": ("a && b", "true"), "any": ("a || b", "false"),
}


def _signature(args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The memo key of a call: dtype and shape of each array, dtype of each
    NumPy scalar, type and value of each Python scalar; None for an
    argument the fusion does not take."""
    key: list[Any] = []
    for a in args:
        t = type(a)
        if isinstance(a, ndarray):
            key.append(("a", a._dtype, a._shape, a._readonly))
        elif isinstance(a, np.generic):
            if a.dtype.kind not in "biufc" or a.dtype.byteorder not in "=|":
                return None
            key.append(("n", a.dtype))
        elif t is float:
            key.append(("p", t, a.hex()))
        elif t is complex:
            key.append(("p", t, a.real.hex(), a.imag.hex()))
        elif t in (bool, int):
            key.append(("p", t, a))
        else:
            return None
    return tuple(key)


class _Plan:
    """How a call of one signature runs: the kernel, which arguments it
    takes, and how its outputs make the function's return value."""

    def __init__(self, kernel: Any, takes: list[tuple[int, bool]],
                 returns: Any, reduce: dict[str, Any] | None,
                 writes: list[int]):
        self.kernel = kernel
        self.takes = takes        # (argument index, as a NumPy scalar)
        self.returns = returns    # the return structure over output slots
        self.reduce = reduce      # axes and keepdims of a reduction kernel
        self.writes = writes      # the arguments written in place


class Fusion:
    """A fused function (cupy.fuse's object): call it like the function."""

    def __init__(self, func: Callable[..., Any], name: str | None = None):
        self.func = func
        self.name = name or getattr(func, "__name__", "fused")
        self._memo: dict[tuple[Any, ...], _Plan | None] = {}
        # Kernels by their declaration: signatures that differ only in
        # shapes share one (and its compiled code and attributes).
        self._kernels: dict[tuple[Any, ...], Any] = {}

    def __repr__(self) -> str:
        return f"<Fusion '{self.name}'>"

    def clear_cache(self) -> None:
        self._memo = {}
        self._kernels = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs or not any(isinstance(a, ndarray) for a in args):
            return self.func(*args, **kwargs)
        if any(_is_traced(a) for a in args):
            return self.func(*args)  # inside another fused function's trace
        key = _signature(args)
        if key is None:
            return self.func(*args)
        try:
            session = session_of(*args)
        except ValueError:
            return self.func(*args)
        if not _user_kernels(session):
            return self.func(*args)
        if key in self._memo:
            plan = self._memo[key]
        else:
            plan = self._memo[key] = self._plan(args)
        if plan is None or (plan.writes and _aliased(args, plan.writes)):
            return self.func(*args)
        try:
            return self._run(plan, args)
        except (RuntimeError, NotImplementedError) as e:
            if not _refused(e):
                raise
            session.fuse_user_kernels = False
            return self.func(*args)

    # -- planning ------------------------------------------------------

    def _plan(self, args: tuple[Any, ...]) -> _Plan | None:
        tracer = _Tracer()
        params: list[_Param] = []
        handles: dict[int, _Param] = {}
        stand_ins: list[Any] = []
        for k, a in enumerate(args):
            readonly = False
            if isinstance(a, ndarray):
                p = _Param(k, a._dtype, a._shape, False)
                readonly = a._readonly
            elif isinstance(a, np.generic):
                p = _Param(k, a.dtype, (), True)
            else:
                stand_ins.append(a)  # a Python scalar: a constant
                continue
            h = tracer.new_handle()
            params.append(p)
            handles[h] = p
            stand_ins.append(ndarray._new(tracer, h, p.shape, p.dtype,
                                          readonly=readonly))
        try:
            result = self.func(*stand_ins)
            program = _Program(params, handles)
            program.run(tracer.ops)
            return self._build(program, result)
        except NotFusable:
            return None
        except Exception:
            # The function fails on stand-ins (it reads something only a
            # real array has): unfused, it raises its own error, if any.
            return None

    def _build(self, program: _Program, result: Any) -> _Plan | None:
        """The plan of a traced call (NotFusable where one kernel cannot
        compute it)."""
        if result is None:
            returned: list[Any] = []
            structure: Any = None
        elif isinstance(result, tuple):
            returned = list(result)
            structure = tuple
        else:
            returned = [result]
            structure = "one"
        slots: list[Any] = []   # per returned item: ("arg", k) or ("out", n)
        out_vars: list[_Var] = []
        for r in returned:
            if not _is_traced(r):
                raise NotFusable("the function returns something else than "
                                 "arrays")
            v = program._input(r._handle)
            if v.dtype != r._dtype or v.shape != r._shape:
                raise NotFusable("the trace disagrees with the arrays")
            p = program._handle_param.get(r._handle)
            if p is not None and not p.by_value and (
                    v is p.var or v is p.written):
                slots.append(("arg", p.k))  # the caller's array itself
                continue
            if v in out_vars:
                slots.append(("out", out_vars.index(v)))
            else:
                slots.append(("out", len(out_vars)))
                out_vars.append(v)
        writes = [p for p in program.params if p.written is not None]
        if not out_vars and not writes:
            return None  # nothing to compute: unfused is as fast
        roots = out_vars + [p.written for p in writes]  # type: ignore[misc]
        pre_stmts, post_stmts, pre, post = program.live(roots)
        name = re.sub(r"\W", "_", self.name)
        if not re.match(r"[A-Za-z_]", name):
            name = "_" + name
        if program.reduction is None:
            decl, takes = _elementwise(program, pre_stmts, pre, out_vars,
                                       writes, name)
            reduce = None
        else:
            decl, takes = _reduction_kernel(program, pre_stmts, post_stmts,
                                            pre, post, out_vars, name)
            reduce = program.reduction
        kernel = self._kernels.get(decl)
        if kernel is None:
            kernel = self._kernels[decl] = (
                ElementwiseKernel if reduce is None else ReductionKernel)(*decl)
        return _Plan(kernel, takes, (structure, slots), reduce,
                     [p.k for p in writes])

    # -- running -------------------------------------------------------

    def _run(self, plan: _Plan, args: tuple[Any, ...]) -> Any:
        kargs = [args[k] for k, _ in plan.takes]
        if plan.reduce is None:
            outs = plan.kernel(*kargs)
            if not isinstance(outs, tuple):
                outs = () if outs is None else (outs,)
        else:
            outs = plan.kernel._run(kargs, None, plan.reduce["axes"],
                                    plan.reduce["keepdims"], None)
        structure, slots = plan.returns
        values = [args[i] if kind == "arg" else outs[i] for kind, i in slots]
        if structure is None:
            return None
        if structure is tuple:
            return tuple(values)
        return values[0]


def _elementwise(program: _Program, stmts: list[_Var], pre: set[str],
                 out_vars: list[_Var], writes: list[_Param], name: str
                 ) -> tuple[tuple[Any, ...], list[tuple[int, bool]]]:
    """The ElementwiseKernel (its arguments) of an elementwise program, and
    the call's arguments it takes."""
    used = [p for p in program.params
            if p.var.name in pre or p.written is not None]
    shapes = [p.shape for p in used if not p.by_value]
    loop = _broadcast(*shapes, *(v.shape for v in out_vars))
    if any(v.shape != loop for v in out_vars) or any(
            p.shape != loop for p in writes):
        raise NotFusable("outputs of different shapes")
    if not shapes:
        raise NotFusable("no array parameter")
    in_params = ", ".join(
        f"{'_non_const ' if p.written is not None else ''}"
        f"{p.dtype.name} {p.var.name}" for p in used)
    out_params = ", ".join(f"{v.dtype.name} _y{n}"
                           for n, v in enumerate(out_vars))
    body = [v.line for v in stmts if v.line is not None]
    body += [f"{p.var.name} = {p.written.name};" for p in writes
             if p.written is not p.var]  # type: ignore[union-attr]
    body += [f"_y{n} = {v.name};" for n, v in enumerate(out_vars)]
    decl = (in_params, out_params, "\n    ".join(body), name, True,
            _functors(), False, True)  # reduce_dims, preamble, return_tuple
    return decl, [(p.k, p.by_value) for p in used]


def _reduction_kernel(program: _Program, pre_stmts: list[_Var],
                      post_stmts: list[_Var], pre: set[str], post: set[str],
                      out_vars: list[_Var], name: str
                      ) -> tuple[tuple[Any, ...], list[tuple[int, bool]]]:
    """The ReductionKernel of a program with one reduction: the ops before
    it in _pre_map, the reduced value and the ops after it in _post_map."""
    red = program.reduction
    assert red is not None
    if any(v.phase == 0 for v in out_vars):
        raise NotFusable("an output before the reduction")
    if any(v.shape != red["shape"] for v in out_vars):
        raise NotFusable("outputs of different shapes")
    arrays = [p for p in program.params if p.var.name in pre and not p.by_value]
    by_value = [p for p in program.params if p.by_value and
                (p.var.name in pre or p.var.name in post)]
    post_arrays = [p for p in program.params
                   if p.var.name in post and not p.by_value]
    if any(p.shape != () for p in post_arrays):
        raise NotFusable("an input array after the reduction")
    loop = _broadcast(*(p.shape for p in arrays)) if arrays else None
    if loop != red["input"].shape:
        raise NotFusable("the reduced value has another shape than the inputs")
    acc, rdt = red["acc"], red["rdt"]
    pre_lines = [v.line for v in pre_stmts if v.line]
    post_lines = [v.line for v in post_stmts if v.line]
    pre_sig = ", ".join(f"const {typename(p.dtype)} {p.var.name}"
                        for p in arrays + by_value)
    post_sig = ", ".join(
        [f"const {acc} _acc", "const double _count"]
        + [f"const {typename(p.dtype)} {p.var.name}"
           for p in by_value + post_arrays]
        + [f"{typename(v.dtype)} &_y{n}" for n, v in enumerate(out_vars)])
    if red["op"] == "mean":
        real = "float" if acc in ("float", "complex<float>") else "double"
        result = f"arrayd_cast<{typename(rdt)}>(_acc / static_cast<{real}>(_count))"
    else:
        result = f"arrayd_cast<{typename(rdt)}>(_acc)"
    indent = "\n  "
    preamble = (
        f"{_functors()}\n"
        f"__device__ {acc} _pre_map({pre_sig}) {{\n  "
        + indent.join(pre_lines)
        + f"\n  return arrayd_cast<{acc}>({red['input'].name});\n}}\n"
        f"__device__ void _post_map({post_sig}) {{\n  "
        + indent.join([f"const {typename(rdt)} _red = {result};"]
                      + post_lines
                      + [f"_y{n} = {v.name};" for n, v in enumerate(out_vars)])
        + "\n}\n")
    in_params = ", ".join(
        [f"{p.dtype.name} {p.var.name}" for p in arrays + by_value]
        + [f"raw {p.dtype.name} _r{p.k}" for p in post_arrays])
    out_params = ", ".join(f"{v.dtype.name} _y{n}"
                           for n, v in enumerate(out_vars))
    map_expr = ("_pre_map(" + ", ".join(p.var.name for p in arrays + by_value)
                + ")")
    post_expr = ("_post_map(a, static_cast<double>(_in_ind.size() / "
                 "_out_ind.size())"
                 + "".join(f", {p.var.name}" for p in by_value)
                 + "".join(f", _r{p.k}[0]" for p in post_arrays)
                 + "".join(f", _y{n}" for n in range(len(out_vars))) + ")")
    fold, identity = _FOLDS[red["op"]]
    decl = (in_params, out_params, map_expr, fold, post_expr, identity, name,
            acc, True, preamble)  # reduce_type, reduce_dims, preamble
    takes = ([(p.k, False) for p in arrays] + [(p.k, True) for p in by_value]
             + [(p.k, False) for p in post_arrays])
    return decl, takes


def _aliased(args: tuple[Any, ...], writes: list[int]) -> bool:
    """Whether an array written in place shares memory with another
    argument (then threads would read elements others write: unfused)."""
    def root(a: Any) -> Any:
        return a._base if a._base is not None else a

    for k in writes:
        r = root(args[k])
        for j, a in enumerate(args):
            if j != k and isinstance(a, ndarray) and root(a) is r:
                return True
    return False


def _user_kernels(session: Any) -> bool:
    """Whether fused kernels may run on the session's server: a CUDA
    server that has not refused user kernels (--allow-user-kernels)."""
    allowed = getattr(session, "fuse_user_kernels", None)
    if allowed is None:
        try:
            allowed = session.capabilities.active_backend == "cuda"
        except Exception:
            allowed = False
        session.fuse_user_kernels = allowed
    return bool(allowed)


def _refused(e: BaseException) -> bool:
    """Whether an error is the server refusing user kernels (not a bug)."""
    text = str(e)
    return "allow-user-kernels" in text or "need a CUDA server" in text or (
        isinstance(e, NotImplementedError) and "user kernels" in text)


def fuse(*args: Any, **kwargs: Any) -> Any:
    """Decorator that fuses a function into one kernel (cupy.fuse):
    ``@fuse``, ``@fuse()`` or ``@fuse(kernel_name='name')``.

    On a CUDA server started with --allow-user-kernels, the elementwise
    ufuncs of the function (and one final reduction: sum, prod, mean, max,
    min, all, any, then elementwise ops of its result) run as one
    generated kernel per argument signature. Elsewhere, and for what one
    kernel cannot do, the function runs unfused with the same results.
    """
    def wrap(f: Callable[..., Any], kernel_name: str | None = None) -> Fusion:
        return functools.update_wrapper(Fusion(f, kernel_name), f)

    if len(args) == 1 and not kwargs and callable(args[0]):
        return wrap(args[0])
    return lambda f: wrap(f, *args, **kwargs)
