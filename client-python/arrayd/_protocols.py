"""NumPy and Python protocols of arrayd.ndarray.

- ``__array_ufunc__``: ``np.add(x, y)``, ``np.add.reduce(x)``, ... run on
  the server through arrayd's function of the same name.
- ``__array_function__``: ``np.concatenate([x, y])``, ``np.sum(x)``,
  ``np.linalg.norm(x)`` call ``arrayd.concatenate``, ``arrayd.sum``,
  ``arrayd.linalg.norm``; NumPy functions that arrayd lacks raise
  NumPy's TypeError (no silent download), as in CuPy.
- ``__array_namespace__`` (Array API standard 2023.12), pickling by value,
  and NumPy's dtype helpers that accept arrayd arrays.
- The rest of the Array API's array object and inspection API:
  ``__array_namespace_info__()``, ``x.device`` (a Device: the server
  behind x's session), ``x.to_device``, ``x.mT`` and matrix_transpose,
  from_dlpack, and ``__dlpack__`` / ``__dlpack_device__``, which export
  only by copy to the host (a remote array has no local memory to share).

Layer: functions (imports the session, the core, _math and _creation). Attaches those
protocol methods to ndarray. They dispatch by name to the arrayd
namespace, which sits above every module: the package hands itself down
with ``set_namespace`` when its __init__ has run.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from arrayd import _connect, _math
from arrayd._creation import asarray
from arrayd._ndarray import asarray_in, attach, ndarray
from arrayd._session import Session

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
    arrayd's function, for NumPy ufuncs the server has not); SciPy's
    ufuncs (scipy.special.erf(x)) run arrayd.scipy.special's."""
    ours = _math.UFUNCS.get(ufunc.__name__)
    if ours is None:
        ours = _math.SPECIAL.get(ufunc.__name__)
        if ours is not None:
            _math.sync_special_loops()
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
    """The smallest dtype that holds the scalar or array a
    (numpy.min_scalar_type; an arrayd array is read back to decide)."""
    return np.min_scalar_type(a.get() if isinstance(a, ndarray) else a)


def promote_types(type1: Any, type2: Any) -> np.dtype:
    """The smallest dtype both type1 and type2 cast to safely
    (numpy.promote_types)."""
    return np.promote_types(_dt(type1), _dt(type2))


def isdtype(dtype: Any, kind: Any) -> bool:
    """Array API isdtype (NumPy's), accepting arrayd arrays."""
    return np.isdtype(_dt(dtype), kind)


class Device:
    """An Array API device: the server (and its backend) of one session.

    Every array of a session lives on its device; ``x.device == y.device``
    when x and y can meet in one op. Devices compare by session.
    """

    __slots__ = ("session",)

    def __init__(self, session: Session) -> None:
        self.session = session

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.session is self.session

    def __hash__(self) -> int:
        return hash(id(self.session))

    def __repr__(self) -> str:
        s = self.session
        return f"arrayd.Device({s.backend!r}, session {s.session_id} at " \
               f"{s.address!r})"


def _session_of_device(device: Any) -> Session:
    """The session of an Array API ``device`` argument (None: the default
    session); ValueError for devices of other libraries."""
    if device is None:
        return _connect.current()
    if isinstance(device, Device):
        return device.session
    raise ValueError(f"Unsupported device {device!r}: arrayd's devices are "
                     "arrayd.Device objects (x.device, "
                     "arrayd.__array_namespace_info__().devices())")


def _device(self: ndarray) -> Device:
    """ndarray.device: the device (session) the array lives on."""
    return Device(self._session)


def _to_device(self: ndarray, device: Any, /, *,
               stream: Any = None) -> ndarray:
    """ndarray.to_device: the array on ``device``; itself when it is there
    already, else a copy through this host into that device's session."""
    if stream is not None:
        raise ValueError("The stream argument in to_device() is not "
                         "supported")
    if not isinstance(device, Device):
        raise ValueError(
            f"Unsupported device {device!r}: arrayd's devices are "
            "arrayd.Device objects (use x.get() or arrayd.asnumpy(x) for a "
            "NumPy array on the host)")
    if device.session is self._session:
        return self
    return asarray_in(device.session, self.get())


def matrix_transpose(x: Any, /) -> ndarray:
    """numpy.matrix_transpose: x with its last two axes swapped (a view)."""
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but "
                         f"it is {x.ndim}")
    return x.swapaxes(-1, -2)


def _mT(self: ndarray) -> ndarray:
    """ndarray.mT: the array with its last two axes swapped (a view)."""
    if self.ndim < 2:
        raise ValueError("matrix transpose with ndim < 2 is undefined")
    return self.swapaxes(-1, -2)


