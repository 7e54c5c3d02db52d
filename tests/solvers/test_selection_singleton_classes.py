"""A class's only label in a classifier's leave-one-out: kept in every fit, not scored (``loo_rows``).

Leaving out a class's only label asks the fit to predict a class it has no label of: that residual falls as the
fit flattens whatever the data, so scoring it biased every classifier's selection towards flat fits.
"""

import numpy as np
import pytest

from graphrkhs import KernelRidgePath
from graphrkhs.solvers import class_loo_rows, kfold_scores, loo_scores, ridge_path_errors, select_ridge_alpha
from graphrkhs.estimators._auto import loo_rows_of, loo_selects


def _problem(counts=(1, 5, 4, 1), seed=0):
    """Gaussian kernel on 2-D points of len(counts) clusters, one-hot targets with ``counts`` labels per class."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]])[:len(counts)]
    codes = np.repeat(np.arange(len(counts)), counts)
    X = centres[codes] + 0.6 * rng.normal(size=(codes.size, 2))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0)
    return K, np.eye(len(counts))[codes], codes


def _refit_loo(K, Y, mu, rows):
    """Dense oracle: for each scored row i, kernel ridge refitted without label i, its prediction at i."""
    l = K.shape[0]
    R = np.empty((rows.sum(), Y.shape[1]))
    for j, i in enumerate(np.flatnonzero(rows)):
        keep = np.r_[0:i, i + 1:l]
        beta = np.linalg.solve(K[np.ix_(keep, keep)] + mu * np.eye(l - 1), Y[keep])
        R[j] = Y[i] - K[i, keep] @ beta
    return R


def test_class_loo_rows_one_rule_for_onehot_signed_and_centred_targets():
    codes = np.array([0, 1, 1, 2, 2, 2, 3])
    Y = np.eye(4)[codes]
    expected = [False, True, True, True, True, True, False]
    np.testing.assert_array_equal(class_loo_rows(Y), expected)
    np.testing.assert_array_equal(class_loo_rows(Y - Y.mean(axis=0)), expected)          # centred one-hot
    np.testing.assert_array_equal(class_loo_rows(2 * Y - 1), expected)                   # +-1 columns
    y = np.array([1.0, -1, -1, 1, -1])                                                    # +-1 binary column
    np.testing.assert_array_equal(class_loo_rows(y), [True, True, True, True, True])
    np.testing.assert_array_equal(class_loo_rows(np.array([1.0, -1, -1])), [False, True, True])
    np.testing.assert_array_equal(class_loo_rows(np.array([1.0, -1, -1]) - 1 / 3), [False, True, True])


@pytest.mark.parametrize("scoring", ["mse", "accuracy"])
def test_criterion_is_the_refit_loo_over_the_rows_of_classes_labeled_twice(scoring):
    K, Y, codes = _problem()
    rows = np.bincount(codes)[codes] >= 2
    mus = np.array([1e-3, 1e-1, 1.0, 10.0])
    got, got_tie = ridge_path_errors(K, Y, mus, scoring=scoring, loo_rows="classes")
    for j, mu in enumerate(mus):
        R = _refit_loo(K, Y, mu, rows)
        mse = np.mean(R ** 2)
        if scoring == "mse":
            np.testing.assert_allclose(got[j], -mse, rtol=1e-9)
        else:
            acc = np.mean(np.argmax(Y[rows] - R, axis=1) == codes[rows])
            assert got[j] == acc
            np.testing.assert_allclose(got_tie[j], -mse, rtol=1e-9)
    # the same with the mask given, and different from every row's LOO (the singletons' residuals included)
    np.testing.assert_array_equal(ridge_path_errors(K, Y, mus, scoring=scoring, loo_rows=rows)[0], got)
    if scoring == "mse":
        assert not np.allclose(ridge_path_errors(K, Y, mus)[0], got)


def test_a_singleton_s_residual_no_longer_enters_the_scores():
    K, Y, codes = _problem()
    R = KernelRidgePath(K).loo_residuals(Y, [0.1, 1.0])
    single = ~class_loo_rows(Y)
    R2 = R.copy()
    R2[:, single] = np.inf                  # undefined there: every row's criterion would be undefined (-inf)
    for scoring in ("mse", "accuracy"):
        np.testing.assert_array_equal(loo_scores(R2, Y, scoring, loo_rows="classes")[0],
                                      loo_scores(R, Y, scoring, loo_rows="classes")[0])
        assert np.isneginf(loo_scores(R2, Y, scoring)[0]).all()


def test_singleton_residual_falls_as_the_fit_flattens_and_the_selection_no_longer_follows_it():
    # the bias: a class's only label, left out, has the residual 1 in its own column and the predictions of
    # the other classes elsewhere, which shrink as the ridge grows, whatever the data
    K, Y, codes = _problem(counts=(1, 4, 4, 1), seed=3)
    mus = np.geomspace(1e-4, 1e2, 13)
    single = np.flatnonzero(~class_loo_rows(Y))
    own = np.array([np.sum(_refit_loo(K, Y, mu, np.isin(np.arange(len(codes)), single)) ** 2) for mu in mus])
    assert np.all(np.diff(own) < 0)
    masked = select_ridge_alpha(K, Y, mus, extend=False, loo_rows="classes").best_params["alpha"]
    every = select_ridge_alpha(K, Y, mus, extend=False).best_params["alpha"]
    rows = class_loo_rows(Y)
    oracle = [np.mean(_refit_loo(K, Y, mu, rows) ** 2) for mu in mus]
    assert masked == mus[int(np.argmin(oracle))]
    assert every > masked                   # scored, the singletons pulled the choice to a flatter fit


def test_too_few_scored_rows_raise_like_the_estimators_gate():
    K, Y, codes = _problem(counts=(1, 1, 2))
    assert not loo_selects(Y, True)          # the estimators' gate: fallback values, no selection
    with pytest.raises(ValueError, match=r"at least 3 scored labeled rows; loo_rows scores 2 of 4"):
        select_ridge_alpha(K, Y, loo_rows="classes")
    with pytest.raises(ValueError, match="at least 3 scored labeled rows"):
        select_ridge_alpha(K, Y, [0.1, 1.0], loo_rows=class_loo_rows(Y))
    with pytest.raises(ValueError, match="loo_rows scores none of the 4 labeled rows"):
        loo_scores(np.zeros((1, 4, 3)), Y, loo_rows=np.zeros(4, dtype=bool))
    with pytest.raises(ValueError, match="loo_rows must be None, 'classes' or a boolean mask of the 4"):
        loo_scores(np.zeros((1, 4, 3)), Y, loo_rows=[0, 1, 1, 1])
    K, Y, codes = _problem(counts=(1, 1, 3))
    assert loo_selects(Y, True)
    assert select_ridge_alpha(K, Y, loo_rows="classes").best_params["alpha"] > 0


def test_kfold_scores_never_hold_out_a_class_s_only_label():
    y = np.array([0, 0, 0, 1, 2, 2, 2])
    seen = []

    def fit_predict(train, test, c):
        seen.append((train, test))
        return np.zeros(test.size, dtype=int)

    res = kfold_scores(fit_predict, y, {"c": [1.0]}, n_splits=3)
    assert all(3 in tr and 3 not in te for tr, te in seen)
    np.testing.assert_allclose(res.best_score, 0.5)     # class 0 right in its folds, class 2 wrong


def test_regressors_score_every_row():
    from graphrkhs import RLSClassifier, RLSRegressor

    assert loo_rows_of(RLSRegressor()) is None
    assert loo_rows_of(RLSClassifier()) == "classes"
