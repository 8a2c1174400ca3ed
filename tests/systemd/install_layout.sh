#!/bin/sh
# install_layout.sh SRC_DIR BUILD_DIR - deploy/install.sh staged into a
# temporary DESTDIR from the current build (--no-build): the config file is
# created from the example, kept on a second run, the units and the sysusers
# entry are installed with the prefix and sysconfdir substituted, and a bad
# option is refused.
set -u
src=${1:?usage: install_layout.sh SRC_DIR BUILD_DIR}
build=${2:?usage: install_layout.sh SRC_DIR BUILD_DIR}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run_install() {
  DESTDIR="$tmp/root" sh "$src/deploy/install.sh" --no-build --build-dir "$build" \
    --prefix /opt/pascal --sysconfdir /etc/pascal-test "$@" > "$tmp/log" 2>&1
}

run_install || { cat "$tmp/log"; fail "install.sh failed"; }
root=$tmp/root
cmp -s "$src/deploy/pascald.conf.example" "$root/etc/pascal-test/pascald.conf" \
  || fail "pascald.conf was not created from the example"
unit=$root/opt/pascal/lib/systemd/system/pascald.service
agent=$root/opt/pascal/lib/systemd/system/pascal-agent@.service
grep -q '^ExecStart=/opt/pascal/bin/pascald serve --config /etc/pascal-test/pascald.conf ' "$unit" \
  || fail "pascald.service ExecStart not rewritten for the prefix"
grep -q '^ExecStart=/opt/pascal/bin/pascal-agent ' "$agent" || fail "agent ExecStart not rewritten"
grep -q '^LoadCredential=token:/etc/pascal-test/agent-%i.token$' "$agent" \
  || fail "agent credential path not rewritten"
grep -q '/usr/local/\|/etc/pascal/' "$unit" "$agent" && fail "unrewritten paths left in the units"
# Every Documentation= of the installed units names an installed file.
for doc in $(sed -n 's/^Documentation=//p' "$unit" "$agent"); do
  case $doc in
    file:/opt/pascal/*) [ -f "$root${doc#file:}" ] || fail "unit documentation $doc not installed" ;;
    *) fail "unit documentation $doc is not a file under the prefix" ;;
  esac
done
[ -f "$root/opt/pascal/lib/sysusers.d/pascal.conf" ] || fail "sysusers entry missing"
[ -f "$root/opt/pascal/share/pascal/examples/nginx-tls.conf.example" ] || fail "nginx example missing"
for bundle in "$src"/deploy/calibrations/*.json; do
  [ -f "$bundle" ] || continue
  cmp -s "$bundle" "$root/opt/pascal/share/pascal/calibrations/$(basename "$bundle")" \
    || fail "bundle $(basename "$bundle") not installed"
done

# The installed agent runs; on a CUDA build it finds the installed backend.
env -i PATH=/usr/bin:/bin "$root/opt/pascal/bin/pascal-agent" --help > /dev/null 2>&1 \
  || fail "the installed pascal-agent does not run"
if [ -n "$(find "$build/calibrator/cuda" -maxdepth 1 -name 'libpascal_cuda_backend.so*' 2>/dev/null)" ]; then
  [ -f "$root/opt/pascal/lib/libpascal_cuda_backend.so" ] || fail "cuda backend not installed in <prefix>/lib"
  env -i PATH=/usr/bin:/bin ldd "$root/opt/pascal/bin/pascal-agent" | grep -q "=> $root/opt/pascal/bin/../lib/libpascal_cuda_backend.so" \
    || fail "the installed agent does not resolve the installed cuda backend"
  grep -q 'cuda backend installed' "$tmp/log" || fail "install.sh did not report the cuda backend"
fi

# The admin's edits survive a re-install.
echo "lease_seconds = 120" >> "$root/etc/pascal-test/pascald.conf"
run_install || fail "second install.sh failed"
grep -q '^lease_seconds = 120$' "$root/etc/pascal-test/pascald.conf" || fail "pascald.conf was overwritten"
grep -q 'kept existing' "$tmp/log" || fail "second run did not report keeping the config"

run_install --bogus && fail "an unknown option was accepted"
DESTDIR="$tmp/root2" sh "$src/deploy/install.sh" --no-build --build-dir "$build" --prefix rel \
  > /dev/null 2>&1 && fail "a relative prefix was accepted"

[ $failures -eq 0 ] && echo "install layout: all checks passed"
[ $failures -eq 0 ]
