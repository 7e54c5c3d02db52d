"""Boolean grids: numpy read True / False as 1.0 / 0.0, so alphas=[True, False] (or a ratio / gamma_I grid of
booleans) was scored as the grid (0, 1) without a word (select_tikhonov_solution chose alpha 10 on [False, True]).
Every grid check now refuses them with a ValueError naming the argument."""
import numpy as np
import pytest

import graphrkhs as g
from graphrkhs._core.loo import check_ridges
from graphrkhs.graphs import knn_graph, laplacian
from graphrkhs.kernels import pairwise_kernel


def _problem():
    X = np.random.default_rng(0).normal(size=(30, 2))
    W = knn_graph(X, 5)
    S = np.arange(10)
    y = np.r_[np.zeros(5), np.ones(5)]
    return X, W, S, y


@pytest.mark.parametrize("alphas", [[False, True], [True, 2.0], np.array([True, False])])
def test_select_tikhonov_solution_refuses_boolean_alphas(alphas):
    _, W, S, y = _problem()
    with pytest.raises(ValueError, match="alphas"):
        g.select_tikhonov_solution(W, S, y, alphas)


def test_manifold_ratio_grid_refuses_booleans():
    X, W, S, y = _problem()
    K = pairwise_kernel(X, X, "gaussian", sigma=1.0)
    M = laplacian(W).toarray()
    with pytest.raises(ValueError, match="ratios"):
        g.select_manifold_gammas(K, S, y, M, ratios=[False, True])


def test_check_ridges_refuses_booleans():
    with pytest.raises(ValueError, match="gammas"):
        check_ridges([True, 0.5], "gammas")


@pytest.mark.parametrize("make, name", [
    (lambda: g.LapRLSClassifier(gamma_I=[True, False]), "gamma_I"),
    (lambda: g.LaplacianRegularizationClassifier(alpha=[True, False]), "alpha"),
    (lambda: g.GraphKernelRidgeClassifier(alphas=[True, 2.0]), "alphas"),
])
def test_estimators_refuse_boolean_grids(make, name):
    X, _, _, _ = _problem()
    y = np.full(30, -1)
    y[:5], y[5:10] = 0, 1
    with pytest.raises(ValueError, match=name):
        make().fit(X, y)


def test_consistency_grams_widths_refuses_booleans():
    # review of 650b425: the public width grid of the consistency Grams read [True, 0.3] as widths (1.0, 0.3)
    from graphrkhs import consistency_grams_widths
    X = np.random.default_rng(0).standard_normal((12, 2))
    with pytest.raises(ValueError, match="sigmas must be a non-empty sequence of positive widths"):
        consistency_grams_widths(X[:4], X, [True, 0.3])
    assert len(consistency_grams_widths(X[:4], X, [1.0, 0.3])) == 2
