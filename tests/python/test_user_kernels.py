"""ElementwiseKernel, ReductionKernel and fuse (arrayd._userkernel,
arrayd._fusion).

Four levels; each runs where it can and skips elsewhere:

(a) the parameter language, type resolution, argument checks and the
    fusion's tracing, in Python, on arrays of a fake session (no server);
(b) the generated CUDA C++ of many kernels (every dtype, raw parameters,
    broadcasting, reductions over axes, every fusable ufunc loop) compiles
    with NVRTC for sm_90 (libnvrtc through ctypes; skipped without it);
(c) the same kernels run on this machine's GPU through the CUDA driver API
    (libcuda through ctypes; skipped without a GPU), against NumPy;
(d) end to end through the test server against NumPy (and fuse against the
    unfused function) when it is a CUDA server started with
    --allow-user-kernels (ARRAYD_SERVER_ARGS=--allow-user-kernels). On
    another server, the user-kernel calls fail at once with the server's
    error and fuse runs unfused.

(c) and (d) share their test bodies: the ``dev`` fixture is the GPU seen
through the driver API or through the server.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import math
import time
from typing import Any, ClassVar

import arrayd as ad
import numpy as np
import pytest
from arrayd import _fusion, _kernel, _userkernel
from arrayd._ndarray import ndarray
from numpy.testing import assert_allclose, assert_array_equal

ALL_DTYPES = [np.dtype(c) for c in "?bhilBHILefdFD"]
ALL_DTYPES = list(dict.fromkeys(ALL_DTYPES))  # 'l' and 'q' are one dtype here
NUMERIC = [d for d in ALL_DTYPES if d.kind != "b"]


# -- (a) helpers: a fake session and a kernel that records its launches -------

class FakeSession:
    """Where arrays of the Python-only tests live: handles and ops are
    recorded, nothing runs."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.ops: list[tuple[Any, ...]] = []
        self.scalars: dict[Any, Any] = {}
        self.fuse_user_kernels = True

    def new_handle(self) -> int:
        return next(self._ids)

    def record(self, name, inputs, outputs, attrs=None, **kwargs) -> None:
        self.ops.append((name, tuple(inputs), tuple(outputs), attrs))

    def free(self, handle: int) -> None:
        pass


class Launch:
    def __init__(self, kernel: CaptureKernel, grid, block, args, shared_mem):
        self.kernel, self.grid, self.block = kernel, grid, block
        self.args, self.shared_mem = list(args), shared_mem


class CaptureKernel:
    """Stands in for RawKernel: keeps the code and each launch."""

    launches: ClassVar[list[Launch]] = []

    def __init__(self, code: str, name: str, options=()):
        self.code, self.name, self.options = code, name, tuple(options)

    def __call__(self, grid, block, args, shared_mem=0):
        CaptureKernel.launches.append(Launch(self, grid, block, args,
                                             shared_mem))


@pytest.fixture
def fake(monkeypatch):
    """A fake session for arrays, and RawKernel replaced by CaptureKernel."""
    monkeypatch.setattr(_userkernel, "RawKernel", CaptureKernel)
    CaptureKernel.launches = []
    return FakeSession()


def farr(s: FakeSession, shape, dtype="f", strides=None, readonly=False):
    return ndarray._new(s, s.new_handle(), tuple(shape), np.dtype(dtype),
                        strides, readonly=readonly)


def last_code() -> str:
    return CaptureKernel.launches[-1].kernel.code


def kernel_params(code: str, name: str) -> list[str]:
    """The parameter list of the kernel ``name`` in generated code."""
    head = code[code.index(f"{name}("):]
    return [p.strip() for p in head[len(name) + 1:head.index(")")].split(",")
            if p.strip()]


# -- (a) the parameter language and type resolution -------------------------

def test_parse_params():
    ps = _userkernel.parse_params("raw T x, int32 n, _non_const float32 y",
                                  True)
    assert [p.name for p in ps] == ["x", "n", "y"]
    assert ps[0].raw and ps[0].ctype == "T" and ps[0].dtype is None
    assert ps[1].dtype == np.int32 and ps[1].ctype == "int" and ps[1].is_const
    assert not ps[2].is_const and ps[2].ctype == "float"
    assert _userkernel.parse_params("", False) == ()
    assert _userkernel.parse_params("complex128 z", False)[0].ctype == \
        "complex<double>"
    assert _userkernel.parse_params("float16 h", False)[0].ctype == "float16"


@pytest.mark.parametrize("text", ["float x", "int y", "T", "foo T x",
                                  "raw uint128 x"])
def test_parse_params_errors(text):
    with pytest.raises(ValueError):
        _userkernel.parse_params(text, True)


def test_invalid_names():
    with pytest.raises(ValueError, match="Invalid kernel name"):
        ad.ElementwiseKernel("T x", "", "", "1")
    with pytest.raises(ValueError, match="Invalid kernel name"):
        ad.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", name="1")
    with pytest.raises(ValueError, match="'i'"):
        ad.ElementwiseKernel("T i", "T y", "y = i")


def test_decide_params_type():
    d = _userkernel.decide_params_type
    ins = _userkernel.parse_params("T x, T y, int32 n, U u", True)
    outs = _userkernel.parse_params("T z, float64 w", False)
    f4, f8, i4 = np.dtype("f4"), np.dtype("f8"), np.dtype("i4")
    in_t, out_t, tmap = d(ins, outs, (f4, None, None, i4), ())
    assert in_t == (f4, f4, i4, i4) and out_t == (f4, f8)
    assert tmap == (("T", f4), ("U", i4))
    # Outputs bind first; a scalar binds nothing.
    in_t, out_t, _ = d(ins, outs, (None, None, None, i4), (f8, f8))
    assert in_t[0] == f8 and out_t == (f8, f8)
    with pytest.raises(TypeError, match="mismatched"):
        d(ins, outs, (f4, f8, None, i4), ())
    with pytest.raises(TypeError, match="mismatched"):
        d(ins, outs, (f4, None, f8, i4), ())
    with pytest.raises(TypeError, match="mismatched"):
        d(ins, outs, (f4, None, None, i4), (f8, f8))
    with pytest.raises(TypeError, match="not decided"):
        d(ins, outs, (None, None, None, i4), ())
    with pytest.raises(TypeError, match="Output arguments"):
        d(ins, outs, (f4, None, None, i4), (None, f8))


def test_scalar_conversion():
    s = _userkernel._Scalar
    assert s(2).as_dtype(np.dtype("f4")).dtype == np.float32
    assert s(True).as_dtype(np.dtype("i2")) == 1
    assert s(np.float64(2.75)).as_dtype(np.dtype("i4")) == 2  # a cast
    assert s(np.int64(-3)).as_dtype(np.dtype("i1")) == -3
    with pytest.raises(OverflowError):
        s(300).as_dtype(np.dtype("i1"))  # NumPy's rule of assignment
    assert s(np.complex128(1 + 2j)).as_dtype(np.dtype("f8")) == 1.0
    with pytest.raises(TypeError):
        s(1 + 2j).as_dtype(np.dtype("f8"))


def test_reduce_dims():
    rd = _userkernel._reduce_dims
    assert rd((2, 3, 4), [[48, 16, 4], [48, 16, 4]]) == ((24,), [[4], [4]])
    assert rd((2, 3, 4), [[48, 16, 4], [0, 0, 4]]) == ((6, 4), [[16, 4], [0, 4]])
    assert rd((2, 1, 4), [[16, 99, 4]]) == ((8,), [[4]])
    assert rd((2, 1, 4), [[32, 16, 4]]) == ((2, 4), [[32, 4]])
    assert rd((1, 1), [[4, 4]]) == ((), [[]])
    assert rd((3, 4), [[4, 12]]) == ((3, 4), [[4, 12]])  # F order stays


