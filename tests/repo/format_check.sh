#!/bin/sh
# format_check.sh ROOT - every C, C++ and CUDA source of the repository
# follows .clang-format (the style most files had when it was written: 2-space
# indents, 100 columns, a function's brace on its own line). The reference is
# Debian 12's clang-format 14; another major version may format differently,
# so it is treated like a missing tool: skipped (exit 77), or a failure where
# CI is set (the rule of tests/harness/ci_skip.py). Fix a file with
#   clang-format -i FILE
# The check first proves it can fail: a misformatted snippet must be refused.
root=${1:?usage: format_check.sh ROOT}
cd "$root" || exit 1

unavailable() {
  case ${CI:-} in
    "" | 0 | false | False | FALSE | no) echo "SKIP: $1"; exit 77 ;;
  esac
  echo "FAIL: $1; CI is set, so this is a failure, not a skip" >&2
  exit 1
}
command -v clang-format >/dev/null 2>&1 || unavailable "clang-format is not available (install clang-format)"
major=$(clang-format --version | sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p')
[ "$major" = 14 ] || unavailable "clang-format $major is not the reference version 14 (install Debian 12's clang-format)"

# the control: a function with its brace attached and a 4-space body
if printf 'int f(void) {\n    return 1;\n}\n' |
  clang-format --dry-run --Werror --assume-filename=control.c >/dev/null 2>&1; then
  echo "FAIL: clang-format accepted a misformatted control snippet" >&2
  exit 1
fi

if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then
  files=$(git ls-files '*.c' '*.h' '*.cpp' '*.cu' '*.cuh' | grep -v '^tests/fuzz/corpus/')
else
  files=$(find . -path ./build -prune -o -path './build-*' -prune -o -path ./tests/fuzz/corpus -prune \
    -o \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) -print)
fi
# one clang-format for every file (a process per file took 18 s of the
# suite); its violations name file:line:col, one file per line below
n=$(echo "$files" | wc -w)
out=$(echo "$files" | xargs clang-format --dry-run --Werror 2>&1)
rc=$?
bad=$(printf '%s\n' "$out" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: .*clang-format-violations.*/\1/p' | sort -u)
for f in $bad; do
  echo "not formatted: $f (clang-format -i $f)"
done
if [ -n "$bad" ]; then
  echo "FAIL: $(echo "$bad" | wc -w) of $n files differ from .clang-format" >&2
  exit 1
fi
[ "$rc" = 0 ] || { printf 'FAIL: clang-format failed:\n%s\n' "$out" >&2; exit 1; }
echo "ok: $n files follow .clang-format"
