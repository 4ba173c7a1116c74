"""arrayd.cuda.memory and pinned_memory (issue 14): the session's memory
pool on the server (numbers, free_all_blocks, set_limit), MemoryPointer
blocks, the allocator hooks CuPy code sets, pinned host memory that moves
to and from a same-host server without a copy, and show_config."""
from __future__ import annotations

import ctypes
import gc
import pickle
import re

import numpy as np
import numpy.testing as npt
import pytest

import arrayd as ad
from arrayd import cuda

MB = 1 << 20


@pytest.fixture
def pool():
    p = ad.get_default_memory_pool()
    yield p
    p.set_limit(size=0)


def test_pool_numbers_follow_arrays(pool):
    assert pool is cuda.memory.get_default_memory_pool()
    base = pool.used_bytes()
    x = ad.zeros(4 * MB, dtype="u1")
    used = pool.used_bytes()
    assert used >= base + 4 * MB
    assert pool.total_bytes() == used + pool.free_bytes()
    del x
    assert pool.used_bytes() == base
    assert pool.free_bytes() >= 0 and pool.n_free_blocks() >= 0
    pool.free_all_blocks()
    # The freed array's block is no longer cached (a CUDA server's caching
    # allocator may have kept it; the CPU backend caches nothing).
    assert pool.free_bytes() < 4 * MB
    assert pool.total_bytes() == pool.used_bytes() + pool.free_bytes()
    assert pool.used_bytes() == base


def test_set_limit_then_too_large_raises_and_session_goes_on(pool):
    base = pool.used_bytes()
    assert pool.get_limit() == 0
    pool.set_limit(size=base + 2 * MB)
    assert pool.get_limit() == base + 2 * MB
    big = ad.zeros(4 * MB, dtype="u1")
    with pytest.raises(MemoryError) as info:
        big.get()
    assert isinstance(info.value, cuda.memory.OutOfMemoryError)
    assert isinstance(info.value, ad.OutOfMemoryError)
    del big
    small = ad.arange(1000)
    assert int(small.sum()) == 499500
    pool.set_limit(size=0)
    assert pool.get_limit() == 0
    npt.assert_array_equal(ad.zeros(4 * MB, dtype="u1")[:3].get(),
                           np.zeros(3, "u1"))


def test_set_limit_arguments(pool, session):
    total = session.capabilities.devices[0].total_memory
    pool.set_limit(fraction=0.5)
    assert pool.get_limit() == int(total * 0.5)
    pool.set_limit(fraction=0)
    assert pool.get_limit() == 0
    for bad in (dict(size=-1), dict(fraction=-0.1), dict(fraction=1.1),
                dict(size=1, fraction=0.5)):
        with pytest.raises(ValueError):
            pool.set_limit(**bad)
    assert pool.get_limit() == 0


def test_every_pool_object_shows_the_session(pool):
    other = cuda.MemoryPool()
    x = ad.ones(MB, dtype="u1")
    assert other.used_bytes() == pool.used_bytes()
    del x


def test_memory_pointer_copies():
    a = cuda.alloc(16)
    assert isinstance(a, cuda.MemoryPointer) and a.mem.size == 16
    src = ctypes.c_int(100)
    a.copy_from(ctypes.cast(ctypes.byref(src), ctypes.c_void_p), 4)
    dst = ctypes.c_int()
    a.copy_to_host(ctypes.addressof(dst), 4)
    assert dst.value == 100
    b = cuda.memory.alloc(16)
    b.copy_from(a, 4)
    b.copy_to_host(ctypes.cast(ctypes.byref(dst), ctypes.c_void_p), 4)
    assert dst.value == 100 and b.ptr != a.ptr
    host = np.arange(16, dtype=np.uint8)
    a.copy_from_host(host.ctypes.data, 16)
    a.memset(7, 4)
    (a + 8).memset_async(9, 2, stream=cuda.Stream())
    back = np.empty(16, np.uint8)
    a.copy_to_host(back.ctypes.data, 16)
    want = host.copy()
    want[:4] = 7
    want[8:10] = 9
    npt.assert_array_equal(back, want)
    p = a + 4
    assert int(p) == a.ptr + 4 and int(4 + a) == int(p) and int(p - 4) == a.ptr
    with pytest.raises(ValueError, match="outside"):
        p.copy_to_host(back.ctypes.data, 16)
    assert cuda.alloc(0).ptr == 0