# -- (a) ElementwiseKernel calls on a fake session -------------------------

def test_elementwise_launch_arguments(fake):
    k = ad.ElementwiseKernel("T x, T y", "T z", "z = x + y", "add")
    x, y = farr(fake, (3, 4)), farr(fake, (4,))
    z = k(x, y)
    assert z.shape == (3, 4) and z.dtype == np.float32
    launch = CaptureKernel.launches[-1]
    params = kernel_params(launch.kernel.code, "add")
    assert len(params) == len(launch.args)
    assert launch.args[:2] == [3, 4]  # the index space, not merged (y broadcasts)
    assert launch.args[3:5] == [16, 4] and launch.args[6:8] == [0, 4]
    assert launch.block == (12,) and launch.grid == (1,)
    # C-contiguous operands of one shape: a flat loop.
    k(farr(fake, (3, 4)), farr(fake, (3, 4)))
    launch = CaptureKernel.launches[-1]
    assert launch.args[0] == 12 and "CIndexer<1, true>" in launch.kernel.code
    assert "CArray<float, 1, true, true>" in launch.kernel.code


def test_elementwise_scalars_and_types(fake):
    k = ad.ElementwiseKernel("T x, T y, int32 n", "T z", "z = x + y * n")
    k(farr(fake, (5,), "f8"), 2, np.int64(3))
    args = CaptureKernel.launches[-1].args
    scalars = [a for a in args if isinstance(a, np.generic)]
    assert [(a.dtype, a.item()) for a in scalars] == [
        (np.dtype("f8"), 2.0), (np.dtype("i4"), 3)]
    assert "const double y" in last_code() and "const int n" in last_code()
    assert "typedef double T;" in last_code()


def test_elementwise_size_rules(fake):
    a1, a2 = farr(fake, (2,)), farr(fake, (2,))

    def kernel(ins, outs):
        return ad.ElementwiseKernel(
            ", ".join(f"{'raw ' if r else ''}float32 x{i}"
                      for i, r in enumerate(ins)),
            ", ".join(f"{'raw ' if r else ''}float32 y{i}"
                      for i, r in enumerate(outs)), "")

    kernel((True, True), (False,))(a1, a2, size=2)
    with pytest.raises(ValueError, match=r"^Loop size is undecided\."):
        kernel((True, True), (False,))(a1, a2)
    with pytest.raises(ValueError, match=r"^Specified 'size' can"):
        kernel((False, False), (False,))(a1, a2, size=2)
    with pytest.raises(ValueError, match=r"^Specified 'size' can"):
        kernel((False, False), (True,))(a1, 7, size=2)
    kernel((True,), (False,))(a1, a2)  # the output decides the size
    with pytest.raises(ValueError, match="Output array size is Undecided"):
        ad.ElementwiseKernel("float32 x", "raw float32 y", "")(a1)
    with pytest.raises(ValueError, match="Out shape is mismatched"):
        ad.ElementwiseKernel("T x", "T y", "y += x")(
            farr(fake, (3, 4), "q"), farr(fake, (4,), "q"))
    with pytest.raises(ValueError, match="block_size"):
        ad.ElementwiseKernel("T x", "T y", "y = x")(a1, block_size=0)
    with pytest.raises(TypeError, match="Wrong number of arguments"):
        ad.ElementwiseKernel("T x", "T y", "y = x")(a1, a1, a1)
    with pytest.raises(TypeError, match="Unsupported type"):
        ad.ElementwiseKernel("T x", "T y", "y = x")(np.ones(2))
    r = ad.ElementwiseKernel("raw T x", "T y", "y = x[i]")(a1, size=5)
    assert r.shape == (5,)


def test_elementwise_returns(fake):
    x = farr(fake, (3,))
    k = ad.ElementwiseKernel("T x", "T y, T z", "y = x; z = x")
    assert isinstance(k(x), tuple) and len(k(x)) == 2
    k1 = ad.ElementwiseKernel("T x", "T y", "y = x", return_tuple=True)
    assert isinstance(k1(x), tuple)
    k2 = ad.ElementwiseKernel("T x", "T y", "y = x", no_return=True)
    assert k2(x) is None
    y = farr(fake, (3,))
    assert ad.ElementwiseKernel("T x", "T y", "y = x")(x, y) is y
    # Zero-size: nothing launches.
    n = len(CaptureKernel.launches)
    ad.ElementwiseKernel("T x", "T y", "y = x")(farr(fake, (0, 3)))
    assert len(CaptureKernel.launches) == n


def test_elementwise_cached_codes(fake):
    k = ad.ElementwiseKernel("T x, T y", "T z", "z = x + y", "kk")
    assert len(k._cached_codes) == 0
    k(farr(fake, (4,)), farr(fake, (4,)))
    k(farr(fake, (4,)), farr(fake, (4,)))
    assert len(k._cached_codes) == 1
    k(farr(fake, (4,), "d"), farr(fake, (4,), "d"))
    assert len(k._cached_codes) == 2 and ("d", "d", "d") in k.cached_codes


def test_elementwise_views_need_no_copy(fake):
    """Transposed, reversed and broadcast operands are passed as strides:
    no op but the output's allocation reaches the session."""
    t = farr(fake, (6, 4), "d", strides=(8, 48))      # a transpose
    rev = farr(fake, (6, 1), "d", strides=(-8, 0))    # reversed, broadcast
    ad.ElementwiseKernel("T x, T y, T w", "T z", "z = x + y + w")(t, rev, 1.0)
    assert [op[0] for op in fake.ops] == ["empty"]
    args = CaptureKernel.launches[-1].args
    assert args[:2] == [6, 4] and args[3:5] == [8, 48] and args[6:8] == [-8, 0]


def test_preamble_cupy_includes_are_dropped(fake):
    k = ad.ElementwiseKernel("T x", "T y", "y = x",
                             preamble="#include <cupy/complex.cuh>\n"
                                      '#include "cupy/carray.cuh"\n'
                                      "#define TWO 2\n")
    k(farr(fake, (2,)))
    code = last_code()
    assert "cupy/complex.cuh" not in code and "#define TWO 2" in code


# -- (a) ReductionKernel calls on a fake session -------------------------

def test_reduction_shapes_and_arguments(fake):
    k = ad.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "rsum")
    x = farr(fake, (3, 4, 5))
    assert k(x).shape == ()
    assert k(x, axis=1).shape == (3, 5)
    assert k(x, axis=(0, 2)).shape == (4,)
    assert k(x, axis=(0, 2), keepdims=True).shape == (1, 4, 1)
    assert k(x, axis=-1).shape == (3, 4)
    launch = CaptureKernel.launches[-1]
    assert len(kernel_params(launch.kernel.code, "rsum")) == len(launch.args)
    assert launch.block == (512,)
    with pytest.raises(np.exceptions.AxisError):
        k(x, axis=3)
    with pytest.raises(ValueError, match="duplicate"):
        k(x, axis=(1, -2))
    with pytest.raises(ValueError, match="no identity"):
        ad.ReductionKernel("T x", "T y", "x", "a + b", "y = a", None)(
            farr(fake, (0, 3)), axis=0)
    # An empty output: nothing launches.
    n = len(CaptureKernel.launches)
    k(farr(fake, (0, 3)), axis=1)
    assert len(CaptureKernel.launches) == n


