"""einsum against NumPy in every form: explicit and implicit output,
ellipses, broadcasting of length-1 and empty dimensions, the operand-sublist
form, optimize= (False, True, 'greedy', 'optimal', a path, a memory
limit), dtype=, casting=, out=, order=, permutation views, and NumPy's
errors."""
from __future__ import annotations

import arrayd as ad
import numpy as np
import pytest
from helpers import ALL_DTYPES, check, ids, sample

OPTIMIZE = [False, True, "greedy", "optimal"]


def _tol(dt):
    c = np.dtype(dt).char
    return 1e-2 if c == "e" else 1e-5 if c in "fF" else 1e-10


UNARY = [("ij", (2, 3)), ("ji", (2, 3)), ("ii->i", (3, 3)),
         ("jii->ij", (3, 3, 3)), ("...ii->...i", (2, 3, 3)),
         ("iii->i", (3, 3, 3)), ("ijk->kij", (2, 3, 4)),
         ("j...i->i...j", (2, 3, 4, 5)), ("i->", (3,)), ("ii", (3, 3)),
         ("ijkj->kij", (2, 3, 4, 3)), ("i...i->...", (2, 3, 2)),
         ("j...i->...", (2, 3, 4)), ("ij->i...j", (2, 3)),
         ("", ()), ("->", ()), ("...", (2, 3)), ("ij...->ij", (2, 3))]


@pytest.mark.parametrize("subs,shape", UNARY)
@pytest.mark.parametrize("dt", ["?", "i4", "f2", "f8", "c8"], ids=ids)
def test_unary(subs, shape, dt):
    x = sample(dt, shape)
    want = np.einsum(subs, x)
    for opt in OPTIMIZE:
        check(ad.einsum(subs, ad.asarray(x), optimize=opt), want,
              _tol(want.dtype))


BINARY = [("i,i", (3,), (3,)), ("i,j", (2,), (3,)), ("ij,j", (2, 3), (3,)),
          ("ij,jk", (2, 3), (3, 4)), ("ijk, jil -> kl", (3, 4, 2),
                                      (4, 3, 2)),
          ("i...,...k->ki...", (3, 4, 2), (4, 2, 5)),
          ("ij...,ji...->i...", (3, 4, 2), (4, 3, 2)),
          ("ijil,jkk->kj", (2, 3, 2, 4), (3, 2, 2)),
          ("i...ij,ji...->...j", (2, 4, 2, 3), (3, 2, 4)),
          ("ij...,j...->ij...", (2, 3, 4), (3,)),
          ("ik...,...kj->i...j", (4, 3), (3, 2)), ("...k,kj", (4, 3),
                                                     (3, 2)),
          ("...lmn,lmno->...o", (1, 1, 1, 2, 3, 2), (2, 3, 2, 2)),
          ("ij,ij->ij", (2, 1), (2, 3)), ("ij,jk", (0, 3), (3, 2)),
          ("ij,jk", (2, 0), (0, 2)), ("ij,jk", (2, 1), (3, 2)),
          (",i->", (), (2,)), ("i,->", (2,), ())]


@pytest.mark.parametrize("subs,sa,sb", BINARY)
@pytest.mark.parametrize("da,db", [("f8", "f8"), ("i4", "f4"), ("?", "?"),
                                   ("i2", "c16"), ("f2", "f2")])
def test_binary(subs, sa, sb, da, db):
    a, b = sample(da, sa, 1), sample(db, sb, 2)
    want = np.einsum(subs, a, b)
    for opt in OPTIMIZE:
        check(ad.einsum(subs, ad.asarray(a), ad.asarray(b), optimize=opt),
              want, _tol(want.dtype))


TERNARY = [("ij,jk,kl", (2, 3), (3, 4), (4, 5)),
           ("ij,ik,i->ijk", (2, 4), (2, 3), (2,)),
           ("i...,i,...i->...i", (2, 3, 4), (2,), (3, 4, 2)),
           ("a...,...b,c...->abc...", (2, 3, 4), (4, 3), (3, 3, 4)),
           ("a,b,c->abc", (2,), (3,), (4,)),
           ("ab,bc,ca->", (2, 3), (3, 4), (4, 2))]


@pytest.mark.parametrize("subs,sa,sb,sc", TERNARY)
def test_ternary_and_paths(subs, sa, sb, sc):
    a, b, c = (sample("f8", s, i) for i, s in enumerate((sa, sb, sc)))
    want = np.einsum(subs, a, b, c)
    args = [ad.asarray(v) for v in (a, b, c)]
    for opt in OPTIMIZE + [["einsum_path", (0, 1), (0, 1)],
                           ["einsum_path", (0, 2), (0, 1)],
                           ["einsum_path", (1, 2), (0, 1)],
                           ["einsum_path", (0, 1, 2)], ("greedy", 0)]:
        check(ad.einsum(subs, *args, optimize=opt), want)


def test_many_operands():
    shapes = [(2, 3), (3, 4), (4, 2), (2, 5), (5, 3)]
    ops = [sample("f8", s, i) for i, s in enumerate(shapes)]
    subs = "ab,bc,cd,de,ef->af"
    want = np.einsum(subs, *ops)
    for opt in OPTIMIZE:
        check(ad.einsum(subs, *[ad.asarray(o) for o in ops], optimize=opt),
              want)
    check(ad.einsum("ab,bc,cd,de,ef", *ops), np.einsum("ab,bc,cd,de,ef",
                                                        *ops))


