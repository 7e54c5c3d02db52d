"""DistributedCSR.from_local refuses a fractional n_global (it was truncated: 50.7 became 50, silently).

Runs under plain pytest and ``mpiexec -n 2`` (every rank raises the same ValueError; a whole float is taken).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.distributed import DistributedCSR


def _rows(comm, n=50):
    A = sp.csr_array(sp.diags([-np.ones(n - 1), 3.0 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]))
    mine = np.arange(n)[np.arange(n) % comm.size == comm.rank]
    return A, sp.csr_array(A[mine]), mine


@pytest.mark.parametrize("n_global", [50.7, 49.5, float("nan"), "50", True, np.array(50.5), np.array([50]), 50 + 0j])
def test_fractional_n_global_is_refused_on_every_rank(comm, n_global):
    _, rows, mine = _rows(comm)
    with pytest.raises(ValueError, match="n_global must be a whole number of nodes") as info:
        DistributedCSR.from_local(rows, mine, n_global, comm)
    assert comm.allgather(str(info.value)) == [str(info.value)] * comm.size


def test_whole_n_global_is_taken(comm):
    A, rows, mine = _rows(comm)
    # 0-d arrays and Decimal were refused by the first version of the check (review): whole numbers all the same
    from decimal import Decimal
    for n_global in (50, np.int64(50), 50.0, np.float32(50), np.array(50), np.array(50.0), Decimal(50)):
        D = DistributedCSR.from_local(rows, mine, n_global, comm)
        assert D.n_global == 50
        x = np.sin(np.arange(50))
        np.testing.assert_allclose(D.gather(D.matmat(x[D.owned])), A @ x, rtol=1e-14, atol=1e-14)
