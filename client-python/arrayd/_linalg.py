"""Products: matmul dot vdot inner outer tensordot kron einsum cross.

Everything reduces to the server's ``matmul`` (NumPy's batching and 1-D
rules) plus views, elementwise ops and reductions, as NumPy's own
tensordot and kron do (numpy/_core/numeric.py, lib/_shape_base_impl.py).

Layer: functions (imports the core, _composite, _math, _reduction and
_manipulation). Attaches ndarray.dot and the ``@`` operators. Norms are in
_decompositions (the matrix 2-norm needs the SVD).
"""
from __future__ import annotations

import builtins
import functools
from typing import Any

import numpy as np

from arrayd import _composite as _c
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd import _shapes
from arrayd._manipulation import moveaxis, stack
from arrayd._ndarray import (OPERAND_TYPES, asarray_in, attach, ndarray,
                             session_of)


def _matmul_shape(sa: tuple[int, ...], sb: tuple[int, ...]) -> tuple[int, ...]:
    for i, sh in enumerate((sa, sb)):
        if len(sh) == 0:
            raise ValueError(
                f"matmul: Input operand {i} does not have enough dimensions "
                f"(has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) "
                f"requires 1)")
    a = (1,) + sa if len(sa) == 1 else sa
    b = sb + (1,) if len(sb) == 1 else sb
    if a[-1] != b[-2]:
        raise ValueError(
            f"matmul: Input operand 1 has a mismatch in its core dimension 0, "
            f"with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {b[-2]} is "
            f"different from {a[-1]})")
    ba, bb = a[:-2], b[:-2]
    batch = _shapes.broadcast(ba, bb)
    return (batch + (() if len(sa) == 1 else (a[-2],))
            + (() if len(sb) == 1 else (b[-1],)))


# np.matmul's result dtype by input dtypes (resolve_dtypes costs ~2 us).
_MATMUL_DTYPES: dict[tuple[np.dtype, np.dtype], np.dtype] = {}


def matmul(x1: Any, x2: Any, /, out: Any = None) -> ndarray:
    """numpy.matmul (the ``@`` operator)."""
    s = session_of(x1, x2, out)
    a, b = asarray_in(s, x1), asarray_in(s, x2)
    pair = (a._dtype, b._dtype)
    rdt = _MATMUL_DTYPES.get(pair)
    if rdt is None:
        rdt = np.matmul.resolve_dtypes((a._dtype, b._dtype, None))[2]
        _MATMUL_DTYPES[pair] = rdt
    shape = _matmul_shape(a._shape, b._shape)
    if a._dtype != rdt:
        a = a.astype(rdt)
    if b._dtype != rdt:
        b = b.astype(rdt)
    r = _c.new(s, "matmul", (a, b), shape, rdt)
    return r if out is None else _c.assign(out, r, "matmul")


def tensordot(a: Any, b: Any, axes: Any = 2) -> ndarray:
    """numpy.tensordot: sum over the given axes (transpose, reshape,
    one matmul)."""
    s = session_of(a, b)
    a, b = asarray_in(s, a), asarray_in(s, b)
    try:
        iter(axes)
    except TypeError:
        n = int(axes)
        if n < 0:
            raise ValueError("negative axes are not supported") from None
        axes_a = list(range(-n, 0))
        axes_b = list(range(0, n))
    else:
        axes_a, axes_b = axes
    axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(
        axes_a)
    axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(
        axes_b)
    na, nb = a.ndim, b.ndim
    if len(axes_a) != len(axes_b):
        raise ValueError("shape-mismatch for sum")
    axes_a = [x + na if x < 0 else x for x in axes_a]
    axes_b = [x + nb if x < 0 else x for x in axes_b]
    for x, y in zip(axes_a, axes_b):
        if not (0 <= x < na and 0 <= y < nb) or a._shape[x] != b._shape[y]:
            raise ValueError("shape-mismatch for sum")
    notin_a = [k for k in range(na) if k not in axes_a]
    notin_b = [k for k in range(nb) if k not in axes_b]
    k = 1
    for ax in axes_a:
        k *= a._shape[ax]
    m = 1
    for ax in notin_a:
        m *= a._shape[ax]
    n = 1
    for ax in notin_b:
        n *= b._shape[ax]
    at = a.transpose(notin_a + axes_a).reshape(m, k)
    bt = b.transpose(axes_b + notin_b).reshape(k, n)
    res = matmul(at, bt)
    return res.reshape(tuple(a._shape[i] for i in notin_a)
                       + tuple(b._shape[i] for i in notin_b))


