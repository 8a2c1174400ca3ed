#!/bin/bash
# measure.sh - one resumable measurement of a device, for a GPU host lent
# for one short window (docs/gpu.md starts with the command), and for the
# CPU sim device in CI. Phases, in this order, each under its own timeout
# and what is left of --budget-s, each writing its results as soon as it
# ends, each skipped on a later run when its results exist:
#
#   env       host, driver, GPU, bundle; on cuda the quick self-check
#             gpu_cuda_offline (CUPTI tables, no fault)           (archive)
#   probe     pascal-agent --probe, at most 120 s: fill metric,
#             cold-read ratio, what one measured run costs with and
#             without CUPTI, capacity scan, proposed C, peaks, the
#             GEMM's TFLOP/s (own kernel, cuBLASLt)               (archive)
#   plans     pascal plan for this device from the probe; the scan
#             plans at o <= 1 when the projected scan would not
#             fit 80 % of the budget left                        (archive)
#   scan      scan calibration through pascald + one agent,
#             frozen and exported                                 scan.json
#   static    the paper's cluster experiment through the backend  static.json
#   dram      where the fills decide the time: the scan-dram and
#             gemm-dram plans, each frozen (scan-dram.json and
#             gemm-dram.json in the archive: --out holds 8 files
#             already); the report scores them as panels          (archive)
#   heldout   the held-out scan panel (two plans), frozen,
#             exported as one document of two bundles             heldout.json
#   gemm      GEMM calibration and held-out shapes                gemm.json,
#                                                                 gemm-heldout.json
#   offgrid   the off-grid panels: the scan's (pascal plan --kind
#             scan-offgrid, four parts: m, W and N off the
#             calibration grid, two repeats) and the GEMM's
#             (--kind gemm-offgrid: 22 shapes with Mg, Ng and Kg
#             between and beyond the grid, two repeats), each
#             part frozen into the archive; the report scores
#             them beside the held-out panels (MAPE, interval
#             coverage)                                    (archive)
#   configs   configuration runs (pascal plan --kind gemm-configs:
#             tiles, stages, rasters that fit the device) as an
#             extension of the frozen GEMM calibration, frozen
#             into the archive; cuda: cuBLASLt with each stated
#             configuration; the report gives each one's TFLOP/s
#             and the fitted step overhead                     (archive)
#   attention the attention protocol (docs/attention.md): plans
#             from the probe, 96 runs with a 54-run held-out
#             panel (24 runs, 15 cells x 2) as one calibration,
#             frozen into the archive; the report scores it      (archive)
#   selftest  the GPU test programs, which fault the GPU on
#             purpose: only when --phases names it (cuda only)    (archive)
#   report    device, provenance, phases, static table, LOKO,  report.json,
#             held-out comparison, the DRAM runs as panels of     report.md
#             the calibrations, what a next window continues
#
# Everything else (logs, probe and env facts, plans, the DRAM runs' and
# the held-out parts' bundles, the pascald database with partial progress,
# phase states) is kept in one archive,
# measure-work.tar.gz, rewritten after every phase and on a stop signal:
# at most 8 files in --out, so that they all come back from a host that
# returns only a few files. A later run continues from the archive in --out,
# or, for an --out without one, from --resume ARCHIVE (an archive an earlier
# window returned, committed under deploy/gpu/runs/): no phase with results
# and no measured run is done again. The report is written by every run,
# also when the budget is spent or a signal stops it.
#
# Usage: measure.sh [--bundle DIR] --out DIR [--backend cuda|sim] [--phases LIST]
#                   [--budget-s S] [--resume ARCHIVE] [--run-cost-s S]
#                   [--profile P] [--device NAME] [--rounds H]
# --budget-s 0 (the default) sets no budget; give the host's command limit
# less a minute. --run-cost-s replaces the probe's measured cost of one run
# in the plan choice. (--bundle defaults to the bundle this script is in.)
set -uo pipefail

# dram runs before the held-out panel (docs/gpu.md "Phases and where the
# 540 s go"): about 30 s on an H100; a window cut short leaves the panel,
# not the DRAM runs, to the next one. attention comes last: 331 s on an
# H100 (run 6, 2026-11-27: kernels up to 2.2 s a run). configs follows
# gemm, whose frozen calibration it extends (in the same database), and
# comes before attention: 24 runs of about a millisecond each on an H100
# (about 5 s with the rig's per-run cost), so a window cut short in
# attention still brings the configurations back, and one cut short
# before them leaves them, with attention, to the next.
PHASES_ALL="env probe plans scan static dram heldout offgrid gemm configs attention selftest report"
PHASES_DEFAULT="env probe plans scan static dram heldout offgrid gemm configs attention report"
# Default timeout of each phase, seconds (the budget may shorten it).
declare -A TIMEOUT=([env]=60 [probe]=120 [plans]=60 [scan]=3600 [static]=420 [dram]=600
                    [heldout]=3600 [offgrid]=1800 [gemm]=3600 [configs]=600 [attention]=900 [selftest]=240 [report]=120)
# Plan choice (docs/gpu.md "What one measurement costs"): a scan run costs
# its kernel plus the rig's per-run work (the probe's "run cost" with CUPTI)
# plus the agent's claim and upload (at most 5 ms a job on the sim on two
# cores: 0.01 s is allowed). Kernel seconds are projected as KERNEL_FACTOR x
# the plan's bytes / the L2 peak: 1.80-1.86 on the H100 run of 2026-11-26
# (scan, both held-out parts), whose kernels kept one HMMA of each wmma; 2
# allows for the second, which they issue since (not yet measured). The
# scan must fit SCAN_SHARE of what is left of the budget, else the plans run
# at one CTA per SM.
AGENT_RUN_S=0.01
KERNEL_FACTOR=2.0
SCAN_SHARE=0.8
# Seconds a starting pascald may take to answer /healthz (start_daemon).
START_S=300

usage() {
  sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
}

die() { echo "measure.sh: $*" >&2; exit 2; }

