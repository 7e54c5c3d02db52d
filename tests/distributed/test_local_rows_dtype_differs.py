"""distributed_cg / distributed_chebyshev_filter with a float32 block on one rank and a float64 block on another.

Each rank chose its working dtype from its own block (float32 only when the operator and the block are both
float32), so a float32 block on rank 0 and a float64 block on rank 1 of a float32 operator set different working
dtypes, and the halo exchange and reductions mixed float32 and float64 buffers (MPI abort or hang).  The blocks
are now brought to one dtype on every rank (float64 if any rank holds float64: the dtype one process would give
the whole block) and the result matches the serial float64 computation.  Runs under ``mpiexec -n 2`` (skipped in
the one-process session, which has one block), as test_local_rows_column_count.py.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import chebyshev_filter, filters
from graphrkhs.distributed import DistributedCSR, distributed_cg, distributed_chebyshev_filter


def _path_laplacian(n):
    return sp.csr_array(sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]))


def test_blocks_of_different_float_dtypes_are_computed_in_float64_on_every_rank(comm):
    if comm.size == 1:
        pytest.skip("the blocks differ between ranks only under mpiexec -n 2 (tests/distributed, -n 0 -p no:randomly)")
    n = 16
    L = _path_laplacian(n)
    A = L + sp.eye_array(n)
    D = DistributedCSR.from_global(L, comm, dtype=np.float32)
    DA = DistributedCSR.from_global(A, comm, dtype=np.float32)
    X = np.random.default_rng(3).standard_normal((n, 2))
    mine = X[D.owned].astype(np.float32 if comm.rank == 0 else np.float64)
    Y = distributed_chebyshev_filter(D, filters.Heat(1.0), mine, tol=1e-12)
    assert Y.dtype == np.float64
    # oracle: the serial filter of the float32 operator's entries (exact in float64) on the blocks as given
    owned0 = np.asarray(comm.bcast(D.owned if comm.rank == 0 else None, root=0))    # rank 0's rows: float32
    X_given = X.copy()
    X_given[owned0] = X[owned0].astype(np.float32).astype(np.float64)
    Y_serial = chebyshev_filter(L.astype(np.float32).astype(np.float64), filters.Heat(1.0), X_given, tol=1e-12)
    np.testing.assert_allclose(Y, Y_serial[D.owned], rtol=1e-9, atol=1e-9)
    B = X[DA.owned].astype(np.float32 if comm.rank == 0 else np.float64)
    x = distributed_cg(DA, B, tol=1e-12, preconditioner="none").x
    assert x.dtype == np.float64
    B_given = X.copy()
    B_given[owned0] = X[owned0].astype(np.float32).astype(np.float64)
    x_serial = np.linalg.solve(A.toarray(), B_given)
    np.testing.assert_allclose(np.asarray(x).reshape(-1, 2), x_serial[DA.owned], rtol=1e-8, atol=1e-8)