def dot(a: Any, b: Any, out: Any = None) -> ndarray:
    """numpy.dot."""
    s = session_of(a, b, out)
    a, b = asarray_in(s, a), asarray_in(s, b)
    if a.ndim == 0 or b.ndim == 0:
        return _m.multiply(a, b, out=out)
    if out is not None:
        rdt = np.result_type(a._dtype, b._dtype)
        shape = a._shape[:-1] + (b._shape[:-2] + b._shape[-1:]
                                 if b.ndim > 1 else ())
        if not isinstance(out, ndarray) or out.dtype != rdt or \
                out.shape != shape or not out.flags.c_contiguous:
            raise ValueError("output array is not acceptable (must have the "
                             "right datatype, number of dimensions, and be a "
                             "C-Array)")
    if b.ndim <= 2:
        if a._shape[-1] != b._shape[0]:
            raise ValueError(f"shapes {a._shape} and {b._shape} not aligned: "
                             f"{a._shape[-1]} (dim {a.ndim - 1}) != "
                             f"{b._shape[0]} (dim 0)")
        r = matmul(a, b)
    else:
        if a._shape[-1] != b._shape[-2]:
            raise ValueError(f"shapes {a._shape} and {b._shape} not aligned: "
                             f"{a._shape[-1]} (dim {a.ndim - 1}) != "
                             f"{b._shape[-2]} (dim {b.ndim - 2})")
        rdt = np.result_type(a._dtype, b._dtype)
        r = tensordot(a.astype(rdt, copy=False), b.astype(rdt, copy=False),
                      ([a.ndim - 1], [b.ndim - 2]))
    return r if out is None else _c.assign(out, r, "dot")


def vdot(a: Any, b: Any, /) -> ndarray:
    """numpy.vdot: dot of the flattened arrays, the first conjugated."""
    s = session_of(a, b)
    a, b = asarray_in(s, a), asarray_in(s, b)
    if a.size != b.size:
        raise ValueError("vectors have different lengths")
    if a._dtype.kind == "c":
        a = _m.conjugate(a)
    return matmul(a.reshape(-1), b.reshape(-1))


def inner(a: Any, b: Any, /) -> ndarray:
    """numpy.inner: sum over the last axes."""
    s = session_of(a, b)
    a, b = asarray_in(s, a), asarray_in(s, b)
    if a.ndim == 0 or b.ndim == 0:
        return _m.multiply(a, b)
    if a._shape[-1] != b._shape[-1]:
        raise ValueError(f"shapes {a._shape} and {b._shape} not aligned: "
                         f"{a._shape[-1]} (dim {a.ndim - 1}) != "
                         f"{b._shape[-1]} (dim {b.ndim - 1})")
    rdt = np.result_type(a._dtype, b._dtype)
    return tensordot(a.astype(rdt, copy=False), b.astype(rdt, copy=False),
                     ([-1], [-1]))


