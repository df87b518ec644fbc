"""llama-cpp-python's side of bench/llama/run.py, run by the venv's Python (it imports llama_cpp).

Loads MODEL in-process the way the bench states, prints one JSON line of what it is (versions,
llama_print_system_info(), load time), then answers each JSON line on standard input,
{"prompt": TEXT, "n": N}, with one JSON line: the prompt's tokens, the time to the first
generated token and the times of all N. It exits when standard input closes.

Usage: python_side.py MODEL.gguf N_CTX THREADS [--flash-attn]
(--flash-attn: Llama(flash_attn=True), the setting llama.cpp's own default, auto, takes on a CPU
and so the worker's; without it llama-cpp-python turns flash attention off.)
"""

import ctypes
import json
import sys
import time
from importlib.metadata import version
from pathlib import Path

import llama_cpp
from llama_cpp import Llama


def ggml_commit():
    """The commit ggml was built from, as its CMake found it (ggml_commit() of libggml-base)."""
    lib = Path(llama_cpp.__file__).parent / "lib" / "libggml-base.so"
    try:
        base = ctypes.CDLL(str(lib))
        base.ggml_commit.restype = ctypes.c_char_p
        return base.ggml_commit().decode()
    except (OSError, AttributeError):
        return "unknown"


def common_prefix(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def main():
    model, n_ctx, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    extra = {"flash_attn": True} if "--flash-attn" in sys.argv[4:] else {}
    started = time.perf_counter()
    llm = Llama(model_path=model, n_ctx=n_ctx, n_batch=512, n_ubatch=512, n_threads=threads,
                n_threads_batch=threads, seed=0, verbose=False, **extra)
    load_s = time.perf_counter() - started
    vocab = llm._model.vocab
    print(json.dumps({
        "version": version("llama-cpp-python"),
        "ggml_commit": ggml_commit(),
        "system_info": llama_cpp.llama_print_system_info().decode().strip(),
        "flash_attn_type": int(llm.context_params.flash_attn_type),
        "load_s": load_s,
    }), flush=True)
    for line in sys.stdin:
        ask = json.loads(line)
        n = ask["n"]
        start = time.perf_counter()
        tokens = llm.tokenize(ask["prompt"].encode(), add_bos=True, special=True)
        # What generate() keeps of the last prompt and answer in the KV cache (its prefix match).
        reused = common_prefix(llm._input_ids.tolist(), tokens[:-1])
        got, times = [], []
        # generate() never stops on EOS: the first N tokens are counted, whatever they are.
        for token in llm.generate(tokens, temp=0.0, top_k=1, top_p=1.0, min_p=0.0,
                                  repeat_penalty=1.0, reset=True):
            times.append(time.perf_counter())
            got.append(token)
            if len(got) == n:
                break
        print(json.dumps({
            "prompt_tokens": len(tokens),
            "cached_tokens": reused,
            "ttft_s": times[0] - start,
            "first_to_last_s": times[-1] - times[0],
            "tokens": len(got),
            "gaps_s": [b - a for a, b in zip(times, times[1:])],
            "eog_at": [i for i, t in enumerate(got) if llama_cpp.llama_vocab_is_eog(vocab, t)],
            "text": llm.detokenize(got).decode("utf-8", "replace"),
        }), flush=True)


if __name__ == "__main__":
    main()
