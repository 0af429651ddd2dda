#!/usr/bin/env bash
# Resident memory against its bound: for each CS size, one `ndnlab fwd` with
# `[cs] capacity_bytes` = that size (and a packet bound high enough not to bite) is
# filled by `ndnlab perf client` (a new name every Interest, 8192-byte Data from
# `ndnlab perf server`, 2 flows of 64 in flight) for SECS seconds, well past the
# time the CS takes to fill. The forwarder's VmRSS is sampled every 0.2 s; the
# table gives it idle, as the first client ends (rss_end, other clients may be
# leaving), 1 s after every client has left (rss_after) and at its largest of the
# samples and rss_after (rss_max), beside the bound
#
#   CS bytes + PIT bound + Dead Nonce List bound + fixed overhead
#
# where the PIT bound is `pit_max_entries` (PIT=4096) x 512 bytes (256 of table, the
# rest for the Interest's share of its read buffer), the Dead Nonce List's is
# `dead_nonce_max_entries` (DNL=65536) x 72 bytes (neither bites here: the client
# keeps 128 Interests pending), and the fixed overhead FIXED_MIB (40: the idle
# process, 17.5 MiB, and what the load holds beyond the tables, docs/RELIABILITY.md).
# The CS charges each entry what it occupies (a slice its share of its read buffer,
# a copy its allocator block, each plus 128 bytes of table), so `capacity_bytes` is
# the CS's memory. Memory, not speed: the machine's load does not matter.
# FRESH=MS sets the Data's FreshnessPeriod (default 0), PAYLOAD=BYTES (8192),
# POLICY the CS policy (lru, the default; priority-fifo copies fresh Data).
#
# FLOOD=N adds a flood beside that load: a second client keeps N Interests with
# unique names pending (N/64 flows of 64) under /flood, routed to a UDP face whose
# emulated link loses every frame, so no Data ever comes back and the PIT fills to
# its bound (set PIT to the size to test; every entry is held for its 4 s lifetime)
# or, with PIT_FACE (pit_max_entries_per_face, default PIT) below PIT, to its share.
# FACES=N adds N more clients, one face each, fetching under the same prefix (a
# window of 8); the bound then counts each face's 256 KiB read and 256 KiB write
# buffer (FACE_KIB=512) beyond the three faces the fixed overhead already holds.
#
# MIXED=1 adds a second forwarder, the peer, joined to the measured one by one TCP
# face that carries traffic both ways: a consumer on the peer asks the measured
# forwarder's producer for /mem (window 64), and a consumer on the measured forwarder
# asks the peer's producer for /peer (MIXED_PAYLOAD-byte Data, default 100, window
# 64), which the measured forwarder caches. Its read buffers on that face then hold
# Interests between the Data it caches. The bound counts that face (FACE_KIB).
#
# ERASE=1 then erases the CS (`ctl cs erase /mem`) and prints the resident memory
# 2 s later, once nothing runs: what the forwarder returns when it goes quiet.
#
#   [FRESH=MS] [PAYLOAD=BYTES] [POLICY=P] [PIT=N] [PIT_FACE=N] [DNL=N] [FIXED_MIB=M] [FLOOD=N] [FACES=N] [MIXED=1] [ERASE=1]
#       scripts/mem-bound.sh [BIN] [SECS] [MIB...]
set -euo pipefail
BIN=${1:-target/release/ndnlab}
SECS=${2:-15}
shift 2 || true
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(16 64 256)
dir=$(mktemp -d)
pids=()
peer_pids=()
cleanup() {
    for p in "${pids[@]}" "${peer_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$dir"
}
trap cleanup EXIT
lscpu | grep 'Model name' || true
PIT=${PIT:-4096}
PIT_FACE=${PIT_FACE:-$PIT}
DNL=${DNL:-65536}
FIXED_MIB=${FIXED_MIB:-40}
FLOOD=${FLOOD:-0}
FACES=${FACES:-0}
FACE_KIB=${FACE_KIB:-512}
MIXED=${MIXED:-0}
MIXED_PAYLOAD=${MIXED_PAYLOAD:-100}
echo "Data FreshnessPeriod ${FRESH:-0} ms, payload ${PAYLOAD:-8192} B, CS policy ${POLICY:-lru};" \
    "pit_max_entries $PIT, dead_nonce_max_entries $DNL, fixed overhead $FIXED_MIB MiB;" \
    "flood $FLOOD pending, $FACES more faces, mixed face $MIXED"
# A UDP face nothing comes back from: its emulated link loses every frame.
sink="udp4://127.0.0.1:$((20000 + RANDOM % 20000))"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
# A client's summary line: Data, Interests, timeouts, Nacks, Mbit/s.
summary() {
    python3 -c 'import json,sys
s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print("%d Data for %d Interests, %d timeouts, %d Nacks, %.0f Mbit/s" % (
    s["data"], s["interests"], s["timeouts"], s["nacks"], s["mbps"]))' "$1" 2>/dev/null || echo "no summary"
}
printf "%7s %10s %10s %9s %9s %9s %9s %9s %9s %9s\n" cs_MiB cs_entries dnl_entries \
    rss_idle rss_end rss_after rss_max bound max/bound max/cs
for mib in "${SIZES[@]}"; do
    rm -f "$dir/nfd.sock" "$dir/peer.sock"
    peer_toml=""
    if [ "$MIXED" = 1 ]; then
        port=$((40000 + RANDOM % 20000))
        cat > "$dir/peer.toml" <<TOML
