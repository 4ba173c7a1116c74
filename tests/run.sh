#!/usr/bin/env bash
# Lints the Python client (ruff), builds arrayd if needed and runs every
# test: the gtest suites through ctest, then pytest against a server that
# the test fixture starts.
#
#   tests/run.sh                  # CPU backend (CUDA backend compiled when a toolkit is present)
#   tests/run.sh --backend cuda   # same suites against a CUDA server (needs a GPU)
#   tests/run.sh --asan           # also build and run the gtests under ASan+UBSan
#   ARRAYD_FUZZ_S=120 tests/run.sh # also fuzz for 2 minutes (tests/fuzz/run.sh)
#   ARRAYD_TEST_BACKEND=cuda tests/run.sh
#   ARRAYD_BUILD_TYPE=Release tests/run.sh  # no debug info: a third less compile time (CI)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
backend=${ARRAYD_TEST_BACKEND:-cpu}
asan=${ARRAYD_TEST_ASAN:-0}
build_dir=${ARRAYD_BUILD_DIR:-build}
build_type=${ARRAYD_BUILD_TYPE:-RelWithDebInfo}
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

step() { printf '\n==> %s (%s)\n' "$*" "$(date +%T)"; }

step "ruff check client-python"
if "$python" -m ruff --version >/dev/null 2>&1; then
  "$python" -m ruff check client-python
elif command -v ruff >/dev/null 2>&1; then
  ruff check client-python
else
  echo "ruff is not installed: lint skipped (pip install ruff)"
fi

# C++ formatting: clang-format (.clang-format) must leave these folders as
# they are. A folder joins the list once it has been formatted whole
# (clang-format -i); the others are not checked yet. Under a second.
clang_format_dirs=(server/backend/cuda)
# Files formatted whole in folders that are not yet.
clang_format_files=(server/ops/signature.h server/ops/signature.cc server/ops/signature_test.cc
                    client-cpp/include/arrayd/ops.h client-cpp/src/ops.cc
                    client-cpp/tests/ops_test.cc proto/arrayd/v1/type_codes.h)
step "clang-format --dry-run --Werror (${clang_format_dirs[*]} and ${#clang_format_files[@]} files)"
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "not a git checkout: formatting not checked"
elif command -v clang-format >/dev/null 2>&1; then
  git ls-files -z -- "${clang_format_dirs[@]/%//*.cc}" "${clang_format_dirs[@]/%//*.h}" \
      "${clang_format_dirs[@]/%//*.cuh}" "${clang_format_dirs[@]/%//*.cu}" "${clang_format_files[@]}" |
    xargs -0 -r clang-format --dry-run --Werror ||
    { echo "not clang-formatted: run clang-format -i on the files above"; exit 1; }
else
  echo "clang-format is not installed: formatting not checked (apt-get install clang-format)"
fi

