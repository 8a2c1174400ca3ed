#!/bin/sh
# tests/run_suite.sh - what `make test` runs (docs/testing.md): the whole
# suite in three builds, arranged so that two cores stay busy.
#
#   1. the Debian packages, then the normal build (Ninja, Makefile) while
#      the OpenAPI linter downloads beside it;
#   2. its tests, while the ASan+UBSan and fuzz builds compile beside them
#      at a lower priority (tests wait on daemons and sockets often enough
#      to leave a core part idle, which the compilers take);
#   3. the ASan+UBSan tests (all but label `once`, the checks that the
#      normal pass already made; JOBS + 1 at a time), while each fuzz
#      harness runs for FUZZ_SECONDS beside them (at full priority: niced,
#      their first unit, which sets up a daemon, overran libFuzzer's unit
#      timeout).
#
# A failing phase does not stop the later ones; the exit status is 0 only
# when all passed. Called by the Makefile with MAKE, JOBS and the build
# folders in the environment.
set -u

MAKE=${MAKE:-make}
JOBS=${JOBS:-2}
BUILD=${BUILD:-build}
SANBUILD=${SANBUILD:-build-sanitize}
FUZZBUILD=${FUZZBUILD:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-5}

failed=""
fail() { failed="$failed $1"; }
start=$(date +%s)
at() { echo "$(($(date +%s) - start)) s"; } # time since the start, for the headers

# The Debian packages first; the linter (an npm download, about 20 s of
# mostly waiting) is installed while the normal build compiles.
mkdir -p "$BUILD/suite-logs" && LOGS=$(cd "$BUILD/suite-logs" && pwd) || exit 1
sh deploy/install-deps.sh --packages || exit 1
(sh deploy/install-deps.sh --linter >"$LOGS/linter.txt" 2>&1
 echo $? >"$LOGS/linter.rc") &
linter=$!
$MAKE --no-print-directory build DEPS_ARGS=--packages || exit 1
wait "$linter"
cat "$LOGS/linter.txt"
[ "$(cat "$LOGS/linter.rc" 2>/dev/null)" = 0 ] || fail "linter install"

echo "== at $(at): the ASan+UBSan and fuzz builds compile beside the normal tests (log: $LOGS/builds.txt) =="
rm -f "$LOGS/builds.rc" "$LOGS/fuzz.rc"
: >"$LOGS/fuzz.txt"
(nice -n 10 $MAKE --no-print-directory build-sanitize build-fuzz >"$LOGS/builds.txt" 2>&1
 echo $? >"$LOGS/builds.rc") &
builds=$!

echo "== at $(at): tests: normal build =="
(cd "$BUILD" && ctest --output-on-failure -j "$JOBS") || fail "normal"

wait "$builds"
echo "== at $(at): the ASan+UBSan and fuzz builds are done =="
if [ "$(cat "$LOGS/builds.rc" 2>/dev/null)" != 0 ]; then
  tail -n 40 "$LOGS/builds.txt"
  echo "the ASan+UBSan or fuzz build failed (whole log: $LOGS/builds.txt)"
  exit 1
fi

echo "== at $(at): fuzzing: each harness for $FUZZ_SECONDS s beside the sanitizer tests (log: $LOGS/fuzz.txt) =="
(cd "$FUZZBUILD" && cmake -DPASCAL_FUZZ_SECONDS="$FUZZ_SECONDS" . >/dev/null &&
 ctest --output-on-failure -L fuzz -j "$JOBS" >"$LOGS/fuzz.txt" 2>&1
 echo $? >"$LOGS/fuzz.rc") &
fuzz=$!

# One test more than cores: a fifth of this phase's test time is spent
# waiting (daemons, leases, clock steps), which a third test fills once the
# fuzzers are done (210 -> 191 s, the same tree and costs, 2026-11-27).
echo "== at $(at): tests: ASan+UBSan build (all but label once) =="
(cd "$SANBUILD" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --output-on-failure -j "$((JOBS + 1))" -LE '^once$') || fail "sanitizer"

wait "$fuzz"
echo "== at $(at): fuzzing: results =="
cat "$LOGS/fuzz.txt"
[ "$(cat "$LOGS/fuzz.rc" 2>/dev/null)" = 0 ] || fail "fuzzing"

if [ -n "$failed" ]; then
  echo "make test: failed:$failed (after $(at))"
  exit 1
fi
echo "make test: all passed in $(at)"
