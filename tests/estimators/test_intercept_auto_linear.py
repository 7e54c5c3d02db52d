"""``fit_intercept="auto"`` for classifiers on kernels without constant functions.

The linear kernel x^T z and the homogeneous polynomial kernel (x^T z)^p hold no constant function,
so a classifier on them without a free constant has its decision boundary through the origin.
"auto" gives such classifiers the free constant (regressors always had it); the Gaussian kernel,
whose RKHS holds the constants, keeps none free.  Oracles: scikit-learn's ``Ridge`` with an
intercept (the linear kernel: the same objective in the primal) and a numpy saddle-point solve.
"""
import numpy as np
import pytest
from sklearn.linear_model import Ridge

import graphrkhs as gr


def _three_classes_off_origin(n=60, l=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) + np.array([8.0, -5.0, 3.0])
    y = (X[:, 0] + X[:, 1] > 3).astype(int)
    y[X[:, 2] > 3.5] = 2
    y_obs = np.full(n, -1)
    y_obs[:l] = y[:l]
    return X, y, y_obs


def _codes(y_labeled, k):
    return 2.0 * np.eye(k)[y_labeled] - 1.0      # the classifiers' one-vs-rest codes {-1, +1}


def test_linear_kernel_classifier_equals_ridge_with_intercept():
    X, y, y_obs = _three_classes_off_origin()
    l, alpha = 20, 0.01
    est = gr.RLSClassifier(kernel="linear", alpha=alpha).fit(X, y_obs)
    # RLS minimizes (1/l) ||Y - K c - 1 b||^2 + alpha c^T K c; with K = X X^T that is Ridge's
    # ||Y - X w - 1 b||^2 + (l alpha) ||w||^2 divided by l
    oracle = Ridge(alpha=l * alpha, fit_intercept=True).fit(X[:l], _codes(y[:l], 3)).predict(X)
    np.testing.assert_allclose(est.decision_function(X), oracle, rtol=0, atol=1e-9)
    assert np.abs(est.intercept_).max() > 0.1


def test_homogeneous_polynomial_classifier_gets_the_saddle_point_constant():
    X, y, y_obs = _three_classes_off_origin(seed=1)
    X = X / 5.0
    l, alpha = 20, 0.05
    est = gr.RLSClassifier(kernel="polynomial", degree=2, coef0=0.0, alpha=alpha).fit(X, y_obs)
    K = (X @ X[:l].T) ** 2
    A = np.block([[K[:l] + l * alpha * np.eye(l), np.ones((l, 1))], [np.ones((1, l)), np.zeros((1, 1))]])
    Y = _codes(y[:l], 3)
    sol = np.linalg.solve(A, np.vstack([Y, np.zeros((1, 3))]))
    np.testing.assert_allclose(est.decision_function(X), K @ sol[:l] + sol[l], rtol=0, atol=1e-7)


def test_gaussian_and_inhomogeneous_kernels_keep_no_free_constant():
    X, _, y_obs = _three_classes_off_origin()
    for kw in ({"kernel": "gaussian"}, {"kernel": "polynomial", "degree": 2, "coef0": 1.0}):
        est = gr.RLSClassifier(alpha=0.01, **kw).fit(X, y_obs)
        assert np.array_equal(est.intercept_, np.zeros(3)), kw
        explicit = gr.RLSClassifier(alpha=0.01, fit_intercept=False, **kw).fit(X, y_obs)
        np.testing.assert_array_equal(est.decision_function(X), explicit.decision_function(X))


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_explicit_choice_is_kept(fit_intercept):
    X, _, y_obs = _three_classes_off_origin()
    est = gr.RLSClassifier(kernel="linear", alpha=0.01, fit_intercept=fit_intercept).fit(X, y_obs)
    assert (np.abs(est.intercept_).max() > 0) == fit_intercept


def test_two_blobs_off_the_origin_are_separated():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal([10.0, 10.0], 0.5, size=(100, 2)), rng.normal([12.0, 10.0], 0.5, size=(100, 2))])
    y = np.repeat([0, 1], 100)
    y_obs = np.full(200, -1)
    y_obs[[0, 1, 2, 3, 4, 100, 101, 102, 103, 104]] = y[[0, 1, 2, 3, 4, 100, 101, 102, 103, 104]]
    est = gr.RLSClassifier(kernel="linear").fit(X, y_obs)
    # the Bayes boundary x_0 = 11 misclassifies about 2.3 % of each blob (0.5 standard deviations of 2)
    assert (est.predict(X) == y).mean() >= 0.95
    through_origin = gr.RLSClassifier(kernel="linear", fit_intercept=False).fit(X, y_obs)
    assert (through_origin.predict(X) == y).mean() < 0.95
