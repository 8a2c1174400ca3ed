#!/usr/bin/env python3
"""Score candidate transfer rules of the scan curve on a calibration's own runs.

Reads only the calibration runs (`measurements`) of each scan bundle given,
never its held-out or off-grid panel, and prints the mean |predicted / measured
- 1| of K, per rule, over folds that hold one level out and read it back from
the rest (docs/design.md 4.1 quotes the figures):

  W = 4 held out  (read between W = 1 and 16): the paper's curve (PCHIP of
                  log W K over log W, after isotonic regression), the excess
                  coordinate linear in log W from one pass, the excess or the
                  traffic linear in W, and the onset law (below) with the
                  key's onset fitted on the rest (the rule core/src/curve.c
                  applies);
  W = 16 held out (read between 4 and 64): the paper's curve against the
                  excess coordinate read linearly on every segment and the
                  onset law on that segment;
  W = 64 held out (read past W = 16 from 4 and 16): the last knot's value
                  held against the onset law of the last segment;
  blocks per slot (x = W N): each of a key's points held out and read from
                  its two neighbours in x among the key's other sizes and
                  horizons (gaps of 1.3x to 2x, as between a panel's W and the
                  grid): log(x K) linear in log x (the paper's curve's
                  reading), a linear in log x, the onset law;
  smallest / largest size held out: the nearest size's K (clamp) against a
                  linear extrapolation of the excess coordinate in C/N and
                  against the nearest size's curve read at the same blocks
                  per slot W N (the onset law's variable; W = 1 as is);
  smallest / largest m of a family held out: the nearest m against a linear
                  extrapolation of the excess coordinate in m;
  m between same-class references held out (rule 3, Eq. graph): the
                  anchored mix of the pooled PCHIP over every m and the
                  same-class line, for gamma = 0 (the pooled PCHIP alone),
                  1/4, 1, 4 (the paper's), 16 and infinite (the line alone),
                  and the nearest m of any class.

The onset law: the excess e = K - 1 of a key is A max(0, 1 - c / (W N)),
no excess until the workers have drifted a cache apart after c blocks per
slot, then the same excess per pass; c is fitted per key over its sizes and
horizons above one pass (pascal_onset_fit), and a segment [W_a, W_b] is read
with e linear in -1 / max(W, c / N) through its two knots. Where the fitted
onset lies at or past W_b though W_b's knot measured an excess ("late
onset" rows, only the folds where that happens): W_a's excess held up to
W_b (the rule core/src/curve.c applies) against the onset ignored.

The curve arithmetic follows core/src/curve.c (SciPy's PCHIP end rule); K =
fill_bytes / (block_bytes N W); repeats merge by their geometric mean.
"""
import collections
import json
import math
import sys

EPS = 0.01  # PASCAL_EXCESS_EPS


def pchip(x, y, t):
    n = len(x)
    t = min(max(t, x[0]), x[-1])
    if n == 1:
        return y[0]
    h = [x[i + 1] - x[i] for i in range(n - 1)]
    m = [(y[i + 1] - y[i]) / h[i] for i in range(n - 1)]
    sg = lambda v: (v > 0) - (v < 0)
    if n == 2:
        d = [m[0], m[0]]
    else:
        d = [0.0] * n
        for k in range(1, n - 1):
            if sg(m[k - 1]) != sg(m[k]) or m[k - 1] == 0 or m[k] == 0:
                continue
            w1, w2 = 2 * h[k] + h[k - 1], h[k] + 2 * h[k - 1]
            d[k] = (w1 + w2) / (w1 / m[k - 1] + w2 / m[k])

        def edge(h0, h1, m0, m1):
            e = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
            if sg(e) != sg(m0):
                return 0.0
            if sg(m0) != sg(m1) and abs(e) > 3 * abs(m0):
                return 3 * m0
            return e

        d[0] = edge(h[0], h[1], m[0], m[1])
        d[-1] = edge(h[-1], h[-2], m[-1], m[-2])
    i = max(j for j in range(n - 1) if x[j] <= t) if t < x[-1] else n - 2
    s = (t - x[i]) / h[i]
    u = 1 - s
    return (y[i] * (1 + 2 * s) * u * u + d[i] * h[i] * s * u * u + y[i + 1] * s * s * (3 - 2 * s)
            - d[i + 1] * h[i] * s * s * u)


