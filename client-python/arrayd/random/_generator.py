"""arrayd.random's Generator: numpy.random.Generator on the server's
Philox4x32-10 streams (see the package docstring for how the streams and
offsets work).

Layer: a public namespace's core, above the function modules it draws
with; arrayd.random (the package) adds default_rng and the legacy
module-level functions on top of it.
"""
from __future__ import annotations

import math
import operator
import secrets
from typing import Any

import numpy as np

from arrayd import _composite as _c
from arrayd import _connect, _dtypes, _indexing, _linalg
from arrayd import _manipulation as _mp
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd import _session as _sess
from arrayd import _sorting
from arrayd._ndarray import ndarray

_MASK64 = (1 << 64) - 1
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_INT64 = np.dtype(np.int64)


def _seed_words(seed: Any) -> list[int]:
    """The random ops' ``seed`` attribute: the seed's 64-bit words (each
    integer's low word first, a sequence's concatenated) as int64 bit
    patterns; the server derives the Philox key from them. None: 64 bits
    of OS entropy."""
    if seed is None:
        seeds = [secrets.randbits(64)]
    elif isinstance(seed, (int, np.integer)):
        seeds = [int(seed)]
    else:
        seeds = [int(v) for v in np.asarray(seed).ravel()]
    words = []
    for v in seeds:
        if v < 0:
            raise ValueError("Seed must be non-negative")
        while True:  # arbitrarily large ints, 64 bits at a time
            w = v & _MASK64
            words.append(w - (1 << 64) if w >> 63 else w)
            v >>= 64
            if not v:
                break
    return words


def _size(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        if d < 0:
            raise ValueError("negative dimensions are not allowed")
        n *= d
    return n


def _int_attr(v: int) -> int | str:
    """An int64 or uint64 attribute: above INT64_MAX, its decimal string."""
    return str(v) if v >= 1 << 63 else v


def _float64_blocks(n: int) -> int:
    """Philox blocks of a float64 draw of n values (two a block)."""
    return -(-n // 2)


def _shape(size: Any) -> tuple[int, ...]:
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)):
        return (operator.index(size),)
    return tuple(operator.index(d) for d in size)


def _float_dtype(dtype: Any, name: str) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in (_F32, _F64):
        raise TypeError(f"Unsupported dtype {dt!r} for {name}")
    return dt


def _is_scalar(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating))


def _host_value(v: Any) -> Any:
    """A parameter as a host value for NumPy's checks (arrays are fetched)."""
    return v.get() if isinstance(v, ndarray) else np.asarray(v)


