"""arrayd.random's legacy API: RandomState (seeding, state, every legacy
method's dtype and shape as NumPy's RandomState, CuPy's dtype=, NumPy's
legacy errors), the module-level state (get_random_state,
set_random_state, reset_states, seed, get_state/set_state) and the module
functions drawing from it, bit generators (Philox4x3210, Generator(bit
generator), bit_generator assignment) and reproducibility."""
from __future__ import annotations

import threading
import warnings

import arrayd as ad
import numpy as np
import pytest
from arrayd.random import _generator

# (method, args): each legacy method with valid parameters.
LEGACY = [
    ("beta", (2.0, 3.0)), ("binomial", (10, 0.3)), ("chisquare", (3.0,)),
    ("exponential", (2.0,)), ("f", (3.0, 4.0)), ("gamma", (2.0, 1.5)),
    ("geometric", (0.3,)), ("gumbel", (0.0, 1.0)),
    ("hypergeometric", (7, 5, 4)), ("laplace", (0.0, 2.0)),
    ("logistic", (0.0, 1.0)), ("lognormal", (0.0, 0.5)),
    ("logseries", (0.6,)), ("negative_binomial", (3, 0.4)),
    ("noncentral_chisquare", (2.0, 1.5)), ("noncentral_f", (3.0, 4.0, 1.5)),
    ("normal", (1.0, 2.0)), ("pareto", (3.0,)), ("poisson", (4.0,)),
    ("power", (2.0,)), ("rayleigh", (1.5,)), ("standard_cauchy", ()),
    ("standard_exponential", ()), ("standard_gamma", (2.5,)),
    ("standard_normal", ()), ("standard_t", (5.0,)),
    ("triangular", (0.0, 1.0, 3.0)), ("uniform", (-1.0, 2.0)),
    ("vonmises", (0.5, 2.0)), ("wald", (1.0, 2.0)), ("weibull", (1.5,)),
    ("zipf", (2.5,)), ("random_sample", ()), ("randint", (3, 9)),
    ("tomaxint", ()),
]


