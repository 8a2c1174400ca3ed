#!/bin/sh
# test_bundle_deps.sh - `make gpu-bundle` installs only what the bundle's
# build needs: its recipe calls install-deps.sh --bundle (never the full
# list), and that list has the compilers, CMake, the libraries the bundle
# copies and patchelf, but no browser, web server, Node.js or OpenAPI linter
# (chromium, nginx and Spectral belong to the test suite). Checked to fail
# with the recipe's --bundle removed.
#
# Usage: test_bundle_deps.sh SOURCE_DIR
src=${1:?usage: test_bundle_deps.sh SOURCE_DIR}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

calls=$(make -n -C "$src" gpu-bundle 2>&1 | grep 'install-deps\.sh')
[ -n "$calls" ] || fail "make gpu-bundle runs no install-deps.sh: $(make -n -C "$src" gpu-bundle 2>&1 | head -n 3)"
echo "$calls" | grep -qv -- '--bundle' && fail "make gpu-bundle runs install-deps.sh without --bundle: $calls"

list=$(sh "$src/deploy/install-deps.sh" --bundle --list) || fail "install-deps.sh --bundle --list failed"
for p in chromium chromium-driver nginx spectral nodejs npm; do
  echo " $list " | grep -q " $p " && fail "the bundle's packages include $p: $list"
done
for p in build-essential cmake patchelf libmicrohttpd-dev libjansson-dev libsqlite3-dev libcurl4-openssl-dev; do
  echo " $list " | grep -q " $p " || fail "the bundle's packages lack $p: $list"
done
# the full list still has what the test suite needs (python3-sklearn: tests/learned)
full=$(sh "$src/deploy/install-deps.sh" --list)
for p in chromium nginx spectral patchelf python3-sklearn; do
  echo " $full " | tr '\n' ' ' | grep -q " $p " || fail "the full list lacks $p"
done
sh "$src/deploy/install-deps.sh" --bogus >/dev/null 2>&1 && fail "an unknown argument is accepted"
[ "$fails" -eq 0 ] || exit 1
echo "OK"
