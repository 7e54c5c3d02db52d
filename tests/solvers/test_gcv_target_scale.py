"""GCV selections do not depend on the targets' units, down to 1e-200 and up to 1e200.

GCV is homogeneous of degree 2 in y, so its minimizer is that of y / c for any c > 0.  Before, the sum of
squared residuals was taken in the targets' units: targets near 1e200 overflowed every GCV value to inf
(scored as undefined on the whole grid: the tie rule's largest ridge, with a SelectionWarning) and targets
near 1e-200 underflowed every value to 0 (every point tied: the largest ridge, silently).  The LOO
criterion was already scale-free (``loo_scores``).
"""

import warnings

import numpy as np
import pytest

from graphrkhs.solvers import (hat_matrix_errors, select_ridge_alpha, select_tikhonov_solution,
                               tikhonov_stochastic_errors)


def _problem():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    W = np.exp(-D / 0.5)
    np.fill_diagonal(W, 0.0)
    W[W < 0.05] = 0.0
    S = np.arange(0, 40, 3)
    y = np.sin(X[S, 0]) + 0.2 * rng.normal(size=S.size)
    return np.exp(-D[np.ix_(S, S)] / 2), W, S, y


def _dense_gcv(K, y, mu):
    l = K.shape[0]
    H = K @ np.linalg.inv(K + mu * np.eye(l))
    return np.mean((y - H @ y) ** 2) / (np.trace(np.eye(l) - H) / l) ** 2


ALPHAS = np.geomspace(1e-6, 1e1, 15)
SCALES = [1e-200, 1e-150, 1.0, 1e150, 1e200]


@pytest.mark.parametrize("c", SCALES)
def test_select_ridge_alpha_gcv_is_the_dense_minimizer_at_any_target_scale(c):
    K, _, S, y = _problem()
    l = S.size
    best = ALPHAS[np.argmin([_dense_gcv(K, y, a * l) for a in ALPHAS])]     # the unscaled y: no over/underflow
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # no "undefined on the whole grid" warning
        res = select_ridge_alpha(K, c * y, ALPHAS, ridge_scale="l", criterion="gcv", extend=False)
    assert res.best_params["alpha"] == best
    assert np.isfinite(res.scores).all()


@pytest.mark.parametrize("c", SCALES)
def test_select_tikhonov_solution_gcv_does_not_depend_on_the_targets_units(c):
    _, W, S, y = _problem()
    ref = select_tikhonov_solution(W, S, y, criterion="gcv")[1].best_params["alpha"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F, res = select_tikhonov_solution(W, S, c * y, criterion="gcv")
    assert res.best_params["alpha"] == ref


@pytest.mark.parametrize("c", [1e-200, 1e200])
def test_hat_matrix_and_stochastic_gcv_rank_as_the_unscaled_targets(c):
    K, W, S, y = _problem()
    params = [{"mu": m} for m in (1e-4, 1e-2, 1.0, 1e2)]

    def hat(mu):
        return K @ np.linalg.inv(K + mu * np.eye(K.shape[0]))

    s1, _ = hat_matrix_errors(hat, y, params, criterion="gcv")
    sc, tc = hat_matrix_errors(hat, c * y, params, criterion="gcv")
    assert np.lexsort((tc, sc))[-1] == np.argmax(s1)                  # score, then tie-break: GridResult's order
    np.testing.assert_array_equal(np.argsort(tc), np.argsort(s1))     # the tie-break ranks every point
    alphas = [1e-3, 1e-1, 10.0]
    s1, _ = tikhonov_stochastic_errors(W, S, y, alphas, criterion="gcv", n_probes=8)
    sc, tc = tikhonov_stochastic_errors(W, S, c * y, alphas, criterion="gcv", n_probes=8)
    np.testing.assert_array_equal(np.argsort(tc), np.argsort(s1))
    assert np.isfinite(sc).all() and np.isfinite(tc).all()
