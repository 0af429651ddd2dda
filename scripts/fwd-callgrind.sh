#!/usr/bin/env bash
# Instructions per exchange of `ndnlab fwd` under `ndnlab bench fwd`'s Unix load,
# counted by callgrind over a fixed number of exchanges.
#
#   scripts/fwd-callgrind.sh BINARY OUT [WARMUP] [COUNT] [-- FWD_ARGS...]
#
# Starts `BINARY fwd --log-level warn --threads 1 --socket S --tcp 127.0.0.1:0
# --udp 127.0.0.1:0 FWD_ARGS...` (the forwarder `bench fwd` starts) under
# `valgrind --tool=callgrind --collect-systime=nsec`, then the fixed-count load
# generator (`cargo build --release -p ndnlab-fwd --example fixed_load`; its path
# in $FIXED_LOAD, default target/release/examples/fixed_load) with PAYLOAD
# (default 100), WINDOW (4096) and POOL (8192) from the environment. After WARMUP
# exchanges (default 50,000), drained to none in flight, the counts are zeroed
# (`callgrind_control -z`); after COUNT more (default 200,000), drained again, they
# are dumped (`callgrind_control -d`) to OUT. The forwarder is idle at both points,
# so OUT holds the COUNT exchanges and whatever its timers ran meanwhile. Prints
# OUT's total instructions, instructions per exchange, and system calls per
# exchange. Extra environment for the forwarder: FWD_ENV="K=V K2=V2".
set -euo pipefail
bin=$1 out=$2 warm=${3:-50000} count=${4:-200000}
shift $(($# < 4 ? $# : 4))
[[ ${1:-} == -- ]] && shift
load=${FIXED_LOAD:-target/release/examples/fixed_load}
dir=$(mktemp -d /tmp/fwd-callgrind.XXXXXX)
sock=$dir/nfd.sock
# shellcheck disable=SC2086
env ${FWD_ENV:-} valgrind --tool=callgrind --collect-systime=nsec \
    --callgrind-out-file="$dir/cg.out" \
    "$bin" fwd --log-level warn --threads 1 --socket "$sock" \
    --tcp 127.0.0.1:0 --udp 127.0.0.1:0 "$@" >"$dir/fwd.out" 2>"$dir/fwd.err" &
vg=$!
trap 'kill -TERM $vg 2>/dev/null || true; wait $vg 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 600); do
    grep -q 'ndnlab fwd: ready' "$dir/fwd.out" 2>/dev/null && break
    kill -0 $vg 2>/dev/null || { cat "$dir/fwd.err" >&2; exit 1; }
    sleep 0.1
done
grep -q 'ndnlab fwd: ready' "$dir/fwd.out" || { echo "fwd-callgrind: forwarder not ready" >&2; exit 1; }
"$load" --socket "$sock" --payload "${PAYLOAD:-100}" --window "${WINDOW:-4096}" \
    --pool "${POOL:-8192}" --warmup "$warm" --count "$count" \
    --before "callgrind_control -z $vg >/dev/null" \
    --after "callgrind_control -d $vg >/dev/null" >"$dir/load.json"
dump=$(ls "$dir"/cg.out.* | head -n1)
cp "$dump" "$out"
python3 - "$out" "$count" "$dir/load.json" <<'EOF'
import json, sys
path, count = sys.argv[1], int(sys.argv[2])
events, totals = [], None
for line in open(path):
    if line.startswith("events:"):
        events = line.split()[1:]
    elif line.startswith("summary:") and totals is None:
        totals = [int(x) for x in line.split()[1:]]
t = dict(zip(events, totals))
load = json.load(open(sys.argv[3]))
print(json.dumps({
    "out": path, "exchanges": count, "nacks": load["nacks"],
    "instructions": t.get("Ir"), "instructions_per_exchange": round(t["Ir"] / count, 1),
    "syscalls_per_exchange": round(t.get("sysCount", 0) / count, 4),
}))
EOF
