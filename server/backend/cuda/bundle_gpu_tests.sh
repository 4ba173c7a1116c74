#!/usr/bin/env bash
# Packs build/bin/arrayd_cuda_tests (stripped) and the shared libraries it
# needs that a CUDA 13 machine lacks (not glibc/libstdc++, not CUDA's) into
# .devlibs/cuda_tests (git-ignored), to be carried to the GPU machine:
#   server/backend/cuda/bundle_gpu_tests.sh
#   (there) LD_LIBRARY_PATH=.devlibs/cuda_tests:/usr/local/cuda/lib64 \
#           .devlibs/cuda_tests/arrayd_cuda_tests
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=build/bin/arrayd_cuda_tests
out=.devlibs/cuda_tests
rm -rf "$out" && mkdir -p "$out"
strip -o "$out/arrayd_cuda_tests" "$bin"
ldd "$bin" | awk '/=> \// {print $3}' | while read -r lib; do
  case "$lib" in
    /usr/local/cuda*|*/libc.so*|*/libm.so*|*/libstdc++.so*|*/libgcc_s.so*|*/libpthread.so*|*/libdl.so*|*/librt.so*) ;;
    *) cp -L "$lib" "$out/" ;;
  esac
done
du -sh "$out"