def isotonic(y):
    blocks = []  # [mean, count]
    for v in y:
        blocks.append([v, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            b = blocks.pop()
            a = blocks[-1]
            a[0] = (a[0] * a[1] + b[0] * b[1]) / (a[1] + b[1])
            a[1] += b[1]
    return [b[0] for b in blocks for _ in range(b[1])]


def enc(log_k):
    return math.log(max(math.expm1(log_k), 0) + EPS)


def dec(a):
    return math.log1p(max(math.exp(a) - EPS, 0))


def paper(c, W):
    """log K at W of the curve through {W: log K} (paper App. C)."""
    ws = sorted(c)
    x = [math.log(w) for w in ws]
    y = isotonic([math.log(w) + c[w] for w in ws])
    return pchip(x, y, math.log(W)) - math.log(W)


def segment(c, W):
    ws = sorted(c)
    for a, b in zip(ws, ws[1:]):
        if a < W < b:
            return a, b
    return None


def excess_log(c, W, first_only=True):
    s = segment(c, W)
    if not s or (first_only and s[0] != 1):
        return paper(c, W)
    a, b = s
    t = math.log(W / a) / math.log(b / a)
    return dec(enc(c[a]) + t * (enc(c[b]) - enc(c[a])))


def linear_in_w(c, W, excess):
    s = segment(c, W)
    if not s or s[0] != 1:
        return paper(c, W)
    a, b = s
    f = (lambda w: w * math.expm1(c[w])) if excess else (lambda w: w * math.exp(c[w]))
    v = f(a) + (f(b) - f(a)) * (W - a) / (b - a)
    return math.log1p(max(v, 0) / W) if excess else math.log(v / W)


def onset_error(pts, c):
    g = [max(0.0, 1 - c / x) for x, _ in pts]
    gg = sum(v * v for v in g)
    if gg == 0:
        return math.inf
    A = max(0.0, sum(v * e for v, (_, e) in zip(g, pts)) / gg)
    return sum((math.log(A * v + EPS) - math.log(e + EPS)) ** 2 for v, (_, e) in zip(g, pts))


def onset_fit(pts):
    """c of e = A max(0, 1 - c / x) over pts [(x, e)], as pascal_onset_fit
    searches it: c = 0, then x_max 2^(-k/32) for every eighth k in 0..384,
    then the k within 7 of the best of those."""
    x_max = max((x for x, _ in pts), default=0)
    best_c, best_s, best_k = 0.0, onset_error(pts, 0.0), -1
    for k in range(0, 385, 8):
        s = onset_error(pts, x_max * 2 ** (-k / 32))
        if s < best_s:
            best_c, best_s, best_k = x_max * 2 ** (-k / 32), s, k
    for k in range(best_k - 7, best_k + 8) if best_k >= 0 else ():
        if 0 <= k <= 384 and k != best_k:
            s = onset_error(pts, x_max * 2 ** (-k / 32))
            if s < best_s:
                best_c, best_s = x_max * 2 ** (-k / 32), s
    return best_c


def excess(log_k):
    return max(math.expm1(log_k), 0.0)


def onset_law(xa, ea, xb, eb, x, c, late_held=True):
    """e at x on the segment [(xa, ea), (xb, eb)] (x past xb: its line goes on).
    An onset c at or past xb holds ea up to xb (the law's limit as c reaches
    xb; late_held False: the onset ignored there too) and is ignored past xb."""
    if c >= xb and x < xb and late_held:
        return ea
    c = c if c < xb else 0.0
    ha, hb, h = -1 / max(xa, c), -1 / max(xb, c), -1 / max(x, c)
    return max(0.0, ea + (eb - ea) * (h - ha) / (hb - ha))


def onset_segment(c, N, W, segment_knots):
    """log K at W from the onset law on the segment of knots {W: log K}."""
    (a, la), (b, lb) = segment_knots
    return math.log1p(onset_law(a * N, excess(la), b * N, excess(lb), W * N, c))


def read_as_shipped(curve, N, W, c):
    """log K at W of one size's curve {W: log K} as core/src/curve.c reads it."""
    ws = sorted(curve)
    if W in curve or W < ws[0]:
        return curve[W if W in curve else ws[0]]
    if ws[0] == 1 and W < ws[1]:
        return onset_segment(c, N, W, [(w, curve[w]) for w in ws[:2]])
    if W > ws[-1]:
        return onset_segment(c, N, W, [(w, curve[w]) for w in ws[-2:]])
    return paper(curve, W)


W_RULES = {
    "paper curve": paper,
    "excess linear in log W from one pass": excess_log,
    "excess W(K-1) linear in W": lambda c, W: linear_in_w(c, W, True),
    "traffic W K linear in W": lambda c, W: linear_in_w(c, W, False),
    "excess linear in log W, every segment": lambda c, W: excess_log(c, W, False),
}


def chi(m):
    """Execution class of m under the class rule mod4-min2 (the only one)."""
    return min(m % 4, 2)


def graph(a, t, gamma):
    """a at m = t by rule 3 from the references {m: a} (None without a
    same-class reference on both sides): (1 - w) p + w a_lin, p the pooled
    PCHIP, a_lin the same-class line, w = g / (c0 + g) with g = gamma
    (1/h_l + 1/h_r) and c0 = 1/(t - m_i) + 1/(m_(i+1) - t)."""
    ms = sorted(a)
    left = [m for m in ms if m < t and chi(m) == chi(t)]
    right = [m for m in ms if m > t and chi(m) == chi(t)]
    if not left or not right:
        return None
    l, r = left[-1], right[0]
    lo, hi = max(m for m in ms if m < t), min(m for m in ms if m > t)
    p = pchip(ms, [a[m] for m in ms], t)
    hl, hr = t - l, r - t
    a_lin = (hr * a[l] + hl * a[r]) / (hl + hr)
    if math.isinf(gamma):
        return a_lin
    g = gamma * (1 / hl + 1 / hr)
    w = g / (1 / (t - lo) + 1 / (hi - t) + g)
    return (1 - w) * p + w * a_lin


def err(pred_log, obs_log):
    return abs(math.exp(pred_log - obs_log) - 1)


def main(paths):
    for path in paths:
        b = json.load(open(path))
        block = b["device"]["block_bytes"]
        C = b["device"]["capacity_blocks"]
        logs = collections.defaultdict(list)
        for r in b["measurements"]:
            k = (r["o"], r["path"], r["d"], r["m"], r["N"], r["W"])
            logs[k].append(math.log(r["fill_bytes"] / (block * r["N"] * r["W"])))
        K = {k: sum(v) / len(v) for k, v in logs.items()}  # log of the geometric mean
        out = collections.defaultdict(list)
        curves = collections.defaultdict(dict)  # (o, path, d, m, N) -> {W: log K}
        for k, v in K.items():
            curves[k[:5]][k[5]] = v
        by_key = collections.defaultdict(dict)  # (o, path, d, m) -> {(N, W): log K}
        for k, v in K.items():
            by_key[k[:4]][k[4], k[5]] = v
        for z, c in curves.items():
            pts = by_key[z[:4]]
            for held in (4, 16, 64):
                if held not in c or len(c) < 3:
                    continue
                rest = {w: v for w, v in c.items() if w != held}
                on = onset_fit([(n * w, excess(v)) for (n, w), v in pts.items() if w not in (1, held)])
                ws = sorted(rest)
                if held == 64:
                    seg = [(w, rest[w]) for w in ws[-2:]]
                    out["W = 64 held out: last knot held"].append(err(rest[ws[-1]], c[held]))
                    out["W = 64 held out: onset law"].append(err(onset_segment(on, z[4], held, seg), c[held]))
                    continue
                for name, rule in W_RULES.items():
                    out["W = %d held out: %s" % (held, name)].append(err(rule(rest, held), c[held]))
                a, b = segment(rest, held)
                pred = onset_segment(on, z[4], held, [(a, rest[a]), (b, rest[b])])
                out["W = %d held out: onset law" % held].append(err(pred, c[held]))
                if on >= b * z[4] and excess(rest[b]) > 0:
                    late = "late onset, W = %d held out: " % held
                    e = onset_law(a * z[4], excess(rest[a]), b * z[4], excess(rest[b]), held * z[4], on, False)
                    out[late + "held to the knot"].append(err(pred, c[held]))
                    out[late + "ignored"].append(err(math.log1p(e), c[held]))
        for pts in by_key.values():
            P = sorted((n * w, v) for (n, w), v in pts.items() if w > 1)
            for i in range(1, len(P) - 1):
                (xa, la), (x, obs), (xb, lb) = P[i - 1], P[i], P[i + 1]
                on = onset_fit([(u, excess(v)) for j, (u, v) in enumerate(P) if j != i])
                t = math.log(x / xa) / math.log(xb / xa)
                y = math.log(xa) + la + t * (math.log(xb) + lb - math.log(xa) - la)
                out["x = W N held out: log(x K) linear in log x"].append(err(y - math.log(x), obs))
                out["x = W N held out: a linear in log x"].append(err(dec(enc(la) + t * (enc(lb) - enc(la))), obs))
                e = onset_law(xa, excess(la), xb, excess(lb), x, on)
                out["x = W N held out: onset law"].append(err(math.log1p(e), obs))
                if on >= xb and excess(lb) > 0:
                    e0 = onset_law(xa, excess(la), xb, excess(lb), x, on, False)
                    out["late onset, x = W N held out: held to the knot"].append(err(math.log1p(e), obs))
                    out["late onset, x = W N held out: ignored"].append(err(math.log1p(e0), obs))
        sizes = collections.defaultdict(dict)  # (o, path, d, m, W) -> {N: log K}
        for k, v in K.items():
            sizes[k[:4] + (k[5],)][k[4]] = v
        for g in sizes.values():
            ns = sorted(g)
            if len(ns) < 3:
                continue
            for held, a, b in ((ns[0], ns[1], ns[2]), (ns[-1], ns[-2], ns[-3])):
                ea, eb = C / a, C / b
                lin = enc(g[a]) + (enc(g[b]) - enc(g[a])) * (C / held - ea) / (eb - ea)
                out["N %s held out: clamp" % ("smallest" if held == ns[0] else "largest")].append(err(g[a], g[held]))
                out["N %s held out: linear in C/N" % ("smallest" if held == ns[0] else "largest")].append(err(dec(lin), g[held]))
        for pts in by_key.values():  # a size read at the same blocks per slot
            ns = sorted({n for n, _ in pts})
            if len(ns) < 3:
                continue
            for held, near in ((ns[0], ns[1]), (ns[-1], ns[-2])):
                rest = {k: v for k, v in pts.items() if k[0] != held}
                on = onset_fit([(n * w, excess(v)) for (n, w), v in rest.items() if w > 1])
                curve = {w: v for (n, w), v in rest.items() if n == near}
                side = "smallest" if held == ns[0] else "largest"
                for w in sorted(w for n, w in pts if n == held):
                    pred = read_as_shipped(curve, near, w * held / near if w > 1 else w, on)
                    out["N %s held out: nearest size at the same W N" % side].append(err(pred, pts[held, w]))
        ms_of = collections.defaultdict(dict)  # (o, path, d, N, W) -> {m: log K}
        for k, v in K.items():
            ms_of[k[:3] + k[4:]][k[3]] = v
        for g in ms_of.values():
            ms = sorted(g)
            if len(ms) < 3:
                continue
            for held, a, b in ((ms[0], ms[1], ms[2]), (ms[-1], ms[-2], ms[-3])):
                lin = enc(g[a]) + (enc(g[a]) - enc(g[b])) * (held - a) / (a - b)
                side = "smallest" if held == ms[0] else "largest"
                out["m %s held out: clamp" % side].append(err(g[a], g[held]))
                out["m %s held out: linear in m" % side].append(err(dec(lin), g[held]))
        for g in ms_of.values():  # an m between same-class references
            for t in sorted(g):
                rest = {m: enc(v) for m, v in g.items() if m != t}
                if len(rest) < 2 or graph(rest, t, 4) is None:
                    continue
                for gamma in (0, 0.25, 1, 4, 16, math.inf):
                    out["m between held out: graph, gamma = %g" % gamma].append(err(dec(graph(rest, t, gamma)), g[t]))
                near = min(rest, key=lambda m: (abs(m - t), m))
                out["m between held out: nearest m of any class"].append(err(g[near], g[t]))
        print(path)
        for k in sorted(out):
            v = out[k]
            print("  %-62s %5d  %7.2f %%" % (k, len(v), 100 * sum(v) / len(v)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: curve-rule-folds.py BUNDLE...")
    main(sys.argv[1:])
