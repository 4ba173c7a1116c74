"""User kernels written in CuPy's kernel language: ElementwiseKernel and
ReductionKernel (cupy.ElementwiseKernel, cupy.ReductionKernel), and
create_reduction_func (cupy._core's). Each call generates CUDA C++ for the
arguments' dtypes and dimensions and launches it through arrayd._kernel's
RawKernel: the server compiles it with NVRTC once (its cache is shared by
every client and kept on disk), and the launch is one op on the current
stream.

    add = ad.ElementwiseKernel('T x, T y', 'T z', 'z = x + y', 'add')
    z = add(x, 1)                       # broadcasting, scalars, out arrays
    l2 = ad.ReductionKernel('T x', 'T y', 'x * x', 'a + b',
                            'y = sqrt(a)', '0', 'l2norm')
    n = l2(x, axis=1, keepdims=True)

Construction needs no server (CuPy compiles lazily too); a call needs a
CUDA server started with --allow-user-kernels: otherwise the first call
raises the server's error (RuntimeError naming the flag; NotImplementedError
on the CPU backend).

The parameter language is CuPy's: ``T x`` (a type placeholder bound from
the arguments' dtypes), ``float32 x``, ``raw T x`` (the whole array, indexed
by the user: ``x[i]``, ``x.size()``, ``x.shape()``), ``_non_const``. Kernel
code sees CuPy's vocabulary: the loop index ``i``, the indexer ``_ind``
(``_ind.size()``, ``_ind.get()``), ``_raw_x`` (the CArray of a non-raw
``x``), ``float16``, ``complex<float>`` (thrust's API), ``CArray``,
``CIndexer``; reductions: ``a``/``b`` in reduce_expr, ``a`` in
post_map_expr, ``_type_reduce``, ``_in_ind``, ``_out_ind``, ``_J`` (the
index along the reduced axes), ``_i`` (the output's flat index). The
prelude that defines them is _userkernel.cuh; ``#include <cupy/...>`` lines
of a preamble are dropped, as the prelude stands for them.

Arrays travel as a device pointer and their shape and byte strides as
by-value int64 scalars; views (broadcasting, transposition for the reduced
axes) are made by changing those strides, so no array is copied. Axes that
are contiguous for every operand are merged first (reduce_dims): operands
that are all C-contiguous with the result's shape are one flat loop.

Layer: a function module (imports the core and _kernel).
"""
from __future__ import annotations

import functools
import math
import re
import warnings
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from arrayd import _dtypes
from arrayd._kernel import RawKernel
from arrayd._ndarray import ndarray, session_of

__all__ = ["ElementwiseKernel", "ReductionKernel", "create_reduction_func"]

# C type names of the dtypes (CuPy's; complex is thrust's API, from the
# prelude).
_TYPENAMES: dict[np.dtype, str] = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "signed char",
    np.dtype(np.int16): "short",
    np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.uint16): "unsigned short",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float16): "float16",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.complex64): "complex<float>",
    np.dtype(np.complex128): "complex<double>",
}
_INDEX_LIMIT = 2 ** 31  # below it, index arithmetic is 32-bit (faster)
_MAX_GRID = 2 ** 31 - 1
_REDUCE_BLOCK = 512  # threads of a reduction block (CuPy's default)
_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")
# The preamble's includes of CuPy's headers; the prelude stands for them.
_CUPY_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"]cupy/[A-Za-z_0-9/]+\.(?:cuh|h)[">][ \t]*$',
    re.M)


@functools.lru_cache(maxsize=None)
def prelude() -> str:
    """The CUDA C++ every generated kernel starts with (_userkernel.cuh)."""
    return Path(__file__).with_name("_userkernel.cuh").read_text()


def typename(dtype: Any) -> str:
    """The C++ type of a dtype in generated kernels ("float", "complex<double>")."""
    return _TYPENAMES[np.dtype(dtype)]


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not _VALID_NAME.match(name):
        raise ValueError(f'Invalid kernel name: "{name}"')


def _strip_cupy_includes(code: str) -> str:
    return _CUPY_INCLUDE.sub("// (the arrayd prelude provides this header)",
                             code)


# -- the parameter language ------------------------------------------------

class ParameterInfo:
    """One parameter of ``'raw T x, int32 n'``: its name, its dtype (a
    fixed type) or placeholder ``ctype`` (``T``), ``raw`` and ``is_const``
    (inputs are const unless ``_non_const``)."""

    __slots__ = ("name", "dtype", "ctype", "raw", "is_const")

    def __init__(self, text: str, is_const: bool):
        words = text.split()
        if len(words) < 2:
            raise ValueError(f"Syntax error: {text}")
        t, self.name = words[-2], words[-1]
        self.dtype: np.dtype | None = None
        self.ctype: str | None = None
        self.raw = False
        self.is_const = is_const
        if t == "CIndexer":
            pass
        elif len(t) == 1:
            self.ctype = t
        else:
            try:
                dt = np.dtype(t)
            except TypeError:
                raise ValueError(f"Wrong type {t}") from None
            if dt.name != t:
                raise ValueError(f"Wrong type {t}")
            self.dtype = _dtypes.normalize(dt)
            self.ctype = typename(dt)
        for word in words[:-2]:
            if word == "raw":
                self.raw = True
            elif word == "_non_const":
                self.is_const = False
            else:
                raise ValueError(f'Unknown keyword "{word}"')

    def _key(self) -> tuple[Any, ...]:
        return (self.name, self.dtype, self.ctype, self.raw, self.is_const)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ParameterInfo) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"<ParameterInfo name={self.name!r} dtype={self.dtype!r} "
                f"ctype={self.ctype!r} raw={self.raw} "
                f"is_const={self.is_const}>")


