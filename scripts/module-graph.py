#!/usr/bin/env python3
"""Import circles between the source files of each crate (issue 49).

For every crate of the workspace (crates/*/src and src-tauri/src) this builds the graph of its
source files: file A -> file B when code in A names an item file B defines, by a `use crate::…`,
`use super::…` or `use self::…` declaration, or by a `crate::`, `super::` or `self::` path (or
one that starts with a child module's name, or with a module brought into scope by `use`)
anywhere in the code. A path is followed through re-exports and imports to the file that
defines the item. Two things are doors, not edges: a `mod foo;` declaration (a parent declaring
its child is not an import) and a re-export (`pub use child::Item;` in a mod.rs) whose name the
file's own code does not use. `#[cfg(test)]` items (an inline `mod tests { … }`, a `mod tests;`
file) are left out, and so are comments and string literals.

A strongly connected component of more than one file is an import circle: none of its files can
be understood, or moved to another crate, without the others.

    python3 scripts/module-graph.py            # check: exit 1 on a circle ALLOWED does not hold
    python3 scripts/module-graph.py --report   # per crate: files, circles, largest circle and file
    python3 scripts/module-graph.py --circles  # every circle, allowed or not, with its edges

A circle is accepted when its files are all within one entry of ALLOWED for its crate (so a
circle may shrink, never grow). Paths there are relative to the crate's folder.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tomllib
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parent.parent

# crate name -> [(the files of a circle we live with for now, why / what would break it)]
ALLOWED: dict[str, list[tuple[frozenset[str], str]]] = {}


def allow(crate: str, files: str, why: str) -> None:
    ALLOWED.setdefault(crate, []).append((frozenset(files.split()), why))


# The circles there were when the check came (issue 49), tessera-engine's broken since. Each is
# a TODO: what both sides use goes into a module that imports neither.
allow(
    "tessera-app",
    """src/knowledge_tool.rs src/lib.rs src/models.rs src/providers/checks.rs
    src/providers/keys.rs src/providers/listing.rs src/providers/mod.rs src/providers/models.rs
    src/providers/settings.rs""",
    "providers/mod.rs keeps the helpers its children use (Outcome, invalid, find_or_fail); "
    "knowledge_tool takes the App back from lib.rs",
)
allow(
    "tessera-cli",
    """src/provider_cmd/add.rs src/provider_cmd/keys.rs src/provider_cmd/list.rs
    src/provider_cmd/mod.rs src/provider_cmd/models.rs src/provider_cmd/settings.rs""",
    "`use super::*` in every command and `use <command>::*` in mod.rs: import by name",
)
allow(
    "tessera-extract",
    """src/html.rs src/lib.rs src/office.rs src/pdf.rs src/pdf_decode.rs src/pdf_layout.rs
    src/pdf_load.rs src/pdf_text.rs src/text.rs src/zip_bounded.rs""",
    "ExtractError and Limits live in lib.rs, which calls every reader; pdf.rs shares helpers "
    "with pdf_load and pdf_text",
)
allow(
    "tessera-knowledge",
    "src/lib.rs src/watch.rs",
    "the watcher lives in Knowledge and takes the Knowledge handle back",
)
allow("tessera-llama", "src/answer.rs src/api.rs", "answer.rs uses api::error, api.rs calls it")
allow("tessera-llama", "src/clock.rs src/engine.rs", "clock.rs names engine::Finish")
allow(
    "tessera-local",
    "src/catalogue.rs src/download.rs",
    "catalogue names download::HubFile, download asks the catalogue for pinned hashes",
)
allow(
    "tessera-local",
    "src/chat_format/messages.rs src/chat_format/template.rs",
    "messages.rs returns template::TemplateError, template.rs calls messages::prepare",
)
allow(
    "tessera-native",
    "src/files.rs src/lib.rs src/portal.rs src/screen.rs",
    "NativeEnv and LeftOut live in lib.rs, which registers every tool; portal reads through files",
)
allow(
    "tessera-protocol",
    """src/validate/context_refs.rs src/validate/errors.rs src/validate/mod.rs
    src/validate/semantic.rs""",
    "Problem and DocumentKind live in validate/mod.rs, which calls the checks",
)
allow(
    "tessera-protocol",
    "src/mcp_cp/context.rs src/mcp_cp/envelope.rs",
    "the envelope names ContextUpdate, the context builds envelopes",
)
allow(
    "tessera-providers",
    "src/capabilities.rs src/config.rs",
    "capabilities reads WireKind, ProviderConfig asks capabilities about images",
)
allow(
    "tessera-scheduler",
    "src/condition/lexer.rs src/condition/mod.rs src/condition/parser.rs",
    "ConditionError, Expr and Op live in condition/mod.rs, which runs the lexer and the parser",
)
allow(
    "tessera-server",
    """src/api/attachments.rs src/api/interactions.rs src/api/messages/capabilities.rs
    src/api/messages/context_update.rs src/api/messages/instructions.rs src/api/messages/mod.rs
    src/api/messages/tool_calls.rs src/api/messages/user_input.rs src/api/mod.rs src/api/requests.rs
    src/api/ui/agents.rs src/api/ui/branches.rs src/api/ui/context.rs src/api/ui/conversations.rs
    src/api/ui/grants.rs src/api/ui/local_models.rs src/api/ui/mcp.rs src/api/ui/memories.rs
    src/api/ui/projects.rs src/api/ui/provider_check.rs src/api/ui/providers.rs
    src/api/ui/secrets.rs src/api/ui/settings.rs src/api/ui/tools.rs src/api/ui.rs""",
    "ApiState, ApiError and the body helpers live in the routers (api/mod.rs, api/ui.rs, "
    "messages/mod.rs) that merge the handlers using them",
)
allow(
    "tessera-store",
    """src/app_settings.rs src/attachments.rs src/blocks.rs src/checkpoint.rs src/consents.rs
    src/context_history.rs src/context_state.rs src/conversation_model.rs src/conversations.rs
    src/delta_batches.rs src/event_folding.rs src/events.rs src/evidences.rs src/export.rs
    src/import.rs src/interactions.rs src/mcp_messages.rs src/memories.rs src/messages.rs
    src/migrate.rs src/model_turns.rs src/projects.rs src/provider_settings.rs src/refs.rs
    src/search.rs src/search_backlog.rs src/search_pieces.rs src/store.rs src/summary.rs
    src/tasks.rs src/tool_calls.rs src/tx.rs src/usage.rs src/writer.rs""",
    "Store and WriteTx have their methods in one file per table, and store.rs and tx.rs name "
    "the tables' types",
)
allow(
    "tessera-store",
    "src/error.rs src/file_modes.rs src/layout.rs src/lock.rs",
    "StoreError wraps LockError; the lock and the layout use file_modes, which knows the layout's "
    "file names",
)


# ---------------------------------------------------------------------------------------------
# Tokens: identifiers, `::`, single punctuation, and string literals (kept for `#[path = "…"]`);
# comments dropped. Each token carries its line.


@dataclass
class Tok:
    kind: str  # "id", "p" (punctuation), "str", "lit" (number, char), "life" (lifetime)
    text: str
    line: int


def _is_ident_start(c: str) -> bool:
    return c == "_" or c.isalpha()


def _is_ident_char(c: str) -> bool:
    return c == "_" or c.isalnum()


def tokenize(src: str) -> list[Tok]:
    toks: list[Tok] = []
    i, n, line = 0, len(src), 1

    def raw_string(start: int) -> int | None:
        """At `start` is the `#…"` of a raw string: returns the index after it, or None."""
        j = start
        while j < n and src[j] == "#":
            j += 1
        if j >= n or src[j] != '"':
            return None
        closing = '"' + "#" * (j - start)
        end = src.find(closing, j + 1)
        return n if end < 0 else end + len(closing)

    def quoted(start: int, quote: str) -> int:
        """At `start` is the opening quote; returns the index after the closing one."""
        j = start + 1
        while j < n:
            if src[j] == "\\":
                j += 2
                continue
            if src[j] == quote:
                return j + 1
            j += 1
        return n

    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith("//", i):
            end = src.find("\n", i)
            i = n if end < 0 else end
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            line += src.count("\n", i, j)
            i = j
        elif c == '"':
            j = quoted(i, '"')
            toks.append(Tok("str", src[i + 1 : j - 1], line))
            line += src.count("\n", i, j)
            i = j
        elif c == "'":
            # A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a, 'static).
            if i + 1 < n and src[i + 1] == "\\":
                j = quoted(i, "'")
                toks.append(Tok("lit", src[i:j], line))
                i = j
            elif i + 2 < n and src[i + 2] == "'":
                toks.append(Tok("lit", src[i : i + 3], line))
                i += 3
            else:
                j = i + 1
                while j < n and _is_ident_char(src[j]):
                    j += 1
                toks.append(Tok("life", src[i:j], line))
                i = j
        elif _is_ident_start(c):
            j = i
            while j < n and _is_ident_char(src[j]):
                j += 1
            word = src[i:j]
            nxt = src[j] if j < n else ""
            if word in ("r", "br", "cr") and nxt in ('"', "#"):
                end = raw_string(j)
                if end is not None:
                    toks.append(Tok("str", src[j:end].strip("#")[1:-1], line))
                    line += src.count("\n", i, end)
                    i = end
                    continue
                if word == "r" and nxt == "#" and j + 1 < n and _is_ident_start(src[j + 1]):
                    # A raw identifier, r#type.
                    k = j + 1
                    while k < n and _is_ident_char(src[k]):
                        k += 1
                    toks.append(Tok("id", src[j + 1 : k], line))
                    i = k
                    continue
            if word in ("b", "c") and nxt == '"':
                end = quoted(j, '"')
                toks.append(Tok("str", src[j + 1 : end - 1], line))
                line += src.count("\n", i, end)
                i = end
                continue
            if word == "b" and nxt == "'":
                end = quoted(j, "'")
                toks.append(Tok("lit", src[i:end], line))
                i = end
                continue
            toks.append(Tok("id", word, line))
            i = j
        elif c.isdigit():
            j = i
            while j < n and _is_ident_char(src[j]):
                j += 1
            toks.append(Tok("lit", src[i:j], line))
            i = j
        elif src.startswith("::", i):
            toks.append(Tok("p", "::", line))
            i += 2
        else:
            toks.append(Tok("p", c, line))
            i += 1
    return toks


OPEN = {"(": ")", "[": "]", "{": "}"}


def matching(toks: list[Tok], i: int) -> int:
    """Index of the bracket closing the one at `i` (or the last index if it never closes)."""
    stack = []
    for j in range(i, len(toks)):
        t = toks[j]
        if t.kind != "p":
            continue
        if t.text in OPEN:
            stack.append(OPEN[t.text])
        elif stack and t.text == stack[-1]:
            stack.pop()
            if not stack:
                return j
    return len(toks) - 1


def is_cfg_test(attr: list[Tok]) -> bool:
    """`cfg(test)` or `cfg(all(test, …))`: code that only a test build has."""
    words = [t.text for t in attr]
    if words[:2] != ["cfg", "("]:
        return False
    inner = words[2:-1]
    if inner == ["test"]:
        return True
    return inner[:2] == ["all", "("] and "test" in inner[2:] and "not" not in inner


def item_end(toks: list[Tok], i: int) -> int:
    """Index of the last token of the item starting at `i` (after its attributes)."""
    depth = 0
    j = i
    while j < len(toks):
        t = toks[j]
        if t.kind == "p":
            if t.text == "#" and depth == 0 and j + 1 < len(toks) and toks[j + 1].text == "[":
                j = matching(toks, j + 1) + 1
                continue
            if t.text in ("(", "["):
                depth += 1
            elif t.text in (")", "]"):
                depth -= 1
            elif t.text == ";" and depth == 0:
                return j
            elif t.text == "{" and depth == 0:
                end = matching(toks, j)
                # `use a::{b, c};` goes on to its `;`.
                if end + 1 < len(toks) and toks[end + 1].text == ";":
                    return end + 1
                return end
        j += 1
    return len(toks) - 1


def drop_test_code(toks: list[Tok]) -> list[Tok]:
    """The tokens without `#[cfg(test)]` items; none at all for a file that is `#![cfg(test)]`."""
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "p" and t.text == "#":
            inner = i + 1 < len(toks) and toks[i + 1].text == "!"
            bracket = i + 2 if inner else i + 1
            if bracket < len(toks) and toks[bracket].text == "[":
                close = matching(toks, bracket)
                attr = toks[bracket + 1 : close]
                if is_cfg_test(attr):
                    if inner:
                        return []
                    i = item_end(toks, close + 1) + 1
                    continue
        out.append(t)
        i += 1
    return out


# ---------------------------------------------------------------------------------------------
# Modules: the tree of one crate root, each module with its file and its children.


@dataclass
class Import:
    """What a `use` brings into a module: a path, read from the module that wrote it."""

    segs: list[str]
    module: "Module"


@dataclass
class Module:
    path: tuple[str, ...]
    file: pathlib.Path
    children: dict[str, "Module"] = field(default_factory=dict)
    # Items written in the module itself (fn, struct, enum, trait, type, const, static, macro).
    defs: set[str] = field(default_factory=set)
    # Names its `use` declarations bind (public or not: a child sees its parent's imports).
    imports: dict[str, Import] = field(default_factory=dict)
    globs: list[Import] = field(default_factory=list)


@dataclass
class SourceFile:
    path: pathlib.Path
    toks: list[Tok]
    lines: int


def path_attribute(toks: list[Tok], mod_index: int) -> str | None:
    """The `#[path = "…"]` among the attributes before the `mod` at `mod_index`."""
    j = mod_index - 1
    if j >= 0 and toks[j].text == ")":  # pub(crate), pub(in …)
        while j >= 0 and toks[j].text != "(":
            j -= 1
        j -= 1
    if j >= 0 and toks[j].text == "pub":
        j -= 1
    while j >= 1 and toks[j].text == "]":
        k = j
        while k >= 0 and toks[k].text != "[":
            k -= 1
        attr = toks[k + 1 : j]
        if [t.text for t in attr[:2]] == ["path", "="] and len(attr) == 3 and attr[2].kind == "str":
            return attr[2].text
        j = k - 2 if k >= 1 and toks[k - 1].text == "#" else k - 1
    return None


def child_dir(file: pathlib.Path) -> pathlib.Path:
    """Where the files of a module's children live."""
    if file.name in ("mod.rs", "lib.rs", "main.rs"):
        return file.parent
    return file.parent / file.stem


