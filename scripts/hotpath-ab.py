#!/usr/bin/env python3
"""Interleaved A/B runs of `hotpath` harness binaries (docs/BENCHMARKS.md).

Usage: scripts/hotpath-ab.py ROUNDS 'MODE [CS [N [COMPS]]]' BINARY...

Runs every binary with the same arguments ROUNDS times in turn (A, B, A, B, ...), so
that a shared machine's slow seconds hit all binaries alike, and prints each binary's
median thread-CPU ns per operation, its runs, and the ratio of medians to the first
binary. Binaries: `cargo bench -p ndnlab-core --bench hotpath --no-run` prints the
path; copy it away before building the other version.
"""
import re
import statistics
import subprocess
import sys


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, args, bins = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3:]
    runs: dict[str, list[float]] = {b: [] for b in bins}
    for _ in range(rounds):
        for b in bins:
            out = subprocess.run([b, *args], capture_output=True, text=True, check=True)
            m = re.search(r"([0-9.]+) ns/op", out.stdout + out.stderr)
            if not m:
                sys.exit(f"{b}: no 'ns/op' in its output:\n{out.stdout}{out.stderr}")
            runs[b].append(float(m.group(1)))
    base = statistics.median(runs[bins[0]])
    print(f"hotpath {' '.join(args)}, {rounds} interleaved rounds, thread-CPU ns/op")
    for b in bins:
        med = statistics.median(runs[b])
        vals = " ".join(f"{v:.0f}" for v in runs[b])
        print(f"{b:40} median {med:7.1f}  x{med / base:.2f}  [{vals}]")


if __name__ == "__main__":
    main()
