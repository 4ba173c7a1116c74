"""arrayd.cuda (issue 14, first part): CuPy's Device and runtime names for
the server's device, with values from the server: properties and
deviceGetAttribute, library handle tokens, pointers of memory blocks."""
from __future__ import annotations

import gc
import threading

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


def test_device_get_attribute_is_the_server_properties(session):
    rt = cuda.runtime
    p = rt.getDeviceProperties(0)
    info = session.capabilities.devices[0]
    assert rt.deviceGetAttribute(rt.cudaDevAttrMaxThreadsPerBlock, 0) == \
        p["maxThreadsPerBlock"]
    assert rt.deviceGetAttribute(rt.cudaDevAttrMultiProcessorCount, 0) == \
        p["multiProcessorCount"]
    assert rt.deviceGetAttribute(rt.cudaDevAttrComputeCapabilityMajor, 0) == \
        p["major"] == info.compute_major
    assert rt.deviceGetAttribute(rt.cudaDevAttrPciBusId, 0) == p["pciBusID"]
    # arrayd offers no cudaMallocAsync pools and no unified memory.
    assert rt.deviceGetAttribute(rt.cudaDevAttrMemoryPoolsSupported, 0) == 0
    assert rt.deviceGetAttribute(rt.cudaDevAttrManagedMemory, 0) == 0
    attrs = cuda.Device().attributes
    assert attrs["MaxThreadsPerBlock"] == p["maxThreadsPerBlock"]
    assert attrs["WarpSize"] == p["warpSize"]
    assert all(isinstance(v, int) for v in attrs.values())
    with pytest.raises(cuda.CUDARuntimeError, match="does not report") as e:
        rt.deviceGetAttribute(2, 0)  # cudaDevAttrMaxBlockDimX
    assert e.value.status == rt.cudaErrorNotSupported
    with pytest.raises(cuda.CUDARuntimeError, match="invalid device"):
        rt.deviceGetAttribute(rt.cudaDevAttrWarpSize, 99)
    with pytest.raises(cuda.CUDARuntimeError):
        _ = cuda.Device(99).attributes


def test_library_handles_are_one_token_per_thread():
    getters = (cuda.get_cublas_handle, cuda.device.get_cublas_handle,
               cuda.device.get_cusolver_handle,
               cuda.device.get_cusolver_sp_handle,
               cuda.device.get_cusparse_handle)
    main = [g() for g in getters]
    assert main[0] == main[1] and len(set(main)) == 4
    assert all(isinstance(h, int) and h != 0 for h in main)
    assert [g() for g in getters] == main
    other: list = []
    t = threading.Thread(target=lambda: other.extend(
        [g() for g in getters] + [g() for g in getters]))
    t.start()
    t.join()
    assert other[:5] == other[5:] and not set(other) & set(main)


def test_pointers_of_memory_blocks():
    rt = cuda.runtime
    m = cuda.memory._malloc(100)
    assert cuda.device.from_pointer(m.ptr) == cuda.Device(0)
    attrs = rt.pointerGetAttributes(m.ptr + 99)
    assert (attrs.device, attrs.devicePointer, attrs.type) == (
        0, m.ptr + 99, rt.cudaMemoryTypeDevice)
    # Past the block's 100 bytes (the next block starts 512 further on).
    assert rt.pointerGetAttributes(m.ptr + 100).type == \
        rt.cudaMemoryTypeUnregistered
    managed = cuda.malloc_managed(8)
    assert rt.pointerGetAttributes(managed.ptr).type == \
        rt.cudaMemoryTypeManaged
    ptr = m.ptr
    del m
    gc.collect()
    gone = rt.pointerGetAttributes(ptr)
    assert (gone.type, gone.device) == (rt.cudaMemoryTypeUnregistered, -2)
    with pytest.raises(cuda.CUDARuntimeError, match="no device pointers"):
        cuda.device.from_pointer(ptr)
    with pytest.raises(cuda.CUDARuntimeError) as e:
        cuda.device.from_pointer(12345)
    assert e.value.status == 1  # cudaErrorInvalidValue
