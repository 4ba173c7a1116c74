"""A ``cupy`` module that forwards to arrayd, for running CuPy's own tests.

Only for tests/cupy_compat: CuPy's test files say ``import cupy`` and
compare ``cupy.f(...)`` with ``numpy.f(...)``. This module re-exports
arrayd's public names, nothing more, so a name arrayd lacks fails the test
that uses it (AttributeError), which is what the compatibility run is for.

``cupy.cuda`` (and ``cupy.cuda.stream``, ``.memory``, ``.pinned_memory``,
``.device``, ``.runtime``) forwards to ``arrayd.cuda`` the same way, with
the few CUDA toolkit facts CuPy's tests read at import time added (no HIP,
a CUDA 12 runtime and driver).

Besides the forwarding, it registers stand-ins for the CuPy-internal modules
that CuPy's test files and ``cupy.testing`` import at import time
(``cupy.cuda.driver``, ``cupy._core._accelerator``, ``cupy.fft.config``,
...), so that a file whose tests are NumPy-facing can be collected at all.
A stand-in holds only the constants those imports and decorators read; any
other attribute is a placeholder that raises NotImplementedError when used.
The tests that really use them are deselected (tests/cupy_compat/deselect.txt).

``cupy.testing`` is CuPy's own package, copied beside this file from the
CuPy sdist at test time by tests/cupy_compat/run.py; it is not part of the
repository.
"""
from __future__ import annotations

import contextvars
import math
import os
import shutil
import subprocess
import sys
import tempfile
import types
import warnings

import arrayd
import numpy

__all__ = list(arrayd.__all__)


def __getattr__(name: str):
    """The forwarding itself: cupy.X is arrayd.X, looked up on use (arrayd
    resolves server ufuncs through the server, so nothing connects at
    import time, and the xdist controller never needs a server)."""
    try:
        return getattr(arrayd, name)
    except AttributeError:
        if name in _FALLBACKS:
            return _FALLBACKS[name]
        raise AttributeError(
            f"module 'cupy' has no attribute {name!r}") from None


class _Placeholder:
    """A CuPy-internal name arrayd does not have: raises when used."""

    def __init__(self, qualname: str) -> None:
        self._qualname = qualname

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(
            f"{self._qualname} is CuPy-internal (CUDA); the arrayd shim has "
            "only a placeholder")

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Placeholder(f"{self._qualname}.{name}")

    def __repr__(self) -> str:
        return f"<shim placeholder {self._qualname}>"


class _StandIn(types.ModuleType):
    """A CuPy-internal module: the given constants, placeholders otherwise."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Placeholder(f"{self.__name__}.{name}")


def _stand_in(name: str, **attrs) -> types.ModuleType:
    mod = _StandIn(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    parent, _, child = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], child, mod)
    return mod


def _forward(name: str, target: types.ModuleType) -> types.ModuleType:
    """cupy.<sub> as a new module holding target's public names (so that
    stand-in submodules such as cupy.fft.config never touch arrayd)."""
    mod = types.ModuleType(name, target.__doc__)
    mod.__getattr__ = lambda n: getattr(target, n)  # on use, like cupy's
    mod.__all__ = list(getattr(target, "__all__", []))
    mod.__path__ = []  # a package, so stand-in submodules can be imported
    sys.modules[name] = mod
    setattr(sys.modules[name.rpartition(".")[0]], name.rpartition(".")[2], mod)
    return mod


# Names cupy.testing references at comparison time, used only where arrayd
# has none (see __getattr__).
class _Poly1d:
    """Stand-in for cupy.testing's isinstance(c_out, cupy.poly1d): arrayd
    has no poly1d, so no result is one; constructing it raises."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("arrayd has no poly1d")


# CuPy re-exports NumPy's exception and warning classes.
exceptions = _stand_in(
    "cupy.exceptions", AxisError=numpy.exceptions.AxisError,
    ComplexWarning=numpy.exceptions.ComplexWarning,
    VisibleDeprecationWarning=numpy.exceptions.VisibleDeprecationWarning,
    TooHardError=numpy.exceptions.TooHardError,
    DTypePromotionError=numpy.exceptions.DTypePromotionError,
    ModuleDeprecationWarning=numpy.exceptions.ModuleDeprecationWarning,
    RankWarning=numpy.exceptions.RankWarning)

linalg = _forward("cupy.linalg", arrayd.linalg)
fft = _forward("cupy.fft", arrayd.fft)
random = _forward("cupy.random", arrayd.random)

# --- CuPy-internal stand-ins (import-time constants only) ------------------
_core = _stand_in("cupy._core", ndarray=arrayd.ndarray, get_size=lambda s: (
    (s,) if isinstance(s, int) else tuple(s)))
_stand_in("cupy._core.internal", prod=math.prod)  # testing.shaped_arange
_stand_in("cupy._core._accelerator", ACCELERATOR_CUB=1,
          ACCELERATOR_CUTENSOR=2, get_routine_accelerators=list,
          get_reduction_accelerators=list)
_stand_in("cupy._core._cub_reduction")
_stand_in("cupy._core._routines_linalg", COMPUTE_TYPE_DEFAULT=0,
          COMPUTE_TYPE_PEDANTIC=1, COMPUTE_TYPE_TF32=2)
