"""Array layout with NumPy's rules: strides, contiguity, memory orders.

Layer: core (below _ndarray; imports nothing of the package). The server
lays its arrays out with the same rules (server/array/view.cc): a client
array's ``strides`` and ``flags`` are computed here, so they never wait for
the server, and tests/python/test_layout.py checks that both agree.

Strides are in bytes. ``None`` stands for "C-contiguous, as allocated" in
an ndarray, so the common case costs nothing on the op path.
"""
from __future__ import annotations

import functools
from typing import Sequence

Shape = tuple[int, ...]
Strides = tuple[int, ...]


def plain_shape_of(shape: tuple, old: Shape) -> bool:
    """Whether ``shape`` is a tuple of non-negative Python ints with as many
    elements as ``old`` (a valid reshape target with no -1 to resolve; at
    most 32 dimensions of at most 2^62, so that NumPy would take it too)."""
    if len(shape) > 32:
        return False
    n = 1
    for d in shape:
        if type(d) is not int or not 0 <= d <= (1 << 62):
            return False
        n *= d
    m = 1
    for d in old:
        m *= d
    return n == m


def c_strides(shape: Shape, itemsize: int) -> Strides:
    """The strides of a new C-ordered array (NumPy's: a zero-size array
    gets zero strides)."""
    out = [0] * len(shape)
    step = itemsize
    for i in range(len(shape) - 1, -1, -1):
        out[i] = step
        step *= shape[i]
    return (0,) * len(shape) if step == 0 else tuple(out)


def f_strides(shape: Shape, itemsize: int) -> Strides:
    """The strides of a new Fortran-ordered array."""
    out = [0] * len(shape)
    step = itemsize
    for i, n in enumerate(shape):
        out[i] = step
        step *= n
    return (0,) * len(shape) if step == 0 else tuple(out)


@functools.lru_cache(maxsize=1024)
def server_c_strides(shape: Shape, itemsize: int) -> Strides:
    """The C strides the server gives a new array (a zero-length axis
    counts as 1, unlike NumPy's all-zero strides of an empty array)."""
    return _in_order(shape, range(len(shape) - 1, -1, -1), itemsize)


def _in_order(shape: Shape, inner_first: Sequence[int],
              itemsize: int) -> Strides:
    out = [0] * len(shape)
    step = itemsize
    for ax in inner_first:
        out[ax] = step
        step *= max(shape[ax], 1)
    return tuple(out)


def _contiguous(shape: Shape, strides: Strides, itemsize: int,
                axes: Sequence[int]) -> bool:
    """Whether the axes, innermost first, are contiguous (dimensions of
    length 1 do not count; a zero-size array is contiguous)."""
    if 0 in shape:
        return True
    expected = itemsize
    for i in axes:
        n = shape[i]
        if n != 1:
            if strides[i] != expected:
                return False
            expected *= n
    return True


def is_c_contiguous(shape: Shape, strides: Strides, itemsize: int) -> bool:
    """NumPy's C_CONTIGUOUS flag."""
    return _contiguous(shape, strides, itemsize,
                       range(len(shape) - 1, -1, -1))


def is_f_contiguous(shape: Shape, strides: Strides, itemsize: int) -> bool:
    """NumPy's F_CONTIGUOUS flag."""
    return _contiguous(shape, strides, itemsize, range(len(shape)))


def like_strides(shape: Shape, strides: Strides | None, old_itemsize: int,
                 order: str, itemsize: int | None = None) -> Strides | None:
    """The strides of a new array (of ``itemsize``, default the same) like
    one of ``shape``, ``strides`` and ``old_itemsize`` in ``order`` (copy,
    astype, empty_like: NumPy's PyArray_NewLikeArray). None means C order.
    ``order`` is already normalized to C, F, A or K."""
    if itemsize is None:
        itemsize = old_itemsize
    if order == "C":
        return None
    if strides is None:
        c, f = True, is_f_contiguous(shape, c_strides(shape, 1), 1)
    else:
        c = is_c_contiguous(shape, strides, old_itemsize)
        f = is_f_contiguous(shape, strides, old_itemsize)
    if order == "A":
        order = "F" if f and not c else "C"
    elif order == "K":
        order = "C" if c else "F" if f else "K"
    if order == "C":
        return None
    if order == "F":
        return f_strides(shape, itemsize)
    outer_first = sorted(range(len(shape)), key=lambda i: -abs(strides[i]))
    return _in_order(shape, outer_first[::-1], itemsize)


def keep_order_strides(operands: Sequence[tuple[Shape, Strides | None]],
                       shape: Shape, itemsize: int) -> Strides | None:
    """The strides of an elementwise result of ``shape`` (NumPy's ufunc
    output, order='K') from its operands' (shape, strides), None for C.

    NumPy's iterator sorts the axes by |stride|, innermost first, with a
    stable insertion sort in which an operand has no say on an axis where
    its stride is 0 or its length 1, and C order wins a conflict.
    """
    nd = len(shape)
    if all(st is None for _, st in operands):
        return None
    ops = []
    for oshape, ostrides in operands:
        if ostrides is None:
            ostrides = server_c_strides(oshape, 1)
        lead = nd - len(oshape)
        ops.append([0 if i < lead or oshape[i - lead] == 1 or shape[i] == 1
                    else abs(ostrides[i - lead]) for i in range(nd)])
    perm = list(range(nd - 1, -1, -1))
    for i0 in range(1, nd):
        a0 = perm[i0]
        pos = i0
        for i1 in range(i0 - 1, -1, -1):
            a1 = perm[i1]
            ambiguous, swap = True, False
            for st in ops:
                s0, s1 = st[a0], st[a1]
                if s0 == 0 or s1 == 0:
                    continue
                if s1 <= s0:
                    swap = False
                elif ambiguous:
                    swap = True
                ambiguous = False
            if ambiguous:
                continue
            if not swap:
                break
            pos = i1
        if pos != i0:
            perm.insert(pos, perm.pop(i0))
    if perm == list(range(nd - 1, -1, -1)):
        return None
    return _in_order(shape, perm, itemsize)


def reshape_strides(shape: Shape, strides: Strides, itemsize: int,
                    new: Shape) -> Strides | None:
    """The strides of a no-copy reshape to ``new`` (C order), or None when
    the reshape needs a copy (NumPy's _attempt_nocopy_reshape)."""
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    newdims = list(new)
    out = [0] * len(newdims)
    oi = ni = 0
    oj = nj = 1
    while ni < len(newdims) and oi < len(old):
        np_ = newdims[ni]
        op = old[oi][0]
        while np_ != op:
            if np_ < op:
                np_ *= newdims[nj]
                nj += 1
            else:
                op *= old[oj][0]
                oj += 1
        for k in range(oi, oj - 1):
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        out[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            out[k - 1] = out[k] * newdims[k]
        ni, nj = nj, nj + 1
        oi, oj = oj, oj + 1
    last = out[ni - 1] if ni >= 1 else itemsize
    for k in range(ni, len(newdims)):
        out[k] = last
    return tuple(out)


def transpose_strides(strides: Strides, perm: Sequence[int]) -> Strides:
    return tuple(strides[i] for i in perm)
