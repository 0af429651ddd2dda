#!/usr/bin/env bash
# ndnlab's `sim` runner against ndnSIM on the same scenarios, one after the
# other, each run in a process of its own under GNU time.
#
#   scripts/sim-vs-ndnsim.sh NDNSIM_DIR [REPS]
#
# NDNSIM_DIR is the SRC_DIR given to scripts/build-ndnsim.sh (or its ns-3
# directory); the scenarios are its scratch programs bench/ndnsim/scenarios/sbs-*.cc
# (the build script compiles them). REPS (default 3) runs of every scenario on
# each side; the table holds the medians.
#
# ndnlab side: `ndnlab run experiments/ndnsim-*.toml --runner sim` for wall time,
# peak RSS and the results (results.csv), and `ndnlab bench sim --experiment`
# once per scenario for the forwarder handlings and the virtual span (both are
# the same in every run of a seed). ndnSIM side: the scenario's JSON line
# (consumer tally, NFD's forwarder counters summed over nodes, ns-3's event
# count) and GNU time.
#
# Environment: NDNLAB (default: target/release/ndnlab, built if absent),
# OUT (default results/sim-vs-ndnsim), ONLY (a regex of scenario names to run).
# Writes OUT/runs.csv (every run) and OUT/table.md (the medians), and prints the table.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 NDNSIM_DIR [REPS]" >&2
  exit 2
fi
HERE=$(cd "$(dirname "$0")/.." && pwd)
NS3=$(realpath "$1")
[[ -d "$NS3/ns-3/build" ]] && NS3="$NS3/ns-3"
REPS=${2:-3}
OUT=${OUT:-$HERE/results/sim-vs-ndnsim}
ONLY=${ONLY:-.}
NDNLAB=${NDNLAB:-$HERE/target/release/ndnlab}
TOPOLOGY=${TOPOLOGY:-$HERE/topologies/rocketfuel-7018.ndnsim.txt}

if [[ ! -x "$NDNLAB" ]]; then
  (cd "$HERE" && cargo build --release -p ndnlab)