def test_allocator_hooks_take_what_cupy_code_passes(pool):
    default = cuda.get_allocator()
    assert default == pool.malloc
    try:
        for allocator in (pool.malloc, cuda.malloc_managed,
                          cuda.malloc_async, cuda.MemoryPool().malloc, None):
            cuda.set_allocator(allocator)
            m = cuda.alloc(8)
            assert m.mem.size == 8
            x = ad.arange(10)  # arrays are the server's whatever it is
            assert int(x.sum()) == 45
        new = cuda.MemoryPool()
        with cuda.using_allocator(new.malloc):
            assert cuda.get_allocator() == new.malloc
            with pytest.raises(ValueError):
                cuda.set_allocator(pool.malloc)
        cuda.set_allocator(pool.malloc)
        assert cuda.get_allocator() == pool.malloc
    finally:
        cuda.set_allocator(default)


def test_out_of_memory_error_as_cupy():
    e = cuda.memory.OutOfMemoryError(124, 1024, 1024)
    assert "124 bytes" in str(e) and "limit set to: 1,024 bytes" in str(e)
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.args == e.args and str(e2) == str(e)
    assert str(ad.OutOfMemoryError("from the server")) == "from the server"


def _pinned(shape, dtype):
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    mem = cuda.alloc_pinned_memory(n)
    return np.frombuffer(mem, dtype, int(np.prod(shape))).reshape(shape)


@pytest.mark.parametrize("shape", [(10,), (512, 1024)])
def test_pinned_memory_round_trip(session, shape):
    src = _pinned(shape, np.float32)
    src[...] = np.arange(src.size, dtype=np.float32).reshape(shape)
    assert cuda.pinned_memory.is_memory_pinned(src.ctypes.data)
    a = ad.asarray(src)
    same_host = session._shm_usable()
    if same_host:
        # No client copy: the server reads the segment itself, which the
        # session holds until a sync that waits for every stream.
        assert session._attached and any(h is src for h in session._held)
    out = _pinned(shape, np.float32)
    got = (a * 2).get(out=out)
    assert got is out
    npt.assert_array_equal(out, src * 2)
    assert not session._held
    b = ad.zeros(shape, dtype=np.float32)
    b.set(src)
    npt.assert_array_equal(b.get(), src)
    f = ad.zeros(shape[::-1], dtype=np.float32).T  # F-ordered
    f.set(src)
    npt.assert_array_equal(f.get(), src)


def test_ndarray_set_checks_as_cupy():
    a = ad.zeros((2, 3))
    a.set(np.ones((2, 3)))
    npt.assert_array_equal(a.get(), np.ones((2, 3)))
    with pytest.raises(TypeError):
        a.set([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(TypeError):
        a.set(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="Shape mismatch"):
        a.set(np.ones((3, 2)))
    with pytest.raises(RuntimeError, match="non-contiguous"):
        a[:, ::2].set(np.ones((2, 2)))


def test_pinned_segments_are_released_when_freed(session):
    if not session._shm_usable():
        pytest.skip("pinned transfers need a same-host session")
    cuda.set_pinned_memory_allocator(None)  # no pool: memory goes when freed
    try:
        src = _pinned((1000,), np.int64)
        src[:] = 5
        a = ad.asarray(src)
        name = next(iter(session._attached - _attached_before))
        assert int(a.sum()) == 5000
        del src
        gc.collect()
        assert name not in session._attached
        session.synchronize()  # its release_shm went with it
        assert int(a.sum()) == 5000
    finally:
        cuda.set_pinned_memory_allocator(
            cuda.pinned_memory.get_default_pinned_memory_pool().malloc)


_attached_before: set[str] = set()


@pytest.fixture(autouse=True)
def _note_attached(session):
    _attached_before.clear()
    _attached_before.update(session._attached)


def test_pinned_pool_reuses_blocks():
    p = cuda.PinnedMemoryPool()
    p.free_all_blocks()
    m = p.malloc(1000)
    assert m.size() == 1024 and isinstance(m, cuda.PinnedMemoryPointer)
    ptr = m.ptr
    assert p.n_free_blocks() == 0
    del m
    gc.collect()
    assert p.n_free_blocks() == 1
    m2 = p.malloc(600)
    assert m2.ptr == ptr and p.n_free_blocks() == 0
    del m2
    p.free_all_blocks()
    assert p.n_free_blocks() == 0
    z = p.malloc(0)
    assert z.ptr == 0 and np.frombuffer(z, np.uint8, 0).size == 0
    q = cuda.alloc_pinned_memory(64) + 16
    assert q.size() == 496 and np.frombuffer(q, np.uint8).size == 496


def test_show_config(capsys, session):
    ad.show_config()
    out = capsys.readouterr().out
    caps = session.capabilities
    assert re.search(rf"^Backend\s+: {caps.active_backend}$", out, re.M)
    assert caps.devices[0].name in out and session.address in out
    assert ad.__version__ in out
