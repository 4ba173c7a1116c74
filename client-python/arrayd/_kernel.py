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
element), as are MemoryPointers (arrayd.cuda.memory, ndarray.data), NumPy
scalars their own bytes, Python bool/int/float/complex bool, long long,
double and complex<double>.

Source may include CuPy's headers (``#include <cupy/complex.cuh>``): the
client's prelude (_userkernel.cuh) stands for them, and for cuComplex.h
with translate_cucomplex=True (_cucomplex.cuh). ``path=`` reads CUDA C++
source, or a compiled module (.cubin, .ptx, .fatbin) that the server loads
as it is. Relocatable code (``-dc``, dynamic parallelism) is linked with
the toolkit's device runtime on the server. Not supported: get_global
(modules are shared by every session of the server, so their globals would
be too) and texture references.

Layer: a function module (imports _connect, _errors, _ndarray).
"""
from __future__ import annotations

import functools
import itertools
import re
import threading
import warnings
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from arrayd import _connect, _progress
from arrayd._errors import (CUDA_ERROR_FILE_NOT_FOUND,
                            CUDA_ERROR_INVALID_IMAGE, CUDA_ERROR_NOT_FOUND,
                            CompileException, CUDADriverError,
                            JitifyException)
from arrayd._ndarray import ndarray

__all__ = ["RawModule", "RawKernel"]

_ids = itertools.count(1)
_lock = threading.Lock()

# The fields of kernel_attributes, in order (cudaFuncAttributes' names as
# CuPy's RawKernel.attributes gives them).
_ATTRIBUTES = ("max_threads_per_block", "num_regs", "shared_size_bytes",
               "const_size_bytes", "local_size_bytes", "ptx_version",
               "binary_version", "max_dynamic_shared_size_bytes",
               "preferred_shared_memory_carveout", "cache_mode_ca")
# CuPy 14 deprecates the jitify argument, either way it is passed.
_NOT_GIVEN: Any = object()
# Compiled modules RawModule(path=) loads as they are (others are source).
_IMAGE_SUFFIXES = (".cubin", ".ptx", ".fatbin", ".fatbinary")
# Includes that the client's own headers stand for: CuPy's (complex<T>,
# CArray, ...: the prelude of _userkernel) and, with translate_cucomplex,
# cuComplex.h (_cucomplex.cuh, on the prelude's complex<T>).
_CUPY_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"]cupy/[A-Za-z_0-9/.]+[">][ \t]*$', re.M)
_CUCOMPLEX_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"]cuComplex\.h[">][ \t]*$', re.M)


@functools.lru_cache(maxsize=None)
def _header(name: str) -> str:
    return (Path(__file__).parent / name).read_text()


def _with_headers(code: str, translate_cucomplex: bool) -> str:
    """``code`` with its includes of CuPy's headers (and of cuComplex.h,
    when translated) replaced by the client's headers, written in place of
    the first such line and followed by a ``#line`` so that the compiler's
    messages keep the user's line numbers."""
    patterns = [_CUPY_INCLUDE] + ([_CUCOMPLEX_INCLUDE] if translate_cucomplex else [])
    lines = code.split("\n")
    first = None
    for n, line in enumerate(lines):
        if any(p.match(line) for p in patterns):
            if first is None:
                first = n
            lines[n] = "// (an arrayd header stands for this include)"
    if first is None:
        return code
    headers = _header("_userkernel.cuh")
    if translate_cucomplex:
        headers += "\n" + _header("_cucomplex.cuh")
    lines[first] = f"{headers}\n#line {first + 2}"
    return "\n".join(lines)


