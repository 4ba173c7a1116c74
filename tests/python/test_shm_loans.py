"""Same-host downloads that lend a shared memory segment to the result (no
client-side copy): values, independence of results, reuse of segments, the
pool's cap, lifetime past the session, and a failed download.

ARRAYD_SHM_LOAN_MIN_BYTES=1 makes every shared memory download a loan, so
arrays of a few MB (just above max_inline_bytes) exercise the path."""
from __future__ import annotations

import glob
import mmap
import os

import numpy as np
import numpy.testing as npt
import pytest

import arrayd as ad
from arrayd import _transport
from helpers import sample

MB = 1 << 20


@pytest.fixture
def s(server_address, monkeypatch):
    """A same-host session in which every bulk download is a loan."""
    monkeypatch.setenv("ARRAYD_SHM_LOAN_MIN_BYTES", "1")
    monkeypatch.delenv("ARRAYD_SHM_LOAN_MAX_BYTES", raising=False)
    monkeypatch.delenv("ARRAYD_NO_LOCAL_SOCKET", raising=False)
    sess = ad.connect(server_address, default=False)
    if not isinstance(sess._requests, _transport.LocalStream):
        sess.close()
        pytest.skip("the server offers no same-host op socket")
    with sess:
        yield sess
        if not sess.closed:
            sess.synchronize()  # no deferred error (release_shm included)
    sess.close()


def bulk(sess, nbytes_min: int = 0) -> int:
    """A byte count that goes through shared memory (over max_inline_bytes)."""
    return max(sess.max_inline_bytes + 4096, nbytes_min)


def loaned(arr: np.ndarray) -> bool:
    """True when arr is a view on a loaned segment's mapping."""
    base = arr.base
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)


def shm_files() -> list[str]:
    """Files of this process in /dev/shm (segments are memfds: none)."""
    return glob.glob(f"/dev/shm/arrayd-{os.getpid()}-*")


@pytest.mark.parametrize("dtype", ["?", "i1", "u2", "i4", "f4", "f8", "c16"])
def test_values_equal_numpy(s, dtype):
    n = bulk(s) // np.dtype(dtype).itemsize + 7
    x = sample(dtype, (n,), seed=3)
    r = ad.asarray(x).get()
    assert loaned(r)
    assert r.flags.c_contiguous and r.flags.writeable
    assert r.dtype == x.dtype and r.shape == x.shape
    npt.assert_array_equal(r, x)


