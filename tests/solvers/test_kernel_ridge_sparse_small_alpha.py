"""graph_kernel_ridge(method="sparse") on the iterative paths: (J + alpha r(L)) f = J y solved to tol."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from graphrkhs import filters, graph_kernel_ridge, knn_graph, laplacian


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))
    W = knn_graph(X, 8)
    S = rng.choice(600, 6, replace=False)
    Y = rng.normal(size=(6, 2))
    return W, S, Y


@pytest.mark.parametrize("preconditioner", ["amg", "jacobi"])
@pytest.mark.parametrize("alpha", [1e-3, 1e-6])
def test_sparse_path_matches_sparse_lu(problem, preconditioner, alpha):
    # r = 1/phi of the default kernel Matern(2, 10): (0.04 + lambda)^2 on the normalized Laplacian.  From
    # zero, the labeled rows (J) outweighed the unlabeled ones (alpha r(L)) in CG's relative residual:
    # F 6.2e-5 off at the default alpha = 1e-3 and 2.6e-2 at 1e-6 (6000-node kNN graph, AMG, tol 1e-8)
    W, S, Y = problem
    n = W.shape[0]
    L = laplacian(W, "normalized")
    c = filters.default_kernel().inverse_polynomial()
    R = c[0] * sp.eye_array(n) + c[1] * L + c[2] * (L @ L)
    jd = np.zeros(n)
    jd[S] = 1.0
    JY = np.zeros((n, 2))
    JY[S] = Y
    F_ref = spla.splu(sp.csc_matrix(sp.diags_array(jd) + alpha * R)).solve(JY)
    F = graph_kernel_ridge(W, S, Y, alpha=alpha, method="sparse", preconditioner=preconditioner, tol=1e-8)
    assert np.abs(F - F_ref).max() <= 1e-5 * np.abs(F_ref).max()
