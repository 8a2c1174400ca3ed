#!/bin/sh
# verify_units.sh SRC_DIR - check systemd/pascald.service and
# systemd/pascal-agent@.service with `systemd-analyze verify` (any message is
# a failure: verify only warns, and exits 0, on unknown keys or bad values)
# and `systemd-analyze security --offline` (exposure at most 2.0 of 10).
# The binaries may not be installed: the units are copied to a temporary
# directory with ExecStart pointing at stub executables. Two broken copies
# (a bad directive value, a missing binary) must be rejected, so that the
# check itself is shown to fail on a real error. Without systemd-analyze:
# exit 77 (skipped), or 1 where CI is set (the rule of tests/harness/ci_skip.py).
set -u
src=${1:?usage: verify_units.sh SRC_DIR}
if ! command -v systemd-analyze >/dev/null 2>&1; then
  case ${CI:-} in
    ""|0|false|False|FALSE|no) echo "SKIP: systemd-analyze is not available (install systemd)"; exit 77 ;;
  esac
  echo "FAIL: systemd-analyze is not available (install systemd); CI is set, so this is a failure, not a skip" >&2
  exit 1
fi

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/bin" "$tmp/units"
for b in pascald pascal-agent; do
  printf '#!/bin/sh\nexit 0\n' > "$tmp/bin/$b"
  chmod 755 "$tmp/bin/$b"
done
for u in pascald.service pascal-agent@.service; do
  sed "s|/usr/local/bin/|$tmp/bin/|g" "$src/systemd/$u" > "$tmp/units/$u" || exit 2
done
failures=0

# verify UNIT...: succeeds only with exit status 0 and no output at all.
verify() {
  out=$(cd "$tmp/units" && systemd-analyze verify --man=no "$@" 2>&1)
  rc=$?
  [ $rc -eq 0 ] && [ -z "$out" ] && return 0
  printf '%s\n' "$out"
  return 1
}

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

verify ./pascald.service || fail "pascald.service does not verify cleanly"
verify ./pascal-agent@gb10.service || fail "pascal-agent@.service does not verify cleanly"

for u in pascald.service pascal-agent@gb10.service; do
  (cd "$tmp/units" && systemd-analyze security --offline=yes --threshold=20 "./$u" >/dev/null 2>&1) \
    || fail "$u: security exposure above 2.0"
done

# Properties the issue asks for, read from the units as shipped.
has() { grep -Eq "^$2\$" "$src/systemd/$1" || fail "$1 lacks '$2'"; }
lacks() { grep -Eq "^$2" "$src/systemd/$1" && fail "$1 must not have '$2'"; }
for u in pascald.service pascal-agent@.service; do
  for line in 'NoNewPrivileges=yes' 'ProtectSystem=strict' 'ProtectHome=yes' 'PrivateTmp=yes' \
              'CapabilityBoundingSet=' 'SystemCallFilter=@system-service' \
              'RestrictAddressFamilies=.*' '(DynamicUser=yes|User=pascal)'; do
    has "$u" "$line"
  done
done
has pascal-agent@.service 'Restart=on-failure'
# the daemon comes back after any exit it was not asked for (issue 37, finding 9)
has pascald.service 'Restart=always'
has pascald.service 'RestartPreventExitStatus=2 3'
has pascald.service 'ExecReload=/bin/kill -HUP \$MAINPID'
has pascald.service 'StateDirectory=pascal'
has pascald.service 'PrivateDevices=yes'
lacks pascal-agent@.service 'PrivateDevices=yes'
has pascal-agent@.service 'LoadCredential=token:.*'
grep -Eq '^ExecStart=.*--token[ =]' "$src/systemd/pascal-agent@.service" \
  && fail "the agent's token must not be on its command line"

# Negative controls: the checks above must reject real unit errors.
sed 's/^ProtectSystem=strict$/ProtectSystem=strictest/' "$tmp/units/pascald.service" > "$tmp/units/bad-value.service"
verify ./bad-value.service >/dev/null && fail "a bad ProtectSystem= value was not caught"
sed "s|$tmp/bin/pascald|$tmp/bin/missing|" "$tmp/units/pascald.service" > "$tmp/units/bad-exec.service"
verify ./bad-exec.service >/dev/null && fail "a missing ExecStart binary was not caught"

[ $failures -eq 0 ] && echo "systemd units: all checks passed"
[ $failures -eq 0 ]
