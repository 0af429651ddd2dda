#!/usr/bin/env bash
# Soak: the forwarder at full load for SECS seconds (`ndnlab perf client`, 2 flows
# of 64 Interests in flight, against `ndnlab perf server` through `ndnlab fwd`, a new
# name every Interest, the CS on and bounded to 64 MiB), with the forwarder's
# resident memory and open file descriptors sampled every second into
# OUT/soak.csv and drawn in OUT/soak-rss.{svg,png} and OUT/soak-fds.{svg,png}
# (`ndnlab analyze plot`).
#
#   scripts/soak.sh [BIN] [SECS] [OUT]
set -euo pipefail
BIN=${1:-target/release/ndnlab}
SECS=${2:-600}
OUT=${3:-results/soak}
mkdir -p "$OUT"
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
cat > "$dir/fwd.toml" <<TOML
[faces.unix]
path = "$dir/nfd.sock"
[cs]
capacity = 65536
capacity_bytes = 67108864
TOML
"$BIN" fwd --config "$dir/fwd.toml" > "$dir/fwd.log" 2>&1 &
fwd=$!
for _ in $(seq 100); do [ -S "$dir/nfd.sock" ] && break; sleep 0.1; done
export NDN_CLIENT_TRANSPORT=unix://$dir/nfd.sock
"$BIN" perf server --prefix /soak > "$dir/server.log" 2>&1 &
sleep 1
"$BIN" perf client --prefix /soak --duration "$SECS" --window 64 --flows 2 --interval 10 --json > "$OUT/perf.json" 2> "$dir/client.log" &
client=$!
echo "t_s,rss_kib,fds,cpu_model" > "$OUT/soak.csv"
cpu=$(lscpu | grep 'Model name' | sed 's/.*: *//;s/,/ /g')
t=0
while kill -0 "$client" 2>/dev/null; do
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$fwd/status")
    fds=$(ls "/proc/$fwd/fd" | wc -l)
    echo "$t,$rss,$fds,$cpu" >> "$OUT/soak.csv"
    sleep 1
    t=$((t + 1))
done
wait "$client" || { cat "$dir/client.log"; exit 1; }
"$BIN" analyze plot "$OUT/soak.csv" --x t_s --y rss_kib --scale 0.0009765625 \
    --title "Resident memory of ndnlab fwd at full load" --x-label "time (s)" \
    --y-label "resident memory (MiB)" --out "$OUT/soak-rss"
"$BIN" analyze plot "$OUT/soak.csv" --x t_s --y fds \
    --title "Open file descriptors of ndnlab fwd at full load" --x-label "time (s)" \
    --y-label "file descriptors" --out "$OUT/soak-fds"
echo "CPU: $cpu"
tail -n +2 "$OUT/soak.csv" | awk -F, 'NR==1{r0=$2;f0=$3} {if($2>rm)rm=$2; if($3>fm)fm=$3; r=$2; f=$3}
  END {printf "rss first %d KiB, last %d KiB, max %d KiB; fds first %d, last %d, max %d\n", r0, r, rm, f0, f, fm}'
cat "$OUT/perf.json"
