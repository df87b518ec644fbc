"""The local-model bench of issue 28: Tessera's worker (tessera-llama, streamed over HTTP on
loopback) beside llama-cpp-python in-process (PyPI, pinned: the same llama.cpp commit), on the
same GGUF, the same prompt tokens and the same number of generated tokens, in one run.

Prints, for each side, medians of RUNS after a warm-up:
- time to first token: Tessera, from sending the request to the first content chunk of the
  stream; llama-cpp-python, from tokenizing the prompt to the first token out of generate();
- generation rate: TOKENS - 1 tokens over the time from the first token to the last (greedy,
  TOKENS generated; Tessera's count is the usage's completion_tokens, checked == TOKENS), and
  the steady rate, 1 / the median time between two tokens (of all runs), which other load on
  the machine moves less: it stretches some gaps, not the median one;
then Tessera's ratio to llama-cpp-python (target: >= 0.95 of its tokens/s), the worker's RSS and
PSS while loaded (/proc/PID/smaps_rollup) and that it is gone once its standard input closes,
each side's llama.cpp (versions, vendored source compared, build flags, system info) and the
commands. llama-cpp-python runs twice over: as stated (its Llama() turns flash attention off,
as the worker does by default on a CPU) and with flash_attn=True, llama.cpp's own default (auto)
on a CPU, which the worker used until it measured off as faster (`--flash-attn on` gives it).

Both sides answer the same text each run: one user message, rendered by the model's chat
template on Tessera's side and written out the same way here (ChatML with the template's default
system turn) for llama-cpp-python; the prompt token counts and the greedy answers are compared.
Each run's message starts differently, so no side's prompt cache holds more than the system turn.

Usage: run.py TESSERA_LLAMA PYTHON_WITH_LLAMA_CPP MODEL.gguf (make bench-llama builds the
worker, installs llama-cpp-python in a venv under ~/.cache and makes the model). TOKENS (128),
RUNS (3), THREADS (2) and CTX (4096) may be set in the environment.
"""

import glob
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TOKENS = int(os.environ.get("TOKENS", "128"))
RUNS = int(os.environ.get("RUNS", "3"))
THREADS = int(os.environ.get("THREADS", "2"))
CTX = int(os.environ.get("CTX", "4096"))
TOKEN = "bench-llama-0123456789abcdef0123456789abcdef"
PYTHON_SIDE = HERE / "python_side.py"

# What the model's template (scripts/make-test-gguf.py, ChatML) renders for one user message and
# no tools: its default system turn, the message, and the assistant's turn opened.
SYSTEM = "You are a helpful assistant."
MESSAGE = (
    "Hello, I have a list of notes in a file and I need help with it. Please read the file at "
    "the path notes.txt and write what you get as a list. For each item in the list, tell me the "
    "name, the type and the time it was written, and if it is not there, say so. Then search the "
    "notes for the weather in my city and echo the result as text. If you can, run the command "
    "to list the notes with the query weather, and write the result to a json file with the name "
    "weather.json. I will use it to help me plan what to do this week. Thanks, and please tell me "
    "how you did it and what you used."
)


def chatml(message):
    return (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n"
            f"<|im_start|>user\n{message}<|im_end|>\n<|im_start|>assistant\n")


def smaps_rollup(pid):
    """The kB figures of /proc/PID/smaps_rollup."""
    figures = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        m = re.match(r"(\w+):\s+(\d+) kB", line)
        if m:
            figures[m.group(1)] = int(m.group(2))
    return figures


def mib(kb):
    return f"{kb / 1024:7.0f} MiB"


# ------------------------------------------------------------------------------------------------
# Tessera's side: the worker, over HTTP on loopback

def start_worker(worker, model, log, *flags):
    env = {**os.environ, "TESSERA_LLAMA_TOKEN": TOKEN, "TESSERA_LOG": "info"}
    argv = [worker, model, "--ctx", str(CTX), "--threads", str(THREADS), "--port", "0", *flags]
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                               env=env, text=True)
    line = process.stdout.readline()
    if not line:
        log.seek(0)
        sys.exit(f"bench-llama: the worker ended before it was ready:\n{log.read()[-3000:]}")
    return process, json.loads(line), time.perf_counter() - started