def test_reduction_block_stride():
    bs = _userkernel._block_stride
    assert bs(1 << 20, 1, 1) == 1          # one long reduction: a block each
    assert bs(1000 * 512, 1000, 1000) == 32  # contiguous outputs: a warp
    assert bs(4 * 1000, 1000, 1) == 128    # short reductions: many outputs
    assert bs(1000, 1000, 1000) == 512     # nothing to reduce


def test_reduction_cached_codes(fake):
    k = ad.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0",
                           name="cached_code")
    assert len(k._cached_codes) == 0
    k(farr(fake, (10,), "q"))
    k(farr(fake, (10,), "q"))
    assert len(k._cached_codes) == 1
    k(farr(fake, (10,), "f"))
    assert len(k._cached_codes) == 2


def test_create_reduction_func(fake):
    f = _userkernel.create_reduction_func(
        "my_sum", ("q->q", "f->f"), ("in0", "a + b", "out0 = a", None), 0)
    assert f(farr(fake, (10,), "q")).dtype == np.int64
    assert f(farr(fake, (10,), "f")).dtype == np.float32
    assert len(f._cached_codes) == 2
    with pytest.raises(TypeError, match="Argument 'a' has incorrect type"):
        f(np.array([1, 2, 3]))


# -- (a) fuse: tracing and plans ---------------------------------------

def plan_of(f: _fusion.Fusion) -> Any:
    plans = list(f._memo.values())
    assert len(plans) == 1
    return plans[0]


def test_fuse_traces_one_elementwise_kernel(fake):
    @ad.fuse()
    def f(x, y, a):
        z = x * y + a
        return ad.exp(z) - x, z

    x, y = farr(fake, (3, 4)), farr(fake, (4,), "d")
    r = f(x, y, np.float32(2))
    assert isinstance(r, tuple) and len(r) == 2
    assert [(v.shape, v.dtype) for v in r] == [((3, 4), np.float64)] * 2
    assert len(CaptureKernel.launches) == 1
    assert [op[0] for op in fake.ops] == ["empty", "empty"]  # the outputs
    code = last_code()
    assert "arrayd_fuse::exp(" in code and "const float _x2" in code
    assert f.__name__ == "f" and plan_of(f) is not None
    # Another shape of the same dimensions: a new trace, the same kernel.
    f(farr(fake, (5, 6)), farr(fake, (6,), "d"), np.float32(2))
    assert len(f._memo) == 2 and len(f._kernels) == 1
    kernels = {launch.kernel for launch in CaptureKernel.launches}
    assert len(kernels) == 1


def test_fuse_in_place_updates_write_the_inputs(fake):
    @ad.fuse
    def f(x, y):
        x += y
        x *= 2
        return x

    x, y = farr(fake, (3, 4), "i4"), farr(fake, (3, 4), "i2")
    assert f(x, y) is x  # the caller's array, updated, as unfused
    code = last_code()
    assert "int &_x0" in code and "_x0 = _v" in code


def test_fuse_reduction_with_post_map(fake):
    @ad.fuse(kernel_name="l2")
    def f(x, y, n):
        return ad.sum(x * y + 1.5, axis=1) / n

    r = f(farr(fake, (3, 4), "f"), farr(fake, (4,), "f"), farr(fake, (), "d"))
    assert r.shape == (3,) and r.dtype == np.float64
    code = last_code()
    assert "_pre_map(" in code and "_post_map(" in code and " l2(" in code


@pytest.mark.parametrize("case", ["host_value", "two_reductions", "view",
                                  "different_shapes", "unknown_op",
                                  "returns_python"])
def test_fuse_runs_unfused_what_one_kernel_cannot(fake, case):
    def host_value(x):
        return x * 2 if float(x.sum()) > 0 else x
    funcs = {
        "host_value": host_value,
        "two_reductions": lambda x: x.sum() + x.max(),
        "view": lambda x: x.T + 1,
        "different_shapes": lambda x: (x + 1, x.sum(axis=0) + 1),
        "unknown_op": lambda x: ad.cumsum(x),
        "returns_python": lambda x: 3,
    }
    f = _fusion.Fusion(funcs[case])
    assert f._plan((farr(fake, (3, 3)),)) is None


def test_fuse_without_arrays_or_user_kernels_calls_the_function(fake):
    calls = []

    @ad.fuse()
    def f(x):
        calls.append(x)
        return x

    assert f(3) == 3 and calls == [3]  # no array: the function itself
    fake.fuse_user_kernels = False     # a CPU server, or the flag off
    x = farr(fake, (2,))
    assert f(x) is x and calls[-1] is x and not CaptureKernel.launches


def test_fuse_python_scalars_are_constants_numpy_scalars_parameters(fake):
    @ad.fuse()
    def f(x, a):
        return x * a

    x = farr(fake, (4,), "f")
    assert f(x, 2.5).dtype == np.float32       # a weak Python float
    assert f(x, np.float64(2.5)).dtype == np.float64  # a strong NumPy one
    assert f(x, 3.5).dtype == np.float32
    assert len(f._memo) == 3  # each Python value its own kernel
    codes = [launch.kernel.code for launch in CaptureKernel.launches]
    assert "__int_as_float(0x40200000)" in codes[0]  # 2.5 as float32
    assert "__int_as_float(0x40600000)" in codes[2]  # 3.5
    assert "const double _x1" in codes[1]


def test_fuse_aliased_in_place_runs_unfused(fake):
    @ad.fuse()
    def f(x, y):
        x += y
        return x

    x = farr(fake, (4,), "f")
    fake.ops.clear()
    f(x, x)  # both the same array: unfused (recorded on the session)
    assert [op[0] for op in fake.ops] == ["add"]


# -- (b) NVRTC compile tests ---------------------------------------------

def _load_nvrtc() -> Any:
    for name in ("/usr/local/cuda/lib64/libnvrtc.so",
                 ctypes.util.find_library("nvrtc") or "", "libnvrtc.so",
                 "libnvrtc.so.13", "libnvrtc.so.12"):
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


_NVRTC = _load_nvrtc()
needs_nvrtc = pytest.mark.skipif(_NVRTC is None, reason="no libnvrtc")


def nvrtc_compile(code: str, arch: str = "sm_90", cubin: bool = False
                  ) -> tuple[bool, str, bytes]:
    """Compiles ``code`` (options as the server's: the architecture only);
    returns (ok, log, cubin or PTX)."""
    lib = _NVRTC
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), code.encode(),
                                  b"kernel.cu", 0, None, None) == 0
    opts = [f"--gpu-architecture={arch}".encode()]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    ok = lib.nvrtcCompileProgram(prog, len(opts), arr) == 0
    n = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    lib.nvrtcGetProgramLog(prog, log)
    image = b""
    if ok and cubin:
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value)
        lib.nvrtcGetCUBIN(prog, buf)
        image = buf.raw
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return ok, log.value.decode(errors="replace"), image


def assert_compiles(code: str) -> None:
    ok, log, _ = nvrtc_compile(code)
    if not ok:
        lines = code.splitlines()
        start = next(i for i, ln in enumerate(lines)
                     if "ARRAYD_FUSION_CUH_" in ln or "USERKERNEL_CUH_" in ln)
        pytest.fail(f"NVRTC failed:\n{log}\n--- generated code (after the "
                    f"prelude) ---\n" + "\n".join(
                        f"{i + 1:4} {ln}" for i, ln in enumerate(lines)
                        if i > len(lines) - 80 or i < start))


