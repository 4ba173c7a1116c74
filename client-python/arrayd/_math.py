"""Elementwise ops: the server's ufuncs, and ndarray's operators.

Layer: functions, above _ufunc (the ufunc type) and the core (_ndarray).

Every ufunc is built in one loop from the table generated from the server's
op signatures (_ufuncs_gen.py; deploy/gen_ufuncs.py), so a ufunc added to
the server (one row of server/kernels/op_list.h) appears here as
``arrayd.<name>`` with its loops, identity and doc, and its ufunc methods.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from arrayd._ndarray import OPERAND_TYPES, attach, ndarray
from arrayd._ufunc import _constant, binary, ufunc, unary
from arrayd._ufuncs_gen import SPECIAL_UFUNCS as _SPECIAL_TABLE
from arrayd._ufuncs_gen import UFUNCS as _TABLE

# The ufuncs by server op name: arrayd.add, arrayd.hypot, ...
BY_NAME: dict[str, ufunc] = {
    name: ufunc(name, nin, nout, identity, loops, doc)
    for name, (nin, nout, identity, loops, doc) in _TABLE.items()
}
globals().update(BY_NAME)

# NumPy's aliases.
ALIASES = {
    "divide": "true_divide", "mod": "remainder", "abs": "absolute",
    "conj": "conjugate", "pow": "power", "asin": "arcsin",
    "acos": "arccos", "atan": "arctan", "atan2": "arctan2",
    "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
    "deg2rad": "radians", "rad2deg": "degrees",
}
globals().update({alias: BY_NAME[name] for alias, name in ALIASES.items()})

# NumPy's ufunc name -> ufunc, for ndarray.__array_ufunc__ (np.divide is
# np.true_divide, whose __name__ is 'divide').
UFUNCS: dict[str, ufunc] = {**BY_NAME, **{
    alias: BY_NAME[name] for alias, name in ALIASES.items()}}

# scipy.special's ufuncs (arrayd.scipy.special; not in the NumPy namespace).
SPECIAL: dict[str, ufunc] = {
    name: ufunc(name, nin, nout, identity, loops, doc, "scipy.special")
    for name, (nin, nout, identity, loops, doc) in _SPECIAL_TABLE.items()
}

_U = BY_NAME
_BOOL = np.dtype(np.bool_)
_special_synced = False


def scipy_loops(name: str) -> list[str] | None:
    """The loops ("dd->d", ...) of the installed scipy.special's ufunc
    `name`, in its order (releases differ: 1.17 lists float64 loops
    first, others float32); None without SciPy or such a ufunc."""
    try:
        import scipy.special as sps
    except ImportError:
        return None
    theirs = getattr(sps, name, None)
    return list(theirs.types) if isinstance(theirs, np.ufunc) else None


def sync_special_loops() -> None:
    """Orders SPECIAL's loops as scipy_loops lists them (once), so that
    integer and float16 inputs compute in the dtype that the installed
    SciPy picks."""
    global _special_synced
    if _special_synced:
        return
    _special_synced = True
    for name, uf in SPECIAL.items():
        theirs = scipy_loops(name)
        if theirs is not None:
            uf.follow_order(theirs)


def server_ufunc(session: Any, name: str) -> ufunc | None:
    """The ufunc `name` of the session's server that the generated table
    lacks (a server newer than this client's table), built from its
    signature in the server's capabilities and remembered; None if the
    server has no such ufunc."""
    uf = BY_NAME.get(name)
    if uf is not None:
        return uf
    for op in session.capabilities.ops:
        sig = op.signature
        if (op.name == name and sig.family == 1  # ELEMENTWISE
                and sig.loops and not sig.module):
            uf = ufunc(name, len(sig.inputs), len(sig.outputs), sig.identity,
                       " ".join(sig.loops), sig.doc)
            BY_NAME[name] = UFUNCS[name] = uf
            return uf
    return None


# -- ndarray's operators -----------------------------------------------------
# One closure per operator that calls the ufunc itself: ``x + y`` is a
# measured path (tests/bench), so no helper call sits in between.

def _named(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    fn.__name__ = name
    fn.__qualname__ = f"ndarray.{name}"
    return fn


def _binary_operators(f: ufunc,
                      name: str) -> dict[str, Callable[..., Any]]:
    """ndarray's __name__, __rname__ and __iname__ for the ufunc f."""
    def op(self: ndarray, o: Any) -> Any:
        return (binary(f, self, o, None) if isinstance(o, OPERAND_TYPES)
                else NotImplemented)

    def rop(self: ndarray, o: Any) -> Any:
        return (binary(f, o, self, None) if isinstance(o, OPERAND_TYPES)
                else NotImplemented)

    def iop(self: ndarray, o: Any) -> Any:
        return (binary(f, self, o, self) if isinstance(o, OPERAND_TYPES)
                else NotImplemented)

    ops = {f"__{name}__": op, f"__r{name}__": rop, f"__i{name}__": iop}
    return {key: _named(fn, key) for key, fn in ops.items()}


def _comparison(f: ufunc, name: str) -> dict[str, Callable[..., Any]]:
    def op(self: ndarray, o: Any) -> Any:
        if isinstance(o, OPERAND_TYPES):
            return binary(f, self, o, None)
        if name in ("__eq__", "__ne__"):
            return _object_equality(self, o, name == "__ne__")
        return NotImplemented
    return {name: _named(op, name)}


def _object_equality(a: ndarray, o: Any, negate: bool) -> Any:
    """a == o (or !=) for an object that is no array operand: NumPy compares
    each element with it as Python objects, which for an object without its
    own equality (None, Ellipsis, object()) is identity: all False (all
    True for !=). Objects with their own __eq__/__ne__ are refused
    (TypeError), as arrayd has no object arrays."""
    t = type(o)
    if o is None or o is Ellipsis or (t.__eq__ is object.__eq__
                                      and t.__ne__ is object.__ne__):
        return _constant(a._session, a._shape, _BOOL, negate,
                         _U["not_equal" if negate else "equal"], None)
    raise TypeError(f"arrayd cannot compare an array with a "
                    f"{t.__name__} object elementwise")


def _pow(self: ndarray, o: Any, mod: Any = None) -> Any:
    if mod is not None or not isinstance(o, OPERAND_TYPES):
        return NotImplemented
    if (type(o) is int or type(o) is float) and o == 2 and \
            self._dtype.kind in "fc":
        # NumPy's fast scalar power: x ** 2 of an inexact array is
        # square(x) (a multiply, not pow; and it fuses as one).
        return unary(_U["square"], self, None)
    return binary(_U["power"], self, o, None)


def _rpow(self: ndarray, o: Any, mod: Any = None) -> Any:
    if mod is not None or not isinstance(o, OPERAND_TYPES):
        return NotImplemented
    return binary(_U["power"], o, self, None)


def _ipow(self: ndarray, o: Any) -> Any:
    return (binary(_U["power"], self, o, self)
            if isinstance(o, OPERAND_TYPES) else NotImplemented)


def _unary_operator(f: ufunc, name: str) -> Callable[[ndarray], ndarray]:
    fn = _named(lambda self: unary(f, self, None), name)
    fn.__doc__ = f"The elementwise {f.__name__} of the array (numpy.{f.__name__})."
    return fn


attach(
    **_binary_operators(_U["add"], "add"),
    **_binary_operators(_U["subtract"], "sub"),
    **_binary_operators(_U["multiply"], "mul"),
    **_binary_operators(_U["true_divide"], "truediv"),
    **_binary_operators(_U["floor_divide"], "floordiv"),
    **_binary_operators(_U["remainder"], "mod"),
    **_binary_operators(_U["bitwise_and"], "and"),
    **_binary_operators(_U["bitwise_or"], "or"),
    **_binary_operators(_U["bitwise_xor"], "xor"),
    **_binary_operators(_U["left_shift"], "lshift"),
    **_binary_operators(_U["right_shift"], "rshift"),
    __pow__=_pow, __rpow__=_rpow, __ipow__=_ipow,
    **_comparison(_U["equal"], "__eq__"), **_comparison(_U["not_equal"], "__ne__"),
    **_comparison(_U["less"], "__lt__"), **_comparison(_U["less_equal"], "__le__"),
    **_comparison(_U["greater"], "__gt__"),
    **_comparison(_U["greater_equal"], "__ge__"),
    __neg__=_unary_operator(_U["negative"], "__neg__"),
    __pos__=_unary_operator(_U["positive"], "__pos__"),
    __abs__=_unary_operator(_U["absolute"], "__abs__"),
    __invert__=_unary_operator(_U["invert"], "__invert__"),
    conj=_unary_operator(_U["conjugate"], "conj"),
    conjugate=_unary_operator(_U["conjugate"], "conjugate"),
)
