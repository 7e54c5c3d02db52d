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


@pytest.mark.parametrize("name", ["RLSClassifier", "LapRLSClassifier", "WarpedKernelClassifier"])
def test_two_blobs_off_the_origin_are_separated(name):
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal([10.0, 10.0], 0.5, size=(100, 2)), rng.normal([12.0, 10.0], 0.5, size=(100, 2))])
    y = np.repeat([0, 1], 100)
    y_obs = np.full(200, -1)
    y_obs[[0, 1, 2, 3, 4, 100, 101, 102, 103, 104]] = y[[0, 1, 2, 3, 4, 100, 101, 102, 103, 104]]
    E = getattr(gr, name)
    est = E(kernel="linear").fit(X, y_obs)
    # the Bayes boundary x_0 = 11 misclassifies about 2.3 % of each blob (0.5 standard deviations of 2)
    assert (est.predict(X) == y).mean() >= 0.95
    through_origin = E(kernel="linear", fit_intercept=False).fit(X, y_obs)
    assert (through_origin.predict(X) == y).mean() < 0.95


def _laprls_linear_oracle(X, W, labeled, y, gamma_A, gamma_I, X_new):
    # LapRLS with f(x) = w^T x + b, b unpenalized: the normal equations of
    # (1/l) ||y_S - Z_S theta||^2 + gamma_A ||w||^2 + gamma_I / n^2 (Z theta)^T L (Z theta), Z = [X, 1]
    from graphrkhs import laplacian
    n, d = X.shape
    L = laplacian(W).toarray()
    Z = np.c_[X, np.ones(n)]
    Zs = Z[labeled]
    D = np.diag(np.r_[np.ones(d), 0.0])
    l = labeled.size
    A = Zs.T @ Zs / l + gamma_A * D + gamma_I / n ** 2 * Z.T @ L @ Z
    theta = np.linalg.solve(A, Zs.T @ y[labeled] / l)
    return np.c_[X_new, np.ones(len(X_new))] @ theta


@pytest.mark.filterwarnings("error::graphrkhs.ConvergenceWarning")
@pytest.mark.parametrize("name", ["LapRLSRegressor", "WarpedKernelRegressor"])
@pytest.mark.parametrize("solver", ["direct", "cg"])
def test_graph_learners_on_the_linear_kernel_have_a_free_constant(name, solver):
    # centring y alone left f(x) = w^T x + mean(y_S): shifting X and the new points together moved the
    # predictions by 33 %; now every point less the labeled mean, which is exactly the free constant when
    # L 1 = 0 (the combinatorial Laplacian, the default)
    from graphrkhs import knn_graph
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 2)) + np.array([10.0, -5.0])
    labeled = np.arange(0, 50, 5)
    y = np.full(50, np.nan)
    y[labeled] = 2.0 * X[labeled, 0] - X[labeled, 1] + rng.normal(scale=0.3, size=labeled.size)
    X_new = rng.normal(size=(12, 2)) + np.array([10.0, -5.0])
    W = knn_graph(X, 6)
    kw = dict(kernel="linear", gamma_A=1e-2, gamma_I=1.0, graph=W, solver=solver)
    pred = getattr(gr, name)(**kw).fit(X, y).predict(X_new)
    oracle = _laprls_linear_oracle(X, W, labeled, y, 1e-2, 1.0, X_new)
    np.testing.assert_allclose(pred, oracle, rtol=1e-8, atol=1e-8)


def test_graph_learners_on_the_homogeneous_polynomial_kernel_keep_no_constant():
    # their "free constant" is the centring of y, which on this kernel only biased the fit towards the labeled
    # majority (LapRLS, two blobs off the origin with 3 + 7 labels: 0.881 against 0.889 without it, 12 seeds);
    # "auto" gives it to RLS only, whose constant is a true unpenalized basis function
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal([10.0, 10.0], 0.5, size=(30, 2)), rng.normal([12.0, 10.0], 0.5, size=(30, 2))]) / 10
    y_obs = np.full(60, -1)
    y_obs[[0, 1, 2]] = 0
    y_obs[30:37] = 1
    for E in (gr.LapRLSClassifier, gr.WarpedKernelClassifier):
        kw = dict(kernel="polynomial", gamma_A=1e-4, gamma_I=1e-2, n_neighbors=6)
        if "coef0" in E().get_params():
            kw["coef0"] = 0.0
        auto = E(**kw).fit(X, y_obs)
        explicit = E(fit_intercept=False, **kw).fit(X, y_obs)
        np.testing.assert_array_equal(auto.decision_function(X), explicit.decision_function(X))
