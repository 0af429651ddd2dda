#!/usr/bin/env bash
# Writes ndnlab's versions of Mini-NDN's example topologies GEANT, Sprint and the NDN
# testbed into topologies/. Only the facts are taken from Mini-NDN's files: the node
# names and the links between them with their link parameters (delay, bandwidth,
# loss, jitter, queue). They are written afresh, sorted, in the Mini-NDN .conf form
# that ndnlab imports (`topology.kind = "minindn"`, crates/ndnlab-lab/src/import.rs);
# Mini-NDN's comments and per-node settings (NLSR coordinates, router names) are left out.
#
#   scripts/minindn-topologies.sh [MINI_NDN_CHECKOUT]   # default: a clone in a temp dir
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-}
if [ -z "$src" ]; then
    src=$(mktemp -d)
    trap 'rm -rf "$src"' EXIT
    git clone --quiet --depth 1 https://github.com/named-data/mini-ndn "$src"
fi
# A bare mirror or a checkout: read the committed files either way.
rev=$(git -C "$src" rev-parse HEAD)
mkdir -p "$root/topologies"
for pair in geant:geant sprint_pop:sprint testbed:testbed; do
    from=${pair%%:*} to=${pair##*:}
    git -C "$src" show "HEAD:topologies/$from.conf" | python3 -c '
import sys
src, name, rev = sys.argv[1], sys.argv[2], sys.argv[3]
keep = ("delay", "bw", "loss", "jitter", "max_queue_size")
section, nodes, links = None, set(), set()
for raw in sys.stdin:
    line = raw.split("#")[0].strip()
    if not line or line.startswith(";"):
        continue
    if line.startswith("["):
        section = line.strip("[]").lower()
        continue
    if section in ("nodes", "switches"):
        nodes.add(line.split(":")[0].strip())
    elif section == "links":
        ends, *params = line.split()
        a, b = ends.split(":")
        params = sorted(p for p in params if p.split("=")[0] in keep)
        links.add((min(a, b), max(a, b), " ".join(params)))
print(f"# {name}: ndnlab topology derived from Mini-NDN topologies/{src}.conf")
print(f"# (https://github.com/named-data/mini-ndn, commit {rev}): its {len(nodes)} nodes and")
print(f"# {len(links)} links with their parameters, re-written by scripts/minindn-topologies.sh.")
print("[nodes]")
for n in sorted(nodes):
    print(f"{n}: _")
print("[links]")
for a, b, p in sorted(links):
    print(f"{a}:{b} {p}".rstrip())
' "$from" "$to" "$rev" > "$root/topologies/$to.conf"
    echo "topologies/$to.conf"
done