bundle="" out="" backend=cuda phases="$PHASES_DEFAULT" budget=0 profile="" device="" rounds=""
resume="" run_cost=""
while [ $# -gt 0 ]; do
  case "$1" in
    --help|-h) usage; exit 0 ;;
    --bundle) bundle=${2:-}; shift 2 ;;
    --out) out=${2:-}; shift 2 ;;
    --backend) backend=${2:-}; shift 2 ;;
    --phases) phases=$(echo "${2:-}" | tr ',' ' '); shift 2 ;;
    --budget-s) budget=${2:-}; shift 2 ;;
    --resume) resume=${2:-}; shift 2 ;;
    --run-cost-s) run_cost=${2:-}; shift 2 ;;
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
[ -z "$run_cost" ] || [[ "$run_cost" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--run-cost-s must be seconds, got '$run_cost'"
[ -z "$resume" ] || [ -f "$resume" ] || die "--resume: no archive $resume"
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
[ -z "$resume" ] || resume=$(cd "$(dirname "$resume")" && echo "$PWD/$(basename "$resume")")
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
ARCHIVE=$out/measure-work.tar.gz
START=$(date +%s)
# Modules loaded when the context is created, not at a kernel's first
# (timed) launch; the backend also loads every kernel itself.
export CUDA_MODULE_LOADING=EAGER

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pascal-measure.XXXXXX") || die "cannot create a work folder"
DAEMON_PID="" CHILD="" CURRENT=""
cleanup() {
  if [ -n "$DAEMON_PID" ]; then kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
# The archive in --out (this window's, the newest) wins over --resume.
FROM=""
if [ -f "$ARCHIVE" ]; then FROM=$ARCHIVE; elif [ -n "$resume" ]; then FROM=$resume; fi
if [ -n "$FROM" ]; then
  tar -xzf "$FROM" -C "$WORK" || die "cannot unpack $FROM"
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
[ -n "$FROM" ] && log "continuing from $FROM"

# Seconds a phase may run: its default, cut to what is left of the budget.
phase_limit() {
  local t=${TIMEOUT[$1]}
  if [ "$budget" -gt 0 ]; then
    local left=$((budget - ($(date +%s) - START)))
    [ "$left" -lt "$t" ] && t=$left
  fi
  echo "$t"
}

# bounded SIGNAL DEADLINE PROGRAM ARGS...: run PROGRAM under timeout until
# DEADLINE (epoch seconds), sending SIGNAL then, KILL 10 s later. A step
# with no time left is skipped (status 124), never started: `timeout 0`
# would mean no limit at all. The program runs in the background and is
# waited for, so that a signal to this script is handled at once.
bounded() {
  local sig=$1 deadline=$2
  shift 2
  local left=$((deadline - $(date +%s)))
  if [ "$left" -le 0 ]; then
    log "$(basename "$1"): skipped, no time left"
    return 124
  fi
  timeout -s "$sig" -k 10 "$left" "$@" &
  CHILD=$!
  wait "$CHILD"
  local rc=$?
  CHILD=""
  return "$rc"
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
  # A start loads every frozen calibration of the work database (each one's
  # validation is refitted: seconds when a resumed window holds several), so
  # a live daemon is waited for, up to START_S; another port is tried only
  # when it exited (its port was taken).
  local try port waited
  for try in 1 2 3 4 5 6 7 8 9 10; do
    port=$((20000 + RANDOM % 30000))
    "$BIN/pascald" --listen "127.0.0.1:$port" --db "$db" --bundles "$WORK/no-bundles" \
      >> "$WORK/logs/pascald.log" 2>&1 &
    DAEMON_PID=$!
    URL="http://127.0.0.1:$port"
    waited=0
    while kill -0 "$DAEMON_PID" 2>/dev/null && [ "$waited" -lt $((START_S * 10)) ]; do
      http GET /healthz > /dev/null
      [ "$(status)" = 200 ] && return 0
      sleep 0.1
      waited=$((waited + 1))
    done
    kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; DAEMON_PID=""
    [ "$waited" -lt $((START_S * 10)) ] || break
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
  # them: kept with the device, so the calibrations' bundles carry them (the
  # static table those frozen after it: it is measured after the scan)
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
# id is kept in the work folder, so an interrupted run continues it. With a
# base id, the calibration extends that frozen one (POST "base").
calibrate() { # tag plan-file export-file deadline(epoch s) [held-out-array-file] [base-id]
  local tag=$1 plan=$2 dest=$3 deadline=$4 panel=${5:-} base=${6:-} name id
  name=$(device_name)
  start_daemon && register_device "$name" || return 1
  if [ -f "$WORK/$tag.id" ]; then
    id=$(cat "$WORK/$tag.id")
  else
    { printf '{"device":"%s","plan":' "$name"; cat "$plan"
      [ -z "$panel" ] || { printf ',"heldout":'; cat "$panel"; }
      [ -z "$base" ] || printf ',"base":%s' "$base"
      printf '}'; } > "$WORK/$tag.body"
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

# Run the agent until no job is left (or the deadline), then freeze. The
# agent is stopped with INT: it finishes the run in hand, which is kept.
measure_runs() { # tag id device deadline
  local tag=$1 id=$2 name=$3 deadline=$4
  bounded INT "$deadline" "$BIN/pascal-agent" --server "$URL" --token-file "$WORK/admin.token" \
    --device "$name" "${AGENT_OPTS[@]}" --capacity-blocks "$(probe_field capacity_blocks)" \
    --until-idle --name "measure-$tag" >> "$WORK/logs/$tag-agent.log" 2>&1
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    http GET "/v1/calibrations/$id" > "$WORK/logs/$tag-state.json"
    log "$tag: agent exit $rc, $(progress "$WORK/logs/$tag-state.json") (logs/$tag-agent.log)"
    return "$rc"
  fi
  http POST "/v1/calibrations/$id/freeze" > "$WORK/logs/$tag-freeze.json"
  case "$(status)" in 200|201) ;; *) log "$tag: freeze: HTTP $(status): $(head -c 300 "$WORK/logs/$tag-freeze.json")"; return 1 ;; esac
}

# "D of T runs measured" from a calibration's state document.
progress() {
  local p
  p=$(tr -d ' \n' < "$1" | grep -o '"progress":{"done":[0-9]*,"total":[0-9]*}' | grep -o '[0-9][0-9]*' | paste -sd/)
  echo "${p%/*} of ${p#*/} runs measured"
}

# --- the phases: each returns 0 (done), 3 (not applicable here) or another
# status (failed; 124 = timed out). $1 is the phase's deadline. ------------

# The quick self-check (cuda): the offline CUPTI checks from the bundle,
# which load CUPTI and the NVIDIA perf library and fault nothing.
phase_env() {
  {
    echo "== window $(date -u +%Y-%m-%dT%H:%M:%SZ) =="; echo "host: $(uname -srm)"
    echo "glibc: $(ldd --version 2>&1 | head -n 1)"; echo "backend: $backend"
    cat "$bundle/MANIFEST" 2>/dev/null
    if command -v nvidia-smi >/dev/null; then
      bounded TERM "$1" nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>&1
      bounded TERM "$1" nvidia-smi -q 2>&1 | head -n 60
    else
      echo "nvidia-smi: not installed"
    fi
    if command -v nvcc >/dev/null; then nvcc --version 2>&1 | tail -n 2; else echo "nvcc: not on PATH"; fi
  } >> "$WORK/env.txt"
  local gpu="null"
  if command -v nvidia-smi >/dev/null; then
    gpu="\"$(bounded TERM "$1" nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 | head -n 1 | json_escape)\""
  fi
  printf '{"date":"%s","host":"%s","backend":"%s","gpu":%s,"bundle":"%s"}\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(uname -srm | json_escape)" "$backend" "$gpu" \
    "$(bundle_source | json_escape)" > "$WORK/env.json"
  [ "$backend" = cuda ] || return 0
  [ -x "$BIN/gpu_cuda_offline" ] || { log "env: gpu_cuda_offline is missing from the bundle"; return 1; }
  bounded TERM "$1" "$BIN/gpu_cuda_offline" > "$WORK/logs/selfcheck.log" 2>&1
  local rc=$?
  [ "$rc" -eq 0 ] || log "env: quick self-check gpu_cuda_offline exit $rc: $(tail -n 1 "$WORK/logs/selfcheck.log" | head -c 150)"
  return "$rc"
}

phase_probe() {
  bounded TERM "$1" "$BIN/pascal-agent" --probe "${AGENT_OPTS[@]}" > "$WORK/probe.log" 2>&1
  local rc=$?
  [ "$rc" -eq 0 ] || { log "probe: exit $rc: $(tail -n 2 "$WORK/probe.log")"; return "$rc"; }
  agent_json probe "$WORK/probe.log" "$WORK/probe.json"
}

# The fault-injecting self-test (only when asked: it faults the GPU and
# resets it). selftest.txt keeps the last run's exit codes for the report;
# only a run that passed (or does not apply) leaves selftest.passed, so a
# failed or timed-out self-test runs again once the bundle is rebuilt.
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
    bounded TERM "$1" "$BIN/$t" >> "$WORK/selftest.log" 2>&1
    local r=$?
    [ "$r" -eq 0 ] || { rc=$r; log "selftest: $t exit $r: $(tail -n 1 "$WORK/selftest.log" | head -c 150)"; }
    echo "$t: exit $r" >> "$WORK/selftest.log"
  done
  grep -E ': exit ' "$WORK/selftest.log" > "$WORK/selftest.txt"
  [ "$rc" -ne 0 ] || : > "$WORK/selftest.passed"
  return "$rc"
}

# The static table: from the agent's log when an earlier window measured it
# (its static.json was not brought back), else measured.
phase_static() {
  [ -f "$WORK/probe.json" ] || { log "static: needs the probe"; return 1; }
  if grep -q '^static json: ' "$WORK/static.log" 2>/dev/null; then
    log "static: measured by an earlier run, restored from its log"
    agent_json static "$WORK/static.log" "$out/static.json"
    return
  fi
  local extra=()
  [ -n "$rounds" ] && extra=(--rounds "$rounds")
  bounded TERM "$1" "$BIN/pascal-agent" --static "${AGENT_OPTS[@]}" \
    --capacity-blocks "$(probe_field capacity_blocks)" "${extra[@]}" > "$WORK/static.log" 2>&1
  local rc=$?
  [ "$rc" -eq 0 ] || { log "static: exit $rc: $(tail -n 2 "$WORK/static.log")"; return "$rc"; }
  agent_json static "$WORK/static.log" "$out/static.json"
}

# plan_runs PLAN: "runs bytes" of a scan plan on this device (bytes read by
# all its runs: repeats x sum of o x SMs x block bytes x N x W).
plan_runs() {
  local doc
  doc=$(tr -d ' \n\t' < "$1")
  list() { echo "$doc" | sed -n "s/.*\"$1\":\[\([0-9,]*\)\].*/\1/p" | tr ',' ' '; }
  echo "$doc" | grep -o '"o":[0-9]*' | cut -d: -f2 |
    awk -v sizes="$(list sizes)" -v horizons="$(list horizons)" -v rep="$(echo "$doc" | json_int repeats)" \
        -v sms="$(probe_field sm_count)" -v block="$(probe_field block_bytes)" '
      { keys++; o += $1 }
      END { ns = split(sizes, n, " "); nw = split(horizons, w, " ")
            for (i = 1; i <= ns; i++) sn += n[i]; for (i = 1; i <= nw; i++) sw += w[i]
            printf "%d %.0f\n", keys * ns * nw * rep, rep * o * sms * block * sn * sw }'
}

# Seconds the scan plan is projected to take (see AGENT_RUN_S above); empty
# when the probe measured no run cost (the sim) and none was given.
projected_scan_s() {
  local cost=$run_cost l2 rb
  [ -n "$cost" ] || cost=$(sed -n 's/^run cost: .*"with_cupti_s":\([0-9.e+-]*\).*/\1/p' "$WORK/probe.log" 2>/dev/null)
  [ -n "$cost" ] || return 0
  l2=$(sed -n 's/.*"l2_bytes_per_s":\([0-9.e+]*\).*/\1/p' "$WORK/probe.json")
  rb=$(plan_runs "$1")
  awk -v rb="$rb" -v cost="$cost" -v l2="${l2:-0}" -v agent="$AGENT_RUN_S" -v f="$KERNEL_FACTOR" '
    BEGIN { split(rb, x, " "); k = l2 > 0 ? f * x[2] / l2 : 0
            printf "%.0f\n", x[1] * (cost + agent) + k }'
}

# The plans for this device (sizes from the probe's C, occupancies from its
# shared memory; GEMM shapes are the same everywhere). When the projected
# scan does not fit SCAN_SHARE of the budget left, every scan plan is made
# again at one CTA per SM (--max-occupancy 1: half the CTAs of the H100's
# o = 2), and the choice is logged and kept for the report.
# `pascal plan`, its error in logs/plans.log and the log's last line.
plan() { "$BIN/pascal" plan "$@" 2>> "$WORK/logs/plans.log" || { log "plans: $(tail -n 1 "$WORK/logs/plans.log")"; return 1; }; }

phase_plans() {
  [ -f "$WORK/probe.json" ] || { log "plans: needs the probe"; return 1; }
  scan_plans() {
    local p
    plan --kind scan --probe "$WORK/probe.json" "$@" -o "$WORK/plans/scan.json" || return 1
    for p in 1 2; do
      plan --kind scan-heldout --part "$p" --probe "$WORK/probe.json" "$@" -o "$WORK/plans/scan-heldout-$p.json" || return 1
    done
  }
  scan_plans || return 1
  local proj left share choice smaller=()
  proj=$(projected_scan_s "$WORK/plans/scan.json")
  left=$((budget - ($(date +%s) - START)))
  if [ -z "$proj" ]; then
    choice="default plan (o <= 2): no run cost measured ($backend backend)"
  elif [ "$budget" -eq 0 ]; then
    choice="default plan (o <= 2): projected scan $proj s, no budget"
  else
    share=$(awk -v l="$left" -v s="$SCAN_SHARE" 'BEGIN { printf "%.0f", l * s }')
    if [ "$proj" -le "$share" ]; then
      choice="default plan (o <= 2): projected scan $proj s fits $share s ($SCAN_SHARE of $left s left)"
    else
      smaller=(--max-occupancy 1)
      scan_plans "${smaller[@]}" || return 1
      choice="smaller plan (o <= 1): projected scan $proj s at o <= 2 exceeds $share s ($SCAN_SHARE of $left s left); at o <= 1 $(projected_scan_s "$WORK/plans/scan.json") s"
    fi
  fi
  echo "$choice" > "$WORK/plans/choice.txt"
  log "plans: $choice"
  # The DRAM plans (docs/plans.md "Where fills decide the time"): scan-dram
  # at the scan plans' occupancies, so that its families are the scan
  # calibration's.
  plan --kind scan-dram --probe "$WORK/probe.json" "${smaller[@]}" -o "$WORK/plans/scan-dram.json" &&
    plan --kind gemm-dram -o "$WORK/plans/gemm-dram.json" || return 1
  [ -z "$proj" ] || log "plans: scan-dram projected $(projected_scan_s "$WORK/plans/scan-dram.json") s"
  plan --kind gemm -o "$WORK/plans/gemm.json" && plan --kind gemm-heldout -o "$WORK/plans/gemm-heldout.json"
}

phase_scan() {
  [ -f "$WORK/plans/scan.json" ] || { log "scan: needs the plans"; return 1; }
  calibrate scan "$WORK/plans/scan.json" "$out/scan.json" "$1"
}

# The runs where the fills decide the time, each plan a calibration of its
# own, frozen and exported into the work folder (the 8 files of --out are
# taken): the report scores them as panels.
phase_dram() {
  [ -f "$WORK/plans/scan-dram.json" ] && [ -f "$WORK/plans/gemm-dram.json" ] ||
    { log "dram: needs the DRAM plans (the plans phase makes them)"; return 1; }
  if [ ! -f "$WORK/scan-dram.json" ]; then
    calibrate scan-dram "$WORK/plans/scan-dram.json" "$WORK/scan-dram.json" "$1" || return $?
  fi
  calibrate gemm-dram "$WORK/plans/gemm-dram.json" "$WORK/gemm-dram.json" "$1"
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

# The off-grid panels (docs/expected-error.md "The off-grid panel"): the
# scan-offgrid plan's four parts at the scan plans' occupancies, then the
# gemm-offgrid plan (the GEMM shapes are the same on every device), made
# here so that an archive whose plans phase finished before this phase
# existed continues too; each a calibration of its own, frozen and exported
# into the work archive (--out keeps its 8 files). The report passes them
# to `pascal evaluate --offgrid`: never fitted, scored beside the held-out
# panels; deploy/gpu/ship-run.py puts them in the shipped bundles.
phase_offgrid() {
  [ -f "$WORK/probe.json" ] || { log "offgrid: needs the probe"; return 1; }
  local p occ=()
  grep -q '^smaller plan' "$WORK/plans/choice.txt" 2>/dev/null && occ=(--max-occupancy 1)
  for p in 1 2 3 4; do
    [ -f "$WORK/plans/scan-offgrid-$p.json" ] ||
      plan --kind scan-offgrid --part "$p" --probe "$WORK/probe.json" "${occ[@]}" \
        -o "$WORK/plans/scan-offgrid-$p.json" || return 1
  done
  [ -f "$WORK/plans/gemm-offgrid.json" ] ||
    plan --kind gemm-offgrid -o "$WORK/plans/gemm-offgrid.json" || return 1
  for p in 1 2 3 4; do
    [ -f "$WORK/offgrid-$p.json" ] && continue
    calibrate "offgrid-$p" "$WORK/plans/scan-offgrid-$p.json" "$WORK/offgrid-$p.json" "$1" || return $?
  done
  [ -f "$WORK/gemm-offgrid.json" ] ||
    calibrate gemm-offgrid "$WORK/plans/gemm-offgrid.json" "$WORK/gemm-offgrid.json" "$1"
}

phase_gemm() {
  [ -f "$WORK/plans/gemm.json" ] || { log "gemm: needs the plans"; return 1; }
  if [ ! -f "$out/gemm.json" ]; then calibrate gemm "$WORK/plans/gemm.json" "$out/gemm.json" "$1" || return $?; fi
  calibrate gemm-heldout "$WORK/plans/gemm-heldout.json" "$out/gemm-heldout.json" "$1"
}

# Configuration runs (docs/autotuning.md "Configurations"): the
# gemm-configs plan from the probe (the configurations that fit its shared
# memory per SM; on the sim, which states none, the sim's list), made here
# so that an archive whose plans phase finished before this phase existed
# continues too, measured as an extension of the frozen GEMM calibration
# and exported into the work archive (--out keeps its 8 files).
phase_configs() {
  [ -f "$WORK/probe.json" ] || { log "configs: needs the probe"; return 1; }
  [ -f "$WORK/gemm.id" ] && [ -f "$out/gemm.json" ] ||
    { log "configs: needs the frozen GEMM calibration (the gemm phase)"; return 1; }
  if [ ! -f "$WORK/plans/gemm-configs.json" ]; then
    plan --kind gemm-configs --probe "$WORK/probe.json" -o "$WORK/plans/gemm-configs.json" || return 1
  fi
  calibrate configs "$WORK/plans/gemm-configs.json" "$WORK/configs.json" "$1" "" "$(cat "$WORK/gemm.id")"
}

# The configurations section of the report (docs/gpu.md "Configurations in
# the report"): per configuration run its achieved TFLOP/s (2 Mg Ng Kg /
# kernel time) beside what the frozen model answers for it (`pascal
# predict` on configs.json: time and fills), the step overhead it fitted on
# them, and per shape how its times rank the configurations against the
# measured ones (Kendall's tau-b, the top-1 regret, whether the measured
# best is among the first four predicted; ties in run order). In-sample:
# the step overhead is fitted on these very runs.
# $1: md or json (null when not measured).
report_configs() {
  # (return 0: in the stop trap a bare return would give the status of the
  # command the signal interrupted)
  if [ ! -f "$WORK/configs.json" ]; then
    if [ "$1" = json ]; then echo null; else echo "not measured"; fi
    return 0
  fi
  if ! command -v python3 >/dev/null; then
    if [ "$1" = json ]; then echo null; else echo "configs.json is in the work archive (python3 summarises it)"; fi
    return 0
  fi
  python3 - "$WORK/configs.json" "$1" "$BIN/pascal" <<'PY'
import json, math, subprocess, sys, tempfile
doc = json.load(open(sys.argv[1]))
runs = doc.get("configurations", [])
keys = ("Mg", "Ng", "Kg", "tile_m", "tile_n", "tile_k", "elem_bytes", "stages", "group_m")
answers = [{}] * len(runs)
if runs:
    with tempfile.NamedTemporaryFile("w", suffix=".json") as q:
        json.dump({"queries": [{k: r[k] for k in keys} for r in runs]}, q)
        q.flush()
        p = subprocess.run([sys.argv[3], "predict", "--bundle", sys.argv[1], "--queries", q.name,
                            "--json"], capture_output=True, text=True)
    if p.returncode == 0:
        answers = json.loads(p.stdout).get("results", answers)

def tau_b(x, y):
    """Kendall's tau-b of two equally long lists (None when either is constant)."""
    nc = nd = tx = ty = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                nc += 1
            else:
                nd += 1
    den = math.sqrt((nc + nd + tx) * (nc + nd + ty))
    return (nc - nd) / den if den > 0 else None

rows, shapes = [], {}
for r, a in zip(runs, answers):
    tflops = 2.0 * r["Mg"] * r["Ng"] * r["Kg"] / r["kernel_ns"] / 1e3
    shape = "%dx%dx%d" % (r["Mg"], r["Ng"], r["Kg"])
    rows.append({"tile": "%dx%dx%d" % (r["tile_m"], r["tile_n"], r["tile_k"]),
                 "elem_bytes": r["elem_bytes"], "stages": r["stages"], "group_m": r["group_m"],
                 "shape": shape, "kernel_ns": r["kernel_ns"],
                 "fill_bytes": r["fill_bytes"], "tflops": round(tflops, 3),
                 "predicted_time_s": a.get("time_s"), "predicted_fill_bytes": a.get("fill_bytes")})
    shapes.setdefault(shape, []).append(rows[-1])
ranking = []
for shape, rs in shapes.items():
    if any(r["predicted_time_s"] is None for r in rs):
        ranking.append({"shape": shape, "runs": len(rs), "tau_b": None, "regret": None,
                        "best_in_top4": None})
        continue
    meas = [r["kernel_ns"] for r in rs]
    pred = [r["predicted_time_s"] for r in rs]
    order = sorted(range(len(rs)), key=lambda i: pred[i])  # stable: ties in run order
    best = meas.index(min(meas))
    ranking.append({"shape": shape, "runs": len(rs), "tau_b": tau_b(pred, meas),
                    "regret": meas[order[0]] / meas[best] - 1, "best_in_top4": best in order[:4]})
overhead = doc.get("model", {}).get("time", {}).get("step_overhead_s", 0.0)
if sys.argv[2] == "json":
    print(json.dumps({"runs": rows, "step_overhead_s": overhead, "ranking": ranking},
                     separators=(",", ":")))
    sys.exit(0)
print("%d configuration runs (configs.json in the work archive), an extension of gemm.json;"
      % len(rows))
print("fitted step overhead per k-iteration: %.1f ns; predicted: what the frozen model answers"
      % (overhead * 1e9))
print("(in-sample: the overhead is fitted on these runs)")
print()
print("| tile | elem | stages | group_m | shape | kernel ms | TFLOP/s | predicted ms | fills / predicted |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    pt, pf = r["predicted_time_s"], r["predicted_fill_bytes"]
    print("| %s | %d | %d | %d | %s | %.3f | %.2f | %s | %s |" % (
        r["tile"], r["elem_bytes"], r["stages"], r["group_m"], r["shape"], r["kernel_ns"] * 1e-6,
        r["tflops"], "%.3f" % (pt * 1e3) if pt else "-",
        "%.3f" % (r["fill_bytes"] / pf) if pf else "-"))
print()
print("| shape | runs | Kendall tau-b | top-1 regret | measured best in the first 4 |")
print("|---|---|---|---|---|")
for g in ranking:
    print("| %s | %d | %s | %s | %s |" % (
        g["shape"], g["runs"], "-" if g["tau_b"] is None else "%.3f" % g["tau_b"],
        "-" if g["regret"] is None else "%.2f %%" % (100 * g["regret"]),
        "-" if g["best_in_top4"] is None else ("yes" if g["best_in_top4"] else "no")))
PY
}

# The attention protocol (docs/attention.md, docs/plans.md): its plans from
# the probe (one key per depth 1-3 at the kernel's occupancy), made here so
# that an archive whose plans phase finished before this phase existed
# continues too; the 96 reference runs as one calibration with the held-out
# runs and the five cells as its panel, frozen and exported into the work
# archive (--out keeps its 8 files). The cuda agent checks sampled output
# rows of every run against the host reference.
phase_attention() {
  [ -f "$WORK/probe.json" ] || { log "attention: needs the probe"; return 1; }
  local p panel=$WORK/plans/attention-panel.json
  if [ ! -f "$panel" ]; then
    plan --kind attention --probe "$WORK/probe.json" -o "$WORK/plans/attention.json" &&
      plan --kind attention-heldout --probe "$WORK/probe.json" -o "$WORK/plans/attention-heldout.json" || return 1
    for p in 1 2 3 4 5; do
      plan --kind attention-cells --part "$p" --probe "$WORK/probe.json" -o "$WORK/plans/attention-cells-$p.json" || return 1
    done
    { printf '['; cat "$WORK/plans/attention-heldout.json"
      for p in 1 2 3 4 5; do printf ','; cat "$WORK/plans/attention-cells-$p.json"; done
      printf ']'; } > "$panel.tmp" && mv "$panel.tmp" "$panel"
  fi
  calibrate attention "$WORK/plans/attention.json" "$WORK/attention.json" "$1" "$panel"
}

# The pascal CLI in the report, bounded like every program started here.
cli() { timeout -k 5 60 "$BIN/pascal" "$@"; }

# A calibration scored on a panel (`pascal evaluate`, the paper's table
# layout: K, then latency on peaks and calibrated): the scan calibration on
# its held-out panel (measured in two parts, joined by --heldout A,B) or on
# the scan-dram runs, the GEMM calibration on its held-out shapes or on the
# gemm-dram shapes, the attention calibration on the panel it holds. With --json, the JSON document; without, the readable
# tables. Fails when either side is missing.
evaluate_panel() { # scan|gemm|scan-dram|gemm-dram|attention [--json]
  case "$1" in
    scan) [ -f "$out/scan.json" ] && { [ -n "$(heldout_panel)" ] || [ -n "$(offgrid_panel)" ]; } &&
            cli evaluate "$out/scan.json" $(heldout_panel) $(offgrid_panel) ${2:-} ;;
    gemm) [ -f "$out/gemm.json" ] && [ -f "$out/gemm-heldout.json" ] &&
            cli evaluate "$out/gemm.json" --heldout "$out/gemm-heldout.json" \
              $(gemm_offgrid_panel) ${2:-} ;;
    scan-dram) [ -f "$out/scan.json" ] && [ -f "$WORK/scan-dram.json" ] &&
            cli evaluate "$out/scan.json" --heldout "$WORK/scan-dram.json" ${2:-} ;;
    gemm-dram) [ -f "$out/gemm.json" ] && [ -f "$WORK/gemm-dram.json" ] &&
            cli evaluate "$out/gemm.json" --heldout "$WORK/gemm-dram.json" ${2:-} ;;
    attention) [ -f "$WORK/attention.json" ] && cli evaluate "$WORK/attention.json" ${2:-} ;;
  esac 2>> "$WORK/logs/evaluate.log"
}
# --heldout with the two held-out parts, when both are measured.
heldout_panel() {
  [ -f "$WORK/heldout-1.json" ] && [ -f "$WORK/heldout-2.json" ] &&
    echo "--heldout $WORK/heldout-1.json,$WORK/heldout-2.json"
  return 0
}
# --offgrid with the four off-grid parts, when all are measured.
offgrid_panel() {
  local p list=""
  for p in 1 2 3 4; do
    [ -f "$WORK/offgrid-$p.json" ] || return 0
    list="$list${list:+,}$WORK/offgrid-$p.json"
  done
  echo "--offgrid $list"
}
# --offgrid with the GEMM off-grid panel, when it is measured.
gemm_offgrid_panel() {
  [ -f "$WORK/gemm-offgrid.json" ] && echo "--offgrid $WORK/gemm-offgrid.json"
  return 0
}
# {"scan":..., "gemm":...}: the scan and GEMM calibrations scored on their
# held-out panels (SUFFIX "") or on the DRAM runs ("-dram"); null where a
# side is missing.
report_panels() { # SUFFIX
  local scan gemm
  scan=$(evaluate_panel "scan$1" --json) || scan=null
  gemm=$(evaluate_panel "gemm$1" --json) || gemm=null
  printf '{"scan":%s,"gemm":%s}' "$scan" "$gemm"
}

