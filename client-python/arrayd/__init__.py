"""arrayd: NumPy arrays on a shared (GPU) array server, by remote handle.

    import arrayd as ad
    x = ad.arange(6).reshape(2, 3).astype("f")
    print(x.sum(axis=1))          # array([ 3., 12.], dtype=float32)

The modules form layers; each imports only from the layers below it:

- session: _proto/ (generated messages; see gen_proto.sh), _errors,
  _dtypes; _wire (attribute and chunk codec), _transport (gRPC channel
  and the same-host op stream), _shm (shared memory); _session (Session:
  handles, batching, sync, upload and download); _connect (connect,
  current session, private server).
- core: _ndarray (ndarray, views, session_of, asarray_in, scalar).
- functions: _ufunc (the ufunc type), _math (every ufunc, built from
  _ufuncs_gen.py, and the operators),
  _reduction, _creation, _composite, _indexing, _manipulation,
  _mathfuncs, _statistics, _sorting, _linalg, _decompositions,
  _protocols. Each attaches its ndarray methods (``x.sum``, ``x + y``,
  ``x[i]``) to the class, so the core imports none of them.
- namespaces: cuda/, fft/, linalg/, random/, and this package.
"""
from __future__ import annotations

import builtins as _builtins
import platform as _platform
import sys as _sys
from typing import Any

import numpy as np

from arrayd import _protocols, cuda, fft, lib, linalg, random
from arrayd._connect import connect, disconnect
from arrayd._connect import current as current_session
from arrayd._creation import (arange, array, asanyarray, asarray,
                              ascontiguousarray, asfortranarray, asnumpy,
                              empty, empty_like, eye, full, full_like,
                              identity, linspace, ones, ones_like, require,
                              zeros, zeros_like)
from arrayd._errors import (ConnectionError, OutOfMemoryError,
                            SessionClosedError)
from arrayd.cuda.memory import get_default_memory_pool
from arrayd.cuda.pinned_memory import get_default_pinned_memory_pool
from arrayd._info import (get_array_module, iscomplexobj, isrealobj,
                           isscalar, ndim, shape, size)
from arrayd._kernel import RawKernel, RawModule
from arrayd._indexing import (argwhere, compress, diagonal, flatnonzero,
                              nonzero, put, take, take_along_axis)
from arrayd._linalg import (cross, dot, einsum, inner, kron, matmul, outer,
                            tensordot, vdot, vecdot)
from arrayd._manipulation import (
    array_split, atleast_1d, atleast_2d, atleast_3d,
    broadcast_arrays, broadcast_shapes, broadcast_to, column_stack, concat,
    concatenate, diag, diagflat, dsplit, dstack, expand_dims, flip, fliplr,
    flipud, hsplit, hstack, meshgrid, moveaxis, pad, permute_dims, ravel,
    repeat, reshape, roll, rollaxis, rot90, row_stack, split, squeeze, stack,
    swapaxes, tile, transpose, tri, tril, triu, vsplit, vstack, where)
from arrayd import _connect, _math, _transport
from arrayd import (_aliases, _broadcast, _calculus, _editing, _index_tricks, _io,
                    _nanfuncs,
                    _polynomial, _predicates, _printing, _sets, _typing,
                    _windows)
from arrayd._math import UFUNCS as _UFUNCS
from arrayd._mathfuncs import (  # noqa: A004
    allclose, angle, around, array_equal, clip, divmod, float_power, frexp,
    imag, isclose, ldexp, modf, nan_to_num, real, round)
from arrayd._ndarray import asarray_in as _asarray_in
from arrayd._ndarray import ndarray
from arrayd._ndarray import session_of as _session_of
from arrayd._protocols import (can_cast, finfo, iinfo, isdtype,
                               min_scalar_type, promote_types, result_type)
from arrayd._reduction import (  # noqa: A004
    all, amax, amin, any, argmax, argmin, max, mean, min, prod, sum)
from arrayd._session import Session
from arrayd._sorting import (argpartition, argsort, bincount, histogram,
                             isin, partition, searchsorted, sort, unique)