def _session_modules(session: Any) -> dict[tuple[Any, ...], tuple[int, str]]:
    """The session's loaded modules: (code, options, names) -> (module id,
    the compiler's log)."""
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
                 jitify: bool = _NOT_GIVEN):
        if (code is None) == (path is None):
            raise TypeError(
                "Exactly one of code and path keyword arguments must be given.")
        if backend not in ("nvrtc", "nvcc"):
            raise ValueError(f"backend must be 'nvrtc' or 'nvcc', got {backend!r}")
        if name_expressions is not None and backend != "nvrtc":
            raise ValueError("name_expressions is only supported by the "
                             "'nvrtc' backend")
        self.jitify = _jitify(jitify)
        self.image: bytes | None = None
        if path is not None:
            try:
                if str(path).endswith(_IMAGE_SUFFIXES):
                    with open(path, "rb") as f:
                        self.image = f.read()
                else:
                    with open(path) as f:
                        code = f.read()
            except FileNotFoundError:
                raise CUDADriverError(
                    CUDA_ERROR_FILE_NOT_FOUND,
                    f"CUDA_ERROR_FILE_NOT_FOUND: file not found: {path}") from None
        self.code: str = code if code is not None else ""
        self._source = (_with_headers(self.code, translate_cucomplex)
                        if self.image is None else "")
        self.options: tuple[str, ...] = tuple(options)
        if enable_cooperative_groups:
            self.options += ("-rdc=true",)
        self.backend = backend
        self.name_expressions: tuple[str, ...] | None = (
            tuple(name_expressions) if name_expressions is not None else None)
        self.enable_cooperative_groups = enable_cooperative_groups
        self.translate_cucomplex = translate_cucomplex
        self.file_path = path
        self.log: str = ""
        for o in self.options:
            if "\n" in o:
                raise ValueError(f"a compiler option may not hold a newline: {o!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        # What it was made of; the session's module ids are not part of it
        # (an unpickled module loads again, from the server's cache).
        return (_restore_module, (self.code if self.image is None else None,
                                  self.file_path if self.image is not None else None,
                                  self.image, self.options, self.backend,
                                  self.translate_cucomplex,
                                  self.enable_cooperative_groups,
                                  self.name_expressions, self.jitify))

    def _key(self) -> tuple[Any, ...]:
        return (self._source, self.image, self.options,
                self.name_expressions or ())

    def _module_id(self) -> int:
        """The session's module id of this code, loading it on first use
        (one round trip; CompileException when it does not compile)."""
        session = _connect.current()
        modules = _session_modules(session)
        key = self._key()
        with _lock:
            loaded = modules.get(key)
        if loaded is not None:
            mid, self.log = loaded
            return mid
        mid = next(_ids)
        out, log = session.new_handle(), session.new_handle()
        attrs: dict[str, Any] = {"module": mid}
        if self.image is not None:
            attrs["image"] = self.image
        else:
            attrs["source"] = self._source
        if self.options:
            attrs["options"] = "\n".join(self.options)
        if self.name_expressions:
            attrs["name_expressions"] = "\n".join(self.name_expressions)
        session.record("module_load", (), (out, log), attrs)
        # A first-time compile on the server can take seconds: a bar then.
        wait = _progress.waiting("arrayd: loading a CUDA module (compiling on the server)")
        try:
            origin, text = session.fetch([out, log])
        except CompileException as e:
            exc = JitifyException if self.jitify else CompileException
            raise exc(e.get_message(), self.code, self.file_path or "",
                      self.options, self.backend) from None
        except ValueError as e:
            # An image that did not load: CuPy's CUDADriverError.
            raise _driver_error(e, CUDA_ERROR_INVALID_IMAGE) from None
        finally:
            wait.close()
            session.free(out)
            session.free(log)
        self.origin = ("compiled", "memory cache", "disk cache")[int(origin[0])]
        self.log = bytes(text).decode(errors="replace")
        with _lock:
            modules[key] = (mid, self.log)
        return mid

    def compile(self, log_stream: Any = None) -> None:
        """Compiles (or finds compiled) the module now; NVRTC's messages
        (warnings) go to ``log_stream`` when given."""
        self._module_id()
        if log_stream is not None and self.log:
            log_stream.write(self.log)

    def get_function(self, name: str) -> "RawKernel":
        """The kernel ``name`` of the module (a symbol, or one of its name
        expressions)."""
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


def _restore_module(code: str | None, path: str | None, image: bytes | None,
                    options: tuple[str, ...], backend: str,
                    translate_cucomplex: bool, enable_cooperative_groups: bool,
                    name_expressions: tuple[str, ...] | None,
                    jitify: bool) -> "RawModule":
    """A pickled RawModule again (its image travels in the pickle)."""
    module = RawModule.__new__(RawModule)
    if enable_cooperative_groups:  # already among the options
        options = tuple(o for o in options if o != "-rdc=true")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        if image is None:
            module.__init__(code, options=options, backend=backend,
                            translate_cucomplex=translate_cucomplex,
                            enable_cooperative_groups=enable_cooperative_groups,
                            name_expressions=name_expressions, jitify=jitify)
        else:
            module.__init__("", options=options, backend=backend,
                            enable_cooperative_groups=enable_cooperative_groups,
                            name_expressions=name_expressions, jitify=jitify)
            module.code, module._source = "", ""
            module.image, module.file_path = image, path
    return module


def _driver_error(e: ValueError, status: int) -> BaseException:
    """The server's error naming a CUDA driver error (``CUDA_ERROR_...:``)
    as CUDADriverError, as CuPy raises it; any other error as it is."""
    message = str(e)
    at = message.find("CUDA_ERROR_")
    if at < 0:
        return e
    return CUDADriverError(status, message[at:])


def _jitify(jitify: Any) -> bool:
    """The jitify argument, warned about as CuPy 14 does when it is passed.
    The server compiles with NVRTC either way (the CUDA toolkit's and CCCL's
    headers are on its include path); jitify=True changes only the
    exception a failed compile raises (JitifyException)."""
    if jitify is _NOT_GIVEN:
        return False
    if jitify:
        warnings.warn("jitify=True is deprecated and will be removed; arrayd "
                      "compiles with NVRTC, without Jitify's header handling",
                      DeprecationWarning, stacklevel=3)
    else:
        warnings.warn("Avoid passing jitify=False: the argument is deprecated",
                      DeprecationWarning, stacklevel=3)
    return bool(jitify)


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


def _restore_kernel(module: RawModule, name: str) -> "RawKernel":
    """A pickled RawKernel again."""
    kernel = RawKernel.__new__(RawKernel)
    kernel._init(module, name)
    return kernel


class RawKernel:
    """A kernel of CUDA C++ ``code``: ``kernel(grid, block, args,
    shared_mem=0)`` queues it on the current stream. ``args`` holds arrays
    (device pointers), NumPy scalars and Python scalars."""

    def __init__(self, code: str, name: str, options: Sequence[str] = (),
                 backend: str = "nvrtc", *, translate_cucomplex: bool = False,
                 enable_cooperative_groups: bool = False,
                 jitify: bool = _NOT_GIVEN):
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

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore_kernel, (self._module, self.name))

    @property
    def code(self) -> str:
        return self._module.code

    @property
    def enable_cooperative_groups(self) -> bool:
        """Whether the module was compiled for cooperative groups (-rdc=true)."""
        return self._module.enable_cooperative_groups

    @property
    def translate_cucomplex(self) -> bool:
        """Whether cuComplex.h is mapped onto complex<T>."""
        return self._module.translate_cucomplex

    @property
    def jitify(self) -> bool:
        """Whether jitify=True was passed (deprecated; NVRTC compiles either way)."""
        return self._module.jitify

    @property
    def file_path(self) -> str | None:
        """The path the module was read from, or None."""
        return self._module.file_path

    @property
    def options(self) -> tuple[str, ...]:
        return self._module.options

    @property
    def backend(self) -> str:
        return self._module.backend

    def compile(self, log_stream: Any = None) -> None:
        """Compiles the kernel's module now (it is otherwise compiled at the
        first launch); NVRTC's messages go to ``log_stream`` when given."""
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
        except ValueError as e:
            # No such kernel in the module: CuPy's CUDADriverError.
            raise _driver_error(e, CUDA_ERROR_NOT_FOUND) from None
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
        views = []  # the pointers' views live until the launch is recorded
        for a in args:
            if type(a).__name__ == "MemoryPointer" and hasattr(a, "_bytes"):
                # arrayd.cuda.memory's pointer: its bytes to the block's end.
                a = a._bytes(a.mem.size - (a.ptr - a.mem.ptr))
                views.append(a)
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
        del views
