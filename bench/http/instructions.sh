#!/bin/sh
# bench/http/instructions.sh - instructions per request of pascald's read
# routes and of the bare libmicrohttpd handler, and per query of a
# 10,000-query batch, under valgrind callgrind (docs/http-performance.md, the
# rounds of issue 36): exact counts where CPU times move with the load.
# Each server runs under callgrind (pascald with --threads 1 and the
# shipped sim-gb10 scan calibration); every request kind is sent once to
# warm up, then the counters are zeroed, 200 keep-alive GETs go out from
# one curl (or one batch POST) and the counters are dumped: the dump's
# total (user space of the whole daemon) over 200 (or 10,000). The first
# window after a batch carries the batch's late clean-up and is dropped.
# usage: bench/http/instructions.sh [BUILD_DIR]
# Needs valgrind, curl, python3.
set -eu
BUILD=${1:-build}
PASCALD=$BUILD/bin/pascald
BARE=$BUILD/bench/bare_mhd
for b in "$PASCALD" "$BARE"; do
  [ -x "$b" ] || { echo "missing $b (build first)" >&2; exit 2; }
done
for t in valgrind callgrind_control curl python3; do
  command -v $t >/dev/null || { echo "$t is not installed" >&2; exit 2; }
done
. "$(dirname "$0")/common.sh" # $tmp with the calibration, start
python3 "$(dirname "$0")/batch_bodies.py" "$tmp" 10000

# serve NAME CMD...: start CMD under callgrind (its dumps $tmp/cg.NAME*)
serve() {
  name=$1
  shift
  start "$name" valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$name" "$@"
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }
# measure LABEL DIVISOR CURL_ARGS...: zero, run, dump; prints total / DIVISOR
measure() {
  label=$1; div=$2; shift 2
  callgrind_control -z "$pid" >/dev/null 2>&1
  curl -s -o /dev/null "$@"
  callgrind_control -d "$pid" >/dev/null 2>&1
  tot=$(awk '/^(summary|totals):/ { print $2 }' "$(ls -t "$tmp"/cg.* | head -n 1)" | tail -n 1)
  [ -n "$label" ] && awk -v l="$label" -v t="$tot" -v d="$div" \
    'BEGIN { printf "%-36s %9.0f  (%d in all)\n", l, t / d, t }'
  return 0
}
# the curl config for 200 GETs of one URL on one connection
gets() { k=0; while [ $k -lt 200 ]; do printf 'url = "%s"\noutput = "/dev/null"\n' "$1"; k=$((k + 1)); done >"$tmp/gets"; }

echo "instructions (callgrind), per request or per query:"
serve bare "$BARE" 0
curl -s -o /dev/null "$url/"
gets "$url/"
measure "bare libmicrohttpd handler" 200 -K "$tmp/gets"
stop
serve pascald "$PASCALD" --threads 1 --listen 127.0.0.1:0 --db "$tmp/p.db" --bundles "$tmp/bundles"
Q="device=sim-gb10&o=1&path=tma&d=4&m=6&N=4096&W=16"
explained=$url/v1/predict?$Q
off=$url/v1/predict?device=sim-gb10\&o=1\&path=tma\&d=2\&m=6\&N=4096\&W=16
compact=$url/v1/predict?$Q\&explain=false
bounds=$url/v1/bounds?N=4096\&C=1024\&phases=0,100,700,1500,2200,3000,3900
for u in "$explained" "$off" "$compact" "$bounds"; do curl -s -o /dev/null "$u"; done
curl -s -o /dev/null -H 'Content-Type: application/json' --data-binary @"$tmp/batch-10000.json" "$url/v1/predict"
gets "$explained"
measure "" 200 -K "$tmp/gets" # the window after the batch, dropped
measure "explained GET /v1/predict" 200 -K "$tmp/gets"
gets "$off"
measure "explained, off its references (d=2)" 200 -K "$tmp/gets"
gets "$compact"
measure "compact GET /v1/predict" 200 -K "$tmp/gets"
gets "$bounds"
measure "GET /v1/bounds (7 phases)" 200 -K "$tmp/gets"
measure "10,000-query batch, per query" 10000 -H 'Content-Type: application/json' \
  --data-binary @"$tmp/batch-10000.json" "$url/v1/predict"
stop
