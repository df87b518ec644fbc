"""A fixed OpenAI-compatible provider for the command-line bench: every
POST .../chat/completions gets the same streamed answer, `DELTAS` deltas of
one word each (a one-word answer when DELTAS=1), written in one go from
bytes built at start. GET .../models lists one model; a base URL of `/d/N/v1` answers N deltas. A
person's message `call TOOL xN` is answered with N calls of TOOL, at most 250
per answer (for bench/mcp), then with one word. Prints
`Listening on http://127.0.0.1:PORT/v1` and serves until killed.

The same bytes go to every client the bench measures (curl, tessera chat,
openai-python, the Vercel AI SDK), so the figures compare what each does
with them.
"""

import json
import os
import socket
import sys
import threading

MODEL = "bench"


def chunk(delta, finish=None):
    return "data: " + json.dumps({
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }, separators=(",", ":")) + "\n\n"


def answer(deltas):
    parts = [chunk({"role": "assistant", "content": ""})]
    for i in range(deltas):
        parts.append(chunk({"content": "word" if deltas == 1 else f" w{i}"}))
    parts.append(chunk({}, "stop"))
    parts.append("data: " + json.dumps({
        "id": "chatcmpl-bench", "object": "chat.completion.chunk",
        "created": 1700000000, "model": MODEL, "choices": [],
        "usage": {"prompt_tokens": 5, "completion_tokens": deltas, "total_tokens": deltas + 5},
    }, separators=(",", ":")) + "\n\n")
    parts.append("data: [DONE]\n\n")
    body = "".join(parts).encode()
    head = (
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode()
    return head + body


def tool_calls(n, tool, first=0):
    """An answer calling `tool` n times (`{"message": "mI"}`), in one chunk."""
    calls = [
        {"index": i, "id": f"call_{first + i}", "type": "function",
         "function": {"name": tool, "arguments": json.dumps({"message": f"m{first + i}"})}}
        for i in range(n)
    ]
    body = (
        chunk({"role": "assistant", "content": None, "tool_calls": calls})
        + chunk({}, "tool_calls")
        + "data: [DONE]\n\n"
    ).encode()
    return (
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


# An answer holds at most 256 tool calls (tessera-providers' limit): more come in rounds.
CALLS_PER_ANSWER = 250


def asked_calls(body):
    """`(calls, tool, first)`: the next round of calls when the person's message says `call
    TOOL xN` and fewer than N calls have been answered."""
    try:
        messages = json.loads(body).get("messages", [])
    except ValueError:
        return None
    asked = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    if asked is None:
        return None
    words = str(asked.get("content", "")).split()
    if len(words) != 3 or words[0] != "call" or not words[2].startswith("x"):
        return None
    wanted = int(words[2][1:])
    done = sum(1 for m in messages if m.get("role") == "tool")
    if done >= wanted:
        return None
    return min(CALLS_PER_ANSWER, wanted - done), words[1], done


def models():
    body = json.dumps({"object": "list", "data": [{"id": MODEL, "object": "model"}]}).encode()
    return (
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(65536)
        if not more:
            return None, b""
        data += more
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        more = conn.recv(65536)
        if not more:
            break
        rest += more
    return head.split(b"\r\n", 1)[0].decode("latin-1"), rest


def serve(conn, answers):
    with conn:
        line, body = read_request(conn)
        if line is None:
            return
        method, path, _ = line.split(" ", 2)
        if method == "GET" and path.endswith("/models"):
            conn.sendall(models())
            return
        asked = asked_calls(body)
        if asked:
            conn.sendall(tool_calls(*asked))
            return
        # A base URL of `/d/N/v1` picks an answer of N deltas.
        size = int(os.environ.get("DELTAS", "1"))
        if path.startswith("/d/"):
            size = int(path.split("/")[2])
        if size not in answers:
            answers[size] = answer(size)
        conn.sendall(answers[size])


def main():
    sizes = [int(s) for s in sys.argv[1:]] or [1]
    answers = {n: answer(n) for n in sizes}
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    print(f"Listening on http://127.0.0.1:{listener.getsockname()[1]}/v1", flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, answers), daemon=True).start()


if __name__ == "__main__":
    main()
