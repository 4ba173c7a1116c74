"""Stand-in for ``cupyx`` (tests/cupy_compat only).

``cupyx.scipy`` and every module below it forward to ``arrayd.scipy``:
``cupyx.scipy.signal`` is a new module that looks each name up in
``arrayd.scipy.signal`` on use, and ``import cupyx.scipy.signal._upfirdn``
forwards to ``arrayd.scipy.signal._upfirdn`` (a finder on sys.meta_path
makes the forwarding module when the arrayd module exists; else the import
fails as it would for a module arrayd lacks, and the tests that need it
fail). Importing them connects to no server.

The exception is ``cupyx.scipy.sparse``: cupy.testing asks
``cupyx.scipy.sparse.issparse(result)`` of every result; arrayd has no
sparse matrices, so the answer is False. ``cupyx.errstate`` and
``cupyx.cusolver`` are CuPy extensions (placeholders; their tests are
deselected or fail).
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types

import cupy

_PREFIX = "cupyx.scipy"
_TARGET = "arrayd.scipy"
# CuPy-internal flags that CuPy's tests read at import time: the SciPy
# versions cupyx.scipy.fft follows (arrayd follows the installed SciPy's
# semantics, 1.6 or later).
_FALLBACKS = {"cupyx.scipy.fft": {"_scipy_150": True, "_scipy_160": True}}


class _ForwardLoader(importlib.abc.Loader):
    """Makes ``cupyx.scipy...X`` a module that forwards to arrayd's X."""

    def __init__(self, target: types.ModuleType) -> None:
        self._target = target

    def create_module(self, spec):
        target = self._target
        fallbacks = _FALLBACKS.get(spec.name, {})
        mod = types.ModuleType(spec.name, target.__doc__)

        def lookup(name: str):  # on use
            try:
                value = getattr(target, name)
            except AttributeError:
                if name in fallbacks:
                    return fallbacks[name]
                raise
            if (isinstance(value, types.ModuleType)
                    and value.__name__ == f"{target.__name__}.{name}"):
                # A submodule is its forwarding module (with its fallbacks).
                return importlib.import_module(f"{spec.name}.{name}")
            return value

        mod.__getattr__ = lookup
        mod.__all__ = list(getattr(target, "__all__", []))
        return mod

    def exec_module(self, module) -> None:
        pass


class _ForwardFinder(importlib.abc.MetaPathFinder):
    """Finds ``cupyx.scipy`` and its modules as forwards to arrayd.scipy's."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _PREFIX and not fullname.startswith(_PREFIX + "."):
            return None
        name = _TARGET + fullname[len(_PREFIX):]
        try:
            found = importlib.util.find_spec(name)
        except ModuleNotFoundError:  # a parent is missing
            return None
        if found is None:
            return None
        module = importlib.import_module(name)
        is_package = hasattr(module, "__path__")
        spec = importlib.machinery.ModuleSpec(
            fullname, _ForwardLoader(module), is_package=is_package)
        if is_package:
            spec.submodule_search_locations = []
        return spec


sys.meta_path.insert(0, _ForwardFinder())
scipy = importlib.import_module(_PREFIX)
# Kept a stand-in: arrayd has no sparse matrices (see the docstring).
_sparse = cupy._stand_in("cupyx.scipy.sparse", issparse=lambda x: False)
# The eig tests skip themselves unless cuSOLVER has geev; arrayd's backends
# do not use cuSOLVER's gate, so every routine counts as available.
cusolver = cupy._stand_in("cupyx.cusolver",
                          check_availability=lambda name: True)


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return cupy._Placeholder(f"cupyx.{name}")
