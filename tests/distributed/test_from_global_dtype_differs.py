"""DistributedCSR.from_global / from_local with a dtype that differs between ranks: the same error on every rank.

The dtype was checked on each rank alone: an invalid one on rank 1 (``"int64"``) raised there while rank 0
waited in the next collective (a hang until the job was killed), and float64 on rank 0 with float32 on rank 1
passed every check and aborted MPI in the first halo exchange ("Internal error", message truncated).  Now the
check is collective and the dtypes are compared across the ranks (``check_same_inputs``).

The tests that give the ranks different dtypes run under ``mpiexec -n 2 python -m pytest -n 0 -p no:randomly
tests/distributed`` and are skipped in the one-process session (as in test_mpi_same_inputs.py); the one-process
session checks the single-rank refusal and that a valid dtype gives the serial product.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.distributed import DistributedCSR


def _matrix(n=20):
    return sp.csr_array(sp.diags([-np.ones(n - 1), 3.0 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]))


def _two_ranks(comm):
    if comm.size == 1:
        pytest.skip("the ranks differ only under mpiexec -n 2 (tests/distributed, -n 0 -p no:randomly)")


def _raises_everywhere(comm, exc, fragment, call):
    with pytest.raises(exc, match=fragment) as info:
        call()
    assert comm.allgather(str(info.value)) == [str(info.value)] * comm.size


def test_invalid_dtype_on_one_rank_raises_on_every_rank(comm):
    _two_ranks(comm)
    A = _matrix()
    bad = "int64" if comm.rank == 1 else np.float64
    _raises_everywhere(comm, ValueError, "dtype must be None, float32 or float64; got int64",
                       lambda: DistributedCSR.from_global(A, comm, dtype=bad))
    mine = np.arange(20)[np.arange(20) % comm.size == comm.rank]
    _raises_everywhere(comm, ValueError, "dtype must be None, float32 or float64; got int64",
                       lambda: DistributedCSR.from_local(A[mine], mine, 20, comm, dtype=bad))


def test_valid_dtypes_differing_between_ranks_raise_on_every_rank(comm):
    _two_ranks(comm)
    A = _matrix()
    mixed = np.float64 if comm.rank == 0 else np.float32
    _raises_everywhere(comm, ValueError, r"the inputs differ between MPI ranks \(DistributedCSR.from_global\): "
                       r"rank 0 has dtype=dtype\('float64'\); rank 1 has dtype=dtype\('float32'\)",
                       lambda: DistributedCSR.from_global(A, comm, dtype=mixed))
    mine = np.arange(20)[np.arange(20) % comm.size == comm.rank]
    _raises_everywhere(comm, ValueError, r"the inputs differ between MPI ranks \(DistributedCSR.from_local\)",
                       lambda: DistributedCSR.from_local(A[mine], mine, 20, comm, dtype=mixed))
    # the same dtype on every rank: the serial product
    for dtype in (np.float32, np.float64):
        D = DistributedCSR.from_global(A, comm, dtype=dtype)
        x = np.sin(np.arange(20))
        np.testing.assert_allclose(D.gather(D.matmat(D.to_internal(x))), A @ x, rtol=1e-6)


def test_invalid_dtype_is_refused(comm):
    with pytest.raises(ValueError, match="dtype must be None, float32 or float64"):
        DistributedCSR.from_global(_matrix(), comm, dtype="int64")
    D = DistributedCSR.from_global(_matrix(), comm, dtype=np.float32)
    assert D.dtype == np.float32
