"""Input and output against NumPy: save/load, savez, text files, buffers,
fromfunction, asarray_chkfinite, ndarray.dump/dumps/tofile."""
import io
import pickle

import arrayd as ad
import numpy as np
import pytest
from helpers import ALL_DTYPES, check, ids, sample


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
@pytest.mark.parametrize("shape", [(), (0,), (4,), (2, 3, 4)], ids=str)
def test_save_load_roundtrip(dtype, shape, tmp_path):
    a = sample(dtype, shape)
    x = ad.asarray(a)
    buf = io.BytesIO()
    ad.save(buf, x)
    assert buf.getvalue() == _npy_bytes(a)  # the same file NumPy writes
    buf.seek(0)
    check(ad.load(buf), a)
    path = tmp_path / "x.npy"
    ad.save(path, x)
    check(ad.load(path), a)
    check(ad.load(path, mmap_mode="r"), a)


def _npy_bytes(a):
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def test_load_reads_numpys_files_and_native_order(tmp_path):
    a = np.arange(6, dtype=">i4").reshape(2, 3)
    np.save(tmp_path / "b.npy", a)
    x = ad.load(tmp_path / "b.npy")
    check(x, a.astype("<i4"))


def test_save_and_load_pickles():
    buf = io.BytesIO()
    with pytest.raises(ValueError):
        ad.save(buf, object(), allow_pickle=False)
    x = ad.asarray(sample("f4", (2, 3)))
    buf = io.BytesIO()
    x.dump(buf)
    buf.seek(0)
    with pytest.raises(ValueError):
        ad.load(buf)  # allow_pickle=False by default, as NumPy
    buf.seek(0)
    y = ad.load(buf, allow_pickle=True)
    assert isinstance(y, ad.ndarray)
    check(y, x.get())
    z = pickle.loads(x.dumps())
    check(z, x.get())


def test_dump_to_a_path(tmp_path):
    a = sample("c8", (3,))
    ad.asarray(a).dump(tmp_path / "p.pkl")
    check(ad.load(tmp_path / "p.pkl", allow_pickle=True), a)
    ad.asarray(a).dump(str(tmp_path / "q.pkl"))
    with open(tmp_path / "q.pkl", "rb") as f:
        check(pickle.load(f), a)


@pytest.mark.parametrize("savez", ["savez", "savez_compressed"])
def test_savez_and_npz_access(savez, tmp_path):
    a1 = sample("i8", (2, 3))
    a2 = sample("f2", (4,))
    a3 = sample("?", (2, 2))
    path = tmp_path / "z.npz"
    getattr(ad, savez)(path, ad.asarray(a1), a2, named=ad.asarray(a3))
    with np.load(path) as ref:
        assert sorted(ref.files) == ["arr_0", "arr_1", "named"]
    with ad.load(path) as d:
        assert sorted(d.files) == ["arr_0", "arr_1", "named"]
        assert "named" in d and "nope" not in d and len(d) == 3
        check(d["arr_0"], a1)
        check(d["arr_1"], a2)
        check(d.f.named, a3)
        assert sorted(d) == sorted(d.keys()) == sorted(d.files)
        with pytest.raises(KeyError):
            d["nope"]
        with pytest.raises(AttributeError):
            _ = d.f.nope
    buf = io.BytesIO()
    getattr(ad, savez)(buf, ad.asarray(a1))
    buf.seek(0)
    d = ad.load(buf)
    check(d["arr_0"], a1)
    d.close()


@pytest.mark.parametrize("dtype", ["i4", "f8", "u1"])
def test_savetxt_matches_numpy(dtype, tmp_path):
    a = sample(dtype, (3, 4))
    for kw in ({}, {"fmt": "%d", "delimiter": ","},
               {"header": "h", "footer": "f", "comments": "// "}):
        ad.savetxt(tmp_path / "a.txt", ad.asarray(a), **kw)
        np.savetxt(tmp_path / "n.txt", a, **kw)
        assert (tmp_path / "a.txt").read_bytes() == \
            (tmp_path / "n.txt").read_bytes()


def test_loadtxt_and_genfromtxt(tmp_path):
    text = "# c\n1,2,3\n4,5,6\n7,8,9\n"
    p = tmp_path / "t.csv"
    p.write_text(text)
    for kw in ({"delimiter": ","}, {"delimiter": ",", "dtype": "i2"},
               {"delimiter": ",", "usecols": (0, 2), "skiprows": 1},
               {"delimiter": ",", "ndmin": 2, "max_rows": 1, "skiprows": 1}):
        check(ad.loadtxt(p, **kw), np.loadtxt(p, **kw))
    check(ad.loadtxt(p, delimiter=",", unpack=True),
          np.loadtxt(p, delimiter=",", unpack=True))
    check(ad.loadtxt(io.StringIO("1 2\n3 4")), np.loadtxt(io.StringIO(
        "1 2\n3 4")))
    gt = "1,2,,4\n5,,7,8\n"
    check(ad.genfromtxt(io.StringIO(gt), delimiter=","),
          np.genfromtxt(io.StringIO(gt), delimiter=","))
    check(ad.genfromtxt(io.StringIO(gt), delimiter=",", filling_values=-1,
                        dtype="i4"),
          np.genfromtxt(io.StringIO(gt), delimiter=",", filling_values=-1,
                        dtype="i4"))
    with pytest.raises(ValueError):
        ad.loadtxt(io.StringIO("1,x\n"), delimiter=",")
    with pytest.raises(TypeError, match="masked"):
        ad.genfromtxt(io.StringIO(gt), delimiter=",", usemask=True)
    with pytest.raises(TypeError):
        ad.genfromtxt(io.StringIO("a,b\n1,2\n"), delimiter=",", names=True)


