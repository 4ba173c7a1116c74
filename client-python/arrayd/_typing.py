"""NumPy's scalar types, dtype helpers, exception classes and the constants
that NumPy 1.x had, as CuPy re-exports them.

- Scalar types and the abstract hierarchy are NumPy's own classes
  (``arrayd.intc is numpy.intc``), plus the aliases that NumPy 2 removed
  and CuPy keeps (float_, complex_, cfloat, singlecomplex).
- Exceptions and warnings are NumPy's classes, so ``except numpy.AxisError``
  catches what arrayd raises and ``except arrayd.AxisError`` what NumPy
  raises; ``exceptions`` is numpy.exceptions.
- dtype helpers accept arrayd arrays and never wait for the server: an
  array's dtype is known to the client. Helpers that NumPy 2 removed
  (obj2sctype, issubsctype, sctype2char, issctype, issubclass_,
  find_common_type) follow NumPy 1.26's behaviour.
- Array API 2023.12 names that are aliases of existing ufuncs
  (bitwise_left_shift, ...) and the ones _protocols defines
  (``__array_namespace_info__``, from_dlpack, matrix_transpose) are exported
  from here, the package's topic module for types and protocols.

Layer: functions (imports the core, _math and _protocols).
"""
from __future__ import annotations

import builtins
import functools
import warnings
from typing import Any

import numpy as np

from arrayd import _math
from arrayd._ndarray import ndarray
from arrayd._protocols import (__array_namespace_info__, from_dlpack,
                               matrix_transpose)

# -- scalar types (NumPy's classes) ---------------------------------------

bool = np.bool  # noqa: A001  (NumPy 2's name; arrayd.bool_ is the same)
byte, ubyte = np.byte, np.ubyte
short, ushort = np.short, np.ushort
intc, uintc = np.intc, np.uintc
int_, uint = np.int_, np.uint
long, ulong = np.long, np.ulong
longlong, ulonglong = np.longlong, np.ulonglong
intp, uintp = np.intp, np.uintp
half, single, double = np.half, np.single, np.double
csingle, cdouble = np.csingle, np.cdouble
# Aliases NumPy 2 removed; CuPy keeps them with NumPy 1.x's meaning.
float_ = np.float64
complex_ = cfloat = np.complex128
singlecomplex = np.complex64

generic, number = np.generic, np.number
integer, signedinteger, unsignedinteger = (np.integer, np.signedinteger,
                                           np.unsignedinteger)
inexact, floating, complexfloating = (np.inexact, np.floating,
                                      np.complexfloating)

# -- exceptions and warnings (NumPy's classes) -----------------------------

exceptions = np.exceptions
AxisError = np.exceptions.AxisError
ComplexWarning = np.exceptions.ComplexWarning
VisibleDeprecationWarning = np.exceptions.VisibleDeprecationWarning
RankWarning = np.exceptions.RankWarning
TooHardError = np.exceptions.TooHardError
ModuleDeprecationWarning = np.exceptions.ModuleDeprecationWarning

# -- NumPy 1.x's constant aliases -------------------------------------------

Inf = Infinity = PINF = infty = np.inf
NINF = -np.inf
NAN = NaN = np.nan
PZERO = 0.0
NZERO = -0.0

# -- Array API 2023.12 names of existing ufuncs ------------------------------

bitwise_left_shift = _math.left_shift
bitwise_right_shift = _math.right_shift
bitwise_invert = _math.invert
bitwise_not = _math.invert  # NumPy's older alias of invert

# -- dtype helpers -------------------------------------------------------------

issubdtype = np.issubdtype
typename = np.typename
format_parser = np.rec.format_parser


def _dummy(a: Any) -> Any:
    """A data-less NumPy stand-in with a's dtype, for an arrayd array;
    anything else as it is (NumPy's rules then run on the stand-in)."""
    return np.empty(0, a.dtype) if isinstance(a, ndarray) else a


def common_type(*arrays: Any) -> type:
    """numpy.common_type: the inexact scalar type of the arrays' dtypes
    (integers count as float64); arrayd arrays are read by dtype only."""
    return np.common_type(*(_dummy(a) for a in arrays))