from arrayd._statistics import (average, count_nonzero, cumprod, cumsum,
                                diff, median, nanmax, nanmean, nanmin,
                                nansum, percentile, ptp, quantile, std,
                                trace, var)

from arrayd._ufunc import ufunc
from arrayd._fusion import fuse
from arrayd._userkernel import ElementwiseKernel, ReductionKernel


# Every ufunc of the server (one row each in server/kernels/op_list.h) and
# NumPy's aliases: arrayd.add, arrayd.hypot, arrayd.divide, ...
globals().update(_UFUNCS)

# The rest of NumPy's namespace, one module per topic (its __all__ says what
# it adds).
_TOPICS = (_aliases, _broadcast, _calculus, _editing, _index_tricks, _io, _nanfuncs,
           _polynomial, _predicates, _printing, _sets, _typing, _windows)
for _m in _TOPICS:
    globals().update({_n: getattr(_m, _n) for _n in _m.__all__})



def __getattr__(name: str) -> Any:
    """A ufunc of the server that this client's generated table lacks, once
    a session is open (looking a name up never connects or starts a
    server)."""
    session = None if name.startswith("_") else _connect.existing()
    if session is not None:
        uf = _math.server_ufunc(session, name)
        if uf is not None:
            return uf
    raise AttributeError(f"module 'arrayd' has no attribute {name!r}")


__version__ = "0.1.0"
__array_api_version__ = _protocols.API_VERSION

# dtypes: NumPy's own classes (ad.float32 is np.float32).
bool_ = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
dtype = np.dtype
newaxis = None
# NumPy's constants.
e, pi, inf, nan, euler_gamma = np.e, np.pi, np.inf, np.nan, np.euler_gamma


def synchronize() -> None:
    """Waits for all queued work of the current session; raises the first
    deferred error, if any."""
    current_session().synchronize()


def show_config(*, _full: bool = False) -> None:
    """Prints this client's and its server's configuration, as
    ``cupy.show_config()``: versions, the server's address, backend and
    devices (name, memory, CUDA compute capability, SMs, PCI bus id), the
    transport; connects to the server if no session is open."""
    s = current_session()
    caps = s.capabilities
    local = isinstance(s._requests, _transport.LocalStream)
    rows = [
        ("OS", _platform.platform()),
        ("Python Version", _platform.python_version()),
        ("arrayd Version", __version__),
        ("NumPy Version", np.__version__),
        ("Server Address", s.address),
        ("Server Version", caps.version or "(unknown)"),
        ("Server Id", caps.server_id or "(none)"),
        ("Session Id", str(s.session_id)),
        ("Transport", "same-host socket" + (" + shared memory"
                                            if s._shm_usable() else "")
         if local else "gRPC"),
        ("Backend", caps.active_backend),
        ("Backends Compiled", ", ".join(caps.backends)),
        ("Ops", str(len(caps.ops))),
        ("Max Inline Bytes", str(caps.max_inline_bytes)),
        ("Device Count", str(len(caps.devices))),
    ]
    for d in caps.devices:
        p = f"Device {d.index}"
        rows += [(f"{p} Name", d.name),
                 (f"{p} Backend", d.backend),
                 (f"{p} Total Memory", f"{d.total_memory:,} bytes")]
        if d.compute_major or d.compute_minor:
            rows += [(f"{p} Compute Capability",
                      f"{d.compute_major}{d.compute_minor}"),
                     (f"{p} Multiprocessors", str(d.multiprocessor_count)),
                     (f"{p} PCI Bus ID", d.pci_bus_id or "(none)")]
    if _full:
        rows.append(("Dtypes", ", ".join(caps.dtypes)))
    width = _builtins.max(len(k) for k, _ in rows)
    _sys.stdout.write("".join(f"{k:<{width}}  : {v}\n" for k, v in rows))


def copy(a: Any, order: str = "K", subok: bool = False) -> ndarray:
    """numpy.copy (order='K' keeps a's layout)."""
    return _asarray_in(_session_of(a), a).copy(order)