def tessera_run(conn, message):
    body = json.dumps({
        "model": "bench", "messages": [{"role": "user", "content": message}],
        "stream": True, "stream_options": {"include_usage": True},
        "max_tokens": TOKENS, "temperature": 0,
    })
    first = last = None
    text, usage, finish, times = [], None, None, []
    start = time.perf_counter()
    conn.request("POST", "/v1/chat/completions", body=body, headers={
        "authorization": f"Bearer {TOKEN}", "content-type": "application/json",
        "accept": "text/event-stream"})
    answer = conn.getresponse()
    if answer.status != 200:
        sys.exit(f"bench-llama: the worker answered {answer.status}: {answer.read()[:2000]!r}")
    for raw in answer:
        line = raw.decode().strip()
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            continue
        event = json.loads(data)
        if "error" in event:
            sys.exit(f"bench-llama: the worker failed: {event['error']}")
        if event.get("usage"):
            usage = event["usage"]
        for choice in event.get("choices", []):
            delta = choice.get("delta", {})
            if delta.get("content") or delta.get("tool_calls"):
                now = time.perf_counter()
                first = first or now
                last = now
                times.append(now)
                text.append(delta.get("content") or json.dumps(delta["tool_calls"]))
            finish = choice.get("finish_reason") or finish
    if usage is None or first is None:
        sys.exit(f"bench-llama: no usage or no content in the worker's answer ({usage})")
    return {
        "prompt_tokens": usage["prompt_tokens"],
        "cached_tokens": usage.get("prompt_tokens_details", {}).get("cached_tokens"),
        "tokens": usage["completion_tokens"],
        "finish": finish,
        "ttft_s": first - start,
        "first_to_last_s": last - first,
        "gaps_s": [b - a for a, b in zip(times, times[1:])],
        "text": "".join(text),
    }


# ------------------------------------------------------------------------------------------------
# llama-cpp-python's side: python_side.py in the venv, in-process there

