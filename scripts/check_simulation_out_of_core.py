#!/usr/bin/env python3
"""Fails when the shipping core (`Sources/MediationKit`) holds simulation plumbing again.

An app that links `MediationKit` gets no simulation types: the simulator's oracle
(`SimulatedNetwork`, `SimulatedQuote`), the simulated servers' callback sender
(`ServerCallbackSender`, `ServerCallbackRequest`) and the adapter record (`MadeAdapters`) live in
the `MediationKitSimulation` target, and the simulated networks take their wall clock and callback
sender with their registrations, not through `AdapterEnvironment` or `MediatorOptions`.

This reads the core's Swift sources and DocC articles and fails, naming file and line, on:
- any mention of a simulation type name in Swift (a declaration, a use, a doc comment), or a DocC
  symbol link to one in an article (a plain `code` mention that points readers to the simulation
  library is fine: it promises no core symbol);
- `serverCallbacks` in the same places (the option and the environment field that carried the
  sender);
- `wallClockMilliseconds` inside `struct AdapterEnvironment` (the ledger's wall clock stays in
  `MediatorOptions`; adapters are not handed it).
It also fails when the simulation target does not declare the simulation types, so deleting the
target or moving the types back cannot pass.

Usage:
    scripts/check_simulation_out_of_core.py
    scripts/check_simulation_out_of_core.py --core DIR --simulation DIR
Exit status: 0 clean, 1 simulation found in the core or missing from its target, 2 bad input.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The names that belong to the simulation target; `Simulated...` covers any new one.
SIMULATION_NAME = re.compile(r"\b(Simulated[A-Z]\w*|ServerCallbackSender|ServerCallbackRequest|MadeAdapters)\b")
# What the simulation target must declare.
REQUIRED = ["SimulatedNetwork", "SimulatedQuote", "ServerCallbackSender", "ServerCallbackRequest"]
DECLARATION = re.compile(r"\b(?:protocol|struct|class|enum|actor|typealias)\s+(\w+)")


def struct_body(text: str, name: str) -> tuple[int, str] | None:
    """The offset and text of `struct name { ... }`'s body, by brace matching."""
    match = re.search(r"\bstruct\s+" + re.escape(name) + r"\b[^{]*\{", text)
    if not match:
        return None
    depth, index = 1, match.end()
    while index < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        index += 1
    return match.end(), text[match.end():index]


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def problems_in_core(core: Path) -> list[str]:
    problems = []
    files = sorted(p for p in core.rglob("*") if p.suffix in (".swift", ".md") and p.is_file())
    for path in files:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".md":
            # Only DocC symbol links (``Name`` or ``Type/member``) claim a core symbol.
            text = re.sub(r"(?<!`)`(?!`)[^`\n]*`", lambda m: " " * len(m.group(0)), text)
        for match in SIMULATION_NAME.finditer(text):
            problems.append(f"{path}:{line_of(text, match.start())}: '{match.group(1)}' is simulation; "
                            "it belongs in Sources/MediationKitSimulation")
        for match in re.finditer(r"\bserverCallbacks\b", text):
            problems.append(f"{path}:{line_of(text, match.start())}: 'serverCallbacks' in the core; simulated "
                            "servers take their sender with their registration")
        body = struct_body(text, "AdapterEnvironment") if path.suffix == ".swift" else None
        if body:
            start, inner = body
            for match in re.finditer(r"\bwallClockMilliseconds\b", inner):
                problems.append(f"{path}:{line_of(text, start + match.start())}: AdapterEnvironment carries "
                                "'wallClockMilliseconds'; simulated servers take their wall clock with their "
                                "registration")
    return problems


def problems_in_simulation(simulation: Path) -> list[str]:
    declared = set()
    for path in simulation.rglob("*.swift"):
        declared.update(DECLARATION.findall(path.read_text(encoding="utf-8")))
    missing = [name for name in REQUIRED if name not in declared]
    return [f"{simulation}: does not declare {', '.join(missing)} (expected the simulation target to)"] if missing else []


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--core", type=Path, default=ROOT / "Sources" / "MediationKit")
    parser.add_argument("--simulation", type=Path, default=ROOT / "Sources" / "MediationKitSimulation")
    arguments = parser.parse_args(argv)
    for label, directory in (("--core", arguments.core), ("--simulation", arguments.simulation)):
        if not directory.is_dir():
            print(f"error: {label} {directory}: no such directory", file=sys.stderr)
            return 2 if label == "--core" else 1
    problems = problems_in_core(arguments.core) + problems_in_simulation(arguments.simulation)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"ok: {arguments.core} holds no simulation; {arguments.simulation} declares {', '.join(REQUIRED)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
