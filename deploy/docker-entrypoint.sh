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
#   arguments of `docker run IMAGE ...` are appended (a later --backend wins)
#
# Without TLS there is no TCP listener: the unix socket is reached by
# containers that mount $ARRAYD_RUN_DIR. The server refuses a TCP listener
# other than loopback unless clients are authenticated (tokens or client
# certificates); pass --insecure to override.
#
# ARRAYD_RUN_DIR (/run/arrayd), ARRAYD_CONF_DIR (/etc/arrayd) and ARRAYD_BIN
# (/usr/local/bin/arrayd) are overridable, for testing without docker.
set -eu

run_dir=${ARRAYD_RUN_DIR:-/run/arrayd}
conf_dir=${ARRAYD_CONF_DIR:-/etc/arrayd}
bin=${ARRAYD_BIN:-/usr/local/bin/arrayd}
tls_dir=$conf_dir/tls

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

# Move the user's n arguments from the front to the end.
while [ "$n" -gt 0 ]; do
  set -- "$@" "$1"
  shift
  n=$((n - 1))
done

exec "$bin" "$@"
