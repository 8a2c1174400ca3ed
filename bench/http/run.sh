#!/bin/sh
# bench/http/run.sh - pascald's read routes against the HTTP ceiling, in one
# command, printed as one table (README "Performance" quotes it). pascald
# serves the shipped sim-gb10 scan calibration (deploy/calibrations) beside
# nine synthetic ones; the queries name sim-gb10.
#   1. GET /v1/predict explained (the default), GET /v1/predict explain=false,
#      POST /v1/predict (one query) and GET /v1/bounds, each against
#      bench/http/bare_mhd (libmicrohttpd answering a fixed small JSON with
#      the same daemon flags) at 4, 8 and 64 connections (wrk -t1). The five
#      loads alternate within each of ROUNDS rounds, so that a shared,
#      noisy machine slows them alike; each route's throughput is quoted as
#      the median over the rounds of its ratio to the bare handler's in the
#      same round (min-max beside it), with its median p99 latency, and its
#      server CPU per request (time on the CPU of the serving process's
#      threads over the requests wrk completed, /proc/PID/task/*/schedstat)
#      as the median over the rounds and as the median of its ratio to the
#      bare handler's in the same round;
#   2. one POST batch of 1,000 and of 10,000 queries: median wall time over
#      11 posts (curl), min-max, and the server CPU per query;
#   3. the refusal of a batch one item over the limit (10,001 items): median
#      time to the 413, next to the time the bare handler takes to receive
#      the same body (the upload alone);
#   4. RSS: pascald with 10 calibrations loaded, after the loads; and a
#      second pascald with the limits raised (--batch-max 100000) around a
#      100,000-query batch: steady (after warm-up), peak during, 1 s after.
# Targets (benchmarks, not tests): every route's server CPU per request
# <= 1.25x bare's and its throughput >= 0.85 of bare at 4 and 8 connections,
# p99 <= 1 ms at 8, batch of 10,000 <= 10 ms with <= 1 us of server CPU per
# query, refusal <= 1 ms beyond the upload alone (bare receiving the same
# body), RSS 1 s after the 100,000 batch within 20% of steady. A missed target is
# printed with its shortfall. The load average (uptime) is printed before
# and after: on a shared machine the figures are only as quiet as it was.
# usage: bench/http/run.sh [BUILD_DIR]   (DURATION=seconds per wrk run,
#        default 2; ROUNDS=alternating rounds, default 3; CONNS="4 8 64")
# Needs wrk, curl, python3.
set -eu
BUILD=${1:-build}
DUR=${DURATION:-2}
ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-"4 8 64"}
PASCALD=$BUILD/bin/pascald
PASCAL=$BUILD/bin/pascal
BARE=$BUILD/bench/bare_mhd
for b in "$PASCALD" "$PASCAL" "$BARE"; do
  [ -x "$b" ] || { echo "missing $b (build first: cmake --build $BUILD)" >&2; exit 2; }
done
command -v wrk >/dev/null || { echo "wrk is not installed" >&2; exit 2; }
load_before=$(uptime | sed 's/.*load average: //')
# $tmp, start (common.sh); the shipped sim-gb10 scan calibration and 9
# synthetic ones (different noise seeds: distinct bundles), 10 in all
. "$(dirname "$0")/common.sh"
for seed in 1 2 3 4 5 6 7 8 9; do
  "$PASCAL" synth --law "scan,seed=$seed" -o "$tmp/bundles/scan-$seed.json"
done

start pascald "$PASCALD" --listen 127.0.0.1:0 --db "$tmp/pascal.db" --bundles "$tmp/bundles"
PD_URL=$url PD_PID=$pid
start bare "$BARE" 0
BARE_URL=$url BARE_PID=$pid

rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
loaded=$(curl -s "$PD_URL/healthz" | python3 -c 'import json,sys; print(json.load(sys.stdin)["calibrations_loaded"])')
rss_loaded=$(rss_kib "$PD_PID")

