#!/usr/bin/python3
"""SciPy oracle for the curve fit of paper section 4.2 / App. C Eq. trafficcurve.

docs/design.md §4.1 says the PCHIP of the curve fit uses SciPy
PchipInterpolator's interior and end-point derivative rules so that values
match SciPy, the isotonic projection is least squares with equal weights,
evaluation is clamped to the knot range, and L(W) = S(log W) - log W with K
held at the end horizons. This test feeds seeded random cases to
curve_driver (libpascal) and compares every number with an independent
computation:

  * PCHIP slopes and values: scipy.interpolate.PchipInterpolator, queried at
    the clamped points (the spec forbids extrapolation);
  * isotonic regression: the min-max formula
        v_i = max_{j<=i} min_{k>=i} mean(y_j..y_k),
    O(n^3) and sharing no code or idea with PAVA;
  * whole curve: geometric means per horizon, Y = log W + log K~, isotonic
    (formula above), PchipInterpolator over log W, L = S(log w) - log w,
    redone here from the raw (W, K) runs;
  * the fit's rejection of non-positive / non-finite runs and of too many
    horizons (status and field named);
  * the scan transfer (docs/design.md §4.3 rules 1-6, Eq. graph with
    gamma = 4, or 0 where the calibration's folds choose the pooled PCHIP
    alone, the folds recomputed here too; linear in d between depths, linear in eta = C/N between the
    adjacent sizes and on from the two smallest below them, Eq.
    dynamic_decode): which rule fires, how many sizes
    are used, a_hat and K, recomputed here from the references' K with the
    pooled PCHIP from SciPy; a size N <= C reads no curve: only the N cold
    fills, K = min(M, 1/W) (rule resident);
  * the GEMM transfer (paper section 4.5, App. C): along log n_c within each
    reference row, then along log n_r, exact at a reference, (p + 4 a_lin)/5
    inside a bracket (p from SciPy), clamped outside; K = min(M, K_0 (1 +
    [exp a - eps]_+)), K_0 = M (n_r + n_c) / (2 n_r n_c).

Usage: test_scipy_oracle.py PATH/TO/curve_driver
Exit 0 on agreement, 1 on a mismatch; without SciPy 77 (ctest SKIP), or 1
where CI is set (tests/harness/ci_skip.py).
"""
import functools
import math
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import ci_skip  # noqa: E402

try:
    import numpy as np
    from scipy.interpolate import PchipInterpolator
except ImportError as exc:  # deploy/install-deps.sh installs python3-scipy
    ci_skip.missing("SciPy (%s)" % exc, "python3-scipy")

SEED = 20260521
REL_TOL = 1e-12
MAX_KNOTS = 16  # PASCAL_CURVE_MAX_KNOTS


# ---------------------------------------------------------------- generators

def knots_x(rng, n):
    """Strictly increasing, non-uniform: gaps spread over three decades."""
    x = [rng.uniform(-5, 5)]
    style = rng.random()
    for _ in range(n - 1):
        if style < 0.2:
            gap = 1.0  # uniform spacing
        else:
            gap = 10 ** rng.uniform(-1.5, 1.5)
        x.append(x[-1] + gap)
    return x


def knots_y(rng, n):
    """Random, monotone, flat runs, zigzags (secant sign changes), ties."""
    style = rng.randrange(6)
    if style == 0:
        return [rng.uniform(-10, 10) for _ in range(n)]
    if style == 1:  # nondecreasing with flat stretches
        y, v = [], rng.uniform(-3, 3)
        for _ in range(n):
            v += rng.choice([0.0, 0.0, rng.uniform(0, 2)])
            y.append(v)
        return y
    if style == 2:  # nonincreasing
        y, v = [], rng.uniform(-3, 3)
        for _ in range(n):
            v -= rng.choice([0.0, rng.uniform(0, 2)])
            y.append(v)
        return y
    if style == 3:  # zigzag: every secant changes sign
        return [(-1) ** i * rng.uniform(0.1, 5) for i in range(n)]
    if style == 4:  # few distinct values: zero secants next to nonzero ones
        return [float(rng.randrange(-2, 3)) for _ in range(n)]
    # large magnitude, small relative variation
    base = rng.uniform(100, 1000)
    return [base + rng.uniform(-1, 1) for _ in range(n)]


