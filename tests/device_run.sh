#!/usr/bin/env bash
# Runs on the GPU machine (see deploy/device_bundle.sh): the gtest suites,
# the pytest suite against a CUDA server, and the CuPy comparison benchmark.
# Logs go to $OUT (or ./device-out).
#
#   tests/device_run.sh [tests|bench|all|profile|compat|streams|ops|clients|scipy, or parts
#                        joined with +, e.g. tests+compat] [--quick]
#
# The test servers run with --allow-user-kernels (ARRAYD_SERVER_ARGS), so
# that the user-kernel tests run; streams is the stream concurrency
# benchmark (tests/bench/bench_streams.py) beside CuPy.
#
# compat runs CuPy's own test suite (tests/cupy_compat) against a CUDA
# server, or the files in ARRAYD_COMPAT_FILES (run.py's --files) or the list
# ARRAYD_COMPAT_SUBSET names (run.py's --subset, e.g. scipy); the CuPy
# sdist travels in .devbundle/cupy-sdist (no network there).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
what=${1:-all}
quick=${2:-}
out=${OUT:-$root/device-out}
mkdir -p "$out"
bundle=$root/.devbundle/tree
if [ ! -d "$bundle" ]; then
  mkdir -p "$bundle" && tar -C "$bundle" -xJf "$root/.devbundle/bundle.tar.xz"
fi
export LD_LIBRARY_PATH="$bundle/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The NVRTC kernel cache travels between runs (a fresh machine is bare):
# restored from .devbundle/kernels.tar.xz when carried, saved to $OUT.
export ARRAYD_KERNEL_CACHE=/tmp/arrayd-kernels
mkdir -p "$ARRAYD_KERNEL_CACHE"
[ -f "$root/.devbundle/kernels.tar.xz" ] && tar -C "$ARRAYD_KERNEL_CACHE" -xJf "$root/.devbundle/kernels.tar.xz"
# At most 8 files come back from the device machine: the logs travel as one
# archive, beside the kernel cache and the benchmark's results.
logs=$(mktemp -d)
finish() {
  # xz on every core: a single-threaded xz of some hundred MiB of cubins
  # outlived a call's limit, and the cache came back truncated.
  tar -C "$ARRAYD_KERNEL_CACHE" -c . 2>/dev/null | xz -2 -T0 > "$out/kernels.tar.xz"
  tar -C "$logs" -czf "$out/logs-${what//+/_}.tar.gz" . 2>/dev/null
}
trap finish EXIT
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
"$bundle/bin/arrayd" --version | tee -a "$out/gpu.txt"
status=0

# The parts asked for: all is tests and bench; parts join with + (e.g.
# tests+compat, all+compat).
parts=" ${what//+/ } "
parts=${parts/ all / tests bench }
want() { [[ "$parts" == *" $1 "* ]]; }
if want tests; then
  # The CUDA backend's own gtest (GPU against CPU for every kernel) runs in
  # the background, beside pytest; a filter narrows it (a cold kernel cache
  # costs minutes of NVRTC for the full suite).
  cuda_pid=""
  if [ -n "${ARRAYD_CUDA_GTEST:-}" ]; then
    echo "==> arrayd_cuda_tests (${ARRAYD_CUDA_GTEST_FILTER:-*}) in the background"
    timeout "${ARRAYD_GTEST_TIMEOUT:-300}" "$bundle/bin/arrayd_cuda_tests" --gtest_brief=1 \
      --gtest_filter="${ARRAYD_CUDA_GTEST_FILTER:-*}" >"$logs/arrayd_cuda_tests.log" 2>&1 &
    cuda_pid=$!
  fi
  for t in arrayd_server_tests arrayd_client_tests; do
    echo "==> $t"
    timeout 120 "$bundle/bin/$t" --gtest_brief=1 >"$logs/$t.log" 2>&1 || status=1
    tail -n 2 "$logs/$t.log"
  done
  echo "==> pytest (cuda server, ${ARRAYD_PYTEST_WORKERS:-8} workers, each with its own server)"
  ARRAYD_SERVER_BIN="$bundle/bin/arrayd" ARRAYD_BACKEND=cuda \
    ARRAYD_SERVER_ARGS="${ARRAYD_SERVER_ARGS:---allow-user-kernels}" \
    timeout "${ARRAYD_PYTEST_TIMEOUT:-400}" python3 -m pytest -q -rfE -p no:cacheprovider -n "${ARRAYD_PYTEST_WORKERS:-8}" tests/python \
    >"$logs/pytest.log" 2>&1 || status=1
  tail -n 25 "$logs/pytest.log"
  if [ -n "$cuda_pid" ]; then
    wait "$cuda_pid" || status=1
    echo "==> arrayd_cuda_tests"
    grep -E "FAILED|PASSED|SKIPPED|tests from" "$logs/arrayd_cuda_tests.log" | head -n 30
  fi
