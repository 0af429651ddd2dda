#!/usr/bin/env bash
# Writes topologies/rocketfuel-7018.ndnsim.txt, the Rocketfuel map of AS 7018
# (Spring, Mahajan and Wetherall, "Measuring ISP Topologies with Rocketfuel",
# 2002) in ndnSIM's annotated topology format, from the copy ndnSIM's authors
# published for their simulations (github.com/cawka/ndnSIM-ndns,
# topology/7018.r0.txt: 625 routers, 2101 links of 1 Gbit/s with delays of 5 to
# 10 ms and queues of 28410 packets). Only the facts are taken (router names,
# each link's ends, rate, metric, delay and queue) and written afresh, sorted.
#
#   scripts/rocketfuel-topology.sh [SOURCE]
#
# SOURCE: that file (default: read from the stored mirror of cawka/ndnSIM-ndns).
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
SRC=${1:-}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if [[ -z "$SRC" ]]; then
  git --git-dir=/work/.mirror/cawka+ndnSIM-ndns/repo/.git show HEAD:topology/7018.r0.txt > "$tmp"
  SRC=$tmp
fi
python3 - "$SRC" "$HERE/topologies/rocketfuel-7018.ndnsim.txt" <<'PY'
import sys
src, out = sys.argv[1], sys.argv[2]
section = None
routers, links = set(), []
for line in open(src):
    line = line.split('#', 1)[0].strip()
    if not line:
        continue
    if line in ('router', 'link'):
        section = line
        continue
    f = line.split()
    if section == 'router':
        routers.add(f[0])
    elif section == 'link':
        a, b = sorted(f[:2])
        rate, metric, delay, queue = f[2], f[3], f[4], f[5]
        assert rate.endswith('bps')
        links.append((a, b, rate, metric, delay, queue))
used = {x for l in links for x in l[:2]}
assert used <= routers, used - routers
with open(out, 'w') as o:
    o.write("# The Rocketfuel map of AS 7018 (Spring, Mahajan and Wetherall, \"Measuring ISP\n"
            "# Topologies with Rocketfuel\", 2002) as ndnSIM's authors annotated it for\n"
            "# simulation (github.com/cawka/ndnSIM-ndns, topology/7018.r0.txt): every link\n"
            "# 1 Gbit/s, metric 1, a delay of 5 to 10 ms, a queue of 28410 packets.\n"
            f"# {len(routers)} routers, {len(links)} links; written by scripts/rocketfuel-topology.sh.\n\n")
    o.write("router\n# node comment yPos xPos\n")
    for r in sorted(routers):
        o.write(f"{r} NA 0 0\n")
    o.write("\nlink\n# srcNode dstNode bandwidth metric delay queue\n")
    for l in sorted(links):
        o.write(" ".join(l) + "\n")
print(f"{out}: {len(routers)} routers, {len(links)} links")
PY
