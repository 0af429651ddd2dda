#!/usr/bin/env python3
"""Interleaved A/B of `ndnlab fwd` builds or settings under a fixed number of
exchanges: CPU per exchange of the forwarder (user and system), minor page faults
and context switches per exchange, and exchanges/s.

    scripts/fwd-fixed-ab.py ROUNDS COUNT NAME=BINARY[,K=V...][@CONFIG.toml] ...

Each round starts every variant in turn (`BINARY fwd --log-level warn --threads 1
--socket S --tcp 127.0.0.1:0 --udp 127.0.0.1:0 [--config CONFIG]`, environment
K=V added), drives it with the fixed-count load generator (`fixed_load`: the
`ndnlab bench fwd` Unix load, 50,000 exchanges of warm-up, then COUNT measured;
its path in $FIXED_LOAD, default target/release/examples/fixed_load; WARMUP, PAYLOAD,
WINDOW, POOL from the environment as in scripts/fwd-callgrind.sh) and stops it.
Prints every run, then per variant the medians and the ratio of its median CPU
per exchange to the first variant's.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def parse(spec):
    name, rest = spec.split("=", 1)
    config = None
    if "@" in rest:
        rest, config = rest.split("@", 1)
    parts = rest.split(",")
    env = dict(p.split("=", 1) for p in parts[1:])
    return name, parts[0], env, config


def run(binary, env, config, count):
    load = os.environ.get("FIXED_LOAD", "target/release/examples/fixed_load")
    with tempfile.TemporaryDirectory(prefix="fwd-ab.") as d:
        sock = os.path.join(d, "nfd.sock")
        args = [binary, "fwd", "--log-level", "warn", "--threads", "1", "--socket", sock,
                "--tcp", "127.0.0.1:0", "--udp", "127.0.0.1:0"]
        if config:
            args += ["--config", config]
        fwd = subprocess.Popen(args, stdout=subprocess.PIPE, text=True,
                               env={**os.environ, **env})
        try:
            for line in fwd.stdout:
                if line.strip() == "ndnlab fwd: ready":
                    break
            else:
                raise RuntimeError(f"{binary} exited before it was ready")
            out = subprocess.run(
                [load, "--socket", sock, "--payload", os.environ.get("PAYLOAD", "100"),
                 "--window", os.environ.get("WINDOW", "4096"),
                 "--pool", os.environ.get("POOL", "8192"),
                 "--warmup", os.environ.get("WARMUP", "50000"),
                 "--count", str(count), "--cpu-pid", str(fwd.pid)],
                check=True, capture_output=True, text=True).stdout
            return json.loads(out.strip().splitlines()[-1])
        finally:
            fwd.terminate()
            fwd.wait()


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, count = int(sys.argv[1]), int(sys.argv[2])
    variants = [parse(s) for s in sys.argv[3:]]
    keys = ["fwd_cpu_us_per_exchange", "fwd_user_us_per_exchange", "fwd_sys_us_per_exchange",
            "fwd_minflt_per_exchange", "fwd_ctxt_per_exchange", "exchanges_per_s"]
    got = {v[0]: [] for v in variants}
    for r in range(rounds):
        for name, binary, env, config in variants:
            m = run(binary, env, config, count)
            got[name].append(m)
            print(f"round {r + 1} {name}: " + " ".join(f"{k}={m[k]}" for k in keys), flush=True)
            time.sleep(0.5)
    base = None
    print("variant\t" + "\t".join(keys) + "\tcpu/first")
    for name, _, _, _ in variants:
        med = {k: statistics.median(m[k] for m in got[name]) for k in keys}
        base = base or med["fwd_cpu_us_per_exchange"]
        print(name + "\t" + "\t".join(f"{med[k]:.4f}" for k in keys)
              + f"\t{med['fwd_cpu_us_per_exchange'] / base:.3f}")


if __name__ == "__main__":
    main()
