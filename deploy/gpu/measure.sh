#!/bin/bash
# measure.sh - one resumable measurement of a device, for a GPU host that is
# available briefly (docs/gpu.md "A GPU for half an hour"), and for the CPU
# sim device in CI. Phases, in order, each under its own timeout (and the
# remaining --budget-s), each writing its results as soon as it ends, each
# skipped on a later run when its results exist:
#
#   env       host, driver, toolkit, GPU name and constants      (archive)
#   probe     pascal-agent --probe: fill metric, cold-read ratio,
#             capacity scan (3 repeats), proposed C, device peaks
#             (microbenchmarks, registered with the device)        (archive)
#   selftest  the GPU test programs (cuda only)                   (archive)
#   static    the paper's cluster experiment through the backend  static.json
#   plans     pascal plan for this device from the probe          (archive)
#   scan      scan calibration through pascald + one agent,
#             frozen and exported                                 scan.json
#   heldout   the held-out scan panel (two plans), frozen,
#             exported as one document of two bundles             heldout.json
#   gemm      GEMM calibration and held-out shapes                gemm.json,
#                                                                 gemm-heldout.json
#   report    device, provenance, phases, static table, LOKO,  report.json,
#             held-out comparison                                 report.md
#
# Everything else (logs, probe and env facts, plans, the pascald database
# with partial progress, phase states) is kept in one archive,
# measure-work.tar.gz, rewritten after every phase and unpacked at the start
# of the next run: at most 8 files in --out, so that they all come back from
# a host that returns only a few files.
#
# Usage: measure.sh [--bundle DIR] --out DIR [--backend cuda|sim] [--phases LIST]
#                   [--budget-s S] [--profile P] [--device NAME] [--rounds H]
# (--bundle defaults to the bundle this script is in.)
set -uo pipefail

PHASES_ALL="env probe selftest static plans scan heldout gemm report"
# Default timeout of each phase, seconds (the budget may shorten it).
declare -A TIMEOUT=([env]=60 [probe]=420 [selftest]=240 [static]=420 [plans]=60 [scan]=3600
                    [heldout]=3600 [gemm]=3600 [report]=300)

usage() {
  sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
}

die() { echo "measure.sh: $*" >&2; exit 2; }

bundle="" out="" backend=cuda phases="$PHASES_ALL" budget=0 profile="" device="" rounds=""
while [ $# -gt 0 ]; do
  case "$1" in
    --help|-h) usage; exit 0 ;;
    --bundle) bundle=${2:-}; shift 2 ;;
    --out) out=${2:-}; shift 2 ;;
    --backend) backend=${2:-}; shift 2 ;;
    --phases) phases=$(echo "${2:-}" | tr ',' ' '); shift 2 ;;
    --budget-s) budget=${2:-}; shift 2 ;;
    --profile) profile=${2:-}; shift 2 ;;
    --device) device=${2:-}; shift 2 ;;
    --rounds) rounds=${2:-}; shift 2 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
# Run from a bundle's bin/, the bundle is the default.
if [ -z "$bundle" ] && [ -x "$(dirname "$0")/pascald" ]; then bundle=$(dirname "$0")/..; fi
[ -n "$bundle" ] || die "--bundle DIR is required"
[ -n "$out" ] || die "--out DIR is required"
case "$backend" in cuda|sim) ;; *) die "--backend must be cuda or sim, got '$backend'" ;; esac
[[ "$budget" =~ ^[0-9]+$ ]] || die "--budget-s must be whole seconds, got '$budget'"
[ -z "$rounds" ] || [[ "$rounds" =~ ^[0-9]+$ ]] || die "--rounds must be a whole number"
for p in $phases; do
  [[ " $PHASES_ALL " == *" $p "* ]] || die "unknown phase '$p' (phases: $PHASES_ALL)"
done
[ -z "$device" ] || [[ "$device" =~ ^[A-Za-z0-9._-]{1,63}$ ]] || die "--device: 1-63 of A-Z a-z 0-9 . _ -"
bundle=$(cd "$bundle" && pwd) || die "no bundle folder"
BIN=$bundle/bin
for p in pascald pascal-agent pascal; do
  [ -x "$BIN/$p" ] || die "$BIN/$p is missing (build the bundle: make gpu-bundle)"
