"""distributed_cg / distributed_chebyshev_filter with a block of another width on one rank: a ValueError everywhere.

The local blocks were checked for their rows and values only: (n_own, 2) on rank 0 and (n_own, 3) on rank 1
passed and aborted MPI in the first reduction ("Fatal error in internal_Allreduce_c: Message truncated"),
where the docstrings promise a ValueError on every rank for a wrong block.  Runs under ``mpiexec -n 2`` (skipped
in the one-process session, which has one block), as in test_mpi_same_inputs.py.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import filters
from graphrkhs.distributed import DistributedCSR, distributed_cg, distributed_chebyshev_filter


def test_a_block_of_another_width_on_one_rank_raises_on_every_rank(comm):
    if comm.size == 1:
        pytest.skip("the blocks differ between ranks only under mpiexec -n 2 (tests/distributed, -n 0 -p no:randomly)")
    n = 12
    L = sp.csr_array(sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]))
    D = DistributedCSR.from_global(L, comm)
    A = DistributedCSR.from_global(L + sp.eye_array(n), comm)
    X = np.ones((D.shape[0], 2 + comm.rank))
    calls = {"X_local": lambda: distributed_chebyshev_filter(D, filters.Heat(1.0), X),
             "B_local": lambda: distributed_cg(A, X, preconditioner="none")}
    for name, call in calls.items():
        with pytest.raises(ValueError, match=f"{name} must have the same number of columns on every rank"):
            call()
    # the same width everywhere (a vector on one rank and one column on the other are one column): it runs
    x = np.arange(n, dtype=float)
    block = x[D.owned] if comm.rank == 0 else x[D.owned][:, None]
    y = distributed_chebyshev_filter(D, filters.Heat(1.0), block, tol=1e-10)
    assert y.shape == block.shape