def _elementwise_cases(s):
    """(id, builder): each builder calls kernels on fake arrays of s."""
    cases = []
    for dt in ALL_DTYPES:
        def add(dt=dt):
            ad.ElementwiseKernel("T x, T y", "T z", "z = x + y", "add_k")(
                farr(s, (3, 4), dt), farr(s, (4,), dt))
        cases.append((f"add-{dt.char}", add))

    def raw():
        ad.ElementwiseKernel(
            "raw T x, int32 n", "T y",
            "y = x[i % n] + x.size() + x.shape()[0] + _ind.size()", "raw_k")(
            farr(s, (3, 4), "d"), 5, size=7)
        ad.ElementwiseKernel(
            "raw T x", "int32 y",
            "ptrdiff_t idx[] = {i / 12, i / 4 % 3, i % 4}; y = x[idx]",
            "idx_k")(farr(s, (2, 3, 4), "i"), farr(s, (2, 3, 4), "i"))
    cases.append(("raw", raw))

    def options():
        ad.ElementwiseKernel(
            "T x, _non_const T w", "T y", "w = x; y = w * n",
            "opt_k", preamble="#include <cupy/complex.cuh>\n",
            loop_prep="const T n = 2", after_loop="(void)0")(
            farr(s, (4,), "f"), farr(s, (4,), "f"))
    cases.append(("options", options))

    def zero_d():
        ad.ElementwiseKernel("T x, T y", "T z", "z = x * y", "z_k")(
            farr(s, (), "f"), farr(s, (), "f"))
        ad.ElementwiseKernel("T x, T y", "T z", "z = x * y", "z_k")(
            farr(s, (3,), "f"), farr(s, (), "f"))
    cases.append(("0d", zero_d))

    for dt in ("F", "D"):
        def cplx(dt=dt):
            ad.ElementwiseKernel(
                "T x, T y", "T z, float64 r",
                "z = exp(x) * conj(y) + abs(x) + sqrt(x) / (x + 1.0) - "
                "pow(x, 2) + log(y) * sin(x) + tanh(x) + x.real() + "
                "thrust::complex<float>(1, 2); r = arg(x) + norm(y) + "
                "x.imag() + (x == y) + isnan(x)", "c_k")(
                farr(s, (4,), dt), farr(s, (4,), dt))
        cases.append((f"complex-{dt}", cplx))

    def half():
        ad.ElementwiseKernel(
            "T x, float32 f", "T y, float64 d",
            "y = x * 2 + f; y += x; d = x; y = max(x, f) + sqrt(x) + "
            "(isnan(x) ? 1 : 0) + float16(d)", "h_k")(farr(s, (4,), "e"), 1.5)
    cases.append(("float16", half))
    return cases


def _reduction_cases(s):
    cases = []
    for dt in ALL_DTYPES:
        def rsum(dt=dt):
            k = ad.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0",
                                   "rsum")
            k(farr(s, (3, 4, 5), dt), axis=(0, 2))
            k(farr(s, (3, 4, 5), dt), axis=1, keepdims=True)
            k(farr(s, (6,), dt))
        cases.append((f"sum-{dt.char}", rsum))

    def others():
        ad.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)",
                           "0", "l2norm")(farr(s, (8, 3), "f"), axis=0)
        ad.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", None,
                           "rmax")(farr(s, (8, 3), "f"), axis=1)
        ad.ReductionKernel("T x, raw T w, float32 c", "T y, int64 n",
                           "x * w[_J] * c", "a + b", "y = a, n = _i",
                           "0", "weighted", reduce_type="double")(
            farr(s, (4, 5), "f"), farr(s, (4,), "f"), 2.0, axis=0)
        ad.ReductionKernel("T x, T y", "T z", "x * y", "a + b", "z = a", "0",
                           "dot")(farr(s, (4, 5), "D"), farr(s, (5,), "D"),
                                  axis=1)
        _userkernel.create_reduction_func(
            "my_sum", ("b->b",), ("in0", "a + b", "out0 = a", None), 0)(
                farr(s, (100, 3), "b"), axis=0)
    cases.append(("others", others))
    return cases


def _fusable_ufuncs(dt: np.dtype, nin: int) -> list[Any]:
    """The arrayd ufuncs of ``nin`` inputs that take ``dt`` (some loop
    fits) and that the fusion compiles (for float16: not nextafter)."""
    out = []
    for name, uf in sorted(_fusion._math.BY_NAME.items()):
        if uf.nin != nin or name not in _fusion._SUPPORTED:
            continue
        try:
            loop = uf.resolve((dt,) * nin)
        except TypeError:
            continue
        if name in _fusion._NO_HALF and loop[-1] == np.float16:
            continue
        out.append(uf)
    return out


def _fusion_cases(s):
    cases = []
    for dt in ALL_DTYPES:
        for nin in (1, 2):
            def every(dt=dt, nin=nin):
                ufs = _fusable_ufuncs(dt, nin)
                f = ad.fuse(lambda *xs: tuple(u(*xs) for u in ufs))
                f(*[farr(s, (3, 4), dt) for _ in range(nin)])
                assert plan_of(f) is not None, "not fused"
            cases.append((f"ufuncs{nin}-{dt.char}", every))
        for op in ("sum", "prod", "mean", "max", "min", "all", "any"):
            if dt.kind == "c" and op in ("max", "min"):
                continue

            def red(dt=dt, op=op):
                f = ad.fuse(lambda x, y: getattr(ad, op)(x + y, axis=(0, 2))
                            * 2)
                f(farr(s, (3, 4, 5), dt), farr(s, (5,), dt))
                assert plan_of(f) is not None, "not fused"
            cases.append((f"{op}-{dt.char}", red))

    def misc():
        f = ad.fuse(lambda x, y, c: (ad.where(c, x, y).real.astype("f2") + x.real,
                                     x.imag))
        f(farr(s, (4,), "D"), farr(s, (4,), "D"), farr(s, (4,), "?"))
        assert plan_of(f) is not None

        def inplace(x, y, z):
            ad.add(x, y, out=z)
            z[...] = z * 2
            x += 1
            return z
        f = ad.fuse(inplace)
        f(farr(s, (4,), "i"), farr(s, (4,), "i"), farr(s, (4,), "f"))
        assert plan_of(f) is not None
    cases.append(("misc", misc))
    return cases


_COMPILE_CASES = ([("elementwise-" + i, b) for i, b in _elementwise_cases(None)]
                  + [("reduction-" + i, b) for i, b in _reduction_cases(None)]
                  + [("fuse-" + i, b) for i, b in _fusion_cases(None)])


@needs_nvrtc
@pytest.mark.parametrize("case", [c[0] for c in _COMPILE_CASES])
def test_generated_code_compiles(fake, case):
    builders = dict(_elementwise_cases(fake) + [
        ("r-" + i, b) for i, b in _reduction_cases(fake)] + [
        ("f-" + i, b) for i, b in _fusion_cases(fake)])
    kind, _, name = case.partition("-")
    key = {"elementwise": name, "reduction": "r-" + name,
           "fuse": "f-" + name}[kind]
    builders[key]()
    codes = list(dict.fromkeys(l.kernel.code for l in CaptureKernel.launches))
    assert codes
    for code in codes:
        assert_compiles(code)


