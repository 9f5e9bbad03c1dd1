#!/usr/bin/env bash
# The lock box and atomics are @_spi(SharedState) public rather than package because Swift 6.3
# does not inline a package declaration's @inlinable body into another module. This check keeps
# that true for the targets every simulated request runs through (the simulated SDKs, the test
# kit's scheduler, the simulator): none of their release objects may call the unspecialized generic
# Locked.init or Locked.withLock, or an AtomicInt operation, out of line. (SQLiteSupport's store is
# itself generic, so its calls stay generic; it does disk I/O per call.) Run after
# `swift build -c release`.
set -euo pipefail
cd "$(dirname "$0")/.."
build=.build/release
found=0
for target in EmpowerSim MaxSim GoogleSim MediationKitTesting MediationKitSimulation MediateCLI; do
  dir="$build/$target.build"
  [ -d "$dir" ] || { echo "error: no $dir: build with 'swift build -c release' first" >&2; exit 1; }
  for object in "$dir"/*.o; do
    [ -e "$object" ] || continue
    calls=$(nm "$object" | awk '$1 == "U" { print $2 }' \
      | grep -E '^\$s12MediationKit(6LockedV8withLock|6LockedVyACyxGxcfC|9AtomicIntV[0-9])' || true)
    if [ -n "$calls" ]; then
      echo "error: $object calls MediationKit's shared-state helpers out of line:" >&2
      echo "$calls" | sed 's/^/  /' >&2
      found=1
    fi
  done
done
if [ "$found" -ne 0 ]; then
  echo "Make them public to other modules (@_spi(SharedState) public, @inlinable), not package." >&2
  exit 1
fi
echo "ok: no target calls Locked.init, Locked.withLock or AtomicInt out of line"
