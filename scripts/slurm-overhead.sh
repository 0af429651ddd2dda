#!/usr/bin/env bash
# What an array task costs on Slurm, from submit to results: a campaign of N
# runs of a tiny sim experiment, one run per task, run
#
#   local:   ndnlab run --shard I/N for I = 0..N-1 one after another, then
#            ndnlab merge (the same processes, without Slurm);
#   slurm:   ndnlab submit slurm --tasks N --parallel 1 on the local cluster
#            (scripts/slurm-cluster.sh), timed from the submit to the status
#            saying finished (merged), polled every 0.1 s;
#   spread:  the same without --parallel: the tasks over every node at once.
#
# The overhead per task is (slurm - local) / N: scheduling, launch and
# teardown of each task, and the merge's dependency once over N.
#
#   scripts/slurm-overhead.sh [N] [NDNLAB]     # N = 12, NDNLAB = target/release/ndnlab or debug
#
# Needs root (the cluster is brought up if it is not, and left up).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${1:-12}"
bin="${2:-}"
if [ -z "$bin" ]; then
    for b in "$root/target/release/ndnlab" "$root/target/debug/ndnlab"; do
        [ -x "$b" ] && { bin="$b"; break; }
    done
fi
[ -x "$bin" ] || { echo "slurm-overhead: no ndnlab binary (cargo build -p ndnlab)" >&2; exit 1; }
"$root/scripts/slurm-cluster.sh" up >/dev/null
eval "$("$root/scripts/slurm-cluster.sh" env)"

work="$(mktemp -d /tmp/ndnlab-slurm-overhead.XXXXXX)"
trap 'rm -rf "$work"' EXIT
cat >"$work/exp.toml" <<EOF
[experiment]
name = "slurm-overhead"
runner = "sim"
duration_s = 0.1
warmup_s = 0.02
repetitions = $n
[topology]
kind = "line"
n = 2
[apps.client]
kind = "consumer"
nodes = ["first"]
rate = 100.0
[apps.server]
kind = "producer"
nodes = ["last"]
EOF

now() { date +%s.%N; }

t0="$(now)"
slices=()
for i in $(seq 0 $((n - 1))); do
    "$bin" run "$work/exp.toml" --shard "$i/$n" --out "$work/local/slices/$i" --resume --jobs 1 >/dev/null
    slices+=("$work/local/slices/$i")
done
"$bin" merge "${slices[@]}" --out "$work/local" >/dev/null
t_local="$(echo "$(now) - $t0" | bc)"

# Submits with the given options and waits for the status to say finished.
campaign() {
    local dir="$1"
    shift
    local t0
    t0="$(now)"
    "$bin" submit slurm "$work/exp.toml" --tasks "$n" --out "$dir" "$@" >/dev/null
    until "$bin" submit status "$dir" --json | grep -q '"finished": true'; do
        sleep 0.1
    done
    echo "$(now) - $t0" | bc
}
t_serial="$(campaign "$work/serial" --parallel 1)"
t_spread="$(campaign "$work/spread")"
cmp -s "$work/local/results.csv" "$work/serial/results.csv" || { echo "slurm-overhead: the results differ" >&2; exit 1; }

per() { echo "scale=3; ($1) / $n" | bc; }
nodes="$(sinfo --noheader --format=%D)"
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -n1), $(nproc) cores; $nodes Slurm nodes; $bin"
printf '%-44s %8s s %8s s/task\n' "$n tasks of 1 run each" "total" "per"
printf '%-44s %8.2f s %8.3f s/task\n' "local: run --shard, one after another, merge" "$t_local" "$(per "$t_local")"
printf '%-44s %8.2f s %8.3f s/task\n' "slurm: --parallel 1, submit to merged" "$t_serial" "$(per "$t_serial")"
printf '%-44s %8.2f s %8.3f s/task\n' "slurm: every node at once, submit to merged" "$t_spread" "$(per "$t_spread")"
printf 'overhead per array task (serial - local) / N: %.3f s\n' "$(per "$t_serial - $t_local")"
