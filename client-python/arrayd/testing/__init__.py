"""arrayd.testing: NumPy's array assertions for arrayd arrays, and test data.

    import arrayd as ad
    import arrayd.testing as adt
    adt.assert_allclose(ad.sin(x), numpy.sin(x_host), rtol=1e-6)
    a = adt.shaped_arange((2, 3), ad, "f4")     # 1..6 on the server

The assertions take arrayd arrays, NumPy arrays, scalars and (for
assert_equal) lists, tuples and dicts of them: each arrayd array is fetched
once and numpy.testing compares, so the checks, their tolerances and their
failure messages are NumPy's. ``strides_check`` (assert_array_equal) and
assert_array_list_equal are CuPy's additions.

shaped_arange, shaped_reverse_arange and shaped_random make the arrays
CuPy's tests use, for ``xp`` arrayd (the default) or numpy:
shaped_arange/shaped_reverse_arange on the server; shaped_random draws
from NumPy's RandomState(seed) on the host, so that numpy and arrayd get
the same values for one seed.

Layer: a namespace beside the package (the package's __init__ does not
import it): imports the package and numpy.testing.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.testing as _npt

import arrayd as _ad
from arrayd._ndarray import ndarray as _ndarray


def _host(obj: Any) -> Any:
    """obj with every arrayd array in it fetched (lists, tuples and dicts
    are walked, as numpy.testing.assert_equal walks them)."""
    if isinstance(obj, _ndarray):
        return obj.get()
    if isinstance(obj, dict):
        return {k: _host(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)) and any(
            isinstance(v, (_ndarray, list, tuple, dict)) for v in obj):
        return type(obj)(_host(v) for v in obj)
    return obj


# -- assertions -----------------------------------------------------------

def assert_allclose(actual: Any, desired: Any, rtol: float = 1e-7,
                    atol: float = 0, equal_nan: bool = True,
                    err_msg: str = "", verbose: bool = True, *,
                    strict: bool = False) -> None:
    """numpy.testing.assert_allclose: |actual - desired| <= atol + rtol *
    |desired| everywhere."""
    _npt.assert_allclose(_host(actual), _host(desired), rtol, atol,
                         equal_nan, err_msg, verbose, strict=strict)


def assert_array_equal(actual: Any, desired: Any, err_msg: str = "",
                       verbose: bool = True, *, strict: bool = False,
                       strides_check: bool = False) -> None:
    """numpy.testing.assert_array_equal; with ``strides_check`` the two
    arrays' strides must be equal too (CuPy's option)."""
    if strides_check:
        sa, sd = getattr(actual, "strides", None), getattr(
            desired, "strides", None)
        if sa != sd:
            msg = ["Strides are not equal:", f" x: {sa}", f" y: {sd}"]
            if err_msg:
                msg.insert(1, err_msg)
            raise AssertionError("\n".join(msg))
    _npt.assert_array_equal(_host(actual), _host(desired), err_msg, verbose,
                            strict=strict)


def assert_array_almost_equal(actual: Any, desired: Any, decimal: int = 6,
                              err_msg: str = "",
                              verbose: bool = True) -> None:
    """numpy.testing.assert_array_almost_equal: equal to ``decimal``
    places."""
    _npt.assert_array_almost_equal(_host(actual), _host(desired), decimal,
                                   err_msg, verbose)


def assert_array_almost_equal_nulp(x: Any, y: Any, nulp: int = 1) -> None:
    """numpy.testing.assert_array_almost_equal_nulp: within ``nulp`` units
    in the last place of the larger magnitude."""
    _npt.assert_array_almost_equal_nulp(_host(x), _host(y), nulp)


def assert_array_max_ulp(a: Any, b: Any, maxulp: int = 1,
                         dtype: Any = None) -> np.ndarray:
    """numpy.testing.assert_array_max_ulp: at most ``maxulp`` ULPs apart;
    returns NumPy's array of the distances."""
    return _npt.assert_array_max_ulp(_host(a), _host(b), maxulp, dtype)