done
[ -z "$profile" ] || profile=$(cd "$(dirname "$profile")" && echo "$PWD/$(basename "$profile")")
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
ARCHIVE=$out/measure-work.tar.gz
START=$(date +%s)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pascal-measure.XXXXXX") || die "cannot create a work folder"
DAEMON_PID=""
cleanup() {
  if [ -n "$DAEMON_PID" ]; then kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
if [ -f "$ARCHIVE" ]; then
  tar -xzf "$ARCHIVE" -C "$WORK" || die "cannot unpack $ARCHIVE"
fi
mkdir -p "$WORK/logs" "$WORK/plans"
AGENT_OPTS=(--backend "$backend")
[ -n "$profile" ] && AGENT_OPTS+=(--profile "$profile")

# The last thing logged: a failed phase's record names it.
LAST_LOG=""
log() {
  LAST_LOG="$*"
  echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$WORK/logs/measure.log" >&2
}

# Seconds a phase may run: its default, cut to what is left of the budget.
phase_limit() {
  local t=${TIMEOUT[$1]}
  if [ "$budget" -gt 0 ]; then
    local left=$((budget - ($(date +%s) - START)))
    [ "$left" -lt "$t" ] && t=$left
  fi
  echo "$t"
}

# Pack the work folder (the daemon's database must be consistent: phases
# that use it stop the daemon first).
save_work() {
  tar -czf "$ARCHIVE.tmp" -C "$WORK" . && mv "$ARCHIVE.tmp" "$ARCHIVE"
}

record() { # phase state seconds message
  printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$1" "$2" "$3" "$4" >> "$WORK/phases.tsv"
  log "phase $1: $2 ($3 s) $4"
}

json_escape() { sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/ /g' | tr -d '\r' | tr '\n' ' '; }

# --- HTTP to the local pascald (curl, else Python's urllib) ----------------
http() { # method path [body-file] -> body on stdout; HTTP status in $WORK/status
  local method=$1 path=$2 body=${3:-}
  if command -v curl >/dev/null; then
    local args=(-s -o "$WORK/resp" -w '%{http_code}' -X "$method" -H "Authorization: Bearer $TOKEN")
    [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "@$body")
    curl "${args[@]}" "$URL$path" > "$WORK/status" || echo 000 > "$WORK/status"
  else
    python3 - "$method" "$URL$path" "$TOKEN" "$body" "$WORK/resp" > "$WORK/status" <<'PY' || echo 000 > "$WORK/status"
import sys, urllib.request, urllib.error
method, url, token, body, resp = sys.argv[1:6]
data = open(body, "rb").read() if body else None
req = urllib.request.Request(url, data=data, method=method, headers={"Authorization": "Bearer " + token})
if data is not None:
    req.add_header("Content-Type", "application/json")
try:
    r = urllib.request.urlopen(req, timeout=600); code, text = r.status, r.read()
except urllib.error.HTTPError as e:
    code, text = e.code, e.read()
open(resp, "wb").write(text); print(code, end="")
PY
  fi
  cat "$WORK/resp" 2>/dev/null
}
status() { cat "$WORK/status"; }

# First integer value of "key" in a compact JSON text.
json_int() { grep -o "\"$1\":[0-9][0-9]*" | head -n 1 | cut -d: -f2; }
json_str() { grep -o "\"$1\":\"[^\"]*\"" | head -n 1 | cut -d: -f2- | tr -d '"'; }

start_daemon() {
  [ -n "$DAEMON_PID" ] && return 0
  local db=$WORK/pascal.db
  if [ ! -f "$WORK/admin.token" ]; then
    "$BIN/pascald" token create --db "$db" --role admin --name measure > "$WORK/logs/token.log" 2>&1 ||
      { log "pascald token create failed: $(tail -n 1 "$WORK/logs/token.log")"; return 1; }
    tail -n 1 "$WORK/logs/token.log" > "$WORK/admin.token"
    chmod 600 "$WORK/admin.token"
  fi
  TOKEN=$(cat "$WORK/admin.token")
  mkdir -p "$WORK/no-bundles"
  local try port
  for try in 1 2 3 4 5 6 7 8 9 10; do
    port=$((20000 + RANDOM % 30000))
    "$BIN/pascald" --listen "127.0.0.1:$port" --db "$db" --bundles "$WORK/no-bundles" \
      >> "$WORK/logs/pascald.log" 2>&1 &
    DAEMON_PID=$!
    URL="http://127.0.0.1:$port"
    for _ in $(seq 1 50); do
      kill -0 "$DAEMON_PID" 2>/dev/null || break
      http GET /healthz > /dev/null
      [ "$(status)" = 200 ] && return 0
      sleep 0.1
    done
    kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; DAEMON_PID=""
  done
  log "pascald did not start (logs/pascald.log)"
  return 1
}

stop_daemon() {
  [ -n "$DAEMON_PID" ] || return 0
  kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; DAEMON_PID=""
}

probe_field() { json_int "$1" < "$WORK/probe.json"; }
# agent_json PHASE LOG DEST: the JSON the agent printed on its "PHASE json:"
# line of LOG, written to DEST whole or not at all
agent_json() {
  sed -n "s/^$1 json: //p" "$2" > "$3.tmp"
  [ -s "$3.tmp" ] || { log "$1: no '$1 json:' line"; return 1; }
  mv "$3.tmp" "$3"
}

device_name() {
  if [ -n "$device" ]; then echo "$device"; return; fi
  json_str name < "$WORK/probe.json" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9._\n-' '-' | sed 's/--*/-/g; s/^-//; s/-$//' | cut -c1-40
}

register_device() {
  local name=$1 extra="" line peaks
  # the probe's measured peaks (absent when a peak benchmark failed)
  peaks=$(sed -n 's/.*"peaks":\({[^}]*}\).*/,"peaks":\1/p' "$WORK/probe.json")
  # the probe's capacity scan and the static table, where the agent printed
  # them: kept with the device, so the calibrations' bundles carry them
  line=$(sed -n 's/^capacity probe: //p' "$WORK/probe.log" 2>/dev/null)
  [ -n "$line" ] && extra="$extra,\"capacity_probe\":$line"
  line=$(sed -n 's/^static table: //p' "$WORK/static.log" 2>/dev/null)
  [ -n "$line" ] && extra="$extra,\"static_experiment\":$line"
  printf '{"name":"%s","arch":"%s","sm_count":%s,"capacity_blocks":%s,"block_bytes":%s%s%s}' \
    "$name" "$(json_str arch < "$WORK/probe.json")" "$(probe_field sm_count)" \
    "$(probe_field capacity_blocks)" "$(probe_field block_bytes)" "$peaks" "$extra" > "$WORK/device.body"
  http POST /v1/devices "$WORK/device.body" > "$WORK/logs/device.json"
  case "$(status)" in 200|201) return 0 ;; esac
  if [ -n "$extra" ] && [ "$(status)" = 409 ]; then
    # a probe or static phase measured again differs from what the device
    # keeps: register the constants alone, keep the first measurement
    log "device registration: $(cat "$WORK/logs/device.json"); registering the constants only"
    sed -i 's/,"capacity_probe":.*}$/}/; s/,"static_experiment":.*}$/}/' "$WORK/device.body"
    http POST /v1/devices "$WORK/device.body" > "$WORK/logs/device.json"
    case "$(status)" in 200|201) return 0 ;; esac
  fi
  log "device registration: HTTP $(status): $(cat "$WORK/logs/device.json")"
  return 1
}