def queries(rng, x):
    """Knots, interior points, points just and far outside the range."""
    lo, hi = x[0], x[-1]
    span = hi - lo
    t = list(x)
    t += [rng.uniform(lo, hi) for _ in range(6)]
    t += [lo - rng.uniform(0, 2 * span), hi + rng.uniform(0, 2 * span)]
    t += [math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)]
    return t


# ------------------------------------------------------- independent oracles

def isotonic_minmax(y):
    n = len(y)
    mean = [[0.0] * n for _ in range(n)]
    for j in range(n):
        s = 0.0
        for k in range(j, n):
            s += y[k]
            mean[j][k] = s / (k - j + 1)
    return [max(min(mean[j][k] for k in range(i, n)) for j in range(i + 1))
            for i in range(n)]


def scipy_slopes(x, y):
    find = getattr(PchipInterpolator, "_find_derivatives", None)
    xa, ya = np.asarray(x, float), np.asarray(y, float)
    if find is not None:
        return [float(v) for v in find(xa, ya)]
    return [float(v) for v in PchipInterpolator(xa, ya).derivative()(xa)]


@functools.lru_cache(maxsize=4096)
def pchip(x, y):
    """SciPy's interpolant through the knots (tuples, so that the many
    queries of one case build it once)."""
    return PchipInterpolator(np.asarray(x, float), np.asarray(y, float))


def scipy_values(x, y, t):
    if len(x) == 1:
        return [y[0]] * len(t)
    tc = np.clip(np.asarray(t, float), x[0], x[-1])
    return [float(v) for v in pchip(tuple(x), tuple(y))(tc)]


def curve_log_k(W, K, w_query):
    """L(w) of the fit, from the raw runs, with SciPy's PCHIP."""
    logs = {}
    for w, k in zip(W, K):
        logs.setdefault(w, []).append(math.log(k))
    horizons = sorted(logs)
    x = [math.log(w) for w in horizons]
    y = [math.log(w) + sum(logs[w]) / len(logs[w]) for w in horizons]
    y = isotonic_minmax(y)
    lws = [min(max(math.log(w), x[0]), x[-1]) for w in w_query]
    return [s - lw for s, lw in zip(scipy_values(x, y, lws), lws)]


EPS = 0.01       # PASCAL_EXCESS_EPS
GAMMA = 4.0      # PASCAL_GRAPH_GAMMA
M_WORKERS = 48   # M = 48 SMs x o = 1, and 48 resident CTAs, in curve_driver
C_BLOCKS = 1280  # capacity of curve_driver's device
RULE = {"exact": 0, "graph": 1, "clamp": 2, "depth": 3, "resident": 4, "refused": -1}
W_QUERY = 16     # the horizon of curve_driver's scan queries
RULE_ORDER = ["exact", "graph", "clamp", "depth"]  # least direct last


def excess(k):
    return math.log(max(k - 1.0, 0.0) + EPS)


def decode(a):
    return min(M_WORKERS, 1.0 + max(math.exp(a) - EPS, 0.0))


def chi(m):
    return min(m % 4, 2)  # class rule mod4-min2


