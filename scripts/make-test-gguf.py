#!/usr/bin/env python3
"""Writes a llama-architecture GGUF with random weights for Tessera's local-model tests (issue 28).

Nothing may be downloaded at test time except from package registries, so the tests build their
own model. The file has what a real chat model has, only with random weights:

- a SentencePiece ("llama") vocabulary: <unk>, <s>, </s>, the ChatML specials <|im_start|> and
  <|im_end|> (eos), <tool_call> and </tool_call> (user-defined, so they show in the output), the 256
  byte-fallback tokens <0x00>..<0xFF>, and a few hundred word pieces chosen so that ChatML and
  tool-call JSON tokenize into few tokens;
- a ChatML chat template with tools in the Qwen2.5 style (Jinja, as Hugging Face templates are);
- llama hparams, and the tensors of a llama model.

Sizes (--size):
  tiny   d 64, 2 layers, 4 heads (2 kv), ff 128, all F32: a few hundred KB, for tests.
  bench  Llama-3.2-1B's shape (d 2048, 16 layers, 32 heads, 8 kv, ff 8192), vocabulary padded to
         32000, matrices Q8_0 (norms F32): about 1.2 GB, for benchmarks. Takes about 40 s.

The same --seed gives the same bytes (with the pinned numpy and gguf of requirements-gguf.txt).

Token ids (both sizes): 0 <unk>, 1 <s> (bos), 2 </s>, 3 <|im_start|>, 4 <|im_end|> (eos, eot),
5 <tool_call>, 6 </tool_call>, 7..262 <0x00>..<0xFF>, then the word pieces.

Usage: make-test-gguf.py --size tiny --out PATH [--seed N] [--context 4096]
(scripts/make-test-gguf.sh sets up a venv with the pinned packages and runs this.)
"""

from __future__ import annotations

import argparse
import itertools
import os
import string
import sys
import time
from pathlib import Path

import numpy as np

import gguf

# --------------------------------------------------------------------------------------------------
# Vocabulary

SPECIALS = [
    ("<unk>", gguf.TokenType.UNKNOWN),
    ("<s>", gguf.TokenType.CONTROL),
    ("</s>", gguf.TokenType.CONTROL),
    ("<|im_start|>", gguf.TokenType.CONTROL),
    ("<|im_end|>", gguf.TokenType.CONTROL),
    ("<tool_call>", gguf.TokenType.USER_DEFINED),
    ("</tool_call>", gguf.TokenType.USER_DEFINED),
]
UNK_ID, BOS_ID, EOS_ID_S, IM_START_ID, IM_END_ID, TOOL_CALL_ID, TOOL_CALL_END_ID = range(7)

SP = "\u2581"  # SentencePiece's word-boundary mark: llama.cpp writes every space as this

# Words that start a word (after a space, so with a leading "▁"), and pieces that also occur with no
# space before them (after a quote, a newline or a special token). Every prefix of each piece goes
# into the vocabulary too: llama.cpp's SPM tokenizer only merges two adjacent pieces whose
# concatenation is a token, so a piece is reachable only through a chain of shorter ones.
WORDS = """
the a an and or not is are be to of in on for with it this that you your I me my we what how
can will do have get use yes no ok hello Hello hi world help please thanks sure here
assistant user system tool call result name arguments type object string number true false null
file path read write list run command text message query search echo time weather city error
""".split()

INNER = """
name arguments type object string properties required description value path query text
hello Hello world read write file echo search list run weather city time notes
What How The It I You Sure Yes No OK ok yes no
_file _name ing ed er es ly tion ment .txt .md .json
""".split()

# Whole JSON fragments that tool calls are made of (reached through their prefixes).
JSON_PIECES = [
    '{"', '":', '",', '"}', '}}', '{}', '[]', '["', '"]', '":"', '","', '"},', '},', '],',
    '": "', '", "', '": {', '": [', '": {"', '"name"', '"arguments"', '"type"', '"properties"',
    '"required"', '"description"', '"string"', '"object"', '"value"', '"path"', '"query"',
    '"text"', '"location"', '"city"', '"message"', '{"name":', '"arguments":',
]
SP_PIECES = [
    SP, SP + '{', SP + '{"', SP + '"', SP + '}', SP + '[', SP + ']', SP + '-', SP + '(', SP + '*',
    SP + SP, SP * 4, SP + '=',
]
NEWLINE_PIECES = ["\n", "\n\n", "\n\n\n", ".\n", ":\n", ",\n", "}\n", "{\n", ">\n", "\n<", "\n{"]