# The last state phases.tsv records for a phase (empty when none).
last_state() { awk -F'\t' -v p="$1" '$2 == p {s = $3} END {print s}' "$WORK/phases.tsv" 2>/dev/null; }
# Requested phases a next window would still run: neither with results nor
# last recorded ok or not applicable.
unfinished() {
  local p st
  for p in $phases; do
    case "$p" in report) continue ;; esac
    [ -e "$(done_file "$p")" ] && continue
    st=$(last_state "$p")
    [ "$st" = ok ] || [ "$st" = not-applicable ] || printf '%s ' "$p"
  done | sed 's/ $//'
}

# report.md's DRAM section: each DRAM plan scored as a panel of its
# calibration (docs/gpu.md "The DRAM runs in the report").
report_dram() {
  local w
  echo "The scan-dram runs (the seven families at m = 0 and 6, N = 1.05 C to 1.4 C, W = 4 and 16)"
  echo "scored as a panel of the scan calibration, the gemm-dram shapes (10 skinny grids) as one of"
  echo "the GEMM calibration: K against every baseline (aligned K = 1 among them), then latency"
  echo "with TileSight's, PASCAL's and the measured fills, on the peaks and calibrated, all runs and"
  echo "the DRAM-bound ones. The scan-dram sizes lie below the calibration's smallest: PASCAL answers"
  echo "them with that size's K and cost per block and wave (N clamped, flagged extrapolated)."
  for w in scan gemm; do
    echo
    if [ ! -f "$WORK/$w-dram.json" ]; then
      echo "$w-dram: not measured"
    elif [ ! -f "$out/$w.json" ]; then
      echo "$w-dram: measured ($w-dram.json in the work archive); no $w calibration to score it against yet"
    else
      echo "$w-dram.json (in the work archive) against $w.json:"
      echo; echo '```'; evaluate_panel "$w-dram" || echo "evaluation failed (logs/evaluate.log)"; echo '```'
    fi
  done
}

