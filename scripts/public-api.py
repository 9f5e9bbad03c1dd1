#!/usr/bin/env python3
"""The public API of every library product, as committed text files under api/.

Each file (api/<Product>.txt) lists the product's public declarations, one per line and sorted:
types with their conformances, members, extensions, protocol requirements. The list comes from the
compiler's symbol graph (`swift package dump-symbol-graph`), not from reading Swift source, so it
shows what a user of the product can actually reach. `@_spi` declarations are listed, marked
`@_spi(Name)`; `package` and internal declarations are not (the minimum access level is public).

Usage:
  scripts/public-api.py            regenerate api/*.txt (commit the diff: it is the API review)
  scripts/public-api.py --check    regenerate into a temporary directory and compare; exits 1 with
                                   the diff when the committed files are out of date
  scripts/public-api.py --selftest shows on a synthetic symbol graph that a new public function
                                   changes the listing and that --check then fails
  scripts/public-api.py --count-types MediationKit
                                   the public top-level types of one product, one per line

Options: --symbol-graphs DIR reads symbol graphs already dumped in DIR instead of dumping them;
--api-dir DIR compares against / writes to DIR instead of api/.

The listing does not depend on the machine: paths, source locations and doc comments are left
out, and lines are sorted. It does depend on the platform where `#if` hides code (the committed
files are generated on Linux, as CI runs) and may change in form with the compiler version.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
REGENERATE = "python3 scripts/public-api.py"

# Symbol kinds that are types (used for the top-level type count).
TYPE_KINDS = {
    "swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.actor",
    "swift.typealias",
}


def library_products(package_dir: pathlib.Path) -> dict[str, list[str]]:
    """Library product name -> its targets, from `swift package dump-package`."""
    out = subprocess.run(
        ["swift", "package", "--package-path", str(package_dir), "dump-package"],
        check=True, capture_output=True, text=True,
    ).stdout
    manifest = json.loads(out)
    products = {}
    for product in manifest["products"]:
        if "library" in product["type"]:
            products[product["name"]] = list(product["targets"])
    return products


def dump_symbol_graphs(package_dir: pathlib.Path) -> pathlib.Path:
    """Runs the compiler's symbol-graph dump; returns the directory holding the JSON files."""
    result = subprocess.run(
        ["swift", "package", "--package-path", str(package_dir), "dump-symbol-graph",
         "--minimum-access-level", "public", "--include-spi-symbols", "--skip-synthesized-members"],
        capture_output=True, text=True,
    )
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        sys.exit(f"error: `swift package dump-symbol-graph` failed (exit {result.returncode})")
    for line in reversed(result.stdout.splitlines()):
        if "Files written to" in line:
            return pathlib.Path(line.split("Files written to", 1)[1].strip())
    candidates = sorted(package_dir.glob(".build/*/symbolgraph")) + sorted(
        package_dir.glob(".build/symbolgraph"))
    if not candidates:
        sys.exit("error: could not find the symbol graphs `swift package dump-symbol-graph` wrote")
    return candidates[0]


def fragments_text(fragments: list[dict]) -> str:
    return " ".join("".join(fragment["spelling"] for fragment in fragments).split())


