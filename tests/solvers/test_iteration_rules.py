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


@pytest.mark.parametrize("kwargs, match", [
    (dict(tol=1.0), "tol must be < 1; got 1.0"),       # x = 0 came back "converged" after 0 iterations
    (dict(tol=0.0), "tol must be > 0"),
    (dict(max_iter=0), "max_iter must be >= 1"),        # x = 0 with only a ConvergenceWarning
])
def test_kernel_cg_follows_the_iteration_rule_of_conjugate_gradient(kwargs, match):
    from graphrkhs.kernels import kernel_cg

    T = np.array([[2.0, 0.5], [0.5, 1.0]])
    with pytest.raises(ValueError, match=match):
        kernel_cg(lambda P, KP: T @ KP, lambda V: V, np.array([[1.0], [0.0]]), **kwargs)