phase_report() {
  local loko_scan=null loko_gemm=null static=null probe=null envj=null gemm_speed=null left
  [ -f "$out/scan.json" ] && loko_scan=$(cli loko "$out/scan.json" --json 2> "$WORK/logs/loko-scan.log" || echo null)
  [ -f "$out/gemm.json" ] && loko_gemm=$(cli loko "$out/gemm.json" --json 2> "$WORK/logs/loko-gemm.log" || echo null)
  [ -f "$out/static.json" ] && static=$(cat "$out/static.json")
  [ -f "$WORK/probe.json" ] && probe=$(cat "$WORK/probe.json")
  [ -f "$WORK/env.json" ] && envj=$(cat "$WORK/env.json")
  # the GEMM's TFLOP/s, which the cuda probe prints (docs/gpu.md "The GEMM's speed")
  gemm_speed=$(sed -n 's/^gemm json: //p' "$WORK/probe.log" 2>/dev/null | tail -n 1)
  [ -n "$gemm_speed" ] || gemm_speed=null
  left=$(unfinished)
  {
    printf '{"format":"pascal-measure-report/1","backend":"%s","env":%s,"probe":%s,' "$backend" "$envj" "$probe"
    printf '"gemm_speed":%s,' "$gemm_speed"
    printf '"phases":['
    awk -F'\t' '{last[$2]=$0} END {n=0; split("'"${PHASES_ALL% report}"'", order, " ");
      for (i=1; i in order; i++) if (order[i] in last) { split(last[order[i]], f, "\t");
        gsub(/"/, "\\\"", f[5]);
        printf "%s{\"phase\":\"%s\",\"state\":\"%s\",\"seconds\":%s,\"at\":\"%s\",\"message\":\"%s\"}",
               (n++ ? "," : ""), f[2], f[3], f[4], f[1], f[5] } }' "$WORK/phases.tsv"
    printf '],"plan_choice":"%s",' "$(cat "$WORK/plans/choice.txt" 2>/dev/null | json_escape)"
    printf '"archive_note":"%s",' "$(echo "$BLOCKED" | json_escape)"
    printf '"next_window":[%s],' "$(for p in $left; do printf '"%s"\n' "$p"; done | paste -sd, -)"
    printf '"static":%s,"loko":{"scan":%s,"gemm":%s},"heldout":%s,"dram":%s,' "$static" "$loko_scan" "$loko_gemm" \
      "$(report_panels "")" "$(report_panels -dram)"
    printf '"attention":%s,' "$(evaluate_panel attention --json || echo null)"
    printf '"configurations":%s,' "$(report_configs json || echo null)"
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
    echo "## Next window"
    echo
    if [ -z "$left" ]; then
      echo "Every requested phase finished: nothing to continue."
    else
      echo "Not finished: $left."
      echo
      echo "The work archive (measure-work.tar.gz) holds everything measured so far:"
      echo "commit it as deploy/gpu/runs/<date>-<gpu>/measure-work.tar.gz and give the next"
      echo "window's command \`--resume deploy/gpu/runs/<date>-<gpu>/measure-work.tar.gz\`"
      echo "(docs/gpu.md): finished phases are skipped and a calibration cut short"
      echo "continues with the runs it lacks."
    fi
    echo
    [ -z "$BLOCKED" ] || { echo "Archive: $BLOCKED."; echo; }
    echo "Plan: $(cat "$WORK/plans/choice.txt" 2>/dev/null || echo "not made yet")"
    echo
    echo "## GEMM speed (probe: TFLOP/s at 4096 x 4096 x 4096 FP16, own kernel and cuBLASLt)"
    echo
    if grep -q '^GEMM' "$WORK/probe.log" 2>/dev/null; then
      echo '```'; grep -E '^(cuBLASLt|GEMM)' "$WORK/probe.log"; echo '```'
    else
      echo "not measured (the probe did not run, or the $backend backend has no GEMM speed)"
    fi
    echo
    echo "## Probe (fill metric, cold-read ratios, run cost, capacity scan, peaks)"
    echo
    if [ -f "$WORK/probe.log" ]; then echo '```'; head -n 80 "$WORK/probe.log"; echo '```'; else echo "not run"; fi
    echo
    echo "## Static cluster experiment (paper Table static)"
    echo
    if [ -f "$WORK/static.log" ]; then echo '```'; grep -v '^static json:' "$WORK/static.log"; echo '```'; else echo "not measured"; fi
    echo
    echo "## Leave-one-key-out (scan calibration)"
    echo
    if [ -f "$out/scan.json" ]; then echo '```'; cli loko "$out/scan.json" 2>&1 | head -n 20; echo '```'; else echo "no scan calibration yet"; fi
    echo
    echo "## Held-out and off-grid panels"
    echo
    if [ -f "$out/heldout.json" ] || [ -n "$(offgrid_panel)" ]; then
      [ ! -f "$out/heldout.json" ] ||
        echo "heldout.json holds the two held-out parts as frozen bundles (42 keys x 5 (N, W) x 2 repeats)."
      [ -z "$(offgrid_panel)" ] ||
        echo "The off-grid panel: four parts (offgrid-1..4.json in the work archive), never fitted."
      echo "PASCAL against the baselines on them (\`pascal evaluate\`):"
      echo; echo '```'; evaluate_panel scan || echo "evaluation failed (logs/evaluate.log)"; echo '```'
    else
      echo "not measured"
    fi
    if [ -f "$out/gemm-heldout.json" ]; then
      echo; echo "GEMM held-out shapes:"
      [ -z "$(gemm_offgrid_panel)" ] ||
        echo "(and the GEMM off-grid panel: gemm-offgrid.json in the work archive, never fitted)"
      echo; echo '```'; evaluate_panel gemm || echo "evaluation failed (logs/evaluate.log)"; echo '```'
    fi
    echo
    echo "## Where the fills decide the time (DRAM plans)"
    echo
    report_dram
    echo
    echo "## Configurations (GEMM tiles, stages, rasters; docs/autotuning.md)"
    echo
    report_configs md
    echo
    echo "## Attention (FlashAttention-2 forward, docs/attention.md)"
    echo
    if [ -f "$WORK/attention.json" ]; then
      echo "attention.json (in the work archive): 96 runs, its held-out panel of 24 runs and 15 cells x 2;"
      echo "PASCAL against the baselines on the panel (\`pascal evaluate\`):"
      echo; echo '```'; evaluate_panel attention || echo "evaluation failed (logs/evaluate.log)"; echo '```'
    else
      echo "not measured"
    fi
    echo
    echo "## Self-test (fault-injecting; only when asked)"
    echo
    if [ -f "$WORK/selftest.txt" ]; then echo '```'; cat "$WORK/selftest.txt"; echo '```'; else echo "not run"; fi
  } > "$out/report.md.tmp"
  mv "$out/report.json.tmp" "$out/report.json" && mv "$out/report.md.tmp" "$out/report.md"
}

