#!/bin/sh
# lint_openapi.sh SRC_DIR - api-spec/openapi.yaml under Spectral with the
# repository's ruleset (api-spec/.spectral.yaml): no error, warning, info or
# hint. Negative control: the same spec with one operation's summary removed
# must be refused. Spectral is installed by deploy/install-deps.sh into
# $PASCAL_TOOLS_DIR (default SRC_DIR/build/tools). Without it the test is
# skipped (77), except under CI=true, where a missing linter is a failure.
set -u
src=${1:?usage: lint_openapi.sh SRC_DIR}
spectral=""
for dir in "${PASCAL_TOOLS_DIR:-}" "$src/build/tools"; do
  [ -n "$dir" ] && [ -x "$dir/node_modules/.bin/spectral" ] && { spectral=$dir/node_modules/.bin/spectral; break; }
done
[ -z "$spectral" ] && command -v spectral >/dev/null 2>&1 && spectral=$(command -v spectral)
if [ -z "$spectral" ]; then
  echo "spectral not found: run deploy/install-deps.sh (installs it into build/tools)"
  [ "${CI:-}" = "true" ] && exit 1
  exit 77
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
ruleset=$src/api-spec/.spectral.yaml

"$spectral" lint --fail-severity=hint --ruleset "$ruleset" "$src/api-spec/openapi.yaml" \
  || { echo "FAIL: openapi.yaml is not clean under Spectral $("$spectral" --version)"; exit 1; }

# Negative control: drop the first operation summary; the lint must fail.
awk '!done && /^      summary: / { done = 1; next } { print }' "$src/api-spec/openapi.yaml" > "$tmp/openapi.yaml"
cmp -s "$src/api-spec/openapi.yaml" "$tmp/openapi.yaml" && { echo "FAIL: control not built"; exit 1; }
if "$spectral" lint --fail-severity=hint --ruleset "$ruleset" "$tmp/openapi.yaml" > "$tmp/out" 2>&1; then
  echo "FAIL: a missing operation summary was not reported"; exit 1
fi
grep -q 'operation-summary' "$tmp/out" || { cat "$tmp/out"; echo "FAIL: wrong rule fired"; exit 1; }
echo "openapi.yaml clean under Spectral $("$spectral" --version); the control was refused"