# Measure one plan into a frozen calibration exported to $3. The calibration
# id is kept in the work folder, so an interrupted run continues it.
calibrate() { # tag plan-file export-file deadline(epoch s)
  local tag=$1 plan=$2 dest=$3 deadline=$4 name id
  name=$(device_name)
  start_daemon && register_device "$name" || return 1
  if [ -f "$WORK/$tag.id" ]; then
    id=$(cat "$WORK/$tag.id")
  else
    { printf '{"device":"%s","plan":' "$name"; cat "$plan"; printf '}'; } > "$WORK/$tag.body"
    http POST /v1/calibrations "$WORK/$tag.body" > "$WORK/logs/$tag-create.json"
    [ "$(status)" = 201 ] || { log "$tag: create: HTTP $(status): $(cat "$WORK/logs/$tag-create.json")"; return 1; }
    id=$(json_int id < "$WORK/logs/$tag-create.json")
    echo "$id" > "$WORK/$tag.id"
    log "$tag: calibration $id created"
  fi
  http GET "/v1/calibrations/$id" > "$WORK/logs/$tag-state.json"
  if [ "$(json_str state < "$WORK/logs/$tag-state.json")" = frozen ]; then
    log "$tag: calibration $id is frozen already"
  else
    log "$tag: measuring calibration $id"
    measure_runs "$tag" "$id" "$name" "$deadline" || return $?
  fi
  http GET "/v1/calibrations/$id/export" > "$dest.tmp"
  [ "$(status)" = 200 ] || { log "$tag: export: HTTP $(status)"; rm -f "$dest.tmp"; return 1; }
  mv "$dest.tmp" "$dest"
}

