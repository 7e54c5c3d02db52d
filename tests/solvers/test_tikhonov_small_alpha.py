"""tikhonov_solution at small alpha on the iterative paths: the error follows tol, as the harmonic solution's does."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from graphrkhs import knn_graph, laplacian, tikhonov_solution


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))
    W = knn_graph(X, 8)
    S = rng.choice(600, 6, replace=False)
    Y = rng.normal(size=(6, 2))
    return W, S, Y


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
@pytest.mark.parametrize("preconditioner", ["amg", "jacobi"])
@pytest.mark.parametrize("alpha", [1e-7, 1e-4])
def test_small_alpha_iterative_matches_sparse_lu(problem, kind, preconditioner, alpha):
    # (J + alpha L) F = J Y by a sparse LU as the oracle.  Before, the unlabeled rows (alpha L) weighed
    # nothing in CG's relative residual against the labeled ones (J): at alpha = 1e-7 the AMG solve at
    # tol 1e-8 left F ~1e-3 off (a 6000-node kNN graph: 3.5e-3 at alpha = 1e-6, the harmonic limit 2e-7)
    W, S, Y = problem
    n = W.shape[0]
    L = laplacian(W, kind)
    jd = np.zeros(n)
    jd[S] = 1.0
    JY = np.zeros((n, 2))
    JY[S] = Y
    lu = spla.splu(sp.csc_matrix(sp.diags_array(jd) + alpha * L))
    F_ref = lu.solve(JY)
    F = tikhonov_solution(W, S, Y, alpha=alpha, laplacian=kind, preconditioner=preconditioner, tol=1e-8)
    assert np.abs(F - F_ref).max() <= 1e-5 * np.abs(F_ref).max()
