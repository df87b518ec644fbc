"""Embedding throughput: Tessera's worker (`POST /v1/embeddings` over HTTP on loopback) beside
llama-cpp-python in-process (Llama(embedding=True).embed(), PyPI, pinned: the same llama.cpp
commit), on the same GGUF and the same texts, in one run.

Each side embeds BATCHES batches of BATCH texts (32) of about TOKENS tokens (200), after a
warm-up batch; it prints, per side, the median inputs/s and prompt tokens/s over the batches,
then the worker's ratio to llama-cpp-python, and how close the two sides' vectors of the first
text are (cosine: the same llama.cpp pools the same tokens). Both sides read with the same
context: llama-cpp-python is given the worker's embeddings context (`n_ctx_embed` of its
/v1/models) as n_ctx, n_batch and n_ubatch (so both pack as many texts into a decode), mean
pooling (the worker's for a model that names none), flash attention off (the worker's on a CPU)
and THREADS threads (2).

Usage: embeddings.py TESSERA_LLAMA PYTHON_WITH_LLAMA_CPP MODEL.gguf, set up as for `make
bench-llama` (its native worker, its venv, its model), e.g.
  python3 bench/llama/embeddings.py ~/.cache/tessera-llama-target/native/release/tessera-llama \\
    ~/.cache/tessera-llama-bench-venv/bin/python ~/.cache/tessera-llama-target/bench.gguf
The venv's Python runs this file again with --python-side (it imports llama_cpp).
"""

import http.client
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BATCH = int(os.environ.get("BATCH", "32"))
BATCHES = int(os.environ.get("BATCHES", "3"))
TOKENS = int(os.environ.get("TOKENS", "200"))
THREADS = int(os.environ.get("THREADS", "2"))
TOKEN = "bench-llama-embeddings-0123456789abcdef"

WORDS = (
    "the note file project search index chunk vector model local worker answer question time "
    "city weather list query result write read plan week code function test build error path "
    "name type value small large first last every other some many each when where which while"
).split()


def python_side(model, n_ctx, threads):
    """Runs in the venv: answers each JSON line {"texts": [...]} with the time to embed them."""
    import llama_cpp
    from importlib.metadata import version

    llm = llama_cpp.Llama(model_path=model, embedding=True, n_ctx=n_ctx, n_batch=n_ctx,
                          n_ubatch=n_ctx, n_threads=threads, n_threads_batch=threads,
                          pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN, verbose=False)
    print(json.dumps({"version": version("llama-cpp-python"),
                      "system_info": llama_cpp.llama_print_system_info().decode().strip()}),
          flush=True)
    for line in sys.stdin:
        texts = json.loads(line)["texts"]
        start = time.perf_counter()
        vectors, tokens = llm.embed(texts, normalize=False, truncate=False, return_count=True)
        took = time.perf_counter() - start
        print(json.dumps({"s": took, "tokens": tokens, "first": vectors[0]}), flush=True)


def texts(rng, n, chars):
    out = []
    for _ in range(n):
        words = []
        while sum(len(w) + 1 for w in words) < chars:
            words.append(rng.choice(WORDS))
        out.append(" ".join(words)[:chars])
    return out


def post(conn, body):
    conn.request("POST", "/v1/embeddings", body=json.dumps(body), headers={
        "authorization": f"Bearer {TOKEN}", "content-type": "application/json"})
    answer = conn.getresponse()
    data = answer.read()
    if answer.status != 200:
        sys.exit(f"embeddings bench: the worker answered {answer.status}: {data[:2000]!r}")
    return json.loads(data)


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def main():
    if sys.argv[1:2] == ["--python-side"]:
        python_side(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    worker, python, model = sys.argv[1:4]
    log = tempfile.TemporaryFile(mode="w+")
    env = {**os.environ, "TESSERA_LLAMA_TOKEN": TOKEN, "TESSERA_LOG": "info"}
    process = subprocess.Popen([worker, model, "--threads", str(THREADS), "--port", "0"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                               env=env, text=True)
    line = process.stdout.readline()
    if not line:
        log.seek(0)
        sys.exit(f"embeddings bench: the worker ended before it was ready:\n{log.read()[-3000:]}")
    ready = json.loads(line)
    conn = http.client.HTTPConnection("127.0.0.1", ready["port"], timeout=3600)
    conn.request("GET", "/v1/models", headers={"authorization": f"Bearer {TOKEN}"})
    n_ctx = json.loads(conn.getresponse().read())["data"][0]["meta"]["n_ctx_embed"]

    # Characters per token of this vocabulary, from one long text, for texts of ~TOKENS tokens.
    rng = random.Random(0)
    probe = texts(rng, 1, 2000)[0]
    per_char = post(conn, {"input": probe})["usage"]["prompt_tokens"] / len(probe)
    chars = max(1, int(TOKENS / per_char))
    batches = [texts(rng, BATCH, chars) for _ in range(BATCHES + 1)]

    worker_runs = []
    for i, batch in enumerate(batches):
        start = time.perf_counter()
        answer = post(conn, {"model": "bench", "input": batch, "encoding_format": "float"})
        took = time.perf_counter() - start
        assert len(answer["data"]) == len(batch)
        if i == 0:
            worker_first = answer["data"][0]["embedding"]
        else:
            worker_runs.append((took, answer["usage"]["prompt_tokens"]))
    rss = next(int(l.split()[1]) for l in Path(f"/proc/{process.pid}/status").read_text()
               .splitlines() if l.startswith("VmRSS:"))
    process.stdin.close()
    process.wait(timeout=30)

    side = subprocess.Popen([python, __file__, "--python-side", model, str(n_ctx), str(THREADS)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    about = json.loads(side.stdout.readline())
    python_runs = []
    for i, batch in enumerate(batches):
        side.stdin.write(json.dumps({"texts": batch}) + "\n")
        side.stdin.flush()
        got = json.loads(side.stdout.readline())
        if i == 0:
            python_first = got["first"]
        else:
            python_runs.append((got["s"], got["tokens"]))
    side.stdin.close()
    side.wait(timeout=60)

    def figures(runs):
        inputs_s = statistics.median(BATCH / s for s, _ in runs)
        tokens_s = statistics.median(t / s for s, t in runs)
        return inputs_s, tokens_s, runs[0][1] / BATCH

    w, p = figures(worker_runs), figures(python_runs)
    print(f"embeddings: {Path(model).name}, {BATCHES} batches of {BATCH} texts "
          f"(after a warm-up batch), {THREADS} threads, context {n_ctx} both sides")
    print(f"{'':20} {'inputs/s':>10} {'tokens/s':>10} {'tokens/text':>12}")
    print(f"{'tessera-llama':20} {w[0]:10.2f} {w[1]:10.1f} {w[2]:12.1f}   (over HTTP, "
          f"RSS {rss / 1024:.0f} MiB)")
    print(f"{'llama-cpp-python':20} {p[0]:10.2f} {p[1]:10.1f} {p[2]:12.1f}   "
          f"({about['version']}, in-process)")
    print(f"ratio tessera/python: {w[0] / p[0]:.3f} (inputs/s)")
    print(f"cosine of the two sides' vectors of the first text: "
          f"{cosine(worker_first, python_first):.6f}")
    print(f"llama-cpp-python system info: {about['system_info']}")


if __name__ == "__main__":
    main()