# Run the agent until no job is left (or the deadline), then freeze.
measure_runs() { # tag id device deadline
  local tag=$1 id=$2 name=$3 deadline=$4
  local left=$((deadline - $(date +%s)))
  [ "$left" -gt 0 ] || { log "$tag: no time left"; return 124; }
  timeout -s INT -k 10 "$left" "$BIN/pascal-agent" --server "$URL" --token-file "$WORK/admin.token" \
    --device "$name" "${AGENT_OPTS[@]}" --capacity-blocks "$(probe_field capacity_blocks)" \
    --until-idle --name "measure-$tag" >> "$WORK/logs/$tag-agent.log" 2>&1
  local rc=$?
  [ "$rc" -eq 0 ] || { log "$tag: agent exit $rc (logs/$tag-agent.log)"; return "$rc"; }
  http POST "/v1/calibrations/$id/freeze" > "$WORK/logs/$tag-freeze.json"
  case "$(status)" in 200|201) ;; *) log "$tag: freeze: HTTP $(status): $(head -c 300 "$WORK/logs/$tag-freeze.json")"; return 1 ;; esac
}

# --- the phases: each returns 0 (done), 3 (not applicable here) or another
# status (failed; 124 = timed out). $1 is the phase's deadline. ------------

phase_env() {
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "host: $(uname -srm)"
    echo "glibc: $(ldd --version 2>&1 | head -n 1)"; echo "backend: $backend"
    cat "$bundle/MANIFEST" 2>/dev/null
    if command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>&1
      nvidia-smi -q 2>&1 | head -n 60
    else
      echo "nvidia-smi: not installed"
    fi
    if command -v nvcc >/dev/null; then nvcc --version 2>&1 | tail -n 2; else echo "nvcc: not on PATH"; fi
  } > "$WORK/env.txt"
  local gpu="null"
  if command -v nvidia-smi >/dev/null; then
    gpu="\"$(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 | head -n 1 | json_escape)\""
  fi
  printf '{"date":"%s","host":"%s","backend":"%s","gpu":%s,"bundle":"%s"}\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(uname -srm | json_escape)" "$backend" "$gpu" \
    "$(head -n 2 "$bundle/MANIFEST" 2>/dev/null | tail -n 1 | json_escape)" > "$WORK/env.json"
}

phase_probe() {
  local left=$(($1 - $(date +%s)))
  timeout -k 10 "$left" "$BIN/pascal-agent" --probe "${AGENT_OPTS[@]}" > "$WORK/probe.log" 2>&1
  local rc=$?
  [ "$rc" -eq 0 ] || { log "probe: exit $rc: $(tail -n 2 "$WORK/probe.log")"; return "$rc"; }
  agent_json probe "$WORK/probe.log" "$WORK/probe.json"
}

