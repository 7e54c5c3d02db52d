"""select_laprls_lowrank takes grids with repeated values, as the other selections do (np.unique).

It sorted ``sigmas``, ``gamma_As`` and ``ratios`` but kept repeats, so that select_grid refused them with
"the grid of 'sigma' must be a non-empty increasing 1-D sequence" for the sorted grid [1.0, 1.0] (and
likewise 'gamma_A', 'ratio'), where select_kernel_ridge, select_ridge_alpha, select_laprls_gammas and
select_nystrom_laprls score each distinct value once.
"""
import numpy as np

from graphrkhs import graph_penalty, knn_graph, select_laprls_lowrank


def _problem():
    X = np.random.default_rng(0).normal(size=(30, 2))
    return X, np.arange(8), np.sin(X[:8, 0]), graph_penalty(knn_graph(X, 4))


def test_repeated_values_are_scored_once():
    X, S, y, M = _problem()
    kw = dict(n_components=30, extend=False)
    ref = select_laprls_lowrank(X, S, y, M, [0.5, 1.0], gamma_As=[1e-3, 1e-1], ratios=[0.0, 10.0], **kw)
    dup = select_laprls_lowrank(X, S, y, M, [1.0, 0.5, 1.0], gamma_As=[1e-1, 1e-3, 1e-3],
                                ratios=[10.0, 0.0, 10.0], **kw)
    for name in ("sigma", "ratio", "gamma_A"):
        np.testing.assert_array_equal(dup.grid[name], ref.grid[name])
    np.testing.assert_array_equal(dup.scores, ref.scores)
    assert dup.best_params == ref.best_params