Q="device=sim-gb10&o=1&path=tma&d=4&m=6&N=4096&W=16"
B="N=4096&C=1024&phases=0,100,700,1500,2200,3000,3900"
for u in "$PD_URL/v1/predict?$Q" "$PD_URL/v1/bounds?$B"; do
  curl -sf "$u" >/dev/null || { echo "request failed: $u" >&2; exit 1; }
done

# CPU seconds (user + system) the process PID has used so far, exited
# threads included (a batch's fan-out threads), in clock ticks (10 ms)
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f\n", ($14 + $15) / hz }' "/proc/$1/stat"; }
# the same to the nanosecond, over its live threads (schedstat's time on
# the CPU): for loads that start no thread (a request, a refusal)
cpu_ns_s() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.6f\n", s / 1e9 }'; }
# measure PID CONNS WRK-ARGS... -> "p99_us req_per_s server_cpu_us_per_request"
measure() {
  p=$1 c=$2
  shift 2
  a=$(cpu_ns_s "$p")
  wrk -t1 -c"$c" -d"${DUR}s" --latency "$@" >"$tmp/wrk.out"
  b=$(cpu_ns_s "$p")
  awk -v a="$a" -v b="$b" '
    function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1e6; return v }
    $1 == "99%" { p99 = us($2) } $1 == "Requests/sec:" { rps = $2 } $2 == "requests" && $3 == "in" { n = $1 }
    END { printf "%.1f %.0f %.2f\n", p99, rps, (b - a) * 1e6 / n }' "$tmp/wrk.out"
}
LOADS="bare get_explained get_compact post_single get_bounds"
run_load() { # NAME CONNS
  case $1 in
    bare) measure "$BARE_PID" "$2" "$BARE_URL/" ;;
    get_explained) measure "$PD_PID" "$2" "$PD_URL/v1/predict?$Q" ;;
    get_compact) measure "$PD_PID" "$2" "$PD_URL/v1/predict?$Q&explain=false" ;;
    post_single) measure "$PD_PID" "$2" -s "$(dirname "$0")/post_single.lua" "$PD_URL/v1/predict" ;;
    get_bounds) measure "$PD_PID" "$2" "$PD_URL/v1/bounds?$B" ;;
  esac
}
wrk -t1 -c4 -d1s "$PD_URL/v1/predict?$Q" >/dev/null # warm-up
for c in $CONNS; do
  r=0
  while [ $r -lt "$ROUNDS" ]; do
    for l in $LOADS; do run_load "$l" "$c" >>"$tmp/$l.$c"; done
    r=$((r + 1))
  done
done
rss_after_load=$(rss_kib "$PD_PID")

# batch bodies: N varied scan queries (batch_bodies.py)
python3 "$(dirname "$0")/batch_bodies.py" "$tmp" 1000 10000 10001 100000
# post URL FILE -> one line per post: seconds (11 posts)
post11() {
  for i in 1 2 3 4 5 6 7 8 9 10 11; do
    curl -s -o "$tmp/post.out" -w '%{http_code} %{time_total}\n' -H 'Content-Type: application/json' \
         --data-binary @"$2" "$1"
  done
}
# stats of column 2 (seconds) -> "median min max" in ms
ms_stats() { awk '{print $2 * 1000}' | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f %.2f %.2f", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
# cpu_per_post PID SECONDS_BEFORE -> server CPU ms per post of the last 11
cpu_per_post() { awk -v a="$2" -v b="$(cpu_s "$1")" 'BEGIN { printf "%.2f", (b - a) * 1000 / 11 }'; }
c0=$(cpu_s "$PD_PID")
b1k=$(post11 "$PD_URL/v1/predict" "$tmp/batch-1000.json" | ms_stats)
b1k_cpu=$(cpu_per_post "$PD_PID" "$c0")
c0=$(cpu_s "$PD_PID")
b10k=$(post11 "$PD_URL/v1/predict" "$tmp/batch-10000.json" | ms_stats)
b10k_cpu=$(cpu_per_post "$PD_PID" "$c0")
batch_ok=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["ok"], "/", d["count"])' "$tmp/post.out")
c0=$(cpu_ns_s "$PD_PID")
post11 "$PD_URL/v1/predict" "$tmp/batch-10001.json" >"$tmp/refusals"
refusal_cpu=$(awk -v a="$c0" -v b="$(cpu_ns_s "$PD_PID")" 'BEGIN { printf "%.3f", (b - a) * 1000 / 11 }')
refusal_codes=$(awk '{print $1}' "$tmp/refusals" | sort -u | tr '\n' ' ')
refusal=$(ms_stats <"$tmp/refusals")
upload=$(post11 "$BARE_URL/" "$tmp/batch-10001.json" | ms_stats)

