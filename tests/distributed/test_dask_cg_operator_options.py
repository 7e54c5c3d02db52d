"""dask_conjugate_gradient(A=DaskOperator, part=..., client=...): the options are not ignored silently.

A DaskOperator is partitioned once, when built, with its rows on its client's workers; a ``part`` (or
``client``) passed with it was dropped without a word: the solve ran on the operator's own parts (0, 1, 0, 1,
... where part=[0]*15 + [1]*15 was asked).  Another value than the operator's own is now a ValueError naming
the argument; the same value (or None) is accepted.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.distributed import mpi_world_size

import distributed  # noqa: E402,F401  (the test extra installs dask[distributed]; no skip hides its absence)

from graphrkhs.distributed._dask import DaskOperator, dask_conjugate_gradient  # noqa: E402

pytestmark = pytest.mark.skipif(mpi_world_size() > 1, reason="the Dask tests run in the plain pytest pass "
                                "(tests/distributed, one process)")


def test_part_and_client_conflicting_with_the_operator_raise(client):
    n = 30
    A = sp.csr_array(sp.diags([-np.ones(n - 1), 2.1 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]))
    b = np.sin(np.arange(n))
    x_ref = np.linalg.solve(A.toarray(), b)
    own = np.arange(n) % 2
    op = DaskOperator(A, client, part=own)
    with pytest.raises(ValueError, match="part differs from the partition of the DaskOperator A"):
        dask_conjugate_gradient(op, b, part=(np.arange(n) >= n // 2).astype(int), tol=1e-10)
    with pytest.raises(ValueError, match="client is not the client of the DaskOperator A"):
        dask_conjugate_gradient(op, b, client=object(), tol=1e-10)
    # the operator's own partition and client are accepted
    res = dask_conjugate_gradient(op, b, part=own.astype(float), client=client, tol=1e-10)
    assert res.converged.all()
    np.testing.assert_allclose(res.x, x_ref, rtol=0, atol=1e-8 * np.abs(x_ref).max())