def load(path: pathlib.Path) -> SourceFile:
    text = path.read_text(encoding="utf-8")
    return SourceFile(path, drop_test_code(tokenize(text)), len(text.splitlines()))


def build_tree(root_file: pathlib.Path, files: dict[pathlib.Path, SourceFile]) -> Module:
    """Follows the `mod` declarations from a crate root; fills `files`."""
    root = Module((), root_file)
    pending = [(root, root_file)]
    while pending:
        module, path = pending.pop()
        if not path.is_file() or path in files:
            continue
        files[path] = load(path)
        toks = files[path].toks
        # (module, directory of its children, index of the brace that closes it)
        stack = [(module, child_dir(path), len(toks))]
        for i, t in enumerate(toks):
            while i > stack[-1][2]:
                stack.pop()
            if not (t.kind == "id" and t.text == "mod" and i + 2 < len(toks)):
                continue
            name, after = toks[i + 1], toks[i + 2]
            if name.kind != "id" or after.text not in (";", "{"):
                continue
            current, directory, _ = stack[-1]
            child = Module(current.path + (name.text,), path)
            current.children[name.text] = child
            if after.text == "{":
                stack.append((child, directory / name.text, matching(toks, i + 2)))
                continue
            explicit = path_attribute(toks, i)
            if explicit is not None:
                target = (path.parent / explicit).resolve()
            elif (directory / f"{name.text}.rs").is_file():
                target = directory / f"{name.text}.rs"
            else:
                target = directory / name.text / "mod.rs"
            child.file = target
            pending.append((child, target))
    return root


