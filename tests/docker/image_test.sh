#!/usr/bin/env bash
# Builds the CPU image from the Dockerfile and checks it for real: the
# HEALTHCHECK turns healthy, the server runs as uid 7470, a client on the
# host reaches it through the socket volume, the metrics through a published
# port, TLS with tokens through another (and a client without a token is
# refused), and `docker stop` ends in exit 0 with the sockets removed.
#
#   tests/docker/image_test.sh          # as root, on Debian 12 (CI's machine)
#
# Needs Debian's docker.io and debootstrap (installed when missing): base
# images cannot be pulled on the project's machines, so the base is a
# debootstrapped Debian 12 (local/debian:bookworm, made once). About 3
# minutes for debootstrap the first time and 5 for the build on 2 cores.
# The CUDA image cannot be built here (no CUDA base image, no NVIDIA apt
# repository) and is not tested.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
python=${ARRAYD_PYTHON:-python3}
[ -z "${ARRAYD_PYTHON:-}" ] && [ -x "$root/.venv/bin/python" ] && python="$root/.venv/bin/python"
tag=arrayd:cpu-test
name=arrayd-image-test
vol=arrayd-image-test-run
work=$(mktemp -d)

step() { printf '\n==> %s\n' "$*"; }
fail() { echo "image_test: FAILED: $*" >&2; docker logs "$name" 2>&1 | tail -20 >&2 || true; exit 1; }
cleanup() {
  docker rm -f "$name" >/dev/null 2>&1 || true
  docker volume rm "$vol" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

step "docker engine"
if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap
fi
if ! docker info >/dev/null 2>&1; then
  (dockerd >/tmp/arrayd-dockerd.log 2>&1 &)
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null || fail "dockerd did not start (/tmp/arrayd-dockerd.log)"
fi
if ! docker image inspect local/debian:bookworm >/dev/null 2>&1; then
  mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  debootstrap --variant=minbase bookworm "$work/rootfs" "${mirror:-http://deb.debian.org/debian}"
  tar -C "$work/rootfs" -c . | docker import - local/debian:bookworm
  rm -rf "$work/rootfs"
fi

step "docker build"
docker build -q --build-arg BASE=local/debian:bookworm -t "$tag" . >/dev/null

step "run: health, user, socket volume"
docker run -d --name "$name" -v "$vol:/run/arrayd" -p 127.0.0.1::9470 "$tag" --backend cpu >/dev/null
for _ in $(seq 60); do
  status=$(docker inspect "$name" --format '{{.State.Health.Status}}')
  [ "$status" = healthy ] && break
  [ "$(docker inspect "$name" --format '{{.State.Running}}')" = true ] || fail "the server exited"
  sleep 1
done
[ "$status" = healthy ] || fail "health status $status"
[ "$(docker exec "$name" id -u)" = 7470 ] || fail "not uid 7470"
docker exec "$name" arrayd-healthcheck | grep -qx SERVING || fail "probe"
sock_dir=$(docker volume inspect "$vol" --format '{{.Mountpoint}}')
PYTHONPATH=client-python "$python" -c "
import arrayd as ad
ad.connect('unix:$sock_dir/arrayd.sock')
assert int(ad.arange(100).sum()) == 4950
" || fail "a host client through the socket volume"

step "metrics on the published port"
metrics_port=$(docker port "$name" 9470/tcp | head -n1 | sed 's/.*://')
metrics=$(curl -fsS "http://127.0.0.1:$metrics_port/metrics") || fail "metrics: no answer"
grep -q '^arrayd_sessions_opened_total 1$' <<<"$metrics" ||
  fail "metrics: no arrayd_sessions_opened_total 1 after one session"

step "docker stop drains: exit 0, sockets removed"
docker stop -t 20 "$name" >/dev/null
code=$(docker inspect "$name" --format '{{.State.ExitCode}}')
[ "$code" = 0 ] || fail "exit code $code after docker stop"
if [ -e "$sock_dir/arrayd.sock" ] || [ -e "$sock_dir/arrayd.sock.ops" ]; then
  fail "sockets left behind"
fi
docker logs "$name" 2>&1 | grep -q "arrayd stopped" || fail "no drain in the log"
docker rm "$name" >/dev/null

step "TLS and tokens through a published port"
mkdir -p "$work/conf/tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
  -keyout "$work/conf/tls/server.key" -out "$work/conf/tls/server.crt" 2>/dev/null
token=$(openssl rand -hex 16)
echo "$token alice" > "$work/conf/tokens"
chmod 0644 "$work/conf/tls/"* "$work/conf/tokens"
docker run -d --name "$name" -v "$vol:/run/arrayd" -v "$work/conf/tls:/etc/arrayd/tls:ro" \
  -v "$work/conf/tokens:/etc/arrayd/tokens:ro" -p 127.0.0.1::7470 "$tag" --backend cpu >/dev/null
port=$(docker port "$name" 7470/tcp | head -n1 | sed 's/.*://')
for _ in $(seq 30); do docker exec "$name" arrayd-healthcheck >/dev/null 2>&1 && break; sleep 1; done
ARRAYD_TLS_CA="$work/conf/tls/server.crt" ARRAYD_TOKEN=$token PYTHONPATH=client-python "$python" -c "
import arrayd as ad
ad.connect('localhost:$port')
assert int(ad.arange(10).sum()) == 45
" || fail "a TLS client with a token"
ARRAYD_TLS_CA="$work/conf/tls/server.crt" PYTHONPATH=client-python "$python" -c "
import arrayd as ad
try:
    ad.connect('localhost:$port')
    ad.arange(3).sum().get()
except ConnectionError as e:
    assert 'valid token' in str(e), e
else:
    raise SystemExit('a client without a token got in')
" || fail "a TLS client without a token"
docker stop -t 20 "$name" >/dev/null
[ "$(docker inspect "$name" --format '{{.State.ExitCode}}')" = 0 ] || fail "exit code after TLS run"

echo
echo "image_test: 6 passed, 0 failed"