# Results that mark a phase done; env and the report run every time (env
# records this window's host and runs the quick self-check).
done_file() {
  case "$1" in
    probe) echo "$WORK/probe.json" ;; selftest) echo "$WORK/selftest.passed" ;;
    static) echo "$out/static.json" ;; plans) echo "$WORK/plans/gemm-heldout.json" ;;
    scan) echo "$out/scan.json" ;; heldout) echo "$out/heldout.json" ;;
    gemm) echo "$out/gemm-heldout.json" ;; dram) echo "$WORK/gemm-dram.json" ;;
    offgrid) echo "$WORK/gemm-offgrid.json" ;;
    attention) echo "$WORK/attention.json" ;; configs) echo "$WORK/configs.json" ;;
    *) echo "/nonexistent" ;;
  esac
}

# The source revision of this bundle (MANIFEST), empty for a build tree.
bundle_source() { sed -n 's/^source: //p' "$bundle/MANIFEST" 2>/dev/null; }

# The build an archive's runs were measured with: bundle.txt, or for
# archives written before it, env.json's bundle field.
archive_bundle() {
  if [ -f "$WORK/bundle.txt" ]; then
    cat "$WORK/bundle.txt"
  elif [ -f "$WORK/env.json" ]; then
    json_str bundle < "$WORK/env.json" | sed 's/^source: //; s/ *$//'
  fi
}

