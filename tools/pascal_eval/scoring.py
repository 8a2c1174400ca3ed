"""scoring.py - the paper's error measure and intervals (section 5.4, Eq.
dynamic_selection), computed exactly as libpascal computes them so that a
learned column and `pascal evaluate`'s columns compare like for like:

  * per key, the mean of |K_pred / K_obs - 1| over its runs in file order,
    times 100 (core/src/evaluate.c, score_key);
  * balanced MAPE: the mean over keys within each workload/device group, then
    over groups (core/src/eval_summary.c);
  * 95% percentile key bootstrap: keys drawn with replacement within each
    group, 2000 resamples, splitmix64 seeded with 12, the draw floor(u n) with
    u the top 53 bits over 2^53, type-7 quantiles (core/src/bootstrap.c); the
    gap intervals are paired: a method's per-key error minus PASCAL's on the
    same resampled keys.

The sums run in the C code's order, so the figures agree to the last bit
(tests/learned/test_learned.py checks it on `pascal evaluate --json`).
"""
import numpy as np

RESAMPLES = 2000
SEED = 12
LEVEL = 0.95

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def key_mape(pred, obs):
    """100 x mean |pred / obs - 1| over one key's runs, summed in order."""
    total = 0.0
    for p, o in zip(pred, obs):
        total += abs(p / o - 1)
    return 100 * total / len(pred)


def _splitmix64(seed, count):
    """The first `count` outputs of splitmix64 from state `seed`."""
    with np.errstate(over="ignore"):
        state = np.uint64(seed) + np.arange(1, count + 1, dtype=np.uint64) * _GOLDEN
        z = (state ^ (state >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def _sequential_mean(block):
    """Row means of a 2-D array summed left to right (as the C loop does;
    NumPy's sum() pairs terms and would round differently)."""
    return np.cumsum(block, axis=1)[:, -1] / block.shape[1]


def _quantile7(s, q):
    h = q * (len(s) - 1)
    i = int(np.floor(h))
    if i + 1 >= len(s):
        return float(s[-1])
    return float(s[i] + (h - i) * (s[i + 1] - s[i]))


def balanced(groups):
    """Mean over groups of the mean over each group's per-key values."""
    total = 0.0
    for values in groups:
        s = 0.0
        for v in values:
            s += v
        total += s / len(values)
    return total / len(groups)


def key_bootstrap(groups, resamples=RESAMPLES, seed=SEED, level=LEVEL):
    """Percentile interval [lo, hi] of the balanced mean of `groups` (lists
    of per-key values), pascal_key_bootstrap's draws and quantiles."""
    sizes = [len(g) for g in groups]
    per_resample = sum(sizes)
    z = _splitmix64(seed, resamples * per_resample).reshape(resamples, per_resample)
    u = (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    total = np.zeros(resamples)
    start = 0
    for values, n in zip(groups, sizes):
        idx = np.minimum((u[:, start:start + n] * float(n)).astype(np.int64), n - 1)
        total = total + _sequential_mean(np.asarray(values, dtype=float)[idx])
        start += n
    stat = np.sort(total / len(groups))
    return [_quantile7(stat, (1 - level) / 2), _quantile7(stat, (1 + level) / 2)]


def summarize(columns, reference="pascal"):
    """One row of the comparison table. columns: {method: [per-key values of
    group 0, of group 1, ...]} (lists of lists, keys in the same order for
    every method). Returns {"mape", "ci", "gap", "gap_ci"}, each {method:
    value}; a gap is the method's error minus the reference's."""
    row = {"mape": {}, "ci": {}, "gap": {}, "gap_ci": {}}
    ref = columns[reference]
    for name, groups in columns.items():
        row["mape"][name] = balanced(groups)
        row["ci"][name] = key_bootstrap(groups)
        diff = [[a - b for a, b in zip(g, r)] for g, r in zip(groups, ref)]
        row["gap"][name] = balanced(diff)
        row["gap_ci"][name] = key_bootstrap(diff)
    return row