def family_transfer(a, q, gamma=GAMMA):
    """Rules 1, 3, 4 in one family {m: a} that holds q's class: (rule,
    a_hat); gamma the weight of the same-class line (0: the pooled PCHIP
    alone)."""
    if q in a:
        return "exact", a[q]
    ms = sorted(a)
    left = [m for m in ms if m < q and chi(m) == chi(q)]
    right = [m for m in ms if m > q and chi(m) == chi(q)]
    if not left or not right:
        return "clamp", a[left[-1] if left else right[0]]
    m_l, m_r = left[-1], right[0]
    m_minus = max(m for m in ms if m < q)
    m_plus = min(m for m in ms if m > q)
    p = float(pchip(tuple(ms), tuple(a[m] for m in ms))(q))
    h_l, h_r = q - m_l, m_r - q
    a_lin = (h_r * a[m_l] + h_l * a[m_r]) / (h_l + h_r)
    c0 = 1 / (q - m_minus) + 1 / (m_plus - q)
    g = gamma * (1 / h_l + 1 / h_r)
    omega = g / (c0 + g)
    return "graph", (1 - omega) * p + omega * a_lin


def graph_fold_sums(runs):
    """The folds that choose a calibration's reading in m (model.graph,
    docs/design.md 4.3): every reference of a family (d at one size) with
    same-class references on both sides among the rest held out and read
    back from the rest with gamma = GAMMA (anchored) and 0 (pooled); the
    sums of |K_hat / K - 1|, K_hat decoded without the ceiling M."""
    sums = [0.0, 0.0]
    families = {}
    for d, m, n, k in runs:
        families.setdefault((n, d), {})[m] = k
    for fam in families.values():
        for t, k in fam.items():
            rest = {m: excess(kk) for m, kk in fam.items() if m != t}
            if not (any(m < t and chi(m) == chi(t) for m in rest)
                    and any(m > t and chi(m) == chi(t) for m in rest)):
                continue  # the rule would not be graph
            for c, gamma in enumerate((GAMMA, 0.0)):
                a = family_transfer(rest, t, gamma)[1]
                sums[c] += abs(1.0 + max(math.exp(a) - EPS, 0.0) - k) / k
    return sums


def graph_gamma(runs, driver_pooled):
    """gamma of the reading the folds choose (pooled only where its sum is
    lower); within rounding of a tie, the one libpascal reports. Returns
    (gamma, pooled, tied)."""
    anchored, pooled = graph_fold_sums(runs)
    tied = abs(anchored - pooled) <= 1e-9 * max(anchored, pooled)
    chosen = bool(driver_pooled) if tied else pooled < anchored
    return (0.0 if chosen else GAMMA), chosen, tied


def size_transfer(families, d, m, gamma=GAMMA):
    """Rules 1-6 at one size, families {d: {m: a}}: (rule, a_hat) or None."""
    with_class = sorted(dd for dd in families if any(chi(mm) == chi(m) for mm in families[dd]))
    if d in with_class:
        return family_transfer(families[d], m, gamma)
    if not with_class:
        return None  # rule 6: the class is unidentifiable
    lower = [dd for dd in with_class if dd < d]
    upper = [dd for dd in with_class if dd > d]
    if lower and upper:
        d_l, d_u = lower[-1], upper[0]
        w = (d - d_l) / (d_u - d_l)
        a = ((1 - w) * family_transfer(families[d_l], m, gamma)[1]
             + w * family_transfer(families[d_u], m, gamma)[1])
    else:
        a = family_transfer(families[lower[-1] if lower else upper[0]], m, gamma)[1]
    return "depth", a


