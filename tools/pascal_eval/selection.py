"""selection.py - hyper-parameters fixed before any panel is scored: for each
method, every point of its grid is scored by grouped K-fold cross-validation
on the calibration runs alone (a key's runs, all its sizes and horizons, are
always in the same fold, as leave-one-key-out holds out whole keys), with the
evaluation's own criterion, the key-balanced MAPE of the out-of-fold
predictions. The first candidate with the lowest error wins (ties go to the
earlier one in the method's order); the method is then refitted on all
calibration runs with it. Nothing here sees a panel.

Folds: sklearn's GroupKFold (deterministic: groups are dealt to folds by
size), FOLDS folds, or one per key when a bundle has fewer keys.
"""
import numpy as np
from sklearn.model_selection import GroupKFold

from . import scoring

FOLDS = 5


def balanced_mape(keys, pred, obs):
    """Key-balanced MAPE (%) of one set of runs (one group)."""
    per_key = {}
    for k, p, o in zip(keys, pred, obs):
        per_key.setdefault(k, ([], []))
        per_key[k][0].append(p)
        per_key[k][1].append(o)
    return scoring.balanced([[scoring.key_mape(p, o) for p, o in per_key.values()]])


def folds(runs):
    labels = {}
    groups = np.array([labels.setdefault(k, len(labels)) for k in runs.keys])
    n = min(FOLDS, len(labels))
    return list(GroupKFold(n_splits=n).split(runs.X, runs.K, groups))


def cross_validate(method, params, runs, splits):
    """[(candidate params, out-of-fold balanced MAPE)] of grid point `params`
    (one candidate, or one per boosting stage)."""
    pred = None
    for train, test in splits:
        got = method.grid_predictions(params, runs.X[train], runs.K[train], runs.X[test])
        if pred is None:
            pred = [(p, np.empty(len(runs))) for p, _ in got]
        for (_, out), (_, y) in zip(pred, got):
            out[test] = y
    return [(p, balanced_mape(runs.keys, y, runs.K)) for p, y in pred]


def select(method, runs):
    """(params, cv_mape, fitted estimator) for `method` on the calibration
    runs `runs`: the first candidate (Method.candidates order) with the
    lowest cross-validated error."""
    splits = folds(runs)
    scored = {}
    for params in method.grid:
        for cand, err in cross_validate(method, params, runs, splits):
            scored[repr(sorted(cand.items()))] = err if np.isfinite(err) else np.inf
    best, best_err = None, None
    for cand in method.candidates():
        err = scored[repr(sorted(cand.items()))]
        if best_err is None or err < best_err:
            best, best_err = cand, err
    return best, best_err, method.fit(best, runs.X, runs.K)
