#!/usr/bin/env bash
# Builds MediationKit's DocC catalog with the toolchain's docc against the package's symbol graph
# and fails on any warning: an unresolved symbol link (``Name`` that names no public symbol), a
# broken <doc:> reference, or any other problem docc reports.
# Usage: scripts/check-docs.sh [configuration]   (debug or release, default debug: the build whose
# MediationKit module the symbol graph is extracted from; build it first)
set -euo pipefail
cd "$(dirname "$0")/.."
configuration=${1:-debug}
modules="$(swift build -c "$configuration" --show-bin-path)/Modules"
bin="$(dirname "$(command -v swift)")"
if [ ! -x "$bin/docc" ] || [ ! -x "$bin/swift-symbolgraph-extract" ]; then
  echo "error: docc or swift-symbolgraph-extract missing next to swift ($bin); both ship with the toolchain" >&2
  exit 1
fi
if [ ! -e "$modules/MediationKit.swiftmodule" ]; then
  echo "error: no $modules/MediationKit.swiftmodule: run swift build (-c $configuration) first" >&2
  exit 1
fi
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
symbols=$(mktemp -d)
out=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$symbols" "$out" "$log"' EXIT
"$bin/swift-symbolgraph-extract" -module-name MediationKit -I "$modules" -target "$triple" \
  -output-dir "$symbols" -minimum-access-level public
status=0
"$bin/docc" convert Sources/MediationKit/MediationKit.docc --additional-symbol-graph-dir "$symbols" \
  --fallback-display-name MediationKit --fallback-bundle-identifier MediationKit \
  --output-path "$out/MediationKit.doccarchive" --warnings-as-errors >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ] || grep -q "warning:\|error:" "$log"; then
  cat "$log" >&2
  echo "error: the DocC catalog has unresolved links or other problems (above)" >&2
  exit 1
fi
echo "DocC catalog: no warnings"
