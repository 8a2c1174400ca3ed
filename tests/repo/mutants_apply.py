#!/usr/bin/python3
"""mutants_apply.py - every planted bug of `make mutation`
(tests/mutation/mutants.py) still applies: its snippet occurs exactly once
in its file. Code moves on and a snippet that no longer matches makes its
mutant a silent no-op in the mutation score; this check names it at once.
Checked to fail: four mutants had gone stale before this check (heartbeat,
bundle hash, answer time and expected error) and it listed all four.

Usage: mutants_apply.py SOURCE_DIR
"""
import os
import sys

SOURCE = sys.argv[1]
sys.path.insert(0, os.path.join(SOURCE, "tests", "mutation"))
from mutants import MUTANTS  # noqa: E402

stale = []
for m in MUTANTS:
    with open(os.path.join(SOURCE, m["file"]), encoding="utf-8") as f:
        n = f.read().count(m["original"])
    if n != 1:
        stale.append("%s: its snippet occurs %d times in %s" % (m["id"], n, m["file"]))
for line in stale:
    print("FAIL:", line)
print("%d mutants, %d stale" % (len(MUTANTS), len(stale)))
sys.exit(1 if stale else 0)
