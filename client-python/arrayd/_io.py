"""Input and output: save, load, savez, savez_compressed, loadtxt, savetxt,
genfromtxt, fromfile, frombuffer, fromstring, fromiter, fromfunction,
asarray_chkfinite; ndarray.dump, dumps and tofile.

Files and buffers are read and written by NumPy on this host (its formats,
options and errors): reading uploads the result once, writing fetches each
arrayd array once. Non-native byte orders (``dtype='>i4'``) are converted
to native order on the way up, since arrayd's arrays are native. Nothing
else runs on the host: fromfunction calls the function with index arrays
made on the server, and asarray_chkfinite checks on the server (one sync
for the answer).

Layer: functions (imports the core, _creation, _math, _reduction and
_index_tricks). Attaches ndarray.dump, dumps and tofile.
"""
from __future__ import annotations

import os
import pickle
from collections.abc import Iterator, Mapping
from typing import Any, Callable

import numpy as np

from arrayd import _creation, _index_tricks
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd._ndarray import asarray_in, attach, ndarray, session_of

DataSource = np.lib.npyio.DataSource


def _upload(a: Any) -> Any:
    """A NumPy result as an arrayd array (in native byte order); tuples and
    lists of arrays (``unpack=True``) element by element; anything else
    (a pickled object) as it is."""
    if isinstance(a, np.ndarray):
        if not a.dtype.isnative and a.dtype.fields is None:
            a = a.astype(a.dtype.newbyteorder("="))
        return asarray_in(session_of(), a)
    if isinstance(a, (tuple, list)) and a and all(
            isinstance(v, np.ndarray) for v in a):
        return type(a)(_upload(v) for v in a)
    return a


def _host(a: Any) -> Any:
    """An arrayd array's data for NumPy's writers (one fetch)."""
    return a.get() if isinstance(a, ndarray) else a


# -- .npy / .npz ---------------------------------------------------------------

class _Attributes:
    """NpzFile.f: the arrays as attributes (``npz.f.arr_0``)."""

    def __init__(self, npz: "NpzFile") -> None:
        object.__setattr__(self, "_npz", npz)

    def __getattr__(self, key: str) -> ndarray:
        try:
            return self._npz[key]
        except KeyError:
            raise AttributeError(key) from None

    def __dir__(self) -> list[str]:
        return list(self._npz.files)