# a 100,000-query batch on a daemon with the limits raised: RSS steady,
# peak during (sampled every 2 ms), 1 s after
start big "$PASCALD" --listen 127.0.0.1:0 --db "$tmp/big.db" --bundles "$tmp/bundles" \
  --batch-max 100000 --body-max 16777216
BIG_URL=$url BIG_PID=$pid
post11 "$BIG_URL/v1/predict" "$tmp/batch-1000.json" >/dev/null
wrk -t1 -c8 -d1s "$BIG_URL/v1/predict?$Q" >/dev/null
sleep 1
rss_steady=$(rss_kib "$BIG_PID")
( peak=0; while [ ! -e "$tmp/big.done" ]; do r=$(rss_kib "$BIG_PID"); [ "$r" -gt "$peak" ] && peak=$r; echo "$peak" >"$tmp/big.peak"; sleep 0.002; done ) &
sampler=$!
big_s=$(curl -s -o "$tmp/big.out" -w '%{time_total}' -H 'Content-Type: application/json' \
        --data-binary @"$tmp/batch-100000.json" "$BIG_URL/v1/predict")
touch "$tmp/big.done"
wait "$sampler" 2>/dev/null || true
big_ok=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["ok"], "/", d["count"])' "$tmp/big.out")
sleep 1
rss_big_after=$(rss_kib "$BIG_PID")
rss_big_peak=$(cat "$tmp/big.peak")
load_after=$(uptime | sed 's/.*load average: //')

