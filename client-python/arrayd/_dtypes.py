"""The 14 dtypes of the protocol and their wire enum values.

Layer: session, the bottom (imports only the generated messages).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from arrayd._proto import pb

# np.dtype -> DType enum value. The order follows the proto enum.
_TO_PB: dict[np.dtype, int] = {
    np.dtype(np.bool_): pb.DTYPE_BOOL,
    np.dtype(np.int8): pb.DTYPE_INT8,
    np.dtype(np.int16): pb.DTYPE_INT16,
    np.dtype(np.int32): pb.DTYPE_INT32,
    np.dtype(np.int64): pb.DTYPE_INT64,
    np.dtype(np.uint8): pb.DTYPE_UINT8,
    np.dtype(np.uint16): pb.DTYPE_UINT16,
    np.dtype(np.uint32): pb.DTYPE_UINT32,
    np.dtype(np.uint64): pb.DTYPE_UINT64,
    np.dtype(np.float16): pb.DTYPE_FLOAT16,
    np.dtype(np.float32): pb.DTYPE_FLOAT32,
    np.dtype(np.float64): pb.DTYPE_FLOAT64,
    np.dtype(np.complex64): pb.DTYPE_COMPLEX64,
    np.dtype(np.complex128): pb.DTYPE_COMPLEX128,
}
_FROM_PB: dict[int, np.dtype] = {v: k for k, v in _TO_PB.items()}

SUPPORTED: tuple[np.dtype, ...] = tuple(_TO_PB)


def to_pb(dtype: np.dtype) -> int:
    """Returns the wire enum of a supported dtype; TypeError otherwise."""
    try:
        return _TO_PB[dtype]
    except KeyError:
        raise TypeError(f"arrayd does not support dtype {dtype!r}") from None


def from_pb(value: int) -> np.dtype:
    """Returns the numpy dtype of a wire enum value."""
    try:
        return _FROM_PB[value]
    except KeyError:
        raise RuntimeError(f"server sent unknown dtype enum {value}") from None


def normalize(dtype: Any) -> np.dtype:
    """np.dtype(dtype) (NumPy's TypeError for bad names), checked supported."""
    dt = np.dtype(dtype)
    if dt not in _TO_PB:
        if dt.byteorder not in "=|" and dt.newbyteorder("=") in _TO_PB:
            raise TypeError(f"arrayd supports native byte order only, "
                            f"not {dt!r}")
        raise TypeError(f"arrayd does not support dtype {dt!r}")
    return dt
