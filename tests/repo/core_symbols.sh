#!/bin/sh
# core_symbols.sh LIB HEADER... - fail when the static library LIB exports a
# symbol that is neither internal (the core's own prefix pc_, see
# docs/design.md §2) nor a pascal_ name declared in one of the public
# HEADERs. Keeps the public API and the core's internals apart in the
# linker's namespace: a helper shared between core files must be pc_ or
# static, never a pascal_ name a consumer could mistake for API.
set -u
lib=${1:?usage: core_symbols.sh LIB HEADER...}
shift
syms=$(nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u)
[ -n "$syms" ] || { echo "no exported symbols read from $lib"; exit 1; }
bad=0
for s in $syms; do
  case $s in
  pc_*) ;;
  __*) ;; # reserved names the compiler makes (ASan's __odr_asan.* markers)
  pascal_*)
    if ! grep -qw "$s" "$@"; then
      echo "exported $s is not declared in a public header: make it pc_ or static"
      bad=1
    fi ;;
  *)
    echo "exported $s has neither the public pascal_ nor the internal pc_ prefix"
    bad=1 ;;
  esac
done
exit $bad