fi

if want compat; then
  echo "==> CuPy's test suite against the CUDA server (${ARRAYD_COMPAT_WORKERS:-12} workers)"
  ARRAYD_SERVER_BIN="$bundle/bin/arrayd" ARRAYD_BACKEND=cuda \
    ARRAYD_SERVER_ARGS="${ARRAYD_SERVER_ARGS:---allow-user-kernels}" \
    ARRAYD_CUPY_SDIST_DIR="$root/.devbundle/cupy-sdist" \
    timeout "${ARRAYD_COMPAT_TIMEOUT:-400}" python3 tests/cupy_compat/run.py \
    -n "${ARRAYD_COMPAT_WORKERS:-12}" --out "$logs/compat" \
    ${ARRAYD_COMPAT_FILES:+--files $ARRAYD_COMPAT_FILES} \
    ${ARRAYD_COMPAT_SUBSET:+--subset $ARRAYD_COMPAT_SUBSET} >"$logs/compat.log" 2>&1 || status=1
  tail -n 40 "$logs/compat.log"
  cp "$logs/compat/table.md" "$out/compat-table.md" 2>/dev/null
  cp "$logs/compat/summary.json" "$out/compat-summary.json" 2>/dev/null
fi

# A CUDA server of the benchmarks, with the flags given, on
# /tmp/arrayd-NAME.sock (log: server-NAME.log): sets $sock and $pid once its
# socket is there.
serve() {
  local name=$1
  shift
  sock=/tmp/arrayd-$name.sock
  "$bundle/bin/arrayd" --backend cuda "$@" --listen "unix:$sock" >"$logs/server-$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
}

if want bench; then
  echo "==> benchmark vs CuPy"
  serve bench
  timeout "${ARRAYD_BENCH_TIMEOUT:-400}" python3 tests/bench/bench_vs_cupy.py \
    --address "unix:$sock" --server-pid "$pid" --json "$out/bench.json" $quick \
    ${ARRAYD_BENCH_ONLY:+--only "$ARRAYD_BENCH_ONLY"} 2>&1 | tee "$out/bench.txt" || status=1
  kill "$pid" 2>/dev/null || echo "the benchmark's server had died: see server-bench.log in logs-$what.tar.gz"
  wait "$pid"
  # The large kernels in-process (no server) and hand-written variants,
  # cuRAND and CUB beside them: where a row's gap is kernel, where transport
  # (not when ARRAYD_BENCH_ONLY picks rows).
  for b in arrayd_cuda_stream_bench kernel_variants; do
    [ -z "${ARRAYD_BENCH_ONLY:-}" ] || break
    [ -x "$bundle/bin/$b" ] || continue
    echo "==> $b"
    timeout 120 "$bundle/bin/$b" 2>&1 | grep -v "\[info\]" | tee -a "$out/bench.txt"
  done
fi
if want ops; then
  # The ops off bench's rows (issue 15): sort, scans, gathers, masks, axes.
  echo "==> ops beside CuPy"
  serve ops
  # ARRAYD_BENCH_ONLY: comma-separated parts of the row keys to run (all: unset).
  timeout "${ARRAYD_BENCH_TIMEOUT:-300}" python3 tests/bench/bench_ops.py --address "unix:$sock" \
    --json "$out/ops.json" $quick ${ARRAYD_BENCH_ONLY:+--only "$ARRAYD_BENCH_ONLY"} 2>&1 |
    tee "$out/ops.txt" || status=1
  kill "$pid" 2>/dev/null
  wait "$pid"
