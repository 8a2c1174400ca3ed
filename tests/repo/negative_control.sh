#!/bin/sh
# negative_control.sh - self_contained.sh must fail on a tree that cites an
# outside document, once per pattern it guards, and pass on a clean tree.
set -u
here=$(dirname "$0")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo 'clean text citing docs/design.md' > "$tmp/clean.c"
sh "$here/self_contained.sh" "$tmp" >/dev/null || { echo "clean tree refused" >&2; exit 1; }
# the references are assembled here so that this file cites nothing itself
up='..' sh='sha''red'
for ref in "$up/$sh/paper/x.tex" 'see the br''ief' 'DESIGN''.md section 4' \
           'as the des''ign says' 'notes/gpu-measurement''.md' "/work/$sh/x"; do
  printf '/* %s */\n' "$ref" > "$tmp/src.c"
  if sh "$here/self_contained.sh" "$tmp" >/dev/null 2>&1; then
    echo "not detected: $ref" >&2; exit 1
  fi
done
echo "negative controls detected"