def _prefixes(piece: str, min_len: int) -> list[str]:
    return [piece[:n] for n in range(min_len, len(piece) + 1)]


def build_vocab(pad_to: int | None) -> tuple[list[str], list[float], list[int]]:
    """Returns (tokens, scores, types). Deterministic; raises if a string repeats."""
    tokens: list[str] = []
    scores: list[float] = []
    types: list[int] = []
    seen: set[str] = set()

    def add(tok: str, ttype: int, score: float) -> None:
        if tok in seen:
            return
        seen.add(tok)
        tokens.append(tok)
        types.append(int(ttype))
        scores.append(float(score))

    for tok, ttype in SPECIALS:
        add(tok, ttype, 0.0)
    for b in range(256):
        add(f"<0x{b:02X}>", gguf.TokenType.BYTE, 0.0)

    # NORMAL pieces. llama.cpp's SPM merge takes the highest-scoring pair first (ties: leftmost), so
    # a longer piece scores higher: whole words and JSON fragments win over their prefixes.
    normal: list[str] = []
    normal += [c for c in string.printable if c not in " \t\r\x0b\x0c"]  # printable ASCII and \n
    normal += NEWLINE_PIECES
    normal += SP_PIECES
    for w in WORDS:
        normal += _prefixes(SP + w, 2)
    for w in INNER:
        normal += _prefixes(w, 2)
    for p in JSON_PIECES:
        normal += _prefixes(p, 2)
    normal += [f"{i}" for i in range(10, 100, 10)] + ["00", "000", "100", "1000"]
    for piece in normal:
        piece = piece.replace(" ", SP)  # SPM text never has a plain space
        # Never let a word piece spell a special token or a byte token.
        assert not (piece.startswith("<") and piece.endswith(">") and len(piece) > 2), piece
        add(piece, gguf.TokenType.NORMAL, float(len(piece)))

    if pad_to is not None:
        # Filler pieces to reach a realistic vocabulary size: "▁ab", "ab", "▁abc", ... (lower score
        # than the pieces above, so they only merge where nothing else does).
        letters = string.ascii_lowercase
        def filler():
            for n in itertools.count(2):
                for combo in itertools.product(letters, repeat=n):
                    yield SP + "".join(combo)
                    yield "".join(combo)
        for piece in filler():
            if len(tokens) >= pad_to:
                break
            add(piece, gguf.TokenType.NORMAL, float(len(piece)) - 100.0)

    if len(set(tokens)) != len(tokens):  # llama.cpp aborts on duplicate token strings
        raise SystemExit("make-test-gguf: duplicate token strings in the vocabulary")
    return tokens, scores, types


# --------------------------------------------------------------------------------------------------
# Chat template: ChatML with tools the way Qwen2.5 writes them. Tools go in the system turn inside
# <tools></tools>; an assistant's tool calls are <tool_call>\n{"name": ..., "arguments": ...}\n
# </tool_call>; tool results come back as a user turn of <tool_response>...</tool_response>.
# `arguments` may be an object (rendered with tojson) or an already-encoded JSON string.

