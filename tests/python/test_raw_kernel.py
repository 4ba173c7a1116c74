"""RawKernel and RawModule (arrayd._kernel) against NumPy.

User kernels need a CUDA server started with --allow-user-kernels (the
tests of launches run only there: tests/device_run.sh passes the flag in
ARRAYD_SERVER_ARGS); everywhere else the tests check the clear error.
The fault and cache tests start servers of their own.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

import arrayd as ad
from arrayd import _connect, _transport
from arrayd._errors import CompileException

ALLOWED = "--allow-user-kernels" in os.environ.get("ARRAYD_SERVER_ARGS", "")

ADD = r'''
extern "C" __global__ void add(const float* x, const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}
'''

TEMPLATES = r'''
template <typename T>
__global__ void axpy(T a, const T* x, T* y, long long n) {
  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
extern "C" __global__ void count(unsigned long long* out) {
  atomicAdd(out, 1ULL);
}
'''


def cuda_kernels(session) -> bool:
    return session.backend == "cuda" and ALLOWED


@pytest.fixture
def gpu(session):
    if not cuda_kernels(session):
        pytest.skip("user kernels need a CUDA server with --allow-user-kernels")
    return session


def test_without_a_cuda_server_with_the_flag_the_error_is_clear(session):
    if cuda_kernels(session):
        pytest.skip("this server runs user kernels")
    x = ad.zeros(4, dtype=np.float32)
    kernel = ad.RawKernel(ADD, "add")
    with pytest.raises((RuntimeError, NotImplementedError),
                       match="allow-user-kernels|CUDA server"):
        kernel((1,), (4,), (x, x, x, np.int32(4)))
    # The session keeps working.
    np.testing.assert_array_equal((x + 1).get(), np.ones(4, np.float32))


def test_argument_checks_need_no_server():
    kernel = ad.RawKernel(ADD, "add")
    assert kernel.name == "add" and kernel.code == ADD
    with pytest.raises(TypeError):
        ad.RawModule()
    with pytest.raises(TypeError):
        ad.RawModule(code=ADD, path="x.cubin")
    with pytest.raises(ad.cuda.driver.CUDADriverError, match="CUDA_ERROR_FILE_NOT_FOUND"):
        ad.RawModule(path="no-such-kernel.cubin")
    with pytest.raises(ValueError, match="nvrtc"):
        ad.RawModule(code=TEMPLATES, backend="nvcc", name_expressions=["axpy<float>"])
    # jitify is deprecated either way it is passed, as in CuPy 14.
    with pytest.warns(DeprecationWarning, match="jitify=True"):
        ad.RawKernel(ADD, "add", jitify=True)
    with pytest.warns(DeprecationWarning, match="Avoid passing.*jitify=False"):
        ad.RawModule(code=ADD, jitify=False)


def test_kernels_and_modules_pickle_without_their_session():
    import pickle
    kernel = ad.RawKernel(ADD, "add", options=("-DX=1",), enable_cooperative_groups=True)
    module = ad.RawModule(code=TEMPLATES, name_expressions=("axpy<float>",))
    k2 = pickle.loads(pickle.dumps(kernel))
    m2 = pickle.loads(pickle.dumps(module))
    assert (k2.name, k2.code, k2.options) == (kernel.name, ADD, kernel.options)
    assert k2.enable_cooperative_groups and k2.options.count("-rdc=true") == 1
    assert m2.code == TEMPLATES and m2.name_expressions == ("axpy<float>",)


def test_raw_kernel_adds(gpu):
    n = 1000
    x = ad.arange(n, dtype=np.float32)
    y = ad.full(n, 2.5, dtype=np.float32)
    z = ad.empty(n, dtype=np.float32)
    kernel = ad.RawKernel(ADD, "add")
    kernel(((n + 255) // 256,), (256,), (x, y, z, np.int32(n)))
    np.testing.assert_array_equal(z.get(), np.arange(n, dtype=np.float32) + 2.5)
    attrs = kernel.attributes
    assert attrs["max_threads_per_block"] >= 256
    assert kernel.num_regs == attrs["num_regs"] > 0


def test_raw_kernel_on_a_view_and_a_stream(gpu):
    n = 512
    base = ad.zeros(2 * n, dtype=np.float32)
    x = ad.ones(n, dtype=np.float32)
    kernel = ad.RawKernel(ADD, "add")
    stream = ad.cuda.Stream(non_blocking=True)
    with stream:
        kernel((2,), (256,), (x, x, base[n:], np.int32(n)))
    stream.synchronize()
    expect = np.zeros(2 * n, np.float32)
    expect[n:] = 2
    np.testing.assert_array_equal(base.get(), expect)


def test_raw_module_templates_and_python_scalars(gpu):
    module = ad.RawModule(code=TEMPLATES, options=("-std=c++17",),
                          name_expressions=("axpy<float>", "axpy<double>"))
    for dt, a in ((np.float32, np.float32(2)), (np.float64, 3.0)):
        x = ad.arange(100, dtype=dt)
        y = ad.ones(100, dtype=dt)
        module.get_function(f"axpy<{np.dtype(dt).name.replace('float32', 'float').replace('float64', 'double')}>")(
            (1,), (64,), (a, x, y, 100))
        np.testing.assert_allclose(y.get(), float(a) * np.arange(100, dtype=dt) + 1)
    out = ad.zeros(1, dtype=np.uint64)
    module.get_function("count")((4,), (128,), (out,))
    assert int(out.get()[0]) == 512
    with pytest.raises(ad.cuda.driver.CUDADriverError, match="CUDA_ERROR_NOT_FOUND.*no kernel"):
        module.get_function("missing")
    with pytest.raises(ad.cuda.driver.CUDADriverError, match="named symbol not found"):
        module.get_function("axpy<int>")  # not among its name expressions


WARNS = r'''
extern "C" __global__ void twice(float* x, int n) {
  int unused = 0;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2;
}
'''


def test_compile_log_goes_to_log_stream_also_from_the_cache(gpu):
    import io
    for _ in range(2):  # compiled, then the server's memory cache
        log = io.StringIO()
        module = ad.RawModule(code=WARNS)
        module.compile(log_stream=log)
        assert module.log == log.getvalue()
    kernel = ad.RawKernel(WARNS.replace("twice", "twice2") + "\n#warning made to warn\n",
                          "twice2")
    log = io.StringIO()
    kernel.compile(log_stream=log)
    assert "warning" in log.getvalue()
    x = ad.arange(8, dtype=np.float32)
    kernel((1,), (8,), (x, np.int32(8)))
    np.testing.assert_array_equal(x.get(), 2 * np.arange(8, dtype=np.float32))
    import pickle
    again = pickle.loads(pickle.dumps(kernel))  # after its session used it
    again((1,), (8,), (x, np.int32(8)))
    np.testing.assert_array_equal(x.get(), 4 * np.arange(8, dtype=np.float32))


COMPLEX = r'''
#include <cupy/complex.cuh>
template <typename T>
__global__ void square(T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * x[i];
}
'''

CUCOMPLEX = r'''
#include <cuComplex.h>
extern "C" __global__ void fma3(const cuFloatComplex* a, const cuFloatComplex* b,
                                cuDoubleComplex* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    cuFloatComplex p = cuCfmaf(a[i], b[i], make_cuFloatComplex(1.0f, cuCimagf(a[i])));
    out[i] = cuComplexFloatToDouble(cuCaddf(p, cuConjf(b[i])));
  }
}
'''


def test_cupy_headers_and_translated_cucomplex(gpu):
    names = ("square<complex<double>>", "square<int>")
    module = ad.RawModule(code=COMPLEX, name_expressions=names)
    z = (np.arange(10) + 1j * np.arange(10)[::-1]).astype(np.complex128)
    x = ad.asarray(z)
    module.get_function(names[0])((1,), (10,), (x, np.int32(10)))
    np.testing.assert_allclose(x.get(), z * z)
    a = (np.arange(6) - 2j).astype(np.complex64)
    b = (1 + 1j * np.arange(6)).astype(np.complex64)
    out = ad.zeros(6, dtype=np.complex128)
    kernel = ad.RawKernel(CUCOMPLEX, "fma3", translate_cucomplex=True)
    kernel((1,), (6,), (ad.asarray(a), ad.asarray(b), out, np.int32(6)))
    want = a * b + (1 + 1j * a.imag) + np.conj(b)
    np.testing.assert_allclose(out.get(), want.astype(np.complex128), rtol=1e-6)
    # An error's line number is the user's, not the prelude's.
    with pytest.raises(CompileException, match=r"kernel\.cu\(3\)"):
        ad.RawModule(code="#include <cupy/complex.cuh>\n\nnot C++;\n").compile()


def test_memory_pointers_are_kernel_arguments(gpu):
    kernel = ad.RawKernel(ADD, "add")
    x = ad.arange(100, dtype=np.float32)
    assert x.data.ptr == x.data.ptr  # the same block while x lives
    block = ad.cuda.memory.alloc(400)
    block.copy_from(x.data, 400)
    y = ad.ndarray((100,), np.float32, memptr=block)
    kernel((1,), (128,), (x.data, block, block + 0, np.int32(100)))
    np.testing.assert_array_equal(y.get(), 2 * np.arange(100, dtype=np.float32))
    kernel((1,), (64,), (x, x, block + 200, np.int32(50)))  # an offset
    np.testing.assert_array_equal(y.get()[50:], 2 * np.arange(50, dtype=np.float32))


DYNAMIC = r'''
extern "C" __global__ void child(float* x, int start) { x[start + threadIdx.x] = 1.0f; }
extern "C" __global__ void parent(float* x, int chunk) {
  child<<<1, chunk>>>(x, threadIdx.x * chunk);
}
'''


def test_dynamic_parallelism_is_linked_with_the_device_runtime(gpu):
    x = ad.zeros(64, dtype=np.float32)
    ad.RawKernel(DYNAMIC, "parent", options=("-dc",))((1,), (8,), (x, np.int32(8)))
    np.testing.assert_array_equal(x.get(), np.ones(64, np.float32))
    with pytest.raises(CompileException):  # device launches need -dc
        ad.RawKernel(DYNAMIC, "parent").compile()


def test_compiled_images_load_as_they_are(gpu, tmp_path):
    import shutil
    nvcc = shutil.which("nvcc") or (
        "/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if nvcc is None:
        pytest.skip("needs the CUDA toolkit's nvcc to make a CUBIN")
    cc = ad.cuda.Device().compute_capability  # "90"
    src = tmp_path / "add.cu"
    src.write_text(ADD)
    for flag, suffix in (("-cubin", ".cubin"), ("-ptx", ".ptx")):
        out = tmp_path / ("add" + suffix)
        subprocess.run([nvcc, f"-arch=sm_{cc}", flag, str(src), "-o", str(out)],
                       check=True)
        kernel = ad.RawModule(path=str(out)).get_function("add")
        x = ad.arange(10, dtype=np.float32)
        z = ad.empty(10, dtype=np.float32)
        kernel((1,), (32,), (x, x, z, np.int32(10)))
        np.testing.assert_array_equal(z.get(), 2 * np.arange(10, dtype=np.float32))
    bad = tmp_path / "bad.cubin"
    bad.write_bytes(b"not an image")
    with pytest.raises(ad.cuda.driver.CUDADriverError, match="CUDA_ERROR_"):
        ad.RawModule(path=str(bad)).get_function("add")


def test_compile_error_carries_the_log_and_the_session_survives(gpu):
    kernel = ad.RawKernel('extern "C" __global__ void k(float* x) { x[0] = nope; }', "k")
    x = ad.zeros(1, dtype=np.float32)
    with pytest.raises(CompileException, match="nope") as info:
        kernel((1,), (1,), (x,))
    assert "nope" in info.value.source
    np.testing.assert_array_equal((x + 1).get(), [1])


def test_bad_launches_are_clear_errors(gpu):
    kernel = ad.RawKernel(ADD, "add")
    x = ad.zeros(4, dtype=np.float32)
    with pytest.raises(ValueError, match="threads"):
        kernel((1,), (4096,), (x, x, x, np.int32(4)))
    with pytest.raises(ValueError):
        kernel((0,), (4,), (x, x, x, np.int32(4)))
    with pytest.raises(TypeError, match="host"):
        kernel((1,), (4,), (np.zeros(4, np.float32), x, x, np.int32(4)))
    kernel((1,), (4,), (x, x, x, np.int32(4)), shared_mem=1 << 30)
    with pytest.raises(ValueError, match="shared_mem"):
        ad.cuda.Device().synchronize()
    np.testing.assert_array_equal((x + 1).get(), np.ones(4))


# ---- servers of their own: the shared cache and a faulting kernel ----

def _start(cache: str, sock_dir: str) -> tuple[subprocess.Popen, str]:
    binary = os.environ.get("ARRAYD_SERVER_BIN") or str(
        Path(__file__).resolve().parents[2] / "build" / "bin" / "arrayd")
    address = f"unix:{sock_dir}/arrayd.sock"
    env = dict(os.environ, ARRAYD_KERNEL_CACHE=cache)
    log = open(os.path.join(sock_dir, "arrayd.log"), "ab")
    proc = subprocess.Popen([binary, "--listen", address, "--backend", "cuda",
                             "--allow-user-kernels"], env=env, stdout=log,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not _transport.health_ok(address, timeout=0.5):
        assert proc.poll() is None and time.monotonic() < deadline, \
            Path(sock_dir, "arrayd.log").read_text(errors="replace")[-2000:]
        time.sleep(0.05)
    return proc, address


def _origin(module: ad.RawModule) -> str:
    module.compile()
    return module.origin


def test_a_faulting_kernel_restarts_the_server_and_the_cache_survives(gpu):
    # A source no other test compiles, so that the first load compiles.
    source = ADD + f"// {time.time_ns()}\n" + r'''
extern "C" __global__ void poke(long long address) { *(volatile int*)address = 1; }
'''
    with tempfile.TemporaryDirectory() as cache, \
            tempfile.TemporaryDirectory() as sock_dir:
        proc, address = _start(cache, sock_dir)
        try:
            a = ad.connect(address, default=False)
            b = ad.connect(address, default=False)
            with a:
                assert _origin(ad.RawModule(code=source)) == "compiled"
            with b:  # another client: the server's memory cache
                assert _origin(ad.RawModule(code=source)) == "memory cache"
                survivor = ad.arange(10)
            with a:
                ad.RawModule(code=source).get_function("poke")((1,), (1,), (16,))
                with pytest.raises((RuntimeError, ConnectionError)):
                    ad.cuda.Device().synchronize()
            # The other session gets a clear error, not a hang.
            with b:
                with pytest.raises((RuntimeError, ConnectionError),
                                   match="restarting|ended|closed|failed|reach"):
                    (survivor + 1).get()
            assert proc.wait(30) == 70  # the documented exit code
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        # A restarted server serves again, from the disk cache.
        proc, address = _start(cache, sock_dir)
        try:
            c = ad.connect(address, default=False)
            with c:
                module = ad.RawModule(code=source)
                assert _origin(module) == "disk cache"
                x = ad.ones(8, dtype=np.float32)
                module.get_function("add")((1,), (8,), (x, x, x, np.int32(8)))
                np.testing.assert_array_equal(x.get(), np.full(8, 2, np.float32))
            c.close()
        finally:
            proc.terminate()
            proc.wait(10)
    _connect.current()  # the default session is untouched


_COMPILE_AT = r'''
import sys, time
import arrayd as ad
s = ad.connect(sys.argv[1], default=False)
with s:
    module = ad.RawModule(code=sys.argv[3])
    while time.time() < float(sys.argv[2]):
        pass
    module.compile()
    print(module.origin)
s.close()
'''


def test_two_servers_on_one_cache_compile_a_module_once(gpu):
    # Two server processes miss the same file at the same moment: one
    # compiles, the other waits on the file's lock and loads its result.
    source = ADD + f"// {time.time_ns()} two servers\n"
    with tempfile.TemporaryDirectory() as cache, \
            tempfile.TemporaryDirectory() as dir_a, \
            tempfile.TemporaryDirectory() as dir_b:
        servers = [_start(cache, dir_a), _start(cache, dir_b)]
        try:
            start = time.time() + 3.0
            env = dict(os.environ, PYTHONPATH=str(Path(ad.__file__).parents[1]))
            clients = [subprocess.Popen([sys.executable, "-c", _COMPILE_AT, address,
                                         str(start), source], env=env,
                                        stdout=subprocess.PIPE, text=True)
                       for _, address in servers]
            origins = sorted(c.communicate(timeout=120)[0].strip() for c in clients)
            assert [c.returncode for c in clients] == [0, 0]
            assert origins == ["compiled", "disk cache"]
        finally:
            for proc, _ in servers:
                proc.terminate()
                proc.wait(10)
