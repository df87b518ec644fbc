"""The MCP bench of issue 27: `echo` calls to server-everything (tests/mcp-servers, stdio),
through Tessera and through the official Python MCP client (PyPI `mcp`, pinned), in one run.

Prints calls per second for
- the Python client, CALLS calls 10 at a time and one at a time;
- a Tessera turn whose model asks for CALLS `everything__echo` calls (250 per answer, the fixed provider
  of bench/cli), run 10 at a time by the scheduler with every call stored: from the first
  `tool/tool_queued` event to the last `tool/tool_result`, as an SSE client of
  `POST /v1/messages` receives them;
and the time of one call: the Python client's `call_tool`, and a TOOL_CALL_REQUEST of one
`echo` to `tessera serve` (medians of SINGLES).
Targets (issue 27): >= 80 % of the Python client's calls/s at the same concurrency; a direct
call at most 1 ms more than the Python client's.

This machine moves a figure by tens of percent between one minute and the next (the Python
client's calls/s by 40 % between runs), so the two are measured in ROUNDS (5) rounds, each
the Python client's BATCHES (3) batches and Tessera's back to back, in turn first; each target is judged on
the median of the rounds' own comparisons, printed with their range.

Usage: run.py TESSERA_BIN PYTHON_WITH_MCP (make bench-mcp builds and installs both).
"""

import asyncio
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CALLS = int(os.environ.get("CALLS", "500"))
SINGLES = int(os.environ.get("SINGLES", "200"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))
# Batches of CALLS a round, each side: a round's figure is their median (one turn of 500 calls
# lasts ~0.1 s, which a checkpoint of the store or the machine's noise can double).
BATCHES = int(os.environ.get("BATCHES", "3"))
EVERYTHING = ROOT / "tests/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
PYTHON_CLIENT = Path(__file__).resolve().parent / "python_client.py"
TOKEN = "bench-token-0123456789abcdef0123456789abcdef"


def python_figures(python):
    out = subprocess.run(
        [python, str(PYTHON_CLIENT), str(EVERYTHING), str(CALLS), str(SINGLES), str(BATCHES)],
        check=True, stdout=subprocess.PIPE, text=True,
    ).stdout
    return json.loads(out)


def start(argv, env=None, prefix="Listening on "):
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    while True:
        line = process.stdout.readline()
        if not line:
            sys.exit(f"bench-mcp: {argv[0]} ended before listening")
        if line.startswith(prefix):
            return process, line.removeprefix(prefix).strip()


def post(base, body, stream=False):
    request = urllib.request.Request(
        f"{base}/v1/messages", data=json.dumps(body).encode(), method="POST",
        headers={"authorization": f"Bearer {TOKEN}", "content-type": "application/json",
                 **({"accept": "text/event-stream"} if stream else {})},
    )
    return urllib.request.urlopen(request, timeout=600)


def message(kind, context, content):
    return {"messageId": f"m{time.monotonic_ns()}", "contextId": context,
            "timestamp": "2026-11-27T10:00:00Z", "type": kind,
            "sender": {"id": "bench", "type": "USER"}, "content": content}


def turn_calls_per_second(base, context, calls):
    """Runs a turn of `calls` echo calls; calls/s from the first queued call to the last result."""
    first = last = None
    results = 0
    with post(base, message("USER_INPUT", context, {"text": f"call everything__echo x{calls}"}),
              stream=True) as answer:
        for raw in answer:
            line = raw.decode().strip()
            if not line.startswith("data:"):
                continue
            event = json.loads(line[5:])
            kind = (event.get("domain"), event.get("type"))
            if kind == ("tool", "tool_queued") and first is None:
                first = time.perf_counter()
            elif kind == ("tool", "tool_result"):
                results += 1
                last = time.perf_counter()
                if event.get("payload", {}).get("status") not in ("success", "SUCCESS", None):
                    sys.exit(f"bench-mcp: a call failed: {line[:500]}")
            elif kind == ("system", "done"):
                break
    if results != calls or first is None:
        sys.exit(f"bench-mcp: {results} results of {calls} calls")
    return calls / (last - first)


