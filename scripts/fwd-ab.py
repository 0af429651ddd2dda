#!/usr/bin/env python3
"""Interleaved A/B runs of `ndnlab bench fwd` (docs/BENCHMARKS.md).

Usage: scripts/fwd-ab.py ROUNDS TRANSPORTS BINARY...

TRANSPORTS is a comma-separated list of `--transport` values (unix,udp,inproc). Each round
runs every binary once per transport (`bench fwd --transport T --duration 4 --json`), the
binaries alternated so that a shared machine's slow seconds hit them alike, and prints per
transport each binary's median exchanges/s, its runs, the ratio to the first binary, and
the median forwarder CPU microseconds per exchange (`cpu_us_per_exchange` of `fwd #1`).
For the wider set of rows (payloads, windows, hops) with every run printed raw, use
`scripts/bench-fwd-ab.sh`.
"""
import json
import statistics
import subprocess
import sys


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, transports, bins = int(sys.argv[1]), sys.argv[2].split(","), sys.argv[3:]
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {
        (b, t): [] for b in bins for t in transports
    }
    for _ in range(rounds):
        for t in transports:
            for b in bins:
                cmd = [b, "bench", "fwd", "--transport", t, "--duration", "4", "--json"]
                out = subprocess.run(cmd, capture_output=True, text=True)
                if out.returncode != 0:
                    sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr}")
                j = json.loads(out.stdout)
                fwd = next(c for c in j["cpu"] if c["process"].startswith("fwd"))
                runs[(b, t)].append((j["exchanges_per_s"], fwd["cpu_us_per_exchange"]))
    for t in transports:
        base = statistics.median(x for x, _ in runs[(bins[0], t)])
        for b in bins:
            r = runs[(b, t)]
            med = statistics.median(x for x, _ in r)
            cpu = statistics.median(c for _, c in r)
            vals = " ".join(f"{x:,.0f}" for x, _ in r)
            print(f"{t:6} {b:30} median {med:12,.0f}  x{med / base:.2f}  [{vals}]  "
                  f"fwd CPU {cpu:.3f} us/exchange")


if __name__ == "__main__":
    main()
