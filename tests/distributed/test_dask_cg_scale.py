"""dask_conjugate_gradient solves each column in units of a power of two, as conjugate_gradient does.

With B ~ 1e-200 the column norms underflowed to 0, every column started "converged" and x = 0 came back with a
residual of 0 (1e-160: 8.7e-3 off, reported converged); the serial solver is exact at any scale.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.distributed import mpi_world_size

import distributed  # noqa: E402,F401  (the test extra installs dask[distributed]; no skip hides its absence)

from graphrkhs.distributed._dask import dask_conjugate_gradient  # noqa: E402

pytestmark = pytest.mark.skipif(mpi_world_size() > 1, reason="the Dask tests run in the plain pytest pass "
                                "(tests/distributed, one process)")


# scale 1 is the second column of every case (no case of its own); the diagonal 2.5 (condition number 9, 31
# CG iterations serially) instead of 2.1 (41, 65; a Dask CG iteration is a round of task hops, whatever
# the size): each of the 8 cases still fails without the units (x = 0 or an x off reported converged, or NaN
# or infinity in the products)
@pytest.mark.parametrize("scale", [1e-200, 1e-160, 1e160, 1e200])
@pytest.mark.parametrize("preconditioner", ["none", "amg"])
def test_solution_scales_with_the_right_hand_side(client, scale, preconditioner):
    n = 200
    A = sp.csr_array(sp.diags([-np.ones(n - 1), 2.5 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]))
    b = np.sin(np.arange(n))
    x_ref = np.linalg.solve(A.toarray(), b)
    res = dask_conjugate_gradient(A, np.c_[b * scale, b], client=client, tol=1e-10, preconditioner=preconditioner)
    assert res.converged.all()
    np.testing.assert_allclose(res.x[:, 0] / scale, x_ref, rtol=0, atol=1e-8 * np.abs(x_ref).max())
    np.testing.assert_allclose(res.x[:, 1], x_ref, rtol=0, atol=1e-8 * np.abs(x_ref).max())