@needs_nvrtc
def test_a_compile_error_is_the_users():
    """A mistake in the user's code is reported by NVRTC (the server turns
    it into CompileException); the prelude itself compiles clean."""
    ok, log, _ = nvrtc_compile(_userkernel.prelude() + _fusion._functors()
                               + '\nextern "C" __global__ void k() {}\n')
    assert ok and "warning" not in log, log
    ok, log, _ = nvrtc_compile(_userkernel.prelude()
                               + '\nextern "C" __global__ void k() { y = 1; }')
    assert not ok and "identifier \"y\" is undefined" in log


# -- (c) the GPU through the CUDA driver API ------------------------------

class _Cuda:
    """The CUDA driver API through ctypes: the primary context of device 0,
    device memory, modules compiled with NVRTC, launches."""

    def __init__(self) -> None:
        lib = ctypes.CDLL("libcuda.so.1")
        self.lib = lib
        u64, sz = ctypes.c_uint64, ctypes.c_size_t
        lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(u64), sz]
        lib.cuMemFree_v2.argtypes = [u64]
        lib.cuMemcpyHtoD_v2.argtypes = [u64, ctypes.c_void_p, sz]
        lib.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, u64, sz]
        lib.cuMemsetD8_v2.argtypes = [u64, ctypes.c_ubyte, sz]
        lib.cuModuleLoadData.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                         ctypes.c_void_p]
        lib.cuModuleGetFunction.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                            ctypes.c_void_p, ctypes.c_char_p]
        lib.cuLaunchKernel.argtypes = (
            [ctypes.c_void_p] + [ctypes.c_uint] * 7
            + [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
               ctypes.c_void_p])
        self._check(lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self._check(lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        major, minor = ctypes.c_int(), ctypes.c_int()
        lib.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)
        lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)
        self.arch = f"sm_{major.value}{minor.value}"
        ctx = ctypes.c_void_p()
        self._check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev),
                    "cuDevicePrimaryCtxRetain")
        self._check(lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        self._functions: dict[tuple[str, str], ctypes.c_void_p] = {}
        self._images: list[Any] = []

    @staticmethod
    def _check(status: int, what: str) -> None:
        if status != 0:
            raise RuntimeError(f"{what} failed with CUDA error {status}")

    def alloc(self, nbytes: int) -> int:
        p = ctypes.c_uint64()
        self._check(self.lib.cuMemAlloc_v2(ctypes.byref(p), max(nbytes, 16)),
                    "cuMemAlloc")
        self.lib.cuMemsetD8_v2(p.value, 0xff, max(nbytes, 16))  # not zeros
        return p.value

    def free(self, ptr: int) -> None:
        self.lib.cuMemFree_v2(ptr)

    def htod(self, ptr: int, a: np.ndarray) -> None:
        a = np.ascontiguousarray(a)
        self._check(self.lib.cuMemcpyHtoD_v2(ptr, a.ctypes.data, a.nbytes),
                    "cuMemcpyHtoD")

    def dtoh(self, a: np.ndarray, ptr: int) -> None:
        self._check(self.lib.cuMemcpyDtoH_v2(a.ctypes.data, ptr, a.nbytes),
                    "cuMemcpyDtoH")

    def function(self, code: str, name: str) -> ctypes.c_void_p:
        fn = self._functions.get((code, name))
        if fn is None:
            ok, log, image = nvrtc_compile(code, self.arch, cubin=True)
            if not ok:
                raise _kernel.CompileException(log, code, name)
            module = ctypes.c_void_p()
            data = ctypes.create_string_buffer(image, len(image))
            self._check(self.lib.cuModuleLoadData(ctypes.byref(module), data),
                        "cuModuleLoadData")
            self._images.append(data)
            fn = ctypes.c_void_p()
            self._check(self.lib.cuModuleGetFunction(ctypes.byref(fn), module,
                                                     name.encode()),
                        "cuModuleGetFunction")
            self._functions[(code, name)] = fn
        return fn

    def launch(self, fn: Any, grid: tuple[int, ...], block: tuple[int, ...],
               values: list[bytes], shared_mem: int) -> None:
        bufs = [ctypes.create_string_buffer(v, 16) for v in values]
        params = (ctypes.c_void_p * max(len(bufs), 1))(
            *[ctypes.addressof(b) for b in bufs])
        g = list(grid) + [1] * (3 - len(grid))
        b = list(block) + [1] * (3 - len(block))
        self._check(self.lib.cuLaunchKernel(fn, *g, *b, shared_mem, None,
                                            params, None), "cuLaunchKernel")
        self._check(self.lib.cuCtxSynchronize(), "the kernel")


def _open_cuda() -> _Cuda | None:
    if _NVRTC is None:
        return None
    try:
        return _Cuda()
    except (OSError, RuntimeError):
        return None


_CUDA: Any = "unopened"


class DeviceSession(FakeSession):
    """Arrays in the memory of the local GPU (through the driver API): the
    kernels' "empty" outputs are allocated; any other op means the fusion
    ran unfused, which the driver level cannot do."""

    def __init__(self, cuda: _Cuda) -> None:
        super().__init__()
        self.cuda = cuda
        self.ptrs: dict[int, int] = {}
        self._owned: list[int] = []

    def record(self, name, inputs, outputs, attrs=None, **kwargs) -> None:
        if name != "empty":
            raise AssertionError(f"op {name!r} reached the device: the "
                                 "function was not fused")
        dt = np.dtype(attrs["dtype"])
        self.ptrs[outputs[0]] = self._alloc(math.prod(attrs["shape"])
                                            * dt.itemsize)

    def _alloc(self, nbytes: int) -> int:
        p = self.cuda.alloc(nbytes)
        self._owned.append(p)
        return p

    def upload(self, a: np.ndarray) -> ndarray:
        a = np.array(a, order="C")  # (ascontiguousarray makes 0-d arrays 1-d)
        h = self.new_handle()
        self.ptrs[h] = self._alloc(a.nbytes)
        self.cuda.htod(self.ptrs[h], a)
        return ndarray._new(self, h, a.shape, a.dtype)

    def view(self, base: ndarray, key: Any) -> ndarray:
        """base[key] (basic indexing), as a strided view of its memory."""
        st = base._full_strides()
        lo = sum(s * (n - 1) for s, n in zip(st, base.shape) if s < 0)
        hi = sum(s * (n - 1) for s, n in zip(st, base.shape) if s > 0)
        raw = np.zeros(hi - lo + base.dtype.itemsize, np.uint8)
        host = np.ndarray(base.shape, base.dtype, raw, -lo, st)
        v = host[key]
        offset = (v.__array_interface__["data"][0]
                  - host.__array_interface__["data"][0])
        h = self.new_handle()
        self.ptrs[h] = self.ptrs[base._handle] + offset
        return ndarray._new(self, h, v.shape, v.dtype, v.strides, base)

    def close(self) -> None:
        for p in self._owned:
            self.cuda.free(p)


def _strided(buf: np.ndarray, lo: int, a: ndarray) -> np.ndarray:
    """The elements of a from a host copy of its bytes [lo, hi]."""
    st = a._full_strides()
    flat = np.frombuffer(buf.tobytes(), np.uint8)
    out = np.empty(a.shape, a.dtype)
    for idx in np.ndindex(*a.shape):
        off = -lo + sum(i * s for i, s in zip(idx, st))
        out[idx] = flat[off:off + a.dtype.itemsize].view(a.dtype)[0]
    return out


class DriverKernel:
    """Stands in for RawKernel at level (c): compiles with NVRTC and
    launches through the driver API, with RawKernel's argument rules."""

    def __init__(self, code: str, name: str, options=()):
        self.code, self.name = code, name

    def __call__(self, grid, block, args, shared_mem=0):
        cuda = _CUDA
        fn = cuda.function(self.code, self.name)
        values = []
        for a in args:
            if isinstance(a, ndarray):
                values.append(ctypes.c_uint64(a._session.ptrs[a._handle]).value
                              .to_bytes(8, "little"))
            else:
                values.append(_kernel._scalar_bytes(a))
        cuda.launch(fn, tuple(grid), tuple(block), values, shared_mem)


class Dev:
    """The GPU under test: ``put`` makes an arrayd array of a NumPy one,
    ``get`` the reverse, ``view`` a basic-index view; ``kind`` is "driver"
    or "server"."""

    def __init__(self, kind: str, session: Any = None):
        self.kind = kind
        self.session = session

    def put(self, a: Any) -> ndarray:
        a = np.asarray(a)
        if self.kind == "driver":
            return self.session.upload(a)
        return ad.asarray(a)

    def get(self, a: ndarray) -> np.ndarray:
        if self.kind == "driver":
            if not a.shape or a._is_c():
                out = np.empty(a.shape, a.dtype)
                self.session.cuda.dtoh(out, self.session.ptrs[a._handle])
                return out
            st = a._full_strides()
            lo = sum(s * (n - 1) for s, n in zip(st, a.shape) if s < 0)
            hi = sum(s * (n - 1) for s, n in zip(st, a.shape) if s > 0)
            buf = np.empty(hi - lo + a.dtype.itemsize, np.uint8)
            self.session.cuda.dtoh(buf, self.session.ptrs[a._handle] + lo)
            return _strided(buf, lo, a)
        return a.get()

    def view(self, a: ndarray, key: Any) -> ndarray:
        if self.kind == "driver":
            return self.session.view(a, key)
        return a[key]

    def transpose(self, a: ndarray, axes: tuple[int, ...]) -> ndarray:
        if self.kind == "driver":
            s = self.session
            h = s.new_handle()
            s.ptrs[h] = s.ptrs[a._handle]
            st = a._full_strides()
            return ndarray._new(s, h, tuple(a.shape[i] for i in axes), a.dtype,
                                tuple(st[i] for i in axes), a)
        return a.transpose(axes)


_SERVER_RUNS_USER_KERNELS: list[bool] = []


def _server_allows_user_kernels() -> bool:
    """Whether the test server is CUDA with --allow-user-kernels (asked
    once: a module_load of an empty kernel)."""
    if not _SERVER_RUNS_USER_KERNELS:
        try:
            s = ad.current_session()
            ok = s.capabilities.active_backend == "cuda"
            if ok:
                ad.RawKernel('extern "C" __global__ void probe() {}',
                             "probe").compile()
        except (RuntimeError, NotImplementedError, OSError):
            ok = False
        _SERVER_RUNS_USER_KERNELS.append(ok)
    return _SERVER_RUNS_USER_KERNELS[0]


@pytest.fixture(params=["driver", "server"])
def dev(request, monkeypatch):
    global _CUDA
    if request.param == "driver":
        if _CUDA == "unopened":
            _CUDA = _open_cuda()
        if _CUDA is None:
            pytest.skip("no GPU here (CUDA driver API through ctypes)")
        monkeypatch.setattr(_userkernel, "RawKernel", DriverKernel)
        session = DeviceSession(_CUDA)
        yield Dev("driver", session)
        session.close()
    else:
        if not _server_allows_user_kernels():
            pytest.skip("the test server is not a CUDA server with "
                        "--allow-user-kernels")
        yield Dev("server")


def rnd(shape, dtype, seed=0, low=-3, high=3):
    r = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return r.integers(0, 2, shape).astype(dt)
    if dt.kind == "u":
        return r.integers(0, max(high, 2), shape).astype(dt)
    if dt.kind in "i":
        return r.integers(low, high, shape).astype(dt)
    v = r.uniform(low, high, shape)
    if dt.kind == "c":
        v = v + 1j * r.uniform(low, high, shape)
    return v.astype(dt)


def close(actual, expected, dtype=None):
    dt = np.dtype(dtype or expected.dtype)
    if dt.kind in "biu":
        assert_array_equal(actual, expected)
    else:
        tol = {2: 3e-3, 4: 1e-5, 8: 1e-12, 16: 1e-12}[dt.itemsize] if \
            dt.kind == "f" else {8: 1e-5, 16: 1e-12}[dt.itemsize]
        assert_allclose(actual, expected, rtol=tol * 10, atol=tol * 10)


# -- (c)/(d) ElementwiseKernel on the GPU --------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.char)
def test_gpu_elementwise_broadcast(dev, dtype):
    x, y = rnd((3, 4), dtype, 1), rnd((4,), dtype, 2)
    k = ad.ElementwiseKernel("T x, T y", "T z", "z = x * y", "mul_k")
    close(dev.get(k(dev.put(x), dev.put(y))), x * y)


def test_gpu_elementwise_strided_operands(dev):
    a = rnd((6, 8), "f8", 3)
    x = dev.put(a)
    t = dev.view(x, (slice(None, None, -2), slice(1, None, 3)))  # negative, sliced
    w = dev.view(x, (slice(None), 2))
    k = ad.ElementwiseKernel("T x, T y, float64 c", "T z", "z = x - y * c")
    close(dev.get(k(t, dev.view(w, (slice(None, None, -2), None)), 0.5)),
          a[::-2, 1::3] - a[::-2, 2][:, None] * 0.5)
    # Writing into a strided view of an output.
    out = dev.put(np.zeros((6, 8)))
    ov = dev.view(out, (slice(None), slice(None, None, 2)))
    ad.ElementwiseKernel("T x", "T y", "y = x + 1")(
        dev.view(x, (slice(None), slice(None, None, 2))), ov)
    exp = np.zeros((6, 8))
    exp[:, ::2] = a[:, ::2] + 1
    assert_array_equal(dev.get(out), exp)


def test_gpu_elementwise_raw_and_size(dev):
    a = rnd((10,), "i4", 4)
    rev = ad.ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - i - 1]",
                               "rev_k")
    assert_array_equal(dev.get(rev(dev.put(a), size=10)), a[::-1])
    b = np.arange(24, dtype="i4").reshape(2, 3, 4)
    idx = ad.ElementwiseKernel(
        "raw T x", "int32 y",
        "ptrdiff_t idx[] = {i / 12, i / 4 % 3, i % 4}; y = x[idx] + x.size()",
        "idx_k")
    out = dev.put(np.zeros((2, 3, 4), "i4"))
    idx(dev.put(b), out)
    assert_array_equal(dev.get(out), b + 24)
    s = ad.ElementwiseKernel("raw T x", "int64 y",
                             "y = x.shape()[i] * 100 + x.strides()[i]",
                             "shape_k")
    assert_array_equal(dev.get(s(dev.put(b), size=3)), [248, 316, 404])


