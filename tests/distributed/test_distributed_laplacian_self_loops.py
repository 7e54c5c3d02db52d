"""mpi_laplacian / dask_laplacian are laplacian(W, kind) by row blocks: W with a self-loop gave L_00 = 3 where
laplacian gives 1 (the loop counted in the degree of its row block, while laplacian_rows dropped it from the
row and warned that it was removed); the normalized forms were off by 0.21.  W is now read by as_adjacency
first, as laplacian reads it.  Runs under plain pytest and under ``mpiexec -n 2``."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.distributed import mpi_laplacian

W = sp.csr_array(np.array([[2.0, 1, 0, 0], [1, 0, 3, 0], [0, 3, 0, 0], [0, 0, 0, 0]]))   # a loop, an isolated node


@pytest.mark.parametrize("kind", ["combinatorial", "normalized", "randomwalk"])
def test_mpi_laplacian_removes_self_loops_as_laplacian(comm, kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = mpi_laplacian(W, kind, comm).toarray()
        ref = gr.laplacian(W, kind).toarray()
    assert got[0, 0] == ref[0, 0] == 1.0
    assert np.abs(got - ref).max() <= 1e-15


def test_mpi_laplacian_refuses_an_asymmetric_w(comm):
    with pytest.raises(ValueError, match="symmetric"):
        mpi_laplacian(sp.csr_array(np.array([[0.0, 1.0], [2.0, 0.0]])), "combinatorial", comm)


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_dask_laplacian_removes_self_loops_as_laplacian(client, kind):
    from graphrkhs.distributed import dask_laplacian

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = dask_laplacian(W, kind, client).toarray()
        ref = gr.laplacian(W, kind).toarray()
    assert np.abs(got - ref).max() <= 1e-15