@functools.lru_cache(maxsize=1024)
def parse_params(text: str, is_const: bool) -> tuple[ParameterInfo, ...]:
    """The parameters of a comma-separated list (CuPy's syntax)."""
    text = text.strip()
    if not text:
        return ()
    return tuple(ParameterInfo(p, is_const) for p in text.split(","))


def decide_params_type(in_params: Sequence[ParameterInfo],
                       out_params: Sequence[ParameterInfo],
                       in_dtypes: Sequence[np.dtype | None],
                       out_dtypes: Sequence[np.dtype | None]
                       ) -> tuple[tuple[np.dtype, ...], tuple[np.dtype, ...],
                                  tuple[tuple[str, np.dtype], ...]]:
    """CuPy's type resolution: each placeholder takes the dtype of the first
    array bound to it, outputs first (scalars bind nothing: they take their
    parameter's type); a fixed type must match its array exactly.

    Returns (input dtypes, output dtypes, sorted (placeholder, dtype)
    pairs); TypeError for mismatched or undetermined types."""
    bound: dict[str, np.dtype] = {}
    for p, a in zip(out_params, out_dtypes):
        if a is None:
            raise TypeError("Output arguments must be cupy.ndarray")
        _bind(p, a, bound)
    for p, a in zip(in_params, in_dtypes):
        if a is not None:
            _bind(p, a, bound)

    def resolved(p: ParameterInfo) -> np.dtype:
        if p.dtype is not None:
            return p.dtype
        try:
            return bound[p.ctype]  # type: ignore[index]
        except KeyError:
            raise TypeError(
                f"the type {p.ctype} of parameter '{p.name}' is not decided "
                "by the arguments (no array argument is bound to it)") \
                from None

    return (tuple(resolved(p) for p in in_params),
            tuple(resolved(p) for p in out_params),
            tuple(sorted(bound.items())))


def _bind(p: ParameterInfo, a: np.dtype, bound: dict[str, np.dtype]) -> None:
    if p.dtype is not None:
        if a != p.dtype:
            raise TypeError(f"Type is mismatched. {p.name} {a.type} "
                            f"{p.dtype.type}")
    elif p.ctype in bound:
        if bound[p.ctype] != a:
            raise TypeError(f"Type is mismatched. {p.name} {a.type} "
                            f"{bound[p.ctype].type} {p.ctype}")
    else:
        bound[p.ctype] = a  # type: ignore[index]


def _resolve_types(kernel: Any, in_args: Sequence[Any], out_args: Sequence[Any]
                   ) -> tuple[tuple[np.dtype, ...], tuple[np.dtype, ...],
                              tuple[tuple[str, np.dtype], ...]]:
    """decide_params_type for a kernel's arguments, memoized per kernel."""
    key = (tuple(a._dtype if isinstance(a, ndarray) else None for a in in_args),
           tuple(a._dtype if isinstance(a, ndarray) else None for a in out_args))
    r = kernel._types.get(key)
    if r is None:
        r = kernel._types[key] = decide_params_type(
            kernel.in_params, kernel.out_params, key[0], key[1])
    return r


def typedefs(type_map: Sequence[tuple[str, np.dtype]]) -> str:
    return "".join(f"typedef {typename(dt)} {name};\n"
                   for name, dt in type_map)


# -- arguments --------------------------------------------------------------