# ---- the table ---------------------------------------------------------------
# ratio_stats LOAD CONNS -> "median min max" of LOAD's req/s over bare's, round by round
ratio_stats() {
  paste -d' ' "$tmp/$1.$2" "$tmp/bare.$2" | awk '{ print $2 / $5 }' | sort -n |
    awk '{ v[NR] = $1 } END { printf "%.2f %.2f %.2f", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
# cpu_ratio_stats LOAD CONNS -> "median min max" of LOAD's CPU per request over bare's, round by round
cpu_ratio_stats() {
  paste -d' ' "$tmp/$1.$2" "$tmp/bare.$2" | awk '{ print $3 / $6 }' | sort -n |
    awk '{ v[NR] = $1 } END { printf "%.2f %.2f %.2f", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
col_median() { awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "pascald HTTP benchmark: wrk -t1, ${ROUNDS} alternating rounds of ${DUR} s per load, $(nproc) cores"
echo "load average before: $load_before; after: $load_after"
echo "(req/s and p99: wrk; 'of bare': the route's req/s over bare's in the same round; CPU us/req: the"
echo " server's CPU time per request (schedstat), which a loaded machine disturbs far less than req/s)"
printf '%-19s %5s %8s %18s %9s %11s %18s %s\n' "route" "conns" "req/s" "of bare (min-max)" "p99 us" "CPU us/req" "x bare (min-max)" "targets"
for c in $CONNS; do
  printf '%-19s %5s %8s %18s %9s %11s %18s\n' "bare libmicrohttpd" "$c" "$(col_median "$tmp/bare.$c" 2)" "1" \
         "$(col_median "$tmp/bare.$c" 1)" "$(col_median "$tmp/bare.$c" 3)" "1"
  for l in get_explained get_compact post_single get_bounds; do
    set -- $(cpu_ratio_stats "$l" "$c")
    cpu_x="$1 ($2-$3)"
    verdict=$(awk -v r="$1" 'BEGIN { if (r <= 1.25) print "CPU ok"; else printf "CPU MISSED by %.2fx", r - 1.25 }')
    set -- $(ratio_stats "$l" "$c")
    p99=$(col_median "$tmp/$l.$c" 1)
    if [ "$c" = 4 ] || [ "$c" = 8 ]; then
      verdict="$verdict, $(awk -v r="$1" 'BEGIN { if (r >= 0.85) print "ratio ok"; else printf "ratio MISSED by %.2f", 0.85 - r }')"
    fi
    if [ "$c" = 8 ]; then
      verdict="$verdict, $(awk -v p="$p99" 'BEGIN { if (p <= 1000) print "p99 ok"; else printf "p99 MISSED by %.0f us", p - 1000 }')"
    fi
    printf '%-19s %5s %8s %18s %9s %11s %18s %s\n' "$l" "$c" "$(col_median "$tmp/$l.$c" 2)" "$1 ($2-$3)" "$p99" \
           "$(col_median "$tmp/$l.$c" 3)" "$cpu_x" "$verdict"
  done
done
set -- $b1k
printf 'batch of 1,000 queries    : median %.2f ms (min %.2f, max %.2f); server CPU %s ms per batch, %.2f us per query\n' \
       "$1" "$2" "$3" "$b1k_cpu" "$(awk -v c="$b1k_cpu" 'BEGIN { print c }')"
set -- $b10k
printf 'batch of 10,000 queries   : median %.2f ms (min %.2f, max %.2f), server CPU %s ms, %.2f us per query, answered %s; %s, %s\n' \
       "$1" "$2" "$3" "$b10k_cpu" "$(awk -v c="$b10k_cpu" 'BEGIN { print c / 10 }')" "$batch_ok" \
       "$(awk -v t="$1" 'BEGIN { if (t <= 10) print "time ok"; else printf "time 10 ms MISSED by %.1f ms", t - 10 }')" \
       "$(awk -v c="$b10k_cpu" 'BEGIN { if (c / 10 <= 1) print "CPU ok"; else printf "CPU 1 us/query MISSED by %.2f us", c / 10 - 1 }')"
up_median=${upload%% *}
set -- $refusal
printf 'batch of 10,001 refused   : median %.2f ms (min %.2f, max %.2f), server CPU %s ms, status %s; %.2f ms beyond the upload: %s\n' \
       "$1" "$2" "$3" "$refusal_cpu" "$refusal_codes" "$(awk -v t="$1" -v u="$up_median" 'BEGIN { print t - u }')" \
       "$(awk -v t="$1" -v u="$up_median" 'BEGIN { if (t - u <= 1) print "target ok"; else printf "target 1 ms MISSED by %.2f ms", t - u - 1 }')"
set -- $upload
printf '  the same body to bare   : median %.2f ms (min %.2f, max %.2f): receiving it alone\n' "$1" "$2" "$3"
printf 'RSS, 10 calibrations      : %d KiB loaded, %d KiB after the loads\n' "$rss_loaded" "$rss_after_load"
printf 'RSS, 100,000-query batch  : steady %d KiB, peak during %d KiB, 1 s after %d KiB (%.2f of steady; %s); batch %.0f ms, answered %s\n' \
       "$rss_steady" "$rss_big_peak" "$rss_big_after" \
       "$(awk -v a="$rss_big_after" -v s="$rss_steady" 'BEGIN { print a / s }')" \
       "$(awk -v a="$rss_big_after" -v s="$rss_steady" 'BEGIN { if (a <= 1.2 * s) print "target ok"; else printf "target MISSED by %.0f%%", (a / s - 1.2) * 100 }')" \
       "$(awk -v t="$big_s" 'BEGIN { print t * 1000 }')" "$big_ok"
