#!/usr/bin/env python3
"""Availability lint: no API newer than the package's platform floor outside an availability scope.

The floor is the `platforms:` list in Package.swift (for example iOS 16, macOS 13, tvOS 16,
visionOS 1). Which APIs are newer comes from the toolchain itself: the Linux toolchain's
`.swiftinterface` files for the standard library, _Concurrency, Synchronization, Observation,
_StringProcessing, RegexBuilder and Distributed keep their Apple `@available(macOS 15.0, iOS 18.0,
...)` attributes, so this script reads every declaration there with its (inherited) availability.
An API is "newer" when, on some floor platform, it is introduced after the floor.

Each Swift file under the given source directories (default: Sources) is then scanned for
references to those APIs:
  - a type, macro or global function whose every declaration is newer (`Atomic`, `Mutex`,
    `Int128`, `@Observable`, ...), by name;
  - a member that a newer extension added to an older type (`Duration.attoseconds`,
    `Duration(attoseconds:)`, ...), as `.name` or as `Type(label:` for an initializer. A member
    access whose base is an older API returning a tuple with that label
    (`duration.components.attoseconds`) is a tuple element, not the member, and is skipped.
  - an `import` of a module newer than the floor (`import Synchronization` needs iOS 18), whose
    library an older OS does not have. The modules are the table `NEWER_MODULES` below (the
    toolchain's interfaces do not say when a module first shipped). Such an import passes inside
    an `#if` branch never compiled on Apple platforms (`#if os(Linux)`), or when the file uses the
    module's newer declarations and every use is gated (checked as above): the references are then
    weak and so is the library's load. An import the file does not use that way fails: it
    autolinks the library with nothing to make it optional. `#if canImport(Module)` alone gates
    nothing: it holds on an Apple platform whenever the SDK has the module, whatever the
    deployment target. (A module the toolchain has no interface for, such as SwiftData, has no
    known uses, so importing it on a lower floor always fails; waive the line if it is gated.)
A reference is fine inside `#if` branches that cannot be compiled on Apple platforms
(`#if os(Linux)`, `#if canImport(Glibc)`), inside a declaration marked `@available(...)`, inside
`if #available(...) { }`, or after `guard #available(...) else { }` in the same block, when those
versions cover the API on every floor platform.

Not covered (no availability data on Linux): Foundation and Dispatch, which are the
swift-corelibs builds here, and the Apple-only frameworks. A member name the sources declare
themselves (`.kind` of their own types) is not judged, for without types the lint cannot tell
whose it is. A name the table gets wrong can be waived on its line with
`// availability-lint: ignore <reason>`.

Exit status 0 when clean, 1 with one `file:line:column: error: ...` line per finding, 2 when the
floor or the toolchain data cannot be read.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

PLATFORMS = ("macOS", "iOS", "tvOS", "watchOS", "visionOS")
PLATFORM_ALIASES = {"OSX": "macOS", "macOS": "macOS", "iOS": "iOS", "tvOS": "tvOS", "watchOS": "watchOS",
                    "visionOS": "visionOS", "xrOS": "visionOS"}
MODULES = ("Swift", "_Concurrency", "Synchronization", "Observation", "_StringProcessing", "RegexBuilder",
           "Distributed")
# Modules that ship with the OS and first shipped above an older floor; the versions are Apple's
# (the first OS that has the module at all). Importing one on a lower floor fails the lint unless
# the import is in a branch Apple platforms never compile.
NEWER_MODULES = {
    "Synchronization": {"macOS": (15, 0, 0), "iOS": (18, 0, 0), "tvOS": (18, 0, 0), "watchOS": (11, 0, 0),
                        "visionOS": (2, 0, 0)},
    "Observation": {"macOS": (14, 0, 0), "iOS": (17, 0, 0), "tvOS": (17, 0, 0), "watchOS": (10, 0, 0),
                    "visionOS": (1, 0, 0)},
    "SwiftData": {"macOS": (14, 0, 0), "iOS": (17, 0, 0), "tvOS": (17, 0, 0), "watchOS": (10, 0, 0),
                  "visionOS": (1, 0, 0)},
    "TipKit": {"macOS": (14, 0, 0), "iOS": (17, 0, 0), "tvOS": (17, 0, 0), "watchOS": (10, 0, 0),
               "visionOS": (1, 0, 0)},
}
IMPORT = re.compile(r"^[ \t]*(?:@\w+(?:\([^)\n]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
                    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(\w+)", re.M)
TYPE_KEYWORDS = ("struct", "class", "enum", "protocol", "actor", "extension")
Version = tuple


def version(text: str) -> Version:
    """`15`, `15.0` and `15.0.0` alike: three components."""
    parts = tuple(int(part) for part in text.split(".") if part.isdigit())
    return (parts + (0, 0, 0))[:3]


def show(v: Version) -> str:
    return ".".join(str(part) for part in (v[:2] if v[2] == 0 else v))


# --- the floor -----------------------------------------------------------------------------------

def read_floor(manifest: Path) -> dict[str, Version]:
    text = manifest.read_text()
    match = re.search(r"platforms\s*:\s*\[(.*?)\]", text, re.S)
    if not match:
        raise SystemExit(f"error: {manifest}: no `platforms:` list; expected e.g. "
                         "`platforms: [.iOS(.v16), .macOS(.v13)]`")
    floor = {}
    for name, arg in re.findall(r"\.(macOS|iOS|tvOS|watchOS|visionOS)\(([^)]*)\)", match.group(1)):
        arg = arg.strip()
        if arg.startswith(".v"):
            floor[name] = version(arg[2:].replace("_", "."))
        elif arg.startswith('"'):
            floor[name] = version(arg.strip('"'))
        else:
            raise SystemExit(f"error: {manifest}: cannot read the version `{arg}` of .{name}; expected "
                             "`.vNN` or a quoted version")
    if not floor:
        raise SystemExit(f"error: {manifest}: `platforms:` names no Apple platform")
    return floor


# --- availability attributes ---------------------------------------------------------------------

def parse_available(arguments: str) -> dict[str, Version]:
    """`macOS 15.0, iOS 18.0, *` or `macOS, introduced: 15.0` → {platform: introduced}."""
    result = {}
    for platform, introduced in re.findall(r"\b(\w+)\s*,\s*introduced\s*:\s*([\d.]+)", arguments):
        if platform in PLATFORM_ALIASES:
            result[PLATFORM_ALIASES[platform]] = version(introduced)
    for platform, introduced in re.findall(r"(?:^|,)\s*(\w+)\s+([\d.]+)", arguments):
        if platform in PLATFORM_ALIASES:
            result[PLATFORM_ALIASES[platform]] = version(introduced)
    return result


def on_platform(availability: dict[str, Version], platform: str) -> Version | None:
    """The version for `platform`, visionOS following iOS (iOS 17 ↔ visionOS 1) when not named."""
    if platform in availability:
        return availability[platform]
    if platform == "visionOS" and "iOS" in availability:
        ios = availability["iOS"]
        return (max(1, ios[0] - 16),) + ios[1:] if ios[0] < 26 else ios  # 26 on, the same numbers
    return None


def newer_than(availability: dict[str, Version], floor: dict[str, Version]) -> list[str]:
    """The floor platforms on which `availability` is introduced after the floor."""
    return [p for p in floor if (v := on_platform(availability, p)) is not None and v > floor[p]]


# --- the toolchain's declarations ----------------------------------------------------------------

@dataclass
class Symbol:
    name: str
    module: str
    availability: dict[str, Version]


@dataclass
class Table:
    types: dict[str, Symbol] = field(default_factory=dict)       # newer types, macros, functions
    members: dict[str, Symbol] = field(default_factory=dict)     # `.name` added to older types
    initializers: dict[str, Symbol] = field(default_factory=dict)  # first label of `init(label:)`
    tuple_labels: dict[str, set[str]] = field(default_factory=dict)  # label → older APIs returning it


STRING = re.compile(r'"(?:\\.|[^"\\])*"')
DECL = re.compile(r"\b(struct|class|enum|protocol|actor|extension|func|init|var|let|subscript|typealias|"
                  r"macro|case|associatedtype)\b[\s?!]*([\w.]*)")


def interface_files(swift: str | None) -> list[tuple[str, Path]]:
    if not swift:
        raise SystemExit("error: no `swift` on PATH; the lint reads the toolchain's .swiftinterface files")
    lib = Path(os.path.realpath(swift)).parent.parent / "lib" / "swift"
    found = []
    for module in MODULES:
        matches = sorted(lib.glob(f"*/{module}.swiftmodule/*.swiftinterface"))
        matches = [m for m in matches if not m.name.endswith(".private.swiftinterface")]
        if matches:
            found.append((module, matches[0]))
    if not any(module == "Swift" for module, _ in found):
        raise SystemExit(f"error: no Swift.swiftinterface under {lib}; expected the toolchain's "
                         "standard library interface")
    return found


def read_table(files: list[tuple[str, Path]], floor: dict[str, Version]) -> Table:
    # name → [(availability, newer?)], per kind of declaration
    types: dict[str, list] = {}
    members: dict[str, list] = {}
    inits: dict[str, list] = {}
    table = Table()
    for module, path in files:
        depth = 0
        scopes: list[tuple[int, dict, bool, str]] = []  # (depth inside, availability, type scope?, type name)
        pending: dict[str, Version] = {}
        for raw in path.read_text().splitlines():
            line = STRING.sub('""', raw)
            stripped = line.strip()
            for arguments in re.findall(r"@available\(([^)]*)\)", line):
                pending.update(parse_available(arguments))
            decl = DECL.search(re.sub(r"@\w+(\([^)]*\))?", " ", line))
            in_type = not scopes or scopes[-1][2]
            opened = False
            hidden = re.search(r"\b(internal|private|fileprivate)\b", line)
            if decl and in_type and scopes_depth_ok(scopes, depth) and not hidden:
                keyword, name = decl.group(1), decl.group(2)
                inherited = scopes[-1][1] if scopes else {}
                parent = scopes[-1][3] if scopes else ""
                availability = {**inherited, **pending}
                newer = bool(newer_than(availability, floor))
                simple = name.split(".")[-1]
                if keyword in TYPE_KEYWORDS:
                    if keyword != "extension" and simple and not scopes:
                        types.setdefault(simple, []).append((availability, newer, module))
                    elif keyword != "extension" and simple:
                        # A nested type is reached as `Parent.Name`, like a member.
                        members.setdefault(simple, []).append((availability, newer, module, parent))
                    if "{" in line:
                        scopes.append((depth + 1, availability, True, simple))
                        opened = True
                elif keyword in ("typealias", "macro") or (keyword == "func" and not scopes):
                    types.setdefault(simple, []).append((availability, newer, module))
                elif keyword == "init":
                    label = re.match(r"init[?!]?\s*(?:<[^>]*>)?\(\s*(\w+)", stripped[stripped.find("init"):])
                    if label and label.group(1) != "_":
                        inits.setdefault(label.group(1), []).append((availability, newer, module, parent))
                elif keyword in ("func", "var", "let", "case") and simple:
                    members.setdefault(simple, []).append((availability, newer, module, parent))
                    if not newer:
                        for tuple_text in re.findall(r"(?:->|:)\s*\(([^()]*)\)", line):
                            for label in re.findall(r"(\w+)\s*:", tuple_text):
                                table.tuple_labels.setdefault(label, set()).add(simple)
                pending = {}
            elif decl:
                pending = {}
            opens, closes = line.count("{"), line.count("}")
            if opens and not opened:
                scopes.append((depth + 1, scopes[-1][1] if scopes else {}, False, ""))
            depth += opens - closes
            while scopes and depth < scopes[-1][0]:
                scopes.pop()
            if stripped and not stripped.startswith(("@", "#", "//")) and not decl:
                pending = {}
    for name, decls in types.items():
        if all(newer for _, newer, _ in decls):
            table.types[name] = Symbol(name, decls[0][2], earliest([a for a, _, _ in decls]))
    # A member counts when all its declarations are newer and one of them extends an older type
    # (members of newer types are reached through the type's name, which is checked already).
    for source, target in ((members, table.members), (inits, table.initializers)):
        for name, decls in source.items():
            if all(newer for _, newer, _, _ in decls) and name not in types \
                    and any(parent and parent not in table.types for _, _, _, parent in decls):
                target[name] = Symbol(name, decls[0][2], earliest([a for a, _, _, _ in decls]))
    return table


def scopes_depth_ok(scopes: list, depth: int) -> bool:
    """Only declarations directly inside a type or extension body (or at the top level) count."""
    return depth == (scopes[-1][0] if scopes else 0)


def earliest(availabilities: list[dict[str, Version]]) -> dict[str, Version]:
    result: dict[str, Version] = {}
    for availability in availabilities:
        for platform, v in availability.items():
            result[platform] = min(result.get(platform, v), v)
    return result


# --- the sources ---------------------------------------------------------------------------------

def strip_source(text: str) -> str:
    """Comments and string literals blanked out (newlines kept, so positions stay)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def condition_value(condition: str) -> bool | None:
    """Whether an `#if` condition holds on Apple platforms: True, False, or None (either)."""
    expression = condition
    expression = re.sub(r"os\((Linux|Windows|Android|FreeBSD|OpenBSD|WASI|Cygwin|PS4|Haiku)\)", " False ", expression)
    expression = re.sub(r"os\((macOS|iOS|tvOS|watchOS|visionOS|xrOS|OSX)\)", " None ", expression)
    expression = re.sub(r"canImport\((Glibc|Musl|Android|WinSDK|ucrt|WASILibc|Bionic)\)", " False ", expression)
    expression = re.sub(r"canImport\((Darwin|ObjectiveC|UIKit|AppKit|SwiftUI|os|SQLite3)\)", " None ", expression)
    expression = re.sub(r"\b(canImport|compiler|swift|arch|targetEnvironment|hasFeature|hasAttribute|_endian|"
                        r"_pointerBitWidth|_runtime)\([^)]*\)", " None ", expression)
    expression = re.sub(r"\b(?!True\b|False\b|None\b)[A-Za-z_]\w*", " None ", expression)  # -D flags
    expression = expression.replace("&&", " & ").replace("||", " | ").replace("!", " ~ ")
    try:
        return evaluate(expression)
    except Exception:
        return None


