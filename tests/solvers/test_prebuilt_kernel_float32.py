"""graph_kernel_ridge's "sparse" path on a prebuilt float32 GraphKernel against a dense float64 oracle."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import GraphKernel, filters, graph_kernel_ridge, knn_graph, laplacian


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_prebuilt_float32_kernel_gets_the_null_space_correction(kind):
    # A float32 combinatorial Laplacian leaves L 1 at ~1e-7 of its entries; the test "L 1 = 0 within 1e-12"
    # read it as not combinatorial, so the null-space correction was skipped: at RegularizedLaplacian(1e8),
    # alpha = 1, F was wrong by 1.9e5 times its informative part F - mean (float64 kernel: 0.02; now 0.07).
    rng = np.random.default_rng(3)
    W = sp.csr_array(knn_graph(rng.normal(size=(60, 2)), 5), dtype=np.float32) * np.float32(1.7)
    S = np.array([0, 4, 9, 17, 25, 33, 41, 50])
    Y = rng.normal(size=S.size)
    a, mu = 1e8, 1.0
    lam, U = np.linalg.eigh(laplacian(sp.csr_array(W, dtype=np.float64), kind).toarray())
    Phi = (U / (1.0 + a * np.clip(lam, 0.0, None))) @ U.T          # (I + a L)^{-1}, dense float64
    F0 = Phi[:, S] @ np.linalg.solve(Phi[np.ix_(S, S)] + mu * np.eye(S.size), Y)
    K = GraphKernel(laplacian(W, kind), filters.RegularizedLaplacian(a), input="laplacian", order=2)
    assert K.L.dtype == np.float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # the Chebyshev plan of a 1e8 response and tol=1e-8: not checked here
        F = graph_kernel_ridge(K, S, Y, alpha=mu, method="sparse")
    assert np.abs(F - F0).max() <= 0.25 * np.abs(F0 - F0.mean()).max()
