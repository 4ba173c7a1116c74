"""arrayd.cuda.memory and pinned_memory (issue 14): the session's memory
pool on the server (numbers, free_all_blocks, set_limit), MemoryPool
objects that count their own blocks, MemoryPointer blocks and ndarray
views of them (memptr=), the allocator hooks CuPy code sets, pinned host
memory that moves to and from a same-host server without a copy, and
show_config."""
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
    # allocator, or the CPU backend's, may have kept it).
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


def test_default_pool_blocks_count_in_the_session(pool):
    base = pool.used_bytes()
    m = pool.malloc(1000)
    assert isinstance(m.mem, cuda.PooledMemory) and m.mem.size == 1024
    assert pool.used_bytes() == base + 1024
    m.mem.free()
    m.mem.free()  # twice: no effect
    assert pool.used_bytes() == base
    zero = pool.malloc(0).mem
    assert isinstance(zero, cuda.Memory) and not isinstance(
        zero, cuda.PooledMemory)


def test_new_pool_counts_its_own_blocks(pool):
    p = cuda.MemoryPool()
    assert (p.used_bytes(), p.free_bytes(), p.total_bytes(),
            p.n_free_blocks()) == (0, 0, 0, 0)
    x = ad.ones(MB, dtype="u1")  # arrays are the session's, not p's
    assert p.used_bytes() == 0 and pool.used_bytes() >= MB
    del x
    a = p.malloc(100)
    b = p.malloc(2000)
    assert (a.mem.size, b.mem.size) == (512, 2048)
    assert p.used_bytes() == 2560 and p.free_bytes() == 0
    ptr = a.ptr
    del a
    assert (p.used_bytes(), p.free_bytes(), p.n_free_blocks()) == (2048, 512, 1)
    assert p.total_bytes() == 2560
    again = p.malloc(512)
    assert again.ptr == ptr and p.n_free_blocks() == 0  # the kept block
    again.mem.free()
    again.mem.free()
    s = cuda.Stream()
    with s:
        other = p.malloc(512)  # blocks are reused on their stream only
    assert other.ptr != ptr and p.n_free_blocks() == 1
    del other
    assert p.n_free_blocks() == 2
    p.free_all_blocks(stream=s)
    assert p.n_free_blocks() == 1
    with pytest.warns(DeprecationWarning):
        p.free_all_free()
    assert p.n_free_blocks() == 0 and p.total_bytes() == 2048
    del b
    p.free_all_blocks()
    assert p.total_bytes() == 0


def test_new_pool_blocks_are_server_memory():
    for allocator in (None, cuda.malloc_managed, cuda.malloc_async):
        p = cuda.MemoryPool(allocator)
        m = p.malloc(8)
        host = np.arange(8, dtype=np.uint8)
        m.copy_from_host(host.ctypes.data, 8)
        back = np.zeros(8, np.uint8)
        m.copy_to_host(back.ctypes.data, 8)
        npt.assert_array_equal(back, host)
        del m
        assert p.n_free_blocks() == 1


def test_new_pool_limit():
    p = cuda.MemoryPool()
    p.set_limit(size=2048)
    assert p.get_limit() == 2048
    a = p.malloc(1024)
    kept = p.malloc(512)
    del kept
    b = p.malloc(1024)  # lets the kept block go to fit
    assert p.n_free_blocks() == 0 and p.total_bytes() == 2048
    with pytest.raises(cuda.OutOfMemoryError, match="limit set to: 2,048"):
        p.malloc(1)
    p.set_limit(size=0)
    c = p.malloc(1)
    assert p.used_bytes() == 2560
    for bad in (dict(size=-1), dict(fraction=1.5), dict(size=1, fraction=0.5)):
        with pytest.raises(ValueError):
            p.set_limit(**bad)
    del a, b, c


def test_new_pool_takes_any_allocator():
    calls = []

    def allocator(size):
        calls.append(size)
        return cuda.memory._malloc(size)

    p = cuda.MemoryPool(allocator)
    m = p.malloc(600)
    assert calls == [1024] and m.mem.size == 1024
    del m
    p.malloc(600)
    assert calls == [1024]  # the kept block, not the allocator


