#!/usr/bin/env bash
# The laboratory's own overhead: experiments/overhead.toml (one in-process
# forwarder, consumer and producer, every Data signed) against
# `ndnlab bench fwd --transport inproc --data-pool 0` (the same load from the
# bare load generator), interleaved, ROUNDS times. Prints each rate and the median
# ratio lab / bench.
#
#   scripts/lab-overhead.sh [BIN] [ROUNDS] [SECONDS]
set -euo pipefail
BIN=${1:-target/release/ndnlab}
ROUNDS=${2:-5}
SECS=${3:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
lscpu | grep 'Model name' || true
printf 'round\tlab_per_sec\tbench_per_sec\tratio\n'
for r in $(seq "$ROUNDS"); do
    lab=$("$BIN" run "$here/experiments/overhead.toml" --json --out "$out/r$r" \
        --set "experiment.duration_s=$SECS" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["points"][0]["means"]["data_per_sec"])')
    bench=$("$BIN" bench fwd --transport inproc --data-pool 0 --duration "$SECS" --json |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["exchanges_per_s"])')
    python3 -c "print($r, round($lab), round($bench), round($lab/$bench, 3), sep='\t')"
done | tee "$out/rows"
python3 - "$out/rows" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
print(f"median ratio lab/bench: {statistics.median(float(r[3]) for r in rows):.3f} ({len(rows)} rounds)")
PY
