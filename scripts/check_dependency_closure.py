#!/usr/bin/env python3
"""Fails when a product an app links reaches an OpenSSL target, or any target needs OpenSSL on an
Apple platform.

The iOS SDK has no OpenSSL, so every product an app adds must build without it. This reads the
package's description (`swift package describe --type json`), follows each product's targets
through their target dependencies, and fails if the closure contains a forbidden target
(`COpenSSLCrypto` by default), printing the path that reaches it, for example

    RewardLedgerSQLite: RewardLedgerSQLite -> RewardCallbacks -> RewardCrypto -> COpenSSLCrypto

Every target on such a path (here `RewardCallbacks` and `RewardCrypto`) needs OpenSSL too, so the
path names what to move. A product in the list that the package does not declare is an error,
not a pass: pass `--products` to check another list.

Second, OpenSSL is a Linux-only dependency: on Apple platforms RewardCrypto uses CryptoKit, so no
product at all (the simulated networks, the command line) may need OpenSSL on a Mac. This reads
the manifest (`swift package dump-package`, which keeps the dependencies' conditions, unlike
`describe`) and fails for every dependency on a forbidden target that is not conditioned to
non-Apple platforms (`.target(name: "COpenSSLCrypto", condition: .when(platforms: [.linux]))`):

    RewardCrypto -> COpenSSLCrypto on every platform; expected .when(platforms: [.linux])

Usage:
    scripts/check_dependency_closure.py                      # runs `swift package describe` and `dump-package`
    scripts/check_dependency_closure.py --describe-json FILE # a saved description (add --dump-json FILE
                                                             # for the Linux-only check, else it is skipped)
    scripts/check_dependency_closure.py --products MediationKit,RewardLedgerSQLite
Exit status: 0 clean, 1 a product reaches a forbidden target or is missing, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import deque
from pathlib import Path

# The products an iOS app may link (see the README's "Using it in an iOS app").
APP_PRODUCTS = [
    "MediationKit", "MediationKitUI", "MediationKitTesting", "RewardLedgerSQLite", "MediationKitRemoteConfig",
]
# The system-library targets that wrap OpenSSL.
OPENSSL_TARGETS = ["COpenSSLCrypto"]
# SwiftPM's platform names (`platformNames` in `dump-package`) of the platforms that have CryptoKit.
APPLE_PLATFORMS = {"macos", "maccatalyst", "ios", "tvos", "watchos", "visionos", "driverkit"}


class InputError(Exception):
    """The package description is missing or not what `swift package describe` prints."""


def read_swiftpm_json(saved: str | None, package_path: Path, subcommand: list[str], stdin: bool) -> tuple[object, str]:
    """What `swift package <subcommand>` prints, parsed, and where it came from: from the file
    `saved` ('-' for standard input, where `stdin` allows it), else from SwiftPM in `package_path`."""
    name = f"`swift package {subcommand[0]}`"
    command = f"`swift package {' '.join(subcommand)}`"
    if saved is None:
        try:
            result = subprocess.run(["swift", "package", "--package-path", str(package_path), *subcommand],
                                    check=False, capture_output=True, text=True)
        except FileNotFoundError as error:
            raise InputError(f"cannot run {name}: {error}; expected swift on PATH")
        if result.returncode != 0:
            raise InputError(f"{command} in {package_path} failed "
                             f"(exit {result.returncode}): {result.stderr.strip()}")
        text, source = result.stdout, f"{name} of {package_path}"
    elif stdin and saved == "-":
        text, source = sys.stdin.read(), "standard input"
    else:
        try:
            text, source = Path(saved).read_text(), saved
        except OSError as error:
            raise InputError(f"cannot read {saved}: {error.strerror}")
    try:
        return json.loads(text), source
    except json.JSONDecodeError as error:
        raise InputError(f"{source} is not JSON ({error}); expected {command} output")


def load_description(describe_json: str | None, package_path: Path) -> dict:
    """The package description: from `describe_json` ('-' for standard input), else from SwiftPM."""
    description, source = read_swiftpm_json(describe_json, package_path, ["describe", "--type", "json"], stdin=True)
    if not isinstance(description, dict) or not isinstance(description.get("products"), list) \
            or not isinstance(description.get("targets"), list):
        raise InputError(f"{source} has no 'products' and 'targets' lists; "
                         "expected `swift package describe --type json` output")
    return description


def load_manifest(dump_json: str | None, package_path: Path) -> dict:
    """The manifest as `swift package dump-package` prints it: from `dump_json`, else from SwiftPM."""
    manifest, source = read_swiftpm_json(dump_json, package_path, ["dump-package"], stdin=False)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("targets"), list):
        raise InputError(f"{source} has no 'targets' list; expected `swift package dump-package` output")
    return manifest


def dependency_name_and_platforms(dependency: dict) -> tuple[str | None, list[str] | None]:
    """A `dump-package` target dependency's name and the platforms its condition limits it to
    (None: every platform)."""
    for kind in ("byName", "target", "product"):
        value = dependency.get(kind)
        if isinstance(value, list) and value:
            condition = value[-1] if isinstance(value[-1], dict) or value[-1] is None else None
            platforms = (condition or {}).get("platformNames") if len(value) > 1 else None
            return value[0], platforms
    return None, None


def apple_violations(manifest: dict, forbidden: list[str]) -> list[str]:
    """One message per dependency on a forbidden target that an Apple platform would build."""
    problems = []
    for target in manifest["targets"]:
        for dependency in target.get("dependencies", []):
            name, platforms = dependency_name_and_platforms(dependency)
            if name not in forbidden:
                continue
            if platforms is None:
                problems.append(f"{target['name']} -> {name} on every platform; expected "
                                f".target(name: \"{name}\", condition: .when(platforms: [.linux])) "
                                "(Apple platforms take their cryptography from CryptoKit)")
            elif apple := sorted(APPLE_PLATFORMS.intersection(p.lower() for p in platforms)):
                problems.append(f"{target['name']} -> {name} on {', '.join(apple)}; expected "
                                "Linux only (Apple platforms take their cryptography from CryptoKit)")
    return problems


def violations(description: dict, products: list[str], forbidden: list[str]) -> list[str]:
    """One message per product that is missing or reaches a forbidden target; empty when clean."""
    targets = {target["name"]: target.get("target_dependencies", []) for target in description["targets"]}
    declared = {product["name"]: product.get("targets", []) for product in description["products"]}
    problems = []
    for product in products:
        if product not in declared:
            problems.append(
                f"{product}: the package declares no such product "
                f"(products: {', '.join(sorted(declared))}); expected it to exist, "
                "or pass --products to check another list")
            continue
        path = path_to_forbidden(product, declared[product], targets, set(forbidden))
        if path:
            problems.append(f"{product}: {' -> '.join(path)} (needs OpenSSL, which the iOS SDK lacks)")
    return problems


def path_to_forbidden(product: str, roots: list[str], targets: dict[str, list[str]],
                      forbidden: set[str]) -> list[str] | None:
    """The shortest target path from the product to a forbidden target (breadth first), if any.

    It starts with the product's name, written once when its root target has the same name.
    """
    parent: dict[str, str | None] = {}
    queue: deque[str] = deque()
    for root in roots:
        if root not in parent:
            parent[root] = None
            queue.append(root)
    while queue:
        name = queue.popleft()
        if name in forbidden:
            path = [name]
            while parent[path[-1]] is not None:
                path.append(parent[path[-1]])
            path.reverse()
            return path if path[0] == product else [product, *path]
        for dependency in targets.get(name, []):
            if dependency not in parent:
                parent[dependency] = name
                queue.append(dependency)
    return None


def names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--describe-json", metavar="FILE",
                        help="a saved `swift package describe --type json` ('-' for standard input); "
                             "default: run it")
    parser.add_argument("--dump-json", metavar="FILE",
                        help="a saved `swift package dump-package` for the Linux-only check; default: run it, "
                             "unless --describe-json is given")
    parser.add_argument("--package-path", default=str(Path(__file__).resolve().parent.parent),
                        help="the package to describe (default: this repository)")
    parser.add_argument("--products", type=names, default=APP_PRODUCTS,
                        help=f"comma-separated products to check (default: {','.join(APP_PRODUCTS)})")
    parser.add_argument("--forbidden", type=names, default=OPENSSL_TARGETS,
                        help=f"comma-separated targets no product may reach (default: {','.join(OPENSSL_TARGETS)})")
    arguments = parser.parse_args(argv)
    if not arguments.products:
        parser.error("--products: expected at least one product name")
    check_apple = arguments.dump_json is not None or arguments.describe_json is None
    try:
        description = load_description(arguments.describe_json, Path(arguments.package_path))
        manifest = load_manifest(arguments.dump_json, Path(arguments.package_path)) if check_apple else None
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    problems = violations(description, arguments.products, arguments.forbidden)
    if manifest is not None:
        problems += apple_violations(manifest, arguments.forbidden)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"dependency closure: {', '.join(arguments.products)} reach none of {', '.join(arguments.forbidden)}")
    if manifest is not None:
        print(f"dependency closure: {', '.join(arguments.forbidden)} only on Linux: no target needs it on an "
              "Apple platform")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