# selftest.txt keeps the last run's exit codes for the report; only a run
# that passed (or does not apply) leaves selftest.passed, so a failed or
# timed-out self-test runs again once the bundle is rebuilt with a fix.
phase_selftest() {
  if [ "$backend" != cuda ]; then
    echo "sim backend: no GPU test programs" > "$WORK/selftest.txt"
    : > "$WORK/selftest.passed"
    return 3
  fi
  local rc=0 t
  : > "$WORK/selftest.log"
  for t in gpu_cuda_offline gpu_kernels; do
    [ -x "$BIN/$t" ] || { echo "$t: missing from the bundle" >> "$WORK/selftest.log"; log "selftest: $t is missing from the bundle"; rc=1; continue; }
    local left=$(($1 - $(date +%s)))
    timeout -k 10 "$left" "$BIN/$t" >> "$WORK/selftest.log" 2>&1
    local r=$?
    [ "$r" -eq 0 ] || { rc=$r; log "selftest: $t exit $r: $(tail -n 1 "$WORK/selftest.log" | head -c 150)"; }
    echo "$t: exit $r" >> "$WORK/selftest.log"
  done
  grep -E ': exit ' "$WORK/selftest.log" > "$WORK/selftest.txt"
  [ "$rc" -ne 0 ] || : > "$WORK/selftest.passed"
  return "$rc"
}

phase_static() {
  [ -f "$WORK/probe.json" ] || { log "static: needs the probe"; return 1; }
  local left=$(($1 - $(date +%s))) extra=()
  [ -n "$rounds" ] && extra=(--rounds "$rounds")
  timeout -k 10 "$left" "$BIN/pascal-agent" --static "${AGENT_OPTS[@]}" \
    --capacity-blocks "$(probe_field capacity_blocks)" "${extra[@]}" > "$WORK/static.log" 2>&1
  local rc=$?
  [ "$rc" -eq 0 ] || { log "static: exit $rc: $(tail -n 2 "$WORK/static.log")"; return "$rc"; }
  agent_json static "$WORK/static.log" "$out/static.json"
}

# The plans for this device (sizes from the probe's C, occupancies from its
# shared memory; GEMM shapes are the same everywhere).
phase_plans() {
  [ -f "$WORK/probe.json" ] || { log "plans: needs the probe"; return 1; }
  local p
  plan() { "$BIN/pascal" plan "$@" 2>> "$WORK/logs/plans.log" || { log "plans: $(tail -n 1 "$WORK/logs/plans.log")"; return 1; }; }
  plan --kind scan --probe "$WORK/probe.json" -o "$WORK/plans/scan.json" || return 1
  for p in 1 2; do
    plan --kind scan-heldout --part "$p" --probe "$WORK/probe.json" -o "$WORK/plans/scan-heldout-$p.json" || return 1
  done
  plan --kind gemm -o "$WORK/plans/gemm.json" && plan --kind gemm-heldout -o "$WORK/plans/gemm-heldout.json"
}

phase_scan() {
  [ -f "$WORK/plans/scan.json" ] || { log "scan: needs the plans"; return 1; }
  calibrate scan "$WORK/plans/scan.json" "$out/scan.json" "$1"
}

phase_heldout() {
  [ -f "$WORK/plans/scan-heldout-1.json" ] || { log "heldout: needs the plans"; return 1; }
  local p
  for p in 1 2; do
    [ -f "$WORK/heldout-$p.json" ] && continue
    calibrate "heldout-$p" "$WORK/plans/scan-heldout-$p.json" "$WORK/heldout-$p.json" "$1" || return $?
  done
  { printf '{"format":"pascal-heldout-parts/1","parts":['; cat "$WORK/heldout-1.json"; printf ','
    cat "$WORK/heldout-2.json"; printf ']}\n'; } > "$out/heldout.json.tmp" && mv "$out/heldout.json.tmp" "$out/heldout.json"
}

phase_gemm() {
  [ -f "$WORK/plans/gemm.json" ] || { log "gemm: needs the plans"; return 1; }
  if [ ! -f "$out/gemm.json" ]; then calibrate gemm "$WORK/plans/gemm.json" "$out/gemm.json" "$1" || return $?; fi
  calibrate gemm-heldout "$WORK/plans/gemm-heldout.json" "$out/gemm-heldout.json" "$1"
}