@pytest.mark.parametrize("name, args", LEGACY, ids=[n for n, _ in LEGACY])
@pytest.mark.parametrize("size", [None, 4, (2, 3), (0, 2)])
def test_legacy_dtype_and_shape_as_numpy(name, args, size):
    want = np.asarray(getattr(np.random.RandomState(0), name)(*args,
                                                              size=size))
    got = getattr(ad.random.RandomState(0), name)(*args, size=size)
    assert isinstance(got, ad.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape


@pytest.mark.parametrize("name, args", LEGACY, ids=[n for n, _ in LEGACY])
def test_same_seed_same_numbers(name, args):
    a = getattr(ad.random.RandomState(7), name)(*args, size=300).get()
    rs = ad.random.RandomState(8)
    b = getattr(rs, name)(*args, size=300).get()
    rs.seed(7)
    c = getattr(rs, name)(*args, size=300).get()
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("seed", [0, np.int8(3), np.uint64(2 ** 63), 2 ** 70,
                                  [1, 2, 3], np.arange(5), np.bool_(True)])
def test_seeds_reproduce(seed):
    rs = ad.random.RandomState(seed)
    a = rs.rand(50).get()
    rs.seed(seed)
    np.testing.assert_array_equal(rs.rand(50).get(), a)
    rs.seed(None)
    assert not np.array_equal(rs.rand(50).get(), a)


@pytest.mark.parametrize("seed", [1.5, np.float32(0), 1 + 0j,
                                  np.complex128(0), [1.5, 2.0]])
def test_non_integer_seed_is_type_error(seed):
    with pytest.raises(TypeError):
        ad.random.RandomState(seed)
    with pytest.raises(TypeError):
        ad.random.RandomState(0).seed(seed)
    with pytest.raises(TypeError):
        np.random.RandomState(seed)


def test_negative_seed_is_value_error():
    with pytest.raises(ValueError):
        ad.random.RandomState(-1)
    with pytest.raises(ValueError):
        ad.random.default_rng([3, -1])


def test_get_and_set_state():
    rs = ad.random.RandomState(3)
    rs.normal(size=11)
    state = rs.get_state()
    assert state["bit_generator"] == "Philox4x3210"
    a = rs.uniform(size=20).get()
    rs.set_state(state)
    np.testing.assert_array_equal(rs.uniform(size=20).get(), a)
    with pytest.raises(ValueError):
        rs.set_state({"bit_generator": "MT19937", "state": {}})


@pytest.mark.parametrize("dt", ["f4", "f8"])
def test_cupy_dtype_keyword(dt):
    rs = ad.random.RandomState(1)
    for x in (rs.rand(3, 2, dtype=dt), rs.randn(4, dtype=dt),
              rs.random_sample(5, dtype=dt), rs.normal(size=3, dtype=dt),
              rs.uniform(size=3, dtype=dt), rs.standard_gamma(2.0, 3, dt),
              rs.beta(2.0, 3.0, 3, dt), rs.vonmises(0.0, 1.0, 3, dt)):
        assert x.dtype == np.dtype(dt)
    assert rs.poisson(3.0, 4, np.int32).dtype == np.int32
    assert rs.noncentral_f(1.0, 2.0, 1.0, 3, np.int16).dtype == np.int16
    with pytest.raises(TypeError):
        rs.rand(3, dtype="f2")
    with pytest.raises(TypeError):
        rs.normal(size=3, dtype=np.int32)
    with pytest.raises(TypeError):
        rs.beta(2.0, 3.0, 3, "c8")
    assert _generator._check_and_get_dtype("f") == np.float32
    with pytest.raises(TypeError):
        _generator._check_and_get_dtype(np.float16)


def test_rand_randn_arguments():
    rs = ad.random.RandomState(2)
    assert rs.rand().shape == () and rs.rand(2, 3).shape == (2, 3)
    assert rs.randn(4).dtype == np.float64
    for bad in [(2.5,), ((2, 3),)]:
        with pytest.raises(TypeError):
            rs.rand(*bad)
        with pytest.raises(TypeError):
            np.random.RandomState(0).rand(*bad)
    with pytest.raises(TypeError):
        rs.rand(1, unnecessary=1)
    with pytest.raises(TypeError):
        ad.random.randn(1, 2, unnecessary=1)


def test_randint_as_numpy():
    rs = ad.random.RandomState(4)
    x = rs.randint(-0.9, 1.1, size=50).get()   # bounds truncated: [0, 1)
    assert (x == 0).all() and x.dtype == np.int64
    y = rs.randint(-1.2, 3.4, 2000).get()
    assert y.min() == -1 and y.max() == 2
    z = rs.randint(2 ** 34, 2 ** 40, 3, dtype="q").get()
    assert ((z >= 2 ** 34) & (z < 2 ** 40)).all()
    b = rs.randint(2, size=100, dtype=bool)
    assert b.dtype == np.bool_
    for low, high in [(0, 0), (5, 3), (0.5, 0.7), (-0.2, 0.3)]:
        with pytest.raises(ValueError) as want:
            np.random.RandomState(0).randint(low, high)
        with pytest.raises(ValueError) as got:
            rs.randint(low, high)
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="out of bounds"):
        rs.randint(-129, 0, dtype=np.int8)
    with pytest.raises(TypeError, match="Unsupported dtype"):
        rs.randint(5, dtype=np.float64)


def test_randint_array_bounds():
    rs = ad.random.RandomState(5)
    low = [[[-1], [0]], [[-2], [1]], [[3], [4]]]
    high = [[10, 11, 12]]
    want = np.random.RandomState(0).randint(low, high)
    got = rs.randint(ad.asarray(np.array(low)), ad.asarray(np.array(high)))
    assert got.shape == want.shape and got.dtype == want.dtype
    many = rs.randint(ad.asarray(np.array([0, 10])),
                      ad.asarray(np.array([3, 12])), size=(5000, 2)).get()
    assert set(many[:, 0]) == {0, 1, 2} and set(many[:, 1]) == {10, 11}
    with pytest.raises(ValueError, match="low >= high"):
        rs.randint(ad.asarray(np.array([0, 1])), ad.asarray(np.array([0, 2])))


def test_random_integers_and_tomaxint():
    rs = ad.random.RandomState(6)
    with pytest.warns(DeprecationWarning, match=r"randint\(1, 5 \+ 1\)"):
        x = rs.random_integers(5, size=3000).get()
    assert x.min() == 1 and x.max() == 5
    with pytest.warns(DeprecationWarning, match=r"randint\(3, 5 \+ 1\)"):
        y = ad.random.random_integers(3, 5, (2, 3))
    assert y.shape == (2, 3) and y.dtype == np.int64
    t = rs.tomaxint((2, 3)).get()
    assert t.dtype == np.int64 and (t >= 0).all() and t.shape == (2, 3)


