"""One's own grid is one's own even when its values are the default grid's: it is not extended, a value used
without a selection lies inside it, and it is scored as given (not swapped for another grid)."""

import warnings

import numpy as np
import pytest

import graphrkhs as g
from graphrkhs import SelectionWarning
from graphrkhs.estimators._transductive import DEFAULT_ALPHAS
from graphrkhs.solvers._selection import TIKHONOV_ALPHAS, select_tikhonov_solution


def _blobs():
    rng = np.random.default_rng(1)
    X = np.r_[rng.normal(0, 0.3, (30, 2)), rng.normal(3, 0.3, (30, 2))]
    y = np.full(60, np.nan)
    idx = rng.choice(60, 20, replace=False)
    y[idx] = 2 * X[idx, 0] + np.sin(X[idx, 1])
    return X, y


def test_graph_kernel_ridge_default_grid_extends():
    """The reference: alphas=None (the default grid) extends below 1e-4 on these data."""
    X, y = _blobs()
    est = g.GraphKernelRidgeRegressor().fit(X, y)
    assert est.alpha_ < min(DEFAULT_ALPHAS)


@pytest.mark.parametrize("alphas", [DEFAULT_ALPHAS, list(DEFAULT_ALPHAS)])
def test_graph_kernel_ridge_explicit_default_values_not_extended(alphas):
    X, y = _blobs()
    # the warning names the argument that holds the grid (alpha takes none here)
    edge = r"alpha \(grid: alphas\)=0.0001 is at the edge of its grid \[0.0001, 1\]"
    with pytest.warns(SelectionWarning, match=edge):
        est = g.GraphKernelRidgeRegressor(alphas=alphas).fit(X, y)
    assert est.alpha_ == 1e-4
    np.testing.assert_array_equal(np.sort(est.cv_results_["param_alpha"]), np.array(DEFAULT_ALPHAS))


def test_graph_kernel_ridge_unselected_own_grid_warns():
    """Every class labeled once: no selection; one's own grid gives its largest value, with a warning."""
    X, _ = _blobs()
    y = np.full(60, -1)
    y[0], y[59] = 0, 1
    with pytest.warns(SelectionWarning, match="alphas=0.1 of the given grid is used"):
        est = g.GraphKernelRidgeClassifier(alphas=[0.01, 0.1]).fit(X, y)
    assert est.alpha_ == 0.1
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)
        assert g.GraphKernelRidgeClassifier().fit(X, y).alpha_ == max(DEFAULT_ALPHAS)


def test_tikhonov_stochastic_keeps_explicit_grid():
    """method="stochastic" scores one's own grid as given; only the default (None) is its thinner grid."""
    X, y = _blobs()
    W = g.knn_graph(X, 8)
    S = np.flatnonzero(~np.isnan(y))
    _, res = select_tikhonov_solution(W, S, y[S], TIKHONOV_ALPHAS, method="stochastic", extend=False)
    np.testing.assert_array_equal(res.grid["alpha"], TIKHONOV_ALPHAS)
    _, res = select_tikhonov_solution(W, S, y[S], None, method="stochastic", extend=False)
    assert res.grid["alpha"].size < TIKHONOV_ALPHAS.size