def module_at(source: SourceFile, file_module: Module) -> tuple[list[Module], list[bool]]:
    """The module each token of a file belongs to (the file's, or an inline `mod`'s), and
    whether the token is at that module's item level (not inside a function or an impl)."""
    toks = source.toks
    owner: list[Module] = [file_module] * len(toks)
    top: list[bool] = [False] * len(toks)
    # (module, index of its closing brace, brace depth of its items)
    stack: list[tuple[Module, int, int]] = [(file_module, len(toks), 0)]
    depth = 0
    for i, t in enumerate(toks):
        while i > stack[-1][1]:
            stack.pop()
        owner[i] = stack[-1][0]
        top[i] = depth == stack[-1][2]
        if t.kind == "p" and t.text == "{":
            depth += 1
        elif t.kind == "p" and t.text == "}":
            depth -= 1
        if t.kind == "id" and t.text == "mod" and i + 2 < len(toks):
            name, after = toks[i + 1], toks[i + 2]
            if name.kind == "id" and after.text == "{":
                child = stack[-1][0].children.get(name.text)
                if child is not None:
                    stack.append((child, matching(toks, i + 2), depth + 1))
    return owner, top


# ---------------------------------------------------------------------------------------------
# Paths: the `use` trees and the paths in code, resolved to the module that defines the item
# they name (through re-exports and imports).