def test_memory_async_pool_is_the_session_pool(pool):
    p = cuda.MemoryAsyncPool()
    m = p.malloc(100).mem
    assert isinstance(m, cuda.MemoryAsync) and not isinstance(
        m, cuda.PooledMemory)
    assert m.stream_ref() is cuda.get_current_stream()
    assert p.get_limit() == 2**64 - 1  # no limit, as CuPy's
    p.set_limit(size=1 << 30)
    assert p.get_limit() == 1 << 30 == pool.get_limit()
    p.set_limit(size=0)
    assert p.used_bytes() == pool.used_bytes()


def test_parse_limit_string(monkeypatch):
    parse = cuda.memory._parse_limit_string
    assert parse("0") == {"size": 0, "fraction": None}
    assert parse("1073741824") == {"size": 1073741824, "fraction": None}
    assert parse("40%") == {"size": None, "fraction": 0.4}
    assert parse("70.5%") == {"size": None, "fraction": 0.705}
    assert parse("100%") == {"size": None, "fraction": 1.0}
    monkeypatch.setenv("CUPY_GPU_MEMORY_LIMIT", "25%")
    assert parse() == {"size": None, "fraction": 0.25}
    monkeypatch.delenv("CUPY_GPU_MEMORY_LIMIT")
    assert parse() == {"size": None, "fraction": None}
    with pytest.raises(ValueError):
        parse("lots")


def test_ndarray_on_memptr_views_the_block():
    m = cuda.alloc(64)
    m.memset(0, 64)
    a = ad.ndarray((2, 3), np.float32, m + 8)
    a[...] = ad.arange(6, dtype=np.float32).reshape(2, 3)
    back = np.zeros(16, np.float32)
    m.copy_to_host(back.ctypes.data, 64)
    npt.assert_array_equal(back[2:8], np.arange(6, dtype=np.float32))
    assert back[:2].sum() == 0 and back[8:].sum() == 0
    f = ad.ndarray((2, 3), np.float32, m + 8, order="F")
    assert f.flags.f_contiguous and f.strides == (4, 8)
    npt.assert_array_equal(f.get(), np.arange(6).reshape(3, 2).T)
    s = ad.ndarray((2, 3), np.float32, m + 8, strides=(12, 4))
    npt.assert_array_equal(s.get(), np.arange(6).reshape(2, 3))
    # An UnownedMemory of the block views it too, after its owner went.
    owner = cuda.memory._malloc(24)
    u = cuda.UnownedMemory(owner.ptr, 24, owner)
    v = ad.ndarray((6,), np.int32, cuda.MemoryPointer(u, 0))
    del owner, u
    v[...] = 2
    assert bool((v == 2).all())


def test_ndarray_on_memptr_refuses_what_it_cannot_view():
    m = cuda.memory._malloc(24)  # exactly 24 bytes
    with pytest.raises(ValueError, match="outside"):
        ad.ndarray((4,), np.float64, m)
    with pytest.raises(ValueError, match="aligned"):
        ad.ndarray((2,), np.float64, m + 4)
    with pytest.raises(ValueError, match="strides"):
        ad.ndarray((2, 2), np.float32, m, strides=(4, 4))
    with pytest.raises(TypeError, match="live on the server"):
        ad.ndarray((2,), np.float32, 1234)


def test_ndarray_on_memptr_keeps_a_pool_block():
    p = cuda.MemoryPool()
    m = p.malloc(64)
    a = ad.ndarray((16,), np.float32, m)
    del m
    assert p.used_bytes() == 512 and p.n_free_blocks() == 0
    del a
    gc.collect()
    assert p.used_bytes() == 0 and p.n_free_blocks() == 1


def test_memory_pointer_copies():
    a = cuda.alloc(16)  # rounded up to the 512-byte unit, as CuPy's pool
    assert isinstance(a, cuda.MemoryPointer) and a.mem.size == 512
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
        (a + 500).copy_to_host(back.ctypes.data, 16)
    assert cuda.alloc(0).ptr == 0


def test_allocator_hooks_take_what_cupy_code_passes(pool):
    default = cuda.get_allocator()
    assert default == pool.malloc
    try:
        for allocator in (pool.malloc, cuda.malloc_managed,
                          cuda.malloc_async, cuda.MemoryPool().malloc, None):
            cuda.set_allocator(allocator)
            m = cuda.alloc(8)
            # A pool's block is rounded up to 512 bytes, as CuPy's.
            pooled = allocator is not None and hasattr(allocator, "__self__")
            assert m.mem.size == (512 if pooled else 8)
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
