#!/usr/bin/env bash
# Profile-guided builds of ndnlab (docs/BENCHMARKS.md, "Profile-guided build").
#
#   scripts/pgo.sh train            instrumented build, training runs, merged profile
#   scripts/pgo.sh build            `ndnlab` built with the profile -> target-pgo/release/ndnlab
#   scripts/pgo.sh bench [ARGS...]  the core's criterion `forwarding` bench built with it
#   scripts/pgo.sh hotpath ARGS...  the core's `hotpath` harness built with it
#   (`bench --no-run`, `hotpath --no-run`: build only and print the executable's path)
#
# `build`, `bench` and `hotpath` train first when no profile exists. Training runs the
# forwarder core's `hotpath` harness (misses and hits, one packet at a time and in
# bursts, CS 1,024 and 65,536, 4 and 16 components) and the daemon's `bench fwd` over
# Unix sockets, UDP and in-process faces: the paths a forwarder spends its time on,
# not the rows of one benchmark. Outputs go to target-pgo-gen/ (instrumented build,
# profile) and target-pgo/ (optimized builds), next to target/ (or to
# $CARGO_TARGET_DIR-pgo-gen and $CARGO_TARGET_DIR-pgo when that is set).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

usage() {
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
[ $# -ge 1 ] || usage
cmd=$1
shift

base="${CARGO_TARGET_DIR:-$root/target}"
gen_dir="$base-pgo-gen"
use_dir="$base-pgo"
raw_dir="$gen_dir/profraw"
# The profile's path names its content: cargo does not track files named in
# RUSTFLAGS, so a new profile must change the flags to rebuild every crate with it.
current="$gen_dir/current-profile"

profdata() {
    local host sysroot tool
    host="$(rustc -vV | sed -n 's/^host: //p')"
    sysroot="$(rustc --print sysroot)"
    tool="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
    if [ ! -x "$tool" ]; then
        echo "pgo: installing llvm-tools (for llvm-profdata)" >&2
        rustup component add llvm-tools >&2
    fi
    [ -x "$tool" ] || {
        echo "pgo: llvm-profdata not found at $tool" >&2
        exit 1
    }
    echo "$tool"
}

# Path of the bench executable cargo just built (last "Executable" line for NAME).
bench_exe() {
    local name=$1
    shift
    "$@" --no-run --message-format=json |
        python3 -c '
import json, sys
name = sys.argv[1]
exe = None
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == name and m.get("executable"):
        exe = m["executable"]
print(exe or "")' "$name"
}

train() {
    local tool hotpath ndnlab
    tool="$(profdata)"
    rm -rf "$raw_dir"
    mkdir -p "$raw_dir"
    export RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$raw_dir"
    echo "pgo: instrumented build in $gen_dir" >&2
    CARGO_TARGET_DIR="$gen_dir" cargo build --release --locked -p ndnlab >&2
    hotpath="$(CARGO_TARGET_DIR="$gen_dir" bench_exe hotpath cargo bench --locked -p ndnlab-core --bench hotpath)"
    [ -n "$hotpath" ] || {
        echo "pgo: hotpath bench did not build" >&2
        exit 1
    }
    ndnlab="$gen_dir/release/ndnlab"
    # Build scripts ran instrumented too: keep only the training runs' profiles.
    rm -f "$raw_dir"/*.profraw
    echo "pgo: training (forwarder core)" >&2
    for mode in miss hit burst-miss burst-hit fresh-miss fresh-burst-miss; do
        for cs in 1024 65536; do
            "$hotpath" "$mode" "$cs" 50000 4 >&2
        done
    done
    "$hotpath" miss 1024 20000 16 >&2
    "$hotpath" burst-miss 65536 20000 16 >&2
    echo "pgo: training (daemon)" >&2
    for transport in unix udp inproc; do
        "$ndnlab" bench fwd --transport "$transport" --duration 2 >&2
    done
    "$ndnlab" bench fwd --transport unix --payload 8192 --window 256 --duration 2 >&2
    unset RUSTFLAGS
    "$tool" merge -o "$gen_dir/merged.profdata" "$raw_dir"/*.profraw
    local sum
    sum="$(sha256sum "$gen_dir/merged.profdata" | cut -c1-16)"
    mv "$gen_dir/merged.profdata" "$gen_dir/ndnlab-$sum.profdata"
    echo "$gen_dir/ndnlab-$sum.profdata" >"$current"
    echo "pgo: profile $gen_dir/ndnlab-$sum.profdata" >&2
}

use_flags() {
    [ -f "$current" ] && [ -f "$(cat "$current")" ] || train
    export RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$(cat "$current")"
    export CARGO_TARGET_DIR="$use_dir"
}

case "$cmd" in
train)
    train
    ;;
build)
    use_flags
    cargo build --release --locked -p ndnlab
    echo "pgo: $use_dir/release/ndnlab" >&2
    ;;
bench | hotpath)
    use_flags
    name=forwarding
    [ "$cmd" = bench ] || name=hotpath
    if [ "${1:-}" = --no-run ]; then
        # Build only; print the executable's path (for interleaved A/B runs).
        bench_exe "$name" cargo bench --locked -p ndnlab-core --bench "$name"
    else
        cargo bench --locked -p ndnlab-core --bench "$name" -- "$@"
    fi
    ;;
*)
    usage
    ;;
esac