_NO_DLPACK = ("an arrayd.ndarray lives on a remote arrayd server and has no "
              "memory in this process to share through DLPack")
_DL_CPU = 1  # DLDeviceType kDLCPU


def _dlpack(self: ndarray, *, stream: Any = None,
            max_version: Any = None, dl_device: Any = None,
            copy: bool | None = None) -> Any:
    """ndarray.__dlpack__: only a copy to the host CPU can be exported
    (dl_device=(kDLCPU, 0), copy not False: what numpy.from_dlpack(x,
    device="cpu") asks for); BufferError otherwise."""
    if dl_device is None or tuple(dl_device)[0] != _DL_CPU:
        raise BufferError(
            f"{_NO_DLPACK}: ask for a copy to the CPU (numpy.from_dlpack(x, "
            "device='cpu')), or use x.get() / arrayd.asnumpy(x)")
    if copy is False:
        raise BufferError(f"{_NO_DLPACK}: a CPU export always copies "
                          "(copy=False is impossible)")
    host = self.get()
    if max_version is None:
        return host.__dlpack__()
    return host.__dlpack__(max_version=max_version)


def _dlpack_device(self: ndarray) -> tuple[int, int]:
    """ndarray.__dlpack_device__: a remote array has no DLPack device."""
    raise BufferError(f"{_NO_DLPACK}: use x.get() or arrayd.asnumpy(x) for "
                      "a NumPy array, or numpy.from_dlpack(x, device='cpu')")


def from_dlpack(x: Any, /, *, device: Any = None,
                copy: bool | None = None) -> ndarray:
    """Array API from_dlpack: an arrayd array from a DLPack exporter (host
    memory: NumPy's rules and errors), uploaded to ``device``'s session;
    an arrayd array is returned as is (or copied when ``copy=True``)."""
    s = _session_of_device(device)
    if isinstance(x, ndarray):
        if x._session is not s:
            return x.to_device(Device(s))
        return x.copy() if copy else x
    if copy is False:
        raise ValueError("arrayd.from_dlpack always copies to the server "
                         "(copy=False is impossible)")
    return asarray_in(s, np.from_dlpack(x))


# The Array API's dtype names of arrayd's dtypes (float16 is not one).
_API_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
               "uint32", "uint64", "float32", "float64", "complex64",
               "complex128")
_API_KINDS = ("bool", "signed integer", "unsigned integer", "integral",
              "real floating", "complex floating", "numeric")


class ArrayNamespaceInfo:
    """What ``arrayd.__array_namespace_info__()`` returns (Array API
    2023.12 inspection): capabilities, devices and dtypes."""

    __module__ = "arrayd"

    def capabilities(self) -> dict[str, bool]:
        """Boolean indexing and data-dependent shapes (nonzero, unique,
        x[mask]) are supported; each waits for the server once."""
        return {"boolean indexing": True, "data-dependent shapes": True}

    def default_device(self) -> Device:
        """The device of the default session (connecting if needed)."""
        return Device(_connect.current())

    def devices(self) -> list[Device]:
        """The devices arrays can be made on: the default session's."""
        return [self.default_device()]

    def default_dtypes(self, *, device: Any = None) -> dict[str, np.dtype]:
        """NumPy's defaults, the same on every device."""
        if device is not None:
            _session_of_device(device)
        return {"real floating": np.dtype(np.float64),
                "complex floating": np.dtype(np.complex128),
                "integral": np.dtype(np.int64),
                "indexing": np.dtype(np.intp)}

    def dtypes(self, *, device: Any = None,
               kind: Any = None) -> dict[str, np.dtype]:
        """The Array API dtypes arrayd supports, by name, of ``kind`` (a
        kind name of isdtype, or a tuple of them; None: all)."""
        if device is not None:
            _session_of_device(device)
        kinds = kind if isinstance(kind, tuple) else (kind,)
        for k in kinds:
            if k is not None and k not in _API_KINDS:
                raise ValueError(f"unsupported kind: {k!r}")
        out = {}
        for name in _API_DTYPES:
            dt = np.dtype(name)
            if kind is None or np.isdtype(dt, kinds):
                out[name] = dt
        return out


def __array_namespace_info__() -> ArrayNamespaceInfo:
    """Array API 2023.12 inspection: arrayd's capabilities, devices and
    dtypes."""
    return ArrayNamespaceInfo()


attach(__array_ufunc__=_array_ufunc, __array_function__=_array_function,
       __array_namespace__=_array_namespace, __reduce__=reduce,
       device=property(_device), to_device=_to_device, mT=property(_mT),
       __dlpack__=_dlpack, __dlpack_device__=_dlpack_device)
