#!/usr/bin/env bash
# Bring-up time of a line of N forwarders under the laboratory's processes and
# netns runners (docs/BENCHMARKS.md, "Laboratory runners"), interleaved:
# processes, netns, processes, netns, ... `bringup_s` is the time from the first
# namespace, address or config until every forwarder answers management and
# every route is in place. Each run then measures Data crossing the whole line
# (experiments/scale-line.toml: window 64, 1,000-byte Data, no caching).
#
#   scripts/lab-line-bringup.sh [N] [ROUNDS]
#
# Defaults: N=32, 3 rounds. Needs root for netns (without it, processes only),
# and a release build (cargo build --release -p ndnlab); NDNLAB=path overrides
# the binary.
set -euo pipefail
n=${1:-32}
rounds=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${NDNLAB:-${CARGO_TARGET_DIR:-$root/target}/release/ndnlab}
runners="processes netns"
if [ "$(id -u)" != 0 ]; then
    echo "not root: the netns runner is skipped" >&2
    runners="processes"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in $(seq "$rounds"); do
    for runner in $runners; do
        "$bin" run "$root/experiments/scale-line.toml" --runner "$runner" \
            --set "topology.n=$n" --set experiment.duration_s=2 --set experiment.warmup_s=1 \
            --out "$work/$runner-$r" >/dev/null
    done
done
python3 - "$work" "$n" "$rounds" $runners <<'PY'
import csv, statistics, sys
work, n, rounds, runners = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
got = {r: [] for r in runners}
print(f"line of {n} forwarders")
print("round  " + "  ".join(f"{r:>22}" for r in runners))
for i in range(1, rounds + 1):
    cells = []
    for r in runners:
        row = next(csv.DictReader(open(f"{work}/{r}-{i}/results.csv")))
        if row["status"] != "ok":
            cells.append(f"{'failed':>22}")
            continue
        b, d = float(row["bringup_s"]), float(row["data_per_sec"])
        got[r].append((b, d, float(row["satisfaction"])))
        cells.append(f"{b:8.3f} s {d:8.0f} Data/s")
    print(f"{i:>5}  " + "  ".join(cells))
for r in runners:
    if got[r]:
        b = [x[0] for x in got[r]]
        print(f"{r}: bringup_s median {statistics.median(b):.3f} (min {min(b):.3f}, max {max(b):.3f}), "
              f"{len(b)}/{rounds} ok, Data/s median {statistics.median(x[1] for x in got[r]):.0f}, "
              f"satisfaction min {min(x[2] for x in got[r]):.3f}")
if all(got[r] for r in runners) and len(runners) == 2:
    ratios = [a[0] and c[0] / a[0] for a, c in zip(got["processes"], got["netns"])]
    print(f"netns / processes bring-up, per round: {', '.join(f'{x:.2f}' for x in ratios)}; median {statistics.median(ratios):.2f}")
PY
lscpu | grep 'Model name' || true
