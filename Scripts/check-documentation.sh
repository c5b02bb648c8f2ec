#!/usr/bin/env bash
# Builds the DocC documentation of every library target (the targets of the package's library
# products) with swift-docc-plugin, warnings as errors: an unresolved symbol link, a parameter
# without documentation, a malformed topic group fails CI; so does a public type or function
# that no topic group of its module's landing page lists.
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
    # Every public symbol of a module belongs in a topic group of its catalog's landing page:
    # a section DocC had to generate ("Structures", "Classes", ...) lists the ones left out.
    # (Extensions of other modules' types stay under "Extended Modules".)
    python3 - $targets <<'PYTHON'
import json, sys
problems = []
for target in sys.argv[1:]:
    page = json.load(open(f".build/plugins/Swift-DocC/outputs/{target}.doccarchive/data/documentation/{target.lower()}.json"))
    for section in page.get("topicSections", []):
        if section.get("generated") and section.get("title") != "Extended Modules":
            names = [page["references"][i]["title"] for i in section["identifiers"] if i in page["references"]]
            problems.append(f"{target}: {section.get('title')} in no topic group of Sources/{target}/{target}.docc/{target}.md: {', '.join(names)}")
for problem in problems:
    print(f"check-documentation: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
PYTHON
    echo "check-documentation: every public symbol is in a topic group"
    exit 0
fi
echo "check-documentation: the documentation has warnings or errors:" >&2
swift package generate-documentation "${arguments[@]}" >"$log" 2>&1 || true
grep -E -A8 '(^|: )(warning|error):' "$log" >&2 || cat "$log" >&2
exit 1
