"""The LapRLS / PLapRLS selections estimate their dense n x n memory first.

ManifoldRidgePath (select_laprls_gammas, select_manifold_gammas) factors an n x n system per ratio and caches an
n x l basis per ratio; _LapRLSGrid (laprls_grid_errors) eigendecomposes K: peaks of 3 - 10.5 x 8 n^2 bytes
(tracemalloc) with no memory guard.  Oracle: the tracemalloc peak of the unguarded run and the documented
MemoryError contract (a machine with half the memory a call needs refuses it; with 2.5 x it runs).
"""
import tracemalloc
import warnings

import numpy as np
import pytest

import graphrkhs as g
import graphrkhs._core.validation as validation


def _problem():
    n = 300
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2))
    L = g.laplacian(g.knn_graph(X, 8))
    lab = np.arange(0, n, 2)
    return g.gaussian_kernel(X), lab, X[lab, 0], L


CALLS = [
    lambda K, lab, y, L: g.select_laprls_gammas(K, lab, y, L, [0.1, 1.0], [0.1, 1.0], extend=False),
    lambda K, lab, y, L: g.select_manifold_gammas(K, lab, y, L, [0.1, 1.0], [0.1, 1.0], extend=False),
    lambda K, lab, y, L: g.select_manifold_gammas(K, lab, y, L, [0.1, 1.0], [0.1, 1.0], consistency=True,
                                                  extend=False),
    lambda K, lab, y, L: g.laprls_grid_errors(K, lab, y, L, [0.1, 1.0], [0.1, 1.0]),
    lambda K, lab, y, L: g.ManifoldRidgePath(K, lab, L).basis(1.0),
]


@pytest.mark.parametrize("call", CALLS)
def test_manifold_selection_refuses_what_does_not_fit(monkeypatch, call):
    K, lab, y, L = _problem()
    tracemalloc.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(K, lab, y, L)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    n = K.shape[0]
    assert peak > 2 * 8 * n * n          # it does grow with n^2
    monkeypatch.setattr(validation, "_physical_memory", lambda: 0.5 * peak / 0.75)
    with pytest.raises(MemoryError, match="low-rank"):
        call(K, lab, y, L)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2.5 * peak / 0.75)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(K, lab, y, L)