@pytest.mark.parametrize("typ", [int, float, bool])
def test_gpu_elementwise_python_and_numpy_scalars(dev, typ):
    dt = np.dtype(typ)
    a = rnd((4, 5), dt, 5)
    k = ad.ElementwiseKernel("T x, T y", "T z", "z = x + y")
    assert_array_equal(dev.get(k(dev.put(a), typ(2))), a + dt.type(2))
    for value in (-1, 2 ** 32, 2 ** 63 - 1):
        x = np.arange(24).reshape(2, 3, 4).astype("q")
        y = np.array(value).astype("q")[()]
        assert_array_equal(dev.get(k(dev.put(x), y)), x + y)


def test_gpu_elementwise_block_size(dev):
    a = rnd((2, 3, 4), "f", 6)
    k = ad.ElementwiseKernel("T x, T y", "T z", "z = x + y")
    close(dev.get(k(dev.put(a), 1, block_size=1)), a + 1)
    close(dev.get(k(dev.put(a), 1, block_size=1024)), a + 1)


def test_gpu_elementwise_complex_and_half(dev):
    z = rnd((16,), "D", 7)
    k = ad.ElementwiseKernel(
        "T x", "T y, float64 r",
        "y = exp(x) * conj(x) + sqrt(x) / (x + 1.0) - x * x; "
        "r = abs(x) + arg(x) + norm(x) + x.real() * x.imag()", "cplx_k")
    y, r = k(dev.put(z))
    close(dev.get(y), np.exp(z) * np.conj(z) + np.sqrt(z) / (z + 1) - z * z)
    close(dev.get(r), np.abs(z) + np.angle(z) + np.abs(z) ** 2 + z.real * z.imag)
    zf = z.astype("F")
    close(dev.get(ad.ElementwiseKernel("T x", "T y", "y = log(x) + pow(x, 2.0f)")(
        dev.put(zf))), np.log(zf) + zf ** 2)
    h = rnd((64,), "e", 8)
    hk = ad.ElementwiseKernel("T x, float32 f", "T y, float32 g",
                              "y = x * 2 + f; g = x", "half_k")
    y, g = hk(dev.put(h), 0.25)
    assert dev.get(y).dtype == np.float16
    assert_array_equal(dev.get(y), (h.astype("f") * 2 + 0.25).astype("e"))
    assert_array_equal(dev.get(g), h.astype("f"))


