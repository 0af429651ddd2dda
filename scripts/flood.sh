#!/usr/bin/env bash
# Interest flood: one face writes Interests with unique names as fast as it can
# (under a prefix routed to a producer that never answers) for SECS seconds, while a
# consumer on another face fetches from a live producer. Runs the integration test
# crates/ndnlab-fwd/tests/floods.rs (the test suite runs it for 2 s) in a release
# build, ROUNDS times with the per-face PIT bound on (5000 entries) and off,
# interleaved, and prints each run's figures (JSON) and the CPU model.
#
#   scripts/flood.sh [SECS] [ROUNDS]
set -euo pipefail
SECS=${1:-60}
ROUNDS=${2:-1}
export CARGO_PROFILE_RELEASE_DEBUG=false
bin=$(cargo test --release -p ndnlab-fwd --test floods --no-run --message-format=json < /dev/null 2>/dev/null \
    | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "floods":
        print(m["executable"])')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
lscpu | grep 'Model name' || true
for r in $(seq "$ROUNDS"); do
    for per_face in 5000 0; do
        FLOOD_SECS=$SECS FLOOD_PER_FACE=$per_face FLOOD_REPORT="$out/r.json" \
            "$bin" --exact a_unique_name_flood_on_one_face_leaves_the_pit_bounded_and_the_others_served \
            > "$out/log" 2>&1 || { cat "$out/log"; echo "run failed (per_face=$per_face)"; }
        echo "per_face=$per_face $(cat "$out/r.json" 2>/dev/null)"
        rm -f "$out/r.json"
    done
done
