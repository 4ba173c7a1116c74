#!/usr/bin/env bash
# Packs what the GPU machine needs to run arrayd's tests and benchmarks into
# .devbundle/ (git-ignored): the stripped executables of build/bin and every
# shared library they load that a CUDA 13 machine lacks (not glibc/libstdc++,
# not CUDA's own), compressed into .devbundle/bundle.tar.xz to fit the
# transfer limit. Carry .devbundle there and run tests/device_run.sh, which
# unpacks it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${1:-build}
out=.devbundle/tree
rm -rf .devbundle && mkdir -p "$out/bin" "$out/lib"
for exe in "$build"/bin/*; do
  [ -x "$exe" ] && [ -f "$exe" ] || continue
  strip -o "$out/bin/$(basename "$exe")" "$exe"
  ldd "$exe" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$lib" in
      /usr/local/cuda*|*/libc.so*|*/libm.so*|*/libstdc++.so*|*/libgcc_s.so*|*/libpthread.so*|\
      */libdl.so*|*/librt.so*|*/libcuda.so*) ;;
      *) cp -L -n "$lib" "$out/lib/" ;;
    esac
  done
done
tar -C "$out" -cJf .devbundle/bundle.tar.xz bin lib
rm -rf "$out"
du -sh .devbundle