def outer(a: Any, b: Any, out: Any = None) -> ndarray:
    """numpy.outer: a.ravel()[:, None] * b.ravel()[None, :]."""
    s = session_of(a, b, out)
    a, b = asarray_in(s, a), asarray_in(s, b)
    return _m.multiply(a.reshape(-1, 1), b.reshape(1, -1), out=out)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> ndarray:
    """numpy.vecdot / numpy.linalg.vecdot: sum(conj(x1) * x2) along axis,
    the other dimensions broadcast."""
    s = session_of(x1, x2)
    a, b = asarray_in(s, x1), asarray_in(s, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("vecdot: Input operand does not have enough "
                         "dimensions")
    nd = builtins.max(a.ndim, b.ndim)
    ax = axis + nd if axis < 0 else axis
    if not 0 <= ax < nd:
        raise np.exceptions.AxisError(axis, nd)
    a = a.reshape((1,) * (nd - a.ndim) + a._shape)
    b = b.reshape((1,) * (nd - b.ndim) + b._shape)
    if a._shape[ax] != b._shape[ax]:
        raise ValueError(
            f"vecdot: Input operand 1 has a mismatch in its core dimension "
            f"0, with gufunc signature (n),(n)->() (size {b._shape[ax]} is "
            f"different from {a._shape[ax]})")
    if a._dtype.kind == "c":
        a = _m.conjugate(a)
    return _r.sum(_m.multiply(a, b), axis=ax)


@functools.cache
def _numpy_cross_takes_2d() -> bool:
    """Whether the installed NumPy still takes 2-element vectors in cross
    (deprecated in NumPy 2.0, removed later)."""
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            np.cross([1.0, 0.0], [0.0, 1.0])
    except ValueError:
        return False
    return True


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: Any = None) -> ndarray:
    """numpy.cross of 3-element vectors (and 2-element ones, whose product
    is the scalar z component, deprecated in NumPy 2)."""
    s = session_of(a, b)
    a, b = asarray_in(s, a), asarray_in(s, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    na, nb = a._shape[-1], b._shape[-1]
    if not _numpy_cross_takes_2d():
        if na != 3 or nb != 3:
            raise ValueError(
                "Both input arrays must be (arrays of) 3-dimensional vectors, "
                f"but they are {na} and {nb} dimensional instead.")
    elif na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if na == 2 or nb == 2:
        import warnings
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use "
                      "arrays of 3-dimensional vectors instead. (deprecated "
                      "in NumPy 2.0)", DeprecationWarning, stacklevel=2)

    def comp(x: ndarray, i: int) -> Any:  # a missing third component: 0
        return x[..., i] if i < x._shape[-1] else _c.const(s, 0, x._dtype)

    a0, a1, a2 = (comp(a, i) for i in range(3))
    b0, b1, b2 = (comp(b, i) for i in range(3))
    z = _m.subtract(_m.multiply(a0, b1), _m.multiply(a1, b0))
    if na == 2 and nb == 2:
        return z
    x = _m.subtract(_m.multiply(a1, b2), _m.multiply(a2, b1))
    y = _m.subtract(_m.multiply(a2, b0), _m.multiply(a0, b2))
    x, y, z = (_m.add(v, _m.multiply(z, 0)) for v in (x, y, z))  # one shape
    return moveaxis(stack([x, y, z], axis=-1), -1, axisc)


def linalg_cross(x1: Any, x2: Any, /, *, axis: int = -1) -> ndarray:
    """numpy.linalg.cross: 3-element vectors only."""
    s = session_of(x1, x2)
    a, b = asarray_in(s, x1), asarray_in(s, x2)
    if a._shape[axis] != 3 or b._shape[axis] != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, "
            f"but they are {a._shape[axis]} and {b._shape[axis]} "
            "dimensional instead.")
    return cross(a, b, axis=axis)


def kron(a: Any, b: Any) -> ndarray:
    """numpy.kron: Kronecker product (interleaved outer product)."""
    s = session_of(a, b)
    a, b = asarray_in(s, a), asarray_in(s, b)
    nd = builtins.max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a._shape
    sb = (1,) * (nd - b.ndim) + b._shape
    ia = []
    ib = []
    for x, y in zip(sa, sb):
        ia += [x, 1]
        ib += [1, y]
    r = _m.multiply(a.reshape(tuple(ia)), b.reshape(tuple(ib)))
    return r.reshape(tuple(x * y for x, y in zip(sa, sb)))


# -- einsum ----------------------------------------------------------------

# Iteration spaces up to this size are checked by NumPy's own einsum on
# data-less stand-ins (its exact errors); larger ones by einsum_path.
_EINSUM_PROBE = 1 << 16
_EINSUM_OPTIMIZE_STRINGS = ("greedy", "optimal")


