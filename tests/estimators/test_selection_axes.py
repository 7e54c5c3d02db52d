"""Each axis of a joint (sigma, ridge) selection grows by its own rule: an "auto" axis extends at its edges
even when the other axis is one's own grid or a number; one's own grid does not, its edge is reported.

A single flag for both axes dropped the extension of the "auto" one: RLSRegressor(sigma=[0.5, 1.0]) on
noiseless sin(x) stopped at alpha_ = 1e-7 (the bottom of the default grid) where RLSRegressor(sigma=1.0)
goes to 6e-11, and LapRLS's width search warned about an "alpha" it does not have.
"""

import warnings

import numpy as np
import pytest

import graphrkhs as g
from graphrkhs import SelectionWarning


def _sine():
    X = np.linspace(0, 3, 40)[:, None]
    y = np.full(40, np.nan)
    y[::3] = np.sin(X[::3, 0])
    return X, y


def test_auto_ridge_extends_with_ones_own_width_grid():
    X, y = _sine()
    with pytest.warns(SelectionWarning, match=r"sigma=1 is at the edge of its grid \[0.5, 1\]") as rec:
        grid = g.RLSRegressor(sigma=[0.5, 1.0]).fit(X, y)
    assert not any("alpha" in str(w.message) for w in rec)
    fixed = g.RLSRegressor(sigma=1.0).fit(X, y)
    assert grid.sigma_ == 1.0
    assert grid.alpha_ == fixed.alpha_ < 1e-7           # below the default grid's 1e-7: extended
    assert min(grid.cv_results_["param_alpha"]) < 1e-7


def test_auto_width_extends_with_a_fixed_ridge():
    X, y = _sine()
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)
        est = g.RLSRegressor(alpha=1e-3).fit(X, y)
    top = max(est.cv_results_["param_sigma"])
    # the default width grid ends at 2 x the median distance; the best width sat there and it grew past it
    assert top > 2.0 * g.default_sigma(X) * 1.01


def test_width_search_of_a_graph_learner_reports_no_ridge():
    # LapRLS has no alpha: the RLS ridge of its width search is internal, extended as the default grid
    X, y = _sine()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        g.LapRLSRegressor(sigma=[0.5, 1.0], gamma_A=1e-6, gamma_I=1e-3, n_neighbors=5).fit(X, y)
    msgs = [str(w.message) for w in rec if issubclass(w.category, SelectionWarning)]
    assert not any("alpha" in m for m in msgs), msgs
    assert any("sigma=1 is at the edge" in m for m in msgs), msgs


def test_joint_laprls_selection_extends_gamma_a_with_ones_own_width_grid():
    # sigma, gamma_A, gamma_I all tuned: the joint low-rank selection (select_laprls_lowrank); with one's own
    # width grid gamma_A_ stayed at the default grid's bottom 1e-7, silently, where sigma=1.0 gives 1e-10
    X, y = _sine()
    with pytest.warns(SelectionWarning, match=r"sigma=1 is at the edge of its grid \[0.5, 1\]"):
        grid = g.LapRLSRegressor(sigma=[0.5, 1.0], n_neighbors=5).fit(X, y)
    fixed = g.LapRLSRegressor(sigma=1.0, n_neighbors=5).fit(X, y)
    assert grid.sigma_ == 1.0
    assert grid.gamma_A_ == fixed.gamma_A_ < 1e-7


def test_grls_edge_warning_names_gamma():
    # G-RLS's gamma runs on the engine's ridge axis "alpha": the warning named a parameter G-RLS does not have
    X, y = _sine()
    with pytest.warns(SelectionWarning, match=r"the selected gamma=0.1 is at the edge of its grid \[0.1, 1\]") as rec:
        est = g.GRLSRegressor(sigma=1.0, gamma=[0.1, 1.0]).fit(X, y)
    assert est.gamma_ == 0.1
    assert not any("alpha" in str(w.message) for w in rec)