ITEM_KEYWORDS = {"fn", "struct", "enum", "trait", "type", "const", "static", "union"}


@dataclass
class Use:
    segs: list[str]  # ends in "*" for a glob
    name: str | None  # the name it binds (None for a glob)
    line: int
    public: bool  # `pub use`, `pub(crate) use`…: a re-export


def use_paths(toks: list[Tok], i: int) -> tuple[list[Use], int]:
    """The paths of the `use` declaration at `i`, and the index of its `;`."""
    public = i > 0 and toks[i - 1].text == "pub"
    if i > 0 and toks[i - 1].text == ")":  # pub(crate), pub(super), pub(in …)
        j = i - 1
        while j > 0 and toks[j].text != "(":
            j -= 1
        public = j > 0 and toks[j - 1].text == "pub"
    out: list[Use] = []
    end = i
    while end < len(toks) and toks[end].text != ";":
        end += 1

    def tree(j: int, prefix: list[str]) -> int:
        segs = list(prefix)
        if j < end and toks[j].text == "::":
            segs.append("::")
            j += 1
        while j < end:
            t = toks[j]
            if t.text == "{":
                j += 1
                while j < end and toks[j].text != "}":
                    j = tree(j, segs)
                    if j < end and toks[j].text == ",":
                        j += 1
                return j + 1
            if t.text == "*":
                out.append(Use(segs + ["*"], None, t.line, public))
                return j + 1
            if t.kind != "id":
                return j + 1
            segs.append(t.text)
            j += 1
            if j < end and toks[j].text == "::":
                j += 1
                continue
            name: str | None = segs[-1]
            if j + 1 < end and toks[j].text == "as":
                name = toks[j + 1].text
                j += 2
            if segs[-1] == "self":
                segs.pop()
                if name == "self":
                    name = segs[-1] if segs else None
            if name != "_":
                out.append(Use(segs, name, t.line, public))
            return j
        return j

    tree(i + 1, [])
    return out, end


