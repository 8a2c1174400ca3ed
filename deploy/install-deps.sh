#!/bin/sh
# install-deps.sh - install the Debian packages PASCAL needs, and only those
# that are missing (chromium and chromium-driver: the dashboard browser test,
# docs/dashboard.md; python3-sklearn: the learned baselines of tools/pascal_eval,
# docs/learned-baselines.md; python3-venv: the Python client's install test in
# a plain venv, docs/autotuning.md; man-db: the manual pages' test). Safe to run again and again; needs root (or sudo) only
# when something is missing. Used by `make run` and `make test`.
# Then the OpenAPI linter of the test suite (Spectral, from the npm registry,
# pinned) into $PASCAL_TOOLS_DIR (default build/tools; git ignores it), never
# into the repository itself or a global node prefix.
#
#   install-deps.sh            everything: build, tests, dashboard, linter
#   install-deps.sh --packages the Debian packages only, not the linter
#   install-deps.sh --linter   the linter only (npm must be there: run the
#                              packages first); tests/run_suite.sh installs
#                              it while the build compiles (a fresh
#                              download takes about 20 s, mostly waiting)
#   install-deps.sh --bundle   only what `make gpu-bundle` builds with (the
#                              compilers, CMake, the libraries the bundle
#                              copies, patchelf): no browser, web server,
#                              Node.js or linter
#   ... --list                 print the packages (and "spectral") it would
#                              see to, install nothing
set -eu

bundle=0 list=0 packages=1 linter=1
for a in "$@"; do
  case "$a" in
    --bundle) bundle=1 linter=0 ;;
    --packages) linter=0 ;;
    --linter) packages=0 ;;
    --list) list=1 ;;
    *) echo "install-deps: unknown argument '$a' (--bundle, --packages, --linter, --list)" >&2
       exit 2 ;;
  esac
done

here=$(cd "$(dirname "$0")/.." && pwd)
SPECTRAL_VERSION=6.16.3
tools=${PASCAL_TOOLS_DIR:-$here/build/tools}
install_spectral() {
  [ -x "$tools/node_modules/.bin/spectral" ] && \
    [ "$("$tools/node_modules/.bin/spectral" --version 2>/dev/null)" = "$SPECTRAL_VERSION" ] && return 0
  echo "install-deps: installing @stoplight/spectral-cli@$SPECTRAL_VERSION into $tools"
  mkdir -p "$tools"
  npm install --prefix "$tools" --no-audit --no-fund --loglevel=error \
    "@stoplight/spectral-cli@$SPECTRAL_VERSION"
}

BUNDLE_PACKAGES="build-essential cmake ninja-build pkg-config libmicrohttpd-dev libjansson-dev
libsqlite3-dev libcurl4-openssl-dev python3 patchelf"
PACKAGES="$BUNDLE_PACKAGES python3-jsonschema python3-yaml python3-scipy python3-sklearn
python3-venv python3-pip
sqlite3 curl wrk systemd clang-14 libclang-rt-14-dev clang-format man-db
chromium chromium-driver nginx"
[ "$bundle" -eq 0 ] || PACKAGES=$BUNDLE_PACKAGES
[ "$packages" -eq 1 ] || PACKAGES=""
if [ "$list" -eq 1 ]; then
  [ -z "$PACKAGES" ] || echo $PACKAGES
  [ "$linter" -eq 0 ] || echo spectral
  exit 0
fi
if [ "$packages" -eq 0 ]; then
  command -v npm >/dev/null 2>&1 ||
    { echo "install-deps: npm is missing: run install-deps.sh (or --packages) first" >&2; exit 1; }
  install_spectral
  exit 0
fi

missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# node and npm may come from another source than Debian (NodeSource ships npm
# inside its nodejs): ask for the Debian packages only when npm is absent.
[ "$bundle" -eq 1 ] || command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
if [ -z "$missing" ]; then
  [ "$linter" -eq 0 ] || install_spectral
  exit 0
fi

echo "install-deps: installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
[ "$linter" -eq 0 ] || install_spectral
