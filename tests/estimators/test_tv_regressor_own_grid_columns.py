"""GraphTVRegressor with one's own alpha grid and several target columns: each column's fit is its own.

The grid is in the units of y and TV is not linear in y.  Before, the columns shared one alpha chosen on
their CV errors summed in the units of y, so rescaling one column moved the others' fits.
"""

import numpy as np
import pytest

from graphrkhs import GraphTVRegressor, knn_graph

GRID = [0.03, 0.15, 0.75]


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(3)
    n = 100
    X = rng.uniform(0, 1, (n, 2))
    W = knn_graph(X, 8)
    y0 = (X[:, 0] > 0.5).astype(float) + 0.1 * rng.standard_normal(n)       # piecewise constant, noisy
    y1 = np.sin(6 * X[:, 1]) + 0.3 * rng.standard_normal(n)                 # smooth, noisier
    lab = rng.choice(n, 30, replace=False)
    Y = np.full((n, 2), np.nan)
    Y[lab] = np.c_[y0, y1][lab]
    return W, Y


def _fit(W, y, alpha=GRID, R="auto"):
    return GraphTVRegressor(alpha=alpha, graph="precomputed", R=R).fit(W, y)


@pytest.mark.parametrize("R", ["auto", "incidence", "kernel"])
def test_own_grid_column_fit_does_not_depend_on_other_column_scale(problem, R):
    # the oracle: each column fitted alone (graph TV: alpha_ 0.75 for column 0).  Before, the columns shared one
    # choice on their CV errors summed in the units of y: with column 1 times 1e3 (or as is), 0.15 for both, and
    # column 0 was 0.225 off its own fit, a quarter of its range.  R="auto" chooses the operator per column too
    W, Y = problem
    alone = _fit(W, Y[:, 0], R=R)
    Ys = Y.copy()
    Ys[:, 1] *= 1e3
    both = _fit(W, Ys, R=R)
    np.testing.assert_allclose(both.transduction_[:, 0], alone.transduction_, rtol=0, atol=1e-12)
    assert both.alpha_[0] == alone.alpha_
    assert both.R_[0] == alone.R_ and both.R_.shape == (2,)
    if R == "incidence":
        assert alone.alpha_ == 0.75
    assert isinstance(both.cv_results_, list) and len(both.cv_results_) == 2
    assert both.gap_.shape == (2,)


def test_fixed_alpha_columns_unchanged(problem):
    # a number is used as is for every column (alpha_ repeated), as before
    W, Y = problem
    est = _fit(W, Y, alpha=0.1)
    np.testing.assert_array_equal(est.alpha_, [0.1, 0.1])
    alone = _fit(W, Y[:, 0], alpha=0.1)
    np.testing.assert_allclose(est.transduction_[:, 0], alone.transduction_, atol=1e-4)


def test_fixed_alpha_operator_choice_is_per_column(problem):
    # alpha a number, R="auto": the operator was chosen on the columns' CV errors summed in the units of y, so
    # rescaling column 1 by 1e3 switched column 0's operator and moved its fit (by 0.99 of a range of 3.7 on
    # three blobs); each column now chooses with its own CV error, as with a grid
    W, Y = problem
    alone = _fit(W, Y[:, 0], alpha=0.1)
    Ys = Y.copy()
    Ys[:, 1] *= 1e3
    for Y_fit in (Y, Ys):
        both = _fit(W, Y_fit, alpha=0.1)
        np.testing.assert_allclose(both.transduction_[:, 0], alone.transduction_, rtol=0, atol=1e-12)
        assert both.R_[0] == alone.R_ and both.R_.shape == (2,)
        np.testing.assert_array_equal(both.alpha_, [0.1, 0.1])
