#!/usr/bin/env python3
"""run_mutants.py - mutation testing: does the suite catch small, realistic bugs?

Each mutant of mutants.py replaces one snippet of one source file (the
snippet must occur exactly once) with a plausible wrong version. The runner
copies the working tree (tracked and untracked, not ignored files) to a
scratch directory, configures and builds it once, then for each mutant
plants it, rebuilds incrementally, runs ctest, and restores the file. A
mutant is killed when some test fails, survives when every test passes, and
is stillborn when it does not compile (a defect of the list, not a score).
A mutant listed as equivalent (no input can tell it apart) is expected to
survive and is left out of the score; if a test kills it, the runner says so.
The checkout itself is never modified.

Usage: run_mutants.py [--normal-only] [--only ID,ID,...] [--match REGEX]
                      [--jobs N] [--keep] [--list]
  --normal-only  run only the normal build's ctest (default: a survivor of
                 the normal build is also run under the ASan+UBSan build)
  --only/--match run a subset of the mutants
ctest stops at the first failing test, so a killed mutant costs less than a
survivor.
Prints one line per mutant, then the score and the survivors. Exit status 0
when no mutant survived, 1 otherwise. `make mutation` runs it; CI does not.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from mutants import MUTANTS  # noqa: E402

CMAKE_ARGS = ["-DPASCAL_WITH_CUDA=OFF", "--log-level=WARNING"]
BUILDS = {"normal": ["-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
          "sanitize": ["-DCMAKE_BUILD_TYPE=Debug", "-DPASCAL_SANITIZE=ON"]}
SAN_ENV = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=1",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}


def copy_tree(dst):
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=SOURCE, check=True, capture_output=True).stdout.split(b"\0")
    for f in files:
        if not f:
            continue
        rel = f.decode()
        src = os.path.join(SOURCE, rel)
        if not os.path.isfile(src):
            continue  # deleted in the work tree
        os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
        shutil.copy2(src, os.path.join(dst, rel))


def sh(cmd, cwd, env=None, timeout=1800):
    full = dict(os.environ, **(env or {}))
    return subprocess.run(cmd, cwd=cwd, env=full, capture_output=True, text=True, timeout=timeout)


def build(tree, kind, jobs):
    bdir = os.path.join(tree, "build-" + kind)
    if not os.path.isdir(bdir):
        r = sh(["cmake", "-S", tree, "-B", bdir] + CMAKE_ARGS + BUILDS[kind], tree)
        if r.returncode:
            raise SystemExit("configure failed:\n" + r.stdout[-3000:] + r.stderr[-3000:])
    r = sh(["cmake", "--build", bdir, "-j", str(jobs)], tree)
    return bdir, r


def ctest(bdir, kind, jobs):
    """(passed?, names of the failed tests)."""
    r = sh(["ctest", "-j", str(jobs), "--timeout", "180", "--stop-on-failure"], bdir,
           SAN_ENV if kind == "sanitize" else None)
    failed = re.findall(r"^\s*\d+ - (\S+) \(", r.stdout, re.M)
    return r.returncode == 0, failed


def plant(tree, m):
    path = os.path.join(tree, m["file"])
    with open(path, encoding="utf-8") as f:
        text = f.read()
    n = text.count(m["original"])
    if n != 1:
        return None, "the original snippet occurs %d times in %s" % (n, m["file"])
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(m["original"], m["replacement"]))
    return text, None


def restore(tree, m, text):
    with open(os.path.join(tree, m["file"]), "w", encoding="utf-8") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--normal-only", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--match", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--list", action="store_true", help="print the mutants and exit")
    a = ap.parse_args()

    chosen = MUTANTS
    if a.only:
        ids = set(a.only.split(","))
        chosen = [m for m in chosen if m["id"] in ids]
        unknown = ids - {m["id"] for m in chosen}
        if unknown:
            raise SystemExit("unknown mutant ids: " + ", ".join(sorted(unknown)))
    if a.match:
        chosen = [m for m in chosen if re.search(a.match, m["id"] + " " + m["file"])]
    if a.list:
        for m in chosen:
            print("%-28s %-40s %s" % (m["id"], m["file"], m["models"]))
        return 0

    kinds = ["normal"] if a.normal_only else ["normal", "sanitize"]
    tree = tempfile.mkdtemp(prefix="pascal-mutation-")
    print("scratch copy: %s; builds: %s; %d mutants" % (tree, ", ".join(kinds), len(chosen)),
          flush=True)
    results = {"killed": [], "survived": [], "equivalent": [], "stillborn": []}
    try:
        copy_tree(tree)
        for kind in kinds:  # the unmutated suite must pass, or nothing can be learnt
            bdir, r = build(tree, kind, a.jobs)
            if r.returncode:
                raise SystemExit("the unmutated %s build fails:\n%s" % (kind, r.stdout[-3000:]))
            ok, failed = ctest(bdir, kind, a.jobs)
            if not ok:
                raise SystemExit("the unmutated %s suite fails: %s" % (kind, " ".join(failed)))
        for i, m in enumerate(chosen, 1):
            t0 = time.monotonic()
            text, why = plant(tree, m)
            if text is None:
                results["stillborn"].append((m, why))
                print("[%2d/%d] %-28s STILLBORN %s" % (i, len(chosen), m["id"], why), flush=True)
                continue
            verdict, detail = "SURVIVED", ""
            try:
                for kind in kinds:
                    bdir, r = build(tree, kind, a.jobs)
                    if r.returncode:
                        verdict, detail = "STILLBORN", "does not compile"
                        break
                    ok, failed = ctest(bdir, kind, a.jobs)
                    if not ok:
                        verdict, detail = "KILLED", "%s: %s" % (kind, " ".join(failed) or "?")
                        break
            finally:
                restore(tree, m, text)
            if m.get("equivalent"):
                if verdict == "SURVIVED":
                    verdict = "EQUIVALENT"
                elif verdict == "KILLED":
                    detail += " (listed as equivalent: revise its explanation)"
            results[{"KILLED": "killed", "SURVIVED": "survived", "EQUIVALENT": "equivalent",
                     "STILLBORN": "stillborn"}[verdict]].append((m, detail))
            print("[%2d/%d] %-28s %-9s %5.0fs %s" % (i, len(chosen), m["id"], verdict,
                                                    time.monotonic() - t0, detail), flush=True)
    finally:
        if a.keep:
            print("kept " + tree)
        else:
            shutil.rmtree(tree, ignore_errors=True)

    k, s, eq, sb = (len(results[x]) for x in ("killed", "survived", "equivalent", "stillborn"))
    scored = k + s
    print("\nmutation score: %d/%d killed (%.1f%%), %d equivalent, %d stillborn" %
          (k, scored, 100.0 * k / scored if scored else 0.0, eq, sb))
    for m, _ in results["survived"]:
        print("SURVIVOR %s (%s): %s" % (m["id"], m["file"], m["models"]))
    for m, _ in results["equivalent"]:
        print("EQUIVALENT %s (%s): %s" % (m["id"], m["file"], m["equivalent"]))
    for m, why in results["stillborn"]:
        print("STILLBORN %s (%s): %s" % (m["id"], m["file"], why))
    return 1 if s else 0


if __name__ == "__main__":
    sys.exit(main())
