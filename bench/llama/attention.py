"""Why the worker turns flash attention off on a CPU: the same worker, model and prompt with
`--flash-attn on` (llama.cpp's own default on a CPU, 512 tokens a micro-batch) and with its
default (off, the micro-batch sized by context_size::micro_batch), at a long context.

Each side reads the same prompt of about 2,400 tokens once, cold (timed: the prompt's read),
then answers RUNS follow-ups that differ only at its end, so each decodes TOKENS tokens after
~2,400 cached ones (timed: tokens per second). The sides alternate, so a change in the
machine's load falls on both. Prints the medians, each side's compute buffer (its log) and the
ratio.

Usage: attention.py TESSERA_LLAMA MODEL.gguf (make bench-llama-attention). RUNS (4), TOKENS (64),
REPEAT (14: how many times the bench's message makes the prompt), THREADS (2), CTX (4096).
"""

import http.client
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # noqa: E402  (the bench's client and message)

RUNS = int(os.environ.get("RUNS", "4"))
REPEAT = int(os.environ.get("REPEAT", "14"))
bench.TOKENS = int(os.environ.get("TOKENS", "64"))


def start(worker, model, flags):
    log = tempfile.TemporaryFile(mode="w+")
    process, ready, _ = bench.start_worker(worker, model, log, *flags)
    return process, http.client.HTTPConnection("127.0.0.1", ready["port"], timeout=900), log


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    worker, model = sys.argv[1:]
    sides = {"flash attention on, 512 a batch (--flash-attn on)": ["--flash-attn", "on"],
             "the worker's default (off)": []}
    started = {name: start(worker, model, flags) for name, flags in sides.items()}
    prefix = bench.MESSAGE * REPEAT
    cold, rates = {}, {name: [] for name in sides}
    try:
        for name, (_, conn, _) in started.items():
            cold[name] = bench.tessera_run(conn, prefix + " First.")
        names = list(started)
        for i in range(RUNS):
            order = names if i % 2 == 0 else names[::-1]
            for name in order:
                run = bench.tessera_run(started[name][1], prefix + f" Run {i + 1}.")
                rates[name].append(bench.rate(run))
    finally:
        logs = {}
        for name, (process, conn, log) in started.items():
            conn.close()
            process.stdin.close()
            process.wait(timeout=60)
            log.seek(0)
            logs[name] = re.sub(r"\x1b\[[0-9;]*m", "", log.read())
    prompt = cold[names[0]]["prompt_tokens"]
    print(f"attention: {Path(model).name}, {bench.THREADS} threads, n_ctx {bench.CTX}; a prompt of "
          f"{prompt} tokens read cold, then {RUNS} follow-ups of {bench.TOKENS} tokens each after "
          f"it (cached)")
    print(f"  {'':52}{'prompt read':>12}{'decode':>13}   per run (tok/s)   compute buffer")
    for name in names:
        buffer = re.findall(r"compute buffer size =\s*([0-9.]+ MiB)", logs[name])
        chosen = re.search(r"attention chosen .*n_ubatch=(\d+)", logs[name])
        label = name + (f" ({chosen.group(1)} a batch)" if chosen and not sides[name] else "")
        each = " ".join(f"{r:5.2f}" for r in rates[name])
        print(f"  {label:52}{cold[name]['ttft_s']:10.1f} s{statistics.median(rates[name]):8.2f} "
              f"tok/s   {each}   {buffer[-1] if buffer else '?'}")
    on, off = (statistics.median(rates[n]) for n in names)
    print(f"  decode with the worker's default / with flash attention on: {off / on:.3f}; "
          f"prompt read {cold[names[1]]['ttft_s'] / cold[names[0]]['ttft_s']:.3f} of the time")


if __name__ == "__main__":
    main()