class NpzFile(Mapping):
    """What load returns for an .npz file: NumPy's NpzFile whose arrays are
    uploaded when read (``npz["arr_0"]`` is an arrayd array). Closes the
    file as NumPy's does (``with load(f) as npz:`` or close())."""

    def __init__(self, npz: np.lib.npyio.NpzFile) -> None:
        self._npz = npz
        self.files: list[str] = list(npz.files)
        self.f = _Attributes(self)

    def __getitem__(self, key: str) -> Any:
        return _upload(self._npz[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, key: object) -> bool:
        return key in self._npz

    def close(self) -> None:
        self._npz.close()

    def __enter__(self) -> "NpzFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"arrayd.NpzFile({self._npz!r})"


def save(file: Any, arr: Any, allow_pickle: bool = True) -> None:
    """numpy.save of the array's values (.npy)."""
    np.save(file, _host(arr), allow_pickle=allow_pickle)


def load(file: Any, mmap_mode: str | None = None, allow_pickle: bool = False,
         fix_imports: bool = True, encoding: str = "ASCII", *,
         max_header_size: int = 10000) -> Any:
    """numpy.load: an arrayd array for .npy, an NpzFile of arrayd arrays
    for .npz, the object for pickles (allow_pickle=True; a pickled arrayd
    array comes back as an arrayd array)."""
    obj = np.load(file, mmap_mode, allow_pickle, fix_imports, encoding,
                  max_header_size=max_header_size)
    if isinstance(obj, np.lib.npyio.NpzFile):
        return NpzFile(obj)
    return _upload(obj)


def _savez_args(args: tuple[Any, ...],
                kwds: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    return [_host(a) for a in args], {k: _host(v) for k, v in kwds.items()}


def savez(file: Any, *args: Any, allow_pickle: bool = True,
          **kwds: Any) -> None:
    """numpy.savez of the arrays' values (.npz, uncompressed)."""
    a, k = _savez_args(args, kwds)
    np.savez(file, *a, allow_pickle=allow_pickle, **k)


def savez_compressed(file: Any, *args: Any, allow_pickle: bool = True,
                     **kwds: Any) -> None:
    """numpy.savez_compressed of the arrays' values (.npz, deflated)."""
    a, k = _savez_args(args, kwds)
    np.savez_compressed(file, *a, allow_pickle=allow_pickle, **k)


# -- text ---------------------------------------------------------------------

def loadtxt(fname: Any, dtype: Any = float, comments: Any = "#",
            delimiter: Any = None, converters: Any = None, skiprows: int = 0,
            usecols: Any = None, unpack: bool = False, ndmin: int = 0,
            encoding: Any = None, max_rows: int | None = None, *,
            quotechar: str | None = None, like: Any = None) -> Any:
    """numpy.loadtxt, uploaded (a tuple of arrays with unpack=True)."""
    return _upload(np.loadtxt(
        fname, dtype, comments, delimiter, converters, skiprows, usecols,
        unpack, ndmin, encoding, max_rows, quotechar=quotechar))


def genfromtxt(fname: Any, dtype: Any = float, comments: Any = "#",
               delimiter: Any = None, skip_header: int = 0,
               skip_footer: int = 0, converters: Any = None,
               missing_values: Any = None, filling_values: Any = None,
               usecols: Any = None, names: Any = None,
               excludelist: Any = None,
               deletechars: str = " !#$%&'()*+,-./:;<=>?@[\\]^{|}~",
               replace_space: str = "_", autostrip: bool = False,
               case_sensitive: Any = True, defaultfmt: str = "f%i",
               unpack: bool | None = None, usemask: bool = False,
               loose: bool = True, invalid_raise: bool = True,
               max_rows: int | None = None, encoding: Any = None, *,
               ndmin: int = 0, like: Any = None) -> Any:
    """numpy.genfromtxt, uploaded. Structured results (``names=``) and
    masked ones (``usemask=True``) have no arrayd dtype: TypeError."""
    if usemask:
        raise TypeError("arrayd has no masked arrays: genfromtxt with "
                        "usemask=True is not supported (use "
                        "filling_values=)")
    a = np.genfromtxt(
        fname, dtype, comments, delimiter, skip_header, skip_footer,
        converters, missing_values, filling_values, usecols, names,
        excludelist, deletechars, replace_space, autostrip, case_sensitive,
        defaultfmt, unpack, usemask, loose, invalid_raise, max_rows,
        encoding, ndmin=ndmin)
    return _upload(a)


def savetxt(fname: Any, X: Any, fmt: Any = "%.18e", delimiter: str = " ",
            newline: str = "\n", header: str = "", footer: str = "",
            comments: str = "# ", encoding: Any = None) -> None:
    """numpy.savetxt of the array's values."""
    np.savetxt(fname, _host(X), fmt, delimiter, newline, header, footer,
               comments, encoding)


# -- buffers, files, iterables ---------------------------------------------

def fromfile(file: Any, dtype: Any = None, count: int = -1, sep: str = "",
             offset: int = 0, *, like: Any = None) -> ndarray:
    """numpy.fromfile (binary, or text with ``sep``), uploaded."""
    return _upload(np.fromfile(file, dtype, count, sep, offset))


def frombuffer(buffer: Any, dtype: Any = None, count: int = -1,
               offset: int = 0, *, like: Any = None) -> ndarray:
    """numpy.frombuffer, uploaded (a copy: arrayd cannot share host
    memory)."""
    return _upload(np.frombuffer(buffer, dtype, count, offset))


def fromstring(string: Any, dtype: Any = float, count: int = -1, *,
               sep: str = "", like: Any = None) -> ndarray:
    """numpy.fromstring (text with ``sep``), uploaded."""
    return _upload(np.fromstring(string, dtype, count, sep=sep))


def fromiter(iter: Any, dtype: Any, count: int = -1, *,  # noqa: A002
             like: Any = None) -> ndarray:
    """numpy.fromiter: the iterable's values, uploaded once."""
    return _upload(np.fromiter(iter, dtype, count))


def fromfunction(function: Callable[..., Any], shape: Any, *,
                 dtype: Any = float, like: Any = None, **kwargs: Any) -> Any:
    """numpy.fromfunction: ``function(*indices(shape, dtype), **kwargs)``,
    with the index arrays made on the server (the function sees arrayd
    arrays; what it returns is returned)."""
    grid = _index_tricks.indices(shape, dtype=dtype)
    return function(*(grid[k] for k in range(grid.shape[0])), **kwargs)


def asarray_chkfinite(a: Any, dtype: Any = None, order: Any = None) -> ndarray:
    """numpy.asarray_chkfinite: asarray, then ValueError if a float or
    complex array holds an inf or nan (checked on the server: one sync)."""
    x = _creation.asarray(a, dtype, order)
    if x.dtype.kind in "fc" and not bool(_r.all(_m.isfinite(x))):
        raise ValueError("array must not contain infs or NaNs")
    return x


# -- ndarray methods ----------------------------------------------------------

def _dump(self: ndarray, file: Any) -> None:
    """ndarray.dump: pickles the array (by value) to a file or path; load
    it with arrayd.load(file, allow_pickle=True) or pickle.load."""
    if isinstance(file, (str, os.PathLike)):
        with open(file, "wb") as f:
            pickle.dump(self, f, protocol=2)
    else:
        pickle.dump(self, file, protocol=2)


def _dumps(self: ndarray) -> bytes:
    """ndarray.dumps: the array's pickle (by value) as bytes."""
    return pickle.dumps(self, protocol=2)


def _tofile(self: ndarray, fid: Any, sep: str = "",
            format: str = "%s") -> None:  # noqa: A002
    """ndarray.tofile: the values written by NumPy (binary, or text with
    ``sep``); read them back with fromfile."""
    self.get().tofile(fid, sep, format)


attach(dump=_dump, dumps=_dumps, tofile=_tofile)

__all__ = ["DataSource", "asarray_chkfinite", "frombuffer", "fromfile",
           "fromfunction", "fromiter", "fromstring", "genfromtxt", "load",
           "loadtxt", "save", "savetxt", "savez", "savez_compressed"]
