"""learned.py - `python3 -m pascal_eval.learned`: the paper's learning-baseline
comparison (section "Dynamic prediction: comparisons", Figure "prediction")
on calibration bundles. For each BUNDLE, six scikit-learn methods
(methods.py) have their hyper-parameters fixed by grouped cross-validation on
the bundle's calibration runs (selection.py), are refitted on all of them and
predict the held-out panel (and any extra panel); each panel is scored with
the key-balanced MAPE and the 95% paired key-bootstrap intervals of `pascal
evaluate` (scoring.py), beside PASCAL and the analytic baselines as `pascal
evaluate` reports them (reference.py). docs/learned-baselines.md.

    python3 -m pascal_eval.learned BUNDLE [BUNDLE...] [--heldout PANEL[,PANEL...]]
        [--panel NAME=PANEL[,PANEL...]]... [--pascal PATH] [--json]

Exit status: 0 ok; 1 an input file unreadable, malformed or without a panel
(the file and field named); 2 a bad argument (one line naming it).
"""
import json
import os
import shutil
import sys

from . import bundles, reference, scoring


PROG = "pascal_eval.learned"
USAGE = ("usage: python3 -m pascal_eval.learned BUNDLE [BUNDLE...] [--heldout PANEL[,PANEL...]]\n"
         "       [--panel NAME=PANEL[,PANEL...]]... [--pascal PATH] [--json]")
MAX_PARTS = 8  # as `pascal evaluate --heldout`


class ArgError(Exception):
    def __init__(self, arg, message):
        super().__init__("%s: %s" % (arg, message))


def _files(arg, value):
    parts = value.split(",")
    if not all(parts):
        raise ArgError(arg, "an empty file name in %r" % value)
    if len(parts) > MAX_PARTS:
        raise ArgError(arg, "at most %d parts" % MAX_PARTS)
    return parts


def parse_args(argv):
    opts = {"bundles": [], "heldout": None, "panels": {}, "pascal": None, "json": False}
    seen = set()
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if not arg.startswith("--"):
            opts["bundles"].append(arg)
            continue
        name, eq, value = arg.partition("=")
        if name in ("--json", "--help"):
            if eq:
                raise ArgError(name, "takes no value")
            if name == "--help":
                return None
            opts["json"] = True
        elif name in ("--heldout", "--panel", "--pascal"):
            if not eq:
                if i >= len(argv):
                    raise ArgError(name, "a value is required")
                value = argv[i]
                i += 1
            if name == "--heldout":
                opts["heldout"] = _files(name, value)
            elif name == "--pascal":
                opts["pascal"] = value
            else:
                label, eq2, files = value.partition("=")
                if not eq2 or not label:
                    raise ArgError(name, "expected NAME=PANEL[,PANEL...]")
                if label == "heldout" or label in opts["panels"]:
                    raise ArgError(name, "panel name %r is taken" % label)
                opts["panels"][label] = _files(name, files)
                continue  # --panel may repeat, one name each
        else:
            raise ArgError(name, "unknown option")
        if name in seen:
            raise ArgError(name, "given twice")
        seen.add(name)
    if not opts["bundles"]:
        raise ArgError("BUNDLE", "at least one bundle is needed")
    if len(opts["bundles"]) > 1 and (opts["heldout"] or opts["panels"]):
        raise ArgError("--heldout" if opts["heldout"] else "--panel",
                       "needs exactly one BUNDLE")
    opts["pascal"] = find_pascal(opts["pascal"])
    return opts


