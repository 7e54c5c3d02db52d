"""Graph TV with one's own ``alpha`` grid: a k-fold choice at the grid's edge is reported.

The default grids are bounded by design (not extended, no warning); one's own grid was not reported either,
against the rule of every tuned parameter (``estimators._auto``: "a sequence of values: one's own grid, scored
the same way, not extended (a SelectionWarning says when the choice is at its edge)").
"""

import warnings

import numpy as np

from graphrkhs import GraphTVClassifier, GraphTVRegressor, SelectionWarning


def _problem():
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, size=(60, 2))
    yr = 1.0 + np.sin(2 * X[:, 0]) + X[:, 1] + 0.3 * rng.normal(size=60)
    yc = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)
    labeled = np.zeros(60, dtype=bool)
    labeled[rng.choice(60, 15, replace=False)] = True
    return X, np.where(labeled, yr, np.nan), np.where(labeled, yc, -1)


def _fit(est, X, y):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        est.fit(X, y)
    return [str(w.message) for w in rec if issubclass(w.category, SelectionWarning)]


def test_regressor_own_grid_edge_warns_once():
    X, yr, _ = _problem()
    est = GraphTVRegressor(alpha=[2.0, 4.0])
    msgs = _fit(est, X, yr)
    scores = est.cv_results_["mean_test_score"]
    assert est.alpha_ == [2.0, 4.0][int(np.argmax(scores))]          # the best CV score is the choice
    assert msgs == [f"the selected alpha={est.alpha_:.3g} is at the edge of its grid [2, 4] after 0 "
                    "extension(s); the criterion may improve beyond it. Pass a wider grid or a fixed value."]


def test_default_grid_and_a_flat_own_grid_are_not_reported():
    X, yr, yc = _problem()
    assert _fit(GraphTVRegressor(), X, yr) == []                       # the bounded default grid: no report
    est = GraphTVClassifier(alpha=[0.1, 0.5, 0.9])
    msgs = _fit(est, X, yc)
    # every value predicts the held-out labels alike: the tie rule's largest value, nothing beyond it
    assert np.ptp(est.cv_results_["mean_test_score"]) == 0 and est.alpha_ == 0.9
    assert msgs == []
