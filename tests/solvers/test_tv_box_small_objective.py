"""graph_tv with an R that does not keep the minimizer in [min y, max y] and an objective below the gap's floor.

R = c D2 (second differences on a path of 6 nodes) annihilates linear functions: with the labels 0, 1, 2 on the
first three nodes, f = (0, 1, 2, 3, 4, 5) has objective 0, the global minimum, and is the minimizer.  The working
box [0, 2] cuts it off; the box must be widened when f touches it, unless f is certified without it (its objective
within tol of 0, the objective's lower bound).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import graph_tv


def _path_problem():
    n = 6
    W = np.diag(np.ones(n - 1), 1)
    W = W + W.T
    D2 = np.zeros((n - 2, n))
    for i in range(n - 2):
        D2[i, i:i + 3] = [1.0, -2.0, 1.0]
    return W, D2, np.array([0, 1, 2]), np.array([0.0, 1.0, 2.0])


@pytest.mark.parametrize("c", [1e-8, 1e-9])
def test_a_small_objective_at_the_box_is_not_certified_as_optimal(c):
    # before: the objective 1e-8 of the clipped f = (0, 1, 2, 2, 2, 2) was below the floor 1.2e-7 of the relative gap
    # (1e-8 sum lambda (max y - min y)^2), which skipped the box widening: converged=True with a gap of 2e-9, at
    # an objective 1e-8 above the optimum 0 where tol allows 1e-4 x 1.2e-7
    W, D2, S, y = _path_problem()
    F, res = graph_tv(W, S, y, alpha=1.0, R=sp.csr_array(c * D2), fidelity="uniform", tol=1e-4,
                      on_failure="raise", return_info=True)
    assert res.converged
    floor = 1e-8 * S.size * (y.max() - y.min()) ** 2
    assert res.objective[0] <= 1e-4 * floor        # the optimum is 0: the gap's certificate, checked against it
    # an objective <= 1.2e-11 bounds |D2 f|_1 by 1.2e-11 / c <= 0.012 and f - y on S by 3.5e-6, so the last node
    # is within 3 x 0.012 of the extrapolation (the clipped f was 1, 2 and 3 off at nodes 3, 4, 5)
    np.testing.assert_allclose(F, np.arange(6.0), atol=0.05)


def test_the_zero_target_still_converges_in_its_box():
    # the case the skip was for (8ef1bb4): y = 0, box [0, 0], f = 0 optimal (objective exactly 0)
    W, D2, S, _ = _path_problem()
    F, res = graph_tv(W, S, np.zeros(3), alpha=0.5, R=sp.csr_array(D2), max_iter=3000, on_failure="raise",
                      return_info=True)
    assert res.converged
    np.testing.assert_array_equal(F, 0.0)