step "build ($build_dir)"
if [ ! -f "$build_dir/build.ninja" ] && [ ! -f "$build_dir/Makefile" ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type"
fi
cmake --build "$build_dir" -j "$jobs"

# clang-tidy (.clang-tidy) on the C++ sources changed since the merge base
# with origin/main (else since HEAD~1), uncommitted changes included. It
# reports and never fails the run: about 15 s a file on 2 cores, so at most
# $ARRAYD_TIDY_MAX_FILES files (default 8) are checked and the others listed.
# ARRAYD_TIDY_MAX_FILES=0 skips it.
tidy_max=${ARRAYD_TIDY_MAX_FILES:-8}
step "clang-tidy on changed files (report only, at most $tidy_max)"
tidy_base=""
if git rev-parse -q --verify origin/main >/dev/null 2>&1; then
  tidy_base=$(git merge-base HEAD origin/main 2>/dev/null || true)
  [ "$tidy_base" = "$(git rev-parse HEAD)" ] && tidy_base=""
fi
if [ -z "$tidy_base" ] && git rev-parse -q --verify HEAD~1 >/dev/null 2>&1; then
  tidy_base=HEAD~1
fi
if [ "$tidy_max" = 0 ]; then
  echo "skipped (ARRAYD_TIDY_MAX_FILES=0)"
elif ! command -v clang-tidy >/dev/null 2>&1; then
  echo "clang-tidy is not installed: not run (apt-get install clang-tidy)"
elif [ ! -f "$build_dir/compile_commands.json" ]; then
  echo "no $build_dir/compile_commands.json: not run"
elif [ -z "$tidy_base" ]; then
  echo "no base commit to compare with (shallow clone?): not run"
else
  tidy_files=()
  while IFS= read -r f; do
    # Only sources of this build (a CUDA-less build has no backend/cuda/ ones).
    if [ -f "$f" ] && grep -qF "\"file\": \"$root/$f\"" "$build_dir/compile_commands.json"; then
      tidy_files+=("$f")
    fi
  done < <(git diff --name-only --diff-filter=d "$tidy_base" -- '*.cc')
  if [ ${#tidy_files[@]} -eq 0 ]; then
    echo "no C++ source changed since $(git rev-parse --short "$tidy_base")"
  else
    if [ ${#tidy_files[@]} -gt "$tidy_max" ]; then
      echo "not checked (over $tidy_max files): ${tidy_files[*]:$tidy_max}"
      tidy_files=("${tidy_files[@]:0:$tidy_max}")
    fi
    tidy_start=$(date +%s)
    # The build's flags are GCC's: clang ignores the ones it does not know,
    # and its own warnings stay warnings.
    clang-tidy -p "$build_dir" --quiet --extra-arg=-Wno-unknown-warning-option \
      --extra-arg=-Wno-error "${tidy_files[@]}" 2>/dev/null | grep -E "warning:|error:" | sort -u ||
      true
    echo "clang-tidy: ${#tidy_files[@]} files in $(( $(date +%s) - tidy_start )) s (findings are not errors)"
  fi
fi

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
# with the gRPC op stream and chunked Upload/Download only. The arrayd.scipy
# files are left out of this pass: they are client compositions of the ops
# the other files cover, and they would add a third to CI's time.
step "pytest against a $backend server, gRPC transport only"
ARRAYD_NO_LOCAL_SOCKET=1 "$python" -m pytest -q tests/python --ignore-glob='tests/python/test_scipy_*' \
  "${pytest_args[@]}"
# The packages: the C++ client as a CMake package used from an outside
# project, and the server's .deb (tests/package/run.sh). ARRAYD_PACKAGE_TEST=0
# skips it (a client-only build: about a minute).
if [ "${ARRAYD_PACKAGE_TEST:-1}" != 0 ]; then
  step "packages: find_package(arrayd) from an outside project; the server's .deb"
  tests/package/run.sh "$build_dir"
fi
# The libFuzzer target over the same-host frame reader, the message decoder
# and every op (tests/fuzz/run.sh, clang): ARRAYD_FUZZ_S seconds (CI: 120);
# a crash fails the run.
if [ "${ARRAYD_FUZZ_S:-0}" != 0 ]; then
  step "fuzz the same-host socket and the ops for ${ARRAYD_FUZZ_S} s (ASan, UBSan)"
  tests/fuzz/run.sh "$ARRAYD_FUZZ_S"
fi
# CuPy's own test suite against the server: a report, not a gate
# (tests/cupy_compat/README.md). ARRAYD_CUPY_COMPAT=1: a fixed subset of
# files; ARRAYD_CUPY_COMPAT=all: the whole selection (as CI runs it).
if [ "${ARRAYD_CUPY_COMPAT:-0}" = 1 ] || [ "${ARRAYD_CUPY_COMPAT:-0}" = all ]; then
  compat_args=(--subset ci)
  [ "$ARRAYD_CUPY_COMPAT" = all ] && compat_args=()
  step "CuPy 14.0.1 test suite (${ARRAYD_CUPY_COMPAT/1/CI subset}) against a $backend server (reports only)"
  "$python" tests/cupy_compat/run.py "${compat_args[@]}" \
    --time-limit "${ARRAYD_CUPY_COMPAT_TIME_S:-420}" ||
    echo "the CuPy compatibility run did not complete (not a failure of this script)"
fi
# CuPy's tests of cupyx.scipy (--subset scipy) against arrayd.scipy: opt-in
# (ARRAYD_CUPY_COMPAT_SCIPY=1), with its own time limit; not in CI yet (fft
# and linalg alone take about 4 minutes on 2 cores). A report, not a gate.
if [ "${ARRAYD_CUPY_COMPAT_SCIPY:-0}" = 1 ]; then
  step "CuPy 14.0.1 cupyx.scipy tests against a $backend server (reports only)"
  "$python" tests/cupy_compat/run.py --subset scipy --out .cupy-compat-out/scipy \
    --time-limit "${ARRAYD_CUPY_COMPAT_SCIPY_TIME_S:-300}" ||
    echo "the cupyx.scipy compatibility run did not complete (not a failure of this script)"
fi
step "all tests passed"
