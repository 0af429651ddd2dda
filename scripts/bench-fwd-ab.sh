#!/usr/bin/env bash
# Interleaved A/B of `ndnlab bench fwd` between release binaries (docs/BENCHMARKS.md).
#
#   scripts/bench-fwd-ab.sh ROUNDS BINARY... > results.txt
#
# For each round, each row below, each binary: one `bench fwd --duration 4 --json` run,
# printed as `round|flags|binary| exchanges/s Gbit/s cores(us/exchange) per process`.
# Interleaving keeps a shared machine's drift out of the ratios; take medians per
# (flags, binary).
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 ROUNDS BINARY..." >&2
    exit 2
fi
rounds=$1
shift
rows=(
    "--transport unix --payload 100 --window 4096 --data-pool 8192"
    "--transport unix --payload 100 --window 512 --data-pool 0"
    "--transport udp --payload 100 --window 4096 --data-pool 8192"
    "--transport inproc --payload 100 --window 4096 --data-pool 8192"
    "--transport unix --payload 8192 --window 256"
    "--transport unix --payload 8192 --window 256 --hops 2"
    "--transport unix --payload 8192 --window 256 --hops 3"
    "--transport inproc --payload 8192 --window 256"
)
for r in $(seq "$rounds"); do
    for f in "${rows[@]}"; do
        for b in "$@"; do
            # shellcheck disable=SC2086
            "$b" bench fwd --duration 4 --json $f | python3 -c "
import json, sys
d = json.load(sys.stdin)
cpu = ' '.join('%.2f(%.2f)' % (x['cores'], x['cpu_us_per_exchange']) for x in d['cpu'])
print('$r|$f|$b|', round(d['exchanges_per_s']), round(d['goodput_gbps'], 2), cpu, flush=True)"
        done
    done
done
