#!/usr/bin/env python3
"""What the latency instrumentation costs `ndnlab bench fwd` (docs/BENCHMARKS.md).

Usage: scripts/latency-cost-ab.py ROUNDS TRANSPORTS BASE_BINARY BINARY [SAMPLE]

Three variants, interleaved in every round (A, B, C, A, B, C, ...) so that a shared
machine's slow seconds hit them alike:
  base  BASE_BINARY, a build without the instrumentation;
  off   BINARY with the instrumentation compiled in and off (the default);
  on    BINARY with `--latency-sample SAMPLE` (default 64) in the forwarder.
Prints per transport each variant's median exchanges/s, its runs, the ratio of the
medians to `base` (and `on` to `off`), and the forwarder's median CPU us per exchange.
"""
import json
import statistics
import subprocess
import sys


def main() -> None:
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    rounds, transports = int(sys.argv[1]), sys.argv[2].split(",")
    base, new = sys.argv[3], sys.argv[4]
    sample = sys.argv[5] if len(sys.argv) > 5 else "64"
    variants = [("base", base, []), ("off", new, []), ("on", new, ["--latency-sample", sample])]
    runs = {(v, t): [] for v, _, _ in variants for t in transports}
    for _ in range(rounds):
        for t in transports:
            for v, b, extra in variants:
                cmd = [b, "bench", "fwd", "--transport", t, "--duration", "4", "--json", *extra]
                out = subprocess.run(cmd, capture_output=True, text=True)
                if out.returncode != 0:
                    sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr}")
                j = json.loads(out.stdout)
                fwd = next((c for c in j["cpu"] if c["process"].startswith("fwd")), j["cpu"][0])
                runs[(v, t)].append((j["exchanges_per_s"], fwd["cpu_us_per_exchange"]))
                print(f"# {t} {v} {round(j['exchanges_per_s'])}", file=sys.stderr, flush=True)
    for t in transports:
        med = {v: statistics.median(x for x, _ in runs[(v, t)]) for v, _, _ in variants}
        for v, _, _ in variants:
            r = runs[(v, t)]
            cpu = statistics.median(c for _, c in r)
            print(
                f"{t:7} {v:5} median {med[v]:>12,.0f}/s  x{med[v] / med['base']:.3f} of base  "
                f"fwd cpu {cpu:.3f} us/exchange  runs {[round(x) for x, _ in r]}"
            )
        print(f"{t:7} on/off x{med['on'] / med['off']:.3f}  off/base x{med['off'] / med['base']:.3f}")


if __name__ == "__main__":
    main()
