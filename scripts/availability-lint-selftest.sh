#!/usr/bin/env bash
# Self-test of scripts/availability-lint.py: plants APIs newer than the floor in a scratch copy of
# the package (its Package.swift and two clean folders of MediationKit) and checks that the lint
# fails or passes as it should. Run by .ci/run; needs python3 and swift on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
lint="$PWD/scripts/availability-lint.py"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/Sources/MediationKit"
cp Package.swift "$scratch/"
cp -R Sources/MediationKit/Concurrency Sources/MediationKit/Time "$scratch/Sources/MediationKit/"

failures=0
# check EXPECTED NAME SWIFT-SOURCE: plants the source as Planted.swift, runs the lint, compares.
check() {
  local expected=$1 name=$2 source=$3
  printf '%s\n' "$source" >"$scratch/Sources/MediationKit/Planted.swift"
  local output status=0
  output=$(python3 "$lint" --package "$scratch" 2>&1) || status=$?
  local got=pass
  [ "$status" -eq 1 ] && got=fail
  [ "$status" -gt 1 ] && got="error $status"
  if [ "$got" != "$expected" ]; then
    echo "FAIL: $name: expected the lint to $expected, it did $got" >&2
    echo "$output" >&2
    failures=$((failures + 1))
  elif [ "$expected" = fail ] && ! grep -q "Planted.swift:[0-9]*:[0-9]*: error: " <<<"$output"; then
    echo "FAIL: $name: the lint failed without naming Planted.swift:line:column" >&2
    echo "$output" >&2
    failures=$((failures + 1))
  else
    echo "ok: $name ($got)"
  fi
}

gate='macOS 15, iOS 18, tvOS 18, visionOS 2, *'
check pass "the clean copy" 'let planted = 1'
check fail "an Atomic" 'import Synchronization
final class Counter { let value = Atomic<Int>(0) }'
check fail "a Mutex" 'import Synchronization
let lock = Mutex<[String]>([])'
check fail "Int128" 'let wide = Int128(1) << 100'
check fail "Duration(attoseconds:)" 'let tiny = Duration(attoseconds: 1)'
check fail ".attoseconds on a Duration" 'func count(_ d: Duration) -> Int64 { Int64(d.attoseconds) }'
check pass "the tuple label of Duration.components" 'func count(_ d: Duration) -> Int64 { d.components.attoseconds }'
check fail "a local named like the member does not hide it" \
  $'func split(_ n: Int64) -> Int64 { let attoseconds = n; return attoseconds }\nfunc count(_ d: Duration) -> Int64 { Int64(d.attoseconds) }'
check pass "a member the package declares is its own" \
  $'struct Span { var attoseconds: Int64 }\nfunc count(_ s: Span) -> Int64 { s.attoseconds }'
check fail "@Observable" 'import Observation
@Observable final class Model { var count = 0 }'
check pass "an Atomic inside if #available" "import Synchronization
func make() {
  if #available($gate) {
    let value = Atomic<Int>(0)
    _ = value.load(ordering: .relaxed)
  }
}"
check fail "an Atomic after if #available, outside its braces" "import Synchronization
func make() {
  if #available($gate) { print(1) }
  let value = Atomic<Int>(0)
  _ = value.load(ordering: .relaxed)
}"
check fail "a Mutex under #available(iOS 18, *) only (macOS 13 still lacks it)" 'import Synchronization
func make() {
  if #available(iOS 18, *) { _ = Mutex(0) }
}'
check pass "a Mutex after guard #available" "import Synchronization
func make() {
  guard #available($gate) else { return }
  _ = Mutex(0)
}"
check pass "a Mutex inside an @available class" "import Synchronization
@available($gate)
final class Box {
  let lock = Mutex(0)
}"
check pass "@Observable on an @available class" "import Observation
@available(macOS 14, iOS 17, tvOS 17, *)
@Observable final class Model { var count = 0 }"
check pass "an Atomic and its import under #if os(Linux)" '#if os(Linux)
  import Synchronization
  let counter = Atomic<Int>(0)
#endif'
check fail "import Synchronization, ungated and unused" 'import Synchronization
let planted = 1'
check fail "import Synchronization ungated, the one use under #if os(Linux)" 'import Synchronization
#if os(Linux)
  let counter = Atomic<Int>(0)
#endif'
check pass "import Synchronization under #if os(Linux)" '#if os(Linux)
  import Synchronization
#endif
let planted = 1'
check fail "import Synchronization in the #else of #if os(Linux)" '#if os(Linux)
  let planted = 1
#else
  import Synchronization
#endif'
check fail "import Synchronization under #if canImport(Synchronization) (an iOS 18 SDK has it)" '#if canImport(Synchronization)
  import Synchronization
#endif
let planted = 1'
check fail "an access-level, attributed or scoped import" '@preconcurrency internal import struct Synchronization.Mutex
let planted = 1'
check fail "import Observation, unused" 'import Observation
let planted = 1'
check fail "import SwiftData (no interface here, so no gated use can be seen)" 'import SwiftData
let planted = 1'
check pass "modules at or below the floor" 'import RegexBuilder
import Foundation
let planted = 1'
check pass "a waived import" 'import Synchronization  // availability-lint: ignore (weak-linked, uses gated elsewhere)
let planted = 1'
check fail "an Atomic in the #else of #if os(Linux)" 'import Synchronization
#if os(Linux)
  let counter = 0
#else
  let counter = Atomic<Int>(0)
#endif'
check pass "a member name the sources declare themselves (.kind)" 'struct Failure {
  enum Kind { case timeout }
  var kind: Kind
}
let kind = Failure(kind: .timeout).kind'
check pass "a waived line" 'let tiny = Duration(attoseconds: 1)  // availability-lint: ignore (Linux-only test helper)'
check pass "Atomic and Mutex in comments and strings" '// Atomic<Int> and Mutex would need iOS 18.
let note = "Atomic<Int>(0), Mutex(0)"'

# The floor comes from Package.swift: at iOS 18 / macOS 15 / tvOS 18 / visionOS 2 an Atomic is fine.
sed -i 's/platforms: \[[^]]*\]/platforms: [.iOS(.v18), .macOS(.v15), .tvOS(.v18), .visionOS(.v2)]/' "$scratch/Package.swift"
check pass "an Atomic when the manifest's floor is iOS 18" 'import Synchronization
let counter = Atomic<Int>(0)'
check pass "import Synchronization, unused, when the manifest's floor is iOS 18" 'import Synchronization
let planted = 1'

# No platforms at all: a clear error, not a pass.
sed -i '/platforms: \[/d' "$scratch/Package.swift"
check "error 2" "a manifest without platforms" 'let planted = 1'

if [ "$failures" -gt 0 ]; then
  echo "availability lint self-test: $failures case(s) failed" >&2
  exit 1
fi
echo "availability lint self-test: all cases behaved"
