"""amg_preconditioner's degree is bounded where its power-basis Chebyshev smoother still works."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import amg_preconditioner, conjugate_gradient, knn_graph, laplacian
from graphrkhs._core.amg import SmoothedAggregationPreconditioner


def _system(n=500):
    W = knn_graph(np.random.default_rng(0).standard_normal((n, 3)), 10)
    return sp.csr_array(laplacian(W) + 1e-3 * sp.eye_array(n))


@pytest.mark.parametrize("degree", [21, 30, 300, 10**9])
def test_degree_above_bound_refused(degree):
    # 30: CG no longer converged; 300: a NaN preconditioner; 10**9: a MemoryError with an empty message
    with pytest.raises(ValueError, match=rf"^degree must be <= 20; got {degree}: the Chebyshev smoother"):
        amg_preconditioner(_system(), degree=degree)


def test_class_refuses_too():
    with pytest.raises(ValueError, match=r"^degree must be >= 1; got 0"):
        SmoothedAggregationPreconditioner(_system(), degree=0)
    with pytest.raises(TypeError, match=r"^degree must be an int; got 2.5"):
        SmoothedAggregationPreconditioner(_system(), degree=2.5)


def test_largest_allowed_degree_converges():
    A = _system()
    b = np.random.default_rng(1).standard_normal(A.shape[0])
    res = conjugate_gradient(A, b, M=amg_preconditioner(A, degree=20, max_coarse=50),
                             tol=1e-8, max_iter=100)
    assert res.converged
    assert np.linalg.norm(A @ res.x - b) <= 1e-8 * np.linalg.norm(b)