def module_lines(graph_dir: pathlib.Path, module: str) -> tuple[list[tuple], list[str]]:
    """(declaration lines with their sort keys, public top-level type names) of one module.

    Lines sort by their path (a type before its members), then by text.
    """
    files = [graph_dir / f"{module}.symbols.json"] + sorted(graph_dir.glob(f"{module}@*.symbols.json"))
    lines: list[tuple] = []
    top_level_types: list[str] = []
    for path in files:
        if not path.exists():
            continue
        graph = json.loads(path.read_text())
        extended_module = path.name[len(module) + 1:-len(".symbols.json")] if "@" in path.name else None
        symbols = {symbol["identifier"]["precise"]: symbol for symbol in graph["symbols"]}
        conformances: dict[str, set[str]] = {}
        roles: dict[str, str] = {}
        for relation in graph.get("relationships", []):
            kind = relation["kind"]
            if kind in ("conformsTo", "inheritsFrom") and relation["source"] in symbols:
                target = relation.get("targetFallback") or symbols.get(relation["target"], {}).get(
                    "names", {}).get("title", relation["target"])
                constraints = relation.get("swiftConstraints")
                if constraints:
                    target += " where " + ", ".join(
                        f"{c['lhs']} {':' if c['kind'] == 'conformance' else '=='} {c['rhs']}"
                        for c in constraints)
                conformances.setdefault(relation["source"], set()).add(target.split(".")[-1]
                                                                       if "where" not in target
                                                                       else target)
            elif kind == "requirementOf":
                roles[relation["source"]] = "requirement"
            elif kind == "optionalRequirementOf":
                roles[relation["source"]] = "optional requirement"
        for precise, symbol in symbols.items():
            path_components = symbol["pathComponents"]
            name = ".".join(path_components)
            declaration = fragments_text(symbol["declarationFragments"])
            kind = symbol["kind"]["identifier"]
            extra = []
            # A protocol's declaration already spells what it inherits; `SendableMetatype` is implied
            # by `Sendable` (and only newer compilers list it).
            conformances.get(precise, set()).discard("SendableMetatype")
            if precise in conformances and conformances[precise] and kind != "swift.protocol":
                declaration += " : " + ", ".join(sorted(conformances[precise]))
            extension = symbol.get("swiftExtension")
            if extension and extension.get("constraints"):
                extra.append("in extension where " + ", ".join(
                    f"{c['lhs']} {':' if c['kind'] == 'conformance' else '=='} {c['rhs']}"
                    for c in extension["constraints"]))
            if precise in roles:
                extra.append(roles[precise])
            for availability in symbol.get("availability", []):
                domain = availability.get("domain", "*")
                for key in ("introduced", "deprecated", "obsoleted"):
                    if key in availability:
                        version = availability[key]
                        text = ".".join(str(version.get(part, 0)) for part in ("major", "minor", "patch"))
                        extra.append(f"{key} {domain} {text}")
                if availability.get("isUnconditionallyDeprecated"):
                    extra.append(f"deprecated {domain}")
            prefix = ""
            if symbol.get("spi"):
                prefix = "@_spi "
            if extended_module:
                prefix += f"extension of {extended_module}: "
            line = f"{prefix}{name}: {declaration}"
            if extra:
                line += "  [" + "; ".join(extra) + "]"
            lines.append((extended_module or "", tuple(path_components), line))
            if kind in TYPE_KINDS and len(path_components) == 1 and not extended_module:
                top_level_types.append(("@_spi " if symbol.get("spi") else "") + path_components[0])
    return lines, top_level_types


def render(graph_dir: pathlib.Path, products: dict[str, list[str]]) -> dict[str, str]:
    """Product name -> the text of api/<Product>.txt."""
    rendered = {}
    for product, targets in sorted(products.items()):
        lines: set[tuple] = set()
        types: set[str] = set()
        for target in targets:
            module_declarations, module_types = module_lines(graph_dir, target)
            lines.update(module_declarations)
            types.update(module_types)
        spi = sum(1 for name in types if name.startswith("@_spi"))
        header = [
            f"# The public API of the {product} product ({', '.join(sorted(targets))}).",
            f"# Generated by `{REGENERATE}`; do not edit. {len(types) - spi} public top-level types"
            + (f" and {spi} @_spi ones." if spi else "."),
        ]
        rendered[product] = "\n".join(header + [line for *_, line in sorted(lines)]) + "\n"
    return rendered


def write(rendered: dict[str, str], api_dir: pathlib.Path) -> None:
    api_dir.mkdir(parents=True, exist_ok=True)
    for stale in api_dir.glob("*.txt"):
        if stale.stem not in rendered:
            stale.unlink()
    for product, text in rendered.items():
        (api_dir / f"{product}.txt").write_text(text)


def compare(rendered: dict[str, str], api_dir: pathlib.Path) -> str:
    """A unified diff from the committed files to the regenerated ones; empty when they agree."""
    committed_names = {path.stem for path in api_dir.glob("*.txt")} if api_dir.exists() else set()
    diff = []
    for product in sorted(committed_names | set(rendered)):
        path = api_dir / f"{product}.txt"
        old = path.read_text().splitlines(keepends=True) if path.exists() else []
        new = rendered.get(product, "").splitlines(keepends=True)
        diff.extend(difflib.unified_diff(old, new, f"committed/{product}.txt", f"regenerated/{product}.txt"))
    return "".join(diff)