class _Scalar:
    """A Python or NumPy scalar argument, converted to its parameter's dtype
    when the kernel's types are known."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def as_dtype(self, dtype: np.dtype) -> np.generic:
        """The value as ``dtype``, as NumPy assigns it into an array of
        that dtype (Python ints out of range raise OverflowError; NumPy
        scalars cast)."""
        box = np.empty((), dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            box[()] = self.value
        return box[()]


def _preprocess(arg: Any, what: str = "") -> Any:
    """An argument as an arrayd array or a _Scalar (TypeError otherwise)."""
    if isinstance(arg, ndarray):
        return arg
    get = getattr(arg, "__cupy_get_ndarray__", None)
    if get is not None:
        a = get()
        if isinstance(a, ndarray):
            return a
    if isinstance(arg, (bool, int, float, complex)) or (
            isinstance(arg, np.generic) and arg.dtype in _TYPENAMES):
        return _Scalar(arg)
    if what:
        raise TypeError(f"{what} has incorrect type (expected "
                        f"arrayd.ndarray, got {type(arg).__name__})")
    raise TypeError(f"Unsupported type {type(arg)}")


def _broadcast_shape(args: Sequence[Any], params: Sequence[ParameterInfo],
                     use_size: bool) -> tuple[int, ...]:
    """The broadcast shape of the non-raw arrays, with CuPy's errors about
    ``size=``."""
    shapes = [a._shape for a, p in zip(args, params)
              if not p.raw and isinstance(a, ndarray)]
    if use_size:
        if shapes:
            raise ValueError("Specified 'size' can be used only if all of "
                             "the ndarray are 'raw'.")
        return ()
    if not shapes:
        raise ValueError("Loop size is undecided.")
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError("operands could not be broadcast together with "
                         "shapes " + " ".join(map(str, shapes))) from None


def _broadcast_strides(a: ndarray, shape: tuple[int, ...]) -> list[int]:
    """a's byte strides seen with ``shape`` (broadcast axes: 0)."""
    lead = len(shape) - a.ndim
    st = a._full_strides()
    return [0 if i < lead or a._shape[i - lead] != shape[i] else st[i - lead]
            for i in range(len(shape))]


def _reduce_dims(shape: Sequence[int], strides: list[list[int]]
                 ) -> tuple[tuple[int, ...], list[list[int]]]:
    """Drops length-1 axes and merges each axis into the next inner one
    when every operand steps over both as over one axis; the same elements
    in the same C order, with fewer index computations."""
    axes = [d for d, n in enumerate(shape) if n != 1]
    if not axes:
        return (), [[] for _ in strides]
    new_shape = [shape[axes[0]]]
    new_strides = [[st[axes[0]]] for st in strides]
    for d in axes[1:]:
        if all(ns[-1] == st[d] * shape[d] for ns, st in zip(new_strides, strides)):
            new_shape[-1] *= shape[d]
            for ns, st in zip(new_strides, strides):
                ns[-1] = st[d]
        else:
            new_shape.append(shape[d])
            for ns, st in zip(new_strides, strides):
                ns.append(st[d])
    return tuple(new_shape), new_strides


