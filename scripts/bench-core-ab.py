#!/usr/bin/env python3
"""Interleaved A/B runs of criterion bench binaries (docs/BENCHMARKS.md).

Usage: scripts/bench-core-ab.py ROUNDS REGEX BINARY...

Runs every binary on the benchmarks matching REGEX, ROUNDS times in turn (A, B, A, B, ...),
so that a shared machine's slow minutes hit all binaries alike, and prints per benchmark
each binary's median of its runs' criterion medians (ns), the runs, and the ratio to the
first binary. Binaries: `cargo bench -p ndnlab-core --bench forwarding --no-run` prints
the path; copy it away before building the other version. MT=<seconds> sets the
measurement time (default 2).
"""
import os
import re
import statistics
import subprocess
import sys


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, regex, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    runs: dict[str, dict[str, list[int]]] = {}
    for _ in range(rounds):
        for b in bins:
            out = subprocess.run(
                [b, "--bench", regex, "--warm-up-time", "1", "--measurement-time",
                 os.environ.get("MT", "2"), "--output-format", "bencher"],
                capture_output=True, text=True, check=True).stdout
            for m in re.finditer(r"test (\S+)\s+\.\.\. bench:\s+([\d,]+) ns/iter", out):
                runs.setdefault(m.group(1), {}).setdefault(b, []).append(
                    int(m.group(2).replace(",", "")))
    for name in sorted(runs):
        cells, base = [], None
        for b in bins:
            v = runs[name].get(b, [])
            med = statistics.median(v) if v else float("nan")
            base = base or med
            ratio = f"x{med / base:.2f}" if base else "x-"  # bencher rounds < 0.5 ns to 0
            cells.append(f"{os.path.basename(b)} {med:.0f} [{' '.join(map(str, v))}] {ratio}")
        print(f"{name:28s} " + " | ".join(cells))


if __name__ == "__main__":
    main()
