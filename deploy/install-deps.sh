#!/bin/sh
# install-deps.sh - install the Debian packages PASCAL needs, and only those
# that are missing. Safe to run again and again; needs root (or sudo) only
# when something is missing. Used by `make run` and `make test`.
set -eu

PACKAGES="build-essential cmake pkg-config libmicrohttpd-dev libjansson-dev
libsqlite3-dev libcurl4-openssl-dev python3 python3-jsonschema python3-yaml python3-scipy
sqlite3 curl wrk systemd clang-14 libclang-rt-14-dev"

missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