def test_legacy_choice_errors_as_numpy():
    rs = ad.random.RandomState(7)
    cases = [(None, [0.1, 0.1, 0.8]), ([[0, 1], [2, 3]], [0.3, 0.7]),
             (3.1, [0.1, 0.1, 0.8]), ([], None), (-3, None),
             (3, [-0.1, 0.3, 0.8]), (3, [0.1, 0.1, 0.7]), (2, [0.1, 0.1, 0.8])]
    for a, p in cases:
        with pytest.raises(ValueError):
            np.random.RandomState(0).choice(a, 1, p=p)
        with pytest.raises(ValueError):
            rs.choice(a, 1, p=p)
    assert rs.choice(ad.asarray(np.array(5)), 4).shape == (4,)
    v = rs.choice(ad.asarray(np.array([5.0, 6.0])), (2, 2))
    assert v.dtype == np.float64 and v.shape == (2, 2)


def test_legacy_multinomial():
    rs = ad.random.RandomState(8)
    x = rs.multinomial(10.7, [0.5, 0.5], size=(3, 2))  # n truncated
    assert x.shape == (3, 2, 2) and (x.get().sum(axis=-1) == 10).all()
    assert rs.multinomial(10, []).shape == (0,)
    with pytest.raises(TypeError, match="1-d sequence"):
        rs.multinomial(10, 0.5)
    with pytest.raises(ValueError):
        rs.multinomial(10, [[0.5, 0.5]])
    with pytest.raises(ValueError, match="sum"):
        rs.multinomial(10, [0.7, 0.7, 0.2])
    assert ad.random.default_rng(0).multinomial(10, [[0.5, 0.5]]).shape == (
        1, 2)


def test_legacy_hypergeometric_and_negative_binomial():
    rs = ad.random.RandomState(9)
    with pytest.raises(ValueError, match="nsample < 1"):
        rs.hypergeometric(5, 5, 0)
    assert ad.random.default_rng(0).hypergeometric(5, 5, 0, 3).get().tolist(
    ) == [0, 0, 0]
    assert rs.negative_binomial(1.5, 0.3, 4).dtype == np.int64
    with pytest.raises(ValueError, match="n <= 0"):
        rs.negative_binomial(0, 0.5)


def test_module_state_functions():
    _generator.reset_states()
    rs = ad.random.get_random_state()
    assert ad.random.get_random_state() is rs
    ad.random.seed(12)
    a = ad.random.uniform(size=5).get()
    ad.random.seed(12)
    np.testing.assert_array_equal(ad.random.uniform(size=5).get(), a)
    own = ad.random.RandomState(12)
    ad.random.set_random_state(own)
    assert ad.random.get_random_state() is own
    np.testing.assert_array_equal(ad.random.uniform(size=5).get(), a)
    state = ad.random.get_state()
    b = ad.random.rand(3).get()
    ad.random.set_state(state)
    np.testing.assert_array_equal(ad.random.rand(3).get(), b)
    old = _generator._random_states
    ad.random.reset_states()
    assert _generator._random_states is not old
    assert ad.random.get_random_state() is not own
    with pytest.raises(TypeError):
        ad.random.set_random_state(object())


def test_get_random_state_is_one_object_across_threads():
    _generator.reset_states()
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(
        ad.random.get_random_state())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(r) for r in seen}) == 1


def test_env_seed(monkeypatch):
    monkeypatch.setenv("CUPY_SEED", "77")
    _generator.reset_states()
    a = ad.random.rand(4).get()
    _generator.reset_states()
    np.testing.assert_array_equal(ad.random.rand(4).get(), a)
    np.testing.assert_array_equal(ad.random.RandomState(77).rand(4).get(), a)
    _generator.reset_states()


MODULE = [n for n, _ in LEGACY if n not in ("tomaxint",)] + [
    "dirichlet", "multinomial", "multivariate_normal"]


@pytest.mark.parametrize("name", MODULE)
def test_module_functions_draw_from_the_module_state(name):
    args = dict(LEGACY).get(name, ())
    args = {"dirichlet": ([1.0, 2.0],), "multinomial": (5, [0.5, 0.5]),
            "multivariate_normal": ([0.0, 1.0], np.eye(2))}.get(name, args)
    assert name in ad.random.__all__
    ad.random.set_random_state(ad.random.RandomState(31))
    a = getattr(ad.random, name)(*args, size=6).get()
    b = getattr(ad.random.RandomState(31), name)(*args, size=6).get()
    np.testing.assert_array_equal(a, b)
    _generator.reset_states()