def _is_c(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> bool:
    step = itemsize
    for n, st in zip(reversed(shape), reversed(strides)):
        if n != 1 and st != step:
            return False
        step *= n
    return True


def _fits_32(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether every byte offset of the view fits 32-bit indexing."""
    return sum(abs(st) * (n - 1) for n, st in zip(shape, strides)) < _INDEX_LIMIT


class _ArrayArg:
    """An array parameter of one launch: the array, the shape and strides
    the kernel sees, and the C type of its view."""

    __slots__ = ("array", "shape", "strides", "c", "i32")

    def __init__(self, array: ndarray, shape: Sequence[int],
                 strides: Sequence[int]):
        self.array = array
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.c = _is_c(shape, strides, array.dtype.itemsize)
        self.i32 = _fits_32(shape, strides)

    def info(self) -> tuple[Any, ...]:
        return ("a", self.array.dtype.char, len(self.shape), self.c, self.i32)


def _new_array(s: Any, shape: tuple[int, ...], dtype: np.dtype) -> ndarray:
    h = s.new_handle()
    s.record("empty", (), (h,), {"shape": list(shape), "dtype": dtype})
    return ndarray._new(s, h, shape, dtype)


def _out_args(out_args: list[Any], out_types: Sequence[np.dtype],
              shape: tuple[int, ...], out_params: Sequence[ParameterInfo],
              size_given: bool, session: Any) -> list[ndarray]:
    """The output arrays: given (checked) or new ones of ``shape``."""
    if not out_args:
        for p in out_params:
            if p.raw and not size_given:
                raise ValueError("Output array size is Undecided")
        return [_new_array(session, shape, t) for t in out_types]
    for p, a in zip(out_params, out_args):
        if not isinstance(a, ndarray):
            raise TypeError("Output arguments type must be cupy.ndarray")
        if not p.raw and a._shape != shape:
            raise ValueError("Out shape is mismatched")
    return out_args


# -- code generation -----------------------------------------------------

class _Codegen:
    """Kernel parameters, the views built from them in the kernel, and the
    launch arguments, in the same order. With ``emit`` False only the
    arguments are collected (a call whose kernel is cached)."""

    def __init__(self, emit: bool) -> None:
        self.emit = emit
        self.params: list[str] = []
        self.setup: list[str] = []
        self.args: list[Any] = []

    def indexer(self, name: str, shape: tuple[int, ...]) -> None:
        self.args += shape
        if not self.emit:
            return
        nd = len(shape)
        if nd == 0:
            self.setup.append(f"CIndexer<0> {name};")
            return
        i32 = math.prod(shape) < _INDEX_LIMIT
        self.params += [f"long long {name}_sh{d}" for d in range(nd)]
        self.setup.append(
            f"const ptrdiff_t {name}_shape[{nd}] = {{"
            + ", ".join(f"{name}_sh{d}" for d in range(nd)) + "};")
        self.setup.append(f"CIndexer<{nd}, {_b(i32)}> {name}({name}_shape);")

    def array(self, k: int, p: ParameterInfo, a: _ArrayArg,
              indexer: str | None) -> None:
        """Array parameter k: a non-raw one (``indexer`` names the index
        space whose shape it has) as ``_raw_<name>``, a raw one as
        ``<name>``."""
        nd = len(a.shape)
        self.args.append(a.array)
        if nd and indexer is None:
            self.args += a.shape
        if nd:
            self.args += a.strides
        if not self.emit:
            return
        t = typename(a.array.dtype)
        const = "const " if p.is_const else ""
        ptr = f"_p{k}"
        self.params.append(f"{const}{t}* {ptr}")
        data = f"const_cast<{t}*>({ptr})" if p.is_const else ptr
        var = p.name if p.raw else f"_raw_{p.name}"
        view = f"{const}CArray<{t}, {nd}, {_b(a.c)}, {_b(a.i32)}> {var}"
        if nd == 0:
            self.setup.append(f"{view}({data});")
            return
        if indexer is None:
            self.params += [f"long long {ptr}_sh{d}" for d in range(nd)]
            self.setup.append(
                f"const ptrdiff_t {ptr}_shape[{nd}] = {{"
                + ", ".join(f"{ptr}_sh{d}" for d in range(nd)) + "};")
            shape = f"{ptr}_shape"
        else:
            shape = f"{indexer}_shape"
        self.params += [f"long long {ptr}_st{d}" for d in range(nd)]
        self.setup.append(
            f"const ptrdiff_t {ptr}_strides[{nd}] = {{"
            + ", ".join(f"{ptr}_st{d}" for d in range(nd)) + "};")
        self.setup.append(f"{view}({data}, {shape}, {ptr}_strides);")

    def scalar(self, p: ParameterInfo, value: np.generic) -> None:
        self.args.append(value)
        if self.emit:
            const = "const " if p.is_const else ""
            self.params.append(f"{const}{typename(value.dtype)} {p.name}")


def _b(flag: bool) -> str:
    return "true" if flag else "false"


def _refs(params: Sequence[ParameterInfo], args: Sequence[Any],
          indexer: str, const_value: bool = False, indent: int = 4) -> str:
    """The loop's references ``const T &x = _raw_x[_ind.get()];`` of the
    non-raw array parameters (``const T x = ...`` copies with
    const_value)."""
    lines = []
    for p, a in zip(params, args):
        if isinstance(a, _ArrayArg) and not p.raw:
            if p.is_const:
                ref = f"const {p.ctype} " if const_value else f"const {p.ctype} &"
            else:
                ref = f"{p.ctype} &"
            lines.append(f"{ref}{p.name} = _raw_{p.name}[{indexer}.get()];")
    return ("\n" + " " * indent).join(lines)


def _launch(kernel: RawKernel, size: int, block: int, args: list[Any],
            stream: Any, shared_mem: int = 0) -> None:
    block = max(1, min(block, size))
    grid = min((size + block - 1) // block, _MAX_GRID)
    if stream is not None:
        with stream:
            kernel((grid,), (block,), args, shared_mem=shared_mem)
    else:
        kernel((grid,), (block,), args, shared_mem=shared_mem)


def _dtype_chars(args: Sequence[Any]) -> tuple[str, ...]:
    return tuple(a.array.dtype.char for a in args if isinstance(a, _ArrayArg))


# -- ElementwiseKernel ------------------------------------------------------

class ElementwiseKernel:
    """A user-defined elementwise kernel (cupy.ElementwiseKernel).

    ``in_params``/``out_params`` declare the parameters, ``operation`` is
    the loop body in CUDA C++ for element ``i``; non-raw arrays broadcast
    together, outputs are allocated unless passed after the inputs.
    Compiled at the first call for each combination of dtypes and
    dimensions. ``kernel(*args, size=None, block_size=128, stream=None)``.
    """

    def __init__(self, in_params: str, out_params: str, operation: str,
                 name: str = "kernel", reduce_dims: bool = True,
                 preamble: str = "", no_return: bool = False,
                 return_tuple: bool = False, *, loop_prep: str = "",
                 after_loop: str = "", options: Sequence[str] = ()):
        _check_name(name)
        self.in_params = parse_params(in_params, True)
        self.out_params = parse_params(out_params, False)
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        self.params = self.in_params + self.out_params
        self.operation = operation
        self.name = self.__name__ = name
        self.reduce_dims = reduce_dims
        self.preamble = preamble
        self.no_return = no_return
        self.return_tuple = return_tuple
        self.loop_prep = loop_prep
        self.after_loop = after_loop
        self.options = tuple(options)
        if "i" in [p.name for p in self.params]:
            raise ValueError("Can not use 'i' as a parameter name")
        self._kernels: dict[tuple[Any, ...], RawKernel] = {}
        self._cached_codes: dict[tuple[str, ...], str] = {}
        self._types: dict[tuple[Any, ...], Any] = {}

    def __call__(self, *args: Any, size: int | None = None,
                 block_size: int = 128, stream: Any = None) -> Any:
        if size is None:
            size = -1
        if block_size <= 0:
            raise ValueError("block_size must be greater than zero")
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(
                f"Wrong number of arguments for {self.name!r}. It must be "
                f"either {self.nin} or {self.nargs} (with outputs), but "
                f"given {len(args)}.")
        arg_list = [_preprocess(a) for a in args]
        in_args = arg_list[:self.nin]
        out_args = arg_list[self.nin:]
        use_size = size != -1
        shape = _broadcast_shape(arg_list, self.params, use_size)
        in_types, out_types, type_map = _resolve_types(self, in_args,
                                                       out_args)
        if use_size:
            shape = (int(size),)
        outs = _out_args(out_args, out_types, shape, self.out_params, use_size,
                         session_of(*arg_list))
        if self.no_return:
            ret: Any = None
        elif not self.return_tuple and self.nout == 1:
            ret = outs[0]
        else:
            ret = tuple(outs)
        if 0 in shape:
            return ret
        values: list[Any] = []
        for a, t in zip(in_args, in_types):
            values.append(a.as_dtype(t) if isinstance(a, _Scalar) else a)
        values += outs
        # The views the kernel sees: non-raw arrays broadcast to the loop's
        # shape (then merged where contiguous), raw arrays as they are.
        nonraw = [i for i, (p, v) in enumerate(zip(self.params, values))
                  if not p.raw and isinstance(v, ndarray)]
        strides = [_broadcast_strides(values[i], shape) for i in nonraw]
        ind_shape = shape
        if self.reduce_dims:
            ind_shape, strides = _reduce_dims(shape, strides)
        kargs: list[Any] = list(values)
        for i, st in zip(nonraw, strides):
            kargs[i] = _ArrayArg(values[i], ind_shape, st)
        for i, (p, v) in enumerate(zip(self.params, values)):
            if p.raw and isinstance(v, ndarray):
                kargs[i] = _ArrayArg(v, v._shape, v._full_strides())
        kernel, gen = self._kernel(kargs, ind_shape, type_map)
        _launch(kernel, math.prod(ind_shape), block_size, gen.args, stream)
        return ret

    def _kernel(self, kargs: list[Any], ind_shape: tuple[int, ...],
                type_map: tuple[tuple[str, np.dtype], ...]
                ) -> tuple[RawKernel, _Codegen]:
        infos: list[Any] = [("i", len(ind_shape),
                             math.prod(ind_shape) < _INDEX_LIMIT)]
        infos += [a.info() if isinstance(a, _ArrayArg) else ("s", a.dtype.char)
                  for a in kargs]
        key = (tuple(infos), type_map)
        kernel = self._kernels.get(key)
        gen = self._gen(kargs, ind_shape, kernel is None)
        if kernel is None:
            code = self._code(gen, kargs, type_map)
            kernel = RawKernel(code, self.name, self.options)
            self._kernels[key] = kernel
            self._cached_codes.setdefault(_dtype_chars(kargs), code)
        return kernel, gen

    def _gen(self, kargs: list[Any], ind_shape: tuple[int, ...],
             emit: bool) -> _Codegen:
        gen = _Codegen(emit)
        gen.indexer("_ind", ind_shape)
        for k, (p, a) in enumerate(zip(self.params, kargs)):
            if isinstance(a, _ArrayArg):
                gen.array(k, p, a, None if p.raw else "_ind")
            else:
                gen.scalar(p, a)
        return gen

    def _code(self, gen: _Codegen, kargs: list[Any],
              type_map: tuple[tuple[str, np.dtype], ...]) -> str:
        setup = "\n  ".join(gen.setup)
        refs = _refs(self.params, kargs, "_ind")
        return (f"{prelude()}\n{typedefs(type_map)}"
                f"{_strip_cupy_includes(self.preamble)}\n"
                f'extern "C" __global__ void {self.name}('
                + ", ".join(gen.params) + ") {\n"
                f"  {setup}\n"
                f"  {self.loop_prep};\n"
                "  #pragma unroll 1\n"
                "  CUPY_FOR(i, _ind.size()) {\n"
                "    _ind.set(i);\n"
                f"    {refs}\n"
                f"    {self.operation};\n"
                "  }\n"
                f"  {self.after_loop};\n"
                "}\n")

    @property
    def cached_codes(self) -> dict[tuple[str, ...], str]:
        """The generated source of each input-type combination called so
        far (for debugging)."""
        if not self._cached_codes:
            warnings.warn("No codes are cached because compilation is "
                          "deferred until the first function call.")
        return dict(self._cached_codes)

    @property
    def cached_code(self) -> str:
        codes = self._cached_codes
        if len(codes) > 1:
            warnings.warn("The input types of the kernel could not be "
                          "inferred. Please use `.cached_codes` instead.")
        return next(iter(codes.values()))


# -- ReductionKernel ------------------------------------------------------

def _reduce_axes(axis: Any, ndim: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(reduced axes, kept axes), each ascending; NumPy's AxisError."""
    if axis is None:
        return tuple(range(ndim)), ()
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    reduced = []
    for ax in axes:
        ax = int(ax)
        if not -ndim <= ax < ndim:
            raise np.exceptions.AxisError(ax, ndim)
        reduced.append(ax % ndim)
    if len(set(reduced)) != len(reduced):
        raise ValueError("duplicate value in 'axis'")
    reduced.sort()
    return tuple(reduced), tuple(d for d in range(ndim) if d not in reduced)


def _block_stride(in_size: int, out_size: int, contiguous: int) -> int:
    """How many outputs one reduction block computes side by side (a power
    of two): enough that each output still has a block's share of threads
    when the reduced axes are short, and at least the outputs that are
    adjacent in memory (up to a warp), so that a warp reads them together."""
    per_out = max(1, in_size // out_size)
    want = max(min(contiguous, 32), _REDUCE_BLOCK // per_out)
    return min(1 << (want.bit_length() - 1), _REDUCE_BLOCK)


def _contiguous_outputs(arrays: Sequence[ndarray], shape: Sequence[int],
                        strides: Sequence[Sequence[int]], n_kept: int) -> int:
    """How many consecutive outputs have their elements adjacent in memory
    in the most favorable input: the run of its innermost kept axes that
    are contiguous (``shape``/``strides``: reduced axes first)."""
    best = 1
    for a, st in zip(arrays, strides):
        run, step = 1, a.dtype.itemsize
        for d in range(len(shape) - 1, len(shape) - 1 - n_kept, -1):
            if shape[d] == 1:
                continue
            if st[d] != step:
                break
            run *= shape[d]
            step *= shape[d]
        best = max(best, run)
    return best


class ReductionKernel:
    """A user-defined reduction kernel (cupy.ReductionKernel).

    Each element of the broadcast inputs is mapped by ``map_expr``, the
    values along the reduced axes are combined by ``reduce_expr`` (of ``a``
    and ``b``, starting from ``identity``) in ``reduce_type`` (default: the
    first output's type), and ``post_map_expr`` stores the result ``a``
    into the outputs. ``kernel(*args, out=None, axis=None,
    keepdims=False, stream=None)``; any tuple of axes.
    """

    def __init__(self, in_params: str, out_params: str, map_expr: str,
                 reduce_expr: str, post_map_expr: str, identity: Any,
                 name: str = "reduce_kernel", reduce_type: str | None = None,
                 reduce_dims: bool = True, preamble: str = "",
                 options: Sequence[str] = ()):
        _check_name(name)
        self.in_params = parse_params(in_params, True)
        self.out_params = parse_params(out_params, False)
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        self.params = self.in_params + self.out_params
        self.map_expr = map_expr
        self.reduce_expr = reduce_expr
        self.post_map_expr = post_map_expr
        self.identity = "" if identity is None else str(identity)
        self.name = self.__name__ = name
        if reduce_type is None:
            if not self.out_params:
                raise ValueError("a ReductionKernel needs an output parameter "
                                 "(or reduce_type)")
            reduce_type = self.out_params[0].ctype
        self.reduce_type = reduce_type
        self.reduce_dims = reduce_dims
        self.preamble = preamble
        self.options = tuple(options)
        self._kernels: dict[tuple[Any, ...], RawKernel] = {}
        self._cached_codes: dict[tuple[str, ...], str] = {}
        self._types: dict[tuple[Any, ...], Any] = {}

    def __call__(self, *args: Any, out: Any = None, axis: Any = None,
                 keepdims: bool = False, stream: Any = None) -> Any:
        # CuPy's ReductionKernel returns its first output.
        return self._run(args, out, axis, keepdims, stream)[0]

    def _run(self, args: Sequence[Any], out: Any, axis: Any, keepdims: bool,
             stream: Any) -> list[ndarray]:
        """The call; returns every output array."""
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"Wrong number of arguments for {self.name}")
        out_given = list(args[self.nin:])
        if out is not None:
            if self.nout != 1:
                raise NotImplementedError(
                    "out= needs a kernel of one output")
            if out_given:
                raise ValueError("cannot specify 'out' as both a positional "
                                 "and keyword argument")
            out_given = [out]
        in_args = [_preprocess(a) for a in args[:self.nin]]
        out_args = [_preprocess(a) for a in out_given]
        shape = _broadcast_shape(in_args, self.in_params, False)
        in_types, out_types, type_map = _resolve_types(self, in_args,
                                                       out_args)
        return self._reduce(in_args, out_args, in_types, out_types, type_map,
                            shape, axis, keepdims, stream)

    def _reduce(self, in_args: list[Any], out_args: list[Any],
                in_types: Sequence[np.dtype], out_types: Sequence[np.dtype],
                type_map: tuple[tuple[str, np.dtype], ...],
                shape: tuple[int, ...], axis: Any, keepdims: bool,
                stream: Any) -> list[ndarray]:
        """Runs the reduction; returns every output array."""
        reduced, kept = _reduce_axes(axis, len(shape))
        if keepdims:
            out_shape = tuple(1 if d in reduced else n
                              for d, n in enumerate(shape))
        else:
            out_shape = tuple(shape[d] for d in kept)
        outs = _out_args(out_args, out_types, out_shape, self.out_params,
                         False, session_of(*in_args, *out_args))
        if math.prod(out_shape) == 0:
            return outs
        if self.identity == "" and 0 in shape:
            raise ValueError("zero-size array to reduction operation "
                             f"{self.name} which has no identity")
        values: list[Any] = []
        for a, t in zip(in_args, in_types):
            values.append(a.as_dtype(t) if isinstance(a, _Scalar) else a)
        values += outs
        # Inputs seen with the reduced axes first, then the kept ones: the
        # j-th element in C order belongs to output j % out_size.
        order = reduced + kept
        in_shape = tuple(shape[d] for d in order)
        in_idx = [i for i, (p, v) in enumerate(zip(self.in_params, values))
                  if not p.raw and isinstance(v, ndarray)]
        in_strides = []
        for i in in_idx:
            st = _broadcast_strides(values[i], shape)
            in_strides.append([st[d] for d in order])
        out_idx = [self.nin + k for k, p in enumerate(self.out_params)
                   if not p.raw]
        out_strides = [list(values[i]._full_strides()) for i in out_idx]
        contiguous = _contiguous_outputs([values[i] for i in in_idx],
                                         in_shape, in_strides, len(kept))
        ind_in, ind_out = in_shape, out_shape
        if self.reduce_dims:
            ind_in, in_strides = _reduce_dims(in_shape, in_strides)
            ind_out, out_strides = _reduce_dims(out_shape, out_strides)
        kargs: list[Any] = list(values)
        for i, st in zip(in_idx, in_strides):
            kargs[i] = _ArrayArg(values[i], ind_in, st)
        for i, st in zip(out_idx, out_strides):
            kargs[i] = _ArrayArg(values[i], ind_out, st)
        for i, (p, v) in enumerate(zip(self.params, values)):
            if p.raw and isinstance(v, ndarray):
                kargs[i] = _ArrayArg(v, v._shape, v._full_strides())
        in_size, out_size = math.prod(shape), math.prod(out_shape)
        stride = _block_stride(in_size, out_size, contiguous)
        index_t = "int" if (in_size // out_size) < _INDEX_LIMIT else "long long"
        kernel, gen = self._kernel(kargs, ind_in, ind_out, type_map, index_t)
        gen.args.append(np.int32(stride))
        blocks = min((out_size + stride - 1) // stride, _MAX_GRID)
        if stream is not None:
            with stream:
                kernel((blocks,), (_REDUCE_BLOCK,), gen.args)
        else:
            kernel((blocks,), (_REDUCE_BLOCK,), gen.args)
        return outs

    def _kernel(self, kargs: list[Any], ind_in: tuple[int, ...],
                ind_out: tuple[int, ...],
                type_map: tuple[tuple[str, np.dtype], ...], index_t: str
                ) -> tuple[RawKernel, _Codegen]:
        infos: list[Any] = [index_t,
                            ("i", len(ind_in), math.prod(ind_in) < _INDEX_LIMIT),
                            ("i", len(ind_out), math.prod(ind_out) < _INDEX_LIMIT)]
        infos += [a.info() if isinstance(a, _ArrayArg) else ("s", a.dtype.char)
                  for a in kargs]
        key = (tuple(infos), type_map)
        kernel = self._kernels.get(key)
        gen = self._gen(kargs, ind_in, ind_out, kernel is None)
        if kernel is None:
            code = self._code(gen, kargs, type_map, index_t)
            kernel = RawKernel(code, self.name, self.options)
            self._kernels[key] = kernel
            self._cached_codes.setdefault(_dtype_chars(kargs), code)
        return kernel, gen

    def _gen(self, kargs: list[Any], ind_in: tuple[int, ...],
             ind_out: tuple[int, ...], emit: bool) -> _Codegen:
        gen = _Codegen(emit)
        for k, (p, a) in enumerate(zip(self.params, kargs)):
            if isinstance(a, _ArrayArg):
                gen.array(k, p, a, None if p.raw else (
                    "_in_ind" if k < self.nin else "_out_ind"))
            else:
                gen.scalar(p, a)
        setup = gen.setup
        gen.setup = []
        gen.indexer("_in_ind", ind_in)
        gen.indexer("_out_ind", ind_out)
        gen.setup += setup  # the views name the indexers' shapes
        if emit:
            gen.params.append("int _block_stride")
        return gen

    def _code(self, gen: _Codegen, kargs: list[Any],
              type_map: tuple[tuple[str, np.dtype], ...], index_t: str) -> str:
        """The kernel: the views, then the prelude's arrayd_reduce with the
        user's expressions as lambdas (map_expr of the element _j, the
        _J-th of output _i's; reduce_expr of a and b; post_map_expr of a,
        storing output _i)."""
        setup = "\n  ".join(gen.setup)
        n = self.nin
        in_refs = _refs(self.in_params, kargs[:n], "_in_ind", const_value=True,
                        indent=8)
        out_refs = _refs([p for p in self.out_params if not p.is_const],
                         [a for p, a in zip(self.out_params, kargs[n:])
                          if not p.is_const], "_out_ind", indent=8)
        identity = "true" if self.identity != "" else "false"
        return (f"{prelude()}\n{typedefs(type_map)}"
                f"typedef {index_t} IndexT;\n"
                f"{_strip_cupy_includes(self.preamble)}\n"
                f"typedef {self.reduce_type} _type_reduce;\n"
                f'extern "C" __global__ void __launch_bounds__({_REDUCE_BLOCK}) '
                f"{self.name}(" + ", ".join(gen.params) + ") {\n"
                f"  {setup}\n"
                f"  arrayd_reduce<{_REDUCE_BLOCK}, {identity}, _type_reduce, IndexT>(\n"
                f"      _in_ind, _out_ind, _block_stride, "
                f"_type_reduce({self.identity}),\n"
                "      [&](ptrdiff_t _j, IndexT _J, ptrdiff_t _i) -> _type_reduce {\n"
                "        _in_ind.set(_j);\n"
                f"        {in_refs}\n"
                f"        return static_cast<_type_reduce>({self.map_expr});\n"
                "      },\n"
                "      [&](const _type_reduce& a, const _type_reduce& b) -> _type_reduce {\n"
                f"        return static_cast<_type_reduce>({self.reduce_expr});\n"
                "      },\n"
                "      [&](ptrdiff_t _i, _type_reduce a) {\n"
                "        _out_ind.set(_i);\n"
                f"        {out_refs}\n"
                f"        {self.post_map_expr};\n"
                "      });\n"
                "}\n")

    cached_codes = ElementwiseKernel.cached_codes
    cached_code = ElementwiseKernel.cached_code


# -- cupy._core.create_reduction_func ----------------------------------------

class _SimpleReduction:
    """A reduction of one array over loops ``'b->b'`` and a routine
    ``(map_expr, reduce_expr, post_map_expr, reduce_type)`` of ``in0`` and
    ``out0`` (cupy._core.create_reduction_func's object): ``f(a,
    axis=None, dtype=None, out=None, keepdims=False)``."""

    def __init__(self, name: str, ops: Sequence[str], routine: Sequence[Any],
                 identity: Any, preamble: str):
        _check_name(name)
        self.name = self.__name__ = name
        self._loops = []
        for op in ops:
            ins, outs = op.split("->")
            self._loops.append((np.dtype(ins), np.dtype(outs)))
        self._routine = tuple(routine)
        self.identity = identity
        self.preamble = preamble
        self._kernels: dict[tuple[np.dtype, np.dtype], ReductionKernel] = {}
        self._cached_codes: dict[tuple[str, ...], str] = {}

    def _loop(self, dt: np.dtype, dtype: Any) -> tuple[np.dtype, np.dtype]:
        if dtype is not None:
            want = np.dtype(dtype)
            for loop in self._loops:
                if loop[1] == want:
                    return loop
        for loop in self._loops:
            if np.can_cast(dt, loop[0]):
                return loop
        raise TypeError(f"Wrong type ({dt}) of arguments for {self.name}")

    def __call__(self, a: Any, axis: Any = None, dtype: Any = None,
                 out: Any = None, keepdims: bool = False) -> Any:
        arr = _preprocess(a, "Argument 'a'")
        if not isinstance(arr, ndarray):
            raise TypeError(f"Argument 'a' has incorrect type (expected "
                            f"arrayd.ndarray, got {type(a).__name__})")
        in_t, out_t = self._loop(arr.dtype, dtype)
        if arr.dtype.kind == "c" and in_t.kind == "f":
            warnings.warn("Casting complex values to real discards the "
                          "imaginary part", np.exceptions.ComplexWarning,
                          stacklevel=2)
            arr = arr.real
        out_dt = out.dtype if out is not None else out_t
        key = (arr.dtype, out_dt)
        kernel = self._kernels.get(key)
        if kernel is None:
            map_expr, reduce_expr, post_map_expr, reduce_type = self._routine
            kernel = ReductionKernel(
                f"{arr.dtype.name} in0", f"{np.dtype(out_dt).name} out0",
                map_expr, reduce_expr, post_map_expr, self.identity,
                self.name, reduce_type or typename(out_t),
                preamble=(f"typedef {typename(arr.dtype)} type_in0_raw;\n"
                          f"typedef {typename(out_dt)} type_out0_raw;\n"
                          + self.preamble))
            self._kernels[key] = kernel
        r = kernel(arr, out=out, axis=axis, keepdims=keepdims)
        for k, code in kernel._cached_codes.items():
            self._cached_codes.setdefault(k, code)
        return r


def create_reduction_func(name: str, ops: Sequence[str],
                          routine: Sequence[Any] | None = None,
                          identity: Any = None, preamble: str = "",
                          sort_reduce_axis: bool = True) -> _SimpleReduction:
    """cupy._core.create_reduction_func: a reduction over typed loops."""
    if routine is None:
        raise NotImplementedError("create_reduction_func needs a routine "
                                  "(map, reduce, post_map, reduce_type)")
    return _SimpleReduction(name, ops, routine, identity, preamble)