__all__ = [
    "ConnectionError", "OutOfMemoryError", "Session", "SessionClosedError",
    "abs", "absolute", "add", "all", "amax", "amin", "any", "arange",
    "argmax", "argmin", "array", "asarray", "ascontiguousarray", "asnumpy",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bool_", "broadcast_to",
    "complex128", "complex64", "connect", "copy", "current_session",
    "disconnect", "divide", "dtype", "empty", "empty_like", "equal", "eye",
    "float16", "float32", "float64", "floor_divide", "full", "full_like",
    "greater", "greater_equal", "identity", "int16", "int32", "int64",
    "int8", "invert", "left_shift", "less", "less_equal", "linspace",
    "logical_and", "logical_not", "logical_or", "logical_xor", "max",
    "maximum", "mean", "min", "minimum", "mod", "multiply", "ndarray",
    "negative", "newaxis", "not_equal", "ones", "ones_like", "positive",
    "power", "prod", "ravel", "remainder", "reshape", "right_shift",
    "subtract", "sum",
    "synchronize", "transpose", "true_divide", "uint16", "uint32", "uint64",
    "uint8", "zeros", "zeros_like",
]

__all__ += [
    "acos", "acosh", "allclose", "angle", "arccos", "arccosh", "arcsin",
    "arcsinh", "arctan", "arctan2", "arctanh", "argpartition", "argsort",
    "around", "array_equal", "asin", "asinh", "atan", "atan2", "atanh",
    "average", "bincount", "cbrt", "ceil", "clip", "conj", "conjugate",
    "copysign", "cos", "cosh", "count_nonzero", "cross", "cumprod", "cumsum",
    "degrees", "diff", "dot", "einsum", "exp", "exp2", "expm1", "fabs",
    "float_power", "floor", "fmax", "fmin", "fmod", "gcd", "heaviside",
    "histogram", "hypot", "imag", "inner", "isclose", "isfinite", "isin",
    "fft", "isinf", "isnan", "kron", "lcm", "linalg", "log", "log10", "log1p",
    "log2", "logaddexp", "logaddexp2", "matmul", "median", "nan_to_num",
    "nanmax", "nanmean", "nanmin", "nansum", "nextafter", "outer",
    "partition", "percentile", "pow", "ptp", "quantile", "radians",
    "random", "real", "reciprocal", "rint", "round", "searchsorted",
    "sign", "signbit", "sin", "sinh", "sort", "sqrt", "square", "std",
    "tan", "tanh", "tensordot", "trace", "trunc", "unique", "var", "vdot",
    "vecdot",
]

__all__ += [
    "argwhere", "array_split", "atleast_1d", "atleast_2d", "atleast_3d",
    "broadcast_arrays", "broadcast_shapes", "can_cast", "column_stack",
    "compress", "concat", "concatenate", "diag", "diagflat", "diagonal",
    "dsplit", "dstack", "expand_dims", "finfo", "flatnonzero", "flip",
    "fliplr", "flipud", "hsplit", "hstack", "iinfo", "isdtype", "meshgrid",
    "min_scalar_type", "moveaxis", "nonzero", "pad", "permute_dims",
    "promote_types", "put", "repeat", "result_type", "roll", "rollaxis",
    "rot90", "row_stack", "split", "squeeze", "stack", "swapaxes", "take",
    "take_along_axis", "tile", "tri", "tril", "triu", "vsplit", "vstack",
    "where",
]

__all__ += ["lib", "cuda", "get_default_memory_pool",
            "get_default_pinned_memory_pool", "show_config"]
__all__ += ["RawKernel", "RawModule"]
__all__ += ["asanyarray", "asfortranarray", "divmod", "frexp", "ldexp",
            "modf", "require"]
__all__ += ["e", "euler_gamma", "get_array_module", "inf", "iscomplexobj",
            "isrealobj", "isscalar", "nan", "ndim", "pi", "shape", "size"]
__all__ += ["ElementwiseKernel", "ReductionKernel", "fuse"]
__all__ += sorted(set(_UFUNCS) - set(__all__)) + ["ufunc"]
for _m in _TOPICS:
    __all__ += _m.__all__

# NumPy's protocols (np.sum(x), x.__array_namespace__()) dispatch to this
# namespace by name: handed down now that it is complete.
_protocols.set_namespace(_sys.modules[__name__])
