#!/usr/bin/env bash
# Bring-up time of one topology spread over the hosts of the local Slurm
# cluster (scripts/slurm-cluster.sh) under the slurm runner, next to the same
# topology under the processes runner on this host (docs/BENCHMARKS.md,
# "The slurm runner"). `bringup_s` is the time from the first step (the host
# probe, for slurm) until every forwarder answers management and every route is
# in place. The topology is experiments/scale-line.toml at each size: a line, so
# that the placement cuts exactly HOSTS - 1 links and every Interest crosses
# every host.
#
#   scripts/slurm-bringup.sh [SIZES] [ROUNDS]
#
# Defaults: SIZES="64 256", 1 round. Needs root (the cluster) and a release
# build (cargo build --release -p ndnlab); NDNLAB=path overrides the binary.
# The cluster is brought up if it is not, and left up.
set -euo pipefail
sizes=${1:-64 256}
rounds=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${NDNLAB:-${CARGO_TARGET_DIR:-$root/target}/release/ndnlab}
hosts=${NDNLAB_SLURM_HOSTS:-3}
bash "$root/scripts/slurm-cluster.sh" up >/dev/null
eval "$(bash "$root/scripts/slurm-cluster.sh" env)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in $sizes; do
    for r in $(seq "$rounds"); do
        set_args=(--set "topology.n=$n" --set experiment.duration_s=2 --set experiment.warmup_s=1)
        start=$(date +%s.%N)
        "$bin" run "$root/experiments/scale-line.toml" --runner processes "${set_args[@]}" \
            --out "$work/processes-$n-$r" >/dev/null
        echo "$(date +%s.%N) - $start" | bc >"$work/processes-$n-$r.wall"
        start=$(date +%s.%N)
        salloc --quiet --nodes="$hosts" --job-name=ndnlab-bringup \
            "$bin" run "$root/experiments/scale-line.toml" --runner slurm "${set_args[@]}" \
            --out "$work/slurm-$n-$r" >/dev/null
        echo "$(date +%s.%N) - $start" | bc >"$work/slurm-$n-$r.wall"
    done
done
python3 - "$work" "$rounds" "$hosts" $sizes <<'PY'
import csv, statistics, sys
work, rounds, hosts, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
print(f"a line of N forwarders; slurm: over {hosts} hosts of the local cluster")
print(f"{'nodes':>5}  {'runner':>9}  {'round':>5}  {'bringup_s':>9}  {'whole run s':>11}  {'cut links':>9}  {'Data/s':>8}  {'satisfaction':>12}")
for n in sizes:
    for runner in ["processes", "slurm"]:
        b = []
        for i in range(1, rounds + 1):
            row = next(csv.DictReader(open(f"{work}/{runner}-{n}-{i}/results.csv")))
            wall = float(open(f"{work}/{runner}-{n}-{i}.wall").read())
            if row["status"] != "ok":
                print(f"{n:>5}  {runner:>9}  {i:>5}  {'failed':>9}")
                continue
            b.append(float(row["bringup_s"]))
            cut = row.get("cut_links") or "0"
            print(f"{n:>5}  {runner:>9}  {i:>5}  {b[-1]:9.2f}  {wall:11.1f}  {float(cut):9.0f}  "
                  f"{float(row['data_per_sec']):8.0f}  {float(row['satisfaction']):12.3f}")
        if rounds > 1 and b:
            print(f"{n:>5}  {runner:>9}  median {statistics.median(b):.2f} s")
PY
lscpu | grep 'Model name' || true
