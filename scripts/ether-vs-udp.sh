#!/usr/bin/env bash
# Ethernet faces against UDP faces on the same veth pair (docs/BENCHMARKS.md,
# "Ethernet faces"). Needs root and `ip netns`.
#
# Usage: scripts/ether-vs-udp.sh [BINARY] [PAYLOAD] [ROUNDS] [WINDOW]
#   BINARY  the ndnlab executable (default: target/release/ndnlab)
#   PAYLOAD Data content bytes (default 8192; 32768 for NFD's 32 KB segments)
#   ROUNDS  interleaved rounds (default 3)
#   WINDOW  perf client window (default 32)
#
# Two network namespaces joined by a veth pair (MTU 1500, 10.238.x.1/.2), one
# `ndnlab fwd --threads 1` in each with an Ethernet channel on its end of the pair
# and a UDP listener on its address. Forwarder A gets an Ethernet face toward B
# (`ctl face create ether://[MAC] local dev://IF`) routed for /bench/ether and a UDP
# face toward B routed for /bench/udp. Two `perf server`s on B (pre-signed cache,
# so the server is not the bottleneck) serve the two prefixes; each round runs a
# `perf client` on A for each, Ethernet first. Packets beyond the MTU are
# fragmented by NDNLPv2 on both (Ethernet: 1500-byte frames' payload; UDP: the
# default 1452-byte datagrams). Client, both forwarders and the server share the
# machine's cores. Prints every run and the medians.
set -euo pipefail
bin="$(realpath "${1:-target/release/ndnlab}")"
payload="${2:-8192}"
rounds="${3:-3}"
window="${4:-32}"
dur=5
names=4096
if [ "$(id -u)" != 0 ]; then
    echo "needs root (network namespaces, raw sockets)" >&2
    exit 2
fi
tag=$$
nsa="ndnlab-bench-a-$tag"
nsb="ndnlab-bench-b-$tag"
deva="eba$tag"
devb="ebb$tag"
maca="02:00:00:00:be:0a"
macb="02:00:00:00:be:0b"
net=$((tag % 200 + 20))
ipa="10.238.$net.1"
ipb="10.238.$net.2"
dir="$(mktemp -d)"
cleanup() {
    kill $(jobs -p) 2>/dev/null || true
    wait 2>/dev/null || true
    ip netns del "$nsa" 2>/dev/null || true
    ip netns del "$nsb" 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
ip netns add "$nsa"
ip netns add "$nsb"
ip link add "$deva" netns "$nsa" type veth peer name "$devb" netns "$nsb"
for side in "a $nsa $deva $maca $ipa" "b $nsb $devb $macb $ipb"; do
    # shellcheck disable=SC2086
    set -- $side
    ip -n "$2" link set dev "$3" address "$4" mtu 1500 up
    ip -n "$2" link set dev lo up
    ip -n "$2" addr add "$5/24" dev "$3"
    cat >"$dir/fwd-$1.toml" <<EOF
[forwarder]
threads = 1
[faces.unix]
path = "$dir/nfd-$1.sock"
[faces.udp]
listen = ["$5:6363"]
[faces.ether]
whitelist = ["$3"]
mcast = false
EOF
    ip netns exec "$2" "$bin" fwd --config "$dir/fwd-$1.toml" --log-level warn \
        >"$dir/fwd-$1.log" 2>&1 &
done
for s in a b; do
    for _ in $(seq 100); do [ -S "$dir/nfd-$s.sock" ] && break; sleep 0.1; done
done
ctl() { "$bin" ctl --socket "$dir/nfd-a.sock" "$@"; }
face_id() {
    python3 -c 'import json,sys; print(json.load(sys.stdin)["parameters"]["faceId"])'
}
ether=$(ctl face create "ether://[$macb]" local "dev://$deva" --json | face_id)
udp=$(ctl face create "udp4://$ipb:6363" --json | face_id)
ctl route add /bench/ether "$ether" >/dev/null
ctl route add /bench/udp "$udp" >/dev/null
for p in ether udp; do
    "$bin" perf server --socket "$dir/nfd-b.sock" --prefix "/bench/$p" --payload "$payload" \
        --cache --presign "$names" --duration $(((dur + 2) * rounds * 2 + 30)) --json \
        >"$dir/server-$p.log" 2>&1 &
done
sleep 3
declare -A mbps
for r in $(seq "$rounds"); do
    for p in ether udp; do
        line=$("$bin" perf client --socket "$dir/nfd-a.sock" --prefix "/bench/$p" \
            --window "$window" --names "$names" --duration "$dur" --json | tail -1)
        m=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print("%.0f" % d["mbps"])' "$line")
        info=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print("%d Data/s, rtt p50 %.2f ms, loss %.2f%%, %s" % (d["data_per_s"], d["rtt_p50_ms"], d["loss_percent"], d["limit"]))' "$line")
        mbps[$p]="${mbps[$p]:-} $m"
        echo "round $r: $p $m Mbit/s ($info)"
    done
done
echo "faces of A after the runs:"
ctl face list | grep -E "ether://|udp4://$ipb" || true
python3 - "$payload" "$window" "${mbps[ether]}" "${mbps[udp]}" <<'PY'
import statistics, sys
payload, window = sys.argv[1], sys.argv[2]
e = [float(x) for x in sys.argv[3].split()]
u = [float(x) for x in sys.argv[4].split()]
me, mu = statistics.median(e), statistics.median(u)
print(f"payload {payload} B, window {window}: median Ethernet {me:.0f} Mbit/s, "
      f"UDP {mu:.0f} Mbit/s, Ethernet/UDP = {me / mu:.2f}")
PY
