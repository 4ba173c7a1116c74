#!/bin/sh
# Entrypoint of the arrayd image: builds the server's command line from what
# is mounted, then exec's arrayd (PID 1, so `docker stop` delivers SIGTERM to
# the server and it drains cleanly).
#
#   always         --listen unix:$ARRAYD_RUN_DIR/arrayd.sock --backend auto
#   tls/server.crt and tls/server.key under $ARRAYD_CONF_DIR
#                  --listen 0.0.0.0:7470 --tls-cert ... --tls-key ...
#   tls/client-ca.crt          --tls-client-ca ... (clients need certificates)
#   tokens                     --auth-tokens ... (lines 'TOKEN TENANT')
#   ARRAYD_METRICS_LISTEN      --metrics-listen ... (the image sets 0.0.0.0:9470:
#                  inside the container, so that a published port or a
#                  scraper on the pod network reaches it; 'off': none;
#                  empty: the server's default, 127.0.0.1:9470, which only
#                  the container itself reaches)
#   arguments of `docker run IMAGE ...` are appended (a later --backend wins)
#   ARRAYD_UMASK               the server's umask: 0007 makes the sockets
#                  group-accessible (0770), for clients that run with the
#                  server's group (the Helm chart does); default 0022, owner only
#
# Without TLS there is no TCP listener: the unix socket is reached by
# containers that mount $ARRAYD_RUN_DIR. The server refuses a TCP listener
# other than loopback unless clients are authenticated (tokens or client
# certificates); pass --insecure to override.
#
# ARRAYD_RUN_DIR (/run/arrayd), ARRAYD_CONF_DIR (/etc/arrayd) and ARRAYD_BIN
# (/usr/local/bin/arrayd) are overridable, for testing without docker.
#
# The metrics endpoint needs no token and tells about the sessions' clients:
# publish it to the host's loopback only (compose.yaml does) or
# scrape it from inside the cluster.
set -eu

run_dir=${ARRAYD_RUN_DIR:-/run/arrayd}
conf_dir=${ARRAYD_CONF_DIR:-/etc/arrayd}
bin=${ARRAYD_BIN:-/usr/local/bin/arrayd}
tls_dir=$conf_dir/tls

if [ -n "${ARRAYD_UMASK:-}" ]; then
  umask "$ARRAYD_UMASK"
fi

# Our flags go first, the user's last: set -- rebuilds "$@" around them.
n=$#
set -- "$@" --listen "unix:$run_dir/arrayd.sock" --backend auto

if [ -f "$tls_dir/server.crt" ] && [ -f "$tls_dir/server.key" ]; then
  set -- "$@" --listen 0.0.0.0:7470 \
    --tls-cert "$tls_dir/server.crt" --tls-key "$tls_dir/server.key"
  authenticated=0
  if [ -f "$tls_dir/client-ca.crt" ]; then
    set -- "$@" --tls-client-ca "$tls_dir/client-ca.crt"
    authenticated=1
  fi
  if [ -f "$conf_dir/tokens" ]; then
    authenticated=1
  fi
  if [ "$authenticated" -eq 0 ]; then
    echo "arrayd entrypoint: TLS certificates are mounted in $tls_dir but no" \
      "client authentication: mount a tokens file at $conf_dir/tokens" \
      "('TOKEN TENANT' lines) or a client CA at $tls_dir/client-ca.crt;" \
      "the server refuses to listen on 0.0.0.0:7470 otherwise" \
      "(--insecure overrides)" >&2
  fi
elif [ -e "$tls_dir/server.crt" ] || [ -e "$tls_dir/server.key" ]; then
  echo "arrayd entrypoint: $tls_dir needs both server.crt and server.key;" \
    "serving on the unix socket only" >&2
fi

if [ -f "$conf_dir/tokens" ]; then
  set -- "$@" --auth-tokens "$conf_dir/tokens"
fi

# A server built before --metrics-listen existed would refuse the flag and
# not start: ask its --help first.
metrics=${ARRAYD_METRICS_LISTEN:-}
if [ -n "$metrics" ]; then
  if "$bin" --help 2>/dev/null | grep -q -e '--metrics-listen'; then
    set -- "$@" --metrics-listen "$metrics"
  else
    echo "arrayd entrypoint: this server has no --metrics-listen;" \
      "ARRAYD_METRICS_LISTEN=$metrics ignored" >&2
  fi
fi

# Move the user's n arguments from the front to the end.
while [ "$n" -gt 0 ]; do
  set -- "$@" "$1"
  shift
  n=$((n - 1))
done

exec "$bin" "$@"