@dataclass
class Resolver:
    modules: dict[tuple[str, ...], Module]

    def path(self, segs: list[str], module: Module, depth: int = 0) -> tuple[Module | None, bool]:
        """The module that defines what the path names, and whether the path is that module
        itself. None when the path leaves the crate (or cannot be followed)."""
        if not segs or segs[0] == "::" or depth > 24:
            return None, False
        first, rest = segs[0], segs[1:]
        if first == "crate":
            cur: Module | None = self.modules[()]
        elif first == "self":
            cur = module
        elif first == "super":
            cur = self.modules.get(module.path[:-1])
        elif first in module.children:
            cur = module.children[first]
        elif first in module.imports:
            imp = module.imports[first]
            return self.path(imp.segs + rest, imp.module, depth + 1)
        elif first in module.defs:
            return module, False
        else:
            return None, False
        while cur is not None and rest and rest[0] == "super":
            cur = self.modules.get(cur.path[:-1])
            rest = rest[1:]
        if cur is None:
            return None, False
        return self.walk(cur, rest, depth)

    def walk(self, cur: Module, rest: list[str], depth: int) -> tuple[Module | None, bool]:
        while rest:
            name = rest[0]
            if name in cur.children:
                cur, rest = cur.children[name], rest[1:]
                continue
            if name in cur.defs:
                return cur, False
            if name in cur.imports and depth <= 24:
                imp = cur.imports[name]
                return self.path(imp.segs + rest[1:], imp.module, depth + 1)
            for glob in cur.globs:
                source, whole = self.path(glob.segs, glob.module, depth + 1)
                if source is not None and whole and source is not cur and self.has(source, name):
                    return self.walk(source, rest, depth + 1)
            return cur, False
        return cur, True

    @staticmethod
    def has(module: Module, name: str) -> bool:
        return name in module.children or name in module.defs or name in module.imports