def evaluate(expression: str) -> bool | None:
    tokens = re.findall(r"True|False|None|[&|~()]", expression)
    position = 0

    def atom():
        nonlocal position
        token = tokens[position]
        position += 1
        if token == "~":
            value = atom()
            return None if value is None else not value
        if token == "(":
            value = disjunction()
            position += 1
            return value
        return {"True": True, "False": False, "None": None}[token]

    def chain(operator, operand, dominant):
        """`operand (operator operand)*`, three-valued: `dominant` (False for &, True for |) wins."""
        nonlocal position
        value = operand()
        while position < len(tokens) and tokens[position] == operator:
            position += 1
            other = operand()
            value = dominant if dominant in (value, other) else (None if None in (value, other) else not dominant)
        return value

    def conjunction():
        return chain("&", atom, False)

    def disjunction():
        return chain("|", conjunction, True)

    return disjunction()


def excluded_lines(lines: list[str]) -> set[int]:
    """Line numbers (0-based) inside `#if` branches never compiled on Apple platforms."""
    excluded, stack = set(), []  # stack of [this branch dead?, some earlier branch surely taken?]
    for number, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("#if "):
            value = condition_value(stripped[4:])
            stack.append([value is False, value is True])
        elif stripped.startswith("#elseif ") and stack:
            value = condition_value(stripped[8:])
            stack[-1] = [stack[-1][1] or value is False, stack[-1][1] or value is True]
        elif stripped.startswith("#else") and stack:
            stack[-1] = [stack[-1][1], True]
        elif stripped.startswith("#endif") and stack:
            stack.pop()
        elif any(dead for dead, _ in stack):
            excluded.add(number)
    return excluded


