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
import string
from typing import Any, Sequence

import numpy as np

from arrayd import _composite as _c
from arrayd import _math as _m
from arrayd import _reduction as _r
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
    batch = np.broadcast_shapes(a[:-2], b[:-2])
    return (batch + (() if len(sa) == 1 else (a[-2],))
            + (() if len(sb) == 1 else (b[-1],)))


def matmul(x1: Any, x2: Any, /, out: Any = None) -> ndarray:
    """numpy.matmul (the ``@`` operator)."""
    s = session_of(x1, x2, out)
    a, b = asarray_in(s, x1), asarray_in(s, x2)
    rdt = np.matmul.resolve_dtypes((a._dtype, b._dtype, None))[2]
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
        shape = a._shape[:-1] + b._shape[:-2] + b._shape[-1:]
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

    def comp(x: ndarray, i: int) -> Any:
        return x[..., i] if i < x._shape[-1] else 0

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

def _parse_einsum(subscripts: str, ndims: Sequence[int]) -> tuple[
        list[str], str]:
    sub = subscripts.replace(" ", "")
    if "->" in sub:
        lhs, rhs = sub.split("->")
        explicit = True
    else:
        lhs, rhs, explicit = sub, "", False
    terms = lhs.split(",")
    if len(terms) != len(ndims):
        raise ValueError("more operands provided to einstein sum function "
                         "than specified in the subscripts string"
                         if len(terms) < len(ndims) else
                         "fewer operands provided to einstein sum function "
                         "than specified in the subscripts string")
    used = set(c for c in lhs + rhs if c.isalpha())
    free = [c for c in string.ascii_letters if c not in used]
    n_ell = 0
    for t, nd in zip(terms, ndims):
        if "..." in t:
            n_ell = builtins.max(n_ell, nd - (len(t) - 3))
    ell = "".join(free[:n_ell])
    out_terms = []
    for t, nd in zip(terms, ndims):
        if "..." in t:
            k = nd - (len(t) - 3)
            t = t.replace("...", ell[n_ell - k:] if k else "")
        for c in t:
            if not c.isalpha():
                raise ValueError(f"invalid subscript '{c}' in einstein sum "
                                 f"subscripts string, subscripts must be "
                                 f"letters")
        if len(t) != nd:
            raise ValueError("operand has more dimensions than subscripts "
                             "given in einstein sum, but no '...' ellipsis "
                             "provided to broadcast the extra dimensions."
                             if nd > len(t) else
                             "einstein sum subscripts string contains too "
                             "many subscripts for operand")
        out_terms.append(t)
    if explicit:
        rhs = rhs.replace("...", ell)
        for c in rhs:
            if not any(c in t for t in out_terms):
                raise ValueError(f"einstein sum subscripts string included "
                                 f"output subscript '{c}' which never "
                                 f"appeared in an input")
    else:
        counts: dict[str, int] = {}
        for t in out_terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        rhs = ell + "".join(sorted(c for c, k in counts.items()
                                   if k == 1 and c not in ell))
    return out_terms, rhs


def _einsum_single(x: ndarray, t: str, keep: str) -> tuple[ndarray, str]:
    """Takes repeated-index diagonals and sums indices not in ``keep``."""
    while True:
        dup = next((c for c in t if t.count(c) > 1), None)
        if dup is None:
            break
        i = t.index(dup)
        j = t.index(dup, i + 1)
        if x._shape[i] != x._shape[j]:
            raise ValueError(f"dimensions in operand for collapsing index "
                             f"'{dup}' don't match ({x._shape[i]} != "
                             f"{x._shape[j]})")
        x = _c.diagonal(x, 0, i, j)
        t = "".join(c for k, c in enumerate(t) if k not in (i, j)) + dup
    drop = tuple(k for k, c in enumerate(t) if c not in keep)
    if drop:
        x = _r.sum(x, drop, x._dtype)
        t = "".join(c for c in t if c in keep)
    return x, t


def _einsum_pair(a: ndarray, ta: str, b: ndarray, tb: str,
                 keep: str) -> tuple[ndarray, str]:
    sizes = {}
    for x, t in ((a, ta), (b, tb)):
        for c, n in zip(t, x._shape):
            if sizes.get(c, n) != n and 1 not in (sizes[c], n):
                raise ValueError(f"operands could not be broadcast together "
                                 f"with remapped shapes (index '{c}': "
                                 f"{sizes[c]} != {n})")
            sizes[c] = builtins.max(sizes.get(c, n), n)
    batch = [c for c in ta if c in tb and c in keep]
    contract = [c for c in ta if c in tb and c not in keep]
    left = [c for c in ta if c not in tb]
    right = [c for c in tb if c not in ta]
    at = a.transpose([ta.index(c) for c in batch + left + contract])
    bt = b.transpose([tb.index(c) for c in batch + contract + right])

    def prod(cs: list[str]) -> int:
        n = 1
        for c in cs:
            n *= sizes[c]
        return n

    bshape = tuple(sizes[c] for c in batch)
    at = at.view_as_broadcast(bshape + at._shape[len(batch):]) if any(
        at._shape[i] != sizes[c] for i, c in enumerate(batch)) else at
    bt = bt.view_as_broadcast(bshape + bt._shape[len(batch):]) if any(
        bt._shape[i] != sizes[c] for i, c in enumerate(batch)) else bt
    a3 = at.reshape(bshape + (prod(left), prod(contract)))
    b3 = bt.reshape(bshape + (prod(contract), prod(right)))
    r = matmul(a3, b3)
    r = r.reshape(bshape + tuple(sizes[c] for c in left)
                  + tuple(sizes[c] for c in right))
    return r, "".join(batch + left + right)


def einsum(subscripts: str, *operands: Any, out: Any = None,
           dtype: Any = None, optimize: Any = False, **kw: Any) -> ndarray:
    """numpy.einsum (explicit and implicit modes, '...'): diagonals, sums,
    transposes and pairwise contractions on the server's matmul."""
    if not isinstance(subscripts, str):
        raise NotImplementedError("einsum: only the subscripts-string form "
                                  "is supported")
    s = session_of(*operands, out)
    ops = [asarray_in(s, x) for x in operands]
    terms, rhs = _parse_einsum(subscripts, [x.ndim for x in ops])
    rdt = np.result_type(*[x._dtype for x in ops]) if dtype is None else (
        np.dtype(dtype))
    ops = [x.astype(rdt, copy=False) for x in ops]
    for c in rhs:
        if rhs.count(c) > 1:
            raise ValueError(f"einstein sum subscripts string includes "
                             f"output subscript '{c}' multiple times")
    # Reduce each operand to the indices needed later, then contract left
    # to right.
    cur, tcur = None, ""
    for i, (x, t) in enumerate(zip(ops, terms)):
        later = rhs + "".join(terms[i + 1:])
        keep = later + (tcur if cur is not None else "")
        x, t = _einsum_single(x, t, keep)
        if cur is None:
            cur, tcur = x, t
            continue
        keep2 = later
        cur, tcur = _einsum_pair(cur, tcur, x, t, keep2)
    assert cur is not None
    cur, tcur = _einsum_single(cur, tcur, rhs)
    if tcur != rhs:
        cur = cur.transpose([tcur.index(c) for c in rhs])
    if cur._dtype != rdt:
        cur = cur.astype(rdt)
    if cur is operands[0] or (len(ops) == 1 and cur is ops[0]):
        cur = cur.copy()
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
