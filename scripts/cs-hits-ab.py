#!/usr/bin/env python3
"""Interleaved A/B of a forwarder answering from its Content Store (docs/BENCHMARKS.md).

Usage: scripts/cs-hits-ab.py BASE NEW [ROUNDS] [PAYLOAD]

BASE and NEW are `ndnlab` release binaries. Each round, for each binary in turn (the
order swapped every round): one `ndnlab fwd` (default configuration: LRU CS of 65,536
packets), an `ndnlab perf server --cache --presign 8192` behind it, and an `ndnlab perf
client --names 8192 --no-fresh` (window 4096 below 1 KB payloads, 256 from 1 KB). The
client asks for the same 8,192 names over and over without MustBeFresh, so after the
first pass the forwarder's CS answers every Interest. After 2 s of warm-up the client
runs 4 s; the forwarder's CPU time is read from /proc over the client's run. Prints,
per round, each binary's Data/s and the forwarder's CPU µs per Data, and the ratios
NEW/BASE, then their medians. ROUNDS defaults to 6, PAYLOAD to 100.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

NAMES = 8192


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def once(binary: str, payload: int, d: str) -> tuple[float, float]:
    sock = os.path.join(d, "nfd.sock")
    window = 4096 if payload < 1024 else 256
    fwd = subprocess.Popen([binary, "fwd", "--log-level", "warn", "--socket", sock],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        for line in fwd.stdout:
            if line.strip() == "ndnlab fwd: ready":
                break
        srv = subprocess.Popen([binary, "perf", "server", "--socket", sock, "--payload",
                                str(payload), "--cache", "--presign", str(NAMES),
                                "--duration", "30"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.5)
        client = [binary, "perf", "client", "--socket", sock, "--window", str(window),
                  "--names", str(NAMES), "--no-fresh", "--json"]
        subprocess.run(client + ["--duration", "2"], capture_output=True, check=True)
        c0 = cpu_s(fwd.pid)
        out = subprocess.run(client + ["--duration", "4"], capture_output=True, text=True,
                             check=True)
        c1 = cpu_s(fwd.pid)
        srv.terminate()
        srv.wait()
        j = json.loads(out.stdout.strip().splitlines()[-1])
        data = j["data_per_s"] * j.get("seconds", 4.0)
        return j["data_per_s"], 1e6 * (c1 - c0) / max(data, 1.0)
    finally:
        fwd.terminate()
        fwd.wait()


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    base, new = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    payload = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    rx, rc = [], []
    print("round | base Data/s | new Data/s | ratio | base fwd us/Data | new fwd us/Data | ratio")
    for k in range(1, rounds + 1):
        order = [("base", base), ("new", new)] if k % 2 else [("new", new), ("base", base)]
        got = {}
        for name, b in order:
            with tempfile.TemporaryDirectory() as d:
                got[name] = once(b, payload, d)
        (bx, bc), (nx, nc) = got["base"], got["new"]
        rx.append(nx / bx)
        rc.append(nc / bc)
        print(f"{k} | {bx:.0f} | {nx:.0f} | {nx / bx:.3f} | {bc:.3f} | {nc:.3f} | {nc / bc:.3f}",
              flush=True)
    print(f"median new/base: Data/s {statistics.median(rx):.3f}, "
          f"forwarder CPU per Data {statistics.median(rc):.3f} ({rounds} rounds, {payload} B)")


if __name__ == "__main__":
    main()
