"""User kernels: RawModule and RawKernel, as CuPy's (cupy.RawModule,
cupy.RawKernel). The CUDA C++ source is compiled on the server by NVRTC
(module_load), once for every client of the server: a second session, or
a restarted server (its disk cache), finds the module compiled. Launches
are ops (kernel_launch) on the current stream, batched like every op.

The server runs user code only when started with --allow-user-kernels,
and only on a CUDA device; otherwise the first use raises the server's
error (PermissionError-like RuntimeError, NotImplementedError on the CPU
backend).

Arguments, as CuPy passes them: arrays are device pointers (to their first
element), NumPy scalars their own bytes, Python bool/int/float/complex
bool, long long, double and complex<double>.

Layer: a function module (imports _connect, _errors, _ndarray).
"""
from __future__ import annotations

import itertools
import threading
from typing import Any, Sequence

import numpy as np

from arrayd import _connect
from arrayd._errors import CompileException
from arrayd._ndarray import ndarray

__all__ = ["RawModule", "RawKernel"]

_ids = itertools.count(1)
_lock = threading.Lock()

# The fields of kernel_attributes, in order (cudaFuncAttributes' names as
# CuPy's RawKernel.attributes gives them).
_ATTRIBUTES = ("max_threads_per_block", "num_regs", "shared_size_bytes",
               "const_size_bytes", "local_size_bytes", "ptx_version",
               "binary_version", "max_dynamic_shared_size_bytes",
               "preferred_shared_memory_carveout")


def _session_modules(session: Any) -> dict[tuple[Any, ...], int]:
    """The session's loaded modules: (code, options, names) -> module id."""
    modules = getattr(session, "kernel_modules", None)
    if modules is None:
        modules = session.kernel_modules = {}
    return modules


class RawModule:
    """CUDA C++ ``code`` compiled on the server with NVRTC ``options``;
    ``name_expressions`` name the template instances to make
    (``get_function("f<float>")``). Compiled at the first
    ``get_function`` or ``compile()``: a CompileException carries NVRTC's
    log."""

    def __init__(self, code: str | None = None, *, path: str | None = None,
                 options: Sequence[str] = (), backend: str = "nvrtc",
                 translate_cucomplex: bool = False,
                 enable_cooperative_groups: bool = False,
                 name_expressions: Sequence[str] | None = None,
                 jitify: bool = False):
        if (code is None) == (path is None):
            raise TypeError(
                "Exactly one of code and path keyword arguments must be given.")
        if path is not None:
            if not str(path).endswith((".cu", ".cuh", ".cpp", ".h")):
                raise NotImplementedError(
                    "RawModule(path=) of a compiled module (cubin, PTX) is not "
                    "supported: arrayd compiles source on the server; pass "
                    "code=open(path).read() of the CUDA C++ source")
            with open(path) as f:
                code = f.read()
        if backend not in ("nvrtc", "nvcc"):
            raise ValueError(f"backend must be 'nvrtc' or 'nvcc', got {backend!r}")
        if jitify:
            raise NotImplementedError(
                "jitify=True is not supported: the server compiles with NVRTC")
        if translate_cucomplex:
            raise NotImplementedError(
                "translate_cucomplex=True is not supported by arrayd")
        self.code: str = code  # type: ignore[assignment]
        self.options: tuple[str, ...] = tuple(options)
        if enable_cooperative_groups:
            self.options += ("-rdc=true",)
        self.backend = backend
        self.name_expressions: tuple[str, ...] | None = (
            tuple(name_expressions) if name_expressions is not None else None)
        self.enable_cooperative_groups = enable_cooperative_groups
        self.file_path = path
        for o in self.options:
            if "\n" in o:
                raise ValueError(f"a compiler option may not hold a newline: {o!r}")

    def _key(self) -> tuple[Any, ...]:
        return (self.code, self.options, self.name_expressions or ())

    def _module_id(self) -> int:
        """The session's module id of this code, loading it on first use
        (one round trip; CompileException when it does not compile)."""
        session = _connect.current()
        modules = _session_modules(session)
        key = self._key()
        with _lock:
            mid = modules.get(key)
        if mid is not None:
            return mid
        mid = next(_ids)
        out = session.new_handle()
        attrs: dict[str, Any] = {"module": mid, "source": self.code}
        if self.options:
            attrs["options"] = "\n".join(self.options)
        if self.name_expressions:
            attrs["name_expressions"] = "\n".join(self.name_expressions)
        session.record("module_load", (), (out,), attrs)
        try:
            origin = session.fetch([out])[0]
        except CompileException as e:
            raise CompileException(e.get_message(), self.code,
                                   self.file_path or "", self.options,
                                   self.backend) from None
        finally:
            session.free(out)
        self.origin = ("compiled", "memory cache", "disk cache")[int(origin[0])]
        with _lock:
            modules[key] = mid
        return mid

    def compile(self, log_stream: Any = None) -> None:
        """Compiles (or finds compiled) the module now."""
        self._module_id()

    def get_function(self, name: str) -> "RawKernel":
        """The kernel ``name`` of the module (a symbol, or one of its name
        expressions)."""
        if self.name_expressions is not None and "<" in name and \
                name not in self.name_expressions:
            raise ValueError(f"'{name}' is not among the name_expressions "
                             f"of this module: {list(self.name_expressions)}")
        kernel = RawKernel.__new__(RawKernel)
        kernel._init(self, name)
        kernel._attributes_of_module()  # raises when there is no such kernel
        return kernel

    def get_global(self, name: str) -> Any:
        raise NotImplementedError(
            "RawModule.get_global is not supported by arrayd (device globals "
            "live in the server's process)")

    def get_texref(self, name: str) -> Any:
        raise NotImplementedError("texture references are not supported by arrayd")