def start_python(python, model, *flags):
    started = time.perf_counter()
    process = subprocess.Popen([python, str(PYTHON_SIDE), model, str(CTX), str(THREADS), *flags],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line:
        sys.exit("bench-llama: llama-cpp-python's side ended before it was ready")
    return process, json.loads(line), time.perf_counter() - started


def python_run(process, message):
    process.stdin.write(json.dumps({"prompt": chatml(message), "n": TOKENS}) + "\n")
    process.stdin.flush()
    line = process.stdout.readline()
    if not line:
        sys.exit("bench-llama: llama-cpp-python's side ended in a run")
    return json.loads(line)


def worker_split(worker_log):
    """Medians over the runs (not the warm-up) of the worker's `answer done` lines: the prompt's
    decode time, and per generated token the time in llama_decode, in sampling and the rest."""
    done = []
    for line in worker_log.splitlines():
        if "answer done" not in line:
            continue
        fields = dict(re.findall(r"(\w+)=([0-9.]+)", line))
        try:
            n = max(int(fields["completion_tokens"]), 1)
            done.append({"prefill_ms": float(fields["prefill_ms"]),
                         "decode_ms": float(fields["decode_ms"]) / n,
                         "sample_ms": float(fields["sample_ms"]) / n,
                         "other_ms": float(fields["other_ms"]) / n})
        except (KeyError, ValueError):
            continue
    runs = done[1:]
    if not runs:
        return None
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def rate(run):
    return (run["tokens"] - 1) / run["first_to_last_s"]


def steady_rate(runs):
    """1 / the median time between two tokens, over all the runs' tokens: what a token costs
    when nothing else on the machine takes the cores (other load stretches some gaps only)."""
    return 1 / statistics.median(g for r in runs for g in r["gaps_s"])


def first_difference(a, b):
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"at character {k}: {a[max(0, k - 20):k + 20]!r} | {b[max(0, k - 20):k + 20]!r}"


# ------------------------------------------------------------------------------------------------
# Where each side's llama.cpp comes from

def crate_version(name):
    lock = (ROOT / "crates/tessera-llama/Cargo.lock").read_text()
    m = re.search(r'name = "' + re.escape(name) + r'"\nversion = "([^"]+)"', lock)
    return m.group(1) if m else "?"


def crate_llama_cpp(version):
    found = sorted(glob.glob(os.path.expanduser(
        f"~/.cargo/registry/src/*/llama-cpp-sys-2-{version}/llama.cpp")))
    return Path(found[-1]) if found else None


def worker_build(worker):
    """GGML_* of the worker's llama.cpp build (CMakeCache of llama-cpp-sys-2's build script)."""
    builds = [Path(p).parent for p in glob.glob(
        str(Path(worker).parent / "build/llama-cpp-sys-2-*/out/build/CMakeCache.txt"))]
    if not builds:
        return "its CMake cache was not found"
    build = max(builds, key=lambda p: (p / "CMakeCache.txt").stat().st_mtime)
    cache = (build / "CMakeCache.txt").read_text()
    keys = ["CMAKE_BUILD_TYPE", "GGML_NATIVE", "GGML_OPENMP", "GGML_LLAMAFILE", "GGML_CPU_REPACK",
            "BUILD_SHARED_LIBS"]
    found = [f"{k}={m.group(1)}" for k in keys
             if (m := re.search(rf"^{k}:\w+=(.*)$", cache, re.M))]
    flags = build / "ggml/src/CMakeFiles/ggml-cpu.dir/flags.make"
    if flags.is_file():
        cxx = re.search(r"^CXX_FLAGS = (.*)$", flags.read_text(), re.M)
        if cxx:
            found.append("ggml-cpu CXX_FLAGS " + " ".join(
                f for f in cxx.group(1).split() if f.startswith(("-O", "-march", "-f", "-m"))))
    return ", ".join(found)


def sdist_provenance(python, version, crate_src):
    """The llama.cpp commit the llama-cpp-python sdist names (its CHANGELOG), and whether its
    vendored llama.cpp is the crate's, file for file (ggml, ggml-cpu, src, include)."""
    venv = Path(python).parent.parent
    sdist = venv / "sdist" / f"llama_cpp_python-{version}.tar.gz"
    if not sdist.is_file():
        return f"(no sdist at {sdist}: not checked)", None
    prefix = f"llama_cpp_python-{version}/"
    with tarfile.open(sdist) as tar:
        changelog = tar.extractfile(prefix + "CHANGELOG.md").read().decode()
        section = changelog.split(f"## [{version}]", 1)[1].split("\n## [", 1)[0]
        m = re.search(r"llama\.cpp@([0-9a-f]+)", section)
        named = m.group(1) if m else "?"
        if crate_src is None:
            return named, None
        vendored = prefix + "vendor/llama.cpp/"
        same = differ = 0
        for member in tar.getmembers():
            if not member.isfile() or not member.name.startswith(vendored):
                continue
            rel = member.name[len(vendored):]
            top_of_ggml_src = rel.startswith("ggml/src/") and "/" not in rel[len("ggml/src/"):]
            if not (top_of_ggml_src or rel.startswith(
                    ("ggml/include/", "ggml/src/ggml-cpu/", "src/", "include/"))):
                continue  # other backends (CUDA, Metal, …), tools, tests: not built here
            ours = crate_src / rel
            if ours.is_file() and ours.read_bytes() == tar.extractfile(member).read():
                same += 1
            else:
                differ += 1
        return named, (same, differ)


# ------------------------------------------------------------------------------------------------

def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    worker, python, model = sys.argv[1:]
    for path in (worker, python, model):
        if not Path(path).exists():
            sys.exit(f"bench-llama: {path} does not exist")
    load_before = os.getloadavg()

    # Three sides, all loaded at once (one file, mapped by each): the worker; llama-cpp-python
    # as the bench states it (flash attention off, its default and the worker's); and
    # llama-cpp-python with flash_attn=True, llama.cpp's own default (auto) on a CPU.
    log = tempfile.TemporaryFile(mode="w+")
    peer_proc, peer, _ = start_python(python, model)
    fa_proc, fa_peer, _ = start_python(python, model, "--flash-attn")
    worker_proc, ready, worker_load = start_worker(worker, model, log)
    conn = http.client.HTTPConnection("127.0.0.1", ready["port"], timeout=600)
    sides = [lambda m: tessera_run(conn, m), lambda m: python_run(peer_proc, m),
             lambda m: python_run(fa_proc, m)]
    runs = [[], [], []]
    try:
        # Warm-up: the first decode of each side faults the weights in and sizes its buffers.
        for side in sides:
            side("Warm-up. " + MESSAGE)
        for i in range(RUNS):
            message = f"Run {i + 1}. " + MESSAGE
            # Each run starts with another side, so a change in the machine's load falls on all.
            for k in range(len(sides)):
                j = (i + k) % len(sides)
                runs[j].append(sides[j](message))
        conn.close()
        peer_mem = smaps_rollup(peer_proc.pid)
    finally:
        for process in (peer_proc, fa_proc):
            process.stdin.close()
            process.wait(timeout=60)
    # The worker alone now: its PSS is not shared with the others mapping the same file.
    worker_mem = smaps_rollup(worker_proc.pid)
    closed_at = time.perf_counter()
    worker_proc.stdin.close()
    code = worker_proc.wait(timeout=60)
    exit_ms = (time.perf_counter() - closed_at) * 1000
    gone = not Path(f"/proc/{worker_proc.pid}").exists()
    log.seek(0)
    worker_log = re.sub(r"\x1b\[[0-9;]*m", "", log.read())
    load_after = os.getloadavg()
    ours_runs, peer_runs, fa_runs = runs

    # ---- checks
    problems = []
    for i, (ours, theirs) in enumerate(zip(ours_runs, peer_runs), 1):
        if ours["tokens"] != TOKENS:
            problems.append(f"run {i}: the worker generated {ours['tokens']} tokens, not {TOKENS} "
                            f"(finish_reason {ours['finish']}): it stopped on EOS")
        if ours["prompt_tokens"] != theirs["prompt_tokens"]:
            problems.append(f"run {i}: prompt tokens differ: worker {ours['prompt_tokens']}, "
                            f"llama-cpp-python {theirs['prompt_tokens']}")
    # The worker's streamed text drops a byte that is no UTF-8 (a lone byte token), where
    # llama-cpp-python's detokenize().decode("utf-8", "replace") writes U+FFFD: the answers are
    # compared both as they are and with those U+FFFD left out.
    def same(a, b):
        return a == b, a.replace("\ufffd", "") == b.replace("\ufffd", "")
    same_off = [same(o["text"], t["text"]) for o, t in zip(ours_runs, peer_runs)]
    same_fa = [same(o["text"], t["text"]) for o, t in zip(ours_runs, fa_runs)]
    eog = sorted({i for r in peer_runs + fa_runs for i in r["eog_at"]})

    medians = [(statistics.median(r["ttft_s"] for r in side) * 1000,
                statistics.median(rate(r) for r in side)) for side in runs]
    (ours_ttft, ours_tps), (peer_ttft, peer_tps), (fa_ttft, fa_tps) = medians
    sys_version = crate_version("llama-cpp-sys-2")
    crate_src = crate_llama_cpp(sys_version)
    named, compared = sdist_provenance(python, peer["version"], crate_src)

    # ---- the figures
    print(f"bench-llama: {Path(model).name} ({Path(model).stat().st_size / 1e9:.2f} GB, Q8_0, "
          f"random weights), {THREADS} threads, n_ctx {CTX}, greedy; prompt "
          f"{ours_runs[0]['prompt_tokens']} tokens, {TOKENS} generated; medians of {RUNS} runs "
          f"after a warm-up")
    print(f"  load average {load_before[0]:.2f} before, {load_after[0]:.2f} after "
          f"({os.cpu_count()} cores)")
    print()
    steady = [steady_rate(side) for side in runs]
    print(f"  {'':42}{'first token':>12}{'generation':>16}{'steady':>8}   per run (tok/s)")
    names = ["Tessera worker, HTTP stream on loopback", "llama-cpp-python, in-process",
             "llama-cpp-python, flash_attn=True"]
    for name, side, (ttft, tps), calm in zip(names, runs, medians, steady):
        each = " ".join(f"{rate(r):6.2f}" for r in side)
        print(f"  {name:42}{ttft:9.0f} ms{tps:10.2f} tok/s{calm:8.2f}   {each}")
    print("  (generation: (tokens - 1) / first to last token, median of the runs; steady: 1 / the "
          "median time between two tokens of all runs)")
    print()
    verdict = "met" if ours_tps / peer_tps >= 0.95 else "MISSED"
    print(f"  Tessera / llama-cpp-python (flash attention off on both sides, each one's default): "
          f"{ours_tps / peer_tps:.3f} of the tokens/s (target >= 0.95: {verdict}), first token "
          f"{ours_ttft - peer_ttft:+.0f} ms; steady {steady[0] / steady[1]:.3f}")
    print(f"  Tessera / llama-cpp-python with flash_attn=True (llama.cpp's own default on a CPU): "
          f"{ours_tps / fa_tps:.3f} of the tokens/s, first token {ours_ttft - fa_ttft:+.0f} ms; "
          f"steady {steady[0] / steady[2]:.3f}")
    print()
    split = worker_split(worker_log)
    if split:
        print("  the worker's own split of its time, medians of the runs (its log, TESSERA_LOG=info): "
              f"prompt read in {split['prefill_ms']:.0f} ms; per generated token "
              f"{split['decode_ms']:.2f} ms in llama_decode, {split['sample_ms']:.3f} ms sampling, "
              f"{split['other_ms']:.3f} ms the rest (text pieces, the channel to the HTTP side)")
    print()
    print("  per run: prompt tokens, of them from the cache, generated, first token (ms)")
    for i in range(RUNS):
        cells = []
        for side in runs:
            r = side[i]
            finish = f" ({r['finish']})" if "finish" in r else ""
            cells.append(f"{r['prompt_tokens']}, {r['cached_tokens']}, {r['tokens']}{finish}, "
                         f"{r['ttft_s'] * 1000:.0f}")
        print(f"    run {i + 1}: " + " | ".join(cells))
    print(f"  the worker's greedy answer is llama-cpp-python's (flash attention off) in "
          f"{sum(x for x, _ in same_off)}/{RUNS} runs as text, {sum(y for _, y in same_off)}/{RUNS} "
          f"once its U+FFFD are left out; with flash_attn=True (other sums, other argmax) in "
          f"{sum(x for x, _ in same_fa)}/{RUNS}, {sum(y for _, y in same_fa)}/{RUNS}")
    for i, (o, t) in enumerate(zip(ours_runs, peer_runs), 1):
        if o["text"] != t["text"]:
            print(f"    run {i}, worker | llama-cpp-python, first difference "
                  f"{first_difference(o['text'], t['text'])}")
    print(f"  EOS among llama-cpp-python's first {TOKENS} tokens: "
          f"{'at ' + str(eog) if eog else 'none'}")
    print()
    print(f"  worker while loaded (alone): RSS {mib(worker_mem['Rss'])}, "
          f"PSS {mib(worker_mem['Pss'])} = anonymous {mib(worker_mem.get('Pss_Anon', 0))} "
          f"+ file (the mapped model) "
          f"{mib(worker_mem.get('Pss_File', 0))}")
    print(f"  llama-cpp-python process (flash attention off): RSS {mib(peer_mem['Rss'])}, "
          f"anonymous {mib(peer_mem.get('Anonymous', 0))}")
    print(f"  unload: stdin closed -> the worker exited with {code} in {exit_ms:.0f} ms; "
          f"/proc/{worker_proc.pid} {'is gone' if gone else 'IS STILL THERE'}")
    print(f"  load: the worker ready in {worker_load:.2f} s (process start to its JSON line); "
          f"Llama() in {peer['load_s']:.2f} s")
    print()
    print("  llama.cpp on each side")
    print(f"    Tessera worker: llama-cpp-2 {crate_version('llama-cpp-2')}, llama-cpp-sys-2 "
          f"{sys_version} (llama.cpp b9553, 9e3b928fd); {worker_build(worker)}")
    print(f"    llama-cpp-python {peer['version']}: its CHANGELOG names llama.cpp@{named}; "
          f"its ggml_commit() says {peer['ggml_commit']}")
    if compared is not None:
        print(f"    its vendored llama.cpp beside llama-cpp-sys-2 {sys_version}'s (ggml, ggml-cpu, "
              f"src, include): {compared[0]} files identical, {compared[1]} differ")
    print(f"    llama-cpp-python llama_print_system_info(): {peer['system_info']}")
    print(f"    llama-cpp-python flash_attn_type {peer['flash_attn_type']} as stated, "
          f"{fa_peer['flash_attn_type']} with flash_attn=True (-1 auto, 0 off, 1 on)")
    wanted = (r"system_info|CPU : |model buffer size|KV buffer size|compute buffer|Flash Attention"
              r"|attention chosen")
    info = [line.split("llama-cpp-2: ", 1)[-1].split(" module=", 1)[0].strip()
            for line in worker_log.splitlines() if re.search(wanted, line)]
    if not any("system_info" in line or "CPU : " in line for line in info):
        info.insert(0, "(llama.cpp logs no system info line here: only llama_print_system_info() "
                       "makes it, and the worker does not call it)")
    print("    the worker's llama.cpp log (TESSERA_LOG=info):")
    for line in info:
        print(f"      {line[:160]}")
    print()
    print("  commands")
    print(f"    TESSERA_LLAMA_TOKEN=… TESSERA_LOG=info {worker} {model} --ctx {CTX} "
          f"--threads {THREADS} --port 0")
    print("      POST /v1/chat/completions {stream: true, stream_options: {include_usage: "
          f"true}}, max_tokens: {TOKENS}, temperature: 0, messages: [one user message]}}")
    print(f"    {python} bench/llama/python_side.py:")
    print(f"      Llama(model_path=…, n_ctx={CTX}, n_batch=512, n_ubatch=512, "
          f"n_threads={THREADS}, n_threads_batch={THREADS}, seed=0, verbose=False"
          "[, flash_attn=True])")
    print("      llm.generate(llm.tokenize(the rendered prompt, add_bos=True, special=True), "
          f"temp=0.0, top_k=1, top_p=1.0, min_p=0.0, repeat_penalty=1.0, reset=True): "
          f"the first {TOKENS} tokens")
    for problem in problems:
        print(f"  PROBLEM: {problem}")
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