@dataclass
class Graph:
    files: dict[pathlib.Path, SourceFile] = field(default_factory=dict)
    # (from, to) -> first line of `from` that makes the edge
    edges: dict[tuple[pathlib.Path, pathlib.Path], int] = field(default_factory=dict)

    def add(self, a: pathlib.Path, b: pathlib.Path, line: int) -> None:
        if a != b and ((a, b) not in self.edges or line < self.edges[(a, b)]):
            self.edges[(a, b)] = line


def all_modules(root: Module) -> dict[tuple[str, ...], Module]:
    out, pending = {}, [root]
    while pending:
        m = pending.pop()
        out[m.path] = m
        pending.extend(m.children.values())
    return out


def crate_graph(roots: list[pathlib.Path]) -> Graph:
    """A file -> file edge where a file names an item another file defines.

    A re-export (`pub use child::Item` in a mod.rs) is followed to the file that defines the
    item, and is not an edge of its own unless the re-exporting file's code uses the name too:
    like `mod child;`, it is a door, not a dependency.
    """
    graph = Graph()
    for root_file in roots:
        files: dict[pathlib.Path, SourceFile] = {}
        root = build_tree(root_file, files)
        modules = all_modules(root)
        resolver = Resolver(modules)
        file_modules: dict[pathlib.Path, Module] = {}
        for m in modules.values():
            known = file_modules.get(m.file)
            if m.file in files and (known is None or len(m.path) < len(known.path)):
                file_modules[m.file] = m
        # Pass 1: what each module defines and imports.
        per_file = {}
        for path, source in files.items():
            graph.files[path] = source
            toks = source.toks
            owner, top = module_at(source, file_modules[path])
            in_use = [False] * len(toks)
            uses: list[tuple[Use, Module]] = []
            for i, t in enumerate(toks):
                if t.kind != "id":
                    continue
                if t.text == "use" and (i == 0 or toks[i - 1].text != "."):
                    found, end = use_paths(toks, i)
                    for k in range(i, min(end + 1, len(toks))):
                        in_use[k] = True
                    for u in found:
                        uses.append((u, owner[i]))
                        if u.name is None:
                            owner[i].globs.append(Import(u.segs[:-1], owner[i]))
                        else:
                            owner[i].imports[u.name] = Import(u.segs, owner[i])
                elif top[i] and i + 1 < len(toks) and toks[i + 1].kind == "id":
                    if t.text in ITEM_KEYWORDS:
                        owner[i].defs.add(toks[i + 1].text)
                elif t.text == "macro_rules" and i + 2 < len(toks) and toks[i + 2].kind == "id":
                    owner[i].defs.add(toks[i + 2].text)
            per_file[path] = (owner, in_use, uses)
        # Pass 2: the edges.
        for path, source in files.items():
            toks = source.toks
            owner, in_use, uses = per_file[path]
            # Names the file's own code mentions (a re-export counts as a use only then). A
            # child module's name in `mod name;` or `name::…` is the module, not the item.
            code_names = set()
            for k, t in enumerate(toks):
                if t.kind != "id" or in_use[k] or (k and toks[k - 1].text == "mod"):
                    continue
                if k + 1 < len(toks) and toks[k + 1].text == "::" and t.text in owner[k].children:
                    continue
                code_names.add(t.text)
            for u, module in uses:
                if u.name is None:
                    if not u.public:
                        target, _ = resolver.path(u.segs[:-1], module)
                        if target is not None:
                            graph.add(path, target.file, u.line)
                    continue
                if u.public and u.name not in code_names:
                    continue
                target, whole = resolver.path(u.segs, module)
                if target is not None and not whole:
                    graph.add(path, target.file, u.line)
            for i, t in enumerate(toks):
                if in_use[i] or t.kind != "id" or i + 1 >= len(toks) or toks[i + 1].text != "::":
                    continue
                prev = toks[i - 1].text if i else ""
                # Inside a path already, `$crate`, a field, or `pub(in crate::…)`.
                if prev in ("::", "$", ".") or (prev == "in" and toks[i - 2].text == "("):
                    continue
                module = owner[i]
                starts = ("crate", "self", "super")
                if not (t.text in starts or t.text in module.children or t.text in module.imports):
                    continue
                segs = [t.text]
                j = i + 1
                while j + 1 < len(toks) and toks[j].text == "::" and toks[j + 1].kind == "id":
                    segs.append(toks[j + 1].text)
                    j += 2
                target, _ = resolver.path(segs, module)
                if target is not None:
                    graph.add(path, target.file, t.line)
    return graph