def _scalar_bytes(x: Any) -> bytes:
    """A by-value kernel argument's bytes, as CuPy passes it."""
    if isinstance(x, np.generic):
        if x.dtype.kind not in "biufc":
            raise TypeError(f"Unsupported type {type(x)}")
        return x.tobytes()
    if isinstance(x, bool):
        return np.bool_(x).tobytes()
    if isinstance(x, int):
        return np.int64(x).tobytes()
    if isinstance(x, float):
        return np.float64(x).tobytes()
    if isinstance(x, complex):
        return np.complex128(x).tobytes()
    raise TypeError(f"Unsupported type {type(x)}")


def _dims(v: Any, what: str) -> list[int]:
    dims = [int(v)] if np.isscalar(v) else [int(d) for d in v]
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"{what} must be an int or a tuple of 1 to 3 ints, got {v!r}")
    for d in dims:
        if d <= 0:
            raise ValueError(f"{what} dimensions must be positive, got {v!r}")
    return dims


class RawKernel:
    """A kernel of CUDA C++ ``code``: ``kernel(grid, block, args,
    shared_mem=0)`` queues it on the current stream. ``args`` holds arrays
    (device pointers), NumPy scalars and Python scalars."""

    def __init__(self, code: str, name: str, options: Sequence[str] = (),
                 backend: str = "nvrtc", *, translate_cucomplex: bool = False,
                 enable_cooperative_groups: bool = False, jitify: bool = False):
        module = RawModule(code=code, options=options, backend=backend,
                           translate_cucomplex=translate_cucomplex,
                           enable_cooperative_groups=enable_cooperative_groups,
                           jitify=jitify)
        self._init(module, name)

    def _init(self, module: RawModule, name: str) -> None:
        self._module = module
        self.name = name
        self._attrs: dict[str, int] | None = None
        self._attrs_session: Any = None

    @property
    def code(self) -> str:
        return self._module.code

    @property
    def options(self) -> tuple[str, ...]:
        return self._module.options

    @property
    def backend(self) -> str:
        return self._module.backend

    def compile(self, log_stream: Any = None) -> None:
        """Compiles the kernel's module now (it is otherwise compiled at the
        first launch)."""
        self._module.compile(log_stream)

    def _attributes_of_module(self) -> dict[str, int]:
        """cudaFuncAttributes of the kernel, from the server once per
        session (compiles the module on first use)."""
        session = _connect.current()
        if self._attrs is not None and self._attrs_session is session:
            return self._attrs
        mid = self._module._module_id()
        out = session.new_handle()
        session.record("kernel_attributes", (), (out,),
                       {"module": mid, "name": self.name})
        try:
            values = session.fetch([out])[0]
        except RuntimeError as e:
            if "has no kernel" in str(e):
                raise AttributeError(str(e)) from None
            raise
        finally:
            session.free(out)
        self._attrs = {k: int(v) for k, v in zip(_ATTRIBUTES, values)}
        self._attrs_session = session
        return self._attrs

    @property
    def attributes(self) -> dict[str, int]:
        """The kernel's attributes (cudaFuncAttributes), as CuPy's."""
        return dict(self._attributes_of_module())

    def __getattr__(self, name: str) -> Any:
        if name in _ATTRIBUTES:
            return self._attributes_of_module()[name]
        raise AttributeError(name)

    def __setattr__(self, name: str, value: Any) -> None:
        # The two attributes CUDA lets a program set: kept for this kernel
        # (the server raises the dynamic shared memory limit a launch needs
        # by itself; the carveout is a hint).
        if name in ("max_dynamic_shared_size_bytes",
                    "preferred_shared_memory_carveout"):
            attrs = self._attributes_of_module()
            attrs[name] = int(value)
            return
        if name in _ATTRIBUTES:
            raise AttributeError(f"attribute '{name}' of RawKernel is read-only")
        object.__setattr__(self, name, value)

    def __call__(self, grid: Any, block: Any, args: Sequence[Any], *,
                 shared_mem: int = 0) -> None:
        if not isinstance(args, (tuple, list)):
            raise TypeError("args must be a tuple")
        g = _dims(grid, "grid")
        b = _dims(block, "block")
        if shared_mem < 0:
            raise ValueError(f"shared_mem must not be negative, got {shared_mem}")
        attrs = self._attributes_of_module()
        threads = int(np.prod(b))
        if threads > attrs["max_threads_per_block"]:
            raise ValueError(
                f"kernel '{self.name}': a block of {threads} threads is more "
                f"than the kernel allows ({attrs['max_threads_per_block']})")
        session = _connect.current()
        inputs: list[int] = []
        params: list[int] = []
        scalars = bytearray()
        for a in args:
            if isinstance(a, ndarray):
                if a._session is not session:
                    raise ValueError("an array of another session was passed to a kernel")
                inputs.append(a._handle)
                params.append(-1)
            elif isinstance(a, np.ndarray):
                raise TypeError(f"Unsupported type {type(a)}: a host (NumPy) "
                                "array cannot be a kernel argument")
            else:
                raw = _scalar_bytes(a)
                if len(raw) > 16:
                    raise TypeError(f"Unsupported type {type(a)}")
                params.append(len(raw))
                scalars += raw
        attrs_out: dict[str, Any] = {
            "module": self._module._module_id(), "name": self.name, "grid": g,
            "block": b, "params": params}
        if shared_mem:
            attrs_out["shared_mem"] = int(shared_mem)
        if scalars:
            attrs_out["scalars"] = bytes(scalars)
        session.record("kernel_launch", inputs, (), attrs_out)
