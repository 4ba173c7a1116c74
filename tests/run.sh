#!/usr/bin/env bash
# Lints the Python client (ruff), builds arrayd if needed and runs every
# test: the gtest suites through ctest, then pytest against a server that
# the test fixture starts.
#
#   tests/run.sh                  # CPU backend (CUDA backend compiled when a toolkit is present)
#   tests/run.sh --backend cuda   # same suites against a CUDA server (needs a GPU)
#   tests/run.sh --asan           # also build and run the gtests under ASan+UBSan
#   ARRAYD_TEST_BACKEND=cuda tests/run.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
backend=${ARRAYD_TEST_BACKEND:-cpu}
asan=${ARRAYD_TEST_ASAN:-0}
build_dir=${ARRAYD_BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)
pytest_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) backend=$2; shift 2 ;;
    --backend=*) backend=${1#*=}; shift ;;
    --asan) asan=1; shift ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --) shift; pytest_args+=("$@"); break ;;
    *) pytest_args+=("$1"); shift ;;
  esac
done

python=python3
[ -x "$root/.venv/bin/python" ] && python="$root/.venv/bin/python"

step() { printf '\n==> %s\n' "$*"; }

step "ruff check client-python"
if "$python" -m ruff --version >/dev/null 2>&1; then
  "$python" -m ruff check client-python
elif command -v ruff >/dev/null 2>&1; then
  ruff check client-python
else
  echo "ruff is not installed: lint skipped (pip install ruff)"
fi

step "build ($build_dir)"
if [ ! -f "$build_dir/build.ninja" ] && [ ! -f "$build_dir/Makefile" ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build_dir" -j "$jobs"

step "gtest (ctest)"
ARRAYD_TEST_BACKEND=$backend ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"

if [ "$asan" = 1 ]; then
  step "gtest under ASan+UBSan (CPU backend)"
  if [ ! -f build-asan/build.ninja ]; then
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DARRAYD_WITH_CUDA=OFF -DARRAYD_SANITIZE=ON
  fi
  cmake --build build-asan -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs"
fi

step "pytest against a $backend server"
export ARRAYD_SERVER_BIN="$root/$build_dir/bin/arrayd"
export ARRAYD_BACKEND=$backend
export PYTHONPATH="$root/client-python${PYTHONPATH:+:$PYTHONPATH}"
unset ARRAYD_ADDRESS
"$python" -m pytest -q tests/python "${pytest_args[@]}"
# Remote clients never see the same-host socket: run the suite once more
# with the gRPC op stream and chunked Upload/Download only.
step "pytest against a $backend server, gRPC transport only"
ARRAYD_NO_LOCAL_SOCKET=1 "$python" -m pytest -q tests/python "${pytest_args[@]}"
step "all tests passed"
