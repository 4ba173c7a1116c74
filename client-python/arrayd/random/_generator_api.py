"""arrayd.random's Generator: numpy.random.Generator on a bit generator's
server stream (see _bit_generator for how streams and offsets work).

The server has uniform, normal, exponential, integer, Poisson (scalar
lam), permutation, shuffle and choice draws; every other law is composed
here of those and arrayd's ufuncs, the rejection and inversion methods in
_samplers. Parameters are checked as NumPy checks them (NumPy's
ValueError and message); an array parameter is checked on the server, one
sync each. Results have NumPy's dtypes: float64 for the continuous laws,
int64 for the discrete ones.

Layer: the random namespace's core, above the function modules it draws
with; _generator (RandomState) and the package sit on top of it.
"""
from __future__ import annotations

import math
import operator
import warnings
from typing import Any

import numpy as np

from arrayd import _composite as _c
from arrayd import _dtypes, _linalg, _sorting
from arrayd import _manipulation as _mp
from arrayd import _math as _m
from arrayd import _reduction as _r
from arrayd import _session as _sess
from arrayd._ndarray import ndarray
from arrayd.random import _samplers as _smp
from arrayd.random._bit_generator import BitGenerator, Philox4x3210, size_of

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_INT64 = np.dtype(np.int64)
_INT64_MAX = int(np.iinfo(np.int64).max)
# NumPy's bound on lam: int64's maximum less ten standard deviations.
_POISSON_LAM_MAX = _INT64_MAX - 10 * math.sqrt(_INT64_MAX)
_POISSON_OP_MAX = 1e8  # the server's random_poisson tabulates up to here
_BINOMIAL_TABLE_MAX = 4096  # host CDF tables of scalar binomials
_HYPERGEOMETRIC_MAX = 10 ** 9  # NumPy's bound on ngood and nbad


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
    """A parameter as a host value for a host-side computation (dirichlet's
    and multivariate_normal's small vectors; arrays are fetched)."""
    return v.get() if isinstance(v, ndarray) else np.asarray(v)


