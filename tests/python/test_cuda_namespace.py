"""arrayd.cuda (issue 14, first part): CuPy's Device and runtime names for
the server's device, with values from the server."""
from __future__ import annotations

import numpy as np
import pytest

import arrayd as ad
from arrayd import cuda


def test_device_count_and_properties(session):
    assert cuda.runtime.getDeviceCount() == len(session.capabilities.devices) >= 1
    p = cuda.runtime.getDeviceProperties(0)
    info = session.capabilities.devices[0]
    assert p["name"] == info.name.encode() and p["totalGlobalMem"] == info.total_memory
    if session.backend == "cuda":
        assert p["major"] >= 7 and p["multiProcessorCount"] > 0 and p["warpSize"] == 32
        assert cuda.is_available()
        assert cuda.Device().compute_capability == f"{p['major']}{p['minor']}"
        assert cuda.Device().pci_bus_id.count(":") == 2
    else:
        assert not cuda.is_available()
        assert cuda.Device().compute_capability == "00"


def test_mem_info_follows_allocations(session):
    free, total = cuda.Device(0).mem_info
    assert 0 < free <= total
    if session.backend == "cpu":  # exact: the CPU backend's own count
        x = ad.zeros(64 << 20, dtype="u1")
        x.sum()  # allocated
        after, total2 = cuda.runtime.memGetInfo()
        assert total2 == total and after <= free - (64 << 20)
        del x


def test_device_context_synchronize_and_errors(session):
    x = ad.arange(10)
    with cuda.Device(0) as d:
        assert cuda.get_device_id() == 0 and d.id == 0 and int(d) == 0
        d.synchronize()
        cuda.runtime.deviceSynchronize()
    assert cuda.Device(0) == cuda.Device() and repr(cuda.Device()) == "<CUDA Device 0>"
    missing = cuda.Device(cuda.runtime.getDeviceCount())
    with pytest.raises(cuda.runtime.CUDARuntimeError, match="invalid device ordinal"):
        missing.use()
    with pytest.raises(cuda.runtime.CUDARuntimeError):
        with missing:
            pass
    assert cuda.get_device_id() == 0
    with pytest.raises(cuda.CUDARuntimeError):
        cuda.runtime.getDeviceProperties(99)
    np.testing.assert_array_equal(x.get(), np.arange(10))


def test_synchronize_raises_a_deferred_error(session):
    ad.zeros(2**62, dtype="u1")
    with pytest.raises(MemoryError):
        cuda.Device().synchronize()
