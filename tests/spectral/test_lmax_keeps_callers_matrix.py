"""``lmax`` / ``chebyshev_filter`` (any backend) leave a caller's Laplacian with duplicate entries as it was.

``csr_array(L)`` shares L's arrays and scipy's ``abs(L)`` sums the duplicates of that view in place, so the
caller's L kept stale entries past its nnz: afterwards ``L.count_nonzero()`` was 12 for a matrix of 7 entries
(and ``L.tocoo()`` raised "index ... exceeds matrix dimension" when the stale indices were out of range).  The filter's values are checked against
the dense oracle too.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs import filters


def _laplacian_duplicated():
    """The path 0-1-2's combinatorial Laplacian, each off-diagonal entry stored as two halves, unsorted."""
    rows = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2])
    cols = np.array([1, 0, 1, 1, 0, 2, 1, 0, 2, 2, 1, 2, 1])
    vals = np.array([-0.5, 1.0, -0.5, 0.0, -0.5, -0.5, 2.0, -0.5, -0.5, 0.0, -0.5, 1.0, -0.5])
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=3))])
    return sp.csr_array((vals, cols, indptr), shape=(3, 3))


def _snapshot(M):
    return M.indptr.copy(), M.indices.copy(), M.data.copy()


@pytest.mark.parametrize("call", ["lmax", "chebyshev_filter", "chebyshev_filter_lmax", "chebyshev_filter_mpi"])
def test_the_callers_laplacian_keeps_its_arrays(call):
    L = _laplacian_duplicated()
    dense = np.array([[1.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]])
    assert not L.has_canonical_format
    snap = _snapshot(L)
    x = np.array([1.0, -2.0, 0.5])
    if call == "lmax":
        assert 3.0 <= gr.lmax(L) <= 3.0 * 1.02                     # eigenvalues 0, 1, 3
    else:
        kw = {"lmax": 3.5} if call == "chebyshev_filter_lmax" else {}
        backend = "mpi" if call == "chebyshev_filter_mpi" else "numpy"
        y = gr.chebyshev_filter(L, filters.Heat(1.0), x, backend=backend, **kw)
        np.testing.assert_allclose(y, gr.exact_filter(dense, filters.Heat(1.0), x), rtol=0, atol=1e-8)
    assert all(np.array_equal(a, b) for a, b in zip((L.indptr, L.indices, L.data), snap))
    np.testing.assert_array_equal(L.tocoo().toarray(), dense)