def assert_array_less(x: Any, y: Any, err_msg: str = "",
                      verbose: bool = True, *, strict: bool = False) -> None:
    """numpy.testing.assert_array_less: x < y everywhere."""
    _npt.assert_array_less(_host(x), _host(y), err_msg, verbose,
                           strict=strict)


def assert_equal(actual: Any, desired: Any, err_msg: str = "",
                 verbose: bool = True, *, strict: bool = False) -> None:
    """numpy.testing.assert_equal (dicts, lists and tuples of arrays
    compared item by item)."""
    _npt.assert_equal(_host(actual), _host(desired), err_msg, verbose,
                      strict=strict)


def assert_almost_equal(actual: Any, desired: Any, decimal: int = 7,
                        err_msg: str = "", verbose: bool = True) -> None:
    """numpy.testing.assert_almost_equal: equal to ``decimal`` places."""
    _npt.assert_almost_equal(_host(actual), _host(desired), decimal,
                             err_msg, verbose)


def assert_array_list_equal(xlist: Any, ylist: Any, err_msg: str = "",
                            verbose: bool = True) -> None:
    """Two sequences of arrays of the same length, equal pairwise
    (assert_array_equal on each pair; CuPy's helper)."""
    if len(xlist) != len(ylist):
        raise AssertionError(f"List size is different: {len(xlist)} != "
                             f"{len(ylist)}" + (f"\n{err_msg}"
                                                if err_msg else ""))
    for i, (x, y) in enumerate(zip(xlist, ylist)):
        try:
            assert_array_equal(x, y, err_msg, verbose)
        except AssertionError as e:
            raise AssertionError(f"Arrays at index {i} differ:\n{e}") from None


# -- test data --------------------------------------------------------------

def _finish(xp: Any, a: Any, dtype: np.dtype, shape: tuple[int, ...],
            order: str) -> Any:
    """Integers a as dtype (bool: even -> True; complex: a + a*1j) in
    ``shape`` and memory ``order``."""
    if dtype.kind == "b":
        a = a % 2 == 0
    elif dtype.kind == "c":
        a = a + a * 1j
    a = a.astype(dtype).reshape(shape)
    return a if order in ("C", "c") else xp.asarray(a, order=order)


def shaped_arange(shape: Any, xp: Any = _ad, dtype: Any = np.float32,
                  order: str = "C") -> Any:
    """An array of ``shape`` holding 1, 2, ..., N in C order, as dtype
    (for bool: True where the value is even; for complex: v + v*1j)."""
    shp = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    n = math.prod(shp)
    return _finish(xp, xp.arange(1, n + 1), np.dtype(dtype), shp, order)


def shaped_reverse_arange(shape: Any, xp: Any = _ad,
                          dtype: Any = np.float32) -> Any:
    """Like shaped_arange, with N, N-1, ..., 1."""
    shp = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    n = math.prod(shp)
    return _finish(xp, xp.arange(n, 0, -1), np.dtype(dtype), shp, "C")


def shaped_random(shape: Any, xp: Any = _ad, dtype: Any = np.float32,
                  scale: float = 10, seed: int = 0, order: str = "C") -> Any:
    """Uniform samples in [0, scale) (both parts for complex; for bool,
    True and False with equal odds) from NumPy's RandomState(seed), so the
    values for xp=numpy and xp=arrayd are the same."""
    rng = np.random.RandomState(seed)
    dt = np.dtype(dtype)
    shp = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if dt.kind == "b":
        a = rng.randint(2, size=shp)
    elif dt.kind == "c":
        a = (rng.rand(*shp) + 1j * rng.rand(*shp)) * scale
    else:
        a = rng.rand(*shp) * scale
    return xp.asarray(np.asarray(a).astype(dt), order=order)


__all__ = [
    "assert_allclose", "assert_almost_equal", "assert_array_almost_equal",
    "assert_array_almost_equal_nulp", "assert_array_equal",
    "assert_array_less", "assert_array_list_equal", "assert_array_max_ulp",
    "assert_equal", "shaped_arange", "shaped_random",
    "shaped_reverse_arange",
]