# The held-out comparison (`pascal evaluate`, the paper's table layout):
# the scan calibration scored on its panel (measured in two parts, joined by
# --heldout A,B), the GEMM calibration on its held-out shapes. JSON of
# {"scan": ..., "gemm": ...}, null where not measured. With an argument
# "text", the same as the readable tables.
evaluate_heldout() { # workload [--json]
  case "$1" in
    scan) [ -f "$out/scan.json" ] && [ -f "$WORK/heldout-1.json" ] && [ -f "$WORK/heldout-2.json" ] &&
            "$BIN/pascal" evaluate "$out/scan.json" --heldout "$WORK/heldout-1.json,$WORK/heldout-2.json" ${2:-} ;;
    gemm) [ -f "$out/gemm.json" ] && [ -f "$out/gemm-heldout.json" ] &&
            "$BIN/pascal" evaluate "$out/gemm.json" --heldout "$out/gemm-heldout.json" ${2:-} ;;
  esac 2>> "$WORK/logs/evaluate.log"
}
report_heldout() {
  local scan gemm
  scan=$(evaluate_heldout scan --json) || scan=null
  gemm=$(evaluate_heldout gemm --json) || gemm=null
  printf '{"scan":%s,"gemm":%s}' "$scan" "$gemm"
}
phase_report() {
  local loko_scan=null loko_gemm=null static=null probe=null envj=null
  [ -f "$out/scan.json" ] && loko_scan=$("$BIN/pascal" loko "$out/scan.json" --json 2> "$WORK/logs/loko-scan.log" || echo null)
  [ -f "$out/gemm.json" ] && loko_gemm=$("$BIN/pascal" loko "$out/gemm.json" --json 2> "$WORK/logs/loko-gemm.log" || echo null)
  [ -f "$out/static.json" ] && static=$(cat "$out/static.json")
  [ -f "$WORK/probe.json" ] && probe=$(cat "$WORK/probe.json")
  [ -f "$WORK/env.json" ] && envj=$(cat "$WORK/env.json")
  {
    printf '{"format":"pascal-measure-report/1","backend":"%s","env":%s,"probe":%s,' "$backend" "$envj" "$probe"
    printf '"phases":['
    awk -F'\t' '{last[$2]=$0} END {n=0; split("'"${PHASES_ALL% report}"'", order, " ");
      for (i=1; i in order; i++) if (order[i] in last) { split(last[order[i]], f, "\t");
        gsub(/"/, "\\\"", f[5]);
        printf "%s{\"phase\":\"%s\",\"state\":\"%s\",\"seconds\":%s,\"at\":\"%s\",\"message\":\"%s\"}",
               (n++ ? "," : ""), f[2], f[3], f[4], f[1], f[5] } }' "$WORK/phases.tsv"
    printf '],"static":%s,"loko":{"scan":%s,"gemm":%s},"heldout":%s,' "$static" "$loko_scan" "$loko_gemm" "$(report_heldout)"
    printf '"files":['
    ls "$out" | grep -v '\.tmp$' | sed 's/.*/"&"/' | paste -sd, -
    printf ']}\n'
  } > "$out/report.json.tmp"
  {
    local gpu="device not probed"
    [ -f "$WORK/probe.json" ] && gpu=$(json_str name < "$WORK/probe.json")
    echo "# PASCAL measurement: $gpu ($backend)"
    echo
    echo "Probe: \`$(cat "$WORK/probe.json" 2>/dev/null || echo none)\`"
    echo
    echo "| phase | state | seconds | at | message |"
    echo "|---|---|---|---|---|"
    awk -F'\t' '{last[$2]=$0} END {split("'"${PHASES_ALL% report}"'", order, " ");
      for (i=1; i in order; i++) if (order[i] in last) { split(last[order[i]], f, "\t");
        printf "| %s | %s | %s | %s | %s |\n", f[2], f[3], f[4], f[1], f[5] } }' "$WORK/phases.tsv"
    echo
    echo "## Probe (fill metric, cold-read ratios, capacity scan, peaks)"
    echo
    if [ -f "$WORK/probe.log" ]; then echo '```'; head -n 80 "$WORK/probe.log"; echo '```'; else echo "not run"; fi
    echo
    echo "## Self-test"
    echo
    if [ -f "$WORK/selftest.txt" ]; then echo '```'; cat "$WORK/selftest.txt"; echo '```'; else echo "not run"; fi
    echo
    echo "## Static cluster experiment (paper Table static)"
    echo
    if [ -f "$WORK/static.log" ]; then echo '```'; grep -v '^static json:' "$WORK/static.log"; echo '```'; else echo "not measured"; fi
    echo
    echo "## Leave-one-key-out (scan calibration)"
    echo
    if [ -f "$out/scan.json" ]; then echo '```'; "$BIN/pascal" loko "$out/scan.json" 2>&1 | head -n 20; echo '```'; else echo "no scan calibration yet"; fi
    echo
    echo "## Held-out panel"
    echo
    if [ -f "$out/heldout.json" ]; then
      echo "heldout.json holds the two held-out parts as frozen bundles (42 keys x 5 (N, W) x 2 repeats)."
      echo "PASCAL against the baselines on them (\`pascal evaluate\`):"
      echo; echo '```'; evaluate_heldout scan || echo "evaluation failed (logs/evaluate.log)"; echo '```'
    else
      echo "not measured"
    fi
    if [ -f "$out/gemm-heldout.json" ]; then
      echo; echo "GEMM held-out shapes:"
      echo; echo '```'; evaluate_heldout gemm || echo "evaluation failed (logs/evaluate.log)"; echo '```'
    fi
  } > "$out/report.md.tmp"
  mv "$out/report.json.tmp" "$out/report.json" && mv "$out/report.md.tmp" "$out/report.md"
}

