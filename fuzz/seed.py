#!/usr/bin/env python3
"""Seeds the fuzz corpora (fuzz/corpus/<target>/) from the project's vectors and examples: the
protocol vectors of tests/vectors, the recorded provider streams of ../shared/vectors, and the
seeds' own examples of each small language. Safe to run again: seeds are named by content."""
import hashlib, json, pathlib, re

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
PROVIDERS = ROOT.parent / "shared" / "vectors" / "providers"


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / ("seed-" + hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)


def payloads(path):
    text = path.read_text()
    if path.suffix == ".sse":
        return "\n".join(l[5:].strip() for l in text.splitlines() if l.startswith("data:"))
    return text


for p in sorted(PROVIDERS.glob("*")):
    if p.name == "README.md":
        continue
    target = "anthropic_stream" if p.name.startswith("anthropic") else "openai_stream"
    put(target, payloads(p))

for p in sorted((ROOT / "tests" / "vectors" / "valid").rglob("*.json")):
    put("validate", p.read_bytes())
for p in sorted((ROOT / "tests" / "vectors" / "invalid").rglob("*.json"))[::10]:
    put("validate", p.read_bytes())

context = {"dependencies": {"a": {"status": "COMPLETED", "result": {"count": 3, "name": " x "}},
                            "b": {"status": "FAILED", "error": {"code": "E"}}},
           "results": {"c1": {"status": "SUCCESS", "result": {"items": [1, 2]}}}}
for expr in [
    "dependencies.a.status == 'COMPLETED'",
    "NOT dependencies.b.status == 'FAILED'",
    "dependencies.a.result.count > 2 AND dependencies.b.status != 'SUCCESS' OR isEmpty(dependencies.a.result.name)",
    "(dependencies.a.result.count >= 3) AND NOT (results.c1.status == 'SUCCESS')",
    "results.c1.result.items[1] == 2",
    "dependencies.a.status IN ['COMPLETED', 'SUCCESS']",
    "length(results.c1.result.items) < 5",
]:
    put("condition", expr + "\n" + json.dumps(context))

for params in [
    {"query": "${results.c1.result.items[0]}"},
    {"text": "total: ${results.c1.result.count} of ${dependencies.a.result}", "n": "${results.c1}"},
    {"nested": [{"deep": "${results.a.result.x.y[3].z}"}], "plain": "$ {not one}"},
    "${results.c1.result",
]:
    put("reference", json.dumps(params))

content = {"data": {"items": [{"name": "a", "text": "one\ntwo\nthree"}, {"name": "b"}]}}
for sel in ["field:data.items[1].name", "field:data.items[0].text,lines:2", "lines:1-2,chars:0-3",
            "chars:3-5", "field:[0]", "lines:2-1"]:
    put("selector", sel + "\n" + json.dumps(content if "field" in sel else "line 1\nline 2\n续订 line 3"))

for path, value in [("userPreferences.language", "中文"), ("customState.search.count", 3),
                    ("a.b.c.d.e", {"f": [1, {"g": None}]}), ("activeTools", ["x"]), ("a..b", 1)]:
    put("state_path", path + "\n" + json.dumps(value))

schema = {"type": "object", "properties": {
    "name": {"type": "string", "minLength": 1, "maxLength": 40},
    "email": {"type": "string", "format": "email"},
    "age": {"type": "integer", "minimum": 0, "maximum": 150},
    "agree": {"type": "boolean", "default": False},
    "color": {"type": "string", "enum": ["red", "green"]},
    "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
    "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1, "maxItems": 2},
    "when": {"type": "string", "format": "date"}}, "required": ["name"]}
for values in [{"name": "Ada", "email": "ada@example.com", "age": 36, "tags": ["a"]},
               {"name": "", "age": -1, "tags": ["c"], "when": "2026-13-40"}, {}]:
    put("form", json.dumps(schema) + "\n" + json.dumps(values))

for doc in [
    {"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github", "--token", "ghp_0123456789abcdefghij"],
                               "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "x", "LOG": "1"}}}},
    {"servers": {"remote": {"type": "http", "url": "https://u:p@x.example/mcp?key=1", "headers": {"Authorization": "Bearer y"}}}},
    {"a": {"command": "srv", "alwaysAsk": True, "disabled": True, "timeout": 30, "startupTimeout": 5}},
    {"mcpServers": {"bad name": {"url": "ftp://x"}}},
]:
    put("mcp_config", json.dumps(doc))

for expr in ["1 + 2 * 3", "(4 - 1) ^ 2 / 3", "sqrt(2) + sin(pi / 2)", "10 % 3", "-(-(-1))",
             "1e308 * 10", "2 ^ 2 ^ 2", "abs(-3) + max(1, 2, 3)", "1 / 0", "((((((1))))))"]:
    put("calculator", expr)
