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

# Documents: a PDF with a text page (plain and deflated), its objects in an object stream, a
# DOCX and an ODT, HTML with scripts and entities.
import io, zipfile, zlib


def pdf(objects, trailer=""):
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for o in offsets:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, trailer.encode(), xref)
    return bytes(out)


def stream(data, filt=b""):
    return b"<< %s /Length %d >>\nstream\n" % (filt, len(data)) + data + b"\nendstream"


font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
text = b"BT /F1 12 Tf 72 700 Td (The launch is on 3 March.) Tj 0 -14 Td [(Kern) -200 (ed)] TJ ET"
skeleton = [b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 /Resources << /Font << /F1 5 0 R >> >> >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>"]
put("pdf", pdf(skeleton + [stream(text), font]))
put("pdf", pdf(skeleton + [stream(zlib.compress(text), b"/Filter /FlateDecode"), font]))
put("pdf", pdf(skeleton + [stream(text.hex().encode() + b">", b"/Filter /ASCIIHexDecode"), font]))
put("pdf", pdf(skeleton[:2] + [b"<< /Type /Page /Parent 2 0 R /Contents [4 0 R 4 0 R] >>", stream(text), font]))


def zipped(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


docx = zipped([("[Content_Types].xml", "<Types/>"), ("word/document.xml",
    '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
    '<w:p><w:r><w:t>First paragraph</w:t></w:r></w:p><w:p><w:r><w:t xml:space="preserve">续订 </w:t>'
    '</w:r><w:r><w:tab/><w:t>second</w:t></w:r></w:p></w:body></w:document>')])
odt = zipped([("mimetype", "application/vnd.oasis.opendocument.text"), ("content.xml",
    '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>'
    '<text:h>Title</text:h><text:p>One <text:s text:c="3"/>two</text:p></office:text></office:body>'
    '</office:document-content>')])
put("office", b"\x00" + docx)
put("office", b"\x01" + odt)

for page in ["<!doctype html><html><head><title>T</title><script>var a = '<p>';</script></head>\n"
             "<body><p>One &amp; two &#x4e2d;</p>\n<!-- gone --><pre>  kept\n  lines</pre></body></html>",
             "<p>unclosed <b>bold <i>and\n<style>p{}</style>&unknown; &#99999999;"]:
    put("html", page)

for p in sorted(PROVIDERS.glob("*.sse")):
    put("provider_body", bytes([7]) + p.read_bytes())
put("provider_body", b"\x40" + json.dumps({"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}]}).encode())
put("provider_body", b"\x01" + json.dumps({"type": "message", "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 1}}).encode())
