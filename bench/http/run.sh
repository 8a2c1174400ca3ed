#!/bin/sh
# bench/http/run.sh - HTTP figures for the README (issue 4, "Performance"):
#   1. single GET /v1/predict under wrk, 4 connections: p50, p99, requests/s,
#      for the compact answer (explain=false: what an autotuner ranks by) and
#      for the full document with its explanation (the default);
#   2. the same load on bench/http/bare_mhd (libmicrohttpd returning a fixed
#      small JSON, same daemon flags) in the same run: the stack's ceiling.
#      The three loads are interleaved over ROUNDS rounds (default 5) and each
#      figure is the median over the rounds, so that a noisy shared machine
#      affects all three alike;
#   3. one POST /v1/predict batch of 10,000 queries: median wall time (curl);
#   4. pascald's RSS with 10 frozen calibrations loaded (756 runs each).
# usage: bench/http/run.sh [BUILD_DIR]   (DURATION=seconds per wrk run, default 3;
#        ROUNDS=interleaved rounds, default 5)
# Prints medians; asserts nothing. Needs wrk, curl, python3.
set -eu
BUILD=${1:-build}
DUR=${DURATION:-3}
ROUNDS=${ROUNDS:-5}
PASCALD=$BUILD/bin/pascald
PASCAL=$BUILD/bin/pascal
BARE=$BUILD/bench/bare_mhd
for b in "$PASCALD" "$PASCAL" "$BARE"; do
  [ -x "$b" ] || { echo "missing $b (build first: cmake --build $BUILD)" >&2; exit 2; }
done
command -v wrk >/dev/null || { echo "wrk is not installed" >&2; exit 2; }
tmp=$(mktemp -d)
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM

# 10 synthetic scan calibrations (different noise seeds: 10 distinct bundles)
mkdir "$tmp/bundles"
for seed in 1 2 3 4 5 6 7 8 9 10; do
  "$PASCAL" synth --law "scan,seed=$seed" -o "$tmp/bundles/scan-$seed.json"
done

# start "$@" in the background, wait for its "listening on http://..." line
start() {
  out=$tmp/$1.out
  shift
  "$@" >"$out" 2>"$out.err" &
  pid=$!
  pids="$pids $pid"
  i=0
  until grep -q "listening on http://" "$out" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 600 ] || { cat "$out.err" >&2; exit 1; }
    sleep 0.1
  done
  url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$out" | head -n 1)
}

start pascald "$PASCALD" --listen 127.0.0.1:0 --db "$tmp/pascal.db" --bundles "$tmp/bundles"
PD_URL=$url PD_PID=$pid
start bare "$BARE" 0
BARE_URL=$url

rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
loaded=$(curl -s "$PD_URL/healthz" | python3 -c 'import json,sys; print(json.load(sys.stdin)["calibrations_loaded"])')
rss_loaded=$(rss_kib "$PD_PID")

Q="device=sim-gb10&o=1&path=tma&d=2&m=6&N=4096&W=16"
curl -sf "$PD_URL/v1/predict?$Q" >/dev/null || { echo "predict failed" >&2; exit 1; }

# wrk -> "p50_us p99_us req_per_s"
measure() {
  wrk -t2 -c4 -d"${DUR}s" --latency "$1" | awk '
    function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1e6; return v }
    $1 == "50%" { p50 = us($2) } $1 == "99%" { p99 = us($2) } $1 == "Requests/sec:" { rps = $2 }
    END { printf "%.1f %.1f %.0f\n", p50, p99, rps }'
}
wrk -t2 -c4 -d1s "$PD_URL/v1/predict?$Q" >/dev/null   # warm-up
: >"$tmp/bare.txt"; : >"$tmp/compact.txt"; : >"$tmp/full.txt"
r=0
while [ $r -lt "$ROUNDS" ]; do
  measure "$BARE_URL/" >>"$tmp/bare.txt"
  measure "$PD_URL/v1/predict?$Q&explain=false" >>"$tmp/compact.txt"
  measure "$PD_URL/v1/predict?$Q" >>"$tmp/full.txt"
  r=$((r + 1))
done
# median of column $2 of file $1
med() { sort -n -k "$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
bare_p50=$(med "$tmp/bare.txt" 1) bare_p99=$(med "$tmp/bare.txt" 2) bare_rps=$(med "$tmp/bare.txt" 3)
cp_p50=$(med "$tmp/compact.txt" 1) cp_p99=$(med "$tmp/compact.txt" 2) cp_rps=$(med "$tmp/compact.txt" 3)
pd_p50=$(med "$tmp/full.txt" 1) pd_p99=$(med "$tmp/full.txt" 2) pd_rps=$(med "$tmp/full.txt" 3)

# 10,000-query batch (varied keys, sizes and horizons), median of 11 posts
python3 - "$tmp/batch.json" <<'PY'
import json, sys
ms = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16]
qs = []
for i in range(10000):
    fam = [(1, "tma", 2), (1, "tma", 4), (2, "tma", 2), (1, "sync", 0)][i % 4]
    qs.append({"device": "sim-gb10", "o": fam[0], "path": fam[1], "d": fam[2],
               "m": ms[i % len(ms)], "N": 2048 + 37 * (i % 97), "W": 1 + (i % 64)})
json.dump({"queries": qs}, open(sys.argv[1], "w"))
PY
batch_ms=$(for i in 1 2 3 4 5 6 7 8 9 10 11; do
  curl -s -o "$tmp/batch.out" -w '%{time_total}\n' -H 'Content-Type: application/json' \
       --data-binary @"$tmp/batch.json" "$PD_URL/v1/predict"
done | sort -n | sed -n 6p | awk '{printf "%.1f", $1 * 1000}')
batch_ok=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["ok"], "/", d["count"])' "$tmp/batch.out")
rss_after=$(rss_kib "$PD_PID")

echo "pascald HTTP benchmark (wrk -t2 -c4, ${ROUNDS} interleaved rounds of ${DUR}s, medians; $(nproc) cores)"
printf '  bare libmicrohttpd           : p50 %8.1f us  p99 %8.1f us  %8.0f req/s\n' "$bare_p50" "$bare_p99" "$bare_rps"
printf '  GET /v1/predict explain=false: p50 %8.1f us  p99 %8.1f us  %8.0f req/s  (%.2f of bare)\n' \
       "$cp_p50" "$cp_p99" "$cp_rps" "$(awk -v a="$cp_rps" -v b="$bare_rps" 'BEGIN { print a / b }')"
printf '  GET /v1/predict (explained)  : p50 %8.1f us  p99 %8.1f us  %8.0f req/s  (%.2f of bare)\n' \
       "$pd_p50" "$pd_p99" "$pd_rps" "$(awk -v a="$pd_rps" -v b="$bare_rps" 'BEGIN { print a / b }')"
printf '  batch of 10,000 queries      : median %.1f ms (answered %s)\n' "$batch_ms" "$batch_ok"
printf '  RSS                          : %d KiB with %s calibrations loaded, %d KiB after the load\n' \
       "$rss_loaded" "$loaded" "$rss_after"
