"""The distributed entry points leave the caller's sparse matrix as it was.

``scipy.sparse.csr_array(W)`` shares W's arrays; summing the duplicates of such a view in place (the
partition's pattern, ``DistributedCSR.from_local``'s rows) rewrote the caller's ``indptr``, ``indices`` and
``data``: W kept stale entries past its ``nnz``, so that afterwards ``W.tocoo()`` raised "axis 0 index
4602678819172646912 exceeds matrix dimension 3", ``W.count_nonzero()`` was 7 for 4 entries and
``W.data.sum()`` 5.5 for a total weight of 4.  Runs under plain pytest (one rank) and ``mpiexec -n 2``.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.distributed import DistributedCSR, partition_graph, partition_plan


def _duplicated():
    """A 3-node graph whose CSR stores w_01 and w_10 as two halves each, row 0 unsorted (total weight 4)."""
    data = np.array([0.5, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5])
    indices = np.array([1, 2, 1, 0, 0, 0, 0])
    indptr = np.array([0, 3, 5, 7])
    return sp.csr_array((data, indices, indptr), shape=(3, 3))


def _laplacian_duplicated():
    """The combinatorial Laplacian of the graph above, its off-diagonal entries stored as two halves."""
    L = gr.laplacian(_duplicated()).tocoo()
    off = L.row != L.col
    rows = np.concatenate([L.row[~off], L.row[off], L.row[off]])
    cols = np.concatenate([L.col[~off], L.col[off], L.col[off]])
    vals = np.concatenate([L.data[~off], L.data[off] / 2, L.data[off] / 2])
    order = np.argsort(rows, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=3))])
    return sp.csr_array((vals[order], cols[order], indptr), shape=(3, 3))


def _snapshot(M):
    return M.indptr.copy(), M.indices.copy(), M.data.copy()


def _unchanged(M, snap):
    return all(np.array_equal(a, b) for a, b in zip((M.indptr, M.indices, M.data), snap))


CALLS = {
    "partition_graph": lambda W, comm: partition_graph(W, 2, method="rcm"),
    "partition_plan": lambda W, comm: partition_plan(W, 2, method="rcm"),
    "from_global": lambda W, comm: DistributedCSR.from_global(W, comm),
    "from_local": None,    # below: each rank passes its own rows
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_callers_matrix_keeps_its_arrays(comm, name):
    W = _laplacian_duplicated() if name.startswith("from") else _duplicated()
    if name == "from_local":
        # the rows themselves as the caller holds them (rank 0 holds all, the others none)
        W_rows = W if comm.rank == 0 else sp.csr_array((0, 3))
        snap = _snapshot(W_rows)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            DistributedCSR.from_local(W_rows, np.arange(3) if comm.rank == 0 else np.zeros(0, dtype=np.int64), 3,
                                      comm)
        ok = _unchanged(W_rows, snap)
        assert comm.allgather(bool(ok)) == [True] * comm.size
        return
    snap = _snapshot(W)
    dense = W.toarray()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        CALLS[name](W, comm)
    assert _unchanged(W, snap)
    assert W.count_nonzero() == np.count_nonzero(dense)
    np.testing.assert_array_equal(W.tocoo().toarray(), dense)
