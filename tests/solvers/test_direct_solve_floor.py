"""The direct sparse solve's residual warning names float64's attainable accuracy (as conjugate_gradient does)."""

import numpy as np
import pytest

from graphrkhs import ConvergenceWarning, filters, graph_kernel_ridge, knn_graph


def _two_component_graph():
    rng = np.random.default_rng(3)
    W = knn_graph(rng.normal(size=(30, 2)), 5).toarray()
    n = W.shape[0]
    Wt = np.zeros((2 * n, 2 * n))
    Wt[:n, :n] = W
    Wt[n:, n:] = 2.0 * W[::-1, ::-1]
    S = np.array([0, 4, 9, 17, 25, n + 1, n + 8, n + 20])
    Y = np.eye(3)[[0, 1, 2, 0, 0, 1, 2, 2]] + np.array([0.0, 0.5, -0.25])
    return Wt, S, Y


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_direct_ridge_solve_at_a_large_response_weight_says_tol_is_unattainable(kind):
    # RegularizedLaplacian(1e10): the direct solve of J + mu (I + 1e10 L) left 2.95e-6 (combinatorial) /
    # 4.2e-7 (normalized) of |b|, 0.4 times the rounding of A x alone (7.8e-6 / 1.0e-6): the warning blamed
    # an ill-conditioned matrix and the graph's weights, not float64's attainable accuracy.
    W, S, Y = _two_component_graph()
    with pytest.warns(ConvergenceWarning, match=r"float64 cannot do better on this system: the rounding of the "
                                                r"product A x alone is [0-9.]+e-0[67] of \|b\|") as rec:
        graph_kernel_ridge(W, S, Y, filters.RegularizedLaplacian(1e10), alpha=1.0, laplacian=kind)
    assert not any("nearly disconnected" in str(w.message) for w in rec)