def scan_transfer(runs, d, m, n, gamma=GAMMA):
    """(rule, sizes used, a_hat, K) for key (1, tma, d, m) at size n, from
    runs [(d, m, N, K)] all of family path tma, o = 1, read in m with the
    weight gamma on the same-class line."""
    if n <= C_BLOCKS:  # the operand stays resident: the N cold fills only
        return "resident", 0, math.nan, min(M_WORKERS, 1 / W_QUERY)
    sizes = sorted({run[2] for run in runs})
    j = next((i for i, size in enumerate(sizes) if size >= n), len(sizes))
    # above the largest size its curve alone, read at W N / N_max (the runs
    # here have the one horizon W_QUERY, so its value); below the smallest
    # the two smallest, carried on linearly in eta (weights outside [0, 1])
    used = ([len(sizes) - 1] if j == len(sizes) else
            [j] if sizes[j] == n or len(sizes) == 1 else
            [0, 1] if j == 0 else [j - 1, j])
    steps = []
    for i in used:
        families = {}
        for dd, mm, nn, k in runs:
            if nn == sizes[i]:
                families.setdefault(dd, {})[mm] = excess(k)
        step = size_transfer(families, d, m, gamma)
        if step is None:
            return "refused", 0, math.nan, math.nan
        steps.append(step)
    rule = max((r for r, _ in steps), key=RULE_ORDER.index)
    if len(steps) == 1:
        a = steps[0][1]
    else:
        eta0, eta1 = C_BLOCKS / sizes[used[0]], C_BLOCKS / sizes[used[1]]
        w = (C_BLOCKS / n - eta0) / (eta1 - eta0)
        a = (1 - w) * steps[0][1] + w * steps[1][1]
    return rule, len(steps), a, decode(a)


def axis_step(xs, values, t):
    """One GEMM transfer step over knots xs (log tile counts): (rule, a,
    indices of the knots used)."""
    n = len(xs)
    if n == 1 or t <= xs[0] or t >= xs[-1]:
        k = 0 if (n == 1 or t <= xs[0]) else n - 1
        return ("exact" if xs[k] == t else "clamp"), values(k), [k]
    if t in xs:
        k = xs.index(t)
        return "exact", values(k), [k]
    i = max(j for j in range(n) if xs[j] < t)
    ys = [values(j) for j in range(n)]
    p = float(pchip(tuple(xs), tuple(ys))(t))
    h_l, h_r = t - xs[i], xs[i + 1] - t
    a_lin = (h_r * ys[i] + h_l * ys[i + 1]) / (h_l + h_r)
    return "graph", (p + GAMMA * a_lin) / (1 + GAMMA), [i, i + 1]


def gemm_transfer(grids, qr, qc):
    """(rule, rows used, a, K, K0) for grids {(n_r, n_c): kappa}. Beyond
    the grid (n_r outside the rows, n_c outside the columns of every row
    read, PCHIP's window of up to four rows included) the fills are those
    of the reference, the query moved to the edge, its excess over B_0
    carried by the static reference's, (V_s(query) - B_0) /
    (V_s(reference) - B_0,ref): curve_driver's GEMM cache holds every
    panel, so V_s is B_0, the static excess at the reference is zero (under
    0.1 B_0) and the query keeps the reference's kappa, capped at its own
    M / K_0 (a held excess is not capped by the reference's)."""
    rows = sorted({r for r, _ in grids})
    cols = {r: sorted(c for rr, c in grids if rr == r) for r in rows}

    @functools.lru_cache(maxsize=None)
    def column(k, c):
        r = rows[k]
        return axis_step([math.log(x) for x in cols[r]],
                         lambda j: excess(grids[(r, cols[r][j])]), math.log(c))

    def transfer(r, c):
        row_rule, a, used = axis_step([math.log(x) for x in rows],
                                      lambda k: column(k, c)[1], math.log(r))
        rule = row_rule
        for k in used:
            rule = max(rule, column(k, c)[0], key=RULE_ORDER.index)
        read = used if row_rule != "graph" else \
            range(max(used[0] - 1, 0), min(used[0] + 2, len(rows) - 1) + 1)
        k0 = M_WORKERS * (r + c) / (2 * r * c)
        k = min(M_WORKERS, k0 * (1 + max(math.exp(a) - EPS, 0.0)))
        return rule, len(used), a, k, k0, read

    rule, n_used, a, k, k0, read = transfer(qr, qc)
    lo, hi = max(cols[rows[j]][0] for j in read), min(cols[rows[j]][-1] for j in read)
    rr = min(max(qr, rows[0]), rows[-1])
    rc = lo if qc < lo else hi if qc > hi else qc
    if (rr, rc) != (qr, qc):
        _, _, _, k_ref, k0_ref, _ = transfer(rr, rc)
        k = min(M_WORKERS, k0 * (k_ref / k0_ref))
    return rule, n_used, a, k, k0