class Generator:
    """numpy.random.Generator on the server (Philox4x32-10 streams)."""

    def __init__(self, seed: Any = None,
                 session: _sess.Session | None = None) -> None:
        self._seed = _seed_words(seed)
        self._offset = 0
        self._session = session

    def __repr__(self) -> str:
        return f"Generator(Philox) at {id(self):#X}"

    # -- raw streams -----------------------------------------------------

    def _record(self, op: str, inputs: tuple[ndarray, ...],
                shape: tuple[int, ...], dtype: np.dtype,
                attrs: dict[str, Any], blocks: int,
                session: Any = None) -> ndarray:
        """Records random op ``op`` at this generator's seed and next block,
        then advances past the ``blocks`` it uses."""
        s = session if session is not None else (
            self._session or _connect.current())
        attrs["seed"] = self._seed
        attrs["offset"] = self._offset
        self._offset += blocks
        return _c.new(s, op, inputs, shape, dtype, attrs)

    def _draw(self, op: str, shape: tuple[int, ...], dtype: np.dtype,
              session: Any = None) -> ndarray:
        per_block = 16 // dtype.itemsize  # values per Philox block
        return self._record(op, (), shape, dtype,
                            {"shape": list(shape), "dtype": dtype},
                            -(-_size(shape) // per_block), session)

    # -- floats ----------------------------------------------------------

    def random(self, size: Any = None, dtype: Any = np.float64,
               out: Any = None) -> ndarray:
        """Uniform floats in [0, 1)."""
        dt = _float_dtype(dtype, "random")
        r = self._draw("random_uniform", _shape(size) if out is None
                       else out.shape, dt)
        return r if out is None else _c.assign(out, r, "random")

    def standard_normal(self, size: Any = None, dtype: Any = np.float64,
                        out: Any = None) -> ndarray:
        """Standard normal floats."""
        dt = _float_dtype(dtype, "standard_normal")
        r = self._draw("random_normal", _shape(size) if out is None
                       else out.shape, dt)
        return r if out is None else _c.assign(out, r, "standard_normal")

    def _params(self, size: Any, *params: Any) -> tuple[tuple[int, ...],
                                                        list[Any]]:
        """Output shape (size, or the parameters' broadcast shape) and the
        parameters as Python scalars or arrayd arrays."""
        shapes = []
        vals = []
        for p in params:
            if _is_scalar(p):
                vals.append(float(p))
            else:
                a = _c.ensure(p, self._session)
                if a._dtype.kind not in "fiub":
                    raise TypeError("parameters must be real numbers")
                vals.append(a.astype(_F64, copy=False))
                shapes.append(a._shape)
        bshape = np.broadcast_shapes(*shapes) if shapes else ()
        if size is None:
            return bshape, vals
        shape = _shape(size)
        if np.broadcast_shapes(bshape, shape) != shape:
            raise ValueError(f"shape mismatch: objects cannot be broadcast "
                             f"to a single shape {bshape} vs {shape}")
        return shape, vals

    def _scaled(self, op: str, shape: tuple[int, ...], names: tuple[str, str],
                params: list[Any], dtype: np.dtype = _F64) -> ndarray:
        """Records the server's ``op`` drawing with parameters ``names``
        (ops/random.cc): float attributes when all are scalars, else array
        inputs (a scalar as a 0-d float64 array)."""
        arrays = [p for p in params if isinstance(p, ndarray)]
        s = arrays[0]._session if arrays else (self._session or
                                               _connect.current())
        attrs: dict[str, Any] = {"shape": list(shape), "dtype": dtype}
        inputs: tuple[ndarray, ...] = ()
        if arrays:
            inputs = tuple(p if isinstance(p, ndarray) else _c.const(s, p, _F64)
                           for p in params)
        else:
            attrs.update(zip(names, params))
        per_block = 16 // dtype.itemsize  # values per Philox block
        return self._record(op, inputs, shape, dtype, attrs,
                            -(-_size(shape) // per_block), s)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0,
               size: Any = None) -> ndarray:
        """Normal(loc, scale) floats (float64): the server's loc + Z * scale."""
        self._check(scale, lambda v: v < 0, "scale < 0")
        shape, params = self._params(size, loc, scale)
        return self._scaled("random_normal", shape, ("loc", "scale"), params)

    def uniform(self, low: Any = 0.0, high: Any = 1.0,
                size: Any = None) -> ndarray:
        """Uniform floats in [low, high) (float64): the server's
        low + U * (high - low)."""
        hv, lv = _host_value(high), _host_value(low)
        if not np.all(np.isfinite(hv - lv)):
            raise OverflowError("high - low range exceeds valid bounds")
        shape, params = self._params(size, low, high)
        return self._scaled("random_uniform", shape, ("low", "high"), params)

    def exponential(self, scale: Any = 1.0, size: Any = None) -> ndarray:
        """Exponential(scale) floats: the server's -log(1 - U) * scale."""
        self._check(scale, lambda v: v < 0, "scale < 0")
        shape, (scale,) = self._params(size, scale)
        if isinstance(scale, ndarray):
            return self._record("random_exponential", (scale,), shape, _F64,
                                {"shape": list(shape), "dtype": _F64},
                                _float64_blocks(_size(shape)), scale._session)
        return self._record("random_exponential", (), shape, _F64,
                            {"shape": list(shape), "dtype": _F64,
                             "scale": scale}, _float64_blocks(_size(shape)))

    def standard_exponential(self, size: Any = None,
                             dtype: Any = np.float64) -> ndarray:
        """-log(1 - U) (the server's random_exponential)."""
        dt = _float_dtype(dtype, "standard_exponential")
        return self._draw("random_exponential", _shape(size), dt)

    # -- closed-form distributions (inverse CDF or a transform of normals) --

    def _check(self, value: Any, bad: Any, message: str) -> None:
        """ValueError(message) when bad(value) holds anywhere (host values;
        array parameters are read back, as NumPy checks them too)."""
        if np.any(bad(np.asarray(_host_value(value), dtype=np.float64))):
            raise ValueError(message)

    def _uniform(self, size: Any, *params: Any) -> tuple[ndarray, list[Any]]:
        shape, vals = self._params(size, *params)
        return self._draw("random_uniform", shape, _F64), vals

    def _exponential(self, u: ndarray) -> ndarray:
        return _m.negative(_m.log1p(_m.negative(u)))  # -log(1 - U) >= 0

    def lognormal(self, mean: Any = 0.0, sigma: Any = 1.0,
                  size: Any = None) -> ndarray:
        """exp(Normal(mean, sigma))."""
        self._check(sigma, lambda v: v < 0, "sigma < 0")
        return _m.exp(self.normal(mean, sigma, size))

    def laplace(self, loc: Any = 0.0, scale: Any = 1.0,
                size: Any = None) -> ndarray:
        """Laplace(loc, scale): loc - scale * sign(V) * log(1 - 2|V|),
        V = U - 1/2."""
        self._check(scale, lambda v: v < 0, "scale < 0")
        u, (loc, scale) = self._uniform(size, loc, scale)
        v = _m.subtract(u, 0.5)
        t = _m.multiply(_m.sign(v), _m.log1p(_m.multiply(_m.absolute(v), -2.0)))
        return _m.subtract(loc, _m.multiply(scale, t))

    def logistic(self, loc: Any = 0.0, scale: Any = 1.0,
                 size: Any = None) -> ndarray:
        """Logistic(loc, scale): loc + scale * log(U / (1 - U))."""
        self._check(scale, lambda v: v < 0, "scale < 0")
        u, (loc, scale) = self._uniform(size, loc, scale)
        t = _m.subtract(_m.log(u), _m.log1p(_m.negative(u)))
        return _m.add(loc, _m.multiply(scale, t))

    def gumbel(self, loc: Any = 0.0, scale: Any = 1.0,
               size: Any = None) -> ndarray:
        """Gumbel(loc, scale): loc - scale * log(-log(1 - U))."""
        self._check(scale, lambda v: v < 0, "scale < 0")
        u, (loc, scale) = self._uniform(size, loc, scale)
        return _m.subtract(loc, _m.multiply(scale, _m.log(self._exponential(u))))

    def rayleigh(self, scale: Any = 1.0, size: Any = None) -> ndarray:
        """Rayleigh(scale): scale * sqrt(-2 log(1 - U))."""
        self._check(scale, lambda v: v < 0, "scale < 0")
        u, (scale,) = self._uniform(size, scale)
        return _m.multiply(scale, _m.sqrt(_m.multiply(self._exponential(u), 2.0)))

    def weibull(self, a: Any, size: Any = None) -> ndarray:
        """Weibull(a): (-log(1 - U)) ** (1 / a); 0 where a == 0."""
        self._check(a, lambda v: v < 0, "a < 0")
        u, (a,) = self._uniform(size, a)
        e = self._exponential(u)
        if _is_scalar(a):
            return _m.multiply(e, 0.0) if a == 0 else _m.power(e, 1.0 / a)
        return _mp.where(_m.equal(a, 0.0), 0.0,
                         _m.power(e, _m.true_divide(1.0, a)))

    def pareto(self, a: Any, size: Any = None) -> ndarray:
        """Pareto II (Lomax) with shape a: exp(E / a) - 1, E exponential."""
        self._check(a, lambda v: v <= 0, "a <= 0")
        u, (a,) = self._uniform(size, a)
        return _m.expm1(_m.true_divide(self._exponential(u), a))

    def power(self, a: Any, size: Any = None) -> ndarray:
        """Power(a) on [0, 1]: U ** (1 / a)."""
        self._check(a, lambda v: v <= 0, "a <= 0")
        u, (a,) = self._uniform(size, a)
        return _m.power(u, _m.true_divide(1.0, a) if not _is_scalar(a)
                        else 1.0 / a)

    def standard_cauchy(self, size: Any = None) -> ndarray:
        """Cauchy(0, 1): the ratio of two independent standard normals."""
        shape = _shape(size)
        return _m.true_divide(self._draw("random_normal", shape, _F64),
                              self._draw("random_normal", shape, _F64))

    def geometric(self, p: Any, size: Any = None) -> ndarray:
        """Geometric(p) trials to the first success (int64, >= 1):
        floor(log(1 - U) / log(1 - p)) + 1."""
        self._check(p, lambda v: ~((v > 0) & (v <= 1)),
                    "p <= 0, p > 1 or p contains NaNs")
        u, (p,) = self._uniform(size, p)
        denom = (math.log1p(-p) if p < 1 else -math.inf) if _is_scalar(p) \
            else _m.log1p(_m.negative(p))
        k = _m.floor(_m.true_divide(_m.log1p(_m.negative(u)), denom))
        return _m.add(k, 1.0).astype(_INT64)

    def triangular(self, left: Any, mode: Any, right: Any,
                   size: Any = None) -> ndarray:
        """Triangular(left, mode, right) by inversion of its CDF."""
        lv, mv, rv = (np.asarray(_host_value(v), dtype=np.float64)
                      for v in (left, mode, right))
        if np.any(lv > mv):
            raise ValueError("left > mode")
        if np.any(mv > rv):
            raise ValueError("mode > right")
        if np.any(lv == rv):
            raise ValueError("left == right")
        u, (left, mode, right) = self._uniform(size, left, mode, right)
        width = _m.subtract(right, left)
        below = _m.sqrt(_m.multiply(u, _m.multiply(width, _m.subtract(mode, left))))
        above = _m.sqrt(_m.multiply(_m.subtract(1.0, u),
                                    _m.multiply(width, _m.subtract(right, mode))))
        cut = _m.true_divide(_m.subtract(mode, left), width)
        return _mp.where(_m.less(u, cut), _m.add(left, below),
                         _m.subtract(right, above))

    def wald(self, mean: Any, scale: Any, size: Any = None) -> ndarray:
        """Wald (inverse Gaussian) by Michael, Schucany and Haas's
        transform of one normal and one uniform."""
        self._check(mean, lambda v: v <= 0, "mean <= 0")
        self._check(scale, lambda v: v <= 0, "scale <= 0")
        shape, (mu, lam) = self._params(size, mean, scale)
        z = self._draw("random_normal", shape, _F64)
        u = self._draw("random_uniform", shape, _F64)
        y = _m.multiply(_m.multiply(z, z), mu)
        half = _m.true_divide(mu, _m.multiply(lam, 2.0))
        root = _m.sqrt(_m.add(_m.multiply(_m.multiply(y, lam), 4.0),
                              _m.multiply(y, y)))
        x = _m.add(mu, _m.multiply(half, _m.subtract(y, root)))
        keep = _m.less_equal(u, _m.true_divide(mu, _m.add(mu, x)))
        return _mp.where(keep, x, _m.true_divide(_m.multiply(mu, mu), x))

    def binomial(self, n: Any, p: Any, size: Any = None) -> ndarray:
        """Binomial(n, p) integers (int64), by inversion of the CDF: a
        binary search of uniforms in the host-computed CDF (scalar n, p)."""
        if not (_is_scalar(n) and _is_scalar(p)):
            raise NotImplementedError("binomial: array n or p is not "
                                      "supported")
        if float(n) < 0:
            raise ValueError("n < 0")
        n, p = int(n), float(p)
        if not 0 <= p <= 1:
            raise ValueError("p < 0, p > 1 or p is NaN")
        shape = _shape(size)
        if n == 0 or p == 0 or p == 1:  # no randomness: a constant array
            s = self._session or _connect.current()
            return _c.new(s, "full", (), shape, _INT64,
                          {"shape": list(shape), "dtype": _INT64,
                           "value": n if p == 1 else 0})
        u = self._draw("random_uniform", shape, _F64)
        s = u._session
        sd = math.sqrt(n * p * (1 - p))
        k0 = int(max(0.0, math.floor(n * p - 40 * sd - 40)))
        k1 = int(min(float(n), math.ceil(n * p + 40 * sd + 40)))
        k = np.arange(k0, k1 + 1, dtype=np.float64)
        from math import lgamma
        logpmf = (lgamma(n + 1) - np.array([lgamma(v + 1) for v in k])
                  - np.array([lgamma(n - v + 1) for v in k])
                  + k * math.log(p) + (n - k) * math.log1p(-p))
        cdf = np.cumsum(np.exp(logpmf))
        idx = _sorting.bsearch(_c.upload(s, cdf), u, True)
        return _m.add(_m.minimum(idx, k1 - k0), k0)

    def multivariate_normal(self, mean: Any, cov: Any, size: Any = None,
                            check_valid: str = "warn", tol: float = 1e-8, *,
                            method: str = "svd") -> ndarray:
        """Multivariate normal: mean + Z @ A with A A^T = cov, A factored
        on the host as NumPy does (method svd, eigh or cholesky)."""
        import warnings
        mean_h = np.asarray(_host_value(mean), dtype=np.float64)
        cov_h = np.asarray(_host_value(cov), dtype=np.float64)
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError("method must be one of {'eigh', 'svd', "
                             "'cholesky'}")
        if mean_h.ndim != 1:
            raise ValueError("mean must be 1 dimensional")
        if cov_h.ndim != 2 or cov_h.shape[0] != cov_h.shape[1]:
            raise ValueError("cov must be 2 dimensional and square")
        if mean_h.shape[0] != cov_h.shape[0]:
            raise ValueError("mean and cov must have same length")
        if method == "cholesky":
            factor = np.linalg.cholesky(cov_h).T
        else:
            if method == "eigh":
                s, u = np.linalg.eigh(cov_h)
                vh = u.T
                psd = np.all(s >= -tol)
            else:
                u, s, vh = np.linalg.svd(cov_h)
                psd = np.allclose(np.dot(vh.T * s, vh), cov_h, rtol=tol,
                                  atol=tol)
            if check_valid != "ignore" and not psd:
                if check_valid == "warn":
                    warnings.warn("covariance is not symmetric "
                                  "positive-semidefinite.", RuntimeWarning,
                                  stacklevel=2)
                elif check_valid == "raise":
                    raise ValueError("covariance is not symmetric "
                                     "positive-semidefinite.")
                else:
                    raise ValueError("check_valid must equal 'warn', "
                                     "'raise', or 'ignore'")
            factor = np.sqrt(np.abs(s))[:, None] * vh
        shape = (() if size is None else _shape(size)) + mean_h.shape
        z = self._draw("random_normal", shape, _F64)
        s = z._session
        return _m.add(_linalg.matmul(z, _c.upload(s, factor)),
                      _c.upload(s, mean_h))

    # -- the gamma family ---------------------------------------------------

    _GAMMA_ROUNDS = 3  # candidates per value in one pass of _gamma_pass

    def _gamma_pass(self, alpha: Any, shape: tuple[int, ...]) -> tuple[
            ndarray, ndarray]:
        """One pass of Marsaglia and Tsang's method for alpha >= 1 (float or
        float64 array broadcast to shape): _GAMMA_ROUNDS candidates per
        value, the first accepted one kept. Returns (values, accepted)."""
        r = self._GAMMA_ROUNDS
        d = _m.subtract(alpha, 1.0 / 3.0) if not _is_scalar(alpha) \
            else alpha - 1.0 / 3.0
        c = _m.true_divide(1.0, _m.sqrt(_m.multiply(d, 9.0))) \
            if not _is_scalar(d) else 1.0 / math.sqrt(9.0 * d)
        x = self._draw("random_normal", (r,) + shape, _F64)
        u = self._draw("random_uniform", (r,) + shape, _F64)
        v = _m.power(_m.add(_m.multiply(x, c), 1.0), 3.0)
        # log(1 - U) has the law of log(U) and never meets log(0).
        bound = _m.add(_m.multiply(_m.multiply(x, x), 0.5),
                       _m.multiply(d, _m.add(_m.subtract(1.0, v), _m.log(v))))
        ok = _m.logical_and(_m.greater(v, 0.0),
                            _m.less(_m.log1p(_m.negative(u)), bound))
        first = _r.argmax(ok, axis=0)[None]
        value = _indexing.take_along_axis(_m.multiply(v, d), first,
                                          axis=0)[0]
        return value, _r.any(ok, axis=0)

    def _gamma_ge1(self, alpha: Any, shape: tuple[int, ...]) -> ndarray:
        """Gamma(alpha >= 1) draws: passes until every value is accepted;
        each pass after the first redraws only the rejected ones (about
        1e-4 of them), at the cost of one sync per pass."""
        if not shape:  # one value: as a 1-element draw
            a = alpha if _is_scalar(alpha) else alpha.reshape(1)
            return self._gamma_ge1(a, (1,)).reshape(())
        value, accepted = self._gamma_pass(alpha, shape)
        if 0 in shape:
            return value
        rejected = _m.logical_not(accepted)
        n = int(rejected.sum())
        if n:
            a = alpha if _is_scalar(alpha) else _mp.broadcast_to(
                alpha, shape)[rejected]
            value[rejected] = self._gamma_ge1(a, (n,))
        return value

    def _standard_gamma(self, shape: tuple[int, ...], alpha: Any) -> ndarray:
        """Standard Gamma(alpha) as float64; alpha < 1 by Gamma(alpha + 1) *
        U ** (1 / alpha) (0 where alpha == 0)."""
        if _is_scalar(alpha):
            if alpha == 0:
                return _m.multiply(self._draw("random_uniform", shape, _F64), 0.0)
            if alpha >= 1:
                return self._gamma_ge1(alpha, shape)
            g = self._gamma_ge1(alpha + 1.0, shape)
            u = self._draw("random_uniform", shape, _F64)
            return _m.multiply(g, _m.power(u, 1.0 / alpha))
        small = _m.less(alpha, 1.0)
        g = self._gamma_ge1(_mp.where(small, _m.add(alpha, 1.0), alpha), shape)
        u = self._draw("random_uniform", shape, _F64)
        boost = _m.power(u, _m.true_divide(1.0, alpha))  # alpha == 0: u ** inf = 0
        return _mp.where(small, _m.multiply(g, boost), g)

    def standard_gamma(self, shape: Any, size: Any = None,
                       dtype: Any = np.float64, out: Any = None) -> ndarray:
        """Standard Gamma(shape) floats (Marsaglia and Tsang's method)."""
        dt = _float_dtype(dtype, "standard_gamma")
        self._check(shape, lambda v: v < 0, "shape < 0")
        oshape, (alpha,) = self._params(size if out is None else out.shape,
                                        shape)
        r = self._standard_gamma(oshape, alpha)
        r = r if dt == _F64 else r.astype(dt)
        return r if out is None else _c.assign(out, r, "standard_gamma")

    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None) -> ndarray:
        """Gamma(shape, scale) floats."""
        self._check(shape, lambda v: v < 0, "shape < 0")
        self._check(scale, lambda v: v < 0, "scale < 0")
        oshape, (alpha, scale) = self._params(size, shape, scale)
        return _m.multiply(self._standard_gamma(oshape, alpha), scale)

    def chisquare(self, df: Any, size: Any = None) -> ndarray:
        """Chi-square(df) = 2 Gamma(df / 2)."""
        self._check(df, lambda v: v <= 0, "df <= 0")
        oshape, (df,) = self._params(size, df)
        half = df / 2.0 if _is_scalar(df) else _m.multiply(df, 0.5)
        return _m.multiply(self._standard_gamma(oshape, half), 2.0)

    def standard_t(self, df: Any, size: Any = None) -> ndarray:
        """Student's t(df) = Z / sqrt(Chi-square(df) / df)."""
        self._check(df, lambda v: v <= 0, "df <= 0")
        oshape, (dfv,) = self._params(size, df)
        z = self._draw("random_normal", oshape, _F64)
        chi = self.chisquare(dfv, oshape)
        return _m.true_divide(z, _m.sqrt(_m.true_divide(chi, dfv)))

    def beta(self, a: Any, b: Any, size: Any = None) -> ndarray:
        """Beta(a, b) = X / (X + Y), X ~ Gamma(a), Y ~ Gamma(b)."""
        self._check(a, lambda v: v <= 0, "a <= 0")
        self._check(b, lambda v: v <= 0, "b <= 0")
        oshape, (a, b) = self._params(size, a, b)
        x = self._standard_gamma(oshape, a)
        y = self._standard_gamma(oshape, b)
        return _m.true_divide(x, _m.add(x, y))

    def f(self, dfnum: Any, dfden: Any, size: Any = None) -> ndarray:
        """F(dfnum, dfden) = (Chi2(dfnum) / dfnum) / (Chi2(dfden) / dfden)."""
        self._check(dfnum, lambda v: v <= 0, "dfnum <= 0")
        self._check(dfden, lambda v: v <= 0, "dfden <= 0")
        oshape, (dn, dd) = self._params(size, dfnum, dfden)
        num = _m.true_divide(self.chisquare(dn, oshape), dn)
        den = _m.true_divide(self.chisquare(dd, oshape), dd)
        return _m.true_divide(num, den)

    def dirichlet(self, alpha: Any, size: Any = None) -> ndarray:
        """Dirichlet(alpha): Gamma(alpha_i) draws normalized to sum 1."""
        av = np.asarray(_host_value(alpha), dtype=np.float64)
        if av.ndim != 1:
            raise ValueError("alpha must be a one-dimensional sequence")
        if np.any(av < 0) or np.any(np.isnan(av)):
            raise ValueError("alpha < 0")
        shape = (() if size is None else _shape(size)) + av.shape
        a = _c.upload(_connect.current() if self._session is None
                      else self._session, av)
        g = self._standard_gamma(shape, _mp.broadcast_to(a, shape))
        return _m.true_divide(g, _r.sum(g, axis=-1, keepdims=True))

    # -- integers ----------------------------------------------------------

    def integers(self, low: Any, high: Any = None, size: Any = None,
                 dtype: Any = np.int64, endpoint: bool = False) -> ndarray:
        """Uniform integers in [low, high) ([low, high] with endpoint)."""
        dt = _dtypes.normalize(dtype)
        if dt.kind not in "biu":
            raise TypeError(f"Unsupported dtype {dt!r} for integers")
        if high is None:
            low, high = 0, low
        if not (_is_scalar(low) and _is_scalar(high)):
            raise NotImplementedError("integers: array low/high are not "
                                      "supported")
        low, high = int(low), int(high)
        hi_incl = high if endpoint else high - 1
        info = (np.iinfo(dt) if dt.kind != "b" else None)
        lo_b, hi_b = (0, 1) if info is None else (int(info.min),
                                                  int(info.max))
        if low < lo_b:
            raise ValueError(f"low is out of bounds for {dt}")
        if hi_incl > hi_b:
            raise ValueError(f"high is out of bounds for {dt}")
        if low > hi_incl:
            raise ValueError("low > high" if endpoint else "low >= high")
        shape = _shape(size)
        # The inclusive high: 2**64 - 1 fits the attribute, 2**64 would not.
        attrs = {"shape": list(shape), "dtype": dt, "endpoint": True,
                 "low": _int_attr(low), "high": _int_attr(hi_incl)}
        draws = 1 if hi_incl - low < (1 << 53) else 2  # the server's rule
        return self._record("random_integers", (), shape, dt, attrs,
                            draws * _float64_blocks(_size(shape)))

    def poisson(self, lam: Any = 1.0, size: Any = None) -> ndarray:
        """Poisson(lam) integers (int64), by inversion of the CDF on the
        server (scalar lam only)."""
        if not _is_scalar(lam):
            raise NotImplementedError("poisson: array lam is not supported")
        lam = float(lam)
        if lam < 0 or math.isnan(lam):
            raise ValueError("lam < 0 or lam is NaN")
        if lam > 1e8:
            raise NotImplementedError("poisson: lam above 1e8 is not "
                                      "supported")
        shape = _shape(size)
        return self._record("random_poisson", (), shape, _INT64,
                            {"shape": list(shape), "lam": lam},
                            _float64_blocks(_size(shape)))

    # -- choice / permutations ---------------------------------------------

    def permutation(self, x: Any, axis: int = 0) -> ndarray:
        """A random permutation of range(x), or of x along ``axis`` (the
        server's random_permutation)."""
        if isinstance(x, (int, np.integer)):
            n = int(x)
            if n < 0:
                raise ValueError("negative dimensions are not allowed")
            return self._record("random_permutation", (), (n,), _INT64,
                                {"n": n}, _float64_blocks(n))
        a = _c.ensure(x, self._session)
        if a.ndim == 0:
            raise np.exceptions.AxisError(
                "x must be an integer or at least 1-dimensional")
        ax = np.lib.array_utils.normalize_axis_index(axis, a.ndim)
        return self._record("random_permutation", (a,), a._shape, a._dtype,
                            {"axis": ax}, _float64_blocks(a._shape[ax]),
                            a._session)

    def shuffle(self, x: Any, axis: int = 0) -> None:
        """Shuffles x (an arrayd array) in place along ``axis`` (the
        server's random_shuffle)."""
        if not isinstance(x, ndarray):
            raise TypeError("shuffle: x must be an arrayd.ndarray")
        if x.ndim == 0:
            raise TypeError("len() of unsized object")
        ax = np.lib.array_utils.normalize_axis_index(axis, x.ndim)
        x._session.record("random_shuffle", (x._handle,), (),
                          {"axis": ax, "seed": self._seed,
                           "offset": self._offset})
        self._offset += _float64_blocks(x._shape[ax])

    def permuted(self, x: Any, axis: Any = None, out: Any = None) -> ndarray:
        """Each slice along ``axis`` permuted independently (a copy)."""
        a = _c.ensure(x, self._session)
        keys = self._draw("random_uniform", a._shape, _F64)
        if axis is None:
            order = _c.new(a._session, "argsort", (keys,), (a.size,), _INT64)
            r = _c.take(a.reshape(-1), order).reshape(a._shape)
        else:
            ax = np.lib.array_utils.normalize_axis_index(axis, a.ndim)
            order = _c.new(a._session, "argsort", (keys,), a._shape, _INT64,
                           {"axis": ax})
            r = _c.new(a._session, "take_along_axis", (a, order), a._shape,
                       a._dtype, {"axis": ax})
        return r if out is None else _c.assign(out, r, "permuted")

    def choice(self, a: Any, size: Any = None, replace: bool = True,
               p: Any = None, axis: int = 0, shuffle: bool = True) -> ndarray:
        """Random samples from a (an int n means range(n)), with or without
        replacement, optionally with probabilities p."""
        s = self._session or _connect.current()
        if isinstance(a, (int, np.integer)):
            pop = None
            n = int(a)
            if n < 0:
                raise ValueError("a must be a positive integer unless no "
                                 "samples are taken")
        else:
            pop = _c.ensure(a, s)
            if pop.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not "
                                 "a 0-d array")
            axis = np.lib.array_utils.normalize_axis_index(axis, pop.ndim)
            n = pop._shape[axis]
        shape = _shape(size)
        k = 1
        for d in shape:
            k *= d
        if n == 0 and k:
            raise ValueError("a cannot be empty unless no samples are taken")
        pv = None
        if p is not None:
            pv = np.asarray(_host_value(p), dtype=np.float64)
            if pv.ndim != 1:
                raise ValueError("p must be 1-dimensional")
            if pv.size != n:
                raise ValueError("a and p must have same size")
            if np.any(pv < 0):
                raise ValueError("probabilities are not non-negative")
            if abs(pv.sum() - 1.0) > np.sqrt(np.finfo(np.float64).eps):
                raise ValueError("probabilities do not sum to 1")
        if not replace:
            if k > n:
                raise ValueError("Cannot take a larger sample than "
                                 "population when replace is False")
            if pv is not None and np.count_nonzero(pv) < k:
                raise ValueError("Fewer non-zero entries in p than size")
        # The server's random_choice (ops/random.cc) draws and selects.
        attrs: dict[str, Any] = {"shape": list(shape)}
        if pop is None:
            attrs["n"] = n
        else:
            attrs["axis"] = axis
        if not replace:
            attrs["replace"] = False
        if pv is not None:
            attrs["p"] = np.ascontiguousarray(pv, dtype=np.float64).tobytes()
        blocks = (_float64_blocks(n) if not replace else
                  0 if n == 0 and pv is None else _float64_blocks(k))
        if pop is None:
            return self._record("random_choice", (), shape, _INT64, attrs,
                                blocks, s)
        oshape = pop._shape[:axis] + shape + pop._shape[axis + 1:]
        return self._record("random_choice", (pop,), oshape, pop._dtype,
                            attrs, blocks, pop._session)

    def bytes(self, length: int) -> bytes:
        v = self.integers(0, 256, length, dtype=np.uint8)
        return v.get().tobytes()
