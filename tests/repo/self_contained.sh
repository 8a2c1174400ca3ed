#!/bin/sh
# self_contained.sh ROOT - fail when a file under ROOT points at material that
# a clone of the repository does not have: the sibling "shared" folder, its
# reference notes, or unnamed outside documents. The repository explains
# itself in docs/design.md and cites the paper by title and authors.
#
# The patterns are assembled from pieces so that this script does not match
# itself. Build folders, node_modules and .git are not part of the sources.
set -u
root=${1:?usage: self_contained.sh ROOT}
dotdot='\.\.'
p1="${dotdot}/shared"
p2='the '"brief"
p3='DESIGN''\.md'
p4='the '"design"
p5='gpu-measurement''\.md'
p6='/work''/shared'
hits=$(grep -rIn -e "$p1" -e "$p2" -e "$p3" -e "$p4" -e "$p5" -e "$p6" "$root" \
         --exclude-dir=.git --exclude-dir='build*' --exclude-dir=node_modules \
         --exclude-dir=var 2>/dev/null)
if [ -n "$hits" ]; then
  echo "references to material outside the repository:" >&2
  echo "$hits" >&2
  exit 1
fi
echo "self-contained: no outside references under $root"