# User kernels as CuPy's tests reach them through CuPy-internal paths:
# cupy._core's ElementwiseKernel, ReductionKernel and create_reduction_func
# are arrayd's; elementwise_copy is dst[...] = src; the reduction
# accelerator switches keep a list that changes nothing (arrayd has no CUB
# path to switch).
_accelerators = {"reduction": [], "routine": []}
_core.__dict__.update(
    ElementwiseKernel=arrayd.ElementwiseKernel,
    ReductionKernel=arrayd.ReductionKernel,
    create_reduction_func=arrayd._userkernel.create_reduction_func,
    elementwise_copy=lambda src, dst, **kw: dst.__setitem__(Ellipsis, src),
    get_reduction_accelerators=lambda: list(_accelerators["reduction"]),
    set_reduction_accelerators=lambda a: _accelerators.update(reduction=list(a)))
sys.modules["cupy._core._accelerator"].__dict__.update(
    get_reduction_accelerators=lambda: list(_accelerators["reduction"]),
    set_reduction_accelerators=lambda a: _accelerators.update(reduction=list(a)),
    get_routine_accelerators=lambda: list(_accelerators["routine"]),
    set_routine_accelerators=lambda a: _accelerators.update(routine=list(a)))


class PerformanceWarning(RuntimeWarning):
    """Stand-in for cupy._util.PerformanceWarning (pytest.warns targets)."""


def _clear_memo() -> None:
    """cupy._util.clear_memo: forgets the modules the session has loaded,
    so that the next use loads them again (the server answers from its
    cache, as CuPy's recompile would from its disk cache)."""
    session = arrayd._connect.current()
    getattr(session, "kernel_modules", {}).clear()


_util = _stand_in("cupy._util", PerformanceWarning=PerformanceWarning,
                  ENABLE_SLICE_COPY=False, clear_memo=_clear_memo,
                  CUDA_ARRAY_INTERFACE_EXPORT_VERSION=3)
# cupy.cuda is arrayd.cuda: its devices, streams and events, memory pools,
# pinned memory and runtime functions are the server's (CuPy's module
# names: cupy.cuda.stream, .memory, .pinned_memory, .device, .runtime).
# What arrayd lacks is missing here too (AttributeError), except the
# constants CuPy's tests and cupy.testing read at import time to choose
# their paths: no HIP, a CUDA 12 runtime and driver, no CUB or cuTENSOR
# (CUDA toolkit facts the server does not report).
_CUDA_FACTS = {"is_hip": False, "runtimeGetVersion": lambda: 12080,
               "driverGetVersion": lambda: 12080}


def _forward_with(name: str, target: types.ModuleType,
                  **fallbacks) -> types.ModuleType:
    """cupy.<sub> forwarding to ``target`` on use, with ``fallbacks`` for
    names it lacks (registered as a package, like _forward)."""
    mod = types.ModuleType(name, target.__doc__)

    def lookup(attr: str):
        try:
            return getattr(target, attr)
        except AttributeError:
            if attr in fallbacks:
                return fallbacks[attr]
            raise AttributeError(
                f"module {name!r} has no attribute {attr!r}") from None

    mod.__getattr__ = lookup
    mod.__all__ = list(getattr(target, "__all__", []))
    mod.__path__ = []
    sys.modules[name] = mod
    parent, _, child = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], child, mod)
    return mod


def _nvcc_path() -> str:
    """The CUDA toolkit's nvcc on this machine (test_raw makes CUBIN and PTX
    files with it for RawModule(path=)), else "nvcc"."""
    return (shutil.which("nvcc")
            or next((p for p in ("/usr/local/cuda/bin/nvcc",) if os.path.exists(p)),
                    "nvcc"))


# get_nvcc_path: test_raw reads the toolkit's nvcc version at import time
# (through compiler._run_cc below); arrayd compiles with the server's NVRTC.
cuda = _forward_with("cupy.cuda", arrayd.cuda, get_nvcc_path=_nvcc_path)
_runtime = _forward_with("cupy.cuda.runtime", arrayd.cuda.runtime,
                         **_CUDA_FACTS)
for _sub in ("stream", "memory", "pinned_memory", "device"):
    _forward_with(f"cupy.cuda.{_sub}", getattr(arrayd.cuda, _sub))
_forward_with("cupy.cuda.driver", arrayd.cuda.driver,
              get_build_version=lambda: 12080, _is_cuda_python=lambda: False)
_stand_in("cupy.cuda.cub", available=False)
_stand_in("cupy.cuda.cutensor", available=False)
_stand_in("cupy.cuda.cufft")
# cupy.cuda.compiler: arrayd's CompileException (the server's NVRTC log);
# CuPy's compiler internals (caches, nvcc, jitify) are placeholders.
# cupy.cuda.texture: placeholders (arrayd has no textures).


