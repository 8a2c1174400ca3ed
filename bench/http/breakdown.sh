#!/bin/sh
# bench/http/breakdown.sh - where pascald's server CPU per request goes, by
# stage, for one read route (docs/http-performance.md "Where the CPU goes"): pascald
# serves the shipped sim-gb10 scan calibration under wrk (-t1 -c4), perf
# samples its threads with call stacks, and each sample is charged to the
# innermost stage on its stack (a stage is a pascald function; the rest is
# libmicrohttpd, the kernel's socket work and libc). The CPU per request
# (time on the CPU of its threads, /proc/PID/task/*/schedstat, over the
# requests wrk completed) is
# split by the samples' shares.
# usage: bench/http/breakdown.sh [BUILD_DIR] [ROUTE]
#        ROUTE: get_explained (default), get_compact, post_single, get_bounds
# Needs perf (Debian: linux-perf), wrk, curl.
set -eu
BUILD=${1:-build}
ROUTE=${2:-get_explained}
DUR=${DURATION:-3}
PASCALD=$BUILD/bin/pascald
[ -x "$PASCALD" ] || { echo "missing $PASCALD (build first)" >&2; exit 2; }
for t in perf wrk curl; do command -v $t >/dev/null || { echo "$t is not installed" >&2; exit 2; }; done
. "$(dirname "$0")/common.sh" # $tmp with the calibration, start
start pascald "$PASCALD" --listen 127.0.0.1:0 --db "$tmp/p.db" --bundles "$tmp/bundles"
Q="device=sim-gb10&o=1&path=tma&d=4&m=6&N=4096&W=16"
case $ROUTE in
  get_explained) set -- "$url/v1/predict?$Q" ;;
  get_compact) set -- "$url/v1/predict?$Q&explain=false" ;;
  post_single) set -- -s "$(dirname "$0")/post_single.lua" "$url/v1/predict" ;;
  get_bounds) set -- "$url/v1/bounds?N=4096&C=1024&phases=0,100,700,1500,2200,3000,3900" ;;
  *) echo "unknown route $ROUTE" >&2; exit 2 ;;
esac
wrk -t1 -c4 -d1s "$@" >/dev/null # warm-up
cpu_s() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.6f\n", s / 1e9 }'; }
a=$(cpu_s "$pid")
wrk -t1 -c4 -d"${DUR}s" "$@" >"$tmp/wrk" &
wrk_pid=$!
sleep 0.3
perf record -q -g --call-graph dwarf,8192 -F 1000 -p "$pid" -o "$tmp/perf.data" -- sleep "$((DUR - 1))" 2>/dev/null
wait "$wrk_pid"
b=$(cpu_s "$pid")
n=$(awk '$2 == "requests" && $3 == "in" { print $1 }' "$tmp/wrk")
us=$(awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN { printf "%.2f", (b - a) * 1e6 / n }')
echo "pascald $ROUTE: $n requests, server CPU $us us per request (load average: $(uptime | sed 's/.*load average: //'))"
# Stages, innermost first wins: "pattern stage" (perf's symbol names).
cat >"$tmp/stages" <<'ST'
pascal_validation_expect expected error and interval (validation, interval)
pascal_time_ time (calibrated or on peaks)
pascal_answer_query prediction (model lookup and arithmetic)
pascal_codec_answer_write answer JSON writing
pascal_codec_bounds bounds JSON writing
pd_query_read query reading (fields to a query)
pd_query_answer calibration lookup (registry)
pd_fields_from_args query-string parsing
post_from_text POST body reading
pd_h_bounds bounds handler
pd_route_match routing
check_access access check
pd_stats_record metrics
pd_predict_count metrics
pd_conns_ connection bookkeeping (pascald)
pd_reqhead_check request head checks
send_reply response headers and queueing
on_completed request completion (free, metrics)
on_request request state (pascald, rest)
ST
perf script -i "$tmp/perf.data" -F ip,sym,dso 2>/dev/null | awk -v stagefile="$tmp/stages" -v us="$us" '
  BEGIN { while ((getline l < stagefile) > 0) { k = l; sub(/ .*/, "", k); s = l; sub(/^[^ ]* /, "", s); pat[++np] = k; name[np] = s } }
  # one sample: frames innermost first, f[i] its symbol, d[i] its object
  function flush(   i, j, st) {
    if (!nf) return
    st = ""
    for (i = 1; i <= nf && st == ""; i++)
      for (j = 1; j <= np && st == ""; j++)
        if (index(f[i], pat[j]) == 1) st = name[j]
    for (i = 1; i <= nf && st == ""; i++) { # outside pascald: the first object but libc
      if (d[i] ~ /kernel/) st = "kernel (sockets, epoll, scheduling)"
      else if (d[i] ~ /microhttpd/) st = "libmicrohttpd (parsing, buffers, its own bookkeeping)"
    }
    if (st == "") st = "other (libc, unattributed)"
    cnt[st]++; total++; nf = 0
  }
  NF == 0 { flush(); next }
  { f[++nf] = $2; d[nf] = $NF }
  END { flush(); for (k in cnt) printf "  %5.1f%%  %6.2f us  %s\n", 100 * cnt[k] / total, us * cnt[k] / total, k }' | sort -rn
