#!/usr/bin/env bash
# Room for a build: when the disk under the build cache has less than 16 GiB free, the cache's
# incremental-compilation state goes (it grows with every checkout and only speeds rebuilds).
# A full disk once failed CI's model download ("not enough disk space") with nothing said.
set -euo pipefail
target=${CARGO_TARGET_DIR:?CARGO_TARGET_DIR is not set}
mkdir -p "$target"
free_kib=$(df -Pk "$target" | awk 'NR == 2 { print $4 }')
if [ "$free_kib" -lt $((16 * 1024 * 1024)) ]; then
  echo "disk-room: $((free_kib / 1024)) MiB free under $target: removing its incremental state"
  rm -rf "$target"/debug/incremental "$target"/release/incremental
  free_kib=$(df -Pk "$target" | awk 'NR == 2 { print $4 }')
  echo "disk-room: $((free_kib / 1024)) MiB free now"
  if [ "$free_kib" -lt $((4 * 1024 * 1024)) ]; then
    echo "disk-room: still under 4 GiB free: the suites download and build models; free some space" >&2
    exit 1
  fi
fi
