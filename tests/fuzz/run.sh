#!/usr/bin/env bash
# Builds the libFuzzer target (server/fuzz/local_fuzzer.cc: the same-host
# frame reader, the message decoder and every op's validation, with ASan and
# UBSan) in build-fuzz/ with clang, and fuzzes it for SECONDS (default 120),
# starting from the seeds in tests/fuzz/corpus. New inputs go to
# build-fuzz/corpus (not the repository); a crash, a sanitizer report or a
# hang writes its input to build-fuzz/artifacts/ and fails the run.
#
#   tests/fuzz/run.sh            # 2 minutes (what CI runs)
#   tests/fuzz/run.sh 1800       # the 30-minute run recorded in RESULTS.md
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
seconds=${1:-120}
jobs=${ARRAYD_BUILD_JOBS:-$(nproc)}

if ! command -v clang++ >/dev/null 2>&1; then
  echo "clang++ is not installed: fuzzing skipped (apt-get install clang libclang-rt-14-dev)"
  exit 0
fi
if [ ! -f build-fuzz/build.ninja ]; then
  # -O1 with line tables only: ASan's usual level, and readable stacks at
  # about half the compile time of -O2 -g.
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DARRAYD_FUZZ=ON -DARRAYD_WITH_CUDA=OFF -DARRAYD_BUILD_TESTS=OFF >/dev/null
fi
cmake --build build-fuzz -j "$jobs" --target arrayd_fuzz_local

mkdir -p build-fuzz/corpus build-fuzz/artifacts
# Leaks are checked at exit only (the server lives for the whole run).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
echo "fuzzing for ${seconds} s"
build-fuzz/bin/arrayd_fuzz_local -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -detect_leaks=0 \
  -malloc_limit_mb=1024 -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/ \
  build-fuzz/corpus tests/fuzz/corpus 2>&1 | grep -vE "^#[0-9]+.*(NEW|REDUCE|pulse)|^\[libprotobuf ERROR .*invalid UTF-8" || {
  echo "the fuzzer found a crash: build-fuzz/artifacts/"; ls build-fuzz/artifacts; exit 1; }
