#!/usr/bin/env bash
# Quick start on a fresh Debian 12 or Ubuntu 24.04 machine, GPU or not:
# installs the system and Python dependencies, builds arrayd, starts the
# server on the best backend present and runs a first example through the
# Python client.
#
#   ./deploy/quickstart.sh              # everything
#   ./deploy/quickstart.sh --deps-only  # dependencies only (used by CI)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
deps_only=0
[ "${1:-}" = "--deps-only" ] && deps_only=1

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"

echo "==> system packages"
packages=(build-essential cmake ninja-build pkg-config git
          libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
          libabsl-dev libspdlog-dev libgtest-dev libopenblas-dev liblapacke-dev libfftw3-dev
          prometheus-cpp-dev  # the metrics exposer (--metrics-listen)
          python3 python3-venv python3-pip openssl  # openssl: the TLS tests make certificates
          clang-format clang-tidy)  # the lint steps of tests/run.sh
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

echo "==> Python environment (.venv)"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv --system-site-packages .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
# scipy: the reference of arrayd.scipy's tests and of CuPy's cupyx.scipy tests.
.venv/bin/python -m pip install -q "numpy>=2" "grpcio>=1.51" "protobuf>=4.21" scipy pytest pytest-xdist ruff
.venv/bin/python -m pip install -q ./client-python

[ "$deps_only" = 1 ] && exit 0

echo "==> build"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build build -j "$(nproc)"
build/bin/arrayd --version

echo "==> server"
run_dir=/tmp/arrayd-$(id -u)
mkdir -p "$run_dir"
chmod 700 "$run_dir"
if [ -f "$run_dir/quickstart.pid" ] && kill -0 "$(cat "$run_dir/quickstart.pid")" 2>/dev/null; then
  kill "$(cat "$run_dir/quickstart.pid")" && sleep 1
fi
nohup build/bin/arrayd --backend auto --listen "unix:$run_dir/arrayd.sock" --listen 127.0.0.1:7470 \
  >"$run_dir/arrayd.log" 2>&1 &
echo $! >"$run_dir/quickstart.pid"
for _ in $(seq 50); do
  [ -S "$run_dir/arrayd.sock" ] && break
  kill -0 "$(cat "$run_dir/quickstart.pid")" 2>/dev/null || break
  sleep 0.1
done
if ! kill -0 "$(cat "$run_dir/quickstart.pid")" 2>/dev/null; then
  # It refuses to start when another server already answers on its
  # addresses (a private server the Python client started, say).
  echo "arrayd did not start:" >&2
  tail -5 "$run_dir/arrayd.log" >&2
  exit 1
fi
grep -m1 "backend" "$run_dir/arrayd.log" || true

echo "==> example"
ARRAYD_ADDRESS="unix:$run_dir/arrayd.sock" .venv/bin/python - <<'PY'
import arrayd as ad
x = ad.arange(6).reshape(2, 3).astype('f')
print(repr(x.sum(axis=1)))
PY
echo
echo "arrayd is running (pid $(cat "$run_dir/quickstart.pid"), log $run_dir/arrayd.log)."
echo "Python: import arrayd as ad  (finds it on unix:$run_dir/arrayd.sock)."
echo "Stop it with: kill $(cat "$run_dir/quickstart.pid")"
