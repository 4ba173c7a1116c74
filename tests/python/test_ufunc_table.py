"""arrayd's ufuncs are built from the server's op signatures: the generated
table is current, its loop tables choose NumPy's dtypes, and the ufunc
objects behave as NumPy's (attributes, __call__ keywords, methods)."""
import importlib.util
import itertools
from pathlib import Path

import numpy as np
import pytest

import arrayd as ad

ROOT = Path(__file__).resolve().parents[2]
CODES = "?bBhHiIlLefdFD"
NUMPY_UFUNCS = sorted(n for n in ad._math.BY_NAME if isinstance(
    getattr(np, n, None), np.ufunc))


def _gen_module():
    spec = importlib.util.spec_from_file_location(
        "gen_ufuncs", ROOT / "deploy" / "gen_ufuncs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _tables(text):
    namespace = {}
    exec(compile(text, "_ufuncs_gen.py", "exec"), namespace)  # noqa: S102
    return ({**namespace["UFUNCS"], **namespace["SPECIAL_UFUNCS"]},
            namespace["LOOPS"])


def test_generated_table_is_current_against_the_server():
    # Every entry of the checked-in table is the server's signature, and
    # every op of the table is still on the server. A server ufunc the table
    # lacks (added after it was generated) is built from the server's
    # signature when first used (next test); deploy/gen_ufuncs.py adds it.
    live_ufuncs, live_loops = _tables(
        _gen_module().render(ad.current_session().capabilities))
    ufuncs, loops = _tables(
        (ROOT / "client-python" / "arrayd" / "_ufuncs_gen.py").read_text())
    stale = {n for n in ufuncs if live_ufuncs.get(n) != ufuncs[n]}
    assert not stale, f"_ufuncs_gen.py is stale for {sorted(stale)}: run deploy/gen_ufuncs.py"
    assert loops == live_loops, "_ufuncs_gen.py is stale: run deploy/gen_ufuncs.py"


def test_every_server_ufunc_is_an_arrayd_ufunc():
    caps = ad.current_session().capabilities
    names = {op.name for op in caps.ops if op.signature.family == 1}
    assert names and names >= set(_tables(
        (ROOT / "client-python" / "arrayd" / "_ufuncs_gen.py").read_text())[0])
    special = {op.name for op in caps.ops if op.signature.family == 1
               and op.signature.module == "scipy.special"}
    assert {"erf", "gammaln", "i0e"} <= special
    for name in names - special:
        uf = getattr(ad, name)
        assert isinstance(uf, ad.ufunc) and uf.__name__ == name
    for name in special:  # arrayd.scipy.special's, not in NumPy's namespace
        uf = ad._math.SPECIAL[name]
        assert isinstance(uf, ad.ufunc) and uf.__name__ == name
        assert name in ("i0",) or not hasattr(ad, name)
    with pytest.raises(AttributeError):
        ad.no_such_ufunc  # noqa: B018


def _numpy_resolve(uf, keys):
    try:
        r = uf.resolve_dtypes(keys + (None,) * uf.nout)
    except TypeError:
        return None
    return tuple(np.dtype(d).char.replace("q", "l").replace("Q", "L")
                 for d in r)


def _ours(uf, keys):
    try:
        r = uf.resolve_dtypes(keys)
    except TypeError:
        return None
    return tuple(d.char for d in r)


@pytest.mark.parametrize("name", NUMPY_UFUNCS)
def test_loop_table_chooses_numpys_dtypes(name):
    ours, theirs = getattr(ad, name), getattr(np, name)
    dtypes = [np.dtype(c) for c in CODES]
    weak = [int, float, complex]
    combos = list(itertools.product(dtypes, repeat=ours.nin))
    if ours.nin == 2:
        combos += [(d, w) for d in dtypes for w in weak]
        combos += [(w, d) for d in dtypes for w in weak]
    # The result dtype, and whether there is a loop at all. Where the loop
    # inputs differ, the results agree: arrayd's integer true_divide loops
    # (bb->d) divide the integers where NumPy casts them to d first; NumPy's
    # logical ops cast to bool first; its mixed int64/uint64 comparison
    # loops (qQ->?) compare exactly where arrayd's kernels (one input dtype
    # each) compare in float64.
    for keys in combos:
        got, want = _ours(ours, keys), _numpy_resolve(theirs, keys)
        assert (got and got[-1]) == (want and want[-1]), keys


@pytest.mark.parametrize("name", NUMPY_UFUNCS)
def test_ufunc_attributes_follow_numpy(name):
    ours, theirs = getattr(ad, name), getattr(np, name)
    assert ours.__name__ == name
    assert (ours.nin, ours.nout, ours.nargs) == (
        theirs.nin, theirs.nout, theirs.nargs)
    assert ours.ntypes == len(ours.types) > 0
    numpy_types = set(theirs.types)
    extra = {t for t in ours.types if t not in numpy_types}
    assert not extra or name == "true_divide" and all(  # its bb->d loops
        t[0] in "bBhHiIlLqQ" for t in extra)
    # NumPy's order, with the int64 loops under both names ('l' and 'q').
    order = [t for t in dict.fromkeys(theirs.types) if t in ours.types]
    assert [t for t in ours.types if t in numpy_types] == order
    assert ours.identity == theirs.identity
    assert name in ours.__doc__ and repr(ours) == f"<ufunc '{name}'>"


REDUCE_CASES = [
    ("add", "int8"), ("add", "float32"), ("multiply", "uint8"),
    ("maximum", "float64"), ("minimum", "int32"), ("logical_and", "int16"),
    ("bitwise_or", "int64"), ("hypot", "float64"), ("fmax", "float32"),
    ("logaddexp", "float64"), ("subtract", "int64"), ("true_divide", "float64"),
    ("gcd", "int32"), ("bitwise_xor", "uint16"),
]


def _data(dtype, shape=(3, 5)):
    rng = np.random.default_rng(7)
    a = rng.integers(1, 6, size=shape).astype(dtype)
    return a


@pytest.mark.parametrize("name,dtype", REDUCE_CASES)
def test_reduce_matches_numpy(name, dtype):
    a = _data(dtype)
    x = ad.asarray(a)
    ours, theirs = getattr(ad, name), getattr(np, name)
    for kwargs in ({}, {"axis": 1}, {"axis": 1, "keepdims": True},
                   {"axis": None} if name not in ("subtract", "true_divide")
                   else {"axis": -1}):
        want = theirs.reduce(a, **kwargs)
        got = ours.reduce(x, **kwargs)
        assert got.dtype == want.dtype, kwargs
        np.testing.assert_allclose(got.get(), want, rtol=1e-6, err_msg=str(kwargs))


def test_reduce_initial_where_dtype_and_empty():
    a = _data("float64")
    x = ad.asarray(a)
    np.testing.assert_allclose(ad.add.reduce(x, axis=0, initial=10).get(),
                               np.add.reduce(a, axis=0, initial=10))
    mask = a > 2
    np.testing.assert_allclose(
        ad.add.reduce(x, axis=1, where=ad.asarray(mask)).get(),
        np.add.reduce(a, axis=1, where=mask))
    np.testing.assert_allclose(
        ad.maximum.reduce(x, axis=1, where=ad.asarray(mask), initial=-1).get(),
        np.maximum.reduce(a, axis=1, where=mask, initial=-1))
    assert ad.add.reduce(x, dtype="f").dtype == np.float32
    e = np.zeros((0, 3))
    np.testing.assert_array_equal(ad.add.reduce(ad.asarray(e)).get(),
                                  np.add.reduce(e))
    with pytest.raises(ValueError):
        ad.maximum.reduce(ad.asarray(e))
    with pytest.raises(ValueError):
        ad.exp.reduce(x)
    with pytest.raises(ValueError):
        ad.subtract.reduce(x, axis=(0, 1))
    with pytest.raises(np.exceptions.AxisError):
        ad.add.reduce(x, axis=2)


@pytest.mark.parametrize("name,dtype", [("add", "int8"), ("multiply", "float32"),
                                        ("maximum", "int32"), ("subtract", "int64"),
                                        ("logaddexp", "float64"), ("fmin", "float64")])
def test_accumulate_matches_numpy(name, dtype):
    a = _data(dtype, (4, 9))
    x = ad.asarray(a)
    for axis in (0, 1):
        want = getattr(np, name).accumulate(a, axis=axis)
        got = getattr(ad, name).accumulate(x, axis=axis)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.get(), want, rtol=1e-6)


