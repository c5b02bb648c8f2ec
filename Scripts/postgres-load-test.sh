#!/usr/bin/env bash
# The PostgreSQL store's load test for developers: 8 worker processes doing conflicting
# read-modify-write saves on one store (strata-pg-stress), then a table of throughput, latencies
# and notification lag, and whether every invariant held (exit 1 when one broke).
#
# Usage: Scripts/postgres-load-test.sh [strata-pg-stress run options…]
#        e.g. Scripts/postgres-load-test.sh --seconds 10 --workers 4
# Environment: STRATA_POSTGRES_URL (the server; without it a throwaway one is started with
# Scripts/postgres-server.sh and stopped afterwards), STRATA_LOAD_CONFIGURATION (release, the
# default, or debug: the build measured).
set -euo pipefail
cd "$(dirname "$0")/.."

configuration=${STRATA_LOAD_CONFIGURATION:-release}
swift build -c "$configuration" --product strata-pg-stress >&2
bin=$(swift build -c "$configuration" --show-bin-path)

url=${STRATA_POSTGRES_URL:-}
if [ -z "$url" ]; then
    trap 'Scripts/postgres-server.sh stop' EXIT
    url=$(Scripts/postgres-server.sh start)
fi
"$bin/strata-pg-stress" run "$@" "$url"