@pytest.mark.parametrize("view", ["2d", "transposed", "strided", "3d-slice"])
def test_non_contiguous_server_arrays(s, view):
    x = np.arange(3 * bulk(s) // 8, dtype=np.float64).reshape(3, 8, -1)
    a = ad.asarray(x)
    pick = {
        "2d": lambda v: v.reshape(24, -1),
        "transposed": lambda v: v.reshape(24, -1).T,
        "strided": lambda v: v[:, ::2, 1:],
        "3d-slice": lambda v: v.transpose(2, 0, 1)[::-1],
    }[view]
    expect = pick(x)
    if expect.nbytes <= s.max_inline_bytes:
        pytest.skip("small enough to travel inline")
    r = pick(a).get()
    assert loaned(r)
    npt.assert_array_equal(r, expect)


def test_result_is_independent_of_later_writes_and_downloads(s):
    x = sample("f8", (bulk(s) // 8,), seed=1)
    a = ad.asarray(x)
    first = a.get()
    a += 1
    second = a.get()
    assert loaned(first) and loaned(second)
    assert not np.shares_memory(first, second)
    npt.assert_array_equal(first, x)
    npt.assert_array_equal(second, x + 1)
    first[:] = -1  # a loaned result is the user's to write
    npt.assert_array_equal(a.get(), x + 1)


def test_dropped_result_gives_its_segment_back(s):
    a = ad.arange(2 * bulk(s) // 4, dtype="i4")
    r = a.get()
    pool = s._loans
    segments, total = pool.segments, pool.total_bytes
    assert segments == 1 and total >= r.nbytes and total % (2 * MB) == 0
    del r
    for _ in range(3):
        r = a.get()
        assert loaned(r)
        npt.assert_array_equal(r[-3:], np.arange(r.size - 3, r.size))
        del r
    # A smaller download takes the free segment too.
    r = ad.arange(bulk(s) // 4, dtype="i4").get()
    assert loaned(r)
    assert (pool.segments, pool.total_bytes) == (segments, total)


def test_a_slice_keeps_the_segment_on_loan(s):
    x = sample("i8", (4, bulk(s) // 32), seed=2)
    a = ad.asarray(x)
    r = a.get()
    part = r[1:3, ::5].T  # a view of a view
    del r
    other = ad.zeros_like(a)
    for _ in range(2):
        z = other.get()  # must not take part's segment
        assert loaned(z) and not z.any()
        del z
    npt.assert_array_equal(part, x[1:3, ::5].T)
    assert s._loans.segments == 2
    del part
    z = other.get()
    assert loaned(z) and not z.any()
    assert s._loans.segments == 2


def test_cap_falls_back_to_a_copy_and_trims_free_segments(s, monkeypatch):
    nbytes = bulk(s, 3 * MB)
    a = ad.arange(nbytes // 8, dtype="f8")
    expect = np.arange(nbytes // 8, dtype="f8")
    monkeypatch.setenv("ARRAYD_SHM_LOAN_MAX_BYTES", str(4 * MB))
    r1 = a.get()
    assert loaned(r1)
    r2 = a.get()  # the pool is full: a copy
    assert not loaned(r2) and r2.flags.owndata
    npt.assert_array_equal(r2, expect)
    assert s._loans.segments == 1
    del r1
    r3 = a.get()
    assert loaned(r3)
    del r3
    monkeypatch.setenv("ARRAYD_SHM_LOAN_MAX_BYTES", "0")  # trims the free one
    r4 = a.get()
    assert not loaned(r4)
    npt.assert_array_equal(r4, expect)
    assert (s._loans.segments, s._loans.total_bytes) == (0, 0)
    # The server released it: the name is unknown there now.
    s.record("download_shm", (a._handle,), (), {"segment": "loan-0", "offset": 0})
    with pytest.raises(ValueError, match="no shared memory segment 'loan-0'"):
        s.synchronize()
    monkeypatch.setenv("ARRAYD_SHM_LOAN_MAX_BYTES", str(16 * MB))
    r5 = a.get()  # a new segment (the server forgot the old one)
    assert loaned(r5)
    npt.assert_array_equal(r5, expect)


def test_kept_results_get_new_segments_only_twice(s):
    a = ad.arange(bulk(s) // 8, dtype="f8")
    expect = np.arange(bulk(s) // 8, dtype="f8")
    kept = [a.get() for _ in range(4)]
    assert [loaned(r) for r in kept] == [True, True, False, False]
    for r in kept:
        npt.assert_array_equal(r, expect)
    assert s._loans.segments == 2
    del kept[0]
    r = a.get()  # a segment came back: loaned again, none made
    assert loaned(r) and s._loans.segments == 2


def test_a_full_pool_drops_free_segments_that_do_not_fit(s, monkeypatch):
    small = ad.zeros(bulk(s) // 8, dtype="f8")
    big = ad.ones(bulk(s, 5 * MB) // 8, dtype="f8")
    monkeypatch.setenv("ARRAYD_SHM_LOAN_MAX_BYTES", str(7 * MB))
    z = small.get()
    del z  # free, but too small for `big`
    o = big.get()
    assert loaned(o) and o.all()
    assert s._loans.segments == 1 and s._loans.total_bytes >= o.nbytes


def test_loaned_results_survive_disconnect(s):
    x = sample("f4", (bulk(s) // 4,), seed=4)
    a = ad.asarray(x)
    kept = a.get()
    dropped = a.get()
    del dropped  # a free segment at close
    assert s._loans.segments == 2
    s.close()
    assert shm_files() == []
    npt.assert_array_equal(kept, x)
    kept += 1  # still mapped and writable
    npt.assert_array_equal(kept, x + 1)
    del kept  # its segment is not taken back by the closed pool
    assert s._loans.segments == 2 and not s._loans._free


def test_refused_segment_falls_back_to_grpc(s, monkeypatch, caplog):
    x = np.arange(bulk(s) // 8, dtype="f8")
    a = ad.asarray(x)
    real = s._download_into
    # The server has no segment of that name: download_shm fails there,
    # the segment comes back to the pool and the array comes over gRPC.
    with monkeypatch.context() as m:
        m.setattr(s, "_download_into",
                  lambda h, name: real(h, name + "-missing"))
        r = a.get()
    assert not loaned(r)
    npt.assert_array_equal(r, x)
    assert s._loans.segments == 1 and not s._shm_ok
    assert "shared memory transfers are off" in caplog.text
    npt.assert_array_equal(ad.asarray(x + 1).get(), x + 1)  # gRPC both ways


def test_small_downloads_and_uploads_use_the_arena(s, monkeypatch):
    monkeypatch.setenv("ARRAYD_SHM_LOAN_MIN_BYTES", str(64 * MB))
    x = sample("f8", (bulk(s) // 8,), seed=5)
    r = ad.asarray(x).get()
    assert not loaned(r) and r.flags.owndata
    npt.assert_array_equal(r, x)
    assert s._loans is None and s._arena is not None


def test_server_releases_unknown_segments_quietly(s):
    s.record("release_shm", (), (), {"segment": "never-attached"})
    s.synchronize()
