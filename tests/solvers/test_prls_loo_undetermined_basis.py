"""prls_loo_errors: a left-out row whose refit leaves the null-space basis Psi undetermined on the other rows
(two copies of a point and one other point, Psi = (1, x)) has no LOO prediction: Psi_i beta is any number.  Its
residual came from a minimum-norm refit (finite, -0.807 at both gammas, a score the selection compared), while
prls_fit refuses that refit ("rank-deficient") and ridge_path_errors scores the same case -inf (undefined)."""

import numpy as np
import pytest

from graphrkhs.solvers import consistency_grams, prls_fit, prls_loo_errors, ridge_path_errors


def _problem():
    X = np.array([[0.859, -0.021], [0.859, -0.021], [-0.123, -0.075]])
    K, Kp, Kpp, _ = consistency_grams(X, integral_operator="heat", sigma=1.0)
    return X, K, Kp, Kpp, np.array([1.0, 0.5, -1.0]), np.c_[np.ones(3), X[:, 0]]


def test_undetermined_refit_is_undefined():
    X, K, Kp, Kpp, y, Psi = _problem()
    scores, tie = prls_loo_errors(K, Kp, Kpp, y, [1e-3, 0.1], Psi=Psi)
    assert np.all(scores == -np.inf)
    # the same convention as the kernel ridge path with the same unpenalized basis
    assert np.all(ridge_path_errors(K, y, [1e-3, 0.1], unpenalized=Psi)[0] == -np.inf)


def test_determined_refits_unchanged():
    # a third distinct point: every refit determines beta; the scores are the brute-force refits' (gamma l kept)
    X, K, Kp, Kpp, y, Psi = _problem()
    X = np.vstack([X, [[0.3, 0.5]]])
    K, Kp, Kpp, _ = consistency_grams(X, integral_operator="heat", sigma=1.0)
    y = np.append(y, 0.2)
    Psi = np.c_[np.ones(4), X[:, 0]]
    scores, _ = prls_loo_errors(K, Kp, Kpp, y, [0.1], Psi=Psi)
    residuals = []
    for i in range(4):
        keep = np.delete(np.arange(4), i)
        a, b = prls_fit(K[np.ix_(keep, keep)], Kp[np.ix_(keep, keep)], Kpp[np.ix_(keep, keep)], y[keep],
                        0.1 * 4 / 3, Psi=Psi[keep])
        residuals.append(y[i] - K[i, keep] @ a - Psi[i] @ b)
    np.testing.assert_allclose(scores[0], -np.mean(np.square(residuals)), rtol=1e-6)


@pytest.mark.parametrize("z0", [3e4, 1e9])
def test_ill_conditioned_but_full_rank_basis_is_scored(z0):
    # an outlier in the basis (Psi = (1, z), z_0 = 3e4 or 1e9 among values in [0, 1]) has leverage 1 - 2.4e-9 or
    # closer to 1, but the refit without it is well defined (prls_fit accepts it): its residual is finite and the
    # score is the brute-force refits' (a threshold on the leverage scored 3e4 -inf; columns scaled over all rows,
    # 1e9)
    rng = np.random.default_rng(1)
    rng.uniform(0, 1, size=(30, 2))             # the draw order of the reviewer's reproducer (z_0 = 1e3 first)
    l = 30
    X = rng.uniform(0, 1, size=(l, 2))
    K, Kp, Kpp, _ = consistency_grams(X, integral_operator="heat", sigma=1.0)
    y = np.sin(3 * X[:, 0])
    z = X[:, 1].copy()
    z[0] = z0
    Psi = np.c_[np.ones(l), z]
    scores, _ = prls_loo_errors(K, Kp, Kpp, y, [0.1], Psi=Psi)
    residuals = []
    for i in range(l):
        keep = np.delete(np.arange(l), i)
        a, b = prls_fit(K[np.ix_(keep, keep)], Kp[np.ix_(keep, keep)], Kpp[np.ix_(keep, keep)], y[keep],
                        0.1 * l / (l - 1), Psi=Psi[keep])
        residuals.append(y[i] - K[i, keep] @ a - Psi[i] @ b)
    assert np.isfinite(scores[0])
    np.testing.assert_allclose(scores[0], -np.mean(np.square(residuals)), rtol=1e-3)


def test_basis_column_on_one_row_only_is_undetermined():
    # Psi's second column is nonzero on row 0 only: without row 0 its coefficient is free (any prediction at 0)
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, size=(12, 2))
    K, Kp, Kpp, _ = consistency_grams(X, integral_operator="heat", sigma=1.0)
    Psi = np.c_[np.ones(12), np.zeros(12)]
    Psi[0, 1] = 1e10
    scores, _ = prls_loo_errors(K, Kp, Kpp, np.sin(3 * X[:, 0]), [0.1], Psi=Psi)
    assert scores[0] == -np.inf