# ---------------------------------------------------------------------------------------------
# Circles.


def circles(graph: Graph) -> list[list[pathlib.Path]]:
    """Strongly connected components of more than one file (Tarjan, iteratively)."""
    succ: dict[pathlib.Path, list[pathlib.Path]] = {f: [] for f in graph.files}
    for a, b in graph.edges:
        succ.setdefault(a, []).append(b)
        succ.setdefault(b, [])
    index: dict[pathlib.Path, int] = {}
    low: dict[pathlib.Path, int] = {}
    on_stack: set[pathlib.Path] = set()
    stack: list[pathlib.Path] = []
    out: list[list[pathlib.Path]] = []
    counter = 0
    for start in sorted(succ):
        if start in index:
            continue
        work = [(start, iter(sorted(succ[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(succ[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return sorted(out, key=lambda c: (-len(c), c))


# ---------------------------------------------------------------------------------------------


@dataclass
class Crate:
    name: str
    folder: pathlib.Path
    roots: list[pathlib.Path]


def crates() -> list[Crate]:
    out = []
    for manifest in sorted(ROOT.glob("crates/*/Cargo.toml")) + [ROOT / "src-tauri/Cargo.toml"]:
        if not manifest.is_file():
            continue
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
        folder = manifest.parent
        roots = []
        lib = data.get("lib", {}).get("path", "src/lib.rs")
        roots.append(folder / lib)
        for target in data.get("bin", []):
            if "path" in target:
                roots.append(folder / target["path"])
        roots.append(folder / "src/main.rs")
        roots.extend(sorted((folder / "src/bin").glob("*.rs")))
        roots.extend(sorted((folder / "src/bin").glob("*/main.rs")))
        unique = []
        for r in roots:
            r = r.resolve()
            if r.is_file() and r not in unique:
                unique.append(r)
        if unique:
            out.append(Crate(data["package"]["name"], folder, unique))
    return out


def rel(crate: Crate, path: pathlib.Path) -> str:
    try:
        return path.relative_to(crate.folder.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def describe(crate: Crate, graph: Graph, circle: list[pathlib.Path]) -> list[str]:
    members = set(circle)
    lines = [f"  circle of {len(circle)} files:"]
    lines += [f"    {rel(crate, f)}" for f in circle]
    lines.append("  edges inside it (an example line each):")
    for (a, b), line in sorted(graph.edges.items()):
        if a in members and b in members:
            lines.append(f"    {rel(crate, a)} -> {rel(crate, b)}   ({rel(crate, a)}:{line})")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--report", action="store_true", help="files, circles, largest circle and file per crate"
    )
    parser.add_argument(
        "--circles", action="store_true", help="every circle with its edges, allowed or not"
    )
    args = parser.parse_args()

    problems: list[str] = []
    notes: list[str] = []
    rows = []
    for crate in crates():
        graph = crate_graph(crate.roots)
        found = circles(graph)
        allowed = ALLOWED.get(crate.name, [])
        used = set()
        for circle in found:
            names = frozenset(rel(crate, f) for f in circle)
            match = next((k for k, (files, _) in enumerate(allowed) if names <= files), None)
            if match is None:
                problems.append(f"{crate.name}: an import circle ALLOWED does not hold")
                problems += describe(crate, graph, circle)
            else:
                used.add(match)
            if args.circles:
                why = f" (allowed: {allowed[match][1]})" if match is not None else ""
                print(f"{crate.name}{why}")
                print("\n".join(describe(crate, graph, circle)))
        for k, (files, why) in enumerate(allowed):
            if k not in used:
                notes.append(
                    f"{crate.name}: the allowed circle of {len(files)} files is gone; "
                    f"remove it from ALLOWED ({why})"
                )
        largest = max(graph.files.values(), key=lambda s: s.lines, default=None)
        rows.append(
            (
                crate.name,
                len(graph.files),
                len(found),
                max((len(c) for c in found), default=0),
                f"{rel(crate, largest.path)} ({largest.lines})" if largest else "-",
            )
        )

    if args.report:
        header = ("crate", "files", "circles", "largest circle", "largest file (lines)")
        widths = [max(len(str(r[k])) for r in rows + [header]) for k in range(len(header))]
        for r in [header] + rows:
            print(
                "  ".join(
                    str(v).ljust(w) if k in (0, 4) else str(v).rjust(w)
                    for k, (v, w) in enumerate(zip(r, widths))
                ).rstrip()
            )
        return 0
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print(
            "\nBreak the circle (move what both sides use into a module that imports neither, or "
            "pass values instead of reaching back up), or add it to ALLOWED in "
            "scripts/module-graph.py with the reason.",
            file=sys.stderr,
        )
        return 1
    if not args.circles:
        print(f"module-graph: no import circle beyond the allowed ones in {len(rows)} crates")
    return 0


if __name__ == "__main__":
    sys.exit(main())