class Generator:
    """numpy.random.Generator on the server: Generator(bit_generator) with
    a BitGenerator, or Generator(seed) (a Philox4x3210 of that seed)."""

    def __init__(self, bit_generator: Any = None,
                 session: _sess.Session | None = None) -> None:
        if not isinstance(bit_generator, BitGenerator):
            bit_generator = Philox4x3210(bit_generator, session)
        self._bit_generator = bit_generator

    def __repr__(self) -> str:
        return (f"Generator({type(self._bit_generator).__name__}) at "
                f"{id(self):#X}")

    @property
    def bit_generator(self) -> BitGenerator:
        """The stream drawn from (assignable, as CuPy's, to reseed)."""
        return self._bit_generator

    @bit_generator.setter
    def bit_generator(self, value: BitGenerator) -> None:
        if not isinstance(value, BitGenerator):
            raise TypeError("bit_generator must be a BitGenerator")
        self._bit_generator = value

    @property
    def _session(self) -> _sess.Session | None:
        return self._bit_generator._session

    # -- raw streams -----------------------------------------------------

    def _record(self, op: str, inputs: tuple[ndarray, ...],
                shape: tuple[int, ...], dtype: np.dtype,
                attrs: dict[str, Any], blocks: int,
                session: Any = None) -> ndarray:
        return self._bit_generator.record(op, inputs, shape, dtype, attrs,
                                          blocks, session)

    def _draw(self, op: str, shape: tuple[int, ...], dtype: np.dtype,
              session: Any = None) -> ndarray:
        per_block = 16 // dtype.itemsize  # values per Philox block
        return self._record(op, (), shape, dtype,
                            {"shape": list(shape), "dtype": dtype},
                            -(-size_of(shape) // per_block), session)

    def _f64(self, op: str, shape: tuple[int, ...]) -> ndarray:
        """The samplers' draw (_samplers.Draw): float64 of ``op``."""
        return self._draw(op, shape, _F64)

    # -- parameters ----------------------------------------------------------

    def _any(self, values: tuple[Any, ...], pred: Any) -> bool:
        """Whether pred(*values) holds anywhere; ``pred`` takes NumPy or
        arrayd arrays (with an arrayd value, evaluated on the server: one
        sync)."""
        if any(isinstance(v, ndarray) for v in values):
            s = next(v for v in values if isinstance(v, ndarray))._session
            args = [_c.ensure(v, s).astype(_F64, copy=False) for v in values]
            return bool(_r.any(pred(*args)))
        return bool(np.any(pred(*(np.asarray(v, dtype=np.float64)
                                  for v in values))))

    def _check(self, value: Any, bad: Any, message: str) -> None:
        """ValueError(message) when bad(value) holds anywhere (None is
        NumPy's TypeError)."""
        if value is None:
            raise TypeError("must be real number, not NoneType")
        if self._any((value,), bad):
            if not _is_scalar(value) and message.endswith(" is NaN"):
                message = message[:-len(" is NaN")] + " contains NaNs"
            raise ValueError(message)

    def _params(self, size: Any, *params: Any, ints: tuple[int, ...] = ()
                ) -> tuple[tuple[int, ...], list[Any]]:
        """Output shape (size, or the parameters' broadcast shape) and the
        parameters as Python floats or float64 arrayd arrays. The params
        numbered in ``ints`` are counts, as NumPy's int64 parameters: a
        scalar truncated, an array of a dtype that casts safely to int64."""
        shapes = []
        vals = []
        for i, p in enumerate(params):
            if p is None:
                raise TypeError("must be real number, not NoneType")
            if _is_scalar(p):
                vals.append(float(math.trunc(p)) if i in ints else float(p))
                continue
            a = _c.ensure(p, self._session)
            if a._dtype.kind not in "fiub":
                raise TypeError("parameters must be real numbers")
            if i in ints and not np.can_cast(a._dtype, _INT64, "safe"):
                raise TypeError(f"Cannot cast array data from {a._dtype!r} "
                                f"to dtype('int64') according to the rule "
                                f"'safe'")
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

    def _arrays(self, vals: list[Any]) -> list[ndarray]:
        """The samplers' parameters: floats as 0-d float64 arrays."""
        arrays = [v for v in vals if isinstance(v, ndarray)]
        s = arrays[0]._session if arrays else self._bit_generator.session()
        return [v if isinstance(v, ndarray) else _c.const(s, v, _F64)
                for v in vals]

    def _scaled(self, op: str, shape: tuple[int, ...], names: tuple[str, str],
                params: list[Any], dtype: np.dtype = _F64) -> ndarray:
        """Records the server's ``op`` drawing with parameters ``names``
        (ops/random.cc): float attributes when all are scalars, else array
        inputs (a scalar as a 0-d float64 array)."""
        arrays = [p for p in params if isinstance(p, ndarray)]
        s = arrays[0]._session if arrays else self._bit_generator.session()
        attrs: dict[str, Any] = {"shape": list(shape), "dtype": dtype}
        inputs: tuple[ndarray, ...] = ()
        if arrays:
            inputs = tuple(p if isinstance(p, ndarray) else _c.const(s, p, _F64)
                           for p in params)
        else:
            attrs.update(zip(names, params))
        per_block = 16 // dtype.itemsize  # values per Philox block
        return self._record(op, inputs, shape, dtype, attrs,
                            -(-size_of(shape) // per_block), s)

    # -- floats ----------------------------------------------------------

    @staticmethod
    def _out_shape(size: Any, out: Any, dt: np.dtype) -> tuple[int, ...]:
        """The draw's shape: size, or out's (NumPy's checks of out=: an
        arrayd array of the draw's dtype, C-contiguous, size matching)."""
        if out is None:
            return _shape(size)
        if not isinstance(out, ndarray):
            raise TypeError("out must be an arrayd.ndarray")
        if size is not None and _shape(size) != out._shape:
            raise ValueError("size must match out.shape when used together")
        if out._dtype != dt:
            raise TypeError(f"Supplied output array has the wrong type. "
                            f"Expected {dt}, got {out._dtype}")
        if not (out.flags.c_contiguous and out.flags.writeable):
            raise ValueError("Supplied output array must be contiguous, "
                             "writable, aligned, and in machine byte-order.")
        return out._shape

    def _draw_out(self, op: str, size: Any, dtype: Any, out: Any,
                  name: str) -> ndarray:
        dt = _float_dtype(dtype, name)
        r = self._draw(op, self._out_shape(size, out, dt), dt)
        return r if out is None else _c.assign(out, r, name)

    def random(self, size: Any = None, dtype: Any = np.float64,
               out: Any = None) -> ndarray:
        """Uniform floats in [0, 1)."""
        return self._draw_out("random_uniform", size, dtype, out, "random")

    def standard_normal(self, size: Any = None, dtype: Any = np.float64,
                        out: Any = None) -> ndarray:
        """Standard normal floats."""
        return self._draw_out("random_normal", size, dtype, out,
                              "standard_normal")

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
        # d - d is 0 exactly where d is finite (inf - inf and NaN are NaN).
        if self._any((high, low), lambda h, lo: (h - lo) - (h - lo) != 0):
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
                                _float64_blocks(size_of(shape)),
                                scale._session)
        return self._record("random_exponential", (), shape, _F64,
                            {"shape": list(shape), "dtype": _F64,
                             "scale": scale},
                            _float64_blocks(size_of(shape)))

    def standard_exponential(self, size: Any = None, dtype: Any = np.float64,
                             method: str = "zig", out: Any = None) -> ndarray:
        """-log(1 - U) (the server's random_exponential; ``method`` 'zig'
        or 'inv' names NumPy's algorithm, the law is the same)."""
        if method not in ("zig", "inv"):
            raise ValueError("method must be either 'zig' or 'inv'")
        return self._draw_out("random_exponential", size, dtype, out,
                              "standard_exponential")

    # -- closed-form distributions (inverse CDF or a transform of normals) --

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
        self._check_order(left, mode, right)
        u, (left, mode, right) = self._uniform(size, left, mode, right)
        width = _m.subtract(right, left)
        below = _m.sqrt(_m.multiply(u, _m.multiply(width, _m.subtract(mode, left))))
        above = _m.sqrt(_m.multiply(_m.subtract(1.0, u),
                                    _m.multiply(width, _m.subtract(right, mode))))
        cut = _m.true_divide(_m.subtract(mode, left), width)
        return _mp.where(_m.less(u, cut), _m.add(left, below),
                         _m.subtract(right, above))

    def _check_order(self, left: Any, mode: Any, right: Any) -> None:
        """triangular's checks (NumPy's order and messages)."""
        if self._any((left, mode), lambda a, b: a > b):
            raise ValueError("left > mode")
        if self._any((mode, right), lambda a, b: a > b):
            raise ValueError("mode > right")
        if self._any((left, right), lambda a, b: a == b):
            raise ValueError("left == right")

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

    def vonmises(self, mu: Any, kappa: Any, size: Any = None) -> ndarray:
        """von Mises(mu, kappa) angles in [-pi, pi) (Best and Fisher's
        rejection method; _samplers.vonmises)."""
        self._check(kappa, lambda v: v < 0, "kappa < 0")
        shape, vals = self._params(size, mu, kappa)
        extremes = self._any((vals[1],), lambda k: (k < _smp.VM_UNIFORM_BELOW)
                             | (k > _smp.VM_NORMAL_ABOVE))
        mu_a, kappa_a = self._arrays(vals)
        return _smp.vonmises(self._f64, mu_a, kappa_a, shape, extremes)

    def multivariate_normal(self, mean: Any, cov: Any, size: Any = None,
                            check_valid: str = "warn", tol: float = 1e-8, *,
                            method: str = "svd") -> ndarray:
        """Multivariate normal: mean + Z @ A with A A^T = cov, A factored
        on the host as NumPy does (method svd, eigh or cholesky)."""
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

    def _standard_gamma(self, shape: tuple[int, ...], alpha: Any) -> ndarray:
        """Standard Gamma(alpha) as float64 (Marsaglia and Tsang for alpha
        >= 1; alpha < 1 by Gamma(alpha + 1) * U ** (1 / alpha), 0 where
        alpha == 0)."""
        if _is_scalar(alpha):
            if alpha == 0:
                return _m.multiply(self._draw("random_uniform", shape, _F64),
                                   0.0)
            (a1,) = self._arrays([alpha + 1.0 if alpha < 1 else alpha])
            g = _smp.gamma_ge1(self._f64, a1, shape)
            if alpha >= 1:
                return g
            u = self._draw("random_uniform", shape, _F64)
            return _m.multiply(g, _m.power(u, 1.0 / alpha))
        small = _m.less(alpha, 1.0)
        g = _smp.gamma_ge1(self._f64, _mp.where(small, _m.add(alpha, 1.0),
                                                alpha), shape)
        u = self._draw("random_uniform", shape, _F64)
        boost = _m.power(u, _m.true_divide(1.0, alpha))  # alpha == 0: u ** inf = 0
        return _mp.where(small, _m.multiply(g, boost), g)

    def standard_gamma(self, shape: Any, size: Any = None,
                       dtype: Any = np.float64, out: Any = None) -> ndarray:
        """Standard Gamma(shape) floats (Marsaglia and Tsang's method)."""
        dt = _float_dtype(dtype, "standard_gamma")
        self._check(shape, lambda v: v < 0, "shape < 0")
        oshape, (alpha,) = self._params(
            size if out is None else self._out_shape(size, out, dt), shape)
        r = self._standard_gamma(oshape, alpha)
        r = r if dt == _F64 else r.astype(dt)
        return r if out is None else _c.assign(out, r, "standard_gamma")

    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None) -> ndarray:
        """Gamma(shape, scale) floats."""
        self._check(shape, lambda v: v < 0, "shape < 0")
        self._check(scale, lambda v: v < 0, "scale < 0")
        oshape, (alpha, scale) = self._params(size, shape, scale)
        return _m.multiply(self._standard_gamma(oshape, alpha), scale)

    def _chisquare(self, shape: tuple[int, ...], df: Any) -> ndarray:
        half = df / 2.0 if _is_scalar(df) else _m.multiply(df, 0.5)
        return _m.multiply(self._standard_gamma(shape, half), 2.0)

    def chisquare(self, df: Any, size: Any = None) -> ndarray:
        """Chi-square(df) = 2 Gamma(df / 2)."""
        self._check(df, lambda v: v <= 0, "df <= 0")
        oshape, (df,) = self._params(size, df)
        return self._chisquare(oshape, df)

    def standard_t(self, df: Any, size: Any = None) -> ndarray:
        """Student's t(df) = Z / sqrt(Chi-square(df) / df)."""
        self._check(df, lambda v: v <= 0, "df <= 0")
        oshape, (dfv,) = self._params(size, df)
        z = self._draw("random_normal", oshape, _F64)
        chi = self._chisquare(oshape, dfv)
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
        num = _m.true_divide(self._chisquare(oshape, dn), dn)
        den = _m.true_divide(self._chisquare(oshape, dd), dd)
        return _m.true_divide(num, den)

    def _noncentral_chisquare(self, shape: tuple[int, ...], df: Any,
                              nonc: Any) -> ndarray:
        """Chi2(df - 1) + (Z + sqrt(nonc))**2 where df > 1, else the Poisson
        mixture Chi2(df + 2 N), N ~ Poisson(nonc / 2) (valid for any df)."""
        if _is_scalar(df) and df > 1:
            z = self._draw("random_normal", shape, _F64)
            root = math.sqrt(nonc) if _is_scalar(nonc) else _m.sqrt(nonc)
            shifted = _m.add(z, root)
            return _m.add(self._chisquare(shape, df - 1.0),
                          _m.multiply(shifted, shifted))
        half = nonc / 2.0 if _is_scalar(nonc) else _m.multiply(nonc, 0.5)
        n = self._poisson(shape, half)
        return self._chisquare(shape, _m.add(_m.multiply(n, 2.0), df))

    def noncentral_chisquare(self, df: Any, nonc: Any,
                             size: Any = None) -> ndarray:
        """Noncentral chi-square(df, nonc) floats."""
        self._check(df, lambda v: v <= 0, "df <= 0")
        self._check(nonc, lambda v: v < 0, "nonc < 0")
        oshape, (df, nonc) = self._params(size, df, nonc)
        return self._noncentral_chisquare(oshape, df, nonc)

    def noncentral_f(self, dfnum: Any, dfden: Any, nonc: Any,
                     size: Any = None) -> ndarray:
        """Noncentral F: (NC-Chi2(dfnum, nonc) / dfnum) / (Chi2(dfden) /
        dfden)."""
        self._check(dfnum, lambda v: v <= 0, "dfnum <= 0")
        self._check(dfden, lambda v: v <= 0, "dfden <= 0")
        self._check(nonc, lambda v: v < 0, "nonc < 0")
        oshape, (dn, dd, nonc) = self._params(size, dfnum, dfden, nonc)
        num = _m.multiply(self._noncentral_chisquare(oshape, dn, nonc), dd)
        return _m.true_divide(num, _m.multiply(self._chisquare(oshape, dd),
                                               dn))

    def dirichlet(self, alpha: Any, size: Any = None) -> ndarray:
        """Dirichlet(alpha): Gamma(alpha_i) draws normalized to sum 1."""
        av = np.asarray(_host_value(alpha), dtype=np.float64)
        if av.ndim == 0:
            raise TypeError("len() of unsized object")
        if av.ndim != 1:
            raise ValueError("setting an array element with a sequence. The "
                             "requested array would exceed the maximum "
                             "number of dimension of 1.")
        if np.any(av < 0) or np.any(np.isnan(av)):
            raise ValueError("alpha < 0")
        shape = (() if size is None else _shape(size)) + av.shape
        a = _c.upload(self._bit_generator.session(), av)
        g = self._standard_gamma(shape, _mp.broadcast_to(a, shape))
        return _m.true_divide(g, _r.sum(g, axis=-1, keepdims=True))

    # -- integers ----------------------------------------------------------

    def integers(self, low: Any, high: Any = None, size: Any = None,
                 dtype: Any = np.int64, endpoint: bool = False) -> ndarray:
        """Uniform integers in [low, high) ([low, high] with endpoint);
        array bounds broadcast with size."""
        dt = _dtypes.normalize(dtype)
        if dt.kind not in "biu":
            raise TypeError(f"Unsupported dtype {dt!r} for integers")
        if high is None:
            low, high = 0, low
        if not (_is_scalar(low) and _is_scalar(high)):
            return self._integers_array(low, high, size, dt, endpoint)
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
            if low == 0:  # NumPy's message for a range from 0
                raise ValueError("high < 0" if endpoint else "high <= 0")
            raise ValueError("low > high" if endpoint else "low >= high")
        shape = _shape(size)
        # The inclusive high: 2**64 - 1 fits the attribute, 2**64 would not.
        attrs = {"shape": list(shape), "dtype": dt, "endpoint": True,
                 "low": _int_attr(low), "high": _int_attr(hi_incl)}
        draws = 1 if hi_incl - low < (1 << 53) else 2  # the server's rule
        return self._record("random_integers", (), shape, dt, attrs,
                            draws * _float64_blocks(size_of(shape)))

    def _integers_array(self, low: Any, high: Any, size: Any, dt: np.dtype,
                        endpoint: bool) -> ndarray:
        """integers with array bounds: low + floor(U * (high - low)) in
        int64, NumPy's checks on the server (one sync); ranges below
        2**53, as the server's one-draw rule."""
        s = self._bit_generator.session()
        lo = _c.ensure(low, s)
        hi = _c.ensure(high, s)
        for a in (lo, hi):
            if a._dtype.kind not in "biuf":
                raise TypeError("low and high must be real numbers")
        lo = _m.trunc(lo).astype(_INT64) if lo._dtype.kind == "f" else \
            lo.astype(_INT64)
        hi = _m.trunc(hi).astype(_INT64) if hi._dtype.kind == "f" else \
            hi.astype(_INT64)
        hi_incl = hi if endpoint else _m.subtract(hi, 1)
        bshape = np.broadcast_shapes(lo._shape, hi._shape)
        shape = bshape if size is None else _shape(size)
        if np.broadcast_shapes(bshape, shape) != shape:
            raise ValueError(f"shape mismatch: objects cannot be broadcast "
                             f"to a single shape {bshape} vs {shape}")
        info = np.iinfo(dt) if dt.kind != "b" else None
        lo_b, hi_b = (0, 1) if info is None else (int(info.min),
                                                  int(info.max))
        span = _m.subtract(hi_incl, lo)
        flags = _mp.stack([_r.any(_m.less(lo, max(lo_b, -(1 << 63)))),
                           _r.any(_m.greater(hi_incl, min(hi_b, _INT64_MAX))),
                           _r.any(_m.less(span, 0)),
                           _r.any(_m.greater_equal(span, 1 << 53))]).get()
        if flags[0]:
            raise ValueError(f"low is out of bounds for {dt}")
        if flags[1]:
            raise ValueError(f"high is out of bounds for {dt}")
        if flags[2]:
            raise ValueError("low > high" if endpoint else "low >= high")
        if flags[3]:
            raise NotImplementedError("integers: array bounds with a range "
                                      "of 2**53 values or more")
        u = self._draw("random_uniform", shape, _F64)
        count = _m.add(span, 1).astype(_F64)
        offset = _m.floor(_m.multiply(u, count)).astype(_INT64)
        return _m.add(lo, offset).astype(dt)

    def _poisson(self, shape: tuple[int, ...], lam: Any) -> ndarray:
        """Poisson(lam) as float64: the server's random_poisson for a
        scalar lam it tabulates, else _samplers.poisson."""
        if _is_scalar(lam) and lam <= _POISSON_OP_MAX:
            r = self._record("random_poisson", (), shape, _INT64,
                             {"shape": list(shape), "lam": float(lam)},
                             _float64_blocks(size_of(shape)))
            return r.astype(_F64)
        (lam_a,) = self._arrays([lam])
        return _smp.poisson(self._f64, lam_a, shape)

    def poisson(self, lam: Any = 1.0, size: Any = None) -> ndarray:
        """Poisson(lam) integers (int64)."""
        self._check(lam, lambda v: ~(v >= 0), "lam < 0 or lam is NaN")
        self._check(lam, lambda v: v > _POISSON_LAM_MAX, "lam value too large")
        shape, (lam,) = self._params(size, lam)
        if _is_scalar(lam) and lam <= _POISSON_OP_MAX:
            return self._record("random_poisson", (), shape, _INT64,
                                {"shape": list(shape), "lam": lam},
                                _float64_blocks(size_of(shape)))
        return self._poisson(shape, lam).astype(_INT64)

    def _binomial_table(self, n: int, p: float,
                        shape: tuple[int, ...]) -> ndarray | None:
        """Binomial(n, p) by a binary search of uniforms in the host's CDF
        (scalar n, p; None when the table would be long)."""
        sd = math.sqrt(n * p * (1 - p))
        k0 = int(max(0.0, math.floor(n * p - 40 * sd - 40)))
        k1 = int(min(float(n), math.ceil(n * p + 40 * sd + 40)))
        if k1 - k0 > _BINOMIAL_TABLE_MAX:
            return None
        u = self._draw("random_uniform", shape, _F64)
        s = u._session
        lg = math.lgamma
        logpmf = np.array([lg(n + 1) - lg(k + 1) - lg(n - k + 1)
                           + k * math.log(p) + (n - k) * math.log1p(-p)
                           for k in range(k0, k1 + 1)])
        cdf = np.cumsum(np.exp(logpmf))
        idx = _sorting.bsearch(_c.upload(s, cdf), u, True)
        return _m.add(_m.minimum(idx, k1 - k0), k0)

    def _binomial(self, shape: tuple[int, ...], n: Any, p: Any) -> ndarray:
        """Binomial(n, p) as int64 (n integral, checked)."""
        if _is_scalar(n) and _is_scalar(p):
            if n == 0 or p == 0 or p == 1:  # no randomness: a constant
                s = self._bit_generator.session()
                return _c.new(s, "full", (), shape, _INT64,
                              {"shape": list(shape), "dtype": _INT64,
                               "value": int(n) if p == 1 else 0})
            r = self._binomial_table(int(n), float(p), shape)
            if r is not None:
                return r
        n_a, p_a = self._arrays([n, p])
        return _smp.binomial(self._f64, n_a, p_a, shape).astype(_INT64)

    def binomial(self, n: Any, p: Any, size: Any = None) -> ndarray:
        """Binomial(n, p) integers (int64); n is truncated to an integer, as
        NumPy's int64 cast."""
        shape, (n, p) = self._params(size, n, p, ints=(0,))
        self._check(n, lambda v: v < 0, "n < 0")
        self._check(p, lambda v: ~((v >= 0) & (v <= 1)),
                    "p < 0, p > 1 or p is NaN")
        return self._binomial(shape, n, p)

    def negative_binomial(self, n: Any, p: Any, size: Any = None) -> ndarray:
        """Negative binomial(n, p) failures before the n-th success (int64):
        Poisson(Gamma(n, (1 - p) / p))."""
        self._check(n, lambda v: ~(v > 0), "n <= 0")
        self._check(p, lambda v: ~((v > 0) & (v <= 1)),
                    "p <= 0, p > 1 or p contains NaNs")
        return self._negative_binomial(n, p, size)

    def _negative_binomial(self, n: Any, p: Any, size: Any) -> ndarray:
        shape, (n, p) = self._params(size, n, p)
        odds = (1.0 - p) / p if _is_scalar(p) else _m.true_divide(
            _m.subtract(1.0, p), p)
        lam = _m.multiply(self._standard_gamma(shape, n), odds)
        return self._poisson(shape, lam).astype(_INT64)

    def hypergeometric(self, ngood: Any, nbad: Any, nsample: Any,
                       size: Any = None) -> ndarray:
        """Hypergeometric(ngood, nbad, nsample) integers (int64): good items
        in a sample of nsample without replacement (Stadlober's HRUA)."""
        return self._hypergeometric(ngood, nbad, nsample, size, 0)

    def _hypergeometric(self, ngood: Any, nbad: Any, nsample: Any,
                        size: Any, least: int) -> ndarray:
        """hypergeometric with nsample >= least (Generator 0, legacy 1);
        the counts truncated to integers first, as NumPy's int64 cast."""
        shape, vals = self._params(size, ngood, nbad, nsample, ints=(0, 1, 2))
        self._check(vals[0], lambda v: v < 0, "ngood < 0")
        self._check(vals[1], lambda v: v < 0, "nbad < 0")
        self._check(vals[2], lambda v: ~(v >= least),
                    "nsample < 0" if least == 0 else
                    "nsample < 1 or nsample is NaN")
        if self._any(tuple(vals), lambda g, b, n: g + b < n):
            raise ValueError("ngood + nbad < nsample")
        if self._any(tuple(vals[:2]), lambda g, b: (g >= _HYPERGEOMETRIC_MAX)
                     | (b >= _HYPERGEOMETRIC_MAX)):
            raise ValueError("both ngood and nbad must be less than "
                             "1000000000")
        good, bad, sample = self._arrays(vals)
        k = _smp.hypergeometric(self._f64, good, bad, sample, shape)
        return k.astype(_INT64)

    def logseries(self, p: Any, size: Any = None) -> ndarray:
        """Logarithmic series(p) integers (int64, >= 1; Kemp's method)."""
        self._check(p, lambda v: ~((v >= 0) & (v < 1)),
                    "p < 0, p >= 1 or p is NaN")
        shape, vals = self._params(size, p)
        (p_a,) = self._arrays(vals)
        return _smp.logseries(self._f64, p_a, shape).astype(_INT64)

    def zipf(self, a: Any, size: Any = None) -> ndarray:
        """Zipf(a) integers (int64, >= 1; Devroye's rejection method)."""
        self._check(a, lambda v: ~(v > 1), "a <= 1 or a is NaN")
        shape, vals = self._params(size, a)
        (a_a,) = self._arrays(vals)
        return _smp.zipf(self._f64, a_a, shape).astype(_INT64)

    def multinomial(self, n: Any, pvals: Any, size: Any = None) -> ndarray:
        """Multinomial(n, pvals) counts (int64) over pvals' last axis, n
        and pvals[..., 0] broadcast with size; the last category takes
        what the others leave."""
        s = self._bit_generator.session()
        self._params(None, n, ints=(0,))  # n's TypeError first, as NumPy's
        pv = _c.ensure(pvals, s)
        if pv.ndim == 0 or pv._shape[-1] == 0:
            raise ValueError("pvals must have at least 1 dimension and the "
                             "last dimension of pvals must be greater "
                             "than 0.")
        return self._multinomial(n, pv, size)

    def _multinomial(self, n: Any, pv: ndarray, size: Any) -> ndarray:
        shape, (nv,) = self._params(None, n, ints=(0,))
        self._check(nv, lambda v: v < 0, "n < 0")
        pv = pv.astype(_F64, copy=False)
        self._check(pv, lambda v: ~((v >= 0) & (v <= 1)),
                    "pvals < 0, pvals > 1 or pvals contains NaNs")
        k = pv._shape[-1]
        if k > 1:
            head = _r.sum(pv[..., :-1], axis=-1)
            self._check(head, lambda v: v > 1.0 + 1e-12,
                        "sum(pvals[:-1]) > 1.0")
        bshape = np.broadcast_shapes(shape, pv._shape[:-1])
        if size is not None:
            out = _shape(size)
            try:
                ok = np.broadcast_shapes(bshape, out) == out
            except ValueError:
                ok = False
            if not ok:
                raise ValueError(f"shape mismatch: objects cannot be "
                                 f"broadcast to a single shape {bshape} vs "
                                 f"{out}")
            bshape = out
        if _is_scalar(nv) and pv.ndim == 1 and k > 1:
            rows = math.prod(bshape)
            if nv * rows <= _smp.CATEGORICAL_MAX:
                return _smp.categorical_counts(
                    self._categorical(int(nv), pv, bshape), k, bshape)
        return self._conditional_binomials(nv, pv, bshape)

    def _categorical(self, n: int, pv: ndarray, shape: tuple[int, ...]
                     ) -> ndarray:
        """n category indices (int64) per value of shape, by the server's
        random_choice with probabilities (the last one what the others
        leave; pvals are a parameter, read as choice reads p)."""
        ph = pv.get()
        probs = np.append(ph[:-1], max(1.0 - float(ph[:-1].sum()), 0.0))
        probs /= probs.sum()
        draws = shape + (n,)
        return self._record("random_choice", (), draws, _INT64,
                            {"shape": list(draws), "n": ph.size,
                             "p": np.ascontiguousarray(probs).tobytes()},
                            _float64_blocks(size_of(draws)))

    def _conditional_binomials(self, n: Any, pv: ndarray,
                               shape: tuple[int, ...]) -> ndarray:
        """Counts category by category: X_j ~ Binomial(n - X_0 - ... -
        X_{j-1}, p_j / (1 - p_0 - ... - p_{j-1}))."""
        k = pv._shape[-1]
        left = n
        mass = _c.const(pv._session, 1.0, _F64)
        cols = []
        for j in range(k - 1):
            pj = _mp.broadcast_to(pv[..., j], shape)
            cond = _m.minimum(_m.maximum(_m.true_divide(
                pj, _m.maximum(mass, 1e-300)), 0.0), 1.0)
            (left_a,) = self._arrays([left])
            x = _smp.binomial(self._f64, _mp.broadcast_to(left_a, shape),
                              cond, shape)
            cols.append(x)
            left = _m.maximum(_m.subtract(left_a, x), 0.0)
            mass = _m.subtract(mass, pj)
        (left_a,) = self._arrays([left])
        cols.append(_mp.broadcast_to(left_a, shape))
        return _mp.stack(cols, axis=-1).astype(_INT64)

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
        seed, offset = self._bit_generator.take_blocks(
            _float64_blocks(x._shape[ax]))
        x._session.record("random_shuffle", (x._handle,), (),
                          {"axis": ax, "seed": seed, "offset": offset})

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
        s = self._bit_generator.session()
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
        k = math.prod(shape)
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
        """``length`` random bytes (drawn on the server, returned to the
        host: bytes are a host object)."""
        v = self.integers(0, 256, operator.index(length), dtype=np.uint8)
        return v.get().tobytes()