def test_loadtxt_unpack_gives_arrayd_arrays(tmp_path):
    p = tmp_path / "u.txt"
    np.savetxt(p, sample("f8", (4, 3)))
    got = ad.loadtxt(p, unpack=True)
    want = np.loadtxt(p, unpack=True)
    assert len(got) == len(want) == 3
    for g, w in zip(got, want):
        check(g, w)


@pytest.mark.parametrize("dtype", ["i1", "u2", "i8", "f4", "c16", "?"])
def test_frombuffer_fromfile_tofile(dtype, tmp_path):
    a = sample(dtype, (10,))
    check(ad.frombuffer(a.tobytes(), dtype), np.frombuffer(a.tobytes(),
                                                           dtype))
    check(ad.frombuffer(a.tobytes(), dtype, count=3, offset=a.itemsize),
          np.frombuffer(a.tobytes(), dtype, count=3, offset=a.itemsize))
    p = tmp_path / "raw.bin"
    ad.asarray(a).tofile(p)
    assert p.read_bytes() == a.tobytes()
    check(ad.fromfile(p, dtype), np.fromfile(p, dtype))
    check(ad.fromfile(p, dtype, count=4, offset=a.itemsize * 2),
          np.fromfile(p, dtype, count=4, offset=a.itemsize * 2))


def test_text_fromfile_and_fromstring(tmp_path):
    a = np.arange(6, dtype=np.float64)
    p = tmp_path / "t.txt"
    ad.asarray(a).tofile(p, sep=",", format="%.3f")
    b = tmp_path / "n.txt"
    a.tofile(b, sep=",", format="%.3f")
    assert p.read_text() == b.read_text()
    check(ad.fromfile(p, sep=","), np.fromfile(p, sep=","))
    check(ad.fromstring("1 2 3", dtype="i4", sep=" "),
          np.fromstring("1 2 3", dtype="i4", sep=" "))
    check(ad.fromstring("1, 2.5", sep=","), np.fromstring("1, 2.5", sep=","))
    with pytest.raises(ValueError, match="binary mode"):
        ad.fromstring(b"\x01\x00\x02\x00", dtype="i2")


def test_frombuffer_non_native_order():
    a = np.arange(4, dtype=">f8")
    check(ad.frombuffer(a.tobytes(), ">f8"), a.astype("<f8"))


def test_frombuffer_errors_are_numpys():
    with pytest.raises(ValueError):
        ad.frombuffer(b"abc", "i4")
    with pytest.raises(ValueError):
        np.frombuffer(b"abc", "i4")


@pytest.mark.parametrize("dtype", ["i4", "f8", "c8"])
def test_fromiter(dtype):
    check(ad.fromiter((i * i for i in range(5)), dtype),
          np.fromiter((i * i for i in range(5)), dtype))
    check(ad.fromiter(iter(range(10)), dtype, count=4),
          np.fromiter(iter(range(10)), dtype, count=4))
    with pytest.raises(ValueError):
        ad.fromiter(iter(range(2)), dtype, count=4)


@pytest.mark.parametrize("dtype", [float, "i4", "f4", "i8"])
@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4)], ids=str)
def test_fromfunction_runs_on_arrayd_arrays(dtype, shape):
    seen = []

    def f(*idx, scale=1):
        seen.extend(type(i) for i in idx)
        total = idx[0] * scale
        for i in idx[1:]:
            total = total + 2 * i
        return total

    got = ad.fromfunction(f, shape, dtype=dtype, scale=3)
    assert seen and all(t is ad.ndarray for t in seen)

    def g(*idx, scale=1):
        total = idx[0] * scale
        for i in idx[1:]:
            total = total + 2 * i
        return total

    check(got, np.fromfunction(g, shape, dtype=dtype, scale=3))


def test_fromfunction_returns_what_the_function_returns():
    assert ad.fromfunction(lambda: 7, ()) == np.fromfunction(lambda: 7, ())
    got = ad.fromfunction(lambda i, j: (i, j), (2, 2), dtype=int)
    want = np.fromfunction(lambda i, j: (i, j), (2, 2), dtype=int)
    check(got[0], want[0])
    check(got[1], want[1])
    check(ad.fromfunction(lambda i, j: i == j, (3, 3)),
          np.fromfunction(lambda i, j: i == j, (3, 3)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
def test_asarray_chkfinite(dtype):
    a = sample(dtype, (3, 4))
    check(ad.asarray_chkfinite(ad.asarray(a)), np.asarray_chkfinite(a))
    check(ad.asarray_chkfinite(a.tolist(), dtype=dtype),
          np.asarray_chkfinite(a.tolist(), dtype=dtype))
    if dtype.kind in "fc":
        for bad in (np.inf, -np.inf, np.nan):
            b = a.copy()
            b[1, 2] = bad
            with pytest.raises(ValueError, match="infs or NaNs"):
                np.asarray_chkfinite(b)
            with pytest.raises(ValueError, match="infs or NaNs"):
                ad.asarray_chkfinite(ad.asarray(b))
    assert ad.asarray_chkfinite([1, 2]).dtype == np.asarray_chkfinite(
        [1, 2]).dtype


def test_datasource_is_numpys(tmp_path):
    assert ad.DataSource is np.lib.npyio.DataSource
    p = tmp_path / "d.txt"
    p.write_text("hi")
    with ad.DataSource(str(tmp_path)).open(str(p)) as f:
        assert f.read() == "hi"