def matching_brace(text: str, open_index: int) -> int:
    depth = 0
    for index in range(open_index, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return len(text)


def continued(text: str, newline: int) -> bool:
    """Whether the line ending at `newline` goes on (ends with `->`, `,`, `:` or `=`)."""
    line = text[text.rfind("\n", 0, newline) + 1:newline].rstrip()
    return line.endswith(("->", ",", ":", "="))


def gated_ranges(text: str) -> list[tuple[int, int, dict[str, Version]]]:
    """(start, end, versions) character ranges under @available / #available."""
    ranges = []
    for match in re.finditer(r"@available\s*\(([^)]*)\)", text):
        versions = parse_available(match.group(1))
        if not versions:
            continue
        # The declaration the attribute marks: up to its body's closing brace, or the end of its line
        # when it has no body.
        index, parens = match.end(), 0
        seen_declaration = False
        while index < len(text):
            char = text[index]
            if char == "(":
                parens += 1
            elif char == ")":
                parens -= 1
            elif char == "{" and parens == 0:
                index = matching_brace(text, index)
                break
            elif char == "\n" and parens == 0 and seen_declaration and not continued(text, index):
                break
            elif not char.isspace() and char != "@" and not seen_declaration:
                line_start = text.rfind("\n", 0, index) + 1
                seen_declaration = not text[line_start:].lstrip().startswith("@")
            index += 1
        ranges.append((match.start(), index, versions))
    for match in re.finditer(r"\b(if|guard|while)\b([^{]*?)#available\s*\(([^)]*)\)", text):
        versions = parse_available(match.group(3))
        body = text.find("{", match.end())
        if body < 0:
            continue
        end = matching_brace(text, body)
        if match.group(1) == "guard":
            # After `guard #available(...) else { ... }`: the rest of the enclosing block.
            depth, index = 0, end + 1
            while index < len(text):
                if text[index] == "{":
                    depth += 1
                elif text[index] == "}":
                    if depth == 0:
                        break
                    depth -= 1
                index += 1
            ranges.append((end, index, versions))
        else:
            ranges.append((body, end, versions))
    return ranges


@dataclass
class Finding:
    path: Path
    line: int
    column: int
    symbol: Symbol
    platforms: list[str]
    what: str


TYPE_BODY = re.compile(r"\b(?:struct|enum|class|actor|protocol|extension)\b[^{}();]*$")


def local_ranges(text: str) -> list[tuple[int, int]]:
    """The bodies of functions, accessors and closures: what is declared there is a local, which an
    expression elsewhere cannot reach as `.name`, so it never stands for a member of the package."""
    ranges, stack = [], []  # stack: (open index, is a type body)
    for index, char in enumerate(text):
        if char == "{":
            header = text[max(0, index - 300):index]
            header = re.split(r"[{};]|\n\s*\n", header)[-1]
            stack.append((index, bool(TYPE_BODY.search(header)) and all(kind for _, kind in stack)))
        elif char == "}" and stack:
            start, in_type = stack.pop()
            if not in_type and all(kind for _, kind in stack):
                ranges.append((start, index))
    return ranges


def declared_names(text: str) -> set[str]:
    """Names the sources declare themselves, at the top level or in a type or extension body: a
    `.kind` there may be theirs, so it is not judged. Locals do not count."""
    locals_ = local_ranges(text)

    def outside_locals(offset: int) -> bool:
        return not any(start < offset < end for start, end in locals_)

    names = {match.group(1) for match in
             re.finditer(r"\b(?:var|let|func|struct|enum|class|actor|protocol|typealias|associatedtype)\s+"
                         r"`?(\w+)", text)
             if outside_locals(match.start())}
    # Enum cases (`case a, b(Int)`), not the patterns of a switch (`case .a:`, `case let x as T:`).
    for cases in re.findall(r"^\s*(?:indirect\s+)?case\s+(?!let\b|var\b|is\b|\.)([^\n]*[^:\s])\s*$", text, re.M):
        names.update(re.findall(r"(?:^|,)\s*(\w+)", re.sub(r"\([^)]*\)|=[^,]*", "", cases)))
    return names


def scan(path: Path, table: Table, floor: dict[str, Version], own: set[str]) -> list[Finding]:
    original = path.read_text()
    text = strip_source(original)
    lines = text.split("\n")
    original_lines = original.split("\n")
    excluded = excluded_lines(lines)
    ranges = gated_ranges(text)
    line_starts = [0]
    for line in lines:
        line_starts.append(line_starts[-1] + len(line) + 1)

    def position(offset: int) -> tuple[int, int]:
        low, high = 0, len(line_starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if line_starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return low, offset - line_starts[low]

    findings = []
    used_modules: set[str] = set()  # modules whose newer declarations the file reaches (gated or not)

    def check(offset: int, symbol: Symbol, what: str):
        line, column = position(offset)
        if line in excluded or "availability-lint: ignore" in original_lines[line]:
            return
        used_modules.add(symbol.module)
        gate: dict[str, Version] = {}
        for start, end, versions in ranges:
            if start <= offset <= end:
                for platform in PLATFORMS:
                    v = on_platform(versions, platform)
                    if v is not None:
                        gate[platform] = max(gate.get(platform, v), v)
        effective = {p: max(floor[p], gate.get(p, floor[p]) if p in gate else floor[p]) for p in floor}
        if "visionOS" in floor and "visionOS" not in gate and "iOS" in gate:
            effective["visionOS"] = max(floor["visionOS"], on_platform({"iOS": gate["iOS"]}, "visionOS"))
        platforms = [p for p in floor
                     if (v := on_platform(symbol.availability, p)) is not None and v > effective[p]]
        if platforms:
            findings.append(Finding(path, line + 1, column + 1, symbol, platforms, what))

    for match in re.finditer(r"(?<![\w.])(?:(\w+)\.)?([A-Za-z_]\w*)\b", text):
        qualifier, name = match.group(1), match.group(2)
        if name in table.types and name not in own and (qualifier is None or qualifier in MODULES):
            check(match.start(2), table.types[name], f"`{name}`")
    for match in re.finditer(r"\.\s*([A-Za-z_]\w*)\b(?!\s*:)", text):
        name = match.group(1)
        if name not in table.members or name in own:
            continue
        # The identifier before the dot (skipping an empty call `()`): `components` in
        # `d.components.attoseconds` names an older API whose tuple has that label.
        base = re.search(r"(\w*)\s*(?:\(\s*\))?\s*$", text[max(0, match.start() - 200):match.start()])
        if base.group(1) not in table.tuple_labels.get(name, ()):
            check(match.start(1), table.members[name], f"`.{name}`")
    for match in re.finditer(r"\b([A-Z]\w*|init)\s*\(\s*(\w+)\s*:", text):
        label = match.group(2)
        if label in table.initializers and match.group(1) not in own and not (match.group(1) == "init" and text[:match.start()].rstrip()
                                                  .endswith("func")):
            check(match.start(1), table.initializers[label], f"`{match.group(1)}({label}:)`")
    # Imports of newer modules. One the file uses is fine when every use is gated (each use is
    # judged above): the compiler then references the module's symbols weakly and the linker loads
    # the library weakly, so an older OS launches without it. One the file does not use is an
    # autolinked library with no weak reference to make it optional: it must go, or be gated.
    for match in IMPORT.finditer(text):
        module = match.group(1)
        if module not in NEWER_MODULES:
            continue
        line, column = position(match.start(1))
        if line in excluded or "availability-lint: ignore" in original_lines[line] or module in used_modules:
            continue
        platforms = newer_than(NEWER_MODULES[module], floor)
        if platforms:
            findings.append(Finding(path, line + 1, column + 1, Symbol(module, module, NEWER_MODULES[module]),
                                    platforms, f"`import {module}`"))
    return findings


def describe(availability: dict[str, Version], platforms) -> str:
    return ", ".join(f"{p} {show(on_platform(availability, p))}" for p in platforms)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=["Sources"], help="source directories or files")
    parser.add_argument("--package", default=".", help="the package root (its Package.swift has the floor)")
    parser.add_argument("--declarations-from", action="append", default=[], metavar="DIR",
                        help="sources of dependencies (relative to --package) whose declared names count as "
                             "the package's own, e.g. ../../Sources for a package depending on this one")
    parser.add_argument("--list-symbols", action="store_true", help="print the newer APIs the lint knows")
    arguments = parser.parse_args()
    root = Path(arguments.package)
    try:
        floor = read_floor(root / "Package.swift")
        table = read_table(interface_files(shutil.which("swift")), floor)
    except SystemExit as error:
        print(error, file=sys.stderr)
        return 2
    if arguments.list_symbols:
        for kind, symbols in (("type", table.types), ("member", table.members), ("init", table.initializers)):
            for name in sorted(symbols):
                symbol = symbols[name]
                print(f"{kind} {name} ({symbol.module}): {describe(symbol.availability, newer_than(symbol.availability, floor))}")
        return 0
    def swift_files(given: list[str]) -> list[Path] | None:
        found = []
        for name in given:
            path = Path(name) if Path(name).is_absolute() else root / name
            if not path.exists():
                print(f"error: {path}: no such file or directory; expected a source directory", file=sys.stderr)
                return None
            found += [path] if path.is_file() else sorted(path.rglob("*.swift"))
        return found

    files, dependencies = swift_files(arguments.paths), swift_files(arguments.declarations_from)
    if files is None or dependencies is None:
        return 2
    own = set().union(*(declared_names(strip_source(path.read_text())) for path in files + dependencies))
    findings = [finding for path in files for finding in scan(path, table, floor, own)]
    floor_text = ", ".join(f"{p} {show(v)}" for p, v in floor.items())
    for f in findings:
        if f.what.startswith("`import "):
            print(f"{f.path}:{f.line}:{f.column}: error: {f.what}: the module ships with "
                  f"{describe(f.symbol.availability, f.platforms)}, above the package floor ({floor_text}), and "
                  "nothing from it is used here behind @available / #available, so the import links it "
                  "unconditionally; remove the import, or import it only under `#if os(Linux)` (or another "
                  "branch Apple platforms never compile) where it is used")
            continue
        print(f"{f.path}:{f.line}:{f.column}: error: {f.what} ({f.symbol.module}) needs "
              f"{describe(f.symbol.availability, f.platforms)}, above the package floor ({floor_text}); "
              "gate it with @available / #available, keep it under `#if os(Linux)`, or use an older API")
    print(f"availability lint: {len(files)} files, {len(table.types)} newer types and "
          f"{len(table.members) + len(table.initializers)} newer members known, {len(findings)} findings",
          file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
