"""The estimators' "auto" selections score a classifier's leave-one-out on the classes labeled twice or more."""

import numpy as np

from graphrkhs import RLSClassifier, RLSRegressor


def _refit_loo(K, Y, mu, rows):
    l = K.shape[0]
    out = []
    for i in np.flatnonzero(rows):
        keep = np.r_[0:i, i + 1:l]
        out.append(Y[i] - K[i, keep] @ np.linalg.solve(K[np.ix_(keep, keep)] + mu * np.eye(l - 1), Y[keep]))
    return np.array(out)


def _points():
    rng = np.random.default_rng(1)
    codes = np.repeat(np.arange(4), [1, 5, 4, 1])           # classes 0 and 3 labeled once
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]])[codes] + 0.6 * rng.normal(size=(11, 2))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0)   # the Gaussian kernel of sigma = 1
    return X, codes, K


def test_rls_classifier_scores_the_refit_loo_of_classes_labeled_twice():
    X, codes, K = _points()
    alphas = [1e-3, 1e-2, 1e-1, 1.0]
    est = RLSClassifier(sigma=1.0, alpha=alphas).fit(X, codes)
    Y = 2 * np.eye(4)[codes] - 1                               # its +-1 one-vs-rest columns
    rows = np.bincount(codes)[codes] >= 2
    l = codes.size
    expected = [-np.mean(_refit_loo(K, Y, a * l, rows) ** 2) for a in alphas]
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], expected, rtol=1e-8)
    every = [-np.mean(_refit_loo(K, Y, a * l, np.ones(l, bool)) ** 2) for a in alphas]
    assert not np.allclose(est.cv_results_["mean_test_score"], every, rtol=1e-3)


def test_rls_regressor_scores_every_row():
    X, codes, K = _points()
    y = codes.astype(float)
    alphas = [1e-3, 1e-2, 1e-1, 1.0]
    est = RLSRegressor(sigma=1.0, alpha=alphas, fit_intercept=False).fit(X, y)
    l = codes.size
    expected = [-np.mean(_refit_loo(K, y[:, None], a * l, np.ones(l, bool)) ** 2) for a in alphas]
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], expected, rtol=1e-8)
