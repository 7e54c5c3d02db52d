"""graph_tv with a sparse R cancelling constants (L, L^2) and constant labels at a tight tol (1e-8).

f = y 1 is the exact minimizer (objective 0), but the computed ||R f||_1 is the rounding of R's row sums
(6e-15 for y = 1 against a floor of 1e-8 sum lambda): the relative gap stayed at 1.1e-8 to 4.4e-8 for
20000 iterations, converged=False with a ConvergenceWarning on the exact answer.  The gap is now less the
rounding of R f.  Oracle: the constant, and the documented stop (gap <= tol).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import graph_tv, laplacian
from graphrkhs.graphs import knn_graph


@pytest.mark.parametrize("value", [1.0, -0.3, 3.7])
@pytest.mark.parametrize("power", [1, 2])
def test_zero_optimum_converges_at_tight_tol(value, power):
    W = knn_graph(np.random.default_rng(0).normal(size=(40, 2)), 5)
    L = sp.csr_array(laplacian(W))
    R = L if power == 1 else sp.csr_array(L @ L)
    S = np.arange(0, 40, 5)
    F, res = graph_tv(W, S, np.full(S.size, value), R=R, tol=1e-8, max_iter=500, on_failure="raise",
                      return_info=True)
    assert res.converged and res.gap.max() <= 1e-8
    np.testing.assert_allclose(F, value, rtol=1e-12)

