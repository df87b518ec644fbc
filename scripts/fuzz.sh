#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets) for FUZZ_SECONDS each (default 600: about two hours
# in all) with cargo-fuzz on nightly, installing what is missing, and prints a line per target:
# executions, coverage, corpus size, crashes. New inputs go to a scratch corpus beside the
# build, not to the repository; a crash is written to fuzz/artifacts/<target>/ and ends the run
# with exit code 1 (fix it, then add the input to fuzz/corpus/<target>/ so `make test` replays
# it for good).
#
#   scripts/fuzz.sh                 every target
#   FUZZ_SECONDS=60 scripts/fuzz.sh condition selector
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SECONDS_EACH="${FUZZ_SECONDS:-600}"
SCRATCH="${CARGO_TARGET_DIR:-$ROOT/target}/fuzz-corpus"

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "==> installing the nightly toolchain (cargo-fuzz needs it)"
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "==> installing cargo-fuzz 0.13.1"
  cargo install cargo-fuzz --version 0.13.1
fi

targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  mapfile -t targets < <(ls fuzz/fuzz_targets | sed 's/\.rs$//')
fi

failed=0
summary=()
for t in "${targets[@]}"; do
  mkdir -p "$SCRATCH/$t" "fuzz/artifacts/$t"
  log="$SCRATCH/$t.log"
  echo "==> $t for ${SECONDS_EACH} s"
  status=0
  cargo +nightly fuzz run --features libfuzzer --fuzz-dir fuzz "$t" "$SCRATCH/$t" "fuzz/corpus/$t" -- \
    -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 >"$log" 2>&1 || status=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || true)
  corp=$(grep -o 'corp: [0-9]*' <<<"$last" | grep -o '[0-9]*' || true)
  crashes=$(ls "fuzz/artifacts/$t" | wc -l)
  summary+=("$(printf '%-18s %12s execs  cov %6s  corpus %6s  crashes %s' "$t" "${execs:-?}" "${cov:-?}" "${corp:-?}" "$crashes")")
  if [ "$status" -ne 0 ] || [ "$crashes" -gt 0 ]; then
    failed=1
    echo "    $t failed (exit $status): see $log and fuzz/artifacts/$t/"
    grep -E 'panicked|ERROR: libFuzzer|SUMMARY' "$log" | head -5 || true
  fi
done
echo
printf '%s\n' "${summary[@]}"
exit "$failed"
