#!/usr/bin/env bash
# Management from a non-local face, over a veth pair into a network namespace that
# this script creates (and deletes): `ndnlab ctl` in the namespace reaches the
# forwarder's TCP listener on the veth address, its commands get 403 and change
# nothing, while the same command on the local Unix socket succeeds. Needs root.
#
#   scripts/mgmt-netns.sh [BIN]
set -euo pipefail
BIN=${1:-target/release/ndnlab}
ns=ndnlab-mgmt-$$
va=vma$$; vb=vmb$$
net=10.231.$(( $$ % 200 + 20 ))
dir=$(mktemp -d)
cleanup() {
    kill $(jobs -p) 2>/dev/null || true
    ip link del "$va" 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
ip netns add "$ns"
ip link add "$va" type veth peer name "$vb"
ip link set "$vb" netns "$ns"
ip addr add "$net.1/30" dev "$va"; ip link set "$va" up
ip -n "$ns" addr add "$net.2/30" dev "$vb"; ip -n "$ns" link set "$vb" up
ip -n "$ns" link set lo up
cat > "$dir/fwd.toml" <<TOML
[faces.unix]
path = "$dir/nfd.sock"
[faces.tcp]
listen = ["$net.1:6363"]
TOML
"$BIN" fwd --config "$dir/fwd.toml" --log-level warn > "$dir/fwd.log" 2>&1 &
for _ in $(seq 100); do [ -S "$dir/nfd.sock" ] && break; sleep 0.05; done
fail=0
remote() { ip netns exec "$ns" "$BIN" ctl --socket "tcp4://$net.1:6363" "$@"; }
# A command from the namespace: refused with 403.
if out=$(remote route add /evil 1 2>&1); then
    echo "FAIL: route add from a non-local face succeeded: $out"; fail=1
elif echo "$out" | grep -q 403; then
    echo "ok: route add from the namespace refused: $(echo "$out" | tail -1)"
else
    echo "FAIL: refused without 403: $out"; fail=1
fi
if out=$(remote strategy set /evil /localhost/nfd/strategy/multicast 2>&1); then
    echo "FAIL: strategy set from a non-local face succeeded"; fail=1
else
    echo "ok: strategy set from the namespace refused: $(echo "$out" | tail -1)"
fi
# Nothing changed.
if "$BIN" ctl --socket "$dir/nfd.sock" route list | grep -q /evil; then
    echo "FAIL: /evil is in the RIB"; fail=1
else
    echo "ok: the RIB has no /evil"
fi
# The face exists and is non-local.
"$BIN" ctl --socket "$dir/nfd.sock" face list | grep "$net.2" || true
# The same command on the local socket works.
"$BIN" ctl --socket "$dir/nfd.sock" strategy set /good /localhost/nfd/strategy/multicast > /dev/null 2>&1 \
    && echo "ok: strategy set on the local socket accepted" || { echo "FAIL: local strategy set"; fail=1; }
exit $fail
