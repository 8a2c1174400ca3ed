"""test_no_silent_skip.py - no test may pass in CI by running nothing.

1. Every skip path in a test program under tests/ (exit 77, unittest skips)
   is in a file that applies the CI rule of ci_skip.py, or
   is the GPU test's "no CUDA device" (CI has no GPU by design).
2. The rule really works: the SciPy oracle with SciPy hidden, and the
   systemd unit check with systemd-analyze off the PATH, exit 77 without CI
   and 1 with CI=true.

Usage: test_no_silent_skip.py SOURCE_DIR ORACLE_DRIVER"""
import os
import re
import subprocess
import sys
import tempfile

SRC, DRIVER = sys.argv[1], sys.argv[2]
TESTS = os.path.join(SRC, "tests")
SKIP = re.compile(r"exit\s*\(?\s*77|SKIP_CODE|skipUnless|skipIf|unittest\.skip|SkipTest|"
                  r"self\.skipTest")
CI_RULE = re.compile(r"ci_skip|\$\{CI:-\}")
# Hardware, not a tool: the GPU tests skip where there is no CUDA device (and
# CUPTI under ASan); CI has no GPU.
HARDWARE = {"tests/gpu/test_gpu.cpp"}
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


for root, _, files in os.walk(TESTS):
    for name in files:
        path = os.path.join(root, name)
        rel = os.path.relpath(path, SRC)
        if name == os.path.basename(__file__) or not name.endswith((".py", ".sh", ".c", ".cpp")):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if not SKIP.search(text) or rel in HARDWARE:
            continue
        if not CI_RULE.search(text):
            fail("%s has a skip path that ignores CI (use tests/harness/ci_skip.py)" % rel)


def run(cmd, env_extra):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(env_extra)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


with tempfile.TemporaryDirectory() as tmp:
    # hide SciPy and NumPy: a sitecustomize that makes their import fail
    with open(os.path.join(tmp, "sitecustomize.py"), "w") as f:
        f.write("import sys\nsys.modules['scipy'] = None\nsys.modules['numpy'] = None\n")
    oracle = [sys.executable, os.path.join(TESTS, "oracle", "test_scipy_oracle.py"), DRIVER]
    units = ["/bin/sh", os.path.join(TESTS, "systemd", "verify_units.sh"), SRC]
    for what, cmd, env in (("SciPy oracle", oracle, {"PYTHONPATH": tmp}),
                           ("systemd units", units, {"PATH": tmp})):
        for ci, want in (({}, 77), ({"CI": "true"}, 1), ({"CI": "false"}, 77)):
            r = run(cmd, dict(env, **ci))
            if r.returncode != want:
                fail("%s with the tool missing, %s: exit %d, wanted %d\n%s%s" %
                     (what, ci or "CI unset", r.returncode, want, r.stdout[-400:], r.stderr[-400:]))

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
