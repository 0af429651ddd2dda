#!/usr/bin/env bash
# One `ndnlab perf` exchange rate at a given window: a fresh `ndnlab fwd` on a Unix
# socket, `ndnlab perf server --payload 100` (DigestSha256), `ndnlab perf client
# --window W --duration S`. Prints "<Data/s> data/s rtt_avg <ms> ms". Run two
# binaries in turn to compare them (docs/BENCHMARKS.md, "Small windows"):
#
#   for r in 1 2; do for b in OLD NEW; do scripts/perf-window.sh $b 1 3; done; done
set -euo pipefail
bin=$1 window=$2 secs=$3
d=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$d"' EXIT
"$bin" fwd --socket "$d/nfd.sock" > "$d/fwd.log" 2>&1 &
for _ in $(seq 100); do [ -S "$d/nfd.sock" ] && break; sleep 0.05; done
"$bin" perf server --socket "$d/nfd.sock" --prefix /ab --payload 100 > "$d/srv.log" 2>&1 &
sleep 0.5
"$bin" perf client --socket "$d/nfd.sock" --prefix /ab --window "$window" --duration "$secs" 2>&1 \
    | tail -1 \
    | sed -E 's/^([0-9]+) Data.*avg\/max = [0-9.]+\/([0-9.]+)\/.*/\1 \2/' \
    | awk -v s="$secs" '{printf "%.0f data/s rtt_avg %.3f ms\n", $1/s, $2}'
