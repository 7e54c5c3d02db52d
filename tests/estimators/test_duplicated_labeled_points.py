"""Labeled points repeated exactly: the selections leave all copies of a point out together (leave-group-out).

Left out alone, a point leaves its copy among the labels: its residual is near 0 and every criterion
favoured the fits that interpolate (RLS on every labeled row twice chose sigma 0.25 and alpha 5e-11 against
1.0 and 3e-6 once).  PRLS groups them too, by refits without each group.
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

import graphrkhs as g
from graphrkhs.solvers import SelectionWarning

GROUPED = [g.RLSRegressor, g.LapRLSRegressor, g.PLapRLSRegressor, g.GRLSRegressor, g.FredholmRegressor,
           g.WarpedKernelRegressor, g.PRLSRegressor]


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


@pytest.mark.parametrize("Est", GROUPED)
def test_repeats_with_equal_targets_are_left_out_together_without_a_warning(Est):
    X, y = _data(twice=True)
    est = Est()
    assert not _duplicate_warnings(est, X, y)                  # fits est
    np.testing.assert_array_equal(np.bincount(est._loo_groups), [2] * 12)


@pytest.mark.parametrize("Est", [g.RLSRegressor, g.GRLSRegressor])
def test_every_row_twice_selects_as_every_row_once(Est):
    # twice, the fit without a point's group at alpha (ridge alpha * 2l on 2(l - 1) rows) is the fit without
    # the point once (alpha * l on l - 1 rows): the same residuals, each counted twice, the same choice
    # (before: sigma 0.25 and a ridge 5e-11, the rough edge, against 1.0 and 3.2e-6)
    kw = {"sigma": [0.25, 0.5, 1.0, 2.0]}
    once, twice = Est(**kw).fit(*_data(False)), Est(**kw).fit(*_data(True))
    name = "alpha_" if hasattr(once, "alpha_") else "gamma_"
    assert twice.sigma_ == once.sigma_ == 1.0
    np.testing.assert_allclose(getattr(twice, name), getattr(once, name), rtol=1e-12)


def test_copies_with_other_targets_are_warned():
    X, y = _data(twice=True)
    y[60:] += 0.5
    caught = _duplicate_warnings(g.RLSRegressor(), X, y)
    assert len(caught) == 1
    assert "12 of the 24 labeled points repeat other labeled points exactly, and 12 of the copies carry other " \
           "targets" in str(caught[0].message)
    assert caught[0].filename == __file__          # points at the caller's fit


def test_no_warning_without_a_selection():
    # every parameter fixed: nothing is selected, the repeats are the user's data
    X, y = _data(twice=True)
    y[60:] += 0.5
    assert not _duplicate_warnings(g.RLSRegressor(sigma=0.5, alpha=1e-3), X, y)


def test_repeats_in_the_unlabeled_rows_are_not_warned():
    X, y = _data(twice=False)
    X, y = np.r_[X, X[30:40]], np.r_[y, np.full(10, np.nan)]
    est = g.LapRLSRegressor()
    assert not _duplicate_warnings(est, X, y)
    assert est._loo_groups is None


def test_classifiers_group_them_too():
    X, yc = make_moons(60, noise=0.1, random_state=0)
    y = np.full(60, -1)
    y[:10] = yc[:10]
    est = g.RLSClassifier()
    assert not _duplicate_warnings(est, np.r_[X, X[:10]], np.r_[y, y[:10]])
    assert np.bincount(est._loo_groups).tolist() == [2] * 10
    y2 = np.r_[y, 1 - y[:10]]
    # copies of other labels: said by every classifier's one check (test_conflicting_copies_warning.py), not
    # again by the selection
    assert not _duplicate_warnings(g.RLSClassifier(), np.r_[X, X[:10]], y2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = g.RLSClassifier().fit(np.r_[X, X[:10]], y2)
    assert np.bincount(est._loo_groups).tolist() == [2] * 10
    assert ["10 groups of identical labeled rows" in str(w.message) for w in caught].count(True) == 1
