#!/usr/bin/env bash
# Writes a random-weight llama GGUF for the local-model tests and benches (issue 28):
#   scripts/make-test-gguf.sh OUT [--size tiny|bench] [--seed N] [--context N]
# Sets up a venv with the pinned gguf and numpy (scripts/requirements-gguf.txt) at
# ${TESSERA_GGUF_VENV:-~/.cache/tessera-gguf-venv}, installing only when the requirements changed,
# then runs scripts/make-test-gguf.py. The same arguments give the same bytes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REQ="$ROOT/scripts/requirements-gguf.txt"
VENV="${TESSERA_GGUF_VENV:-$HOME/.cache/tessera-gguf-venv}"

if [ $# -lt 1 ] || [[ "$1" == -* ]]; then
  echo "usage: $0 OUT [--size tiny|bench] [--seed N] [--context N]" >&2
  exit 2
fi
OUT="$1"
shift

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Tests may run this in parallel: one setup at a time.
mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
command -v flock >/dev/null && flock 9

if [ ! -x "$VENV/bin/python" ] || [ ! -x "$VENV/bin/pip" ]; then
  if ! python3 -c 'import ensurepip' 2>/dev/null; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >&2
  fi
  if [ -e "$VENV" ] && [ ! -f "$VENV/pyvenv.cfg" ]; then
    echo "make-test-gguf: $VENV exists and is not a venv; set TESSERA_GGUF_VENV elsewhere" >&2
    exit 1
  fi
  python3 -m venv --clear "$VENV" >&2
fi

stamp="$VENV/.tessera-requirements.sha256"
want="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "make-test-gguf: installing scripts/requirements-gguf.txt into $VENV" >&2
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQ" >&2
  echo "$want" >"$stamp"
fi

exec 9>&- # release the lock
exec "$VENV/bin/python" "$ROOT/scripts/make-test-gguf.py" --out "$OUT" "$@"
