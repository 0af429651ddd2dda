#!/usr/bin/env bash
# Resident memory against the CS byte bound: for each CS size, one `ndnlab fwd`
# with `[cs] capacity_bytes` = that size (and a packet bound high enough not to bite)
# is filled by `ndnlab perf client` (a new name every Interest, 8192-byte Data from
# `ndnlab perf server`, 2 flows of 64 in flight) for SECS seconds, well past the
# time the CS takes to fill. The forwarder's VmRSS is sampled every 0.2 s; the
# table gives it idle, at the end and at its largest, beside the CS entries and the
# bytes the CS bound allows. Memory, not speed: the machine's load does not matter.
# FRESH=MS sets the Data's FreshnessPeriod (default 0: stale at once, so the CS keeps
# each Data as a slice of the read buffer it arrived in; fresh Data under the default
# priority-FIFO policy is copied into a buffer of its own). PAYLOAD=BYTES (8192).
#
#   [FRESH=MS] [PAYLOAD=BYTES] scripts/mem-bound.sh [BIN] [SECS] [MIB...]
set -euo pipefail
BIN=${1:-target/release/ndnlab}
SECS=${2:-15}
shift 2 || true
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(16 64 256)
dir=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT
lscpu | grep 'Model name' || true
echo "Data FreshnessPeriod ${FRESH:-0} ms, payload ${PAYLOAD:-8192} B"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
printf "%8s %10s %10s %10s %10s %12s %10s\n" cs_MiB cs_entries rss_idle rss_end rss_max "max-cs" "max/cs"
for mib in "${SIZES[@]}"; do
    rm -f "$dir/nfd.sock"
    cat > "$dir/fwd.toml" <<TOML
[faces.unix]
path = "$dir/nfd.sock"
[cs]
capacity = 4194304
capacity_bytes = $((mib << 20))
TOML
    "$BIN" fwd --config "$dir/fwd.toml" > "$dir/fwd.log" 2>&1 &
    fwd=$!
    pids=("$fwd")
    for _ in $(seq 100); do [ -S "$dir/nfd.sock" ] && break; sleep 0.1; done
    sleep 0.5
    idle=$(rss "$fwd")
    "$BIN" perf server --socket "$dir/nfd.sock" --prefix /mem --freshness "${FRESH:-0}" \
        --payload "${PAYLOAD:-8192}" > "$dir/server.log" 2>&1 &
    pids+=("$!")
    for _ in $(seq 50); do
        "$BIN" perf client --socket "$dir/nfd.sock" --prefix /mem --duration 0.2 --interval 0.2 \
            --json > /dev/null 2>&1 && break
        sleep 0.1
    done
    "$BIN" perf client --socket "$dir/nfd.sock" --prefix /mem --duration "$SECS" --interval "$SECS" \
        --window 64 --flows 2 --json > "$dir/client.json" 2> "$dir/client.err" &
    client=$!
    pids+=("$client")
    max=0
    while kill -0 "$client" 2>/dev/null; do
        r=$(rss "$fwd"); [ "$r" -gt "$max" ] && max=$r
        sleep 0.2
    done
    end=$(rss "$fwd")
    entries=$("$BIN" ctl --socket "$dir/nfd.sock" cs info --json 2>/dev/null \
        | python3 -c 'import json,sys; d=json.load(sys.stdin); d=d[0] if isinstance(d,list) else d; print(d.get("n_entries", d.get("nEntries", "?")))' || echo "?")
    python3 -c "
mib, idle, end, mx = $mib, $idle, $end, $max
print('%8d %10s %10.1f %10.1f %10.1f %12.1f %10.2f' % (mib, '$entries', idle/1024, end/1024, mx/1024, mx/1024 - mib, mx/1024/mib))"
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    pids=()
done
echo "(rss in MiB; max-cs: the largest resident memory beyond the CS byte bound)"