# ------------------------------------------------------------- comparison

class Checker:
    def __init__(self):
        self.failures = 0
        self.compared = 0
        self.worst = 0.0

    def close(self, what, got, want, scale):
        """|got - want| <= REL_TOL * max(|want|, scale): relative, with the
        data's magnitude as the floor where the value itself is near 0."""
        self.compared += 1
        if math.isnan(want) or math.isnan(got):
            ok = math.isnan(want) and math.isnan(got)
            err = 0.0 if ok else math.inf
        else:
            err = abs(got - want) / max(abs(want), scale, 1e-300)
            ok = err <= REL_TOL
        self.worst = max(self.worst, err)
        if not ok:
            self.failures += 1
            if self.failures <= 20:
                print(f"MISMATCH {what}: libpascal {got!r} scipy/oracle {want!r} "
                      f"(rel err {err:.3g})")

    def equal(self, what, got, want):
        self.compared += 1
        if got != want:
            self.failures += 1
            if self.failures <= 20:
                print(f"MISMATCH {what}: libpascal {got!r} expected {want!r}")


def fmt(values):
    return " ".join(repr(float(v)) for v in values)


def build_cases(rng):
    cases = []  # (driver line, expected-output callback)

    def pchip_case(x, y, t):
        line = f"pchip {len(x)} {fmt(x)} {fmt(y)} {len(t)} {fmt(t)}"

        def check(chk, out, label):
            slopes, values = out
            want_d = scipy_slopes(x, y) if len(x) >= 2 else [0.0]
            scale_d = max(abs(v) for v in want_d)
            scale_y = max(abs(v) for v in y)
            for i, (g, w) in enumerate(zip(slopes, want_d)):
                chk.close(f"{label} slope[{i}]", g, w, scale_d)
            for ti, g, w in zip(t, values, scipy_values(x, y, t)):
                chk.close(f"{label} S({ti!r})", g, w, scale_y)
            chk.equal(f"{label} #slopes", len(slopes), len(x))
            chk.equal(f"{label} #values", len(values), len(t))

        cases.append((line, 2, check))

    for n in [2] * 300 + [3] * 500 + [4] * 300 + list(range(5, 17)) * 100:
        x = knots_x(rng, n)
        pchip_case(x, knots_y(rng, n), queries(rng, x))
    for _ in range(20):
        x = knots_x(rng, 1)
        pchip_case(x, knots_y(rng, 1), [x[0] - 1, x[0], x[0] + 1])

    def iso_case(y):
        line = f"iso {len(y)} {fmt(y)}"

        def check(chk, out, label):
            got = out[0]
            want = isotonic_minmax(y)
            scale = max(abs(v) for v in y)
            chk.equal(f"{label} length", len(got), len(y))
            for i, (g, w) in enumerate(zip(got, want)):
                chk.close(f"{label} v[{i}]", g, w, scale)
            chk.equal(f"{label} nondecreasing",
                      all(a <= b for a, b in zip(got, got[1:])), True)

        cases.append((line, 1, check))

    for _ in range(1500):
        n = rng.randint(1, 24)
        iso_case(knots_y(rng, n))

    def curve_case(W, K, w_query, expect_error=None):
        line = f"curve {len(W)} {fmt(W)} {fmt(K)} {len(w_query)} {fmt(w_query)}"

        def check(chk, out, label):
            got = out[0]
            if expect_error is not None:
                chk.equal(f"{label} error", got, expect_error)
                return
            if isinstance(got, str):
                chk.equal(f"{label} unexpected error", got, "curve values")
                return
            want = curve_log_k(W, K, w_query)
            # L = S(log w) - log w: the cancellation is relative to |Y|
            scale = max(abs(math.log(w)) + abs(math.log(k)) for w, k in zip(W, K))
            for wq, g, w in zip(w_query, got, want):
                chk.close(f"{label} L({wq!r})", g, w, scale)

        cases.append((line, 1, check))

    for _ in range(800):
        n_h = rng.randint(1, MAX_KNOTS)
        if rng.random() < 0.5:  # the calibrations' powers of two
            horizons = sorted(rng.sample([2.0 ** e for e in range(0, 20)], n_h))
        else:
            horizons = sorted({rng.uniform(1, 5000) for _ in range(n_h)})
        k_inf = rng.uniform(1, 64)
        W, K = [], []
        for w in horizons:
            # geometric-mean data: a saturating law times lognormal noise,
            # repeats at a horizon, sometimes a dip that isotonic must pool
            k = k_inf * (1 + rng.uniform(0, 3) / w) * math.exp(rng.gauss(0, 0.2))
            if rng.random() < 0.1:
                k *= rng.uniform(0.01, 0.5)
            for _ in range(rng.randint(1, 3)):
                W.append(w)
                K.append(k * math.exp(rng.gauss(0, 0.05)))
        order = list(range(len(W)))
        rng.shuffle(order)
        W = [W[i] for i in order]
        K = [K[i] for i in order]
        wq = list(horizons) + [rng.uniform(horizons[0], horizons[-1]) for _ in range(5)]
        wq += [horizons[0] / rng.uniform(1, 100), horizons[-1] * rng.uniform(1, 100)]
        curve_case(W, K, wq)

    def scan_case(runs, targets):
        cols = [fmt(run[i] for run in runs) for i in range(4)]
        qcols = [fmt(t[i] for t in targets) for i in range(3)]
        line = f"scan {len(runs)} {' '.join(cols)} {len(targets)} {' '.join(qcols)}"

        def check(chk, out, label):
            choice, got = out[0][:1], out[0][1:]
            chk.equal(f"{label} #numbers", len(got), 4 * len(targets))
            if not choice:
                return
            gamma, pooled, tied = graph_gamma(runs, choice[0])
            if not tied:
                chk.equal(f"{label} reading in m (1: pooled)", int(choice[0]), int(pooled))
            for j, (d, m, n) in enumerate(targets):
                g = got[4 * j:4 * j + 4]
                if len(g) < 4:
                    return
                rule, n_sizes, a, k = scan_transfer(runs, d, m, n, gamma)
                where = f"{label} (d={d}, m={m}, N={n})"
                chk.equal(f"{where} rule", int(g[0]), RULE[rule])
                if rule == "refused" or int(g[0]) != RULE[rule]:
                    continue
                chk.equal(f"{where} sizes", int(g[1]), n_sizes)
                chk.close(f"{where} a_hat", g[2], a, 1.0)
                chk.close(f"{where} K", g[3], k, 1.0)

        cases.append((line, 1, check))

    def random_k():
        # K <= 1 (excess clipped to eps), near 1, moderate, and above M = 48
        return rng.choice([rng.uniform(0.3, 1.0), 1 + 10 ** rng.uniform(-6, 0),
                           rng.uniform(1, 20), rng.uniform(40, 80)])

    # One family at one size: the rules inside a family at every m.
    for _ in range(300):
        refs_m = sorted(rng.sample(range(0, 40), rng.randint(1, 14)))
        scan_case([(2, m, 2048, random_k()) for m in refs_m],
                  [(2, m, 2048) for m in range(0, 44)])
    # Several depths and sizes: depth fallback, refusal and eta interpolation.
    for _ in range(200):
        runs = []
        for n in rng.sample([1024, 2048, 3072, 5120], rng.randint(1, 3)):
            for d in rng.sample([1, 2, 4, 8], rng.randint(1, 3)):
                for m in rng.sample(range(0, 21), rng.randint(1, 8)):
                    runs.append((d, m, n, random_k()))
        targets = [(rng.choice([1, 2, 3, 4, 6, 8, 12]), rng.randint(0, 22),
                    rng.choice([512, 1024, 1500, 2048, 2500, 3072, 4096, 5120, 8000]))
                   for _ in range(60)]
        scan_case(runs, targets)

    def gemm_case(grids, targets):
        rs, cs = zip(*grids)
        qrs, qcs = zip(*targets)
        kap = [grids[g] for g in grids]
        line = (f"gemm {len(grids)} {fmt(rs)} {fmt(cs)} {fmt(kap)} "
                f"{len(targets)} {fmt(qrs)} {fmt(qcs)}")

        def check(chk, out, label):
            got = out[0]
            chk.equal(f"{label} #numbers", len(got), 5 * len(targets))
            for j, (qr, qc) in enumerate(targets):
                g = got[5 * j:5 * j + 5]
                if len(g) < 5:
                    return
                rule, n_rows, a, k, k0 = gemm_transfer(grids, qr, qc)
                where = f"{label} grid ({qr}, {qc})"
                chk.equal(f"{where} rule", int(g[0]), RULE[rule])
                chk.equal(f"{where} rows", int(g[1]), n_rows)
                chk.close(f"{where} a", g[2], a, 1.0)
                chk.close(f"{where} K", g[3], k, 1.0)
                chk.close(f"{where} K0", g[4], k0, 1.0)

        cases.append((line, 1, check))

    tile_counts = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64]
    for _ in range(150):
        # ragged rows: each reference n_r has its own set of n_c
        grids = {}
        for r in rng.sample(tile_counts, rng.randint(1, 5)):
            for c in rng.sample(tile_counts, rng.randint(1, 5)):
                grids[(r, c)] = rng.choice([rng.uniform(0.5, 1.0), rng.uniform(1.0, 3.0),
                                            rng.uniform(3.0, 60.0)])
        targets = [(qr, qc) for qr in (1, 2, 5, 8, 20, 48, 100) for qc in (1, 3, 8, 10, 40, 80)]
        gemm_case(grids, targets)

    # Rejections: status and the field name given by the caller ("runs").
    for bad in (0.0, -1.0, math.nan, math.inf):
        curve_case([1.0, 2.0], [1.0, bad], [1.0], "error invalid runs")
        curve_case([bad, 2.0], [1.0, 1.5], [1.0], "error invalid runs")
    too_many = [float(w) for w in range(1, MAX_KNOTS + 2)]
    curve_case(too_many, [1.0] * len(too_many), [1.0], "error range runs")
    return cases


