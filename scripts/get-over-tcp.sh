#!/usr/bin/env bash
# Retransmissions, congestion marks and goodput of `ndnlab get` (CUBIC) through one
# forwarder over TCP faces, as ndncatchunks users measure them.
#
#   scripts/get-over-tcp.sh [BIN] [SIZE_MB] [ROUNDS] [OLD_BIN]
#
# Starts `BIN fwd` with a TCP listener on loopback, publishes SIZE_MB of random
# bytes with `BIN put` over TCP, and fetches them ROUNDS times with
# `BIN get --pipeline cubic` over TCP (a fresh forwarder each round, so nothing
# comes from its Content Store). With OLD_BIN, each round runs OLD_BIN's forwarder
# too, interleaved with BIN's (the same put and get binary for both), and prints
# both. Prints one line per run and the medians.
set -euo pipefail
BIN=${1:-target/release/ndnlab}
SIZE_MB=${2:-64}
ROUNDS=${3:-5}
OLD=${4:-}
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
head -c $((SIZE_MB << 20)) /dev/urandom > "$dir/file"
port=$((20000 + RANDOM % 20000))

run() { # forwarder binary, label
    local fwd=$1 label=$2
    cat > "$dir/fwd.toml" <<TOML
[faces.unix]
path = "$dir/nfd.sock"
[faces.tcp]
listen = ["127.0.0.1:$port"]
TOML
    "$fwd" fwd --config "$dir/fwd.toml" --log-level warn > "$dir/fwd.out" &
    local fpid=$!
    for _ in $(seq 100); do grep -q "ready" "$dir/fwd.out" 2>/dev/null && break; sleep 0.05; done
    "$BIN" put --socket "tcp://127.0.0.1:$port" --quiet /getbench "$dir/file" &
    local ppid=$!
    for _ in $(seq 200); do
        "$BIN" ctl --socket "$dir/nfd.sock" route list 2>/dev/null | grep -q /getbench && break
        sleep 0.05
    done
    "$BIN" get --socket "tcp://127.0.0.1:$port" --pipeline cubic --json --quiet \
        -o /dev/null /getbench > "$dir/get.json"
    kill $ppid $fpid 2>/dev/null; wait $ppid $fpid 2>/dev/null || true
    python3 - "$label" "$dir/get.json" >> "$dir/results" <<'PY'
import json, sys
label, path = sys.argv[1], sys.argv[2]
s = json.loads(open(path).read().strip().splitlines()[-1])
print(label, s["goodput_mbps"], s["retransmissions"], s["congestion_marks"], s["timeouts"],
      sep="\t")
PY
    tail -1 "$dir/results"
    port=$((port + 1))
}

lscpu | grep 'Model name' || true
printf 'forwarder\tgoodput_mbps\tretransmissions\tmarks\ttimeouts\n'
for _ in $(seq "$ROUNDS"); do
    [ -n "$OLD" ] && run "$OLD" old
    run "$BIN" new
done
python3 - "$dir/results" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
for label in sorted({r[0] for r in rows}):
    rs = [r for r in rows if r[0] == label]
    med = lambda i: statistics.median(float(r[i]) for r in rs)
    print(f"median {label}: goodput {med(1):.0f} Mbit/s, retransmissions {med(2):.0f}, "
          f"marks {med(3):.0f}, timeouts {med(4):.0f} ({len(rs)} runs)")
PY
