"""``conjugate_gradient`` (its symmetry check, ``symmetry_gap``) leaves a caller's matrix with duplicate entries
as it was.

``symmetry_gap`` took ``max |A|`` of a non-canonical A as ``abs(A).max()``; scipy's ``abs`` sums the
duplicates in place, on arrays that ``csr_array(A)`` shares with the caller's matrix, which then kept stale
entries past its nnz (a 7-entry matrix had ``count_nonzero()`` 11).  The solution is checked against a dense
solve too.
"""

import numpy as np
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs._core.linalg import symmetry_gap


def _spd_duplicated():
    """L + I of the path 0-1-2, each off-diagonal entry of L stored as two halves, unsorted."""
    rows = np.array([0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2])
    cols = np.array([1, 0, 1, 0, 2, 1, 0, 2, 1, 2, 1])
    vals = np.array([-0.5, 2.0, -0.5, -0.5, -0.5, 3.0, -0.5, -0.5, -0.5, 2.0, -0.5])
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=3))])
    return sp.csr_array((vals, cols, indptr), shape=(3, 3))


def _snapshot(M):
    return M.indptr.copy(), M.indices.copy(), M.data.copy()


def _unchanged(M, snap):
    return all(np.array_equal(a, b) for a, b in zip((M.indptr, M.indices, M.data), snap))


def test_conjugate_gradient_keeps_the_callers_matrix():
    A = _spd_duplicated()
    dense = np.array([[2.0, -1.0, 0.0], [-1.0, 3.0, -1.0], [0.0, -1.0, 2.0]])
    assert not A.has_canonical_format
    snap = _snapshot(A)
    b = np.array([1.0, -1.0, 0.5])
    x = gr.conjugate_gradient(A, b, tol=1e-12).x
    np.testing.assert_allclose(x, np.linalg.solve(dense, b), rtol=1e-10, atol=0)
    assert _unchanged(A, snap)
    assert A.count_nonzero() == 7
    np.testing.assert_array_equal(A.tocoo().toarray(), dense)


def test_symmetry_gap_of_a_matrix_with_duplicates():
    A = _spd_duplicated()
    snap = _snapshot(A)
    assert symmetry_gap(A) == (0.0, 3.0)
    assert _unchanged(A, snap)
