#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the PostgresReplayGuard tests, listening only on a unix
# socket in a directory of its own (no TCP port), trusting local connections.
#
#   scripts/postgres-test-cluster.sh start DIR   # prints the export lines the tests read
#   scripts/postgres-test-cluster.sh restart DIR # what the restart test runs
#   scripts/postgres-test-cluster.sh stop DIR
#
# `start` prints, for `eval`, `export MEDIATIONKIT_TEST_POSTGRES_URL=…`: a postgres:// URL of an
# empty database. (The restart test starts a cluster of its own with this script, so restarting
# it never disturbs the other tests.)
# PostgreSQL refuses to run as root: when this runs as root, the cluster belongs to the `postgres`
# user (created by Debian's postgresql package), or `nobody` if there is none.
set -euo pipefail

command=${1:-}
dir=${2:-}
if [ -z "$command" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|restart|stop DIR" >&2
  exit 64
fi
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ] || [ ! -x "$bin/pg_ctl" ]; then
  echo "error: no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)" >&2
  exit 69
fi

as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  owner=postgres
  id "$owner" >/dev/null 2>&1 || owner=nobody
  as_owner=(runuser -u "$owner" --)
fi
port=54329
# The server outlives this script: it must not inherit the caller's descriptors beyond the standard
# three (a test runner waits for its child's pipes and sockets to close).
for fd in /proc/$$/fd/*; do
  n=${fd##*/}
  if [ "$n" -gt 2 ]; then eval "exec $n>&-" 2>/dev/null || true; fi
done
data="$dir/data"

case "$command" in
  start)
    mkdir -p "$dir"
    [ ${#as_owner[@]} -gt 0 ] && chown "$owner" "$dir"
    "${as_owner[@]}" "$bin/initdb" -D "$data" --username=postgres --auth=trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    # Only the socket in $dir; settings in the file, so a restart keeps them. fsync stays on: the
    # tests check what a committed claim promises.
    cat >>"$data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$dir'
port = $port
max_connections = 100
EOF
    "${as_owner[@]}" "$bin/pg_ctl" -D "$data" -l "$dir/server.log" -w start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 1; }
    "${as_owner[@]}" "$bin/createdb" -h "$dir" -p "$port" -U postgres mediationkit_test
    echo "export MEDIATIONKIT_TEST_POSTGRES_URL='postgresql:///mediationkit_test?host=$dir&port=$port&user=postgres'"
    ;;
  restart)
    "${as_owner[@]}" "$bin/pg_ctl" -D "$data" -l "$dir/server.log" -w -m fast restart </dev/null >/dev/null
    ;;
  stop)
    if [ -d "$data" ]; then
      "${as_owner[@]}" "$bin/pg_ctl" -D "$data" -w -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start|restart|stop DIR" >&2
    exit 64
    ;;
esac
