#!/bin/sh
# Prints the distribution packages that hold the shared libraries a binary
# links, one a line, for the Dockerfile's runtime stage: read off the build
# stage (ldd, then dpkg -S), so one list fits Debian 12 (libgrpc++1.51,
# libprotobuf32, libspdlog1.10) and Ubuntu 24.04 (libgrpc++1.51t64,
# libprotobuf32t64, libspdlog1.12, ...) without naming either.
#
#   deploy/runtime_packages.sh build/bin/arrayd
#
# Left out: libc6, libstdc++6, libgcc-s1 (in every base image) and the CUDA
# toolkit's libraries, under /usr/local/cuda* (cuBLAS, cuSOLVER, cuFFT,
# NVRTC, nvJitLink: the nvidia/cuda runtime base image has them; libcuda and
# NVML come from the host's driver at run time). A library that no package
# holds is an error: the runtime stage would lack it.
set -eu

[ $# -eq 1 ] || { echo "usage: $0 BINARY" >&2; exit 2; }
binary=$1
missing=0
out=""
# ldd lines: 'libfoo.so.1 => /lib/x86_64-linux-gnu/libfoo.so.1 (0x...)'.
libs=$(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }')
if ldd "$binary" | grep -q 'not found'; then
  ldd "$binary" | grep 'not found' >&2
  exit 1
fi
# dpkg knows a file by the path its package ships (/lib or /usr/lib on a
# merged /usr), and not at all when it is an alternatives link
# (libblas.so.3, libopenblas.so.0): each library's candidates are its path,
# its /usr twin, and the same for the file the link resolves to. One
# dpkg-query call for all of them (it reads its database once).
candidates() {
  real=$(readlink -f "$1")
  echo "$1" "/usr$1" "${1#/usr}" "$real" "/usr$real" "${real#/usr}"
}
all=""
for lib in $libs; do
  all="$all $(candidates "$lib")"
done
# Lines 'package[:arch][, package...]: /path'.
# shellcheck disable=SC2086  # one argument per path
found=$(dpkg-query -S $all 2>/dev/null || true)
for lib in $libs; do
  case "$lib" in
    /usr/local/cuda*) continue ;;
  esac
  pkg=""
  for p in $(candidates "$lib"); do
    pkg=$(printf '%s\n' "$found" | awk -v p="$p" '
      { i = index($0, ": "); if (i && substr($0, i + 2) == p) { print substr($0, 1, i - 1); exit } }' |
      cut -d, -f1 | cut -d: -f1)
    [ -n "$pkg" ] && break
  done
  if [ -z "$pkg" ]; then
    echo "runtime_packages: no package holds $lib" >&2
    missing=1
    continue
  fi
  case "$pkg" in
    libc6 | libstdc++6 | libgcc-s1) ;;
    *) out="$out$pkg
" ;;
  esac
done
printf '%s' "$out" | sort -u
exit "$missing"
