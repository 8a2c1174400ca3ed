"""methods.py - the six learned baselines of the paper's learning-baseline
comparison (section "Dynamic prediction: comparisons", Figure "prediction"),
all scikit-learn estimators, each with the grid of hyper-parameters that
selection.py searches by grouped cross-validation on the calibration runs.

The paper names one method exactly: relative boosting, "absolute-error
gradient boosting with inverse observed-traffic weights". With the label the
observed traffic K (fill equivalents) and weights 1/K, its training loss
sum |K_hat - K| / K is the relative error the evaluation scores. The other
five are common choices for a regressor on a few hundred labelled runs:

  ridge           ridge regression of log K on log features (log1p of each
                  feature, standardised, optionally with degree-2 products)
  knn             k nearest neighbours on the same standardised log features,
                  averaging log K
  random_forest   a random forest on the raw features, regressing log K
  boosting        gradient boosting with squared error on K (the default
                  loss a practitioner reaches for)
  relative_boost  the paper's relative boosting (above)
  mlp             a small multi-layer perceptron (L-BFGS) on the standardised
                  log features, regressing log K

Every random choice has a fixed seed (random_state 0), so a fit is a pure
function of its inputs. Predictions are K (log-target models are
exponentiated).
"""
import itertools
import warnings
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge
from sklearn.neighbors import KNeighborsRegressor
from sklearn.neural_network import MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, PolynomialFeatures, StandardScaler

SEED = 0


def _log_features():
    return [FunctionTransformer(np.log1p), StandardScaler()]


def _grid(**axes):
    """The cross product of the axes, in a fixed order (first axis slowest)."""
    names = list(axes)
    return [dict(zip(names, values)) for values in itertools.product(*axes.values())]


@dataclass(frozen=True)
class Method:
    """A learner: how to build it from hyper-parameters, which target it fits
    ("log": log K; "K": K; "relative": K with weights 1/K), its grid and,
    for boosting, `stages`: (name, values) of a parameter read off one fit
    (the first n trees of a boosted ensemble are the n-tree ensemble, so
    every n_estimators in `values` comes from one fit of the largest)."""

    name: str
    label: str
    target: str
    build: Callable
    grid: List[dict]
    stages: Optional[Tuple[str, List[int]]] = None
    max_neighbors: bool = False  # n_neighbors may not exceed the training runs

    def candidates(self):
        """Every hyper-parameter point, in search order."""
        if not self.stages:
            return list(self.grid)
        name, values = self.stages
        return [dict(p, **{name: v}) for p in self.grid for v in values]

    def fit(self, params, X, K):
        est = self.build(**params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            if self.target == "log":
                est.fit(X, np.log(K))
            elif self.target == "relative":
                est.fit(X, K, sample_weight=1.0 / K)
            else:
                est.fit(X, K)
        return est

    def _output(self, y):
        return np.exp(y) if self.target == "log" else y

    def predict(self, est, X):
        return self._output(est.predict(X))

    def grid_predictions(self, params, X, K, X_test):
        """[(candidate params, predictions of X_test)] for grid point
        `params` fitted on (X, K): one candidate, or one per stage. A
        point that cannot be fitted on so few runs predicts NaN (it never
        wins the selection)."""
        if self.max_neighbors and params["n_neighbors"] > len(X):
            return [(params, np.full(len(X_test), np.nan))]
        if not self.stages:
            return [(params, self.predict(self.fit(params, X, K), X_test))]
        name, values = self.stages
        est = self.fit(dict(params, **{name: max(values)}), X, K)
        staged = list(est.staged_predict(X_test))
        return [(dict(params, **{name: v}), self._output(staged[v - 1])) for v in values]


def _ridge(degree, alpha):
    return make_pipeline(*_log_features(), PolynomialFeatures(degree, include_bias=False),
                         Ridge(alpha=alpha))


def _knn(n_neighbors, weights):
    return make_pipeline(*_log_features(), KNeighborsRegressor(n_neighbors=n_neighbors,
                                                               weights=weights))


def _forest(min_samples_leaf, max_features):
    return RandomForestRegressor(n_estimators=100, min_samples_leaf=min_samples_leaf,
                                 max_features=max_features, random_state=SEED)


def _boosting(loss):
    def build(n_estimators, learning_rate, max_depth):
        return GradientBoostingRegressor(loss=loss, n_estimators=n_estimators,
                                         learning_rate=learning_rate, max_depth=max_depth,
                                         random_state=SEED)
    return build


def _mlp(hidden_layer_sizes, alpha):
    return make_pipeline(*_log_features(), MLPRegressor(hidden_layer_sizes=hidden_layer_sizes,
                                                        alpha=alpha, solver="lbfgs",
                                                        max_iter=1000, random_state=SEED))


BOOSTING_GRID = _grid(learning_rate=[0.1], max_depth=[2, 4, 6])
BOOSTING_STAGES = ("n_estimators", [25, 50, 100, 200])

METHODS = (
    Method("ridge", "ridge (log features)", "log", _ridge,
           _grid(degree=[1, 2], alpha=[1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0])),
    Method("knn", "k nearest neighbours", "log", _knn,
           _grid(n_neighbors=[1, 2, 3, 5, 8, 13], weights=["uniform", "distance"]),
           max_neighbors=True),
    Method("random_forest", "random forest", "log", _forest,
           _grid(min_samples_leaf=[1, 5], max_features=[1.0, 0.5])),
    Method("boosting", "gradient boosting (squared error)", "K",
           _boosting("squared_error"), BOOSTING_GRID, BOOSTING_STAGES),
    Method("relative_boost", "relative boosting", "relative",
           _boosting("absolute_error"), BOOSTING_GRID, BOOSTING_STAGES),
    Method("mlp", "MLP (L-BFGS)", "log", _mlp,
           _grid(hidden_layer_sizes=[(16,), (32, 32), (64, 64)], alpha=[1e-4, 1e-2, 1.0])),
)
