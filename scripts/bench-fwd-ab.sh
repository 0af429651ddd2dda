#!/usr/bin/env bash
# Interleaved A/B of `ndnlab bench fwd`: a base revision against the working tree
# (docs/BENCHMARKS.md, CONTRIBUTING.md).
#
#   scripts/bench-fwd-ab.sh BASE [ROUNDS]
#
# BASE is a git revision (built in its own worktree and target directory under
# target/ab/) or the path of an `ndnlab` release binary. The working tree is built
# with `cargo build --release`. Each round runs every row below with both binaries,
# their order swapped every round, and prints the round's ratios new/base of
# exchanges/s and of the forwarder's CPU per exchange (`cpu_us_per_exchange` of
# `fwd #1`, every thread's in process: the steadiest figure on a shared
# machine). The last lines give each
# row's median ratios. ROUNDS defaults to 6.
#
#   ROWS='--payload 100|--payload 8192'   rows, separated by |, each a set of
#                                          `bench fwd` flags (default below)
#   DURATION=4                             seconds measured per run
set -euo pipefail
if [ $# -lt 1 ]; then
    sed -n 2,17p "$0" >&2
    exit 2
fi
base=$1
rounds=${2:-6}
duration=${DURATION:-4}
root=$(git rev-parse --show-toplevel)
cd "$root"
IFS='|' read -r -a rows <<< "${ROWS:---transport unix --payload 100 --window 4096 --data-pool 8192|--transport unix --payload 8192 --window 256}"

if [ -x "$base" ] && [ -f "$base" ]; then
    base_bin=$(realpath "$base")
else
    rev=$(git rev-parse --verify "$base^{commit}") || {
        echo "bench-fwd-ab: $base is neither a binary nor a git revision" >&2
        exit 2
    }
    wt="$root/target/ab/src-${rev:0:12}"
    if [ ! -d "$wt" ]; then
        git worktree add --detach "$wt" "$rev" >&2
    fi
    echo "building $base (${rev:0:12}) in $wt" >&2
    (cd "$wt" && CARGO_TARGET_DIR="$root/target/ab/target-${rev:0:12}" cargo build --release -q -p ndnlab)
    base_bin="$root/target/ab/target-${rev:0:12}/release/ndnlab"
fi
echo "building the working tree" >&2
cargo build --release -q -p ndnlab
# A copy, so that a rebuild during the rounds does not change the binary measured.
new_bin="$root/target/ab/ndnlab-working-tree"
mkdir -p "$(dirname "$new_bin")"
cp target/release/ndnlab "$new_bin"
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores" >&2

python3 - "$base_bin" "$new_bin" "$rounds" "$duration" "${rows[@]}" <<'EOF'
import json, statistics, subprocess, sys

base, new, rounds, duration, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]

def once(binary, flags):
    cmd = [binary, "bench", "fwd", "--duration", duration, "--json", *flags.split()]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    j = json.loads(out.stdout)
    # the first forwarder's CPU; in process (inproc rows), every thread's
    fwd = [c for c in j["cpu"] if c["process"] == "fwd #1"] or j["cpu"]
    return j["exchanges_per_s"], sum(c["cpu_us_per_exchange"] for c in fwd)

ratios = {r: ([], []) for r in rows}
print("round | row | base exch/s | new exch/s | ratio | base fwd us/exch | new fwd us/exch | ratio", flush=True)
for k in range(1, rounds + 1):
    for r in rows:
        order = [("base", base), ("new", new)] if k % 2 else [("new", new), ("base", base)]
        got = {name: once(b, r) for name, b in order}
        (bx, bc), (nx, nc) = got["base"], got["new"]
        ratios[r][0].append(nx / bx)
        ratios[r][1].append(nc / bc)
        print(f"{k} | {r} | {bx:.0f} | {nx:.0f} | {nx / bx:.3f} | {bc:.3f} | {nc:.3f} | {nc / bc:.3f}", flush=True)
print()
print("row | rounds | median new/base exchanges/s | median new/base fwd CPU per exchange")
for r in rows:
    x, c = ratios[r]
    print(f"{r} | {len(x)} | {statistics.median(x):.3f} | {statistics.median(c):.3f}")
EOF
