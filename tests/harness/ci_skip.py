"""ci_skip.py - the one rule for a test that needs an optional tool (SciPy,
systemd-analyze, a built CLI, ...): where CI is set (CI=true, as CI services
export it) a missing tool fails the test, so that a suite that ran nothing
can never pass there; elsewhere the test is skipped with exit 77, which ctest
reports as skipped (SKIP_RETURN_CODE 77), naming what to install. The shell
tests apply the same rule inline (tests/systemd/verify_units.sh)."""
import os
import sys


def in_ci():
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(tool, install):
    """Exit 1 under CI, 77 elsewhere; never returns."""
    msg = "%s is not available (install %s)" % (tool, install)
    if in_ci():
        print("FAIL: %s; CI is set, so this is a failure, not a skip" % msg, file=sys.stderr)
        sys.exit(1)
    print("SKIP: " + msg)
    sys.exit(77)
