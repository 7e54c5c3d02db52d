"""Labeled points repeated exactly: leave-one-out keeps each left-out point's copy, so a selection is warned."""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

import graphrkhs as g
from graphrkhs.solvers import SelectionWarning

REGRESSORS = [g.RLSRegressor, g.LapRLSRegressor, g.PRLSRegressor, g.PLapRLSRegressor, g.GRLSRegressor,
              g.FredholmRegressor, g.WarpedKernelRegressor]


def _data(twice):
    X, _ = make_moons(60, noise=0.1, random_state=0)
    y = np.full(60, np.nan)
    y[:12] = np.sin(3 * X[:12, 0]) + 0.1 * np.random.default_rng(0).standard_normal(12)
    if twice:
        X, y = np.r_[X, X[:12]], np.r_[y, y[:12]]
    return X, y


def _duplicate_warnings(est, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    return [w for w in caught if issubclass(w.category, SelectionWarning) and "repeat other labeled" in str(w.message)]


@pytest.mark.parametrize("Est", REGRESSORS)
def test_repeated_labeled_points_are_warned_when_a_parameter_is_selected(Est):
    X, y = _data(twice=True)
    caught = _duplicate_warnings(Est(), X, y)
    assert len(caught) == 1
    assert "12 of the 24 labeled points repeat other labeled points" in str(caught[0].message)
    assert caught[0].filename == __file__          # points at the caller's fit
    assert not _duplicate_warnings(Est(), *_data(twice=False))


def test_no_warning_without_a_selection():
    # every parameter fixed: nothing is selected, the repeats are the user's data
    X, y = _data(twice=True)
    assert not _duplicate_warnings(g.RLSRegressor(sigma=0.5, alpha=1e-3), X, y)


def test_repeats_in_the_unlabeled_rows_are_not_warned():
    X, y = _data(twice=False)
    X, y = np.r_[X, X[30:40]], np.r_[y, np.full(10, np.nan)]
    assert not _duplicate_warnings(g.LapRLSRegressor(), X, y)


def test_classifiers_are_warned_too():
    X, yc = make_moons(60, noise=0.1, random_state=0)
    y = np.full(60, -1)
    y[:10] = yc[:10]
    caught = _duplicate_warnings(g.RLSClassifier(), np.r_[X, X[:10]], np.r_[y, y[:10]])
    assert len(caught) == 1 and "10 of the 20 labeled points" in str(caught[0].message)
