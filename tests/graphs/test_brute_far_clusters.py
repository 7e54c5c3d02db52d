"""The brute-force kNN search on tight clusters far from the data's mean: the exact graph.

Its float64 fallback ranked candidates by |x_i|^2 + |x_j|^2 - 2 x_i.x_j, whose rounding (~1e-3 at norms^2 ~ 5e12)
exceeded the squared distances within a cluster (~4e-3): three clusters of spread 0.01 at 0, 1e6 and 2e6 in 20
dimensions got 1534 adjacency entries wrong and were reported exact.  The fallback's candidates now have a float64
certificate, and the rows it cannot certify are searched by differences against every point.
"""
import numpy as np
import pytest

from graphrkhs import knn_graph


@pytest.mark.parametrize("offsets", [(0.0, 1e6), (0.0, 1e6, 2e6)])
def test_far_tight_clusters_get_their_exact_neighbours(offsets):
    rng = np.random.default_rng(0)
    d, k = 20, 3
    X = np.vstack([rng.standard_normal((100, d)) * 0.01 + c for c in offsets])
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)         # differences first: exact to rounding
    np.fill_diagonal(D, np.inf)
    nearest = np.argsort(D, axis=1, kind="stable")[:, :k]
    A = np.zeros(D.shape, dtype=bool)
    A[np.repeat(np.arange(len(X)), k), nearest.ravel()] = True
    A |= A.T
    W = knn_graph(X, k, weight="binary", algorithm="brute")
    np.testing.assert_array_equal(W.toarray() > 0, A)