def connection(base):
    """One kept-alive connection, as a client making calls one after another holds (the Python
    MCP client's session is open too): the figure is the call, not a TCP handshake."""
    host_port = base.split("://", 1)[1]
    host, port = host_port.rsplit(":", 1)
    return http.client.HTTPConnection(host, int(port), timeout=600)


def direct_call_seconds(conn, context):
    body = json.dumps(message("TOOL_CALL_REQUEST", context, {
        "calls": [{"callId": f"c{time.monotonic_ns()}", "name": "everything__echo",
                   "parameters": {"message": "one"}}],
        "executionMode": "PARALLEL", "timeout": 60,
    })).encode()
    start_at = time.perf_counter()
    conn.request("POST", "/v1/messages", body=body, headers={
        "authorization": f"Bearer {TOKEN}", "content-type": "application/json"})
    answer = conn.getresponse()
    reply = json.loads(answer.read())
    took = time.perf_counter() - start_at
    result = reply["content"]["results"][0]
    if result.get("status") not in ("SUCCESS", "success"):
        sys.exit(f"bench-mcp: the direct call failed: {reply}")
    return took


def thread_ticks(pid):
    """CPU clock ticks of each thread of `pid` so far, by thread name (tokio's workers summed)."""
    ticks = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = Path(f"/proc/{pid}/task/{task}/stat").read_text()
        except OSError:
            continue  # a thread that ended meanwhile
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        ticks[name] = ticks.get(name, 0) + int(fields[11]) + int(fields[12])
    return ticks


def cpu_per_call_ms(before, after, calls):
    """The CPU each thread group spent per call between two thread_ticks, biggest first."""
    per_tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
    spent = {name: (after[name] - before.get(name, 0)) * per_tick_ms / calls for name in after}
    return sorted(((ms, name) for name, ms in spent.items() if ms > 0), reverse=True)


def round_trip_seconds(conn):
    """A request that does nothing (`GET /healthz`) on the same connection: the HTTP floor."""
    start_at = time.perf_counter()
    conn.request("GET", "/healthz")
    conn.getresponse().read()
    return time.perf_counter() - start_at


