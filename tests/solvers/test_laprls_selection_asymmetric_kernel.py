"""The LapRLS / PLapRLS selections refuse a K that is not symmetric, as laprls_fit does.

_LapRLSGrid (laprls_grid_errors, select_laprls_gammas) factors (K + K^T) / 2 and ManifoldRidgePath
(select_manifold_gammas) solves with K as given: np.triu of a Gaussian Gram on 20 points was scored
without a word (select_laprls_gammas chose gamma_A 1e-10 on it), where laprls_fit refuses the same K with
"K must be symmetric".  Now the same symmetry test and message for all of them (check_symmetric_kernel).
"""
import numpy as np
import pytest

from graphrkhs import ManifoldRidgePath, graph_penalty, knn_graph, pairwise_kernel
from graphrkhs.solvers import laprls_grid_errors, select_laprls_gammas, select_manifold_gammas


def _problem():
    X = np.random.default_rng(0).normal(size=(20, 2))
    S = np.arange(8)
    return pairwise_kernel(X, sigma=1.0), S, np.sin(X[S, 0]), graph_penalty(knn_graph(X, 4))


CALLS = {
    "laprls_grid_errors": lambda K, S, y, M: laprls_grid_errors(K, S, y, M, [1e-2], [1.0]),
    "select_laprls_gammas": lambda K, S, y, M: select_laprls_gammas(K, S, y, M, [1e-2], [1.0], extend=False),
    "select_manifold_gammas": lambda K, S, y, M: select_manifold_gammas(K, S, y, M, [1e-2], [1.0], extend=False),
    "ManifoldRidgePath": lambda K, S, y, M: ManifoldRidgePath(K, S, M),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_asymmetric_kernel_refused(name):
    K, S, y, M = _problem()
    with pytest.raises(ValueError, match=r"K must be symmetric: max \|K_ij - K_ji\|"):
        CALLS[name](np.triu(K), S, y, M)


@pytest.mark.parametrize("name", list(CALLS)[:3])
def test_symmetric_kernel_scored(name):
    K, S, y, M = _problem()
    out = CALLS[name](K, S, y, M)
    scores = out[0] if isinstance(out, tuple) else out.scores
    assert np.isfinite(scores).all()
