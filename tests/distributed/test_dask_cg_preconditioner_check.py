"""dask_conjugate_gradient(preconditioner=<array>): the ValueError naming the argument, not numpy's truth-value error.

``preconditioner in ("auto", None)`` compared a prebuilt matrix (the ``M`` one passes to conjugate_gradient)
elementwise and raised "The truth value of an array with more than one element is ambiguous" from inside the
function.  The check runs before any Dask work, so no client is needed.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.distributed import mpi_world_size
from graphrkhs.distributed._dask import dask_conjugate_gradient

pytestmark = pytest.mark.skipif(mpi_world_size() > 1, reason="the Dask tests run in the plain pytest pass "
                                "(tests/distributed, one process)")


@pytest.mark.parametrize("make", [np.eye, lambda n: sp.eye_array(n, format="csr"), lambda n: np.ones(n)])
def test_a_matrix_preconditioner_is_refused_by_name(make):
    n = 6
    A = sp.csr_array(sp.diags([-np.ones(n - 1), 2.1 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]))
    with pytest.raises(ValueError, match="preconditioner must be 'amg', 'jacobi', 'none' or None for backend='dask'"):
        dask_conjugate_gradient(A, np.ones(n), preconditioner=make(n))
