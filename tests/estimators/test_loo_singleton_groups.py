"""A class whose labels are all copies of one point is a class labeled once for leave-one-out.

Leaving its duplicate group out (leave-group-out) leaves the class without a label: its residual falls as the
fit flattens whatever the data.  Such a class's rows are not scored (``class_loo_rows`` counts groups), and
the estimators' gate counts the same way.
"""
import warnings

import numpy as np

from graphrkhs import RLSClassifier
from graphrkhs.estimators._auto import loo_selects
from graphrkhs.solvers import class_loo_rows, loo_scores


def _points():
    rng = np.random.default_rng(1)
    codes = np.repeat(np.arange(3), [1, 5, 4])                  # class 0 labeled once ...
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])[codes] + 0.6 * rng.normal(size=(10, 2))
    X, codes = np.r_[X, X[:1]], np.r_[codes, 0]                 # ... and its exact copy
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0)   # the Gaussian kernel of sigma = 1
    return X, codes, K


def _refit_group_loo(K, Y, mu, rows, groups):
    """Brute force: each scored row's residual from the ridge refitted without its whole group."""
    out = []
    for i in np.flatnonzero(rows):
        keep = groups != groups[i]
        coef = np.linalg.solve(K[np.ix_(keep, keep)] + mu * np.eye(keep.sum()), Y[keep])
        out.append(Y[i] - K[i, keep] @ coef)
    return np.array(out)


def test_class_loo_rows_counts_groups_not_rows():
    Y = np.eye(3)[[0, 0, 1, 1, 2, 2, 2]]
    groups = np.array([0, 0, 1, 2, 3, 3, 4])      # class 0: two copies of one point; class 1: two points
    np.testing.assert_array_equal(class_loo_rows(Y), [True] * 7)
    np.testing.assert_array_equal(class_loo_rows(Y, groups), [False, False, True, True, True, True, True])
    y = np.array([1.0, 1.0, -1.0, -1.0])          # one signed column: the class is the sign
    np.testing.assert_array_equal(class_loo_rows(y, np.array([0, 0, 1, 2])), [False, False, True, True])
    # loo_scores' "classes" with the groups the residuals were left out by
    R = np.arange(7.0)[:, None] * np.ones((1, 3))
    s, _ = loo_scores(R[None], Y, loo_rows="classes", loo_groups=groups)
    np.testing.assert_allclose(s, [-np.mean(np.arange(2.0, 7.0) ** 2)])


def test_gate_counts_groups():
    Y = np.eye(2)[[0, 0, 1, 1]]
    assert loo_selects(Y, True)
    assert not loo_selects(Y, True, groups=np.array([0, 0, 1, 1]))       # every class one point: no ranking
    assert not loo_selects(Y, True, groups=np.array([0, 0, 1, 2]))       # 2 scored rows < 3


def test_rls_classifier_does_not_score_a_class_of_copies():
    X, codes, K = _points()
    alphas = [1e-3, 1e-2, 1e-1, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # equal targets on the copies: no warning
        est = RLSClassifier(sigma=1.0, alpha=alphas).fit(X, codes)
    Y = 2 * np.eye(3)[codes] - 1
    groups = np.r_[np.arange(10), 0]
    rows = codes != 0
    l = codes.size
    expected = [-np.mean(_refit_group_loo(K, Y, a * l, rows, groups) ** 2) for a in alphas]
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], expected, rtol=1e-8)


def test_selection_with_groups_counts_scored_rows_like_the_gate():
    import pytest
    from graphrkhs.solvers import select_ridge_alpha

    Y = 2 * np.eye(2)[[0, 0, 1, 1]] - 1
    K = np.eye(4) + 0.5
    select_ridge_alpha(K, Y, [0.1, 1.0], loo_rows="classes")                    # 4 scored rows
    with pytest.raises(ValueError, match="scores 2 of 4"):
        select_ridge_alpha(K, Y, [0.1, 1.0], loo_rows="classes", loo_groups=np.array([0, 0, 1, 2]))
