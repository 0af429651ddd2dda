#!/usr/bin/env bash
# Cost of the per-face PIT bound: `ndnlab perf client` against `ndnlab perf server`
# through one `ndnlab fwd`, with `[limits] pit_max_entries_per_face` at its default
# (262144, "on") and at 0 ("off"), interleaved (on, off, on, off, ...) so that a
# shared machine's drift falls on both alike. Prints one line per run and the
# median Data/s of each setting with the ratio off/on, and the CPU model.
#
#   scripts/pit-limit-ab.sh [BIN] [ROUNDS] [SECS] [PAYLOAD] [WINDOW]
set -euo pipefail
BIN=${1:-target/release/ndnlab}
ROUNDS=${2:-5}
SECS=${3:-5}
PAYLOAD=${4:-100}
WINDOW=${5:-256}
dir=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT
lscpu | grep 'Model name' || true
run_one() { # $1 = on|off
    local per_face=262144
    [ "$1" = off ] && per_face=0
    rm -f "$dir/nfd.sock"
    cat > "$dir/fwd.toml" <<TOML
[faces.unix]
path = "$dir/nfd.sock"
[limits]
pit_max_entries_per_face = $per_face
TOML
    "$BIN" fwd --config "$dir/fwd.toml" > "$dir/fwd.log" 2>&1 &
    local fwd=$!
    pids=("$fwd")
    for _ in $(seq 100); do [ -S "$dir/nfd.sock" ] && break; sleep 0.1; done
    "$BIN" perf server --socket "$dir/nfd.sock" --prefix /ab --payload "$PAYLOAD" \
        > "$dir/server.log" 2>&1 &
    local srv=$!
    pids+=("$srv")
    # wait until the server answers
    for _ in $(seq 50); do
        "$BIN" perf client --socket "$dir/nfd.sock" --prefix /ab --duration 0.2 --interval 0.2 \
            --json > /dev/null 2>&1 && break
        sleep 0.1
    done
    "$BIN" perf client --socket "$dir/nfd.sock" --prefix /ab --duration "$SECS" --interval "$SECS" \
        --window "$WINDOW" --flows 2 --json > "$dir/client.json" 2> "$dir/client.err"
    python3 - "$1" "$dir/client.json" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[2]) if l.startswith('{')]
s = [x for x in s if x.get('type') == 'summary'][-1]
print(f"{sys.argv[1]} data_per_s {s['data_per_s']:.0f} mbps {s['mbps']:.1f}", flush=True)
PY
    kill "$srv" "$fwd" 2>/dev/null || true
    wait "$srv" "$fwd" 2>/dev/null || true
    pids=()
}
for r in $(seq "$ROUNDS"); do
    for mode in on off; do
        run_one "$mode" | tee -a "$dir/runs.txt"
    done
done
python3 - "$dir/runs.txt" <<'PY'
import statistics, sys
runs = {}
for l in open(sys.argv[1]):
    mode, _, v, *_ = l.split()
    runs.setdefault(mode, []).append(float(v))
on, off = statistics.median(runs['on']), statistics.median(runs['off'])
print(f"median Data/s: bound on {on:.0f}, off {off:.0f}; off/on = {off / on:.3f} over {len(runs['on'])} rounds")
PY