def _run_cc(cmd, cwd=None, backend="nvcc", log_stream=None):
    """`nvcc --version` answers the CUDA 12.8 of the facts above; any other
    command (test_raw's nvcc making a CUBIN or PTX file for RawModule(path=))
    runs, when the machine has the toolkit."""
    if "--version" in cmd:
        return "Cuda compilation tools, release 12.8, V12.8.93"
    if shutil.which(cmd[0]) is None:
        raise NotImplementedError(
            f"{cmd[0]} is not on this machine: arrayd compiles kernels on the "
            "server (NVRTC)")
    return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def _get_arch() -> str:
    """The device's compute capability as nvcc's -arch wants it ("90")."""
    return arrayd.cuda.Device().compute_capability


_stand_in("cupy.cuda.compiler", CompileException=arrayd.cuda.compiler.CompileException,
          JitifyException=arrayd.cuda.compiler.JitifyException,
          _run_cc=_run_cc, _get_arch=_get_arch,
          get_cache_dir=lambda: os.path.join(tempfile.gettempdir(),
                                             "arrayd-shim-kernel-cache"),
          is_valid_kernel_name=lambda name: bool(
              arrayd._userkernel._VALID_NAME.match(name)))
# TestFusionKernelName mocks this class around a call (CuPy's fusion
# internals); the computation it then checks is arrayd's fuse.
_stand_in("cupy._core._fusion_kernel", FusedKernel=type(
    "FusedKernel", (), {"__module__": "cupy._core._fusion_kernel"}))
_stand_in("cupy.cuda.texture")
# A cuBLAS batching threshold TestSolve's setUp sets; arrayd has no such
# knob, so setting it changes nothing and the solve results are compared.
_gesv_limit = [256]
_stand_in("cupy.cublas", get_batched_gesv_limit=lambda: _gesv_limit[0],
          set_batched_gesv_limit=lambda n: _gesv_limit.__setitem__(0, n))
_stand_in("cupy._indexing")
_stand_in("cupy._indexing.generate")
# cuda_tests/test_stream.py makes its arrays with CuPy's internal module
# path of cupy.array.
_stand_in("cupy._creation")
_stand_in("cupy._creation.from_data", array=arrayd.array)
# TestSVD builds its expected identities with this CuPy-internal helper;
# here it is composed of arrayd's own eye and broadcast_to.
_stand_in("cupy.linalg._util", stacked_identity=lambda batch_shape, n, dtype:
          arrayd.broadcast_to(arrayd.eye(n, dtype=dtype),
                              tuple(batch_shape) + (n, n)))


class _FftConfig(_StandIn):
    """cupy.fft.config: CuPy 14 deprecates its cuFFT n-D planning switch
    (reading or setting it warns, and the fft tests check that); arrayd's
    server plans its FFTs itself, so the switch changes nothing here."""

    _nd_planning = True

    @property
    def enable_nd_planning(self) -> bool:
        warnings.warn("enable_nd_planning is deprecated", DeprecationWarning,
                      stacklevel=2)
        return self._nd_planning

    @enable_nd_planning.setter
    def enable_nd_planning(self, value: bool) -> None:
        warnings.warn("enable_nd_planning is deprecated", DeprecationWarning,
                      stacklevel=2)
        type(self)._nd_planning = bool(value)


_fft_config = _stand_in("cupy.fft.config", use_multi_gpus=False,
                        _use_multi_gpus=contextvars.ContextVar(
                            "use_multi_gpus", default=False),
                        _devices=contextvars.ContextVar("devices",
                                                        default=None))
_fft_config.__class__ = _FftConfig
_stand_in("cupy.fft._fft")
# testing.fix_random swaps CuPy's per-device generator table around a test
# (reset_states, _generator._random_states) and then seeds through
# cupy.random.seed, which is arrayd's. The table is only this dict.
# arrayd.random keeps that table as CuPy does (arrayd.random._generator).
sys.modules["cupy.random._generator"] = arrayd.random._generator
random._generator = arrayd.random._generator


def _get_array_module(*args):
    """cupy.get_array_module: this module where arrayd's answers arrayd
    (CuPy's tests compare the answer with ``cupy``)."""
    mod = arrayd.get_array_module(*args)
    return sys.modules[__name__] if mod is arrayd else mod


_FALLBACKS = {"poly1d": _Poly1d}
get_array_module = _get_array_module
_stand_in("cupy_backends")
_stand_in("cupy_backends.cuda")
_stand_in("cupy_backends.cuda.api")
# The runtime and driver modules of cupy_backends are cupy.cuda's (one
# CUDARuntimeError and one CUDADriverError class).
sys.modules["cupy_backends.cuda.api.runtime"] = _runtime
sys.modules["cupy_backends.cuda.api"].runtime = _runtime
sys.modules["cupy_backends.cuda.api.driver"] = sys.modules["cupy.cuda.driver"]
sys.modules["cupy_backends.cuda.api"].driver = sys.modules["cupy.cuda.driver"]
_stand_in("cupy_backends.cuda.stream")
# NVRTC's version, a CUDA toolkit fact test_raw reads (as the runtime's above).
_stand_in("cupy_backends.cuda.libs")
_stand_in("cupy_backends.cuda.libs.nvrtc", getVersion=lambda: (12, 8))

warnings.filterwarnings("ignore", category=PerformanceWarning)
