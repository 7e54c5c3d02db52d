"""grls_fit at small gamma with a singular Gram matrix whose null space the features reach (the linear kernel on more
points than dimensions, with a constant feature): the range-only pseudo-inverse dropped the features' part in the
null space and returned a wrong fit (errors up to 13 on targets of range 11, intercept 8.7 for a target without one).
Oracle: the bordered (KKT) system solved densely, and least squares for an exactly linear target."""
import numpy as np
import pytest

from graphrkhs import RLSRegressor, grls_fit


def _points():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 2)) + np.array([1.0, 0.0]) * np.arange(8)[:, None] / 4
    return X


@pytest.mark.parametrize("gamma", [1e-8, 1e-10])
def test_grls_fit_linear_kernel_matches_kkt(gamma):
    X = _points()
    m = X.shape[0]
    y = np.sin(X[:, 0]) + X[:, 1] ** 2          # not in the span: the fit is a true compromise
    Phi, Psi = X @ X.T, np.ones((m, 1))
    c, beta = grls_fit(Phi, Psi, y, gamma)
    kkt = np.block([[Phi + m * gamma * np.eye(m), Psi], [Psi.T, np.zeros((1, 1))]])
    sol = np.linalg.solve(kkt, np.r_[y, 0.0])
    f_oracle = Phi @ sol[:m] + Psi @ sol[m:]
    np.testing.assert_allclose(Phi @ c + Psi @ beta, f_oracle, atol=1e-6)
    np.testing.assert_allclose(beta, sol[m:], atol=1e-6)


def test_rls_linear_kernel_reproduces_a_linear_target():
    X = _points()
    X = np.vstack([X, X + 0.5])
    t = 2.0 * X[:, 0] + X[:, 1]
    y = np.full(X.shape[0], np.nan)
    y[:8] = t[:8]
    for alpha in (1e-8, "auto"):
        est = RLSRegressor(kernel="linear", alpha=alpha).fit(X, y)
        np.testing.assert_allclose(est.predict(X), t, atol=1e-5)
        assert abs(float(est.intercept_[0])) < 1e-5


@pytest.mark.parametrize("dtype, atol", [(np.float64, 1e-8), (np.float32, 2e-3)])
def test_grls_fit_several_features_and_targets_reproduce_the_span(dtype, atol):
    # q = 3 features and 2 target columns in the small-gamma branch: targets in span(features) + the linear
    # kernel's functions are fitted exactly (the features' null-space part kept), and Psi^T c = 0
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    m = X.shape[0]
    Phi = (X @ X.T).astype(dtype)
    Psi = np.column_stack([np.ones(m), X[:, 0] ** 2, X[:, 0] * X[:, 1]]).astype(dtype)
    Y = np.column_stack([2.0 + 3.0 * X[:, 0] - X[:, 1] + 0.5 * X[:, 0] ** 2,
                         -1.0 + X[:, 1] + 2.0 * X[:, 0] * X[:, 1]])
    for gamma in (0.0, 1e-14):
        c, beta = grls_fit(Phi, Psi, Y, gamma)
        F = Phi.astype(np.float64) @ c + Psi.astype(np.float64) @ beta
        np.testing.assert_allclose(F, Y, atol=atol)
        np.testing.assert_allclose(Psi.astype(np.float64).T @ c, 0.0, atol=atol)
        np.testing.assert_allclose(beta[:, 0], [2.0, 0.5, 0.0], atol=atol * 10)
