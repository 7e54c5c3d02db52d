"""DistributedCSR.from_global(plan=...) with a plan that does not fit L: the same ValueError on every rank.

* A plan lacking a ghost column of one rank (built for another pattern; here L has the one-directional entry
  L[2, 7] and the plan comes from the identity) raised on that rank only: the other rank, whose rows were
  covered, went on into the halo set-up and waited forever (under ``mpiexec -n 2``; 3 ranks hang the same
  way on a symmetric L when one rank is not involved).  Runs under ``mpiexec -n 2`` only (skipped in the
  one-process session, which has no ghost rows), as in test_mpi_same_inputs.py.
* A plan for another number of nodes failed with ``IndexError: index (11) out of range`` (12 nodes for a
  9-node L); now a ValueError naming both sizes (any session).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.distributed import DistributedCSR, partition_plan


def _L(n=9):
    return sp.csr_array(sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]))


def test_a_plan_for_another_size_is_refused_by_name(comm):
    for m in (5, 12):
        plan = partition_plan(sp.eye_array(m, format="csr"), comm.size, part=np.arange(m) % comm.size)
        with pytest.raises(ValueError, match=f"the plan is for {m} nodes, L has 9") as info:
            DistributedCSR.from_global(_L(), comm, plan=plan)
        assert comm.allgather(str(info.value)) == [str(info.value)] * comm.size


def test_a_plan_missing_one_ranks_ghost_rows_raises_on_every_rank(comm):
    if comm.size == 1:
        pytest.skip("ghost rows exist only under mpiexec -n 2 (tests/distributed, -n 0 -p no:randomly)")
    n = 9
    L = sp.lil_array((n, n))
    L.setdiag(1.0)
    L[2, 7] = -0.5                      # row 2 (first rank) needs node 7 (last rank); not the other way
    L = sp.csr_array(L)
    part = np.minimum(np.arange(n) * comm.size // n, comm.size - 1)
    plan = partition_plan(sp.eye_array(n, format="csr"), comm.size, part=part)   # no ghosts anywhere
    with pytest.raises(ValueError, match="the partition plan misses a ghost row"):
        DistributedCSR.from_global(L, comm, plan=plan)
    # the plan of L itself works
    D = DistributedCSR.from_global(L, comm, plan=partition_plan(L, comm.size, part=part))
    x = np.arange(n, dtype=float)
    np.testing.assert_allclose(D.gather(D.matmat(D.to_internal(x))), L @ x, rtol=1e-15)
