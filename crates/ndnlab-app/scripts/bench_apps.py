#!/usr/bin/env python3
"""Application benchmarks of docs/BENCHMARKS.md ("Applications"): ndnlab perf
through one ndnlab fwd (signing types x server threads, window sweep, payload
sweep) and put/get of a large file. Prints Markdown tables of medians.

Usage: bench_apps.py NDNLAB_BINARY [--runs 3] [--secs 3] [--only sign,window,payload,file]
           [--file-mb 1024]
Every run uses its own forwarder on a temporary Unix socket; each figure is
the median over --runs runs of the client's summary line (--json).
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time


def start(cmd, **kw):
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


class Fwd:
    def __init__(self, ndnlab, tmp):
        self.sock = os.path.join(tmp, "fwd.sock")
        self.p = start([ndnlab, "fwd", "--socket", self.sock, "--threads", "1", "--log-level", "error"])
        for line in self.p.stdout:
            if "ready" in line:
                break

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(5)
        except subprocess.TimeoutExpired:
            self.p.kill()


def perf_run(ndnlab, tmp, server_args, client_args, secs):
    fwd = Fwd(ndnlab, tmp)
    try:
        srv = start([ndnlab, "perf", "server", "--socket", fwd.sock, "--json"] + server_args)
        # wait for registration: short probes
        for _ in range(100):
            r = subprocess.run([ndnlab, "perf", "client", "--socket", fwd.sock, "--duration", "0.3",
                                "--interval", "0.3", "--json"] + probe_args(client_args),
                               capture_output=True, text=True)
            if r.returncode == 0:
                break
            time.sleep(0.2)
        r = subprocess.run([ndnlab, "perf", "client", "--socket", fwd.sock, "--duration", str(secs),
                            "--interval", str(secs), "--json"] + client_args, capture_output=True, text=True)
        srv.send_signal(signal.SIGINT)
        srv.kill()
        lines = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        summ = [l for l in lines if l.get("type") == "summary"]
        return summ[0] if summ else None
    finally:
        fwd.stop()


def probe_args(client_args):
    keep = []
    skip = False
    for i, a in enumerate(client_args):
        if skip:
            skip = False
            continue
        if a in ("--prefix", "--names"):
            keep += [a, client_args[i + 1]]
            skip = True
    return keep


def median_of(ndnlab, tmp, runs, server_args, client_args, secs):
    res = [perf_run(ndnlab, tmp, server_args, client_args, secs) for _ in range(runs)]
    res = [r for r in res if r]
    if not res:
        return None
    return {
        "mbps": statistics.median(r["mbps"] for r in res),
        "data_per_s": statistics.median(r["data_per_s"] for r in res),
        "rtt_p50_ms": statistics.median(r["rtt_p50_ms"] for r in res),
        "limit": res[len(res) // 2]["limit"],
        "n": len(res),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ndnlab")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--secs", type=float, default=3.0)
    ap.add_argument("--only", default="sign,window,payload,file")
    ap.add_argument("--file-mb", type=int, default=1024)
    a = ap.parse_args()
    only = set(a.only.split(","))
    tmp = tempfile.mkdtemp(prefix="ndnlab-bench-")
    nd = a.ndnlab
    try:
        if "sign" in only:
            print("\n### Signing types, 8 KB payload (seed 000, Table 1)\n")
            print("| source of Data | server threads | client window | Mbit/s | Data/s | rtt p50 ms |")
            print("|---|---|---|---|---|---|")
            rows = [("forwarder CS (freshness 60 s)", ["--freshness", "60000", "--cache", "--presign", "1024"], ["--names", "1024"], 1),
                    ("server pre-signed cache", ["--cache", "--presign", "1024"], ["--names", "1024"], 1)]
            for kind in ["digest", "rsa-1024", "rsa-2048", "rsa-3072", "ecdsa-p256", "ecdsa-p384", "ed25519", "hmac"]:
                for t in (1, 2):
                    rows.append((f"server signing {kind}", ["--sign", kind, "--threads", str(t)], [], t))
            for label, sargs, cargs, t in rows:
                w = 8 * t
                m = median_of(nd, tmp, a.runs, ["--payload", "8192"] + sargs, ["--window", str(w)] + cargs, a.secs)
                if m:
                    print(f"| {label} | {t} | {w} | {m['mbps']:.0f} | {m['data_per_s']:.0f} | {m['rtt_p50_ms']:.2f} |")
                else:
                    print(f"| {label} | {t} | {w} | failed | | |")
                sys.stdout.flush()
        if "window" in only:
            print("\n### Window size, 8 KB payload, 1 server thread (seed 000, Figure 3)\n")
            print("| window | digest Mbit/s | rsa-2048 Mbit/s |")
            print("|---|---|---|")
            for w in (1, 2, 4, 8, 16, 32, 64):
                cells = []
                for kind in ("digest", "rsa-2048"):
                    m = median_of(nd, tmp, a.runs, ["--payload", "8192", "--sign", kind], ["--window", str(w)], a.secs)
                    cells.append(f"{m['mbps']:.0f}" if m else "failed")
                print(f"| {w} | {cells[0]} | {cells[1]} |")
                sys.stdout.flush()
        if "payload" in only:
            print("\n### Payload size, rsa-2048, 1 server thread, window 8 (seed 000, Figure 12)\n")
            print("| payload | Mbit/s | Data/s | digest Mbit/s |")
            print("|---|---|---|---|")
            for kb in (1, 2, 4, 8, 16, 32, 64):
                m = median_of(nd, tmp, a.runs, ["--payload", str(kb * 1024), "--sign", "rsa-2048"], ["--window", "8"], a.secs)
                d = median_of(nd, tmp, a.runs, ["--payload", str(kb * 1024), "--sign", "digest"], ["--window", "8"], a.secs)
                print(f"| {kb} KB | {m['mbps']:.0f} | {m['data_per_s']:.0f} | {d['mbps']:.0f} |" if m and d else f"| {kb} KB | failed | | |")
                sys.stdout.flush()
        if "file" in only:
            print(f"\n### put/get of a {a.file_mb} MB file (8000 B segments, digest)\n")
            print("| pipeline | goodput Mbit/s | time s | retransmissions | marks | rtt avg ms |")
            print("|---|---|---|---|---|---|")
            path = os.path.join(tmp, "big.bin")
            with open(path, "wb") as f:
                chunk = os.urandom(1 << 20)
                for _ in range(a.file_mb):
                    f.write(chunk)
            for pipe in (["-p", "cubic"], ["-p", "aimd"], ["-p", "fixed", "-w", "64"]):
                res = []
                for _ in range(a.runs):
                    fwd = Fwd(nd, tmp)
                    try:
                        put = start([nd, "put", "/bench/file", path, "--socket", fwd.sock, "--json"])
                        put.stdout.readline()  # "published" line once signed and registered
                        time.sleep(0.3)
                        out = os.path.join(tmp, "out.bin")
                        r = subprocess.run([nd, "get", "/bench/file", "-o", out, "--json", "--socket", fwd.sock] + pipe,
                                           capture_output=True, text=True)
                        put.kill()
                        if r.returncode == 0:
                            res.append(json.loads(r.stdout.splitlines()[0]))
                        else:
                            print(r.stderr, file=sys.stderr)
                        if os.path.exists(out):
                            os.remove(out)
                    finally:
                        fwd.stop()
                if res:
                    med = sorted(res, key=lambda s: s["goodput_mbps"])[len(res) // 2]
                    print(f"| {' '.join(pipe)} | {med['goodput_mbps']:.0f} | {med['time_s']:.1f} | {med['retransmissions']} | {med['congestion_marks']} | {med['rtt_avg_ms']:.2f} |")
                else:
                    print(f"| {' '.join(pipe)} | failed | | | | |")
                sys.stdout.flush()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