def check(rendered: dict[str, str], api_dir: pathlib.Path) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        write(rendered, pathlib.Path(scratch))
        regenerated = {path.stem: path.read_text() for path in pathlib.Path(scratch).glob("*.txt")}
    diff = compare(regenerated, api_dir)
    if not diff:
        print(f"public API unchanged: {len(rendered)} products match {api_dir.relative_to(ROOT) if api_dir.is_relative_to(ROOT) else api_dir}")
        return 0
    sys.stdout.write(diff)
    print(
        "\nerror: the public API differs from the committed api/*.txt (above: committed -> now).\n"
        f"If the change is intended, regenerate with `{REGENERATE}` and commit the diff for review.",
        file=sys.stderr,
    )
    return 1


def selftest() -> int:
    """A synthetic symbol graph: one public function added must change the listing and fail --check."""
    def graph(extra_symbols: list[dict]) -> dict:
        base = [
            {"identifier": {"precise": "s:4Demo5ThingV"}, "kind": {"identifier": "swift.struct"},
             "pathComponents": ["Thing"], "names": {"title": "Thing"},
             "declarationFragments": [{"spelling": "struct"}, {"spelling": " "}, {"spelling": "Thing"}]},
            {"identifier": {"precise": "s:4Demo5ThingV4nameSSvp"}, "kind": {"identifier": "swift.property"},
             "pathComponents": ["Thing", "name"], "names": {"title": "name"},
             "declarationFragments": [{"spelling": "let"}, {"spelling": " "}, {"spelling": "name"},
                                      {"spelling": ": "}, {"spelling": "String"}]},
        ]
        return {"symbols": base + extra_symbols,
                "relationships": [{"kind": "conformsTo", "source": "s:4Demo5ThingV", "target": "s:SH",
                                   "targetFallback": "Swift.Hashable"}]}

    added = {"identifier": {"precise": "s:4Demo5ThingV5resetyyF"}, "kind": {"identifier": "swift.method"},
             "pathComponents": ["Thing", "reset()"], "names": {"title": "reset()"},
             "declarationFragments": [{"spelling": "func"}, {"spelling": " "}, {"spelling": "reset"},
                                      {"spelling": "()"}]}
    products = {"Demo": ["Demo"]}
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        scratch_path = pathlib.Path(scratch)
        graphs, api = scratch_path / "graphs", scratch_path / "api"
        graphs.mkdir()
        (graphs / "Demo.symbols.json").write_text(json.dumps(graph([])))
        before = render(graphs, products)
        write(before, api)
        expected_lines = ["Thing: struct Thing : Hashable", "Thing.name: let name: String"]
        if before["Demo"].splitlines()[2:] != expected_lines:
            failures.append(f"listing of the synthetic module: {before['Demo'].splitlines()[2:]}")
        if check(render(graphs, products), api) != 0:
            failures.append("--check failed on an unchanged API")
        (graphs / "Demo.symbols.json").write_text(json.dumps(graph([added])))
        after = render(graphs, products)
        diff = compare(after, api)
        if "+Thing.reset(): func reset()" not in diff.splitlines():
            failures.append(f"the diff does not show the added function:\n{diff}")
        print("(the failure below is expected: the selftest adds a public function)")
        if check(after, api) != 1:
            failures.append("--check passed although a public function was added")
    if failures:
        print("public-api selftest FAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
        return 1
    print("public-api selftest passed: an added public function fails --check")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--selftest", action="store_true")
    parser.add_argument("--count-types", metavar="PRODUCT")
    parser.add_argument("--symbol-graphs", type=pathlib.Path)
    parser.add_argument("--api-dir", type=pathlib.Path, default=ROOT / "api")
    arguments = parser.parse_args()
    if arguments.selftest:
        return selftest()
    products = library_products(ROOT)
    graph_dir = arguments.symbol_graphs or dump_symbol_graphs(ROOT)
    if arguments.count_types:
        _, types = module_lines(graph_dir, arguments.count_types)
        print("\n".join(sorted(types)))
        spi = sum(1 for name in types if name.startswith("@_spi"))
        print(
            f"{len(types) - spi} public top-level types in {arguments.count_types}"
            + (f", and {spi} @_spi ones (visible only to an `@_spi` import)" if spi else ""),
            file=sys.stderr,
        )
        return 0
    rendered = render(graph_dir, products)
    if arguments.check:
        return check(rendered, arguments.api_dir)
    write(rendered, arguments.api_dir)
    print(f"wrote {len(rendered)} files to {arguments.api_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
