#!/usr/bin/env python3
"""Checks that the reference documents still describe the code.

    python3 scripts/check-docs.py TESSERA_BIN

- Every route of the HTTP router (each `.route("…", …)` in crates/tessera-server/src) appears
  in docs/api.md as its full path, with each of its methods: `GET /v1/conversations/{id}`.
  A route heading in docs/api.md that names no route of the router fails too.
- Every subcommand of the built `tessera` binary, nested ones included, appears in
  docs/cli.md as `tessera <subcommand…>` in a heading or a code span, and every long flag
  its --help lists appears somewhere in docs/cli.md.

Exit 0 when everything is documented, 1 naming each gap, 2 when the check itself cannot run.
Standard library only (Python 3.11): `make test` runs it before anything is installed for it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROUTER_SRC = ROOT / "crates" / "tessera-server" / "src"
API_DOC = ROOT / "docs" / "api.md"
CLI_DOC = ROOT / "docs" / "cli.md"

# axum's method routers; `any` matches every method, so only its path has to be documented.
METHODS = ("get", "post", "put", "patch", "delete", "head", "options", "any")
# What a path in the router or the docs is made of: placeholders like {id} and {*rest} included,
# so `/v1/conversations` never counts as documenting `/v1/conversations/{id}`.
PATH_CHAR = r"[A-Za-z0-9_{}*/\-]"


def rust_string_at(text: str, pos: int) -> tuple[str, int] | None:
    """The plain string literal starting at `pos` (after whitespace), and where it ends."""
    m = re.compile(r'\s*"((?:[^"\\]|\\.)*)"').match(text, pos)
    return (m.group(1), m.end()) if m else None


def call_span_end(text: str, pos: int) -> int:
    """Where the call whose `(` was just before `pos` closes, skipping strings and chars."""
    depth, i = 1, pos
    while i < len(text) and depth:
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return i


def block_end(text: str, pos: int) -> int:
    """Where the block whose `{` was just before `pos` closes. Braces inside string and char
    literals (`"}"`, `'{'`, raw strings) do not count; lifetimes (`'a`) are not chars."""
    depth, i = 1, pos
    literal = re.compile(r'r(#*)"|"(?:[^"\\]|\\.)*"|\'(?:\\.|[^\\\'])\'')
    while i < len(text) and depth:
        m = literal.match(text, i)
        if m and m.group(1) is not None:
            close = text.find('"' + m.group(1), m.end())
            i = len(text) if close < 0 else close + 1 + len(m.group(1))
            continue
        if m:
            i = m.end()
            continue
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return i


def without_test_modules(text: str) -> str:
    """The source without its `#[cfg(test)] mod … { … }` blocks: a router a unit test builds is
    not part of the API. Blanked rather than cut, so line numbers stay right."""
    out = text
    test_mod = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{")
    for m in reversed(list(test_mod.finditer(text))):
        end = block_end(text, m.end())
        out = out[: m.start()] + re.sub(r"[^\n]", " ", out[m.start() : end]) + out[end:]
    return out


def router_routes() -> tuple[list[tuple[str, list[str], str]], list[str]]:
    """Each route as (path relative to its nest, methods, where), and the nest prefixes."""
    routes, nests = [], set()
    for file in sorted(ROUTER_SRC.rglob("*.rs")):
        text = without_test_modules(file.read_text(encoding="utf-8"))
        for m in re.finditer(r"\.nest\(", text):
            found = rust_string_at(text, m.end())
            if found:
                nests.add(found[0])
        for m in re.finditer(r"\.route\(", text):
            found = rust_string_at(text, m.end())
            if not found:
                continue
            path, after = found
            handlers = text[after : call_span_end(text, m.end())]
            methods = sorted(
                set(re.findall(r"(?<![\w])(" + "|".join(METHODS) + r")\s*\(", handlers))
            )
            line = text.count("\n", 0, m.start()) + 1
            routes.append((path, methods, f"{file.relative_to(ROOT)}:{line}"))
    return routes, sorted(nests)


def prefixes(nests: list[str]) -> list[str]:
    # A route's full path is its nest prefixes joined: none, one, or (for a nest inside a nest)
    # two of them. Which nest holds which route would take a Rust parser; trying each is enough,
    # since a route documented under a prefix it does not live under is an unlikely mistake.
    out = {""} | set(nests) | {a + b for a in nests for b in nests}
    return sorted(out, key=len, reverse=True)


def mentions(doc: str, phrase: str) -> bool:
    """Whether `phrase` occurs in `doc` as a whole path, not the start of a longer one."""
    pattern = r"(?<![A-Za-z0-9_])" + re.escape(phrase) + r"(?!" + PATH_CHAR + ")"
    return re.search(pattern, doc) is not None


def check_routes(failures: list[str]) -> tuple[int, int]:
    """Checks docs/api.md; returns how many routes and method-and-path pairs it checked."""
    doc = API_DOC.read_text(encoding="utf-8")
    routes, nests = router_routes()
    if not routes:
        where = ROUTER_SRC.relative_to(ROOT)
        failures.append(f"no `.route(\"…\")` found under {where}: has the router moved?")
        return 0, 0
    pairs = 0
    for path, methods, where in routes:
        candidates = [p + path for p in prefixes(nests)]
        full = next((c for c in candidates if mentions(doc, c)), None)
        if full is None:
            under = ", ".join(nests) or "/"
            failures.append(
                f"docs/api.md: route {path} ({where}) is missing: write its full path"
                f" (it is nested under one of {under})"
            )
            continue
        for method in methods:
            if method == "any":
                continue
            pairs += 1
            verb = method.upper()
            if not any(mentions(doc, f"{verb} {c}") for c in candidates):
                failures.append(f"docs/api.md: `{verb} {full}` ({where}) is missing")
    # The other direction: a route heading left behind after the router dropped the route.
    served = {
        (m.upper(), p + path)
        for path, methods, _ in routes
        for m in methods
        for p in prefixes(nests)
    }
    named = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE) (/" + PATH_CHAR + r"*)")
    for heading in re.findall(r"^#+ .*$", doc, flags=re.MULTILINE):
        for verb, path in named.findall(heading):
            if (verb, path) not in served:
                failures.append(
                    f"docs/api.md: the heading `{heading.strip()}` names `{verb} {path}`,"
                    " which the router does not serve"
                )
    return len(routes), pairs


def help_text(binary: str, args: list[str]) -> str:
    result = subprocess.run(
        [binary, *args, "--help"],
        capture_output=True,
        text=True,
        timeout=30,
        # --help never reads the data folder; a private one keeps it that way if that changes.
        env={"PATH": "/usr/bin:/bin", "TESSERA_DATA_DIR": "/nonexistent/tessera-check-docs"},
        check=False,
    )
    if result.returncode != 0:
        command = " ".join(["tessera", *args, "--help"])
        raise RuntimeError(f"`{command}` exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def subcommands(help_out: str) -> list[str]:
    """The names clap lists under `Commands:`, but its own `help`, which is not ours to document."""
    names, inside = [], False
    for line in help_out.splitlines():
        if line.strip() == "Commands:":
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            m = re.match(r"^\s+([a-z][a-z0-9-]*)\b", line)
            if m and m.group(1) != "help":
                names.append(m.group(1))
    return names


def long_flags(help_out: str) -> list[str]:
    # clap's own --help and --version need no words of ours.
    flags = re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)", help_out, flags=re.MULTILINE)
    return sorted(set(flags) - {"--help", "--version"})


def commands(binary: str, path: list[str]) -> list[tuple[list[str], list[str]]]:
    """Every command under `path` (itself included) with its long flags, depth first."""
    out = help_text(binary, path)
    found = [(path, long_flags(out))]
    for name in subcommands(out):
        found.extend(commands(binary, [*path, name]))
    return found


def documented_commands(doc: str) -> str:
    # Only headings and code spans count: a command named in passing in a sentence is not its
    # documentation.
    spans = re.findall(r"^#+ .*$", doc, flags=re.MULTILINE)
    spans += re.findall(r"`([^`\n]+)`", doc)
    return "\n".join(spans)


def check_cli(binary: str, failures: list[str]) -> int:
    doc = CLI_DOC.read_text(encoding="utf-8")
    named = documented_commands(doc)
    found = commands(binary, [])
    for path, flags in found:
        label = " ".join(["tessera", *path])
        if path and not re.search(r"(?<![\w-])" + re.escape(label) + r"(?![\w-])", named):
            failures.append(f"docs/cli.md: `{label}` is missing (as a heading or a code span)")
        for flag in flags:
            if not re.search(re.escape(flag) + r"(?![\w-])", doc):
                failures.append(f"docs/cli.md: `{label}` takes {flag}, which it never mentions")
    return len(found) - 1


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(
            "usage: check-docs.py TESSERA_BIN (the built `tessera`, e.g."
            " $CARGO_TARGET_DIR/debug/tessera)",
            file=sys.stderr,
        )
        return 2
    binary = argv[1]
    if not Path(binary).is_file():
        print(
            f"check-docs: {binary} does not exist: build it first"
            " (cargo build -p tessera-cli --bin tessera)",
            file=sys.stderr,
        )
        return 2
    failures: list[str] = []
    try:
        routes, pairs = check_routes(failures)
        cmds = check_cli(binary, failures)
    except (OSError, RuntimeError, subprocess.TimeoutExpired) as err:
        print(f"check-docs: {err}", file=sys.stderr)
        return 2
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        print(f"check-docs: {len(failures)} gap(s) between the code and docs/", file=sys.stderr)
        return 1
    print(
        f"docs: {routes} routes ({pairs} with their methods) in docs/api.md,"
        f" {cmds} commands in docs/cli.md"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
