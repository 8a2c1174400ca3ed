#!/bin/sh
# install.sh - build PASCAL and install it with `cmake --install` (programs,
# libpascal with its headers, pascal.pc and CMake package, docs, manual
# pages), plus what
# CMake does not install: the bundled calibrations, the config and proxy
# examples, the systemd units, the sysusers.d entry for the "pascal" user,
# and /etc/pascal/pascald.conf (created from
# deploy/pascald.conf.example only if it does not exist yet; never overwritten).
#
#   deploy/install.sh [--prefix DIR] [--sysconfdir DIR] [--build-dir DIR]
#                     [--no-build] [--no-systemd]
#
#   --prefix DIR      install prefix (default /usr/local)
#   --sysconfdir DIR  configuration directory (default /etc/pascal)
#   --build-dir DIR   CMake build directory (default build-install)
#   --no-build        install an existing build instead of configuring/building
#   --no-systemd      skip units, sysusers entry and systemctl daemon-reload
#
# DESTDIR (environment) stages everything under a root for packaging; then
# nothing outside DESTDIR is touched (no user creation, no daemon-reload).
# Units name /usr/local and /etc/pascal; other directories are substituted.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
prefix=/usr/local
sysconfdir=/etc/pascal
build=build-install
do_build=1
do_systemd=1
destdir=${DESTDIR:-}

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit "$1"; }
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || usage 2; prefix=$2; shift 2 ;;
    --sysconfdir) [ $# -ge 2 ] || usage 2; sysconfdir=$2; shift 2 ;;
    --build-dir) [ $# -ge 2 ] || usage 2; build=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --no-systemd) do_systemd=0; shift ;;
    -h|--help) usage 0 ;;
    *) echo "install.sh: unknown option $1" >&2; usage 2 ;;
  esac
done
case $prefix in /*) ;; *) echo "install.sh: --prefix must be absolute" >&2; exit 2 ;; esac
case $sysconfdir in /*) ;; *) echo "install.sh: --sysconfdir must be absolute" >&2; exit 2 ;; esac

if [ $do_build -eq 1 ]; then
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix"
  cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
fi
[ -f "$build/CMakeCache.txt" ] || { echo "install.sh: no build in $build" >&2; exit 2; }
DESTDIR=$destdir cmake --install "$build" --prefix "$prefix"
# A CUDA build installs the agent's cuda backend into <prefix>/lib, found
# through the agent's $ORIGIN/../lib RPATH; make sure the installed agent
# resolves it (a build without CUDA has no backend library to find).
if [ -n "$(find "$build/calibrator/cuda" -maxdepth 1 -name 'libpascal_cuda_backend.so*' 2>/dev/null)" ]; then
  agent=$destdir$prefix/bin/pascal-agent
  if ldd "$agent" 2>/dev/null | grep -q 'libpascal_cuda_backend.so => not found'; then
    echo "install.sh: the installed pascal-agent does not find libpascal_cuda_backend.so" >&2
    exit 1
  fi
  echo "install.sh: cuda backend installed beside $prefix/bin/pascal-agent"
fi

# Configuration: created once, left alone afterwards (it is the admin's).
install -d -m 0755 "$destdir$sysconfdir"
if [ ! -e "$destdir$sysconfdir/pascald.conf" ]; then
  install -m 0644 "$here/deploy/pascald.conf.example" "$destdir$sysconfdir/pascald.conf"
  echo "install.sh: created $sysconfdir/pascald.conf"
else
  echo "install.sh: kept existing $sysconfdir/pascald.conf"
fi
# Bundled calibrations, imported by pascald into an empty database (its
# compiled-in default: <prefix>/share/pascal/calibrations).
install -d -m 0755 "$destdir$prefix/share/pascal/calibrations"
for bundle in "$here"/deploy/calibrations/*.json; do
  [ -f "$bundle" ] && install -m 0644 "$bundle" "$destdir$prefix/share/pascal/calibrations/"
done
# Sim device profiles, for `pascal sim --profile NAME` and pascal-agent --profile.
install -d -m 0755 "$destdir$prefix/share/pascal/profiles"
install -m 0644 "$here"/deploy/profiles/*.profile "$destdir$prefix/share/pascal/profiles/"
install -d -m 0755 "$destdir$prefix/share/pascal/examples"
install -m 0644 "$here/deploy/pascald.conf.example" "$here/deploy/nginx-tls.conf.example" \
  "$destdir$prefix/share/pascal/examples/"

[ $do_systemd -eq 1 ] || exit 0
unitdir=$destdir$prefix/lib/systemd/system
install -d -m 0755 "$unitdir" "$destdir$prefix/lib/sysusers.d"
for unit in pascald.service pascal-agent@.service; do
  sed -e "s|/usr/local/|$prefix/|g" -e "s|/etc/pascal/|$sysconfdir/|g" \
    "$here/systemd/$unit" > "$unitdir/$unit"
  chmod 0644 "$unitdir/$unit"
done
install -m 0644 "$here/systemd/pascal.sysusers.conf" "$destdir$prefix/lib/sysusers.d/pascal.conf"
case $prefix in
  /usr|/usr/local) ;;
  *) echo "install.sh: note: systemd does not search $prefix/lib/systemd/system;" \
          "link the units into /etc/systemd/system" ;;
esac
if [ -z "$destdir" ] && [ "$(id -u)" -eq 0 ]; then
  if command -v systemd-sysusers >/dev/null 2>&1; then
    systemd-sysusers "$prefix/lib/sysusers.d/pascal.conf"
  fi
  if [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    echo "install.sh: start with: systemctl enable --now pascald.service"
  fi
fi