def mintypecode(typechars: Any, typeset: str = "GDFgdf",
                default: str = "d") -> str:
    """numpy.mintypecode: the smallest type character of ``typeset`` that
    the given type characters or arrays can be safely cast to."""
    chars = [t.dtype.char if isinstance(t, ndarray) else t for t in typechars]
    return np.mintypecode(chars, typeset, default)


def issubclass_(arg1: Any, arg2: Any) -> builtins.bool:
    """NumPy 1.x's issubclass_: issubclass that answers False instead of
    raising TypeError for arguments that are no classes."""
    try:
        return issubclass(arg1, arg2)
    except TypeError:
        return False


def obj2sctype(rep: Any, default: Any = None) -> Any:
    """NumPy 1.x's obj2sctype: the scalar type of a type, dtype, array
    (arrayd's included) or dtype specifier; ``default`` when it has none."""
    if isinstance(rep, type) and issubclass(rep, np.generic):
        return rep  # abstract types stay what they are
    if isinstance(rep, (ndarray, np.ndarray)):
        return rep.dtype.type
    try:
        return np.dtype(rep).type
    except Exception:
        return default


def issubsctype(arg1: Any, arg2: Any) -> builtins.bool:
    """NumPy 1.x's issubsctype: the scalar type of arg1 derives from arg2's."""
    return issubclass(obj2sctype(arg1), obj2sctype(arg2))


def sctype2char(sctype: Any) -> str:
    """NumPy 1.x's sctype2char: the type character of a scalar type (or of
    what obj2sctype makes of an object); ValueError if there is none."""
    t = obj2sctype(sctype)
    if t is None:
        raise ValueError("unrecognized type")
    if t not in np.sctypeDict.values():
        raise KeyError(t)  # abstract types have no character (NumPy 1.x)
    return np.dtype(t).char


def issctype(rep: Any) -> builtins.bool:
    """NumPy 1.x's issctype: rep is a scalar type or dtype (not object)."""
    if not isinstance(rep, (type, np.dtype)):
        return False
    try:
        t = obj2sctype(rep)
    except Exception:
        return False
    return builtins.bool(t) and t is not np.object_


def find_common_type(array_types: Any, scalar_types: Any) -> np.dtype | None:
    """NumPy 1.x's find_common_type (deprecated in NumPy 1.25, removed in
    2.0: use result_type or promote_types).

    The promoted dtype of array_types, unless the scalars' promoted dtype
    is of a higher kind (bool < unsigned < signed < float < complex <
    object): then the smallest dtype of that kind that both cast to.
    """
    warnings.warn(
        "find_common_type is deprecated (NumPy 1.25) and removed in "
        "NumPy 2.0: use numpy.promote_types or numpy.result_type",
        DeprecationWarning, stacklevel=2)
    arrays = [np.dtype(t) for t in array_types]
    scalars = [np.dtype(t) for t in scalar_types]
    a = functools.reduce(np.promote_types, arrays) if arrays else None
    s = functools.reduce(np.promote_types, scalars) if scalars else None
    if a is None or s is None:
        return s if a is None else a
    order = "buifcO"
    if (a.kind in order and s.kind in order
            and order.index(s.kind) > order.index(a.kind)):
        return np.promote_types(s, a)
    return a


__all__ = [
    "AxisError", "ComplexWarning", "Inf", "Infinity", "ModuleDeprecationWarning",
    "NAN", "NINF", "NZERO", "NaN", "PINF", "PZERO", "RankWarning",
    "TooHardError", "VisibleDeprecationWarning", "__array_namespace_info__",
    "bitwise_invert", "bitwise_left_shift", "bitwise_not",
    "bitwise_right_shift", "bool", "byte", "cdouble", "cfloat", "common_type",
    "complex_", "complexfloating", "csingle", "double", "exceptions",
    "find_common_type", "float_", "floating", "format_parser", "from_dlpack",
    "generic", "half", "inexact", "infty", "int_", "intc", "integer", "intp",
    "issctype", "issubclass_", "issubdtype", "issubsctype", "long",
    "longlong", "matrix_transpose", "mintypecode", "number", "obj2sctype",
    "sctype2char", "short", "signedinteger", "single", "singlecomplex",
    "typename", "ubyte", "uint", "uintc", "uintp", "ulong", "ulonglong",
    "unsignedinteger", "ushort",
]
