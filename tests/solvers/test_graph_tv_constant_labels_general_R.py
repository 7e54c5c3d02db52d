"""graph_tv with a second-order R = L^2 and constant labels: f = y everywhere is the minimizer (objective 0)."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import graph_tv, laplacian
from graphrkhs.graphs import knn_graph


@pytest.mark.parametrize("value", [0.0, 1.0, -3.5])
def test_constant_labels_converge_to_the_constant(value):
    rng = np.random.default_rng(6)
    n = 18
    W = knn_graph(rng.normal(size=(n, 2)), 3)
    R = sp.csr_array(laplacian(W) @ laplacian(W))       # R 1 = 0: f = y 1 has objective 0, the global minimum
    S = np.array([12, 16, 5, 14, 8])
    # before: y = 0 widened the box [0, 0] to itself until max_iter (gap 0, converged=False); y = 1 had a gap
    # floor of ~1e-308 and a relative gap of 1.0 after 200000 iterations
    F, res = graph_tv(W, S, np.full(S.size, value), R=R, alpha=0.5, max_iter=3000, on_failure="raise",
                      return_info=True)
    assert res.converged
    np.testing.assert_allclose(F, value, atol=1e-6)