CHAT_TEMPLATE = r"""{%- set default_system = 'You are a helpful assistant.' -%}
{%- if messages | length > 0 and messages[0]['role'] == 'system' -%}
    {%- set system_message = messages[0]['content'] -%}
    {%- set loop_messages = messages[1:] -%}
{%- else -%}
    {%- set system_message = default_system -%}
    {%- set loop_messages = messages -%}
{%- endif -%}
{%- if tools -%}
    {{- '<|im_start|>system\n' + system_message -}}
    {{- '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>' -}}
    {%- for tool in tools -%}
        {{- '\n' + (tool | tojson) -}}
    {%- endfor -%}
    {{- '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' -}}
{%- else -%}
    {{- '<|im_start|>system\n' + system_message + '<|im_end|>\n' -}}
{%- endif -%}
{%- for message in loop_messages -%}
    {%- if message['role'] == 'assistant' and message['tool_calls'] is defined and message['tool_calls'] -%}
        {{- '<|im_start|>assistant' -}}
        {%- if message['content'] -%}
            {{- '\n' + message['content'] -}}
        {%- endif -%}
        {%- for tool_call in message['tool_calls'] -%}
            {%- if tool_call['function'] is defined -%}
                {%- set tool_call = tool_call['function'] -%}
            {%- endif -%}
            {{- '\n<tool_call>\n{"name": "' + tool_call['name'] + '", "arguments": ' -}}
            {%- if tool_call['arguments'] is string -%}
                {{- tool_call['arguments'] -}}
            {%- else -%}
                {{- tool_call['arguments'] | tojson -}}
            {%- endif -%}
            {{- '}\n</tool_call>' -}}
        {%- endfor -%}
        {{- '<|im_end|>\n' -}}
    {%- elif message['role'] == 'tool' -%}
        {%- if loop.first or loop_messages[loop.index0 - 1]['role'] != 'tool' -%}
            {{- '<|im_start|>user' -}}
        {%- endif -%}
        {{- '\n<tool_response>\n' + message['content'] + '\n</tool_response>' -}}
        {%- if loop.last or loop_messages[loop.index0 + 1]['role'] != 'tool' -%}
            {{- '<|im_end|>\n' -}}
        {%- endif -%}
    {%- else -%}
        {{- '<|im_start|>' + message['role'] + '\n' + (message['content'] if message['content'] else '') + '<|im_end|>\n' -}}
    {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{- '<|im_start|>assistant\n' -}}
{%- endif -%}
"""

# --------------------------------------------------------------------------------------------------
# Model

SIZES = {
    #        d     layers heads kv  ff    vocab  quantised
    "tiny": dict(d=64, n_layer=2, n_head=4, n_kv=2, ff=128, vocab=None, q8=False),
    "bench": dict(d=2048, n_layer=16, n_head=32, n_kv=8, ff=8192, vocab=32000, q8=True),
}

Q8 = gguf.GGMLQuantizationType.Q8_0
CHUNK_ROWS = 512  # rows generated and quantised at a time (keeps memory low for bench)


def tensor_plan(cfg: dict, n_vocab: int) -> list[tuple[str, tuple[int, ...], bool]]:
    """(name, numpy shape, is_norm) in file order. GGUFWriter reverses shapes to ggml's ne."""
    T, N = gguf.MODEL_TENSOR, gguf.TENSOR_NAMES
    d, h = cfg["d"], cfg["d"] // cfg["n_head"]
    q_dim, kv_dim, ff = cfg["n_head"] * h, cfg["n_kv"] * h, cfg["ff"]
    plan = [(N[T.TOKEN_EMBD] + ".weight", (n_vocab, d), False)]
    for i in range(cfg["n_layer"]):
        def name(t):
            return N[t].format(bid=i) + ".weight"
        plan += [
            (name(T.ATTN_NORM), (d,), True),
            (name(T.ATTN_Q), (q_dim, d), False),
            (name(T.ATTN_K), (kv_dim, d), False),
            (name(T.ATTN_V), (kv_dim, d), False),
            (name(T.ATTN_OUT), (d, q_dim), False),
            (name(T.FFN_NORM), (d,), True),
            (name(T.FFN_GATE), (ff, d), False),
            (name(T.FFN_UP), (ff, d), False),
            (name(T.FFN_DOWN), (d, ff), False),
        ]
    plan += [
        (N[T.OUTPUT_NORM] + ".weight", (d,), True),
        (N[T.OUTPUT] + ".weight", (n_vocab, d), False),
    ]
    return plan


