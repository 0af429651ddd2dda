#!/usr/bin/env bash
# Calibrates the data-plane model of `ndnlab fwd` on this machine
# (docs/model.md, "Calibrating the model"):
#
# 1. runs experiments/calibrate-fwd.toml through the laboratory: the real
#    forwarder (the release build's ndnlab-fwd daemon) at a low load (2000
#    Interests/s, no queueing), every packet timed by its latency
#    instrumentation, for name lengths 3, 7 and 13 and one and two forwarding
#    threads;
# 2. joins the forwarders' raw samples into one CSV with a name_len column
#    (output_ns blank for packets that caused no transmission);
# 3. fits them per stage, packet type (every Interest is a CS miss: the CS is
#    off) and name length:
#    `ndnlab model fit SAMPLES --by name_len=name_len --out models/ndnlab-fwd.fit.toml`;
# 4. measures what the model's service times do not hold: the median delivery
#    time the client saw, minus the forwarder's median input + fwd time of an
#    Interest and of a Data, at name length 3. That residual is the threads'
#    wake-ups (the shard's and the receiving face's: at a low load every packet
#    meets a parked thread, which is the bulk of the measured queue and output
#    stages) and the client's and the producer's own time; it does not queue;
# 5. writes models/ndnlab-fwd.toml from models/ndnlab-fwd.toml.in with a
#    quarter of the residual as each one-way link delay (a round trip crosses
#    the client's link and the producer's link twice each).
#
#   scripts/calibrate-fwd.sh [OUT_DIR]          # about a minute; OUT_DIR default results/calibrate-fwd
#   NDNLAB_BIN=path/to/ndnlab scripts/calibrate-fwd.sh   # skip the build, use that binary
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-results/calibrate-fwd}
if [ -z "${NDNLAB_BIN:-}" ]; then
    cargo build --release -p ndnlab < /dev/null
    NDNLAB_BIN=${CARGO_TARGET_DIR:-target}/release/ndnlab
fi
lscpu | grep 'Model name' || true
uptime
rm -rf "$OUT"
"$NDNLAB_BIN" run experiments/calibrate-fwd.toml --out "$OUT/lab" < /dev/null
python3 - "$OUT" <<'PY'
import csv, glob, os, statistics, sys
out = sys.argv[1]
lab = os.path.join(out, "lab")
runs = list(csv.DictReader(open(os.path.join(lab, "results.csv"))))
cols = "seq,type,cs,input_ns,queue_ns,fwd_ns,output_ns,total_ns,queue_len,pit_size".split(",")
w = csv.writer(open(os.path.join(out, "samples.csv"), "w", newline=""))
w.writerow(cols + ["name_len", "threads"])
work = []  # input + fwd of a packet that was forwarded, ns
delivery = []
n = 0
for r in runs:
    if r["status"] != "ok":
        sys.exit(f"{lab}/results.csv: run {r['run_id']} failed (see {lab}/logs/{r['run_id']}.log)")
    name_len = r["apps.client.name_components"]
    threads = r["forwarder.threads"]
    files = glob.glob(os.path.join(lab, "samples", "latency", r["run_id"], "*.csv"))
    if not files:
        sys.exit(f"{lab}/samples/latency/{r['run_id']}/: no latency samples")
    for f in files:
        for row in csv.DictReader(open(f)):
            if row["output_ns"] == "0":
                row["output_ns"] = ""  # no transmission: no output stage
            w.writerow([row[c] for c in cols] + [name_len, threads])
            n += 1
            if name_len == "3" and row["output_ns"]:
                work.append((row["type"], float(row["input_ns"]) + float(row["fwd_ns"])))
    if name_len == "3":
        for row in csv.DictReader(open(os.path.join(lab, "samples", r["run_id"] + ".csv"))):
            delivery.append(float(row["delay_us"]) * 1000.0)
med = lambda t: statistics.median([x for k, x in work if k == t])
if not delivery or not any(k == "data" for k, _ in work):
    sys.exit("no delivery times or forwarder samples at name length 3")
service = med("interest") + med("data")
residual = max(0.0, statistics.median(delivery) - service)
print(f"{n} samples; median delivery {statistics.median(delivery):.0f} ns, "
      f"forwarder input+fwd of Interest and Data {service:.0f} ns, the rest {residual:.0f} ns")
open(os.path.join(out, "link_ns"), "w").write(f"{residual / 4:.0f}\n")
PY
"$NDNLAB_BIN" model fit "$OUT/samples.csv" --column input_ns,fwd_ns,output_ns --split type \
    --by name_len=name_len --out models/ndnlab-fwd.fit.toml < /dev/null
LINK=$(cat "$OUT/link_ns")
CPU=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
CORES=$(nproc)
sed -e "s|@LINK_NS@|$LINK|" -e "s|@CPU@|$CPU|" -e "s|@CORES@|$CORES|" \
    models/ndnlab-fwd.toml.in > models/ndnlab-fwd.toml
echo "wrote models/ndnlab-fwd.fit.toml and models/ndnlab-fwd.toml (links: ${LINK}ns each way)"
