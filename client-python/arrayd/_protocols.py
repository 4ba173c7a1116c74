"""NumPy and Python protocols of arrayd.ndarray.

- ``__array_ufunc__``: ``np.add(x, y)``, ``np.add.reduce(x)``, ... run on
  the server through arrayd's function of the same name.
- ``__array_function__``: ``np.concatenate([x, y])``, ``np.sum(x)``,
  ``np.linalg.norm(x)`` call ``arrayd.concatenate``, ``arrayd.sum``,
  ``arrayd.linalg.norm``; NumPy functions that arrayd lacks raise
  NumPy's TypeError (no silent download), as in CuPy.
- ``__array_namespace__`` (Array API standard 2023.12), pickling by value,
  and NumPy's dtype helpers that accept arrayd arrays.

Layer: functions (imports the core, _math and _creation). Attaches those
protocol methods to ndarray. They dispatch by name to the arrayd
namespace, which sits above every module: the package hands itself down
with ``set_namespace`` when its __init__ has run.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from arrayd import _math
from arrayd._creation import asarray
from arrayd._ndarray import attach, ndarray

API_VERSION = "2023.12"
_API_VERSIONS = ("2021.12", "2022.12", "2023.12")

_namespace: ModuleType | None = None


def set_namespace(module: ModuleType) -> None:
    """Sets the namespace (the arrayd package) that the protocols dispatch
    to; the package's __init__ calls it once everything is defined."""
    global _namespace
    _namespace = module


def _module() -> ModuleType:
    if _namespace is None:
        raise RuntimeError("arrayd's __init__ has not run (set_namespace)")
    return _namespace


def _array_ufunc(self: ndarray, ufunc: np.ufunc, method: str, *inputs: Any,
                 **kwargs: Any) -> Any:
    """ndarray.__array_ufunc__: np.add(x, y), np.add.reduce(x), np.add.at
    and numpy_array + arrayd_array run arrayd's ufunc of the same name (or
    arrayd's function, for NumPy ufuncs the server has not)."""
    ours = _math.UFUNCS.get(ufunc.__name__)
    if ours is None:
        f = getattr(_module(), ufunc.__name__, None)
        if method != "__call__" or f is None or not callable(f):
            return NotImplemented
        return f(*inputs, **kwargs)
    target = ours if method == "__call__" else getattr(ours, method, None)
    if target is None:
        return NotImplemented
    return target(*inputs, **kwargs)


def _array_function(self: ndarray, func: Any, types: Any, args: Any,
                    kwargs: Any) -> Any:
    """ndarray.__array_function__: numpy.X -> arrayd.X (numpy.linalg.X ->
    arrayd.linalg.X, ...); NotImplemented (NumPy's TypeError) otherwise."""
    for t in types:
        if not issubclass(t, (ndarray, np.ndarray)):
            return NotImplemented
    target = _module()
    mod = getattr(func, "__module__", None) or ""
    if mod != "numpy":
        if not mod.startswith("numpy."):
            return NotImplemented
        for part in mod.split(".")[1:]:
            target = getattr(target, part, None)
            if target is None:
                return NotImplemented
    f = getattr(target, func.__name__, None)
    if f is None or not callable(f) or isinstance(f, type):
        return NotImplemented
    return f(*args, **kwargs)


def _array_namespace(self: ndarray, *,
                     api_version: str | None = None) -> ModuleType:
    """ndarray.__array_namespace__: the arrayd module."""
    if api_version is not None and api_version not in _API_VERSIONS:
        raise ValueError(f"Unrecognized array API version: {api_version!r}")
    return _module()


def rebuild(data: np.ndarray) -> ndarray:
    """Unpickles an array: uploads it to the current default session."""
    return asarray(data)


def reduce(a: ndarray) -> tuple[Any, tuple[np.ndarray]]:
    """ndarray.__reduce__: pickled by value (downloads the data)."""
    return rebuild, (a.get(),)


def _dt(x: Any) -> Any:
    return x.dtype if isinstance(x, ndarray) else x


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """numpy.result_type, accepting arrayd arrays."""
    return np.result_type(*(_dt(x) for x in arrays_and_dtypes))


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """numpy.can_cast, accepting arrayd arrays."""
    return bool(np.can_cast(_dt(from_), _dt(to), casting))


def finfo(t: Any) -> np.finfo:
    """numpy.finfo, accepting arrayd arrays."""
    return np.finfo(_dt(t))


def iinfo(t: Any) -> np.iinfo:
    """numpy.iinfo, accepting arrayd arrays."""
    return np.iinfo(_dt(t))


def min_scalar_type(a: Any) -> np.dtype:
    return np.min_scalar_type(a.get() if isinstance(a, ndarray) else a)


def promote_types(type1: Any, type2: Any) -> np.dtype:
    return np.promote_types(_dt(type1), _dt(type2))


def isdtype(dtype: Any, kind: Any) -> bool:
    """Array API isdtype (NumPy's), accepting arrayd arrays."""
    return np.isdtype(_dt(dtype), kind)


attach(__array_ufunc__=_array_ufunc, __array_function__=_array_function,
       __array_namespace__=_array_namespace, __reduce__=reduce)
