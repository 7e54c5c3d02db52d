"""distributed_cg with options that differ between ranks: the same ValueError on every rank, not a hang.

tol=1e-2 on rank 0 and 1e-12 on rank 1 (or max_iter=3 against 500) stopped CG at different iterations on the
two ranks: the first to stop left the other waiting in its next reduction, forever.  The options are now
compared across the ranks first (check_same_inputs), as the backend entry points compare theirs.  Runs under
``mpiexec -n 2`` (skipped in the one-process session), as in test_mpi_same_inputs.py.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.distributed import DistributedCSR, distributed_cg


@pytest.mark.parametrize("options", [{"tol": (1e-2, 1e-12)}, {"max_iter": (3, 500)},
                                     {"preconditioner": ("none", "jacobi")}])
def test_options_differing_between_ranks_raise_on_every_rank(comm, options):
    if comm.size == 1:
        pytest.skip("the ranks differ only under mpiexec -n 2 (tests/distributed, -n 0 -p no:randomly)")
    n = 200
    A = sp.csr_array(sp.diags([-np.ones(n - 1), 2.0001 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]))
    D = DistributedCSR.from_global(A, comm)
    B = np.c_[np.sin(np.arange(n)), np.cos(0.3 * np.arange(n))]
    kw = {"preconditioner": "none", **{k: v[min(comm.rank, 1)] for k, v in options.items()}}
    name = next(iter(options))
    with pytest.raises(ValueError, match=rf"the inputs differ between MPI ranks \(distributed_cg\): rank 0 has {name}=")\
            as info:
        distributed_cg(D, D.to_internal(B), on_failure="ignore", **kw)
    assert comm.allgather(str(info.value)) == [str(info.value)] * comm.size
    # the same options: the serial solution
    res = distributed_cg(D, D.to_internal(B), tol=1e-10, preconditioner="none", on_failure="raise")
    np.testing.assert_allclose(D.gather(res.x), np.linalg.solve(A.toarray(), B), rtol=0, atol=1e-6)
