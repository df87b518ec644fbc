#!/usr/bin/env python3
"""Checks that the web UI calls only routes the HTTP router serves, through one typed builder.

    python3 scripts/check-ui-routes.py

- Every pattern of `routePatterns` in ui/src/transport/routes.ts is the full path of a route
  of the router (crates/tessera-server/src, read as scripts/check-docs.py reads it), spelled
  the same: `/v1/conversations/{id}`.
- Every builder of `routes` there writes the path of its own pattern (placeholders aside).
- No other file of ui/src (tests, src/test/ and src/generated/ aside) writes an API path: a
  string or template literal starting with `/v1` or `/api/v1` fails, naming its file:line.

Exit 0 when the UI agrees with the router, 1 naming each gap, 2 when the check itself cannot run.
Standard library only (Python 3.11), like check-docs.py, whose router reading it imports.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UI_SRC = ROOT / "ui" / "src"
ROUTES_TS = UI_SRC / "transport" / "routes.ts"
ROUTER_RS = ROOT / "crates" / "tessera-server" / "src" / "router.rs"
API_DIR = ROOT / "crates" / "tessera-server" / "src" / "api"

# What a literal that is an API path starts with; `/v1` alone counts, so `'/v1' + rest` does too.
API_PATH = re.compile(r"/(?:api/)?v1(?:[/?]|$)")
SOURCE_SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs")


def load_check_docs():
    # A hyphen in the file name keeps `import` from reaching it. No __pycache__ left in scripts/.
    sys.dont_write_bytecode = True
    spec = importlib.util.spec_from_file_location("check_docs", ROOT / "scripts" / "check-docs.py")
    if spec is None or spec.loader is None:
        raise RuntimeError("cannot load scripts/check-docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class CheckError(Exception):
    """The check cannot run: the router or routes.ts is not shaped as it expects."""


def statement_end(text: str, pos: int) -> int:
    """Where the Rust statement running from `pos` ends: its `;` outside brackets and strings."""
    depth, i = 0, pos
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth == 0:
            return i
        i += 1
    return i


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def nest_prefixes(docs) -> tuple[dict[int, str], str]:
    """The nest prefix of each line of router.rs inside a nested router's `let`, and the prefix
    `crate::api::routes(…)` (every route under src/api/) is nested under.

    check-docs.py tries every nest prefix on every route, which is enough to find a route in
    prose; here the prefix must be the one the route is served under, or `/conversations` and
    `/api/v1/conversations` would pass for `/v1/conversations`. So each `.nest("P", name)` is
    followed to its `let name = …;`: routes and the api module's routes built there are under P.
    A nest inside a nest would take more than this; the router has none.
    """
    text = docs.without_test_modules(ROUTER_RS.read_text(encoding="utf-8"))
    by_line: dict[int, str] = {}
    api_prefix = None
    for nest in re.finditer(r'\.nest\(\s*"([^"]*)"\s*,\s*(\w+)\s*\)', text):
        prefix, name = nest.groups()
        binding = re.search(r"\blet\s+(?:mut\s+)?" + name + r"\b[^=;]*=", text)
        if binding is None:
            where = ROUTER_RS.relative_to(ROOT)
            raise CheckError(f"{where}: `.nest(\"{prefix}\", {name})` has no `let {name}`")
        end = statement_end(text, binding.end())
        for line in range(line_of(text, binding.start()), line_of(text, end) + 1):
            by_line[line] = prefix
        if "crate::api::routes(" in text[binding.start() : end]:
            api_prefix = prefix
    if api_prefix is None:
        raise CheckError(
            f"{ROUTER_RS.relative_to(ROOT)}: found no nest built from crate::api::routes:"
            " has the router moved?"
        )
    return by_line, api_prefix


def served_patterns(docs) -> dict[str, str]:
    """Each route's full path, as the router serves it, to where it is declared."""
    routes, _ = docs.router_routes()
    if not routes:
        raise CheckError(
            "no `.route(\"…\")` found under crates/tessera-server/src: has the router moved?"
        )
    by_line, api_prefix = nest_prefixes(docs)
    router_rel = str(ROUTER_RS.relative_to(ROOT))
    api_rel = str(API_DIR.relative_to(ROOT)) + "/"
    served: dict[str, str] = {}
    for path, _methods, where in routes:
        file, line = where.rsplit(":", 1)
        # A catch-all (`/{*rest}`: the 503 when no engine runs) is not an endpoint to call.
        if "{*" in path:
            continue
        if file.startswith(api_rel):
            served[api_prefix + path] = where
        elif file == router_rel:
            served[by_line.get(int(line), "") + path] = where
        # Elsewhere, where it is nested is unknown: a UI pattern for it fails, loudly.
    return served