def test_sublist_form():
    a, b = sample("f8", (2, 3), 1), sample("f8", (3, 4), 2)
    A, B = ad.asarray(a), ad.asarray(b)
    check(ad.einsum(A, [0, 1], B, [1, 2], [0, 2]),
          np.einsum(a, [0, 1], b, [1, 2], [0, 2]))
    check(ad.einsum(A, [0, 1], B, [1, 2]), np.einsum(a, [0, 1], b, [1, 2]))
    b2 = sample("f8", (3, 2), 4)
    check(ad.einsum(A, [Ellipsis, 1], ad.asarray(b2), [1, Ellipsis],
                    [Ellipsis]),
          np.einsum(a, [Ellipsis, 1], b2, [1, Ellipsis], [Ellipsis]))
    check(ad.einsum(A, [0, 1], [1, 0]), np.einsum(a, [0, 1], [1, 0]))
    c = sample("f8", (3, 3), 3)
    for opt in OPTIMIZE:
        check(ad.einsum(ad.asarray(c), (0, 0), optimize=opt),
              np.einsum(c, (0, 0)))
        check(ad.einsum(ad.asarray(c), [0, 0], [0], optimize=opt),
              np.einsum(c, [0, 0], [0]))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=ids)
def test_dtype_casting(dt):
    a = sample(dt, (2, 3), 1)
    b = sample(dt, (3,), 2)
    for target in ("f8", "c16", "i8"):
        if np.can_cast(dt, target):
            check(ad.einsum("ij,j->i", ad.asarray(a), ad.asarray(b),
                            dtype=target),
                  np.einsum("ij,j->i", a, b, dtype=target))
        else:
            with pytest.raises(TypeError):
                ad.einsum("ij,j->i", ad.asarray(a), ad.asarray(b),
                          dtype=target)
            if np.dtype(dt).kind != "c":
                check(ad.einsum("ij,j->i", ad.asarray(a), ad.asarray(b),
                                dtype=target, casting="unsafe"),
                      np.einsum("ij,j->i", a, b, dtype=target,
                                casting="unsafe"))
    check(ad.einsum("->", 2, dtype=dt), np.einsum("->", 2, dtype=dt))


def test_out_and_order():
    a, b = sample("f8", (2, 3), 1), sample("f8", (3, 4), 2)
    out = ad.zeros((2, 4))
    r = ad.einsum("ij,jk->ik", ad.asarray(a), ad.asarray(b), out=out)
    assert r is out
    check(out, a @ b)
    out32 = ad.zeros((2, 4), "f4")
    with pytest.raises(TypeError):
        ad.einsum("ij,jk->ik", ad.asarray(a), ad.asarray(b), out=out32)
    ad.einsum("ij,jk->ik", ad.asarray(a), ad.asarray(b), out=out32,
              casting="same_kind")
    check(out32, (a @ b).astype("f4"), 1e-5)
    with pytest.raises(ValueError):
        ad.einsum("ij,jk->ik", ad.asarray(a), ad.asarray(b),
                  out=ad.zeros((4, 2)))
    r = ad.einsum("ij,jk->ki", ad.asarray(a), ad.asarray(b), order="F")
    check(r, np.einsum("ij,jk->ki", a, b))
    # A permutation is a view of its operand, as NumPy's.
    x = ad.asarray(a)
    v = ad.einsum("ij->ji", x)
    assert v.base is x
    v[0, 0] = 42.0
    assert x[0, 0].item() == 42.0


@pytest.mark.parametrize("args", [
    ("..", np.zeros((2, 2, 2))), ("...i...", np.zeros((2, 2, 2))),
    ("i...->...i...", np.zeros((2, 2, 2))), ("...->", np.zeros((2, 2, 2))),
    ("",), ("", 0, 0), (",", 0), ("i", 0), ("ij", np.array([0, 0])),
    ("ijk...->...", np.arange(6).reshape(2, 3)),
    ("i->i", np.arange(6).reshape(2, 3)), ("i%", np.array([0, 0])),
    ("i->&", np.array([0, 0])), ("i->ij", np.array([0, 0])),
    ("ij->jij", np.zeros((2, 2))), ("ij->i,j", np.zeros((2, 2))),
    ("ii", np.arange(6).reshape(2, 3)), ("ii", np.arange(3).reshape(1, 3)),
    ("i,i", np.arange(2), np.arange(3)),
    ("...,...", np.arange(2), np.arange(3)), ("i-i", np.array([0, 0])),
    ("i->->i", np.array([0, 0])), ("i-", np.array([0, 0])),
    (np.arange(2), [None]), (np.arange(2), [0], [1]),
    (np.arange(2), [0], np.arange(3), [0]), (3, [0]),
    (np.arange(2), [0, 1]), (np.arange(6).reshape(2, 3), [0, 0]),
])
def test_errors(args):
    with pytest.raises((ValueError, TypeError)) as e_np:
        np.einsum(*args)
    conv = [ad.asarray(x) if isinstance(x, np.ndarray) else x for x in args]
    with pytest.raises(e_np.type):
        ad.einsum(*conv)


def test_bad_keywords():
    with pytest.raises(ValueError):
        ad.einsum()
    with pytest.raises(TypeError):
        ad.einsum("", 0, bad_arg=0)
    with pytest.raises(TypeError):
        ad.einsum(0, 0)
    with pytest.raises(KeyError):  # NumPy's einsum_path's error
        ad.einsum("ij,jk,kl", ad.ones((2, 3)), ad.ones((3, 2)),
                  ad.ones((2, 2)), optimize="bogus")
