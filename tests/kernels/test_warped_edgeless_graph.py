"""WarpedKernel on a graph without edges: M = c L^p = 0, so the warped kernel is the base kernel itself.

solver="cg" raised ``ValueError: B must have shape (n,) or (n, m) with n >= 1 rows; got shape (0, 5)``
from inside conjugate_gradient (the incidence root R of L has one row per edge, so none), while
"direct" and "nystrom" returned k exactly.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import WarpedKernel


def _gauss(A, B, sigma):
    D = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-D / (2 * sigma**2))


@pytest.mark.parametrize("solver", ["direct", "cg", "nystrom"])
@pytest.mark.parametrize("laplacian", ["combinatorial", "normalized", "randomwalk"])
@pytest.mark.parametrize("power", [1, 2])
def test_edgeless_precomputed_graph_gives_the_base_kernel(solver, laplacian, power):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 2))
    A = rng.normal(size=(4, 2))
    K = WarpedKernel(X, sigma=1.3, graph=sp.csr_array((6, 6)), laplacian=laplacian, laplacian_power=power,
                     solver=solver, n_components=6)
    np.testing.assert_allclose(K(A, X[:3]), _gauss(A, X[:3], 1.3), rtol=0, atol=1e-12)
    np.testing.assert_allclose(K(X), _gauss(X, X, 1.3), rtol=0, atol=1e-12)


def test_epsilon_graph_without_edges_cg():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [3.0, 1.0]])
    K = WarpedKernel(X, sigma=1.0, graph="epsilon", radius=1e-3, solver="cg")
    np.testing.assert_allclose(K(X), _gauss(X, X, 1.0), rtol=0, atol=1e-12)