fi
if want clients; then
  # Many client processes on one server beside as many CuPy processes
  # (issue 17); ARRAYD_CLIENTS: the counts (default 1,8,16,32,64,128).
  echo "==> clients: many processes beside CuPy"
  serve clients --max-sessions 2048 --max-sessions-per-tenant 2048
  timeout "${ARRAYD_BENCH_TIMEOUT:-400}" python3 tests/bench/bench_clients.py --address "unix:$sock" \
    --server-pid "$pid" --cupy --idle 1000 --clients "${ARRAYD_CLIENTS:-1,8,16,32,64,128}" \
    --json "$out/clients.json" 2>&1 | tee "$out/clients.txt" || status=1
  kill "$pid"; wait "$pid"
fi
if want scipy; then
  # arrayd.scipy beside cupyx.scipy (issue 18's workloads).
  echo "==> scipy: arrayd.scipy beside cupyx.scipy"
  serve scipy
  timeout "${ARRAYD_BENCH_TIMEOUT:-300}" python3 tests/bench/bench_scipy.py --address "unix:$sock" \
    --json "$out/scipy.json" $quick ${ARRAYD_BENCH_ONLY:+--only "$ARRAYD_BENCH_ONLY"} 2>&1 |
    tee "$out/scipy.txt" || status=1
  kill "$pid" 2>/dev/null
  wait "$pid"
fi
if want streams; then
  echo "==> streams: concurrency beside CuPy"
  serve streams --allow-user-kernels
  timeout 200 python3 tests/bench/bench_streams.py --address "unix:$sock" --cupy 2>&1 |
    tee "$out/streams.txt" || status=1
  kill "$pid"; wait "$pid"
fi
if want profile; then
  # Latency split (CUDA server, CPU server, CuPy) and per-kernel GPU times
  # of the large workloads under Nsight Compute, arrayd's server and CuPy.
  for backend in cuda cpu; do
    sock=/tmp/arrayd-lat-$backend.sock
    "$bundle/bin/arrayd" --backend $backend --listen "unix:$sock" >"$logs/server-lat-$backend.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
    echo "==> latency breakdown, $backend server"
    extra=""; [ $backend = cuda ] && extra=--cupy
    timeout 120 python3 tests/bench/latency_breakdown.py --address "unix:$sock" $extra 2>&1 |
      tee -a "$out/profile.txt"
    kill "$pid"; wait "$pid"
  done
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
  # ARRAYD_NCU=0 skips Nsight Compute (it has listed no kernels of the server there).
  if [ -n "$ncu" ] && [ "${ARRAYD_NCU:-1}" != 0 ]; then
    prof=(--clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel)
    sock=/tmp/arrayd-prof.sock
    "$ncu" "${prof[@]}" --target-processes all "$bundle/bin/arrayd" --backend cuda \
      --listen "unix:$sock" >"$logs/ncu-arrayd.txt" 2>&1 &
    pid=$!
    for _ in $(seq 300); do [ -S "$sock" ] && break; sleep 0.1; done
    timeout 200 python3 tests/bench/kernel_workload.py --address "unix:$sock" || status=1
    kill -TERM "$pid"; wait "$pid"
    timeout 200 "$ncu" "${prof[@]}" python3 tests/bench/kernel_workload.py --cupy \
      >"$logs/ncu-cupy.txt" 2>&1 || status=1
    for f in ncu-arrayd ncu-cupy; do
      echo "==> $f"; grep -v "^==PROF==" "$logs/$f.txt" | grep -v "^ *-* *-*$" | head -n 150
    done | tee -a "$out/profile.txt"
  else
    echo "no ncu on this machine" | tee -a "$out/profile.txt"
  fi
fi
exit $status
