#!/usr/bin/env python3
"""The shells hold no application logic: checked where a machine can, in the dependency graph.

The HTTP API and command line (tessera-server) and the desktop shell (tessera-desktop) reach
the data folder only through the application core (tessera-app), so neither may depend on the
store directly; the desktop shell reads its few flags itself and carries no argument parser.
"""

import json
import pathlib
import subprocess
import sys

# (package, dependency it must not have directly, why)
FORBIDDEN = [
    ("tessera-server", "tessera-store", "the HTTP API and the CLI reach the store through tessera-app"),
    ("tessera-desktop", "tessera-store", "the desktop shell reaches the store through tessera-app"),
    ("tessera-desktop", "tessera-engine", "the desktop shell reaches the engine through tessera-app"),
    ("tessera-desktop", "clap", "the desktop shell reads its flags itself (src-tauri/src/cli.rs)"),
]


# Where the shells' own code lives (run from the workspace root).
SHELL_SOURCES = ["crates/tessera-server/src", "src-tauri/src"]


def main() -> int:
    metadata = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
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
        f"check-deps: {len(FORBIDDEN)} dependency rules hold, no shell calls .store(), no "
        "crate emits an untyped event, and events are written only through the event log"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
