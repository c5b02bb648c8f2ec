#!/usr/bin/env bash
# Builds the DocC documentation of every library target (the targets of the package's library
# products) with swift-docc-plugin, warnings as errors: an unresolved symbol link, a parameter
# without documentation, a malformed topic group fails CI.
#
# The plugin is run once with --warnings-as-errors. When that fails, SwiftPM 6.3 hides docc's
# diagnostics (and may crash after the failure), so the build is run again without the flag to
# print every warning, and the script exits 1 either way.
#
# Usage: Scripts/check-documentation.sh  (from anywhere; the modules must build)
set -euo pipefail
cd "$(dirname "$0")/.."

targets=$(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
names = []
for product in package["products"]:
    if "library" in product["type"]:
        names += [t for t in product["targets"] if t not in names]
print(" ".join(names))')
[ -n "$targets" ] || { echo "check-documentation: no library targets found" >&2; exit 1; }

arguments=()
for target in $targets; do arguments+=(--target "$target"); done
echo "check-documentation: $targets"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if swift package generate-documentation "${arguments[@]}" --warnings-as-errors >"$log" 2>&1 \
    && ! grep -qE '(^|: )(warning|error):' "$log"; then
    echo "check-documentation: every catalog builds without warnings"
    exit 0
fi
echo "check-documentation: the documentation has warnings or errors:" >&2
swift package generate-documentation "${arguments[@]}" >"$log" 2>&1 || true
grep -E -A8 '(^|: )(warning|error):' "$log" >&2 || cat "$log" >&2
exit 1