def tessera_figures(tessera, data, provider_url):
    """One round through a `tessera serve` of its own, its MCP server started afresh as the
    Python client's is each round (server-everything runs on Node: its JIT warms up over the
    first thousands of calls, which a server kept across rounds would give Tessera alone). As
    the Python client does: a few calls to warm up, BATCHES turns of CALLS calls, then SINGLES
    direct calls and as many HTTP round trips that do nothing, with the CPU each thread spent on
    the direct calls."""
    env = {**os.environ, "OPENAI_API_KEY": "bench"}
    server, listening = start(
        [tessera, "--data-dir", str(data), "serve", "--addr", "127.0.0.1:0", "--token", TOKEN,
         "--kind", "openai", "--base-url", provider_url, "--model", "bench"], env=env)
    try:
        base = listening.split("/#", 1)[0].rstrip("/")
        # The MCP server starts on the first call.
        turn_calls_per_second(base, "warm", 20)
        turn = statistics.median(
            turn_calls_per_second(base, f"turn-{i}", CALLS) for i in range(BATCHES))
        conn = connection(base)
        direct_call_seconds(conn, "direct")
        before = thread_ticks(server.pid)
        singles = [direct_call_seconds(conn, "direct") for _ in range(SINGLES)]
        # Where a direct call's time goes: the CPU of each of the server's threads per call (the
        # store's writer commits the call's events; tokio's workers run HTTP, the engine and the
        # MCP client). Clock ticks are coarse: SINGLES calls are counted together.
        spent = cpu_per_call_ms(before, thread_ticks(server.pid), SINGLES)
        floors = [round_trip_seconds(conn) for _ in range(SINGLES)]
        conn.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    return {"concurrent": turn, "single_ms": statistics.median(singles) * 1000,
            "floor_ms": statistics.median(floors) * 1000, "spent": spent}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tessera, python = sys.argv[1], sys.argv[2]
    if not EVERYTHING.is_file():
        sys.exit("bench-mcp: tests/mcp-servers is not installed (scripts/install-deps.sh)")
    data = Path(tempfile.mkdtemp(prefix="tessera-bench-mcp-"))
    (data / "mcp.json").write_text(json.dumps(
        {"mcpServers": {"everything": {"command": "node", "args": [str(EVERYTHING), "stdio"]}}}))
    provider, provider_url = start(
        [sys.executable, str(ROOT / "bench/cli/fixed_provider.py")])
    rounds = []
    print(f"bench-mcp: {CALLS} echo calls to server-everything over stdio, {ROUNDS} rounds "
          "(the Python client and Tessera back to back, in turn first)")
    try:
        for i in range(ROUNDS):
            if i % 2 == 0:
                peer = python_figures(python)
                ours = tessera_figures(tessera, data, provider_url)
            else:
                ours = tessera_figures(tessera, data, provider_url)
                peer = python_figures(python)
            rounds.append((peer, ours))
            print(f"  round {i + 1}: 10 at a time, Python {peer['concurrent']:.0f} calls/s, "
                  f"Tessera {ours['concurrent']:.0f} "
                  f"({100 * ours['concurrent'] / peer['concurrent']:.0f} %); one call, Python "
                  f"{peer['single_ms']:.2f} ms, Tessera {ours['single_ms']:.2f} ms "
                  f"(+{ours['single_ms'] - peer['single_ms']:.2f} ms)", flush=True)
    finally:
        provider.kill()
        shutil.rmtree(data, ignore_errors=True)
    med = statistics.median
    shares = [100 * ours["concurrent"] / peer["concurrent"] for peer, ours in rounds]
    added = [ours["single_ms"] - peer["single_ms"] for peer, ours in rounds]
    version = rounds[0][0]["version"]
    print(f"bench-mcp: medians of {ROUNDS} rounds")
    print(f"  Python mcp {version}, 10 at a time: {med(p['concurrent'] for p, _ in rounds):8.0f} calls/s")
    print(f"  Python mcp {version}, one at a time:{med(p['sequential'] for p, _ in rounds):8.0f} calls/s")
    print(f"  Tessera turn, 10 at a time, every call stored: {med(o['concurrent'] for _, o in rounds):8.0f} calls/s "
          f"({med(shares):.0f} % of Python's, the median of the rounds' own, from {min(shares):.0f} "
          f"to {max(shares):.0f} %; target >= 80 %: {'met' if med(shares) >= 80 else 'NOT met'})")
    print(f"  one call: Python {med(p['single_ms'] for p, _ in rounds):.2f} ms, Tessera TOOL_CALL_REQUEST "
          f"{med(o['single_ms'] for _, o in rounds):.2f} ms (+{med(added):.2f} ms, the median of the "
          f"rounds' own, from +{min(added):.2f} to +{max(added):.2f}; target <= +1 ms: "
          f"{'met' if med(added) <= 1 else 'NOT met'}); of it, an HTTP request that does nothing on "
          f"the same connection: {med(o['floor_ms'] for _, o in rounds):.2f} ms")
    spent = {}
    for _, ours in rounds:
        for ms, name in ours["spent"]:
            spent.setdefault(name, []).append(ms)
    print("  CPU per direct call, by thread of tessera serve (median of the rounds): " + ", ".join(
        f"{name} {ms:.2f} ms" for ms, name in sorted(((med(v), k) for k, v in spent.items()), reverse=True)))


if __name__ == "__main__":
    main()