# -- (c)/(d) ReductionKernel on the GPU ----------------------------------------

SUM = ("T x", "T out", "x", "a + b", "out = a", "0", "my_sum")


@pytest.mark.parametrize("shape,axis", [
    ((2 ** 9,), None), ((2 ** 9 - 1,), None), ((2 ** 9 + 1,), 0),
    ((5, 1000), 0), ((5, 1000), 1), ((513, 1000), 0), ((513, 1000), 1),
    ((31, 65), 1), ((2, 4, 5, 3), (1, 2)), ((4, 3, 2, 4, 3, 2, 2), (1, 4, 3, 6)),
    ((3, 0, 2), 2), ((1, 1), 0), ((), None),
    ((513, 256 * 256 + 1), 0), ((513, 256 * 256 + 1), 1),
    ((2 ** 33 // 512, 1), 1), ((2 ** 33 // 512, 1), 0)])
def test_gpu_reduction_sum_shapes(dev, shape, axis):
    a = rnd(shape, "b", 9, -5, 5)
    r = ad.ReductionKernel(*SUM)(dev.put(a), axis=axis)
    assert_array_equal(dev.get(r), a.sum(axis=axis, dtype="b"))


@pytest.mark.parametrize("shape,trans,axis", [
    ((2, 4, 3), (2, 1, 0), (0, 1)), ((2, 4, 5, 3), (3, 2, 1, 0), (1, 2)),
    ((2, 4, 3), (2, 1, 0), (1, 2)), ((0, 4, 3), (2, 1, 0), (0, 1)),
    ((2, 4, 3), (2, 1, 0), (0, 1, 2))])
def test_gpu_reduction_noncontiguous(dev, shape, trans, axis):
    a = rnd(shape, "f8", 10)
    t = dev.transpose(dev.put(a), trans)
    r = ad.ReductionKernel(*SUM)(t, axis=axis, keepdims=True)
    close(dev.get(r), a.transpose(trans).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.char)
def test_gpu_reduction_dtypes(dev, dtype):
    a = rnd((7, 33, 5), dtype, 11, 0, 3)
    r = ad.ReductionKernel(*SUM)(dev.put(a), axis=(0, 2))
    expect = a.sum(axis=(0, 2), dtype=dtype) if dtype.kind != "b" else \
        np.logical_or.reduce(a, axis=(0, 2))
    close(dev.get(r), expect, dtype)


def test_gpu_reduction_without_identity_and_extras(dev):
    a = rnd((9, 700), "f", 12) - 10  # all negative: a 0 start would show
    mx = ad.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", None,
                            "rmax")
    assert_array_equal(dev.get(mx(dev.put(a), axis=1)), a.max(axis=1))
    assert_array_equal(dev.get(mx(dev.put(a), axis=0)), a.max(axis=0))
    w = rnd((9,), "f", 13)
    k = ad.ReductionKernel("T x, raw T w, float32 c", "float64 y",
                           "x * w[_J] * c", "a + b", "y = a", "0",
                           "weighted", reduce_type="double")
    close(dev.get(k(dev.put(a), dev.put(w), 2.0, axis=0)),
          (a * w[:, None] * 2.0).astype("f8").sum(axis=0), "f")
    l2 = ad.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0",
                            "l2norm")
    out = dev.put(np.zeros((9,), "f"))
    assert l2(dev.put(a), axis=1, out=out) is out
    close(dev.get(out), np.sqrt((a * a).sum(axis=1)))
    f = _userkernel.create_reduction_func(
        "my_sum", ("b->b",), ("in0", "a + b", "out0 = a", None), 0)
    b = rnd((1000, 3), "b", 14, -5, 5)
    assert_array_equal(dev.get(f(dev.put(b), axis=0)), b.sum(axis=0, dtype="b"))


# -- (c)/(d) fuse on the GPU -------------------------------------------------

def fused(dev, body, *args, check_unfused=True):
    """body(xp) is the function for module xp; returns (fused result on
    dev as NumPy, NumPy's result); asserts the call was fused."""
    f = ad.fuse(body(ad))
    dargs = [dev.put(a) if isinstance(a, np.ndarray) else a for a in args]
    r = f(*dargs)
    assert all(p is not None for p in f._memo.values()), "not fused"
    expected = body(np)(*[a.copy() if isinstance(a, np.ndarray) else a
                          for a in args])
    got = tuple(dev.get(v) for v in r) if isinstance(r, tuple) else dev.get(r)
    if check_unfused and dev.kind == "server":
        plain = body(ad)(*[ad.asarray(a) if isinstance(a, np.ndarray) else a
                           for a in args])
        if isinstance(plain, tuple):
            for p, g in zip(plain, got):
                assert p.dtype == g.dtype and p.shape == g.shape
        else:
            assert plain.dtype == got.dtype and plain.shape == got.shape
    return got, expected, dargs


def test_gpu_fuse_elementwise(dev):
    x, y = rnd((3, 4), "f", 15), rnd((4,), "f8", 16)
    got, exp, _ = fused(dev, lambda xp: lambda x, y, a: (
        xp.exp(x) * y + a, xp.maximum(x, 0.5) - x // 2), x, y, np.float32(2))
    for g, e in zip(got, exp):
        assert g.dtype == e.dtype
        close(g, e, "f")  # exp(x) is float32's, then promoted
    # Weak Python scalars keep float32; 0-d arrays are strong (NEP 50).
    got, exp, _ = fused(dev, lambda xp: lambda x: x * 2.5 + 1, x)
    assert got.dtype == np.float32 == exp.dtype
    close(got, exp)
    got, exp, _ = fused(dev, lambda xp: lambda x, n: x * n, x,
                        np.array(3.0))
    assert got.dtype == exp.dtype == np.float64
    close(got, exp)


def test_gpu_fuse_in_place(dev):
    x, y = rnd((3, 4), "i4", 17), rnd((3, 4), "i4", 18)

    def body(xp):
        def f(x, y, z):
            xp.add(x, y, out=z)
            x += y
            x += y
            return z * 2
        return f

    z = np.zeros((3, 4), "i4")
    f = ad.fuse(body(ad))
    dx, dy, dz = dev.put(x), dev.put(y), dev.put(z)
    r = f(dx, dy, dz)
    assert_array_equal(dev.get(r), (x + y) * 2)
    assert_array_equal(dev.get(dx), x + 2 * y)
    assert_array_equal(dev.get(dz), x + y)


@pytest.mark.parametrize("op", ["sum", "prod", "mean", "max", "min", "all",
                                "any"])
@pytest.mark.parametrize("dtype", ["f", "d", "i", "e", "D", "?", "B"])
def test_gpu_fuse_reductions(dev, op, dtype):
    if np.dtype(dtype).kind == "c" and op in ("max", "min"):
        pytest.skip("complex max/min: see the elementwise ones")
    x = rnd((6, 50, 3), dtype, 19, -2, 3)
    y = rnd((3,), dtype, 20, 1, 3)
    if op == "prod":  # products of 900 values that neither overflow nor vanish
        x = rnd((6, 50, 3), dtype, 19, 1, 3) if np.dtype(dtype).kind in "iub" \
            else (1 + (rnd((6, 50, 3), dtype, 19) / 30)).astype(dtype)
        y = np.ones((3,), dtype)
    for axis in (None, 1, (0, 2)):
        got, exp, _ = fused(dev, lambda xp, axis=axis: lambda x, y: getattr(
            xp, op)(x * y, axis=axis) + 1, x, y)
        assert got.dtype == exp.dtype, (op, dtype)
        close(got, exp)


def test_gpu_fuse_reduction_post_map_and_nan(dev):
    x = rnd((40, 7), "d", 21)
    x[3, 2] = np.nan

    def body(xp):
        def f(x, n):
            m = xp.max(x, axis=0, keepdims=True)
            return m / n, xp.sqrt(xp.abs(m)) * 2 + n
        return f

    got, exp, _ = fused(dev, body, x, np.array(4.0))
    assert np.isnan(got[0][0, 2]) and np.isnan(got[1][0, 2])
    for g, e in zip(got, exp):
        close(g, e)


def test_gpu_fuse_where_astype_views_setitem(dev):
    z = rnd((5, 6), "D", 23)
    c = rnd((6,), "?", 24)
    w = rnd((5, 6), "f", 25)

    def body(xp):
        def f(z, c, w):
            r = xp.where(c, z.real, z.imag).astype("f") * w
            w[...] = xp.abs(z) + r
            return r, xp.conj(z) * 1j, (z.real > 0).astype("i2") - c
        return f

    got, exp, dargs = fused(dev, body, z, c, w)
    for g, e in zip(got, exp):
        assert g.dtype == e.dtype
        close(g, e, "f")
    w2 = w.copy()
    body(np)(z, c, w2)
    close(dev.get(dargs[2]), w2)


def test_gpu_elementwise_in_place_and_code_pieces(dev):
    a = rnd((7,), "d", 26)
    k = ad.ElementwiseKernel(
        "_non_const T x, T y", "T z",
        "z = twice(x) + y + base; x = -x", "pieces",
        preamble="template <typename T> __device__ T twice(T v) { return 2 * v; }",
        loop_prep="const T base = 10", after_loop="")
    x = dev.put(a)
    z = k(x, 1.0)
    close(dev.get(z), 2 * a + 1 + 10)
    close(dev.get(x), -a)


def _ufunc_inputs(dt: np.dtype, nin: int, seed: int) -> list[np.ndarray]:
    """Inputs where every ufunc is defined alike in NumPy and arrayd: no
    integer zeros (division, reciprocal), reals in (0.2, 0.9)."""
    if dt.kind in "iu":
        xs = [rnd((64,), dt, seed + i, 1 if dt.kind == "u" else -7, 8)
              for i in range(nin)]
        return [np.where(x == 0, 3, x).astype(dt) for x in xs]
    return [rnd((64,), dt, seed + i, 0.2, 0.9) for i in range(nin)]


@pytest.mark.parametrize("dtype", NUMERIC + [np.dtype("?")],
                         ids=lambda d: d.char)
@pytest.mark.parametrize("nin", [1, 2])
def test_gpu_fuse_every_ufunc(dev, dtype, nin):
    """Every fusable ufunc of ``dtype``, fused into one kernel, against
    NumPy's ufunc of the same name (inputs where all of them are defined)."""
    ufs = _fusable_ufuncs(dtype, nin)
    xs = _ufunc_inputs(dtype, nin, 22)
    f = ad.fuse(lambda *a: tuple(u(*a) for u in ufs))
    r = f(*[dev.put(a) for a in xs])
    assert all(p is not None for p in f._memo.values()), "not fused"
    with np.errstate(all="ignore"):
        for u, got in zip(ufs, r):
            name = u.__name__
            g = dev.get(got)
            # arrayd's loop decides the dtype (NumPy's versions differ).
            assert g.dtype == u.resolve((dtype,) * nin)[-1], name
            if name == "power" and dtype.kind in "iu":
                ok = xs[1] >= 0  # NumPy refuses negative integer powers
                exp = np.power(xs[0], np.where(ok, xs[1], 0))
                assert_array_equal(g[ok], exp[ok], err_msg=name)
                continue
            exp = getattr(np, name)(*xs).astype(g.dtype)
            if name in ("left_shift", "right_shift") and dtype.kind in "iu":
                ok = (xs[1] >= 0) & (xs[1] < dtype.itemsize * 8)
                assert_array_equal(g[ok], exp[ok], err_msg=name)
                continue
            try:
                close(g, exp)
            except AssertionError as e:
                raise AssertionError(f"{name} ({dtype}): {e}") from None


# -- (d) the server: errors where user kernels cannot run --------------------

def test_non_cuda_server_refuses_at_once():
    """Without a CUDA server that allows user kernels, the first call fails
    at once with the server's error (construction needs no server)."""
    if _server_allows_user_kernels():
        pytest.skip("this server runs user kernels")
    k = ad.ElementwiseKernel("T x", "T y", "y = x * 2")
    r = ad.ReductionKernel(*SUM)
    x = ad.arange(4, dtype="f")
    for call in (lambda: k(x), lambda: r(x)):
        t = time.monotonic()
        with pytest.raises((RuntimeError, NotImplementedError)) as info:
            call()
        assert time.monotonic() - t < 10
        text = str(info.value)
        assert "allow-user-kernels" in text or "CUDA server" in text, text
    assert_array_equal(x.get(), np.arange(4, dtype="f"))  # the session lives on


def test_fuse_unfused_on_other_servers():
    """fuse runs the function as it is where user kernels cannot run, with
    the same results (and on a CUDA server, fused ones equal them)."""
    def body(xp):
        def f(x, y):
            z = x * y + 1
            x += z
            return xp.sum(z * 2, axis=0), x
        return f

    a, b = rnd((4, 5), "f", 30), rnd((5,), "f", 31)
    f = ad.fuse(body(ad))
    x = ad.asarray(a)
    s, x2 = f(x, ad.asarray(b))
    es, ex = body(np)(a.copy(), b)
    assert x2 is x
    close(x.get(), ex)
    close(s.get(), es)