# Results that mark a phase done.
done_file() {
  case "$1" in
    env) echo "$WORK/env.json" ;; probe) echo "$WORK/probe.json" ;;
    selftest) echo "$WORK/selftest.passed" ;; static) echo "$out/static.json" ;;
    plans) echo "$WORK/plans/gemm-heldout.json" ;; scan) echo "$out/scan.json" ;;
    heldout) echo "$out/heldout.json" ;; gemm) echo "$out/gemm-heldout.json" ;;
    report) echo "/nonexistent" ;; # the report is rewritten on every run
  esac
}

# Stopped from outside: keep what the running phase has measured so far.
trap 'log "stopped by a signal"; stop_daemon; save_work; exit 130' INT TERM
failed=0
for p in $PHASES_ALL; do
  [[ " $phases " == *" $p "* ]] || continue
  if [ -e "$(done_file "$p")" ]; then
    log "phase $p: results present, skipped"
    continue
  fi
  limit=$(phase_limit "$p")
  # The report (seconds of work) runs even when the budget is spent, so that
  # every run's results come back with its phase table.
  if [ "$limit" -le 0 ] && [ "$p" != report ]; then
    record "$p" "not-run" 0 "budget spent"
    continue
  fi
  t0=$(date +%s)
  LAST_LOG=""
  "phase_$p" $((t0 + limit))
  rc=$?
  reason=${LAST_LOG:-see logs in measure-work.tar.gz}
  stop_daemon
  dt=$(($(date +%s) - t0))
  case "$rc" in
    0) record "$p" ok "$dt" "" ;;
    3) record "$p" not-applicable "$dt" "$backend backend" ;;
    124|130|137) record "$p" timeout "$dt" "over ${limit} s; run again to continue"; failed=1 ;;
    *) record "$p" failed "$dt" "$(echo "$reason" | tr "\t" " " | cut -c1-240)"; failed=1 ;;
  esac
  save_work
done
# Checks on what this run leaves behind.
n=$(ls "$out" | grep -vc '\.tmp$')
[ "$n" -le 8 ] || { log "more than 8 files in $out"; failed=1; }
big=$(find "$out" -maxdepth 1 -type f -size +16M | head -n 1)
[ -z "$big" ] || { log "$big is over 16 MiB"; failed=1; }
log "done: $(ls "$out" | tr '\n' ' ')"
exit "$failed"