def parse(lines):
    out = []
    for line in lines:
        tag, *rest = line.split()
        if tag == "error":
            out.append(line)
        else:
            out.append([float(v) for v in rest])
    return out


def main():
    if len(sys.argv) != 2:
        print("usage: test_scipy_oracle.py PATH/TO/curve_driver")
        return 2
    rng = random.Random(SEED)
    cases = build_cases(rng)
    stdin = "\n".join(line for line, _, _ in cases) + "\n"
    proc = subprocess.run([sys.argv[1]], input=stdin, capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        print(f"curve_driver failed ({proc.returncode}): {proc.stderr.strip()}")
        return 1
    lines = proc.stdout.splitlines()
    expected = sum(n for _, n, _ in cases)
    if len(lines) != expected:
        print(f"curve_driver printed {len(lines)} lines, expected {expected}")
        return 1
    chk = Checker()
    pos = 0
    for index, (_, n_lines, check) in enumerate(cases):
        out = parse(lines[pos:pos + n_lines])
        pos += n_lines
        check(chk, out, f"case {index}")
    print(f"{len(cases)} cases, {chk.compared} comparisons, {chk.failures} mismatches, "
          f"worst relative error {chk.worst:.3g} (tolerance {REL_TOL:g})")
    return 1 if chk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
