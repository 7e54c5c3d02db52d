"""chebyshev_filter(L32, phi, X64): the PSD check must allow float32 rounding of L's entries."""

import numpy as np

from graphrkhs import chebyshev_filter, filters, laplacian
from graphrkhs.graphs import knn_graph


def _oracle(L, X, t=1.0):
    lam, U = np.linalg.eigh(np.asarray(L, dtype=np.float64))
    return U @ (np.exp(-t * lam)[:, None] * (U.T @ X))


def test_float32_laplacian_with_float64_signal():
    rng = np.random.default_rng(23)
    n = int(rng.integers(3, 60))
    W = knn_graph(rng.normal(size=(n, 2)), int(min(n - 1, rng.integers(1, 8))))
    X = rng.normal(size=(n, 2))
    L32 = laplacian(W, "combinatorial").astype(np.float32)
    Y = chebyshev_filter(L32, filters.Heat(1.0), X)   # refused: "a Rayleigh quotient of L is -3.57628e-08"
    assert Y.dtype == np.float64
    np.testing.assert_allclose(Y, _oracle(L32.toarray(), X), atol=1e-6)
    # the same graph with a float32 signal was (and is) accepted
    Y32 = chebyshev_filter(L32, filters.Heat(1.0), X.astype(np.float32))
    np.testing.assert_allclose(Y32, _oracle(L32.toarray(), X), atol=1e-5)