class Lexer:
    """The string and template literals of TypeScript source, as (offset, text) pairs.

    Comments are skipped, so a path named in a doc comment is not a path written; so are regex
    literals, so a quote inside one does not open a string. A template's text keeps its `${…}`
    as written, and the literals inside those are found too. A quoted string ends at a line's
    end at the latest, so an apostrophe in JSX text costs at most the rest of its line.
    """

    # After these (or nothing), a `/` opens a regex; after anything else it divides.
    REGEX_AFTER = set("(,=:[!&|?{;+-*%~^")
    KEYWORDS = {
        *("return", "typeof", "case", "of", "in", "delete"),
        *("void", "throw", "new", "else", "yield", "await"),
    }

    def __init__(self, text: str):
        self.text = text
        self.literals: list[tuple[int, str]] = []

    def run(self) -> list[tuple[int, str]]:
        self.code(0, inside_template=False)
        return sorted(self.literals)

    def code(self, i: int, inside_template: bool) -> int:
        """Scans code from `i`; inside a template's `${`, up to and past its closing `}`."""
        text, n, depth, last = self.text, len(self.text), 0, ""
        while i < n:
            c = text[i]
            if text.startswith("//", i):
                i = text.find("\n", i)
                i = n if i < 0 else i
            elif text.startswith("/*", i):
                i = text.find("*/", i + 2)
                i = n if i < 0 else i + 2
            elif c in "'\"":
                j = i + 1
                while j < n and text[j] not in (c, "\n"):
                    j += 2 if text[j] == "\\" else 1
                self.literals.append((i, text[i + 1 : j]))
                i, last = j + 1, c
            elif c == "`":
                i, last = self.template(i), c
            elif c == "/" and (last == "" or last in self.REGEX_AFTER):
                i, last = self.regex(i), "/"
            elif c.isalnum() or c in "_$":
                word = re.match(r"[\w$]+", text[i:])
                assert word is not None
                last = "(" if word.group(0) in self.KEYWORDS else "a"
                i += len(word.group(0))
            else:
                if c == "{":
                    depth += 1
                elif c == "}":
                    if inside_template and depth == 0:
                        return i + 1
                    depth -= 1
                if not c.isspace():
                    last = c
                i += 1
        return i

    def template(self, start: int) -> int:
        """Scans the template opening at `start`; returns where it ends."""
        text, n, i = self.text, len(self.text), start + 1
        while i < n and text[i] != "`":
            if text[i] == "\\":
                i += 2
            elif text.startswith("${", i):
                i = self.code(i + 2, inside_template=True)
            else:
                i += 1
        self.literals.append((start, text[start + 1 : i]))
        return i + 1

    def regex(self, start: int) -> int:
        text, n, i, in_class = self.text, len(self.text), start + 1, False
        while i < n and text[i] != "\n":
            if text[i] == "\\":
                i += 1
            elif text[i] == "[":
                in_class = True
            elif text[i] == "]":
                in_class = False
            elif text[i] == "/" and not in_class:
                return i + 1
            i += 1
        return i


def ts_literals(text: str) -> list[tuple[int, str]]:
    return Lexer(text).run()


