#!/usr/bin/env bash
# `ndnlab perf` through `ndnlab fwd` against `ndnlab bench fwd`, in the same run
# (docs/BENCHMARKS.md, "Client library against the load generator").
#
# Usage: scripts/perf-vs-bench.sh [BINARY] [PAYLOAD] [ROUNDS]
#   BINARY  the ndnlab executable (default: target/release/ndnlab)
#   PAYLOAD Data content bytes (default 100; 8192 for the large-packet row)
#   ROUNDS  interleaved rounds (default 3)
# Each round runs `bench fwd --payload P` once, then a forwarder, a perf server
# (--cache, names pre-signed) and a perf client (window 4096 below 1 KB, 256 from
# 1 KB, as bench fwd chooses) for the same duration. Prints every run and the
# ratio of the medians.
set -euo pipefail
bin="${1:-target/release/ndnlab}"
payload="${2:-100}"
rounds="${3:-3}"
dur=5
if [ "$payload" -lt 1024 ]; then window=4096; else window=256; fi
names=8192
dir="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
bench=()
perf=()
for r in $(seq "$rounds"); do
    b=$("$bin" bench fwd --payload "$payload" --duration "$dur" --json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["exchanges_per_s"])')
    bench+=("$b")
    sock="$dir/nfd-$r.sock"
    "$bin" fwd --log-level warn --socket "$sock" >"$dir/fwd.log" 2>&1 &
    fwd=$!
    for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
    "$bin" perf server --socket "$sock" --payload "$payload" --cache --presign "$names" \
        --duration $((dur + 8)) --json >"$dir/server.log" 2>&1 &
    srv=$!
    sleep 2
    p=$("$bin" perf client --socket "$sock" --window "$window" --names "$names" \
        --duration "$dur" --json | tail -1 |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["data_per_s"])')
    perf+=("$p")
    kill "$srv" "$fwd" 2>/dev/null || true
    wait "$srv" "$fwd" 2>/dev/null || true
    echo "round $r: bench fwd $b exchanges/s, perf $p Data/s"
done
python3 - "${bench[*]}" "${perf[*]}" <<'PY'
import statistics, sys
b = [float(x) for x in sys.argv[1].split()]
p = [float(x) for x in sys.argv[2].split()]
mb, mp = statistics.median(b), statistics.median(p)
print(f"median bench fwd {mb:,.0f}/s  perf {mp:,.0f}/s  perf/bench = {mp / mb:.2f}")
PY