fi
prog() { # the scratch program's binary (ns-3.30 names it after the file)
  local p="$NS3/build/scratch/$1"
  [[ -x "$p" ]] || p=$(ls "$NS3"/build/scratch/*"$1"* 2>/dev/null | head -1)
  [[ -x "$p" ]] || { echo "no scratch program $1 under $NS3/build/scratch: run scripts/build-ndnsim.sh" >&2; exit 1; }
  echo "$p"
}
[[ -x /usr/bin/time ]] || { echo "GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 1; }
export LD_LIBRARY_PATH="$NS3/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# name | ndnlab experiment | ndnlab options | ndnSIM program | ndnSIM options
SCENARIOS=(
  "simple-10|experiments/ndnsim-simple.toml|--shard 0/3|sbs-simple|--rate=10 --duration=10"
  "simple-1000|experiments/ndnsim-simple.toml|--shard 1/3|sbs-simple|--rate=1000 --duration=10"
  "simple-100000|experiments/ndnsim-simple.toml|--shard 2/3|sbs-simple|--rate=100000 --duration=10"
  "grid-3x3|experiments/ndnsim-grid3.toml||sbs-grid|--n=3 --rate=1000 --duration=10"
  "grid-32x32|experiments/ndnsim-grid32.toml||sbs-grid|--n=32 --rate=1000 --duration=10"
  "line-10|experiments/ndnsim-line.toml|--shard 0/3|sbs-line|--n=10 --rate=6 --duration=10"
  "line-30|experiments/ndnsim-line.toml|--shard 1/3|sbs-line|--n=30 --rate=6 --duration=10"
  "line-100|experiments/ndnsim-line.toml|--shard 2/3|sbs-line|--n=100 --rate=6 --duration=10"
  "rocketfuel-7018|experiments/ndnsim-rocketfuel.toml||sbs-rocketfuel|--topology=$TOPOLOGY --producer=bb-12832 --rate=100 --duration=5"
)
# the factor level each shard selects, for `ndnlab bench sim --experiment` (first point only)
bench_set() {
  case "$1" in
    simple-1000) echo "--set apps.consumer.rate=1000.0" ;;
    simple-100000) echo "--set apps.consumer.rate=100000.0" ;;
    line-30) echo "--set topology.n=30" ;;
    line-100) echo "--set topology.n=100" ;;
    *) echo "" ;;
  esac
}

mkdir -p "$OUT"
RUNS="$OUT/runs.csv"
echo "scenario,side,rep,wall_s,cpu_s,max_rss_kb,nodes,virtual_s,handlings,events,interests,data,satisfaction,delay_mean_us,cs_hit_ratio" > "$RUNS"

# wall (s), cpu (s), max RSS (KB) from GNU time -v output
gnutime() {
  python3 - "$1" <<'PY'
import sys, re
t = open(sys.argv[1]).read()
def f(key):
    m = re.search(re.escape(key) + r':\s*(\S+)', t)
    return m.group(1) if m else ''
wall = f('Elapsed (wall clock) time (h:mm:ss or m:ss)')
parts = [float(x) for x in wall.split(':')]
secs = 0.0
for x in parts:
    secs = secs * 60 + x
cpu = float(f('User time (seconds)')) + float(f('System time (seconds)'))
print(f"{secs:.3f},{cpu:.3f},{f('Maximum resident set size (kbytes)')}")
PY
}

for entry in "${SCENARIOS[@]}"; do
  IFS='|' read -r name exp lopts prog_name nopts <<<"$entry"
  [[ "$name" =~ $ONLY ]] || continue
  p=$(prog "$prog_name")
  # ndnlab: handlings, events and span of the first point (the same in every run)
  # shellcheck disable=SC2046
  "$NDNLAB" bench sim --side 2 --duration 0.001 --experiment "$HERE/$exp" $(bench_set "$name") --json > "$OUT/$name.bench.json"
  for rep in $(seq 1 "$REPS"); do
    echo "== $name ndnlab rep $rep" >&2
    d="$OUT/$name.ndnlab.$rep"
    rm -rf "$d"
    # shellcheck disable=SC2086
    /usr/bin/time -v -o "$d.time" "$NDNLAB" run "$HERE/$exp" --runner sim --jobs 1 $lopts --out "$d" > "$d.log" 2>&1
    t=$(gnutime "$d.time")
    python3 - "$name" "$rep" "$t" "$d/results.csv" "$OUT/$name.bench.json" >> "$RUNS" <<'PY'
import sys, csv, json
name, rep, t, results, bench = sys.argv[1:6]
rows = [r for r in csv.DictReader(open(results)) if r.get('status', 'ok') == 'ok']
assert len(rows) == 1, f"{results}: {len(rows)} runs, expected 1"
r = rows[0]
b = json.load(open(bench))['runs'][-1]
print(','.join([name, 'ndnlab', rep, t, str(b['nodes']), f"{b['virtual_s']:.6f}", str(b['handlings']), str(b['events']),
                r['interests'], r['data'], r['satisfaction'], r['delay_mean_us'], r['cs_hit_ratio']]))
PY
    echo "== $name ndnSIM rep $rep" >&2
    d="$OUT/$name.ndnsim.$rep"
    # shellcheck disable=SC2086
    /usr/bin/time -v -o "$d.time" "$p" $nopts --RngRun="$rep" > "$d.json" 2> "$d.log"
    t=$(gnutime "$d.time")
    python3 - "$name" "$rep" "$t" "$d.json" >> "$RUNS" <<'PY'
import sys, json
name, rep, t, path = sys.argv[1:5]
line = [l for l in open(path) if l.startswith('{')][-1]
j = json.loads(line)
print(','.join(str(x) for x in [name, 'ndnSIM', rep, t, j['nodes'], j['virtual_s'], j['handlings'], j['events'],
                               j['interests'], j['data'], j['satisfaction'], j['delay_mean_us'], j['cs_hit_ratio']]))
PY
  done
done

python3 - "$RUNS" "$OUT/table.md" <<'PY'
import sys, csv, statistics as st
from collections import OrderedDict
runs = list(csv.DictReader(open(sys.argv[1])))
groups = OrderedDict()
for r in runs:
    groups.setdefault((r['scenario'], r['side']), []).append(r)
def med(rs, k):
    return st.median(float(r[k]) for r in rs)
lines = ["| scenario | simulator | nodes | wall s | virtual s / wall s | handlings/s (ns-3 events/s) | peak RSS MB | RSS per node KB | Interests | satisfied (Data) | mean delay ms | CS hit ratio | ndnSIM wall / ndnlab wall |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for (name, side), rs in groups.items():
    wall = med(rs, 'wall_s')
    nodes = int(rs[0]['nodes'])
    rss = med(rs, 'max_rss_kb')
    rate = f"{med(rs, 'handlings') / wall:,.0f}"
    if side == 'ndnSIM':
        rate += f" ({med(rs, 'events') / wall:,.0f})"
    ratio = ''
    if side == 'ndnSIM' and (name, 'ndnlab') in groups:
        ratio = f"{wall / med(groups[(name, 'ndnlab')], 'wall_s'):.2f}"
    lines.append(f"| {name} | {side} | {nodes} | {wall:.2f} | {med(rs, 'virtual_s') / wall:,.1f} | {rate} | "
                 f"{rss / 1024:,.1f} | {rss / nodes:,.0f} | {med(rs, 'interests'):,.0f} | {med(rs, 'data'):,.0f} | "
                 f"{med(rs, 'delay_mean_us') / 1000:.3f} | {med(rs, 'cs_hit_ratio'):.4f} | {ratio} |")
text = "\n".join(lines) + "\n"
open(sys.argv[2], 'w').write(text)
print(text)
PY