def object_span(text: str, name: str) -> tuple[int, int]:
    """Where the object literal of `export const NAME = {…}` starts and ends."""
    m = re.search(r"export\s+const\s+" + name + r"\s*=\s*\{", text)
    if m is None:
        raise CheckError(f"{ROUTES_TS.relative_to(ROOT)}: no `export const {name} = {{…}}`")
    # Literals blanked, so a brace in one (`{id}`, `${enc(id)}`) does not count.
    chars = list(text)
    for start, body in ts_literals(text):
        chars[start + 1 : start + 1 + len(body)] = " " * len(body)
    depth, i = 1, m.end()
    while i < len(chars) and depth:
        depth += {"{": 1, "}": -1}.get(chars[i], 0)
        i += 1
    return m.end(), i


def entry_key(text: str, pos: int) -> str | None:
    """The object key the line holding `pos` starts with (`conversation: …`)."""
    start = text.rfind("\n", 0, pos) + 1
    m = re.match(r"\s*(\w+)\s*:", text[start:])
    return m.group(1) if m else None


def shape(path: str) -> str:
    """A path with its placeholders blanked: `{id}` and `${enc(id)}` alike become `{}`."""
    return re.sub(r"\$\{[^}]*\}|\{[^}]*\}", "{}", path)


def check_routes_ts(served: dict[str, str], failures: list[str]) -> int:
    text = ROUTES_TS.read_text(encoding="utf-8")
    rel = ROUTES_TS.relative_to(ROOT)
    start, end = object_span(text, "routePatterns")
    patterns: dict[str, str] = {}
    for offset, body in ts_literals(text[start:end]):
        key = entry_key(text, start + offset)
        if key is None:
            continue
        patterns[key] = body
        if body not in served:
            line = line_of(text, start + offset)
            failures.append(
                f"{rel}:{line}: routePatterns.{key} is `{body}`, which is no route of the router"
                " (spell it as crates/tessera-server writes it, with its /v1 prefix)"
            )
    if not patterns:
        raise CheckError(f"{rel}: routePatterns has no patterns")
    # routePatterns is only worth checking if each builder writes the path of its pattern.
    start, end = object_span(text, "routes")
    built: dict[str, str] = {}
    for offset, body in ts_literals(text[start:end]):
        key = entry_key(text, start + offset)
        if key and key not in built and API_PATH.match(body):
            built[key] = body
            pattern = patterns.get(key)
            if pattern is not None and shape(body.split("?")[0]) != shape(pattern):
                line = line_of(text, start + offset)
                failures.append(
                    f"{rel}:{line}: routes.{key} writes `{body}`,"
                    f" not the path of its pattern `{pattern}`"
                )
    for key in sorted(set(patterns) - set(built)):
        failures.append(
            f"{rel}: routes.{key} has no path starting with /v1 on its line: write it on one line"
        )
    return len(patterns)


def skipped(file: Path) -> bool:
    rel = file.relative_to(UI_SRC).as_posix()
    return (
        file == ROUTES_TS
        or ".test." in file.name
        or rel.startswith("test/")
        or rel.startswith("generated/")
    )


def check_stray_paths(failures: list[str]) -> int:
    """Fails each literal API path outside routes.ts; returns how many files it read."""
    files = sorted(
        f
        for f in UI_SRC.rglob("*")
        if f.is_file() and f.name.endswith(SOURCE_SUFFIXES) and not skipped(f)
    )
    for file in files:
        text = file.read_text(encoding="utf-8")
        for offset, body in ts_literals(text):
            if API_PATH.match(body):
                failures.append(
                    f"{file.relative_to(ROOT)}:{line_of(text, offset)}: writes the API path"
                    f" `{body}`: build it with routes.* from ui/src/transport/routes.ts"
                )
    return len(files)


def main() -> int:
    failures: list[str] = []
    try:
        docs = load_check_docs()
        served = served_patterns(docs)
        builders = check_routes_ts(served, failures)
        files = check_stray_paths(failures)
    except (OSError, RuntimeError, CheckError) as err:
        print(f"check-ui-routes: {err}", file=sys.stderr)
        return 2
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        print(
            f"check-ui-routes: {len(failures)} problem(s) between ui/src and the router",
            file=sys.stderr,
        )
        return 1
    print(
        f"ui routes: {builders} builders, each a route of the router;"
        f" no path written elsewhere ({files} files read)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
