#!/usr/bin/env bash
# Runs every cargo-fuzz target of fuzz/ one after the other (one process, one core
# each), SECONDS each (default 30), or until RUNS executions when RUNS is given.
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
#
#   scripts/fuzz.sh              # 30 s per target (CI / nightly job)
#   scripts/fuzz.sh 600 10000000 # up to 10 M executions, at most 600 s per target
#   TARGETS="packet core" scripts/fuzz.sh 60
#   SANITIZER=none scripts/fuzz.sh 3600 10000000  # no AddressSanitizer: 2-7x the executions
#
# New inputs go into fuzz/corpus/<target>/, crashes into fuzz/artifacts/<target>/.
# Prints one line per target: executions, seconds, exec/s, corpus size, outcome.
# Exits non-zero if a target failed. Minimise a grown corpus with
# `cargo +nightly fuzz cmin <target> -O -a` before committing it.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
SECONDS_EACH=${1:-30}
RUNS=${2:-0}
ALL="packet lp_packet name_uri framing lp_reassembly control_parameters control_response datasets certificate key_locator_chain fwd_config experiment core"
TARGETS=${TARGETS:-$ALL}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
# AddressSanitizer (cargo-fuzz's default) guards the few `unsafe` blocks; the
# fuzzed paths are otherwise safe Rust, where `none` finds the same panics faster.
SAN=(-s "${SANITIZER:-address}")
cargo +nightly fuzz build -O --debug-assertions "${SAN[@]}" </dev/null
LOGDIR=$(mktemp -d)
status=0
printf '%-20s %12s %8s %10s %8s  %s\n' target executions seconds exec/s corpus outcome
for t in $TARGETS; do
  mkdir -p "corpus/$t" "artifacts/$t"
  log="$LOGDIR/$t.log"
  args=(-max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1)
  [ "$RUNS" != 0 ] && args+=(-runs="$RUNS")
  set +e
  cargo +nightly fuzz run "$t" -O --debug-assertions "${SAN[@]}" </dev/null -- "${args[@]}" >"$log" 2>&1
  rc=$?
  set -e
  # (a failed run prints no final stats: its count is the last status line's)
  execs=$( (grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" || grep -o '^#[0-9]*' "$log" || true) | grep -o '[0-9]*$' | tail -1)
  secs=$( (grep -o 'Done [0-9]* runs in [0-9]* second' "$log" || true) | grep -o 'in [0-9]*' | grep -o '[0-9]*' | tail -1)
  [ -z "$secs" ] && secs=$SECONDS_EACH
  rate=$(( ${execs:-0} / (secs > 0 ? secs : 1) ))
  files=$(find "corpus/$t" -type f | wc -l)
  if [ $rc -eq 0 ]; then outcome=ok; else outcome="FAILED (rc $rc, log $log)"; status=1; fi
  printf '%-20s %12s %8s %10s %8s  %s\n' "$t" "${execs:-?}" "$secs" "$rate" "$files" "$outcome"
done
exit $status