def test_outer_at_and_reduceat_match_numpy():
    a, b = np.arange(4.0), np.arange(3, dtype=np.int32)
    np.testing.assert_array_equal(ad.multiply.outer(ad.asarray(a), ad.asarray(b)).get(),
                                  np.multiply.outer(a, b))
    # CUDA's hypot may differ from the C library's by one ulp.
    np.testing.assert_allclose(ad.hypot.outer(a, b).get(), np.hypot.outer(a, b), rtol=1e-15)
    base = np.zeros(6)
    idx = np.array([0, 2, 2, 5, 2, -1])
    want = base.copy()
    np.add.at(want, idx, 1.5)
    x = ad.asarray(base)
    ad.add.at(x, idx, 1.5)
    np.testing.assert_array_equal(x.get(), want)
    vals = np.arange(6.0)
    want = base.copy()
    np.maximum.at(want, idx, vals)
    x = ad.asarray(base)
    np.maximum.at(x, idx, ad.asarray(vals))  # through __array_ufunc__
    np.testing.assert_array_equal(x.get(), want)
    y = ad.asarray(np.array([1.0, -2.0, 3.0]))
    ad.negative.at(y, [0, 2])
    np.testing.assert_array_equal(y.get(), [-1.0, -2.0, -3.0])
    m = np.arange(24.0).reshape(8, 3)
    ind = [0, 4, 1, 5, 5]
    np.testing.assert_array_equal(ad.add.reduceat(ad.asarray(m), ind).get(),
                                  np.add.reduceat(m, ind))
    np.testing.assert_array_equal(
        ad.maximum.reduceat(ad.asarray(m), [0, 1], axis=1).get(),
        np.maximum.reduceat(m, [0, 1], axis=1))
    with pytest.raises(IndexError):
        ad.add.reduceat(ad.asarray(m), [0, 9])


