"""bundles.py - the runs of a pascal-calibration/1 bundle (docs/bundle-format.md)
as a learning problem: each run's key, its static features and its label, the
observed fill-equivalent K, computed exactly as core/src/evaluate.c does:

  scan: K = fill_bytes / (b W N)                  (b = device.block_bytes)
  GEMM: K = M fill_bytes / Q, Q = n_r n_c n_k (tile_m + tile_n) tile_k elem_bytes,
        M = gemm.resident_ctas                    (core/src/gemm_geometry.c)

A key is what leave-one-key-out removes and what the balanced MAPE averages
over: (o, path, d, m) for a scan, the output grid (Mg, Ng) for GEMM.

Features are static, known before the kernel runs: scan o, path (1 = tma), d,
m, N, W and derived ones, the execution class chi(m) = min(m mod 4, 2) of the
bundle's class rule, C/N, log2 W and log2 N; GEMM Mg, Ng, Kg, the tile
(tile_m, tile_n, tile_k), the tile counts n_r, n_c, n_k, their log2 and the
input footprint (Mg + Ng) Kg elem_bytes over the capacity C b.

The strict validation of bundles is `pascal evaluate`'s (pascal_eval.reference
runs it on the same files first); this module only reads what it has accepted.
"""
import json
import math

import numpy as np

SCAN_KEY = ("o", "path", "d", "m")
GEMM_KEY = ("Mg", "Ng")
SCAN_FEATURES = ("o", "tma", "d", "m", "N", "W", "chi", "C_over_N", "log2_W", "log2_N")
GEMM_FEATURES = ("Mg", "Ng", "Kg", "tile_m", "tile_n", "tile_k", "n_r", "n_c", "n_k",
                 "log2_n_r", "log2_n_c", "log2_n_k", "inputs_over_C")


class BundleError(Exception):
    """A file that cannot be used; str() names the file and the field."""


class Runs:
    """Runs in file order: keys[i] (a tuple), X[i] (features), K[i] (label)."""

    def __init__(self, keys, X, K):
        self.keys = keys
        self.X = X
        self.K = K

    def __len__(self):
        return len(self.keys)

    def key_indices(self):
        """{key: [run indices in file order]}, keys in first-seen order."""
        out = {}
        for i, k in enumerate(self.keys):
            out.setdefault(k, []).append(i)
        return out


class Bundle:
    """The device, workload and tiling of a bundle, and its runs."""

    def __init__(self, path, doc):
        self.path = path
        self.doc = doc
        self.workload = doc["workload"]
        self.device = doc["device"]
        self.gemm = doc.get("gemm")
        self.key_fields = SCAN_KEY if self.workload == "scan" else GEMM_KEY
        self.feature_names = SCAN_FEATURES if self.workload == "scan" else GEMM_FEATURES

    def runs(self, measurements):
        keys, rows, labels = [], [], []
        for r in measurements:
            keys.append(tuple(r[f] for f in self.key_fields))
            if self.workload == "scan":
                rows.append(self._scan_features(r))
                labels.append(self._scan_k(r))
            else:
                rows.append(self._gemm_features(r))
                labels.append(self._gemm_k(r))
        X = np.array(rows, dtype=float).reshape(len(rows), len(self.feature_names))
        return Runs(keys, X, np.array(labels, dtype=float))

    def calibration_runs(self):
        return self.runs(self.doc["measurements"])

    def heldout_runs(self):
        return self.runs(self.doc.get("heldout", []))

    # -- scans ------------------------------------------------------------
    def _scan_k(self, r):
        # the operation order of evaluate.c: (double)b * W * (double)N
        return r["fill_bytes"] / (float(self.device["block_bytes"]) * r["W"] * float(r["N"]))

    def _scan_features(self, r):
        m, n, w = r["m"], r["N"], r["W"]
        return [r["o"], 1.0 if r["path"] == "tma" else 0.0, r["d"], m, n, w, min(m % 4, 2),
                self.device["capacity_blocks"] / n, math.log2(w), math.log2(n)]

    # -- GEMM -------------------------------------------------------------
    def _tiles(self, r):
        g = self.gemm
        return r["Mg"] // g["tile_m"], r["Ng"] // g["tile_n"], r["Kg"] // g["tile_k"]

    def _gemm_k(self, r):
        g = self.gemm
        n_r, n_c, n_k = self._tiles(r)
        step = float(g["tile_k"]) * g["elem_bytes"]
        q = float(n_r) * n_c * n_k * (float(g["tile_m"]) + g["tile_n"]) * step
        return float(g["resident_ctas"]) * r["fill_bytes"] / q

    def _gemm_features(self, r):
        g = self.gemm
        n_r, n_c, n_k = self._tiles(r)
        c_bytes = float(self.device["capacity_blocks"]) * self.device["block_bytes"]
        inputs = float(r["Mg"] + r["Ng"]) * r["Kg"] * g["elem_bytes"]
        return [r["Mg"], r["Ng"], r["Kg"], g["tile_m"], g["tile_n"], g["tile_k"], n_r, n_c, n_k,
                math.log2(n_r), math.log2(n_c), math.log2(n_k), inputs / c_bytes]


def load(path):
    """Read one bundle file; BundleError when it is not a readable bundle."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise BundleError("%s: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise BundleError("%s: not JSON (%s)" % (path, e))
    if not isinstance(doc, dict) or doc.get("format") != "pascal-calibration/1":
        raise BundleError("%s: format: not a pascal-calibration/1 bundle" % path)
    return Bundle(path, doc)


def panel_runs(bundle, files):
    """The measurements of the bundles `files`, joined in order, as a panel of
    `bundle` (the same device and tiling; `pascal evaluate --heldout` has
    checked that)."""
    measurements = []
    for path in files:
        measurements.extend(load(path).doc["measurements"])
    return bundle.runs(measurements)