def make_tensor(seed: int, index: int, shape: tuple[int, ...], is_norm: bool, q8: bool) -> np.ndarray:
    """The data for one tensor: ones for norms, N(0, 0.02) otherwise, Q8_0 bytes when q8.

    Each tensor has its own generator seeded from (seed, index), so the bytes depend only on those.
    """
    if is_norm:
        return np.ones(shape, dtype=np.float32)
    rng = np.random.default_rng([seed, index])
    rows, cols = shape
    if not q8:
        return (rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)).astype(np.float32)
    out = np.empty(gguf.quants.quant_shape_to_byte_shape(shape, Q8), dtype=np.uint8)
    for r in range(0, rows, CHUNK_ROWS):
        n = min(CHUNK_ROWS, rows - r)
        chunk = rng.standard_normal((n, cols), dtype=np.float32) * np.float32(0.02)
        out[r:r + n] = gguf.quants.quantize(chunk, Q8)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", choices=sorted(SIZES), default="tiny")
    ap.add_argument("--out", required=True, type=Path, help="the .gguf file to write")
    ap.add_argument("--seed", type=int, default=0, help="weights seed (default 0)")
    ap.add_argument("--context", type=int, default=4096, help="llama.context_length (default 4096)")
    args = ap.parse_args()
    if args.seed < 0 or args.context <= 0:
        ap.error("--seed must be >= 0 and --context > 0")

    cfg = SIZES[args.size]
    d, n_head, n_kv = cfg["d"], cfg["n_head"], cfg["n_kv"]
    assert d % n_head == 0 and n_head % n_kv == 0
    head_dim = d // n_head

    tokens, scores, types = build_vocab(cfg["vocab"])
    n_vocab = len(tokens)
    plan = tensor_plan(cfg, n_vocab)

    started = time.monotonic()
    log = lambda msg: print(f"make-test-gguf: {msg}", file=sys.stderr, flush=True)  # noqa: E731
    log(f"{args.size}: vocab {n_vocab}, d {d}, {cfg['n_layer']} layers, {n_head} heads "
        f"({n_kv} kv), ff {cfg['ff']}, {'Q8_0' if cfg['q8'] else 'F32'}, seed {args.seed}")

    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(f".{args.out.name}.{os.getpid()}.tmp")
    w = gguf.GGUFWriter(None, "llama")  # the constructor writes general.architecture
    try:
        w.add_name(f"tessera-test-{args.size}")
        w.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0 if cfg["q8"] else gguf.LlamaFileType.ALL_F32)
        w.add_context_length(args.context)
        w.add_embedding_length(d)
        w.add_block_count(cfg["n_layer"])
        w.add_feed_forward_length(cfg["ff"])
        w.add_head_count(n_head)
        w.add_head_count_kv(n_kv)
        w.add_rope_dimension_count(head_dim)
        w.add_rope_freq_base(10000.0)
        w.add_layer_norm_rms_eps(1e-5)
        w.add_vocab_size(n_vocab)

        w.add_tokenizer_model("llama")
        w.add_token_list(tokens)
        w.add_token_scores(scores)
        w.add_token_types(types)
        w.add_unk_token_id(UNK_ID)
        w.add_bos_token_id(BOS_ID)
        w.add_eos_token_id(IM_END_ID)  # <|im_end|> ends a turn
        w.add_eot_token_id(IM_END_ID)
        w.add_add_bos_token(False)  # ChatML: no <s> in front of the prompt
        w.add_add_eos_token(False)
        w.add_add_space_prefix(False)  # or llama.cpp puts a space after every special token
        w.add_chat_template(CHAT_TEMPLATE)

        for name, shape, is_norm in plan:
            if is_norm or not cfg["q8"]:
                w.add_tensor_info(name, shape, np.dtype(np.float32), 4 * int(np.prod(shape)))
            else:
                byte_shape = gguf.quants.quant_shape_to_byte_shape(shape, Q8)
                w.add_tensor_info(name, byte_shape, np.dtype(np.uint8), int(np.prod(byte_shape)), raw_dtype=Q8)

        w.write_header_to_file(tmp)
        w.write_kv_data_to_file()
        w.write_ti_data_to_file()
        for i, (name, shape, is_norm) in enumerate(plan):
            w.write_tensor_data(make_tensor(args.seed, i, shape, is_norm, cfg["q8"] and not is_norm))
            if cfg["q8"] and not is_norm:
                log(f"[{i + 1}/{len(plan)}] {name} {shape} ({time.monotonic() - started:.0f}s)")
        w.close()
        os.replace(tmp, args.out)
    except BaseException:
        w.close()
        tmp.unlink(missing_ok=True)
        raise

    size = args.out.stat().st_size
    log(f"wrote {args.out} ({size:,} bytes, {len(plan)} tensors) in {time.monotonic() - started:.1f}s; "
        f"bos {BOS_ID} <s>, eos {IM_END_ID} <|im_end|>, <tool_call> {TOOL_CALL_ID}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
