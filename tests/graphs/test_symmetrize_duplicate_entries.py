"""symmetrize reads a sparse matrix with duplicate stored entries as their sum, as as_adjacency does.

A non-canonical CSR / CSC matrix storing w_01 as the two entries -1 and 4 (the weight 3: toarray(), W @ x and
as_adjacency all read 3) was refused with "W has negative weights (min -1)": the checks read the stored
entries before their duplicates were summed.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import as_adjacency, symmetrize


def _non_canonical(fmt):
    # CSR entries (0, 1): -1 and 4 -> 3; (1, 0): 2; (1, 2): 0.5 and 0.5 -> 1; (2, 1): 1
    data = np.array([-1.0, 4.0, 2.0, 0.5, 0.5, 1.0])
    indices, indptr = np.array([1, 1, 0, 2, 2, 1]), np.array([0, 2, 5, 6])
    cls = sp.csr_array if fmt == "csr" else sp.csc_array      # CSC: the transpose, with the same duplicates
    W = cls((data, indices, indptr), shape=(3, 3))
    assert not W.has_canonical_format
    return W


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("mode", ["union", "mutual", "average"])
def test_duplicates_are_summed_before_the_checks(fmt, mode):
    W = _non_canonical(fmt)
    A = W.toarray()
    assert A.min() >= 0
    expected = {"union": np.maximum(A, A.T), "mutual": np.minimum(A, A.T), "average": (A + A.T) / 2}[mode]
    before = W.data.copy()
    S = symmetrize(W, mode)
    np.testing.assert_array_equal(S.toarray(), expected)
    np.testing.assert_array_equal(W.data, before)          # the caller's matrix is untouched
    assert S.has_sorted_indices
    # and the result is a graph as_adjacency takes as it is
    np.testing.assert_array_equal(as_adjacency(S).toarray(), expected)
