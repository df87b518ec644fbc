#!/usr/bin/env python3
"""The shells hold no application logic: checked where a machine can, in the dependency graph.

The HTTP API (tessera-server), the command line (tessera-cli) and the desktop shell
(tessera-desktop) reach the data folder only through the application core (tessera-app), so none
may depend on the store directly; the desktop shell reads its few flags itself and carries no
argument parser, not even through a crate it depends on.
"""

import json
import pathlib
import subprocess
import sys

# (package, dependency it must not have directly, why)
FORBIDDEN = [
    ("tessera-server", "tessera-store", "the HTTP API reaches the store through tessera-app"),
    ("tessera-cli", "tessera-store", "the command line reaches the store through tessera-app"),
    ("tessera-server", "tessera-engine", "the HTTP API's handlers call the core (tessera-app), never the engine"),
    ("tessera-desktop", "tessera-store", "the desktop shell reaches the store through tessera-app"),
    ("tessera-desktop", "tessera-engine", "the desktop shell reaches the engine through tessera-app"),
    ("tessera-desktop", "clap", "the desktop shell reads its flags itself (src-tauri/src/cli.rs)"),
]

# (package, dependency it must not link through any chain of normal dependencies, why)
FORBIDDEN_ANYWHERE = [
    ("tessera-desktop", "clap", "the desktop carries the HTTP API (tessera-server), never the command line"),
    ("tessera-server", "clap", "the HTTP API has no argument parser: that is tessera-cli's"),
    ("tessera-desktop", "tessera-cli", "the desktop depends on the HTTP API only"),
]


# Where the shells' own code lives (run from the workspace root).
SHELL_SOURCES = ["crates/tessera-server/src", "crates/tessera-cli/src", "src-tauri/src"]


def host_triple():
    verbose = subprocess.run(["rustc", "-vV"], check=True, capture_output=True, text=True).stdout
    return next(line.split(": ", 1)[1] for line in verbose.splitlines() if line.startswith("host: "))


def linked(metadata, package):
    """Every package `package` links through normal (not dev, not build) dependencies."""
    ids = {p["name"]: p["id"] for p in metadata["packages"]}
    names = {p["id"]: p["name"] for p in metadata["packages"]}
    nodes = {n["id"]: n for n in metadata["resolve"]["nodes"]}
    seen, todo = set(), [ids[package]]
    while todo:
        for dep in nodes[todo.pop()]["deps"]:
            if any(k.get("kind") is None for k in dep["dep_kinds"]) and dep["pkg"] not in seen:
                seen.add(dep["pkg"])
                todo.append(dep["pkg"])
    return {names[i] for i in seen}


def main() -> int:
    metadata = json.loads(
        subprocess.run(
            # This machine's platform only: the others' crates are never downloaded here.
            ["cargo", "metadata", "--format-version", "1", "--offline", "--filter-platform", host_triple()],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    packages = {p["name"]: p for p in metadata["packages"]}
    problems = []
    for package, dependency, why in FORBIDDEN:
        if package not in packages:
            problems.append(f"{package}: not in the workspace any more; update scripts/check-deps.py")
            continue
        # Only what the shipped code links: a test may still open the real SQLite file to see
        # what a request left in it.
        names = {d["name"] for d in packages[package]["dependencies"] if d.get("kind") is None}
        if dependency in names:
            problems.append(f"{package} depends on {dependency} directly: {why}")
    for package, dependency, why in FORBIDDEN_ANYWHERE:
        if package not in packages:
            problems.append(f"{package}: not in the workspace any more; update scripts/check-deps.py")
        elif dependency in linked(metadata, package):
            problems.append(f"{package} links {dependency} through its dependencies: {why}")
    # The engine hands out its store (`Engine::store()`) for the core's sake: a shell that calls
    # it reaches past the core all the same.
    for folder in SHELL_SOURCES:
        for path in sorted(pathlib.Path(folder).rglob("*.rs")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if ".store()" in line and not line.lstrip().startswith("//"):
                    problems.append(
                        f"{path}:{number} calls .store(): a shell asks the core (tessera-app), "
                        "not the store"
                    )
    # Every event the engine emits has a payload type in tessera-protocol: an untyped body is
    # for reading events of other versions, never for writing one.
    for path in sorted(pathlib.Path("crates").glob("*/src/**/*.rs")):
        if path.parts[1] == "tessera-protocol":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "EventBody::Other {" in line and not line.lstrip().startswith("//"):
                problems.append(
                    f"{path}:{number} emits an untyped event: give its payload a type in "
                    "tessera-protocol's easyflow module"
                )
    # Events are written one way, through the engine's EventLog (immediate or batched, handed on
    # after commit). The only other writers are the transactions that answer or withdraw an
    # interaction, which append its event in the same commit as the change.
    allowed = {
        pathlib.Path("crates/tessera-engine/src/event_log.rs"),
        pathlib.Path("crates/tessera-engine/src/interactions/answer.rs"),
    }
    for path in sorted([*pathlib.Path("crates").glob("*/src/**/*.rs"), *pathlib.Path("src-tauri/src").rglob("*.rs")]):
        if path.parts[1] == "tessera-store" or path in allowed:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip() == "#[cfg(test)]":
                break
            if (".append_event(" in line or ".append_events" in line) and not line.lstrip().startswith("//"):
                problems.append(
                    f"{path}:{number} writes an event past the event log: use "
                    "tessera_engine::event_log::EventLog"
                )
    if problems:
        for line in problems:
            print(f"check-deps: {line}", file=sys.stderr)
        return 1
    print(
        f"check-deps: {len(FORBIDDEN) + len(FORBIDDEN_ANYWHERE)} dependency rules hold, no shell calls .store(), no "
        "crate emits an untyped event, and events are written only through the event log"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
