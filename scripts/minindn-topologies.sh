#!/usr/bin/env bash
# Copies Mini-NDN's example topologies GEANT, Sprint and the NDN testbed into
# topologies/ as data, each under a header naming its source and licence. The
# files stay in Mini-NDN's own format; experiments read them with
# `topology.kind = "minindn"` (ndnlab's importer, crates/ndnlab-lab/src/import.rs).
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
    {
        echo "# Mini-NDN example topology topologies/$from.conf"
        echo "# Source: https://github.com/named-data/mini-ndn (commit $rev)"
        echo "# Mini-NDN is licensed under the GNU GPL version 3 (its COPYING.md); this file is its topology data, unchanged below."
        echo "# Read by ndnlab as topology.kind = \"minindn\"."
        git -C "$src" show "HEAD:topologies/$from.conf"
    } > "$root/topologies/$to.conf"
    echo "topologies/$to.conf"
done
