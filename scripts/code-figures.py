#!/usr/bin/env python3
"""Figures of the code's shape, for notes that compare before and after (issue 49).

    scripts/code-figures.py [ROOT]

Prints the lines of the HTTP API's handlers (crates/tessera-server/src/api), its longest
function, the largest Rust source files of the workspace, and how many `pub` items each
shell's source reaches in tessera-engine directly. Run it in an old checkout (`git worktree
add`) for the "before".
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
API = ROOT / "crates" / "tessera-server" / "src" / "api"
FN = re.compile(r"^(\s*)(pub(\([a-z]+\))? )?(async )?fn (\w+)")


def functions(path):
    """(name, lines) of each function of `path`, by its braces (strings rarely hold braces here)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for start, line in enumerate(lines):
        match = FN.match(line)
        if not match or line.rstrip().endswith(";"):
            continue
        depth, opened = 0, False
        for end in range(start, len(lines)):
            code = re.sub(r'"(\\.|[^"\\])*"', '""', lines[end].split("//")[0])
            depth += code.count("{") - code.count("}")
            opened = opened or "{" in code
            if opened and depth == 0:
                found.append((match.group(5), end - start + 1))
                break
    return found


def rust_files(folder):
    return sorted(p for p in folder.rglob("*.rs") if "target" not in p.parts)


def main():
    api_files = rust_files(API)
    api_lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in api_files)
    longest = max(
        ((n, name, p) for p in api_files for name, n in functions(p)), default=(0, "-", API)
    )
    print(f"api/: {len(api_files)} files, {api_lines} lines")
    print(f"longest function in api/: {longest[1]} ({longest[0]} lines, {longest[2].relative_to(ROOT)})")
    sources = [
        p
        for folder in [*(ROOT / "crates").glob("*/src"), ROOT / "src-tauri" / "src"]
        for p in rust_files(folder)
    ]
    sizes = sorted(((len(p.read_text(encoding="utf-8").splitlines()), p) for p in sources), reverse=True)
    print("largest source files: " + ", ".join(f"{p.relative_to(ROOT)} ({n})" for n, p in sizes[:3]))
    for shell in ["crates/tessera-server/src", "crates/tessera-cli/src", "src-tauri/src"]:
        folder = ROOT / shell
        if not folder.exists():
            continue
        uses = sum(
            len(re.findall(r"tessera_engine::|State<Engine>|\.engine\(\)", p.read_text(encoding="utf-8")))
            for p in rust_files(folder)
        )
        print(f"{shell}: {uses} references to tessera-engine")


if __name__ == "__main__":
    main()
