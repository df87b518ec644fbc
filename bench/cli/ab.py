"""Two builds of `tessera chat` compared per streamed delta, alternated round by round (the
order swapped every round) so that a machine whose speed drifts weighs on both alike: for each,
a fresh data folder and an existing one, (20,000 deltas - one word) / 20,000, medians.

Usage: python3 bench/cli/ab.py OLD_TESSERA NEW_TESSERA ROUNDS  (release builds; run.py's server)
"""
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402

if len(sys.argv) != 4:
    sys.exit(__doc__)
old, new, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
server, base = run.start_server()
root = base.removesuffix("/v1"); long_base = f"{root}/d/{run.DELTAS}/v1"
scratch = tempfile.mkdtemp(prefix="ab-")
res = {("old","fresh"):[],("old","existing"):[],("new","fresh"):[],("new","existing"):[]}
try:
    for name, b in (("old", old), ("new", new)):
        run.timed([b, "--data-dir", f"{scratch}/{name}-existing", "chat", "--kind", "openai", "--base-url", base, "--model", "bench", "hi"])
    for r in range(rounds):
        for name, b in (("old", old), ("new", new)) if r % 2 == 0 else (("new", new), ("old", old)):
            for folder in ("fresh", "existing"):
                d = lambda: f"{scratch}/{name}-existing" if folder == "existing" else f"{scratch}/{name}-fresh-{time.monotonic_ns()}"
                one, _, _ = run.measure(lambda i: [b, "--data-dir", d(), "chat", "--kind", "openai", "--base-url", base, "--model", "bench", "hi"], 5)
                many, _, _ = run.measure(lambda i: [b, "--data-dir", d(), "chat", "--kind", "openai", "--base-url", long_base, "--model", "bench", "hi"], 3)
                res[(name, folder)].append((many - one) / run.DELTAS * 1e6)
    for k, v in res.items():
        print(k, "median %.2f us per delta" % statistics.median(v), ["%.2f" % x for x in v])
finally:
    server.kill()
