"""reference.py - PASCAL's and the analytic baselines' per-key errors on a
panel, from the project's own evaluator: `pascal evaluate BUNDLE [--heldout
PANEL,...] --json` (docs/cli.md), whose report.heldout lists, per key, the
runs it scored and each method's MAPE. Learned columns are paired with these
keys, so a key the model refuses outright is left out of every column, as
`pascal evaluate` leaves it out of its own; a key refused only in part
cannot be paired run for run and is an error.

The `pascal` binary also validates the files strictly (field named on
error) before pascal_eval reads them.
"""
import json
import subprocess

REFERENCE_METHODS = ("pascal", "tilesight", "ppt_gpu", "exact_sdcm", "aligned", "che")


class ReferenceError(Exception):
    """`pascal evaluate` refused the input, or its answer cannot be paired."""


def key_of(doc, fields):
    return tuple(doc[f] for f in fields)


def evaluate(pascal, bundle_path, panel_files=None):
    """The held-out report of `pascal evaluate` for the bundle, its own panel
    or the measurements of `panel_files` as the panel."""
    cmd = [pascal, "evaluate", bundle_path, "--json"]
    if panel_files:
        cmd[3:3] = ["--heldout", ",".join(panel_files)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except OSError as e:
        raise ReferenceError("%s: %s" % (pascal, e.strerror or e))
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines() or ["exit status %d" % p.returncode]
        raise ReferenceError(lines[-1])
    report = json.loads(p.stdout)["calibrations"][0]["report"]
    if not report.get("heldout"):
        raise ReferenceError("%s: heldout: the bundle has no held-out panel (give --heldout)"
                             % bundle_path)
    return report["heldout"]


def paired_keys(heldout, fields):
    """[(key, {method: per-key MAPE})] in the report's key order, for the keys
    every method scores."""
    out = []
    for k in heldout["keys"]:
        key = key_of(k, fields)
        if k["n_scored"] == 0:
            continue
        if k["n_scored"] != k["n_runs"]:
            raise ReferenceError("key %s: the model refused %d of its %d runs (%s); a key "
                                 "refused in part cannot be paired run for run"
                                 % (key, k["n_runs"] - k["n_scored"], k["n_runs"], k["refusal"]))
        out.append((key, {m: k["mape"][m] for m in REFERENCE_METHODS}))
    return out