def test_call_keywords_match_numpy():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    x = ad.asarray(a)
    got = ad.add(x, 1, dtype="f")
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.get(), np.add(a, 1, dtype="f"))
    out = ad.zeros((2, 3), dtype=np.float64)
    r = ad.multiply(x, 2, out=out)
    assert r is out
    np.testing.assert_array_equal(out.get(), a * 2)
    out2 = ad.full((2, 3), -1.0)
    mask = np.array([[True, False, True], [False, True, False]])
    ad.add(x, 10, out=out2, where=ad.asarray(mask))
    want = np.full((2, 3), -1.0)
    np.add(a, 10, out=want, where=mask)
    np.testing.assert_array_equal(out2.get(), want)
    root = ad.zeros((2, 3))
    assert ad.sqrt(x, root) is root  # positional out
    np.testing.assert_allclose(root.get(), np.sqrt(a))
    with pytest.raises(TypeError) as ours:
        ad.add(x.astype("f8"), 1, out=ad.zeros((2, 3), dtype=np.int32))
    with pytest.raises(TypeError) as theirs:
        np.add(a.astype("f8"), 1, out=np.zeros((2, 3), np.int32))
    assert type(ours.value) is type(theirs.value)
    with pytest.raises(TypeError) as ours:
        ad.add(x.astype("f8"), x, casting="safe", dtype="i4")
    with pytest.raises(TypeError) as theirs:
        np.add(a.astype("f8"), a, casting="safe", dtype="i4")
    assert type(ours.value) is type(theirs.value)
    with pytest.raises(TypeError):
        ad.bitwise_and(x.astype("f4"), x)
    with pytest.raises(TypeError):
        ad.subtract(ad.asarray([True]), ad.asarray([False]))
    with pytest.raises(ValueError):
        ad.add(x, x, casting="sometimes")
    with pytest.raises(TypeError):
        ad.add(x)
