#!/bin/sh
# install_package.sh SRC_DIR BUILD_DIR [EXTRA_CFLAGS] - install the build into
# a temporary prefix, then build tests/install/consumer.c against the
# installed libpascal twice, as an outside project would: through pkg-config
# (pascal.pc only: PKG_CONFIG_LIBDIR names nothing else) and through CMake's
# find_package(pascal). Both programs must print the paper's policy bound
# 10/7 = 1+3/7 and the version the build's own binaries print.
# EXTRA_CFLAGS carries the sanitizer flags when the library was built with them.
set -u
src=${1:?usage: install_package.sh SRC_DIR BUILD_DIR [EXTRA_CFLAGS]}
build=${2:?usage: install_package.sh SRC_DIR BUILD_DIR [EXTRA_CFLAGS]}
extra=${3:-}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1 \
  || { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
version=$("$build/bin/pascald" --version | sed -n 's/^pascald //p')
release=${version%%+*}
expected="1+3/7 $version"

pc=$(find "$prefix" -name pascal.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || { echo "FAIL: pascal.pc not installed"; exit 1; }
for f in include/pascal/static.h include/pascal/version.h include/pascal/predict.h \
         share/doc/pascal/README.md share/doc/pascal/docs/design.md; do
  [ -f "$prefix/$f" ] || fail "$f not installed"
done
find "$prefix" -name libpascal.a | grep -q . || fail "libpascal.a not installed"
find "$prefix" -name pascalConfig.cmake | grep -q . || fail "pascalConfig.cmake not installed"

# pkg-config, restricted to this prefix.
export PKG_CONFIG_LIBDIR="$(dirname "$pc")"
unset PKG_CONFIG_PATH
[ "$(pkg-config --modversion pascal)" = "$release" ] \
  || fail "pkg-config version $(pkg-config --modversion pascal) is not $release"
cflags=$(pkg-config --cflags pascal) && libs=$(pkg-config --libs pascal) || fail "pkg-config pascal"
# shellcheck disable=SC2086 # word splitting of the flags is intended
cc -std=c11 -Wall -Wextra -Werror $extra $cflags "$src/tests/install/consumer.c" -o "$tmp/consumer" \
   $libs $extra > "$tmp/cc.log" 2>&1 || { cat "$tmp/cc.log"; fail "compile against pkg-config"; }
out=$("$tmp/consumer")
[ "$out" = "$expected" ] || fail "pkg-config consumer printed '$out', expected '$expected'"

# CMake package.
mkdir -p "$tmp/cm"
cat > "$tmp/cm/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(pascal $release EXACT REQUIRED CONFIG)
add_executable(consumer $src/tests/install/consumer.c)
target_link_libraries(consumer PRIVATE pascal::pascal)
CM
if cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$prefix" \
     -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" > "$tmp/cm.log" 2>&1 \
   && cmake --build "$tmp/cm/build" >> "$tmp/cm.log" 2>&1; then
  out=$("$tmp/cm/build/consumer")
  [ "$out" = "$expected" ] || fail "find_package consumer printed '$out', expected '$expected'"
else
  cat "$tmp/cm.log"; fail "build with find_package(pascal)"
fi

# Negative control: without the prefix, pkg-config must not find a pascal.
PKG_CONFIG_LIBDIR="$tmp/empty" pkg-config --exists pascal && fail "pkg-config found pascal outside the prefix"

[ $failures -eq 0 ] && echo "install package: pkg-config and find_package consumers print $expected"
[ $failures -eq 0 ]
