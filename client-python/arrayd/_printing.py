"""Printing: array2string, array_repr, array_str, NumPy's print options,
format_float_positional/scientific, base_repr, binary_repr, and NumPy
1.x's disp (removed in NumPy 2; CuPy keeps the name).

Printing is a sync point (as repr(x) is): an arrayd array is fetched once
and NumPy formats it, so the output is NumPy's byte for byte and NumPy's
print options (set_printoptions, printoptions, which are NumPy's own
functions) apply to arrayd arrays as they do to NumPy's.

Layer: functions (imports only the core).
"""
from __future__ import annotations

import sys
from typing import Any

import numpy as np

from arrayd._ndarray import ndarray

set_printoptions = np.set_printoptions
get_printoptions = np.get_printoptions
printoptions = np.printoptions


def _host(a: Any) -> Any:
    """a's data on the host for NumPy's formatter (arrayd arrays are
    fetched; anything else is passed as it is)."""
    return a.get() if isinstance(a, ndarray) else a


def array2string(a: Any, max_line_width: int | None = None,
                 precision: int | None = None,
                 suppress_small: bool | None = None, separator: str = " ",
                 prefix: str = "", *, formatter: dict | None = None,
                 threshold: int | None = None, edgeitems: int | None = None,
                 sign: str | None = None, floatmode: str | None = None,
                 suffix: str = "", legacy: Any = None) -> str:
    """numpy.array2string of the array's values."""
    return np.array2string(
        _host(a), max_line_width, precision, suppress_small, separator,
        prefix, formatter=formatter, threshold=threshold,
        edgeitems=edgeitems, sign=sign, floatmode=floatmode, suffix=suffix,
        legacy=legacy)


def array_repr(arr: Any, max_line_width: int | None = None,
               precision: int | None = None,
               suppress_small: bool | None = None) -> str:
    """numpy.array_repr: ``array([...], dtype=...)``, as repr(arr)."""
    return np.array_repr(_host(arr), max_line_width, precision,
                         suppress_small)


def array_str(a: Any, max_line_width: int | None = None,
              precision: int | None = None,
              suppress_small: bool | None = None) -> str:
    """numpy.array_str: the values without ``array(...)``, as str(a)."""
    return np.array_str(_host(a), max_line_width, precision, suppress_small)


def format_float_positional(x: Any, precision: int | None = None,
                            unique: bool = True, fractional: bool = True,
                            trim: str = "k", sign: bool = False,
                            pad_left: int | None = None,
                            pad_right: int | None = None,
                            min_digits: int | None = None) -> str:
    """numpy.format_float_positional of a float (a 0-d arrayd array
    included)."""
    return np.format_float_positional(
        _host(x), precision, unique, fractional, trim, sign, pad_left,
        pad_right, min_digits)


def format_float_scientific(x: Any, precision: int | None = None,
                            unique: bool = True, trim: str = "k",
                            sign: bool = False, pad_left: int | None = None,
                            exp_digits: int | None = None,
                            min_digits: int | None = None) -> str:
    """numpy.format_float_scientific of a float (a 0-d arrayd array
    included)."""
    return np.format_float_scientific(
        _host(x), precision, unique, trim, sign, pad_left, exp_digits,
        min_digits)


def _host_scalar(x: Any) -> Any:
    """A 0-d arrayd array as NumPy's scalar (one fetch); others as they
    are."""
    return x.get()[()] if isinstance(x, ndarray) else x


# base_repr and binary_repr carry no annotations: their signatures are
# NumPy's exactly (inspect.signature compares equal, as CuPy's tests check).

def base_repr(number, base=2, padding=0):  # type: ignore[no-untyped-def]
    """numpy.base_repr: the integer in ``base`` (2 to 36) with ``padding``
    zeros in front."""
    return np.base_repr(_host_scalar(number), _host_scalar(base),
                        _host_scalar(padding))


def binary_repr(num, width=None):  # type: ignore[no-untyped-def]
    """numpy.binary_repr: the integer in binary; two's complement of
    ``width`` bits for a negative one when width is given."""
    return np.binary_repr(_host_scalar(num), _host_scalar(width))


def disp(mesg: Any, device: Any = None, linefeed: bool = True) -> None:
    """NumPy 1.x's disp: writes str(mesg) (an array's str) to ``device``
    (sys.stdout by default), with a newline unless ``linefeed`` is False,
    and flushes it."""
    out = sys.stdout if device is None else device
    text = array_str(mesg) if isinstance(mesg, ndarray) else str(mesg)
    out.write(text + "\n" if linefeed else text)
    out.flush()


__all__ = ["array2string", "array_repr", "array_str", "base_repr",
           "binary_repr", "disp", "format_float_positional",
           "format_float_scientific", "get_printoptions", "printoptions",
           "set_printoptions"]
