# bench/http/common.sh - sourced by the HTTP benchmark scripts (run.sh,
# breakdown.sh, instructions.sh): a scratch directory $tmp holding the
# shipped sim-gb10 scan calibration in $tmp/bundles, servers started in the
# background by `start` and stopped, and $tmp removed, on exit.
tmp=$(mktemp -d)
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
mkdir "$tmp/bundles"
cp "$(dirname "$0")/../../deploy/calibrations/sim-gb10-scan.json" "$tmp/bundles/"

# start NAME CMD...: run it in the background (stdout $tmp/NAME.out, stderr
# $tmp/NAME.out.err), wait for "listening on http://"; sets pid and url.
start() {
  out=$tmp/$1.out
  shift
  "$@" >"$out" 2>"$out.err" &
  pid=$!
  pids="$pids $pid"
  i=0
  until grep -q "listening on http://" "$out" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 1200 ] || { cat "$out.err" >&2; exit 1; }
    sleep 0.1
  done
  url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$out" | head -n 1)
}