def _stand_in(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A read-only numpy array of ``shape`` backed by one element."""
    return np.lib.stride_tricks.as_strided(
        np.zeros(1, dtype), shape, (0,) * len(shape), writeable=False)


class _Operand:
    """Where an operand stands in einsum's argument list."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


def _stand_ins(marked: list[Any], operands: list[ndarray],
               full: bool) -> list[Any]:
    """The arguments with data-less operands of the real shapes (or all
    dimensions 1)."""
    out = []
    for m in marked:
        if isinstance(m, _Operand):
            x = operands[m.index]
            out.append(_stand_in(x._shape if full else (1,) * x.ndim,
                                 x._dtype))
        else:
            out.append(m)
    return out


def _einsum_args(args: tuple[Any, ...], s: Any) -> tuple[
        list[Any], list[ndarray]]:
    """The call's arguments with each operand replaced by its position
    marker, and the operands as arrayd arrays (array-likes uploaded)."""
    if not args:
        return [], []
    operands: list[ndarray] = []
    marked: list[Any] = []
    string_form = isinstance(args[0], str)
    for i, x in enumerate(args):
        # (operand, sublist) pairs, then the output sublist if any.
        is_operand = (i > 0) if string_form else (
            i % 2 == 0 and i < len(args) - len(args) % 2)
        if is_operand:
            operands.append(asarray_in(s, x))
            marked.append(_Operand(len(operands) - 1))
        else:
            marked.append(x)
    return marked, operands


def _einsum_single(x: ndarray, t: str, keep: str) -> tuple[ndarray, str]:
    """Takes repeated-index diagonals and sums indices not in ``keep``."""
    while True:
        dup = next((c for c in t if t.count(c) > 1), None)
        if dup is None:
            break
        i = t.index(dup)
        j = t.index(dup, i + 1)
        x = _c.diagonal(x, 0, i, j)
        t = "".join(c for k, c in enumerate(t) if k not in (i, j)) + dup
    drop = tuple(k for k, c in enumerate(t) if c not in keep)
    if drop:
        x = _r.sum(x, drop, x._dtype)
        t = "".join(c for c in t if c in keep)
    return x, t


def _einsum_pair(a: ndarray, ta: str, b: ndarray, tb: str,
                 keep: str) -> tuple[ndarray, str]:
    """The product of two operands (no repeated indices within either),
    summed over the shared indices not in ``keep``: one batched matmul."""
    (wa, wb, pa, pb, sa3, sb3, rshape,
     terms) = _pair_plan(ta, a._shape, tb, b._shape, keep)
    if wa is not None:
        a = a.view_as_broadcast(wa)
    if wb is not None:
        b = b.view_as_broadcast(wb)
    if pa is not None:
        a = a.transpose(pa)
    if pb is not None:
        b = b.transpose(pb)
    r = matmul(_reshaped(a, sa3), _reshaped(b, sb3))
    return _reshaped(r, rshape), terms


@functools.lru_cache(maxsize=256)
def _pair_plan(ta: str, sa: tuple[int, ...], tb: str, sb: tuple[int, ...],
               keep: str) -> tuple[Any, ...]:
    """_einsum_pair's views, by the terms and shapes: the broadcast shapes
    of a and b (None: as they are), their permutations (None: identity),
    the matmul operands' shapes, the result's shape and its terms."""
    sizes: dict[str, int] = {}
    for shape, t in ((sa, ta), (sb, tb)):
        for c, n in zip(t, shape):
            prev = sizes.get(c)
            sizes[c] = n if prev is None or prev == 1 else prev

    def widen(shape: tuple[int, ...], t: str, other: str) -> Any:
        # Size-1 dimensions of shared indices broadcast (NumPy's einsum).
        full = tuple(sizes[c] if c in other else n for c, n in zip(t, shape))
        return None if full == shape else full

    batch = [c for c in ta if c in tb and c in keep]
    contract = [c for c in ta if c in tb and c not in keep]
    left = [c for c in ta if c not in tb]
    right = [c for c in tb if c not in ta]

    def perm(t: str, order: list[str]) -> Any:
        p = [t.index(c) for c in order]
        return None if p == list(range(len(p))) else p

    def prod(cs: list[str]) -> int:
        n = 1
        for c in cs:
            n *= sizes[c]
        return n

    bshape = tuple(sizes[c] for c in batch)
    return (widen(sa, ta, tb), widen(sb, tb, ta),
            perm(ta, batch + left + contract),
            perm(tb, batch + contract + right),
            bshape + (prod(left), prod(contract)),
            bshape + (prod(contract), prod(right)),
            bshape + tuple(sizes[c] for c in left)
            + tuple(sizes[c] for c in right),
            "".join(batch + left + right))


def _reshaped(x: ndarray, shape: tuple[int, ...]) -> ndarray:
    """x.reshape(shape), or x itself when it has that shape already."""
    return x if x._shape == shape else x.reshape(shape)


def _einsum_group(group: list[tuple[ndarray, str]],
                  keep: str) -> tuple[ndarray, str]:
    """Contracts the operands of one step of the path, left to right."""
    terms = [t for _, t in group]
    cur, tcur = None, ""
    for i, (x, t) in enumerate(group):
        later = keep + "".join(terms[i + 1:])
        x, t = _einsum_single(x, t, later + tcur)
        if cur is None:
            cur, tcur = x, t
        else:
            cur, tcur = _einsum_pair(cur, tcur, x, t, later)
    assert cur is not None
    return _einsum_single(cur, tcur, keep)


def _einsum_path(marked: list[Any], operands: list[ndarray],
                 optimize: Any) -> tuple[list[str], str, list[Any]]:
    """numpy.einsum_path on stand-ins: the terms (ellipses spelled out,
    NumPy's implicit output) and the contraction order."""
    stand = _stand_ins(marked, operands, True)
    if optimize is False or optimize is None:
        opt: Any = "greedy"
    else:
        opt = optimize
    path, info = np.einsum_path(*stand, optimize=opt)
    line = next(x for x in info.splitlines() if "Complete contraction" in x)
    expr = line.split(":", 1)[1].strip()
    lhs, rhs = expr.split("->")
    return lhs.split(","), rhs, list(path[1:])


def _einsum_check(marked: list[Any], operands: list[ndarray], out: Any,
                  dtype: Any, order: str, casting: str) -> np.dtype:
    """NumPy's errors and result dtype, from its own einsum on data-less
    stand-ins (full shapes when the iteration space is small)."""
    work = 1
    for x in operands:
        work *= builtins.max(x.size, 1)
    small = work <= _EINSUM_PROBE
    stand = _stand_ins(marked, operands, small)
    kw: dict[str, Any] = {"casting": casting, "order": order}
    if dtype is not None:
        kw["dtype"] = dtype
    if out is not None and small:
        if not isinstance(out, ndarray):
            raise TypeError("out must be an arrayd.ndarray")
        kw["out"] = np.empty(out._shape, out._dtype)
    r = np.einsum(*stand, **kw)
    rdt = np.asarray(r).dtype
    if out is not None and not small:
        if not np.can_cast(rdt, out._dtype, casting):
            raise TypeError(f"Cannot cast array data from {rdt!r} to "
                            f"{out._dtype!r} according to the rule "
                            f"{casting!r}")
    return rdt


# The checked dtype and contraction path of einsum calls by their
# subscripts, operand shapes and dtypes and options: NumPy's einsum and
# einsum_path on stand-ins cost about 60 us a call.
_EINSUM_PLANS: dict[Any, tuple[np.dtype, list[str], str, list[Any]]] = {}
_EINSUM_PLANS_SIZE = 256


def _einsum_key(marked: list[Any], operands: list[ndarray], out: Any,
                dtype: Any, order: str, casting: str,
                optimize: Any) -> Any:
    """The _EINSUM_PLANS key of a call, or None when it is not cached:
    unsafe casting (whose ComplexWarning NumPy gives every call), paths
    given as lists, unhashable arguments."""
    if casting == "unsafe" or isinstance(optimize, (list, tuple)):
        return None
    parts: list[Any] = []
    for m in marked:
        if isinstance(m, _Operand):
            x = operands[m.index]
            parts.append((x._shape, x._dtype))
        elif isinstance(m, str):
            parts.append(m)
        elif isinstance(m, (list, tuple)):
            parts.append(("sub", type(m), tuple(
                (type(v), v) for v in m)))
        else:
            return None
    if out is not None:
        if not isinstance(out, ndarray):
            return None
        parts.append(("out", out._shape, out._dtype))
    key = (tuple(parts), type(dtype), dtype, order, casting,
           type(optimize), optimize)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def einsum(*operands: Any, out: Any = None, dtype: Any = None,
           order: str = "K", casting: str = "safe",
           optimize: Any = False) -> ndarray:
    """numpy.einsum: the subscripts string (explicit or implicit output,
    '...') or the operand-sublist form; ``optimize`` False/True/'greedy'/
    'optimal'/a path picks the order of the pairwise contractions
    (NumPy's einsum_path), each one matmul on the server. dtype= and
    casting= as NumPy's; a unary permutation is a view, as in NumPy."""
    s = session_of(*operands, out)
    marked, ops = _einsum_args(operands, s)
    if not isinstance(optimize, (bool, str, list, tuple)) and \
            optimize is not None:
        raise TypeError(f"Did not understand the path: {optimize}")
    key = _einsum_key(marked, ops, out, dtype, order, casting, optimize)
    plan = _EINSUM_PLANS.get(key) if key is not None else None
    if plan is None:
        rdt = _einsum_check(marked, ops, out, dtype, order, casting)
        terms, rhs, path = _einsum_path(marked, ops, optimize)
        if key is not None:
            if len(_EINSUM_PLANS) >= _EINSUM_PLANS_SIZE:
                _EINSUM_PLANS.clear()
            _EINSUM_PLANS[key] = (rdt, terms, rhs, path)
    else:
        rdt, terms, rhs, path = plan
    ops = [x.astype(rdt, copy=False) for x in ops]
    if len(ops) == 1 and rhs and set(terms[0]) == set(rhs) and \
            len(set(rhs)) == len(rhs):
        # Nothing summed: a permutation and diagonals of the one operand,
        # NumPy's result is a view of it (as_strided: each output index's
        # stride is the sum of its input axes' strides).
        x, t = ops[0], terms[0]
        st = x._full_strides()
        shape = tuple(x._shape[t.index(c)] for c in rhs)
        strides = tuple(sum(st[k] for k, d in enumerate(t) if d == c)
                        for c in rhs)
        r = x._unary_view("as_strided", shape, {
            "shape": list(shape), "strides": list(strides)},
            strides=strides)
        return r if out is None else _c.assign(out, r, "einsum")
    current = list(zip(ops, terms))
    for step in path:
        group = [current.pop(i) for i in sorted(step, reverse=True)][::-1]
        keep = rhs + "".join(t for _, t in current)
        current.append(_einsum_group(group, keep))
    while len(current) > 1:  # a path that stops early: the rest together
        current = [_einsum_group(current, rhs)]
    cur, tcur = _einsum_single(*current[0], rhs)
    if tcur != rhs:
        cur = cur.transpose([tcur.index(c) for c in rhs])
    if cur._dtype != rdt:
        cur = cur.astype(rdt)
    if cur is ops[0] or cur._base is not None:
        cur = cur.copy("F" if order in ("F", "f") else "C")
    return cur if out is None else _c.assign(out, cur, "einsum")


__all__ = ["dot", "einsum", "inner", "kron", "matmul", "outer",
           "tensordot", "vdot"]


def _matmul(self: ndarray, o: Any) -> Any:
    return matmul(self, o) if isinstance(o, OPERAND_TYPES) else NotImplemented


def _rmatmul(self: ndarray, o: Any) -> Any:
    return matmul(o, self) if isinstance(o, OPERAND_TYPES) else NotImplemented


def _imatmul(self: ndarray, o: Any) -> Any:
    return (matmul(self, o, out=self) if isinstance(o, OPERAND_TYPES)
            else NotImplemented)


attach(dot=dot, __matmul__=_matmul, __rmatmul__=_rmatmul,
       __imatmul__=_imatmul)