# Why the archive continued here must not take new runs: measured with
# another build (another kernel) or on another device, whose runs must never
# join its calibrations. Empty when it may.
foreign_archive() {
  local was now
  was=$(archive_bundle)
  now=$(bundle_source)
  if [ -n "$was" ] && [ -n "$now" ] && [ "$was" != "$now" ]; then
    echo "the work archive was measured with bundle $was, this is bundle $now"
    return
  fi
  if [ "$backend" = cuda ] && [ -f "$WORK/probe.json" ] && command -v nvidia-smi >/dev/null; then
    was=$(json_str name < "$WORK/probe.json")
    now=$(timeout 30 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
    [ -z "$now" ] || [ "$was" = "$now" ] || echo "the work archive was measured on '$was', this host has '$now'"
  fi
}

# A foreign archive still gives back what it finished (exports, the static
# table from its log, the report); every phase that would measure is not run.
BLOCKED=""
if [ -n "$FROM" ]; then
  BLOCKED=$(foreign_archive)
  [ -z "$BLOCKED" ] || BLOCKED="$BLOCKED: phases it did not finish are not run here (start a new archive without --resume, or use its bundle and device)"
  [ -z "$BLOCKED" ] || log "$BLOCKED"
fi
# The archive keeps the build its first run measured with.
if [ ! -f "$WORK/bundle.txt" ]; then
  b=$(archive_bundle)
  [ -n "$b" ] || b=$(bundle_source)
  echo "$b" > "$WORK/bundle.txt"
fi

# Stopped from outside (the host's limit): the program running is stopped
# (the agent finishes its run in hand), the work is saved and the report
# written, within seconds.
on_signal() {
  trap '' INT TERM
  log "stopped by a signal${CURRENT:+ during $CURRENT}"
  if [ -n "$CHILD" ]; then kill -TERM "$CHILD" 2>/dev/null; wait "$CHILD" 2>/dev/null; fi
  stop_daemon
  [ -n "$CURRENT" ] && record "$CURRENT" stopped $(($(date +%s) - t0)) "stopped by a signal; run again to continue"
  save_work
  CURRENT=report
  phase_report
  record report ok 0 "after the signal"
  save_work
  exit 130
}
trap on_signal INT TERM

failed=0
for p in $PHASES_ALL; do
  [[ " $phases " == *" $p "* ]] || continue
  if [ -e "$(done_file "$p")" ]; then
    log "phase $p: results present, skipped"
    continue
  fi
  if [ -n "$BLOCKED" ] && [ "$p" != env ] && [ "$p" != report ] && [ "$(last_state "$p")" != ok ]; then
    record "$p" not-run 0 "$BLOCKED"
    failed=1
    continue
  fi
  limit=$(phase_limit "$p")
  # The report runs even when the budget is spent (its CLI calls have their
  # own bound), so that every run's results come back with its phase table.
  [ "$p" = report ] && [ "$limit" -le 0 ] && limit=${TIMEOUT[report]}
  if [ "$limit" -le 0 ]; then
    record "$p" not-run 0 "budget spent; the next window continues"
    failed=1
    continue
  fi
  t0=$(date +%s)
  LAST_LOG=""
  CURRENT=$p
  "phase_$p" $((t0 + limit))
  rc=$?
  CURRENT=""
  reason=${LAST_LOG:-see logs in measure-work.tar.gz}
  stop_daemon
  dt=$(($(date +%s) - t0))
  case "$rc" in
    0) record "$p" ok "$dt" "" ;;
    3) record "$p" not-applicable "$dt" "$backend backend" ;;
    124|130|137) record "$p" timeout "$dt" "over ${limit} s: $(echo "$reason" | tr "\t" " " | cut -c1-200); the next run continues"; failed=1 ;;
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