def find_pascal(given):
    """--pascal, else $PASCAL_CLI, else build/bin/pascal of this checkout,
    else `pascal` on PATH."""
    if given is not None:
        candidates = [given]
    else:
        here = os.path.dirname(os.path.abspath(__file__))
        candidates = [os.environ.get("PASCAL_CLI"),
                      os.path.join(here, "..", "..", "build", "bin", "pascal"),
                      shutil.which("pascal")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise ArgError("--pascal", "no executable `pascal` CLI found (%s); build it or name it"
                   % (given if given is not None else "PASCAL_CLI, build/bin/pascal, PATH"))


# -- one bundle --------------------------------------------------------------

def key_doc(fields, key):
    return dict(zip(fields, key))


def score_panel(bundle, fitted, runs, ref_keys):
    """Per-key MAPE of every column on one panel, in the reference's key
    order, and the learned predictions per run."""
    by_key = runs.key_indices()
    if set(k for k, _ in ref_keys) - set(by_key):
        raise reference.ReferenceError("%s: the panel's keys differ from `pascal evaluate`'s"
                                       % bundle.path)
    preds = {name: method.predict(est, runs.X) for name, (method, est) in fitted.items()}
    keys = []
    for key, ref in ref_keys:
        idx = by_key[key]
        mape = {name: scoring.key_mape(preds[name][idx], runs.K[idx]) for name in fitted}
        mape.update(ref)
        keys.append(dict(key_doc(bundle.key_fields, key), n_runs=len(idx), mape=mape))
    return keys, {name: [float(v) for v in p] for name, p in preds.items()}


def columns_of(keys_per_group):
    """{method: [[per-key values] per group]} for the methods every key of
    every group has (a baseline the evaluator could not compute is null)."""
    names = list(keys_per_group[0][0]["mape"])
    return {m: [[k["mape"][m] for k in keys] for keys in keys_per_group]
            for m in names
            if all(k["mape"][m] is not None for keys in keys_per_group for k in keys)}


def run_bundle(path, opts):
    bundle = bundles.load(path)
    panels = {"heldout": opts["heldout"]}
    panels.update(opts["panels"])
    refs = {name: reference.evaluate(opts["pascal"], path, files)  # validates the files
            for name, files in panels.items()}
    cal = bundle.calibration_runs()
    from . import methods, selection  # scikit-learn: loaded once the inputs are accepted
    fitted, chosen = {}, {}
    for method in methods.METHODS:
        params, cv_mape, est = selection.select(method, cal)
        fitted[method.name] = (method, est)
        chosen[method.name] = {"params": params, "cv_mape": cv_mape}
    out_panels = {}
    for name, files in panels.items():
        runs = bundles.panel_runs(bundle, files) if files else bundle.heldout_runs()
        ref_keys = reference.paired_keys(refs[name], bundle.key_fields)
        if not ref_keys:
            raise reference.ReferenceError("%s: the model refuses every key of panel %r"
                                           % (path, name))
        keys, preds = score_panel(bundle, fitted, runs, ref_keys)
        out_panels[name] = {
            "files": files, "n_runs": len(runs), "n_keys": len(runs.key_indices()),
            "n_keys_scored": len(keys), "keys": keys,
            "observed": [float(k) for k in runs.K], "predictions": preds,
            "summary": scoring.summarize(columns_of([keys]))}
    return {"bundle": path, "device": bundle.device["name"], "workload": bundle.workload,
            "n_runs": len(cal), "n_keys": len(cal.key_indices()),
            "features": list(bundle.feature_names), "selection": chosen, "panels": out_panels}


def overall(results):
    """Per panel name, the balanced row over the bundles that have it."""
    out = {}
    names = []
    for r in results:
        names.extend(n for n in r["panels"] if n not in names)
    for name in names:
        groups = [r["panels"][name]["keys"] for r in results if name in r["panels"]]
        out[name] = dict(n_groups=len(groups), **scoring.summarize(columns_of(groups)))
    return out


def document(results):
    from . import methods, selection
    return {
        "methods": [{"name": m.name, "label": m.label, "target": m.target,
                     "candidates": len(m.candidates())} for m in methods.METHODS],
        "selection": {"folds": selection.FOLDS, "grouping": "key",
                      "criterion": "balanced_mape", "data": "calibration runs"},
        "bootstrap": {"resamples": scoring.RESAMPLES, "seed": scoring.SEED,
                      "level": scoring.LEVEL},
        "calibrations": results,
        "overall": overall(results)}


# -- output --------------------------------------------------------------------

REFERENCE_LABELS = {"pascal": "PASCAL", "tilesight": "TileSight", "ppt_gpu": "PPT-GPU",
                    "exact_sdcm": "exact SDCM", "aligned": "aligned K=1", "che": "Che"}


def _params(p):
    return " ".join("%s=%s" % (k, v) for k, v in p.items())


def _row_lines(row, labels, indent):
    lines = ["%s%-36s %9s %-20s %s" % (indent, "method", "MAPE %", "[95% CI]",
                                        "gap to PASCAL [95% CI]")]
    for m in labels:
        if m not in row["mape"]:
            continue
        ci, gci = row["ci"][m], row["gap_ci"][m]
        gap = "" if m == "pascal" else "%+.2f [%.2f, %.2f]" % (row["gap"][m], gci[0], gci[1])
        lines.append("%s%-36s %9.2f %-20s %s" % (indent, labels[m], row["mape"][m],
                                                  "[%.2f, %.2f]" % tuple(ci), gap))
    return lines


def text(doc):
    learned = {m["name"]: m["label"] for m in doc["methods"]}
    labels = dict(pascal="PASCAL", **learned)
    labels.update(REFERENCE_LABELS)
    lines = []
    for r in doc["calibrations"]:
        lines.append("%s %s (%s): %d calibration runs, %d keys" % (
            r["device"], r["workload"], r["bundle"], r["n_runs"], r["n_keys"]))
        lines.append("  hyper-parameters (grouped %d-fold cross-validation on the calibration "
                     "runs; balanced MAPE %%):" % doc["selection"]["folds"])
        for m, label in learned.items():
            s = r["selection"][m]
            lines.append("    %-34s %-44s cv %.2f" % (label, _params(s["params"]),
                                                      s["cv_mape"]))
        for name, p in r["panels"].items():
            lines.append("  panel %s: %d runs, %d keys scored" % (name, p["n_runs"],
                                                                 p["n_keys_scored"]))
            lines.extend(_row_lines(p["summary"], labels, "    "))
    if len(doc["calibrations"]) > 1:
        for name, row in doc["overall"].items():
            lines.append("overall, panel %s, balanced over %d groups:" % (name, row["n_groups"]))
            lines.extend(_row_lines(row, labels, "    "))
    return "\n".join(lines) + "\n"


def _plain(v):
    """JSON-ready: tuples (hidden-layer sizes) as lists."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse_args(argv)
    except ArgError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    if opts is None:
        print(USAGE)
        return 0
    from threadpoolctl import threadpool_limits
    try:
        with threadpool_limits(limits=1):  # one BLAS thread: same sums on every machine
            results = [run_bundle(path, opts) for path in opts["bundles"]]
    except (bundles.BundleError, reference.ReferenceError) as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    doc = _plain(document(results))
    if opts["json"]:
        sys.stdout.write(json.dumps(doc, indent=2, allow_nan=False) + "\n")
    else:
        sys.stdout.write(text(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
