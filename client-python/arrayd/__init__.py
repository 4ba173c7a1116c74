"""arrayd: NumPy arrays on a shared (GPU) array server, by remote handle.

    import arrayd as ad
    x = ad.arange(6).reshape(2, 3).astype("f")
    print(x.sum(axis=1))          # array([ 3., 12.], dtype=float32)

Where things live: _session.py (Session: batching, sync, upload and
download), _connect.py (connect, the current session, the private server),
_transport.py (gRPC and the same-host op stream), _wire.py (codec), _shm.py
(shared memory), _ndarray.py (ndarray, views, indexing), _math.py (elementwise
ufuncs, one row each), _reduction.py, _creation.py, _errors.py, _dtypes.py,
_proto/ (generated messages; see gen_proto.sh).
"""
from __future__ import annotations

from typing import Any

import numpy as np

# _ndarray first: it imports _math/_reduction, which import it back.
from arrayd._ndarray import ndarray  # isort: skip
from arrayd._creation import (arange, array, asarray, ascontiguousarray,
                              asnumpy, empty, empty_like, eye, full,
                              full_like, identity, linspace, ones, ones_like,
                              zeros, zeros_like)
from arrayd._errors import ConnectionError, OutOfMemoryError, SessionClosedError
from arrayd._math import (abs, absolute, add, bitwise_and, bitwise_or,
                          bitwise_xor, divide, equal, floor_divide, greater,
                          greater_equal, invert, left_shift, less, less_equal,
                          logical_and, logical_not, logical_or, logical_xor,
                          maximum, minimum, mod, multiply, negative,
                          not_equal, positive, power, remainder, right_shift,
                          subtract, true_divide)
from arrayd._math import asarray_in as _asarray_in
from arrayd._math import session_of as _session_of
from arrayd._reduction import (all, amax, amin, any, argmax, argmin, max,
                               mean, min, prod, sum)
from arrayd._connect import connect, disconnect
from arrayd._connect import current as current_session
from arrayd._session import Session
# Math, statistics, sorting, products, linalg and random.
from arrayd._math import (  # noqa: A004
    exp, exp2, expm1, log, log2, log10, log1p, sqrt, cbrt, square,
    reciprocal, sin, cos, tan, arcsin, arccos, arctan, sinh, cosh,
    tanh, arcsinh, arccosh, arctanh, floor, ceil, trunc, rint, sign,
    signbit, fabs, degrees, radians, isnan, isinf, isfinite,
    conjugate, arctan2, hypot, copysign, nextafter, fmax, fmin, fmod,
    gcd, lcm, logaddexp, logaddexp2, heaviside, conj, pow, asin, acos,
    atan, atan2, asinh, acosh, atanh)
from arrayd._mathfuncs import (  # noqa: A004
    allclose, angle, around, array_equal, clip, float_power, imag,
    isclose, nan_to_num, real, round)
from arrayd._statistics import (  # noqa: A004
    average, count_nonzero, cumprod, cumsum, diff, median, nanmax,
    nanmean, nanmin, nansum, percentile, ptp, quantile, std, trace,
    var)
from arrayd._sorting import (  # noqa: A004
    argpartition, argsort, bincount, histogram, isin, partition,
    searchsorted, sort, unique)
from arrayd._linalg import (  # noqa: A004
    cross, dot, einsum, inner, kron, matmul, outer, tensordot, vdot, vecdot)
from arrayd import fft, linalg, random  # noqa: E402
# Shape manipulation, advanced indexing, NumPy protocols.
from arrayd._manipulation import (  # noqa: E402
    array_split, atleast_1d, atleast_2d, atleast_3d, broadcast_arrays,
    broadcast_shapes, broadcast_to, column_stack, concat, concatenate, diag,
    diagflat, dsplit, dstack, expand_dims, flip, fliplr, flipud, hsplit,
    hstack, meshgrid, moveaxis, pad, permute_dims, ravel, repeat, reshape,
    roll, rollaxis, rot90, row_stack, split, squeeze, stack, swapaxes, tile,
    transpose, tri, tril, triu, vsplit, vstack, where)
from arrayd._manipulation import ascontiguousarray  # noqa: E402,F811
from arrayd._indexing import (  # noqa: E402
    argwhere, compress, diagonal, flatnonzero, nonzero, put, take,
    take_along_axis)
from arrayd._protocols import (  # noqa: E402
    can_cast, finfo, iinfo, isdtype, min_scalar_type, promote_types,
    result_type)
from arrayd._protocols import API_VERSION as __array_api_version__  # noqa

__version__ = "0.1.0"

# dtypes: NumPy's own classes (ad.float32 is np.float32).
bool_ = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
dtype = np.dtype
newaxis = None


def synchronize() -> None:
    """Waits for all queued work of the current session; raises the first
    deferred error, if any."""
    current_session().synchronize()


def copy(a: Any) -> ndarray:
    return _asarray_in(_session_of(a), a).copy()


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
    "power", "prod", "ravel", "remainder", "reshape", "right_shift", "sum",
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