[faces.unix]
path = "$dir/peer.sock"
[faces.tcp]
listen = ["127.0.0.1:$port"]
TOML
        "$BIN" fwd --config "$dir/peer.toml" > "$dir/peer.log" 2>&1 &
        peer_pids=("$!")
        for _ in $(seq 100); do [ -S "$dir/peer.sock" ] && break; sleep 0.1; done
        "$BIN" perf server --socket "$dir/peer.sock" --prefix /peer \
            --payload "$MIXED_PAYLOAD" > /dev/null 2>&1 &
        peer_pids+=("$!")
        peer_toml="[[face]]
uri = \"tcp4://127.0.0.1:$port\"
[[route]]
prefix = \"/peer\"
face = \"tcp4://127.0.0.1:$port\""
    fi
    cat > "$dir/fwd.toml" <<TOML
[faces.unix]
path = "$dir/nfd.sock"
[cs]
capacity = 4194304
capacity_bytes = $((mib << 20))
policy = "${POLICY:-lru}"
[limits]
pit_max_entries = $PIT
pit_max_entries_per_face = $PIT_FACE
dead_nonce_max_entries = $DNL
[[face]]
uri = "$sink"
emulate = { loss_pct = 100 }
[[route]]
prefix = "/flood"
face = "$sink"
$peer_toml
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
    if [ "$FLOOD" -gt 0 ]; then
        "$BIN" perf client --socket "$dir/nfd.sock" --prefix /flood --duration "$SECS" \
            --interval "$SECS" --window 64 --flows $(((FLOOD + 63) / 64)) --json \
            > "$dir/flood.json" 2> "$dir/flood.err" &
        pids+=("$!")
    fi
    if [ "$MIXED" = 1 ]; then
        # The peer reaches /mem over the face the measured forwarder opened to it.
        face=$("$BIN" ctl --socket "$dir/peer.sock" face list --json | python3 -c '
import json, sys
fs = [f for f in json.load(sys.stdin) if str(f.get("remote", f.get("remoteUri", ""))).startswith("tcp")]
print(fs[0].get("faceId", fs[0].get("id")) if fs else "")')
        "$BIN" ctl --socket "$dir/peer.sock" route add /mem "$face" > /dev/null
        "$BIN" perf client --socket "$dir/peer.sock" --prefix /mem --duration "$SECS" \
            --interval "$SECS" --window 64 --json > "$dir/mixed-in.json" 2> /dev/null &
        pids+=("$!")
        "$BIN" perf client --socket "$dir/nfd.sock" --prefix /peer --duration "$SECS" \
            --interval "$SECS" --window 64 --json > "$dir/mixed-out.json" 2> /dev/null &
        pids+=("$!")
    fi
    for i in $(seq "$FACES"); do
        "$BIN" perf client --socket "$dir/nfd.sock" --prefix /mem --duration "$SECS" \
            --interval "$SECS" --window 8 --json > "$dir/face$i.json" 2> /dev/null &
        pids+=("$!")
    done
    max=0
    pit_max=0
    while kill -0 "$client" 2>/dev/null; do
        r=$(rss "$fwd"); [ "$r" -gt "$max" ] && max=$r
        if [ "$FLOOD" -gt 0 ] || [ "$FACES" -gt 0 ]; then
            p=$("$BIN" ctl --socket "$dir/nfd.sock" status --json 2>/dev/null \
                | python3 -c 'import json,sys; print(json.load(sys.stdin)["used"]["pit_entries"])' \
                2>/dev/null || echo 0)
            [ "$p" -gt "$pit_max" ] && pit_max=$p
        fi
        sleep 0.2
    done
    end=$(rss "$fwd")
    for p in "${pids[@]:3}"; do wait "$p" 2>/dev/null || true; done
    sleep 1
    after=$(rss "$fwd")
    [ "$after" -gt "$max" ] && max=$after
    used=$("$BIN" ctl --socket "$dir/nfd.sock" status --json 2>/dev/null \
        | python3 -c 'import json,sys; u=json.load(sys.stdin).get("used",{}); print(u.get("cs_entries","?"), u.get("dead_nonce_entries","?"), u.get("pit_entries","?"))' \
        || echo "? ? ?")
    read -r entries dnl_used pit_used <<< "$used"
    python3 -c "
mib, idle, end, after, mx = $mib, $idle / 1024, $end / 1024, $after / 1024, $max / 1024
bound = mib + $PIT * 512 / 2**20 + $DNL * 72 / 2**20 + $FIXED_MIB + ($FACES + $MIXED) * $FACE_KIB / 1024
print('%7d %10s %10s %9.1f %9.1f %9.1f %9.1f %9.1f %9.2f %9.2f' % (
    mib, '$entries', '$dnl_used', idle, end, after, mx, bound, mx / bound, mx / mib))"
    if [ -n "${ERASE:-}" ]; then
        "$BIN" ctl --socket "$dir/nfd.sock" cs erase /mem > /dev/null 2>&1
        sleep 2
        echo "        (2 s after \`ctl cs erase /mem\`: $(($(rss "$fwd") / 1024)) MiB resident)"
    fi
    if [ "$FLOOD" -gt 0 ] || [ "$FACES" -gt 0 ]; then
        echo "        (PIT entries: largest seen $pit_max, at the end $pit_used, bound $PIT;" \
            "the first client: $(summary "$dir/client.json"))"
        [ "$FLOOD" -gt 0 ] && echo "        (the flood: $(summary "$dir/flood.json"))"
    fi
    if [ "$MIXED" = 1 ]; then
        echo "        (over the mixed face: in, /mem from the peer: $(summary "$dir/mixed-in.json");" \
            "out, /peer: $(summary "$dir/mixed-out.json"))"
    fi
    for p in "${pids[@]}" "${peer_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    pids=()
    peer_pids=()
done
echo "(rss and bound in MiB; max/bound: the largest resident memory over the bound)"
