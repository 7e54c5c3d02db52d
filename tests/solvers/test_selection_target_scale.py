"""select_laprls_lowrank and prls_fit are homogeneous of degree 1 in y, at y ~ 1e300 and 1e-300 too.

There every LOO MSE overflows float64 (scores all minus the largest float) or underflows to 0: the exact step of
select_laprls_lowrank ranked by the score alone and took the first width; prls_fit's rounding snap squared
unscaled norms and zeroed the projected target (the fit was the mean alone).
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

from graphrkhs import consistency_grams, graph_penalty, knn_graph, prls_fit
from graphrkhs.solvers import SelectionWarning, select_laprls_lowrank

X, _ = make_moons(30, noise=0.1, random_state=0)
S = np.arange(8)
Y = X[:8, 0].copy()


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_select_laprls_lowrank_is_scale_free(scale):
    M = graph_penalty(knn_graph(X, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SelectionWarning)
        ref, a0, _ = select_laprls_lowrank(X, S, Y, M, [0.3, 0.6, 1.2], return_coef=True)
        res, a, _ = select_laprls_lowrank(X, S, Y * scale, M, [0.3, 0.6, 1.2], return_coef=True)
    assert res.best_params == ref.best_params
    np.testing.assert_allclose(a / scale, a0, rtol=1e-9, atol=1e-12 * np.abs(a0).max())


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_prls_fit_is_homogeneous_in_y(scale):
    K, Kp, Kpp, _ = consistency_grams(X[S], X, sigma=1.0)
    a0, b0 = prls_fit(K, Kp, Kpp, Y, 1e-3)
    a, b = prls_fit(K, Kp, Kpp, Y * scale, 1e-3)
    assert np.abs(a0).max() > 1e-3                      # a real kernel part, not the mean alone
    np.testing.assert_allclose(a / scale, a0, rtol=1e-9, atol=1e-12 * np.abs(a0).max())
    np.testing.assert_allclose(b / scale, b0, rtol=1e-9)
