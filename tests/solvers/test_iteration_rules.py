"""The solvers' iteration rule (tol in (0, 1), max_iter an int >= 1) on the inner solves too."""

import numpy as np
import pytest

from graphrkhs import cut_ssl


@pytest.mark.parametrize("cg_tol", [1.0, 5.0])
def test_cut_ssl_refuses_a_cg_tol_that_the_zero_start_meets(cg_tol):
    # cg_tol >= 1 was accepted: every inner CG solve stopped at its start (its warm start X) and the
    # iteration went on with unsolved blocks; now refused before any work, naming cg_tol
    W = np.diag(np.ones(5), 1)
    W = W + W.T
    with pytest.raises(ValueError, match=rf"cg_tol must be < 1; got {cg_tol}"):
        cut_ssl(W, [0, 5], np.eye(2), cg_tol=cg_tol)