def test_numpy_random_names_exist():
    missing = [n for n in np.random.__all__ if n not in ad.random.__all__
               and n not in ("MT19937", "PCG64", "PCG64DXSM", "Philox",
                             "SFC64", "SeedSequence")]
    assert missing == []


def test_aliases_and_bytes():
    assert ad.random.random is ad.random.random_sample
    assert ad.random.ranf is ad.random.sample is ad.random.random_sample
    ad.random.seed(5)
    a = ad.random.bytes(9)
    ad.random.seed(5)
    assert isinstance(a, bytes) and len(a) == 9 and ad.random.bytes(9) == a


def test_permutation_and_shuffle():
    rs = ad.random.RandomState(10)
    p = rs.permutation(10).get()
    assert sorted(p) == list(range(10))
    x = ad.arange(12).reshape(4, 3)
    rs.shuffle(x)
    rows = x.get()
    assert sorted(rows[:, 0].tolist()) == [0, 3, 6, 9]
    assert (rows[:, 1] == rows[:, 0] + 1).all()
    ad.random.seed(3)
    a = ad.random.permutation(ad.arange(6)).get()
    ad.random.seed(3)
    np.testing.assert_array_equal(ad.random.permutation(ad.arange(6)).get(),
                                  a)


# -- bit generators ----------------------------------------------------------------

def test_philox_bit_generator():
    bg = ad.random.Philox4x3210(5)
    raw = bg.random_raw(1000)
    assert raw.dtype == np.uint32 and raw.shape == (1000,)
    np.testing.assert_array_equal(
        ad.random.Philox4x3210(5).random_raw(1000).get(), raw.get())
    assert not np.array_equal(ad.random.Philox4x3210(None).random_raw(
        1000).get(), raw.get())
    bits = np.unpackbits(raw.get().view(np.uint8))
    assert abs(bits.mean() - 0.5) < 0.01  # 32 uniform bits a value
    assert bg.random_raw(output=False) is None
    with pytest.raises(TypeError):
        ad.random.Philox4x3210(1.5)
    with pytest.raises(NotImplementedError):
        ad.random.BitGenerator(0).random_raw()


def test_generator_on_a_bit_generator():
    a = ad.random.Generator(ad.random.Philox4x3210(9)).normal(size=20).get()
    b = ad.random.default_rng(ad.random.Philox4x3210(9)).normal(size=20).get()
    c = ad.random.default_rng(9).normal(size=20).get()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)   # default_rng(seed) is Philox too
    g = ad.random.default_rng(1)
    g.bit_generator = ad.random.Philox4x3210(9)   # reseeds, as CuPy's
    np.testing.assert_array_equal(g.normal(size=20).get(), a)
    assert ad.random.default_rng(g) is g
    seq = np.random.SeedSequence(123)
    d = ad.random.default_rng(seq).random(5).get()
    np.testing.assert_array_equal(
        ad.random.default_rng(np.random.SeedSequence(123)).random(5).get(), d)
    rs = ad.random.RandomState(ad.random.Philox4x3210(9))
    np.testing.assert_array_equal(rs.normal(size=20).get(), a)
    with pytest.raises(TypeError):
        g.bit_generator = 3


def test_generator_out_arguments_as_numpy():
    g = ad.random.default_rng(3)
    out = ad.zeros((3, 2))
    assert g.random(out=out) is out
    assert g.standard_exponential(out=out, method="inv") is out
    for call, exc in [
            (lambda r, o: r.random(size=(3, 2), out=o(np.zeros((3, 3)))),
             ValueError),
            (lambda r, o: r.standard_normal(out=o(np.zeros((3, 2), "f4"))),
             TypeError),
            (lambda r, o: r.random(out=o(np.zeros((4, 6))[::2, ::3])),
             ValueError),
            (lambda r, o: r.standard_gamma(2.0, size=(3, 2),
                                           out=o(np.zeros((3, 2), "f4"))),
             TypeError)]:
        with pytest.raises(exc) as want:
            call(np.random.default_rng(0), lambda a: a)
        with pytest.raises(exc) as got:
            call(g, lambda a: ad.asarray(a) if a.flags.c_contiguous else
                 ad.asarray(np.zeros((4, 6)))[::2, ::3])
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError):
        g.standard_exponential(3, method="fast")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.random(4)
