#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback for tests and benchmarks.
#   scripts/pg-cluster.sh start DIR PORT   initdb (if needed) and start; prints the URL
#   scripts/pg-cluster.sh stop DIR         stop it
# Runs the server as user postgres when invoked as root (initdb refuses root).
set -euo pipefail
cmd=${1:?start|stop}; dir=${2:?data dir}; port=${3:-55432}

bindir=""
for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && bindir=$d; done
[ -n "$bindir" ] || bindir=$(dirname "$(command -v initdb)")

as_pg() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$(printf '%q ' "$@")"; else "$@"; fi
}

case "$cmd" in
  start)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    if [ ! -f "$dir/PG_VERSION" ]; then
      as_pg "$bindir/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
      cat >>"$dir/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 200
shared_buffers = 256MB
fsync = on
synchronous_commit = on
CONF
    fi
    as_pg "$bindir/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 30 start >/dev/null
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_pg "$bindir/pg_ctl" -D "$dir" -m fast -w stop >/dev/null || true
    ;;
  *) echo "usage: $0 start|stop DIR [PORT]" >&2; exit 2 ;;
esac
