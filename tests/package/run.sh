#!/usr/bin/env bash
# The packages (issue 16), checked from outside the tree:
#  1. the C++ client alone (-DARRAYD_BUILD_SERVER=OFF: no BLAS, FFTW, spdlog
#     or CUDA) installs as the CMake package arrayd, and an outside project
#     (tests/package/outside) builds with find_package(arrayd) against the
#     prefix and computes on a running server;
#  2. cpack makes the server's .deb from BUILD_DIR; it installs (dpkg -i as
#     root, else unpacked with dpkg-deb -x) and `arrayd --version` runs
#     from it.
#
#   tests/package/run.sh BUILD_DIR      (a configured and built tree)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
jobs=$(nproc)

echo "--- the client alone, installed"
cmake -S "$root" -B "$work/client" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DARRAYD_BUILD_SERVER=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
cmake --build "$work/client" -j"$jobs" --target arrayd_client >/dev/null
cmake --install "$work/client" --component client >/dev/null
test -f "$work/prefix/lib/cmake/arrayd/arraydConfig.cmake"
test -f "$work/prefix/include/arrayd/client.h"
if grep -rqiE "openblas|fftw|spdlog|cuda" "$work/prefix/lib/cmake/arrayd/"; then
  echo "the client's package names server dependencies" >&2
  exit 1
fi

echo "--- an outside project: find_package(arrayd)"
cmake -S "$root/tests/package/outside" -B "$work/outside" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/outside" >/dev/null
sock="$work/arrayd.sock"
"$build/bin/arrayd" --listen "unix:$sock" --backend cpu --metrics-listen off \
  >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
out=$("$work/outside/outside" "unix:$sock")
[ "$out" = "3 12" ] || { echo "outside printed '$out'" >&2; exit 1; }
echo "outside: $out"

echo "--- the server's .deb"
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls -t "$build"/arrayd_*.deb | head -n 1)
info=$(dpkg-deb --info "$deb")
grep -E "Package|Version|Depends" <<<"$info" || true
contents=$(dpkg-deb --contents "$deb")
grep -q "lib/systemd/system/arrayd.service" <<<"$contents" ||
  { echo "the .deb has no systemd unit" >&2; exit 1; }
if [ "$(id -u)" = 0 ] && command -v dpkg >/dev/null; then
  dpkg -i "$deb" >/dev/null
  /usr/bin/arrayd --version
  dpkg -r arrayd >/dev/null
else
  dpkg-deb -x "$deb" "$work/deb"
  "$work/deb/usr/bin/arrayd" --version
fi
echo "packages: ok"
