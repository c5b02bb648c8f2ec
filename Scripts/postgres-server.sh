#!/usr/bin/env bash
# A throwaway PostgreSQL server for Strata's tests and for trying the PostgreSQL store: a new
# cluster (initdb) in a temporary directory, listening on loopback and on a socket in that
# directory, with trust authentication for the user `strata`. Run as root (CI), it runs the
# server as the `postgres` user (Debian's postgresql package makes it) or a `strata-pg` user it
# creates; PostgreSQL refuses to run as root.
#
# Usage: Scripts/postgres-server.sh start   starts it (or finds it running) and prints its URL
#        Scripts/postgres-server.sh env     prints `export STRATA_POSTGRES_URL=…` for eval
#        Scripts/postgres-server.sh url     prints the URL
#        Scripts/postgres-server.sh stop    stops it and removes its directory
# Environment: STRATA_PG_DIR (default /tmp/strata-postgres-$UID), STRATA_PG_PORT (default: a
# free port from 54320 on), PG_BIN (default: the newest /usr/lib/postgresql/*/bin).
set -euo pipefail

dir=${STRATA_PG_DIR:-/tmp/strata-postgres-$(id -u)}
bin=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
[ -x "$bin/initdb" ] || { echo "postgres-server: no PostgreSQL binaries (initdb) in '$bin'; install Debian's postgresql package (apt-get install postgresql) or set PG_BIN" >&2; exit 2; }

# Runs a command as the server's user: this one, or an unprivileged one when this is root.
as_server() {
    if [ "$(id -u)" -ne 0 ]; then "$@"; return; fi
    local user=postgres
    if ! id "$user" >/dev/null 2>&1; then
        user=strata-pg
        id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
    fi
    runuser -u "$user" -- "$@"
}

server_user() {
    if [ "$(id -u)" -ne 0 ]; then id -un; elif id postgres >/dev/null 2>&1; then echo postgres; else echo strata-pg; fi
}

url() {
    [ -f "$dir/url" ] || { echo "postgres-server: not running (no $dir/url); run: $0 start" >&2; exit 1; }
    cat "$dir/url"
}

running() {
    [ -f "$dir/data/postmaster.pid" ] && as_server "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1
}

start() {
    if running; then url; return; fi
    rm -rf "$dir"
    mkdir -p "$dir/socket"
    if [ "$(id -u)" -eq 0 ]; then as_server true; chown -R "$(server_user)" "$dir"; fi
    local port=${STRATA_PG_PORT:-}
    if [ -z "$port" ]; then
        port=$(python3 -c '
import socket
for port in range(54320, 54420):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port)); print(port); break
        except OSError:
            pass')
    fi
    as_server "$bin/initdb" -D "$dir/data" -U strata --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    # fsync off: a test server's data is thrown away; nothing else changes the semantics.
    as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir/socket -c fsync=off -c max_connections=200" start >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://strata@127.0.0.1:$port/postgres" >"$dir/url"
    url
}

stop() {
    if running; then as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null; fi
    rm -rf "$dir"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    url) url ;;
    env) echo "export STRATA_POSTGRES_URL='$(url)'" ;;
    *) echo "usage: $0 start|stop|env|url" >&2; exit 2 ;;
esac
