#!/usr/bin/env python3
"""What the latency instrumentation costs `ndnlab bench fwd` (docs/BENCHMARKS.md).

Usage: scripts/latency-cost-ab.py ROUNDS TRANSPORTS VARIANT...
       scripts/latency-cost-ab.py ROUNDS TRANSPORTS BASE_BINARY BINARY [SAMPLE]

A VARIANT is NAME=BINARY or NAME=BINARY:SAMPLE (`bench fwd --latency-sample SAMPLE`
in the forwarder; without it, the instrumentation is off). The variants run
interleaved in every round (A, B, C, A, B, C, ...) so that a shared machine's slow
seconds hit them alike. The second form is the three variants
  base=BASE_BINARY  off=BINARY  on=BINARY:SAMPLE (default 64).
Prints per transport each variant's median exchanges/s, its ratio to the first
variant, the forwarder's median CPU us per exchange, its runs, and the ratio of the
medians of `on` to `off` when both are there. `--json` prints the runs as JSON too.
"""
import json
import statistics
import subprocess
import sys


def variants(args):
    if all("=" in a for a in args):
        out = []
        for a in args:
            name, spec = a.split("=", 1)
            binary, _, sample = spec.partition(":")
            out.append((name, binary, ["--latency-sample", sample] if sample else []))
        return out
    if len(args) not in (2, 3):
        sys.exit(__doc__)
    base, new = args[0], args[1]
    sample = args[2] if len(args) > 2 else "64"
    return [("base", base, []), ("off", new, []), ("on", new, ["--latency-sample", sample])]


def main() -> None:
    argv = [a for a in sys.argv[1:] if a != "--json"]
    as_json = "--json" in sys.argv[1:]
    if len(argv) < 3:
        sys.exit(__doc__)
    rounds, transports = int(argv[0]), argv[1].split(",")
    vs = variants(argv[2:])
    runs = {(v, t): [] for v, _, _ in vs for t in transports}
    for _ in range(rounds):
        for t in transports:
            for v, b, extra in vs:
                cmd = [b, "bench", "fwd", "--transport", t, "--duration", "4", "--json", *extra]
                out = subprocess.run(cmd, capture_output=True, text=True)
                if out.returncode != 0:
                    sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr}")
                j = json.loads(out.stdout)
                fwd = next((c for c in j["cpu"] if c["process"].startswith("fwd")), j["cpu"][0])
                runs[(v, t)].append((j["exchanges_per_s"], fwd["cpu_us_per_exchange"]))
                print(f"# {t} {v} {round(j['exchanges_per_s'])}", file=sys.stderr, flush=True)
    first = vs[0][0]
    for t in transports:
        med = {v: statistics.median(x for x, _ in runs[(v, t)]) for v, _, _ in vs}
        cpu = {v: statistics.median(c for _, c in runs[(v, t)]) for v, _, _ in vs}
        for v, _, _ in vs:
            r = runs[(v, t)]
            print(
                f"{t:7} {v:7} median {med[v]:>12,.0f}/s  x{med[v] / med[first]:.3f} of {first}  "
                f"fwd cpu {cpu[v]:.3f} us/exchange  runs {[round(x) for x, _ in r]}"
            )
        if "on" in med and "off" in med:
            print(
                f"{t:7} on/off x{med['on'] / med['off']:.3f} throughput, "
                f"x{cpu['on'] / cpu['off']:.3f} fwd cpu per exchange"
            )
    if as_json:
        print(json.dumps({f"{t} {v}": r for (v, t), r in runs.items()}))


if __name__ == "__main__":
    main()
